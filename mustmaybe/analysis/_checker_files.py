"""The checker's folder and version as the report states them, read without importing the checker.

Importing `mustmaybe.checker` compiles every rule's patterns (about a second of CPU), and a report needs only
two facts about it: where its measured-error file lies and its version string. `_version.py` is stdlib-only
and computes the version from the rule sources' bytes, so it is run on its own; if it ever cannot be (it
gained a relative import, the package is laid out otherwise), the checker is imported as before.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PACKAGE = "mustmaybe.checker"


def checker_dir() -> Path:
    """The installed checker package's folder (checker/ in a checkout), found without running its __init__."""
    loaded = sys.modules.get(_PACKAGE)
    if loaded is not None and loaded.__file__:
        return Path(loaded.__file__).resolve().parent
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    import mustmaybe.checker

    return Path(str(mustmaybe.checker.__file__)).resolve().parent


def checker_version() -> str:
    """`mustmaybe.checker.CHECKER_VERSION`, the same string, from checker/_version.py alone."""
    loaded = sys.modules.get(_PACKAGE)
    if loaded is None:
        try:
            spec = importlib.util.spec_from_file_location(f"{_PACKAGE}._version_alone", checker_dir() / "_version.py")
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return str(module.CHECKER_VERSION)
        except Exception:  # any failure: the checker's own import below gives the version
            pass
    from mustmaybe.checker import CHECKER_VERSION

    return CHECKER_VERSION
