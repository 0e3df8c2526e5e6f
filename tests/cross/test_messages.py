"""Errors that name their cause: each case once gave a vague message or a traceback."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io import tables
from evalgap.io.tables import read_long_table


def _long(n_items=30, models=("model-a", "model-b"), seed=0, ids=None):
    rng = np.random.default_rng(seed)
    ids = ids if ids is not None else [str(i) for i in range(n_items)]
    return pd.DataFrame(
        [
            {"model": m, "item_id": i, "score": int(rng.random() < 0.6)}
            for m in models
            for i in ids
        ]
    )


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalgap: error: ") and "Traceback" not in err
    assert err.count("\n") == 1  # one line
    return err


def test_yes_no_scores_say_they_are_not_numeric(tmp_path, capsys):
    frame = _long()
    frame["score"] = np.where(frame["score"] == 1, "yes", "no")
    path = tmp_path / "yesno.csv"
    frame.to_csv(path, index=False)
    err = _error(capsys, ["compare", "--scores", str(path), "--model-a", "model-a",
                          "--model-b", "model-b"])  # fmt: skip
    assert "no item has a usable score" in err
    assert "the scores are not numeric (60 rows, e.g. 'no')" in err or (
        "the scores are not numeric (60 rows, e.g. 'yes')" in err
    )
    assert "map them to numbers" in err and "--score-column" in err


def test_item_ids_written_as_decimals_in_one_file_are_named(tmp_path, capsys):
    a = _long(models=("model-a",))
    b = _long(models=("model-b",), ids=[f"{i}.0" for i in range(30)], seed=1)
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    argv = ["--scores", str(tmp_path / "a.csv"), "--scores", str(tmp_path / "b.csv")]
    err = _error(capsys, ["compare", *argv, "--model-a", "model-a", "--model-b", "model-b"])
    assert "have no item that both scored" in err
    assert "differ only in how numbers are written ('0' for 'model-a', '0.0' for 'model-b')" in err
    err = _error(capsys, ["inspect-data", *argv, "--complete-case"])
    assert "no item is scored for every selected model" in err
    assert "the models' item ids differ only in how numbers are written" in err


def test_item_file_with_decimal_ids_is_named(tmp_path, capsys):
    _long().to_csv(tmp_path / "s.csv", index=False)
    pd.DataFrame({"item_id": [f"{i}.0" for i in range(30)]}).to_csv(
        tmp_path / "items.csv", index=False
    )
    err = _error(
        capsys,
        ["inspect-data", "--scores", str(tmp_path / "s.csv"), "--items",
         str(tmp_path / "items.csv")],
    )  # fmt: skip
    assert "none of its items appear in the scores" in err
    assert "('0.0' in the item file, '0' in the scores)" in err


def test_blank_cluster_labels_in_an_item_file_name_the_row(tmp_path, capsys):
    _long(models=("a", "b", "c")).to_csv(tmp_path / "s.csv", index=False)
    items = pd.DataFrame({"item_id": range(30), "category": [f"c{i % 3}" for i in range(30)]})
    items.loc[[5, 9], "category"] = None
    items.to_csv(tmp_path / "items.csv", index=False)
    err = _error(
        capsys,
        ["audit", "--scores", str(tmp_path / "s.csv"), "--items", str(tmp_path / "items.csv"),
         "--cluster-column", "category"],
    )  # fmt: skip
    assert "items.csv: row 6 (item '5') has an empty cluster label in column 'category' " in err
    assert "(2 such rows)" in err


def test_blank_cluster_labels_in_a_score_file_name_the_row(tmp_path):
    frame = _long().assign(category="x")
    frame.loc[3, "category"] = ""
    frame.to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(InputError, match=r"s\.csv: row 4 has an empty cluster label"):
        read_long_table(tmp_path / "s.csv", cluster_column="category")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: align([1, 2, 3]), r"align\(frame=\.\.\.\): expected a pandas DataFrame"),
        (lambda: align(None), r"align\(frame=\.\.\.\): expected a pandas DataFrame .*NoneType"),
        (lambda: align(pd.DataFrame({"x": [1]})), r"align\(frame=\.\.\.\): the frame has no "),
        (
            lambda: align(_long().assign(task="all"), models="model-a"),
            r"align\(models=\.\.\.\): expected a list of names, got str",
        ),
        (
            lambda: align(_long().assign(task="all"), tasks=3),
            r"align\(tasks=\.\.\.\): expected a list of names, got int",
        ),
        (lambda: read_long_table(None), r"path: expected a file path, got NoneType"),
        (lambda: read_long_table(3.5), r"path: expected a file path, got float"),
    ],
)
def test_wrong_types_through_the_python_api_name_the_parameter(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_misspelt_model_names_suggest_the_closest(tmp_path, capsys):
    _long(models=("Llama-3-8B", "Llama-3-70B", "gemma-7b")).to_csv(
        tmp_path / "s.csv", index=False
    )
    scores = ["--scores", str(tmp_path / "s.csv")]
    err = _error(capsys, ["compare", *scores, "--model-a", "llama-3-8b", "--model-b", "gemma-7b"])
    assert (
        "no model 'llama-3-8b'; models found: Llama-3-8B, Llama-3-70B, gemma-7b; did you mean "
        "'Llama-3-8B'"
    ) in err
    err = _error(capsys, ["inspect-data", *scores, "--models", "gema-7b"])
    assert "did you mean 'gemma-7b'?" in err
    err = _error(capsys, ["degrade", *scores, "--baseline", "gemma-7", "--candidate", "Llama-3-8B"])
    assert "did you mean 'gemma-7b'?" in err
    # No suggestion when nothing is close:
    err = _error(capsys, ["inspect-data", *scores, "--models", "zzz"])
    assert "did you mean" not in err and "models found: Llama-3-8B, Llama-3-70B, gemma-7b" in err


def test_a_wide_table_read_as_long_says_to_pass_layout_wide(tmp_path, capsys):
    rng = np.random.default_rng(3)
    wide = pd.DataFrame({"item_id": range(20)})
    for m in ("m1", "m2", "m3"):
        wide[m] = (rng.random(20) < 0.5).astype(int)
    for name in ("wide.csv", "wide.parquet", "wide.jsonl"):
        path = tmp_path / name
        if name.endswith("csv"):
            wide.to_csv(path, index=False)
        elif name.endswith("parquet"):
            wide.to_parquet(path)
        else:
            wide.to_json(path, orient="records", lines=True)
        err = _error(capsys, ["inspect-data", "--scores", str(path)])
        assert "no model or score column, but 3 numeric columns (m1, m2, m3)" in err
        assert "pass --layout wide" in err
        assert main(["inspect-data", "--scores", str(path), "--layout", "wide", "--json"]) == 0
        capsys.readouterr()


def test_task_without_a_task_column_says_to_name_it(tmp_path, capsys):
    _long().to_csv(tmp_path / "s.csv", index=False)
    err = _error(capsys, ["inspect-data", "--scores", str(tmp_path / "s.csv"), "--task", "gsm8k"])
    assert "no task 'gsm8k': the scores have no task column" in err
    assert "--task-column" in err


def test_a_too_long_json_line_is_an_error_naming_it(tmp_path, monkeypatch):
    path = tmp_path / "long.jsonl.gz"
    with gzip.open(path, "wt") as out:
        out.write(json.dumps({"model": "a", "item_id": 1, "score": 1}) + "\n")
        out.write(json.dumps({"model": "a", "item_id": 2, "score": 1, "blob": "x" * 5000}) + "\n")
    monkeypatch.setattr(tables, "MAX_LINE_BYTES", 4096)
    with pytest.raises(InputError, match=r"long\.jsonl\.gz: line 2 is longer than 0\.00390625 MiB"):
        read_long_table(path)
    monkeypatch.setattr(tables, "MAX_LINE_BYTES", 8192)
    assert len(read_long_table(path).frame) == 2
