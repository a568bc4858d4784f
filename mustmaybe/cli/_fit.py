"""A console table that never breaks a number: a table where it fits, one block per row where not.

A rich table squeezed below its natural width wraps every cell, so `50.0` becomes `50` over `.0`
and an action id becomes `s…`. `FitTable` measures the table first. Narrower than that, each row
becomes a block: its identifying cells (condition, topology, …) on one line, then every other
column as `name value` pairs, packed to the width and never split inside a pair.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

Cell = str | Text


def _text(cell: Cell) -> Text:
    return cell if isinstance(cell, Text) else Text(cell)


class FitTable:
    """`header` and `rows` as a table at its natural width, else as stacked row blocks.

    Args:
        label_columns: how many leading columns name the row (they open each block).
    """

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[Cell]], *, title: str = "",
                 caption: str = "", label_columns: int = 1) -> None:
        self.header, self.rows = list(header), [list(r) for r in rows]
        self.title, self.caption, self.label_columns = title, caption, label_columns

    def table(self) -> Table:
        t = Table(title=self.title or None, caption=self.caption or None, caption_justify="left")
        for h in self.header:
            t.add_column(h, no_wrap=True)
        for row in self.rows:
            t.add_row(*(_text(c) for c in row))
        if not self.rows:
            t.add_row(*(["–"] * len(self.header)))
        return t

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table()
        if Measurement.get(console, options.update(width=10_000), table).maximum <= options.max_width:
            yield table
            return
        yield from self.stacked(options.max_width)

    def stacked(self, width: int) -> RenderResult:
        if self.title:
            yield Text(self.title, style="italic")
        k = self.label_columns
        for row in self.rows or [["–"] * len(self.header)]:
            label = Text("  ").join(_text(c) for c in row[:k])
            label.stylize("bold")
            lines: list[Text] = [Text()]
            for name, cell in zip(self.header[k:], row[k:], strict=True):
                pair = Text.assemble((name, "dim"), " ", _text(cell))
                if lines[-1].plain and len(lines[-1].plain) + 2 + len(pair.plain) > width - 4:
                    lines.append(Text())
                if lines[-1].plain:
                    lines[-1].append("  ")
                lines[-1].append_text(pair)
            body: list[RenderableType] = [label, *(Padding(ln, (0, 0, 0, 4)) for ln in lines if ln.plain)]
            yield Group(*body)
        if self.caption:
            yield Text(self.caption, style="dim")
