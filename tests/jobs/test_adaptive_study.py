"""simulate adaptive: rejections under the null stay within alpha (+ 2 Monte Carlo SE) looked
at after every item, a pair far apart is decided with fewer items than random, and every
surface says the same."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalgap import simulate
from evalgap.errors import InputError
from evalgap.jobs.adaptive_study import AdaptiveConfiguration, run_pair
from evalgap.stats.sequential import log_e_value
from evalgap.stats.stratified import fit_2pl


def test_null_rejections_stay_within_alpha_and_a_far_pair_is_decided_sooner():
    r = simulate.adaptive(
        [AdaptiveConfiguration("null", 0.2, 0.2, 600),
         AdaptiveConfiguration("apart", 0.6, 0.0, 1000)],
        n_trials=60, horizon=500, alpha=0.1,
    )  # fmt: skip
    null, apart = r.rows.iloc[0], r.rows.iloc[1]
    assert null["adaptive_rejected"] <= 0.1 + 2 * np.sqrt(0.1 * 0.9 / 60)
    assert np.isnan(null["ratio"]) or null["null"]
    assert apart["adaptive_rejected"] >= apart["random_rejected"] - 0.05
    assert apart["ratio"] < 0.9  # 0.81 here; 0.69 with 200 replicates (simulate adaptive)
    assert "replicates each" in r.verdict


def test_run_pair_decides_when_the_e_value_first_reaches_one_over_alpha():
    rng = np.random.default_rng(0)
    y = (rng.random((12, 300)) < 0.5).astype(float)
    fit = fit_2pl(y[:10])
    a, b = y[10], y[11]
    found = run_pair(a, b, fit, np.random.default_rng(1), adaptive=False, alpha=0.2)
    # the random design: the items in the order of the generator's permutation
    order = np.random.default_rng(1).permutation(300)
    wins = losses = 0
    want = None
    for count, j in enumerate(order, start=1):
        wins, losses = wins + (a[j] > b[j]), losses + (a[j] < b[j])
        if a[j] != b[j] and log_e_value(wins, losses) >= np.log(5):
            want = count
            break
    assert found["decided_at"] == want


def test_bad_settings_are_refused_and_the_cli_says_the_same(run_cli):
    with pytest.raises(InputError, match="horizon must be a whole number >= 1"):
        simulate.adaptive(n_trials=10, horizon=0)
    out = run_cli("simulate", "adaptive", "--n-trials", 10, "--horizon", 60, "--json")
    assert out.returncode == 0, out.stderr
    python = simulate.adaptive(n_trials=10, horizon=60).to_dict()
    assert json.loads(out.stdout) == json.loads(json.dumps(python))
    text = run_cli("simulate", "adaptive", "--n-trials", 10, "--horizon", 60)
    assert python["verdict"][1:40] in " ".join(text.stdout.split())
