"""The combiner's input: a fixed vector of what the rule evaluators found in one artifact.

Every feature is a count or an indicator the evaluators already compute (verdicts, their uncertainty,
decisive events, and how many clauses carry each cue), scaled to [0, 1]. None names a task, a domain or a
word: the combiner weighs the rules' own findings, so what it learns transfers to tasks it never saw.
"""

from __future__ import annotations

from . import _vocabulary as vocab
from ._reading import PRONOUN_OBJ, Reading, Verdicts

_VERDICTS = ("status", "prerequisite", "authority", "fallback", "caveat", "later_check", "assumed_authorization",
             "permission", "fallback_rejected")
# The cues counted over clauses: the feature's name (fixed: the shipped weights name it) and the reading's field.
_CUES = {"q": "names_prerequisite", "appr": "approval_word", "neg": "neg", "prohibit": "prohibit", "stop": "stop",
         "gate": "gate", "directive": "directive", "release": "release", "defer": "defer", "soft": "soft",
         "low_risk": "low_risk", "claim": "claim", "open": "open", "history": "history", "reported": "reported",
         "overrule": "overrule", "reject": "reject", "partial": "partial", "alt_cue": "alt_cue",
         "fb": "names_fallback"}
_EVENTS = ("stops", "gos", "proposals", "last_is_stop", "set_aside", "controlled", "history_disagrees")
# What the text's top-ranked part (its controlling statement, else the whole text) does to the action.
_TOP = ("forbidden", "forbidden_negated", "forbidden_directed", "q_gated", "q_deferred", "authority_decides")


def _share(n: int, cap: int) -> float:
    return min(n, cap) / cap


def _linked(rs: list[Reading]) -> set[int]:
    """The sentences that touch the blocker (the action, the condition, an approval, a stop, a gate, a decision,
    a structured key, or a pronoun that points back at it)."""
    return {r.clause.sent for r in rs if r.forbidden_support > 0 or r.about_forbidden or r.names_prerequisite
            or r.approval_word or r.gate or r.stop
            or r.prohibit or r.open or r.clause.label or vocab.DECIDES.search(r.clause.words) is not None
            or any(t in PRONOUN_OBJ for t in r.clause.toks)}


def _derived(rs: list[Reading]) -> dict[str, bool]:
    linked = _linked(rs)
    named = [r for r in rs if r.authority_strength >= 1]  # the clauses that name the authority
    return {
        "forbidden": any(r.about_forbidden for r in rs),
        "forbidden_negated": any(r.about_forbidden and r.neg for r in rs),
        "forbidden_directed": any(r.about_forbidden and r.directive and not r.neg for r in rs),
        "authority_clear": any(r.authority_strength >= 2 for r in rs),
        "authority_any": any(r.authority_strength >= 1 for r in rs),
        "q_gated": any(r.names_prerequisite and r.gate for r in rs),
        "q_deferred": any((r.names_prerequisite or r.approval_word) and r.defer for r in rs),
        "slots": any(r.slot for r in rs),
        "fallback_strong": any(r.fallback_support >= 2.0 for r in rs),
        # Where the authority is named: beside a decision or a gate (who resolves it), or only told, bypassed,
        # or in a sentence about other business (not who resolves it).
        "authority_decides": any(vocab.DECIDES.search(r.clause.words) is not None for r in named),
        "authority_gated": any(r.gate or r.open for r in named),
        "authority_informed": any(vocab.INFORMED.search(r.clause.words) is not None for r in named),
        "authority_negated": any(r.neg and not r.gate for r in named),
        "authority_deferred": any(r.defer or r.release for r in named),
        "authority_aside": bool(named) and not any(r.clause.sent in linked for r in named),
    }


def feature_names() -> list[str]:
    """The features' names, in the order of `features()`."""
    names = [f"v_{k}" for k in _VERDICTS] + [f"n_{k}" for k in _VERDICTS]
    names += ["v_omission", "v_stop_questioned", "v_named_forbidden", "v_attribution", "conflicts"]
    names += [f"u_{k}" for k in ("status", "prerequisite", "authority", "fallback")]
    names += [f"e_{k}" for k in _EVENTS]
    names += ["clauses"] + [f"r_{k}" for k in _CUES] + [f"c_{k}" for k in _CUES]
    names += [f"d_{k}" for k in _derived([])]
    names += [f"t_{k}" for k in _TOP]
    return names


def features(v: Verdicts) -> list[float]:
    """The feature vector of one artifact's verdicts (same order as `feature_names()`)."""
    rs = v.readings
    out = [float(bool(getattr(v, k))) for k in _VERDICTS]
    out += [_share(len(getattr(v, k)), 5) for k in _VERDICTS]
    out += [float(v.omission), float(v.stop_questioned), float(v.named_forbidden), float(v.attribution),
            _share(v.conflicts, 3)]
    out += [float(k in v.unsure) for k in ("status", "prerequisite", "authority", "fallback")]
    out += [_share(v.events.get(k, 0), 5) for k in _EVENTS]
    out += [_share(len(rs), 40)]
    counts = [sum(bool(getattr(r, attr)) for r in rs) for attr in _CUES.values()]
    out += [float(c > 0) for c in counts] + [_share(c, 5) for c in counts]
    out += [float(b) for b in _derived(rs).values()]
    top = max(v.ranks, default=1)
    top_part = _derived([r for r, k in zip(rs, v.ranks, strict=True) if k == top]) if v.ranks else _derived(rs)
    out += [float(top_part[k]) for k in _TOP]
    return out
