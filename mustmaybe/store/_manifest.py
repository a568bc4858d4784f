"""A run folder's `manifest.json`: the resolved sweep, versions, git commit, checker version, task
hashes and times. Never a secret: endpoints appear with the NAME of their key variable only. Its shape,
one for runs and sweeps, is `mustmaybe.records.RunManifest` (schema `mustmaybe/run@1`).

Written atomically (temporary file + rename), so a reader never sees half a manifest.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
_PACKAGES = ("mustmaybe", "autogen-agentchat", "autogen-core", "autogen-ext", "openai", "pydantic", "polars",
             "rich", "tenacity")


def is_run_folder(path: str | Path) -> bool:
    p = Path(path)
    return (p / MANIFEST).is_file() and (p / "store.sqlite").is_file()


def read_manifest(run_dir: str | Path) -> dict[str, Any]:
    """The manifest of a run folder.

    Raises:
        FileNotFoundError: no manifest.json there.
    """
    p = Path(run_dir) / MANIFEST
    try:
        data: dict[str, Any] = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{run_dir}: not a run folder (no {MANIFEST})") from None
    return data


def write_manifest(run_dir: str | Path, data: dict[str, Any]) -> None:
    d = Path(run_dir)
    d.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".json", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=False)
            f.write("\n")
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a manifest is as readable as the store
        os.replace(tmp, d / MANIFEST)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_manifest(run_dir: str | Path, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Read, change in place and write back the manifest."""
    data = read_manifest(run_dir)
    change(data)
    write_manifest(run_dir, data)
    return data


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_state() -> dict[str, Any]:
    """The commit of the mustmaybe source tree (read-only git commands) and whether it has changes."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip() != ""
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit or None, "dirty": dirty}


def host_info() -> dict[str, Any]:
    return {"hostname": socket.gethostname(), "platform": platform.platform(), "cpus": os.cpu_count()}
