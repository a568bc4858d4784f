"""The transformers' writers, one per kind of handoff: summary, schema, ownership, plan, peer line and
coordinator summary. Each writes into a `Draft` what its `HopDecision` keeps and how it weakens.
"""

from __future__ import annotations

from . import _templates as tpl
from . import _text as tx
from . import _words as words
from ._draft import Draft, HopDecision, allowed, binding_prose, raw_or, segments, status_bank, weak_prose
from ._text import Reading
from ._words import FIELDS


def write_summary(d: Draft, r: Reading, dec: HopDecision, style: str, pressure: dict[str, str]) -> None:
    weak = dec.mechanic is not None
    if style in ("compressed", "aggressive"):
        if weak and dec.mechanic in ("deferral", "precedent"):
            weak_prose(d, r, dec.keep, dec.mechanic, pressure)
        else:
            segments(d, r, dec.keep, weak)
        return
    if weak:
        weak_prose(d, r, dec.keep, dec.mechanic or "omission", pressure)
    else:
        binding_prose(d, r, dec.keep, aux=0.4 if style == "light" else 0.15,
                       recommend=0.4 if style == "light" else 0.1)


def write_schema(d: Draft, r: Reading, dec: HopDecision) -> None:
    keep, mech = dec.keep, dec.mechanic
    if mech == "fallback_loss":
        keep = {**keep, "fallback": False}
    allow = allowed(keep)
    if dec.inherited and mech not in ("caveat_status", "defer_status"):
        # the status read was already weak; it stays weak in the kind it was read
        mech = "caveat_status" if "caveat" in r.weak else ("omission" if r.weak <= {"proceed"} else "defer_status")
    if mech == "omission":
        status = d.note(d.rng.choice(tpl.SCHEMA_OMIT))
    elif mech in ("caveat_status", "defer_status") or (mech is not None and mech != "fallback_loss"):
        bank = [t for t in tpl.SCHEMA_WEAK_STATUS if (t.kind == "caveat") == (mech == "caveat_status")]
        t = d.choose(bank, allow=allow - {"s"}) or d.choose(tpl.SCHEMA_WEAK_STATUS, allow=allow - {"s"})
        status = d.note(t) if t else "Open."
    elif keep["status"] and r.s and "s" not in r.raw:
        t = d.choose(status_bank(tpl.SCHEMA_STATUS, r.s), need={"s"})
        status = d.note(t) if t else words.core(r.s) + "."
    elif keep["status"] and r.s:
        status = words.core(r.s) + "."
        d.carried.add("s")
        d.kinds.append("stop")
    else:
        status = d.note(d.rng.choice(tpl.SCHEMA_NONE))
    d.line(f"Status: {status}")
    for label, fld, bank in (("Prerequisite", "prerequisite", tpl.SCHEMA_PREREQ), ("Authority", "authority",
                             tpl.SCHEMA_AUTH), ("Fallback", "fallback", tpl.SCHEMA_FALLBACK)):
        slot = {"prerequisite": "q", "authority": "o", "fallback": "f"}[fld]
        if keep[fld] and slot in r.raw:
            value = getattr(r, slot) or ""
            d.carried.add(slot)
            d.line(f"{label}: {words.core(value)}.")
            continue
        t = d.choose(bank, need={slot}) if keep[fld] else None
        d.line(f"{label}: {d.note(t) if t else d.note(d.rng.choice(tpl.SCHEMA_NONE))}")


def write_ownership(d: Draft, r: Reading, dec: HopDecision, pressure: dict[str, str]) -> None:
    keep, rng = dec.keep, d.rng
    allow = allowed(keep)
    d.line(d.note(rng.choice(tpl.OWN_HEAD)))
    if dec.mechanic == "ownership_deferral" or (dec.mechanic is not None and dec.mechanic != "caveat"):
        t = d.choose(tpl.OWN_WEAK, need={"q"} if keep["prerequisite"] else set(), allow=allow - {"s"}) \
            or d.choose(tpl.OWN_WEAK, allow=allow - {"s"})
        if t:
            d.line("- " + d.note(t))
        if keep["authority"] and rng.random() < 0.6:
            t = d.choose(tpl.OWN_WEAK_AUTH)
            if t:
                d.line("- " + d.note(t))
        if keep["fallback"] and "f" not in r.raw:
            t = d.choose(tpl.FALLBACK_OPTIONAL, need={"f"}, allow=allow)
            if t:
                d.line("- " + d.note(t))
        return
    if dec.mechanic == "caveat":
        d.flush()
        weak_prose(d, r, keep, "caveat", pressure)
        return
    if keep["prerequisite"] and "q" not in r.raw:
        t = d.choose(tpl.OWN_BIND if keep["status"] else [], need={"q", "o"}) if keep["authority"] else None
        t = t or d.choose(tpl.OWN_REQ, need={"q"})
        if t:
            d.line("- " + d.note(t))
    elif keep["authority"]:
        t = d.choose(tpl.AUTH, need={"o"})
        if t:
            d.line("- " + d.note(t))
    if keep["status"] and "s" not in r.raw:
        bank = tpl.OWN_EXEC_BIND if keep["fallback"] and "f" not in r.raw else tpl.OWN_EXEC_STOP
        t = d.choose(bank, need={"s"}, allow=allow)
        if t:
            d.line("- " + d.note(t))
            if "f" not in t.fields and keep["fallback"]:
                raw_or(d, r, "fallback", True) or d.say(tpl.FALLBACK_BIND, need={"f"})
            return
    for fld in ("status", "fallback"):
        raw_or(d, r, fld, keep[fld])
    if keep["fallback"] and "f" not in r.raw:
        d.say(tpl.FALLBACK_BIND if keep["status"] else tpl.FALLBACK_PLAIN, need={"f"}, allow=allow)


def write_planner(d: Draft, r: Reading, dec: HopDecision, transform: str, pressure: dict[str, str]) -> None:
    keep, rng = dec.keep, d.rng
    allow = allowed(keep)
    steps, partial = tx.plan_steps(pressure.get("plan", ""))
    if dec.mechanic == "plan_assimilation" or (dec.mechanic is not None and transform != "restart"):
        d.line(d.note(rng.choice(tpl.PLAN_HEAD_WEAK)))
        check = None
        if partial:
            check = d.choose(tpl.PLAN_PARTIAL, need={"q"} if keep["prerequisite"] else set(), allow=allow - {"s"})
            if check:
                d.line(d.note(check))
            if steps:
                d.line(f"{len(steps)}. {steps[-1]}.")
        else:
            need = {"q"} if keep["prerequisite"] else set()
            check = d.choose(tpl.PLAN_CHECK, need=need, allow=allow - {"s"}) or d.choose(tpl.PLAN_CHECK,
                                                                                        allow=allow - {"s"})
            body = list(steps[:-1]) + ([d.note(check)] if check else []) + list(steps[-1:])
            for i, item in enumerate(body, 1):
                d.line(f"{i}. {words.core(item)}.")
        if rng.random() < 0.5:
            d.line(d.note(rng.choice(tpl.PLAN_TAIL_WEAK)))
        if keep["fallback"] and "f" not in r.raw and rng.random() < 0.5:
            t = d.choose(tpl.FALLBACK_OPTIONAL, need={"f"}, allow=allow)
            if t:
                d.line(d.note(t))
        return
    if dec.mechanic is not None:  # restart that only partly restarts from the state
        d.line(d.note(rng.choice(tpl.RESTART_HEAD)))
        if dec.mechanic == "restart_resume" and keep["prerequisite"]:
            d.say(tpl.DEFER, need={"q"}, allow=allow - {"s", "f"})
        else:
            d.say(tpl.RESTART_WEAK, need={"q"} if keep["prerequisite"] else set(), allow=allow - {"f", "s"}) \
                or d.say(tpl.STOP_AUX)
        if keep["authority"]:
            d.say(tpl.RESTART_WEAK_AUTH, need={"o"})
        return
    if transform == "restart":
        d.line(d.note(rng.choice(tpl.RESTART_HEAD)))
        for fld, bank, slot in (("status", tpl.RESTART_STOP, "s"), ("prerequisite", tpl.RESTART_REQ, "q"),
                                ("authority", tpl.RESTART_AUTH, "o"), ("fallback", tpl.RESTART_FALLBACK, "f")):
            if not keep[fld]:
                continue
            if raw_or(d, r, fld, True):
                d.flush()
                continue
            t = d.choose(status_bank(bank, r.s) if fld == "status" else bank, need={slot}, allow=allow)
            if t:
                d.line(d.note(t))
        return
    # the plan rebuilt around the blocker
    d.line(d.note(rng.choice(tpl.PLAN_HEAD_BIND if keep["status"] else tpl.PLAN_HEAD_WEAK)))
    n = 0

    def step(text: str) -> None:
        nonlocal n
        n += 1
        d.line(f"{n}. {text}")

    if keep["status"]:
        if "s" in r.raw and r.s:
            step(words.core(r.s) + ".")
            d.carried.add("s")
            d.kinds.append("stop")
        else:
            t = d.choose(status_bank(tpl.STOP, r.s), need={"s"})
            if t:
                step(d.note(t))
    if keep["prerequisite"] and "q" not in r.raw:
        t = d.choose(tpl.PLAN_STEP_ASK, need={"q"}, allow=allow)
        if t:
            step(d.note(t))
    elif keep["authority"]:
        t = d.choose(tpl.AUTH, need={"o"})
        if t:
            step(d.note(t))
    if keep["fallback"] and "f" not in r.raw:
        t = d.choose(tpl.PLAN_STEP_FALLBACK, need={"f"}, allow=allow)
        if t:
            step(d.note(t))
    if keep["status"] and rng.random() < 0.6:
        t = d.choose(tpl.PLAN_STEP_REST, allow=allow)
        if t:
            step(d.note(t))


def write_peer(d: Draft, r: Reading, support: bool, pressure: dict[str, str]) -> None:
    keep = {f: r.has(f) for f in FIELDS}
    if support and keep["status"] and "s" not in r.raw:
        d.say(tpl.PEER_SUPPORT, need={"s"})
        if keep["prerequisite"] and "q" not in r.raw:
            d.say(tpl.REQ_BIND, need={"q"}, allow=allowed(keep))
        if keep["fallback"] and "f" not in r.raw:
            d.say(tpl.FALLBACK_BIND, need={"f"}, allow=allowed(keep))
        return
    frame = pressure.get("frame")
    if frame:
        d.raw(frame)
    allow = allowed(keep) - {"s", "f"}
    d.say(tpl.PEER_WEAK, allow=allow)
    if d.rng.random() < 0.4:
        d.say(tpl.PROCEED, allow=allow)


def peer_frames(others: list[str]) -> list[str]:
    """What the peers argued: the first sentence of each peer line that no template wrote."""
    out = []
    for msg in others:
        sents = tx.sentences(msg)
        if sents and tx.match_template(tpl.SENTENCE_TPLS, sents[0]) is None and not words.has_strong_stop_cue(sents[0]):
            out.append(words.core(sents[0]))
    return out


def write_coordinator(d: Draft, r: Reading, dec: HopDecision, transform: str, frames: list[str]) -> None:
    keep, rng = dec.keep, d.rng
    allow = allowed(keep)
    if dec.mechanic is not None:
        if frames and rng.random() < 0.5:  # the group's reason, in a peer's words
            d.raw("Team consensus: " + words.lc_first(rng.choice(frames)) + ", so the risk is low")
        else:
            d.say(tpl.COORD_WEAK_HEAD)
        if keep["prerequisite"] or keep["authority"]:
            need = {"q"} if keep["prerequisite"] else {"o"}
            d.say(tpl.COORD_WEAK_REQ, need=need, allow=allow - {"s"})
        if rng.random() < 0.75:
            d.say(tpl.PROCEED, allow=allow)
        if keep["fallback"] and "f" not in r.raw and rng.random() < 0.5:
            d.say(tpl.FALLBACK_OPTIONAL, need={"f"}, allow=allow)
        return
    d.say(tpl.DISSENT_HEAD if transform == "dissent" else tpl.COORD_BIND_HEAD)
    d.flush()
    binding_prose(d, r, keep, aux=0.2)
