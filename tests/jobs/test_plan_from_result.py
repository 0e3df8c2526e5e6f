"""plan(result, delta=...): a plan from a compare or audit result's own figures equals the plan
those figures give directly (issue 40)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError


@pytest.fixture(scope="module")
def binary():
    return evalgap.compare(
        "examples/two_models.csv", model_a="model-x", model_b="model-y", n_bootstrap=0
    )


@pytest.fixture(scope="module")
def graded():
    rng = np.random.default_rng(3)
    base = rng.random(600)
    frame = pd.DataFrame(
        {
            "model": ["a"] * 600 + ["b"] * 600,
            "item_id": list(range(600)) * 2,
            "score": np.r_[
                np.clip(base + 0.03, 0, 1), np.clip(base + rng.normal(0, 0.2, 600), 0, 1)
            ],
        }
    )
    return evalgap.compare(frame, model_a="a", model_b="b", n_bootstrap=0)


@pytest.fixture(scope="module")
def audit():
    return evalgap.audit("examples/board.csv", n_bootstrap=0)


def test_a_binary_compare_plans_from_its_accuracy_correlation_and_size(binary):
    assert binary.binary and binary.correlation is not None
    direct = evalgap.plan(
        accuracy_a=binary.accuracy_a,
        correlation=binary.correlation,
        delta=0.01,
        n_items=binary.n_items,
    )
    planned = evalgap.plan(binary, delta=0.01)
    assert planned.to_dict() == direct.to_dict()
    # its own gap by default: the N* compare gave
    assert evalgap.plan(binary).required_n == binary.required_n
    # another size replaces the result's
    assert evalgap.plan(binary, delta=0.01, n_items=50_000).n_items == 50_000


def test_a_graded_compare_plans_from_its_sd_of_differences(graded):
    assert not graded.binary
    direct = evalgap.plan(delta=0.02, sd_diff=graded.sd_diff, n_items=graded.n_items)
    assert evalgap.plan(graded, delta=0.02).to_dict() == direct.to_dict()


def test_the_result_settings_are_the_plans(binary):
    strict = evalgap.compare(
        "examples/two_models.csv", model_a="model-x", model_b="model-y", n_bootstrap=0,
        alpha=0.01, power=0.9,
    )  # fmt: skip
    planned = evalgap.plan(strict, delta=0.01)
    assert (planned.alpha, planned.power) == (0.01, 0.9)
    assert evalgap.plan(strict, delta=0.01, alpha=0.01).to_dict() == planned.to_dict()
    with pytest.raises(InputError, match="alpha") as caught:
        evalgap.plan(binary, delta=0.01, alpha=0.01)
    assert caught.value.param == "alpha"


def test_an_audit_plans_the_pair_it_names(audit):
    frame = audit.pairs.to_frame()
    row = frame.iloc[0]
    one = evalgap.plan(audit, delta=0.01, model_a=row["model_a"], model_b=row["model_b"])
    if bool(row["binary"]) and not np.isnan(row["correlation"]):
        direct = evalgap.plan(
            accuracy_a=row["accuracy_a"], correlation=row["correlation"], delta=0.01,
            n_items=int(row["n_items"]), alpha=audit.alpha, power=audit.power,
        )  # fmt: skip
    else:
        direct = evalgap.plan(delta=0.01, sd_diff=row["sd_diff"], n_items=int(row["n_items"]))
    assert one.to_dict() == direct.to_dict()
    # named the other way round: A is the first named
    turned = evalgap.plan(audit, delta=0.01, model_a=row["model_b"], model_b=row["model_a"])
    assert turned.accuracy_a == pytest.approx(row["accuracy_b"])
    # several pairs and none named: refused, naming the options that choose one
    with pytest.raises(InputError, match="several pairs there") as caught:
        evalgap.plan(audit, delta=0.01)
    assert "model_a" in str(caught.value) and f"{row['model_a']} vs {row['model_b']}" in str(
        caught.value
    )
    # one plan per pair is a loop
    plans = [
        evalgap.plan(audit, delta=0.01, model_a=a, model_b=b, tasks=[t])
        for t, a, b in zip(frame["task"], frame["model_a"], frame["model_b"], strict=True)
    ]
    assert plans[0].to_dict() == one.to_dict() and len(plans) == len(frame)
    with pytest.raises(InputError, match="no pair of the audit"):
        evalgap.plan(audit, delta=0.01, model_a="no-such-model")


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda r: evalgap.plan(r, correlation=0.3), "correlation"),
        (lambda r: evalgap.plan(r, flip_rate=0.1), "flip_rate"),
        (lambda r: evalgap.plan(r, model_a="model-x"), "model_a"),
        (lambda r: evalgap.plan("a.csv", delta=0.01), "result of compare or audit"),
    ],
)
def test_what_a_plan_from_a_result_does_not_take_is_refused(binary, call, words):
    with pytest.raises(InputError, match=words):
        call(binary)
