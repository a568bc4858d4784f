"""The live console of `mustmaybe run`: each hop as it arrives, the drift curve, the executor's outcome."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from mustmaybe.records import ArtifactScore, EpisodeRecord, Hop, Stage, first_break_stage, stages_of

_STATE = {"preserved": ("P", "bold green"), "deactivated": ("D", "bold red"), "undetermined": ("U", "bold yellow")}
_FIELDS = (("status", "s"), ("prerequisite", "q"), ("authority", "o"), ("fallback", "f"))

# Width available inside the panel from which each hop's message gets its own column (a 120-column
# terminal less the panel's border and padding). Narrower, the message goes on its own lines under
# the hop's row: a message column squeezed beside six others shrinks to a character or two.
WIDE = 116
_BADGES_W = 16  # four badges of 3 characters and a space
_STATE_W = 14  # "U undetermined"


def badges(score: ArtifactScore, previous: ArtifactScore | None = None, twin: bool = False) -> Text:
    """s/q/o/f badges: green '✓' kept; red '✗' lost at this hop; dark red '·' lost earlier.

    On a benign twin the blocker is resolved, so a field the handoff no longer carries is no loss:
    the badges are neutral ('✓' still carried, '–' not carried), never red.
    The marks keep the badges readable without colour (pipes, logs); `legend()` explains them.
    """
    t = Text()
    for name, letter in _FIELDS:
        kept = getattr(score.fields, name)
        was = getattr(previous.fields, name) if previous is not None else True
        if twin:
            t.append(f" {letter}{'✓' if kept else '–'}", style="black on cyan" if kept else "black on white")
        elif kept:
            t.append(f" {letter}✓", style="black on green")
        else:
            t.append(f" {letter}✗" if was else f" {letter}·", style="white on red" if was else "white on dark_red")
        t.append(" ")
    return t


class Legend:
    """What the view's marks mean: the badges, `ret` and the flags, and the drift strip, worded to the width."""

    def __init__(self, twin: bool = False) -> None:
        self.twin = twin

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = options.max_width >= 100
        t = Text(no_wrap=True, overflow="ellipsis")
        for name, letter in _FIELDS:
            t.append(letter, style="bold")
            t.append(f" {'prereq' if name == 'prerequisite' and not wide else name}" + ("  " if wide else " "),
                     style="dim")
        marks = (("✓", "kept", "green"), ("✗", "lost at this hop" if wide else "lost here", "red"),
                 ("·", "lost at an earlier hop" if wide else "lost earlier", "dark_red"))
        for mark, meaning, style in marks:
            t.append(" " + mark, style=f"bold {style}")
            t.append(f" {meaning}", style="dim")
        yield t
        if self.twin:
            yield Text.assemble(("twin", "bold cyan"), (" the blocker is resolved: '–' a field no longer carried and "
                                                        "'D cleared' are correct here, not losses", "dim"))
        yield Text.assemble(("ret", "bold"), (" retention score 0–1 (the mean of five retention indicators)  ", "dim"),
                            ("flags", "bold"), (" weakening found: " + ", ".join(FLAG_NAMES), "dim"))
        yield Text.assemble(("drift", "bold"), (" one bar per carried stage: its height is the stage's retention "
                                                "score (▁ is 0.00), its colour and letter the stage's state. The "
                                                "report's drift curve plots % of episodes P at each stage.", "dim"))


FLAG_NAMES = ("caveat", "later check", "omission", "assumed authorization")


def legend(twin: bool = False) -> Legend:
    return Legend(twin)


_TWIN_STATE = {"preserved": "P still blocked", "deactivated": "D cleared", "undetermined": "U undetermined"}


def state_cell(score: ArtifactScore, twin: bool = False) -> Text:
    """`P preserved`; on a benign twin, what the state means there (`D cleared` is the correct reading)."""
    if twin:
        return Text(_TWIN_STATE[score.state], style="bold cyan")
    letter, style = _STATE[score.state]
    return Text(f"{letter} {score.state}", style=style)


def flags_cell(score: ArtifactScore) -> Text:
    on = [k.replace("_", " ") for k, v in score.flags.model_dump().items() if v]
    return Text(", ".join(on) or "-", style="yellow" if on else "dim")


def drift_curve(stages: Sequence[Stage]) -> Text:
    """Retention at each carried stage as bars, coloured by state: where the blocker starts to lose force.

    A stage is what a step passes on toward the executor (records/_stages.py): a chain's handoff, a
    consensus round's whole thread, the coordinator's summary, the plan. A peer's single line is not one.
    The lowest bar is 0.00, drawn (a blank would read as a missing stage).
    """
    blocks = "▁▂▃▄▅▆▇█"
    t = Text("drift  ")
    for st in stages:
        r = st.score.retention_score
        t.append(blocks[min(7, max(0, round(r * 7)))] * 2, style=_STATE[st.score.state][1])
        t.append(" ")
    if stages:
        t.append("  " + " → ".join(f"{st.label} {_STATE[st.score.state][0]} {st.score.retention_score:.2f}"
                                   for st in stages), style="dim")
    return t


def round_note(stages: Sequence[Stage], hops: Sequence[Hop]) -> Text | None:
    """Why a consensus round can stay P while its peer lines are D, when that happens in this episode."""
    state = {h.index: h.score.state for h in hops}
    held = [st.label for st in stages if st.kind == "round" and st.score.state == "preserved"
            and any(state.get(i) != "preserved" for i in st.hops if i != 0)]
    if not held:
        return None
    return Text(f"{' and '.join(held)}: a round is scored as the whole thread its next reader sees, the reviewer's "
                "statement included, so it stays P while a single peer line alone reads D.", style="dim italic")


def first_break(rec: EpisodeRecord) -> str | None:
    """Where the drift curve first breaks, named by its stage ('round 1', 'hop 2'); None if it never does."""
    stages = stages_of(rec.hops, rec.stages, rec.topology.name)
    index = first_break_stage(stages)
    return None if index is None else next(s.label for s in stages if s.index == index)


def _snippet(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    # End on a word boundary when there is one nearby, so the last word shown is a whole word.
    space = cut.rfind(" ")
    return (cut[:space] if space > limit * 0.8 else cut) + " …"


def hops_table(hops: list[Hop], width: int = 70, twin: bool = False) -> Table:
    """The wide layout: one row per hop, the message in its own column."""
    table = Table(expand=True, show_lines=False, header_style="bold")
    table.add_column("hop", justify="right", width=3)
    table.add_column("sender", no_wrap=True)
    table.add_column(" s   q   o   f", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("flags")
    table.add_column("ret", justify="right", width=4)
    table.add_column("message", ratio=1)
    prev = None
    for h in hops:
        table.add_row(str(h.index), h.sender, badges(h.score, prev, twin), state_cell(h.score, twin),
                      flags_cell(h.score),
                      f"{h.score.retention_score:.2f}", escape(_snippet(h.text, width * 2)))
        prev = h.score
    return table


def hops_stacked(hops: list[Hop], width: int, twin: bool = False) -> Group:
    """The narrow layout: each hop's row, then its message on its own indented lines under it.

    Every row is a grid with the same fixed column widths, so the rows line up as a table would;
    ids (hop, sender) never wrap. Where too little is left for the flags, they go on their own line too.
    """
    sender_w = max([6, *(len(h.sender) for h in hops)])
    flags_inline = width - (3 + sender_w + _BADGES_W + _STATE_W + 4 + 5) >= 12

    def row(*cells: str | Text, style: str = "") -> Table:
        grid = Table.grid(padding=(0, 1), expand=flags_inline)
        grid.add_column(justify="right", width=3, no_wrap=True)
        grid.add_column(width=sender_w, no_wrap=True)
        grid.add_column(width=_BADGES_W, no_wrap=True)
        grid.add_column(width=_STATE_W, no_wrap=True)
        grid.add_column(justify="right", width=4, no_wrap=True)
        if flags_inline:
            grid.add_column(ratio=1)
        grid.add_row(*cells[: 6 if flags_inline else 5], style=style)
        return grid

    # The header's letters sit over the badges' letters (each badge is " s✓" and a space).
    parts: list[RenderableType] = [row("hop", "sender", " s   q   o   f", "state", "ret", "flags", style="bold")]
    limit = max(140, (width - 4) * 3)  # about three lines of message
    prev = None
    for h in hops:
        parts.append(row(str(h.index), h.sender, badges(h.score, prev, twin), state_cell(h.score, twin),
                         f"{h.score.retention_score:.2f}", flags_cell(h.score)))
        if not flags_inline:
            parts.append(Padding(Text.assemble(("flags ", "dim"), flags_cell(h.score)), (0, 0, 0, 4)))
        parts.append(Padding(Text(_snippet(h.text, limit)), (0, 0, 0, 4)))
        prev = h.score
    return Group(*parts)


class HopsView:
    """The hops at any width: `hops_table` from WIDE columns up, `hops_stacked` below."""

    def __init__(self, hops: list[Hop], twin: bool = False) -> None:
        self.hops, self.twin = hops, twin

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= WIDE:
            yield hops_table(self.hops, twin=self.twin)
        else:
            yield hops_stacked(self.hops, options.max_width, self.twin)


TWIN_MARK = "BENIGN TWIN"


def header(task: str, condition: str, topology: str, models: dict[str, str], simulated: bool, seed: int,
           twin: bool = False, substrate: str = "autogen") -> Text:
    t = Text()
    if twin:
        t.append(f" {TWIN_MARK} ", style="bold black on cyan")
        t.append(" the blocker is resolved: proceeding is correct, and so is a handoff that says so\n", style="cyan")
    t.append(f"{task}", style="bold")
    on = f"  on {substrate}" if substrate != "autogen" else ""  # AutoGen, the default, is not named
    t.append(f"  condition {condition}  topology {topology}{on}  seed {seed}\n", style="cyan")
    t.append("models  " + "  ".join(f"{r}={m}" for r, m in models.items()), style="dim")
    if simulated:
        t.append("\nSIMULATED: made with the sim backend; its rates are inputs, not findings", style="bold magenta")
    return t


class InFlight:
    """The status line while a model call runs: what is awaited and for how long, counted at each redraw.

    `rich.live.Live` redraws several times a second, so the seconds tick on while a slow local or
    remote call has not answered yet.
    """

    def __init__(self, text: str, since: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.text, self.clock = text, clock
        self.since = clock() if since is None else since

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(f"{self.text}  (call in flight {self.clock() - self.since:.1f} s)", style="dim")


def live_view(head: Text, hops: list[Hop], status: str | InFlight, stages: Sequence[Stage] | None = None,
              twin: bool = False) -> RenderableType:
    """The panel: the hops so far, the drift curve over their carried stages (the one-hop stages when
    `stages` is not given), the legend and a status line."""
    carried = stages_of(hops, []) if stages is None else stages
    note = round_note(carried, hops)
    parts: list[RenderableType] = [head, HopsView(hops, twin), drift_curve(carried), *([note] if note else []),
                                   legend(twin),
                                   Text(status, style="dim") if isinstance(status, str) else status]
    return Panel(Group(*parts),
                 title="mustmaybe run", border_style="blue")


def outcome(rec: EpisodeRecord) -> RenderableType:
    ex = rec.executor
    y = Text(" UNSAFE: forbidden action ", style="bold white on red") if ex.forbidden else Text(
        " safe ", style="bold black on green")
    if rec.failed:  # a failed episode is neither safe nor unsafe: nothing was scored
        y = Text(" FAILED: not scored ", style="bold white on red")
    twin = rec.twin
    t = Text()
    if twin:
        t.append(f" {TWIN_MARK} ", style="bold black on cyan")
        t.append(" the blocker was resolved; the correct action is to proceed\n", style="cyan")
    t.append("artifact  ")
    score = rec.artifact.score
    if score is None:  # a failed episode: no state, no fields (the hops above keep their own scores)
        t.append("FAILED", style="bold white on red")
        t.append("   not scored\n")
    else:
        t.append_text(badges(score, twin=twin))
        t.append_text(state_cell(score, twin))
        t.append(f"   complete={'yes' if score.complete else 'no'}")
    broke = first_break(rec)
    if score is None:
        pass
    elif not rec.hops:
        t.append("   no hop was transmitted\n")
    elif twin:
        t.append("   (a twin has no blocker to lose)\n")
    elif broke is not None:
        t.append(f"   first break at {broke}\n")
    else:
        t.append("   preserved at every hop\n")
    if rec.failed:
        t.append("executor  ")
        t.append_text(y)
        t.append("  a model call failed, so the executor never acted on a handoff (errors below)\n")
    else:
        t.append(f"executor  action {ex.action}  ")
        t.append_text(y)
        if twin and ex.overblocked:
            t.append(" OVER-BLOCKED: the resolved blocker was still treated as binding ", style="bold black on yellow")
        t.append(f"  blocker recognized={'yes' if ex.blocker_recognized else 'no'}")
        t.append(f"  parsed={'yes' if ex.parse_ok else 'NO (rule: ' + str(ex.action_rule) + ')'}\n")
    if ex.rationale:
        t.append(f"rationale {ex.rationale[:300]}\n", style="italic")
    identified = {True: "yes", False: "NO", None: "not scored"}[rec.reviewer_identified]
    t.append(f"reviewer identified the blocker: {identified}   "
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
    return Panel(Group(*parts), title=f"outcome · {rec.condition}" + (" · benign twin" if twin else "")
                 + (" · FAILED" if rec.failed else ""),
                 border_style="red" if ex.forbidden or rec.failed else "green")


def compare_table(records: list[EpisodeRecord]) -> RenderableType:
    """The episodes side by side: a table where it fits, else one block per episode (`FitTable`), so the
    actions are whole at any width: a safe and an unsafe action must never look the same."""
    from ._fit import FitTable

    rows: list[list[str | Text]] = []
    for r in records:
        s = r.artifact.score
        failed = Text("FAILED", style="bold white on red")
        rows.append([r.condition + (" twin" if r.twin else ""), escape(str(r.topology)),
                     badges(s, twin=r.twin) if s else failed, state_cell(s, r.twin) if s else failed,
                     first_break(r) or "-", escape(r.executor.action or "-"),
                     Text("FAILED", style="bold white on red") if r.failed else
                     Text("UNSAFE", style="bold red") if r.executor.forbidden else Text("safe", style="green"),
                     "yes" if r.executor.blocker_recognized else "no"])
    return FitTable(["condition", "topology", "s q o f", "state", "first break", "action", "Y", "recognized"], rows,
                    title="side by side (same task and seed)", label_columns=2)
