"""A file is given only to the detectors whose registry row names files like it: detection
is the same as asking every detector in order, and a table file loads no framework's loader."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evalgap.errors import InputError
from evalgap.io import reading, registry
from evalgap.io.options import LoadOptions
from evalgap.io.registry import resolve

from conftest import ROOT, SHARED_DATA

# Every loader module but the tables' (the fallback, which reads any table file).
LOADERS = tuple(str(row.detect).partition(":")[0] for row in registry.SOURCES if not row.fallback)


def _every_detector(path: Path, options: LoadOptions) -> str:
    """The source of a file as detection was before the pre-filter: every detector, in order."""
    for row in sorted(registry.SOURCES, key=lambda r: r.fallback):
        if resolve(row.detect)(path, options):
            return row.name
    raise AssertionError(f"{path}: the fallback neither claimed nor refused it")


def _outcome(detect, path: Path, options: LoadOptions) -> str:
    try:
        return detect(path, options)
    except InputError as error:
        return f"refused: {error}"


def _made(folder: Path) -> list[Path]:
    """A file of every source (the fixtures hold no Parquet details, Every Eval Ever records,
    SWE-bench leaderboard results or bare HELM stats), and names each pattern must tell apart."""
    made: list[Path] = []

    def write(name: str, text: str, zipped: bool = False) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode()
        path.write_bytes(gzip.compress(data) if zipped else data)
        made.append(path)

    def parquet(name: str, frame: pd.DataFrame) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(path)
        made.append(path)

    record = {
        "schema_version": "instance_level_eval_0.2.1",
        "evaluation_id": "e1",
        "model_id": "org/model",
        "sample_id": "q1",
        "evaluation": {"score": 1.0},
    }
    write("eee/records.jsonl", json.dumps(record) + "\n")
    write("eee/records.jsonl.gz", json.dumps(record) + "\n", zipped=True)
    write("eee/records.JSONL", json.dumps(record) + "\n")  # not the reader's suffix: a table
    write("swe/results/results.json", json.dumps({"resolved": ["a"], "no_generation": []}))
    write("swe/report.json", json.dumps({"i1": {"resolved": True, "tests_status": {}}}))
    report = {"total_instances": 2, "resolved_instances": 1, "resolved_ids": ["a"]}
    write("swe/run.report.json", json.dumps(report))
    annotations = [{"generator_2": "m", "generator_1": "b", "instruction": "q", "preference": 2}]
    write("alpaca/judged.json", json.dumps(annotations))
    write("mteb/Banking77.json", json.dumps({"task_name": "B", "mteb_version": "1", "scores": {}}))
    write("inspect/log.eval", "not a zip")
    write("helm/run/per_instance_stats.json", "[]")
    write("lm/samples_t_2024-01-01T00-00-00.json.gz", '{"doc_id": 0}\n', zipped=True)
    write("lm/args_task.jsonl", '[{"doc_id": 0}]')
    write("lm/results.json", "{}")
    long = pd.DataFrame({"model": ["a", "b"], "item_id": ["q1", "q1"], "score": [1.0, 0.0]})
    parquet("oll/long.parquet", long)
    parquet("oll/by_columns.parquet", pd.DataFrame({"doc_id": [0], "acc": [1.0]}))
    parquet("oll/details_arc_2024-01-01T00-00-00.parquet", pd.DataFrame({"x": [1]}))
    parquet("oll/samples_arc_2024-01-01T00-00-00.parquet", pd.DataFrame({"x": [1]}))
    parquet("oll/org__model__arc/latest/0000.parquet", pd.DataFrame({"x": [1]}))
    write("tables/scores.csv", "model,item_id,score\na,q1,1\nb,q1,0\n")
    write("tables/scores.csv.gz", "model,item_id,score\na,q1,1\nb,q1,0\n", zipped=True)
    write("tables/notes.txt", "nothing to read")
    return made


def _fixture_files() -> list[Path]:
    roots = [ROOT / "tests" / "fixtures", ROOT / "examples"]
    return sorted(f for r in roots for f in r.rglob("*") if f.is_file() and f.suffix != ".py")


def _assert_same(files: list[Path], options: LoadOptions) -> None:
    differ = {
        str(f): (before, after)
        for f in files
        if (before := _outcome(_every_detector, f, options))
        != (after := _outcome(reading._detect, f, options))
    }
    assert differ == {}


def test_fixture_and_example_files_are_detected_as_by_every_detector():
    files = _fixture_files()
    assert len(files) > 100  # the fixtures are there to compare on
    _assert_same(files, LoadOptions())


# What each made file is: every source is among them, so the comparison cannot pass vacuously.
MADE = {
    "eee/records.jsonl": "eee",
    "eee/records.jsonl.gz": "eee",
    "eee/records.JSONL": "table",
    "swe/results/results.json": "swebench",
    "swe/report.json": "swebench",
    "swe/run.report.json": "swebench",
    "alpaca/judged.json": "alpaca-eval",
    "mteb/Banking77.json": "mteb",
    "inspect/log.eval": "inspect",
    "helm/run/per_instance_stats.json": "helm",
    "lm/samples_t_2024-01-01T00-00-00.json.gz": "lm-eval",
    "lm/args_task.jsonl": "lm-eval",
    "lm/results.json": "refused",
    "oll/long.parquet": "table",
    "oll/by_columns.parquet": "oll",
    "oll/details_arc_2024-01-01T00-00-00.parquet": "oll",
    "oll/samples_arc_2024-01-01T00-00-00.parquet": "oll",
    "oll/org__model__arc/latest/0000.parquet": "oll",
    "tables/scores.csv": "table",
    "tables/scores.csv.gz": "table",
    "tables/notes.txt": "table",
}


def test_made_files_are_detected_as_by_every_detector(tmp_path):
    files = _made(tmp_path)
    outcomes = {f: _outcome(reading._detect, f, LoadOptions()) for f in files}
    found = {f.relative_to(tmp_path).as_posix(): said.split(":")[0] for f, said in outcomes.items()}
    assert found == MADE
    for options in (LoadOptions(), LoadOptions(model_column="doc_id")):
        _assert_same(files, options)


def test_shared_data_files_are_detected_as_by_every_detector():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real-data folder {SHARED_DATA} is not present (it lives beside the project)")
    files = sorted(f for f in SHARED_DATA.rglob("*") if f.is_file() and f.suffix != ".md")
    _assert_same(files, LoadOptions())


def test_every_row_but_the_fallback_names_its_files():
    """A row without file names would be given every file, and load its module for a CSV."""
    assert [row.name for row in registry.SOURCES if row.file_names is None] == [
        row.name for row in registry.SOURCES if row.fallback
    ]


def test_detecting_a_csv_imports_no_loader_module(tmp_path):
    table = tmp_path / "scores.csv"
    table.write_text("model,item_id,score\na,q1,1\nb,q1,0\n")
    program = (
        "import json, sys\n"
        "from evalgap.io.sources import detect_source\n"
        f"print(detect_source({str(table)!r}))\n"
        f"print(json.dumps([m for m in {list(LOADERS)!r} if m in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    source, loaded = done.stdout.splitlines()
    assert source == "table"
    assert len(LOADERS) == 8
    assert json.loads(loaded) == []
