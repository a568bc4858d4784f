"""A thin request path for plain chat completions: one POST on the SDK's own httpx pool.

AutoGen's OpenAI client calls `AsyncOpenAI.chat.completions.create(...)`. For a plain, non-streaming
request the SDK's generic machinery (option models copied twice per call, headers merged and
validated, the URL merged, the body walked against its TypedDicts) costs more CPU than the HTTP
exchange itself at high concurrency. `ThinOpenAI` stands in for the `AsyncOpenAI` inside one AutoGen
client and sends such a request directly, keeping what callers rely on from the SDK:

- the same body bytes (the SDK's own `openapi_dumps`), URL, headers (auth, user agent, platform,
  `x-stainless-*`) and timeout, through the same httpx client (so its response hooks still run);
- the same errors: a non-2xx answer raises `AsyncOpenAI._make_status_error_from_response` (the
  `openai.RateLimitError`/`InternalServerError`/... with the SDK's message and the response, so
  `Retry-After` is read as before), a timeout `APITimeoutError`, another transport failure
  `APIConnectionError`, an `OpenAIError` raised by a hook passes as it is;
- the same parsing: the SDK's own `_process_response` turns the answer into a `ChatCompletion`
  (usage, request id, a non-JSON body).

The exchange itself goes over aiohttp (agents/_aio.py: about 1.4 ms less CPU a call than httpx's pool at
64 in flight) where that cannot change what reaches the endpoint (our own checked httpx client, no proxy,
no mounted transport). The body is then parsed once: the chat-completion check of the client's response
hook (agents/_failure.py) runs on it here and hands its JSON to the SDK's own `_process_response_data`,
and the request id is kept as the SDK keeps it; an error answer becomes an `httpx2.Response` for the
SDK's `_make_status_error_from_response` as before.

Anything else (streaming, `extra_*` arguments, a body that is not plain JSON) goes to the SDK, as
does every other resource (`beta`, `models`, ...). `MUSTMAYBE_OPENAI_PATH=sdk` turns the thin path off;
`MUSTMAYBE_OPENAI_PATH=httpx` keeps it on httpx's pool.
The AutoGen method that calls it is pinned like a patch (`AUTOGEN_CREATE`): when autogen-ext changes
it, the thin path is left out and tests/backends/test_patches.py says so.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import os
from typing import Any, cast

import httpx2
import openai
import pydantic
from openai import NOT_GIVEN
from openai._base_client import get_platform
from openai._compat import model_copy
from openai._httpx2 import is_legacy_httpx_async_client, normalize_httpx2_timeout, normalize_legacy_httpx_timeout
from openai._models import FinalRequestOptions, add_request_id, construct_type
from openai._utils import asyncify, is_given
from openai._utils._json import openapi_dumps
from openai.types.chat import ChatCompletion

from ._failure import NotACompletionError, check_completion_response, read_completion
from ._patches import is_plain_json

# "sdk": every call through the SDK's own request path; "httpx": the thin path, on httpx's pool only.
PATH_ENV = "MUSTMAYBE_OPENAI_PATH"

# autogen-ext's BaseOpenAIChatCompletionClient.create, which calls `self._client.chat.completions.create`
# with messages, stream=False, tools and the create args: the only call this path serves.
AUTOGEN_CREATE = ("autogen-ext", "0.7.5", "50798b94911ed41f26fc7a22f477ced162cda1618832be887acc9dd8d57ccfec")
# The SDK request path this one mirrors (its error mapping above all): AsyncAPIClient.request.
SDK_REQUEST = ("openai", "3.57.0", "52506e6c8ba17cff86e6dd5076e9c599c131a4f05d3ee60890b33c43277274e4")
_SDK_ONLY = frozenset({"extra_headers", "extra_query", "extra_body"})


def thin_path_wanted() -> bool:
    return os.environ.get(PATH_ENV, "thin").strip().lower() != "sdk"


def _aio_poster(sdk: openai.AsyncOpenAI, url: str) -> Any:
    """The aiohttp exchange for this client (agents/_aio.py), or None where httpx's must stay."""
    if os.environ.get(PATH_ENV, "thin").strip().lower() == "httpx":
        return None
    try:
        from ._aio import AioPoster, aio_problem
    except ImportError:  # aiohttp missing: httpx's pool serves
        return None
    if aio_problem(sdk._client, [check_completion_response]) is not None:
        return None
    return AioPoster(url, sdk._client)


def thin_path_problem() -> str | None:
    """Why the thin path does not fit the installed autogen-ext (None: it fits)."""
    from autogen_ext.models.openai._openai_client import BaseOpenAIChatCompletionClient
    from openai._base_client import AsyncAPIClient

    for (dist, version, digest), fn in ((AUTOGEN_CREATE, BaseOpenAIChatCompletionClient.create),
                                        (SDK_REQUEST, AsyncAPIClient.request)):
        installed = importlib.metadata.version(dist)
        if installed != version:
            return f"{dist} is {installed}, the thin path was written for {version}"
        found = hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()
        if found != digest:
            return f"{fn.__qualname__} changed (source sha256 {found[:12]}, expected {digest[:12]})"
    return None


class _ThinCompletions:
    def __init__(self, sdk: openai.AsyncOpenAI) -> None:
        self._sdk = sdk
        self._url = str(sdk._prepare_url("/chat/completions"))
        self._options = FinalRequestOptions.construct(method="post", url="/chat/completions")  # type: ignore[call-arg]
        self._headers: dict[str, httpx2.Headers] = {}  # by the call's timeout (it sets x-stainless-read-timeout)
        self._aio = _aio_poster(sdk, self._url)

    async def _ready_headers(self, timeout: Any) -> httpx2.Headers:
        key = repr(timeout)
        if key in self._headers:
            return self._headers[key]
        sdk = self._sdk
        if sdk._platform is None:  # as the SDK does on its first request: may block, so off the loop
            sdk._platform = await asyncify(get_platform)()
        options = model_copy(self._options)
        options.headers = {}
        options.timeout = timeout
        self._headers[key] = sdk._build_headers(options, retries_taken=0)
        return self._headers[key]

    async def create(self, **kwargs: Any) -> Any:
        if kwargs.get("stream") or _SDK_ONLY.intersection(kwargs):
            return await self._sdk.chat.completions.create(**kwargs)
        # AutoGen passes the client's `timeout` with every call (it is one of its create arguments): a per-call
        # timeout, read as the SDK reads one (given: it; not given: the client's), never part of the body.
        body = {k: v for k, v in kwargs.items() if is_given(v) and k != "timeout"}
        if not is_plain_json(body):
            return await self._sdk.chat.completions.create(**kwargs)
        sdk = self._sdk
        given = kwargs.get("timeout", NOT_GIVEN)
        headers = await self._ready_headers(given)
        timeout = sdk.timeout if not is_given(given) else given
        timeout = (normalize_legacy_httpx_timeout(timeout) if is_legacy_httpx_async_client(sdk._client)
                   else normalize_httpx2_timeout(timeout))
        content = openapi_dumps(body)
        if self._aio is not None:
            return await self._via_aio(headers, content, timeout)
        request = sdk._client.build_request("POST", self._url, headers=headers, content=content, timeout=timeout)
        try:
            response = await sdk._client.send(request)
        except httpx2.TimeoutException as err:
            raise openai.APITimeoutError(request=request) from err
        except openai.OpenAIError:
            raise  # a response hook's own error (agents/_failure.py), as the SDK passes it on
        except Exception as err:
            raise openai.APIConnectionError(request=request) from err
        if not response.is_success:
            await response.aread()
            raise sdk._make_status_error_from_response(response) from None
        return await sdk._process_response(cast_to=ChatCompletion, options=self._options, response=response,
                                           stream=False, stream_cls=None, retries_taken=0)

    async def _via_aio(self, headers: httpx2.Headers, content: bytes, timeout: Any) -> ChatCompletion:
        """The same exchange over aiohttp, read as the httpx path above reads it (hook included)."""
        import aiohttp

        sdk = self._sdk
        try:
            answer = await self._aio.post(headers, content, timeout)
        except TimeoutError as err:  # aiohttp's connect and read timeouts are TimeoutErrors
            raise openai.APITimeoutError(request=self._request(headers, content)) from err
        except (aiohttp.ClientError, OSError) as err:
            raise openai.APIConnectionError(request=self._request(headers, content)) from err
        if not 200 <= answer.status < 300:
            response = httpx2.Response(answer.status, headers=answer.raw_headers, content=answer.body,
                                       request=self._request(headers, content))
            raise sdk._make_status_error_from_response(response) from None
        parsed, problem = read_completion(answer.headers.get("content-type", ""), answer.body)
        if problem is not None:
            raise NotACompletionError(problem)  # what check_completion_response raises on httpx's path
        if sdk._strict_response_validation:
            response = httpx2.Response(answer.status, headers=answer.raw_headers, content=answer.body,
                                       request=self._request(headers, content))
            completion: ChatCompletion = sdk._process_response_data(data=parsed, cast_to=ChatCompletion,
                                                                    response=response)
        else:
            completion = completion_of(parsed)
        add_request_id(completion, answer.headers.get("x-request-id"))  # as APIResponse.parse does
        return completion

    def _request(self, headers: httpx2.Headers, content: bytes) -> httpx2.Request:
        return httpx2.Request("POST", self._url, headers=headers, content=content)


def completion_of(data: Any) -> ChatCompletion:
    """The `ChatCompletion` the SDK's `construct_type` builds from `data`, a tenth of its CPU.

    A body that is a valid chat completion validates (strict: no coercion) to an equal model; anything
    else (a missing field, a finish reason the types do not list, a number sent as a string) is built
    by the SDK's own `construct_type`, which keeps whatever it was sent.
    """
    try:
        return ChatCompletion.model_validate(data, strict=True)
    except pydantic.ValidationError:
        return cast(ChatCompletion, construct_type(type_=ChatCompletion, value=data))


class _ThinChat:
    def __init__(self, sdk: openai.AsyncOpenAI) -> None:
        self.completions = _ThinCompletions(sdk)


class ThinOpenAI:
    """An `AsyncOpenAI` whose `chat.completions.create` takes the thin path; everything else is the SDK's."""

    def __init__(self, sdk: openai.AsyncOpenAI) -> None:
        self._sdk = sdk
        self.chat = _ThinChat(sdk)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sdk, name)


def install_thin_path(client: Any) -> bool:
    """Give AutoGen's OpenAI client `client` the thin path (if wanted and it fits); True if it did."""
    if not thin_path_wanted() or thin_path_problem() is not None:
        return False
    sdk = client._client
    if not isinstance(sdk, openai.AsyncOpenAI) or isinstance(sdk, openai.AsyncAzureOpenAI):
        return False
    client._client = ThinOpenAI(sdk)
    return True
