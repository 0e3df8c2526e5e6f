"""The installed ``evalgap`` executable, once per subcommand, as a user runs it.

Every other command-line test calls ``evalgap.cli.main`` in-process (``run_cli`` in
``conftest.py``): each real process pays the interpreter start and the imports. These few
check what only a real process shows: the console script is installed and wired to
``main``, the exit code reaches the shell, and output goes through a real pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, run_entry_point
from paper_tables import TABLE_2

TWO_MODELS = ROOT / "examples" / "two_models.csv"


def run_json(*args) -> dict:
    out = run_entry_point(*args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_compare():
    data = run_json(
        "compare", "--both-correct", "7986", "--a-only", "295", "--b-only", "249",
        "--both-wrong", "1512", "--n-bootstrap", "0",
    )  # fmt: skip
    assert (data["n_items"], data["required_n"], data["resolved"]) == (10_042, 20_256, False)
    assert round(data["p_values"]["mcnemar"], 3) == 0.049


def test_plan():
    data = run_json("plan", "--accuracy-a", "0.65", "--accuracy-b", "0.60", "--correlation", "0.3")
    assert data["required_n"] == 1028  # Table 1


def test_audit(tmp_path):
    from synthetic import table_7

    path = tmp_path / "pairs.csv"
    table_7().to_csv(path, index=False)
    data = run_json("audit", "--pairs", path, "--family-size", "45")
    assert data["family_size"] == 45 and round(data["bonferroni_inflation"], 2) == 2.14
    assert data["unresolved"]["fixed_n"] == 4 and len(data["pairs"]) == 9


def test_degrade_exit_code_reaches_the_shell(tmp_path):
    kv = next(r for r in TABLE_2 if r.label == "8B KV-FP8")
    path = tmp_path / "kv.csv"
    kv.frame().to_csv(path, index=False)
    out = run_entry_point("degrade", "--counts", path, "--json", "--fail-on-degradation")
    assert out.returncode == 1, out.stderr  # degraded: the gate fails the shell command
    assert json.loads(out.stdout)["verdict"].startswith("DEGRADED")


def test_trim(tmp_path):
    # 100 items every run gets right, 200 that flip between runs: trim keeps the stable ones.
    rng = np.random.default_rng(2)
    rows = [
        ("base", str(i), str(r), float(rng.random() < (1.0 if i < 100 else 0.5)))
        for i in range(300)
        for r in range(6)
    ]
    runs = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["model", "item_id", "run", "score"]).to_csv(runs, index=False)
    kept = tmp_path / "kept.csv"
    out = run_entry_point("trim", "--scores", runs, "--model", "base", "--output", kept)
    assert out.returncode == 0, out.stderr
    assert 190 <= len(pd.read_csv(kept)) <= 200


def test_inspect_data():
    data = run_json("inspect-data", "--scores", TWO_MODELS)
    assert [(m["model"], m["items_scored"], m["mean_score"]) for m in data["models"]] == [
        ("model-x", 2000, 0.7165),
        ("model-y", 2000, 0.693),
    ]


def test_simulate_calibration():
    data = run_json(
        "simulate", "calibration", "--n-items", "100", "--n-trials", "10", "--n-bootstrap", "10"
    )
    assert len(data["cells"]) == 9 and data["n_trials"] == 10
    assert set(data["variants"]) == {"mcnemar", "exact", "mid_p", "mcnemar_cc", "bootstrap"}


def test_simulate_prospective():
    data = run_json(
        "simulate", "prospective", "--scores", TWO_MODELS, "--pair", "model-x", "model-y",
        "--n-trials", "10",
    )  # fmt: skip
    (pair,) = data["pairs"]
    assert pair["pair"] == "model-x vs model-y"
    assert pair["abs_delta"] == pytest.approx(0.7165 - 0.693)


def test_simulate_power_curve():
    data = run_json(
        "simulate", "power-curve", "--delta", "0.05", "--n-trials", "10", "--n-bootstrap", "10"
    )
    (curve,) = data["curves"]
    assert curve["delta"] == 0.05 and curve["required_n"] in curve["n"]


def test_simulate_sequential():
    data = run_json(
        "simulate", "sequential", "--both-correct", "716", "--a-only", "100", "--b-only", "78",
        "--both-wrong", "278", "--n-trials", "10",
    )  # fmt: skip
    assert data["required_n"] == 3376  # compare's N* for the same counts


def test_simulate_aggregation():
    data = run_json("simulate", "aggregation", "--max-tasks", "2", "--n-trials", "10")
    assert data["task_counts"] == [1, 2] and data["n_trials"] == 10


def test_python_dash_m_runs_the_cli():
    out = subprocess.run(
        [sys.executable, "-m", "evalgap", "plan", "--delta", "0.02", "--sd-diff", "0.25", "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and json.loads(out.stdout)["required_n"] == 1227
