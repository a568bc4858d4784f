"""The live console of `mustmaybe run`: each hop as it arrives, the drift curve, the executor's outcome."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .checker import ArtifactScore
from .teams import EpisodeRecord, Hop

_STATE = {"preserved": ("P", "bold green"), "deactivated": ("D", "bold red"), "undetermined": ("U", "bold yellow")}
_FIELDS = (("status", "s"), ("prerequisite", "q"), ("authority", "o"), ("fallback", "f"))


def badges(score: ArtifactScore, previous: ArtifactScore | None = None) -> Text:
    """s/q/o/f badges: green kept; red '✗' lost at this hop; dark red '·' lost earlier (readable without colour)."""
    t = Text()
    for name, letter in _FIELDS:
        kept = getattr(score.fields, name)
        was = getattr(previous.fields, name) if previous is not None else True
        if kept:
            t.append(f" {letter} ", style="black on green")
        else:
            t.append(f" {letter}✗" if was else f" {letter}·", style="white on red" if was else "white on dark_red")
        t.append(" ")
    return t


def state_cell(score: ArtifactScore) -> Text:
    letter, style = _STATE[score.state]
    return Text(f"{letter} {score.state}", style=style)


def flags_cell(score: ArtifactScore) -> Text:
    on = [k.replace("_", " ") for k, v in score.flags.model_dump().items() if v]
    return Text(", ".join(on) or "-", style="yellow" if on else "dim")


def drift_curve(hops: list[Hop]) -> Text:
    """Retention per hop as bars, coloured by state: where the blocker starts to lose force."""
    blocks = " ▁▂▃▄▅▆▇█"
    t = Text("drift  ")
    for h in hops:
        r = h.score.retention_score
        t.append(blocks[min(8, round(r * 8))] * 2, style=_STATE[h.score.state][1])
        t.append(" ")
    if hops:
        t.append("  " + " → ".join(f"{h.score.retention_score:.2f}" for h in hops), style="dim")
    return t


def hops_table(hops: list[Hop], width: int = 70) -> Table:
    table = Table(expand=True, show_lines=False, header_style="bold")
    table.add_column("hop", justify="right", width=3)
    table.add_column("sender", no_wrap=True)
    table.add_column("s q o f", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("flags")
    table.add_column("ret", justify="right", width=4)
    table.add_column("message", ratio=1)
    prev = None
    for h in hops:
        text = " ".join(h.text.split())
        snippet = text if len(text) <= width * 2 else text[: width * 2 - 1] + "…"
        table.add_row(str(h.index), h.sender, badges(h.score, prev), state_cell(h.score), flags_cell(h.score),
                      f"{h.score.retention_score:.2f}", escape(snippet))
        prev = h.score
    return table


def header(task: str, condition: str, topology: str, models: dict[str, str], simulated: bool, seed: int) -> Text:
    t = Text()
    t.append(f"{task}", style="bold")
    t.append(f"  condition {condition}  topology {topology}  seed {seed}\n", style="cyan")
    t.append("models  " + "  ".join(f"{r}={m}" for r, m in models.items()), style="dim")
    if simulated:
        t.append("\nSIMULATED: made with the sim backend; its rates are inputs, not findings", style="bold magenta")
    return t


def live_view(head: Text, hops: list[Hop], status: str) -> RenderableType:
    return Panel(Group(head, hops_table(hops), drift_curve(hops), Text(status, style="dim")),
                 title="mustmaybe run", border_style="blue")


def outcome(rec: EpisodeRecord) -> RenderableType:
    ex = rec.executor
    y = Text(" UNSAFE: forbidden action ", style="bold white on red") if ex.forbidden else Text(
        " safe ", style="bold black on green")
    t = Text()
    t.append("artifact  ")
    t.append_text(badges(rec.artifact.score))
    t.append_text(state_cell(rec.artifact.score))
    t.append(f"   complete={'yes' if rec.artifact.score.complete else 'no'}")
    if not rec.hops:
        t.append("   no hop was transmitted\n")
    elif rec.first_break_hop is not None:
        t.append(f"   first break at hop {rec.first_break_hop}\n")
    else:
        t.append("   preserved at every hop\n")
    t.append(f"executor  action {ex.action}  ")
    t.append_text(y)
    t.append(f"  blocker recognized={'yes' if ex.blocker_recognized else 'no'}")
    t.append(f"  parsed={'yes' if ex.parse_ok else 'NO (rule: ' + ex.action_rule + ')'}\n")
    if ex.rationale:
        t.append(f"rationale {ex.rationale[:300]}\n", style="italic")
    t.append(f"reviewer identified the blocker: {'yes' if rec.reviewer_identified else 'NO'}   "
             f"isolation: {'ok' if rec.isolation.ok else 'LEAK ' + '; '.join(rec.isolation.leaks)}")
    usage = Table(title="usage per role", expand=False, header_style="bold")
    for col in ("role", "calls", "prompt tok", "completion tok", "latency s", "cached"):
        usage.add_column(col, justify="right" if col != "role" else "left")
    for role, u in rec.usage.items():
        usage.add_row(role, str(u.calls), str(u.prompt_tokens), str(u.completion_tokens), f"{u.latency_s:.2f}",
                      str(u.cached_calls))
    parts: list[RenderableType] = [t, usage]
    if rec.errors:
        errs = Text("\n".join(f"{e.where}: {e.kind}: {e.message}" for e in rec.errors), style="red")
        parts.append(Panel(errs, title="errors (recorded on the episode)", border_style="red"))
    return Panel(Group(*parts), title=f"outcome · {rec.condition}", border_style="green" if not ex.forbidden else "red")


def compare_table(records: list[EpisodeRecord]) -> Table:
    table = Table(title="side by side (same task and seed)", header_style="bold")
    for col in ("condition", "topology", "s q o f", "state", "first break", "action", "Y", "recognized"):
        table.add_column(col, no_wrap=col in ("condition", "s q o f", "state", "Y"))
    for r in records:
        table.add_row(r.condition, str(r.topology), badges(r.artifact.score), state_cell(r.artifact.score),
                      "-" if r.first_break_hop is None else str(r.first_break_hop), r.executor.action,
                      Text("UNSAFE", style="bold red") if r.executor.forbidden else Text("safe", style="green"),
                      "yes" if r.executor.blocker_recognized else "no")
    return table
