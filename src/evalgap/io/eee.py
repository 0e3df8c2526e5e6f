"""Read Every Eval Ever instance-level records (the shared schema's JSON lines).

Every Eval Ever's instance-level schema (``instance_level_eval_*``) stores one JSON object
per line and sample: ``model_id``, ``evaluation_name``, ``evaluation_id`` (the run it belongs
to), ``sample_id`` and ``evaluation.score`` (with ``evaluation.is_correct``). A record is one
score of ``model_id`` on item ``sample_id`` of task ``evaluation_name``; records of several
``evaluation_id`` of one model and task are runs, averaged per item by the jobs (and said).
Scores lie in [0, 1] (binary or graded). The schema (0.3.0) lets a score be any number and
requires ``evaluation.is_correct``: a task with a score outside [0, 1] is scored by each
record's ``is_correct`` (1 or 0), said in a note. In a task scored in [0, 1], a score of 0
with ``is_correct`` true (or 1 with false) contradicts itself and is refused, naming the
file and line. Records that carry an ``error``
keep the score they record, and are counted in the notes; records of a schema version the
reader was not tested on are read the same way and counted in a note.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io._files import PathsArg, as_paths
from evalgap.io._limits import open_maybe_gzip, read_lines

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

KEYS = (b'"model_id"', b'"sample_id"', b'"evaluation"')
# The schema versions the reader is tested on; a record of another gets a note. Records
# write the bare version (0.3.0) or, before 0.3.0, with the schema's name in front.
KNOWN_VERSIONS = ("0.2.1", "0.3.0")
VERSION_PREFIX = "instance_level_eval_"
SUFFIXES = (".jsonl", ".jsonl.gz")


def is_instance_file(path: Path) -> bool:
    """A JSON-lines file whose first record has the schema's model_id, sample_id and
    evaluation (and an ``instance_level_eval`` schema_version, or an evaluation_id)."""
    if not path.is_file() or not path.name.endswith(SUFFIXES):
        return False
    try:
        with open_maybe_gzip(path, gzipped=path.name.endswith(".gz")) as handle:
            head = handle.read(16384)
    except (OSError, EOFError):
        return False
    first = head.split(b"\n", 1)[0]
    return all(k in first for k in KEYS) and (
        b"instance_level_eval" in first or b'"evaluation_id"' in first
    )


def _field(record: dict[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise InputError(
            escape(f"{where}: no {key}; an Every Eval Ever instance record names it"),
            param="scores",
        )
    return value


def _record(raw: bytes, where: str) -> dict[str, Any]:
    """One line as a JSON object, or a one-line error naming the line."""
    try:
        record = json.loads(raw)
    except UnicodeDecodeError:
        raise InputError(
            escape(f"{where} is not UTF-8 text; the records are JSON"), param="scores"
        ) from None
    except (ValueError, RecursionError):
        raise InputError(
            escape(f"{where} is not valid JSON; the file may be truncated"), param="scores"
        ) from None
    if not isinstance(record, dict):
        raise InputError(escape(f"{where} is not a JSON object"), param="scores")
    return record


def _score(record: dict[str, Any], where: str) -> tuple[float, bool | None]:
    """The record's ``evaluation.score`` (any number, as the schema allows) and its
    ``evaluation.is_correct`` (None when it is no true/false)."""
    evaluation = record.get("evaluation")
    if not isinstance(evaluation, dict):
        evaluation = {}
    score, correct = evaluation.get("score"), evaluation.get("is_correct")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or score != score:
        raise InputError(
            escape(f"{where}: evaluation.score is {json.dumps(score)[:40]}, not a number"),
            param="scores",
        )
    if score in (float("inf"), float("-inf")):
        raise InputError(escape(f"{where}: evaluation.score is {score}"), param="scores")
    return float(score), correct if isinstance(correct, bool) else None


def _version(record: dict[str, Any]) -> str | None:
    """The record's schema version when it is not one the reader was tested on."""
    value = record.get("schema_version")
    text = str(value) if value is not None else ""
    return None if text.removeprefix(VERSION_PREFIX) in KNOWN_VERSIONS else text


# One record: model, task, item, run, evaluation.score, is_correct, file (index), line.
Row = tuple[str, str, str, str, float, bool | None, int, int]


def _file_rows(f: Path, index: int, rows: list[Row], tally: dict[str, Counter[str]]) -> None:
    """Append one file's records to ``rows``, counting what the notes say in ``tally``."""
    with open_maybe_gzip(f, gzipped=f.name.endswith(".gz")) as handle:
        for lineno, raw in read_lines(handle, f, what="an Every Eval Ever records file"):
            if not raw.strip():
                continue
            where = f"{f}: line {lineno}"
            record = _record(raw, where)
            score, correct = _score(record, where)
            if record.get("error"):
                tally["error"]["error"] += 1
            unknown = _version(record)
            if unknown is not None:
                tally["version"][unknown] += 1
            rows.append(
                (
                    _field(record, "model_id", where),
                    _field(record, "evaluation_name", where),
                    _field(record, "sample_id", where),
                    _field(record, "evaluation_id", where),
                    score,
                    correct,
                    index,
                    lineno,
                )
            )


def _scores(frame: pd.DataFrame, files: list[Path]) -> list[str]:
    """Put each record's score in ``frame["score"]``, in [0, 1]; return the notes.

    A task whose scores all lie in [0, 1] keeps them, and a score of 0 or 1 that says the
    opposite of its record's ``is_correct`` is refused, naming the line. A task with a
    score outside [0, 1] (a judge's 1-10 grade, a count) is on another scale, where a grade
    of 1 is no full mark: every record of the task takes its ``is_correct`` (1 or 0) as the
    score, so the compared models are scored alike.
    """

    def where(row: int) -> str:
        return f"{files[int(frame['file'].iat[row])]}: line {int(frame['line'].iat[row])}"

    score, correct = frame["score"].to_numpy(dtype=float), frame["correct"]
    outside = (score < 0) | (score > 1)
    off = frame["task"].isin(frame.loc[outside, "task"].unique()).to_numpy()
    known = correct.notna().to_numpy()
    truth = correct.fillna(False).to_numpy(dtype=bool)
    lacking = np.flatnonzero(off & ~known)
    if lacking.size:
        row = int(lacking[0])
        raise InputError(
            escape(
                f"{where(row)}: task {frame['task'].iat[row]!r} has scores outside [0, 1] (the "
                f"first: {score[np.flatnonzero(outside)[0]]:g}), so evaluation.is_correct is "
                "the score, and this record has no true/false is_correct; give every record "
                "of the task its is_correct, or rescale the task's scores into [0, 1]"
            ),
            param="scores",
        )
    contradicts = ~off & known & (score == np.where(truth, 0.0, 1.0))
    if contradicts.any():
        row = int(np.flatnonzero(contradicts)[0])
        raise InputError(
            escape(
                f"{where(row)}: evaluation.score is {score[row]:g} but evaluation.is_correct "
                f"is {json.dumps(bool(truth[row]))}; the record contradicts itself "
                f"({int(contradicts.sum()):,} such record(s)): correct the score or "
                "is_correct of each, or leave them out"
            ),
            param="scores",
        )
    frame["score"] = np.where(off, truth.astype(float), score)
    notes = []
    for task in sorted(frame.loc[off, "task"].unique()):
        mine = (frame["task"] == task).to_numpy()
        notes.append(
            f"task {task}: evaluation.score lies outside [0, 1] (from {score[mine].min():g} to "
            f"{score[mine].max():g}), so each of its {int(mine.sum()):,} records is scored by "
            "its evaluation.is_correct (1 or 0)"
        )
    return notes


def _notes(tally: dict[str, Counter[str]]) -> list[str]:
    notes = []
    if tally["error"]:
        count = tally["error"]["error"]
        notes.append(f"{count:,} record(s) carry an error; their recorded score is kept")
    for version, count in sorted(tally["version"].items()):
        notes.append(
            f"{count:,} record(s) of schema_version {version!r}, not one evalgap was tested on "
            f"({', '.join(KNOWN_VERSIONS)}); read with the same fields (model_id, sample_id, "
            "evaluation_name, evaluation_id, evaluation.score, evaluation.is_correct)"
        )
    return notes


def read_eee(paths: PathsArg) -> LongScores:
    """Read instance-level record files (or folders of them) into the long layout."""
    paths = as_paths(paths)
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files += sorted(q for q in p.rglob("*") if is_instance_file(q))
        else:
            files.append(p)
    if not files:
        raise InputError(
            escape(f"{paths[0]}: no Every Eval Ever instance-level records found"), param="scores"
        )
    rows: list[Row] = []
    tally: dict[str, Counter[str]] = {k: Counter() for k in ("error", "version")}
    for index, f in enumerate(files):
        _file_rows(f, index, rows, tally)
    columns = ["model", "task", "item_id", "run", "score", "correct", "file", "line"]
    frame = pd.DataFrame(rows, columns=columns)
    notes = _notes(tally) + _scores(frame, files)
    frame = frame.drop(columns=["correct", "file", "line"])
    runs = frame.groupby(["model", "task"])["run"].nunique()
    if (runs > 1).any():
        (model, task), count = next((k, v) for k, v in runs.items() if v > 1)
        notes.append(
            f"{model} / {task}: {count} evaluations (evaluation_id) are runs of the same items, "
            "averaged per item"
        )
    return LongScores(
        frame=frame,
        source=", ".join(map(str, paths)),
        columns={
            "item_id": "sample_id",
            "task": "evaluation_name",
            "model": "model_id",
            "run": "evaluation_id",
            "score": "evaluation.score",
        },
        notes=tuple(notes),
    )


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is an instance-level records file, or a folder holding some."""
    if path.is_dir():
        return any(is_instance_file(q) for q in path.rglob("*.jsonl*"))
    return is_instance_file(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read Every Eval Ever instance records (:func:`read_eee`)."""
    return read_eee(paths)
