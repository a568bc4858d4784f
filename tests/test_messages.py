"""Messages a user can act on: range errors name the flag in one line, task files speak YAML, and a
malformed labeled set lists every problem at once."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from mustmaybe import cli
from mustmaybe.scenarios import LIBRARY_DIR

TASK = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--temperature", "5", "--temperature 5: must be at most 2"),
    ("--max-tokens", "0", "--max-tokens 0: must be at least 1"),
    ("--timeout", "-3", "--timeout -3: must be greater than 0"),
    ("--temperature", "executor=3", "--temperature 3: must be at most 2 (role executor)"),
])
def test_a_flag_out_of_range_is_one_line_naming_the_flag(flag: str, value: str, words: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "vendor-summary-q3", "--model", "sim", flag, value, "--runs-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], err
    assert "pydantic" not in err and "validation error" not in err


def test_a_task_file_says_a_list_is_expected_in_yaml_words(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "t.yaml"
    text = TASK.read_text(encoding="utf-8")
    bad.write_text(re.sub(r"prerequisite_terms: \[.*?\]", 'prerequisite_terms: "VR approval"', text, count=1),
                   encoding="utf-8")
    assert cli.main(["validate", str(bad)]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert "blocker.prerequisite_terms: expected a YAML list" in out and "valid tuple" not in out, out


def test_calibrate_on_a_malformed_set_lists_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(__file__).parent / "labeled" / "test-j-mixed"
    bad = tmp_path / "test-bad"
    shutil.copytree(src, bad)
    lines = (bad / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    first, second, third = (json.loads(x) for x in lines[:3])
    first["state"] = "lost"
    del second["fields"]
    third["artifact"] = "no-such-file.txt"
    third["task"] = "no-such-task"
    lines[:3] = [json.dumps(first), json.dumps(second), json.dumps(third)]
    lines.append("{not json")
    (bad / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli.main(["calibrate", str(bad)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    n = len(lines)
    for where, what in ((1, "key 'state'"), (2, "missing key 'fields'"), (3, "key 'task': no task 'no-such-task'"),
                        (3, "key 'artifact': no file"), (n, "not JSON")):
        assert f"labels.jsonl:{where}: {what}" in err, (where, what, err)
    assert "5 problems" in err
