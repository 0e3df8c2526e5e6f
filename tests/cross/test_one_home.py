"""compare and audit share one home per formula: the same pair gives the same numbers.

The Table 6 HellaSwag pair (gemma-7b vs Llama-3-8B: 7986 both correct, 295 only A, 249 only B,
1512 both wrong) and a graded pair are run through ``compare`` and through ``audit`` at the same
seed and resample counts; every bootstrap p-value, N* interval and correlation-sensitivity
verdict must agree to the last digit, wherever the pair stands among the audited pairs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import align
from evalgap.jobs.audit import audit_counts, audit_scores
from evalgap.jobs.compare_pair import compare_counts, compare_scores
from evalgap.stats import power as pw
from evalgap.stats import resample

CELLS = (7986, 295, 249, 1512)
COLUMNS = ["both_correct", "a_only", "b_only", "both_wrong"]
SEED = 3
N_BOOTSTRAP = 2000
N_REQUIRED = 500


def _hellaswag_scores():
    both, a_only, b_only, neither = CELLS
    a = np.repeat([1.0, 1.0, 0.0, 0.0], CELLS)
    b = np.repeat([1.0, 0.0, 1.0, 0.0], CELLS)
    assert a.size == both + a_only + b_only + neither == 10_042
    return a, b


def _long(models: dict, task: str = "hellaswag") -> pd.DataFrame:
    rows = []
    for name, scores in models.items():
        ids = [f"{i:06d}" for i in range(scores.size)]
        rows.append(pd.DataFrame({"model": name, "task": task, "item_id": ids, "score": scores}))
    return pd.concat(rows, ignore_index=True)


def _pairs_table(rows) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["model_a"] = [f"m{k}" for k in range(len(rows))]
    table["model_b"] = [f"m{k + 1}" for k in range(len(rows))]
    return table


def _row(pairs: pd.DataFrame, a: str, b: str) -> pd.Series:
    hit = pairs[(pairs["model_a"] == a) & (pairs["model_b"] == b)]
    assert len(hit) == 1
    return hit.iloc[0]


def _assert_same(row: pd.Series, single) -> None:
    assert row["p_bootstrap"] == single.p_values.bootstrap
    assert row["required_n_low"] == single.required_n_interval.low
    assert row["required_n_high"] == single.required_n_interval.high
    minus, plus = single.correlation_sensitivity
    assert bool(row["resolved_correlation_minus"]) == minus.resolved
    assert bool(row["resolved_correlation_plus"]) == plus.resolved


@pytest.fixture(scope="module")
def hellaswag_compare():
    return compare_counts(
        *CELLS, n_bootstrap=N_BOOTSTRAP, n_bootstrap_required_n=N_REQUIRED, seed=SEED
    )


def test_table_6_pair_agrees_between_compare_and_audit_counts(hellaswag_compare):
    single = hellaswag_compare
    table = _pairs_table([CELLS])
    audited = audit_counts(
        table, n_bootstrap=N_BOOTSTRAP, n_bootstrap_required_n=N_REQUIRED, seed=SEED
    )
    _assert_same(audited.to_frame().iloc[0], single)
    # the pair's verdicts: -0.1 unresolved, +0.1 resolved; the N* interval straddles N
    assert [s.resolved for s in single.correlation_sensitivity] == [False, True]
    assert single.required_n_interval.straddles_n


def test_table_6_pair_at_seed_0_is_the_readme_interval():
    single = compare_counts(*CELLS, seed=0)
    audited = audit_counts(
        _pairs_table([CELLS]),
        seed=0,
    )
    row = audited.to_frame().iloc[0]
    assert round(single.required_n_interval.low) == round(row["required_n_low"]) == 5894
    assert round(single.required_n_interval.high) == round(row["required_n_high"]) == 571183
    assert single.p_values.bootstrap == row["p_bootstrap"] == pytest.approx(0.0509, abs=5e-5)


@pytest.mark.parametrize("position", [0, 1, 3])
def test_table_6_pair_agrees_wherever_it_stands_in_a_pairs_table(hellaswag_compare, position):
    others = [(9000, 400, 100, 542), (5000, 1000, 900, 3142), (100, 40, 35, 9867)]
    table = _pairs_table([*others[:position], CELLS, *others[position:]])
    audited = audit_counts(
        table, n_bootstrap=N_BOOTSTRAP, n_bootstrap_required_n=N_REQUIRED, seed=SEED
    )
    _assert_same(audited.to_frame().iloc[position], hellaswag_compare)


@pytest.mark.parametrize("models_above", [0, 2])
def test_table_6_pair_agrees_between_compare_and_an_audit_of_scores(
    hellaswag_compare, models_above
):
    a, b = _hellaswag_scores()
    rng = np.random.default_rng(5)
    models = {
        f"top{k}": (rng.random(a.size) < 0.9 + 0.03 * k).astype(float) for k in range(models_above)
    }
    models |= {"gemma-7b": a, "Llama-3-8B": b, "low": (rng.random(a.size) < 0.5).astype(float)}
    frame = pd.concat(
        [_long(models), _long({m: rng.integers(0, 2, 300).astype(float) for m in models}, "other")]
    )
    audited = audit_scores(
        align(frame),
        family="all",
        n_bootstrap=N_BOOTSTRAP,
        n_bootstrap_required_n=N_REQUIRED,
        seed=SEED,
        use_clusters=False,
    )
    _assert_same(_row(audited.to_frame(), "gemma-7b", "Llama-3-8B"), hellaswag_compare)


@pytest.fixture(scope="module")
def graded_pair():
    rng = np.random.default_rng(11)
    a = rng.beta(4, 2, 3000)
    b = np.clip(a - 0.01 + rng.normal(0, 0.15, a.size), 0, 1)
    return a, b


@pytest.mark.parametrize("models_above", [0, 1])
def test_graded_pair_agrees_between_compare_and_audit(graded_pair, models_above):
    a, b = graded_pair
    single = compare_scores(
        a, b, n_bootstrap=N_BOOTSTRAP, n_bootstrap_required_n=N_REQUIRED, seed=SEED
    )
    assert single.bootstrap.method == "monte_carlo"
    rng = np.random.default_rng(2)
    models = {f"top{k}": np.clip(a + 0.2 + 0.1 * k, 0, 1.5) for k in range(models_above)}
    models |= {"A": a, "B": b, "C": rng.beta(2, 4, a.size)}
    audited = audit_scores(
        align(_long(models)),
        family="all",
        n_bootstrap=N_BOOTSTRAP,
        n_bootstrap_required_n=N_REQUIRED,
        seed=SEED,
        use_clusters=False,
    )
    row = _row(audited.to_frame(), "A", "B")
    _assert_same(row, single)
    # one home for the graded moments too: the summaries agree to the last digit
    assert (row["delta"], row["sd_diff"], row["correlation"]) == (
        single.delta,
        single.sd_diff,
        single.correlation,
    )
    assert pw.round_up(row["required_n"]) == single.required_n


def test_child_streams_depend_on_seed_and_purpose_only():
    one = resample.child_seed(4, "required_n_interval")
    again = resample.child_seed(4, "required_n_interval")
    assert one.generate_state(4).tolist() == again.generate_state(4).tolist()
    purposes = ["bootstrap", *resample.PURPOSES]
    states = {tuple(resample.child_seed(4, p).generate_state(4)) for p in purposes}
    assert len(states) == len(purposes)  # no two purposes share a stream
    keyed = {
        tuple(resample.child_seed(4, "cluster_bootstrap", (t,)).generate_state(4))
        for t in range(12)
    }
    assert len(keyed) == 12


def test_interval_of_a_pair_does_not_depend_on_the_other_pairs():
    alone = pw.required_n_bootstrap_interval(295, 249, 10042, 300, seed=1)
    together = pw.required_n_bootstrap_interval(
        [40, 295, 7], [20, 249, 9], [500, 10042, 90], 300, seed=1
    )
    assert together[0][1] == alone[0] and together[1][1] == alone[1]
    # each pair's draws are its own multinomial histogram, restarted from the same stream
    b_star, c_star = resample.bootstrap_counts_by_pair([295, 295], [249, 249], [10042] * 2, 50, 1)
    np.testing.assert_array_equal(b_star[0], b_star[1])
    np.testing.assert_array_equal(c_star[0], c_star[1])
