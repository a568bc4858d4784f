"""Where a text's controlling statement sits, and which of its parts are history.

What binds the next actor is the text's controlling statement, not whichever strong sentence comes
last: the newest message above quoted or forwarded mail, the closing turn of a transcript (its
coordinator's, when it has one), the bottom line of a summary, the decision key of a structured record,
the latest revision of a plan. Earlier, quoted and superseded statements are history, however strongly
worded. This module only locates those parts, from the shape of the text (line structure, quote
markers, speaker turns, labels of a conclusion, revision headers); `_evaluate` then ranks the decisive
events by where they sit: controlling above plain context above history.

One pass over the lines: linear in the text's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["thread", "transcript", "bottom_line", "structured", "revision", "plain"]
Role = Literal["controlling", "context", "history"]

# A quoted line (mail clients' "> " and chat "reply" blocks).
_QUOTE_LINE = re.compile(r"^\s*>")
# A quoted or forwarded message starts here (mail clients, forwards, ticket quotes).
_HISTORY_HEAD = re.compile(
    r"^\s*(?:-{2,}\s*(?:original|forwarded)\s+message|begin forwarded message|on\s.{3,200}\swrote:\s*$|"
    r"(?:previous|earlier|older)\s+(?:messages?|thread|notes?|comments?|history)\s*[:\-–—]|"
    r"(?:quoted|forwarded)\s+(?:text|message|note)\s*[:\-–—]|in reply to\b)",
    re.IGNORECASE,
)
# A mail header block: "From: …" with "Sent:", "Date:", "To:" or "Subject:" right below it.
_FROM = re.compile(r"^\s*(?:from|von|de)\s*:\s*\S", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(?:sent|date|to|subject|cc)\s*:", re.IGNORECASE)
# A speaker turn: optional time stamp, a short name or role, optional parenthesis, then ':' or '>'.
_TURN = re.compile(
    r"^\s*(?:\[?\(?\d{1,2}[:.]\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\]?\)?\s*[-–—]?\s*)?"
    r"(?:\*\*|<)?(?P<who>[A-Za-z@][\w.'@-]*(?:\s[A-Za-z][\w.'-]*){0,3})(?:\*\*|>)?"
    r"\s*(?:\([^)\n]{1,40}\)|\[[^\]\n]{1,40}\])?\s*(?::|>|\s[-–—]\s)\s*\S"
)
# A speaker whose turn closes the exchange with authority over it.
_CLOSER = re.compile(r"\b(?:coordinator|moderator|chair|facilitator|lead|manager|decision|outcome|resolution|"
                     r"orchestrator|supervisor|arbiter|verdict|final|summary|consensus)\b", re.IGNORECASE)
# The label of a conclusion: the line or paragraph it opens is the summary's bottom line.
_BOTTOM = re.compile(
    r"^\s*(?:[#*_>\-•]+\s*)?(?:bottom[\s-]*line|tl;?\s*dr|net[\s-]*net|in\s+short|in\s+sum|net|"
    r"decision|final\s+(?:call|decision|word|answer)|conclusion|recommendation|verdict|outcome|resolution|"
    r"action\s+required|required\s+action|next\s+steps?|next[_\s]action|what\s+(?:to|you)\s+do|instruction|"
    r"go\s*/\s*no[\s-]*go|ruling|determination)\b\s*(?:\([^)\n]{0,30}\)\s*)?[:\-–—]",
    re.IGNORECASE,
)
# The keys of a structured record that hold its decision; `{s}` is the separator inside a key.
_DECISION_WORDS = (r"decision|next{s}action|next{s}step|recommended{s}action|recommendation|verdict|outcome|"
                   r"go{s}no{s}go|can{s}proceed|instruction|disposition|final{s}(?:decision|action|status)")
# A line keyed by one (a key line may also be the bare "action", "proceed" or "resolution").
_DECISION_KEY = re.compile(
    r"^\s*[\"']?(?:" + _DECISION_WORDS.format(s=r"[_\s-]?") + r"|action|proceed|resolution)[\"']?\s*[:=]",
    re.IGNORECASE,
)
# A revision header: what follows supersedes what came before it.
_REVISION = re.compile(
    r"^\s*(?:[#*_>\-•\[(]+\s*)?(?:(?:revised|updated|amended|corrected|final|new)\s+(?:plan|schedule|steps|"
    r"version|instructions?|guidance|runbook|handoff|note|summary)|update\s*(?:\d{1,2}[:.]\d{2}\s*)?[:\-–—]|"
    r"edit\s*[:\-–—]|correction\s*[:\-–—]|addendum\s*[:\-–—]|superseded\b|latest\s*[:\-–—]|"
    r"v\d+(?:\.\d+)?\s*(?:\(final\)|final)?\s*[:\-–—])",
    re.IGNORECASE,
)
# Keys of records and forms, which repeat in lists and are never a speaker.
_RECORD_KEY = re.compile(
    r"(?:status|state|owner|action|actions|step|steps|note|notes|decision|fallback|prerequisite|authority|reason|"
    r"next|task|request|risk|risks|priority|due|date|time|id|type|summary|subject|from|to|cc|sent|re|fwd|assignee|"
    r"reporter|comment|comments|update|result|outcome|approver|approval|blocker|blocked|hold|gate|plan|item|items|"
    r"title|description|value|key|name|role|event|level|severity|ticket|tags?|labels?|link|url|eta|when|where|who|"
    r"what|why|scope|condition|requirement|requires|needs|owner_team|[a-z]+_[a-z_]+)",
    re.IGNORECASE,
)
_KEYLINE = re.compile(r"^\s*[\"']?[\w .-]{1,40}[\"']?\s*[:=]\s*\S")
# The same decision keys inside one-line JSON or a flow mapping, with their value.
_DECISION_PAIR = re.compile(
    r"[\"']?(?:" + _DECISION_WORDS.format(s="[_-]?") + r")[\"']?\s*:\s*"
    r"(?:\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^,}\n]+)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Region:
    start: int
    end: int
    role: Role


@dataclass(frozen=True, slots=True)
class Control:
    """The text's parts by role; offsets into the text as read."""

    kind: Kind
    regions: tuple[Region, ...] = field(default_factory=tuple)

    def role_at(self, pos: int) -> Role:
        for r in self.regions:
            if r.start <= pos < r.end:
                return r.role
        return "context"

    @property
    def controlling(self) -> list[Region]:
        return [r for r in self.regions if r.role == "controlling"]


def _lines(text: str) -> list[tuple[int, int, str]]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, pos + len(line), line.rstrip("\r\n")))
        pos += len(line)
    return out


def _paragraph_end(lines: list[tuple[int, int, str]], i: int, stop: re.Pattern[str] | None = None) -> int:
    """The end offset of the paragraph that line i opens (to the next blank line or labeled line)."""
    end = lines[i][1]
    for _, b, s in lines[i + 1:]:
        if not s.strip() or (stop is not None and stop.match(s)):
            break
        end = b
    return end


def _starts_history(lines: list[tuple[int, int, str]], i: int) -> bool:
    s = lines[i][2]
    if _HISTORY_HEAD.match(s):
        return True
    return _FROM.match(s) is not None and any(_HEADER.match(t) for _, _, t in lines[i + 1:i + 4])


def _thread(text: str, lines: list[tuple[int, int, str]]) -> Control | None:
    quoted = [i for i, (_, _, s) in enumerate(lines) if _QUOTE_LINE.match(s)]
    head = next((i for i, (_, _, s) in enumerate(lines) if i > 0 and _starts_history(lines, i)
                 and any(t.strip() for _, _, t in lines[:i])), None)
    if head is None and len(quoted) < 1:
        return None
    regions: list[Region] = []
    if head is not None:
        regions.append(Region(lines[head][0], len(text), "history"))
    regions += [Region(lines[i][0], lines[i][1], "history") for i in quoted if head is None or i < head]
    own = [(a, b) for i, (a, b, s) in enumerate(lines)
           if s.strip() and i not in quoted and (head is None or i < head)]
    if not own:
        return None
    regions += [Region(a, b, "controlling") for a, b in own]
    return Control("thread", tuple(regions))


def _transcript(lines: list[tuple[int, int, str]]) -> Control | None:
    turns: list[tuple[int, str]] = []
    for i, (_, _, s) in enumerate(lines):
        m = _TURN.match(s)
        if m and not _DECISION_KEY.match(s) and not _BOTTOM.match(s) and not _RECORD_KEY.fullmatch(
                m.group("who").strip()):
            turns.append((i, m.group("who").strip().lower()))
    who = [w for _, w in turns]
    # A key-value record names each key once; people in an exchange speak more than once.
    if len(turns) < 3 or len(set(who)) < 2 or len(set(who)) == len(who):
        return None
    ends = [lines[j][0] for j, _ in turns[1:]] + [lines[-1][1]]
    spans = [(lines[i][0], end, w) for (i, w), end in zip(turns, ends, strict=True)]
    closers = [k for k, (_, _, w) in enumerate(spans) if _CLOSER.search(w)]
    last = closers[-1] if closers and closers[-1] >= len(spans) - 2 else len(spans) - 1
    regions = [Region(a, b, "controlling" if k == last else ("history" if k < last else "context"))
               for k, (a, b, _) in enumerate(spans)]
    return Control("transcript", tuple(regions))


def _revision(lines: list[tuple[int, int, str]]) -> Control | None:
    heads = [i for i, (_, _, s) in enumerate(lines) if i > 0 and _REVISION.match(s)]
    if not heads:
        return None
    cut = lines[heads[-1]][0]
    return Control("revision", (Region(0, cut, "history"), Region(cut, lines[-1][1], "controlling")))


def _labelled(lines: list[tuple[int, int, str]]) -> Control | None:
    filled = [s for _, _, s in lines if s.strip()]
    record = sum(bool(_KEYLINE.match(s)) for s in filled) >= 0.6 * len(filled)
    bottoms = [i for i, (_, _, s) in enumerate(lines) if _BOTTOM.match(s)]
    if bottoms and not record:
        i = bottoms[-1]
        return Control("bottom_line", (Region(lines[i][0], _paragraph_end(lines, i, _KEYLINE), "controlling"),))
    keys = [i for i, (_, _, s) in enumerate(lines) if _DECISION_KEY.match(s)]
    if keys:
        return Control("structured", tuple(Region(lines[i][0], _block_end(lines, i), "controlling") for i in keys))
    return None


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


def _block_end(lines: list[tuple[int, int, str]], i: int) -> int:
    """A key's value may continue on lines indented deeper than the key (YAML block scalars, lists)."""
    end, depth = lines[i][1], _indent(lines[i][2])
    for _, b, s in lines[i + 1:]:
        if s.strip() and _indent(s) <= depth:
            break
        end = b
    return end


def find_control(text: str) -> Control:
    """Locate the controlling statement and the history of a text.

    Args:
        text: The artifact, exactly as read.

    Returns:
        The text's kind and its regions; a plain text has none (every part is context).
    """
    lines = _lines(text)
    if len(lines) < 2:
        pairs = [m.span() for m in _DECISION_PAIR.finditer(text)] if text.lstrip()[:1] in "{[" else []
        if pairs:
            return Control("structured", tuple(Region(a, b, "controlling") for a, b in pairs))
        return Control("plain")
    for find in (lambda: _thread(text, lines), lambda: _transcript(lines), lambda: _revision(lines),
                 lambda: _labelled(lines)):
        found = find()
        if found is not None:
            return found
    return Control("plain")
