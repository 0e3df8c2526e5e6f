"""The benchmark scripts run (at their smallest sizes) and print their comparisons."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

# Each script is a process timing real work: minutes in all, so outside the default run.
pytestmark = pytest.mark.slow

RUNS = [
    (["bench_core.py", "--quick"], ["speed-up", "pairs of counts", "graded bootstrap"]),
    (["bench_loaders.py", "--size-mb", "8"], ["throughput", "peak memory"]),
    (
        ["bench_audit.py", "--models", "40", "--items", "1000", "--naive-pairs", "50",
         "--rounds", "1"],
        ["small board", "vectorized audit", "naive loop", "speed-up"],
    ),
    (["bench_degrade.py", "--quick"], ["Monte Carlo", "permutation pooled test"]),
    (
        ["bench_phases.py", "--models", "30", "--items", "1000", "--formats", "wide"],
        ["math/matmul", "boundary/math"],
    ),
    (["bench_block.py", "--items", "1000", "--exponents", "16", "20"], ["bootstrap s"]),
    (
        [
            "bench_ranks.py",
            "--models",
            "30",
            "--items",
            "500",
            "--arena-models",
            "6",
            "--battles",
            "3000",
            "--replicates",
            "200",
        ],
        ["rank sets", "speed-up"],
    ),
    (["bench_watch.py", "--gib", "0.02", "--batch", "500"], ["look time"]),
    (["bench_gold.py", "--pairs", "3", "--runs", "100"], ["coverage", "width ratio"]),
    (
        ["bench_estimate.py", "--budgets", "50", "--draws", "1", "--models", "1"],
        ["MAE", "coverage"],
    ),
    (
        ["bench_fragility.py", "--models", "30", "--items", "500", "--replicates", "200",
         "--rounds", "1", "--pairs-models", "30", "--pairs-items", "500"],
        ["load average", "evalgap card", "fragility/audit"],
    ),
    (
        ["bench_store.py", "--models", "100", "--items", "1000", "--big-models", "200",
         "--oll-models", "10"],
        ["rows/s", "on disk", "ratio", "file by file"],
    ),
]


@pytest.mark.parametrize(("args", "expected"), RUNS, ids=[r[0][0] for r in RUNS])
def test_benchmark_runs(args, expected):
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    for text in expected:
        assert text in out.stdout
