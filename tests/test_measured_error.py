"""scripts/measured_error.py: the checker's measured error that the report states by default.

tests/labeled/ is not shipped, so the package carries the measurement as checker/measured_error.json;
it must be what the script measures now, on this checker version.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checker" / "measured_error.json"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("measured_error", ROOT / "scripts" / "measured_error.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_shipped_measurement_is_a_fresh_run_of_the_script_on_this_checker() -> None:
    from mustmaybe.checker import CHECKER_VERSION

    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert shipped["checker_version"] == CHECKER_VERSION, (
        f"checker/measured_error.json was measured for checker {shipped['checker_version']}, this is "
        f"{CHECKER_VERSION}: rerun python scripts/measured_error.py")
    fresh = _script().measure()
    assert fresh == shipped, "checker/measured_error.json is stale: rerun python scripts/measured_error.py"
    # What it holds: test (and other non-tuning) sets only, with the figures the report states.
    assert fresh["n"] >= 900 and all(s["split"] != "tuning" for s in fresh["sets"])
    assert sum(s["n"] for s in fresh["sets"]) == fresh["n"]
    st = fresh["state"]
    assert set(st["confusion"]) == {"preserved", "deactivated", "undetermined"}
    lo, hi = st["pd_macro_f1_ci"]
    assert lo <= st["pd_macro_f1"] <= hi
    lo, hi = st["preserved_called_deactivated_ci"]
    assert lo <= st["preserved_called_deactivated"] <= hi
    assert 0.0 <= st["deactivated_called_preserved"] <= 1.0
    assert set(fresh["fields"]) == {"status", "prerequisite", "authority", "fallback"}
    assert all(len(f["macro_f1_ci"]) == 2 for f in fresh["fields"].values())


def test_any_split_word_but_tuning_is_measurement_material(tmp_path: Path) -> None:
    """A set whose split is `open` (a word the loader may not know) is measured; tuning sets are not."""
    src = ROOT / "tests" / "labeled"
    for name, word in (("test-c-agents", None), ("tune-c-agents", None), ("extra-open", "open")):
        shutil.copytree(src / ("test-d-mixed" if name == "extra-open" else name), tmp_path / name)
        if word:
            (tmp_path / name / "split").write_text(word + "\n", encoding="utf-8")
    res = _script().measure(tmp_path)
    assert [(s["name"], s["split"]) for s in res["sets"]] == [("extra-open", "open"), ("test-c-agents", "test")]
    assert res["n"] == 120


def test_check_flag_says_stale(tmp_path: Path) -> None:
    stale = tmp_path / "m.json"
    stale.write_text("{}\n", encoding="utf-8")
    small = tmp_path / "sets"
    shutil.copytree(ROOT / "tests" / "labeled" / "test-c-agents", small / "test-c-agents")
    mod = _script()
    assert mod.main(["--labeled", str(small), "--out", str(stale), "--check"]) == 1
    assert mod.main(["--labeled", str(small), "--out", str(stale)]) == 0
    assert mod.main(["--labeled", str(small), "--out", str(stale), "--check"]) == 0
