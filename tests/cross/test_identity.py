"""The all-pairs audit gives the numbers it gave before its speed-ups (issue 17).

References were written by ``scripts/make_identity_reference.py`` with the version before the
single-precision counts, the Newton boundary and the categorical pair labels: every pair's
counts and every procedure's verdict must be identical, the p-values, statistics and sample
sizes equal to 1e-12 (relative; the boundary's Newton root agrees with the old bisection to
that), on MMLU-Pro and on a synthetic 300 x 20,000 leaderboard, complete and with missing
scores.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.stats import sequential, tests

from conftest import shared_file
from synthetic import leaderboard_matrix

REFERENCE = Path(__file__).parents[1] / "fixtures" / "identity"
OPTIONS = dict(family="all", n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0)


def _synthetic(missing):
    x, models = leaderboard_matrix(300, 20000, missing=missing, seed=17)
    frame = pd.DataFrame(x, columns=models)
    frame.insert(0, "item", [f"i{i}" for i in range(x.shape[0])])
    long = frame.melt(id_vars="item", var_name="model", value_name="score").dropna()
    return long, dict(model_column="model", item_column="item", score_column="score")


def _mmlu_pro():
    frame = pd.read_csv(shared_file("mmlu_pro", "mmlu_pro_long.csv.gz"))
    return frame, dict(model_column="model", item_column="question_id", score_column="correct")


def _in_reference_order(table: pd.DataFrame, reference) -> pd.DataFrame:
    """The pair table's rows in the reference's order, matched on the unordered pair (every
    board here has one task)."""
    a, b = table["model_a"].astype(str), table["model_b"].astype(str)
    key = np.minimum(a, b) + "\x00" + np.maximum(a, b)
    ref_a, ref_b = pd.Series(reference["model_a"]), pd.Series(reference["model_b"])
    wanted = np.minimum(ref_a, ref_b) + "\x00" + np.maximum(ref_a, ref_b)
    position = pd.Series(np.arange(len(table)), index=key.to_numpy())
    return table.iloc[position.loc[wanted.to_numpy()].to_numpy()].reset_index(drop=True)


# Pairs each board now orients the other way (see the test): on complete data none
# one more on the synthetic board with missing scores since a gap of exactly 0 counts no
# model ahead in the paired rank (it was a rounding error of either sign)
SWAPPED = {"mmlu_pro": 1, "synthetic_300x20000": 0, "synthetic_300x20000_missing": 30}


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("mmlu_pro", _mmlu_pro),
        ("synthetic_300x20000", lambda: _synthetic(0.0)),
        ("synthetic_300x20000_missing", lambda: _synthetic(0.02)),
    ],
)
def test_audit_matches_the_reference(name, make):
    reference = np.load(REFERENCE / f"{name}.npz")
    frame, columns = make()
    table = evalgap.audit(frame, **OPTIONS, **columns).to_frame()
    assert len(table) == reference["n_items"].size
    # Since issue 38 a board is listed by its paired rank, not by each model's mean over its
    # own items: with missing scores a pair can be oriented the other way (one MMLU-Pro
    # pair), its a_only/b_only exchanged and its gap and statistic negated, and nothing else
    # (and in another row: all pairs are listed in the board's order)
    table = _in_reference_order(table, reference)
    a = table["model_a"].astype(str).to_numpy()
    swapped = a != reference["model_a"]
    assert (table["model_b"].astype(str).to_numpy()[swapped] == reference["model_a"][swapped]).all()
    assert swapped.sum() == SWAPPED[name]
    table.loc[swapped, ["a_only", "b_only"]] = table.loc[swapped, ["b_only", "a_only"]].to_numpy()
    table.loc[swapped, ["delta", "statistic"]] *= -1
    for column in ("n_items", "a_only", "b_only"):
        np.testing.assert_array_equal(table[column].to_numpy(dtype=np.int64), reference[column])
    verdicts = [k for k in reference.files if k.startswith("resolved_")]
    assert len(verdicts) >= 6
    for column in verdicts:
        values = table[column].astype(object)
        got = np.array([-1 if v is pd.NA or v is None else int(v) for v in values])
        mismatched = np.flatnonzero(got != reference[column])
        assert mismatched.size == 0, f"{column}: {mismatched.size} verdicts changed"
    sample = reference["sample"]
    expected = {k: reference[k] for k in reference.files}
    # Since issue 24 the audit's N* is at least the items that hold the 6 differing items any
    # valid test needs at alpha = 0.05, as compare's (one MMLU-Pro pair: 9.08 -> 10.32 items).
    n = reference["n_items"][sample].astype(float)
    differing = (reference["a_only"] + reference["b_only"])[sample]
    required = np.maximum(reference["required_n"], tests.required_n_floor(differing, n, 0.05))
    expected["required_n"] = required
    expected["resolution_ratio"] = n / required
    expected["required_n_anytime"] = sequential.required_n_anytime(
        required, reference["anytime_boundary"], 0.05, 0.8
    )
    for column in (
        "delta", "statistic", "required_n", "resolution_ratio", "p_mcnemar", "p_exact",
        "p_mid_p", "p_paired_t", "anytime_boundary", "required_n_anytime",
    ):
        got = table[column].to_numpy(dtype=float)[sample]
        np.testing.assert_allclose(got, expected[column], rtol=1e-12, atol=0, err_msg=column)
