"""simulate configurations: the study's known components, its calibration figures, its
independence of the number of processes, its refusals and its command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalgap.errors import InputError
from evalgap.jobs import configuration_study as study
from evalgap.stats import config_components as cc

from conftest import run_entry_point


@pytest.mark.parametrize("kind", ["binary", "graded"])
def test_the_stated_components_are_the_components_of_the_draws(kind):
    """Over 400 trials of 200 items x 4 configurations x 3 replicates the method-of-moments
    estimates (unbiased) average within 4 Monte Carlo SE of ``true_components``: the closed
    form of the uniform effects and the Bernoulli / Beta within-cell variance."""
    rng = np.random.default_rng(3)
    a, _ = study._draw(rng, kind, 0.04, (400, 200, 4, 3))
    estimates = cc.decompose_models(a).estimate
    se = estimates.std(axis=0, ddof=1) / np.sqrt(len(estimates))
    truth = study.true_components(kind, 0.04)
    assert (np.abs(estimates.mean(axis=0) - truth) < 4 * se).all(), (estimates.mean(0), truth)


def test_the_tests_hold_their_size_and_the_intervals_cover():
    """Seed 0, 1,000 trials per row (200 items x 4 configurations x 2 replicates): the
    configuration-effect and model x configuration tests' size within alpha + 2 MC SE where
    configurations do not shift scores; every component's interval covers >= 0.93 and the
    gap's interval with configurations random >= 0.94 (within 2 MC SE), where the fixed one
    falls to about 0.7 at a configuration SD of 0.04."""
    r = study.configuration_study(configuration_sds=(0.0, 0.04), n_trials=1000)
    rows = r.rows
    null, shifted = rows[rows.configuration_sd == 0], rows[rows.configuration_sd > 0]
    for name in ("configuration_rejection", "model_configuration_rejection"):
        assert (null[name] <= 0.05 + 2 * null[f"{name}_se"]).all()
        assert (shifted[name] > 0.4).all()  # power 0.56 to 0.92 at 4,000 trials
    for component in cc.COMPONENTS:
        column = f"coverage_{component}"
        assert (rows[column] >= 0.93 - 2 * rows[f"{column}_se"]).all(), rows[column]
    assert (shifted.gap_coverage_random >= 0.94 - 2 * shifted.gap_coverage_random_se).all()
    assert (shifted.gap_coverage_fixed < 0.8).all()
    assert "within alpha + 2 MC SE" in r.verdict


def test_an_unbalanced_design_keeps_its_level_and_coverage():
    """A quarter of the runs lost at random (seed 4, 1,500 trials, binary): both tests within
    alpha + 3 MC SE, every component's interval >= 0.93 - 2 MC SE. At 20,000 trials (seed 5;
    `simulate configurations --missing 0.25 --n-runs 3`) the sizes are 0.049 and 0.050."""
    r = study.configuration_study(kinds=["binary"], configuration_sds=[0.0], n_runs=3,
                                  missing=0.25, n_trials=1500, seed=4)  # fmt: skip
    row = r.rows.iloc[0]
    assert row["missing"] == 0.25
    for name in ("configuration_rejection", "model_configuration_rejection"):
        assert row[name] <= 0.05 + 3 * row[f"{name}_se"]
    for component in cc.COMPONENTS:
        assert row[f"coverage_{component}"] >= 0.93 - 2 * row[f"coverage_{component}_se"]


def test_results_do_not_depend_on_the_number_of_processes():
    settings = dict(kinds=["graded"], configuration_sds=[0.02], n_items=1000, n_trials=600)
    assert 600 > study._CHUNK_NUMBERS // (1000 * 4 * 2)  # several chunks to spread
    one = study.configuration_study(**settings, jobs=1).rows
    two = study.configuration_study(**settings, jobs=2).rows
    assert one.equals(two)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"configuration_sds": [0.2]}, "configuration_sds must be between 0 and 0.069"),
        ({"kinds": ["ordinal"]}, "kinds must be 'binary' or 'graded'"),
        ({"n_runs": 1}, "n_runs"),
        ({"missing": 1.0}, "missing must be at least 0 and below 1"),
        ({"configuration_sds": []}, "at least one value"),
    ],
)
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(InputError, match=message):
        study.configuration_study(n_trials=10, **settings)


def test_the_command_prints_the_table_and_the_json(run_cli):
    out = run_cli("simulate", "configurations", "--n-trials", "50", "--kind", "binary",
                  "--configuration-sd", "0", "--n-items", "30")  # fmt: skip
    assert out.returncode == 0 and "model x configuration" in out.stdout
    done = run_entry_point("simulate", "configurations", "--n-trials", "50", "--kind",
                           "graded", "--configuration-sd", "0.03", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)["rows"][0]
    assert row["kind"] == "graded" and row["configuration_sd"] == 0.03
    refused = run_cli("simulate", "configurations", "--configuration-sd", "0.5")
    assert refused.returncode == 2 and "--configuration-sd must be between" in refused.stderr
