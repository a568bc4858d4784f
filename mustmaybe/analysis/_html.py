"""One self-contained HTML file: inline CSS, figures embedded as base64 PNG; opens offline."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence

from ._model import Paragraph, ReportFigure, ReportTable, Section

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #333}h2{border-bottom:1px solid #bbb;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em}
th,td{border:1px solid #ccc;padding:.25em .55em;text-align:right}
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
.coverage{color:#555;font-size:.85em;font-style:italic}
.note{color:#444;border-left:3px solid #999;padding-left:.6em}
.warning{background:#fdecea;border:2px solid #c62828;color:#8e0000;padding:.6em 1em;font-weight:600}
figure{margin:1em 0}figure img{max-width:100%}figcaption{color:#555;font-size:.85em}
.scroll{overflow-x:auto}
table.pinned td.label{max-width:18em;overflow-wrap:anywhere;text-align:left}
.more caption{font-weight:400;font-style:italic}
"""

# A table with more columns than this, and pinned columns, is shown as two: the row's name with the pinned
# columns (rates, their 95% intervals, error counts), never scrolled away; then the name with the rest.
WIDE = 10


def _paragraph(p: Paragraph) -> str:
    cls = {"warning": "warning", "note": "note"}.get(p.kind)
    text = html.escape(p.text)
    return f'<p class="{cls}">{text}</p>' if cls else f"<p>{text}</p>"


def _grid(t: ReportTable, cols: list[int], cls: str, caption: str, wrap: str) -> str:
    out = [f'<div class="{wrap}"><table class="{html.escape(t.id)}{cls}"><caption>{html.escape(caption)}</caption>']
    if t.rows:
        def cell(tag: str, i: int, text: str) -> str:
            label = ' class="label"' if i < t.labels else ""
            return f"<{tag}{label}>{html.escape(text)}</{tag}>"

        out.append("<tr>" + "".join(cell("th", i, t.header[i]) for i in cols) + "</tr>")
        for row in t.rows:
            out.append("<tr>" + "".join(cell("td", i, row[i]) for i in cols) + "</tr>")
    else:
        out.append("<tr><td><em>No rows: nothing in this panel feeds this table.</em></td></tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _table(t: ReportTable) -> str:
    every = list(range(len(t.header)))
    if t.pinned and len(t.header) > WIDE and t.rows:
        keep = [i for i in every if i < t.labels or t.header[i] in t.pinned]
        rest = [i for i in every if i < t.labels or i not in keep]
        out = [_grid(t, keep, " pinned", t.title, "keep"),
               _grid(t, rest, " more", f"{t.title}: further columns", "scroll more")]
    else:
        out = [_grid(t, every, "", t.title, "scroll")]
    if t.coverage:
        out.append(f'<p class="coverage">{html.escape(t.coverage)}</p>')
    out += [f'<p class="note">{html.escape(n)}</p>' for n in t.notes]
    return "\n".join(out)


def _figure(f: ReportFigure) -> str:
    data = base64.b64encode(f.path.read_bytes()).decode("ascii")
    cap = html.escape(f.caption or f.title)
    return (f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{cap}</figcaption></figure>")


def render_html(title: str, intro: Sequence[Paragraph], sections: Sequence[Section]) -> str:
    """The whole report as one HTML document."""
    body = [f"<h1>{html.escape(title)}</h1>", *(_paragraph(p) for p in intro)]
    for s in sections:
        lvl = min(max(s.level, 2), 4)
        body.append(f"<h{lvl}>{html.escape(s.title)}</h{lvl}>")
        for b in s.blocks:
            if isinstance(b, Paragraph):
                body.append(_paragraph(b))
            elif isinstance(b, ReportTable):
                body.append(_table(b))
            elif isinstance(b, ReportFigure):
                body.append(_figure(b))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
