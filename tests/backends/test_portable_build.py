"""The installed llama.cpp is the portable x86-64 build: no AMX tile instructions, no AVX-512.

A llama.cpp built with its native-CPU default on a machine that advertises AMX emits tile
instructions (ldtilecfg, tileloadd, tdpb*, tilerelease) that fault on a CPU or VM that does not
allow them: `make demo` then dies with SIGSEGV. The Makefile builds with GGML_NATIVE=OFF and an
AVX2/FMA/F16C/BMI2 baseline instead. These tests read the built libraries inside the installed
llama_cpp package with objdump, so they show it on any machine, AMX or not.

`make ... LLAMA_NATIVE=1` opts in to a native build; the baseline tests skip under it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

OBJDUMP = shutil.which("objdump")
CC = shutil.which("cc") or shutil.which("gcc")
# The AMX instruction set (AMX-TILE, AMX-INT8, AMX-BF16, AMX-FP16, AMX-COMPLEX) by mnemonic.
AMX_MNEMONIC = re.compile(r"^(ldtilecfg|sttilecfg|tileloadd|tileloaddt1|tilestored|tilezero|tilerelease|tdp\w+|"
                          r"tcmm\w+)$")

pytestmark = pytest.mark.skipif(OBJDUMP is None, reason="objdump is not installed (binutils); cannot read the library")


def llama_libraries() -> list[Path]:
    """The shared libraries inside the installed llama_cpp package (found without importing it)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llama-cpp-python is not installed (make install)")
    lib = Path(next(iter(spec.submodule_search_locations))) / "lib"
    return sorted(p for p in lib.glob("*.so") if p.is_file())


def mnemonics(path: Path) -> list[str]:
    """Every instruction mnemonic objdump disassembles from `path`, in order."""
    assert OBJDUMP is not None
    out = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True,
                         check=True).stdout
    found = []
    for line in out.splitlines():
        # "  1a2b3c:\tvfmadd231ps %ymm1,%ymm2,%ymm3": address, tab, mnemonic and operands
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip().endswith(":") and parts[1].strip():
            found.append(parts[1].split()[0])
    return found


def amx_instructions(path: Path) -> set[str]:
    return {m for m in mnemonics(path) if AMX_MNEMONIC.match(m)}


native = pytest.mark.skipif(os.environ.get("LLAMA_NATIVE") == "1",
                            reason="LLAMA_NATIVE=1: a native build for this CPU was asked for")


@native
def test_no_llama_cpp_library_carries_amx_tile_instructions() -> None:
    libs = llama_libraries()
    names = {p.name for p in libs}
    assert {"libggml-cpu.so", "libggml-base.so", "libllama.so"} <= names, names
    found = {p.name: amx_instructions(p) for p in libs}
    assert not any(found.values()), f"AMX tile instructions in the built llama.cpp: {found}"


@native
def test_the_cpu_library_is_the_avx2_fma_baseline_without_avx512() -> None:
    cpu = next(p for p in llama_libraries() if p.name == "libggml-cpu.so")
    ops = mnemonics(cpu)
    assert len(ops) > 10_000  # objdump really read the library
    # FMA and AVX2 kernels are there (the baseline flags reached the build) ...
    assert any(m.startswith("vfmadd") for m in ops)
    assert any(m in ("vpmaddubsw", "vpermq", "vpbroadcastd") for m in ops)
    # ... and no AVX-512 (a zmm register or an opmask) and no AMX.
    out = subprocess.run([OBJDUMP or "objdump", "-d", "--no-show-raw-insn", str(cpu)], capture_output=True,
                         text=True, check=True).stdout
    assert "%zmm" not in out and not re.search(r"\{%k[1-7]\}", out)


@pytest.mark.skipif(CC is None, reason="no C compiler to build an AMX sample")
def test_the_reader_finds_amx_instructions_where_there_are_some(tmp_path: Path) -> None:
    """The check above can fail: the same reader finds the tile instructions in a library that has them."""
    src = tmp_path / "amx.c"
    src.write_text(textwrap.dedent("""\
        #include <immintrin.h>
        void tiles(const void *cfg, const void *a, const void *b, void *c) {
            _tile_loadconfig(cfg);
            _tile_loadd(1, a, 64);
            _tile_loadd(2, b, 64);
            _tile_dpbssd(0, 1, 2);
            _tile_stored(0, c, 64);
            _tile_release();
        }
        """))
    lib = tmp_path / "libamx.so"
    done = subprocess.run([CC or "cc", "-O2", "-mamx-tile", "-mamx-int8", "-shared", "-fPIC", "-o", str(lib), str(src)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"the C compiler cannot emit AMX: {done.stderr.strip()[:200]}")
    assert {"ldtilecfg", "tileloadd", "tdpbssd", "tilestored", "tilerelease"} <= amx_instructions(lib)
