"""The one CSV writer: formula-like cells escaped, numbers left as data, files whole or absent."""

from __future__ import annotations

import csv
import json
import os
import stat

import numpy as np
import pandas as pd
import pytest

from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io._write import atomic_write, escape_cell, unescape_cell, write_csv, write_table


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
        ("missing-dir/out.csv", "missing-dir does not exist; create it first"),
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
            "trim",
            "--scores",
            str(runs),
            "--model",
            "base",
            "--run-column",
            "run",
            "--output",
            str(kept),
            "--json",
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
            "degrade",
            "--scores",
            str(runs),
            "--run-column",
            "run",
            "--baseline",
            "base",
            "--candidate",
            "cand",
            "--items",
            str(kept),
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["total"]["n_items"] == len(kept_ids)


HOSTILE_CELLS = ["x\ry", "\r=1+1", "=a\rb", "p\nq", "a,b", 'q"q', "\r\n", "-\r", "@\n", "plain"]


def _read_back_all_ways(path):
    """The text cells of an evalgap CSV as csv, pandas and evalgap's own reader see them."""
    from evalgap.io.tables import read_frame

    with open(path, encoding="utf-8", newline="") as handle:
        by_csv = [[unescape_cell(c) for c in row] for row in csv.reader(handle)]
    by_pandas = pd.read_csv(path, dtype=str, keep_default_na=False).map(unescape_cell)
    by_evalgap = read_frame(path, as_text=True).fillna("").map(unescape_cell)
    return by_csv, by_pandas, by_evalgap


def test_cells_with_carriage_returns_are_quoted_and_read_back_the_same(tmp_path):
    """A bare \\r in a cell was written unquoted: readers split the row there, and the
    rest of the cell ('=1+1') started a row unescaped."""
    frame = pd.DataFrame({"item_id": HOSTILE_CELLS, "n": range(len(HOSTILE_CELLS))})
    path = tmp_path / "out.csv"
    write_csv(frame, path)
    by_csv, by_pandas, by_evalgap = _read_back_all_ways(path)
    expected = [["item_id", "n"]] + [[c, str(i)] for i, c in enumerate(HOSTILE_CELLS)]
    assert by_csv == expected
    assert by_pandas["item_id"].tolist() == HOSTILE_CELLS
    assert by_evalgap["item_id"].tolist() == HOSTILE_CELLS
    with open(path, encoding="utf-8", newline="") as handle:
        written = [row[0] for row in csv.reader(handle)][1:]
    # every formula-like cell is escaped, and no row starts with a formula character
    assert all(not c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in written)
    lines = path.read_bytes().split(b"\r\n")
    assert not any(line.lstrip(b'"').startswith((b"=", b"+", b"-", b"@")) for line in lines)


def test_trim_and_audit_outputs_with_carriage_returns_read_back(tmp_path, capsys):
    ids = ["a\rb", "\r=HYPERLINK(1)", "c\nd", "e,f"] + [str(i) for i in range(30)]
    rows = []
    for i, item in enumerate(ids):
        for run in range(4):
            base = run % 2 if i < 4 else 1.0  # the first four items flip, the others never
            rows.append(("base", item, run, float(base)))
            rows.append(("cand\r=1", item, run, float((i + run) % 3 == 0)))
    runs = tmp_path / "runs.parquet"
    pd.DataFrame(rows, columns=["model", "item_id", "run", "score"]).to_parquet(runs)
    kept = tmp_path / "kept.csv"
    args = ["--scores", str(runs), "--run-column", "run"]
    assert main(["trim", *args, "--model", "base", "--output", str(kept), "--json"]) == 0
    capsys.readouterr()
    for reading in _read_back_all_ways(kept):
        if isinstance(reading, list):
            got = {row[1] for row in reading[1:]}
        else:
            got = set(reading["item_id"])
        assert got == set(ids[:4])  # the four flipping items, none split
    table = tmp_path / "pairs.csv"
    code = main(["audit", *args, "--output", str(table), "--json"])
    assert code == 0, capsys.readouterr().err
    by_csv, by_pandas, by_evalgap = _read_back_all_ways(table)
    assert len(by_csv) == 2 and len(by_pandas) == 1 and len(by_evalgap) == 1
    header = by_csv[0]
    pair = dict(zip(header, by_csv[1], strict=True))
    assert {pair["model_a"], pair["model_b"]} == {"base", "cand\r=1"}


def test_plan_design_file_with_formula_like_ids_reads_back_in_compare_weights(tmp_path, capsys):
    """plan --output escapes ids such as '=q3' or '-x2'; compare --weights read them back
    with the quote still on, so no item of the design matched its scores."""
    rng = np.random.default_rng(1)
    ids = [("=q", "a\r", "-x")[i % 3] + str(i) for i in range(300)]
    rows = [(f"m{m}", item, float(rng.random() < 0.3 + 0.07 * m)) for m in range(8) for item in ids]
    full = pd.DataFrame(rows, columns=["model", "item_id", "score"])
    reference = tmp_path / "reference.parquet"
    full[~full["model"].isin(["m0", "m1"])].to_parquet(reference)
    design = tmp_path / "design.csv"
    code = main(
        [
            "plan",
            "--reference",
            str(reference),
            "--model-a",
            "m0",
            "--accuracy-a",
            "0.3",
            "--model-b",
            "m1",
            "--accuracy-b",
            "0.37",
            "--n-items",
            "60",
            "--output",
            str(design),
            "--json",
        ]
    )
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    _, by_pandas, _ = _read_back_all_ways(design)
    chosen = set(by_pandas["item_id"])
    assert len(chosen) == 60 and chosen <= set(ids)
    results = tmp_path / "results.parquet"
    full[full["model"].isin(["m0", "m1"]) & full["item_id"].isin(chosen)].to_parquet(results)
    code = main(
        [
            "compare",
            "--scores",
            str(results),
            "--model-a",
            "m0",
            "--model-b",
            "m1",
            "--weights",
            str(design),
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["n_items"] == 60


OUTPUT_COMMANDS = {
    "trim": ["trim", "--model", "a", "--run-column", "run", "--output"],
    "audit-output": ["audit", "--run-column", "run", "--output"],
    "audit-html": ["audit", "--run-column", "run", "--html"],
    "ranks-html": ["ranks", "--run-column", "run", "--html"],
    "plan": ["plan", "--model-a", "new", "--accuracy-a", "0.5", "--output"],
    "simulate-plot": ["simulate", "calibration", "--plot"],
    "watch-state": ["watch", "--budget", "10", "--state"],
}


@pytest.mark.parametrize("command", list(OUTPUT_COMMANDS))
def test_an_output_into_a_missing_folder_is_one_line_naming_it_before_any_work(
    tmp_path, capsys, monkeypatch, command
):
    """--output into a missing folder: one line naming the folder, the same for every
    writer, and said when the option is read (not after an hour-long audit)."""
    scores = tmp_path / "s.csv"
    pd.DataFrame(
        [(m, f"q{i}", r, float((i + r + k) % 3 == 0)) for k, m in enumerate("abc")
         for i in range(30) for r in range(2)],
        columns=["model", "item_id", "run", "score"],
    ).to_csv(scores, index=False)  # fmt: skip
    import importlib

    import evalgap

    def no_work(*args, **kwargs):
        raise AssertionError("the job ran before the output path was checked")

    # every public job function, in the module beside its recipe where the command finds it
    for name, home in evalgap._HOMES.items():
        if home.startswith("evalgap.jobs.") and name[0].islower():
            monkeypatch.setattr(importlib.import_module(home), name, no_work)
    target = tmp_path / "no" / "such" / "out.csv"
    args = [*OUTPUT_COMMANDS[command], str(target)]
    if command == "plan":
        args += ["--reference", str(scores)]
    elif command == "watch-state":
        args += ["--logs", str(tmp_path)]
    elif command != "simulate-plot":
        args += ["--scores", str(scores)]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    flag = args[len(OUTPUT_COMMANDS[command]) - 1]
    assert err == (
        f"evalgap: error: {flag} {target}: the folder {target.parent} does not exist; "
        "create it first or give another path\n"
    )


def test_a_disk_full_mid_write_keeps_the_old_file_and_is_one_line(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("previous\n")

    def fills_the_disk(handle):
        handle.write("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(InputError) as info:
        atomic_write(path, fills_the_disk, option="--output", what="the table")
    assert str(info.value) == f"--output {path}: cannot write the table (No space left on device)"
    assert path.read_text() == "previous\n" and os.listdir(tmp_path) == ["pairs.csv"]


def test_text_that_is_not_unicode_is_one_line_and_no_file(tmp_path):
    path = tmp_path / "kept.csv"
    with pytest.raises(InputError, match=r"^output='.*kept\.csv': cannot write the file: a name "):
        write_csv(
            pd.DataFrame({"model": pd.Series(["bad\ud800name"], dtype=object)}),
            path,
            option="output=",
        )
    assert os.listdir(tmp_path) == []


def test_a_device_target_is_written_to_not_replaced(tmp_path):
    """--output /dev/stdout or a named pipe: written to; renaming a temporary file over it
    would replace the device or pipe with a regular file (a pipe here, never /dev/null)."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_csv(pd.DataFrame({"a": [1, 2]}), fifo)
    reader.join(5)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert got == [b"a\r\n1\r\n2\r\n"]


def test_atomic_target_for_writers_that_take_a_path(tmp_path):
    from evalgap.io._write import atomic_target

    path = tmp_path / "board.parquet"
    path.write_text("previous")
    with pytest.raises(RuntimeError), atomic_target(path, option="--output") as temporary:
        temporary.write_text("half")
        raise RuntimeError("COPY failed")
    assert path.read_text() == "previous" and os.listdir(tmp_path) == ["board.parquet"]
    with atomic_target(path, option="--output") as temporary:
        pd.DataFrame({"a": [1]}).to_parquet(temporary)
    assert pd.read_parquet(path)["a"].tolist() == [1] and os.listdir(tmp_path) == [path.name]
    with pytest.raises(InputError, match=r"the folder .*missing does not exist"):
        with atomic_target(tmp_path / "missing" / "x.parquet", option="--output"):
            pass


@pytest.mark.parametrize(
    ("writer", "name", "expected"),
    [
        (write_csv, "pairs.json", "writes .csv files; name the file pairs.csv"),
        (write_table, "pairs.xlsx", "writes .csv or .parquet files; name the file pairs.csv"),
        (write_table, "pairs", "writes .csv or .parquet files"),
        (write_csv, "", "--output: give a file name"),
    ],
)
def test_a_table_is_never_written_under_another_formats_name(tmp_path, writer, name, expected):
    """audit --output pairs.json wrote CSV text into a file named .json."""
    target = tmp_path / name if name else ""
    with pytest.raises(InputError) as info:
        writer(pd.DataFrame({"a": [1]}), target, option="--output")
    assert expected in str(info.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("path", [None, 3, b"x.csv", ["a"]])
def test_a_path_of_the_wrong_type_is_one_line(path):
    with pytest.raises(InputError, match=r"^output=: expected a file path, got "):
        write_csv(pd.DataFrame({"a": [1]}), path, option="output=")
