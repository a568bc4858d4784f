"""The live sweep display (rich): progress, per-endpoint calls, and the per-condition P / D / U table.

`render` only reads a Tally, so the sweep and `mustmaybe watch` show the same thing;
`run_with_display` redraws it while a runner works. rich is imported when something is drawn: a
`sweep --json` (or a sweep with no terminal until its closing table) never loads it for its episodes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult

    from ._tally import Tally


def _dur(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _num(n: int) -> str:
    if n >= 10_000_000:
        return f"{n / 1e6:.0f}M"
    if n >= 100_000:
        return f"{n / 1e3:.0f}k"
    return f"{n:,}"


class _EndpointsTable:
    """Model calls by endpoint. Below 100 columns, planned joins calls and tokens in joins tokens out, so the
    endpoint's URL (never cut: it is what a user looks up) keeps its room."""

    def __init__(self, tally: Tally, in_flight: Mapping[str, int] | None) -> None:
        self.tally, self.in_flight = tally, in_flight

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.markup import escape
        from rich.table import Table
        from rich.text import Text

        compact = options.max_width < 100
        eps = Table(title="model calls by endpoint", title_justify="left", expand=False, pad_edge=False)
        cols = (("endpoint", "calls/planned", "cached", "tokens in/out", "retries", "errors") if compact else
                ("endpoint", "planned", "calls", "cached", "in flight", "tokens in", "tokens out", "retries", "errors"))
        for col in cols:
            eps.add_column(col, justify="left" if col == "endpoint" else "right", no_wrap=True)
        for name, ep in sorted(self.tally.endpoints.items()):
            retries = Text(str(ep.retries), style="yellow" if ep.retries else "")
            errors = Text(str(ep.errors), style="red" if ep.errors else "")
            if compact:
                eps.add_row(escape(name), f"{_num(ep.calls)}/{_num(ep.planned) if ep.planned else '–'}",
                            _num(ep.cached), f"{_num(ep.prompt_tokens)}/{_num(ep.completion_tokens)}", retries, errors)
                continue
            eps.add_row(
                escape(name), _num(ep.planned) if ep.planned else "–", _num(ep.calls), _num(ep.cached),
                str((self.in_flight or {}).get(name, ep.in_flight)) if name.startswith("http") else "–",
                _num(ep.prompt_tokens), _num(ep.completion_tokens), retries, errors,
            )
        yield eps


def render(tally: Tally, *, in_flight: Mapping[str, int] | None = None, source: str = "sweep") -> RenderableType:
    """The whole display as one renderable."""
    from rich.console import Group
    from rich.progress_bar import ProgressBar
    from rich.table import Table
    from rich.text import Text

    from ._rates_table import RatesTable
    head = Text.assemble((f"{source} ", "bold"), (tally.name, "bold cyan"), "  ")
    status_style = {"running": "green", "finished": "bold green", "interrupted": "yellow",
                    "stopping…": "bold yellow"}.get(tally.status, "red")
    head.append(tally.status, style=status_style)
    if tally.simulated:
        head.append("   SIMULATED", style="bold black on yellow")
        head.append(" sim backend: its rates are inputs, not findings", style="yellow")

    done, total = tally.done, tally.total
    bar = ProgressBar(total=max(total, 1), completed=min(done, total), width=40)
    rate = tally.rate()
    line = Text.assemble(
        (f" {done:,}/{total:,}", "bold"), f" episodes ({100.0 * done / total if total else 0:.0f}%)",
        f"   this session {tally.ran:,}",
        (f"   failed {tally.failed}", "bold red") if tally.failed else "",
        f"   elapsed {_dur(tally.elapsed_s())}",
        f"   {rate:.1f} ep/s" if rate else "",
        f"   ETA {_dur(tally.eta_s())}" if tally.status == "running" else "",
    )
    progress = Table.grid(padding=(0, 1))
    progress.add_row(bar, line)

    eps = _EndpointsTable(tally, in_flight)

    from ._tally import _cond_order

    mostly_failed: list[str] = []
    models = {m for _, _, m in tally.rows}
    for key in sorted(tally.rows, key=_cond_order):
        c, t, m = key
        r = tally.rows[key]
        if r.mostly_failed:
            mostly_failed.append(f"{c} {t}" + (f" [{m}]" if len(models) > 1 else "")
                                 + f": {r.failed} of {r.n} episodes failed"
                                 + (f", rates from {r.scored} scored" if r.scored else ", nothing scored"))

    parts: list[RenderableType] = [head, progress, eps, RatesTable(tally)]
    if mostly_failed:
        warn = Text("MOST EPISODES FAILED ", style="bold white on red")
        warn.append(" " + "; ".join(mostly_failed)
                    + ". A failed episode is neither safe nor unsafe; see the errors below.", style="bold red")
        parts.append(warn)
    if tally.error_kinds or tally.failure_kinds:
        err = Text("recorded errors: ", style="bold")
        err.append(", ".join(f"{k} {n}" for k, n in tally.error_kinds.most_common()) or "none")
        if tally.failure_kinds:
            err.append("   failed episodes (run again on --resume): ", style="bold red")
            err.append(", ".join(f"{k} {n}" for k, n in tally.failure_kinds.most_common()))
        parts.append(err)
    return Group(*parts)


def in_flight() -> dict[str, int]:
    """Requests in flight per endpoint in the running event loop (from the shared limiters)."""
    try:
        from mustmaybe.agents import limiters
    except ImportError:
        return {}
    return {url: lim.in_flight for url, lim in limiters().items()}


async def run_with_display(runner: Any, todo: list[Any], max_in_flight: int, console: Console | None, *, live: bool,
                           refresh_s: float) -> None:
    """Run `todo` with `runner`, redrawing its counts on `console` while it runs (when `live`)."""
    if not live:
        await runner.run(todo, max_in_flight)
        return

    from rich.live import Live

    def snapshot() -> Any:
        return render(runner.tally, in_flight=in_flight())

    with Live(snapshot(), console=console, auto_refresh=False, transient=False) as display:
        async def refresh() -> None:
            # At most ~5% of the time goes to drawing: wait 20× what the last frame took.
            pause = refresh_s
            while True:
                await asyncio.sleep(pause)
                t0 = time.perf_counter()
                display.update(snapshot(), refresh=True)
                pause = max(refresh_s, 20 * (time.perf_counter() - t0))

        ticker = asyncio.create_task(refresh())
        try:
            await runner.run(todo, max_in_flight)
            runner.tally.status = "finished" if runner.tally.failed == 0 else "incomplete"
        except BaseException:
            runner.tally.status = "interrupted"
            raise
        finally:
            ticker.cancel()
            display.update(snapshot(), refresh=True)
