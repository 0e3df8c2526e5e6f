"""Battles clustered by prompt: the clustered sandwich equals statsmodels' cluster-robust
covariance of the same logistic regression, the cluster bootstrap refits the drawn prompts'
battles, and where prompts carry shared effects the clustered intervals cover while
battle-level ones do not."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.stats import bradley_terry as bt


def _prompt_arena(n_models, n_prompts, per_prompt, spread, seed, strength=None):
    """Battles on prompts that each favour some models (a prompt x model effect of SD
    ``spread`` shared by that prompt's battles); no ties."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(1.0, -1.0, n_models) if strength is None else strength
    prompt = np.repeat(np.arange(n_prompts), per_prompt)
    a = rng.integers(0, n_models, prompt.size)
    b = (a + rng.integers(1, n_models, prompt.size)) % n_models
    effect = rng.normal(0.0, spread, (n_prompts, n_models))
    z = strength[a] - strength[b] + effect[prompt, a] - effect[prompt, b]
    y = (rng.random(prompt.size) < 1 / (1 + np.exp(-z))).astype(float)
    return a, b, y, prompt


def test_the_clustered_sandwich_equals_statsmodels_cluster_robust_covariance():
    sm = pytest.importorskip("statsmodels.api")
    a, b, y, prompt = _prompt_arena(8, 600, 6, 0.8, seed=1)
    fit = bt.fit(bt.battles(a, b, y, cluster=prompt))
    k = 8
    design = np.zeros((y.size, k))
    design[np.arange(y.size), a] += 1
    design[np.arange(y.size), b] -= 1
    glm = sm.GLM(y, design[:, 1:], family=sm.families.Binomial()).fit(
        tol=1e-14, cov_type="cluster", cov_kwds={"groups": prompt, "use_correction": False}
    )
    embed = np.zeros((k, k))
    embed[1:, 1:] = glm.cov_params()
    centring = np.eye(k) - 1 / k
    np.testing.assert_allclose(fit.robust_covariance, centring @ embed @ centring, atol=1e-10)
    # one battle per cluster: the battle-level sandwich
    one = bt.fit(bt.battles(a, b, y, cluster=np.arange(y.size)))
    plain = bt.fit(bt.battles(a, b, y))
    np.testing.assert_allclose(one.robust_covariance, plain.robust_covariance, atol=1e-12)


def test_the_cluster_bootstrap_refits_the_drawn_prompts_battles():
    a, b, y, prompt = _prompt_arena(5, 300, 4, 0.5, seed=2)
    data = bt.battles(a, b, y, cluster=prompt)
    draws = bt.bootstrap(data, 4, seed=7)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(7)))
    drawn = bt._multinomial_counts(rng, np.ones(300, np.int64), 4).T.astype(np.int64)
    for r in range(4):
        weight = drawn[r][prompt]  # each battle as often as its prompt was drawn
        keep = weight > 0
        again = bt.fit(bt.battles(np.repeat(a[keep], weight[keep]),
                                  np.repeat(b[keep], weight[keep]),
                                  np.repeat(y[keep], weight[keep]), 5))  # fmt: skip
        np.testing.assert_allclose(draws[r], again.scores, atol=1e-8)


def test_clustered_intervals_cover_where_battle_level_ones_do_not():
    # the truth: the scores of the same arena process on 2,000 times the prompts; each
    # replicate is 60 prompts of 20 battles, prompts favouring models with SD 2
    a, b, y, prompt = _prompt_arena(6, 120_000, 20, 2.0, seed=0)
    truth = bt.fit(bt.battles(a, b, y)).scores
    runs, covered = 200, {"clustered": 0, "battles": 0}
    for s in range(runs):
        a, b, y, prompt = _prompt_arena(6, 60, 20, 2.0, seed=100 + s)
        for name, cluster in (("clustered", prompt), ("battles", None)):
            fit = bt.fit(bt.battles(a, b, y, cluster=cluster))
            gap, se = fit.scores[0] - fit.scores[5], np.sqrt(
                fit.robust_covariance[0, 0] + fit.robust_covariance[5, 5]
                - 2 * fit.robust_covariance[0, 5]
            )  # fmt: skip
            covered[name] += abs(gap - (truth[0] - truth[5])) <= 1.96 * se
    floor = 0.95 - 2 * np.sqrt(0.95 * 0.05 / runs)
    assert covered["clustered"] / runs >= floor, covered
    assert covered["battles"] / runs < floor, covered  # 0.81 here; clustered 0.975
