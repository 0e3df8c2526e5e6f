"""Output for people and for machines: compact JSON by default, --json-indent, and the
per-pair table as Parquet or CSV with --output (the JSON then keeps the summary)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.report.json_output import to_json

PAIRS = pd.DataFrame(
    {
        "model_a": ["x", "y", "z"],
        "model_b": ["y", "z", "w"],
        "both_correct": [7986, 7000, 5000],
        "a_only": [295, 900, 400],
        "b_only": [249, 300, 390],
        "both_wrong": [1512, 1842, 4252],
    }
)


def test_json_is_compact_by_default_and_indented_on_request(run_cli, tmp_path):
    path = tmp_path / "pairs.csv"
    PAIRS.to_csv(path, index=False)
    compact = run_cli("audit", "--pairs", path, "--json")
    indented = run_cli("audit", "--pairs", path, "--json", "--json-indent", "2")
    assert compact.returncode == indented.returncode == 0
    assert compact.stdout.count("\n") == 1  # one line
    assert indented.stdout.startswith('{\n  "alpha": 0.05,')
    assert json.loads(compact.stdout) == json.loads(indented.stdout)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_output_writes_the_pair_table_and_the_json_keeps_the_summary(run_cli, tmp_path, suffix):
    path = tmp_path / "pairs.csv"
    PAIRS.to_csv(path, index=False)
    table = tmp_path / f"out{suffix}"
    out = run_cli("audit", "--pairs", path, "--output", table, "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert "pairs" not in summary and summary["pairs_output"] == str(table)
    frame = pd.read_parquet(table) if suffix == ".parquet" else pd.read_csv(table)
    full = evalgap.audit(pairs=PAIRS)
    expected = full.to_frame()
    assert list(frame.columns) == list(expected.columns)
    np.testing.assert_array_equal(frame["required_n"], expected["required_n"])
    np.testing.assert_array_equal(frame["resolved_bonferroni"], expected["resolved_bonferroni"])
    assert summary["unresolved"] == full.unresolved


def test_records_from_columns_match_the_pair_table_row_by_row():
    rng = np.random.default_rng(1)
    k, n = 12, 300
    ability = np.linspace(1, -1, k)
    scores = (rng.random((n, k)) < 1 / (1 + np.exp(-ability))).astype(float)
    scores[rng.random((n, k)) < 0.05] = np.nan  # items some models did not score
    frame = pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(k)], n),
            "item_id": np.tile(np.arange(n), k),
            "score": scores.T.ravel(),
        }
    ).dropna()
    r = evalgap.audit(frame, family="all", n_bootstrap=0, n_bootstrap_required_n=50)
    records = json.loads(to_json(r))["pairs"]
    table = r.to_frame()
    assert len(records) == len(table) == 66
    for rec, (_, row) in zip(records, table.iterrows(), strict=True):
        assert rec["model_a"] == row["model_a"] and rec["n_items"] == row["n_items"]
        assert rec["delta"] == row["delta"] and rec["a_only"] == row["a_only"]
        assert rec["required_n"] == (
            None if not np.isfinite(row["required_n"]) else int(np.ceil(row["required_n"] - 1e-9))
        )
        assert rec["p_values"]["exact"] == row["p_exact"]
        assert rec["verdicts"]["fixed_n"] == bool(row["resolved_fixed_n"])
        bounds = [row["required_n_low"], row["required_n_high"]]
        assert rec["required_n_interval"] == [x if np.isfinite(x) else None for x in bounds]
