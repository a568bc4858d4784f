"""The checker's measured error beside the rates it qualifies, and `report --calibration`'s corrected P and D.

`Calibration` carries what the report needs from `calibrate()`'s output or from the measurement shipped
with the package (`shipped_calibration`: checker/measured_error.json, written by
scripts/measured_error.py): the instrument, the sets and their n, the state confusion, the P/D macro-F1,
the P->D and D->P shares and the field F1s with their intervals. `measured_error_blocks` states them
beside the condition matrix; `adjusted_columns` adds P_adj/D_adj with their intervals to the condition
matrix; `corrected_blocks` writes what was done and on what assumption, `calibration_confusion` the confusion
it inverted (shown beside the corrected rates). `corrected_columns` is the one estimator behind both
`--calibration` (tag `adj`) and `report --panel` (tag `panel`, see _panel_calibrated.py); `confusion_table`
renders any source's confusion.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl
from pydantic import BaseModel, ConfigDict

from ._correction import STATES, Correction, correct_shares
from ._matrix import _join
from ._model import Paragraph, ReportTable, interval, table

ADJ_COLUMNS: tuple[str, ...] = ("P_adj", "P_adj_lo", "P_adj_hi", "D_adj", "D_adj_lo", "D_adj_hi")
_BY = ["condition", "topology", "models"]
ESTIMATOR = (
    "matrix-inversion estimator: with A[pred][gold] = P(checker says pred | true state gold), measured on the "
    "labeled sets, the observed shares are q = A·π, so the true shares are estimated as π = A⁻¹q, projected "
    "onto the simplex when sampling noise puts them outside it"
)
ASSUMPTION = (
    "The correction assumes the checker's per-class error rates on the labeled sets transfer to this run's "
    "artifacts: if the run's artifacts are harder or easier to read than the labeled ones, the corrected "
    "rates are off by that difference, and the intervals do not show it."
)


class CalibrationSet(BaseModel):
    """One labeled set the checker was measured on."""

    model_config = ConfigDict(frozen=True)

    name: str
    n: int
    split: str = "unspecified"


class Calibration(BaseModel):
    """The checker's measured state confusion, pooled over the labeled sets (`confusion[gold][pred]`)."""

    model_config = ConfigDict(frozen=True)

    checker: str
    n: int
    sets: tuple[CalibrationSet, ...]
    confusion: dict[str, dict[str, int]]
    # Where the figures come from: the measurement shipped with mustmaybe, or `--calibration` (measured now).
    source: Literal["shipped", "calibration"] = "calibration"
    pd_macro_f1: float | None = None
    pd_macro_f1_ci: tuple[float, float] | None = None
    p_to_d: float | None = None  # gold preserved scored deactivated: the error that manufactures the outcome
    p_to_d_ci: tuple[float, float] | None = None
    d_to_p: float | None = None  # gold deactivated scored preserved
    fields: dict[str, tuple[float, tuple[float, float] | None]] = {}  # field -> (macro-F1, 95% interval)

    @classmethod
    def from_result(cls, result: Mapping[str, Any]) -> Calibration:
        """From `mustmaybe.checker.calibrate()`'s output (intervals when the sets are of one split)."""
        splits = result.get("splits") or {}
        iv = next(iter(splits.values())).get("intervals", {}) if len(splits) == 1 else {}
        conf = result["state"]["confusion"]
        return cls(checker=result["checker"], n=result["n"],
                   sets=tuple(CalibrationSet(name=s["set"], n=s["n"], split=s.get("split", "unspecified"))
                              for s in result.get("sets", ())),
                   confusion=conf, pd_macro_f1=result["state"].get("pd_macro_f1"),
                   pd_macro_f1_ci=_pair(iv.get("pd_macro_f1")),
                   p_to_d=result["state"].get("preserved_called_deactivated"),
                   p_to_d_ci=_pair(iv.get("preserved_called_deactivated")), d_to_p=_d_to_p(conf),
                   fields={f: (b["macro_f1"], _pair((iv.get("fields") or {}).get(f)))
                           for f, b in result.get("fields", {}).items()})

    @classmethod
    def from_measured(cls, obj: Mapping[str, Any]) -> Calibration:
        """From scripts/measured_error.py's JSON (checker/measured_error.json)."""
        st = obj["state"]
        return cls(checker=obj["checker"], n=obj["n"], source="shipped",
                   sets=tuple(CalibrationSet(name=s["name"], n=s["n"], split=s["split"]) for s in obj["sets"]),
                   confusion=st["confusion"], pd_macro_f1=st["pd_macro_f1"], pd_macro_f1_ci=_pair(st["pd_macro_f1_ci"]),
                   p_to_d=st["preserved_called_deactivated"], p_to_d_ci=_pair(st["preserved_called_deactivated_ci"]),
                   d_to_p=st["deactivated_called_preserved"],
                   fields={f: (b["macro_f1"], _pair(b["macro_f1_ci"])) for f, b in obj["fields"].items()})


def _pair(v: Sequence[float] | None) -> tuple[float, float] | None:
    return None if v is None else (float(v[0]), float(v[1]))


def _d_to_p(conf: Mapping[str, Mapping[str, int]]) -> float | None:
    gold_d = sum(conf.get("deactivated", {}).values())
    return round(conf["deactivated"].get("preserved", 0) / gold_d, 4) if gold_d else None


def measured_error_file() -> Path:
    """checker/measured_error.json, as installed (mustmaybe/checker/measured_error.json)."""
    from ._checker_files import checker_dir

    return checker_dir() / "measured_error.json"


def shipped_calibration() -> Calibration | None:
    """The checker's measured error shipped with the package (None when the file is missing or unreadable)."""
    try:
        return Calibration.from_measured(json.loads(measured_error_file().read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def rate_columns(tag: str) -> tuple[str, ...]:
    """The six corrected-rate columns for a correction named `tag` (`adj`: labeled sets; `panel`: a judge panel)."""
    return tuple(f"{s}_{tag}{suffix}" for s in ("P", "D") for suffix in ("", "_lo", "_hi"))


def adjusted_columns(
    cm: pl.DataFrame, ep: pl.DataFrame, calibration: Calibration, *, resamples: int, rng: np.random.Generator,
) -> tuple[pl.DataFrame, list[str]]:
    """The condition matrix with ADJ_COLUMNS (percent) added, and notes on rows that needed a remark."""
    return corrected_columns(cm, ep, calibration.confusion, tag="adj", resamples=resamples, rng=rng)


def corrected_columns(
    cm: pl.DataFrame, ep: pl.DataFrame, confusion: Mapping[str, Mapping[str, int]], *, tag: str, resamples: int,
    rng: np.random.Generator, source: str = "the labeled sets",
) -> tuple[pl.DataFrame, list[str]]:
    """The condition matrix with `rate_columns(tag)` (percent) added: each row's P and D corrected for the
    checker's confusion `confusion[gold][pred]` (gold from `source`), and notes on rows that needed a remark.

    One estimator serves every source of gold labels (`report --calibration` and `report --panel`), so the two
    corrections differ only in where the confusion was measured.
    """
    columns = rate_columns(tag)
    schema: dict[str, pl.DataType] = {c: pl.Float64() for c in columns}
    if cm.is_empty() or ep.is_empty():
        return cm.with_columns(*(pl.lit(None, pl.Float64).alias(c) for c in columns)), []
    per_task = ep.group_by([*_BY, "task"]).agg(*(pl.col(s).cast(pl.Int64).sum() for s in ("P", "D", "U")))
    rows: list[dict[str, object]] = []
    problems: set[str] = set()
    clipped: list[str] = []
    failed = 0
    for key, part in per_task.partition_by(_BY, as_dict=True, maintain_order=True).items():
        c = correct_shares(confusion, part.select("P", "D", "U").to_numpy(), resamples=resamples, rng=rng,
                           source=source)
        row: dict[str, object] = dict(zip(_BY, key, strict=True)) | _cells(c, tag)
        rows.append(row)
        if c.problem:
            problems.add(c.problem)
        if c.clipped:
            clipped.append(" ".join(str(k) for k in key))
        failed += c.failed_resamples
    adj = pl.DataFrame(rows, schema={**{c: ep.schema[c] for c in _BY}, **schema})
    notes = [f"No corrected rates: {p}." for p in sorted(problems)]
    if clipped:
        notes.append("A⁻¹q fell outside the simplex and was projected onto it (a true share estimated below 0 "
                     f"is reported as 0) in: {'; '.join(clipped)}.")
    if failed:
        notes.append(f"{failed} bootstrap resample(s) drew a confusion matrix that could not be inverted and "
                     "were left out of the intervals.")
    return _join(cm, adj, _BY), notes


def _cells(c: Correction, tag: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for i, s in enumerate(("P", "D")):
        for suffix, vals in (("", c.adjusted), ("_lo", c.lo), ("_hi", c.hi)):
            out[f"{s}_{tag}{suffix}"] = None if vals is None else vals[i] * 100.0
    return out


def confusion_table(tid: str, title: str, confusion: Mapping[str, Mapping[str, int]], gold: str,
                    coverage: str) -> ReportTable:
    """A state confusion matrix as a report table: rows gold, columns the checker's state, counts and row %."""
    rows = []
    for g in STATES:
        counts = [int(confusion.get(g, {}).get(p, 0)) for p in STATES]
        total = sum(counts)
        rows.append([g, *(f"{k} ({100.0 * k / total:.0f}%)" if total else str(k) for k in counts), str(total)])
    return ReportTable(tid, title, [f"{gold} \\ checker", *STATES, "n"], rows, coverage=coverage)


def calibration_confusion(calibration: Calibration, suffix: str = "") -> ReportTable:
    """The checker's state confusion on the labeled sets: counts and % of each gold row."""
    return confusion_table("calibration_confusion", f"Confusion of {calibration.checker} on the labeled sets "
                           f"(rows: gold state; columns: the checker's state; % of the row){suffix}",
                           calibration.confusion, "gold", f"{calibration.n} labeled artifacts")


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100.0 * v:.1f}%"


def _ci(v: tuple[float, float] | None, pct: bool = False) -> str:
    if v is None:
        return "–"
    return f"[{_pct(v[0])}, {_pct(v[1])}]" if pct else f"[{v[0]:.3f}, {v[1]:.3f}]"


def _sets_text(calibration: Calibration) -> str:
    splits = sorted({s.split for s in calibration.sets})
    return (f"{len(calibration.sets)} labeled set(s) of split {', '.join(splits) or 'none'}, "
            f"{calibration.n} artifacts")


def measured_error_blocks(
    calibration: Calibration | None, instruments: Sequence[str], *, corrected: bool, suffix: str = "",
) -> list[Paragraph | ReportTable]:
    """What the instrument's measured error is, stated beside the rates it qualifies (the condition matrix).

    `instruments`: the instruments that scored the panel's rates; a warning when the measurement is for another.
    `corrected`: the corrected rates (and the confusion they invert) follow; else the confusion is shown here.
    """
    if calibration is None:
        return [Paragraph("No measured error of the instrument: the measurement shipped with mustmaybe "
                          "(mustmaybe/checker/measured_error.json) is missing. Give --calibration SET to measure "
                          "the checker on labeled sets; until then P, D and U are what the checker called, with an "
                          "error this report does not state.", "warning")]
    where = ("shipped with mustmaybe (scripts/measured_error.py on every labeled set not used for tuning)"
             if calibration.source == "shipped" else "measured now on the --calibration sets")
    version = calibration.checker.removeprefix("rules@")
    text = (f"Measured error of the instrument that qualifies P, D and U above: checker {calibration.checker} "
            f"(measured for checker version {version}), {where}: {_sets_text(calibration)}. P/D macro-F1 "
            f"{'–' if calibration.pd_macro_f1 is None else f'{calibration.pd_macro_f1:.3f}'} "
            f"{_ci(calibration.pd_macro_f1_ci)}; P→D (a gold-preserved artifact scored deactivated) "
            f"{_pct(calibration.p_to_d)} {_ci(calibration.p_to_d_ci, True)}; D→P (gold deactivated scored "
            f"preserved) {_pct(calibration.d_to_p)}. Intervals: 95%, task bootstrap"
            + ("." if calibration.pd_macro_f1_ci else " (none: the sets mix splits or hold one task)."))
    out: list[Paragraph | ReportTable] = [Paragraph(text, "note")]
    other = sorted(i for i in set(instruments) if i != calibration.checker)
    if other:
        out.append(Paragraph(
            f"CHECKER VERSION DIFFERS: the measured error is for {calibration.checker}, but these rates were "
            f"scored by {', '.join(other)}. The stated error may not describe the instrument that made them: "
            "rescore the runs with this checker, or measure theirs with --calibration SET.", "warning"))
    rows = [["P/D macro-F1", "–" if calibration.pd_macro_f1 is None else f"{calibration.pd_macro_f1:.3f}",
             _ci(calibration.pd_macro_f1_ci)],
            ["P→D share", _pct(calibration.p_to_d), _ci(calibration.p_to_d_ci, True)],
            ["D→P share", _pct(calibration.d_to_p), "–"],
            *([f"{f} macro-F1", f"{f1:.3f}", _ci(ci)] for f, (f1, ci) in calibration.fields.items())]
    out.append(ReportTable("measured_error", f"Measured error of {calibration.checker}{suffix}",
                           ["measure", "value", "95% CI"], rows,
                           coverage=f"{calibration.n} labeled artifacts in {len(calibration.sets)} set(s)"))
    if not corrected:
        out.append(calibration_confusion(calibration, suffix))
    return out


def corrected_blocks(calibration: Calibration) -> list[Paragraph]:
    """What the correction does and assumes (the corrected-rates section, before its table)."""
    sets = ", ".join(f"{s.name} (n = {s.n}, {s.split})" for s in calibration.sets) or "none"
    return [
        Paragraph(f"Instrument: {calibration.checker}. Labeled sets: {sets}; {calibration.n} artifacts in all. "
                  f"P_adj and D_adj use the {ESTIMATOR}. Their 95% intervals come from a parametric bootstrap "
                  "that redraws both the episodes (task clusters, like every interval here) and each gold row "
                  "of the confusion matrix (multinomial with that row's n), so they carry the labeled sets' "
                  "sampling error as well as the run's. The confusion matrix it inverts is beside the table."),
        Paragraph(ASSUMPTION, "note"),
    ]


def adjusted_table(cm: pl.DataFrame, title: str, notes: list[str], *, tag: str = "adj",
                   tid: str = "condition_matrix_adjusted") -> ReportTable:
    """Raw beside corrected P and D per condition-matrix row (`tag`: the columns' `rate_columns` name).

    Like every wide report table it names its row by the first three columns and pins n and the rates with
    their intervals, so the HTML keeps them in sight when the table is split.
    """
    rates = ("n", "P", f"P_{tag}", f"P_{tag} 95% CI", "D", f"D_{tag}", f"D_{tag} 95% CI")
    return table(tid, title, cm, [
        ("condition", "condition"), ("topology", "topology"), ("models", "models"), ("n", "n"),
        ("P", "P"), (f"P_{tag}", f"P_{tag}"), (f"P_{tag} 95% CI", interval(f"P_{tag}_lo", f"P_{tag}_hi")),
        ("D", "D"), (f"D_{tag}", f"D_{tag}"), (f"D_{tag} 95% CI", interval(f"D_{tag}_lo", f"D_{tag}_hi")),
    ], notes=notes, labels=3, pinned=rates)
