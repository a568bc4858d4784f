"""`--trace` (and `trace = true` in a sweep file): OpenTelemetry spans of runs and sweeps.

Each traced command runs in a fresh interpreter, as a user runs it: OpenTelemetry's global tracer
provider can be set once per process, and a test must not leave one behind for the others.

- With `--trace` and an in-memory exporter, the episode span has hop, checker and model-call spans
  under it (parents checked), AutoGen's runtime and agent spans among them, and the model calls carry
  the GenAI semantic-convention attributes; without `--trace`, no span at all and no SDK import.
- `traces.jsonl` in the run folder holds the same tree; a sweep over two worker processes puts every
  episode once under the one sweep span.
- The store is the same with and without traces, timings aside.
- OTLP goes to a real HTTP endpoint when OTEL_EXPORTER_OTLP_ENDPOINT is set; a missing extra is one line.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fakes.fake_openai import FakeOpenAI

from .conftest import write_sweep

pytest.importorskip("opentelemetry.sdk.trace")

# Runs the CLI in this interpreter with the given argv; with IN_MEMORY set, every trace session exports
# to an in-memory exporter and its finished spans are dumped. Also lists the OpenTelemetry SDK and
# inspect_ai modules the command imported.
_PROBE = """
import json, os, sys
from mustmaybe.cli import main
spans = None
if os.environ.get("IN_MEMORY"):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from mustmaybe import tracing
    mem = InMemorySpanExporter()
    with tracing.exporting_to(mem):
        code = main(sys.argv[2:])
    spans = [json.loads(s.to_json()) for s in mem.get_finished_spans()]
else:
    code = main(sys.argv[2:])
sdk = sorted(m for m in sys.modules if m.startswith("opentelemetry.sdk"))
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "sdk": sdk, "spans": spans}, f)
"""


def _probe(tmp_path: Path, *argv: str, in_memory: bool = False, env: dict[str, str] | None = None,
           block: str = "") -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    out = tmp_path / "probe.json"
    out.unlink(missing_ok=True)
    import os

    full_env = {**os.environ, **(env or {})}
    full_env.pop("OPENAI_API_KEY", None)
    if in_memory:
        full_env["IN_MEMORY"] = "1"
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        if name not in (env or {}):
            full_env.pop(name, None)
    code = block + _PROBE
    proc = subprocess.run([sys.executable, "-c", code, str(out), *argv], capture_output=True, text=True,
                          timeout=180, env=full_env)
    assert out.exists(), f"probe did not finish (exit {proc.returncode}): {proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(out.read_text())
    return result, proc


def _run_argv(tmp_path: Path, *extra: str) -> list[str]:
    return ["run", "vendor-summary-q3", "-c", "S3", "--json", "--runs-dir", str(tmp_path / "runs"), *extra]


class _Tree:
    """Spans by id, with their ancestry (from OpenTelemetry's own JSON, or from traces.jsonl lines)."""

    def __init__(self, spans: list[dict[str, Any]]) -> None:
        self.spans = spans
        self.by_id = {self.sid(s): s for s in spans}

    @staticmethod
    def sid(s: dict[str, Any]) -> str:
        return str(s["span_id"] if "span_id" in s else s["context"]["span_id"].removeprefix("0x"))

    @staticmethod
    def parent(s: dict[str, Any]) -> str | None:
        p = s.get("parent_span_id", s.get("parent_id"))
        return str(p).removeprefix("0x") if p else None

    def named(self, name: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"] == name]

    def starting(self, prefix: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"].startswith(prefix)]

    def ancestors(self, s: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        p = self.parent(s)
        while p is not None:
            up = self.by_id.get(p)
            assert up is not None, f"span {s['name']} has a parent that was never exported"
            out.append(up)
            p = self.parent(up)
        return out

    def under(self, s: dict[str, Any], ancestor: dict[str, Any]) -> bool:
        return any(self.sid(a) == self.sid(ancestor) for a in self.ancestors(s))


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    srv = FakeOpenAI()
    yield srv
    srv.close()


def _check_episode_tree(tree: _Tree, episode: dict[str, Any], hops: int, openai_url: str | None = None) -> None:
    hop_spans = [h for h in tree.named("mustmaybe.hop") if tree.under(h, episode)]
    assert len(hop_spans) == hops
    for h in hop_spans:
        checkers = [c for c in tree.named("mustmaybe.checker.score") if tree.parent(c) == tree.sid(h)]
        assert len(checkers) == 1  # each hop scored once, its score a child of the hop
        assert h["attributes"]["mustmaybe.state"] == checkers[0]["attributes"]["mustmaybe.state"]
    calls = [c for c in tree.starting("chat ") if tree.under(c, episode)]
    assert len(calls) >= hops + 1  # every hop's model call and the executor's
    for c in calls:
        a = c["attributes"]
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.system"] and a["gen_ai.request.model"]
        assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
        assert list(a["gen_ai.response.finish_reasons"]) == ["stop"]
        # AutoGen's agent span is the call's parent: its runtime and agent spans are in the same tree.
        assert tree.by_id[tree.parent(c) or ""]["name"].startswith("invoke_agent ")
    runtime = [s for s in tree.starting("autogen ") if tree.under(s, episode)]
    assert any(s["name"].startswith("autogen publish") for s in runtime)
    assert any(s["name"].startswith("autogen process") for s in runtime)
    if openai_url is not None:
        [executor] = [c for c in calls if c["attributes"]["mustmaybe.role"] == "executor"]
        a = executor["attributes"]
        assert (a["gen_ai.system"], a["server.address"], a["mustmaybe.endpoint"]) == ("openai", "127.0.0.1",
                                                                                       openai_url)
        assert a["gen_ai.request.model"] == "m" and a["gen_ai.output.type"] == "json"


def test_run_with_trace_and_an_in_memory_exporter(tmp_path: Path, fake: FakeOpenAI) -> None:
    argv = _run_argv(tmp_path, "--model", "sim", "--model", f"executor=openai:m@{fake.base_url}", "--trace")
    result, proc = _probe(tmp_path, *argv, in_memory=True)
    assert result["code"] == 0, proc.stderr
    tree = _Tree(result["spans"])
    [root] = tree.named("mustmaybe.run")
    [episode] = tree.named("mustmaybe.episode")
    assert tree.parent(root) is None and tree.parent(episode) == tree.sid(root)
    assert episode["attributes"]["mustmaybe.condition"] == "S3" and episode["status"]["status_code"] == "UNSET"
    record = json.loads(proc.stdout)
    assert episode["attributes"]["mustmaybe.episode.key"] == record["key"]
    assert episode["attributes"]["mustmaybe.forbidden"] == record["executor"]["forbidden"]
    _check_episode_tree(tree, episode, hops=len(record["hops"]), openai_url=fake.base_url)
    [write] = tree.named("mustmaybe.store.write")
    assert tree.parent(write) == tree.sid(root)
    assert not list((tmp_path / "runs").glob("*/traces.jsonl"))  # the exporter given replaces the file


def test_without_trace_no_span_and_no_sdk(tmp_path: Path) -> None:
    result, proc = _probe(tmp_path, *_run_argv(tmp_path, "--model", "sim"), in_memory=True)
    assert result["code"] == 0, proc.stderr
    assert result["spans"] == []  # neither ours nor AutoGen's
    result, proc = _probe(tmp_path, *_run_argv(tmp_path, "--model", "sim"))
    assert result["code"] == 0 and result["sdk"] == []  # the OpenTelemetry SDK is never imported
    assert not list((tmp_path / "runs").glob("*/traces.jsonl"))
    manifest = json.loads(next((tmp_path / "runs").glob("*/manifest.json")).read_text())
    assert "trace" not in manifest


def test_run_writes_traces_jsonl_in_its_folder(tmp_path: Path) -> None:
    result, proc = _probe(tmp_path, *_run_argv(tmp_path, "--model", "sim", "--trace"))
    assert result["code"] == 0, proc.stderr
    [folder] = list((tmp_path / "runs").iterdir())
    lines = [json.loads(line) for line in (folder / "traces.jsonl").read_text().splitlines()]
    tree = _Tree(lines)
    [episode] = tree.named("mustmaybe.episode")
    record = json.loads(proc.stdout)
    _check_episode_tree(tree, episode, hops=len(record["hops"]))
    assert {s["trace_id"] for s in lines} == {episode["trace_id"]}
    assert f"traces: {folder / 'traces.jsonl'}" in proc.stderr
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["trace"] == str(folder / "traces.jsonl") and "--trace" in manifest["command"]


def test_single_call_in_a_wording_traces_each_stage_as_a_hop(tmp_path: Path) -> None:
    # One model call writes three stages: each stage is a hop span scored once, under the episode, which
    # names its wording; the calls are the reviewer's, the one trajectory call and the executor's.
    result, proc = _probe(tmp_path, *_run_argv(tmp_path, "--model", "sim", "--topology", "single-call:stages=3",
                                               "--wording", "p1", "--trace"))
    assert result["code"] == 0, proc.stderr
    [folder] = list((tmp_path / "runs").iterdir())
    tree = _Tree([json.loads(line) for line in (folder / "traces.jsonl").read_text().splitlines()])
    [episode] = tree.named("mustmaybe.episode")
    record = json.loads(proc.stdout)
    assert record["wording"]["id"] == "p1" and len(record["hops"]) == 4  # the reviewer and three stages
    assert episode["attributes"]["mustmaybe.wording"] == "p1"
    hops = [h for h in tree.named("mustmaybe.hop") if tree.under(h, episode)]
    assert [h["attributes"]["mustmaybe.hop.sender"] for h in hops] == [h["sender"] for h in record["hops"]]
    for h in hops:
        assert len([c for c in tree.named("mustmaybe.checker.score") if tree.parent(c) == tree.sid(h)]) == 1
    calls = [c for c in tree.starting("chat ") if tree.under(c, episode)]
    assert sorted(c["attributes"]["mustmaybe.role"] for c in calls) == ["executor", "reviewer", "transformer"]


_TIMING = {"started_at", "duration_s", "finished_at", "latency_s"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in _TIMING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _store(run: Path) -> dict[str, list[Any]]:
    """Every table of a store, timing columns and keys removed, the record parsed."""
    con = sqlite3.connect(run / "store.sqlite")
    con.row_factory = sqlite3.Row
    try:
        out: dict[str, list[Any]] = {}
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            rows = []
            for row in con.execute(f"SELECT * FROM {table} ORDER BY 1, 2"):
                d = {k: row[k] for k in row.keys() if k not in _TIMING and k != "at"}
                if "record" in d:
                    d["record"] = _strip(json.loads(d["record"]))
                rows.append(d)
            out[table] = rows
        return out
    finally:
        con.close()


def test_sweep_traces_over_workers_and_the_store_is_unchanged(tmp_path: Path) -> None:
    kw: dict[str, Any] = {"conditions": ["P0", "P4", "S3"], "seeds": [1, 2], "extra": "workers = 2"}
    plain = write_sweep(tmp_path / "plain.toml", **kw)
    traced = write_sweep(tmp_path / "traced.toml", **{**kw, "extra": "workers = 2\ntrace = true"})
    result, proc = _probe(tmp_path, "sweep", str(plain), "--out", str(tmp_path / "a"), "--json")
    assert result["code"] == 0 and result["sdk"] == [], proc.stderr
    assert not (tmp_path / "a" / "traces.jsonl").exists()
    result, proc = _probe(tmp_path, "sweep", str(traced), "--out", str(tmp_path / "b"), "--json")
    assert result["code"] == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["trace"] == str(tmp_path / "b" / "traces.jsonl")
    # The same records, messages, usage and errors, byte for byte apart from the timings.
    assert _store(tmp_path / "a") == _store(tmp_path / "b")
    lines = [json.loads(line) for line in (tmp_path / "b" / "traces.jsonl").read_text().splitlines()]
    tree = _Tree(lines)
    [root] = tree.named("mustmaybe.sweep")
    episodes = tree.named("mustmaybe.episode")
    keys = [e["attributes"]["mustmaybe.episode.key"] for e in episodes]
    with sqlite3.connect(tmp_path / "b" / "store.sqlite") as con:
        stored = {k for (k,) in con.execute("SELECT key FROM episodes")}
    assert sorted(keys) == sorted(stored) and len(keys) == 12  # every episode once, from both workers
    assert all(tree.parent(e) == tree.sid(root) for e in episodes)
    writes = tree.named("mustmaybe.store.write")
    assert len(writes) == 12 and all(tree.by_id[tree.parent(w) or ""]["name"] == "mustmaybe.episode" for w in writes)
    for e in episodes[:3]:
        hops = e["attributes"]["mustmaybe.hops"]
        _check_episode_tree(tree, e, hops=hops)
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["sweep"]["trace"] is True and manifest["sessions"][0]["trace"] == summary["trace"]


class _Collector(BaseHTTPRequestHandler):
    """A real OTLP/HTTP receiver: decodes each ExportTraceServiceRequest it is sent."""

    received: ClassVar[list[Any]] = []

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        req = ExportTraceServiceRequest()
        req.ParseFromString(body)
        type(self).received.append((self.path, req))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


def test_otlp_when_the_endpoint_is_set(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    _Collector.received = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        result, proc = _probe(tmp_path, *_run_argv(tmp_path, "--model", "sim", "--trace"),
                              env={"OTEL_EXPORTER_OTLP_ENDPOINT": url})
    finally:
        srv.shutdown()
    assert result["code"] == 0, proc.stderr
    assert _Collector.received and {p for p, _ in _Collector.received} == {"/v1/traces"}
    spans = [s for _, req in _Collector.received for rs in req.resource_spans for ss in rs.scope_spans
             for s in ss.spans]
    names = [s.name for s in spans]
    assert names.count("mustmaybe.episode") == 1 and names.count("mustmaybe.run") == 1
    assert sum(n.startswith("chat ") for n in names) >= 3 and any(n.startswith("autogen ") for n in names)
    chat = next(s for s in spans if s.name.startswith("chat "))
    attrs = {a.key for a in chat.attributes}
    assert {"gen_ai.system", "gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
            "gen_ai.response.finish_reasons"} <= attrs
    service = {a.key: a.value.string_value for rs in _Collector.received[0][1].resource_spans
               for a in rs.resource.attributes}
    assert service["service.name"] == "mustmaybe"
    assert not list((tmp_path / "runs").glob("*/traces.jsonl"))  # OTLP instead of the file
    assert f"traces: otlp:{url}" in proc.stderr


@pytest.mark.parametrize(("blocked", "env", "extra"), [
    ("opentelemetry.sdk", {}, "'trace'"),
    ("opentelemetry.exporter.otlp.proto.http", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, "'otlp'"),
])
def test_a_missing_extra_is_one_line(tmp_path: Path, blocked: str, env: dict[str, str], extra: str) -> None:
    block = f"import sys\nsys.modules[{blocked!r}] = None  # as if the extra were not installed\n"
    sweep = write_sweep(tmp_path / "s.toml", tasks=["library:vendor-summary-q3"], conditions=["P0"])
    for argv in (_run_argv(tmp_path, "--model", "sim", "--trace"),
                 ["sweep", str(sweep), "--out", str(tmp_path / "sw"), "--trace", "--json"]):
        result, proc = _probe(tmp_path, *argv, env=env, block=block)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert result["code"] == 2 and len(lines) == 1, proc.stderr
        assert extra in lines[0] and "pip install 'mustmaybe[" in lines[0]
        assert not (tmp_path / "runs").exists() and not (tmp_path / "sw").exists()  # before any model call


def test_key_values_never_reach_a_trace(tmp_path: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from mustmaybe.tracing._jsonl import JsonLinesSpanExporter, RedactingExporter

    path = tmp_path / "traces.jsonl"
    provider = TracerProvider()  # a local one: the process's global provider is left alone
    provider.add_span_processor(SimpleSpanProcessor(RedactingExporter(JsonLinesSpanExporter(path), ["sk-abc123"])))
    with provider.get_tracer("t").start_as_current_span("x", attributes={"message": "key sk-abc123 echoed"}) as sp:
        sp.add_event("e", {"body": ["sk-abc123"]})
    provider.shutdown()
    text = path.read_text()
    assert "sk-abc123" not in text and "key *** echoed" in text
    [line] = [json.loads(t) for t in text.splitlines()]
    assert line["name"] == "x" and line["events"][0]["attributes"]["body"] == ["***"]
