"""plan --pilot with configuration columns: the gap's components over items x configurations
and the plan across configurations reproduce the closed forms of
:mod:`evalgap.stats.config_components` on the pilot's own arrays."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalgap.errors import InputError
from evalgap.io.options import LoadOptions
from evalgap.jobs.pilot import plan_pilot
from evalgap.stats import config_components as cc

from conftest import ROOT, run_entry_point

PILOT = ROOT / "examples" / "pilot_configurations.csv"


def _arrays(frame):
    """The two models' (items, seeds, runs) arrays, built here independently of the job."""
    frame = frame.sort_values(["model", "item_id", "seed", "run"])
    shape = (frame["item_id"].nunique(), frame["seed"].nunique(), frame["run"].nunique())
    a, b = (frame[frame.model == m]["score"].to_numpy(float).reshape(shape)
            for m in ("model-x", "model-y"))  # fmt: skip
    return a, b


def test_the_plan_across_configurations_is_the_closed_form_of_the_pilots_components():
    frame = pd.read_csv(PILOT)
    costs = dict(cost_per_item=1.0, cost_per_run=0.01, cost_per_configuration=100.0)
    options = LoadOptions(config_columns=("seed",))
    p = plan_pilot(frame, run_column="run", delta=0.05, options=options, **costs)
    c = p.configurations
    a, b = _arrays(frame)
    gap = cc.decompose_gap(a, b)
    np.testing.assert_allclose(list(c.components.values()), gap.estimate, rtol=1e-12)
    assert c.interaction_p_value == pytest.approx(gap.configuration_test.p_value)
    assert (c.n_configurations, c.n_items, c.n_runs, c.factors) == (4, 200, 2, ("seed",))
    s2 = np.maximum(gap.estimate, 0)
    assert c.configurations_needed == cc.required_configurations(s2, 0.05, 200, 2)
    for d in c.frontier:
        assert d.n_items == cc.required_items(s2, 0.05, d.n_configurations, 2)
        assert d.cost == pytest.approx(d.n_items + 2 * d.n_items * d.n_configurations * 2 * 0.01
                                       + 100 * d.n_configurations)  # fmt: skip
    expected = cc.cheapest_design(s2, 0.05, max_configurations=16, **costs)
    assert c.cheapest.to_dict() == pytest.approx(expected.to_dict(), rel=1e-12)
    assert "need 18 configurations" in p.verdict


def test_without_configurations_the_pilot_plan_is_unchanged_and_their_cost_refused():
    frame = pd.read_csv(PILOT)
    p = plan_pilot(frame[frame.seed == 1], run_column="run", delta=0.05)
    assert p.configurations is None
    with pytest.raises(InputError, match="cost_per_configuration= prices configurations"):
        plan_pilot(frame[frame.seed == 1], run_column="run", delta=0.05,
                   cost_per_configuration=10)  # fmt: skip


def test_one_configuration_is_refused_naming_the_option():
    frame = pd.read_csv(PILOT)
    with pytest.raises(InputError, match=r"at least 2 configurations.*config_columns="):
        plan_pilot(frame[frame.seed == 1], run_column="run", delta=0.05,
                   options=LoadOptions(config_columns=("seed",)))  # fmt: skip


def test_the_command_prices_configurations(run_cli):
    done = run_entry_point("plan", "--pilot", PILOT, "--run-column", "run", "--config-columns",
                           "seed", "--delta", "0.05", "--cost-per-configuration", "100",
                           "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)["configurations"]
    assert plan["configurations_needed"] == 18 and plan["cost_per_configuration"] == 100
    out = run_cli("plan", "--pilot", PILOT, "--run-column", "run", "--delta", "0.05",
                  "--cost-per-configuration", "100")  # fmt: skip
    assert out.returncode == 2 and "--cost-per-configuration prices configurations" in out.stderr
    assert "--config-columns" in out.stderr
