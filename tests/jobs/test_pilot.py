"""plan --pilot: items x reruns from a pilot with repeated runs.

The pilot of the issue is built from BIG-Bench Hard (code-davinci-002, chain-of-thought vs
answer-only, 6,511 items): each item's probability of being answered right at temperature
> 0 is taken near its one observed 0/1 outcome (0.85 when it was right, 0.15 when wrong,
the spread of a sampled rerun), and 4 runs are drawn per item and condition. The truth is
then known, so the components, the predicted SE and the simulated SE can be compared.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.stats import variance_components as vc

import synthetic as syn
from conftest import ROOT, shared_file

PILOT = ROOT / "examples" / "pilot_runs.csv"
RIGHT, WRONG = 0.85, 0.15


def _bbh_truth():
    wide = pd.read_csv(shared_file("bbh_codex", "bbh_codex_wide.csv"))
    item = wide["task"] + "/" + wide["item_idx"].astype(str)
    p_cot = np.where(wide["cot"] == 1, RIGHT, WRONG)
    p_direct = np.where(wide["direct"] == 1, RIGHT, WRONG)
    return item.to_numpy(), p_cot, p_direct


def _runs(rng, p, n_runs):
    return (rng.random((p.size, n_runs)) < p[:, None]).astype(float)


def _bbh_pilot(n_items=600, n_runs=4, seed=0):
    items, p_cot, p_direct = _bbh_truth()
    rng = np.random.default_rng(seed)
    pick = rng.choice(items.size, n_items, replace=False)
    runs = {"cot": _runs(rng, p_cot[pick], n_runs), "direct": _runs(rng, p_direct[pick], n_runs)}
    rows = [
        (model, items[pick[i]], r, runs[model][i, r])
        for model in runs
        for i in range(n_items)
        for r in range(n_runs)
    ]
    return pd.DataFrame(rows, columns=["model", "item", "run", "score"]), runs


def test_bbh_pilot_components_match_statsmodels_anova():
    """Within: each model's one-way ANOVA residual mean square. Between: the ANOVA of the
    per-run differences, (MS_items - MS_residual) / K, which equals evalgap's estimate plus
    twice the runs' within-item covariance over K (a sample quantity, computed here)."""
    sm = pytest.importorskip("statsmodels.formula.api")
    anova = pytest.importorskip("statsmodels.stats.anova")
    pilot, runs = _bbh_pilot(n_items=200)  # statsmodels' dummy-coded OLS grows as items^2
    p = evalgap.plan_pilot(pilot, model_a="cot", model_b="direct", run_column="run")
    c = p.variance_components
    k = 4

    def mean_squares(values):
        frame = pd.DataFrame(
            {"item": np.repeat(np.arange(values.shape[0]), k), "y": values.ravel()}
        )
        table = anova.anova_lm(sm.ols("y ~ C(item)", data=frame).fit(method="qr"))
        ms = table["sum_sq"] / table["df"]
        return ms["C(item)"], ms["Residual"]

    assert c.within_a == pytest.approx(mean_squares(runs["cot"])[1], rel=1e-12)
    assert c.within_b == pytest.approx(mean_squares(runs["direct"])[1], rel=1e-12)
    ms_items, ms_residual = mean_squares(runs["cot"] - runs["direct"])
    a = runs["cot"] - runs["cot"].mean(axis=1, keepdims=True)
    b = runs["direct"] - runs["direct"].mean(axis=1, keepdims=True)
    covariance = (a * b).sum() / (a.shape[0] * (k - 1))
    assert (ms_items - ms_residual) / k == pytest.approx(
        c.between_items + 2 * covariance / k, rel=1e-9
    )
    assert (c.n_items, c.runs_per_item) == (200, 4.0)


def test_bbh_pilot_predicts_the_se_of_a_chosen_design_within_monte_carlo_error():
    """The binary reruns' sigma_D: the items' success probabilities, not single 0/1 scores,
    enter it. 2,000 simulated evaluations of N = 800 items x K = 3 runs drawn from BBH's
    truth: their gaps' SD matches the SE the pilot predicts (and the SE the truth implies)."""
    items, p_cot, p_direct = _bbh_truth()
    true_between = np.var(p_cot - p_direct)
    true_within = np.mean(p_cot * (1 - p_cot) + p_direct * (1 - p_direct))
    pilot, _ = _bbh_pilot(n_items=1500, n_runs=4, seed=3)
    c = evalgap.plan_pilot(pilot, model_a="cot", model_b="direct").variance_components
    n, k, trials = 800, 3, 2000
    rng = np.random.default_rng(11)
    gaps = np.empty(trials)
    for t in range(trials):
        pick = rng.integers(0, items.size, n)
        gaps[t] = _runs(rng, p_cot[pick], k).mean() - _runs(rng, p_direct[pick], k).mean()
    simulated = gaps.std(ddof=1)
    mc_error = simulated / np.sqrt(2 * (trials - 1))
    truth = float(vc.standard_error(true_between, true_within, n, k))
    assert abs(simulated - truth) < 3 * mc_error
    predicted = float(vc.standard_error(c.between_items, c.within_items, n, k))
    assert predicted == pytest.approx(simulated, rel=0.06)  # the pilot's own error dominates
    # a single 0/1 run per item would have claimed sigma_D from the 0/1 scores alone
    assert abs(predicted - truth) < abs(predicted - np.sqrt((true_between + true_within) / n))


def test_bbh_pilot_cli_prints_components_frontier_and_cheapest(run_cli, tmp_path):
    pilot, _ = _bbh_pilot()
    path = tmp_path / "pilot.csv"
    pilot.to_csv(path, index=False)
    args = ["plan", "--pilot", str(path), "--model-a", "cot", "--model-b", "direct"]
    costs = ["--delta", "0.05", "--cost-per-item", "0.05", "--cost-per-run", "0.002"]
    out = run_cli(*args, *costs)
    assert out.returncode == 0, out.stderr
    for text in ("between items", "within items", "designs resolving delta=+0.05", "cost"):
        assert text in out.stdout
    data = json.loads(run_cli(*args, *costs, "--json").stdout)
    assert set(data["variance_components"]) >= {
        "between_items",
        "within_items",
        "runs_per_item",
        "n_items",
    }
    assert set(data["frontier"][0]) == {"n_items", "n_runs", "se", "cost"}
    cheapest = data["cheapest"]
    assert set(cheapest) == {"n_items", "n_runs", "se", "cost"}
    costs_k = [f["cost"] for f in data["frontier"]]
    assert cheapest["cost"] == min(costs_k)
    assert f"{cheapest['n_items']:,} items x {cheapest['n_runs']} runs" in out.stdout.replace(
        "\n", " "
    )


def test_frontier_is_eq3_per_k_and_the_cheapest_is_the_integer_optimum():
    p = evalgap.plan_pilot(
        PILOT, run_column="run", delta=0.03, cost_per_item=0.02, cost_per_run=0.004, max_runs=30
    )
    c = p.variance_components
    z2 = (1.959963984540054 + 0.8416212335729143) ** 2
    for d in p.frontier:
        exact = z2 * (c.between_items + c.within_items / d.n_runs) / 0.03**2
        assert d.n_items == int(np.ceil(exact))
        assert d.se == pytest.approx(
            np.sqrt((c.between_items + c.within_items / d.n_runs) / d.n_items)
        )
        assert d.cost == pytest.approx(d.n_items * (0.02 + 2 * d.n_runs * 0.004))
    assert p.cheapest.cost == min(d.cost for d in p.frontier)
    assert p.cheapest.n_runs in (int(np.floor(p.optimal_runs)), int(np.ceil(p.optimal_runs)))
    assert p.optimal_runs == pytest.approx(
        np.sqrt(0.02 * c.within_items / (2 * 0.004 * c.between_items))
    )


def test_bundled_pilot_json_is_stable(run_cli):
    out = run_cli(
        "plan",
        "--pilot",
        str(PILOT),
        "--delta",
        "0.03",
        "--cost-per-item",
        "0.02",
        "--cost-per-run",
        "0.004",
        "--json",
    )
    data = json.loads(out.stdout)
    assert data["variance_components"]["n_items"] == 300
    assert data["variance_components"]["runs_per_item"] == 4.0
    assert data["cheapest"] == {
        "n_items": 958,
        "n_runs": 5,
        "se": pytest.approx(0.0107, abs=1e-4),
        "cost": pytest.approx(57.48),
    }
    assert data["delta_from_pilot"] is False


def test_when_items_dominate_reruns_cannot_help():
    """Items nearly always or never solved (p = 0.02 or 0.98), by the two models on different
    items: the runs barely vary, the items' differences do."""
    rng = np.random.default_rng(5)
    p_a = np.where(rng.random(400) < 0.6, 0.98, 0.02)
    p_b = np.where(rng.random(400) < 0.5, 0.98, 0.02)
    rows = [
        (m, i, r, float(rng.random() < p[i]))
        for m, p in (("a", p_a), ("b", p_b))
        for i in range(400)
        for r in range(3)
    ]
    pilot = pd.DataFrame(rows, columns=["model", "item", "run", "score"])
    p = evalgap.plan_pilot(pilot, run_column="run", delta=0.05)
    assert not p.reruns_help
    assert p.rerun_saving < 0.2
    assert "reruns cannot help much" in p.verdict
    assert f"leave {p.items_floor:,} of the {p.frontier[0].n_items:,} items" in p.verdict


def test_closed_benchmark_reruns_are_the_only_lever():
    c = evalgap.plan_pilot(PILOT, run_column="run").variance_components
    p = evalgap.plan_pilot(PILOT, run_column="run", delta=0.03, n_items=1500)
    z2 = (1.959963984540054 + 0.8416212335729143) ** 2
    k = c.within_items / (1500 * 0.03**2 / z2 - c.between_items)
    assert p.runs_needed == np.ceil(k)
    assert "on a fixed set of 1,500 items" in p.verdict
    assert f"{int(np.ceil(k))} runs per model resolve it" in p.verdict
    small = evalgap.plan_pilot(PILOT, run_column="run", delta=0.03, n_items=200)
    assert small.runs_needed == np.inf
    assert small.mde_unlimited_runs == pytest.approx(np.sqrt(z2 * c.between_items / 200))
    assert "no number of reruns resolves it" in small.verdict


def test_inspect_epochs_pilot_prices_runs_by_logged_tokens(tmp_path, run_cli):
    rng = np.random.default_rng(2)
    for model, p in (("m1", 0.7), ("m2", 0.6)):
        scores = (rng.random(60) < p).astype(float)
        log = syn.inspect_log(model, "arc", [str(i) for i in range(60)], scores, epochs=3)
        for s in log["samples"]:  # each epoch's own draw, and its token usage
            s["scores"]["choice"]["value"] = "C" if rng.random() < p else "I"
            s["model_usage"] = {model: {"input_tokens": 300, "output_tokens": 100}}
        (tmp_path / f"{model}.json").write_text(json.dumps(log))
    p = evalgap.plan_pilot(
        [tmp_path / "m1.json", tmp_path / "m2.json"], delta=0.1, price_per_1k_tokens=2.0
    )
    assert p.variance_components.runs_per_item == 3.0
    assert p.tokens_per_item == 400.0
    assert p.cost_per_run == pytest.approx(0.8)
    assert p.cost_per_item == 0.0
    assert p.cheapest.n_runs == 1  # items are free, runs are not: one run each
    assert any("400 tokens per run" in n for n in p.notes)
    out = run_cli("plan", "--pilot", str(tmp_path), "--delta", "0.1", "--price-per-1k-tokens", "2")
    assert out.returncode == 0 and "tokens per run of an item" in out.stdout


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "name the two with model_a= and model_b="),
        ({"model_a": "x", "model_b": "y"}, "has no model 'x'"),
        ({"model_a": "a", "model_b": "b", "run_column": None, "delta": 0.1}, None),
        ({"model_a": "a", "model_b": "b", "delta": 0}, "delta must be non-zero"),
        ({"model_a": "a", "model_b": "b", "tokens_per_item": 10.0}, "only with price_per_1k"),
        (
            {"model_a": "a", "model_b": "b", "price_per_1k_tokens": 1.0},
            "records no token counts",
        ),
        ({"model_a": "a", "model_b": "b", "cost_per_item": -1.0}, "finite number >= 0"),
    ],
)
def test_pilot_errors_name_what_to_fix(kwargs, message):
    rows = [(m, i, r, float((i + r) % 3 == 0)) for m in "abc" for i in range(10) for r in range(2)]
    pilot = pd.DataFrame(rows, columns=["model", "item", "run", "score"])
    if message is None:  # a detected run column: this one works
        assert evalgap.plan_pilot(pilot, **kwargs).variance_components.n_items == 10
        return
    with pytest.raises(InputError, match=message):
        evalgap.plan_pilot(pilot, **kwargs)


def test_pilot_without_runs_and_half_scored_items_are_said(run_cli, tmp_path):
    out = run_cli(
        "plan",
        "--pilot",
        str(ROOT / "examples" / "two_models.csv"),
        "--model-a",
        "model-x",
        "--model-b",
        "model-y",
    )
    assert (
        out.returncode == 2 and "has no run column" in out.stderr and "--run-column" in out.stderr
    )
    frame = pd.read_csv(PILOT)
    frame = frame[~((frame["model"] == "model-y") & (frame["item_id"] == "item-000"))]
    p = evalgap.plan_pilot(frame)
    assert p.variance_components.n_items == 299
    assert "1 item scored by only one of the two models left out of the pilot" in p.notes
    out = run_cli("plan", "--delta", "0.1", "--sd-diff", "0.3", "--cost-per-item", "1")
    assert out.returncode == 2 and "--cost-per-item: only with --pilot" in out.stderr


def _pilot(score_a, score_b, n_items=40, n_runs=3):
    """A pilot of two models whose score on item i, run r is ``score_x(i, r)``."""
    rows = [
        (m, f"q{i}", r, float(f(i, r)))
        for m, f in (("a", score_a), ("b", score_b))
        for i in range(n_items)
        for r in range(n_runs)
    ]
    return pd.DataFrame(rows, columns=["model", "item", "run", "score"])


@pytest.mark.parametrize(
    ("score_a", "score_b"),
    [
        (lambda i, r: 1, lambda i, r: 1),  # identical, always-correct models
        (lambda i, r: 1, lambda i, r: 0.5),  # the same difference on every item and run
    ],
)
def test_a_pilot_without_spread_does_not_claim_two_items(score_a, score_b, run_cli, tmp_path):
    """sigma_D estimated as 0 made Eq. 3 give N* = 0 (the frontier then said '2 items'):
    the plan is refused as not estimable, with the worst case of a [0, 1] scale,
    K (1 - delta^2) / delta^2 items (Bhatia-Davis: Var(D) <= 1 - delta^2)."""
    pilot = _pilot(score_a, score_b)
    with pytest.raises(InputError, match="not estimable from this pilot") as caught:
        evalgap.plan_pilot(pilot, delta=0.05)
    k = (1.959963984540054 + 0.8416212335729143) ** 2
    worst = int(np.ceil(k * (1 - 0.05**2) / 0.05**2))
    assert f"at most {worst:,} items" in str(caught.value)
    path = tmp_path / "pilot.csv"
    pilot.to_csv(path, index=False)
    out = run_cli("plan", "--pilot", str(path), "--delta", "0.05")
    assert out.returncode == 2 and "not estimable" in out.stderr and "--delta 0.05" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("delta", [5.0, -1.5, 1 + 1e-9])
def test_a_gap_beyond_the_score_scale_is_refused(delta, run_cli):
    """0/1 scores: |delta| <= 1 (it gave '2 items' for delta=5)."""
    with pytest.raises(InputError, match=r"delta=.* is beyond any gap of scores in \[0, 1\]"):
        evalgap.plan_pilot(PILOT, run_column="run", delta=delta)
    out = run_cli("plan", "--pilot", str(PILOT), "--delta", repr(delta))
    assert out.returncode == 2 and out.stderr.startswith("evalgap: error: --delta")
    # the edge of the scale is a gap two models can have
    assert evalgap.plan_pilot(PILOT, run_column="run", delta=1.0).frontier[0].n_items >= 2


def test_a_graded_pilot_gap_is_bounded_by_the_scores_it_saw():
    """Scores on a 1-10 scale: the gap cannot exceed the pilot's span (here 9 - 1 = 8)."""
    pilot = _pilot(lambda i, r: 1 + (i + r) % 9, lambda i, r: 1 + (2 * i + r) % 9)
    assert evalgap.plan_pilot(pilot, delta=8.0).frontier[0].n_items >= 2
    with pytest.raises(InputError, match=r"span \[1, 9\]: a gap is at most 8"):
        evalgap.plan_pilot(pilot, delta=8.5)


def test_max_runs_is_capped_so_memory_stays_bounded(run_cli):
    """--max-runs 1e9 laid out a frontier row per K: 7.5 GiB of arrays. In a process limited
    to 3 GiB of address space the plan now refuses it in one line (it ran out of memory)."""
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    code = (
        "import evalgap\n"
        "from evalgap.errors import InputError\n"
        f"try: evalgap.plan_pilot({str(PILOT)!r}, run_column='run', delta=0.03, "
        "max_runs=10**9)\n"
        "except InputError as e: print('refused:', e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-300:]
    assert "refused: max_runs= must be at most 1,000" in done.stdout
    p = evalgap.plan_pilot(PILOT, run_column="run", delta=0.03, max_runs=1000)
    assert len(p.frontier) == 1000
    out = run_cli("plan", "--pilot", str(PILOT), "--delta", "0.03", "--max-runs", "1001")
    assert out.returncode == 2 and out.stderr.startswith("evalgap: error: --max-runs must be")


@pytest.mark.parametrize(
    ("score_a", "message"),
    [
        # one run per item: the message named the internal array (runs_a), not the file
        (None, r"pilot\.csv: model 'a' ran no item twice in the pilot"),
        # an infinite score went through and gave a NaN N*
        (lambda i, r: np.inf if (i, r) == (3, 1) else (i + r) % 2, r"1 pilot score is .*infinite"),
        # scores whose squares overflow: a NaN N* blamed on delta's units
        (lambda i, r: ((i + r) % 2) * 1e200, r"up to 1e\+200\) are too large"),
    ],
)
def test_odd_pilots_are_refused_naming_the_file(score_a, message, tmp_path):
    if score_a is None:
        pilot = _pilot(lambda i, r: (i + r) % 2, lambda i, r: i % 3 == 0, n_runs=1)
    else:
        pilot = _pilot(score_a, lambda i, r: (i * r) % 2)
    path = tmp_path / "pilot.csv"
    pilot.to_csv(path, index=False)
    with pytest.raises(InputError, match=message):
        evalgap.plan_pilot(path, run_column="run", delta=0.1)


def test_model_names_with_control_characters_are_shown_not_obeyed(run_cli, tmp_path):
    pilot = _pilot(lambda i, r: (i + r) % 2, lambda i, r: (i * r) % 2)
    pilot["model"] = pilot["model"].map({"a": "a\x1b[31mred", "b": "b\nnew"})
    path = tmp_path / "pilot.csv"
    pilot.to_csv(path, index=False)
    out = run_cli("plan", "--pilot", str(path), "--delta", "0.1")
    assert out.returncode == 0 and "\x1b" not in out.stdout
    assert out.stdout.splitlines()[0].startswith("pilot: a\u241b[31mred vs b\u240anew")
