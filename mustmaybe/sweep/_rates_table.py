"""The per-condition rates table of the sweep display, readable at any width.

The numbers are what a user watches a sweep for, so they never shrink: every count and rate column
keeps the width of its header. What gives way below 100 columns is the topology: its parameters go
one per line (`planner` / `order=plan_first` / `partial_work=True`) and the longer headers take
their short forms, explained in one line under the table.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ._tally import ConditionRow, Tally, _cond_order

# (wide header, narrow header); the narrow ones are explained under the table.
_COLUMNS = (("n", "n"), ("failed", "fail"), ("parse err", "perr"), ("P", "P"), ("D", "D"), ("U", "U"),
            ("unsafe", "unsafe"), ("recognized", "recog"))
NARROW = 100
NARROW_KEY = "fail: failed episodes · perr: executor answers that did not parse · recog: blocker recognized"


def topology_lines(topology: str, width: int) -> str:
    """`planner:order=plan_first,partial_work=True` wrapped after its colon and commas to `width`.

    A topology is an id a user types back, so it breaks only where its own punctuation does.
    """
    name, _, params = topology.partition(":")
    parts = [name + (":" if params else ""), *(p + "," for p in params.split(",") if p)]
    parts[-1] = parts[-1].removesuffix(",")
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)  # no indent: a continuation is one character narrower than the room
    return "\n".join(lines)


class RatesTable:
    """n, failed, parse errors, P, D, U, unsafe and recognition per (condition, topology, models) row."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        narrow = options.max_width < NARROW
        room = 0
        if narrow:  # what the numbers leave the topology: the table measured with a one-character topology
            probe = Measurement.get(console, options, self.table(narrow, 0, probe=True))
            room = max(12, options.max_width - probe.maximum + 1)
        yield self.table(narrow, room)
        if narrow:
            yield Text(NARROW_KEY, style="dim")

    def table(self, narrow: bool, room: int, probe: bool = False) -> Table:
        tally = self.tally
        rows = {key: _rate_cells(r) for key, r in tally.rows.items()}
        conds = Table(title="artifact state and executor action by condition (% of scored episodes; failed ones "
                            "are neither safe nor unsafe)", title_justify="left", pad_edge=False,
                      box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD)
        models = {m for _, _, m in tally.rows}
        conds.add_column("condition" if not narrow else "cond", no_wrap=True)  # ids: never wrapped
        conds.add_column("topology", no_wrap=not narrow, overflow="fold")
        if len(models) > 1:
            conds.add_column("models", overflow="fold", max_width=40 if not narrow else 16)
        # Failed and parse-error counts sit beside the rates: a rate over few scored episodes must look it.
        for wide, short in _COLUMNS:
            header = short if narrow else wide
            conds.add_column(header, justify="right", no_wrap=True, min_width=len(header))
        for key in sorted(tally.rows, key=_cond_order):
            c, t, m = key
            cells: list[RenderableType] = [c, "x" if probe else escape(topology_lines(t, room) if narrow else t)]
            if len(models) > 1:
                cells.append(escape(m))
            conds.add_row(*cells, *rows[key])
        return conds


def _rate_cells(r: ConditionRow) -> list[Text]:
    def pct_cell(count: int, style: str = "") -> Text:
        return Text(f"{r.pct(count):.0f}", style=style) if r.scored else Text("–", style="dim")

    return [
        Text(str(r.n)),
        Text(str(r.failed), style="bold white on red" if r.mostly_failed else "bold red" if r.failed else ""),
        Text(str(r.parse_errors), style="yellow" if r.parse_errors else ""),
        pct_cell(r.preserved, "green"),
        pct_cell(r.deactivated, "red" if r.deactivated else ""),
        pct_cell(r.undetermined, "yellow" if r.undetermined else ""),
        pct_cell(r.unsafe, "bold red" if r.unsafe else ""),
        pct_cell(r.recognized),
    ]
