"""The store keeps each score once (store/_refs.py, docs/run-folders.md).

A sim sweep over every topology family reads back exactly the records it wrote (equal models, the
same JSON bytes, from `records`, `load_run_episodes` and `export`); the stored JSON holds each
distinct score once, the `messages` rows and the `episodes` columns project those same scores;
`rescore` writes the same compact form; and a store written before references existed
(`fixtures/old-form/`, written by commit 9ac89de: full copies, one failed episode among them) reads,
exports, rescores and merges as it did.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mustmaybe import cli
from mustmaybe.records import EpisodeRecord
from mustmaybe.store import (
    REF,
    RunStore,
    StoredRecordError,
    compact_record,
    expand_record,
    export_run,
    load_run_episodes,
    merge_shards,
    read_record,
    record_dict,
    rescore_record,
    rescore_run,
)

OLD_FORM = Path(__file__).parent / "fixtures" / "old-form"

# Every topology family: direct, consensus (rounds), single transformer, chain, planner, replay, W; twins too.
SWEEP = """schema = "mustmaybe/sweep@1"
name = "refs"
tasks = ["library:vendor-summary-q3", "library:board-minutes-draft"]
conditions = ["P0", "P3", "P4", "S3", "C4", "E4", "G4", "R-all", "V-hard", "W"]
seeds = [1]
combine = "product"
twins = true
[roles]
reviewer = ["sim"]
transformer = ["sim"]
executor = ["sim"]
"""


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    cli._EXTRA_COMMANDS.clear()  # main() registers the extra subcommands again on every call
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _raw(run: Path) -> list[tuple[str, str]]:
    con = sqlite3.connect(run / "store.sqlite")
    try:
        return list(con.execute("SELECT key, record FROM episodes ORDER BY rowid"))
    finally:
        con.close()


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The sweep's run folder, and the JSON of every record as the sweep handed it to the store."""
    base = tmp_path_factory.mktemp("refs")
    (base / "s.toml").write_text(SWEEP, encoding="utf-8")
    written: list[str] = []
    put = RunStore.put_episode

    def spy(self: RunStore, record: EpisodeRecord, **kw: Any) -> bool:
        written.append(record.model_dump_json(by_alias=True))
        return put(self, record, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(RunStore, "put_episode", spy)
        code, _, err = _cli("sweep", str(base / "s.toml"), "--out", str(base / "run"), "--json")
    assert code == 0, err
    assert len(written) == 2 * 10 * 2  # tasks x conditions x (episode, its twin), each written once
    return base / "run", written


def _is_ref(value: object) -> bool:
    return isinstance(value, dict) and set(value) == {REF}


def _score_places(record: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(place, value) of every score the record carries: hops, stages, the artifact."""
    for i, h in enumerate(record["hops"]):
        yield f"hops/{i}", h["score"]
    for i, s in enumerate(record["stages"]):
        yield f"stages/{i}", s["score"]
    yield "artifact", record["artifact"]["score"]


def test_a_sweeps_records_read_back_as_written(swept: tuple[Path, list[str]]) -> None:
    run, written = swept
    records = load_run_episodes(run)
    assert records == [EpisodeRecord.model_validate_json(t) for t in written]  # equal models
    assert [r.model_dump_json(by_alias=True) for r in records] == written  # byte-identical JSON
    with RunStore(run, readonly=True) as store:
        keys = [r.key for r in records]
        picked = [keys[7], keys[0], "no-such-key", keys[-1]]
        assert [r.model_dump_json(by_alias=True) for r in store.records(picked)] == \
            [written[7], written[0], written[-1]]
    (jsonl,) = export_run(run, "jsonl", run.parent / "export.jsonl")
    assert jsonl.read_text(encoding="utf-8").splitlines() == written  # export: the records as written


def test_the_stored_json_holds_each_distinct_score_once(swept: tuple[Path, list[str]]) -> None:
    run, written = swept
    raw = _raw(run)
    full = {json.loads(t)["key"]: json.loads(t) for t in written}
    refs = rounds_held = 0
    con = sqlite3.connect(run / "store.sqlite")
    try:
        for key, text in raw:
            stored, whole = json.loads(text), full[key]
            assert len(text) < len(json.dumps(whole, ensure_ascii=False, separators=(",", ":")))
            held = [(p, json.dumps(v)) for p, v in _score_places(stored) if v is not None and not _is_ref(v)]
            distinct = {json.dumps(v) for _, v in _score_places(whole) if v is not None}
            # Every distinct score is held, and nothing but a hop's is held twice: each hop is one message,
            # scored on its own (two messages with the same score keep one each: their `messages` rows).
            assert {v for _, v in held} == distinct, key
            beyond_hops = [v for p, v in held if not p.startswith("hops/")]
            hop_scores = {v for p, v in held if p.startswith("hops/")}
            assert len(set(beyond_hops)) == len(beyond_hops) and not set(beyond_hops) & hop_scores, key
            assert all(not _is_ref(h["score"]) and not _is_ref(h["text"]) for h in stored["hops"])
            refs += sum(_is_ref(v) for _, v in _score_places(stored))
            rounds_held += sum(not _is_ref(s["score"]) for s in stored["stages"])
            # The query projection carries the same score objects the record holds.
            for idx, score in con.execute("SELECT idx, score FROM messages WHERE key = ? ORDER BY idx", (key,)):
                (hop,) = [h for h in whole["hops"] if h["index"] == idx]
                assert json.loads(score) == hop["score"]
            (state, retention) = con.execute("SELECT state, retention_score FROM episodes WHERE key = ?",
                                             (key,)).fetchone()
            assert (state, retention) == (whole["artifact"]["score"]["state"],
                                          whole["artifact"]["score"]["retention_score"])
    finally:
        con.close()
    assert refs >= 2 * len(raw)  # at least the reviewer's stage and the artifact in every record
    assert rounds_held > 0  # the consensus rounds (a thread of several hops) are held, once each


def test_rescore_writes_the_compact_form(swept: tuple[Path, list[str]], tmp_path: Path) -> None:
    run, written = swept
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    before = _raw(copy)
    result = rescore_run(copy)
    assert result["episodes"] == len(written) and result["state_changed"] == 0
    after = _raw(copy)
    assert after == before  # the same rules: the same records, stored in the same compact form
    assert all(f'"{REF}"' in text for _, text in after)
    assert [r.model_dump_json(by_alias=True) for r in load_run_episodes(copy)] == written


def _old_store(tmp_path: Path) -> Path:
    run = tmp_path / "old"
    shutil.copytree(OLD_FORM, run)
    return run


def test_a_store_written_before_references_reads_as_before(tmp_path: Path) -> None:
    run = _old_store(tmp_path)
    raw = [text for _, text in _raw(run)]
    assert len(raw) == 4 and not any(f'"{REF}"' in t for t in raw)  # full copies, as the old code wrote them
    records = load_run_episodes(run)
    assert records == [EpisodeRecord.model_validate_json(t) for t in raw]
    assert [r.model_dump_json(by_alias=True) for r in records] == raw
    assert [r.failed for r in records].count(True) == 1 and {r.condition for r in records} == {"P0", "E4", "R-all",
                                                                                                "P4"}
    (jsonl,) = export_run(run, "jsonl", tmp_path / "old.jsonl")
    assert jsonl.read_text(encoding="utf-8").splitlines() == raw  # what the old export wrote: the column itself


def test_rescoring_an_old_store_writes_the_compact_form(tmp_path: Path) -> None:
    run = _old_store(tmp_path)
    old = load_run_episodes(run)
    with RunStore(run, readonly=True) as store:
        scenarios = store.scenarios()
    rescore_run(run)
    raw = [text for _, text in _raw(run)]
    assert [f'"{REF}"' in t for t in raw] == [not r.failed for r in old]  # a failed episode has nothing to refer to
    expected = [rescore_record(r, scenarios[r.task_hash]) for r in old]
    assert [r.model_dump_json(by_alias=True) for r in load_run_episodes(run)] == \
        [r.model_dump_json(by_alias=True) for r in expected]


def test_a_merge_keeps_either_form(swept: tuple[Path, list[str]], tmp_path: Path) -> None:
    run, written = swept
    old = {key: text for key, text in _raw(OLD_FORM)}
    new = {json.loads(t)["key"]: t for t in written}
    assert 0 < len(old.keys() & new.keys()) < len(old)  # the fixture ran some of the sweep's episodes
    with RunStore(tmp_path / "merged") as store:
        result = merge_shards(store, [OLD_FORM / "store.sqlite", run / "store.sqlite"])
        assert result.added == len(old.keys() | new.keys())
        merged = {r.key: r.model_dump_json(by_alias=True) for r in store.records()}
    assert merged == {**new, **old}  # an episode the store holds is left alone: the old shard's came first


def test_a_damaged_reference_is_one_line(swept: tuple[Path, list[str]], tmp_path: Path) -> None:
    run, _ = swept
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    key, text = _raw(copy)[0]
    con = sqlite3.connect(copy / "store.sqlite")
    with con:
        con.execute("UPDATE episodes SET record = ? WHERE key = ?", (text.replace('"#/hops/0/', '"#/hops/99/'), key))
    con.close()
    code, _, err = _cli("export", str(copy), "--format", "jsonl")
    assert code == 2 and err.count("\n") == 1, err
    assert key[:12] in err and '"#/hops/99/' in err and "names no value held in full" in err
    with pytest.raises(StoredRecordError):
        list(RunStore(copy, readonly=True).records())


def test_nothing_to_refer_to_keeps_the_record_as_it_is() -> None:
    failed = {"hops": [], "stages": [], "artifact": {"text": "", "score": None}, "key": "k"}
    assert compact_record(failed) == (failed, False)
    assert expand_record(failed) == (failed, False)
    # A stage whose text is not its hop's keeps its text; a score the same as its hop's is still referenced.
    score = {"state": "preserved", "retention_score": 1.0}
    rec = {"hops": [{"index": 0, "text": "a", "score": score}],
           "stages": [{"index": 0, "hops": [0], "text": "other", "score": dict(score)}],
           "artifact": {"text": "b", "score": {"state": "deactivated", "retention_score": 0.0}}}
    stored, changed = compact_record(rec)
    assert changed and stored["stages"][0] == {"index": 0, "hops": [0], "text": "other",
                                               "score": {REF: "#/hops/0/score"}}
    assert stored["artifact"] == rec["artifact"]  # no place holds its text or score
    assert expand_record(stored)[0] == rec
    assert rec["stages"][0]["score"] == score  # the input is left as it was
    # 1 and 1.0 are different JSON: such scores are not the same, so nothing refers across them.
    other = {**rec, "artifact": {"text": "a", "score": {"state": "preserved", "retention_score": 1}}}
    stored, _ = compact_record(other)
    assert stored["artifact"] == {"text": {REF: "#/hops/0/text"},
                                  "score": {"state": "preserved", "retention_score": 1}}
    assert record_dict(json.dumps(stored)) == other


def test_read_record_takes_either_form(swept: tuple[Path, list[str]]) -> None:
    run, written = swept
    for (_, text), full in zip(_raw(run), written, strict=True):
        assert read_record(text) == read_record(full) == EpisodeRecord.model_validate_json(full)


def test_hard_texts_and_numbers_read_back_as_written(swept: tuple[Path, list[str]], tmp_path: Path) -> None:
    # Escapes and float spellings are where two JSON writers could differ: the restored record is the same bytes.
    _, written = swept
    base = EpisodeRecord.model_validate_json(next(t for t in written if '"round 1"' in t))
    odd = 'Do not send \u2028 until "VR-131" \\ clears\u0001\x7f \u00e9\U0001f6d1 \ud7ff\t\n'
    last = base.hops[-1]
    score = last.score.model_copy(update={"retention_score": 0.30000000000000004})
    hops = [*base.hops[:-1], last.model_copy(update={"text": odd, "score": score})]
    stages = [s.model_copy(update={"text": odd, "score": score}) if s.hops == [last.index] else s for s in base.stages]
    record = base.model_copy(update={
        "key": "f" * 64, "hops": hops, "stages": stages, "duration_s": 1e-05,
        "artifact": base.artifact.model_copy(update={"text": odd, "score": score}),
        "params": {"executor": {"temperature": 1e-07, "seed": 2**62, "top_p": 1.0}},
    })
    text = record.model_dump_json(by_alias=True)
    with RunStore(tmp_path) as store:
        assert store.put_episode(record)
        (stored,) = [t for _, t in store.query("SELECT key, record FROM episodes")]
        (back,) = store.records()
    assert '"#/hops/' in stored and back == record and back.model_dump_json(by_alias=True) == text
    (jsonl,) = export_run(tmp_path, "jsonl", tmp_path / "out.jsonl")
    assert jsonl.read_bytes() == text.encode() + b"\n"
