"""Simulation studies: Table 2's calibration pattern, Table 10, Figure 3's ordering, figures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evalgap._scores import align
from evalgap.io.sources import load_scores
from evalgap.jobs import simulate as sim
from evalgap.report import plots
from evalgap.stats import clusters, generators
from evalgap.stats import power as pw
from evalgap.stats.paired import counts_from_scores, summarize_counts

from conftest import shared_file
from paper_tables import TABLE_6

TRIO = ("mcnemar", "mid_p", "bootstrap")


@pytest.fixture(scope="module")
def calibration():
    return sim.calibration(seed=0, jobs=2)  # the defaults: 9 cells, n = 500, M = 1500


@pytest.mark.slow  # the full study of Table 2: 9 cells x 1,500 trials x 1,000 resamples
def test_calibration_reproduces_table_2(calibration):
    """Section 5: the asymptotic trio holds alpha within Monte Carlo error with median power
    ~0.79-0.80; the exact and continuity-corrected tests are conservative and lose power."""
    se = math.sqrt(0.05 * 0.95 / 1500)
    variants = calibration.variants
    for v in TRIO:
        assert variants[v]["type1_max_abs_dev"] <= 3.5 * se
        assert variants[v]["power_median"] == pytest.approx(0.795, abs=0.02)
    for v in ("exact", "mcnemar_cc"):
        type1 = [c["type1"][v] for c in calibration.cells]
        assert np.mean(type1) < 0.05
        assert all(c["type1"][v] <= c["type1"]["mcnemar"] for c in calibration.cells)
        assert variants[v]["power_median"] < min(variants[t]["power_median"] for t in TRIO)
    assert len(calibration.cells) == 9
    for cell in calibration.cells:
        assert set(cell["type1_se"]) == set(sim.CALIBRATION_VARIANTS)


def test_tuned_delta_gives_the_target_power():
    delta = sim.tuned_delta(0.7, 0.4, 500)
    cells = generators.latent_cells(0.7 + delta / 2, 0.7 - delta / 2, 0.4)
    sd = math.sqrt(cells[1] + cells[2] - (cells[1] - cells[2]) ** 2)
    assert float(pw.required_n(delta, sd)) == pytest.approx(500, rel=1e-8)


def test_results_do_not_depend_on_the_number_of_processes():
    one = sim.calibration(n_trials=60, n_bootstrap=50, seed=5, jobs=1)
    two = sim.calibration(n_trials=60, n_bootstrap=50, seed=5, jobs=2)
    assert one.to_dict() == two.to_dict()
    a = sim.aggregation_study(task_counts=(1, 3), n_trials=50, seed=2, jobs=1)
    b = sim.aggregation_study(task_counts=(1, 3), n_trials=50, seed=2, jobs=3)
    assert a.rates == b.rates


def test_latent_copula_generator():
    cells = generators.latent_cells(0.65, 0.60, 0.3)
    assert cells[0] + cells[1] == pytest.approx(0.65) and cells[0] + cells[2] == pytest.approx(0.60)
    rng = np.random.default_rng(0)
    a, b = generators.paired_bernoulli(200_000, 0.65, 0.60, 0.3, (), rng)
    s = summarize_counts(*counts_from_scores(a, b))
    expected = summarize_counts(*(np.array(cells) * 1e9).round())
    assert float(s.correlation) == pytest.approx(float(expected.correlation), abs=0.01)
    assert float(s.accuracy_a) == pytest.approx(0.65, abs=0.005)


def test_beta_and_clustered_generators():
    rng = np.random.default_rng(1)
    a, b = generators.paired_beta(100_000, (4, 2), (4, 2), 0.5, (), rng)
    assert a.mean() == pytest.approx(4 / 6, abs=0.005)
    assert np.corrcoef(a, b)[0, 1] == pytest.approx(0.48, abs=0.03)
    a, b, labels = generators.clustered_paired_bernoulli(50, 200, 0.6, 0.6, 0.5, 0.5, (), rng)
    assert a.mean() == pytest.approx(0.6, abs=0.03)
    assert float(clusters.icc(a - b, labels)) > 0.01
    a0, b0, labels0 = generators.clustered_paired_bernoulli(50, 200, 0.6, 0.6, 0.5, 0.0, (), rng)
    assert abs(float(clusters.icc(a0 - b0, labels0))) < 0.01


def test_prospective_on_three_mmlu_pro_pairs():
    """Table 10: subsampling to N* gives power 0.80 +/- 0.04; 0.8 N* under- and 1.2 N*
    overshoots."""
    long = load_scores(shared_file("mmlu_pro", "mmlu_pro_long.csv.gz"))
    score_set = align(long.frame)
    names = [
        ("Meta-Llama-3_1-8B_5shots", "Meta-Llama-3_1-8B-Instruct_5shots"),
        ("Mixtral-8x7B-Instruct-v0.1_5shots", "Qwen1.5-72B-Chat_5shots"),
        ("gemma-7b_5shots", "Meta-Llama-3-8B_5shots"),
    ]
    pairs = {
        f"{a} vs {b}": tuple(int(x) for x in counts_from_scores(*score_set.pair(a, b)))
        for a, b in names
    }
    result = sim.prospective(pairs, seed=0)
    for pair in result.pairs:
        under, at, over = pair["power"]
        assert at == pytest.approx(0.80, abs=0.04)
        assert under < at < over


def test_power_curve_crosses_the_target_near_n_star():
    """Figure 5: the bootstrap crosses 0.8 close to N* from Equation (6)."""
    result = sim.power_curve(seed=1)
    for curve in result.curves:
        assert curve["crossing"] == pytest.approx(curve["required_n"], rel=0.15)
        # from a quarter of N* (power about 0.3) to twice N* (about 0.97)
        assert curve["power"][0] < 0.45 and curve["power"][-1] > 0.9
    graded = sim.power_curve(
        kind="graded",
        deltas=(0.04,),
        fractions=(0.5, 1.0, 2.0),
        n_trials=150,
        n_bootstrap=150,
        seed=2,
    )
    low, mid, high = graded.curves[0]["power"]
    assert low < mid < high and mid == pytest.approx(0.8, abs=0.12)


def test_sequential_controls_type_one_error_and_stops():
    result = sim.sequential_study(TABLE_6[2].cells, n_trials=600, seed=3)
    assert result.type1 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 600)
    assert result.rejection_rate > 0.9
    assert 0.5 < result.stopping_ratio_median < 5
    assert {"H0 trial 1", "H1 trial 1"} <= set(result.trajectories)


def test_aggregation_reproduces_figure_3_ordering():
    result = sim.aggregation_study(task_counts=(1, 5, 20), n_trials=1000, seed=4)
    se = math.sqrt(0.05 * 0.95 / 1000)
    for test in ("pooled", "max_drop", "fisher"):
        assert max(result.rates["null"][test]) <= 0.05 + 3 * se
    balanced, single = result.rates["balanced"], result.rates["single_task"]
    assert balanced["pooled"][-1] > balanced["fisher"][-1] > balanced["max_drop"][-1]
    assert single["max_drop"][-1] > single["fisher"][-1] > single["pooled"][-1]
    for scenario in result.rates.values():
        assert all(
            any_ >= max(p, m, f)
            for any_, p, m, f in zip(
                scenario["any"],
                scenario["pooled"],
                scenario["max_drop"],
                scenario["fisher"],
                strict=True,
            )
        )


FIGURES = [
    (
        "calibration_figure",
        lambda: sim.calibration(n_trials=40, n_bootstrap=40),
        ["grid cell (accuracy p, latent correlation rho_z)", "Type-I error", "power"],
    ),
    (
        "prospective_figure",
        lambda: sim.prospective({"pair": TABLE_6[3].cells}, n_trials=50),
        ["sample size / N*", "empirical McNemar power"],
    ),
    (
        "power_curve_figure",
        lambda: sim.power_curve(n_trials=40, n_bootstrap=40, fractions=(0.5, 1.0)),
        ["paired sample size n", "bootstrap power"],
    ),
    (
        "sequential_figure",
        lambda: sim.sequential_study(TABLE_6[2].cells, n_trials=40),
        ["items", "log e_n"],
    ),
    (
        "aggregation_figure",
        lambda: sim.aggregation_study(task_counts=(1, 2), n_trials=40),
        ["number of tasks T", "rejection rate"],
    ),
]


@pytest.mark.parametrize(("name", "make", "labels"), FIGURES, ids=[f[0] for f in FIGURES])
def test_study_figures(tmp_path, name, make, labels):
    result = make()
    figure = getattr(plots, name)(result)
    found = {ax.get_xlabel() for ax in figure.axes} | {ax.get_ylabel() for ax in figure.axes}
    assert set(labels) <= found
    svg, png = tmp_path / "f.svg", tmp_path / "f.png"
    plots.save_figure(getattr(plots, name)(result), svg)
    plots.save_figure(figure, png)
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert all(label in text for label in labels)


@pytest.mark.slow  # a calibration run; test_entry_points.py checks the JSON at a tiny size
def test_cli_calibration_json_contract(tmp_path, run_cli):
    out = run_cli(
        "simulate",
        "calibration",
        "--n-trials",
        "40",
        "--n-bootstrap",
        "40",
        "--json",
        "--plot",
        str(tmp_path / "c.png"),
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data["variants"]) == {"mcnemar", "exact", "mid_p", "mcnemar_cc", "bootstrap"}
    for v in data["variants"].values():
        assert set(v) == {"type1_max_abs_dev", "power_median", "power_max_dev"}
    assert len(data["cells"]) == 9 and "type1_se" in data["cells"][0]
    assert (tmp_path / "c.png").stat().st_size > 0
    bad = run_cli("simulate", "aggregation", "--plot", str(tmp_path / "x.gif"))
    assert bad.returncode == 2 and "give a .png, .svg or .pdf" in bad.stderr


def test_cli_prospective_needs_pairs(run_cli):
    out = run_cli("simulate", "prospective", "--scores", "x.csv")
    assert out.returncode == 2 and "--pair" in out.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["power-curve", "--n-trials", "30", "--n-bootstrap", "30", "--delta", "0.05"],
            "reaches 0.8 at n =",
        ),
        (
            [
                "sequential",
                "--both-correct",
                "716",
                "--a-only",
                "100",
                "--b-only",
                "78",
                "--both-wrong",
                "278",
                "--n-trials",
                "30",
            ],
            "Type-I rate under H0",
        ),
        (["aggregation", "--max-tasks", "3", "--n-trials", "30"], "rejection rate by number"),
    ],
    ids=["power-curve", "sequential", "aggregation"],
)
def test_cli_simulation_subcommands(tmp_path, run_cli, args, expected):
    out = run_cli("simulate", *args, "--plot", str(tmp_path / "f.svg"))
    assert out.returncode == 0, out.stderr
    assert expected in " ".join(out.stdout.split())
    assert (tmp_path / "f.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
