"""Variance components over items x configurations: oracles, unbiasedness, coverage, tests.

Oracles: the textbook expected mean squares of the balanced two-way random model (computed
here from cell, item and configuration means), statsmodels' type-II sums of squares (the
fitted-constants reductions of an unbalanced design) and statsmodels' MixedLM with crossed
random effects (REML equals ANOVA on a balanced design when no estimate is negative).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from evalgap.errors import InputError
from evalgap.stats import config_components as cc

TRUTH = np.array([0.04, 0.01, 0.01, 0.03])  # item, configuration, item x configuration, residual


def _draw(rng, n_items, n_configurations, n_replicates, components=TRUTH, missing=0.0):
    """Normal scores of the crossed random model, each missing with probability ``missing``."""
    sd = np.sqrt(components)
    y = (
        rng.normal(0.6, sd[0], (n_items, 1, 1))
        + rng.normal(0, sd[1], (1, n_configurations, 1))
        + rng.normal(0, sd[2], (n_items, n_configurations, 1))
        + rng.normal(0, sd[3], (n_items, n_configurations, n_replicates))
    )
    if missing:
        y[rng.random(y.shape) < missing] = np.nan
        y[:, :, 0] = np.where(np.isnan(y[:, :, :]).all(axis=2), 0.6, y[:, :, 0])  # no empty cell
    return y


def _anova_oracle(y):
    """Balanced two-way random model with interaction: mean squares and EMS estimates."""
    i, c, r = y.shape
    grand = y.mean()
    cell = y.mean(axis=2)
    item = y.mean(axis=(1, 2))
    configuration = y.mean(axis=(0, 2))
    ms_item = r * c * ((item - grand) ** 2).sum() / (i - 1)
    ms_configuration = r * i * ((configuration - grand) ** 2).sum() / (c - 1)
    interaction = cell - item[:, None] - configuration[None, :] + grand
    ms_interaction = r * (interaction**2).sum() / ((i - 1) * (c - 1))
    ms_residual = ((y - cell[:, :, None]) ** 2).sum() / (i * c * (r - 1))
    estimates = [
        (ms_item - ms_interaction) / (r * c),
        (ms_configuration - ms_interaction) / (r * i),
        (ms_interaction - ms_residual) / r,
        ms_residual,
    ]
    p = sps.f.sf(ms_configuration / ms_interaction, c - 1, (i - 1) * (c - 1))
    return (
        np.array([ms_item, ms_configuration, ms_interaction, ms_residual]),
        np.array(estimates),
        p,
    )


@pytest.mark.parametrize("shape", [(25, 5, 3), (40, 2, 2), (8, 7, 4)])
def test_balanced_equals_the_expected_mean_squares_oracle(shape):
    """Max absolute difference from the oracle: below 1e-15 on these designs (asserted 1e-9)."""
    y = _draw(np.random.default_rng(sum(shape)), *shape)
    mean_squares, estimates, p = _anova_oracle(y)
    c = cc.decompose(y)
    assert c.balanced
    np.testing.assert_allclose(c.mean_squares, mean_squares, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(c.estimate, estimates, rtol=1e-9, atol=1e-9)
    assert c.configuration_test.p_value == pytest.approx(p, rel=1e-9)


def test_unbalanced_sums_of_squares_equal_statsmodels_type_ii():
    """Henderson III's reductions R(a|mu,b), R(b|mu,a), R(ab|mu,a,b) and the residual are the
    type-II sums of squares of the two-way model with interaction (no empty cell)."""
    formula = pytest.importorskip("statsmodels.formula.api")
    anova = pytest.importorskip("statsmodels.stats.anova")
    y = _draw(np.random.default_rng(5), 20, 4, 3, missing=0.3)
    item, configuration, replicate = np.nonzero(~np.isnan(y))
    frame = pd.DataFrame(
        {"y": y[item, configuration, replicate], "item": item, "configuration": configuration}
    )
    fit = formula.ols("y ~ C(item) * C(configuration)", data=frame).fit()
    table = anova.anova_lm(fit, typ=2)
    c = cc.decompose(y)
    assert not c.balanced
    expected = table["sum_sq"].to_numpy()  # item, configuration, interaction, residual
    np.testing.assert_allclose(c.mean_squares * c.mean_square_df, expected, rtol=1e-8)
    np.testing.assert_allclose(c.mean_square_df, table["df"].to_numpy())


def _mixedlm_reml(y):
    """REML components of MixedLM with crossed item, configuration and cell effects (as
    variance components of one group), fitted by BFGS to a gradient of 1e-12."""
    sm = pytest.importorskip("statsmodels.api")
    item, configuration, replicate = np.nonzero(~np.isnan(y))
    frame = pd.DataFrame(
        {
            "y": y[item, configuration, replicate],
            "item": item,
            "configuration": configuration,
            "cell": item * y.shape[1] + configuration,
            "group": 1,
        }
    )
    model = sm.MixedLM.from_formula(
        "y ~ 1",
        groups="group",
        re_formula="0",
        vc_formula={
            "item": "0 + C(item)",
            "configuration": "0 + C(configuration)",
            "cell": "0 + C(cell)",
        },
        data=frame,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(reml=True, method="bfgs", gtol=1e-12)
    by_name = dict(zip(fit.model.exog_vc.names, fit.vcomp, strict=True))
    return np.array([by_name["item"], by_name["configuration"], by_name["cell"], fit.scale])


@pytest.mark.parametrize(("seed", "shape"), [(4, (12, 3, 2)), (5, (15, 4, 3))])
def test_balanced_equals_statsmodels_mixedlm_with_crossed_effects(seed, shape):
    """REML of MixedLM equals the ANOVA estimates on a balanced design whose estimates are all
    positive (REML's estimating equations are then the expected-mean-square ones), to 1e-6;
    measured 4e-11 and below with BFGS at gtol 1e-12 (the default L-BFGS stops near 5e-7)."""
    y = _draw(np.random.default_rng(seed), *shape, components=np.array([0.04, 0.02, 0.02, 0.03]))
    estimate = cc.decompose(y).estimate
    assert (estimate > 0).all()
    np.testing.assert_allclose(estimate, _mixedlm_reml(y), rtol=0, atol=1e-6)
    np.testing.assert_allclose(cc.decompose_models(y[None]).estimate[0], estimate, rtol=1e-12)


@pytest.mark.slow
def test_unbalanced_estimates_agree_with_mixedlm_within_monte_carlo_error():
    """60 unbalanced designs (12 items x 6 configurations x 2 replicates, 20% of scores
    missing; seed 64; about 2 s per REML fit): method of moments and REML are different
    estimators on unbalanced data (correlated 0.98 to 0.99 design by design), so their means
    over the designs must agree within the Monte Carlo SE of those means (measured mean
    differences 4e-4, 1e-5, 1e-4, 2e-5 beside SEs of 3e-3, 1.5e-3, 1.1e-3, 7.5e-4), and each
    mean must be within 4 MC SE of the truth."""
    truth = np.array([0.04, 0.02, 0.02, 0.03])
    rng = np.random.default_rng(64)
    moments, reml = [], []
    for _ in range(60):
        y = _draw(rng, 12, 6, 2, components=truth, missing=0.2)
        moments.append(cc.decompose(y).estimate)
        reml.append(_mixedlm_reml(y))
    moments, reml = np.array(moments), np.array(reml)
    se = moments.std(axis=0, ddof=1) / np.sqrt(len(moments))
    assert (np.abs(moments.mean(axis=0) - reml.mean(axis=0)) < se).all()
    for estimates in (moments, reml):
        se = estimates.std(axis=0, ddof=1) / np.sqrt(len(estimates))
        assert (np.abs(estimates.mean(axis=0) - truth) < 4 * se).all()


def test_unbalanced_estimates_are_unbiased_with_empty_cells():
    """Over 300 unbalanced designs (30% of scores missing, some cells empty) each component's
    mean estimate is within 4 Monte Carlo SE of the truth."""
    rng = np.random.default_rng(11)
    estimates = []
    for _ in range(300):
        y = _draw(rng, 30, 5, 3)
        y[rng.random(y.shape) < 0.3] = np.nan
        estimates.append(cc.decompose(y).estimate)
    estimates = np.array(estimates)
    mc_se = estimates.std(axis=0, ddof=1) / np.sqrt(len(estimates))
    assert (np.abs(estimates.mean(axis=0) - TRUTH) < 4 * mc_se).all()


def _coverage(seed, n_simulations, shape, missing=0.0, components=TRUTH):
    rng = np.random.default_rng(seed)
    hits = np.zeros(4)
    for _ in range(n_simulations):
        c = cc.decompose(_draw(rng, *shape, components=components, missing=missing))
        hits += (c.lower <= components) & (components <= c.upper)
    return hits / n_simulations


def test_intervals_cover_each_component():
    """Seed 7, 600 balanced designs of 30 items x 6 configurations x 2 replicates: coverage of
    the 95% intervals 0.948, 0.953, 0.962, 0.952 (item, configuration, item x configuration,
    residual). Satterthwaite's interval, tried first, gave 0.926 for the item x configuration
    part at 1,000 designs of this shape (seed 2); the modified large-sample one 0.942."""
    coverage = _coverage(7, 600, (30, 6, 2))
    assert (coverage >= 0.93).all(), coverage


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shape", "missing", "components"),
    [
        ((30, 6, 2), 0.0, TRUTH),
        ((30, 6, 2), 0.0, np.array([0.04, 0.01, 0.002, 0.03])),
        ((100, 3, 2), 0.1, np.array([0.04, 0.005, 0.005, 0.05])),
        ((40, 8, 3), 0.25, np.array([0.04, 0.01, 0.005, 0.05])),
    ],
)
def test_intervals_cover_each_component_long(shape, missing, components):
    """4,000 designs per case (seed 17), balanced and unbalanced; coverage >= 0.93 each.

    Measured (item, configuration, item x configuration, residual): 0.950, 0.946, 0.950,
    0.957; 0.951, 0.951, 0.954, 0.957; 0.949, 0.948, 0.956, 0.956; 0.948, 0.951, 0.951, 0.946.
    """
    coverage = _coverage(17, 4000, shape, missing, components)
    assert (coverage >= 0.93).all(), coverage


def _rejections(seed, n_simulations, shape, components, missing=0.0, alpha=0.05):
    rng = np.random.default_rng(seed)
    p = [
        cc.decompose(
            _draw(rng, *shape, components=components, missing=missing)
        ).configuration_test.p_value
        for _ in range(n_simulations)
    ]
    return float(np.mean(np.array(p) < alpha))


def test_configuration_effect_test_has_its_size_and_power():
    """Seed 21, 1,500 balanced designs of 30 items x 4 configurations x 2 replicates, alpha
    0.05: size 0.044 with no configuration component (bound 0.05 + 2 MC SE = 0.061). Seed 22,
    ``sigma2_configuration = 0.006`` (an SD of 0.077 between configurations beside an item x
    configuration SD of 0.1): power 0.809, where the exact power is 0.803 (``F / lambda`` is
    F(3, 87) with ``lambda = 1 + r I s2_c / (s2_e + r s2_ic)``)."""
    null = TRUTH * [1, 0, 1, 1]
    size = _rejections(21, 1500, (30, 4, 2), null)
    assert size <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 1500)
    power = _rejections(22, 1500, (30, 4, 2), null + np.array([0, 0.006, 0, 0]))
    noncentrality = 1 + 2 * 30 * 0.006 / (0.03 + 2 * 0.01)
    exact = sps.f.sf(sps.f.isf(0.05, 3, 87) / noncentrality, 3, 87)
    assert abs(power - exact) < 3 * np.sqrt(exact * (1 - exact) / 1500)


@pytest.mark.slow
def test_configuration_effect_test_size_unbalanced():
    """The approximate F of an unbalanced design (25% missing), 4,000 designs, seed 23: size
    0.047 (bound 0.057)."""
    size = _rejections(23, 4000, (30, 4, 3), TRUTH * [1, 0, 1, 1], missing=0.25)
    assert size <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 4000)


def _pair(rng, shift_b, n_items=40, n_configurations=4, n_replicates=2):
    """Two models on the same items and configurations; B's configuration shifts are A's plus
    ``shift_b`` (zero: the gap does not depend on the configuration)."""
    a = _draw(rng, n_items, n_configurations, n_replicates)
    configuration = rng.normal(0, np.sqrt(shift_b), (1, n_configurations, 1))
    shared = a - rng.normal(0, 0.1, (n_items, n_configurations, n_replicates))
    return a, shared - 0.05 + configuration


def test_model_configuration_interaction_size_and_power():
    """Seed 31, 1,500 pairs of 40 items x 4 configurations x 2 replicates whose configurations
    shift both models alike: size 0.049 (bound 0.061). Seed 32, B's shifts differ from A's
    with variance 0.001 (the gap's residual variance is 0.01): power 0.80."""
    rng = np.random.default_rng(31)
    size = np.mean(
        [cc.model_configuration_interaction(*_pair(rng, 0.0)).p_value < 0.05 for _ in range(1500)]
    )
    assert size <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 1500)
    rng = np.random.default_rng(32)
    power = np.mean(
        [cc.model_configuration_interaction(*_pair(rng, 0.001)).p_value < 0.05 for _ in range(1500)]
    )
    assert power >= 0.7


def test_gap_components_are_the_components_of_the_difference():
    rng = np.random.default_rng(4)
    a, b = _pair(rng, 0.002)
    b[0, 0, 1] = np.nan  # a score missing in one model leaves that replicate out
    gap = cc.decompose_gap(a, b)
    np.testing.assert_allclose(gap.estimate, cc.decompose(a - b).estimate)
    assert gap.n_observations == a.size - 1 and not gap.balanced


def test_the_standard_error_predicts_the_spread_of_means_over_random_configurations():
    """Means over 200 items under 1 and under 4 configurations drawn afresh: their SD matches
    the SE of the true components with the configurations random, and the fixed-configuration
    SE (which leaves the configuration component out) understates it."""
    rng = np.random.default_rng(41)
    for n_configurations in (1, 4):
        means = [np.nanmean(_draw(rng, 200, n_configurations, 2)) for _ in range(2000)]
        random = cc.standard_error(TRUTH, 200, n_configurations, 2)
        fixed = cc.standard_error(TRUTH, 200, n_configurations, 2, configurations="fixed")
        assert np.std(means) == pytest.approx(random, rel=0.06)
        assert fixed < 0.75 * np.std(means)


def test_the_mean_interval_is_the_closed_form_on_a_balanced_design():
    y = _draw(np.random.default_rng(12), 30, 4, 2)
    c = cc.decompose(y)
    ms_item, ms_configuration, ms_interaction, _ = _anova_oracle(y)[0]
    cells = y.size
    assert c.mean_random.standard_error == pytest.approx(
        np.sqrt((ms_item + ms_configuration - ms_interaction) / cells), rel=1e-9
    )
    assert c.mean_fixed.standard_error == pytest.approx(np.sqrt(ms_item / cells), rel=1e-9)
    # fixed configurations: one mean square, so the exact t interval on I - 1 df
    half = sps.t.isf(0.025, 29) * np.sqrt(ms_item / cells)
    assert c.mean_fixed.upper == pytest.approx(y.mean() + half, rel=1e-9)
    assert c.mean_fixed.df == pytest.approx(29)


def _mean_coverage(seed, n_simulations, shape, components=TRUTH, missing=0.0):
    rng = np.random.default_rng(seed)
    hits = np.zeros(2)
    for _ in range(n_simulations):
        c = cc.decompose(_draw(rng, *shape, components=components, missing=missing))
        random, fixed = c.mean_random, c.mean_fixed
        hits += [random.lower <= 0.6 <= random.upper, fixed.lower <= 0.6 <= fixed.upper]
    return hits / n_simulations


def test_the_mean_interval_covers_when_configurations_shift_scores():
    """Seed 52, 1,000 designs of 30 items x 4 configurations x 2 replicates whose
    configurations shift every score (``s2_configuration = 0.01``): the interval with the
    configurations random covers 0.971, the fixed-configuration one 0.781. Satterthwaite's t
    interval, tried first, covered 0.944 (seed 52) and 0.937 (seed 51) at 1,500 designs."""
    random, fixed = _mean_coverage(52, 1000, (30, 4, 2))
    assert random >= 0.94
    assert fixed < 0.85


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shape", "components", "missing"),
    [
        ((200, 3, 1), TRUTH, 0.0),
        ((30, 8, 2), TRUTH, 0.0),
        ((30, 3, 2), TRUTH * [1, 0.3, 1, 1], 0.0),
        ((30, 4, 2), TRUTH * [1, 0, 1, 1], 0.0),
        ((40, 5, 3), TRUTH, 0.25),
    ],
)
def test_the_mean_interval_covers_long(shape, components, missing):
    """4,000 designs per case, seed 53: the random-configuration interval covers >= 0.94.

    Measured (random, fixed), in the order of the cases: 0.960, 0.414; 0.964, 0.861; 0.979,
    0.876; 0.962, 0.944; 0.965, 0.766 (with the per-term t quantiles; conservative where
    several mean squares weigh alike)."""
    random, _ = _mean_coverage(53, 4000, shape, components, missing)
    assert random >= 0.94


def test_the_standard_error_broadcasts_and_matches_the_method():
    se = cc.standard_error(TRUTH, np.array([100, 1000]), np.array([[1], [4]]))
    assert se.shape == (2, 2)
    assert se[0, 0] == pytest.approx(np.sqrt(0.04 / 100 + 0.01 + 0.01 / 100 + 0.03 / 100))
    c = cc.decompose(_draw(np.random.default_rng(2), 30, 4, 2))
    assert c.standard_error(500, 3) == cc.standard_error(c.estimate, 500, 3)


def test_without_replicates_the_residual_sits_in_the_interaction():
    y = _draw(np.random.default_rng(6), 30, 5, 1)
    c = cc.decompose(y)
    assert np.isnan(c.estimate[3]) and np.isnan(c.interaction_test.p_value)
    ms_item, _, ms_interaction = _anova_oracle(np.repeat(y, 2, axis=2))[0][:3]
    # each score twice: the means stay, the item and interaction mean squares double
    assert c.estimate[2] == pytest.approx(ms_interaction / 2)
    assert c.estimate[0] == pytest.approx((ms_item - ms_interaction) / 2 / 5)
    assert c.share[:3].sum() == pytest.approx(1.0)


def test_shares_sum_to_one_and_negative_estimates_count_as_zero():
    c = cc.decompose(_draw(np.random.default_rng(8), 30, 4, 2, components=TRUTH * [1, 0, 1, 1]))
    assert c.share.sum() == pytest.approx(1.0)
    assert ((c.share == 0) == (c.estimate <= 0)).all()
    assert c.lower[c.estimate <= 0].max(initial=0.0) == 0.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cc.decompose(np.zeros((5,))), "must be an"),
        (lambda: cc.decompose([["a", "b"], ["c", "d"]]), "array of numbers"),
        (lambda: cc.decompose(np.zeros((5, 1, 2))), "at least 2 items and 2 configurations"),
        (lambda: cc.decompose_gap(np.zeros((5, 2)), np.zeros((5, 3))), "same shape"),
        (lambda: cc.decompose(np.full((4, 3, 2), np.nan)), "at least one score"),
        (lambda: cc.standard_error([1, 2], 10), "4 numbers"),
        (lambda: cc.standard_error(TRUTH, 0), "at least 1"),
        (lambda: cc.decompose(np.ones((4, 3)), confidence=1.5), "confidence"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_a_disconnected_design_is_refused():
    """Items 0-4 are run only under configurations 0-1 and items 5-9 only under 2-3: the
    configuration effect cannot be told from the items'."""
    y = _draw(np.random.default_rng(9), 10, 4, 2)
    y[:5, 2:] = np.nan
    y[5:, :2] = np.nan
    with pytest.raises(InputError, match="not connected"):
        cc.decompose(y)


def _stack(seed, n_models, shape, missing=0.0):
    rng = np.random.default_rng(seed)
    return np.stack([_draw(rng, *shape, missing=missing) for _ in range(n_models)])


def test_many_models_balanced_equal_the_expected_mean_squares_oracle():
    """One shared (balanced) pattern: every model's mean squares, estimates and p-value are
    the closed-form ANOVA ones, model by model."""
    y = _stack(60, 5, (25, 4, 3))
    many = cc.decompose_models(y)
    assert len(many) == 5 and many.balanced.all()
    for m in range(5):
        mean_squares, estimates, p = _anova_oracle(y[m])
        np.testing.assert_allclose(many.mean_squares[m], mean_squares, rtol=1e-9)
        np.testing.assert_allclose(many.estimate[m], estimates, rtol=1e-9, atol=1e-12)
        assert many.configuration_test[m, 3] == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(
    "case", ["own patterns", "shared unbalanced pattern", "replicated beside not"]
)
def test_many_models_equal_one_fit_per_model(case):
    """The stacked fit is ``decompose`` model by model, whichever models share a pattern of
    missing scores (and models with one score per cell beside models with replicates)."""
    y = _stack(61, 4, (30, 5, 3), missing=0.2)
    if case == "shared unbalanced pattern":
        y[np.isnan(y).any(axis=0)[None].repeat(4, 0)] = np.nan
    if case == "replicated beside not":
        y[1, :, :, 1:] = np.nan
        y[1, :, :, 0] = np.where(np.isnan(y[1, :, :, 0]), 0.6, y[1, :, :, 0])
    many = cc.decompose_models(y)
    for m in range(4):
        one = cc.decompose(y[m])
        got = many[m]
        for name in ("estimate", "lower", "upper", "df", "share", "mean_squares"):
            np.testing.assert_allclose(
                getattr(got, name), getattr(one, name), rtol=1e-10, atol=1e-15, equal_nan=True
            )
        assert got.configuration_test == pytest.approx(one.configuration_test, nan_ok=True)
        assert got.mean_random == pytest.approx(one.mean_random, nan_ok=True)
        assert got.n_observations == one.n_observations and got.balanced == one.balanced
    if case == "replicated beside not":
        assert np.isnan(many.estimate[1, 3]) and not np.isnan(many.estimate[0, 3])


def test_many_models_to_dict_names_the_test_and_interval_fields():
    many = cc.decompose_models(_stack(62, 2, (10, 3, 2)))
    out = many.to_dict()
    assert len(out["estimate"]) == 2 and len(out["estimate"][0]) == 4
    assert set(out["configuration_test"]) == {"statistic", "df_numerator", "df_denominator",
                                              "p_value"}  # fmt: skip
    assert out["mean_random"]["mean"] == many.mean.tolist()


def test_many_models_name_the_model_whose_design_fails():
    y = _stack(63, 3, (10, 4, 2))
    y[2, :5, 2:] = np.nan
    y[2, 5:, :2] = np.nan
    with pytest.raises(InputError, match=r"not connected.*model 2 of 3"):
        cc.decompose_models(y)
    with pytest.raises(InputError, match=r"\(models, items"):
        cc.decompose_models(np.zeros((3, 4)))


# --- planning across configurations ---------------------------------------------------------

PLANNED = np.array([0.04, 0.0004, 0.01, 0.2])  # a gap's components: item, config, ic, residual


def _planned_power(seed, components, delta, n, c, r, n_trials):
    """Share of simulated balanced designs (normal gaps) whose random-configuration interval
    excludes 0."""
    rng = np.random.default_rng(seed)
    sd = np.sqrt(components)
    rejected = 0
    for start in range(0, n_trials, 250):
        t = min(250, n_trials - start)
        y = (
            delta
            + rng.normal(0, sd[0], (t, n, 1, 1))
            + rng.normal(0, sd[1], (t, 1, c, 1))
            + rng.normal(0, sd[2], (t, n, c, 1))
            + rng.normal(0, sd[3], (t, n, c, r))
        )
        m = cc.decompose_models(y).mean_random
        rejected += int(((m[:, 3] > 0) | (m[:, 4] < 0)).sum())
    return rejected / n_trials


def test_with_normal_quantiles_the_plan_is_the_closed_form():
    """With many items the t quantiles are normal, and with the configurations fixed the
    items needed are ``(z_a + z_b)^2 (s2_i + s2_ic / C + s2_e / (C R)) / delta^2``; with
    them random the configurations needed start from the closed form
    ``(s2_c + s2_ic / N + s2_e / (N R)) / (delta^2 / q^2 - s2_i / N)`` and exceed it by the
    t quantiles of their few df only."""
    q2 = (sps.norm.isf(0.025) + sps.norm.ppf(0.8)) ** 2
    c, r = np.array([2, 4, 8]), 3
    closed = q2 * (0.04 + 0.01 / c + 0.2 / (c * r)) / 0.004**2
    fixed = cc.required_items(PLANNED, 0.004, c, r, configurations="fixed")
    np.testing.assert_allclose(fixed, np.ceil(closed), rtol=2e-4)
    n = np.array([1000, 4000, 100_000])
    closed_c = (0.0004 + 0.01 / n + 0.2 / (n * 2)) / (0.03**2 / q2 - 0.04 / n)
    needed = np.asarray(cc.required_configurations(PLANNED, 0.03, n, 2))
    assert (needed >= np.ceil(closed_c)).all() and (needed <= 1.25 * closed_c + 2).all()


def test_the_planned_counts_are_the_least_that_resolve():
    """Each count resolves ``delta`` and one fewer does not (the search is exact)."""
    n = np.array([800.0, 3000.0])
    c = np.asarray(cc.required_configurations(PLANNED, 0.05, n, 2))
    assert cc._resolves(PLANNED, 0.05, n, c, np.full(2, 2.0), 0.05, 0.8, "random").all()
    assert not cc._resolves(PLANNED, 0.05, n, c - 1, np.full(2, 2.0), 0.05, 0.8, "random").any()
    items = cc.required_items(PLANNED, 0.05, 6, 2)
    assert cc._resolves(PLANNED, 0.05, items, 6.0, 2.0, 0.05, 0.8, "random")
    assert not cc._resolves(PLANNED, 0.05, items - 1, 6.0, 2.0, 0.05, 0.8, "random")
    assert np.isinf(cc.required_items(PLANNED, 0.02, 2, 2))  # the configurations' term alone
    assert np.isinf(cc.required_configurations(PLANNED, 0.05, 10, 2))  # the items' term alone


@pytest.mark.parametrize(("delta", "c", "r"), [(0.05, 8, 1), (0.05, 4, 2)])
def test_the_planned_design_has_its_power(delta, c, r):
    """At the items the plan asks for, 1,500 simulated designs (seed 71) reject a gap of
    ``delta`` with the planned power 0.8 within 3 Monte Carlo SE: measured 0.791 (8
    configurations, 300 items) and 0.793 (4 configurations, 986 items). The plan's normal
    power quantile, tried first, gave 0.77 with 4 configurations (878 items, seed 2)."""
    n = int(cc.required_items(PLANNED, delta, c, r))
    power = _planned_power(71, PLANNED, delta, n, c, r, 1500)
    assert abs(power - 0.8) < 3 * np.sqrt(0.8 * 0.2 / 1500), (n, power)


def test_the_cheapest_design_is_the_least_cost_of_the_grid():
    costs = dict(cost_per_item=1.0, cost_per_run=0.05, cost_per_configuration=200.0)
    best = cc.cheapest_design(PLANNED, 0.03, **costs, max_configurations=20, max_runs=5)
    grid = [
        (n * 1.0 + 2 * n * c * r * 0.05 + c * 200.0, c, r, n)
        for c in range(2, 21)
        for r in range(1, 6)
        if np.isfinite(n := float(cc.required_items(PLANNED, 0.03, c, r)))
    ]
    cost, c, r, n = min(grid)
    assert (best.cost, best.n_configurations, best.n_runs, best.n_items) == (cost, c, r, n)
    assert best.standard_error == pytest.approx(float(cc.standard_error(PLANNED, n, c, r)))
    dear = cc.cheapest_design(PLANNED, 0.03, **{**costs, "cost_per_configuration": 1e6},
                              max_configurations=20, max_runs=5)  # fmt: skip
    assert dear.n_configurations < best.n_configurations
    assert cc.cheapest_design(PLANNED, 0.001, max_configurations=3) is None


def test_the_configuration_scales_required_n_is_the_plans():
    """``normal_required_items`` is Eq. 3 with the configuration term taken off the gap, and
    the configuration scale's N* (compare --configurations random) is the plan's
    ``required_items``, which starts from it (one N* for compare and plan)."""
    from evalgap.stats import pair_estimate

    k = (sps.norm.isf(0.025) + sps.norm.ppf(0.8)) ** 2
    s2 = np.array([0.04, 0.0004, 0.01, 0.2])
    expected = k * (0.04 + 0.01 / 4 + 0.2 / 8) / (0.05**2 - k * 0.0004 / 4)
    assert cc.normal_required_items(s2, 0.05, 4, 2, k=k) == pytest.approx(expected, rel=1e-12)
    assert np.isinf(cc.normal_required_items(s2, 0.01, 4, 2, k=k))
    rng = np.random.default_rng(5)
    a = rng.normal(0, 1, (60, 4, 2)) + np.array([0.0, 0.2, -0.2, 0.1])[None, :, None]
    b = a - 0.3 + rng.normal(0, 0.5, (60, 4, 2))
    e = pair_estimate.configuration(a, b)
    components = np.maximum(cc.decompose_gap(a, b).estimate, 0)
    assert e.required_n == float(cc.required_items(components, e.delta, 4, 2))
    # its MDE by the same rule: the gap N* items would resolve is at most delta
    assert e.parts["mde"] == float(cc.detectable_gap(components, 60, 4, 2))
    assert float(cc.detectable_gap(components, e.required_n, 4, 2)) <= e.delta
    assert e.required_n >= float(cc.normal_required_items(components, e.delta, 4, 2, k=k))
