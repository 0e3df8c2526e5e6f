"""Rank confidence sets, tiers and top-k sets (stats.ranks), and the ranks job and command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import evalgap
from evalgap.errors import InputError
from evalgap.jobs._ranks_result import RANK_COLUMNS
from evalgap.stats import ranks as rk

from conftest import shared_file


def _leaderboard(p, n, seed=0, kind="binary"):
    """Items with a shared difficulty, so the models' scores are correlated (paired)."""
    rng = np.random.default_rng(seed)
    d = rng.normal(0, 1, n)[:, None]
    mean = 1 / (1 + np.exp(-(np.log(np.asarray(p) / (1 - np.asarray(p))) - d)))
    if kind == "binary":
        return (rng.random(mean.shape) < mean).astype(float)
    return rng.beta(4 * mean, 4 * (1 - mean))


# --- closed forms and oracles -------------------------------------------------------------------


def test_two_models_far_apart_get_one_rank_each_and_identical_models_share_both():
    x = _leaderboard([0.9, 0.3], 1000)
    far = rk.rank_sets(x, n_bootstrap=400)
    assert far.rank_low.tolist() == [1, 2] and far.rank_high.tolist() == [1, 2]
    assert far.tier.tolist() == [1, 2]
    same = rk.rank_sets(np.column_stack([x[:, 0], x[:, 0]]), n_bootstrap=400)
    assert same.rank_low.tolist() == [1, 1] and same.rank_high.tolist() == [2, 2]
    assert same.rank.tolist() == [1, 1] and same.tier.tolist() == [1, 1]


def test_two_models_critical_value_is_the_normal_quantile():
    """K = 2: one pair, so the max-|t| quantile is z_{0.975} (no pair ordered: no stepdown)."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(5000, 2))
    r = rk.rank_sets(x, n_bootstrap=20000, seed=1)
    assert not r.shown_better.any()
    # Monte Carlo SE of a 97.5% quantile from 20,000 draws: about 0.02
    assert r.critical_value == pytest.approx(stats.norm.ppf(0.975), abs=0.05)


def test_critical_value_of_independent_models_matches_a_direct_simulation():
    """K = 4 independent models of equal means: c is the 95% quantile of
    max_{j<k} |Z_j - Z_k| / sqrt(2), Z iid normal (an independent Monte Carlo)."""
    rng = np.random.default_rng(6)
    x = rng.normal(size=(4000, 4))
    r = rk.rank_sets(x, n_bootstrap=20000, seed=2, method="bootstrap")
    z = np.random.default_rng(7).normal(size=(400_000, 4))
    oracle = np.quantile(np.abs(z[:, :, None] - z[:, None, :]).max(axis=(1, 2)) / np.sqrt(2), 0.95)
    assert not r.shown_better.any()
    assert r.critical_value == pytest.approx(oracle, abs=0.05)


def test_covariance_with_missing_scores_equals_a_pair_by_pair_computation():
    rng = np.random.default_rng(3)
    x = rng.random((60, 4))
    x[rng.random(x.shape) < 0.2] = np.nan
    mean, n, cov = rk.mean_covariance(x)
    for j in range(4):
        own = x[~np.isnan(x[:, j]), j]
        assert mean[j] == pytest.approx(own.mean())
        assert cov[j, j] == pytest.approx(own.var(ddof=1) / own.size)
        for k in range(4):
            both = ~np.isnan(x[:, j]) & ~np.isnan(x[:, k])
            brute = np.sum((x[both, j] - mean[j]) * (x[both, k] - mean[k]))
            scale = np.sqrt(n[j] * (n[j] - 1) * n[k] * (n[k] - 1))
            assert cov[j, k] == pytest.approx(brute / scale)


def test_cluster_robust_covariance_equals_the_textbook_formula():
    rng = np.random.default_rng(4)
    x = rng.random((90, 3))
    clusters = np.repeat(np.arange(9), 10)
    _, n, cov = rk.mean_covariance(x, clusters)
    centred = x - x.mean(axis=0)
    sums = np.array([centred[clusters == g].sum(axis=0) for g in range(9)])
    for j in range(3):
        for k in range(3):
            expected = (sums[:, j] * sums[:, k]).sum() / (n[j] * n[k]) * 9 / 8
            assert cov[j, k] == pytest.approx(expected)


def test_holm_sets_agree_with_scipy_and_statsmodels_pairwise_tests():
    """Binary scores without clusters: Holm over exact McNemar p-values (scipy binomtest),
    adjusted by statsmodels' multipletests, orders exactly the same pairs."""
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    x = _leaderboard([0.8, 0.7, 0.68, 0.5, 0.49], 400, seed=8)
    r = rk.rank_sets(x, method="holm")
    pairs, p_values, signs = [], [], []
    for j in range(5):
        for k in range(j + 1, 5):
            b = int(((x[:, j] == 1) & (x[:, k] == 0)).sum())
            c = int(((x[:, j] == 0) & (x[:, k] == 1)).sum())
            pairs.append((j, k))
            p_values.append(stats.binomtest(b, b + c, 0.5).pvalue if b + c else 1.0)
            signs.append(np.sign(b - c))
    reject = multitest.multipletests(p_values, 0.05, method="holm")[0]
    expected = np.zeros((5, 5), dtype=bool)
    for (j, k), rejected, sign in zip(pairs, reject, signs, strict=True):
        if rejected:
            expected[j, k], expected[k, j] = sign > 0, sign < 0
    assert r.method == "Holm pairwise"
    assert (r.shown_better == expected).all()
    assert expected.any()


def test_tiers_cut_where_every_model_above_is_shown_better():
    better = np.zeros((4, 4), dtype=bool)
    better[0, 1:] = True  # model 0 above everyone
    better[1, 3] = better[2, 3] = True  # 1 and 2 above 3, not ordered between themselves
    assert rk.tiers(better, np.arange(4)).tolist() == [1, 2, 2, 3]
    better[1, 3] = False  # 1 not shown above 3: 1, 2, 3 one tier
    assert rk.tiers(better, np.arange(4)).tolist() == [1, 2, 2, 2]


# --- properties -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["binary", "graded"])
def test_sets_hold_the_point_rank_and_contain_the_marginal_sets(kind):
    x = _leaderboard(np.linspace(0.4, 0.7, 12), 1500, seed=9, kind=kind)
    x[np.random.default_rng(1).random(x.shape) < 0.05] = np.nan
    r = rk.rank_sets(x, n_bootstrap=500, top_k=3)
    assert ((r.rank_low <= r.rank) & (r.rank <= r.rank_high)).all()
    assert ((r.rank_low <= r.marginal_low) & (r.marginal_high <= r.rank_high)).all()
    assert ((r.marginal_low <= r.rank) & (r.rank <= r.marginal_high)).all()
    # tiers never cut a rank set, and each tier's sets stay inside its positions
    order = np.argsort(r.rank, kind="stable")
    for tier in np.unique(r.tier):
        members = r.tier == tier
        positions = np.flatnonzero(r.tier[order] == tier) + 1
        assert r.rank_low[members].min() >= positions.min()
        assert r.rank_high[members].max() <= positions.max()
    assert r.top_k.tolist() == (r.rank_low <= 3).tolist()
    assert r.shown_better.sum() > 0 and not (r.shown_better & r.shown_better.T).any()


@settings(max_examples=15, deadline=None)
@given(st.permutations(range(6)), st.integers(0, 50))
def test_permuting_the_models_permutes_the_sets(permutation, seed):
    x = _leaderboard([0.8, 0.75, 0.6, 0.58, 0.4, 0.2], 800, seed=seed)
    base = rk.rank_sets(x, n_bootstrap=300, seed=seed)
    moved = rk.rank_sets(x[:, list(permutation)], n_bootstrap=300, seed=seed)
    for name in ("score", "se"):
        np.testing.assert_allclose(getattr(moved, name), getattr(base, name)[list(permutation)])
    for name in ("rank", "tier"):
        assert getattr(moved, name).tolist() == getattr(base, name)[list(permutation)].tolist()
    # sets may move by one where a pair sits on the float32 bootstrap's critical value
    for name in ("rank_low", "rank_high"):
        gap = np.abs(getattr(moved, name) - getattr(base, name)[list(permutation)])
        assert gap.max() <= 1


def test_quick_coverage_check_under_the_least_favourable_null():
    """Five equal models: the sets must hold every rank (no pair ordered) in >= 90% of 60
    seeded leaderboards (nominal 95%; the full study is simulate rank-coverage)."""
    covered = sum(
        not rk.rank_sets(
            _leaderboard([0.6] * 5, 400, seed=s), n_bootstrap=300, seed=s
        ).shown_better.any()
        for s in range(60)
    )
    assert covered >= 54


def test_auto_takes_holm_with_too_many_models_for_the_items_and_says_so():
    x = _leaderboard(np.linspace(0.3, 0.7, 30), 250, seed=2)
    r = rk.rank_sets(x, n_bootstrap=200)
    assert r.method == "Holm pairwise" and "Holm" in r.notes[0] and "30 models" in r.notes[0]
    forced = rk.rank_sets(x, n_bootstrap=200, method="bootstrap")
    assert forced.method == "max-t stepdown bootstrap" and not forced.notes


def test_bad_arguments_are_one_line_errors():
    x = _leaderboard([0.5, 0.6], 300)
    with pytest.raises(InputError, match="method must be one of"):
        rk.rank_sets(x, method="fast")
    with pytest.raises(InputError, match="at least 2 models"):
        rk.rank_sets(x[:, :1])
    with pytest.raises(InputError, match="clusters must hold one label per item"):
        rk.rank_sets(x, clusters=[0, 1])
    with pytest.raises(InputError, match="top_k"):
        rk.rank_sets(x, n_bootstrap=100, top_k=0)


# --- the job, the API and the command -------------------------------------------------------


def test_ranks_api_on_a_frame_and_its_json():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        [
            (m, i, float(rng.random() < p))
            for m, p in (("a", 0.8), ("b", 0.79), ("c", 0.5))
            for i in range(400)
        ],
        columns=["model", "item", "score"],
    )
    r = evalgap.ranks(frame, n_bootstrap=500, top_k=1)
    data = json.loads(json.dumps(r.to_dict()))
    assert set(data) >= {"method", "alpha", "ranks", "marginal", "top_k", "verdict"}
    keys = set(RANK_COLUMNS)
    assert set(data["ranks"][0]) == keys and set(data["marginal"][0]) == keys
    assert [row["model"] for row in data["ranks"]] == ["b", "a", "c"]
    assert data["top_k"] == {"k": 1, "models": {"all": ["b", "a"]}}
    assert r.tiers() == {"all": [["b", "a"], ["c"]]}
    assert list(r.to_frame().columns[-2:]) == ["marginal_low", "marginal_high"]
    assert "2 tiers" in r.verdict and "RanksResult(" in repr(r)


def test_mmlu_pro_ranks_with_and_without_category_clusters(run_cli, tmp_path):
    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    plain = evalgap.ranks(str(scores), n_bootstrap=500)
    assert plain.method == "max-t stepdown bootstrap" and len(plain.ranks) == 29
    frame = plain.ranks
    assert ((frame["rank_low"] <= frame["rank"]) & (frame["rank"] <= frame["rank_high"])).all()
    top = frame.iloc[0]
    assert top["model"].startswith("gemini-1.5-pro") and top["rank_low"] == 1
    html = tmp_path / "ranks.html"
    out = run_cli(
        "ranks",
        "--scores",
        scores,
        "--cluster-column",
        "category",
        "--json",
        "--html",
        html,
        "--n-bootstrap",
        "200",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # 14 subject clusters are too few for the cluster bootstrap: Holm, and it says so
    assert data["method"] == "Holm pairwise"
    assert any("14 clusters" in note for note in data["notes"])
    assert len(data["ranks"]) == 29 and html.read_text().count("<svg") >= 2


def test_alpaca_eval_means_and_standard_errors_match_the_leaderboard():
    """README of the shared data: win rate and SE (x100) of five models, to printed precision."""
    table = shared_file("alpaca_eval", "alpaca_eval_long.csv.gz")
    r = evalgap.ranks(
        pd.read_csv(table),
        model_column="model",
        item_column="item",
        score_column="win",
        task_column="none",
        n_bootstrap=300,
    )
    got = r.ranks.set_index("model")
    published = {
        "FuseChat-Gemma-2-9B-Instruct": (70.497, 1.343),
        "FuseChat-Llama-3.2-3B-Instruct": (51.297, 1.483),
        "Qwen-14B-Chat": (7.502, 0.815),
        "alpaca-7b": (2.591, 0.487),
        "NullModel": (76.920, 0.909),
    }
    for model, (win, se) in published.items():
        assert round(100 * got.loc[model, "score"], 3) == win
        assert round(100 * got.loc[model, "se"], 3) == se
    assert any("duplicate rows" in note for note in r.notes)
    assert r.method == "max-t stepdown bootstrap" and len(got) == 58


def test_ranks_command_refuses_both_or_neither_input(run_cli):
    out = run_cli("ranks")
    assert out.returncode == 2 and "give either --battles FILE" in out.stderr


def test_audit_carries_the_rank_sets_and_says_when_it_leaves_them_out(monkeypatch):
    from evalgap.jobs import audit as _audit

    x = _leaderboard([0.8, 0.7, 0.69, 0.5], 600, seed=12)
    frame = pd.DataFrame(x, columns=list("abcd")).melt(var_name="model", value_name="score")
    frame["item"] = np.tile(np.arange(600), 4)
    r = evalgap.audit(frame, n_bootstrap=0, n_bootstrap_required_n=0, n_rank_bootstrap=300)
    alone = evalgap.ranks(frame, n_bootstrap=300)
    pd.testing.assert_frame_equal(r.rank_sets.ranks, alone.ranks)
    assert r.to_dict()["rank_sets"]["method"] == "max-t stepdown bootstrap"
    monkeypatch.setattr(_audit, "MAX_AUDIT_RANK_MODELS", 3)
    skipped = evalgap.audit(frame, n_bootstrap=0, n_bootstrap_required_n=0)
    assert skipped.rank_sets is None
    assert any("rank sets are left out of audits of more than 3 models" in n for n in skipped.notes)


def test_rank_coverage_study_runs_and_reports_its_monte_carlo_error(run_cli):
    from evalgap import simulate

    config = simulate.Configuration("4 tied", (0.0,) * 4, 300)
    r = simulate.rank_coverage([config], n_trials=40, n_bootstrap=200, seed=1)
    row = r.rows.iloc[0]
    assert row["coverage_se"] == pytest.approx(
        np.sqrt(row["coverage"] * (1 - row["coverage"]) / 40)
    )
    assert row["coverage"] >= 0.95 - 2 * max(row["coverage_se"], 0.035)
    assert row["mean_width"] > 3.5  # four tied models: the sets hold (almost) every rank
    out = run_cli(
        "simulate", "rank-coverage", "--n-trials", "10", "--n-bootstrap", "200", "--json"
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    from evalgap.jobs.rank_coverage import CONFIGURATIONS

    assert len(data["rows"]) == len(CONFIGURATIONS)


@pytest.mark.slow  # the default study: about a minute on 2 cores
def test_default_rank_coverage_holds_the_nominal_level_everywhere():
    from evalgap import simulate

    r = simulate.rank_coverage()
    rows = r.rows
    assert (rows["coverage"] >= 0.95 - 2 * rows["coverage_se"]).all(), rows
    big = rows[(rows["n_models"] >= 100) & (rows["n_items"] <= 500)]
    assert (big["method"] == "Holm pairwise").any()


def test_empirical_bootstrap_gives_the_same_sets_on_a_clear_board(run_cli, tmp_path):
    x = _leaderboard([0.85, 0.7, 0.69, 0.5], 1500, seed=13)
    multiplier = rk.rank_sets(x, n_bootstrap=800, seed=3)
    empirical = rk.rank_sets(x, n_bootstrap=800, seed=3, bootstrap="empirical")
    assert empirical.rank_low.tolist() == multiplier.rank_low.tolist() == [1, 2, 2, 4]
    assert empirical.critical_value == pytest.approx(multiplier.critical_value, abs=0.15)
    frame = pd.DataFrame(x, columns=list("abcd")).melt(var_name="model", value_name="score")
    frame["item"] = np.tile(np.arange(1500), 4)
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    out = run_cli("ranks", "--scores", path, "--bootstrap", "empirical", "--json")
    assert out.returncode == 0, out.stderr
    assert [row["rank_low"] for row in json.loads(out.stdout)["ranks"]] == [1, 2, 2, 4]


# --- findings of the ranks review ------------------------------------------------------------


def test_a_bootstrap_too_small_for_the_level_is_refused_on_every_path(run_cli, tmp_path):
    """B = 1 made the sets narrower than at B = 1,000 and still called them 95%: the (1 - alpha)
    quantile needs at least 10 replicates beyond it, B >= 10 / alpha."""
    assert rk.minimum_replicates(0.05) == 200 and rk.minimum_replicates(0.01) == 1000
    x = _leaderboard([0.8, 0.7, 0.5], 1500)
    with pytest.raises(InputError, match="n_bootstrap=200 or more"):
        rk.rank_sets(x, n_bootstrap=199)
    with pytest.raises(InputError, match="n_bootstrap=1000 or more"):
        rk.rank_sets(x, n_bootstrap=500, alpha=0.01)
    assert rk.rank_sets(x, n_bootstrap=200).method == "max-t stepdown bootstrap"
    # Holm uses no bootstrap: nothing to refuse
    assert rk.rank_sets(x, n_bootstrap=1, method="holm").method == "Holm pairwise"
    draws = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(InputError, match="50 bootstrap replicates"):
        rk.rank_sets_from_draws(np.zeros(3), np.eye(3), draws)
    frame = pd.DataFrame(x, columns=list("abc")).melt(var_name="model", value_name="score")
    frame["item"] = np.tile(np.arange(1500), 3)
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    out = run_cli("ranks", "--scores", path, "--n-bootstrap", "1")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "evalgap: error: --n-bootstrap 1: 1 bootstrap replicates cannot determine the 95% "
        "critical value of the rank sets; give --n-bootstrap 200 or more (at least 10 / alpha)"
    ]


def _ordered_stepdown(t, stats, alpha, hypotheses):
    """MRSW (2024) Algorithm 3.1 by brute force: ``t`` (K, K) observed, ``stats`` (B, K, K)
    bootstrap t; each step rejects the standing ordered pairs with t above the (1 - alpha)
    quantile of the maximum over the standing ones; a rejected pair's reverse stays."""
    standing = set(hypotheses)
    rejected, critical = set(), np.inf
    while standing:
        index = tuple(np.array(sorted(standing)).T)
        critical = np.quantile(stats[:, index[0], index[1]].max(axis=1), 1 - alpha)
        new = {h for h in standing if t[h] > critical}
        if not new:
            break
        rejected |= new
        standing -= new
    return rejected, critical


def test_the_stepdown_removes_only_the_rejected_orientation_of_a_pair():
    """Algorithm 3.1 of Mogstad, Romano, Shaikh and Wilhelm (2024), as the authors' csranks:
    a rejected H_jk (j better than k) leaves the set of hypotheses, H_kj stays in the max.
    Removing both orientations lowered the later critical values (2.98 instead of 3.48 on
    MMLU-Pro) and ordered pairs the published method does not."""
    rng = np.random.default_rng(11)
    k = 5
    estimate = np.array([0.9, 0.35, 0.3, 0.05, 0.0])
    cov = 0.01 * (np.eye(k) * 0.8 + 0.2)
    draws = estimate + rng.multivariate_normal(np.zeros(k), cov, 4000)
    r = rk.rank_sets_from_draws(estimate, cov, draws)
    diagonal = np.diag(cov)
    se = np.sqrt(diagonal[:, None] + diagonal[None, :] - 2 * cov + np.eye(k))
    t = (estimate[:, None] - estimate[None, :]) / se
    d = draws - estimate
    stats = (d[:, :, None] - d[:, None, :]) / se
    ordered = [(j, m) for j in range(k) for m in range(k) if j != m]
    rejected, critical = _ordered_stepdown(t, stats, 0.05, ordered)
    expected = np.zeros((k, k), dtype=bool)
    for j, m in rejected:
        expected[j, m] = True
    assert (r.shown_better == expected).all() and expected.any()
    assert r.critical_value == pytest.approx(critical, abs=2e-3)
    # removing both orientations (the defect) gives a smaller final critical value here
    unordered = [(j, m) for j, m in ordered if j < m]
    both = {(j, m) for j, m in ordered}
    standing = set(unordered)
    while True:
        index = tuple(np.array(sorted(standing)).T)
        old = np.quantile(np.abs(stats[:, index[0], index[1]]).max(axis=1), 0.95)
        new = {h for h in standing if abs(t[h]) > old}
        if not new:
            break
        standing -= new
    assert old < critical - 0.05 and both
    # marginal sets: each model's 2 (K - 1) hypotheses, the same stepdown
    for j in range(k):
        own = [(j, m) for m in range(k) if m != j] + [(m, j) for m in range(k) if m != j]
        rejected, _ = _ordered_stepdown(t, stats, 0.05, own)
        worse = sum(1 for a, b in rejected if b == j)
        ahead = sum(1 for a, b in rejected if a == j)
        assert r.marginal_low[j] == 1 + worse and r.marginal_high[j] == k - ahead


def _skipped_hard_items():
    """A beats B on every item both scored; B skipped 1,000 hard items that A mostly fails."""
    a = np.zeros(4000)
    a[:2500] = 1.0  # 2,500 of the 3,000 easy items; none of the 1,000 hard ones
    b = np.full(4000, np.nan)
    b[:3000] = 0.0
    b[:2450] = 1.0  # B is right only where A is, on 50 fewer items
    c = (np.random.default_rng(2).random(4000) < 0.3).astype(float)
    return np.column_stack([a, b, c])


@pytest.mark.parametrize("method", ["bootstrap", "holm"])
@pytest.mark.parametrize("kind", ["multiplier", "empirical"])
def test_every_method_compares_the_paired_gap_on_shared_items(method, kind):
    """B's own-item mean (0.817) is above A's (0.625) because B skipped the hard items; on the
    3,000 items both scored A is right wherever B is and on 50 more (McNemar 50:0). The
    bootstrap claimed B better than A and Holm the reverse: now both say A, as the audit."""
    x = _skipped_hard_items()
    gap, variance, shared = rk.pair_gaps(x)
    both = ~np.isnan(x[:, 1])
    diff = x[both, 0] - x[both, 1]
    assert shared[0, 1] == 3000 and gap[0, 1] == pytest.approx(diff.mean())
    assert variance[0, 1] == pytest.approx(diff.var(ddof=1) / diff.size)
    r = rk.rank_sets(x, n_bootstrap=400, method=method, bootstrap=kind)
    assert r.score[1] > r.score[0]  # the scores stay each model's own mean
    assert r.shown_better[0, 1] and not r.shown_better[1, 0]
    assert r.rank.tolist()[:2] == [1, 2] and r.rank_high[0] < r.rank_low[1]
    assert any("items both scored" in note for note in r.notes)


def test_pair_bootstrap_with_missing_scores_equals_a_brute_force_replicate():
    """The (b, K, K) deviations of the shared-item gaps, recomputed pair by pair from the
    same weights (multiplier: sum_i w_i (D_i - gap) / n; empirical: resampled mean - gap).
    Multiplier weights on few patterns of many items are drawn from their sums' law instead
    (tests/stats/test_rank_draws.py checks that law)."""
    from evalgap.stats.resample import seed_sequence

    rng = np.random.default_rng(4)
    scattered = rng.random((40, 6))
    scattered[rng.random(scattered.shape) < 0.3] = np.nan  # 24 patterns on 37 items: direct
    blocks = rng.random((40, 4))
    blocks[:12, 3] = np.nan  # two patterns: summed per pattern
    blocks[30:, 1] = np.nan
    clusters = np.repeat(np.arange(8), 5)
    for x, codes in [(m, c) for m in (scattered, blocks) for c in (None, clusters)]:
        mean = rk.mean_covariance(x, codes)[0]
        gap, _, shared = rk.pair_gaps(x, codes)
        for kind in ("multiplier", "empirical"):
            if kind == "multiplier" and x is blocks and codes is None:
                continue  # 15 sums of 40 items: drawn from their law
            got = next(rk._pair_draws(x, mean, gap, shared, codes, 3, 9, kind))
            draw = np.random.Generator(np.random.PCG64(seed_sequence(9)))
            units = 40 if codes is None else 8
            if kind == "multiplier":
                weights = draw.standard_normal((3, units), dtype=np.float32).astype(float)
            else:
                weights = draw.multinomial(units, np.full(units, 1 / units), size=3)
            item_weight = weights if codes is None else weights[:, codes]
            for b in range(3):
                for j in range(x.shape[1]):
                    for m in range(x.shape[1]):
                        both = ~np.isnan(x[:, j]) & ~np.isnan(x[:, m])
                        d = x[both, j] - x[both, m]
                        w = item_weight[b, both]
                        if kind == "multiplier":
                            expected = (w * (d - gap[j, m])).sum() / both.sum()
                        else:
                            expected = (w * d).sum() / w.sum() - gap[j, m] if w.sum() else 0
                        assert got[b, j, m] == pytest.approx(expected, abs=1e-9)


def test_mmlu_pro_separates_gemini_flash_from_deepseek_coder_on_their_shared_items():
    """DeepSeek-Coder-V2 skipped 1,681 questions: own-item gap 0.005, but on the 10,334 items
    both scored gemini-1.5-flash-002 is 0.022 ahead (t = 4.7); every method now sees that."""
    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    frame = pd.read_csv(scores)
    wide = frame.pivot_table(index="question_id", columns="model", values="correct")
    flash, coder = "gemini-1.5-flash-002_5shots", "DeepSeek-Coder-V2_5shots"
    both = wide[[flash, coder]].dropna()
    diff = both[flash] - both[coder]
    t = diff.mean() / (diff.std() / np.sqrt(len(diff)))
    assert len(both) == 10334 and diff.mean() == pytest.approx(0.022, abs=5e-4) and t > 4.5
    for method in ("bootstrap", "holm"):
        r = evalgap.ranks(frame, n_bootstrap=400, method=method)
        models = r.models_of("all")
        better = r.shown_better["all"]
        i, j = models.index(flash), models.index(coder)
        assert better[i, j] and not better[j, i], method


def test_html_page_carries_the_marginal_sets_and_score_intervals_as_the_json(run_cli, tmp_path):
    """The ranks page lacked the marginal-set column and the score intervals; every view
    shows the same sets and tiers, and the interval of a binary score is Wilson's
    (statsmodels' ``proportion_confint`` as the oracle)."""
    import re

    from statsmodels.stats.proportion import proportion_confint

    x = _leaderboard([0.85, 0.7, 0.69, 0.5], 1500, seed=13)
    frame = pd.DataFrame(x, columns=list("abcd")).melt(var_name="model", value_name="score")
    frame["item"] = np.tile(np.arange(1500), 4)
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    page = tmp_path / "ranks.html"
    settings = ("--alpha", "0.1", "--n-bootstrap", "300")
    out = run_cli("ranks", "--scores", path, "--json", "--html", page, *settings)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    html = page.read_text()
    header = re.search(r"<thead><tr>(.*?)</tr></thead>", html).group(1)
    names = re.findall(r"<th[^>]*>(.*?)</th>", header)
    assert names == [
        "Rank", "Model", "Score", "SE", "90% interval", "Items", "Rank set", "Marginal set", "Tier"
    ]
    body = re.search(r"<tbody>(.*?)</tbody>", html).group(1)
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]
    marginal = {row["model"]: row for row in data["marginal"]}
    for cells, row in zip(rows, data["ranks"], strict=True):
        assert cells[1] == row["model"]
        span = lambda lo, hi: str(lo) if lo == hi else f"{lo}-{hi}"  # noqa: E731
        assert cells[6] == span(row["rank_low"], row["rank_high"])
        m = marginal[row["model"]]
        assert cells[7] == span(m["rank_low"], m["rank_high"]) and cells[8] == str(row["tier"])
        wilson = proportion_confint(row["score"] * 1500, 1500, alpha=0.1, method="wilson")
        assert (row["score_low"], row["score_high"]) == pytest.approx(wilson, rel=1e-12)
        low, high = (float(v) for v in cells[4].strip("[]").split(", "))
        assert low == pytest.approx(row["score_low"], abs=1e-4)
        assert high == pytest.approx(row["score_high"], abs=1e-4)
    text = run_cli("ranks", "--scores", path, *settings).stdout
    for row in data["ranks"]:
        line = next(t for t in text.splitlines() if f" {row['model']} " in t)
        m = marginal[row["model"]]
        assert line.split()[-3:] == [
            span(row["rank_low"], row["rank_high"]),
            span(m["rank_low"], m["rank_high"]),
            str(row["tier"]),
        ]


@pytest.mark.parametrize("value", ["abc", [300], 250.5])
def test_a_bootstrap_count_that_is_no_whole_number_is_one_line_error(value):
    """int() raised a ValueError/TypeError traceback on 'abc' and [300], and cut 250.5 to 250."""
    frame = pd.DataFrame(_leaderboard([0.8, 0.5], 300), columns=["a", "b"]).melt(
        var_name="model", value_name="score"
    )
    frame["item"] = np.tile(np.arange(300), 2)
    with pytest.raises(InputError, match=r"n_bootstrap must be (one number, )?a non-negative"):
        evalgap.ranks(frame, n_bootstrap=value)


def test_a_model_with_one_scored_item_is_left_out_and_said():
    """One model with a single score stopped the whole job ('every model needs scores on at
    least 2 items') without naming it; it is left out of that task's ranks, in the notes."""
    x = _leaderboard([0.8, 0.6, 0.5], 400)
    frame = pd.DataFrame(x, columns=list("abc")).melt(var_name="model", value_name="score")
    frame["item"] = np.tile(np.arange(400), 3)
    frame = frame[(frame["model"] != "c") | (frame["item"] == 0)]
    r = evalgap.ranks(frame, n_bootstrap=200)
    assert r.ranks["model"].tolist() == ["a", "b"]
    said = (
        "task all: 1 model has a score on 1 item only (a standard error needs 2) and is left "
        "out of its ranking (c)"
    )
    assert said in r.notes
    data = json.loads(json.dumps(r.to_dict()))
    assert said in data["notes"]
    # the audit and the card say it in the same words
    assert said in evalgap.audit(frame, n_bootstrap=0, n_rank_bootstrap=0).notes
