"""Non-inferiority and equivalence gates: Tango's score test, its size, the degrade gate."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import evalgap
from evalgap.errors import InputError
from evalgap.stats import noninferiority as ni

from conftest import shared_file


@pytest.mark.parametrize(
    ("x1", "x2", "n", "d0"),
    [(30, 40, 500, -0.05), (5, 20, 300, -0.02), (60, 10, 250, 0.1), (0, 0, 250, -0.01)],
)
def test_score_statistic_equals_a_numerically_constrained_mle(x1, x2, n, d0):
    """Oracle: maximise the multinomial likelihood under p1 - p2 = d0 with scipy, then the
    score statistic (delta_hat - d0) / sqrt(Var_0 / n), Var_0 = p1 + p2 - d0^2."""
    rest = n - x1 - x2

    def negative(p2):
        p1 = p2 + d0
        return -(x1 * np.log(p1) + x2 * np.log(p2) + rest * np.log(1 - p1 - p2))

    low, high = max(0.0, -d0) + 1e-12, (1 - d0) / 2 - 1e-12
    p2 = optimize.minimize_scalar(
        negative, bounds=(low, high), method="bounded", options={"xatol": 1e-13}
    ).x
    p1 = p2 + d0
    oracle = ((x1 - x2) / n - d0) / np.sqrt((p1 + p2 - d0**2) / n)
    assert float(ni.constrained_p2(x1, x2, n, d0)) == pytest.approx(p2, abs=1e-7)
    assert float(ni.score_statistic(x1, x2, n, d0)) == pytest.approx(oracle, rel=1e-6)


def test_lower_bound_inverts_the_test():
    _, _, _, low, high = ni.noninferiority_binary(30, 40, 500, 0.05)
    crit = stats.norm.ppf(0.95)
    assert float(ni.score_statistic(30, 40, 500, low)) == pytest.approx(crit, abs=1e-6)
    assert float(ni.score_statistic(30, 40, 500, high)) == pytest.approx(-crit, abs=1e-6)
    # the test at margin M rejects exactly when the lower bound is above -M
    for margin in (0.03, 0.05, 0.06):
        _, _, p, low, _ = ni.noninferiority_binary(30, 40, 500, margin)
        assert (p <= 0.05) == (low > -margin)


@pytest.mark.parametrize(("n", "flip_rate", "margin"), [(400, 0.1, 0.02), (2000, 0.05, 0.01)])
def test_size_at_the_boundary_is_at_most_alpha(n, flip_rate, margin):
    """Paired binary data with p_c = p_b - M exactly: the rejection rate <= alpha + 2 SE."""
    rng = np.random.default_rng(n)
    trials = 20_000
    p1, p2 = (flip_rate - margin) / 2, (flip_rate + margin) / 2  # candidate-only, baseline-only
    draws = rng.multinomial(n, [p1, p2, 1 - p1 - p2], size=trials)
    _, _, p, _, _ = ni.noninferiority_binary(draws[:, 0], draws[:, 1], n, margin)
    rate = float(np.mean(p <= 0.05))
    se = np.sqrt(0.05 * 0.95 / trials)
    assert rate <= 0.05 + 2 * se
    assert rate >= 0.03  # and not needlessly conservative


def test_exact_unconditional_p_value_keeps_the_level_on_small_tasks():
    n, margin = 40, 0.1
    rng = np.random.default_rng(1)
    worst = 0.0
    for p2 in (0.1, 0.2, 0.35):
        p1 = p2 - margin
        draws = rng.multinomial(n, [p1, p2, 1 - p1 - p2], size=400)
        p = ni.noninferiority_p_value(draws[:, 0], draws[:, 1], n, margin)
        worst = max(worst, float(np.mean(p <= 0.05)))
    assert worst <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)


def test_graded_noninferiority_is_the_shifted_paired_t_test():
    rng = np.random.default_rng(2)
    base = rng.random(300)
    cand = np.clip(base - 0.01 + rng.normal(0, 0.1, 300), 0, 1)
    d = cand - base
    t, p, low, _ = ni.noninferiority_mean(d.mean(), d.std(ddof=1), d.size, 0.03)
    oracle = stats.ttest_1samp(d, -0.03, alternative="greater")
    assert float(t) == pytest.approx(oracle.statistic)
    assert float(p) == pytest.approx(oracle.pvalue)
    ci = stats.ttest_1samp(d, 0).confidence_interval(0.90)
    assert float(low) == pytest.approx(ci.low)


def test_required_n_delivers_the_power_by_simulation():
    n = int(ni.noninferiority_required_n(0.1, 0.0, 0.02))
    rng = np.random.default_rng(3)
    draws = rng.multinomial(n, [0.05, 0.05, 0.9], size=4000)
    _, _, p, _, _ = ni.noninferiority_binary(draws[:, 0], draws[:, 1], n, 0.02)
    assert float(np.mean(p <= 0.05)) == pytest.approx(0.8, abs=0.025)
    assert evalgap.plan_noninferiority(margin=0.02, flip_rate=0.1).required_n == n


def _bbh():
    return shared_file("bbh_codex", "bbh_codex_long.csv")


def test_bbh_answer_only_fails_non_inferiority_to_chain_of_thought(run_cli):
    out = run_cli(
        "degrade",
        "--scores",
        _bbh(),
        "--baseline",
        "code-davinci-002-cot",
        "--candidate",
        "code-davinci-002-direct",
        "--margin",
        "0.01",
        "--fail-on-degradation",
        "--json",
    )
    assert out.returncode == 1
    data = json.loads(out.stdout)["non_inferiority"]
    assert data["margin"] == 0.01 and data["non_inferior"] is False
    keys = {"task", "n_items", "delta", "upper_bound", "p_value", "non_inferior"}
    assert all(set(t) == keys for t in data["tasks"]) and len(data["tasks"]) == 27
    assert data["pooled"]["upper_bound"] > 0.2 and data["pooled"]["delta"] > 0  # a drop


def test_chain_of_thought_against_itself_with_noise_passes(run_cli, tmp_path):
    frame = pd.read_csv(_bbh())
    cot = frame[frame["model"] == "code-davinci-002-cot"].copy()
    noisy = cot.copy()
    rng = np.random.default_rng(0)
    flip = rng.random(len(noisy)) < 0.01  # 1% of items flip, either way
    noisy.loc[flip, "correct"] = 1 - noisy.loc[flip, "correct"]
    noisy["model"] = "cot-noisy"
    path = tmp_path / "scores.csv"
    pd.concat([cot, noisy]).to_csv(path, index=False)
    r = evalgap.degrade(
        str(path),
        baseline="code-davinci-002-cot",
        candidate="cot-noisy",
        margin=0.05,
        equivalence=0.05,
    )
    assert r.non_inferiority["non_inferior"] and r.equivalence["equivalent"]
    assert not r.gate_fails and "NON-INFERIOR: on every task" in r.verdict
    out = run_cli(
        "degrade",
        "--scores",
        path,
        "--baseline",
        "code-davinci-002-cot",
        "--candidate",
        "cot-noisy",
        "--margin",
        "0.05",
        "--fail-on-degradation",
    )
    assert out.returncode == 0, out.stdout[-500:]


def test_margin_needs_item_counts_and_a_sensible_value(run_cli, tmp_path):
    counts = pd.DataFrame({"task": ["a"], "a_only": [10], "b_only": [12]})
    with pytest.raises(
        InputError, match="a margin needs each task's items: task 'a' has no item count"
    ):
        evalgap.degrade(counts=counts, margin=0.01)
    with pytest.raises(InputError, match=r"margin must be one number in \(0, 1\); got 1.5"):
        ni.noninferiority_binary(1, 2, 100, 1.5)
    path = tmp_path / "c.csv"
    counts.assign(both_correct=400, both_wrong=78).to_csv(path, index=False)
    out = run_cli(
        "degrade", "--counts", path, "--margin", "0.05", "--equivalence", "0.05", "--json"
    )
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert (
        data["equivalence"]["tasks"][0]["upper_bound"]
        > data["equivalence"]["tasks"][0]["lower_bound"]
    )
    assert run_cli("degrade", "--counts", path, "--margin", "2").returncode == 2


# --- the exact unconditional test below 100 items ------------------------------------------


def _all_tables(n):
    x1, x2 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    inside = x1 + x2 <= n
    return x1[inside], x2[inside]


def _null_probabilities(x1, x2, n, p1, p2):
    """Multinomial probability of every table (columns) at each null point (rows), scipy."""
    cells = np.stack([x1, x2, n - x1 - x2], axis=1)[None, :, :]
    probs = np.stack([p1, p2, np.clip(1 - p1 - p2, 0, 1)], axis=1)[:, None, :]
    return stats.multinomial.pmf(cells, n, probs)


def test_exact_p_value_reaches_the_supremum_at_the_end_of_the_nuisance_range():
    """n = 50, candidate-only 10, baseline-only 4, M = 0.01: the largest null probability of
    a score at least the observed one lies at p2 = (1 + M)/2 (every item discordant), an end
    of the nuisance range a grid strictly inside it never visits."""
    n, margin = 50, 0.01
    x1, x2 = _all_tables(n)
    z = ni.score_statistic(x1, x2, n, -margin)
    at_least = z >= float(ni.score_statistic(10, 4, n, -margin)) - 1e-12
    p2 = (1 + margin) / 2
    null = _null_probabilities(x1, x2, n, np.array([p2 - margin]), np.array([p2]))[0]
    direct = float(null[at_least].sum())
    assert direct == pytest.approx(0.0515387, abs=1e-6)
    p = float(ni.noninferiority_p_value(10, 4, n, margin))
    assert p == pytest.approx(direct, rel=1e-9)
    _, _, p_full, low, _ = ni.noninferiority_binary(10, 4, n, margin)
    assert float(p_full) == p and p > 0.05 and low < -margin  # not shown non-inferior


@pytest.mark.parametrize(("n", "margin"), [(10, 0.1), (20, 0.01), (30, 0.05), (50, 0.01)])
def test_exact_test_keeps_its_level_at_every_null_point(n, margin):
    """Exhaustive: every table of n items is tested; at every point of a fine grid over the
    null boundary p1 = p2 - M (its ends included) and inside the null (p1 < p2 - M), the
    probability of the tables it rejects is at most alpha."""
    alpha = 0.05
    x1, x2 = _all_tables(n)
    rejected = np.asarray(ni.noninferiority_p_value(x1, x2, n, margin)) <= alpha
    p2 = np.linspace(margin, (1 + margin) / 2, 1001)
    boundary = _null_probabilities(x1, x2, n, p2 - margin, p2)[:, rejected].sum(axis=1)
    assert boundary.max() <= alpha + 1e-12
    inner_p2 = np.repeat(np.linspace(margin, 0.9, 40), 5)
    inner_p1 = np.tile(np.linspace(0, 1, 5), 40) * (inner_p2 - margin)
    keep = inner_p1 + inner_p2 <= 1
    inside = _null_probabilities(x1, x2, n, inner_p1[keep], inner_p2[keep])
    assert inside[:, rejected].sum(axis=1).max() <= alpha + 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("margin", [0.01, 0.05, 0.2])
def test_exact_test_keeps_its_level_on_every_small_size(margin):
    for n in [*range(10, 31), 50]:
        x1, x2 = _all_tables(n)
        rejected = np.asarray(ni.noninferiority_p_value(x1, x2, n, margin)) <= 0.05
        p2 = np.linspace(margin, (1 + margin) / 2, 1001)
        size = _null_probabilities(x1, x2, n, p2 - margin, p2)[:, rejected].sum(axis=1)
        assert size.max() <= 0.05 + 1e-12, n


@pytest.mark.parametrize(("n", "margin"), [(12, 0.01), (12, 0.2), (16, 0.05)])
def test_bounds_and_decisions_agree_on_every_small_table(n, margin):
    """Below 100 items the bounds invert the exact test that decides: lower bound > -M
    exactly when non-inferior, upper bound < M exactly when the non-superiority test rejects."""
    x1, x2 = _all_tables(n)
    _, _, p, low, high = ni.noninferiority_binary(x1, x2, n, margin)
    np.testing.assert_array_equal(low > -margin, p <= 0.05)
    upper_p = ni.nonsuperiority_p_value(x1, x2, n, margin)
    np.testing.assert_array_equal(high < margin, upper_p <= 0.05)
    delta = (x1 - x2) / n  # inside the bounds (the extreme tables' bounds are +/-1)
    assert np.all(low <= delta + 1e-9) and np.all(high >= delta - 1e-9)


def test_exact_bound_is_where_the_exact_p_value_crosses_alpha():
    _, _, _, low, _ = ni.noninferiority_binary(12, 20, 80, 0.05)
    low = float(low)
    assert float(ni.noninferiority_p_value(12, 20, 80, -low + 1e-7)) <= 0.05
    assert float(ni.noninferiority_p_value(12, 20, 80, -low - 1e-7)) > 0.05


def test_tiny_alpha_gives_finite_bounds_and_sizes():
    """alpha = 1e-20: 1 - alpha rounds to 1, whose normal quantile is infinite; the tail form
    keeps z = 9.26 (scipy's isf is the oracle)."""
    alpha = 1e-20
    crit = stats.norm.isf(alpha)
    _, _, p, low, high = ni.noninferiority_binary(300, 200, 1000, 0.05, alpha)
    assert float(ni.score_statistic(300, 200, 1000, low)) == pytest.approx(crit, abs=1e-6)
    assert float(ni.score_statistic(300, 200, 1000, high)) == pytest.approx(-crit, abs=1e-6)
    assert (float(low) > -0.05) == (float(p) <= alpha)
    _, p, low, high = ni.noninferiority_mean(0.01, 0.2, 400, 0.03, alpha)
    half = stats.t.isf(alpha, 399) * 0.2 / np.sqrt(400)
    assert float(low) == pytest.approx(0.01 - half) and float(high) == pytest.approx(0.01 + half)
    n = ni.noninferiority_required_n(0.1, 0.0, 0.02, alpha, 0.8)
    assert np.isfinite(n) and n > ni.noninferiority_required_n(0.1, 0.0, 0.02)
    with pytest.raises(InputError, match="power must exceed alpha"):
        ni.noninferiority_required_n(0.1, 0.0, 0.02, 0.05, 0.01)


# --- one sign, one headline ------------------------------------------------------------------


def _drop_counts(path=None):
    """Two tasks where the candidate clearly lost items; the drop is under 15 points."""
    counts = pd.DataFrame(
        {
            "task": ["code", "math"],
            "a_only": [30, 40],
            "b_only": [12, 14],
            "both_correct": [120, 150],
            "both_wrong": [38, 46],
        }
    )
    if path is not None:
        counts.to_csv(path, index=False)
    return counts


def test_every_delta_has_the_same_sign_for_the_same_drop(run_cli, tmp_path):
    """delta is baseline minus candidate (A minus B) in every block and view: a drop is
    positive in tasks, total, non_inferiority and equivalence, in Python, JSON and terminal."""
    path = tmp_path / "counts.csv"
    counts = _drop_counts(path)
    expected = (counts.a_only - counts.b_only) / counts[
        ["a_only", "b_only", "both_correct", "both_wrong"]
    ].sum(axis=1)
    r = evalgap.degrade(counts=counts, margin=0.2, equivalence=0.2)
    np.testing.assert_allclose([t.delta for t in r.tasks], expected)
    for block in (r.non_inferiority, r.equivalence):
        np.testing.assert_allclose([t["delta"] for t in block["tasks"]], expected)
        assert block["pooled"]["delta"] == pytest.approx(r.total.delta) and r.total.delta > 0
    for t in r.non_inferiority["tasks"]:
        assert t["upper_bound"] > t["delta"] > 0
    for t in r.equivalence["tasks"]:
        assert t["lower_bound"] < t["delta"] < t["upper_bound"]
    data = json.loads(
        run_cli(
            "degrade", "--counts", path, "--margin", "0.2", "--equivalence", "0.2", "--json"
        ).stdout
    )
    deltas = [t["delta"] for t in data["tasks"]] + [data["total"]["delta"]]
    for key in ("non_inferiority", "equivalence"):
        deltas += [t["delta"] for t in data[key]["tasks"]] + [data[key]["pooled"]["delta"]]
    assert all(d > 0 for d in deltas)
    out = run_cli("degrade", "--counts", path, "--margin", "0.2").stdout
    shown = re.findall(r"([+-]\d+\.\d\d)(?:pt)?\b", out)
    assert shown and all(v.startswith("+") for v in shown), out


def test_with_a_margin_the_headline_and_the_exit_code_are_the_gate(run_cli, tmp_path):
    """A significant drop inside a wide margin: degraded, yet non-inferior. The paragraph
    opens with the gate's decision, which the exit code follows; the per-task table is shown,
    worst bound first."""
    path = tmp_path / "counts.csv"
    counts = _drop_counts(path)
    r = evalgap.degrade(counts=counts, margin=0.25)
    assert r.degraded and r.non_inferiority["non_inferior"] and not r.gate_fails
    assert r.verdict.startswith("NON-INFERIOR: on every task")
    assert "DEGRADED" not in r.verdict and "significantly worse" in r.verdict
    out = run_cli("degrade", "--counts", path, "--margin", "0.25", "--fail-on-degradation")
    assert out.returncode == 0 and "non-inferiority: drop below 25 points?" in out.stdout
    text = " ".join(out.stdout.split())
    assert "NON-INFERIOR: on every task" in text and "DEGRADED:" not in text
    # a tight margin: the gate fails, and says so first
    out = run_cli("degrade", "--counts", path, "--margin", "0.05", "--fail-on-degradation")
    assert out.returncode == 1
    data = json.loads(run_cli("degrade", "--counts", path, "--margin", "0.05", "--json").stdout)
    assert data["gate_fails"] is True and data["degraded"] is True
    assert data["verdict"].startswith("NON-INFERIORITY NOT SHOWN")
    r = evalgap.degrade(counts=counts, margin=0.05)
    assert r.verdict.startswith("NON-INFERIORITY NOT SHOWN") and r.gate_fails
    ranked = sorted(r.non_inferiority["tasks"], key=lambda t: -t["upper_bound"])
    first = r.verdict.index(ranked[0]["task"] + " +")
    assert first < r.verdict.index(ranked[1]["task"] + " +")
    assert ranked[0]["task"] == "math"  # the worse bound, listed second in the table


def test_most_affected_never_lists_tasks_without_a_drop():
    counts = pd.DataFrame({"task": ["a", "b", "c"], "a_only": [40, 0, 5], "b_only": [10, 0, 9]})
    r = evalgap.degrade(counts=counts)
    assert r.degraded
    most = r.verdict.split("Most affected: ")[1].split(").")[0] + ")"
    assert most.startswith("a (p = ") and most.count("(p = ") == 1  # b: no flips; c: a gain


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"margin": [0.01, 0.02]}, r"margin must be (one number, )?a finite number in \(0, 1\)"),
        ({"margin": "0.05"}, r"margin must be (one number, )?a finite number in \(0, 1\)"),
        ({"margin": True}, r"margin must be (one number, )?a finite number in \(0, 1\)"),
        ({"margin": float("nan")}, r"margin must be a finite number in \(0, 1\); got nan$"),
        ({"equivalence": -1}, r"equivalence= must be one number in \(0, 1\).*; got -1$"),
        ({"margin": 0.05, "alpha": 1e-320}, r"alpha=\S+ is below 1e-300"),
    ],
)
def test_bad_margins_and_levels_are_refused_by_name(options, expected):
    """Before: a list raised a TypeError, a string was read as a number, the equivalence
    margin was called 'margin', and a level below 1e-300 failed only in the verdict."""
    with pytest.raises(InputError) as caught:
        evalgap.degrade(counts=_drop_counts(), **options)
    assert re.match(expected, str(caught.value))


def test_bad_margins_name_their_flag_on_the_command_line(run_cli, tmp_path):
    path = tmp_path / "counts.csv"
    _drop_counts(path)
    out = run_cli("degrade", "--counts", path, "--equivalence", "nan")
    assert out.returncode == 2 and out.stderr.startswith("evalgap: error: --equivalence must")
    out = run_cli("degrade", "--counts", path, "--margin", "0.05", "--alpha", "1e-320")
    assert out.returncode == 2 and out.stdout == "" and "--alpha" in out.stderr


def test_a_task_without_items_is_said_and_refused_by_a_margin(run_cli, tmp_path):
    """A counts row of zeros raised a TypeError (no items: no concordant cells to sum)."""
    counts = _drop_counts().iloc[:1]
    empty = pd.DataFrame(
        [{"task": "empty", "a_only": 0, "b_only": 0, "both_correct": 0, "both_wrong": 0}]
    )
    counts = pd.concat([counts, empty], ignore_index=True)
    r = evalgap.degrade(counts=counts)
    assert r.total.n_items == 200 and r.tasks[1].n_items == 0 and r.tasks[1].delta is None
    assert "1 task(s) without items: empty" in r.notes
    with pytest.raises(InputError, match="task 'empty' has no items"):
        evalgap.degrade(counts=counts, margin=0.05)
    path = tmp_path / "counts.csv"
    counts.to_csv(path, index=False)
    out = run_cli("degrade", "--counts", path, "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["tasks"][1]["flip_rate"] is None


def test_a_single_graded_item_shows_nothing():
    """One graded item has no SD; the t test read its zero spread as certainty (p < 1e-15)."""
    t, p, low, high = ni.noninferiority_mean(0.05, 0.0, 1, 0.1)
    assert np.isnan(t) and np.isnan(p) and low == -np.inf and high == np.inf
    frame = pd.DataFrame(
        {
            "model": ["base", "cand"] * 3,
            "task": ["one", "one", "two", "two", "two", "two"],
            "item_id": ["a", "a", "b", "b", "c", "c"],
            "score": [0.5, 0.6, 0.2, 0.3, 0.4, 0.45],
        }
    )
    r = evalgap.degrade(frame, baseline="base", candidate="cand", margin=0.1, equivalence=0.1)
    one = r.non_inferiority["tasks"][0]
    assert one["task"] == "one" and not one["non_inferior"] and np.isnan(one["p_value"])
    assert not r.equivalence["tasks"][0]["equivalent"]
    assert r.verdict.startswith("NON-INFERIORITY NOT SHOWN") and "paired t test" in r.verdict


def test_a_tiny_margin_is_the_limit_of_small_ones():
    """Margin 1e-300: b^2 underflowed in the constrained root, the score of the empty table
    became +inf and the exact p-value 1.0 (0.2735 at 1e-20)."""
    p = [float(ni.noninferiority_p_value(3, 1, 10, m)) for m in (1e-20, 1e-300)]
    assert p[1] == pytest.approx(p[0], rel=1e-12) and p[0] == pytest.approx(0.27352, abs=1e-5)
    assert float(ni.constrained_p2(0, 0, 10, -1e-300)) == pytest.approx(1e-300, rel=1e-12)
    z = ni.score_statistic(30, 10, 1000, -1e-300)
    assert float(z) == pytest.approx(float(ni.score_statistic(30, 10, 1000, 0.0)), rel=1e-12)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: ni.noninferiority_binary(3, 1, 10, [0.1, 0.2]), "margin must be one number"),
        (lambda: ni.noninferiority_required_n(float("nan"), 0.0, 0.1), "flip_rate must be"),
        (lambda: ni.noninferiority_required_n(0.1, "0", 0.1), "delta must be"),
    ],
)
def test_statistics_core_refuses_bad_arguments_by_name(call, expected):
    """Before: a list margin raised a TypeError and a NaN flip rate gave N = nan."""
    with pytest.raises(InputError, match=expected):
        call()
