"""The report as data: sections of paragraphs, tables and figures, rendered to markdown, HTML and console."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import polars as pl

Cell = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Paragraph:
    """A line of text; `warning` renders prominently (simulated output, missing data)."""

    text: str
    kind: Literal["text", "note", "warning"] = "text"


@dataclass(frozen=True)
class ReportTable:
    """A formatted table: header and string cells, a caption naming the paper table and its coverage."""

    id: str
    title: str
    header: list[str]
    rows: list[list[str]]
    coverage: str = ""
    notes: list[str] = field(default_factory=list)
    # The HTML keeps `pinned` columns (rates, their intervals, error counts) in sight beside the first
    # `labels` columns (what names a row) when the table is wide; the rest follow in a scrolling table.
    labels: int = 0
    pinned: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportFigure:
    """A PNG written under DIR/figures."""

    path: Path
    title: str
    caption: str = ""


Block = Paragraph | ReportTable | ReportFigure


@dataclass
class Section:
    """A titled list of blocks; level 2 for a panel, 3 for an analysis inside it."""

    title: str
    level: int = 2
    blocks: list[Block] = field(default_factory=list)


@dataclass(frozen=True)
class ReportSummary:
    """What `build_report` wrote and counted.

    Attributes:
        out_dir: the report folder.
        files: every file written (report.html, report.md, tables/*.csv|md, figures/*.png).
        n_episodes: episodes analysed (after dropping duplicate keys).
        n_real / n_simulated: episodes per panel; the two are never pooled.
        duplicates: episodes skipped because their key appeared earlier.
        tables: combined CSV frames by table id (condition_matrix, risk_differences, …).
        headline: the formatted headline tables (condition matrix and risk differences per panel).
        notes: report-level notes (simulated output, missing conditions, exclusions).
        seconds: wall time of the build.
        n_failed: failed episodes (a model call finally failed): in no rate, counted per row instead.
    """

    out_dir: Path
    files: list[Path]
    n_episodes: int
    n_real: int
    n_simulated: int
    duplicates: int
    tables: dict[str, pl.DataFrame]
    headline: list[ReportTable]
    notes: list[str]
    seconds: float
    n_failed: int = 0


def fmt(value: Any, digits: int = 1) -> str:
    """A cell: floats to `digits` decimals, missing values as an en dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def interval(lo_col: str, hi_col: str) -> Cell:
    """A cell showing [lo, hi] from two columns."""

    def cell(row: dict[str, Any]) -> str:
        lo, hi = row.get(lo_col), row.get(hi_col)
        if lo is None or hi is None:
            return "–"
        return f"[{fmt(lo)}, {fmt(hi)}]"

    return cell


def table(
    id: str, title: str, frame: pl.DataFrame, spec: Sequence[tuple[str, str | Cell]], *,
    coverage: str = "", notes: Sequence[str] = (), labels: int = 0, pinned: Sequence[str] = (),
) -> ReportTable:
    """Format `frame` into a ReportTable; spec maps each header to a column name or a cell function."""
    rows: list[list[str]] = []
    for rec in frame.iter_rows(named=True):
        rows.append([fmt(rec.get(src)) if isinstance(src, str) else src(rec) for _, src in spec])
    header = [h for h, _ in spec]
    missing = [h for h in pinned if h not in header]
    if missing:
        raise ValueError(f"{id}: pinned columns not in the table: {missing}")
    return ReportTable(id=id, title=title, header=header, rows=rows, coverage=coverage, notes=list(notes),
                       labels=labels, pinned=tuple(pinned))


def coverage(frame: pl.DataFrame) -> str:
    """'Covers N episodes of model configurations: a (n=…), b (n=…)'."""
    if frame.is_empty():
        return "Covers no episodes."
    counts = frame.group_by("models").len().sort("models")
    parts = ", ".join(f"{m} (n={n})" for m, n in counts.iter_rows())
    return f"Covers {frame.height} episodes; model configurations: {parts}."
