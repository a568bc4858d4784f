"""The run store (`RunStore`): one run folder holds `manifest.json` and `store.sqlite` (docs/run-folders.md).

`store.sqlite` (WAL) has one row per episode in `episodes` (the `mustmaybe/episode@1` record as
JSON, each score held once and its other places referencing it (store/_refs.py), plus flat columns
for querying) and one row per transmitted message in `messages` (the hop with its checker score),
a projection for queries written from the same score objects in the same transaction, with
`usage` (per role), `errors` (per recorded failure), `tasks` (the content of every task used, so
rescoring needs no library) and `failures` (planned episodes whose run raised instead of returning
a record; they are run again on resume).

Each finished episode is written in one transaction (episode, messages, usage and errors), so a
killed process never leaves half an episode. The key is the digest of the episode's inputs and
the primary key: writing an episode twice is a no-op (`INSERT OR IGNORE`).

Secrets: the store is given the values of the key variables a sweep uses and replaces any
occurrence in what it writes (an endpoint echoing a key in an error message, say) with `***`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._refs import read_record, stored_json
from ._rows import (
    DDL,
    EPISODE_COLUMNS,
    ERROR_COLUMNS,
    MESSAGE_COLUMNS,
    SCORED_COLUMNS,
    STORE_SCHEMA,
    USAGE_COLUMNS,
    episode_row,
    error_rows,
    insert_sql,
    message_rows,
    usage_rows,
)

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord
    from mustmaybe.scenarios import Scenario

STORE = "store.sqlite"



def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class RunStore:
    """The SQLite store of one run folder.

    Args:
        run_dir: the run folder; `store.sqlite` is created in it unless `readonly`.
        readonly: open an existing store for reading only (`mustmaybe watch`, export, analysis).
        secrets: values that must never be written (API keys); replaced by `***`.
    """

    def __init__(self, run_dir: str | Path, *, readonly: bool = False, secrets: Sequence[str] = ()) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / STORE
        self.readonly = readonly
        self._secrets = [s for s in secrets if s]
        self._redactions = sorted({v for s in self._secrets for v in (s, json.dumps(s)[1:-1])}, key=len,
                                  reverse=True)
        if readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"{self.run_dir}: not a run folder (no {STORE})")
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30.0, isolation_level=None,
                                      check_same_thread=False)
        else:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(DDL)
            self.db.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('schema', ?)", (STORE_SCHEMA,))
        self.db.execute("PRAGMA busy_timeout=30000")
        episode_cols = {r[1]: r for r in self.db.execute("PRAGMA table_info(episodes)")}
        if "failed" not in episode_cols and not readonly:
            # A store written before failed episodes existed: none of its episodes failed.
            self.db.execute("ALTER TABLE episodes ADD COLUMN failed INTEGER NOT NULL DEFAULT 0")
            episode_cols["failed"] = (0, "failed")
        self.has_failed = "failed" in episode_cols
        if not readonly and any(episode_cols.get(c, (0, "", "", 0))[3] for c in SCORED_COLUMNS):
            _make_scored_nullable(self.db)
        self._sql_episode = insert_sql("episodes", EPISODE_COLUMNS, "INSERT OR IGNORE")
        self._sql_message = insert_sql("messages", MESSAGE_COLUMNS)
        self._sql_usage = insert_sql("usage", USAGE_COLUMNS)
        self._sql_error = insert_sql("errors", ERROR_COLUMNS)

    # ------------------------------------------------------------------ writing
    def _redact(self, text: str) -> str:
        for s in self._redactions:
            if s in text:
                text = text.replace(s, "***")
        return text

    def put_episode(self, record: EpisodeRecord, *, retries: Mapping[str, tuple[int, int]] | None = None,
                    session: int = 0, replace: bool = False) -> bool:
        """Write one finished episode (record, messages, usage, errors) in one transaction.

        `retries` gives per role (retried attempts, calls failed after retries).

        Returns True if it was written, False if the key was already there (a no-op). With
        `replace`, an existing row with this key (an episode re-run after an infrastructure
        failure) is replaced, in the same transaction.
        """
        text = record.model_dump_json(by_alias=True)
        if self._redactions:
            red = self._redact(text)
            if red != text:
                from mustmaybe.records import EpisodeRecord

                text = red
                record = EpisodeRecord.model_validate_json(text)
        stored = stored_json(text)  # each score once, the others referenced (store/_refs.py); before the lock
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            attempt = 1
            if replace:
                row = db.execute("SELECT attempt FROM episodes WHERE key = ?", (record.key,)).fetchone()
                if row is not None:
                    attempt = int(row[0]) + 1
                    self._delete(record.key)
            retries = retries or {}
            total_retries = sum(r for r, _ in retries.values())
            values = episode_row(record, record_json=stored, retries=total_retries, attempt=attempt, session=session,
                                 finished_at=_now())
            cur = db.execute(self._sql_episode, values)
            written = cur.rowcount == 1
            if written:
                db.executemany(self._sql_message, message_rows(record))
                db.executemany(self._sql_usage, usage_rows(record, retries))
                db.executemany(self._sql_error, error_rows(record))
                db.execute("DELETE FROM failures WHERE key = ?", (record.key,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return written

    def _delete(self, key: str) -> None:
        for table in ("messages", "usage", "errors", "episodes"):
            self.db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))

    def put_failure(self, key: str, *, task: str, condition: str, topology: str, seed: int,
                    models: dict[str, str], kind: str, message: str, session: int = 0) -> None:
        """Note a planned episode whose run raised (no record); it stays pending for a resume."""
        self.db.execute(
            "INSERT OR REPLACE INTO failures (key, task, condition, topology, seed, models, kind, message, at, "
            "session) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, task, condition, topology, seed, json.dumps(models, sort_keys=True), kind,
             self._redact(message), _now(), session),
        )

    def put_tasks(self, scenarios: Iterable[Scenario]) -> None:
        """Keep the content of every task the run uses (rescoring reads it from here)."""
        from mustmaybe.scenarios import task_hash

        rows = [(task_hash(s), s.id, json.dumps(s.model_dump(mode="json", by_alias=True), sort_keys=True))
                for s in scenarios]
        self.db.execute("BEGIN IMMEDIATE")
        self.db.executemany("INSERT OR IGNORE INTO tasks (task_hash, task, scenario) VALUES (?, ?, ?)", rows)
        self.db.execute("COMMIT")

    def set_meta(self, name: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", (name, json.dumps(value)))

    # ------------------------------------------------------------------ reading
    def get_meta(self, name: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        if row is None:
            return default
        try:
            return json.loads(row[0])
        except json.JSONDecodeError:
            return row[0]

    def keys(self) -> set[str]:
        """Keys of every stored episode."""
        return {r[0] for r in self.db.execute("SELECT key FROM episodes")}

    def infra_failed_keys(self) -> set[str]:
        """Keys of stored episodes with an infrastructure error (timeout, 429/5xx after retries, connection)."""
        return {r[0] for r in self.db.execute("SELECT key FROM episodes WHERE infra_error = 1")}

    def failed_keys(self) -> set[str]:
        """Keys of stored failed episodes (a model call finally failed; nothing scored). Run again on resume."""
        if not self.has_failed:
            return set()
        return {r[0] for r in self.db.execute("SELECT key FROM episodes WHERE failed = 1")}

    @property
    def failed_sql(self) -> str:
        """An SQL expression for the episodes' `failed` flag that also works on stores older than it."""
        return "failed" if self.has_failed else "0"

    def failure_keys(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT key FROM failures")}

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])

    def records(self, keys: Iterable[str] | None = None) -> Iterator[EpisodeRecord]:
        """Stored episode records, in the order they were written (or of `keys`)."""
        if keys is None:
            for key, text in self.db.execute("SELECT key, record FROM episodes ORDER BY rowid"):
                yield read_record(text, where=self._where(key))
            return
        for key in keys:
            row = self.db.execute("SELECT record FROM episodes WHERE key = ?", (key,)).fetchone()
            if row is not None:
                yield read_record(row[0], where=self._where(key))

    def _where(self, key: str) -> str:
        return f"{self.path}: episode {key[:12]}"

    def scenarios(self) -> dict[str, Scenario]:
        """The tasks the run used, by content hash."""
        from mustmaybe.scenarios import parse_scenario

        return {h: parse_scenario(json.loads(text), f"{self.path}:tasks[{h[:12]}]")
                for h, text in self.db.execute("SELECT task_hash, scenario FROM tasks")}

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.db.execute(sql, params))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _make_scored_nullable(db: sqlite3.Connection) -> None:
    """A store written before failed episodes were unscored has NOT NULL scored columns (and put a
    placeholder state, D_up and Y on its failed episodes). SQLite cannot drop a NOT NULL, so the
    episodes table is rebuilt with today's columns, in one transaction, and its failed rows lose their
    placeholders: a query over the store never counts a failure as a deactivation."""
    old = [r[1] for r in db.execute("PRAGMA table_info(episodes)")]
    keep = ", ".join(c for c in EPISODE_COLUMNS if c in old)
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("ALTER TABLE episodes RENAME TO episodes_before_null")
        for (name,) in list(db.execute("SELECT name FROM sqlite_master WHERE type = 'index' "
                                       "AND tbl_name = 'episodes_before_null' AND sql IS NOT NULL")):
            db.execute(f"DROP INDEX {name}")
        # executescript would commit: the DDL runs statement by statement (its comments hold semicolons).
        for statement in re.sub(r"--[^\n]*", "", DDL).split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"INSERT INTO episodes ({keep}) SELECT {keep} FROM episodes_before_null ORDER BY rowid")
        db.execute("DROP TABLE episodes_before_null")
        db.execute(f"UPDATE episodes SET {', '.join(f'{c} = NULL' for c in SCORED_COLUMNS)} WHERE failed = 1")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def load_run_episodes(run_dir: Path) -> list[EpisodeRecord]:
    """Every episode record of a run folder, in the order they were written.

    Raises:
        FileNotFoundError: `run_dir` has no store.sqlite.
    """
    with RunStore(run_dir, readonly=True) as store:
        return list(store.records())


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
