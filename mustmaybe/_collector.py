"""The cyclic garbage collector during a sweep's start-up: paused, then handed to the episodes frozen.

Importing AutoGen, the openai SDK, pydantic and our packages and planning the sweep allocates ~150,000
objects that live as long as the process (modules, classes, functions, validators, the plan). With
the collector on, the allocations trigger ~290 collections on the way, two of them over the whole heap:
~0.2 s of CPU in a sweep's ~1.8 s start-up (scripts/peer_episodes.py, measured with `gc.callbacks`),
and none of it finds garbage worth the walk. `startup_paused()` runs that part with the collector off;
the sweep's lean runtime (`sweep/_execution.py: lean_runtime`) freezes the heap it built and then calls
`resume()`, so the episodes run with the collector on and the start-up's objects out of its passes.
A start-up that ends before the episodes (a dry run, an error) gets the collector back at the end of
the block, unfrozen, as it was.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_PAUSED: list[bool] = []  # one entry while a start-up pause holds the collector off


@contextlib.contextmanager
def startup_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off, unless `resume()` turns it back on first.

    Nothing changes when the collector is already off (the caller's choice is kept) or a pause is
    already open (the outer one owns it).
    """
    if _PAUSED or not gc.isenabled():
        yield
        return
    gc.disable()
    _PAUSED.append(True)
    try:
        yield
    finally:
        resume()


def resume() -> None:
    """End the start-up pause now, if one is open: the collector is on again (a no-op otherwise)."""
    if _PAUSED:
        _PAUSED.clear()
        gc.enable()
