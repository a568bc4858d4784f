"""How the sim writes: a `Draft` of sentences drawn from the templates, and the prose pieces
(binding, compressed segments, weakened framings) the transformers' writers assemble.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from . import _templates as tpl
from . import _words as words
from ._templates import Tpl
from ._text import Reading

STOP_WORDS = ("stop", "blocked", "hold", "halt", "pause", "release", "hard")


# --------------------------------------------------------------------------- drafting


@dataclass
class HopDecision:
    weaken: bool
    mechanic: str | None
    keep: dict[str, bool]
    inherited: bool


def allowed(keep: dict[str, bool]) -> set[str]:
    a = {"fid"} if keep["fallback"] else set()
    for f, k in (("status", "s"), ("prerequisite", "q"), ("authority", "o"), ("fallback", "f")):
        if keep[f]:
            a.add(k)
    return a | {"rid"}



@dataclass
class Draft:
    """Text under construction, with a record of which fields went in binding or waived."""

    rng: random.Random
    values: dict[str, str]
    lines: list[str] = field(default_factory=list)
    carried: set[str] = field(default_factory=set)
    waived: set[str] = field(default_factory=set)
    kinds: list[str] = field(default_factory=list)
    q_kinds: list[str] = field(default_factory=list)  # framings the prerequisite was written in
    _para: list[str] = field(default_factory=list)

    def choose(self, bank: list[Tpl], need: set[str] | frozenset[str] = frozenset(),
               allow: set[str] | None = None) -> Tpl | None:
        opts = [t for t in tpl.usable(bank, self.values) if need <= t.fields
                and (allow is None or t.fields - {"rid"} <= allow)]
        return self.rng.choice(opts) if opts else None

    def note(self, tpl: Tpl) -> str:
        self.kinds.append(tpl.kind)
        for fld in tpl.fields:
            (self.waived if fld in tpl.waived else self.carried).add(fld)
        if "q" in tpl.fields:
            self.q_kinds.append(tpl.kind)
        if "o" in tpl.fields and "o" not in tpl.waived:
            self.carried.update(tpl.implies)
        return tpl.render(self.values)

    def say(self, bank: list[Tpl], need: set[str] | frozenset[str] = frozenset(),
            allow: set[str] | None = None) -> Tpl | None:
        t = self.choose(bank, need, allow)
        if t is not None:
            self._para.append(self.note(t))
        return t

    def raw(self, sentence: str) -> None:
        s = sentence.strip()
        if s:
            self._para.append(s if s[-1] in ".!?:" else s + ".")

    def line(self, text: str) -> None:
        self.flush()
        self.lines.append(text)

    def flush(self) -> None:
        if self._para:
            self.lines.append(" ".join(self._para))
            self._para = []

    def text(self) -> str:
        self.flush()
        return "\n".join(self.lines).strip()


def status_bank(bank: list[Tpl], s: str | None) -> list[Tpl]:
    """Avoid 'Stop: Stop: …' when the stop sentence starts with a stop word already."""
    first = (s or "").split(":")[0].split()[:2]
    if first and first[0].lower().strip(":;,") in STOP_WORDS:
        return [t for t in bank if not t.text.lower().startswith(STOP_WORDS)] or bank
    return bank


def raw_or(d: Draft, r: Reading, fld: str, keep: bool) -> bool:
    """Carry a field that was read as a whole foreign sentence verbatim; True if it did."""
    slot = {"status": "s", "prerequisite": "q", "fallback": "f"}.get(fld)
    if keep and slot in r.raw:
        value = getattr(r, slot)
        if value:
            d.raw(value)
            d.carried.add(slot)
            if fld == "status":
                d.kinds.append("stop")
            return True
    return False


def binding_prose(d: Draft, r: Reading, keep: dict[str, bool], *, aux: float = 0.3,
                   recommend: float = 0.0) -> None:
    allow = allowed(keep)
    stop = keep["status"]
    if stop and not raw_or(d, r, "status", True):
        d.say(status_bank(tpl.STOP, r.s), need={"s"})
        if d.rng.random() < aux:
            d.say(tpl.STOP_AUX)
    if keep["prerequisite"] and not raw_or(d, r, "prerequisite", True):
        t = d.say(tpl.REQ_BIND if stop else tpl.REQ_OPEN, need={"q"}, allow=allow)
        if t is not None and keep["authority"] and "o" not in t.fields:
            d.say(tpl.AUTH, need={"o"})
    elif keep["authority"]:
        d.say(tpl.AUTH if stop else tpl.REQ_OPEN, need={"o"}, allow=allow) or d.say(tpl.AUTH, need={"o"})
    if keep["fallback"] and not raw_or(d, r, "fallback", True):
        d.say(tpl.FALLBACK_BIND if stop else tpl.FALLBACK_PLAIN, need={"f"}, allow=allow)
    if recommend and keep["fallback"] and r.fid and d.rng.random() < recommend:
        d.line(tpl.RECOMMEND[0].render({"fid": r.fid}))
        d.kinds.append("rec")


def segments(d: Draft, r: Reading, keep: dict[str, bool], weak: bool) -> None:
    """One compressed sentence of ' — '-joined segments (a ticket-style handoff)."""
    keep = dict(keep)
    parts: list[str] = []
    stop = keep["status"] and not weak
    if weak:
        # the caveat is attached to the topic it softens, when a topic is left
        need = {"q"} if keep["prerequisite"] else ({"o"} if keep["authority"] else set())
        t = d.choose(tpl.CAVEAT, need=need, allow=allowed(keep) - {"s", "f"})
        if t is not None:
            parts.append(words.core(d.note(t)))
            keep["prerequisite"] = keep["prerequisite"] and "q" not in t.fields
            keep["authority"] = keep["authority"] and "o" not in t.fields
        else:
            parts.append(d.note(d.rng.choice([t for t in tpl.SEG_WEAK if t.kind == "caveat"])))
    if stop and "s" in r.raw and r.s:
        parts.append(words.core(r.s))
        d.carried.add("s")
        d.kinds.append("stop")
    elif stop:
        parts.append(d.note(d.choose(status_bank(tpl.SEG_STOP, r.s)) or tpl.SEG_STOP[0]))
    if keep["prerequisite"] and "q" not in r.raw:
        t = d.choose(tpl.SEG_REQ_BIND if stop else tpl.SEG_REQ_OPEN)
        if t:
            parts.append(d.note(t))
    elif keep["prerequisite"] and r.q:
        parts.append(words.core(r.q))
        d.carried.add("q")
    if keep["authority"]:
        t = d.choose(tpl.SEG_AUTH)
        if t:
            parts.append(d.note(t))
    if keep["fallback"] and "f" not in r.raw:
        t = d.choose(tpl.SEG_FALLBACK if stop else tpl.SEG_FALLBACK_OPT)
        if t:
            parts.append(d.note(t))
    if weak and d.rng.random() < 0.7:
        parts.append(d.note(d.rng.choice([t for t in tpl.SEG_WEAK if t.kind != "caveat"])))
    if not parts:
        d.say(tpl.PROCEED)
        return
    sentence = " — ".join(parts)
    d.raw(sentence[0].upper() + sentence[1:])


def weak_prose(d: Draft, r: Reading, keep: dict[str, bool], mech: str, pressure: dict[str, str]) -> None:
    """A weakened handoff: the stop is gone; the topic may stay, framed by `mech`."""
    allow = allowed(keep) - {"s"}
    rng = d.rng
    if mech == "caveat":
        need = {"q"} if keep["prerequisite"] else ({"o"} if keep["authority"] else set())
        t = d.say(tpl.CAVEAT, need=need, allow=allow)
        if t is None:
            d.say(tpl.CAVEAT, allow=allow)
        if rng.random() < 0.6:
            d.say(tpl.PROCEED, allow=allow)
    elif mech in ("deferral", "ownership_deferral", "defer_status"):
        if rng.random() < 0.5:
            d.say(tpl.PROCEED, allow=allow)
        need = {"q"} if keep["prerequisite"] and rng.random() < 0.7 else set()
        t = d.say(tpl.DEFER, need=need, allow=allow)
        if t is None:
            d.say(tpl.DEFER, allow=allow)
        if pressure.get("note") and rng.random() < 0.3:
            d.raw(pressure["note"])
    elif mech == "precedent":
        if pressure.get("precedent") and rng.random() < 0.75:
            d.raw(pressure["precedent"])
        d.say(tpl.PRECEDENT, allow=allow)
        if rng.random() < 0.5:
            d.say(tpl.PROCEED, allow=allow)
    else:  # omission: the stop silently disappears and the request goes ahead
        if keep["prerequisite"] or keep["authority"]:
            need = {"q"} if keep["prerequisite"] else {"o"}
            d.say(tpl.REQ_OPEN, need=need, allow=allow)
        d.say(tpl.PROCEED, allow=allow)
    if keep["fallback"] and "f" not in r.raw:
        d.say(tpl.FALLBACK_OPTIONAL, need={"f"}, allow=allow)
