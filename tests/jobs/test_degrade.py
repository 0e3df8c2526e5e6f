"""The degradation gate against the paper's Table 2, independent oracles, real data and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.sources import load_scores
from evalgap.jobs.degrade import degrade_counts, degrade_scores, trim_items
from evalgap.stats import aggregation
from evalgap.stats import power as pw

from conftest import shared_file
from paper_tables import TABLE_2, as_printed

# Table 6 gives A100 and FP8 counts whose Fisher p-values (0.9835, 0.5516) differ from the
# printed 0.981 and 0.549, although the same counts reproduce those rows' pooled and max-drop
# p-values; the paper notes A100's MATH was rerun separately. Those two agree within 1%.
FISHER_OFF_IN_PRINT = {"8B A100", "8B FP8"}


@pytest.mark.parametrize("row", TABLE_2, ids=[r.label for r in TABLE_2])
def test_table_2_pooled_fisher_and_verdict(row):
    result = degrade_counts(row.frame())
    p = result.p_values
    if row.p_pool == "0.00e+00":
        assert p["pooled"] < 1e-300
    else:
        assert as_printed(p["pooled"], row.p_pool) == row.p_pool
    if row.p_fisher == "0.00e+00":
        assert p["fisher"] < 1e-300
    elif row.label in FISHER_OFF_IN_PRINT:
        assert p["fisher"] == pytest.approx(float(row.p_fisher), rel=0.01)
    else:
        assert as_printed(p["fisher"], row.p_fisher) == row.p_fisher
    printed = [float(x) for x in (row.p_pool, row.p_max_drop, row.p_fisher)]
    assert result.degraded == (min(printed) <= 0.05)
    total = result.total
    assert round(100 * total.delta, 2) == pytest.approx(row.delta, abs=0.011)
    assert round(100 * total.se, 2) == pytest.approx(row.se, abs=0.011)
    assert round(100 * total.flip_rate, 2) == pytest.approx(row.flips, abs=0.011)


@pytest.mark.parametrize("row", TABLE_2, ids=[r.label for r in TABLE_2])
def test_table_2_max_drop_exact_within_monte_carlo_error(row):
    """Table 2's max-drop p-values are Monte Carlo estimates; the exact value lies within
    their sampling error (S is not printed; 10,000 draws or more give the bound below)."""
    frame = row.frame()
    exact = aggregation.max_drop_p_value(frame.a_only, frame.b_only)
    printed = float(row.p_max_drop)
    assert abs(exact - printed) <= 4 * math.sqrt(max(printed * (1 - printed), 1e-4) / 10_000)


@pytest.mark.parametrize(
    "row",
    [r for r in TABLE_2 if r.label in ("8B KV-FP8", "8B w8a16", "70B KV-FP8")],
    ids=lambda r: r.label,
)
def test_max_drop_monte_carlo_agrees_with_exact(row):
    frame = row.frame()
    exact = aggregation.max_drop_p_value(frame.a_only, frame.b_only)
    mc = aggregation.max_drop_p_value_monte_carlo(frame.a_only, frame.b_only, 200_000, seed=1)
    assert mc == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 200_000) + 1e-6)


def test_exact_one_sided_mcnemar_is_scipy_binomtest():
    for b, c in [(250, 234), (448, 347), (0, 4), (16, 20), (1, 0)]:
        expected = stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue
        assert float(aggregation.task_p_values(b, c)) == pytest.approx(expected, rel=1e-10)


def test_fisher_leaves_out_tasks_without_flips_and_says_so():
    rerun = TABLE_2[0]
    result = degrade_counts(rerun.frame())
    assert result.fisher_tasks_left_out == 4
    assert any("leave out 4 task(s) without flips" in n for n in result.notes)
    assert result.p_values["fisher"] == pytest.approx(0.868, abs=5e-4)


def test_exact_max_drop_against_brute_force_enumeration():
    b, c = np.array([5, 2, 7]), np.array([1, 3, 4])
    n = b + c
    z_obs = np.max((2 * b - n) / np.sqrt(n))
    grids = np.meshgrid(*[np.arange(k + 1) for k in n], indexing="ij")
    prob = np.ones_like(grids[0], dtype=float)
    z = np.full(grids[0].shape, -np.inf)
    for g, k in zip(grids, n, strict=True):
        prob *= stats.binom.pmf(g, k, 0.5)
        z = np.maximum(z, (2 * g - k) / np.sqrt(k))
    brute = prob[z >= z_obs - 1e-12].sum()
    assert aggregation.max_drop_p_value(b, c) == pytest.approx(brute, rel=1e-12)


def binary_scores(row):
    """Per-item scores rebuilt from a row's counts (baseline, candidate) per task."""
    frames = []
    for t, a, b, c, d in row.frame()[
        ["task", "both_wrong", "a_only", "b_only", "both_correct"]
    ].itertuples(index=False):
        base = np.repeat([0, 1, 0, 1], [a, b, c, d]).astype(float)
        cand = np.repeat([0, 0, 1, 1], [a, b, c, d]).astype(float)
        ids = [str(i) for i in range(base.size)]
        frames.append(pd.DataFrame({"model": "base", "task": t, "item_id": ids, "score": base}))
        frames.append(pd.DataFrame({"model": "cand", "task": t, "item_id": ids, "score": cand}))
    return align(pd.concat(frames, ignore_index=True))


@pytest.mark.parametrize("label", ["8B FP8", "8B w8a16", "Mistral w4a16"])
def test_permutation_and_exact_tests_agree_on_binary_data(label):
    """Table 10: on binary scores the permutation tests reproduce the exact ones, max-drop
    included: its sign-invariant scale makes the statistic Algorithm 4's ``z_i``."""
    row = next(r for r in TABLE_2 if r.label == label)
    result = degrade_scores(
        binary_scores(row), "base", "cand", permutation=True, n_permutations=100_000, seed=3
    )
    exact, perm = result.p_values, result.permutation
    for name in ("pooled", "fisher", "max_drop"):
        e, q = exact[name], getattr(perm, name)
        tolerance = 4 * math.sqrt(max(e * (1 - e), 1e-5) / 100_000)
        assert q == pytest.approx(e, abs=tolerance), name


def test_graded_scores_use_permutation_tests_and_runs_are_averaged():
    rng = np.random.default_rng(0)
    rows = []
    for task, n, drop in (("t1", 300, 0.08), ("t2", 500, 0.0)):
        p = rng.uniform(0.2, 0.9, n)
        for run in range(4):
            base = rng.random(n) < p
            cand = rng.random(n) < np.clip(p - drop, 0, 1)
            rows += [("base", task, str(i), str(run), float(s)) for i, s in enumerate(base)]
            rows += [("cand", task, str(i), str(run), float(s)) for i, s in enumerate(cand)]
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "run", "score"])
    score_set = align(frame)
    assert score_set.n_items == 800  # runs are averaged, never counted as items
    result = degrade_scores(score_set, "base", "cand", n_permutations=20_000, seed=1)
    assert result.method == "permutation" and result.degraded
    assert result.p_values["max_drop"] < 0.01
    assert result.tasks[1].p_value > 0.01
    assert any("4 runs per item were averaged" in n for n in result.notes)


def test_trim_keeps_items_that_flip_across_runs():
    rows = []
    for i in range(200):
        # items 0-79 always right, 80-119 always wrong, the rest right in i % 10 of 10 runs
        right = 10 if i < 80 else 0 if i < 120 else 1 + i % 9
        rows += [("base", "t", str(i), str(r), float(r < right)) for r in range(10)]
    score_set = align(pd.DataFrame(rows, columns=["model", "task", "item_id", "run", "score"]))
    result = trim_items(score_set, "base")
    assert result.runs == 10
    assert result.per_task.loc[0, "never_flip"] == 120
    assert sorted(result.kept["item_id"].astype(int)) == list(range(120, 200))


def test_degradation_power_formula():
    """Eq. 11: power = 1 - Phi(z_{1-alpha} - sqrt(N/p) delta); N* inverts it."""
    n = float(pw.degradation_required_n(0.005, 0.09))
    assert float(pw.degradation_power(0.005, 0.09, n)) == pytest.approx(0.8)
    snr = math.sqrt(25_282 / 0.09) * 0.005
    expected = 1 - stats.norm.cdf(stats.norm.ppf(0.95) - snr)
    assert float(pw.degradation_power(0.005, 0.09, 25_282)) == pytest.approx(expected)
    # Eq. 12: dropping items that never flip leaves the SNR, hence the power, unchanged: with
    # k of them gone, N' = N - k, p' = pN/N' and delta' = delta N/N'.
    p, delta, n_all, k = 0.09, 0.005, 25_282, 15_000
    trimmed = n_all - k
    assert float(
        pw.degradation_power(delta * n_all / trimmed, p * n_all / trimmed, trimmed)
    ) == pytest.approx(float(pw.degradation_power(delta, p, n_all)), rel=1e-12)


def test_bbh_chain_of_thought_as_baseline():
    long = load_scores(shared_file("bbh_codex", "bbh_codex_long.csv"))
    score_set = align(long.frame)
    forward = degrade_scores(score_set, "code-davinci-002-cot", "code-davinci-002-direct")
    assert forward.degraded and forward.p_values["pooled"] < 1e-100
    assert (forward.total.a_only, forward.total.b_only) == (1981, 573)
    reverse = degrade_scores(score_set, "code-davinci-002-direct", "code-davinci-002-cot")
    worse = {t.task for t in reverse.tasks if t.delta > 0}
    assert {
        "causal_judgement",
        "ruin_names",
        "snarks",
        "formal_fallacies",
        "salient_translation_error_detection",
    } <= worse
    assert reverse.p_values["pooled"] > 0.99  # cot is far better overall...
    assert reverse.p_values["max_drop"] < 0.05  # ...but worse on some tasks: max-drop says so
    assert reverse.degraded


def test_cli_gate_and_json_contract(tmp_path, run_cli):
    kv = next(r for r in TABLE_2 if r.label == "8B KV-FP8")
    path = tmp_path / "kv.csv"
    kv.frame().to_csv(path, index=False)
    out = run_cli("degrade", "--counts", str(path), "--json", "--fail-on-degradation")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert set(data["p_values"]) == {"pooled", "max_drop", "fisher"} and data["degraded"]
    assert {"task", "a_only", "b_only", "p_value", "flip_rate", "degradation_rate", "delta"} <= set(
        data["tasks"][0]
    )
    assert data["verdict"].startswith("DEGRADED")
    rerun = TABLE_2[0]
    rerun.frame().to_csv(path, index=False)
    out = run_cli("degrade", "--counts", str(path), "--fail-on-degradation")
    assert out.returncode == 0 and "NOT DEGRADED" in out.stdout
    out = run_cli("degrade", "--counts", str(path), "--baseline", "x")
    assert out.returncode == 2 and "not both" in out.stderr


def test_cli_trim_then_degrade_on_the_kept_items(tmp_path, run_cli):
    rng = np.random.default_rng(2)
    rows = []
    for i in range(300):
        p = 1.0 if i < 100 else 0.5
        rows += [("base", str(i), str(r), float(rng.random() < p)) for r in range(6)]
    runs = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["model", "item_id", "run", "score"]).to_csv(runs, index=False)
    kept = tmp_path / "kept.csv"
    out = run_cli("trim", "--scores", str(runs), "--model", "base", "--output", str(kept))
    assert out.returncode == 0, out.stderr
    n_kept = len(pd.read_csv(kept))
    assert 190 <= n_kept <= 200
    single = pd.DataFrame(
        [(m, str(i), float(rng.random() < 0.6)) for m in ("base", "cand") for i in range(300)],
        columns=["model", "item_id", "score"],
    )
    scores = tmp_path / "scores.csv"
    single.to_csv(scores, index=False)
    out = run_cli(
        "degrade",
        "--scores",
        str(scores),
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--items",
        str(kept),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["total"]["n_items"] == n_kept


def test_cli_two_output_directories_of_the_same_model(tmp_path, run_cli):
    """A KV-cache flag changes the serving, not the checkpoint: both directories name the same
    model, and each path's scores are taken as that role's."""
    import synthetic as syn

    reference = syn.leaderboard(seed=4)
    one = reference[reference.model == "org-a/alpha"]
    syn.write_lm_eval(one, tmp_path / "bf16")
    worse = one.copy()
    worse.loc[worse.score == 1, "score"] = np.where(
        np.arange(int((worse.score == 1).sum())) % 3 == 0, 0.0, 1.0
    )
    syn.write_lm_eval(worse, tmp_path / "fp8")
    out = run_cli(
        "degrade",
        "--baseline",
        str(tmp_path / "bf16"),
        "--candidate",
        str(tmp_path / "fp8"),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["baseline"] == "org-a/alpha (bf16)" and data["candidate"] == "org-a/alpha (fp8)"
    assert data["total"]["b_only"] == 0 and data["total"]["a_only"] > 0 and data["degraded"]
    out = run_cli("degrade", "--baseline", str(tmp_path / "bf16"), "--candidate", "some-name")
    assert out.returncode == 2 and "both be paths" in out.stderr


@pytest.fixture(scope="module")
def bbh():
    long = load_scores(shared_file("bbh_codex", "bbh_codex_long.csv"))
    return align(long.frame)


@pytest.mark.parametrize(
    ("baseline", "candidate", "says", "never"),
    [
        (
            "code-davinci-002-cot",
            "code-davinci-002-direct",
            "DEGRADED: code-davinci-002-direct is significantly worse than code-davinci-002-cot",
            "on at least one task",
        ),
        (
            "code-davinci-002-direct",
            "code-davinci-002-cot",
            "DEGRADED: code-davinci-002-cot is worse than code-davinci-002-direct on at least "
            "one task (task word_sorting, the largest standardized drop)",
            "significantly worse",
        ),
    ],
    ids=["cot-baseline-pooled-fires", "direct-baseline-only-max-drop-fires"],
)
def test_verdict_says_worse_overall_only_when_the_pooled_test_fires(
    bbh, baseline, candidate, says, never
):
    """Reverse direction: cot gains 21.62 points overall but is worse on word_sorting; the
    verdict must not call that 'significantly worse' next to 'a gain of 21.62 points'."""
    result = degrade_scores(bbh, baseline, candidate)
    assert result.verdict.startswith(says)
    assert never not in result.verdict
    if "a gain of" in result.verdict:
        assert "Over all tasks the candidate's accuracy is 73.97% against 52.34% (a gain of " \
            "21.62 points" in result.verdict
    assert result.to_dict()["max_drop_task"] == result.max_drop_task


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # one task clearly worse, four better: only max-drop rejects
        (
            [("t1", 30, 5), ("t2", 10, 40), ("t3", 10, 40), ("t4", 10, 40)],
            "is worse than baseline on at least one task (task t1, the largest standardized drop)",
        ),
        # every task a little worse: the pooled test rejects
        ([("t1", 60, 40), ("t2", 60, 40)], "candidate is significantly worse than baseline"),
        ([("t1", 40, 40), ("t2", 40, 41)], "NOT DEGRADED: no significant degradation"),
    ],
    ids=["max-drop-only", "pooled", "none"],
)
def test_verdict_wording_from_counts(rows, expected):
    frame = pd.DataFrame(rows, columns=["task", "a_only", "b_only"])
    result = degrade_counts(frame)
    assert expected in result.verdict
    if "at least one task" in expected:
        assert result.p_values["pooled"] > 0.05 and result.p_values["max_drop"] <= 0.05
        assert "significantly worse" not in result.verdict


def test_trim_refuses_graded_runs():
    """An item scored 0.37 in every run never flipped; its mean inside (0, 1) passed for a
    flip and the item was kept."""
    rows = [
        {"model": "base", "task": "t", "item_id": f"i{i}", "run": r, "score": score}
        for i, scores in enumerate([[0.37, 0.37, 0.37], [1, 0, 1], [1, 1, 1]])
        for r, score in enumerate(scores)
    ]
    score_set = align(pd.DataFrame(rows))
    with pytest.raises(InputError, match=r"task 't', item 'i0' averages 0\.37 over 3 runs"):
        trim_items(score_set, "base")
    binary = align(pd.DataFrame([r for r in rows if r["item_id"] != "i0"]))
    assert trim_items(binary, "base").kept["item_id"].tolist() == ["i1"]
