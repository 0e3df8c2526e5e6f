"""The score sources as one table: a source registered in one row is detected, read by
load_scores and added to a store; every row is complete; the CLI's --format choices and
its list of sources are the registry's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
import pandas as pd
import pytest

import evalgap
from evalgap._scores import LongScores
from evalgap.errors import InputError
from evalgap.io import reading, registry, tables
from evalgap.io.options import LoadOptions
from evalgap.io.registry import Source, resolve
from evalgap.io.sources import detect_source, load_scores

# A made-up log format: "model item score" per line, in files named *.fake.
FAKE_LINES = {
    "one.fake": ["alpha q1 1", "alpha q2 0", "alpha q3 1", "beta q1 0", "beta q2 0"],
    "two.fake": ["beta q3 1", "gamma q1 1", "gamma q2 1", "gamma q3 0"],
}


def _detect(path: Path, options: LoadOptions) -> bool:
    if path.is_dir():
        return any(path.rglob("*.fake"))
    return path.suffix == ".fake"


def _read(paths: list[Path], options: LoadOptions) -> LongScores:
    files = [f for p in paths for f in (sorted(p.rglob("*.fake")) if p.is_dir() else [p])]
    rows = [line.split() for f in files for line in f.read_text().splitlines()]
    frame = pd.DataFrame(rows, columns=["model", "item_id", "score"])
    frame["score"] = frame["score"].astype(float)
    frame.insert(1, "task", options.model_name or "fake-task")  # an option the row takes
    return LongScores(frame, ", ".join(map(str, paths)), {"model": "first field"}, ("read fake",))


FAKE = Source(
    "fake",
    "made-up *.fake logs",
    detect=_detect,
    read=_read,
    options=("model_name",),
)


@pytest.fixture
def fake_logs(tmp_path, monkeypatch):
    """The fake source registered in one row (first in detection order), and its logs."""
    monkeypatch.setattr(registry, "SOURCES", (FAKE, *registry.SOURCES))
    folder = tmp_path / "logs"
    folder.mkdir()
    for name, lines in FAKE_LINES.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    return folder


def _expected() -> pd.DataFrame:
    rows = [line.split() for name in sorted(FAKE_LINES) for line in FAKE_LINES[name]]
    frame = pd.DataFrame(rows, columns=["model", "item_id", "score"]).astype({"score": float})
    return frame.sort_values(["model", "item_id"], ignore_index=True)


def _rows(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame[["model", "item_id", "score"]].astype({"model": str, "item_id": str})
    return out.sort_values(["model", "item_id"], ignore_index=True)


def test_a_source_registered_in_one_row_is_detected_and_read(fake_logs):
    assert detect_source(fake_logs / "one.fake") == "fake"
    assert detect_source(fake_logs) == "fake"
    assert reading.directory_sources(fake_logs) == ["fake"]

    long = load_scores([fake_logs])
    pd.testing.assert_frame_equal(_rows(long.frame), _expected())
    assert set(long.frame["task"]) == {"fake-task"}
    assert long.notes == ("read fake",)

    # Paths of one source are read together; the row's options reach its reader; a
    # table's column option, which the row does not take, is said in a note.
    files = [fake_logs / "one.fake", fake_logs / "two.fake"]
    long = load_scores(files, LoadOptions(model_name="named", score_column="acc"))
    assert long.source == ", ".join(map(str, files))
    assert set(long.frame["task"]) == {"named"}
    assert len(load_scores(p for p in files).frame) == 9  # a generator of paths too
    assert long.notes[-1] == (
        "--score-column names columns of score tables; the fake logs were read with their "
        "own fields, so it was not used"
    )
    # Its name forces it.
    renamed = fake_logs / "scores.txt"
    renamed.write_text((fake_logs / "one.fake").read_text())
    assert len(load_scores([renamed], LoadOptions(fmt="fake")).frame) == 5

    # Beside every other source: a table in the same call.
    table = fake_logs.parent / "table.csv"
    pd.DataFrame({"model": ["delta"] * 2, "item_id": ["q1", "q2"], "score": [1, 0]}).to_csv(
        table, index=False
    )
    both = load_scores([table, fake_logs])
    assert sorted(set(both.frame["model"])) == ["alpha", "beta", "delta", "gamma"]
    assert len(both.frame) == 11


def test_a_source_registered_in_one_row_is_added_to_a_store(fake_logs, tmp_path):
    store = tmp_path / "board.duckdb"
    added = evalgap.store_add(store, [fake_logs])
    assert added.added_sources == (str(fake_logs),) and added.rows_added == 9
    stored = load_scores(None, LoadOptions(store=str(store)))
    pd.testing.assert_frame_equal(_rows(stored.frame), _expected())
    assert evalgap.store_add(store, [fake_logs]).skipped_sources == (str(fake_logs),)


def test_a_row_with_batches_streams_into_the_store(fake_logs, tmp_path, monkeypatch):
    streamed = []

    def batches(path, options):
        long = _read([path], options)
        streamed.append(path)
        return dict(long.columns), list(long.notes), iter([long.frame])

    row = dataclasses.replace(FAKE, batches=batches)
    monkeypatch.setattr(registry, "SOURCES", (row, *registry.SOURCES[1:]))
    store = tmp_path / "board.duckdb"
    assert evalgap.store_add(store, [fake_logs]).rows_added == 9
    assert streamed == [fake_logs]
    stored = load_scores(None, LoadOptions(store=str(store)))
    pd.testing.assert_frame_equal(_rows(stored.frame), _expected())


def test_a_path_no_row_claims_is_refused_in_one_line(tmp_path):
    odd = tmp_path / "notes.md"
    odd.write_text("hello\n")
    with pytest.raises(InputError, match=r"notes\.md: cannot tell the table format"):
        load_scores([odd])
    with pytest.raises(InputError, match=r"^fmt= must be one of lm-eval, helm, .*got 'nope'$"):
        load_scores([odd], LoadOptions(fmt="nope"))


def test_every_row_is_complete():
    fields = {f.name for f in dataclasses.fields(LoadOptions)}
    names = [row.name for row in registry.SOURCES]
    assert len(set(names)) == len(names) == 9
    assert len(set(registry.format_names())) == len(registry.format_names())
    for row in registry.SOURCES:
        assert callable(resolve(row.detect)) and callable(resolve(row.read)), row.name
        for hook in (row.batches, row.reads_table, row.files):
            assert hook is None or callable(resolve(hook)), row.name
        assert row.help.strip() and "\n" not in row.help and len(row.help) <= 90, row.name
        assert set(row.options) <= fields, row.name
    # The table is the fallback, tried last, and forced by its formats.
    assert [row.name for row in registry.SOURCES if row.fallback] == ["table"]
    assert registry.SOURCES[-1].fallback
    assert registry.source_named("table").formats == tables.FORMATS


def _commands(group: click.Group, prefix=()):
    for name, command in group.commands.items():
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_the_cli_format_choices_and_source_list_are_the_registry():
    from evalgap.cli import cli

    with_format = with_list = 0
    for name, command in _commands(cli):
        for param in command.params:
            if param.name == "fmt" and "--format" in param.opts:
                assert list(param.type.choices) == list(registry.format_names()), name
                with_format += 1
        if "Score sources" in (command.epilog or ""):  # the help lists every source
            with_list += 1
            for row in registry.SOURCES:
                assert f"  {row.name}" in command.epilog and row.help in command.epilog, name
    assert with_format >= 7 and with_list >= 6
    assert registry.format_names() == (
        "lm-eval", "helm", "oll", "inspect", "swebench", "mteb", "eee", "every-eval-ever",
        "alpaca-eval", "csv", "tsv", "parquet", "jsonl",
    )
