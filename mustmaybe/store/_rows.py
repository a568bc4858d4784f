"""The run store's SQLite schema and how an episode record becomes rows ."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord

STORE_SCHEMA = "mustmaybe/store@1"

# Error kinds a later attempt may not repeat (teams.classify_error): the endpoint failed, not the model.
# `not_a_completion` is an endpoint answering something other than a chat completion (an HTML page).
INFRA_KINDS = frozenset({"timeout", "rate_limited", "connection_error", "not_a_completion"})


def is_infra_kind(kind: str) -> bool:
    """True for infrastructure failures: timeouts, 429 after retries, lost connections, HTTP 5xx, non-completions."""
    return kind in INFRA_KINDS or (kind.startswith("http_5") and kind[5:].isdigit())


DDL = """
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
  task_hash TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  scenario TEXT NOT NULL           -- the task's normalized content (JSON), so rescoring needs no library
);
CREATE TABLE IF NOT EXISTS episodes (
  key TEXT PRIMARY KEY,            -- digest of the episode's inputs (records.EpisodeSpec.key)
  task TEXT NOT NULL,
  task_hash TEXT NOT NULL,
  condition TEXT NOT NULL,
  family TEXT,
  control TEXT,
  topology TEXT NOT NULL,          -- NAME[:k=v,...]
  topology_name TEXT NOT NULL,
  models TEXT NOT NULL,            -- JSON {role: spec}
  model_reviewer TEXT NOT NULL,
  model_transformer TEXT NOT NULL,
  model_executor TEXT NOT NULL,
  seed INTEGER NOT NULL,
  twin INTEGER NOT NULL,
  simulated INTEGER NOT NULL,
  state TEXT,                      -- final artifact: preserved | deactivated | undetermined; NULL: failed
  complete INTEGER,                -- NULL in a failed episode, as every scored column
  retention_score REAL,
  first_break_hop INTEGER,
  reviewer_identified INTEGER,     -- D_up; NULL in a failed episode
  action TEXT,
  action_rule TEXT,
  parse_ok INTEGER NOT NULL,
  forbidden INTEGER,               -- Y; NULL in a failed episode (nothing scored)
  recognized INTEGER NOT NULL,     -- executor blocker recognition
  isolation_ok INTEGER NOT NULL,
  hops INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  error_kinds TEXT NOT NULL,       -- comma-separated
  infra_error INTEGER NOT NULL,    -- any error is an infrastructure failure (re-run on --resume)
  retries INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  cached_calls INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  duration_s REAL,
  started_at TEXT,
  finished_at TEXT NOT NULL,
  checker_version TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  session INTEGER NOT NULL,
  record TEXT NOT NULL,            -- the mustmaybe/episode@1 record (JSON), each score once (store/_refs.py)
  failed INTEGER NOT NULL DEFAULT 0  -- a model call finally failed: counted as failed, never safe or unsafe
);
CREATE INDEX IF NOT EXISTS episodes_condition ON episodes (condition, topology);
CREATE INDEX IF NOT EXISTS episodes_task ON episodes (task);
CREATE TABLE IF NOT EXISTS messages (
  key TEXT NOT NULL REFERENCES episodes (key),
  idx INTEGER NOT NULL,            -- hop index: 0 is the reviewer
  role TEXT NOT NULL,
  sender TEXT NOT NULL,
  is_artifact INTEGER NOT NULL,
  text TEXT NOT NULL,
  state TEXT NOT NULL,
  complete INTEGER NOT NULL,
  status INTEGER NOT NULL,
  prerequisite INTEGER NOT NULL,
  authority INTEGER NOT NULL,
  fallback INTEGER NOT NULL,
  retention_score REAL NOT NULL,
  flags TEXT NOT NULL,             -- comma-separated flags that are on
  score TEXT NOT NULL,             -- the checker's full score (JSON)
  PRIMARY KEY (key, idx)
);
CREATE TABLE IF NOT EXISTS usage (
  key TEXT NOT NULL REFERENCES episodes (key),
  role TEXT NOT NULL,
  endpoint TEXT NOT NULL,          -- base URL or backend name
  model TEXT NOT NULL,
  calls INTEGER NOT NULL,
  cached_calls INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  latency_s REAL NOT NULL,
  retries INTEGER NOT NULL,        -- retried HTTP attempts (429, 5xx, timeouts, connection)
  failures INTEGER NOT NULL,       -- calls that failed after their retries
  PRIMARY KEY (key, role)
);
CREATE TABLE IF NOT EXISTS errors (
  key TEXT NOT NULL REFERENCES episodes (key),
  idx INTEGER NOT NULL,
  stage TEXT NOT NULL,             -- EpisodeError.where
  kind TEXT NOT NULL,
  infra INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (key, idx)
);
CREATE TABLE IF NOT EXISTS failures (
  key TEXT PRIMARY KEY,            -- a planned episode whose run raised instead of returning a record
  task TEXT NOT NULL,
  condition TEXT NOT NULL,
  topology TEXT NOT NULL,
  seed INTEGER NOT NULL,
  models TEXT NOT NULL,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  at TEXT NOT NULL,
  session INTEGER NOT NULL
);
"""

EPISODE_COLUMNS = (
    "key", "task", "task_hash", "condition", "family", "control", "topology", "topology_name", "models",
    "model_reviewer", "model_transformer", "model_executor", "seed", "twin", "simulated", "state", "complete",
    "retention_score", "first_break_hop", "reviewer_identified", "action", "action_rule", "parse_ok", "forbidden",
    "recognized", "isolation_ok", "hops", "errors", "error_kinds", "infra_error", "retries", "calls",
    "cached_calls", "prompt_tokens", "completion_tokens", "duration_s", "started_at", "finished_at",
    "checker_version", "attempt", "session", "record", "failed",
)
MESSAGE_COLUMNS = (
    "key", "idx", "role", "sender", "is_artifact", "text", "state", "complete", "status", "prerequisite",
    "authority", "fallback", "retention_score", "flags", "score",
)
USAGE_COLUMNS = ("key", "role", "endpoint", "model", "calls", "cached_calls", "prompt_tokens",
                 "completion_tokens", "latency_s", "retries", "failures")
ERROR_COLUMNS = ("key", "idx", "stage", "kind", "infra", "message")


# The episode columns that hold scored facts: NULL in a failed episode (nothing was scored), so an
# `avg(...) GROUP BY condition` never counts a failure as a deactivation or as safe.
SCORED_COLUMNS = ("state", "complete", "retention_score", "first_break_hop", "reviewer_identified", "forbidden")


def _int(value: bool | None) -> int | None:
    return None if value is None else int(value)


def scored_values(record: EpisodeRecord) -> tuple[Any, ...]:
    """The record's values for SCORED_COLUMNS (all None in a failed episode)."""
    a = record.artifact.score
    if record.failed or a is None:
        return (None,) * len(SCORED_COLUMNS)
    return (a.state, int(a.complete), a.retention_score, record.first_break_hop, _int(record.reviewer_identified),
            _int(record.executor.forbidden))


def insert_sql(table: str, columns: Iterable[str], verb: str = "INSERT") -> str:
    cols = tuple(columns)
    return f"{verb} INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"


def flags_text(score: Any) -> str:
    """The flags that are on, comma-separated (the `flags` column)."""
    return ",".join(k for k, v in score.flags.model_dump().items() if v)


def episode_row(record: EpisodeRecord, *, record_json: str, retries: int, attempt: int, session: int,
                finished_at: str) -> tuple[Any, ...]:
    usage = record.usage.values()
    kinds = [e.kind for e in record.errors]
    state, complete, retention, first_break, identified, forbidden = scored_values(record)
    x = record.executor
    return (
        record.key, record.task, record.task_hash, record.condition, record.family, record.control,
        str(record.topology), record.topology.name,
        json.dumps(record.models, sort_keys=True), record.models.get("reviewer", ""),
        record.models.get("transformer", ""), record.models.get("executor", ""), record.seed, int(record.twin),
        int(record.simulated), state, complete, retention, first_break, identified, x.action, x.action_rule,
        int(x.parse_ok), forbidden, int(x.blocker_recognized), int(record.isolation.ok),
        len(record.hops), len(record.errors),
        ",".join(kinds), int(any(is_infra_kind(k) for k in kinds)), retries, sum(u.calls for u in usage),
        sum(u.cached_calls for u in usage), sum(u.prompt_tokens for u in usage),
        sum(u.completion_tokens for u in usage), record.duration_s, record.started_at, finished_at,
        record.checker_version, attempt, session, record_json, int(record.failed),
    )


def message_rows(record: EpisodeRecord) -> list[tuple[Any, ...]]:
    artifact_idx = max((h.index for h in record.hops if h.text == record.artifact.text), default=None)
    rows = []
    for h in record.hops:
        s = h.score
        rows.append((
            record.key, h.index, h.role, h.sender, int(h.index == artifact_idx), h.text, s.state, int(s.complete),
            int(s.fields.status), int(s.fields.prerequisite), int(s.fields.authority), int(s.fields.fallback),
            s.retention_score, flags_text(s), s.model_dump_json(),
        ))
    return rows


def usage_rows(record: EpisodeRecord, retries: Mapping[str, tuple[int, int]]) -> list[tuple[Any, ...]]:
    return [
        (record.key, role, record.endpoints.get(role, ""), record.models.get(role, ""), u.calls,
         u.cached_calls, u.prompt_tokens, u.completion_tokens, round(u.latency_s, 4),
         retries.get(role, (0, 0))[0], retries.get(role, (0, 0))[1])
        for role, u in record.usage.items()
    ]


def error_rows(record: EpisodeRecord) -> list[tuple[Any, ...]]:
    return [(record.key, i, e.where, e.kind, int(is_infra_kind(e.kind)), e.message)
            for i, e in enumerate(record.errors)]
