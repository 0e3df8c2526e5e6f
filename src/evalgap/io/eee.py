"""Read Every Eval Ever instance-level records (the shared schema's JSON lines).

Every Eval Ever's instance-level schema (``instance_level_eval_*``) stores one JSON object
per line and sample: ``model_id``, ``evaluation_name``, ``evaluation_id`` (the run it belongs
to), ``sample_id`` and ``evaluation.score`` (with ``evaluation.is_correct``). A record is one
score of ``model_id`` on item ``sample_id`` of task ``evaluation_name``; records of several
``evaluation_id`` of one model and task are runs, averaged per item by the jobs (and said).
Scores must lie in [0, 1] (binary or graded); records that carry an ``error`` keep the score
they record, and are counted in the notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
        raise InputError(f"{where}: no {key}; an Every Eval Ever instance record names it")
    return value


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
        raise InputError(f"{paths[0]}: no Every Eval Ever instance-level records found")
    rows: list[tuple[str, str, str, str, float]] = []
    errors = 0
    for f in files:
        with open_maybe_gzip(f, gzipped=f.name.endswith(".gz")) as handle:
            for lineno, raw in read_lines(handle, f, what="an Every Eval Ever records file"):
                if not raw.strip():
                    continue
                where = f"{f}: line {lineno}"
                try:
                    record = json.loads(raw)
                except UnicodeDecodeError:
                    raise InputError(f"{where} is not UTF-8 text; the records are JSON") from None
                except (ValueError, RecursionError):
                    raise InputError(
                        f"{where} is not valid JSON; the file may be truncated"
                    ) from None
                if not isinstance(record, dict):
                    raise InputError(f"{where} is not a JSON object")
                evaluation = record.get("evaluation")
                score = evaluation.get("score") if isinstance(evaluation, dict) else None
                if isinstance(score, bool) or not isinstance(score, (int, float)):
                    raise InputError(f"{where}: evaluation.score is not a number")
                score = float(score)
                if not 0.0 <= score <= 1.0:
                    raise InputError(
                        escape(
                            f"{where}: evaluation.score is {score:g}, outside [0, 1]; evalgap "
                            "compares binary or graded scores in [0, 1] (rescale the scores)"
                        )
                    )
                if record.get("error"):
                    errors += 1
                rows.append(
                    (
                        _field(record, "model_id", where),
                        _field(record, "evaluation_name", where),
                        _field(record, "sample_id", where),
                        _field(record, "evaluation_id", where),
                        score,
                    )
                )
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "run", "score"])
    notes = []
    if errors:
        notes.append(f"{errors:,} record(s) carry an error; their recorded score is kept")
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
