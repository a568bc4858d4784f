"""Run mypy over the installed layout.

The root folders agents/ sim/ teams/ scenarios/ checker/ install as mustmaybe.agents etc. through
setuptools' package-dir mapping, which mypy cannot follow; a tree of symlinks under build/
gives mypy the same module names the interpreter sees. The mapping is read from pyproject.toml,
so a package added there is type-checked without an edit here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PACKAGE_DIR = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
# mustmaybe.<name> -> its root folder, for every package installed from outside mustmaybe/.
MAPPED = {name.split(".", 1)[1]: folder for name, folder in _PACKAGE_DIR.items() if name.startswith("mustmaybe.")}


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
