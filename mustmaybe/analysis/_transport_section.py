"""The report's transport section (Table 21) and the note that says which substrate the other tables read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from ._model import Block, Cell, Paragraph, Section, coverage, fmt, interval, table
from ._transport import REFERENCE, substrates_of, transport_table

TRANSPORT_NOTES = (
    "Matched on task × seed × role models within each condition and topology: a cell enters when both "
    "substrates hold a scored episode of it, and each substrate's P, D and unsafe are over its matched "
    "episodes (n), with task-cluster bootstrap 95% intervals. ΔP, ΔD, ΔY = this substrate minus "
    f"{REFERENCE}, percentage points, with the risk differences' estimator and intervals. unmatched = the "
    "substrate's scored episodes with no partner; failed = its failed episodes (in no rate).",
    "Both substrates run the same agents: the same prompts, views, model clients and endpoints, the same "
    "checker on every message, the same store and records (docs/substrates.md). P, D, U are every "
    "scored episode's, as in the condition matrix (no D_up restriction).",
)
SIM_NOTE = (
    "SIMULATED: on the sim backend both substrates send the same model inputs and the sim's answer depends "
    "only on them, so the rates agree by construction. This table then checks the harness (the same prompts "
    "and views on both substrates), not transport; a model that samples is needed for that."
)


@dataclass(frozen=True)
class Substrates:
    """The panel's episodes on every substrate (`all`, `failed`) and the one its other tables read (`main`)."""

    main: str
    all: pl.DataFrame
    failed: pl.DataFrame


def substrate_note(substrates: Substrates | None) -> list[Paragraph]:
    """The panel's substrate line: which substrate its tables read, when it is not AutoGen alone."""
    if substrates is None:
        return []
    subs = substrates_of(pl.concat([substrates.all.select("substrate"), substrates.failed.select("substrate")]))
    if subs == [REFERENCE] or not subs:
        return []
    if len(subs) == 1:
        return [Paragraph(f"Substrate: every episode of this panel ran on {subs[0]} (docs/substrates.md).", "note")]
    counts = substrates.all.group_by("substrate").len()
    n = dict(zip(counts["substrate"].to_list(), counts["len"].to_list(), strict=True))
    listed = ", ".join(f"{s} ({n.get(s, 0)} scored)" for s in subs)
    return [Paragraph(f"This panel holds episodes of {len(subs)} workflow substrates: {listed}. Substrates are "
                      f"never pooled: every table but the transport table (Table 21) reads the {substrates.main} "
                      "episodes only; the transport table compares the substrates on matched episodes.", "note")]


def _ci(col: str) -> Cell:
    bounds = interval(f"{col}_lo", f"{col}_hi")

    def cell(row: dict[str, object]) -> str:
        return "–" if row.get(col) is None else f"{fmt(row.get(col))} {bounds(row)}"

    return cell


def section_transport(ep: pl.DataFrame, failed: pl.DataFrame, rng: np.random.Generator, resamples: int,
                      suffix: str, simulated: bool) -> tuple[pl.DataFrame, Section | None]:
    """The transport table's frame (for tables/transport.csv) and its section (None with one substrate)."""
    tt = transport_table(ep, failed=failed, resamples=resamples, rng=rng)
    if tt.is_empty():
        return tt, None
    notes = list(TRANSPORT_NOTES)
    if tt.filter(pl.col("note").is_not_null()).height:
        notes.append("note: why a row has no matched episodes, or a degenerate interval.")
    t = table("transport", f"Workflow-substrate transport (Table 21){suffix}", tt, [
        ("condition", "condition"), ("topology", "topology"), ("substrate", "substrate"), ("n", "n"),
        ("P [95% CI]", _ci("P")), ("D [95% CI]", _ci("D")), ("unsafe [95% CI]", _ci("unsafe")),
        ("ΔP [95% CI]", _ci("dP")), ("ΔD [95% CI]", _ci("dD")), ("ΔY [95% CI]", _ci("dY")),
        ("unmatched", "unmatched"), ("failed", "failed"), ("note", "note"),
    ], coverage=coverage(ep.filter(pl.col("substrate").is_in(tt["substrate"].unique().to_list()))), labels=3,
        pinned=("n", "P [95% CI]", "D [95% CI]", "unsafe [95% CI]", "ΔP [95% CI]", "ΔD [95% CI]", "ΔY [95% CI]"),
        notes=notes)
    blocks: list[Block] = [Paragraph(SIM_NOTE, "warning")] if simulated else []
    section = Section("Workflow-substrate transport", 3, [*blocks, t])
    return tt, section
