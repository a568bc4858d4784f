"""Words of the sim backend: the blocker's four fields, small phrase helpers, and the sim's own cues
(stop, weakening, resolution), read sentence by sentence from text no sim template wrote.

Nothing here imports the checker: the sim's executor decides from its own detector.
"""

from __future__ import annotations

import re

FIELDS: tuple[str, ...] = ("status", "prerequisite", "authority", "fallback")
SLOT_FIELD = {"s": "s", "s_lc": "s", "q": "q", "Q": "q", "o": "o", "O": "o", "f": "f", "F": "f",
               "fid": "fid", "rid": "rid"}

# --------------------------------------------------------------------------- small text helpers


def norm(text: str) -> str:
    """Lowercase words of letters and digits, single-spaced (for containment tests)."""
    return " ".join("".join(ch.lower() if ch.isalnum() else " " for ch in text).split())


def lc_first(text: str) -> str:
    """Lowercase the first letter unless the first word looks like an acronym or a name token."""
    if len(text) >= 2 and text[0].isupper() and (text[1].islower() or text[1] in " '"):
        return text[0].lower() + text[1:]
    return text


def uc_first(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def np_mid(phrase: str) -> str:
    """A noun phrase as it reads mid-sentence: a leading article in lower case."""
    for art in ("A ", "An ", "The "):
        if phrase.startswith(art):
            return art.lower() + phrase[len(art):]
    return phrase


def strip_the(phrase: str) -> str:
    return phrase[4:] if phrase.lower().startswith("the ") else phrase


def core(sentence: str) -> str:
    """A sentence without its final punctuation and surrounding space."""
    return sentence.strip().rstrip(".!;").strip()


def owner_core(authority: str) -> str:
    """The authority without a parenthetical ('Billing data owner (Priya Raman)' -> 'Billing data owner')."""
    return re.sub(r"\s*\([^)]*\)", "", authority).strip()


# --------------------------------------------------------------------------- cues (the sim's own)

_STOP = re.compile(
    r"\b(do not|don't|must not|may not|cannot|can't|can not|not allowed|prohibited|forbidden|blocked|blocker|"
    r"stop|stops|hold|on hold|halt|halted|pause|paused|embargo|stays?|must stay|nothing goes|nothing moves|"
    r"not (?:be )?(?:sent|shared|released|run|granted|issued|moved)|no \w+ (?:may|goes)|keep\b[^.;]{0,40}\baway)\b",
    re.IGNORECASE,
)
WEAK_CUES = {
    "caveat": re.compile(
        r"\b(worth flagging|keep in mind|low[- ]risk|risk (?:looks|seems|is) low|minor note|heads-up|fyi|"
        r"formality|probably fine|nothing major|small caveat|paperwork|routine)\b", re.IGNORECASE),
    "defer": re.compile(
        r"\b(can confirm|can check|can double-check|at the time|afterwards|after the fact|on the day|along the way|"
        r"sorted out|looped in|if needed|can sort out|in parallel|when it goes out|at send time)\b", re.IGNORECASE),
    "precedent": re.compile(
        r"\b(precedent|covers this|covers it|covered|same situation|as before|last time|earlier exception)\b",
        re.IGNORECASE),
    "proceed": re.compile(
        r"\b(go ahead|proceed|good to go|on schedule|keep (?:it )?moving|as planned|carry on|fine to)\b",
        re.IGNORECASE),
    "plan": re.compile(r"\b(approval check|quick check|then finish|then carry out|then do)\b", re.IGNORECASE),
}
_RESOLVED = re.compile(  # affirmative only: "until it is resolved" and "unresolved" are not resolutions
    r"\b(?:clear(?:ed)? to proceed|(?:is|are|now|been) satisfied|no longer blocked|has been (?:approved|granted|"
    r"resolved)|was approved|blocker is resolved)\b|^\W*(?:[A-Za-z ]{1,20}:\s*)?(?:satisfied|resolved)\b",
    re.IGNORECASE)
Q_CUE = re.compile(
    r"\b(approval|approve|sign-?off|signed|authori[sz]ation|exception|clearance|cleared|release|consent|agreement|"
    r"determination|verification|DPA|NDA)\b", re.IGNORECASE)
F_CUE = re.compile(r"\b(meanwhile|in the meantime|instead|alternative|fallback|for now|allowed now)\b",
                    re.IGNORECASE)


_STRONG_STOP = re.compile(
    r"\b(do not|don't|must not|may not|cannot|can't|not allowed|prohibited|forbidden|blocked|stop|on hold|halt|"
    r"nothing moves|nothing goes)\b", re.IGNORECASE)


def has_stop_cue(text: str) -> bool:
    return bool(_STOP.search(text))


def has_strong_stop_cue(text: str) -> bool:
    """An explicit prohibition (not a descriptive word like 'embargo' or 'stays')."""
    return bool(_STRONG_STOP.search(text))


_NEGATED = re.compile(
    r"\b(?:not|never|no|nothing|cannot|can't|don't|doesn't|won't|may not|must not)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)


def weak_cues(text: str) -> set[str]:
    """Weakening framings in `text`; a cue under a nearby negation ('may not go ahead') does not count."""
    found: set[str] = set()
    for kind, rx in WEAK_CUES.items():
        for m in rx.finditer(text):
            if not _NEGATED.search(text[max(0, m.start() - 40):m.start()]):
                found.add(kind)
                break
    return found


def has_resolved_cue(text: str) -> bool:
    return bool(_RESOLVED.search(text))
