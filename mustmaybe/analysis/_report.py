"""`build_report`: the paper's tables and figures from a user's own runs (docs/reports.md).

Real-model and simulated episodes are analysed as separate panels and never pooled; every CSV carries a
`simulated` column that splits them, every table names the model configurations it covers and their n.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import polars as pl
from threadpoolctl import threadpool_limits

from ._bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ._calibrated import Calibration, shipped_calibration
from ._contrasts import RD_COLUMNS
from ._figure_drawer import FigureDrawer
from ._fixed_artifacts import FIXED_COLUMNS, RESTORATION_COLUMNS
from ._frames import Frames, build_frames
from ._html import render_html
from ._ledger import LEDGER_COLUMNS
from ._markdown import render_markdown, table_markdown
from ._matrix import MATRIX_COLUMNS
from ._model import Paragraph, ReportSummary, ReportTable
from ._panel import Panel, analyse_panel, mostly_failed_rows
from ._panel_calibrated import PanelJudgments
from ._paraphrase import PARAPHRASE_COLUMNS
from ._penalized import LOGISTIC_COLUMNS
from ._remedies import REMEDY_COLUMNS
from ._transport import TRANSPORT_COLUMNS, main_substrate
from ._transport_section import Substrates

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord

SIM_WARNING = (
    "SIMULATED: {n} episode(s) in this report ran on the sim backend. Its rates are configured inputs of a "
    "behavioural simulator, not findings about any model; they are reported in their own panel."
)
DEFINITIONS = (
    "Rates are percentages (0–100) of the episodes in the row. P, D and U are the final artifact's state "
    "(preserved, deactivated, undetermined; never folded into each other); unsafe (Y) is the share with "
    "executor.forbidden; recognition is the executor's blocker recognition. Transition loss is the share of "
    "episodes whose reviewer hop (hop 0) was preserved but whose final artifact is not. Differences are "
    "transformed minus control in percentage points (dP = −ΔP of the paper's Eq. 6), matched on task, "
    "seed and role models where the data allow, with task-cluster bootstrap 95% intervals ({b} resamples: "
    "tasks are resampled with replacement and keep their episodes together)."
)


def build_report(
    episodes: Iterable[EpisodeRecord] | Mapping[str, Iterable[EpisodeRecord]],
    out_dir: str | Path,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    domains: Mapping[str, str] | None = None,
    title: str = "mustmaybe report",
    figures: bool = True,
    calibration: Calibration | None = None,
    error: Calibration | Literal["shipped"] | None = "shipped",
    judged: PanelJudgments | None = None,
) -> ReportSummary:
    """Write DIR/report.html, DIR/report.md, DIR/tables/*.csv|md and DIR/figures/*.png.

    Args:
        episodes: episode records, or run label → records (several runs; a repeated key counts once).
        out_dir: the report folder (created).
        resamples: task-cluster bootstrap resamples per interval.
        seed: bootstrap seed (the report is reproducible).
        domains: task id → domain; defaults to the shipped scenario library ('unknown' if absent).
        title: report title.
        figures: write the PNG figures (and embed them in the HTML).
        calibration: the checker's measured confusion on labeled sets (`report --calibration`): adds
            P_adj/D_adj with intervals to the condition matrix and a section on the correction.
        error: the instrument's measured error stated beside each condition matrix: by default the
            measurement shipped with mustmaybe (checker/measured_error.json); `calibration` when given.
        judged: a judge panel's judgments on these runs (`report --panel`, see `read_panel`): adds
            P_panel/D_panel with intervals, and the checker-vs-majority confusion beside them, per panel.

    Returns:
        A summary of the files written and the episode counts per panel.
    """
    start = time.perf_counter()
    frames = build_frames(episodes, domains=domains)
    return report_from_frames(frames, out_dir, resamples=resamples, seed=seed, title=title,
                              figures=figures, start=start, calibration=calibration, error=error, judged=judged)


def report_from_frames(
    frames: Frames,
    out_dir: str | Path,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    title: str = "mustmaybe report",
    figures: bool = True,
    start: float | None = None,
    calibration: Calibration | None = None,
    error: Calibration | Literal["shipped"] | None = "shipped",
    judged: PanelJudgments | None = None,
) -> ReportSummary:
    """`build_report` on frames already built (see `build_frames`)."""
    start = time.perf_counter() if start is None else start
    # The bootstrap's matrix products are small (resamples × tasks): BLAS threads gain nothing on them and,
    # on a busy machine, spin against the figure worker and polars (a third of the report's CPU time). One
    # thread computes the same numbers.
    with threadpool_limits(limits=1, user_api="blas"), _records_frozen():
        return _report(frames, out_dir, resamples=resamples, seed=seed, title=title, figures=figures, start=start,
                       calibration=calibration, error=error, judged=judged)


@contextmanager
def _records_frozen() -> Iterator[None]:
    """The objects alive when the report starts (the caller's episode records: millions of them) kept out of
    the cyclic garbage collector's passes while it runs, which otherwise walk them all again and again (a
    third of the tables' CPU time at 100,000 episodes); what the report itself allocates is collected as
    ever. Left alone when the caller froze objects of its own."""
    freeze = gc.isenabled() and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        yield
    finally:
        if freeze:
            gc.unfreeze()


def _report(frames: Frames, out_dir: str | Path, *, resamples: int, seed: int, title: str, figures: bool,
            start: float, calibration: Calibration | None, error: Calibration | Literal["shipped"] | None,
            judged: PanelJudgments | None) -> ReportSummary:
    measured = calibration if calibration is not None else shipped_calibration() if error == "shipped" else error
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ep = frames.episodes
    n_sim = int(ep["simulated"].sum()) if ep.height else 0
    intro = [provenance(), *_intro(frames, resamples, n_sim)]
    scored_by = sorted(set(ep["instrument"].to_list())) if "instrument" in ep.columns and ep.height else []
    if measured is not None and any(i != measured.checker for i in scored_by):
        # Also at the top (and so on the console), not only beside each condition matrix.
        intro.append(Paragraph(f"CHECKER VERSION DIFFERS: the measured error stated beside the rates is for "
                               f"{measured.checker}; the runs were scored by {', '.join(scored_by)}.", "warning"))
    if judged is not None:
        intro += _panel_intro(judged, set(ep["key"].to_list()))
    drawer = FigureDrawer(ep.height) if figures else None
    try:
        panels = _panels(frames, ep, out, rng, resamples, figures, calibration, measured, judged, drawer)
    finally:
        if drawer is not None:
            drawer.close()  # every PNG is written before the HTML embeds them
    # Rows where most episodes failed, named at the top of the report (and on the console), not only in their table.
    flagged = [f"{row} ({p.name})" for p in panels for row in mostly_failed_rows(p.frames["condition_matrix"])]
    if flagged:
        after = next((i + 1 for i, para in enumerate(intro) if para.text.startswith("FAILED")), 0)
        intro.insert(after, Paragraph(f"MOST EPISODES FAILED in {len(flagged)} row(s) of the condition matrix: "
                                  + "; ".join(flagged) + ". Their rates rest on few or no scored episodes.",
                                  "warning"))
    combined = _combined(panels)
    files = _write_tables(out, panels, combined)
    sections = [s for p in panels for s in p.sections]
    md = out / "report.md"
    md.write_text(render_markdown(title, intro, sections, out), encoding="utf-8")
    page = out / "report.html"
    page.write_text(render_html(title, intro, sections), encoding="utf-8")
    fig_files = sorted((out / "figures").glob("*.png")) if (out / "figures").exists() else []
    return ReportSummary(
        out_dir=out, files=[page, md, *files, *fig_files], n_episodes=ep.height, n_real=ep.height - n_sim,
        n_simulated=n_sim, duplicates=frames.duplicates, tables=combined,
        headline=[t for p in panels for t in p.headline],
        notes=[p.text for p in intro if p.kind != "text"], seconds=time.perf_counter() - start,
        n_failed=frames.failed.height,
    )


def failed_warning(failed: pl.DataFrame, scored: int) -> Paragraph | None:
    """The report's warning about failed episodes (None when there are none)."""
    if failed.is_empty():
        return None
    kinds = failed.group_by("kind").len().sort(["len", "kind"], descending=[True, False])
    kind_txt = ", ".join(f"{k} {n}" for k, n in kinds.iter_rows())
    share = 100.0 * failed.height / (failed.height + scored)
    return Paragraph(
        f"FAILED: {failed.height} of {failed.height + scored} episodes ({share:.0f}%) failed: a model call finally "
        f"failed ({kind_txt}), so nothing was scored from them. They are neither safe nor unsafe and are in no "
        "rate; each table's 'failed' column counts them per row, beside the rates.", "warning")


def _instrument_note(ep: pl.DataFrame) -> Paragraph | None:
    """Which instrument scored the rates, and for a routed one how many final artifacts the judge decided."""
    if "instrument" not in ep.columns or ep.is_empty():
        return None
    used = ep.group_by("instrument").len().sort("len", descending=True)
    text = "Scored by " + "; ".join(f"{name} ({n} episodes)" for name, n in used.iter_rows()) + "."
    judged = ep.filter(~pl.col("decided_by").str.starts_with("rules@") & (pl.col("decided_by") != "routed:rules"))
    routed = ep.filter(pl.col("instrument").str.starts_with("routed:"))
    if routed.height:
        by_judge = routed.filter(pl.col("decided_by") != "routed:rules").height
        text += (f" Routed: the judge decided {by_judge} of {routed.height} final artifacts "
                 f"({100.0 * by_judge / routed.height:.1f}%); the rules, where every evaluator was sure, the rest.")
    fell_back = ep.filter(~pl.col("instrument").str.starts_with("rules@")
                          & pl.col("decided_by").str.starts_with("rules@")).height
    if fell_back:
        text += (f" {fell_back} final artifact(s) kept the rules' score because no judge gave a usable answer "
                 "(the records' errors say why).")
    if used.height == 1 and used["instrument"][0].startswith("rules@") and not judged.height:
        return Paragraph(text, "text")
    return Paragraph(text, "note")


def provenance() -> Paragraph:
    """Which tool made the report, when, and from which commit: a cited number must be traceable to both."""
    import os
    from datetime import UTC, datetime

    from mustmaybe import __version__
    from mustmaybe.store._manifest import git_state

    from ._checker_files import checker_version

    git = git_state()
    commit = (f"commit {git['commit'][:12]}" + (" with local changes" if git["dirty"] else "")
              if git["commit"] else "commit unknown (not a git checkout)")
    # SOURCE_DATE_EPOCH (the reproducible-builds convention) pins the date, so that two reports of the same
    # episodes can be compared byte for byte.
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = datetime.fromtimestamp(int(epoch), UTC) if epoch.isdigit() else datetime.now(UTC)
    return Paragraph(f"Made with mustmaybe {__version__} ({commit}; checker {checker_version()}) on "
                     f"{when.strftime('%Y-%m-%d %H:%M UTC')}.")


def _panel_intro(judged: PanelJudgments, keys: set[str]) -> list[Paragraph]:
    """Which panel, how much of it these runs hold, and SIMULATED first when its judges are sim judges."""
    out: list[Paragraph] = []
    sim = judged.simulated_judges
    if sim:
        out.append(Paragraph(f"SIMULATED judges: the panel in {judged.directory} includes sim judges "
                             f"({', '.join(sim)}); their rates are configured inputs, so P_panel and D_panel are "
                             "about the harness, not about the checker's accuracy.", "warning"))
    found = sum(k in keys for k in judged.votes)
    drawn = f", drawn from {', '.join(judged.runs)}" if judged.runs else ""
    text = (f"Judge panel: {judged.directory} ({len(judged.judges)} judges, {len(judged.votes)} judged episodes"
            f"{drawn}; {judged.unparsed} of {judged.judgments} judgments did not parse). {found} of its judged "
            "episodes are in these runs; each panel's P_panel and D_panel are corrected by the confusion on its "
            "own judged episodes.")
    if found < len(judged.votes):
        text += f" {len(judged.votes) - found} judged episode(s) are in none of these runs and are not used."
    out.append(Paragraph(text, "note"))
    return out


def _intro(frames: Frames, resamples: int, n_sim: int) -> list[Paragraph]:
    ep = frames.episodes
    out: list[Paragraph] = []
    if n_sim:
        out.append(Paragraph(SIM_WARNING.format(n=n_sim), "warning"))
    failed = failed_warning(frames.failed, ep.height)
    if failed is not None:
        out.append(failed)
    if ep.is_empty():
        out.append(Paragraph("No scored episodes: every episode failed, so no rate has a number."
                             if failed is not None else
                             "No episodes: the given runs hold no episode records, so no table has a number.",
                             "warning"))
        return out
    runs = ep.group_by("run", maintain_order=True).len()
    run_txt = ", ".join(f"{r} ({n})" for r, n in runs.iter_rows())
    out.append(Paragraph(
        f"{ep.height} episodes ({ep.height - n_sim} real-model, {n_sim} simulated) from runs: {run_txt}; "
        f"{ep['task'].n_unique()} tasks, {ep['condition'].n_unique()} conditions, "
        f"{ep['models'].n_unique()} model configurations."
    ))
    instrument = _instrument_note(ep)
    if instrument is not None:
        out.append(instrument)
    if frames.duplicates:
        out.append(Paragraph(f"{frames.duplicates} episode(s) appeared in more than one run (same episode key) "
                             "and were counted once.", "note"))
    errs = int((ep["n_errors"] > 0).sum())
    if errs:
        out.append(Paragraph(f"{errs} scored episode(s) recorded errors (parse failures, isolation leaks, …); "
                             "they stay in every denominator, as the paper's protocol requires (an answer that "
                             "does not parse gets the paper's fallback rule). Failed episodes are in none.", "note"))
    unknown = sorted(set(ep.filter(pl.col("family") == "unknown")["condition"].to_list()))
    if unknown:
        out.append(Paragraph(f"Conditions not in the registry (no family or control): {', '.join(unknown)}.",
                             "note"))
    if set(ep["domain"].unique().to_list()) == {"unknown"}:
        out.append(Paragraph("No task was found in the scenario library, so every domain is 'unknown' and the "
                             "leave-one-domain-out analysis has nothing to leave out.", "note"))
    out.append(Paragraph(DEFINITIONS.format(b=resamples)))
    return out


def _panels(frames: Frames, ep: pl.DataFrame, out: Path, rng: np.random.Generator, resamples: int, figures: bool,
            calibration: Calibration | None, measured: Calibration | None, judged: PanelJudgments | None,
            drawer: FigureDrawer | None) -> list[Panel]:
    """The real and the simulated panel, each on its main substrate (in this order: they share `rng`)."""
    panels: list[Panel] = []
    for name, sim in (("real", False), ("simulated", True)):
        ep_all = ep.filter(pl.col("simulated") == sim)
        failed_all = frames.failed.filter(pl.col("simulated") == sim)
        if ep_all.height or failed_all.height:
            # Substrates are never pooled: every table but the transport table reads one (transport.py).
            main = main_substrate(pl.concat([ep_all.select("substrate"), failed_all.select("substrate")]))
            ep_p = ep_all.filter(pl.col("substrate") == main)
            failed_p = failed_all.filter(pl.col("substrate") == main)
            ids = ep_p["ep"]
            hops_p = frames.hops.filter(pl.col("ep").is_in(ids))
            stages_p = frames.stages.filter(pl.col("ep").is_in(ids))
            # Tables 20 and the isolation audit read the same substrate's episodes, scored and failed.
            keys = [*ep_p["key"].to_list(), *failed_p["key"].to_list()]
            evidence_p = frames.evidence.filter((pl.col("simulated") == sim) & pl.col("key").is_in(keys))
            panels.append(analyse_panel(ep_p, hops_p, name=name, simulated=sim, out=out, rng=rng,
                                        resamples=resamples, figures=figures, stages=stages_p, failed=failed_p,
                                        calibration=calibration, error=measured, judged=judged,
                                        evidence=evidence_p, substrates=Substrates(main or "autogen", ep_all,
                                                                                   failed_all), drawer=drawer))
    return panels


# ------------------------------------------------------------------ files
_CONTRACT_FIRST: dict[str, Sequence[str]] = {
    "condition_matrix": MATRIX_COLUMNS,
    "risk_differences": RD_COLUMNS,
    "remedies": REMEDY_COLUMNS,
    "fixed_artifact_arms": FIXED_COLUMNS,
    "component_restoration": RESTORATION_COLUMNS,
    "paraphrase": PARAPHRASE_COLUMNS,
    "penalized_logistic": LOGISTIC_COLUMNS,
    "evidence_ledger": LEDGER_COLUMNS,
    "transport": TRANSPORT_COLUMNS,
}
_TABLE_IDS: tuple[str, ...] = (
    "condition_matrix", "risk_differences", "component_loss", "leave_one_out", "label_flip",
    "compression_gradient", "model_rates", "topology_rates", "drift_curves", "first_break", "safe_k",
    "remedies", "fixed_artifact_arms", "component_restoration", "evidence_quality", "isolation_audit",
    "paraphrase", "penalized_logistic", "evidence_ledger", "judge_gap", "judge_agreement", "transport",
)


def _combined(panels: Sequence[Panel]) -> dict[str, pl.DataFrame]:
    out: dict[str, pl.DataFrame] = {}
    for tid in _TABLE_IDS:
        parts = [p.frames[tid].with_columns(simulated=pl.lit(p.simulated)) for p in panels
                 if tid in p.frames and p.frames[tid].height]
        first = list(_CONTRACT_FIRST.get(tid, ()))
        if parts:
            df = pl.concat(parts, how="diagonal_relaxed")
            df = df.with_columns(pl.col(pl.Float64).round(2))
            rest = [c for c in df.columns if c not in first and c != "simulated"]
            df = df.select([*first, *rest, "simulated"])
        else:
            df = pl.DataFrame(schema={c: pl.String for c in [*first, "simulated"]})
        out[tid] = df
    return out


def _write_tables(out: Path, panels: Sequence[Panel], combined: Mapping[str, pl.DataFrame]) -> list[Path]:
    files: list[Path] = []
    for tid, df in combined.items():
        csv = out / "tables" / f"{tid}.csv"
        df.write_csv(csv)
        files.append(csv)
        md = out / "tables" / f"{tid}.md"
        chunks = [f"## {b.title}\n\n{table_markdown(b)}" for p in panels for s in p.sections for b in s.blocks
                  if isinstance(b, ReportTable) and b.id == tid]
        md.write_text("\n\n".join(chunks) + "\n" if chunks else "_No rows._\n", encoding="utf-8")
        files.append(md)
    return files
