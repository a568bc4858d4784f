"""Live counts of a sweep: episodes done, per-endpoint calls and tokens, and the per-condition
P / D / U / unsafe table. The runner adds episodes as they land; `mustmaybe watch` builds the
same counts from the store.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mustmaybe.records import ROLES
from mustmaybe.store import is_infra_kind

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord
    from mustmaybe.store import RunStore



def models_label(models: Mapping[str, str]) -> str:
    vals = [models.get(r, "?") for r in ROLES]
    return vals[0] if len(set(vals)) == 1 else " / ".join(vals)


@dataclass
class ConditionRow:
    """Counts for one (condition, topology, models) row.

    `n` counts every stored episode of the row; `failed` ones (a model call finally failed) have no
    state or action, so the rates are shares of the `scored` ones (n - failed). `parse_errors`
    counts scored episodes whose executor answer did not parse (the paper's rule chose the action).
    """

    n: int = 0
    preserved: int = 0
    deactivated: int = 0
    undetermined: int = 0
    unsafe: int = 0
    recognized: int = 0
    errors: int = 0
    failed: int = 0
    parse_errors: int = 0

    @property
    def scored(self) -> int:
        return self.n - self.failed

    @property
    def mostly_failed(self) -> bool:
        """More than half of the row's episodes failed: its rates rest on the few that did not."""
        return 2 * self.failed > self.n

    def add(self, state: str | None, forbidden: bool | None, recognized: bool, errors: int, n: int = 1, *,
            failed: bool = False, parse_error: bool = False) -> None:
        """Count `n` episodes with this artifact state, Y, recognition and error flag (or `n` failed ones)."""
        self.n += n
        self.errors += n * int(bool(errors))
        if failed:  # never safe or unsafe: no state, action or recognition is counted
            self.failed += n
            return
        self.parse_errors += n * int(parse_error)
        if state == "preserved":
            self.preserved += n
        elif state == "deactivated":
            self.deactivated += n
        else:
            self.undetermined += n
        self.unsafe += n * int(bool(forbidden))
        self.recognized += n * int(bool(recognized))

    def pct(self, count: int) -> float:
        """`count` as a percentage of the scored episodes (failed ones are in no denominator)."""
        return 100.0 * count / self.scored if self.scored else 0.0

    def as_dict(self) -> dict[str, Any]:
        rate = (lambda c: round(self.pct(c), 1)) if self.scored else (lambda c: None)
        return {"n": self.n, "scored": self.scored, "failed": self.failed, "parse_errors": self.parse_errors,
                "P": rate(self.preserved), "D": rate(self.deactivated), "U": rate(self.undetermined),
                "unsafe": rate(self.unsafe), "recognition": rate(self.recognized), "with_errors": self.errors,
                "mostly_failed": self.mostly_failed}


@dataclass
class EndpointStats:
    """Model calls and tokens for one endpoint (base URL or backend)."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    errors: int = 0
    in_flight: int = 0
    planned: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "cached": self.cached, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "retries": self.retries, "errors": self.errors}


@dataclass
class Tally:
    """Everything the progress display and the final summary show."""

    name: str
    total: int
    simulated: bool = False
    done_before: int = 0
    ran: int = 0
    ran_failed: int = 0
    failed: int = 0
    with_errors: int = 0
    infra: int = 0
    rows: dict[tuple[str, str, str], ConditionRow] = field(default_factory=dict)
    endpoints: dict[str, EndpointStats] = field(default_factory=dict)
    error_kinds: Counter[str] = field(default_factory=Counter)
    failure_kinds: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    first_start: float | None = None
    last_end: float | None = None
    ended: float | None = None  # when the session ended (a finished run `watch` reads): elapsed stops there
    status: str = "running"

    @property
    def done(self) -> int:
        """Scored episodes: stored before this session, plus those this session ran that did not fail."""
        return self.done_before + self.ran - self.ran_failed

    def endpoint(self, name: str) -> EndpointStats:
        ep = self.endpoints.get(name)
        if ep is None:
            ep = self.endpoints[name] = EndpointStats()
        return ep

    def row(self, condition: str, topology: str, models: str) -> ConditionRow:
        key = (condition, topology, models)
        r = self.rows.get(key)
        if r is None:
            r = self.rows[key] = ConditionRow()
        return r

    def episode_started(self) -> None:
        if self.first_start is None:
            self.first_start = time.monotonic()

    def add_record(self, record: EpisodeRecord, retries: Mapping[str, tuple[int, int]] | None = None) -> None:
        """Count one finished episode; `retries` maps role → (retries, failed calls), and each role's
        calls count toward the endpoint the record names. A failed episode counts as failed (never
        safe or unsafe)."""
        endpoint_of = record.endpoints
        self.ran += 1
        self.last_end = time.monotonic()
        kinds = [e.kind for e in record.errors]
        self.error_kinds.update(kinds)
        if kinds:
            self.with_errors += 1
        if any(is_infra_kind(k) for k in kinds):
            self.infra += 1
        if record.failed:
            self.ran_failed += 1
            self.failed += 1
            self.failure_kinds[kinds[0] if kinds else "failed"] += 1
        x, score = record.executor, record.artifact.score
        self.row(condition_label(record.condition, record.twin), str(record.topology), models_label(record.models)).add(
            score.state if score is not None else None, x.forbidden, x.blocker_recognized, len(kinds),
            failed=record.failed, parse_error=not x.parse_ok)
        for role, u in record.usage.items():
            ep = self.endpoint(endpoint_of.get(role, role))
            ep.calls += u.calls - u.cached_calls
            ep.cached += u.cached_calls
            ep.prompt_tokens += u.prompt_tokens
            ep.completion_tokens += u.completion_tokens
        for role, (n_retries, n_failed) in (retries or {}).items():
            ep = self.endpoint(endpoint_of.get(role, role))
            ep.retries += n_retries
            ep.errors += n_failed

    def add_failure(self, kind: str) -> None:
        self.failed += 1
        self.failure_kinds[kind] += 1
        self.last_end = time.monotonic()

    def combined(self, parts: list[Tally]) -> Tally:
        """This tally (what the store held at the start) plus the session tallies of worker processes."""
        t = Tally(name=self.name, total=self.total, simulated=self.simulated, done_before=self.done_before,
                  ran=self.ran, ran_failed=self.ran_failed, failed=self.failed, with_errors=self.with_errors,
                  infra=self.infra, started=self.started, status=self.status)
        for src in (self, *parts):
            for key, r in src.rows.items():
                row = t.row(*key)
                for f in ("n", "preserved", "deactivated", "undetermined", "unsafe", "recognized", "errors", "failed",
                          "parse_errors"):
                    setattr(row, f, getattr(row, f) + getattr(r, f))
            for name, ep in src.endpoints.items():
                e = t.endpoint(name)
                for f in ("calls", "cached", "prompt_tokens", "completion_tokens", "retries", "errors", "in_flight"):
                    setattr(e, f, getattr(e, f) + getattr(ep, f))
                e.planned = max(e.planned, ep.planned)
            t.error_kinds.update(src.error_kinds)
            t.failure_kinds.update(src.failure_kinds)
        for p in parts:
            t.ran += p.ran
            t.ran_failed += p.ran_failed
            t.failed += p.failed
            t.with_errors += p.with_errors
            t.infra += p.infra
        starts = [x.first_start for x in (self, *parts) if x.first_start is not None]
        ends = [x.last_end for x in (self, *parts) if x.last_end is not None]
        t.first_start = min(starts) if starts else None
        t.last_end = max(ends) if ends else None
        return t

    # ---------------------------------------------------------------- timing
    def elapsed_s(self) -> float:
        """Seconds since the session started, up to its end once it ended."""
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    def rate(self) -> float | None:
        """Episodes per second in this session (None before the first lands)."""
        if not self.ran or self.first_start is None:
            return None
        elapsed = (self.last_end or time.monotonic()) - self.first_start
        return self.ran / elapsed if elapsed > 0 else None

    def eta_s(self) -> float | None:
        rate = self.rate()
        remaining = self.total - self.done - self.failed
        if rate is None or remaining <= 0:
            return None if remaining > 0 else 0.0
        return remaining / rate

    def in_tool_s(self) -> float | None:
        """First episode start to last episode end in this session."""
        if self.first_start is None or self.last_end is None:
            return None
        return self.last_end - self.first_start

    # ---------------------------------------------------------------- output
    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "simulated": self.simulated,
            "episodes": self.total,
            "done": self.done,
            "ran": self.ran,
            "already_done": self.done_before,
            "failed": self.failed,
            "parse_errors": sum(r.parse_errors for r in self.rows.values()),
            "with_errors": self.with_errors,
            "infra_errors": self.infra,
            "elapsed_s": round(self.elapsed_s(), 3),
            "in_tool_s": None if (t := self.in_tool_s()) is None else round(t, 3),
            "calls_by_endpoint": {k: v.as_dict() for k, v in sorted(self.endpoints.items())},
            "error_kinds": dict(self.error_kinds.most_common()),
            "failure_kinds": dict(self.failure_kinds.most_common()),
            "conditions": [
                {"condition": c.removesuffix(TWIN_SUFFIX), "twin": c.endswith(TWIN_SUFFIX), "topology": t, "models": m,
                 **r.as_dict()}
                for (c, t, m), r in sorted(self.rows.items(), key=lambda kv: _cond_order(kv[0]))
            ],
        }

    # ---------------------------------------------------------------- from a store
    @classmethod
    def from_store(cls, store: RunStore, *, name: str, total: int, simulated: bool,
                   exclude_infra: bool = False, include_failures: bool = True) -> Tally:
        """Counts of what a run folder already holds (for a resumed sweep and for `watch`).

        With `exclude_infra`, episodes with an infrastructure error or that failed (about to be re-run)
        are left out. Failed episodes otherwise count in `failed`, not in `done`.
        """
        t = cls(name=name, total=total, simulated=simulated)
        failed = store.failed_sql
        where = f"WHERE infra_error = 0 AND {failed} = 0" if exclude_infra else ""
        where_p = f"WHERE p.infra_error = 0 AND p.{failed} = 0" if exclude_infra and store.has_failed else \
            ("WHERE p.infra_error = 0" if exclude_infra else "")
        for cond, twin, topo, models_json, state, forbidden, recognized, errs, parse_ok, is_failed, n in store.query(
            f"SELECT condition, twin, topology, models, state, forbidden, recognized, errors > 0, parse_ok, {failed}, "
            f"COUNT(*) FROM episodes {where} GROUP BY condition, twin, topology, models, state, forbidden, recognized, "
            f"errors > 0, parse_ok, {failed}"
        ):
            t.row(condition_label(cond, bool(twin)), topo, models_label(json.loads(models_json))).add(
                state, forbidden, recognized, errs, n, failed=bool(is_failed), parse_error=not parse_ok)
            if is_failed:
                t.failed += n
            else:
                t.done_before += n
            t.with_errors += n * int(errs)
        for endpoint, calls, cached, pt, ct, retries, failures in store.query(
            "SELECT endpoint, SUM(calls), SUM(cached_calls), SUM(prompt_tokens), SUM(completion_tokens), "
            "SUM(retries), SUM(failures) FROM usage GROUP BY endpoint"
        ):
            ep = t.endpoint(endpoint)
            ep.calls += int(calls or 0) - int(cached or 0)
            ep.cached += int(cached or 0)
            ep.prompt_tokens += int(pt or 0)
            ep.completion_tokens += int(ct or 0)
            ep.retries += int(retries or 0)
            ep.errors += int(failures or 0)
        for kind, n in store.query(f"SELECT e.kind, COUNT(*) FROM errors e JOIN episodes p ON p.key = e.key "
                                   f"{where_p} GROUP BY e.kind"):
            t.error_kinds[kind] += n
        if not exclude_infra and store.has_failed:
            # Failed episodes, by the kind of their first error (what stopped them).
            for kind, n in store.query("SELECT substr(error_kinds || ',', 1, instr(error_kinds || ',', ',') - 1), "
                                       "COUNT(*) FROM episodes WHERE failed = 1 GROUP BY 1"):
                t.failure_kinds[kind or "failed"] += n
        t.infra = int(store.query("SELECT COUNT(*) FROM episodes WHERE infra_error = 1")[0][0]) if not exclude_infra \
            else 0
        for kind, n in store.query("SELECT kind, COUNT(*) FROM failures GROUP BY kind") if include_failures else []:
            t.failure_kinds[kind] += n
            t.failed += n
        return t


def condition_label(condition: str, twin: bool) -> str:
    """A row's condition as the tables show it: a benign twin's rows are `P4 twin`, never pooled with `P4`."""
    return condition + TWIN_SUFFIX if twin else condition


TWIN_SUFFIX = " twin"


def _cond_order(key: tuple[str, str, str]) -> tuple[Any, ...]:
    from mustmaybe.scenarios import CONDITIONS

    ids = list(CONDITIONS)
    c = key[0].removesuffix(TWIN_SUFFIX)
    return (ids.index(c) if c in ids else len(ids), key[0], key[1], key[2])
