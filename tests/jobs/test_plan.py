"""The ``plan`` job on every path: what an astronomically small gap or an extreme level gives
(a whole number or a one-line refusal, never an OverflowError), and whether the N a plan
states reaches its own target SE."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy import stats

import evalgap
from evalgap.errors import InputError
from evalgap.jobs.pilot import plan_pilot
from evalgap.jobs.plan import plan_degradation, plan_noninferiority
from evalgap.jobs.sampling_design import plan_sampling
from evalgap.stats import noninferiority as ni
from evalgap.stats import stratified as st
from evalgap.stats import variance_components as vc

from conftest import ROOT

PILOT = ROOT / "examples" / "pilot_runs.csv"


def _k(alpha=0.05, power=0.8, sides=2):
    return (stats.norm.isf(alpha / sides) + stats.norm.ppf(power)) ** 2


def test_a_pilot_gap_too_small_for_floating_point_is_refused_not_an_overflow(run_cli):
    """delta=1e-300 made N* infinite and int() raised OverflowError; 1e-150 is a huge whole
    number, Eq. 3 to the last digit."""
    with pytest.raises(InputError, match=r"a gap of 1e-300 needs more items than floating"):
        plan_pilot(PILOT, run_column="run", delta=1e-300)
    out = run_cli("plan", "--pilot", str(PILOT), "--delta", "1e-300")
    assert out.returncode == 2 and "check the units of --delta" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    p = plan_pilot(PILOT, run_column="run", delta=1e-150)
    c = p.variance_components
    exact = _k() * (c.between_items + c.within_items) / 1e-300
    assert p.frontier[0].n_items == int(np.ceil(exact)) and p.frontier[0].n_items > 10**299


def test_a_noninferiority_plan_at_a_tiny_alpha_takes_the_tail_quantile(run_cli):
    """--alpha 1e-20: z_{1-alpha} from 1 - alpha rounded to 1 gave z = inf and an
    OverflowError; from the tail it is 9.26 (scipy's isf)."""
    margin, flip, alpha = 0.05, 0.1, 1e-20
    p2 = float(ni.constrained_p2(flip / 2, flip / 2, 1.0, -margin))
    v0, v1 = 2 * p2 - margin * (1 + margin), flip
    n = (stats.norm.isf(alpha) * v0**0.5 + stats.norm.ppf(0.8) * v1**0.5) ** 2 / margin**2
    got = plan_noninferiority(margin=margin, flip_rate=flip, alpha=alpha)
    assert got.required_n == math.ceil(n)
    out = run_cli("plan", "--margin", "0.05", "--flip-rate", "0.1", "--alpha", "1e-20", "--json")
    assert out.returncode == 0 and f'"required_n": {math.ceil(n)}' in out.stdout


def test_a_degradation_drop_too_small_for_floating_point_is_refused_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match="a drop of 1e-300 needs more items"):
            plan_degradation(delta=1e-300, flip_rate=0.1)
        huge = plan_degradation(delta=1e-150, flip_rate=0.1).required_n
    assert huge == pytest.approx(0.1 * _k(sides=1) / 1e-300, rel=1e-12)


def _reference():
    rng = np.random.default_rng(3)
    theta, a, c = rng.normal(size=6), rng.uniform(0.5, 2, 120), rng.normal(size=120)
    y = rng.random((6, 120)) < st.success_probability(theta, a, c)
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(6)], 120),
            "item_id": np.tile(np.arange(120), 6),
            "score": y.ravel().astype(int),
        }
    )


EXTREMES = [1e-300, 1 - 1e-16, 0.0, 1.0, math.nan, math.inf, -math.inf, -1e-300, 1e-20, 5.0]
FORMS = {
    "graded": lambda a, p, d: evalgap.plan(delta=d, sd_diff=0.4, alpha=a, power=p, n_items=50),
    "sd_diff": lambda a, p, d: evalgap.plan(delta=0.05, sd_diff=d, alpha=a, power=p),
    "binary": lambda a, p, d: evalgap.plan(
        accuracy_a=0.6, correlation=0.3, delta=d, alpha=a, power=p, n_items=50
    ),
    "accuracies": lambda a, p, d: evalgap.plan(
        accuracy_a=0.6, accuracy_b=d, correlation=0.3, alpha=a, power=p
    ),
    "degradation": lambda a, p, d: plan_degradation(
        delta=d, flip_rate=0.1, alpha=a, power=p, n_items=100
    ),
    "noninferiority": lambda a, p, d: plan_noninferiority(
        margin=0.05, flip_rate=0.1, delta=d, alpha=a, power=p
    ),
    "margin": lambda a, p, d: plan_noninferiority(
        margin=d, flip_rate=0.1, alpha=a, power=p
    ),
    "pilot": lambda a, p, d: plan_pilot(
        _PILOT,
        run_column="run",
        delta=d,
        alpha=a,
        power=p,
        n_items=50,
        cost_per_item=1,
        cost_per_run=0.1,
    ),
    "reference": lambda a, p, d: plan_sampling(
        _REFERENCE, model_a="new", accuracy_a=0.5, delta=d, alpha=a, power=p
    ),
}
_PILOT = pd.read_csv(PILOT)
_REFERENCE = _reference()


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_plan_form_gives_a_plan_or_one_line_at_extreme_settings(form):
    """alpha, power and the gap (or the form's own number) at 1e-300, 1 - 1e-16, 0, 1, NaN,
    +-inf, 1e-20 and 5: a plan whose sample sizes are whole numbers, or an InputError of one
    line; no other exception, and no NumPy warning."""
    run = FORMS[form]
    cases = [(x, 0.8, 0.05) for x in EXTREMES] + [(0.05, x, 0.05) for x in EXTREMES]
    cases += [(0.05, 0.8, x) for x in EXTREMES]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for alpha, power, value in cases:
            try:
                result = run(alpha, power, value)
            except InputError as e:
                assert "\n" not in str(e)
                continue
            data = result.to_dict()
            for key in ("required_n", "required_n_design", "n_items"):
                assert data.get(key) is None or isinstance(data[key], int), (key, data[key])
            assert isinstance(result.verdict, str)


@settings(max_examples=200, deadline=None)
@given(
    delta=hst.floats(1e-6, 1.0),
    sd=hst.floats(1e-6, 10.0),
    alpha=hst.floats(1e-12, 0.5),
    power=hst.floats(0.51, 0.999),
)
def test_the_stated_n_reaches_the_target_se_graded(delta, sd, alpha, power):
    """Eq. 3 rounded up: sd / sqrt(N*) <= |delta| / sqrt(K) (to floating-point noise)."""
    p = evalgap.plan(delta=delta, sd_diff=sd, alpha=alpha, power=power)
    assert sd / math.sqrt(p.required_n) <= delta / math.sqrt(_k(alpha, power)) * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(
    between=hst.floats(0.0, 0.5),
    within=hst.floats(1e-4, 0.5),
    delta=hst.floats(1e-3, 1.0),
    runs=hst.integers(1, 50),
)
def test_the_stated_frontier_reaches_the_target_se_pilot(between, within, delta, runs):
    """A frontier row's N, plugged into the pilot's SE formula, gives at most the target."""
    n = float(vc.required_items(between, within, delta, runs))
    se = float(vc.standard_error(between, within, max(n, 2), runs))
    assert se <= delta / math.sqrt(_k()) * (1 + 1e-12)


def _json(result):
    from evalgap.report.json_output import to_json

    return json.loads(to_json(result))


@pytest.mark.parametrize(
    ("kwargs", "argv"),
    [
        (
            {"accuracy_a": 0.65, "accuracy_b": 0.6, "correlation": 0.3, "n_items": 900},
            [
                "--accuracy-a",
                "0.65",
                "--accuracy-b",
                "0.6",
                "--correlation",
                "0.3",
                "--n-items",
                "900",
            ],
        ),
        ({"delta": 0.02, "sd_diff": 0.3}, ["--delta", "0.02", "--sd-diff", "0.3"]),
        ({"flip_rate": 0.1, "delta": 0.01}, ["--flip-rate", "0.1", "--delta", "0.01"]),
        ({"margin": 0.02, "flip_rate": 0.1}, ["--margin", "0.02", "--flip-rate", "0.1"]),
        (
            {
                "pilot": [str(PILOT)],
                "delta": 0.03,
                "cost_per_item": 0.02,
                "cost_per_run": 0.004,
                "max_runs": 12,
            },
            [
                "--pilot",
                str(PILOT),
                "--delta",
                "0.03",
                "--cost-per-item",
                "0.02",
                "--cost-per-run",
                "0.004",
                "--max-runs",
                "12",
            ],
        ),
    ],
)
def test_the_python_plan_dispatches_as_the_cli_does(kwargs, argv, run_cli):
    """evalgap.plan(pilot=...) was a TypeError: the choice among the planners lived in the
    CLI. The CLI now only calls evalgap.plan, and its JSON is the result's to_dict()."""
    result = evalgap.plan(**kwargs)
    out = run_cli("plan", *argv, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == _json(result)


def test_the_python_plan_of_a_reference_writes_its_design_file(run_cli, tmp_path):
    path = tmp_path / "ref.csv"
    _REFERENCE.to_csv(path, index=False)
    design = tmp_path / "design.csv"
    result = evalgap.plan(
        reference=str(path), model_a="new", accuracy_a=0.5, delta=0.2, output=str(design)
    )
    assert type(result).__name__ == "SamplingDesign"
    written = pd.read_csv(design, dtype={"item_id": str})
    assert len(written) == result.n_items
    out = run_cli(
        "plan",
        "--reference",
        str(path),
        "--model-a",
        "new",
        "--accuracy-a",
        "0.5",
        "--delta",
        "0.2",
        "--json",
    )
    data = json.loads(out.stdout)
    assert data.pop("design_file") is None
    assert data == _json(result)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta": 0.02, "sd_diff": 0.3, "seed": 3}, r"seed=: only with pilot="),
        ({"delta": 0.02, "sd_diff": 0.3, "run_column": "run"}, r"run_column=: only with pilot="),
        ({"delta": 0.02, "sd_diff": 0.3, "output": "x.csv"}, r"output=: only with reference="),
        ({"pilot": PILOT, "correlation": 0.3}, r"pilot= plans from .*drop correlation="),
        ({"pilot": PILOT, "alternative": "less"}, r"alternative='less': pilot plans"),
        ({"reference": PILOT, "model_a": "x", "max_runs": 4}, r"drop max_runs="),
        ({"reference": PILOT}, r"name model A with model_a="),
        ({"pilot": PILOT, "reference": PILOT}, r"two plans"),
        ({"margin": 0.02, "flip_rate": 0.1, "n_items": 50}, r"n_items=: a non-inferiority"),
        ({"margin": 0.02}, r"margin= with flip_rate="),
        ({"flip_rate": 0.1, "delta": 0.01, "sd_diff": 0.3}, r"and not sd_diff="),
    ],
)
def test_the_python_plan_refuses_what_the_chosen_plan_does_not_take(kwargs, message):
    with pytest.raises(InputError, match=message):
        evalgap.plan(**kwargs)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # a list broadcast into arrays and failed as a TypeError
        (lambda: evalgap.plan(delta=[0.05, 0.1], sd_diff=0.3), r"delta must be one number"),
        (lambda: plan_degradation(delta=0.01, flip_rate=0.1, alpha=[0.05]), "alpha must"),
        (lambda: plan_sampling(_REFERENCE, model_a="x", accuracy_a=[0.5]), "accuracy_a"),
        (lambda: plan_pilot(_PILOT, delta=0.05, cost_per_item=[1]), "cost_per_item must"),
        # a string cost was a ValueError, True a cost of 1
        (lambda: plan_pilot(_PILOT, delta=0.05, cost_per_item="abc"), "finite number"),
        (lambda: evalgap.plan(pilot=_PILOT, delta=0.05, cost_per_run=True), "got True"),
        # a task given as a string was read letter by letter ('the pilot has 0 models')
        (lambda: evalgap.plan(pilot=_PILOT, delta=0.05, tasks="arc"), r"tasks must be a list"),
        # a model named by a number became a new model called 5
        (lambda: evalgap.plan(reference=_REFERENCE, model_a=5, accuracy_a=0.5), "a string"),
    ],
)
def test_wrong_types_are_one_line_errors_naming_the_parameter(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_identical_binary_models_have_no_mde(run_cli):
    """Equal accuracies at correlation 1 are one model twice: sigma_D = 0 made the MDE 0
    ('the smallest resolvable gap is 0.0000'); it is refused as having no spread."""
    with pytest.raises(InputError, match="leaves the per-item differences no spread"):
        evalgap.plan(accuracy_a=0.5, accuracy_b=0.5, correlation=1.0, n_items=100)
    out = run_cli("plan", "--accuracy-a", "0.5", "--correlation", "1", "--n-items", "100")
    assert out.returncode == 2 and "no spread" in out.stderr
    # just inside the interval the MDE is Eq. 4 with Eq. 5's sigma_D
    p = evalgap.plan(accuracy_a=0.5, accuracy_b=0.5, correlation=0.99, n_items=100)
    assert p.mde == pytest.approx(math.sqrt(_k() * 2 * 0.25 * 0.01 / 100))
