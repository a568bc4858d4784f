"""The record as the store keeps it: each score once, its other places pointing at it (docs/run-folders.md).

An episode record carries its final score in several places: the hop that wrote the handoff has
it, the one-hop stage that is that hop (records/_stages.py reuses the hop's score) has it again,
and the artifact, scored from the same text, has it a third time. The `record` column keeps each
score once. A stage's or the artifact's `text` or `score` that is the same (as JSON, byte for byte)
as one held in full elsewhere in the record is written as a reference to it:

    {"$ref": "#/hops/3/score"}

a JSON Pointer (RFC 6901) into the same record, always of the form `#/hops/<i>/text|score` or
`#/stages/<i>/text|score`, where `<i>` is the position in that list and the value it names is held
in full (a reference never points at a reference). Only four places may hold one:

- `stages[i].text`, `stages[i].score`: a one-hop stage (a reviewer statement, a handoff, a plan, a
  coordinator's summary, a repair) points at its hop; a stage's score that is another hop's points
  at the last such hop, else at an earlier stage held in full with it; a consensus round (a thread
  of several hops, scored as one text) is held in full otherwise;
- `artifact.text`, `artifact.score`: the text points at the last hop with it (else the last stage
  held in full with it), the score at that same place when it is the same there, else at the last
  hop, else the last stage held in full, with the same score.

Hops are always held in full: each is one transmitted message with its own score (the `messages`
table's row), so `json_extract(record, '$.hops[i].score')` still reads a score. Reading restores every
reference, so the records `RunStore.records`, `export` and every other reader give are the full
`mustmaybe/episode@1` records that were written (equal models, the same JSON bytes). A record with
nothing to reference, and every record of a store written before this, is held as the record's own
JSON, unchanged, and read as it always was.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pydantic_core

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord

REF = "$ref"
# A stored record holds a reference only if its text holds this (JSON escapes a quote inside a string,
# so a message text never does): records without it are read on the old, direct path.
_MARK = f'"{REF}"'
_LISTS = ("hops", "stages")
_PARTS = ("text", "score")


class StoredRecordError(UserError, ValueError):
    """A stored record's reference that names nothing it may name (a damaged store file)."""


def _ref(where: str, i: int, part: str) -> dict[str, str]:
    return {REF: f"#/{where}/{i}/{part}"}


def _is_ref(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and REF in value


def _json(value: Any) -> str:
    # Values are compared as JSON, not as Python values: 1 == 1.0 == True, and key order is part of the
    # bytes read back.
    return json.dumps(value, ensure_ascii=False)


def compact_record(data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The stored form of a full record (a JSON object), and whether any reference was made.

    Every hop is held in full (each is one transmitted message, with its own score; two messages
    with equal scores keep one each). A stage's text and score point at its hop (a one-hop stage);
    a stage's score that is another hop's points at the last such hop, else at an earlier stage
    held in full with it; the artifact's text points at the last hop with it (else the last stage
    held in full with it), its score at that same place when equal, else at the last hop, else the
    last stage held in full, with an equal score. The input is left as it is; what changes is copied.
    """
    hops: list[dict[str, Any]] = data.get("hops") or []
    stages: list[dict[str, Any]] = data.get("stages") or []
    position = {h.get("index"): i for i, h in enumerate(hops)}
    hop_text = {_json(h.get("text")): i for i, h in enumerate(hops)}  # the last position of each
    hop_score = {_json(h.get("score")): i for i, h in enumerate(hops)}
    changed = False
    new_stages = []
    stage_text: dict[str, int] = {}
    stage_score: dict[str, int] = {}
    for k, stage in enumerate(stages):
        src = stage.get("hops") or []
        own = position.get(src[0]) if len(src) == 1 else None
        stage = dict(stage)
        for part in _PARTS:
            if part not in stage:
                continue
            value = _json(stage[part])
            place = ("hops", own) if own is not None and value == _json(hops[own].get(part)) else None
            if place is None and part == "score":
                place = ("hops", hop_score[value]) if value in hop_score else \
                    ("stages", stage_score[value]) if value in stage_score else None
            if place is not None:
                stage[part] = _ref(*place, part)
                changed = True
            else:
                (stage_text if part == "text" else stage_score)[value] = k
        new_stages.append(stage)
    artifact = data.get("artifact")
    new_artifact = artifact
    if isinstance(artifact, dict):
        new_artifact = dict(artifact)
        text = _json(artifact.get("text"))
        source = ("hops", hop_text[text]) if text in hop_text else \
            ("stages", stage_text[text]) if text in stage_text else None
        if source is not None and "text" in artifact:
            new_artifact["text"] = _ref(*source, "text")
            changed = True
        if artifact.get("score") is not None:
            score = _json(artifact["score"])
            own_score = None
            if source is not None:
                items = hops if source[0] == "hops" else new_stages
                own_score = _json(items[source[1]].get("score"))
            place = source if score == own_score else ("hops", hop_score[score]) if score in hop_score else \
                ("stages", stage_score[score]) if score in stage_score else None
            if place is not None:
                new_artifact["score"] = _ref(*place, "score")
                changed = True
    if not changed:
        return data, False
    out = dict(data)
    if stages:
        out["stages"] = new_stages
    out["artifact"] = new_artifact
    return out, True


def expand_record(data: dict[str, Any], *, where: str = "record") -> tuple[dict[str, Any], bool]:
    """The full record of a stored one (either form), and whether it held any reference.

    Raises:
        StoredRecordError: a reference that names no held value (`where` names the record in the message).
    """
    stages = data.get("stages") or []
    artifact = data.get("artifact")
    refs = [(s, p) for s in stages if isinstance(s, dict) for p in _PARTS if _is_ref(s.get(p))]
    if isinstance(artifact, dict):
        refs += [(artifact, p) for p in _PARTS if _is_ref(artifact.get(p))]
    if not refs:
        return data, False
    out = dict(data)
    copies = {id(s): dict(s) for s in stages if isinstance(s, dict)}
    if isinstance(artifact, dict):
        copies[id(artifact)] = dict(artifact)
    for holder, part in refs:
        copies[id(holder)][part] = _resolve(data, holder[part][REF], where)
    if stages:
        out["stages"] = [copies.get(id(s), s) for s in stages]
    if isinstance(artifact, dict):
        out["artifact"] = copies[id(artifact)]
    return out, True


def _resolve(data: dict[str, Any], pointer: Any, where: str) -> Any:
    bits = pointer.split("/") if isinstance(pointer, str) else []
    ok = len(bits) == 4 and bits[0] == "#" and bits[1] in _LISTS and bits[2].isdigit() and bits[3] in _PARTS
    items = data.get(bits[1]) if ok else None
    i = int(bits[2]) if ok else -1
    if not isinstance(items, list) or not 0 <= i < len(items) or not isinstance(items[i], dict) \
            or bits[3] not in items[i] or _is_ref(items[i][bits[3]]):
        raise StoredRecordError(f"{where}: reference {json.dumps(pointer)} names no value held in full "
                                f"(expected #/hops/<i>/text|score or #/stages/<i>/text|score)")
    return items[i][bits[3]]


def stored_json(record_json: str) -> str:
    """What the `record` column keeps for a record's JSON (`model_dump_json(by_alias=True)`): the
    compact form, or the JSON itself, unchanged, when nothing is referenced."""
    data, changed = compact_record(json.loads(record_json))
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) if changed else record_json


def record_dict(stored: str, *, where: str = "record") -> dict[str, Any]:
    """The full record, as a JSON object, of what the `record` column keeps (either form)."""
    return expand_record(json.loads(stored), where=where)[0]


def read_record(stored: str, *, where: str = "record") -> EpisodeRecord:
    """The `EpisodeRecord` of what the `record` column keeps (either form)."""
    from mustmaybe.records import EpisodeRecord

    if _MARK not in stored:
        return EpisodeRecord.model_validate_json(stored)
    data, changed = expand_record(json.loads(stored), where=where)
    return EpisodeRecord.model_validate(data) if changed else EpisodeRecord.model_validate_json(stored)


def full_json(stored: str, *, where: str = "record") -> str:
    """The record's JSON as it was written (`model_dump_json(by_alias=True)`) from what the column keeps.

    The restored object is written by pydantic's own JSON writer, which the record's dump used: the
    same key order (JSON objects keep theirs), the same numbers and escapes, so the same bytes, without
    validating the record again.
    """
    if _MARK not in stored:
        return stored
    data, changed = expand_record(json.loads(stored), where=where)
    return pydantic_core.to_json(data).decode() if changed else stored
