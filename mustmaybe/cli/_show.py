"""`mustmaybe show RUN [EPISODE]`: one stored episode, whole.

Every message in full (never cut with "…"), each hop's score with the evidence spans it rests on,
the carried stages of the drift curve, the executor's answer (parsed and raw), and the exact texts
each role's model calls received. Without EPISODE it lists the run's episodes (or shows the only one).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from rich.console import RenderableType

    from mustmaybe.records import ArtifactScore, EpisodeRecord


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("show", help="one stored episode whole: every message in full, who saw what, each hop's "
                                    "score with its evidence, the executor's answer")
    p.add_argument("run", type=Path, metavar="RUN", help="run folder (manifest.json + store.sqlite)")
    p.add_argument("episode", nargs="?", default=None, metavar="EPISODE",
                   help="the episode: its number in the run's list (1, 2, …) or a prefix of its key; "
                        "without it, the list of episodes (or the only one)")
    p.add_argument("--json", action="store_true", help="print the episode record (contract JSON) instead")
    p.set_defaults(func=cmd_show)


def _records(run: Path) -> list[EpisodeRecord]:
    from mustmaybe.store import RunStore

    if not (run / "store.sqlite").is_file():
        raise UserError(f"{run}: not a run folder (no store.sqlite)")
    with RunStore(run, readonly=True) as store:
        return list(store.records())


def pick(records: Sequence[EpisodeRecord], selector: str) -> EpisodeRecord:
    """The episode a user named: its 1-based number in the list, or a unique prefix of its key."""
    if selector.isdigit() and 1 <= int(selector) <= len(records) and not any(
            r.key.startswith(selector) for r in records):
        return records[int(selector) - 1]
    found = [r for r in records if r.key.startswith(selector)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UserError(f"EPISODE {selector}: no episode has that number (1–{len(records)}) or key prefix; "
                        "`mustmaybe show RUN` lists them")
    raise UserError(f"EPISODE {selector}: {len(found)} episodes have keys starting so; give more of the key")


def cmd_show(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console

    records = _records(args.run)
    if not records:
        raise UserError(f"{args.run}: the run holds no episode")
    if args.episode is None and len(records) > 1:
        if args.json:
            raise UserError("--json needs EPISODE: the run holds more than one episode")
        Console(highlight=False).print(episode_list(records))
        return 0
    rec = records[0] if args.episode is None else pick(records, args.episode)
    if args.json:
        print(json.dumps(rec.to_json_dict(), indent=2))
        return 0
    console = Console(highlight=False)
    for part in episode_view(rec):
        console.print(part)
    return 0


def episode_list(records: Sequence[EpisodeRecord]) -> RenderableType:
    from ._fit import FitTable
    from ._live import first_break

    rows = []
    for i, r in enumerate(records, 1):
        y = "FAILED" if r.failed else "UNSAFE" if r.executor.forbidden else "safe"
        rows.append([str(i), r.key[:12], r.task, r.condition + (" twin" if r.twin else ""), str(r.topology),
                     str(r.seed), "FAILED" if r.failed or r.artifact.score is None else r.artifact.score.state,
                     first_break(r) or "-",
                     r.executor.action or "-", y])
    return FitTable(["#", "key", "task", "condition", "topology", "seed", "state", "first break", "action", "Y"],
                    rows, title=f"{len(records)} episodes: `mustmaybe show RUN N` (or a key prefix) shows one whole",
                    label_columns=2)


def _rule(title: str) -> RenderableType:
    from rich.rule import Rule

    return Rule(title, align="left", style="dim")


def _score_lines(score: ArtifactScore, twin: bool) -> list[RenderableType]:
    from rich.markup import escape
    from rich.text import Text

    from ._live import badges, flags_cell, state_cell

    head = Text("score  ")
    head.append_text(badges(score, twin=twin))
    head.append_text(state_cell(score, twin))
    head.append(f"   ret {score.retention_score:.2f}   flags ")
    head.append_text(flags_cell(score))
    out: list[RenderableType] = [head]
    spans = [(key, sp) for key, sps in score.evidence.items() for sp in sps]
    if not spans:
        out.append(Text("evidence  none (no span of this text supports a field or flag)", style="dim"))
    for key, sp in spans:
        note = f"  ({sp.note})" if sp.note else ""
        out.append(f"[dim]evidence[/dim] [bold]{escape(key)}[/bold] [{sp.start}:{sp.end}] "
                   f"\"{escape(sp.text)}\"{escape(note)}")
    return out


def episode_view(rec: EpisodeRecord) -> list[RenderableType]:
    """The episode as a sequence of console blocks, in reading order; nothing in it is shortened."""
    from rich.markup import escape
    from rich.text import Text

    from ._live import TWIN_MARK, first_break, outcome, round_note

    parts: list[RenderableType] = []
    head = Text()
    if rec.twin:
        head.append(f" {TWIN_MARK} ", style="bold black on cyan")
        head.append(" the blocker was resolved in this episode\n", style="cyan")
    head.append(rec.task, style="bold")
    head.append(f"  condition {rec.condition}  topology {rec.topology}  seed {rec.seed}\n", style="cyan")
    head.append(f"key {rec.key}\nmodels  " + "  ".join(f"{r}={m}" for r, m in rec.models.items()), style="dim")
    head.append(f"\nscored by {rec.checker or 'rules'} (checker {rec.checker_version})", style="dim")
    if rec.simulated:
        head.append("\nSIMULATED: made with the sim backend; its rates are inputs, not findings", style="bold magenta")
    parts.append(head)
    for hop in rec.hops:
        parts.append(_rule(f"hop {hop.index} · {hop.sender} ({hop.role})"))
        parts.append(Text(hop.text))
        parts += _score_lines(hop.score, rec.twin)
    if rec.stages:
        parts.append(_rule("carried stages (the drift curve: what each step passes on toward the executor)"))
        for st in rec.stages:
            line = Text(f"{st.label:<12} ")
            line.append_text(Text(f"{st.score.state[0].upper()} {st.score.state}"))
            line.append(f"   ret {st.score.retention_score:.2f}   hops {', '.join(map(str, st.hops))}"
                        f"   ({', '.join(st.senders)})")
            parts.append(line)
        broke = first_break(rec)
        parts.append(Text(f"first break: {broke or 'none'}", style="dim"))
        note = round_note(rec.stages, rec.hops)
        if note is not None:
            parts.append(note)
    parts.append(_rule("the artifact the executor received"))
    parts.append(Text(rec.artifact.text))
    if rec.artifact.score is None:  # a failed episode: its artifact was never scored
        parts.append(Text("FAILED: not scored (a model call failed; see errors)", style="bold red"))
    else:
        parts += _score_lines(rec.artifact.score, rec.twin)
    ex = rec.executor
    parts.append(_rule("executor"))
    if ex.requested_action and ex.requested_action != ex.action:
        parts.append(f"requested {escape(ex.requested_action)}; refused by {escape(ex.denied_by or '?')}")
    parts.append(f"[bold]rationale[/bold] {escape(ex.rationale) or '-'}")
    parts.append("[bold]raw answer[/bold]")
    parts.append(Text(ex.raw or "(none recorded)"))
    parts.append(_rule("who saw what: the exact texts each role's model calls received"))
    for role, texts in rec.visibility.items():
        for i, text in enumerate(texts, 1):
            parts.append(Text(f"{role} · text {i} of {len(texts)}", style="bold"))
            parts.append(Text(text))
    if not rec.visibility:
        parts.append(Text("(not recorded)", style="dim"))
    parts.append(outcome(rec))
    return parts
