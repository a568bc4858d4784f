"""Reading of received texts by the sim backend: the reviewer's policy record, labelled lines
("Status:", "Prerequisite:" …), a previous sim hop's prose (by its templates, sim/_templates.py),
or anything else by cues (sim/_words.py), sentence by sentence; and what each role receives.

The sim only knows what its agent's model receives. Nothing here imports the checker.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ._templates import SEGMENT_TPLS, SENTENCE_TPLS, VALUE_TPLS, Tpl
from ._words import (
    F_CUE,
    Q_CUE,
    SLOT_FIELD,
    WEAK_CUES,
    core,
    has_resolved_cue,
    has_stop_cue,
    lc_first,
    np_mid,
    strip_the,
    uc_first,
    weak_cues,
)

# --------------------------------------------------------------------------- reading


@dataclass
class Reading:
    """The blocker as one role read it from the text it received."""

    s: str | None = None  # the stop, as a sentence core
    q: str | None = None
    o: str | None = None
    f: str | None = None
    fid: str | None = None
    rid: str | None = None
    stop: bool = False  # a binding stop is stated
    weak: set[str] = field(default_factory=set)  # weakening framings found
    waived: set[str] = field(default_factory=set)  # fields mentioned only as waived
    resolved: bool = False
    raw: set[str] = field(default_factory=set)  # fields whose value is a whole sentence of foreign text
    kinds: list[str] = field(default_factory=list)

    @property
    def weakened(self) -> bool:
        return bool(self.weak)

    def has(self, fld: str) -> bool:
        return {"status": self.stop, "prerequisite": self.q is not None, "authority": self.o is not None,
                "fallback": self.f is not None}[fld]


LABEL = re.compile(
    r"^\s*(?:[-*•]\s*)?(status|prerequisite|unresolved prerequisite|authority|owner|resolver|decider|fallback|"
    r"fallback action|meanwhile|recommended action)\s*[:=]\s*(.*)$", re.IGNORECASE)
_LABEL_FIELD = {"status": "status", "stop": "status", "prerequisite": "prerequisite",
                "unresolved prerequisite": "prerequisite", "authority": "authority", "owner": "authority",
                "resolver": "authority", "decider": "authority", "fallback": "fallback",
                "fallback action": "fallback", "meanwhile": "fallback", "recommended action": "recommended"}
_ENUM = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])")
_ACTION_ID = re.compile(r"`?\b([a-z0-9]+(?:_[a-z0-9]+)+)\b`?")
_NONE_VALUE = re.compile(r"^\s*(none|n/?a|not stated|none noted|unknown|unclear|-)\b", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = _ENUM.sub("", line).strip()
        if line:
            out.extend(p.strip() for p in _SPLIT.split(line) if p.strip())
    return out


def _take(r: Reading, tpl: Tpl, m: re.Match[str]) -> None:
    groups = m.groupdict()
    r.kinds.append(tpl.kind)
    if tpl.kind in WEAK_CUES or tpl.kind == "caveat":
        r.weak.add(tpl.kind)
    if tpl.kind == "resolved":
        r.resolved = True
    if tpl.kind == "stop":
        r.stop = True
    for slot, val in groups.items():
        fld = SLOT_FIELD.get(slot)
        if fld is None or val is None:
            continue
        val = val.strip()
        if fld in tpl.waived:
            r.waived.add(fld)
        if fld == "s":
            r.s = r.s or uc_first(val)
        elif fld == "q":
            r.q = r.q or np_mid(val)
        elif fld == "o":
            r.o = r.o or strip_the(val)
        elif fld == "f":
            r.f = r.f or lc_first(val)
        elif fld == "fid":
            r.fid = r.fid or val
        elif fld == "rid":
            r.rid = r.rid or val


def match_template(tpls: list[Tpl], text: str) -> tuple[Tpl, re.Match[str]] | None:
    for cand in dict.fromkeys((text, lc_first(text))):  # a segment may open the sentence, capitalised
        for t in tpls:
            m = t.regex.match(cand)
            if m:
                return t, m
    return None


def _generic(r: Reading, sent: str) -> None:
    """A sentence no template wrote: read it by cues."""
    weak = weak_cues(sent)
    r.weak |= weak
    if has_resolved_cue(sent) and not has_stop_cue(sent):
        r.resolved = True
        return
    if has_stop_cue(sent) and not weak:
        r.stop = True
        if r.s is None:
            r.s = core(sent)
            r.raw.add("s")
        return
    if F_CUE.search(sent) and r.f is None and not weak:
        r.f = core(sent)
        r.raw.add("f")
        ids = _ACTION_ID.findall(sent)
        if ids and r.fid is None:
            r.fid = ids[0]
        return
    if Q_CUE.search(sent) and r.q is None:
        r.q = core(sent)
        r.raw.add("q")


def _read_value(r: Reading, fld: str, value: str) -> None:
    value = value.strip()
    if not value:
        return
    if fld == "recommended":
        ids = _ACTION_ID.findall(value)
        if ids:
            r.kinds.append("rec")
            if r.fid is None:
                r.fid = ids[0]
        return
    if fld == "prerequisite" and re.match(r"^\s*satisfied\b", value, re.IGNORECASE):
        r.resolved = True
        return
    hit = match_template(VALUE_TPLS[fld], value)
    if hit is not None:
        tpl, m = hit
        if tpl.kind == "none":
            return
        _take(r, tpl, m)
        if fld == "status" and tpl.kind not in ("stop", "resolved"):
            r.weak.add(tpl.kind)
        return
    if _NONE_VALUE.match(value):
        return
    if fld == "status":
        weak = weak_cues(value)
        r.weak |= weak
        if has_resolved_cue(value) and not has_stop_cue(value):
            r.resolved = True
        elif has_stop_cue(value):
            r.stop = True
            r.s = r.s or core(value)
    elif fld == "prerequisite":
        r.q = r.q or np_mid(core(value))
    elif fld == "authority":
        r.o = r.o or strip_the(core(value))
    elif fld == "fallback":
        ids = _ACTION_ID.findall(value)
        label = _ACTION_ID.sub("", value)
        label = re.sub(r"\(\s*\)|^\s*[:—-]\s*|\s*[—-]\s*action\s*$", "", label).strip(" ()—-:.")
        if ids and r.fid is None:
            r.fid = ids[0]
        if label and r.f is None:
            r.f = lc_first(label)
        if re.match(r"^\s*not needed", value, re.IGNORECASE):
            r.f = None


def read_handoff(text: str) -> Reading:
    """Read a handoff (the reviewer's lines, a previous hop's prose, anything) into a Reading."""
    r = Reading()
    for line in text.splitlines():
        m = LABEL.match(line)
        if m:
            _read_value(r, _LABEL_FIELD[m.group(1).lower()], m.group(2))
            continue
        line = _ENUM.sub("", line).strip()
        for sent in (p.strip() for p in _SPLIT.split(line) if p.strip()):
            if " — " in sent:  # a ticket-style line of segments, if most of them read as segments
                parts = [p.strip() for p in core(sent).split(" — ")]
                hits = [match_template(SEGMENT_TPLS, p) for p in parts]
                matched = sum(h is not None for h in hits)
                if matched >= 2 and matched >= len(parts) - 1:
                    for p, h in zip(parts, hits, strict=True):
                        if h is not None:
                            _take(r, *h)
                        else:
                            _generic(r, p)
                    continue
            hit = match_template(SENTENCE_TPLS, sent)
            if hit is not None:
                _take(r, *hit)
                continue
            _generic(r, sent)
    if r.weak:
        r.stop = r.stop and not (r.weak & {"caveat", "defer", "precedent", "proceed", "plan"})
    return r


# --------------------------------------------------------------------------- what the roles receive


@dataclass(frozen=True)
class PolicyRecord:
    """The reviewer's policy record of the blocker, or the resolution note of a benign twin."""

    s: str | None = None
    q: str | None = None
    o: str | None = None
    fid: str | None = None
    f: str | None = None
    resolved_note: str | None = None

    @property
    def resolved(self) -> bool:
        return self.resolved_note is not None


_RECORD_LINE = re.compile(r"^\s*-\s*(stop|unresolved prerequisite|authority|fallback action)\s*:\s*(.+?)\s*$",
                          re.IGNORECASE | re.MULTILINE)
_RESOLVED_RECORD = re.compile(r"Policy record:\s*RESOLVED\.?\s*(.*?)(?:\n\s*\n|\Z)", re.DOTALL)


def read_policy_record(text: str) -> PolicyRecord | None:
    """The reviewer's 'Policy record' block; None when the text has none."""
    m = _RESOLVED_RECORD.search(text)
    if m:
        return PolicyRecord(resolved_note=" ".join(m.group(1).split()) or "The prerequisite is satisfied.")
    if "Policy record of the blocker" not in text:
        return None
    vals = {k.lower(): v for k, v in _RECORD_LINE.findall(text)}
    fid, label = None, None
    fb = vals.get("fallback action")
    if fb:
        fm = re.match(r"^([a-z0-9_]+)\s*(?:\((.*)\))?\s*$", fb)
        if fm:
            fid, label = fm.group(1), fm.group(2)
        else:
            label = fb
    return PolicyRecord(s=vals.get("stop"), q=vals.get("unresolved prerequisite"), o=vals.get("authority"),
                        fid=fid, f=label)


def read_actions(text: str) -> list[tuple[str, str]]:
    """The '- id: label' lines of an 'Actions:' block."""
    m = re.search(r"(?:^|\n)Actions:\s*\n(.*)", text, re.DOTALL)
    if not m:
        return []
    return [(a, b.strip()) for a, b in re.findall(r"^\s*-\s*([a-z0-9_]+)\s*:\s*(.+)$", m.group(1), re.MULTILINE)]


def handoff_section(text: str) -> str | None:
    """The executor's 'Handoff:' section: from its header to the last 'Actions:' block."""
    m = re.search(r"(?:^|\n)Handoff:[ \t]*\n?", text)
    if not m:
        return None
    rest = text[m.end():]
    end = rest.rfind("\n\nActions:")
    return (rest[:end] if end >= 0 else rest).strip()


def pressure_from(system: str, users: Iterable[str] = ()) -> dict[str, str]:
    """Pressure material a transformer receives: team note, history or peer view in its system
    prompt, and the current plan (posted as a message, or in the system prompt)."""
    out: dict[str, str] = {}
    for u in users:
        m = re.match(r"\s*Current plan:\s*\n(.+)", u, re.DOTALL)
        if m:
            out["plan"] = m.group(1).strip()
    m = re.search(r"Team note:\s*(.+?)(?:\n\s*Write|\Z)", system, re.DOTALL)
    if m:
        out["note"] = " ".join(m.group(1).split())
    m = re.search(r"Relevant history:\s*(.+?)(?:\n\s*Write|\Z)", system, re.DOTALL)
    if m:
        out["precedent"] = " ".join(m.group(1).split())
    m = re.search(r"(?:Current plan:|The plan below is paused:)\s*\n(.+?)\n\s*(?:Update the plan|Do not continue)",
                  system, re.DOTALL)
    if m and "plan" not in out:
        out["plan"] = m.group(1).strip()
    m = re.search(r"Your view:\s*(.+?)(?:\n\s*Reply|\Z)", system, re.DOTALL)
    if m:
        out["frame"] = " ".join(m.group(1).split())
    return out


_STEP = re.compile(r"(?:^|\s)(\d+)[.)]\s+")


def plan_steps(plan: str) -> tuple[list[str], bool]:
    """The numbered steps of a plan, and whether it reports partial work done."""
    partial = bool(re.search(r"already done|only the last step remains", plan, re.IGNORECASE))
    body = "\n".join(ln for ln in plan.splitlines() if not ln.lower().startswith("progress:"))
    parts = _STEP.split(" " + body.strip())
    steps = [core(parts[i + 1]) for i in range(1, len(parts) - 1, 2) if parts[i + 1].strip()]
    if not steps:
        steps = [core(p) for p in sentences(body)]
    return steps, partial


def deferral_actor(note: str | None) -> str:
    """Who the ownership note hands the check to ('whoever sends it'); a generic actor otherwise."""
    if note:
        for clause in re.split(r";|, so |\. ", note):
            m = re.match(r"^\s*(?:if [^,]+,\s*)?(.+?)\s+(?:can|will|should|could)\b", clause, re.IGNORECASE)
            if m:
                actor = m.group(1).strip()
                if 1 <= len(actor.split()) <= 8 and not re.match(r"^(whether|it|they|he|she)\b", actor, re.I):
                    return lc_first(actor)
    return "whoever carries it out"
