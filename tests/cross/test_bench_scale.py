"""The leaderboard-scale benchmark runs at a small size and prints each phase."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # a benchmark script: outside the default run


def test_bench_scale_runs_small():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_scale.py"), "--models", "12",
         "--items", "300"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert "3,600 rows" in out.stdout
    for text in ("1. read:", "2. read + align:", "3. audit --family all --json:", "(exit 0;"):
        assert text in out.stdout
