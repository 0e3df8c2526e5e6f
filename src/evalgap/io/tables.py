"""Read long score tables: CSV, TSV, Parquet or JSON Lines, optionally gzipped.

A long table has one row per (model, item) — and optionally per task and run — with a
score. Columns are named by the caller or detected from common names; what was detected
is reported, so a wrong guess is visible. The result is the interchange frame of
:mod:`evalgap.scores`: columns ``model, task, item_id, score`` and, when present,
``run`` and ``cluster``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd

from evalgap.errors import InputError, first_line
from evalgap.scores import LongScores

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
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            table.validate(full=True)  # arrow decodes text lazily: check the UTF-8 now
            return table.to_pandas()
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
    except Exception as exc:  # pandas, pyarrow, gzip and zlib raise many types on damaged files
        raise InputError(f"{path}: cannot be read as {fmt}: {first_line(exc)}") from None


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


# A JSON Lines row longer than this is a damaged file (or not a score table), never a row.
MAX_LINE_BYTES = 64 * 2**20
# Rows parsed into Python objects before they are packed into a typed frame chunk.
JSONL_CHUNK_ROWS = 100_000


def _read_jsonl(
    path: Path,
    compression: str | None,
    *,
    max_line_bytes: int | None = None,
    progress=None,
) -> pd.DataFrame:
    """Read JSON Lines one line at a time from the (possibly gzipped) file object.

    Memory stays bounded by the longest line and the parsed values: the file is never read
    whole. A line longer than ``max_line_bytes`` is an error naming it.
    """
    limit = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    total = path.stat().st_size
    chunks: list[pd.DataFrame] = []
    columns: dict[str, list] = {}
    rows = 0
    with open(path, "rb") as raw:
        handle = gzip.GzipFile(fileobj=raw) if compression == "gzip" else raw
        number = 0
        while True:
            line = handle.readline(limit + 1)
            if not line:
                break
            number += 1
            if len(line) > limit and not line.endswith(b"\n"):
                raise InputError(
                    f"{path}: line {number} is longer than {limit / 2**20:g} MiB; a JSON Lines "
                    "score table has one short object per row"
                )
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{path}: line {number} is not UTF-8 text ({exc.reason}); "
                    "re-encode the file as UTF-8"
                ) from None
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {number} is not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise InputError(
                    f"{path}: line {number} is not a JSON object; JSON Lines "
                    "score tables have one object per row"
                )
            for key, value in record.items():
                column = columns.get(key)
                if column is None:
                    column = columns[key] = [None] * rows
                column.append(value)
            rows += 1
            for column in columns.values():
                if len(column) < rows:
                    column.append(None)
            if rows == JSONL_CHUNK_ROWS:
                chunks.append(_records_frame(columns))
                columns, rows = {}, 0
                if progress is not None:
                    progress(raw.tell(), total)
    if rows:
        chunks.append(_records_frame(columns))
    if progress is not None:
        progress(total, total)
    if not chunks:
        raise InputError(f"{path}: cannot be read as JSON Lines records (no object found)")
    if len(chunks) == 1:
        return chunks[0]
    return pd.concat(chunks, ignore_index=True, sort=False)


def _records_frame(columns: dict[str, list]) -> pd.DataFrame:
    """Pack parsed JSON values column by column (numbers become typed arrays)."""
    return pd.DataFrame({key: pd.Series(values) for key, values in columns.items()})


def read_wide_table(
    path,
    *,
    fmt: str | None = None,
    models_in: str = "columns",
    item_column: str | None = None,
    task_column: str | None = None,
    model_column: str | None = None,
    cluster_column: str | None = None,
    model_columns=None,
) -> LongScores:
    """Read a wide score table: one column per model (or, ``models_in="rows"``, per item).

    ``models_in="columns"``: one row per item, an item column (and optionally task and
    cluster columns), and one score column per model: ``model_columns`` names them, else
    every other column whose non-empty values are all numbers is taken as a model (and said
    so); an empty cell is an item that model did not score.
    ``models_in="rows"``: one row per model, a model column, and one column per item.
    """
    path = Path(path)
    raw = read_frame(path, fmt)
    if raw.shape[0] == 0:
        raise InputError(f"{path}: the table has a header but no rows")
    raw.columns = [str(c) for c in raw.columns]
    found = ", ".join(raw.columns)
    notes = []
    if models_in == "rows":
        model_col = model_column or next(
            (c for c in CANDIDATES["model"] if c in raw.columns), raw.columns[0]
        )
        if model_col not in raw.columns:
            raise InputError(f"{path}: no column {model_col!r}; columns found: {found}")
        if model_column is None:
            notes.append(f"model column: {model_col!r} (detected); every other column is an item")
        long = raw.melt(id_vars=[model_col], var_name="item_id", value_name="score")
        frame = pd.DataFrame(
            {
                "model": long[model_col].astype(str),
                "task": "all",
                "item_id": long["item_id"].astype(str),
                "score": long["score"],
            }
        )
        return LongScores(frame, str(path), {"model": model_col}, tuple(notes))
    if models_in != "columns":
        raise InputError(f"--models-in must be 'columns' or 'rows'; got {models_in!r}")
    item_col = item_column or next((c for c in CANDIDATES["item_id"] if c in raw.columns), None)
    if item_col is None or item_col not in raw.columns:
        raise InputError(
            f"{path}: cannot find the item id column; name it with --item-column "
            f"(columns found: {found})"
        )
    task_col = task_column or next((c for c in CANDIDATES["task"] if c in raw.columns), None)
    id_columns = [c for c in (item_col, task_col, cluster_column) if c]
    for c in id_columns:
        if c not in raw.columns:
            raise InputError(f"{path}: no column {c!r}; columns found: {found}")
    if model_columns:
        missing = [m for m in model_columns if m not in raw.columns]
        if missing:
            raise InputError(f"{path}: no model column {missing[0]!r}; columns found: {found}")
        models = list(model_columns)
    else:
        models = [c for c in raw.columns if c not in id_columns and _numeric_column(raw[c])]
        skipped = [c for c in raw.columns if c not in id_columns and c not in models]
        notes.append(
            f"model columns: {', '.join(models)} (every numeric column; empty cells are "
            "items not scored)"
            + (f"; not scores: {', '.join(skipped)}" if skipped else "")
        )
    if not models:
        raise InputError(
            f"{path}: no numeric model column; name them with --models (columns found: {found})"
        )
    long = raw.melt(id_vars=id_columns, value_vars=models, var_name="model", value_name="score")
    # An empty cell of a wide table is an item the model did not score, not an unusable row:
    # the alignment counts it among the model's missing items.
    long = long[~(long["score"].isna() | (long["score"].astype(str).str.strip() == ""))]
    frame = pd.DataFrame(
        {
            "model": long["model"].astype(str),
            "task": long[task_col].astype(str) if task_col else "all",
            "item_id": long[item_col].astype(str),
            "score": long["score"],
        }
    )
    if cluster_column:
        frame["cluster"] = long[cluster_column].astype(str)
    return LongScores(frame, str(path), {"item_id": item_col, "task": task_col}, tuple(notes))


def _numeric_column(column: pd.Series) -> bool:
    """True when every non-empty cell is a number and at least one cell is not empty."""
    empty = column.isna() | (column.astype(str).str.strip() == "")
    if empty.all():
        return False
    return bool(pd.to_numeric(column[~empty], errors="coerce").notna().all())


def apply_item_file(
    scores: LongScores,
    items_path,
    *,
    cluster_column: str | None = None,
    item_column: str | None = None,
    fmt: str | None = None,
) -> LongScores:
    """Keep only the items an item file lists, and take their cluster labels from it.

    The item file has one row per item: an item id column (named or detected) matching the
    scores' item ids, optionally a task column, and, when ``cluster_column`` is given, that
    column's labels. Items of the scores that the file does not list are left out and
    counted in the notes (a trimmed item list from ``evalgap trim`` restricts a test this way).
    """
    path = Path(items_path)
    raw = read_frame(path, fmt)
    raw.columns = [str(c) for c in raw.columns]
    found = ", ".join(raw.columns)
    if cluster_column is not None and cluster_column not in raw.columns:
        raise InputError(
            f"{path}: no column {cluster_column!r} (given as --cluster-column); "
            f"columns found: {found}"
        )
    item_col = item_column or next((c for c in CANDIDATES["item_id"] if c in raw.columns), None)
    if item_col is None or item_col not in raw.columns:
        raise InputError(
            f"{path}: cannot find the item id column; name it with --item-column "
            f"(columns found: {found})"
        )
    task_col = next((c for c in CANDIDATES["task"] if c in raw.columns), None)
    keys = ["item_id"] + (["task"] if task_col else [])
    listed = pd.DataFrame({"item_id": raw[item_col].astype(str)})
    if task_col:
        listed["task"] = raw[task_col].astype(str)
    if cluster_column is not None:
        listed["cluster"] = raw[cluster_column].astype(str)
    if listed.duplicated(subset=keys).any():
        dup = listed[listed.duplicated(subset=keys)].iloc[0]
        raise InputError(
            f"{path}: item {dup['item_id']!r} appears more than once; an item file "
            "has one row per item"
        )
    frame = scores.frame
    if cluster_column is not None:
        frame = frame.drop(columns=["cluster"], errors="ignore")
    frame = frame.merge(listed, on=keys, how="left", indicator=True)
    unlisted = frame["_merge"] == "left_only"
    notes = list(scores.notes)
    left_out = frame.loc[unlisted, ["task", "item_id"]].drop_duplicates().shape[0]
    if left_out:
        notes.append(f"{left_out:,} items not listed in {path.name} were left out")
    frame = frame.loc[~unlisted].drop(columns="_merge").reset_index(drop=True)
    if frame.empty:
        raise InputError(
            f"{path}: none of its items appear in the scores (compare the item ids "
            f"in column {item_col!r} with the scores' item ids)"
        )
    columns = dict(scores.columns)
    if cluster_column is not None:
        columns["cluster"] = f"{path.name}:{cluster_column}"
    return LongScores(frame, scores.source, columns, tuple(notes))
