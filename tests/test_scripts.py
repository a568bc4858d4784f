"""The peer-benchmark scripts say what they need when it is missing, and create nothing on the way."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _closed_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there afterwards
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bench_peer_names_the_missing_harness(tmp_path: Path) -> None:
    peer = tmp_path / "peer"
    env = {**os.environ, "BENCH": str(tmp_path / "no-bench"), "PEER": str(peer)}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "bench_peer.sh")], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 2
    assert "peer benchmark harness" in done.stderr and f"BENCH={tmp_path / 'no-bench'}" in done.stderr
    assert "peer_bench.py" in done.stderr and "requirements.txt" in done.stderr
    assert not peer.exists()  # no venv was built for a harness that is not there


def test_peer_episodes_names_the_missing_endpoint(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "peer_episodes.py"), "--base-url", url, "-n", "2",
                           "-c", "1", "--out-dir", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert f"nothing answers at {url}" in done.stderr and "OpenAI-compatible endpoint" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_bench_request_path_says_why_without_a_traceback() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_request_path.py"), "--base-url", url,
                           "-n", "1", "-c", "1", "--rounds", "1"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 1
    assert "APIConnectionError" in done.stderr and "Traceback" not in done.stderr
