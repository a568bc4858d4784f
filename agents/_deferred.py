"""Modules that AutoGen imports at start-up for features a sweep never uses, loaded on first use instead.

`autogen_core.tools._base` imports `jsonref` for one call (`jsonref.replace_refs` in a tool's schema),
and jsonref imports `requests` (with urllib3, charset_normalizer, idna, http.cookiejar) and
`urllib.request` to fetch remote references: ~50-80 ms of every sweep's start-up, for tools no
mustmaybe agent has. `defer_imports()` puts the module, made from its spec but not yet run, into
`sys.modules` before AutoGen is imported: `import jsonref` then binds it, and its body runs, unchanged
and into that same module object, the first time anything reads an attribute it does not have yet.
(The standard library's `importlib.util.LazyLoader` cannot do this on Python 3.11: an `import`
statement that finds the module already in `sys.modules` reads its `__spec__`, which loads it.)

It is left alone when the module is already imported (it is then loaded already) and when
`MUSTMAYBE_DEPENDENCY_PATCHES=off` (agents/_patches.py) runs without the dependency speed-ups.
tests/backends/test_patches.py checks that a sweep's interpreter loads no `requests` and that a tool's
schema still resolves its references.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

DEFERRED = ("jsonref",)


class _RunsOnFirstUse(types.ModuleType):
    """A module whose body has not run yet: the first attribute it lacks runs it (once), then reads it."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__spec__
        assert spec is not None and spec.loader is not None  # defer_imports() made it from a spec with a loader
        self.__class__ = types.ModuleType  # type: ignore[assignment]  # a plain module before its body runs
        try:
            spec.loader.exec_module(self)
        except BaseException:
            sys.modules.pop(spec.name, None)  # as a failed import leaves it: the next import tries again
            raise
        return getattr(self, name)


def defer_imports() -> list[str]:
    """Register each module of `DEFERRED` that nobody imported yet to run on first use; the names deferred."""
    from ._patches import patches_wanted

    if not patches_wanted():
        return []
    done: list[str] = []
    for name in DEFERRED:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue  # not installed (AutoGen's own import says so, as it would have) or an unusual loader
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _RunsOnFirstUse
        sys.modules[name] = module
        done.append(name)
    return done


defer_imports()  # on import of mustmaybe.agents, before its modules import AutoGen
