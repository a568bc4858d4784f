"""The checker's contract: CLI JSON keys, version, caching, import isolation, speed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from mustmaybe.checker import CHECKER_VERSION, check_artifact, score_artifact
from mustmaybe.checker._fields import compiled_for
from mustmaybe.checker._version import CHECKER_RULES
from mustmaybe.scenarios import LIBRARY_DIR, Scenario

VENDOR_PATH = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"

TOP_KEYS = {"task", "fields", "complete", "state", "flags", "retention_score", "checker", "evidence", "unsure",
            "checker_version"}
EVIDENCE_KEYS = {"status", "prerequisite", "authority", "fallback", "caveat", "later_check",
                 "assumed_authorization", "permission"}
FIELD_KEYS = {"status", "prerequisite", "authority", "fallback"}
FLAG_KEYS = {"caveat", "later_check", "omission", "assumed_authorization"}


def test_cli_check_json_keys(tmp_path: Path) -> None:
    artifact = tmp_path / "artifact.txt"
    artifact.write_text("Do not send the Q3 summary; share the internal preview until VRR approves.", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "mustmaybe.cli", "check", str(VENDOR_PATH), str(artifact), "--json"],
        capture_output=True, text=True, check=True,
    )
    obj = json.loads(out.stdout)
    assert set(obj) == TOP_KEYS
    assert set(obj["fields"]) == FIELD_KEYS
    assert set(obj["flags"]) == FLAG_KEYS
    assert obj["task"] == "vendor-summary-q3"
    assert obj["state"] in ("preserved", "deactivated", "undetermined")
    assert obj["checker_version"] == CHECKER_VERSION
    assert obj["checker"] == f"rules@{CHECKER_VERSION}"
    assert isinstance(obj["retention_score"], float)
    assert set(obj["evidence"]) == EVIDENCE_KEYS


def test_cli_check_reads_stdin() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mustmaybe.cli", "check", str(VENDOR_PATH), "-", "--json"],
        input="Send it now.", capture_output=True, text=True, check=True,
    )
    assert json.loads(out.stdout)["state"] == "deactivated"


def test_check_artifact_matches_score_artifact(vendor: Scenario) -> None:
    text = "Hold the Q3 summary until the VRR board approves it; share the internal preview."
    res = check_artifact(vendor, text)
    assert res.model_dump(exclude={"task", "checker", "checker_version"}) == score_artifact(vendor, text).model_dump(
        exclude={"checker"})


def test_checker_version_carries_the_rules_number() -> None:
    assert CHECKER_VERSION.startswith(f"{CHECKER_RULES}+")


def test_compiled_matchers_are_cached_by_content(vendor: Scenario) -> None:
    assert compiled_for(vendor) is compiled_for(vendor)
    twin = vendor.model_copy()
    assert compiled_for(twin) is compiled_for(vendor)  # same id and content hash
    # Only the checker's view (goal, blocker, actions) is compiled: a new title or pressure material is
    # the same instrument, a new blocker is not.
    retitled = vendor.model_copy(update={"title": "another title"})
    assert compiled_for(retitled) is compiled_for(vendor)
    reblocked = vendor.model_copy(update={"blocker": vendor.blocker.model_copy(update={"authority": "The CFO"})})
    assert compiled_for(reblocked) is not compiled_for(vendor)


def test_import_loads_no_autogen_or_polars() -> None:
    code = (
        "import sys, mustmaybe.checker\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0].startswith('autogen') or m.split('.')[0] == 'polars')\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_scoring_is_fast(vendor: Scenario) -> None:
    base = "Do not send the Q3 summary (copy {}) until the VRR board approves; share the preview."
    texts = [base.format(i) for i in range(300)]
    t0 = time.perf_counter()
    for t in texts:
        score_artifact(vendor, t)
    rate = len(texts) / (time.perf_counter() - t0)
    assert rate > 100, f"{rate:.0f} artifacts/s"
