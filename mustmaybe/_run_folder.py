"""Write the run folder of a `mustmaybe run` (one or a few episodes)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import __version__


def write_single_run(run_dir: Path, records: list[Any], command: list[str]) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / "episodes.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r.to_json_dict()) + "\n")
    manifest = {
        "kind": "run",
        "command": command,
        "mustmaybe": __version__,
        "checker_version": records[0].checker_version if records else None,
        "simulated": any(r.simulated for r in records),
        "episodes": [r.key for r in records],
        "written_at": datetime.now(UTC).isoformat(),
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return run_dir
