"""Read long score tables: CSV, TSV, Parquet or JSON Lines, optionally gzipped.

A long table has one row per (model, item) — and optionally per task and run — with a
score. Columns are named by the caller or detected from common names; what was detected
is reported, so a wrong guess is visible. The result is the interchange frame of
:mod:`evalgap.scores`: columns ``model, task, item_id, score`` and, when present,
``run`` and ``cluster``.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from evalgap.errors import InputError

FORMATS = ("csv", "tsv", "parquet", "jsonl")

# Candidate names, most specific first, for each role when the caller does not name a column.
CANDIDATES = {
    "model": ("model", "model_name", "model_id", "system", "candidate"),
    "item_id": (
        "item_id",
        "item",
        "question_id",
        "doc_id",
        "sample_id",
        "example_id",
        "item_idx",
        "instance_id",
        "id",
        "idx",
    ),
    "score": ("score", "correct", "is_correct", "acc", "accuracy", "exact_match", "em", "value"),
    "task": ("task", "task_name", "benchmark", "dataset", "subset"),
    "run": ("run", "epoch", "seed", "repeat", "trial", "sample"),
}


@dataclass(frozen=True)
class LongScores:
    """A long score table in the interchange layout, with where it came from.

    ``frame`` has columns ``model, task, item_id, score`` and optionally ``run`` and
    ``cluster``; ``columns`` maps each role to the source column it was read from
    (``None`` when absent); ``notes`` say what was detected rather than given.
    """

    frame: pd.DataFrame
    source: str
    columns: dict
    notes: tuple[str, ...] = field(default=())


def detect_format(path: Path) -> str:
    """Return the table format from the file name (``.csv``, ``.tsv``, ``.parquet``, ``.jsonl``)."""
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for suffix, fmt in (
        (".csv", "csv"),
        (".tsv", "tsv"),
        (".txt", "tsv"),
        (".parquet", "parquet"),
        (".pq", "parquet"),
        (".jsonl", "jsonl"),
        (".ndjson", "jsonl"),
    ):
        if name.endswith(suffix):
            return fmt
    raise InputError(
        f"{path}: cannot tell the table format from the file name; supported: "
        f"{', '.join(FORMATS)} (optionally .gz); force one with --format"
    )


def read_frame(path, fmt: str | None = None) -> pd.DataFrame:
    """Read a CSV/TSV/Parquet/JSONL file (``.gz`` allowed) into a DataFrame of strings/numbers."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a score table file")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    compression = "gzip" if _is_gzip(path) else None
    try:
        if fmt == "parquet":
            return pd.read_parquet(path)
        if fmt == "jsonl":
            return _read_jsonl(path, compression)
        sep = "\t" if fmt == "tsv" else ","
        return pd.read_csv(
            path, sep=sep, compression=compression, encoding="utf-8", low_memory=False
        )
    except InputError:
        raise
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "re-encode the file as UTF-8"
        ) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, OSError, EOFError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: cannot be read as {fmt}: {first}") from None


def read_long_table(
    path,
    *,
    fmt: str | None = None,
    model_column: str | None = None,
    item_column: str | None = None,
    score_column: str | None = None,
    task_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
) -> LongScores:
    """Read a long score table and map its columns onto the interchange layout.

    Columns not named are detected from :data:`CANDIDATES`; the detection is reported in
    ``notes``. A missing required column raises ``InputError`` listing the columns found.
    """
    path = Path(path)
    raw = read_frame(path, fmt)
    if raw.shape[0] == 0:
        raise InputError(f"{path}: the table has a header but no rows")
    found = [str(c) for c in raw.columns]
    notes = []
    given = {
        "model": model_column,
        "item_id": item_column,
        "score": score_column,
        "task": task_column,
        "run": run_column,
        "cluster": cluster_column,
    }
    chosen: dict = {}
    for role, column in given.items():
        if column is not None:
            if column not in raw.columns:
                raise InputError(
                    f"{path}: no column {column!r} (given for the {role.replace('_', ' ')}); "
                    f"columns found: {', '.join(found)}"
                )
            chosen[role] = column
        elif role in CANDIDATES:
            detected = next((c for c in CANDIDATES[role] if c in raw.columns), None)
            if detected is not None and detected in chosen.values():
                detected = None
            chosen[role] = detected
            if detected is not None:
                notes.append(f"{role.replace('_', ' ')} column: {detected!r} (detected)")
        else:
            chosen[role] = None
    flags = {"model": "--model-column", "item_id": "--item-column", "score": "--score-column"}
    for role, flag in flags.items():
        if chosen[role] is None:
            raise InputError(
                f"{path}: cannot find the {role.replace('_', ' ')} column; name it with {flag} "
                f"(columns found: {', '.join(found)})"
            )
    frame = pd.DataFrame(
        {
            "model": raw[chosen["model"]].astype(str),
            "task": raw[chosen["task"]].astype(str) if chosen["task"] else "all",
            "item_id": raw[chosen["item_id"]].astype(str),
            "score": raw[chosen["score"]],
        }
    )
    if chosen["run"]:
        frame["run"] = raw[chosen["run"]].astype(str)
    if chosen["cluster"]:
        frame["cluster"] = raw[chosen["cluster"]].astype(str)
    return LongScores(frame=frame, source=str(path), columns=chosen, notes=tuple(notes))


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _read_jsonl(path: Path, compression: str | None) -> pd.DataFrame:
    opener = gzip.open if compression == "gzip" else open
    with opener(path, "rb") as handle:
        data = handle.read()
    text = data.decode("utf-8")
    try:
        return pd.read_json(io.StringIO(text), lines=True)
    except ValueError:
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {number} is not valid JSON ({exc.msg})") from None
        raise
