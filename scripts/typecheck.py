"""Run mypy over the installed layout.

The root folders agents/ teams/ scenarios/ checker/ install as mustmaybe.agents etc. through
setuptools' package-dir mapping, which mypy cannot follow; a tree of symlinks under build/
gives mypy the same module names the interpreter sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"agents": "agents", "teams": "teams", "scenarios": "scenarios", "checker": "checker"}


def build_tree() -> Path:
    tree = ROOT / "build" / "typecheck"
    pkg = tree / "mustmaybe"
    pkg.mkdir(parents=True, exist_ok=True)
    for entry in pkg.iterdir():
        if entry.is_symlink():
            entry.unlink()
    for entry in (ROOT / "mustmaybe").iterdir():
        if entry.name in MAPPED or entry.name == "__pycache__":
            continue
        os.symlink(entry, pkg / entry.name)
    for name, folder in MAPPED.items():
        os.symlink(ROOT / folder, pkg / name)
    return tree


def main() -> int:
    tree = build_tree()
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "mustmaybe"]
    return subprocess.call(cmd, cwd=tree)


if __name__ == "__main__":
    raise SystemExit(main())
