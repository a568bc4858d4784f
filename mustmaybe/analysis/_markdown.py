"""Markdown rendering of the report sections."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ._model import Paragraph, ReportFigure, ReportTable, Section


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_markdown(t: ReportTable) -> str:
    """A pipe table with its coverage line and notes underneath."""
    lines = ["| " + " | ".join(_cell(h) for h in t.header) + " |",
             "|" + "|".join("---" for _ in t.header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    if not t.rows:
        lines = ["_No rows: nothing in this panel feeds this table._"]
    out = "\n".join(lines)
    if t.coverage:
        out += f"\n\n_{t.coverage}_"
    for n in t.notes:
        out += f"\n\n> {n}"
    return out


def render_markdown(title: str, intro: Sequence[Paragraph], sections: Sequence[Section], base: Path) -> str:
    """The whole report; figure paths are written relative to `base` (the report folder)."""
    parts = [f"# {title}"]
    parts += [_paragraph(p) for p in intro]
    for s in sections:
        parts.append("#" * s.level + " " + s.title)
        for b in s.blocks:
            if isinstance(b, Paragraph):
                parts.append(_paragraph(b))
            elif isinstance(b, ReportTable):
                parts.append(f"**{b.title}**\n\n" + table_markdown(b))
            elif isinstance(b, ReportFigure):
                rel = b.path.relative_to(base).as_posix()
                parts.append(f"![{b.title}]({rel})" + (f"\n\n_{b.caption}_" if b.caption else ""))
    return "\n\n".join(parts) + "\n"


def _paragraph(p: Paragraph) -> str:
    if p.kind == "warning":
        return f"> **⚠ {p.text}**"
    if p.kind == "note":
        return f"> {p.text}"
    return p.text
