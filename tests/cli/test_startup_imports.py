"""What ``evalgap compare`` from 2x2 counts loads: nothing it does not use.

The counts path needs NumPy, ``scipy.special`` (through the statistics core), click and rich;
a table reader, a store, plots or ``scipy.stats`` would only add start-up time (pandas alone
costs more than the whole command). The command runs in a fresh interpreter so that the
modules other tests imported do not hide a stray import; nothing here is timed (the
benchmark ``benchmarks/bench_cli.py`` measures the speed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Libraries and modules of evalgap that the counts path must not import.
NOT_LOADED = (
    "pandas",
    "pyarrow",
    "duckdb",
    "matplotlib",
    "scipy.stats",
    "scipy.optimize",
    "scipy.sparse",
    "dask",
    "evalgap._scores",
    "evalgap.io.tables",
    "evalgap.io.reading",
    "evalgap.io.sources",
    "evalgap.io.store",
    "evalgap.jobs.audit",
    "evalgap.report.html",
    "evalgap.report.plots",
    "evalgap.engine.sums",
    "evalgap.io.shards",
    "evalgap.stats.config_components",
)

COUNTS = ["--both-correct", "7986", "--a-only", "295", "--b-only", "249", "--both-wrong", "1512"]

PROGRAM = """
import contextlib, io, json, sys
from evalgap.cli import main
out = io.StringIO()
code = 0
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:])
    except SystemExit as stop:
        code = stop.code
names = json.loads(sys.stdin.read())
print(json.dumps({"code": code, "report": out.getvalue(),
                  "loaded": [name for name in names if name in sys.modules]}))
"""


def run_counts(*extra: str, not_loaded: tuple[str, ...] = NOT_LOADED) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, "compare", *extra],
        input=json.dumps(not_loaded),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_compare_from_counts_loads_no_table_reader_store_plot_or_scipy_stats():
    ran = run_counts(*COUNTS)
    assert ran["code"] == 0
    # the full terminal report was printed: its figures are the HellaSwag pair's
    assert "20,256" in ran["report"] and "0.049" in ran["report"]
    assert ran["loaded"] == []


def test_compare_from_counts_as_json_loads_none_of_them_either():
    ran = run_counts(*COUNTS, "--json")
    assert ran["code"] == 0
    assert json.loads(ran["report"])["required_n"] == 20_256
    assert ran["loaded"] == []


# What a small long CSV needs beyond the counts path: the table reader and the alignment.
READERS = ("evalgap._scores", "evalgap.io.tables", "evalgap.io.reading", "evalgap.io.sources")
# ... and not the readers of frameworks' logs, whose detectors a CSV's name rules out.
FRAMEWORKS = tuple(
    f"evalgap.io.{name}"
    for name in ("lm_eval", "helm", "open_llm_leaderboard", "inspect_logs", "swebench", "mteb",
                 "eee", "alpaca_eval")
)  # fmt: skip


def test_compare_on_a_small_csv_loads_neither_pandas_nor_pyarrow():
    """A table of a few thousand rows is read by the standard library and aligned in NumPy:
    pandas and pyarrow (together more than the rest of the command) are not imported, nor
    any framework's log reader."""
    table = str(Path(__file__).parents[2] / "examples" / "two_models.csv")
    scores = ["--scores", table, "--model-a", "model-x", "--model-b", "model-y"]
    kept = tuple(m for m in NOT_LOADED if m not in READERS) + FRAMEWORKS
    ran = run_counts(*scores, "--json", not_loaded=kept)
    assert ran["code"] == 0
    assert json.loads(ran["report"])["n_items"] == 2000
    assert ran["loaded"] == []


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["compare", "--help"]])
def test_version_and_help_load_no_numpy(argv):
    """They print text: NumPy (as much as the whole command line) and what sits on it wait
    for a command that computes (an option's choices come from modules that import none)."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *argv],
        input=json.dumps(["numpy", "scipy", "pandas", "rich", "evalgap.engine.sums"]),
        capture_output=True,
        text=True,
        check=True,
    )
    ran = json.loads(done.stdout)
    assert ran["code"] in (0, None) and ran["report"]
    assert ran["loaded"] == []
