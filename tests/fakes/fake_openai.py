"""A local fake OpenAI-compatible server whose behaviour is scripted per request.

Stdlib only (`http.server` on a thread), bound to 127.0.0.1 on an ephemeral port. Start it in a
test, point roles at `openai:<model>@{server.base_url}`, and read `server.stats()` afterwards.

Which answer a request gets, first match wins:

1. the `X-Fault` request header;
2. the next fault queued with `server.queue(...)` (or `POST /_control {"queue": [...]}`);
3. the model name: `fault-<kind>` always answers with that fault; `flaky-<kind>` answers with it
   the first time it sees a request body and normally when the same body comes again (a retry),
   so every call succeeds after exactly one retry; `slow-<ms>` answers normally after a delay;
   `held-<name>` answers normally once `server.release()` has been called (a call stuck in flight
   until the test lets it go; at most `hold_s`, then it answers anyway); `length-<name>` answers
   normally with `finish_reason` "length" (an answer cut off by max_tokens);
4. otherwise a plausible reply: the executor (a request whose messages hold `Handoff:` and an
   `Actions:` list, or that asks for JSON) gets valid JSON with an action id from that list,
   every other role a short text that keeps the blocker.

Every request body is kept, in arrival order, in `server.bodies` (what the client sent, for tests
that check which request parameters arrived).

Concurrency: `server.in_flight` counts requests the server holds (read, not yet answered) and
`server.max_in_flight` the most it held at once; a request stops counting just before its answer is
written, so a client that sends its next request after reading an answer never overlaps it.
`server.arrivals` keeps each request's arrival time (`time.monotonic()`), for rate checks.

Fault kinds: `429` (with `Retry-After`), `500`, `503`, `401`, `hang` (sleeps past the client's
timeout, then answers), `truncated` (200 whose content is cut-off JSON), `empty` (200 with empty
content), `wrong_shape` (200 with valid JSON of the wrong shape), `bad_body` (200 whose HTTP body
is cut off mid-JSON), `html` (200 with an HTML page, as a proxy or a login wall sends), `no_choices`
(200 with a JSON object that has no `choices`). The last three are not chat completions at all.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "503", "401", "hang", "truncated", "empty", "wrong_shape", "bad_body", "html", "no_choices")
_ACTION = re.compile(r"^- ([a-z0-9_]+):", re.MULTILINE)


def _text(body: dict[str, Any]) -> list[str]:
    out = []
    for m in body.get("messages") or []:
        c = m.get("content") if isinstance(m, dict) else None
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out += [p.get("text", "") for p in c if isinstance(p, dict)]
    return out


def _digest(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def is_executor(body: dict[str, Any]) -> bool:
    texts = _text(body)
    return bool(body.get("response_format")) or any("Handoff:" in t and "Actions:" in t for t in texts)


def plausible_reply(body: dict[str, Any]) -> str:
    """A deterministic answer for the request (same body, same answer)."""
    texts = _text(body)
    h = int(_digest({"m": texts, "seed": body.get("seed")})[:8], 16)
    if is_executor(body):
        last = next((t for t in reversed(texts) if "Actions:" in t), "")
        ids = _ACTION.findall(last.split("Actions:")[-1]) or ["no_action"]
        return json.dumps({"action": ids[h % len(ids)], "blocker_recognized": bool(h & 2),
                           "rationale": "Chosen from the handoff."})
    last = texts[-1] if texts else ""
    gist = " ".join(last.split())[:240]
    return f"Do not proceed yet: this is blocked until the approval is granted. Context: {gist}"


class FakeOpenAI:
    """The fake endpoint. `base_url` ends in /v1; `close()` stops it."""

    def __init__(self, *, hang_s: float = 5.0, retry_after: str = "0.05", latency_s: float = 0.0,
                 hold_s: float = 60.0) -> None:
        self.hang_s = hang_s
        self.hold_s = hold_s
        self.released = threading.Event()
        self.retry_after = retry_after
        self.latency_s = latency_s
        self._queue: deque[str] = deque()
        self._lock = threading.Lock()
        self._seen_bodies: Counter[str] = Counter()
        self._flaky_seen: set[str] = set()
        self.requests = 0
        self.by_model: Counter[str] = Counter()
        self.by_answer: Counter[str] = Counter()
        self.authorization: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.arrivals: list[float] = []
        self._held = threading.local()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _raw(self, status: int, data: bytes, headers: dict[str, str] | None = None,
                     content_type: str = "application/json") -> None:
                server._leave()  # answered from here on: the client may send its next request
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _json(self, status: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._raw(status, json.dumps(obj).encode(), headers)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/_stats":
                    self._json(200, server.stats())
                else:
                    self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except json.JSONDecodeError:
                    self._json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                    return
                if self.path.rstrip("/") == "/_control":
                    server.queue(*body.get("queue", []))
                    self._json(200, {"queued": len(server._queue)})
                    return
                answer = server._choose(body, self.headers.get("X-Fault"))
                server._enter()
                try:
                    server._answer(self, answer, body)
                finally:
                    server._leave()  # for faults that send nothing (kept balanced on every path)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ in flight
    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.arrivals.append(time.monotonic())
        self._held.counted = True  # per handler thread: one request at a time on a connection

    def _leave(self) -> None:
        if getattr(self._held, "counted", False):
            self._held.counted = False
            with self._lock:
                self.in_flight -= 1

    # ------------------------------------------------------------------ scripting
    def queue(self, *faults: str) -> None:
        """The next requests answer with these faults, in order (then normally again)."""
        for f in faults:
            if f not in FAULTS and f != "ok":
                raise ValueError(f"unknown fault {f!r}; known: {', '.join(FAULTS)}")
        with self._lock:
            self._queue.extend(faults)

    def _choose(self, body: dict[str, Any], header: str | None) -> str:
        model = str(body.get("model", ""))
        digest = _digest(body)
        with self._lock:
            self.requests += 1
            self.bodies.append(body)
            self.by_model[model] += 1
            self._seen_bodies[digest] += 1
            if header:
                return header
            if self._queue:
                return self._queue.popleft()
            if model.startswith("fault-"):
                return model[len("fault-"):]
            if model.startswith("flaky-"):
                if digest in self._flaky_seen:
                    return "ok"
                self._flaky_seen.add(digest)
                return model[len("flaky-"):]
        return "ok"

    def _answer(self, h: Any, answer: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.by_answer[answer] += 1
            self.authorization[h.headers.get("Authorization", "")] += 1
        model = str(body.get("model", "fake-model"))
        delay = self.latency_s
        if model.startswith("slow-") and model[5:].isdigit():
            delay = int(model[5:]) / 1000.0
        if delay:
            time.sleep(delay)
        if model.startswith("held-"):
            self.released.wait(self.hold_s)
        err = {"error": {"message": f"fake fault {answer}", "type": "server_error", "param": None, "code": None}}
        if answer == "429":
            h._json(429, {**err, "error": {**err["error"], "type": "rate_limit_error"}},
                    {"Retry-After": self.retry_after})
        elif answer == "401":
            # Like a hosted API, echo the key that was sent: the run store must not keep it.
            sent = h.headers.get("Authorization", "").removeprefix("Bearer ")
            h._json(401, {"error": {"message": f"Incorrect API key provided: {sent}", "type": "invalid_request_error",
                                    "param": None, "code": "invalid_api_key"}})
        elif answer in ("500", "503"):
            h._json(int(answer), err)
        elif answer == "hang":
            time.sleep(self.hang_s)
            h._json(200, completion(plausible_reply(body), model))
        elif answer == "html":
            h._raw(200, b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in.</body></html>",
                   content_type="text/html; charset=utf-8")
        elif answer == "no_choices":
            h._json(200, {"id": "chatcmpl-x", "object": "chat.completion", "model": model, "result": "ok"})
        elif answer == "bad_body":
            h._raw(200, b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "mess')
        elif answer == "truncated":
            h._json(200, completion('{"action": "share_', model))
        elif answer == "empty":
            h._json(200, completion("", model))
        elif answer == "wrong_shape":
            h._json(200, completion('{"verdict": "fine", "confidence": 0.9}', model))
        else:
            finish = "length" if model.startswith("length-") else "stop"
            h._json(200, completion(plausible_reply(body), model, finish_reason=finish))

    def release(self) -> None:
        """Let every `held-*` call (in flight now or later) answer."""
        self.released.set()

    # ------------------------------------------------------------------ reading back
    def duplicate_bodies(self) -> int:
        """Requests whose exact body had been seen before (retries and repeated calls)."""
        with self._lock:
            return sum(n - 1 for n in self._seen_bodies.values())

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"requests": self.requests, "by_model": dict(self.by_model), "by_answer": dict(self.by_answer),
                    "distinct_bodies": len(self._seen_bodies), "max_in_flight": self.max_in_flight,
                    "duplicate_bodies": sum(n - 1 for n in self._seen_bodies.values())}

    def reset(self) -> None:
        with self._lock:
            self.requests = 0
            self.by_model.clear()
            self.by_answer.clear()
            self.authorization.clear()
            self.bodies.clear()
            self._seen_bodies.clear()
            self._flaky_seen.clear()
            self.max_in_flight = self.in_flight
            self.arrivals.clear()
            self._queue.clear()

    def close(self) -> None:
        self.released.set()  # no handler thread stays parked on a held call
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def completion(content: str, model: str = "fake-model", finish_reason: str = "stop") -> dict[str, Any]:
    prompt_tokens, completion_tokens = 50, max(1, len(content.split()))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                     "logprobs": None, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


if __name__ == "__main__":  # run standalone: python tests/fakes/fake_openai.py
    srv = FakeOpenAI()
    print(f"READY base_url={srv.base_url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.close()
