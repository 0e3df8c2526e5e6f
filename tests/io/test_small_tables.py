"""A small CSV/TSV is read with the standard library into codes and aligned without pandas;
what it gives must be what the batch reader (Arrow, then pandas) gives, file by file.

Each table is read twice, by the small-table reader and with it switched off
(``SMALL_TABLE_BYTES = -1``): the frames, notes, aligned boards and alignment reports must be
equal, and a malformed table must fail with the same one-line error (the small reader passes
every file it does not take as the batch reader would to that reader).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import (
    LongCodes,
    _factorize,
    _in_order,
    _natural_key,
    _natural_order,
    align,
)
from evalgap.errors import InputError
from evalgap.io import tables

from conftest import ROOT

EXAMPLES = sorted(
    p
    for pattern in ("*.csv", "*.tsv", "*.csv.gz")
    for p in [*(ROOT / "examples").rglob(pattern), *(ROOT / "tests" / "fixtures").rglob(pattern)]
)

HEADER = "model,item_id,score\n"
TABLES = {
    "plain": HEADER + "a,1,1\na,2,0\nb,1,0\nb,2,1\n",
    "decimals and exponents": HEADER + "a,q1,0.25\na,q2,1e-1\nb,q1,.5\nb,q2,+1.\n",
    "a task and a cluster": "model,task,item_id,score,category\n"
    "a,t1,1,1,x\na,t2,1,0,y\nb,t1,1,0,x\nb,t2,1,1,y\n",
    "ids sorted as numbers": HEADER + "a,10,1\na,9,0\na,010,1\nb,10,0\nb,9,1\nb,010,0\n",
    "decimal ids": HEADER + "a,1.5,1\na,1e0,0\nb,1.5,0\nb,1e0,1\n",
    "ids spelled oddly": HEADER + "a, 2,1\na,1_0,0\nb, 2,0\nb,1_0,1\n",
    "quoted cells and a blank line": HEADER + '"a","x, y",1\n\na,z,0\n"b","x, y",1\nb,z,1\n',
    "windows line ends and a BOM": "\ufeff" + HEADER.replace("\n", "\r\n") + "a,1,1\r\nb,1,0\r\n",
    "an empty score": HEADER + "a,1,1\na,2,\nb,1,0\nb,2,1\n",
    "text scores": HEADER + "a,1,yes\na,2,no\nb,1,true\nb,2,false\n",
    "an infinite score": HEADER + "a,1,inf\na,2,0\nb,1,0\nb,2,1\n",
    "a huge score": HEADER + "a,1,1e200\na,2,0\nb,1,0\nb,2,1\n",
    "a blank item id": HEADER + "a,1,1\na, ,0\nb,1,0\nb,2,1\n",
    "a ragged row": HEADER + "a,1,1\na,2\nb,1,0\nb,2,1\n",
    "duplicate rows": HEADER + "a,1,1\na,1,1\nb,1,0\nb,2,1\n",
    "conflicting rows": HEADER + "a,1,1\na,1,0\nb,1,0\nb,2,1\n",
    "a header alone": HEADER,
    "runs": "model,item_id,run,score\na,1,1,1\na,1,2,0\nb,1,1,0\nb,1,2,1\n",
    "a blank cluster": "model,item_id,score,category\na,1,1,x\na,2,0, \nb,1,0,x\nb,2,1,\n",
    "no score column": "model,item_id,acc_a,acc_b\na,1,0.5,0.2\nb,1,0.1,0.3\n",
    "an unclosed quote": HEADER + 'a,"1,1\nb,1,0\n',
}
TAKEN = {
    "plain",
    "decimals and exponents",
    "a task and a cluster",
    "ids sorted as numbers",
    "decimal ids",
    "ids spelled oddly",
    "quoted cells and a blank line",
    "windows line ends and a BOM",
    "a huge score",
    "duplicate rows",
    "conflicting rows",
}


def read_both(path: Path, monkeypatch: pytest.MonkeyPatch, **columns):
    """(small reader's result or error, batch reader's result or error)."""
    out = []
    for bound in (tables.SMALL_TABLE_BYTES, -1):
        monkeypatch.setattr(tables, "SMALL_TABLE_BYTES", bound)
        try:
            long = tables.read_long_table(path, **columns)
        except InputError as exc:
            out.append(("error", str(exc)))
            continue
        try:
            board = align(long.table, source=long.source, notes=long.notes)
        except InputError as exc:
            out.append((long, ("error", str(exc))))
            continue
        out.append((long, board))
    return out


def assert_same(small, batch) -> None:
    if small[0] == "error" or batch[0] == "error":
        assert small == batch
        return
    (long_s, board_s), (long_b, board_b) = small, batch
    pd.testing.assert_frame_equal(long_s.frame, long_b.frame)
    assert (long_s.source, long_s.columns, long_s.notes) == (
        long_b.source,
        long_b.columns,
        long_b.notes,
    )
    if isinstance(board_s, tuple) or isinstance(board_b, tuple):
        assert board_s == board_b
        return
    assert board_s.models == board_b.models and board_s.source == board_b.source
    assert board_s.report.to_dict() == board_b.report.to_dict()
    for t_s, t_b in zip(board_s.tasks, board_b.tasks, strict=True):
        assert t_s.task == t_b.task
        np.testing.assert_array_equal(t_s.item_ids, t_b.item_ids)
        np.testing.assert_array_equal(t_s.scores, t_b.scores)
        np.testing.assert_array_equal(t_s.run_counts, t_b.run_counts)
        np.testing.assert_array_equal(t_s.clusters, t_b.clusters)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_table_reads_and_aligns_alike_on_both_readers(path, monkeypatch):
    small, batch = read_both(path, monkeypatch)
    assert_same(small, batch)


@pytest.mark.parametrize("name", sorted(TABLES))
@pytest.mark.parametrize("form", ["csv", "tsv", "csv.gz"])
def test_each_table_reads_alike_or_fails_alike_on_both_readers(name, form, tmp_path, monkeypatch):
    text = TABLES[name] if form != "tsv" else TABLES[name].replace(",", "\t")
    path = tmp_path / f"scores.{form}"
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if form.endswith(".gz") else data)
    columns = {"cluster_column": "category"} if "category" in text.splitlines()[0] else {}
    kept = []
    small_reader = tables._small_table_codes
    monkeypatch.setattr(
        tables, "_small_table_codes", lambda *a: kept.append(small_reader(*a)) or kept[-1]
    )
    small, batch = read_both(path, monkeypatch, **columns)
    assert_same(small, batch)
    assert (kept[:1] != [None] and bool(kept)) == (name in TAKEN)


def test_the_same_table_as_codes_and_as_a_frame_aligns_to_the_same_board():
    codes = LongCodes(
        {
            "model": (np.array([0, 0, 1, 1], np.int32), np.array(["a", "b"], dtype=object)),
            "item_id": (np.array([0, 1, 1, 0], np.int32), np.array(["9", "10"], dtype=object)),
        },
        np.array([1.0, 0.0, 0.5, np.inf]),
    )
    from_codes = align(codes, models=["b", "a"])
    from_frame = align(codes.to_frame(), models=["b", "a"])
    assert from_codes.models == from_frame.models == ("b", "a")
    assert list(from_codes.tasks[0].item_ids) == ["9", "10"]  # numbers: 9 before 10
    np.testing.assert_array_equal(from_codes.tasks[0].scores, from_frame.tasks[0].scores)
    assert from_codes.report.to_dict() == from_frame.report.to_dict()
    assert from_codes.report.entries[0].non_numeric == 1  # b's infinite score


def test_numpy_and_pandas_give_the_same_order_of_first_appearance():
    rng = np.random.default_rng(3)
    for n, size in ((5, 40), (1000, 300), (10**7, 50)):
        codes = rng.integers(0, n, size)
        np.testing.assert_array_equal(
            _in_order(codes, n, hashed=False), _in_order(codes, n, hashed=True)
        )
        mine, theirs = _factorize(codes, n, hashed=False), _factorize(codes, n, hashed=True)
        np.testing.assert_array_equal(mine[0], theirs[0])
        np.testing.assert_array_equal(mine[1], theirs[1])
        assert mine[0].dtype == np.int32


@pytest.mark.parametrize(
    "ids",
    [
        ["10", "9", "010", "-3", "+4"],
        ["1.5", "1e0", ".5", "2."],
        ["q10", "q9", "Q1", "b", "a"],
        ["10", "9", "x"],
        [" 2", "1_0", "3"],
        ["inf", "1", "nan"],
        ["99999999999999999999", "1"],
        ["١", "2"],
    ],
)
def test_item_ids_sort_as_pandas_sorts_them(ids):
    ids = np.array(ids, dtype=object)
    expected = (
        pd.Series(np.arange(ids.size), index=pd.Index(ids)).sort_index(key=_natural_key).to_numpy()
    )
    np.testing.assert_array_equal(_natural_order(ids), expected)


PROGRAM = """
import contextlib, io, json, sys
from evalgap.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "report": json.loads(out.getvalue()),
                  "loaded": [m for m in ("pandas", "pyarrow", "scipy.stats") if m in sys.modules]}))
"""


def test_compare_on_a_small_csv_reports_what_the_batch_reader_gives():
    argv = ["compare", "--scores", str(ROOT / "examples" / "two_models.csv")]
    argv += ["--model-a", "model-x", "--model-b", "model-y", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *argv], capture_output=True, text=True, check=True
    )
    ran = json.loads(done.stdout)
    assert ran["code"] == 0 and ran["loaded"] == []
    switched_off = PROGRAM.replace(
        "from evalgap.cli import main",
        "from evalgap.cli import main\nfrom evalgap.io import tables\n"
        "tables.SMALL_TABLE_BYTES = -1",
    )
    done = subprocess.run(
        [sys.executable, "-c", switched_off, *argv], capture_output=True, text=True, check=True
    )
    batch = json.loads(done.stdout)
    assert batch["loaded"][:2] == ["pandas", "pyarrow"]
    assert ran["report"] == batch["report"]
