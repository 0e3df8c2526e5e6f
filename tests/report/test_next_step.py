"""A verdict that is not decided says what to do next: the items N* asks for beyond those there
are, or report the two as not told apart; every view prints it, since every view prints the
result's one sentence (issue 40)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

import evalgap
from evalgap.report import terminal
from evalgap.report.json_output import to_json


def _about(count: int) -> str:
    """Rounded up to two significant digits, as the sentence says it."""
    step = 10 ** max(len(str(count)) - 2, 0)
    return f"{math.ceil(count / step) * step:,}"


def _paired_undecided():
    return evalgap.compare(both_correct=7986, a_only=280, b_only=249, both_wrong=1512)


def _gold_undecided():
    frame = pd.read_csv("examples/judged.csv")
    labelled = frame["item_id"].isin(sorted(frame.loc[frame["human"].notna(), "item_id"])[:60])
    frame.loc[~labelled, "human"] = np.nan
    return evalgap.compare(
        frame, model_a="model-x", model_b="model-y", gold_column="human", n_bootstrap=0
    )


def _design_undecided():
    rng = np.random.default_rng(1)
    a = (rng.random(400) < 0.62).astype(float)
    b = (rng.random(400) < 0.6).astype(float)
    return evalgap.compare(a, b, weights=rng.uniform(1, 3, 400))


def test_an_undecided_paired_gap_says_how_many_more_items_to_collect():
    r = _paired_undecided()
    assert not r.significant and r.required_n > r.n_items
    more = _about(r.required_n - r.n_items)
    assert r.verdict.endswith(
        f"; next: collect about {more} more items, or report the two as not told apart"
    )
    decided = evalgap.compare(both_correct=7986, a_only=395, b_only=249, both_wrong=1512)
    assert decided.significant and "next:" not in decided.verdict


def test_a_zero_gap_and_too_few_items_say_what_is_left():
    zero = evalgap.compare(both_correct=7986, a_only=249, b_only=249, both_wrong=1512)
    assert zero.verdict.endswith("; next: report the two as not told apart")
    few = evalgap.compare(both_correct=10, a_only=2, b_only=0, both_wrong=5)
    assert few.verdict.endswith(
        "; next: collect more items (too few differ to say how many), or report the two as "
        "not told apart"
    )
    against = evalgap.compare(
        both_correct=7986, a_only=200, b_only=249, both_wrong=1512, alternative="greater"
    )
    assert against.verdict.endswith("; next: report A as not shown better")


def test_the_gold_scale_says_how_many_more_items_to_label():
    r = _gold_undecided()
    assert not r.significant and r.required_n is not None
    more = _about(r.required_n - r.gold.n_gold)
    assert r.verdict.endswith(
        f"; next: label about {more} more items, or report the two as not told apart"
    )


def test_the_design_scale_says_how_many_more_items_to_sample():
    r = _design_undecided()
    assert not r.significant
    more = _about(r.required_n - r.n_items)
    assert r.verdict.endswith(
        f"; next: sample about {more} more items with this design, or report the two as "
        "not told apart"
    )


def test_an_audit_says_what_its_unresolved_pairs_need():
    table = pd.DataFrame(
        {"model_a": ["x", "y"], "model_b": ["y", "z"], "both_correct": [7986, 7000],
         "a_only": [295, 900], "b_only": [249, 300], "both_wrong": [1512, 1842]}
    )  # fmt: skip
    r = evalgap.audit(pairs=table, n_bootstrap=0, n_bootstrap_required_n=0)
    frame = r.to_frame()
    open_pairs = frame[frame["resolved_fixed_n"] == False]  # noqa: E712
    assert len(open_pairs) == 1
    more = _about(int((open_pairs["required_n"] - open_pairs["n_items"]).max()))
    assert r.verdict.endswith(
        f"; next: for the unresolved pair, collect about {more} more items, or report it as "
        "not told apart."
    )


@pytest.mark.parametrize("make", [_paired_undecided, _gold_undecided, _design_undecided])
def test_every_view_prints_the_next_step(make, tmp_path):
    r = make()
    step = r.verdict[r.verdict.index("; next: ") + 2 :]

    def flat(text: str) -> str:
        return " ".join(text.replace("\\", "").split())

    console = Console(record=True, width=100)
    terminal.render_compare(r, console)
    assert step in flat(console.export_text())
    assert json.loads(to_json(r))["verdict"] == r.verdict
    assert step in flat(r.to_markdown())
    page = re.sub(r"<[^>]+>", " ", r.to_html(tmp_path / "r.html"))
    assert step in flat(page.replace("&#x27;", "'").replace("&#39;", "'"))
