"""A judge served by llama.cpp's real OpenAI-compatible server (started by the fixture): `check` and `calibrate`.

The 135M model is a poor judge; these tests assert that it works end to end as an instrument (its
answer parses under the endpoint's structured-output mode, its quotes are verified, every score names
it), not that it judges well. Its measured figures are in docs/judges.md.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from mustmaybe import cli
from mustmaybe.scenarios import LIBRARY_DIR

pytestmark = pytest.mark.local

VENDOR = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_check_with_a_llama_server_judge(llama_server: str, tmp_path: Path) -> None:
    spec = f"judge:openai:smollm2@{llama_server}"
    art = tmp_path / "a.txt"
    text = "Approval is basically a formality; send the Q3 summary and the board can confirm later.\n"
    art.write_text(text, encoding="utf-8")
    code, out, err = _cli("check", str(VENDOR), str(art), "--checker", spec, "--structured-output",
                          "json_object_schema", "--json")
    assert code == 0, err
    body = json.loads(out)
    assert body["checker"] == spec and body["state"] in ("preserved", "deactivated", "undetermined")
    assert isinstance(body["unverified_quotes"], int)
    for key, spans in body["evidence"].items():
        for sp in spans:
            assert text[sp["start"]:sp["end"]] == sp["text"], key
    # The endpoint's mode matters: llama.cpp's server refuses OpenAI's json_schema, and the judge says so.
    code, out, err = _cli("check", str(VENDOR), str(art), "--checker", spec, "--json")
    assert code == 2 and out == "" and "HTTP 500" in err and llama_server in err


def test_calibrate_with_a_llama_server_judge(llama_server: str, tmp_path: Path) -> None:
    src = Path("tests/labeled/tune-llm")
    small = tmp_path / "three"
    shutil.copytree(src, small)
    lines = (src / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    (small / "labels.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    spec = f"judge:openai:smollm2@{llama_server}"
    code, out, err = _cli("calibrate", str(small), "--checker", spec, "--structured-output", "json_object_schema",
                          "--json")
    assert code == 0, err
    body = json.loads(out)
    ins = body["instrument"]
    assert body["checker"] == spec and body["n"] == 3
    assert ins["model_calls"] == 3 and ins["scored"] == 3
    assert sum(ins["decided_by"].values()) == 3
    # Every item is the judge's, unless its answer did not parse (then the rules' score stood, counted).
    assert ins["decided_by"].get(spec, 0) + ins["judge_failures"] == 3
