"""Model calls that finally failed, described in plain words for the episode record and the console.

A failed call makes a failed episode (teams/_episode.py): nothing is scored from it. So the
description has to be right about *why*: the endpoint could not be reached, it timed out, it
answered HTTP 429 or 500 on every attempt, or it answered something that is not a chat
completion at all (an HTML page from a proxy, JSON without `choices`, a body cut off mid-way).
A whole-call timeout that runs out while a 500 or 429 is being retried is reported as that 500
or 429, never as a bare timeout.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import openai

# Kinds a later attempt may fix (the endpoint failed, not the model); teams.classify_error returns these.
NOT_A_COMPLETION = "not_a_completion"


class NotACompletionError(openai.OpenAIError):
    """A 2xx answer from a chat-completions endpoint whose body is not a chat completion.

    A subclass of `openai.OpenAIError` so the SDK passes it on as it is (it wraps other
    exceptions raised while sending in `APIConnectionError`, which would read as a network fault).
    """


def completion_body_problem(content_type: str, body: bytes) -> str | None:
    """Why `body` (a 2xx answer to POST /chat/completions) is not a chat completion; None if it is one.

    Checks only the envelope the SDK needs (a JSON object with a non-empty `choices` list whose
    first entry has a `message`); what the message says is the model's business.
    """
    return read_completion(content_type, body)[1]


def read_completion(content_type: str, body: bytes) -> tuple[Any, str | None]:
    """(the parsed JSON, None) for a chat completion, else (None, why it is not one): the check of
    `completion_body_problem`, handing back what it parsed so the thin path parses the body once."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    head = body.lstrip()[:64].lower()
    if "html" in ctype or head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return None, "the endpoint returned HTML, not a chat completion"
    if not head:
        return None, "the endpoint returned an empty body, not a chat completion"
    try:
        obj = json.loads(body)
    except ValueError:
        if ctype.endswith("json") or head.startswith((b"{", b"[")):
            return None, "the endpoint returned a truncated or malformed JSON body, not a chat completion"
        return None, f"the endpoint returned {ctype or 'non-JSON text'}, not a chat completion"
    if not isinstance(obj, dict):
        return None, f"the endpoint returned a JSON {type(obj).__name__}, not a chat completion"
    if "choices" not in obj:
        err = obj.get("error")
        if err is not None:
            msg = err.get("message") if isinstance(err, dict) else err
            return None, f"the endpoint returned an error object instead of a chat completion: {str(msg)[:200]}"
        return None, "the endpoint returned JSON without `choices`, not a chat completion"
    choices = obj["choices"]
    if not isinstance(choices, list) or not choices:
        return None, "the endpoint returned a chat completion with no choices"
    first = choices[0]
    if not isinstance(first, dict) or not isinstance(first.get("message"), dict):
        return None, "the endpoint returned a choice without a message, not a chat completion"
    return obj, None


async def check_completion_response(response: object) -> None:
    """An httpx response hook: raise NotACompletionError for a 2xx chat-completions answer that is not one.

    Runs before the SDK parses the body. Without it an HTML page comes back from the SDK as a plain
    string and JSON without `choices` as an empty model, and AutoGen then fails with an
    AttributeError that says nothing about the endpoint.
    """
    request = getattr(response, "request", None)
    status = int(getattr(response, "status_code", 0))
    if request is None or getattr(request, "method", "") != "POST" or not 200 <= status < 300:
        return
    if not str(getattr(request, "url", "")).rstrip("/").endswith("/chat/completions"):
        return
    body: bytes = await response.aread()  # type: ignore[attr-defined]
    headers = getattr(response, "headers", {})
    problem = completion_body_problem(headers.get("content-type", ""), body)
    if problem is not None:
        raise NotACompletionError(problem)


def causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and the exceptions it was raised from or during, outermost first (cycle-safe)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _api_message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else inner
        if msg:
            return " ".join(str(msg).split())[:200]
    text = getattr(exc, "message", None) or str(exc)
    return " ".join(str(text).split())[:200]


def _connection_detail(exc: BaseException) -> str:
    chain = [c for c in causes(exc) if c is not exc]
    texts = [" ".join(str(c).split()) for c in chain]
    # The transport's own words are often generic ("All connection attempts failed"); the OS's are not.
    if any(isinstance(c, ConnectionRefusedError) for c in chain) or any("refused" in t.lower() for t in texts):
        return "connection refused"
    if any(isinstance(c, socket.gaierror) for c in chain):
        return "host name not found"
    return next((t[:160] for t in texts if t), "")


def describe_failure(exc: BaseException) -> tuple[str, str]:
    """(kind, reason) for an exception raised by a model call.

    `kind` is short and countable (connection_error, timeout, rate_limited, http_<status>,
    not_a_completion, or the exception's class name); `reason` is one plain sentence.
    """
    if isinstance(exc, ModelCallError):
        return exc.kind, exc.reason
    for c in causes(exc):
        if isinstance(c, NotACompletionError):
            return NOT_A_COMPLETION, str(c)
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return "timeout", "the endpoint did not answer in time (timeout)"
    if isinstance(exc, openai.APIConnectionError):
        detail = _connection_detail(exc)
        return "connection_error", "the endpoint could not be reached" + (f" ({detail})" if detail else "")
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited", f"the endpoint answered HTTP 429 (rate limited): {_api_message(exc)}"
    if isinstance(exc, openai.APIStatusError):
        return f"http_{exc.status_code}", f"the endpoint answered HTTP {exc.status_code}: {_api_message(exc)}"
    if isinstance(exc, ValueError) and "json" in str(exc).lower():
        return "bad_response", f"the answer could not be read: {' '.join(str(exc).split())[:200]}"
    text = " ".join(str(exc).split())[:200]
    return type(exc).__name__, f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ModelCallError(Exception):
    """A model call of one agent that finally failed (after its retries), with the why in plain words.

    `RecordingClient` raises it (from the original exception) and keeps it as `last_error`, so the
    episode record can say which agent, which endpoint and why, whatever AutoGen wraps around it.
    """

    def __init__(self, *, agent: str, endpoint: str, kind: str, reason: str, attempts: int | None = None) -> None:
        self.agent = agent
        self.endpoint = endpoint
        self.kind = kind
        self.reason = reason
        self.attempts = attempts
        super().__init__(self.sentence())

    def sentence(self) -> str:
        tries = f" ({self.attempts} attempts)" if self.attempts and self.attempts > 1 else ""
        where = f" to {self.endpoint}" if self.endpoint else ""
        return f"{self.agent}'s model call{where} failed{tries}: {self.reason}"
