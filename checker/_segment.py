"""Segmentation: an artifact as sentences of clauses, one `Clause` type read by every matcher.

There are two granularities, because two jobs read the text, and neither can take the other's pieces
without changing what it decides (reading answers with `segment` changes the action named for 472 of the
3,663 labeled artifacts and 572 of 6,923 phrasings of the tasks' actions):

- `segment` (the evaluators'): each clause is a span of the raw text (`start`/`end`), so a verdict's
  evidence is the artifact's own words. It splits where what a clause does to the action can change
  (semicolons, dashes, contrast and sequence words) and keeps a comma list in one clause, since its
  items share one verdict ("do not send, publish or forward it").
- `phrase_clauses` (action naming, `_actions`): an executor's answer names one action, so the pieces are
  finer (commas, brackets and "and <subject> will ..." also split) and each piece is scored for the action
  it names. It reads case-folded, contraction-expanded text (`_text.prepare`), so its clauses have no span
  into the raw text (`start` = `end` = -1; no evidence is ever built from them).

Boundaries of `segment`, chosen for the registers handoffs come in:

- sentence ends need white space after the mark, so a version number ("v2.1", "3.4.0") never splits, and a
  known abbreviation ("Mr.", "Dr.", "e.g.", "approx.") or a single capital (an initial) is no end;
- line breaks end a sentence unless the line is wrapped prose (the next line goes on in lowercase);
- bullets, numbered items and "Key: value" lines are their own sentences, the key kept as a label;
- a chat speaker prefix ("[hh:mm] Name:", "Name (Team):") is a label, not content;
- clauses split at semicolons, dashes and contrast or sequence words ("but", "however", "so", "then",
  "meanwhile", "instead", "unless"), because what decides P vs D is what each clause does to the action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._text import concepts_of, normalize, prepare, words

_ABBREV = frozenset("""mr mrs ms dr st prof sr jr vs etc approx appr no nos fig al inc ltd co corp dept est
misc e.g i.e eg ie cf ca min max avg jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
ref rev ver v vol op pp para sec art ch attn approx.""".split())
_SENT_END = re.compile(r"[.!?]+[\"')\]]*(?=\s)")
_LINE_LABEL = re.compile(
    r"(?P<lead>\s*(?:[-*•>#]+\s*|\(?\d{1,2}[.)]\s+|\(?[a-z][.)]\s+)?)"
    r"(?:\[?(?P<time>\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?)\]?\s*)?"
    r"(?P<key>\"?[A-Za-z][A-Za-z0-9 _/&'().-]{0,40}?\"?)\s*(?P<sep>:|=)\s+(?=\S)"
)
_TIME_PREFIX = re.compile(r"\s*\[?\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?\]?\s*")
_LIST_MARK = re.compile(r"\s*(?:[-*•>#]+|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+")
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|\s+(?:--?|—|–)\s+|,?\s+(?:or\s+|and\s+)?(?=\([a-h1-9]\)\s)|,?\s+(?=(?:but|however|though|although|whereas|so|therefore|hence|then|"
    r"otherwise|instead|meanwhile|in the meantime|until then|unless|except|because|since|while)\b)",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Clause:
    """A clause: its span (-1 when it has none), its normalized words and their concepts, and its line's label."""

    start: int
    end: int
    raw: str
    words: str
    toks: list[str]
    cons: list[str]
    conset: frozenset[str]
    label: str = ""
    sent: int = 0
    question: bool = False
    marker: str = ""  # an option or list marker ("b", "2") the clause starts with

    @property
    def text(self) -> str:
        """The normalized words (the name the task matchers read)."""
        return self.words


@dataclass(slots=True)
class Sentence:
    """A sentence (or list item, or key-value line) and its clauses."""

    start: int
    end: int
    raw: str
    label: str
    clauses: list[Clause] = field(default_factory=list)
    speaker: bool = False

    @property
    def words(self) -> str:
        return " ".join(c.words for c in self.clauses)


_BARE_KEY = re.compile(r"\s*\"?([A-Za-z][A-Za-z0-9 _/&'-]{0,40}?)\"?\s*:\s*[\[{]?\s*")
_ITEM = re.compile(r"\s*(?:[-*•]\s*)?\(?([a-hA-H]|\d{1,2})[).]\s")
_PIPE = re.compile(r"\s+\|\s+")
_JSON_PAIR = re.compile(r'"([^"\\\n]{1,60})"\s*:\s*"((?:[^"\\]|\\.)*)"|"([^"\\\n]{1,60})"\s*:\s*(true|false|null)')


def _physical_lines(text: str) -> list[tuple[int, int]]:
    """Line spans; " | " separated fields on one line count as lines of their own."""
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        a, b = pos, pos + len(line)
        pos = b + 1
        start = a
        for m in _PIPE.finditer(text, a, b):
            out.append((start, m.start()))
            start = m.end()
        out.append((start, b))
    return out


def _pairs_in(text: str, a: int = 0, b: int | None = None) -> list[tuple[str, int, int]]:
    """The "key": "value" pairs in text[a:b] as (key, value start, value end)."""
    out: list[tuple[str, int, int]] = []
    for m in _JSON_PAIR.finditer(text, a, len(text) if b is None else b):
        if m.group(1) is not None:
            out.append((m.group(1), m.start(2), m.end(2)))
        else:
            out.append((m.group(3), m.start(4), m.end(4)))
    return out


def _json_pairs(text: str) -> list[tuple[str, int, int]] | None:
    """A one-line JSON object's "key": "value" pairs as (key, value start, value end), or None."""
    t = text.strip()
    if not t.startswith("{") or "\n" in t:
        return None
    return _pairs_in(text) or None


def _keyed_sentence(out: list[Sentence], text: str, key: str, a: int, b: int) -> None:
    """One JSON pair as a sentence labelled by its key."""
    s = Sentence(a, b, text[a:b], normalize(key))
    for sa, sb in _sentences_in(text, a, b):
        c = _clause(text, sa, sb, s.label, len(out))
        if c is not None:
            s.clauses.append(c)
    if s.clauses:
        out.append(s)


def _lines(text: str) -> list[tuple[int, int]]:
    """Line spans, with wrapped prose joined (a line that goes on in lowercase continues the last)."""
    spans: list[tuple[int, int]] = []
    for a, b in _physical_lines(text):
        line = text[a:b]
        if not line.strip():
            spans.append((a, a))  # a blank line: a hard break
            continue
        if spans and spans[-1][1] > spans[-1][0]:
            prev = text[spans[-1][0]:spans[-1][1]].rstrip()
            s = line.lstrip()
            # Hard-wrapped prose: the last line stops mid-sentence and this one is no list item or label line;
            # a short capitalized line before it is a heading, not a wrapped sentence.
            wrapped = (not _LIST_MARK.match(line) and not prev.endswith((".", ":", "!", "?", ";"))
                       and not _LINE_LABEL.match(line) and not _LIST_MARK.match(prev) and not _LINE_LABEL.match(prev)
                       and (s[:1].islower() or len(prev) >= 50))
            if wrapped:
                spans[-1] = (spans[-1][0], b)
                continue
        spans.append((a, b))
    return [(a, b) for a, b in spans if b > a]


_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def _is_abbrev(text: str, end: int) -> bool:
    """The mark at text[end] closes an abbreviation, an initial or a number, not a sentence."""
    # Only the word before the mark matters; a bounded window keeps segmenting linear in the text's length.
    m = _WORD_BEFORE.search(text, max(0, end - 64), end)
    if m is None:
        return False
    word = m.group(1).lower().rstrip(".")
    return word in _ABBREV or (len(word) == 1 and text[end] == ".")


def _sentences_in(text: str, a: int, b: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = a
    for m in _SENT_END.finditer(text, a, b):
        if text[m.start()] == "." and _is_abbrev(text, m.start()):
            continue
        out.append((pos, m.end()))
        pos = m.end()
    out.append((pos, b))
    return [(x, y) for x, y in ((_strip(text, x, y)) for x, y in out) if y > x]


def _strip(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a] in " \t\r":
        a += 1
    while b > a and text[b - 1] in " \t\r":
        b -= 1
    return a, b


def _clause(text: str, a: int, b: int, label: str, sent: int) -> Clause | None:
    a, b = _strip(text, a, b)
    while a < b and text[a] in ",:(\"'*_`":
        a += 1
    while b > a and text[b - 1] in ",(\"'*_`":
        b -= 1
    if b <= a:
        return None
    raw = text[a:b]
    w = normalize(raw)
    if not w:
        return None
    cons = concepts_of(w)
    return Clause(a, b, raw, w, w.split(), cons, frozenset(cons), label, sent, raw.rstrip().endswith("?"))


def _merge_short(text: str, clauses: list[Clause]) -> list[Clause]:
    """A trailing fragment of one to three words ("in the meantime.", "possible,") joins the clause before it."""
    out: list[Clause] = []
    for c in clauses:
        if out and len(c.toks) <= 3 and not c.marker and not _ITEM.match(c.raw):
            prev = out[-1]
            merged = _clause(text, prev.start, c.end, prev.label, prev.sent)
            if merged is not None:
                out[-1] = merged
                continue
        out.append(c)
    return out


def _line_label(text: str, la: int, lb: int, carried: str) -> tuple[str, bool, int]:
    """A line's label, whether the label is a chat speaker, and where its content starts."""
    m = _LINE_LABEL.match(text, la, lb) if lb - la < 4000 else None
    if m is not None:
        key = m.group("key").strip().strip('"').strip()
        # A chat speaker is a name (capitalized, at most three words) on a timestamped or short line.
        speaker = bool(m.group("time")) or (key[:1].isupper() and len(key.split()) <= 3 and not re.search(
            r"(?i)status|prereq|condition|authority|owner|fallback|decision|next|plan|note|action|subject|step",
            key) and "(" not in key[:1])
        return normalize(key), speaker, m.end()
    t = _TIME_PREFIX.match(text, la, lb)
    lm = _LIST_MARK.match(text, t.end() if t else la, lb)
    start = lm.end() if lm else (t.end() if t else la)
    return (carried if lm and carried else ""), False, start


def _line_sentences(out: list[Sentence], text: str, la: int, lb: int, start: int, label: str, speaker: bool) -> None:
    """The sentences of one line's content text[start:lb], split into clauses, each clause marked with the
    option or list marker it starts with."""
    item = _ITEM.match(text, la, lb)
    for sa, sb in _sentences_in(text, start, lb):
        s = Sentence(sa, sb, text[sa:sb], label, speaker=speaker)
        idx = len(out)
        pos = sa
        for cm in _CLAUSE_BREAK.finditer(text, sa, sb):
            c = _clause(text, pos, cm.start(), label, idx)
            if c is not None:
                s.clauses.append(c)
            pos = cm.end()
        c = _clause(text, pos, sb, label, idx)
        if c is not None:
            s.clauses.append(c)
        s.clauses = _merge_short(text, s.clauses)
        for c in s.clauses:
            m = _ITEM.match(c.raw)
            c.marker = (m.group(1) if m else "").lower()
        if s.clauses and item is not None and not s.clauses[0].marker:
            s.clauses[0].marker = item.group(1).lower()
        if s.clauses:
            out.append(s)


def segment(text: str) -> list[Sentence]:
    """The artifact's sentences and clauses, with offsets into `text`.

    Args:
        text: The artifact, exactly as read.

    Returns:
        Sentences in order; each has at least one clause.
    """
    out: list[Sentence] = []
    pairs = _json_pairs(text)
    if pairs is not None:
        for key, a, b in pairs:
            _keyed_sentence(out, text, key, a, b)
        return out
    carried = ""  # a "key:" line with no value labels the list items under it
    for la, lb in _lines(text):
        # A line of a wrapped JSON object that holds several pairs: each pair is a keyed line of its own, as in
        # a one-line object.
        line_pairs = _pairs_in(text, la, lb)
        if len(line_pairs) >= 2:
            for key, a, b in line_pairs:
                _keyed_sentence(out, text, key, a, b)
            continue
        bare_key = _BARE_KEY.fullmatch(text, la, lb)
        if bare_key is not None:
            carried = normalize(bare_key.group(1))
            continue
        if carried and not _LIST_MARK.match(text, la, lb):
            carried = ""
        label, speaker, start = _line_label(text, la, lb, carried)
        _line_sentences(out, text, la, lb, start, label, speaker)
    return out


# ---------------------------------------------------------------- phrase clauses (action naming)

# Sentence boundaries of prepared text: terminal punctuation, semicolons, newlines, list bullets and numbered steps.
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+|[;\n\r]+|\s(?=\d{1,2}[.)]\s)|(?:^|\s)[-*•]\s")
_BULLET = re.compile(r"^[-*•]+\s*")
# Phrase boundaries inside a sentence: commas, dashes, brackets and contrast / sequence words.
_CLAUSE_SPLIT = re.compile(
    r"\s*[,()\[\]{}|]\s*|\s*(?:--+|->|=>|→)\s*|\s+-\s+|(?<!until)(?<!till)\s+(?=(?:but|however|though|although|whereas|yet|so|therefore|thus|hence|"
    r"then|otherwise|instead|meanwhile|because|since|which|and then|and so)\b)|"
    r"\s+(?=and (?:\w+ ){1,3}(?:can|will|should|must|could|may|would|is|are|has|have)\b)"
)


def split_sentences(text: str) -> list[str]:
    """Sentences of `prepare`d text (raw punctuation kept), empty pieces dropped."""
    return [s for s in (_BULLET.sub("", p.strip()) for p in _SENT_SPLIT.split(text) if p) if s]


def split_clauses(sentence: str) -> list[tuple[str, str]]:
    """Clauses of one `prepare`d sentence as (label, clause) pairs.

    A short prefix before a colon ("Status: blocked", "Goal: send it") is kept as the clause's
    label and stays part of its text; a long one is a clause of its own.
    """
    out: list[tuple[str, str]] = []
    for piece in _CLAUSE_SPLIT.split(sentence):
        piece = piece.strip() if piece else ""
        if not piece:
            continue
        parts = [p.strip() for p in piece.split(":")]
        label = ""
        for i, part in enumerate(parts):
            if not part:
                continue
            if i < len(parts) - 1 and len(part.split()) <= 4:
                label = f"{label} {part}".strip()
                continue
            out.append((words(label), f"{label} {part}".strip() if label else part))
            label = ""
        if label:
            out.append((words(label), label))
    return out


def phrase_clauses(text: str) -> list[list[Clause]]:
    """The text as sentences of phrase clauses, each normalized and concept-tokenized (no spans).

    Args:
        text: Raw text (an executor's answer).

    Returns:
        One list of clauses per sentence; sentences without words are dropped.
    """
    out: list[list[Clause]] = []
    for sent in split_sentences(prepare(text)):
        clauses: list[Clause] = []
        for label, raw in split_clauses(sent):
            w = words(raw)
            if not w:
                continue
            cons = concepts_of(w)
            q = raw.rstrip().endswith("?") or "?" in raw.split()[-1]
            clauses.append(Clause(-1, -1, raw, w, w.split(), cons, frozenset(cons), label, len(out), q))
        if clauses:
            out.append(clauses)
    return out
