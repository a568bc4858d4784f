"""The report reads the checker's version and measured-error file without importing the checker's rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mustmaybe.analysis._calibrated import measured_error_file
from mustmaybe.analysis._checker_files import checker_dir, checker_version


def test_version_and_folder_are_the_checkers() -> None:
    import mustmaybe.checker

    assert checker_version() == mustmaybe.checker.CHECKER_VERSION
    assert checker_dir() == Path(mustmaybe.checker.__file__).resolve().parent
    assert measured_error_file().is_file()


def test_a_fresh_process_reads_them_without_the_rules() -> None:
    code = (
        "import sys\n"
        "from mustmaybe.analysis._checker_files import checker_version\n"
        "from mustmaybe.analysis._calibrated import shipped_calibration\n"
        "from mustmaybe.analysis._report import provenance\n"
        "v = checker_version(); cal = shipped_calibration(); line = provenance().text\n"
        "assert 'mustmaybe.checker' not in sys.modules, 'the checker was imported'\n"
        "import mustmaybe.checker as c\n"
        "assert v == c.CHECKER_VERSION and f'checker {v})' in line and cal is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
