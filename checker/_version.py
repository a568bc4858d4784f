"""The checker's version: bump CHECKER_RULES whenever a cue list, a decision rule or the combiner's design changes.

The version also carries a digest of the rule sources, so an edit that forgets the bump still
changes it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

CHECKER_RULES = "14"


def _digest() -> str:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    # The combiner's weights are part of the rules: retraining them changes the version too.
    for f in sorted([*here.glob("_*.py"), *here.glob("_*/*.py"), here / "combiner.json"]):
        if f.name != "_version.py":
            h.update(f.relative_to(here).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:10]


CHECKER_VERSION = f"{CHECKER_RULES}+{_digest()}"
# The instrument's name in every score and report (contracts: `rules@…`, `judge:<spec>`, `panel:<specs>`).
CHECKER_NAME = f"rules@{CHECKER_VERSION}"
