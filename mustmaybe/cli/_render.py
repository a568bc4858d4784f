"""Rich renderables shared by the console commands."""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.text import Text

from mustmaybe.checker import CheckResult
from mustmaybe.records import ArtifactScore

_STATE_STYLE = {"preserved": "bold green", "deactivated": "bold red", "undetermined": "bold yellow"}
_FIELD_LETTER = {"status": "s", "prerequisite": "q", "authority": "o", "fallback": "f"}


def field_badges(score: ArtifactScore) -> Text:
    """s/q/o/f badges: green when the field is kept, red and struck when lost."""
    t = Text()
    for name, letter in _FIELD_LETTER.items():
        kept = getattr(score.fields, name)
        # The mark keeps the badge readable where colour is stripped (logs, pipes).
        t.append(f" {letter}:{name} {'✓' if kept else '✗'} ", style="black on green" if kept else "white on red strike")
        t.append(" ")
    return t


def state_text(score: ArtifactScore) -> Text:
    return Text(score.state.upper(), style=_STATE_STYLE[score.state])


def flag_text(score: ArtifactScore) -> Text:
    on = [k.replace("_", " ") for k, v in score.flags.model_dump().items() if v]
    return Text(", ".join(on) if on else "none", style="yellow" if on else "dim")


def evidence_text(score: ArtifactScore) -> Text:
    """One line per span: which field or flag it carries, and the artifact's own words."""
    t = Text()
    for key, spans in score.evidence.items():
        for sp in spans:
            if t:
                t.append("\n")
            t.append(f"  {key.replace('_', ' '):<22}", style="bold")
            t.append(" ".join(sp.text.split()), style="italic")
            if sp.note:
                t.append(f"  ({sp.note})", style="dim")
    return t if t else Text("  none", style="dim")


def render_check(result: CheckResult, artifact: str) -> Panel:
    body = Group(
        Text.assemble(("fields  ", "bold"), field_badges(result)),
        Text.assemble(("state   ", "bold"), state_text(result),
                      ("   complete " if result.complete else "   incomplete ", "dim")),
        Text.assemble(("flags   ", "bold"), flag_text(result)),
        Text.assemble(("score   ", "bold"), f"retention {result.retention_score:.2f}"),
        Text("evidence", style="bold"),
        evidence_text(result),
        Text(""),
        Text(artifact.strip(), style="italic"),
    )
    return Panel(body, title=f"check · {result.task}", subtitle=f"checker {result.checker}")
