"""The one CSV writer: formula-like cells escaped, numbers left as data, files whole or absent."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pandas as pd
import pytest

from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io._write import atomic_write, escape_cell, unescape_cell, write_csv


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+1", "'=1+1"),
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-inf", "'-inf"),
        ("-", "'-"),
        # numbers are data: a negative or signed decimal stays as it is
        ("-0.5", "-0.5"),
        ("+3", "+3"),
        ("-1e-3", "-1e-3"),
        ("-.5", "-.5"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        ("", ""),
        (3, 3),
        (-0.5, -0.5),
    ],
)
def test_escape_cell_table(cell, written):
    assert escape_cell(cell) == written
    assert unescape_cell(escape_cell(cell)) == cell


def test_write_csv_escapes_text_and_keeps_numbers(tmp_path):
    frame = pd.DataFrame(
        {
            "task": ["+t", "ok", "@x"],
            "item_id": ["=1+1", "-5", "-x"],
            "correct_share": [-0.5, 0.25, np.nan],
            "=header": [1, 2, 3],
        }
    )
    path = tmp_path / "out.csv"
    write_csv(frame, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == [
        "task,item_id,correct_share,'=header",
        "'+t,'=1+1,-0.5,1",
        "ok,-5,0.25,2",
        "'@x,'-x,,3",
    ]
    assert frame["item_id"].tolist() == ["=1+1", "-5", "-x"]  # the caller's frame is untouched
    assert os.listdir(tmp_path) == ["out.csv"]
    mode = stat.S_IMODE(path.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_a_failed_write_leaves_no_partial_file_and_keeps_the_old_one(tmp_path):
    path = tmp_path / "report.csv"
    path.write_text("previous\n")

    def fails(handle):
        handle.write("half a file")
        raise RuntimeError("rendering failed")

    with pytest.raises(RuntimeError, match="rendering failed"):
        atomic_write(path, fails, option="--output")
    assert path.read_text() == "previous\n"
    assert os.listdir(tmp_path) == ["report.csv"]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("missing-dir/out.csv", "cannot write the file (No such file or directory)"),
        (".", "is a directory; give a file name"),
    ],
)
def test_unwritable_output_is_one_line(tmp_path, target, expected):
    with pytest.raises(InputError, match=r"^--output .*") as info:
        write_csv(pd.DataFrame({"a": [1]}), tmp_path / target)
    assert expected in str(info.value) and "\n" not in str(info.value)
    assert "None" not in str(info.value)


def test_trim_output_is_escaped_and_reads_back_for_degrade(tmp_path, capsys):
    """Item ids a spreadsheet would run are written with a leading quote; degrade --items
    reads them back as the same ids."""
    rng = np.random.default_rng(0)
    ids = ["=HYPERLINK(1)", "-5", "@x", "+y", "ok"] + [str(i) for i in range(40)]
    rows = []
    for i, item in enumerate(ids):
        for run in range(4):
            # the first five items flip across runs for sure, the others at random or never
            base = run % 2 if i < 5 else rng.random() < (0.5 if i % 2 else 1.0)
            rows.append(("base", item, run, float(base)))
            rows.append(("cand", item, run, float(rng.random() < 0.5)))
    runs = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["model", "item_id", "run", "score"]).to_csv(runs, index=False)
    kept = tmp_path / "kept.csv"
    code = main(
        [
            "trim", "--scores", str(runs), "--model", "base", "--run-column", "run",
            "--output", str(kept), "--json",
        ]
    )
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    text = kept.read_text(encoding="utf-8")
    first_cells = {line.split(",")[1] for line in text.splitlines()[1:]}
    assert not any(c.startswith(("=", "+", "@")) for c in first_cells)
    assert not any(c.startswith("-") and c != "-5" for c in first_cells)
    kept_ids = {unescape_cell(c) for c in first_cells}
    assert {"=HYPERLINK(1)", "-5", "@x", "+y"} <= kept_ids
    assert {"'=HYPERLINK(1)", "-5", "'@x", "'+y"} <= first_cells
    code = main(
        [
            "degrade", "--scores", str(runs), "--run-column", "run", "--baseline", "base",
            "--candidate", "cand", "--items", str(kept), "--json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["total"]["n_items"] == len(kept_ids)
