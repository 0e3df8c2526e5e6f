"""A file a job writes itself (plan's design, adaptive's batch) names its path as the caller
gave it: --output on the command line, output= from Python (the command line said output=)."""

from __future__ import annotations

import pytest

import evalgap
from evalgap.errors import InputError

from conftest import ROOT

BOARD = ROOT / "examples" / "board.csv"


def test_plan_and_adaptive_name_the_output_flag_of_the_command(run_cli, tmp_path):
    plan = ["plan", "--reference", BOARD, "--model-a", "new", "--accuracy-a", "0.6"]
    out = run_cli(*plan, "--output", tmp_path / "design.xlsx")
    assert out.returncode == 2 and "--output" in out.stderr and "output=" not in out.stderr
    with pytest.raises(InputError, match=r"^output='.*design.xlsx': writes \.csv or \.parquet"):
        evalgap.plan(reference=BOARD, model_a="new", accuracy_a=0.6,
                     output=tmp_path / "design.xlsx")  # fmt: skip
    (tmp_path / "batch").mkdir()
    out = run_cli("adaptive", "--scores", BOARD, "--reference", BOARD, "--pair", "model-00",
                  "model-01", "--output", tmp_path / "batch")  # fmt: skip
    assert out.returncode == 2 and "--output" in out.stderr and "output=" not in out.stderr
