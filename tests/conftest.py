"""Shared test fixtures: paths to the real evaluation data kept beside the project, and the
command line run in-process (``run_cli``) or through the installed entry point (``EVALGAP``)."""

from __future__ import annotations

import os

# One BLAS thread per test process: pytest-xdist runs a worker per core, and OpenBLAS's own
# threads (one per core each) then spin against one another, making a 0.5 s statsmodels
# oracle take 30 s. Set before NumPy loads (the workers inherit it); a user's setting stands.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import NamedTuple  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The installed console script, beside this interpreter (tests/cli/test_entry_points.py runs it).
EVALGAP = Path(sys.executable).parent / "evalgap"


def shared_file(*parts: str) -> Path:
    """Return a file under ../shared/data, or skip the test saying what is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"real-data file {path} is not present (it lives beside the project, not in it)"
        )
    return path


class CliRun(NamedTuple):
    """What one command run gave: its exit code and what it printed (as ``subprocess.run``)."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(capsys):
    """Run ``evalgap ARGS...`` in-process through ``evalgap.cli.main``; return a ``CliRun``.

    The same code path as the entry point (``main`` catches every error, prints
    ``evalgap: error: ...`` and returns the exit code), without the interpreter start and
    imports a subprocess pays on every call.
    """
    from evalgap.cli import main

    def run(*args) -> CliRun:
        capsys.readouterr()  # what the test printed before is not this command's output
        code = main([str(a) for a in args])
        out = capsys.readouterr()
        return CliRun(code, out.out, out.err)

    return run


def run_entry_point(*args, **kwargs) -> subprocess.CompletedProcess:
    """Run the installed ``evalgap`` executable (a real process, a real pipe)."""
    if not EVALGAP.exists():
        pytest.skip(f"the evalgap entry point is not installed next to {sys.executable}")
    return subprocess.run(
        [str(EVALGAP), *map(str, args)], capture_output=True, text=True, timeout=120, **kwargs
    )
