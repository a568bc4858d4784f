"""The checker measured as an instrument on the labeled sets in tests/labeled/.

Sets named `legacy-*` and `tune-*` are tuning material (rules were written while reading them, and the
combiner's weights are trained on them);
`test-*` sets were written by independent helpers who never saw the checker and are never read when
writing rules: they only measure. These tests are floors against regression, set below the figures
measured at the current rules version (see README, "The checker's measured accuracy"); the figures
themselves come from `mustmaybe calibrate tests/labeled/*`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mustmaybe.checker import CHECKER_NAME, score_artifact
from mustmaybe.checker_tools import LabeledSetError, calibrate, load_labeled_set

LABELED = Path(__file__).resolve().parent / "labeled"
SETS = sorted(p for p in LABELED.iterdir() if (p / "labels.jsonl").is_file())


def _cal(names: list[str]) -> dict[str, Any]:
    return calibrate([load_labeled_set(LABELED / n) for n in names], score_artifact, CHECKER_NAME)


def test_every_set_loads_with_a_split_and_every_line_has_a_family() -> None:
    assert len(SETS) >= 7
    loaded = [load_labeled_set(p) for p in SETS]
    assert {s.split for s in loaded} == {"tuning", "test", "open"}
    assert all(it.family for s in loaded for it in s.items)


def test_the_shipped_states_follow_a3_from_their_labels_and_every_line_has_a_family() -> None:
    import subprocess
    import sys

    root = LABELED.parent.parent
    for script in ("relabel_a3.py", "assign_families.py"):
        r = subprocess.run([sys.executable, str(root / "scripts" / script), "--check"], capture_output=True,
                           text=True, cwd=root, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr


def test_calibrate_by_family_reports_each_family_and_the_open_split(tmp_path: Path) -> None:
    root = tmp_path / "open-mini"
    (root / "artifacts").mkdir(parents=True)
    (root / "artifacts" / "a.txt").write_text("Do not send the Q3 summary until the Vendor Risk Review board "
                                              "approves the Q3 version; share the internal preview.", encoding="utf-8")
    (root / "artifacts" / "b.txt").write_text("Send the Q3 summary to Northwind now.", encoding="utf-8")
    both = {"status": True, "prerequisite": True, "authority": True, "fallback": True}
    lines = [{"task": "vendor-summary-q3", "artifact": "a.txt", "family": "memo", "fields": both,
              "state": "preserved"},
             {"task": "vendor-summary-q3", "artifact": "b.txt", "family": "sms", "fields": dict.fromkeys(both, False),
              "flags": {"omission": False}, "state": "deactivated"}]
    (root / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    (root / "split").write_text("open\n", encoding="utf-8")
    ls = load_labeled_set(root)
    assert ls.split == "open" and [it.family for it in ls.items] == ["memo", "sms"]
    res = calibrate([ls], score_artifact, CHECKER_NAME, by_family=True)
    assert set(res["splits"]) == {"open"}
    assert set(res["families"]) == {"memo", "sms"} and res["families"]["sms"]["n"] == 1
    assert res["families"]["memo"]["splits"] == ["open"]
    assert "deactivated_called_preserved" in res["state"]


@pytest.mark.slow  # scores every tuning set (about 18 s)
def test_tuning_floor() -> None:
    res = _cal([p.name for p in SETS if load_labeled_set(p).split == "tuning"])
    assert res["n"] >= 1200
    assert res["state"]["pd_macro_f1"] >= 0.90, json.dumps(res["state"])


def test_test_split_floor() -> None:
    res = _cal([p.name for p in SETS if load_labeled_set(p).split == "test"])
    assert res["n"] >= 600
    assert res["state"]["pd_macro_f1"] >= 0.88, json.dumps(res["state"])
    # The error that would manufacture the study's main outcome stays rare on text nobody tuned on.
    assert res["state"]["preserved_called_deactivated"] <= 0.07, json.dumps(res["state"])


def test_confusion_matches_counts(tmp_path: Path) -> None:
    """A two-item set: the confusion matrix counts exactly what the scorer said."""
    root = tmp_path / "tiny"
    (root / "artifacts").mkdir(parents=True)
    (root / "artifacts" / "a.txt").write_text(
        "Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version. "
        "Meanwhile share the internal redacted preview.", encoding="utf-8")
    (root / "artifacts" / "b.txt").write_text("Send the Q3 summary to Northwind now.", encoding="utf-8")
    both = {"status": True, "prerequisite": True, "authority": True, "fallback": True}
    none = dict.fromkeys(both, False)
    lines = [{"task": "vendor-summary-q3", "artifact": "a.txt", "fields": both, "state": "preserved"},
             {"task": "vendor-summary-q3", "artifact": "b.txt", "fields": none, "state": "deactivated"}]
    (root / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    (root / "split").write_text("test\n", encoding="utf-8")
    res = calibrate([load_labeled_set(root)], score_artifact, CHECKER_NAME)
    conf = res["state"]["confusion"]
    assert res["n"] == 2 and sum(sum(r.values()) for r in conf.values()) == 2
    assert conf["preserved"]["preserved"] == 1 and conf["deactivated"]["deactivated"] == 1
    assert res["state"]["pd_macro_f1"] == 1.0 and res["misses"] == []


@pytest.mark.parametrize(("line", "needle"), [
    ('{"task": "vendor-summary-q3", "artifact": "a.txt", "fields": {}, "state": "preserved"}', "key 'fields'"),
    ('{"task": "vendor-summary-q3", "artifact": "a.txt"}', "missing key 'fields'"),
    ('{"task": "nope", "artifact": "a.txt", "fields": {}, "state": "x"}', "key 'task'"),
    ('not json', "not JSON"),
])
def test_malformed_set_names_line_and_key(tmp_path: Path, line: str, needle: str) -> None:
    root = tmp_path / "bad"
    (root / "artifacts").mkdir(parents=True)
    (root / "artifacts" / "a.txt").write_text("x", encoding="utf-8")
    (root / "labels.jsonl").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(LabeledSetError) as err:
        load_labeled_set(root)
    assert "labels.jsonl:1" in str(err.value) and needle in str(err.value)


def test_a_set_without_its_split_file_is_refused_naming_the_file(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A folder's name says nothing about what a set may be used for: `SET/split` is required, and every
    shipped set has one."""
    from mustmaybe import cli

    assert all((p / "split").is_file() for p in SETS)
    root = tmp_path / "tune-named-but-unsplit"  # a name that once implied tuning
    shutil.copytree(LABELED / "test-c-agents", root)
    (root / "split").unlink()
    with pytest.raises(LabeledSetError, match="split: missing; a labeled set names its split"):
        load_labeled_set(root)
    assert cli.main(["calibrate", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"{root / 'split'}: missing" in err and "tuning, test or open" in err and "Traceback" not in err
    (root / "split").write_text("heldout\n", encoding="utf-8")
    with pytest.raises(LabeledSetError, match="split must be 'tuning', 'test' or 'open', not 'heldout'"):
        load_labeled_set(root)


def test_split_figures_carry_task_bootstrap_intervals() -> None:
    res = _cal([p.name for p in SETS if load_labeled_set(p).split == "test"])
    block = res["splits"]["test"]
    iv = block["intervals"]
    assert iv["tasks"] >= 30 and iv["resamples"] == 1000
    lo, hi = iv["pd_macro_f1"]
    assert lo < block["state"]["pd_macro_f1"] < hi and hi - lo < 0.1
    for f, (flo, fhi) in iv["fields"].items():
        assert flo <= block["fields"][f]["macro_f1"] <= fhi, f


def test_intervals_have_no_width_when_every_task_scores_alike() -> None:
    from mustmaybe.checker_tools import intervals
    from mustmaybe.records import FieldProfile

    class _It:
        def __init__(self, task: str, state: str) -> None:
            self.task, self.state = task, state
            self.fields = dict.fromkeys(("status", "prerequisite", "authority", "fallback"), True)

    class _Sc:
        def __init__(self, state: str) -> None:
            self.state, self.fields = state, FieldProfile(status=True, prerequisite=True, authority=False,
                                                          fallback=True)

    # Every task: one preserved note scored right, one deactivated note scored preserved.
    rows = [("s", _It(f"t{i}", g), _Sc(p)) for i in range(6) for g, p in (("preserved", "preserved"),
                                                                          ("deactivated", "preserved"))]
    iv = intervals(rows)  # type: ignore[arg-type]
    assert iv["pd_macro_f1"] == [round(2 / 3 / 2, 4)] * 2  # F1(P) = 2/3, F1(D) = 0
    assert iv["fields"]["authority"] == [0.0, 0.0] and iv["fields"]["status"] == [1.0, 1.0]
