"""Rewrite the lines of a labeled set's JSON-lines file in place (shared by the relabeling scripts)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def rewrite_lines(path: Path, fix: Callable[[dict[str, Any], int], bool], *, write: bool) -> int:
    """Call `fix(line object, line number)` on every labeled line; a line it changed (it returns True) is written
    back re-serialized, every other line byte for byte. Returns how many lines it changed; nothing is written
    unless `write`."""
    out, changed = [], 0
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip():
            obj = json.loads(raw)
            if fix(obj, n):
                changed += 1
                raw = json.dumps(obj, ensure_ascii=False)
        out.append(raw)
    if write:
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return changed
