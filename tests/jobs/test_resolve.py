"""One resolved board (issue 38): the input step the board jobs start from."""

from __future__ import annotations

import ast
import inspect

import pytest

import evalgap
from evalgap.jobs import audit, card, degrade, ranks
from evalgap.jobs._resolve import Board, resolve


def test_a_board_of_plain_scores_is_on_the_paired_scale():
    board = resolve("examples/board.csv", models=["model-00", "model-03"])
    assert isinstance(board, Board) and board.scale == "paired" and board.gold is None
    assert list(board.scores.models) == ["model-00", "model-03"]
    assert board.scores.tasks[0].scores.shape == (400, 2)


def test_gold_labels_put_the_board_on_the_gold_scale():
    board = resolve("examples/judged.csv", gold_column="human")
    assert board.scale == "gold" and board.gold is not None
    assert list(board.gold.models) == list(board.scores.models)
    # the same board through the jobs: ranks on the gold scale reads it
    r = evalgap.ranks("examples/judged.csv", gold_column="human", n_bootstrap=300)
    assert r.gold is not None and set(r.ranks["model"]) == set(board.scores.models)


def test_column_names_and_the_deprecated_scores_spelling_go_the_one_route(tmp_path):
    import pandas as pd

    frame = pd.read_csv("examples/board.csv").rename(columns={"model": "who", "score": "ok"})
    with pytest.warns(DeprecationWarning, match="data"):
        board = resolve(None, columns={"data": frame, "model_column": "who", "score_column": "ok"})
    assert len(board.scores.models) == 24
    with pytest.raises(evalgap.InputError, match=r"no column 'nobody' \(given for the model\)"):
        resolve(frame, columns={"model_column": "nobody"})


@pytest.mark.parametrize(
    "door", [audit.audit, audit.fragility, ranks.ranks, card.card, degrade.degrade, degrade.trim]
)
def test_every_board_job_starts_from_resolve(door):
    """The board jobs read their scores through resolve, never a reader of their own."""
    source = inspect.getsource(inspect.unwrap(door))
    called = {
        n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
        for n in ast.walk(ast.parse(source.lstrip()))
        if isinstance(n, ast.Call)
    }
    helpers = {name for name in called if name.startswith("_")}
    module = inspect.getmodule(door)
    reached = set(called)
    for name in helpers:  # the door's own helpers (degrade reads through _pair_scores)
        helper = getattr(module, name, None)
        if helper is not None and inspect.isfunction(helper):
            tree = ast.parse(inspect.getsource(helper).lstrip())
            reached |= {
                n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
                for n in ast.walk(tree) if isinstance(n, ast.Call)
            }  # fmt: skip
    assert "resolve" in reached or "audit" in reached, door.__name__
    assert "scores_of" not in called and "read_board" not in called, door.__name__
