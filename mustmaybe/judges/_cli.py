"""What the commands share to use an instrument: resolve it with a clear error, run its async scoring."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.records import ArtifactScore, EndpointConfig, ModelSpec
    from mustmaybe.scenarios import Scenario

    from ._instrument import Instrument

T = TypeVar("T")

JUDGMENTS_FILE = "judgments.sqlite"


def judge_endpoints(specs: Sequence[ModelSpec], args: argparse.Namespace) -> dict[str, EndpointConfig]:
    """One endpoint configuration per judge base URL, from the flags `mustmaybe.cli` adds for a judge
    (`--structured-output`, `--api-key-env`)."""
    from mustmaybe.records import EndpointConfig

    out: dict[str, EndpointConfig] = {}
    for m in specs:
        if m.backend == "openai":
            out[m.endpoint] = EndpointConfig(base_url=m.endpoint, structured_output=args.structured_output,
                                             api_key_env=args.api_key_env)
    return out


def instrument_for(spec: str, *, judgments: Path | None = None, args: argparse.Namespace | None = None) -> Instrument:
    """The instrument `--checker SPEC` names, judgments kept in `judgments` (a sqlite file) if given.

    Raises:
        UserError: the spec names no usable instrument (the message says why).
    """
    from mustmaybe.checker import CheckerSpecError

    from ._instrument import resolve_instrument
    from ._spec import parse_instrument

    cache = None
    try:
        parsed = parse_instrument(spec)  # once: the flag's value is passed down parsed
        if judgments is not None and not parsed.is_rules:
            from mustmaybe.agents import ResponseCache

            cache = ResponseCache(judgments)
        endpoints = judge_endpoints(parsed.models, args) if args is not None else None
        return resolve_instrument(parsed, cache=cache, endpoints=endpoints)
    except CheckerSpecError as exc:
        raise UserError(str(exc)) from None


def run_scoring(coro: Coroutine[Any, Any, T], instrument: Instrument) -> T:
    """Run the instrument's scoring to the end in one event loop, closing its clients after."""

    async def main() -> T:
        try:
            return await coro
        finally:
            await instrument.close()

    return asyncio.run(main())


def score_all(instrument: Instrument, items: Sequence[tuple[Scenario, str]], concurrency: int = 8,
              ) -> list[ArtifactScore]:
    """Scores for many (task, text) pairs; a failed judge falls back to the rules, counted."""
    return run_scoring(instrument.score_many(items, concurrency), instrument)
