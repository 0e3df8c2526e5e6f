"""A wide table read straight into its matrix (``io.tables.wide_score_set``) against the long
path it replaces (``read_wide_table`` then ``align``): the same ScoreSet and report, or the
same error, and the long path taken wherever the matrix path does not decide."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.options import LoadOptions
from evalgap.io.tables import wide_score_set
from evalgap.jobs._inputs import long_scores, scores_of

WIDE = LoadOptions(layout="wide")


def _long_path(path, **kwargs):
    table = long_scores(str(path), options=WIDE)
    return align(table.frame, source=table.source, notes=table.notes, **kwargs)


def _matrix_path(path, monkeypatch, **kwargs):
    def refuse(*args, **kw):
        raise AssertionError("the long path was taken")

    with monkeypatch.context() as m:
        m.setattr("evalgap.jobs._inputs.long_scores", refuse)
        return scores_of(str(path), options=WIDE, **kwargs)


def _write(tmp_path, x, ids, suffix=".parquet"):
    frame = pd.DataFrame(x, columns=[f"m{j}" for j in range(x.shape[1])])
    frame.insert(0, "item_id", ids)
    path = tmp_path / f"wide{suffix}"
    frame.to_parquet(path, index=False) if suffix == ".parquet" else frame.to_csv(path, index=False)
    return path


def _assert_same(got, expected):
    assert got.models == expected.models and got.source == expected.source
    assert len(got.tasks) == len(expected.tasks) == 1
    a, b = got.tasks[0], expected.tasks[0]
    assert a.task == b.task and a.clusters is None and b.clusters is None
    np.testing.assert_array_equal(a.item_ids, b.item_ids)
    np.testing.assert_array_equal(a.scores, b.scores)  # NaN where unscored, bit for bit
    np.testing.assert_array_equal(a.run_counts, b.run_counts)
    assert a.item_ids.dtype == b.item_ids.dtype and a.run_counts.dtype == b.run_counts.dtype
    assert got.report.to_dict() == expected.report.to_dict()


def _boards():
    rng = np.random.default_rng(4)
    complete = (rng.random((300, 6)) < np.linspace(0.3, 0.8, 6)).astype(float)
    missing = complete.copy()
    missing[rng.random(missing.shape) < 0.1] = np.nan
    missing[3] = np.nan  # an item no model scored: not one of the board's items
    graded = rng.random((200, 5)).round(3)
    graded[5, 2] = np.inf  # unusable: counted and left out
    graded[9, 1:] = np.nan
    return {
        "complete": (complete, [f"q{i}" for i in range(300)]),
        # numeric ids in a shuffled order: sorted as numbers
        "missing": (missing, rng.permutation(300).astype(str).tolist()),
        "graded": (graded, [str(i * 7 % 200) for i in range(200)]),
        "integers": ((rng.random((150, 4)) < 0.5).astype(np.int64), [f"i{i}" for i in range(150)]),
    }


@pytest.mark.parametrize("board", ["complete", "missing", "graded", "integers"])
@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("kwargs", [{}, {"complete_case": True}, {"models": ["m3", "m1"]}])
def test_the_matrix_path_gives_the_long_paths_board(tmp_path, monkeypatch, board, suffix, kwargs):
    x, ids = _boards()[board]
    path = _write(tmp_path, x, ids, suffix)
    _assert_same(_matrix_path(path, monkeypatch, **kwargs), _long_path(path, **kwargs))


def test_strict_and_a_missing_model_are_the_long_paths(tmp_path, monkeypatch):
    x, ids = _boards()["graded"]
    path = _write(tmp_path, x, ids)
    with pytest.raises(InputError) as long_way:  # the infinite score, refused by strict
        _long_path(path, strict=True)
    with pytest.raises(InputError) as the_command:
        scores_of(str(path), options=WIDE, strict=True)
    assert str(the_command.value) == str(long_way.value)
    with pytest.raises(InputError) as long_way:
        _long_path(path, models=["m9"])
    with pytest.raises(InputError) as matrix_way:
        _matrix_path(path, monkeypatch, models=["m9"])
    assert str(matrix_way.value) == str(long_way.value) and "no model 'm9'" in str(long_way.value)


def test_each_models_mean_score_is_its_own_columns_pandas_mean(tmp_path, monkeypatch):
    x, ids = _boards()["graded"]
    board = _matrix_path(_write(tmp_path, x, ids), monkeypatch)
    # over the board's items in its order (pairwise sums round by order)
    scores = board.tasks[0].scores
    assert scores.shape == x.shape and np.isnan(scores).sum() == np.isnan(x).sum() + 1
    expected = [float(pd.Series(scores[:, j]).mean()) for j in range(x.shape[1])]
    assert [e.mean_score for e in board.report.entries] == expected
    assert [e.non_numeric for e in board.report.entries] == [0, 0, 1, 0, 0]


@pytest.mark.parametrize("case", ["repeated id", "blank id", "empty model"])
def test_what_the_matrix_path_does_not_decide_goes_the_long_way(tmp_path, case):
    x = (np.random.default_rng(1).random((40, 3)) < 0.5).astype(float)
    ids = [f"i{i}" for i in range(40)]
    options = WIDE
    if case == "repeated id":
        ids[7] = ids[8]
    elif case == "blank id":
        ids[2] = " "
    else:  # a model column named, with no score
        x[:, 1] = np.nan
        options = LoadOptions(layout="wide", model_columns=("m0", "m1", "m2"))
    path = _write(tmp_path, x, ids)
    assert wide_score_set(path, options) is None
    if case == "blank id":  # the row without an id is left out and counted
        _assert_same(scores_of(str(path), options=WIDE), _long_path(path))
    elif case == "repeated id":  # two scores of one item: the long path's conflict
        with pytest.raises(InputError, match="conflicting scores"):
            scores_of(str(path), options=WIDE)


def test_a_score_beyond_the_bound_is_refused_as_on_the_long_path(tmp_path, monkeypatch):
    x = np.random.default_rng(2).random((30, 3))
    x[4, 1] = -1e200
    path = _write(tmp_path, x, [f"a{i}" for i in range(30)])
    with pytest.raises(InputError) as long_way:
        _long_path(path)
    with pytest.raises(InputError) as matrix_way:
        _matrix_path(path, monkeypatch)
    assert str(matrix_way.value) == str(long_way.value) and "-1e+200" in str(long_way.value)


def test_mmlu_pro_as_a_wide_table_gives_the_long_paths_board_and_audit(tmp_path, monkeypatch):
    """MMLU-Pro pivoted to one column per model (three models lack items): the same board,
    and the audit of all 406 pairs the same to the last count and verdict."""
    import evalgap

    from conftest import shared_file

    long = pd.read_csv(shared_file("mmlu_pro", "mmlu_pro_long.csv.gz"))
    wide = long.pivot(index="question_id", columns="model", values="correct")
    wide = wide.reset_index().rename(columns={"question_id": "item_id"})
    wide.columns = [str(c) for c in wide.columns]
    path = tmp_path / "mmlu_pro_wide.parquet"
    wide.to_parquet(path, index=False)
    expected = _long_path(path)
    board = _matrix_path(path, monkeypatch)
    _assert_same(board, expected)
    assert np.isnan(board.tasks[0].scores).any()  # the missing items are there
    settings = dict(family="all", n_rank_bootstrap=0, n_bootstrap=0, n_bootstrap_required_n=0)
    got, want = evalgap.audit(board, **settings), evalgap.audit(expected, **settings)
    pd.testing.assert_frame_equal(got.to_frame(), want.to_frame())
    assert got.chains == want.chains and got.unresolved == want.unresolved


def _typed_tables():
    """Parquet tables whose column types Arrow reads alone (integers, floats, integer ids)
    or leaves to pandas (text scores, booleans, float ids), beside each other."""
    rng = np.random.default_rng(7)
    right = (rng.random((60, 3)) < 0.6).astype(np.int8)
    ints = pd.DataFrame({"item_id": [f"q{i}" for i in range(60)]})
    for j in range(3):
        ints[f"m{j}"] = right[:, j]
    nullable = ints.astype({"m1": "Int64"})
    nullable.loc[[3, 9], "m1"] = pd.NA  # an integer column with empty cells
    numbered = ints.assign(item_id=rng.permutation(60) * 3)  # integer ids: sorted as numbers
    text = ints.assign(m2=ints["m2"].astype(str))  # scores written as text
    flags = ints.assign(flag=ints["m0"].astype(bool))  # a boolean column: not a model
    floated = ints.assign(item_id=np.arange(60) + 0.5)  # float ids: pandas spells them
    single = ints.astype({"m0": np.float32})
    return {
        "integers": ints, "nullable": nullable, "integer ids": numbered, "text": text,
        "booleans": flags, "float ids": floated, "float32": single,
    }  # fmt: skip


@pytest.mark.parametrize("kind", list(_typed_tables()))
def test_every_column_type_gives_the_long_paths_board(tmp_path, monkeypatch, kind):
    path = tmp_path / "typed.parquet"
    _typed_tables()[kind].to_parquet(path, index=False)
    # text scores and booleans (a model column to pandas) are the long path's to read
    long_way = kind in ("text", "booleans")
    board = scores_of(str(path), options=WIDE) if long_way else _matrix_path(path, monkeypatch)
    _assert_same(board, _long_path(path))


def test_a_stored_index_is_read_as_pandas_reads_it(tmp_path):
    frame = _typed_tables()["integers"].set_index("item_id")
    path = tmp_path / "indexed.parquet"
    frame.to_parquet(path)  # the item ids stored as the frame's index, not as a column
    with pytest.raises(InputError) as long_way:
        _long_path(path)
    with pytest.raises(InputError) as the_command:
        scores_of(str(path), options=WIDE)
    assert str(the_command.value) == str(long_way.value)
    assert "columns found: m0, m1, m2" in str(long_way.value)
