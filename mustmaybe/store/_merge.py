"""Store shards and their merge into a run folder's `store.sqlite` (docs/ray.md).

A sweep run on Ray (`mustmaybe sweep FILE --ray`) has each worker write the episodes it runs to a
store of its own, a shard: `RUN/shards/s<session>-w<worker>/store.sqlite`, the same schema as the
run's store, one transaction per episode. The run's store is made from the shards by
`merge_shards`, which the sweep calls while it runs, at its end, and before a `--resume`.

Rows are keyed by the episode key, so the merge is idempotent (a second merge changes nothing)
and order-independent in what it keeps:
- an episode the run's store lacks is copied whole (episode row, messages, usage, errors), in one
  transaction, and any `failures` row of its key is dropped;
- an episode the store holds is left alone, unless the stored one failed or has an
  infrastructure error (what `--resume` runs again) and the shard's finished later: then the
  shard's replaces it, `attempt` one higher, as a resumed local sweep replaces it;
- a `failures` row (a planned episode that raised) is copied when its key has no episode and the
  shard's is newer; `tasks` rows are copied when missing.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._rows import insert_sql

if TYPE_CHECKING:
    from ._store import RunStore

SHARDS = "shards"
_CHILDREN = ("messages", "usage", "errors")


@dataclass
class MergeResult:
    """What one merge changed in the run's store."""

    shards: int = 0
    added: int = 0
    replaced: int = 0
    failures: int = 0
    unreadable: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.replaced + self.failures

    def as_dict(self) -> dict[str, Any]:
        return {"shards": self.shards, "added": self.added, "replaced": self.replaced, "failures": self.failures,
                "unreadable": list(self.unreadable)}


def shard_dir(run_dir: Path, session: int, worker: int) -> Path:
    """The folder of worker `worker`'s shard in session `session` (a run store folder of its own)."""
    return Path(run_dir) / SHARDS / f"s{session}-w{worker}"


def shard_paths(run_dir: Path) -> list[Path]:
    """Every shard store in a run folder, in name order."""
    root = Path(run_dir) / SHARDS
    return sorted(root.glob("*/store.sqlite")) if root.is_dir() else []


def merge_shards(store: RunStore, paths: list[Path] | None = None) -> MergeResult:
    """Merge shard stores (by default every one in the run folder) into `store`, the run's own.

    A shard that cannot be read (a worker killed before its first write left none) is named in
    `unreadable` and skipped; its rows, if any, are merged by a later call.
    """
    result = MergeResult()
    for path in shard_paths(store.run_dir) if paths is None else paths:
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        except sqlite3.Error:
            result.unreadable.append(str(path))
            continue
        try:
            con.execute("PRAGMA busy_timeout=30000")
            _merge_one(store.db, con, result)
            result.shards += 1
        except sqlite3.DatabaseError as exc:
            if "no such table" not in str(exc):
                raise
            result.unreadable.append(str(path))
        finally:
            con.close()
    return result


def _columns(db: sqlite3.Connection, table: str, schema: str = "main") -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA {schema}.table_info({table})")]


def _merge_one(main: sqlite3.Connection, shard: sqlite3.Connection, result: MergeResult) -> None:
    # One read transaction on the shard: a worker writing meanwhile is not seen half-way.
    shard.execute("BEGIN")
    try:
        cols = {t: [c for c in _columns(shard, t) if c in set(_columns(main, t))]
                for t in ("episodes", *_CHILDREN, "failures", "tasks")}
        theirs = {k: (at or "", bool(f)) for k, at, f in
                  shard.execute("SELECT key, finished_at, failed FROM episodes")}
        if not theirs and not shard.execute("SELECT 1 FROM failures LIMIT 1").fetchone():
            return
        ours = _stored(main, list(theirs))
        add = [k for k in theirs if k not in ours]
        # Replace only what a resume would run again, and only with a later attempt.
        replace = [k for k, (at, _f) in theirs.items()
                   if k in ours and ours[k][1] and at > ours[k][0]]
        failures = _failures_to_copy(main, shard, cols["failures"], set(ours) | set(theirs))
        tasks = [r for r in shard.execute(f"SELECT {', '.join(cols['tasks'])} FROM tasks")]
        if not (add or replace or failures):
            main.execute("BEGIN IMMEDIATE")
            main.executemany(insert_sql("tasks", cols["tasks"], "INSERT OR IGNORE"), tasks)
            main.execute("COMMIT")
            return
        main.execute("BEGIN IMMEDIATE")
        try:
            main.executemany(insert_sql("tasks", cols["tasks"], "INSERT OR IGNORE"), tasks)
            for key in replace:
                attempt = int(main.execute("SELECT attempt FROM episodes WHERE key = ?", (key,)).fetchone()[0])
                for t in (*_CHILDREN, "episodes"):
                    main.execute(f"DELETE FROM {t} WHERE key = ?", (key,))
                _copy(main, shard, cols, key, attempt=attempt + 1)
            for key in add:
                _copy(main, shard, cols, key)
            main.executemany(insert_sql("failures", cols["failures"], "INSERT OR REPLACE"), failures)
            main.execute("COMMIT")
        except BaseException:
            main.execute("ROLLBACK")
            raise
        result.added += len(add)
        result.replaced += len(replace)
        result.failures += len(failures)
    finally:
        shard.execute("COMMIT")


def _stored(main: sqlite3.Connection, keys: list[str]) -> dict[str, tuple[str, bool]]:
    """key -> (finished_at, would a resume run it again) for the keys the run's store holds."""
    out: dict[str, tuple[str, bool]] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        for k, at, failed, infra in main.execute(
                f"SELECT key, finished_at, failed, infra_error FROM episodes WHERE key IN "
                f"({', '.join('?' * len(chunk))})", chunk):
            out[k] = (at or "", bool(failed) or bool(infra))
    return out


def _copy(main: sqlite3.Connection, shard: sqlite3.Connection, cols: dict[str, list[str]], key: str,
          attempt: int | None = None) -> None:
    for table in ("episodes", *_CHILDREN):
        names = cols[table]
        rows = list(shard.execute(f"SELECT {', '.join(names)} FROM {table} WHERE key = ?", (key,)))
        if table == "episodes" and attempt is not None:
            i = names.index("attempt")
            rows = [(*r[:i], attempt, *r[i + 1:]) for r in rows]
        main.executemany(insert_sql(table, names, "INSERT OR IGNORE" if table == "episodes" else "INSERT"), rows)
    main.execute("DELETE FROM failures WHERE key = ?", (key,))


def _failures_to_copy(main: sqlite3.Connection, shard: sqlite3.Connection, names: list[str],
                      with_episode: set[str]) -> list[tuple[Any, ...]]:
    """The shard's `failures` rows whose key has no episode anywhere and that are newer than the store's."""
    ki, ai = names.index("key"), names.index("at")
    out = []
    for row in shard.execute(f"SELECT {', '.join(names)} FROM failures"):
        key = row[ki]
        if key in with_episode or main.execute("SELECT 1 FROM episodes WHERE key = ?", (key,)).fetchone():
            continue
        mine = main.execute("SELECT at FROM failures WHERE key = ?", (key,)).fetchone()
        if mine is None or (row[ai] or "") > (mine[0] or ""):
            out.append(row)
    return out
