"""One pair estimate per scale: the numbers compare reported before the estimate existed (to
1e-12), independent oracles (scipy's paired t, statsmodels' exact McNemar, PPI++ and the
design-based variance written out by hand), vectorized counts, and the registry."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from evalgap.errors import InputError
from evalgap.jobs.pair_tests import pair_tests
from evalgap.stats import pair_estimate as pe
from evalgap.stats.power import round_up, z_sum_squared


def graded_pair(seed=11, n=300):
    rng = np.random.default_rng(seed)
    a = np.clip(rng.normal(0.6, 0.2, n), 0, 1)
    b = np.clip(a - 0.03 + rng.normal(0, 0.15, n), 0, 1)
    return a, b


def judged_pair(seed=0, n=600, every=5, graded=False, tasks=False):
    """Two judged models, both gold-labelled on every ``every``-th item, A alone on a few."""
    rng = np.random.default_rng(seed)
    out = []
    for skill, lenient in ((0.65, 0.0), (0.55, 0.15)):
        truth = (rng.random(n) < skill).astype(float)
        if graded:
            judge = np.clip(truth * 0.7 + rng.random(n) * 0.3 + lenient, 0, 1)
        else:
            judge = np.where(rng.random(n) < 0.9, truth, 1 - truth)
            judge = np.maximum(judge, (truth == 0) & (rng.random(n) < lenient)).astype(float)
        out.append((judge, np.where(np.arange(n) % every == 0, truth, np.nan)))
    (ja, ga), (jb, gb) = out
    ga[1:40:every] = 1.0  # a few labels of A alone: they never enter the gap
    strata = np.where(np.arange(n) % 2 == 0, "t1", "t2") if tasks else None
    return ja, jb, ga, gb, strata


def design_sample(seed=4, n=200):
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.7).astype(float)
    b = (rng.random(n) < 0.6).astype(float)
    w = np.where(np.arange(n) < 80, 5.0, 1.5)
    strata = np.where(np.arange(n) < 80, "s1", "s2")
    sizes = np.where(np.arange(n) < 80, 400.0, 180.0)
    return a, b, w, strata, sizes


# What compare, compare --gold-column and compare --weights reported for these inputs before
# the pair estimate existed (delta, se, ci low, ci high, p, N*, q[, effective n, statistic]):
# p is the exact McNemar test (binary) or the paired t test (graded); N* is rounded up, and
# the gold scale's counts gold labels.
REPORTED = {
    "counts two-sided": [
        0.004580760804620594, 0.0023221758590311215, 2.257188584386255e-05,
        0.009145288189679912, 0.0535863776582948, 20256, 0.4957666891472626
    ],
    "counts greater": [
        0.004580760804620594, 0.0023221758590311215, 2.257188584386255e-05,
        0.009145288189679912, 0.0267931888291474, 15956, 0.6293857013179772
    ],
    "counts less": [
        0.004580760804620594, 0.0023221758590311215, 2.257188584386255e-05,
        0.009145288189679912, 0.9781028966131871, None, 0.0
    ],
    "counts too few": [
        0.07692307692307693, 0.04266924586347916, -0.026442397578030352,
        0.18947347683801047, 0.25, None, None
    ],
    "graded two-sided": [
        0.03014379980097348, 0.008461149140660087, 0.01346503222307198,
        0.04682256737887498, 0.00043652180492293906, 186, 1.6170729727302926
    ],
    "graded less": [
        0.03014379980097348, 0.008461149140660087, 0.01346503222307198,
        0.04682256737887498, 0.9997817390975385, None, 0.0
    ],
    "graded bootstrap": [
        0.03014379980097348, 0.008461149140660087, 0.013432243985077846,
        0.04690154434395224, 0.00043652180492293906, 186, 1.6170729727302926
    ],
    "gold graded=False tasks=False": [
        0.03381961177767503, 0.0450751095001626, -0.05543360697487997, 0.12307283053023002,
        0.45455821422935144, None, 0.07125358779583801, 256.29350051762657,
        0.750294611653756
    ],
    "gold graded=False tasks=True": [
        0.03226877094787956, 0.045566554637215734, -0.05797818829887303,
        0.12251573019463216, 0.48025659458563, None, 0.06348429336998064,
        252.92033218958798, 0.7081678921040164
    ],
    "gold graded=True tasks=False": [
        0.09457231956470709, 0.03585508660729617, 0.023575667003247064, 0.1655689721261671,
        0.009464065492645252, 165, 0.8578405512541366, 396.06310280727945,
        2.6376263039192467
    ],
    "gold graded=True tasks=True": [
        0.09457231956470705, 0.03601910756014928, 0.023244680408134544,
        0.16589995872127955, 0.009795035676863899, 169, 0.8500318044357353,
        395.30025535163486, 2.625615290628125
    ],
    "design plain": [
        0.13189655172413792, 0.052514429837593815, 0.02897016057379842, 0.2348229428744774,
        0.012017673676129303, 249, 0.8032128514056225, 148.19383259911893,
        2.5116249406504334
    ],
    "design strata": [
        0.13189655172413792, 0.05266822770012825, 0.02866872230233168, 0.23512438114594414,
        0.012269718337644713, 251, 0.796812749003984, 148.19383259911893,
        2.5042906792896837
    ],
    "design sizes": [
        0.13189655172413792, 0.04533772487002443, 0.04303624383790411, 0.22075685961037173,
        0.0036235388219024735, 186, 1.075268817204301, 148.19383259911893,
        2.9092009381208026
    ],
    "design greater": [
        0.13189655172413792, 0.05266822770012825, 0.02866872230233168, 0.23512438114594414,
        0.00613485916882235, 198, 1.0101010101010102, 148.19383259911893,
        2.5042906792896837
    ],
}  # fmt: skip


def _close(got, want):
    """Equal to 1e-12 (relative), None standing for NaN (a figure not estimated)."""
    if want is None:
        return got is None or (isinstance(got, float) and math.isnan(got))
    return got == pytest.approx(want, rel=1e-12, abs=1e-15)


def _as_reported(e, *, whole=None):
    """The estimate's figures in the order of ``REPORTED``; N* rounded as the job rounds it."""
    required = round_up(e.required_n) if whole is None else whole(e.required_n)
    q = float(e.resolution_ratio)
    return [float(e.delta), float(e.se), float(e.ci.low), float(e.ci.high), float(e.p_value),
            required, None if math.isnan(q) else q]  # fmt: skip


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert _close(g, w), (got, want)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_counts_give_what_compare_reported(alternative):
    e = pe.paired(counts=(7986, 295, 249, 1512), alternative=alternative)
    _check(_as_reported(e), REPORTED[f"counts {alternative}"])
    assert (e.scale, e.n_items, e.effective_n, e.df) == ("paired", 10042, 10042.0, math.inf)
    assert (e.ci.method, e.ci.level) == ("newcombe", 0.95)
    assert e.resolved is np.False_ or e.resolved is False
    if alternative == "less":  # the gap is on the untested side: no number of items
        assert e.required_n == math.inf and e.resolution_ratio == 0.0


def test_paired_below_the_minimum_items_estimates_no_required_n():
    e = pe.paired(counts=(30, 3, 0, 6))
    _check(_as_reported(e), REPORTED["counts too few"])
    assert math.isnan(e.required_n) and math.isnan(e.resolution_ratio) and not e.resolved


@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_paired_graded_gives_what_compare_reported(alternative):
    a, b = graded_pair()
    e = pe.paired(a, b, alternative=alternative)
    _check(_as_reported(e), REPORTED[f"graded {alternative}"])
    assert (e.ci.method, e.df, e.n_items) == ("paired_t", 299.0, 300)


def test_paired_graded_reports_the_bootstrap_interval_compare_gives_it():
    from evalgap.jobs.compare_pair import compare_scores

    a, b = graded_pair()
    boot = compare_scores(a, b, n_bootstrap_required_n=0, n_permutations=0).bootstrap
    e = pe.paired(a, b, interval=boot.ci)
    _check(_as_reported(e), REPORTED["graded bootstrap"])
    assert e.ci is boot.ci and e.ci.method == "bootstrap_percentile"


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_graded_is_scipy_ttest_rel(alternative):
    a, b = graded_pair(seed=2, n=80)
    e = pe.paired(a, b, alternative=alternative, alpha=0.1)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert float(e.p_value) == pytest.approx(ref.pvalue, rel=1e-12)
    assert e.parts["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert e.df == ref.df == 79
    ci = stats.ttest_rel(a, b).confidence_interval(0.9)
    assert (float(e.ci.low), float(e.ci.high)) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert float(e.delta) == pytest.approx(np.mean(a - b), rel=1e-12)
    assert float(e.se) == pytest.approx(np.std(a - b) / np.sqrt(80), rel=1e-12)  # Eq. 1, plug-in
    # N* is Eq. 3 on the plug-in SD (it is well above its floor here)
    k = z_sum_squared(0.1, 0.8, alternative)
    if alternative != "less":
        assert float(e.required_n) == pytest.approx(k * np.var(a - b) / np.mean(a - b) ** 2)
        assert float(e.resolution_ratio) == pytest.approx(80 / float(e.required_n), rel=1e-12)


def test_paired_binary_is_statsmodels_exact_mcnemar_and_newcombes_example():
    from statsmodels.stats.contingency_tables import mcnemar

    rng = np.random.default_rng(5)
    a = (rng.random(400) < 0.7).astype(float)
    b = np.where(rng.random(400) < 0.8, a, 1 - a)
    e = pe.paired(a, b)
    table = [[np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))],
             [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))]]  # fmt: skip
    assert float(e.p_value) == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert e == pe.paired(counts=tuple(int(c) for c in np.ravel(table)))  # scores = their counts
    # Newcombe (1998), Table II, example (36, 12, 2, 0): 0.0569 to 0.3404
    ci = pe.paired(counts=(36, 12, 2, 0)).ci
    assert (round(float(ci.low), 4), round(float(ci.high), 4)) == (0.0569, 0.3404)


def test_paired_is_vectorized_over_counts_and_agrees_with_the_pair_tests():
    rng = np.random.default_rng(8)
    cells = rng.integers(0, 400, size=(4, 50))
    cells[1, :5] = [0, 1, 2, 3, 0]  # too few differing items on some pairs
    cells[2, :5] = [0, 0, 1, 2, 0]
    e = pe.paired(counts=tuple(cells), alternative="greater")
    s_b, s_c = cells[1], cells[2]
    n = cells.sum(axis=0)
    delta = (s_b - s_c) / n
    sd = np.sqrt((s_b + s_c) / n - delta**2)
    pt = pair_tests(
        binary=True, n_items=n, delta=delta, sd_diff=sd, a_only=s_b, b_only=s_c,
        both_correct=cells[0], both_wrong=cells[3], alpha=0.05, power=0.8,
        alternative="greater",
    )  # fmt: skip
    np.testing.assert_allclose(e.p_value, pt.p_exact, rtol=1e-12)
    np.testing.assert_allclose(e.ci.low, pt.delta_low, rtol=1e-12)
    np.testing.assert_allclose(e.required_n, pt.required_n, rtol=1e-12)
    np.testing.assert_allclose(e.resolution_ratio, pt.resolution_ratio, rtol=1e-12)
    assert np.isnan(e.required_n[:5]).sum() >= 2
    for k in (0, 7, 31):  # each pair alone gives the same
        one = pe.paired(counts=tuple(int(c) for c in cells[:, k]), alternative="greater")
        assert float(one.delta) == pytest.approx(e.delta[k], rel=1e-12)
        assert float(one.p_value) == pytest.approx(e.p_value[k], rel=1e-12)
    assert json.dumps(e.to_dict())  # arrays, NaN as None


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("tasks", [False, True])
def test_gold_gives_what_compare_gold_reported(graded, tasks):
    ja, jb, ga, gb, strata = judged_pair(graded=graded, tasks=tasks)
    e = pe.gold(ja, jb, gold_a=ga, gold_b=gb, strata=strata)
    want = REPORTED[f"gold graded={graded} tasks={tasks}"]
    got = _as_reported(e, whole=lambda x: int(x) if math.isfinite(x) else None)
    _check([*got, float(e.effective_n), e.parts["statistic"]], want)
    assert (e.scale, e.n_items, e.ci.method) == ("gold", 600, "t (PPI++)")
    if not tasks:
        assert e.df == 119.0  # n_gold - 1: the 120 items labelled for both models


def test_gold_is_ppi_written_out():
    ja, jb, ga, gb, _ = judged_pair(seed=3, graded=True)
    e = pe.gold(ja, jb, gold_a=ga, gold_b=gb, alternative="greater")
    f, y = ja - jb, ga - gb
    both = ~np.isnan(y)
    fg, yg, n, big_n = f[both], y[both], both.sum(), f.size
    cov = np.cov(fg, yg)[0, 1]
    lam = float(np.clip(cov / f.var(ddof=1), 0, 1))
    estimate = lam * f.mean() + (yg - lam * fg).mean()
    var = (yg - lam * fg).var(ddof=1) / n + (2 * lam * cov - lam**2 * f.var(ddof=1)) / big_n
    se = np.sqrt(var)
    assert float(e.delta) == pytest.approx(estimate, rel=1e-12)
    assert float(e.se) == pytest.approx(se, rel=1e-12)
    assert e.parts["lam"] == pytest.approx(lam, rel=1e-12)
    assert float(e.p_value) == pytest.approx(stats.t.sf(estimate / se, n - 1), rel=1e-10)
    half = stats.t.ppf(0.975, n - 1) * se
    assert (float(e.ci.low), float(e.ci.high)) == pytest.approx((estimate - half, estimate + half))
    z = stats.norm.isf(float(e.p_value))  # the t test's normal equivalent
    assert float(e.resolution_ratio) == pytest.approx(z**2 / z_sum_squared(0.05, 0.8, "greater"))
    assert float(e.effective_n) == pytest.approx(yg.var(ddof=1) / var, rel=1e-12)
    # the same from the differences alone
    assert pe.gold(f, gold_a=y, alternative="greater") == e


@pytest.mark.parametrize("name", ["plain", "strata", "sizes", "greater"])
def test_design_gives_what_compare_weights_reported(name):
    a, b, w, strata, sizes = design_sample()
    kw = {"plain": {}, "strata": {"strata": strata},
          "sizes": {"strata": strata, "stratum_sizes": sizes},
          "greater": {"strata": strata, "alternative": "greater"}}[name]  # fmt: skip
    e = pe.design(a, b, weights=w, **kw)
    got = _as_reported(e, whole=lambda x: int(x) if math.isfinite(x) else None)
    _check([*got, float(e.effective_n), e.parts["statistic"]], REPORTED[f"design {name}"])
    assert (e.scale, e.df, e.n_items, e.ci.method) == ("design", math.inf, 200,
                                                       "wald (design-based SE)")  # fmt: skip


def test_design_is_the_linearized_survey_variance_written_out():
    a, b, w, strata, sizes = design_sample(seed=9)
    e = pe.design(a, b, weights=w, strata=strata, stratum_sizes=sizes, alpha=0.1)
    d = a - b
    delta = np.sum(w * d) / np.sum(w)
    variance = 0.0
    for h in np.unique(strata):
        inside = strata == h
        e_h = w[inside] * (d[inside] - delta)
        n_h, big_n_h = inside.sum(), sizes[inside][0]
        variance += (1 - n_h / big_n_h) * n_h / (n_h - 1) * np.sum((e_h - e_h.mean()) ** 2)
    se = np.sqrt(variance) / np.sum(w)
    assert float(e.delta) == pytest.approx(delta, rel=1e-12)
    assert float(e.se) == pytest.approx(se, rel=1e-12)
    assert float(e.p_value) == pytest.approx(2 * stats.norm.sf(abs(delta / se)), rel=1e-10)
    z = stats.norm.isf(0.05)
    assert (float(e.ci.low), float(e.ci.high)) == pytest.approx((delta - z * se, delta + z * se))
    assert float(e.effective_n) == pytest.approx(w.sum() ** 2 / (w**2).sum(), rel=1e-12)
    needed = 200 * z_sum_squared(0.1, 0.8) * se**2 / delta**2
    assert e.required_n == math.ceil(needed)
    assert pe.design(d, weights=w, strata=strata, stratum_sizes=sizes, alpha=0.1) == e


def test_design_leaves_required_n_out_below_the_minimum_items():
    d = np.zeros(40)
    d[:3] = 1.0  # 3 items differ: fewer than the 6 any valid test needs at alpha = 0.05
    e = pe.design(d, weights=np.ones(40))
    assert math.isnan(e.required_n) and math.isnan(e.resolution_ratio) and not e.resolved


def test_to_dict_is_json_ready_with_the_interval_as_an_object():
    e = pe.paired(counts=(30, 3, 0, 6))
    data = json.loads(json.dumps(e.to_dict(), allow_nan=False))
    assert list(data) == ["scale", "delta", "se", "df", "ci", "p_value", "required_n",
                          "resolution_ratio", "resolved", "effective_n", "n_items"]  # fmt: skip
    assert data["ci"]["method"] == "newcombe" and data["ci"]["level"] == 0.95
    assert data["df"] is None and data["required_n"] is None and data["resolved"] is False
    assert "parts" not in data


def test_the_registry_names_each_scale_once():
    assert pe.SCALES == {
        "paired": pe.paired,
        "gold": pe.gold,
        "design": pe.design,
        "configuration": pe.configuration,
    }
    for name, scale in pe.SCALES.items():
        assert scale.__name__ == name


def test_bad_input_is_one_line():
    with pytest.raises(InputError, match="not both"):
        pe.paired([1.0, 0.0], [0.0, 1.0], counts=(1, 1, 1, 1))
    with pytest.raises(InputError, match="1-D arrays of the same length"):
        pe.paired([0.5, 0.2, 0.1], [0.5, 0.2])
    with pytest.raises(InputError, match="one value per judged item"):
        pe.gold([0.1, 0.2, 0.3], gold_a=[0.1, 0.2])
    with pytest.raises(InputError, match="strata= must give one label") as raised:
        pe.gold([0.1, 0.2, 0.3], gold_a=[0.1, 0.2, 0.3], strata=["a", "b"])
    assert raised.value.param == "strata"
