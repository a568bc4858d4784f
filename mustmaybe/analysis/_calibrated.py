"""`report --calibration`: the condition matrix's P and D corrected for the checker's measured error.

`Calibration` carries what the report needs from `calibrate()`'s output (the instrument, the sets and
their n, the state confusion); `adjusted_columns` adds P_adj/D_adj with their intervals to the
condition matrix; `calibration_section` writes what was done and on what assumption.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl
from pydantic import BaseModel, ConfigDict

from ._correction import STATES, Correction, correct_shares
from ._matrix import _join
from ._model import Paragraph, ReportTable, Section, interval, table

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

    @classmethod
    def from_result(cls, result: Mapping[str, Any]) -> Calibration:
        """From `mustmaybe.checker.calibrate()`'s output."""
        return cls(checker=result["checker"], n=result["n"],
                   sets=tuple(CalibrationSet(name=s["set"], n=s["n"], split=s.get("split", "unspecified"))
                              for s in result.get("sets", ())),
                   confusion=result["state"]["confusion"])


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


def calibration_section(calibration: Calibration) -> Section:
    """The report-level section: sets and n, the estimator, the assumption, the confusion matrix."""
    sets = ", ".join(f"{s.name} (n = {s.n}, {s.split})" for s in calibration.sets) or "none"
    t = confusion_table("calibration_confusion", f"Confusion of {calibration.checker} on the labeled sets "
                        "(rows: gold state; columns: the checker's state; % of the row)", calibration.confusion,
                        "gold", f"{calibration.n} labeled artifacts")
    return Section("Rates corrected for the checker's measured error", 2, [
        Paragraph(f"Instrument: {calibration.checker}. Labeled sets: {sets}; {calibration.n} artifacts in all. "
                  f"P_adj and D_adj use the {ESTIMATOR}. Their 95% intervals come from a parametric bootstrap "
                  "that redraws both the episodes (task clusters, like every interval here) and each gold row "
                  "of the confusion matrix (multinomial with that row's n), so they carry the labeled sets' "
                  "sampling error as well as the run's."),
        Paragraph(ASSUMPTION, "note"),
        t,
    ])


def adjusted_table(cm: pl.DataFrame, title: str, notes: list[str], *, tag: str = "adj",
                   tid: str = "condition_matrix_adjusted") -> ReportTable:
    """Raw beside corrected P and D per condition-matrix row (`tag`: the columns' `rate_columns` name)."""
    return table(tid, title, cm, [
        ("condition", "condition"), ("topology", "topology"), ("models", "models"), ("n", "n"),
        ("P", "P"), (f"P_{tag}", f"P_{tag}"), (f"P_{tag} 95% CI", interval(f"P_{tag}_lo", f"P_{tag}_hi")),
        ("D", "D"), (f"D_{tag}", f"D_{tag}"), (f"D_{tag} 95% CI", interval(f"D_{tag}_lo", f"D_{tag}_hi")),
    ], notes=notes)
