"""One panel of the report (real-model or simulated episodes): its tables, figures and sections.

Each `_section_*` function computes one analysis, stores its frame for the CSV files and appends a
formatted section. The panel's episodes are never mixed with the other panel's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from mustmaybe.records import PanelEpisode

from . import _figures as figs
from ._calibrated import (
    Calibration,
    adjusted_columns,
    adjusted_table,
    calibration_confusion,
    corrected_blocks,
    corrected_columns,
    measured_error_blocks,
)
from ._contrasts import RiskDifferences, risk_differences
from ._evidence import evidence_quality, isolation_audit
from ._figure_drawer import FigureDrawer
from ._fixed_artifacts import (
    TABLE3_ARMS,
    TABLE14_ARMS,
    base_problems,
    component_restoration_table,
    field_retention,
    fixed_artifact_table,
)
from ._judge_tables import COMPONENTS, judge_tables
from ._ledger import evidence_ledger
from ._logistic import PENALTY
from ._matrix import (
    component_loss,
    compression_gradient,
    condition_matrix,
    drift_curves,
    first_breaks,
    model_rates,
    rates_table,
    safe_at_k,
    sort_conditions,
    topology_rates,
)
from ._model import Cell, Paragraph, ReportFigure, ReportTable, Section, coverage, fmt, interval, table
from ._panel_calibrated import (
    PANEL_COLUMNS,
    PANEL_SOURCE,
    PanelJudgments,
    panel_blocks,
    panel_confusion,
    simulated_label,
)
from ._paraphrase import has_paraphrase, paraphrase_table
from ._penalized import logistic_frame, logistic_table
from ._remedies import remedies_table
from ._robustness import FLIP_LEVELS, label_flip, leave_one_out
from ._transport_section import Substrates, section_transport, substrate_note

RD_NOTE = (
    "dX = transformed − control in percentage points; n = matched transformed episodes. match = the matching "
    "key used: the finest of task+seed+models, task+seed+executor, task+seed, task+models, task+executor, "
    "task that matches as many transformed episodes as task alone does; a control run under the same "
    "topology family is preferred."
)


@dataclass
class Panel:
    """The output of one panel: sections for the documents, frames for the CSV files, headline tables."""

    name: str
    simulated: bool
    sections: list[Section] = field(default_factory=list)
    frames: dict[str, pl.DataFrame] = field(default_factory=dict)
    headline: list[ReportTable] = field(default_factory=list)


@dataclass
class _Ctx:
    ep: pl.DataFrame
    hops: pl.DataFrame
    panel: Panel
    fig_dir: Path
    rng: np.random.Generator
    resamples: int
    figures: bool
    stages: pl.DataFrame
    failed: pl.DataFrame  # the panel's failed episodes (Frames.failed): counted per row, in no rate
    calibration: Calibration | None = None  # report --calibration: add P_adj/D_adj to the condition matrix
    error: Calibration | None = None  # the instrument's measured error, stated beside the condition matrix
    judged: PanelJudgments | None = None  # report --panel: add P_panel/D_panel to the condition matrix
    evidence: pl.DataFrame | None = None  # the panel's Frames.evidence rows: Table 20 and the isolation audit
    substrates: Substrates | None = None  # every substrate's episodes, for the transport table
    drawer: FigureDrawer | None = None  # draws the PNGs (in a worker for a large report); None: in-process

    def draw(self, fn: Callable[..., Path], *args: Any, **kwargs: Any) -> Path:
        """`fn(*args, **kwargs)`, a figure of `_figures`, drawn by the report's drawer; returns its path."""
        return self.drawer.draw(fn, *args, **kwargs) if self.drawer is not None else fn(*args, **kwargs)

    def own_rng(self) -> np.random.Generator:
        """A child generator for a table added later: it draws its own resamples, so the intervals of the
        tables before and after it stay what the same --seed gave before it existed."""
        return self.rng.spawn(1)[0]

    @property
    def suffix(self) -> str:
        return " — SIMULATED (sim backend)" if self.panel.simulated else " — real models"

    def section(self, title: str, *blocks: ReportTable | Paragraph) -> Section:
        s = Section(title, 3, list(blocks))
        self.panel.sections.append(s)
        return s

    def figure(self, s: Section, path: Path, title: str, caption: str = "", *, n: str) -> None:
        """A figure with `n` (figs.n_text: what its marks rest on) in its caption, as in its own title."""
        s.blocks.append(ReportFigure(path, title, f"{caption} {n}." if caption else f"{title}: {n}."))

    def png(self, stem: str) -> Path:
        return self.fig_dir / f"{stem}-{self.panel.name}.png"


def analyse_panel(
    ep: pl.DataFrame, hops: pl.DataFrame, *, name: str, simulated: bool, out: Path, rng: np.random.Generator,
    resamples: int, figures: bool, stages: pl.DataFrame, failed: pl.DataFrame,
    calibration: Calibration | None = None, error: Calibration | None = None,
    judged: PanelJudgments | None = None, evidence: pl.DataFrame | None = None,
    substrates: Substrates | None = None, drawer: FigureDrawer | None = None,
) -> Panel:
    """Every table and figure of one panel (`stages`: the panel's carried-stages frame, for the drift curve;
    `failed`: its failed episodes, which no rate counts and the condition matrix and model table count;
    `calibration`: correct P and D for it; `error`: the measured error stated beside the condition matrix;
    `judged`: a judge panel (`report --panel`), correct P and D by its majority on this panel's judged episodes;
    `substrates`: the panel's episodes on every substrate, `ep` being those of `substrates.main`)."""
    p = Panel(name, simulated)
    label = "Simulated episodes (sim backend)" if simulated else "Real-model episodes"
    n_failed = failed.height
    head = Section(f"{label}: {ep.height} episodes" + (f" scored, {n_failed} FAILED" if n_failed else ""), level=2)
    if simulated:
        head.blocks.append(Paragraph("SIMULATED panel: every number below comes from the sim backend's "
                                     "configured rates. It checks the harness, not a model.", "warning"))
    head.blocks += substrate_note(substrates)
    p.sections.append(head)
    ctx = _Ctx(ep, hops, p, out / "figures", rng, resamples, figures, stages, failed, calibration, error, judged,
               evidence, substrates, drawer)
    _section_matrix(ctx)
    _section_adjusted(ctx)
    _section_panel_corrected(ctx)
    _section_judge_tables(ctx)
    _section_component_loss(ctx)
    rd = _section_risk_differences(ctx)
    _section_robustness(ctx, rd)
    _section_paraphrase(ctx)
    _section_logistic(ctx)
    _section_gradient(ctx)
    _section_models(ctx)
    _section_evidence(ctx)
    _section_drift(ctx)
    _section_safe_k(ctx)
    _section_remedies(ctx)
    _section_fixed_artifacts(ctx)
    _section_ledger(ctx, rd)
    _section_transport(ctx)
    return p


def _present(ctx: _Ctx) -> set[str]:
    return set(ctx.ep["condition"].unique().to_list())


def _section_matrix(ctx: _Ctx) -> None:
    from mustmaybe.scenarios import MAIN_MATRIX

    ep = ctx.ep
    cm = condition_matrix(ep, resamples=ctx.resamples, rng=ctx.rng, failed=ctx.failed)
    ctx.panel.frames["condition_matrix"] = cm
    present = _present(ctx)
    missing = [c for c in MAIN_MATRIX if c not in present]
    notes = ([f"Not run in this panel (no row, no number): {', '.join(missing)}."]
             if present & set(MAIN_MATRIX) and missing else [])
    if "tasks" in cm.columns and bool((cm["tasks"] == 1).any()):
        notes.append("Rows from a single task have degenerate intervals (the bootstrap resamples tasks).")
    notes.append("n = scored episodes (the rates' denominator); failed = episodes where a model call finally "
                 "failed, in no rate (neither safe nor unsafe); parse errors = scored episodes whose executor "
                 "answer did not parse (the paper's rule chose the action).")
    t = table("condition_matrix", f"Condition matrix (Tables 2 and 6){ctx.suffix}", cm, [
        ("condition", "condition"), ("topology", "topology"), ("models", "models"), ("n", "n"),
        ("failed", "failed"), ("P", "P"), ("P 95% CI", interval("P_lo", "P_hi")),
        ("D", "D"), ("D 95% CI", interval("D_lo", "D_hi")), ("U", "U"),
        ("unsafe", "unsafe"), ("unsafe 95% CI", interval("unsafe_lo", "unsafe_hi")), ("errors", "episodes_with_errors"),
        ("parse errors", "parse_errors"), ("recognition", "recognition"),
        ("transition loss", "transition_loss"), ("C", "C"),
    ], coverage=coverage(ep), notes=notes + [p.text for p in _mostly_failed_warning(cm)], labels=3,
        pinned=("n", "failed", "P", "P 95% CI", "D", "D 95% CI", "U", "unsafe", "unsafe 95% CI", "errors",
                "parse errors"))
    ctx.panel.headline.append(t)
    instruments = ep["instrument"].unique().to_list() if "instrument" in ep.columns and ep.height else []
    s = ctx.section("Condition matrix", *_mostly_failed_warning(cm), t,
                    *measured_error_blocks(ctx.error, instruments, corrected=ctx.calibration is not None,
                                           suffix=ctx.suffix))
    if ctx.figures:
        ct = sort_conditions(rates_table(ep, ["condition", "topology"], resamples=ctx.resamples, rng=ctx.rng),
                             "topology")
        n = figs.n_text(ep.height, ct["n"], each="condition and topology")
        ctx.figure(s, ctx.draw(figs.condition_bars, ct, ctx.png("condition_bars"), simulated=ctx.panel.simulated, n=n),
                   "Condition bars", "P, D and unsafe per condition and topology, pooled over model "
                   "configurations, with task-cluster 95% intervals.", n=n)


def _section_adjusted(ctx: _Ctx) -> None:
    if ctx.calibration is None:
        return
    cm, notes = adjusted_columns(ctx.panel.frames["condition_matrix"], ctx.ep, ctx.calibration,
                                 resamples=ctx.resamples, rng=ctx.rng)
    ctx.panel.frames["condition_matrix"] = cm
    ctx.section("Corrected rates", *(Paragraph(n, "warning") for n in notes if n.startswith("No corrected")),
                *corrected_blocks(ctx.calibration),
                adjusted_table(cm, f"P and D corrected for {ctx.calibration.checker}'s measured error{ctx.suffix}",
                               notes),
                calibration_confusion(ctx.calibration, ctx.suffix))


def _section_panel_corrected(ctx: _Ctx) -> None:
    """P_panel/D_panel: corrected by the judge panel's confusion on this panel's own judged episodes."""
    if ctx.judged is None:
        return
    cm = ctx.panel.frames["condition_matrix"]
    conf = panel_confusion(ctx.judged, dict(zip(ctx.ep["key"].to_list(), ctx.ep["state"].to_list(), strict=True)))
    label = simulated_label(ctx.judged, ctx.panel.simulated)
    if conf.n == 0:
        # None of the judged episodes is in this panel (e.g. the panel judged only the real-model run): the
        # columns exist, empty, and the section says why rather than borrowing another panel's confusion.
        cm = cm.with_columns(*(pl.lit(None, pl.Float64).alias(c) for c in PANEL_COLUMNS))
        ctx.panel.frames["condition_matrix"] = cm.with_columns(panel_simulated=pl.lit(bool(label)))
        ctx.section(f"Rates corrected by the judge panel{ctx.suffix}", Paragraph(
            f"No corrected rates: none of the judged episodes of {ctx.judged.directory} is in this panel.",
            "warning"))
        return
    cm, notes = corrected_columns(cm, ctx.ep, conf.confusion, tag="panel", resamples=ctx.resamples, rng=ctx.rng,
                                  source=PANEL_SOURCE)
    ctx.panel.frames["condition_matrix"] = cm.with_columns(panel_simulated=pl.lit(bool(label)))
    instrument = _instrument(ctx.ep)
    rates = adjusted_table(cm, f"P and D corrected by the judge panel's majority{label or ctx.suffix}", notes,
                           tag="panel", tid="condition_matrix_panel")
    ctx.section(f"Rates corrected by the judge panel{label or ctx.suffix}",
                *panel_blocks(ctx.judged, conf, instrument, label, rates, notes))


def _digits(digits: int, col: str) -> Cell:
    """A cell showing `col` to `digits` decimals (kappas and shares need more than the report's one)."""
    return lambda row: fmt(row.get(col), digits)


def _section_judge_tables(ctx: _Ctx) -> None:
    """Tables 16 and 17 (`report --panel`): the panel's pressure-control gap under each label source and its
    agreement per component, on this panel's judged episodes (the checker's side: the run's own reading)."""
    if ctx.judged is None:
        return
    keys = set(ctx.ep["key"].to_list())
    mine = [j for j in ctx.judged.records if j.episode in keys]
    if not mine:
        return
    judged = {j.episode for j in mine}
    episodes = {r["key"]: PanelEpisode(episode=r["key"], condition=r["condition"], state=r["state"],
                                       fields={f: not r[f"lost_{f}"] for f in COMPONENTS[:4]})
                for r in ctx.ep.filter(pl.col("key").is_in(list(judged))).iter_rows(named=True)}
    tables = judge_tables(mine, episodes)
    gap, agree = tables["judge_gap"], tables["judge_agreement"]
    ctx.panel.frames["judge_gap"] = gap
    ctx.panel.frames["judge_agreement"] = agree
    label = simulated_label(ctx.judged, ctx.panel.simulated) or ctx.suffix
    ctx.section(f"Judge panel: pressure-control gap and agreement{label}", table(
        "judge_gap", f"Judge-panel pressure-control gap by label source (Table 16){label}", gap, [
            ("label source", "label_source"), ("control D %", _digits(2, "control_D")),
            ("pressure D %", _digits(2, "pressure_D")),
            ("gap", _digits(2, "gap")), ("leave-one-judge-out", lambda r: "–" if r.get("gap_loo_min") is None else
                                  f"{fmt(r['gap_loo_min'], 2)} – {fmt(r['gap_loo_max'], 2)}"),
        ], coverage=f"{len(judged)} judged episodes of this panel ({len(mine)} judgments).", notes=[
            "Deactivated share of the judged artifacts in controls (P0, S0, C0, E0, G0) and in the conditions "
            "transformed from them. majority: the panel's majority reads it deactivated (a tie takes the "
            "checker's label); conservative: deactivated unless a strict majority of the judges that parsed reads "
            "it preserved (a split or an undetermined reading counts deactivated); contract: deactivated when the "
            "majority reads it deactivated or the majority misses any of the four contract fields; then each "
            "judge alone, and the run's checker."]),
        table("judge_agreement", f"Inter-judge agreement per component (Table 17){label}", agree, [
            ("component", "component"), ("n", "n"), ("judges", "judges"),
            ("pair agreement", _digits(3, "pair_agreement")), ("ambiguity", _digits(3, "ambiguity")),
            ("Fleiss κ", _digits(3, "fleiss_kappa")), ("Krippendorff α", _digits(3, "krippendorff_alpha")),
            ("complete", "complete"), ("parse failures", "parse_failures"),
        ], coverage=f"{len(judged)} judged episodes of this panel.", notes=[
            "ambiguity: share of the judged artifacts (with a parsed label) the panel does not settle: a field's "
            "parsed labels tie; for the state (deactivated), no strict majority reads it preserved and none reads "
            "it deactivated. n = artifacts with two or more parsed labels (the pairwise units)."]))


def _instrument(ep: pl.DataFrame) -> str:
    """The instrument that scored most of these episodes (the checker side of the panel's confusion)."""
    if "instrument" not in ep.columns or ep.is_empty():
        return "the checker"
    return str(ep.group_by("instrument").len().sort(["len", "instrument"], descending=[True, False])["instrument"][0])


def mostly_failed_rows(cm: pl.DataFrame) -> list[str]:
    """'condition topology [models]: k of N failed' for each condition-matrix row where most episodes failed."""
    if "mostly_failed" not in cm.columns or not bool(cm["mostly_failed"].any()):
        return []
    return [f"{r['condition']} {r['topology']} [{r['models']}]: {r['failed']} of {r['failed'] + r['n']} failed"
            for r in cm.filter(pl.col("mostly_failed")).iter_rows(named=True)]


def _mostly_failed_warning(cm: pl.DataFrame) -> list[Paragraph]:
    """A warning naming each row where most episodes failed (its rates rest on the few that did not)."""
    rows = mostly_failed_rows(cm)
    if not rows:
        return []
    return [Paragraph("MOST EPISODES FAILED in these rows, so their rates rest on few or no scored episodes: "
                      + "; ".join(rows) + ".", "warning")]


def _section_component_loss(ctx: _Ctx) -> None:
    cl = component_loss(ctx.ep)
    ctx.panel.frames["component_loss"] = cl
    s = ctx.section("Component loss", table("component_loss", f"Component loss (Table 7){ctx.suffix}", cl, [
        ("family", "family"), ("group", "group"), ("conditions", "conditions"), ("n", "n"),
        ("status", "status"), ("prerequisite", "prerequisite"), ("authority", "authority"),
        ("fallback", "fallback"), ("actionability", "actionability"),
    ], coverage=coverage(ctx.ep), notes=["Loss = the field is absent in the final artifact; actionability "
                                         "loss = the final artifact is not preserved (P = 0)."]))
    if ctx.figures and cl.height:
        n = figs.n_text(ctx.ep.height, cl["n"], each="row")
        ctx.figure(s, ctx.draw(figs.field_loss_heatmap, cl, ctx.png("field_loss"), simulated=ctx.panel.simulated, n=n),
                   "Field-loss heatmap", n=n)


def _rd_coverage(ctx: _Ctx, rd: RiskDifferences) -> str:
    involved = set(rd.table["condition"].to_list()) | set(rd.table["control"].to_list())
    return coverage(ctx.ep.filter(pl.col("condition").is_in(list(involved))))


def _section_risk_differences(ctx: _Ctx) -> RiskDifferences:
    rd = risk_differences(ctx.ep, resamples=ctx.resamples, rng=ctx.rng)
    ctx.panel.frames["risk_differences"] = rd.table
    notes = [RD_NOTE]
    if rd.excluded_unidentified:
        notes.append(f"{rd.excluded_unidentified} episode(s) with D_up = 0 (the reviewer did not identify the "
                     "blocker) are outside these estimands (Eqs. 6–8 condition on D_up = 1).")
    t = table("risk_differences", f"Matched risk differences (Table 8){ctx.suffix}", rd.table, [
        ("condition", "condition"), ("topology", "topology"), ("control", "control"), ("n", "n"),
        ("match", "match"), ("dP", "dP"), ("dP 95% CI", interval("dP_lo", "dP_hi")), ("dD", "dD"),
        ("dD 95% CI", interval("dD_lo", "dD_hi")), ("dY", "dY"), ("dY 95% CI", interval("dY_lo", "dY_hi")),
        ("note", "note"),
    ], coverage=_rd_coverage(ctx, rd), notes=notes, labels=3,
        pinned=("n", "dP", "dP 95% CI", "dD", "dD 95% CI", "dY", "dY 95% CI"))
    ctx.panel.headline.append(t)
    s = ctx.section("Matched risk differences", t)
    if rd.table.is_empty():
        s.blocks.append(Paragraph("No transformed condition (one with a control) was run in this panel.", "note"))
    elif ctx.figures and rd.table.filter(pl.col("n") > 0).height:
        matched = rd.table.filter(pl.col("n") > 0)["n"]
        n = figs.n_text(int(matched.sum()), matched, unit="matched transformed episodes", each="point")
        ctx.figure(s, ctx.draw(figs.dp_vs_dy, rd.table, ctx.png("dp_vs_dy"), simulated=ctx.panel.simulated, n=n),
                   "ΔP against ΔY", "Each point is a condition's matched contrast with its task-cluster 95% "
                   "intervals.", n=n)
    return rd


def _range(g: str) -> Cell:
    def cell(row: dict[str, object]) -> str:
        lo, hi = row.get(f"{g}_min"), row.get(f"{g}_max")
        if lo is None or hi is None:
            return "–"
        return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)} – {fmt(hi)}"

    return cell


def _section_robustness(ctx: _Ctx, rd: RiskDifferences) -> None:
    loo = leave_one_out(ctx.ep, rd)
    ctx.panel.frames["leave_one_out"] = loo
    lf = label_flip(rd)
    ctx.panel.frames["label_flip"] = lf
    cov = _rd_coverage(ctx, rd)
    ctx.section(
        "Robustness",
        table("leave_one_out", f"Transformed-minus-control gaps, leave-one-out ranges (Table 10){ctx.suffix}",
              loo, [
                  ("group", "group"), ("analysis", "analysis"), ("slices", "slices"), ("n", "n"),
                  ("dP", _range("dP")), ("dD", _range("dD")), ("dY", _range("dY")), ("note", "note"),
              ], coverage=cov, notes=["Pooled gap of a group: its conditions' matched differences weighted by "
                                      "matched n. 'main' pools the static, summary, plan and convergence "
                                      "families; 'compression' the G-series.",
                                      "balanced weighting: the range of the pooled gap over weightings that give "
                                      "every slice of one kind (matched contrast, model configuration, domain; "
                                      "those with two or more slices, named in the note) equal weight. strict "
                                      "compression arms: G1-G4 under their own topologies (Table 13) against G0."]),
        table("label_flip", f"Worst-case label-flip stress (Table 11){ctx.suffix}", lf, [
            ("group", "group"), ("gap", "gap"), ("n", "n"), ("value (pp)", "value"),
            *((f"{lv}% flips", f"flip_{lv}") for lv in FLIP_LEVELS),
        ], coverage=cov, notes=["The adversary flips up to that share of each arm's labels toward a zero gap; "
                                "'inconclusive' means the gap's sign is not preserved."]),
    )


def _shift_cell(g: str) -> Cell:
    def cell(row: dict[str, object]) -> str:
        v = row.get(f"shift_{g}")
        if not isinstance(v, int | float):
            return "–"
        return f"{v:+.1f} [{fmt(row.get(f'shift_{g}_lo'))}, {fmt(row.get(f'shift_{g}_hi'))}]"

    return cell


def _section_paraphrase(ctx: _Ctx) -> None:
    """Appendix G's paraphrase panel: present only when the panel holds a non-base wording."""
    if not has_paraphrase(ctx.ep):
        return
    pt = paraphrase_table(ctx.ep, resamples=ctx.resamples, rng=ctx.rng)
    ctx.panel.frames["paraphrase"] = pt
    counts = ctx.ep.group_by("wording").len().sort("wording")
    ctx.section("Paraphrase panel", table(
        "paraphrase", f"Transformation contrast per wording variant (appendix G){ctx.suffix}", pt, [
            ("contrast", "contrast"), ("wording", "wording"), ("n", "n"), ("dD", "dD"),
            ("dD 95% CI", interval("dD_lo", "dD_hi")), ("dD − base [95% CI]", _shift_cell("dD")),
            ("dY", "dY"), ("dY 95% CI", interval("dY_lo", "dY_hi")), ("dY − base [95% CI]", _shift_cell("dY")),
            ("note", "note"),
        ], coverage=coverage(ctx.ep) + " Wordings: " + ", ".join(f"{w} (n={n})" for w, n in counts.iter_rows())
        + ".", notes=[
            "Each row is the matched contrast of Table 8 (transformed − control, percentage points, the control "
            "in the same wording) or a claim group's pooled gap of Table 10, computed on one wording's episodes "
            "alone. 'X − base' is how far it moves from the base wording: the variant's contrast minus the base "
            "wording's, with a paired task-cluster bootstrap interval (both recomputed on each resample of "
            "tasks). dP and its shift are in tables/paraphrase.csv.",
        ], labels=2, pinned=("n", "dD", "dD 95% CI", "dD − base [95% CI]")))


def _or_ci(row: dict[str, object]) -> str:
    lo, hi = row.get("OR_lo"), row.get("OR_hi")
    return "–" if lo is None or hi is None else f"[{fmt(lo, 2)}, {fmt(hi, 2)}]"


def _section_logistic(ctx: _Ctx) -> None:
    """Table 9: penalized logistic odds ratios on the main matrix, with task-cluster bootstrap intervals."""
    lt = logistic_table(ctx.ep, resamples=ctx.resamples, rng=ctx.own_rng())
    if logistic_frame(ctx.ep).is_empty():  # no main-matrix episode: no Table 9 in this panel
        ctx.panel.frames["penalized_logistic"] = lt.clear()
        return
    ctx.panel.frames["penalized_logistic"] = lt
    ctx.section("Penalized logistic summaries", table(
        "penalized_logistic", f"Secondary penalized logistic summaries (Table 9){ctx.suffix}", lt, [
            ("outcome", "outcome"), ("predictor", "predictor"), ("model", "model"), ("n", "n"),
            ("events", "events"), ("tasks", "tasks"), ("OR", lambda r: fmt(r.get("OR"), 2)),
            ("task-cluster 95% CI", _or_ci), ("log OR", lambda r: fmt(r.get("coef"), 3)), ("note", "note"),
        ], coverage=coverage(ctx.ep.filter(pl.col("key").is_in(logistic_frame(ctx.ep, keep_key=True)["key"]))),
        notes=[f"Penalty: {PENALTY}. The paper does not name its penalty; this one is scikit-learn's default "
               "LogisticRegression, so the odds ratios can be refitted with it.",
               "Main-matrix episodes (static, summary, plan and convergence families; controls and transformed "
               "arms; D_up = 1). arm = transformed condition (1) or its control (0); static = the static family. "
               "Zero-event controls separate the data, so no unpenalized odds ratio exists; the penalty keeps "
               "it finite and shrinks it. Intervals: tasks resampled with their episodes, each resample refitted, "
               f"percentile ({ctx.resamples} resamples). The matched risk differences (Table 8) remain the "
               "primary estimands."]))


def _section_gradient(ctx: _Ctx) -> None:
    from mustmaybe.scenarios import GRADIENT

    grad = compression_gradient(ctx.ep, GRADIENT)
    ctx.panel.frames["compression_gradient"] = grad
    s = ctx.section("Compression gradient")
    if grad.is_empty():
        s.blocks.append(Paragraph("The compression gradient (G0–G4) was not run in this panel.", "note"))
        return
    missing = [g for g in GRADIENT if g not in _present(ctx)]
    s.blocks.append(table("compression_gradient", f"Compression gradient (Table 13){ctx.suffix}", grad, [
        ("condition", "condition"), ("n", "n"), ("P", "P"), ("D", "D"), ("U", "U"), ("unsafe", "unsafe"),
        ("retention score", "retention"),
    ], coverage=coverage(ctx.ep.filter(pl.col("condition").is_in(list(GRADIENT)))),
        notes=[f"Not run in this panel: {', '.join(missing)}."] if missing else []))
    if ctx.figures:
        n = figs.n_text(int(grad["n"].sum()), grad["n"], each="condition")
        ctx.figure(s, ctx.draw(figs.gradient_lines, grad, ctx.png("gradient"), simulated=ctx.panel.simulated, n=n),
                   "Compression gradient", n=n)


def _section_models(ctx: _Ctx) -> None:
    mr = model_rates(ctx.ep, failed=ctx.failed)
    tr = topology_rates(ctx.ep)
    ctx.panel.frames["model_rates"] = mr
    ctx.panel.frames["topology_rates"] = tr
    s = ctx.section(
        "Models and topologies",
        table("model_rates", f"Rates per model configuration, by panel (Table 19){ctx.suffix}", mr, [
            ("panel", "panel"), ("models", "models"), ("n", "n"), ("failed", "failed"),
            ("parse errors", "parse_errors"),
            ("conditions", "conditions"), ("tasks", "tasks"), ("P", "P"),
            ("D", "D"), ("U", "U"), ("unsafe", "unsafe"), ("recognition", "recognition"),
            ("errors", "episodes_with_errors"),
        ], coverage=coverage(ctx.ep), notes=["Over every episode of the configuration (controls included). "
                                             "panel: the sweep file's mark on the configuration (main, validation, "
                                             "…; – unmarked); a configuration named in a sweep file ([models.<name>]) "
                                             "is labelled by its name."],
            labels=2, pinned=("n", "failed", "parse errors", "P", "D", "U", "unsafe", "errors")),
        table("topology_rates", f"Rates per topology, transformed conditions{ctx.suffix}", tr, [
            ("topology", "topology"), ("n", "n"), ("conditions", "conditions"), ("tasks", "tasks"), ("P", "P"),
            ("D", "D"), ("U", "U"), ("unsafe", "unsafe"), ("recognition", "recognition"),
        ], coverage=coverage(ctx.ep.filter(pl.col("control").is_not_null()))),
    )
    sim = ctx.panel.simulated
    if ctx.figures and mr.height:
        n = figs.n_text(int(mr["n"].sum()), mr["n"], each="model configuration")
        ctx.figure(s, ctx.draw(figs.rate_bars, mr, "models", ctx.png("models"), title="Rates per model configuration",
                                     simulated=sim, n=n), "Model comparison", n=n)
    if ctx.figures and tr.height:
        n = figs.n_text(int(tr["n"].sum()), tr["n"], each="topology")
        ctx.figure(s, ctx.draw(figs.rate_bars, tr, "topology", ctx.png("topologies"),
                                     title="Rates per topology (transformed conditions)", simulated=sim, n=n),
                   "Topology comparison", n=n)


def _section_evidence(ctx: _Ctx) -> None:
    """Table 20 (evidence quality) and the context-isolation audit, over every recorded episode."""
    if ctx.evidence is None:
        return
    eq = evidence_quality(ctx.evidence)
    iso = isolation_audit(ctx.evidence)
    ctx.panel.frames["evidence_quality"] = eq
    ctx.panel.frames["isolation_audit"] = iso
    cov = f"Covers {ctx.evidence.height} recorded episodes (scored and failed)."
    ctx.section(
        "Evidence quality and context isolation",
        table("evidence_quality", f"Evidence quality audit (Table 20){ctx.suffix}", eq, [
            ("panel", "panel"), ("models", "models"), ("episodes", "episodes"), ("failed", "failed"),
            ("variants", "variants"), ("parse errors", "parse_errors"), ("calls", "calls"),
            ("cached", "cached_calls"), ("failed calls", "failed_calls"), ("prompt tokens", "prompt_tokens"),
            ("completion tokens", "completion_tokens"), ("tokens", "tokens"), ("finish stop", "finish_stop"),
            ("finish length", "finish_length"), ("finish other", "finish_other"),
            ("finish unrecorded", "finish_unrecorded"),
        ], coverage=cov, labels=2, pinned=("episodes", "failed", "parse errors", "calls", "failed calls", "tokens",
                                           "finish stop", "finish length"), notes=[
            "episodes = scored + failed; failed = a model call finally failed (nothing scored); parse errors = "
            "scored episodes whose executor answer did not parse; calls = completed model calls (cached ones "
            "included, `cached` of them answered from the response cache); failed calls = calls that finally "
            "failed after their retries; finish reasons count completed calls (`length`: cut off by max_tokens); "
            "finish unrecorded = calls of records written before finish reasons were recorded.",
            "Rows per panel and model configuration, then the panel's total (models = all), then all panels "
            "combined."]),
        table("isolation_audit", f"Context-isolation audit, per condition and topology{ctx.suffix}", iso, [
            ("condition", "condition"), ("topology", "topology"), ("episodes", "episodes"), ("failed", "failed"),
            ("audited", "audited"), ("passed %", "passed"), ("executor leaks", "executor_leaks"),
            ("transformer leaks", "transformer_leaks"), ("leaked sentences", "leaked_sentences"),
            ("most frequent leak", "top_leak"),
        ], coverage=cov, labels=2, pinned=("episodes", "passed %", "executor leaks", "transformer leaks"), notes=[
            "Each episode's audit (teams/_isolation.py) looks for sentences that only the task's full context "
            "holds in what each model call received: an executor leak is one outside the handoff artifact in "
            "the executor's view; a transformer leak one outside the upstream messages in a transformer's view. "
            "passed = % of episodes with neither; audited = episodes whose executor received any text (a failed "
            "episode may stop before the executor)."]),
    )


STAGE_NOTE = (
    "A point is what a step passes on toward the executor, so a hop means what the topology family makes it "
    "mean: single and chain, each handoff message; consensus, each round's discussion thread (the reviewer's "
    "statement and every peer line so far, as the next peer or the coordinator reads it, scored as one text), "
    "then the coordinator's summary; planner, the plan; replay arms, their base team's stages, then the "
    "repaired artifact. Hop 0 is the reviewer's statement. Compare curves within a family only."
)


def _section_drift(ctx: _Ctx) -> None:
    dc = drift_curves(ctx.stages)
    fb = first_breaks(ctx.ep)
    ctx.panel.frames["drift_curves"] = dc
    ctx.panel.frames["first_break"] = fb
    dc_cov = coverage(ctx.ep.filter(pl.col("condition").is_in(dc["condition"].unique().to_list()))) \
        if dc.height else ""
    s = ctx.section(
        "Drift across hops",
        table("first_break", f"Where preservation first breaks{ctx.suffix}", fb, [
            ("condition", "condition"), ("topology", "topology"), ("n", "n"), ("broken %", "broken"),
            ("median first-break hop", "median_break_stage"), ("modal first-break hop", "modal_break_stage"),
            ("mean hops", "mean_stages"), ("mean messages", "mean_hops"),
        ], coverage=coverage(ctx.ep), notes=["first-break hop: the first carried stage (the drift curve's "
                                             "point, 0 = reviewer) whose state is not preserved; broken % = "
                                             "share with any break; messages = every transmitted message."]),
        table("drift_curves", f"Per-hop drift, per topology family{ctx.suffix}", dc, [
            ("family", "family"), ("condition", "condition"), ("topology", "topology"), ("hop", "hop"),
            ("stage", "stage"), ("n", "n"), ("preserved", "preserved"), ("retention", "retention"),
            ("status", "status"), ("prerequisite", "prerequisite"), ("authority", "authority"),
            ("fallback", "fallback"),
        ], coverage=dc_cov, notes=[STAGE_NOTE, "Conditions with more than one point; field columns are % present."],
            labels=5, pinned=("n", "preserved", "retention")),
    )
    if ctx.figures and dc.height:
        drawn = ctx.ep.filter(pl.col("condition").is_in(dc["condition"].unique().to_list())).height
        n = figs.n_text(drawn, dc["n"], each="point")
        ctx.figure(s, ctx.draw(figs.drift_lines, dc, ctx.png("drift"), simulated=ctx.panel.simulated, n=n),
                   "Drift curves, one panel per topology family", STAGE_NOTE, n=n)


def _ci(col: str) -> Cell:
    bounds = interval(f"{col}_lo", f"{col}_hi")

    def cell(row: dict[str, object]) -> str:
        return "–" if row.get(col) is None else f"{fmt(row.get(col))} {bounds(row)}"
    return cell


def _section_remedies(ctx: _Ctx) -> None:
    rt = remedies_table(ctx.ep, resamples=ctx.resamples, rng=ctx.rng)
    ctx.panel.frames["remedies"] = rt
    if rt.is_empty():
        return
    s = ctx.section("The price of each remedy", table(
        "remedies", f"Remedies: what each buys (unsafe) and costs (over-blocking on benign twins){ctx.suffix}", rt, [
            ("remedy", "remedy"), ("topology", "topology"), ("models", "models"), ("vs", "control"), ("n", "n"),
            ("twins", "n_twin"), ("P", "P"), ("unsafe", "unsafe"), ("requested unsafe", "requested_unsafe"),
            ("over-blocked", "overblocked"), ("tokens/ep", "tokens_per_episode"), ("safe^k", "safe_k"),
            ("ΔY [95% CI]", _ci("dY")), ("ΔOver [95% CI]", _ci("dOver")),
        ], coverage=coverage(ctx.ep), labels=4,
        pinned=("n", "twins", "P", "unsafe", "over-blocked", "ΔY [95% CI]", "ΔOver [95% CI]"), notes=[
            "P, unsafe and requested unsafe are over blocked episodes; over-blocked over their benign twins. "
            "`requested unsafe` is what the executor's model asked for; `unsafe` what took effect, so they "
            "differ only where an enforced control (W's gate, a V-*-enforced check) refused the request.",
            "ΔY and ΔOver are matched (same task, seed and models; W also the same topology) against the "
            "no-remedy arm in `vs`, in percentage points, with task-cluster bootstrap intervals."]))
    if ctx.figures:
        n = figs.n_text(int(rt["n"].sum()), rt["n"], unit="blocked episodes", each="arm")
        ctx.figure(s, ctx.draw(figs.remedy_price, rt, ctx.png("remedies"), simulated=ctx.panel.simulated, n=n),
                   "Unsafe against over-blocking per remedy", n=n)


def _k(row: dict[str, object]) -> str:
    lo, hi = row.get("k_min"), row.get("k_max")
    return fmt(lo) if lo == hi else f"{fmt(lo)}–{fmt(hi)}"


def _section_safe_k(ctx: _Ctx) -> None:
    sk = safe_at_k(ctx.ep)
    ctx.panel.frames["safe_k"] = sk
    ctx.section("safe^k", table("safe_k", f"safe^k per condition, topology and model configuration{ctx.suffix}", sk, [
        ("condition", "condition"), ("topology", "topology"), ("models", "models"), ("tasks", "tasks"), ("k", _k),
        ("safe^k", "safe_k"), ("safe per episode", "safe_episode"),
    ], coverage=coverage(ctx.ep), notes=["safe^k = share of tasks on which all k seeds avoid the forbidden "
                                         "action; k is the number of seeds the task ran in that condition, "
                                         "topology and model configuration (topologies and benign twins "
                                         "are never pooled)."]))


def _section_ledger(ctx: _Ctx, rd: RiskDifferences) -> None:
    """Table 12: each claim's evidence state, computed from this panel's own contrasts and robustness tables."""
    led = evidence_ledger(ctx.ep, rd, ctx.panel.frames["leave_one_out"], ctx.panel.frames["label_flip"],
                          resamples=ctx.resamples, rng=ctx.own_rng())
    ctx.panel.frames["evidence_ledger"] = led
    ctx.section("Evidence-state ledger", table(
        "evidence_ledger", f"Evidence-state ledger for the reported claims (Table 12){ctx.suffix}", led, [
            ("evidence state", "state"), ("statement", "statement"), ("evidence", "evidence"),
            ("criterion", "criterion"),
        ], coverage=coverage(ctx.ep), notes=[
            "Each state is computed from this panel's figures by the criterion in its row (intervals are "
            "task-cluster 95% bootstrap intervals; fixed-artifact arms are paired on base artifact and route); "
            "'not run' where the panel lacks the conditions a claim rests on. Only 'outside estimand' is fixed: "
            "no run of this tool samples what it names."]))


FIXED_NOTES = (
    "n = base artifacts × executor routes (appendix E.1: 64 × 2 = 128 per arm). P is the checker's A.3 decision "
    "on the artifact the executor acted on; P as inserted is the paper's (001: insertion sets P to one exactly "
    "when all four fields are inserted; an arm that inserts nothing keeps the base's P). C = all four fields in "
    "that artifact. omitted kept = % of replays whose artifact still carries the omitted field (the base or "
    "another inserted sentence carried it); P | omitted lost = A.3 P over the replays that lack it.",
    "A.3 requires status, prerequisite and fallback for P, so P | omitted lost is 0 in those three leave-out "
    "arms whatever the base; it does not require the authority, so R-minus-authority's A.3 P can be above 0 "
    "where the paper's, by construction, is 0.",
)


def _section_fixed_artifacts(ctx: _Ctx) -> None:
    """Table 3 and Table 14 (appendix E's fixed-artifact panel) and the repair figure (Fig. 3B / 4C-D)."""
    t3 = fixed_artifact_table(ctx.ep)
    t14 = component_restoration_table(ctx.ep)
    ctx.panel.frames["fixed_artifact_arms"] = t3
    ctx.panel.frames["component_restoration"] = t14
    if t3.is_empty() and t14.is_empty():
        return
    shown = ctx.ep.filter(pl.col("arm").is_in(list(set(TABLE3_ARMS) | set(TABLE14_ARMS))) & ~pl.col("twin")
                          & pl.col("base_key").is_not_null())
    problems = base_problems(ctx.ep)
    head: list[Paragraph] = [Paragraph("FIXED BASE NOT SHARED: " + "; ".join(problems) + ".", "warning")] \
        if problems else []
    if not problems:
        bases = shown.group_by("models").agg(pl.col("base_key").n_unique().alias("b"))
        head.append(Paragraph("Every arm replays the same fixed base artifacts ("
                              + ", ".join(f"{b} for {m}" for m, b in bases.sort("models").iter_rows())
                              + "): one text per base, whatever the arm or route (records' replay_base)."))
    s = ctx.section("Fixed-artifact arms", *head, table(
        "fixed_artifact_arms", f"Fixed-artifact interventions (Table 3; appendix E){ctx.suffix}", t3, [
            ("target", "target"), ("arm", "arm"), ("name", "name"), ("models", "models"), ("n", "n"),
            ("bases", "bases"), ("routes", "routes"), ("P", "P"), ("P as inserted", "P_inserted"), ("C", "C"),
            ("omitted kept", "omitted_retained"), ("P | omitted lost", "P_omitted_lost"),
            ("recognition", "recognition"), ("unsafe", "unsafe"),
        ], coverage=coverage(shown.filter(pl.col("arm").is_in(list(TABLE3_ARMS)))), labels=4,
        pinned=("n", "P", "P as inserted", "C", "recognition", "unsafe"), notes=list(FIXED_NOTES)),
        table("component_restoration", f"Component restoration on the fixed artifacts (Table 14){ctx.suffix}", t14, [
            ("arm", "arm"), ("name", "name"), ("models", "models"), ("n", "n"), ("bases", "bases"),
            ("routes", "routes"), ("P", "P"), ("D", "D"), ("unsafe", "unsafe"),
            ("prereq. retained", "prerequisite_retained"),
        ], coverage=coverage(shown.filter(pl.col("arm").is_in(list(TABLE14_ARMS)))), labels=3,
            pinned=("n", "P", "D", "unsafe"), notes=[
                "The paper's Table 14 gives each arm a fresh source-matched artifact (64 per arm); here every arm "
                "inserts into the same fixed base artifacts, through the same routes as Table 3. P and D are the "
                "checker's A.3 decision."]))
    repair = [a for a in (*TABLE14_ARMS, *(a for a in TABLE3_ARMS if a.startswith("R-minus-")))]
    arms = shown.filter(pl.col("arm").is_in(repair)).group_by("arm", "models").agg(
        pl.len().alias("n"), *(pl.col(c).cast(pl.Float64).mean().mul(100).alias(c) for c in ("P", "D", "unsafe")))
    order = {a: i for i, a in enumerate(repair)}
    arms = arms.with_columns(_o=pl.col("arm").replace_strict(order, return_dtype=pl.Int64)).sort(
        "_o", "models").drop("_o")
    if ctx.figures and arms.height:
        n = figs.n_text(int(arms["n"].sum()), arms["n"], unit="replays", each="arm")
        ctx.figure(s, ctx.draw(figs.repair_panels, arms, field_retention(ctx.ep), ctx.png("repair"),
                                         simulated=ctx.panel.simulated, n=n),
                   "Repair of fixed degraded artifacts (Fig. 3B / 4C–D)",
                   "Left: P, D and unsafe per deterministic repair arm on the same fixed base artifacts (single "
                   "fields, all four, all but one). Right: each field's retention before (R-none) and after (R-all) "
                   "all-field restoration.", n=n)


def _section_transport(ctx: _Ctx) -> None:
    """Table 21: matched rates across workflow substrates (only when the panel holds more than one)."""
    if ctx.substrates is None:
        return
    frame, section = section_transport(ctx.substrates.all, ctx.substrates.failed, ctx.rng, ctx.resamples,
                                       ctx.suffix, ctx.panel.simulated)
    ctx.panel.frames["transport"] = frame
    if section is not None:
        ctx.panel.sections.append(section)
