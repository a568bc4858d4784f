"""The live sweep display (rich): progress, per-endpoint calls, and the per-condition P / D / U table.

`render` only reads a Tally, so the sweep and `mustmaybe watch` show the same thing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

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


def render(tally: Tally, *, in_flight: Mapping[str, int] | None = None, source: str = "sweep") -> RenderableType:
    """The whole display as one renderable."""
    head = Text.assemble((f"{source} ", "bold"), (tally.name, "bold cyan"), "  ")
    status_style = {"running": "green", "finished": "bold green", "interrupted": "yellow"}.get(tally.status, "red")
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
        (f"   failed {tally.failed}" if tally.failed else ""),
        f"   elapsed {_dur(time.monotonic() - tally.started)}",
        f"   {rate:.1f} ep/s" if rate else "",
        f"   ETA {_dur(tally.eta_s())}" if tally.status == "running" else "",
    )
    progress = Table.grid(padding=(0, 1))
    progress.add_row(bar, line)

    eps = Table(title="model calls by endpoint", title_justify="left", expand=False, pad_edge=False)
    for col in ("endpoint", "planned", "calls", "cached", "in flight", "tokens in", "tokens out", "retries", "errors"):
        eps.add_column(col, justify="left" if col == "endpoint" else "right")
    for name, ep in sorted(tally.endpoints.items()):
        eps.add_row(
            escape(name), _num(ep.planned) if ep.planned else "–", _num(ep.calls), _num(ep.cached),
            str((in_flight or {}).get(name, ep.in_flight)) if name.startswith("http") else "–",
            _num(ep.prompt_tokens), _num(ep.completion_tokens),
            Text(str(ep.retries), style="yellow" if ep.retries else ""),
            Text(str(ep.errors), style="red" if ep.errors else ""),
        )

    conds = Table(title="artifact state and executor action by condition (% of episodes)", title_justify="left",
                  pad_edge=False)
    topologies = {t for _, t, _ in tally.rows}
    models = {m for _, _, m in tally.rows}
    conds.add_column("condition")
    conds.add_column("topology")
    if len(models) > 1:
        conds.add_column("models", overflow="fold", max_width=40)
    for col in ("n", "P", "D", "U", "unsafe", "recognized", "errors"):
        conds.add_column(col, justify="right")
    from ._tally import _cond_order

    for key in sorted(tally.rows, key=_cond_order):
        c, t, m = key
        r = tally.rows[key]
        cells: list[RenderableType] = [c, escape(t) if len(topologies) > 0 else ""]
        if len(models) > 1:
            cells.append(escape(m))
        cells += [
            str(r.n),
            Text(f"{r.pct(r.preserved):.0f}", style="green"),
            Text(f"{r.pct(r.deactivated):.0f}", style="red" if r.deactivated else ""),
            Text(f"{r.pct(r.undetermined):.0f}", style="yellow" if r.undetermined else ""),
            Text(f"{r.pct(r.unsafe):.0f}", style="bold red" if r.unsafe else ""),
            f"{r.pct(r.recognized):.0f}",
            Text(str(r.errors), style="red" if r.errors else ""),
        ]
        conds.add_row(*cells)

    parts: list[RenderableType] = [head, progress, eps, conds]
    if tally.error_kinds or tally.failure_kinds:
        err = Text("recorded errors: ", style="bold")
        err.append(", ".join(f"{k} {n}" for k, n in tally.error_kinds.most_common()) or "none")
        if tally.failure_kinds:
            err.append("   episodes that raised (run again on --resume): ", style="bold red")
            err.append(", ".join(f"{k} {n}" for k, n in tally.failure_kinds.most_common()))
        parts.append(err)
    return Group(*parts)


def in_flight() -> dict[str, int]:
    """Requests in flight per endpoint in the running event loop (from the shared limiters)."""
    try:
        from mustmaybe.agents._limits import limiters
    except ImportError:
        return {}
    return {url: lim.in_flight for url, lim in limiters().items()}
