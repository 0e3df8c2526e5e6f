"""Read long score tables: CSV, TSV, Parquet or JSON Lines, optionally gzipped.

A long table has one row per (model, item) — and optionally per task and run — with a
score. Columns are named by the caller or detected from common names; what was detected
is reported, so a wrong guess is visible. The result is the interchange frame of
:mod:`evalgap._scores`: columns ``model, task, item_id, score`` and, when present,
``run`` and ``cluster``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager as ContextManager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np

from evalgap._lazy import LazyModule
from evalgap._scores import PLAIN_NUMBER, LongCodes, LongScores, categorical, number_form
from evalgap.errors import InputError, escape, fields, first_line
from evalgap.io import _limits
from evalgap.io import configurations as config
from evalgap.io._files import PathArg
from evalgap.io._limits import is_gzip, open_maybe_gzip, read_lines
from evalgap.io._progress import _PROGRESS, Progress
from evalgap.io._write import unescape_cell
from evalgap.stats._types import BoolArray

if TYPE_CHECKING:
    import pandas as pd
    from pandas.api import types as ptypes

    from evalgap._scores import ScoreSet
    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")
    ptypes = LazyModule("pandas.api.types")

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
    # a task column's name says so; a "dataset" or "subset" label (AlpacaEval's source sets,
    # which its README calls clusters) is never taken as the task: name it with task_column=
    "task": ("task", "task_name", "subtask", "benchmark"),
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
        escape(
            f"{path}: cannot tell the table format from the file name; supported: "
            f"{', '.join(FORMATS)} (optionally .gz); "
        )
        + "force one with {fmt}",
        param="fmt",
    )


def read_frame(
    path: PathArg,
    fmt: str | None = None,
    *,
    progress: Progress | None = None,
    as_text: bool = False,
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read a CSV/TSV/Parquet/JSONL file (``.gz`` allowed) into a DataFrame of strings/numbers.

    ``progress(done_bytes, total_bytes)`` is called while a JSON Lines file is read. With
    ``as_text``, CSV/TSV cells are kept as written ("0001" stays "0001"), as the long-table
    reader keeps ids. ``columns`` reads only those columns of a Parquet file (the others are
    never decoded).
    """
    path, fmt, compression = _check_file(path, fmt)
    progress = progress or _PROGRESS.get()
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path, columns=columns)
            table.validate(full=True)  # arrow decodes text lazily: check the UTF-8 now
            return table.to_pandas()
        if fmt == "jsonl":
            return _read_jsonl(path, compression, progress=progress)
        sep = "\t" if fmt == "tsv" else ","
        with _open(path, compression) as handle:
            return pd.read_csv(
                handle,
                sep=sep,
                encoding="utf-8",
                low_memory=False,
                dtype=str if as_text else None,
            )
    except InputError:
        raise
    except Exception as exc:  # pandas, pyarrow, gzip and zlib raise many types on damaged files
        raise _read_error(path, fmt, exc) from None


def _check_file(path: PathArg, fmt: str | None) -> tuple[Path, str, str | None]:
    """Return (path, format, compression) of a readable table file, or raise naming it."""
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        raise InputError(f"path: expected a file path, got {type(path).__name__} {path!r:.60}")
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a score table file")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InputError(
            "{fmt} must be one of " + escape(", ".join(FORMATS)) + "; got {got!r}",
            param="fmt",
            got=fmt,
        )
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq

            rows = pq.ParquetFile(path).metadata.num_rows
        except Exception:  # a damaged file: the read itself reports it
            rows = 0
        _limits.check_parquet_rows(path, rows)
    return path, fmt, "gzip" if _is_gzip(path) else None


def _read_error(path: Path, fmt: str, exc: BaseException) -> InputError:
    if isinstance(exc, UnicodeDecodeError):
        return InputError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "re-encode the file as UTF-8"
        )
    if "utf8" in str(exc).lower().replace("-", ""):
        return InputError(f"{path}: not UTF-8 text; re-encode the file as UTF-8")
    if "straddles two block boundaries" in str(exc):  # pyarrow's reader: a row > its block
        return InputError(
            f"{path}: a row is longer than {BATCH_BYTES / 2**20:g} MiB; a score table has "
            "short rows (is a cell holding a whole document or an unclosed quote?)"
        )
    return InputError(f"{path}: cannot be read as {fmt}: {first_line(exc)}")


def read_long_table(
    path: PathArg,
    *,
    fmt: str | None = None,
    model_column: str | None = None,
    item_column: str | None = None,
    score_column: str | None = None,
    task_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
    progress: Progress | None = None,
    exclude_columns: Collection[str | None] = (),
    config_columns: Sequence[str] = (),
) -> LongScores:
    """Read a long score table and map its columns onto the interchange layout.

    Columns not named are detected from :data:`CANDIDATES`; the detection is reported in
    ``notes``. A missing required column raises ``InputError`` listing the columns found.
    A column named for one role is never detected as another, nor is one of
    ``exclude_columns`` (named for a role read elsewhere, such as an item file's clusters).

    CSV, TSV and Parquet are read in batches, only the columns used, with model, task,
    item, run and cluster as categoricals (integer codes): memory grows with the number of
    rows times a few bytes, not with the text. ``progress(done_bytes, total_bytes)`` is
    called as the file is read.

    Parameters
    ----------
    path : str or Path
        A CSV/TSV/Parquet/JSONL file, optionally gzipped.
    fmt : str, optional
        Force the format (default: from the suffix).
    model_column, item_column, score_column, task_column, run_column, cluster_column : str
        The columns of each role (default: detected from common names).
    progress : callable, optional
        ``progress(done_bytes, total_bytes)``.
    exclude_columns : sequence of str
        Columns never to detect as a role.
    config_columns : sequence of str
        Columns whose values name the configuration of each score (one ``configuration``
        label per combination, see :mod:`evalgap.io.configurations`).

    Returns
    -------
    LongScores
        The table in the long interchange layout, with notes on what was detected.

    Examples
    --------
    >>> table = read_long_table("examples/two_models.csv")
    >>> table.columns["score"], len(table.frame)
    ('score', 4000)
    """
    path, fmt, compression = _check_file(path, fmt)
    progress = progress or _PROGRESS.get()
    config_columns = config.names(config_columns)
    exclude_columns = (*exclude_columns, *config_columns)
    given = {
        "model": model_column,
        "item_id": item_column,
        "score": score_column,
        "task": task_column,
        "run": run_column,
        "cluster": cluster_column,
    }
    names = None
    if fmt != "jsonl":
        try:
            names = _column_names(path, fmt, compression)
        except InputError:
            raise
        except Exception as exc:
            raise _read_error(path, fmt, exc) from None
    if names is None:  # JSON Lines, or a header the batch reader cannot take as it is
        if fmt == "jsonl":
            # Keep only the fields a role can take: a log's long prompt or base64 blob
            # is parsed and dropped line by line, never held.
            wanted = {c for c in given.values() if c} | {c for v in CANDIDATES.values() for c in v}
            wanted |= set(config_columns)
            try:
                raw = _read_jsonl(path, compression, progress=progress, keep=wanted)
            except InputError:
                raise
            except Exception as exc:  # gzip and zlib raise many types on damaged files
                raise _read_error(path, fmt, exc) from None
            found = raw.attrs.pop("fields", [str(c) for c in raw.columns])
        else:
            raw = read_frame(path, fmt, progress=progress)
            found = [str(c) for c in raw.columns]
        if raw.shape[0] == 0:
            raise InputError(f"{path}: the table has a header but no rows")
        every_field = (lambda: read_frame(path, fmt)) if fmt == "jsonl" else (lambda: raw)
        config.refuse_missing(found, config_columns, path)
        chosen, notes = _choose_columns(
            path, found, given, every_field, exclude_columns, config_columns
        )
        _refuse_config_roles(chosen, config_columns, path)
        frame = _interchange(raw, chosen, config_columns, path)
        columns = _with_configuration(chosen, config_columns)
        return LongScores(frame, str(path), columns, tuple(notes))
    config.refuse_missing(names, config_columns, path)
    chosen, notes = _choose_columns(
        path, names, given, lambda: _head(path, fmt, compression), exclude_columns, config_columns
    )
    _refuse_config_roles(chosen, config_columns, path)
    codes = None if config_columns else _small_table_codes(path, fmt, compression, chosen)
    if codes is not None:
        if progress is not None:
            progress(path.stat().st_size, path.stat().st_size)
        return LongScores(None, str(path), chosen, tuple(notes), codes=codes)
    try:
        read = _read_columns(path, fmt, compression, chosen, progress, config_columns)
    except InputError:
        raise
    except Exception as exc:
        raise _read_error(path, fmt, exc) from None
    return LongScores(
        frame=None if isinstance(read, LongCodes) else read,
        source=str(path),
        columns=_with_configuration(chosen, config_columns),
        notes=tuple(notes),
        codes=read if isinstance(read, LongCodes) else None,
    )


def _refuse_config_roles(
    chosen: dict[str, str | None], config_columns: Sequence[str], where: object
) -> None:
    """Refuse a configuration column that is also read as the model, item, score, task, run
    or cluster (a score cannot be what it was run under)."""
    for role, column in chosen.items():
        if column is not None and column in config_columns:
            raise InputError(
                "{config_columns}"
                + escape(
                    f" names {column!r}, which {where} reads as the {role.replace('_', ' ')} "
                    "column; a configuration is what a score was run under (a seed, a "
                    "provider): name other columns"
                ),
                param="config_columns",
            )


def _with_configuration(
    chosen: dict[str, str | None], config_columns: Sequence[str]
) -> dict[str, str | None]:
    """The columns of each role, the configuration's among them when it is named."""
    if not config_columns:
        return chosen
    return {**chosen, config.COLUMN: ",".join(config_columns)}


def long_table_batches(
    path: PathArg,
    *,
    fmt: str | None = None,
    model_column: str | None = None,
    item_column: str | None = None,
    score_column: str | None = None,
    task_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
    exclude_columns: Collection[str | None] = (),
    progress: Progress | None = None,
) -> tuple[dict[str, str | None], list[str], Iterator[pd.DataFrame]] | None:
    """Read a CSV/TSV/Parquet long table as :func:`read_long_table` does, but batch by batch.

    Returns ``(columns, notes, batches)`` -- the chosen columns and the detection notes, as
    :func:`read_long_table` reports them, and an iterator of DataFrames of the interchange
    layout (ids as categoricals, scores as read), about a million rows each, with only the
    chosen columns read (projection pushed into the Parquet/CSV reader). Memory stays at one
    batch whatever the file's size. Returns None where only the whole-file reader can take
    the file (JSON Lines, a header with duplicate or blank names).
    """
    path, fmt, compression = _check_file(path, fmt)
    if fmt == "jsonl":
        return None
    try:
        names = _column_names(path, fmt, compression)
    except InputError:
        raise
    except Exception as exc:
        raise _read_error(path, fmt, exc) from None
    if names is None:
        return None
    given = {
        "model": model_column,
        "item_id": item_column,
        "score": score_column,
        "task": task_column,
        "run": run_column,
        "cluster": cluster_column,
    }
    chosen, notes = _choose_columns(
        path, names, given, lambda: _head(path, fmt, compression), exclude_columns
    )

    def batches() -> Iterator[pd.DataFrame]:
        roles = [r for r in ROLES if chosen.get(r)]
        columns = list(dict.fromkeys(chosen[r] for r in roles))
        rows = 0
        try:
            for batch in _batches(path, fmt, compression, columns, progress):
                out = {}
                for role in roles:
                    values = batch.column(chosen[role])
                    if role == "score":
                        out[role] = _score_values(values)
                        continue
                    encoded = _dictionary(values)
                    labels = encoded.dictionary.to_pylist()
                    codes = encoded.indices.fill_null(-1).to_numpy().astype(np.int32)
                    if role == "cluster":
                        blank = np.array([not label.strip() for label in labels] + [True])
                        where = np.flatnonzero(blank[codes])
                        if where.size:
                            raise InputError(
                                escape(
                                    f"{path}: row {rows + int(where[0]) + 1} has an empty "
                                    f"cluster label in column {chosen['cluster']!r}; "
                                )
                                + "give every item a label, or leave out {cluster_column}",
                                param="cluster_column",
                            )
                    out[role] = pd.Categorical.from_codes(codes, labels)
                if "task" not in out:
                    out["task"] = pd.Categorical.from_codes(
                        np.zeros(batch.num_rows, dtype=np.int8), ["all"]
                    )
                rows += batch.num_rows
                yield pd.DataFrame(out, copy=False)
        except InputError:
            raise
        except Exception as exc:
            raise _read_error(path, fmt, exc) from None
        if rows == 0:
            raise InputError(f"{path}: the table has a header but no rows")

    return chosen, notes, batches()


def long_from_frame(
    raw: pd.DataFrame,
    *,
    model_column: str | None = None,
    item_column: str | None = None,
    score_column: str | None = None,
    task_column: str | None = None,
    run_column: str | None = None,
    cluster_column: str | None = None,
    source: str = "the DataFrame",
    config_columns: Sequence[str] = (),
) -> LongScores:
    """Map a long DataFrame already in memory onto the interchange layout.

    The columns are chosen as for a file (:func:`read_long_table`): the named ones, else
    the detected ones (reported in ``notes``); a missing column raises ``InputError``
    naming it and listing the columns found.
    """
    if not isinstance(raw, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame of scores, got {type(raw).__name__}")
    if raw.shape[0] == 0:
        raise InputError(f"{source}: the table has no rows")
    given = {
        "model": model_column,
        "item_id": item_column,
        "score": score_column,
        "task": task_column,
        "run": run_column,
        "cluster": cluster_column,
    }
    found = [str(c) for c in raw.columns]
    raw = raw.set_axis(found, axis=1)
    config_columns = config.names(config_columns)
    config.refuse_missing(found, config_columns, source)
    chosen, notes = _choose_columns(
        source, found, given, lambda: raw, config_columns, config_columns
    )
    _refuse_config_roles(chosen, config_columns, source)
    frame = _interchange(raw, chosen, config_columns, source)
    return LongScores(frame, source, _with_configuration(chosen, config_columns), tuple(notes))


def _interchange(
    raw: pd.DataFrame, chosen: dict, config_columns: Sequence[str] = (), where: object = ""
) -> pd.DataFrame:
    """The long interchange frame (model, task, item_id, score[, run][, cluster]
    [, configuration]) of ``raw``."""
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
    if config_columns:
        frame[config.COLUMN] = config.labels(raw, config_columns, where)
    return frame.reset_index(drop=True)


def _choose_columns(
    path: object,
    found: list[str],
    given: dict[str, str | None],
    sample: Callable[[], pd.DataFrame],
    exclude: Collection[str | None] = (),
    config_columns: Collection[str] = (),
) -> tuple[dict[str, str | None], list[str]]:
    """Return (role -> column or None, notes): the given columns, else the detected ones.

    ``sample()`` returns rows of the table, read only to recognise a wide table when no
    model or score column is found. A required column not found because it is one of
    ``config_columns`` (excluded from detection) is refused saying so.
    """
    notes = []
    chosen: dict = {}
    if given.get("task") == NO_TASK and NO_TASK not in found:
        given = {**given, "task": None}
        chosen["task"] = None
        notes.append("task column: none (every row is of one task)")
    for role, column in given.items():
        if role in chosen:
            continue
        if column is not None and column not in found:
            raise InputError(
                f"{path}: no column {column!r} (given for the {role.replace('_', ' ')}); "
                f"columns found: {column_listing(found)}"
            )
    # A column named for one role is never detected as another (a cluster column called
    # "dataset" is not also the task column), whatever the order of the roles.
    for role, column in given.items():
        if role in chosen:
            continue
        if column is not None:
            chosen[role] = column
        else:
            taken = {c for c in (*given.values(), *chosen.values(), *exclude) if c}
            chosen[role] = _detect(role, found, taken)
            if chosen[role] is not None:
                notes.append(f"{role.replace('_', ' ')} column: {chosen[role]!r} (detected)")
    flags = {"model": "model_column=", "item_id": "item_column=", "score": "score_column="}
    if chosen["score"] is None and chosen["model"] is not None and given.get("score") is None:
        chosen["score"] = _score_by_values(path, sample(), chosen, notes)
    missing = [role for role in flags if chosen[role] is None]
    if chosen["model"] is None:
        _refuse_wide(path, sample(), chosen)
    for role in missing:
        keyword = flags[role].rstrip("=")
        named = {c for c in (*given.values(), *chosen.values()) if c}
        would = _detect(role, found, named)
        if would is not None and would in config_columns:
            raise InputError(
                "{config_columns}"
                + escape(
                    f" names {would!r}, which {path} would read as the "
                    f"{role.replace('_', ' ')} column; a configuration is what a score was "
                    "run under (a seed, a provider): name other columns, or name the "
                    f"{role.replace('_', ' ')} column with "
                )
                + fields(keyword),
                param="config_columns",
            )
        raise InputError(
            escape(f"{path}: cannot find the {role.replace('_', ' ')} column; name it with ")
            + fields(keyword)
            + escape(f" (columns found: {column_listing(found)})"),
            param=keyword,
        )
    return chosen, notes


def _detect(role: str, found: Collection[str], taken: Collection[str]) -> str | None:
    """Return the first candidate name of ``role`` among ``found`` not in ``taken``, or None."""
    return next((c for c in CANDIDATES.get(role, ()) if c in found and c not in taken), None)


def _score_by_values(
    path: object, raw: pd.DataFrame, chosen: dict[str, str | None], notes: list[str]
) -> str | None:
    """A long table with a model column but no column named as a score: the one numeric
    column whose values lie in [0, 1] (said in ``notes``, with the others); several such
    columns are refused, listed, with the flag that names one; None when there is none."""
    ids = {chosen.get(r) for r in ("model", "item_id", "task", "cluster", "run")}
    numeric = [c for c in raw.columns if c not in ids and _numeric_column(raw[c])]
    inside = [
        c for c in numeric
        if pd.to_numeric(raw[c], errors="coerce").dropna().between(0, 1).all()
    ]  # fmt: skip
    if len(inside) > 1:
        raise InputError(
            escape(
                f"{path}: {len(inside)} numeric columns could be the score "
                f"({', '.join(map(repr, inside))}), none named as one; name it with "
            )
            + "{score_column}",
            param="score_column",
        )
    if not inside:
        return None
    others = [c for c in numeric if c not in inside]
    verb = "lies" if len(others) == 1 else "lie"
    beside = f"; {', '.join(map(repr, others))} {verb} outside [0, 1]" if others else ""
    notes.append(
        f"score column: {inside[0]!r} (detected: the numeric column with values in [0, 1]"
        f"{beside}; name another with --score-column)"
    )
    return str(inside[0])


def _refuse_wide(path: object, raw: pd.DataFrame, chosen: dict[str, str | None]) -> None:
    """Say to pass --layout wide when a long read finds no model/score column but many numbers."""
    if chosen.get("model") is not None and chosen.get("score") is not None:
        return
    ids = {chosen.get(r) for r in ("item_id", "task", "cluster", "run")}
    numeric = [c for c in raw.columns if c not in ids and _numeric_column(raw[c])]
    if len(numeric) >= 2:
        raise InputError(
            escape(
                f"{path}: no model or score column, but {len(numeric)} numeric columns "
                f"({', '.join(map(str, numeric[:4]))}{', ...' if len(numeric) > 4 else ''}): "
            )
            + "this looks like a wide table with one column per model; pass {layout=wide}",
            param="layout",
        )


def _head(path: Path, fmt: str, compression: str | None, rows: int = 1000) -> pd.DataFrame:
    """Return the first rows of a CSV/TSV/Parquet table (to recognise its layout)."""
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            batch = next(pq.ParquetFile(path).iter_batches(batch_size=rows), None)
            return batch.to_pandas() if batch is not None else pd.DataFrame()
        with _open(path, compression) as handle:
            return pd.read_csv(
                handle, sep="\t" if fmt == "tsv" else ",", nrows=rows, encoding="utf-8"
            )
    except Exception:  # the full read reports a damaged file; this is only a hint
        return pd.DataFrame()


# Cell texts a score column treats as empty (pandas' default missing-value markers).
EMPTY_TEXT = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip
ROLES = ("model", "task", "item_id", "score", "run", "cluster")
# task_column=NO_TASK: the table has no task column (nothing is detected as one)
NO_TASK = "none"
BATCH_BYTES = 8 * 2**20
BATCH_ROWS = 2**20


def _column_names(path: Path, fmt: str, compression: str | None) -> list[str] | None:
    """Return the header's column names, or None when the batch reader cannot take them."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        names = list(pq.ParquetFile(path).schema_arrow.names)
    else:
        names = _csv_header(path, fmt, compression)
    # pandas renames duplicate or blank headers; leave such files to it.
    if not names or len(set(names)) != len(names) or any(not n.strip() for n in names):
        return None
    return names


def header(path: PathArg) -> list[str]:
    """Return a table file's column names (JSON Lines: its first record's keys).

    Raises InputError naming the file when it cannot be read.
    """
    import json

    path, fmt, compression = _check_file(path, None)
    try:
        if fmt == "jsonl":
            with _open(path, compression) as handle:
                line = next((raw for _, raw in read_lines(handle, path) if raw.strip()), b"{}")
            record = json.loads(line)
            return list(record) if isinstance(record, dict) else []
        return _column_names(path, fmt, compression) or list(_head(path, fmt, compression, 1))
    except InputError:
        raise
    except Exception as exc:  # pandas, pyarrow, gzip and json raise many types
        raise _read_error(path, fmt, exc) from None


def is_score_table(
    path: PathArg, *, model_column: str | None = None, score_column: str | None = None
) -> bool:
    """Whether a table file has a model and a score column (named, or detected by name)."""
    found = header(path)
    return all(
        (given in found) if given else _detect(role, found, set()) is not None
        for role, given in (("model", model_column), ("score", score_column))
    )


def _csv_header(path: Path, fmt: str, compression: str | None) -> list[str]:
    import csv

    with _open(path, compression) as raw:
        handle = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
        return next(csv.reader(handle, delimiter="\t" if fmt == "tsv" else ","), [])


def _read_columns(
    path: Path,
    fmt: str,
    compression: str | None,
    chosen: dict[str, str | None],
    progress: Progress | None,
    config_columns: Sequence[str] = (),
) -> LongCodes | pd.DataFrame:
    """Read the chosen columns in batches: ids as integer codes, scores as numbers, handed to
    the alignment as :class:`~evalgap._scores.LongCodes` (no frame is built unless asked
    for); with configuration columns (read as ids too, then one ``configuration`` label per
    row), the interchange frame with ids as categoricals."""
    roles = [r for r in ROLES if chosen.get(r)]
    columns = list(dict.fromkeys([*(chosen[r] for r in roles), *config_columns]))
    ids = {r: _Codes() for r in roles if r != "score"}
    settings = {c: _Codes() for c in config_columns}
    scores: list[np.ndarray] = []
    rows = 0
    for batch in _batches(path, fmt, compression, columns, progress):
        for role in roles:
            values = batch.column(chosen[role])
            if role == "score":
                scores.append(_score_values(values))
            else:
                ids[role].add(_dictionary(values), rows)
        for column, codes in settings.items():
            codes.add(_dictionary(batch.column(column)), rows)
        rows += batch.num_rows
    if rows == 0:
        raise InputError(f"{path}: the table has a header but no rows")
    if "cluster" in ids:
        ids["cluster"].refuse_blank(path, chosen["cluster"])
    score = _concat_scores(scores)
    scores.clear()
    coded = LongCodes({role: codes.arrays() for role, codes in ids.items()}, score)
    if not settings:
        return coded
    frame = coded.to_frame()
    values = pd.DataFrame({c: codes.categorical() for c, codes in settings.items()})
    frame[config.COLUMN] = config.labels(values, config_columns, path)
    return frame


# A CSV/TSV up to this size (uncompressed) is read with the standard library: importing pandas
# and pyarrow takes longer than reading it. `compare --scores` took 0.46x the batch reader's
# CPU time at 0.05 MiB, 0.90x at 1.95 MiB and 1.15x at 4 MiB (`benchmarks/bench_cli.py
# --readers`).
SMALL_TABLE_BYTES = 2 * 2**20


def _small_table_codes(
    path: Path, fmt: str, compression: str | None, chosen: dict[str, str | None]
) -> LongCodes | None:
    """A small CSV/TSV's chosen columns as integer codes and float scores, or None to read the
    file with the batch reader.

    Only what the batch reader would read the same way is taken here: None for a table larger
    than :data:`SMALL_TABLE_BYTES`, a run column, text that is not UTF-8, a row of another
    width than the header, an empty id or cluster label, or a score not spelled as a plain
    number (empty, ``yes``, ``inf``...). Those files are read by :func:`_read_columns`, whose
    rules (and one-line errors) then apply, so each rule lives there once.
    """
    if fmt not in ("csv", "tsv") or chosen.get("run"):
        return None
    if compression is None and path.stat().st_size > SMALL_TABLE_BYTES:
        return None
    try:
        with _open(path, compression) as handle:
            data = handle.read(SMALL_TABLE_BYTES + 1)
        text = data.decode("utf-8-sig")
    except Exception:  # a damaged or non-UTF-8 file: the batch reader names the fault
        return None
    if len(data) > SMALL_TABLE_BYTES:
        return None
    import csv

    rows = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if fmt == "tsv" else ",")
    try:
        header = next(rows, [])
        table = [row for row in rows if row]  # Arrow skips empty lines too
    except csv.Error:
        return None
    if not table or any(len(row) != len(header) for row in table):
        return None
    columns = {role: header.index(name) for role, name in chosen.items() if name}
    scores = [row[columns["score"]] for row in table]
    if not all(map(PLAIN_NUMBER.fullmatch, scores)):
        return None
    ids = {}
    for role, k in columns.items():
        if role == "score":
            continue
        labels: dict[str, int] = {}
        codes = [labels.setdefault(row[k], len(labels)) for row in table]
        if any(not label.strip() for label in labels):
            return None
        ids[role] = (np.array(codes, dtype=np.int32), np.array(list(labels), dtype=object))
    return LongCodes(ids, np.array(scores, dtype=np.float64))


class _Codes:
    """An id column gathered batch by batch as integer codes into one list of labels."""

    def __init__(self) -> None:
        self.labels: dict[str, int] = {}
        self.parts: list[np.ndarray] = []
        self.first_blank: int | None = None
        self.blank_rows = 0

    def add(self, encoded: Any, offset: int) -> None:
        """Append a batch's dictionary array (labels in this batch's own order)."""
        local = encoded.dictionary.to_pylist()
        to_global = np.array(
            [self.labels.setdefault(label, len(self.labels)) for label in local] + [-1],
            dtype=np.int32,
        )
        indices = encoded.indices.fill_null(len(local)).to_numpy()
        blank_local = np.array([not label.strip() for label in local] + [True])
        # rows are looked at one by one only when a label is blank or a cell empty
        if blank_local[:-1].any() or encoded.indices.null_count:
            blank = blank_local[indices]
            if self.first_blank is None:
                self.first_blank = offset + int(np.flatnonzero(blank)[0])
            self.blank_rows += int(blank.sum())
        self.parts.append(to_global[indices])

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(int32 codes in order of first appearance, -1 where empty; the labels)."""
        codes = np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int32)
        self.parts = []
        return codes, np.array(list(self.labels), dtype=object)

    def categorical(self) -> pd.Categorical:
        return categorical(*self.arrays())

    def refuse_blank(self, path: object, column: object) -> None:
        """Refuse an empty cluster label, naming the file and the first such row."""
        if self.first_blank is not None:
            raise InputError(
                escape(
                    f"{path}: row {self.first_blank + 1} has an empty cluster label in column "
                    f"{column!r} ({self.blank_rows:,} such rows); "
                )
                + "give every item a label, or leave out {cluster_column}",
                param="cluster_column",
            )


def _batches(
    path: Path,
    fmt: str,
    compression: str | None,
    columns: list[Any],
    progress: Progress | None,
) -> Iterator[Any]:
    """Yield record batches of ``columns``, calling ``progress(done_bytes, total_bytes)``."""
    total = path.stat().st_size
    if fmt == "parquet":
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
        n_rows, done = max(parquet.metadata.num_rows, 1), 0
        for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns):
            batch.validate(full=True)  # arrow decodes text lazily: check the UTF-8 now
            done += batch.num_rows
            if progress is not None:
                progress(min(total, round(total * done / n_rows)), total)
            yield batch
        return
    import pyarrow as pa
    import pyarrow.csv as pacsv

    with open(path, "rb") as raw, _open(path, compression, raw) as source:
        reader = pacsv.open_csv(
            source,
            read_options=pacsv.ReadOptions(block_size=BATCH_BYTES),
            parse_options=pacsv.ParseOptions(
                delimiter="\t" if fmt == "tsv" else ",", newlines_in_values=True
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=columns,
                column_types={c: pa.string() for c in columns},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        for batch in reader:
            if progress is not None:
                progress(min(raw.tell(), total), total)
            yield batch
    if progress is not None:
        progress(total, total)


def _dictionary(values: Any) -> Any:
    """Return an id column as dictionary-encoded text (nulls stay missing)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = values.type
    if pa.types.is_dictionary(kind):
        values = values.dictionary_decode()
        kind = values.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind):
        text = pc.cast(values, pa.string())  # integers print as pandas prints them: "12"
    else:  # floats ("1.0"), booleans, dates...: as pandas turns them into text
        series = values.to_pandas()
        text = pa.array(series.astype(str).where(series.notna(), None), type=pa.string())
    return pc.dictionary_encode(text)


def _score_values(values: Any) -> np.ndarray:
    """Return a score column as float64 (NaN when empty), or as objects when not all numbers.

    Text that is not a number (``yes``, ``True``) is kept as text for the alignment to
    convert or count as unusable, the same as when the whole file is read by pandas.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = values.type
    if pa.types.is_dictionary(kind):
        values = values.dictionary_decode()
        kind = values.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return values.cast(pa.float64()).to_numpy(zero_copy_only=False)
    if pa.types.is_boolean(kind) and values.null_count == 0:
        return values.to_numpy(zero_copy_only=False).astype(bool)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        try:  # a column of numbers alone (the usual one) needs no trimming or matching: the
            # text that casts is a number, and the empty texts that cast ("nan") are NaN both ways
            return pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        empty = pc.is_in(pc.utf8_trim_whitespace(values), value_set=pa.array(EMPTY_TEXT))
        values = pc.if_else(empty, pa.scalar(None, kind), values)
        try:
            return pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    return np.asarray(values.to_pandas(), dtype=object)


def _concat_scores(parts: list[np.ndarray]) -> np.ndarray:
    if all(p.dtype == np.float64 for p in parts) or all(p.dtype == bool for p in parts):
        return np.concatenate(parts)
    return np.concatenate([p.astype(object) for p in parts])


def _is_gzip(path: Path) -> bool:
    return is_gzip(path)


def _open(path: Path, compression: str | None, raw: Any = None) -> ContextManager[IO[bytes]]:
    """The table's bytes, gunzipped within the bound of io/_limits.py (a gzip bomb stops
    with an error naming the file); ``raw``: the file already open."""
    return open_maybe_gzip(path, gzipped=compression == "gzip", raw=raw)


# A JSON Lines row longer than this is a damaged file (or not a score table), never a row.
MAX_LINE_BYTES = _limits.MAX_LINE_BYTES
# Rows parsed into Python objects before they are packed into a typed frame chunk.
JSONL_CHUNK_ROWS = 100_000


def _read_jsonl(
    path: Path,
    compression: str | None,
    *,
    max_line_bytes: int | None = None,
    progress: Progress | None = None,
    keep: Collection[str] | None = None,
) -> pd.DataFrame:
    """Read JSON Lines one line at a time from the (possibly gzipped) file object.

    Memory stays bounded by the longest line and the parsed values: the file is never read
    whole. A line longer than ``max_line_bytes`` is an error naming it. With ``keep`` (a set
    of field names), other fields are dropped as each line is parsed; every field name seen
    is listed in ``frame.attrs["fields"]``.
    """
    fields: dict[str, None] = {}
    limit = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    total = path.stat().st_size
    chunks: list[pd.DataFrame] = []
    columns: dict[str, list] = {}
    rows = 0
    with open(path, "rb") as raw, _open(path, compression, raw) as handle:
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
            if keep is not None:
                fields.update(dict.fromkeys(record))
                record = {k: v for k, v in record.items() if k in keep}
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
                chunks.append(_records_frame(columns, rows))
                columns, rows = {}, 0
                if progress is not None:
                    progress(raw.tell(), total)
    if rows:
        chunks.append(_records_frame(columns, rows))
    if progress is not None:
        progress(total, total)
    if not chunks:
        raise InputError(f"{path}: cannot be read as JSON Lines records (no object found)")
    frame = chunks[0] if len(chunks) == 1 else pd.concat(chunks, ignore_index=True, sort=False)
    if keep is not None:
        frame.attrs["fields"] = [str(f) for f in fields]
    return frame


def _records_frame(columns: dict[str, list], rows: int) -> pd.DataFrame:
    """Pack parsed JSON values column by column (numbers become typed arrays).

    Integers beside a null stay Python integers (object dtype): pandas would make them
    floats, and ids above 2^53 would then collapse into each other.
    """
    return pd.DataFrame(
        {key: _json_column(values) for key, values in columns.items()}, index=pd.RangeIndex(rows)
    )


def _json_column(values: list) -> pd.Series:
    has_null = any(v is None for v in values)
    if has_null and any(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pd.Series(values, dtype=object)
    return pd.Series(values)


def read_wide_table(
    path: PathArg,
    *,
    fmt: str | None = None,
    models_in: str = "columns",
    item_column: str | None = None,
    task_column: str | None = None,
    model_column: str | None = None,
    cluster_column: str | None = None,
    model_columns: Sequence[str] | None = None,
    exclude_columns: Collection[str | None] = (),
) -> LongScores:
    """Read a wide score table: one column per model (or, ``models_in="rows"``, per item).

    ``models_in="columns"``: one row per item, an item column (and optionally task and
    cluster columns), and one score column per model: ``model_columns`` names them, else
    every other column whose non-empty values are all numbers is taken as a model (and said
    so); an empty cell is an item that model did not score.
    ``models_in="rows"``: one row per model, a model column, and one column per item.
    A column named for one role (or in ``exclude_columns``) is never detected as another.
    """
    path = Path(path)
    raw = read_frame(path, fmt)
    if raw.shape[0] == 0:
        raise InputError(f"{path}: the table has a header but no rows")
    raw.columns = [str(c) for c in raw.columns]
    found = column_listing(raw.columns)
    notes = []
    named = {c for c in (item_column, task_column, model_column, cluster_column) if c}
    named |= set(model_columns or ()) | {c for c in exclude_columns if c}
    if models_in == "rows":
        model_col = model_column or _detect("model", raw.columns, named) or raw.columns[0]
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
        raise InputError(
            "{models_in} must be 'columns' or 'rows'; got {got!r}", param="models_in", got=models_in
        )
    item_col, task_col, models = _wide_columns(
        list(raw.columns),
        lambda c: _numeric_column(raw[c]),
        path,
        item_column,
        task_column,
        cluster_column,
        model_columns,
        named,
        notes,
    )
    id_columns = [c for c in (item_col, task_col, cluster_column) if c]
    columns = {"item_id": item_col, "task": task_col}
    if _numeric_models(raw, models):
        frame = _scatter_numeric(raw, models, item_col, task_col, cluster_column)
        return LongScores(frame, str(path), columns, tuple(notes))
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
    return LongScores(frame, str(path), columns, tuple(notes))


def _wide_columns(
    header: Sequence[str],
    numeric: Callable[[str], bool],
    path: Path,
    item_column: str | None,
    task_column: str | None,
    cluster_column: str | None,
    model_columns: Sequence[str] | None,
    named: set[str],
    notes: list[str],
) -> tuple[str, str | None, list[str]]:
    """Return a wide table's item column, task column (None) and model columns, named or
    detected (what was detected appended to ``notes``); a column named for one role (or
    as a model, in ``named``) is never detected as another. ``header`` is the table's
    column names; ``numeric(name)`` says whether a column holds scores (as
    :func:`_numeric_column` does)."""
    found = column_listing(header)
    item_col = item_column or _detect("item_id", header, named)
    if item_col is None or item_col not in header:
        raise InputError(
            escape(f"{path}: cannot find the item id column; name it with ")
            + "{item_column}"
            + escape(f" (columns found: {found})"),
            param="item_column",
        )
    if task_column == NO_TASK and NO_TASK not in header:
        task_col = None
    else:
        task_col = task_column or _detect("task", header, named | {item_col})
    id_columns = [c for c in (item_col, task_col, cluster_column) if c]
    for c in id_columns:
        if c not in header:
            raise InputError(f"{path}: no column {c!r}; columns found: {found}")
    if model_columns:
        missing = [m for m in model_columns if m not in header]
        if missing:
            raise InputError(f"{path}: no model column {missing[0]!r}; columns found: {found}")
        models = list(model_columns)
    else:
        models = [c for c in header if c not in id_columns and numeric(c)]
        skipped = [c for c in header if c not in id_columns and c not in models]
        notes.append(
            f"model columns: {', '.join(models)} (every numeric column; empty cells are "
            "items not scored)" + (f"; not scores: {', '.join(skipped)}" if skipped else "")
        )
    if not models:
        raise InputError(
            escape(f"{path}: no numeric model column; ")
            + "name them with {model_columns}"
            + escape(f" (columns found: {found})"),
            param="model_columns",
        )
    return item_col, task_col, models


def _numeric_models(raw: pd.DataFrame, models: Sequence[str]) -> bool:
    """Whether every model column holds numbers (not booleans) and no model is repeated:
    the scores are then read as numbers, without text."""
    numeric = all(
        ptypes.is_numeric_dtype(raw[m]) and not ptypes.is_bool_dtype(raw[m]) for m in models
    )
    return numeric and len(set(models)) == len(models)


def wide_score_set(
    path: PathArg,
    options: LoadOptions,
    *,
    models: Sequence[str] | None = None,
    complete_case: bool = False,
) -> ScoreSet | None:
    """A wide table of numeric model columns read straight into its (items, models) matrix
    and aligned there: the ScoreSet and alignment report that :func:`read_wide_table` then
    :func:`evalgap._scores.align` give, without the long layout between (20 million cells
    never become 20 million rows). The columns are chosen, and the file refused, as
    :func:`read_wide_table` does; the board is :func:`evalgap._scores.align`'s dense path on
    the matrix (see :func:`_align_matrix`).

    None where the long path decides: a task or cluster column, an item file, models in
    rows, text or repeated model columns, a blank or repeated item id, a model without a
    score, or nothing left to compare. ``options`` is the
    :class:`evalgap.io.options.LoadOptions` the file is read with; ``models`` and
    ``complete_case`` are :func:`evalgap._scores.align`'s.
    """
    if (
        options.layout != "wide"
        or options.models_in != "columns"
        or options.items
        or options.cluster_column
        or options.config_columns
        or (options.task_column and options.task_column != NO_TASK)
        or (models is not None and len(set(models)) != len(models))
    ):
        return None
    path = Path(path)
    fmt = options.fmt if options.fmt in FORMATS else None
    table = _arrow_table(path, fmt)
    if table is not None:
        try:
            return _wide_board(path, _ArrowColumns(table), options, models, complete_case)
        except _NotArrow:  # a column Arrow alone cannot judge as pandas does
            pass
    raw = _PandasColumns(read_frame(path, fmt))
    return _wide_board(path, raw, options, models, complete_case)


class _NotArrow(Exception):
    """A column whose Arrow type pandas reads in its own way (text, booleans, decimals...)."""


class _PandasColumns:
    """A wide table read by pandas: its columns' names, kinds and values."""

    def __init__(self, raw: pd.DataFrame) -> None:
        raw.columns = [str(c) for c in raw.columns]
        self.raw, self.header, self.n_rows = raw, list(raw.columns), raw.shape[0]

    def numeric(self, name: str) -> bool:
        return _numeric_column(self.raw[name])

    def plain_numbers(self, models: Sequence[str]) -> bool:
        return _numeric_models(self.raw, models)

    def ids(self, name: str) -> np.ndarray:
        return np.asarray(self.raw[name].astype(str), dtype=object)

    def matrix(self, models: Sequence[str]) -> np.ndarray:
        return _model_matrix(self.raw, models)

    def whole(self, models: Sequence[str]) -> bool:
        return False  # pandas may hold an empty cell of an integer column as NaN: check all


class _ArrowColumns:
    """A wide Parquet table as Arrow read it, judged and converted without a DataFrame: an
    integer or floating-point column holds numbers as pandas reads them; any other type
    raises :class:`_NotArrow` (pandas then reads the file)."""

    def __init__(self, table: Any) -> None:
        self.table, self.header, self.n_rows = table, list(table.column_names), table.num_rows

    def _number_type(self, name: str) -> bool:
        import pyarrow as pa

        kind = self.table.schema.field(name).type
        if pa.types.is_integer(kind):
            return True
        if kind in (pa.float32(), pa.float64()):
            return True
        raise _NotArrow(name)

    def numeric(self, name: str) -> bool:
        column = self.table.column(name)
        if self._number_type(name) and column.null_count == column.length():
            return False
        values = column.to_numpy()
        return values.dtype.kind in "iu" or bool((~np.isnan(values)).any())

    def plain_numbers(self, models: Sequence[str]) -> bool:
        return all(self._number_type(m) for m in models) and len(set(models)) == len(models)

    def ids(self, name: str) -> np.ndarray:
        import pyarrow as pa
        import pyarrow.compute as pc

        column = self.table.column(name)
        kind = column.type
        if column.null_count or not (
            pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind)
        ):
            raise _NotArrow(name)  # pandas spells a missing, float or date id its own way
        if pa.types.is_integer(kind):
            column = pc.cast(column, pa.string())
        return np.asarray(column.to_numpy(zero_copy_only=False), dtype=object)

    def matrix(self, models: Sequence[str]) -> np.ndarray:
        """The model columns as one (items, models) float matrix, NaN where a cell is empty:
        each column converted by NumPy from its own type, as pandas converts it."""
        columns = (self.table.column(m).to_numpy() for m in models)
        return _stack_columns(columns, self.n_rows, len(models))

    def whole(self, models: Sequence[str]) -> bool:
        """Whether every cell of ``models`` holds an integer of at most 32 bits (none is
        empty), fewer than 2^21 rows of them: any column sum is then exact (below 2^53)."""
        import pyarrow as pa

        columns = [self.table.column(m) for m in models]
        return self.n_rows < 2**21 and all(
            pa.types.is_integer(c.type) and c.type.bit_width <= 32 and c.null_count == 0
            for c in columns
        )


def _arrow_table(path: Path, fmt: str | None) -> Any:
    """A Parquet file's table as Arrow reads it (no DataFrame), or None: another format, a
    stored pandas index or repeated column names (pandas reads those its own way), or a file
    Arrow cannot read (:func:`read_frame` then says why)."""
    path, fmt, _ = _check_file(path, fmt)
    if fmt != "parquet":
        return None
    try:
        import pyarrow.parquet as pq

        table = pq.ParquetFile(path).read()  # not read_table: its dataset layer costs more
        table.validate(full=True)
    except Exception:
        return None
    stored_index = any(
        isinstance(c, str) for c in (table.schema.pandas_metadata or {}).get("index_columns", [])
    )
    if stored_index or len(set(table.column_names)) != table.num_columns:
        return None
    return table


def _wide_board(
    path: Path,
    table: _PandasColumns | _ArrowColumns,
    options: LoadOptions,
    models: Sequence[str] | None,
    complete_case: bool,
) -> ScoreSet | None:
    """:func:`wide_score_set` on a table read by pandas or Arrow."""
    if table.n_rows == 0:
        raise InputError(f"{path}: the table has a header but no rows")
    notes: list[str] = []
    model_columns = list(options.model_columns) or None
    named = {c for c in (options.item_column, options.task_column, options.model_column) if c}
    named |= set(model_columns or ())
    item_col, task_col, names = _wide_columns(
        table.header, table.numeric, path, options.item_column, options.task_column, None,
        model_columns, named, notes,
    )  # fmt: skip
    if task_col is not None or not table.plain_numbers(names):
        return None
    ids = table.ids(item_col)
    if np.unique(ids).size != ids.size or any(not i.strip() for i in ids):
        return None
    x = table.matrix(names)
    whole = table.whole(names)
    return _align_matrix(x, ids, names, str(path), notes, models, complete_case, whole)


def _align_matrix(
    x: np.ndarray,
    ids: np.ndarray,
    names: list[str],
    source: str,
    notes: list[str],
    models: Sequence[str] | None,
    complete_case: bool,
    whole: bool = False,
) -> ScoreSet | None:
    """The board of a wide table's matrix ``x`` (items in the file's order, one column per
    model of ``names``), by :func:`evalgap._scores.align`'s rules for the long frame the
    table would give: a model's rows are its non-empty cells; an infinite score is unusable
    (counted, left out); a score beyond +/-1e150 is refused; the items are those any model
    of the file scored, numbered model after model as the long layout lists them, then
    sorted as every task's items are (``_task_members``). None where a model has no score
    or nothing is kept (the long path then decides, and says why).

    ``whole``: every cell is known to hold an integer whose column sums are exact (integer
    columns of at most 32 bits without an empty cell, fewer than 2^21 rows), so no cell is
    checked: every item is kept, in the file's order before sorting, each score is one run
    (``run_counts`` a read-only view of ones, no (N, K) array), and each model's mean is its
    column's sum over the items."""
    from evalgap._scores import (
        AlignmentReport,
        ScoreSet,
        TaskScores,
        _dense_model_alignments,
        _refuse_missing,
        _task_members,
    )
    from evalgap.stats._validate import MAX_SCORE, score_too_large

    where = f"{source}: "
    index = list(range(len(names)))
    if models is not None:
        _refuse_missing("model", models, list[object](names), where)
        index = [names.index(m) for m in models]
    if whole:
        universe = np.arange(x.shape[0])
        if models is not None:
            x = x[:, index]
    else:
        number = ~np.isnan(x)
        if not number.any(axis=0).all():
            return None  # a model without a score has no row in the long layout
        # two passes without temporaries where every score is finite and within the bound
        within = bool(np.fmax.reduce(x, axis=None) <= MAX_SCORE)
        within = within and bool(np.fmin.reduce(x, axis=None) >= -MAX_SCORE)
        usable = number if within else number & np.isfinite(x)
        if not within:
            huge = usable & (np.abs(np.where(usable, x, 0.0)) > MAX_SCORE)
            huge[:, np.setdiff1d(np.arange(len(names)), index)] = False  # the selected are read
            if huge.any():  # the first in the long layout's order: model after model
                raise score_too_large(float(x.T[huge.T][0]))
        any_score = number.any(axis=1)
        scored = np.flatnonzero(any_score)
        first_model = np.argmax(number if any_score.all() else number[scored], axis=1)
        if models is not None:
            x, number, usable = x[:, index], number[:, index], usable[:, index]
        universe = scored[np.lexsort((scored, first_model))]
    _, members_of = _task_members(
        ["all"], np.array(["all"], dtype=object), np.zeros(universe.size, dtype=np.int64),
        np.arange(universe.size), ids[universe],
    )  # fmt: skip
    members, item_ids = members_of["all"]
    rows: Any = universe[members]
    if rows.size == x.shape[0] and (rows == np.arange(rows.size)).all():
        rows = slice(None)  # the file's order is the board's: no copy to reorder
    model_order = list(models) if models is not None else names
    if whole:
        matrix = x[rows]
        present: BoolArray = np.broadcast_to(np.True_, matrix.shape)
        complete = keep = np.ones(matrix.shape[0], dtype=bool)
        runs = np.broadcast_to(np.int64(1), matrix.shape)
        cells = [matrix.shape[0]] * len(model_order) + [0] * len(model_order)
    else:
        matrix = x[rows] if within else np.where(usable[rows], x[rows], np.nan)
        present = cast(BoolArray, ~np.isnan(matrix))
        complete = cast(BoolArray, present.all(axis=1))
        keep = cast(BoolArray, complete if complete_case else present.any(axis=1))
        if not keep.any():
            return None
        runs = present[keep].astype(np.int64)
        cells = [*number.sum(axis=0).tolist(), *(number & ~usable).sum(axis=0).tolist()]
    cells += [0] * len(model_order)  # a numeric cell is never blank text
    task = TaskScores(
        task="all",
        item_ids=item_ids[keep],
        scores=matrix[keep] if not keep.all() else matrix,
        run_counts=runs,
        clusters=None,
    )
    report = AlignmentReport(
        tuple(_dense_model_alignments("all", model_order, matrix, present, keep, cells, whole)),
        {"all": int(members.size)},
        {"all": int(keep.sum())},
        0,
        items_common={"all": int(complete.sum())},
        complete_case=complete_case,
        loader_notes=tuple(notes),
    )
    return ScoreSet(tuple(str(m) for m in model_order), (task,), report, source)


def _model_matrix(raw: pd.DataFrame, models: Sequence[str]) -> np.ndarray:
    """The model columns as one (items, models) float matrix, NaN where a cell is empty
    (each column converted as :func:`_scatter_numeric` converts it)."""
    columns = (raw[m].to_numpy(dtype=float, na_value=np.nan) for m in models)
    return _stack_columns(columns, len(raw), len(models))


def _stack_columns(columns: Iterable[np.ndarray], n_rows: int, n_columns: int) -> np.ndarray:
    """The columns (each converted to float64) side by side as one C-ordered (rows,
    columns) matrix, filled a block of columns at a time: one column written down a row-major
    matrix touches a cache line per cell; a block's rows are written whole."""
    out = np.empty((n_rows, n_columns))
    block = np.empty((min(n_columns, 64), n_rows))
    start = 0
    for j, values in enumerate(columns):
        block[j - start] = values
        if j - start + 1 == block.shape[0] or j + 1 == n_columns:
            out[:, start : j + 1] = block[: j + 1 - start].T
            start = j + 1
    return out


def _scatter_numeric(
    raw: Any, models: Sequence[str], item_col: str, task_col: str | None, cluster_col: str | None
) -> pd.DataFrame:
    """The long frame of a wide table whose model columns are all numeric, without melting.

    Model, task, item and cluster are categoricals (integer codes, one per row) and the
    scores one float array, model after model: the rows, their order and the values of
    ``melt`` (an empty cell is an item the model did not score and has no row), at a few
    bytes per cell instead of a string per cell.
    """
    n_rows, n_models = len(raw), len(models)
    scores = np.concatenate([raw[m].to_numpy(dtype=float, na_value=np.nan) for m in models])
    keep = ~np.isnan(scores)

    def repeated(values: Any) -> pd.Categorical:
        codes, uniques = pd.factorize(values.astype(str), sort=False)
        return pd.Categorical.from_codes(np.tile(codes, n_models)[keep], uniques)

    frame = pd.DataFrame(
        {
            "model": pd.Categorical.from_codes(
                np.repeat(np.arange(n_models), n_rows)[keep], [str(m) for m in models]
            ),
            "task": repeated(raw[task_col])
            if task_col
            else pd.Categorical.from_codes(np.zeros(int(keep.sum()), np.int8), ["all"]),
            "item_id": repeated(raw[item_col]),
            "score": scores[keep],
        }
    )
    if cluster_col:
        frame["cluster"] = repeated(raw[cluster_col])
    return frame


def column_listing(columns: Iterable[object], limit: int = 12, width: int = 40) -> str:
    """Return the column names for a one-line message: line breaks shown as ``\\n``, each
    name cut at ``width`` characters, at most ``limit`` names (a header with a stray quote
    can hold the whole file in one "column")."""
    names = []
    for column in list(columns)[:limit]:
        text = str(column).replace("\r", "\\r").replace("\n", "\\n")
        names.append(text if len(text) <= width else text[: width - 1] + "\u2026")
    more = len(list(columns)) - limit
    return ", ".join(names) + (f", ... ({more} more)" if more > 0 else "")


def _numeric_column(column: pd.Series) -> bool:
    """True when every non-empty cell is a number and at least one cell is not empty."""
    if ptypes.is_numeric_dtype(column) and not ptypes.is_bool_dtype(column):
        return bool(column.notna().any())  # no text to parse: a numeric column is numbers
    empty = column.isna() | (column.astype(str).str.strip() == "")
    if empty.all():
        return False
    return bool(pd.to_numeric(column[~empty], errors="coerce").notna().all())


def _id_form_hint(listed: pd.Series, scored: pd.Series) -> str:
    """Say so when the two id columns differ only in how numbers are written ('1', '1.0')."""
    forms: dict[float, object] = {}
    for x in pd.unique(scored.dropna())[:100_000]:
        number = number_form(x)
        if number is not None:
            forms.setdefault(number, str(x))
    for x in pd.unique(listed.dropna())[:100_000]:
        number = number_form(x)
        if number is not None and number in forms and forms[number] != str(x):
            return (
                f"; the ids differ only in how numbers are written ({str(x)!r} in the item "
                f"file, {forms[number]!r} in the scores): write them alike"
            )
    return ""


def _join_by_codes(frame: pd.DataFrame, listed: pd.DataFrame) -> tuple[pd.DataFrame, BoolArray]:
    """Left-join the item file on item ids held as categories; return (frame, unlisted rows).

    The same rows, order and labels as a merge, decided once per distinct item id rather
    than hashed row by row.
    """
    items = frame["item_id"].cat
    where = pd.Index(listed["item_id"]).get_indexer(items.categories)
    codes = items.codes.to_numpy()
    row = np.where(codes >= 0, where[np.maximum(codes, 0)], -1)
    unlisted = row < 0
    if "cluster" in listed.columns:
        label_codes, labels = pd.factorize(listed["cluster"])
        cluster = np.where(unlisted, -1, label_codes[np.maximum(row, 0)])
        frame = frame.assign(
            cluster=pd.Categorical.from_codes(cluster, pd.Index(labels).astype(str))
        )
    return frame, unlisted


def apply_item_file(
    scores: LongScores,
    items: PathArg,
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
    path = Path(items)
    raw = read_frame(path, fmt, as_text=True)  # ids as written, like the scores' ids
    raw.columns = [str(c) for c in raw.columns]
    found = column_listing(raw.columns)
    if cluster_column is not None and cluster_column not in raw.columns:
        raise InputError(
            escape(f"{path}: no column {cluster_column!r} (given as ")
            + "{cluster_column}"
            + escape(f"); columns found: {found}"),
            param="cluster_column",
        )
    named = {c for c in (item_column, cluster_column) if c}
    item_col = item_column or _detect("item_id", raw.columns, named)
    if item_col is None or item_col not in raw.columns:
        raise InputError(
            escape(f"{path}: cannot find the item id column; name it with ")
            + "{item_column}"
            + escape(f" (columns found: {found})"),
            param="item_column",
        )
    task_col = _detect("task", raw.columns, named | {item_col})
    keys = ["item_id"] + (["task"] if task_col else [])
    # evalgap's own CSVs escape formula-like cells (io/_write.py): read them back unescaped
    listed = pd.DataFrame({"item_id": raw[item_col].astype(str).map(unescape_cell)})
    if task_col:
        listed["task"] = raw[task_col].astype(str).map(unescape_cell)
    if cluster_column is not None:
        labels = raw[cluster_column]
        blank = (labels.isna() | (labels.astype(str).str.strip() == "")).to_numpy()
        if blank.any():
            row = int(np.flatnonzero(blank)[0])
            raise InputError(
                escape(
                    f"{path}: row {row + 1} (item {listed['item_id'].iloc[row]!r}) has an "
                    f"empty cluster label in column {cluster_column!r} "
                    f"({int(blank.sum()):,} such rows); "
                )
                + "give every item a label, or leave out {cluster_column}",
                param="cluster_column",
            )
        listed["cluster"] = labels.astype(str)
    if listed.duplicated(subset=keys).any():
        dup = listed[listed.duplicated(subset=keys)].iloc[0]
        raise InputError(
            f"{path}: item {dup['item_id']!r} appears more than once; an item file "
            "has one row per item"
        )
    frame = scores.frame
    if cluster_column is not None:
        frame = frame.drop(columns=["cluster"], errors="ignore")
    if not task_col and isinstance(frame["item_id"].dtype, pd.CategoricalDtype):
        frame, unlisted = _join_by_codes(frame, listed)
    else:
        frame = frame.merge(listed, on=keys, how="left", indicator=True)
        unlisted = (frame["_merge"] == "left_only").to_numpy()
        frame = frame.drop(columns="_merge")
    notes = list(scores.notes)
    left_out = frame.loc[unlisted, ["task", "item_id"]].drop_duplicates().shape[0]
    if left_out:
        notes.append(f"{left_out:,} items not listed in {path.name} were left out")
    frame = frame.loc[~unlisted].reset_index(drop=True)
    if frame.empty:
        raise InputError(
            f"{path}: none of its items appear in the scores (compare the item ids "
            f"in column {item_col!r} with the scores' item ids)"
            + _id_form_hint(listed["item_id"], scores.frame["item_id"])
        )
    columns = dict(scores.columns)
    if cluster_column is not None:
        columns["cluster"] = f"{path.name}:{cluster_column}"
    return LongScores(frame, scores.source, columns, tuple(notes))


# The table source's row of the registry (evalgap.io.registry): detect, read, stream a
# path, and read a directory of tables as its files.


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is a score table, or a directory holding table files.

    A file whose name says no table format raises, listing the formats: the table is the
    source tried last, so a file it does not take is nothing evalgap reads.
    """
    if path.is_dir():
        return bool(table_files(path))
    detect_format(path)  # raises with the list of supported formats
    return True


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read one score table (``paths``: the one file) as ``options`` say: long or wide."""
    path = paths[0]
    fmt = options.fmt if options.fmt in FORMATS else None
    # With an item file, its clusters are taken from it: the table's column is left out.
    cluster_column = None if options.items else options.cluster_column
    exclude_columns = (options.cluster_column,) if options.items else ()
    if options.layout == "wide" and options.config_columns:
        raise InputError(
            escape(f"{path}: ")
            + "{config_columns} reads a long table (one row per model, item and configuration); "
            "a wide table holds one score per model and item: leave out {layout=wide}",
            param="config_columns",
        )
    if options.layout == "wide":
        return read_wide_table(
            path,
            fmt=fmt,
            models_in=options.models_in,
            item_column=options.item_column,
            task_column=options.task_column,
            model_column=options.model_column,
            cluster_column=cluster_column,
            model_columns=list(options.model_columns) or None,
            exclude_columns=exclude_columns,
        )
    if options.layout != "long":
        raise InputError(
            "{layout} must be 'long' or 'wide'; got {got!r}", param="layout", got=options.layout
        )
    return read_long_table(
        path,
        fmt=fmt,
        model_column=options.model_column,
        item_column=options.item_column,
        score_column=options.score_column,
        task_column=options.task_column,
        run_column=options.run_column,
        cluster_column=cluster_column,
        exclude_columns=exclude_columns,
        config_columns=options.config_columns,
    )


def batches(
    path: Path, options: LoadOptions
) -> tuple[dict[str, str | None], list[str], Iterator[pd.DataFrame]] | None:
    """A long table file read a batch at a time (:func:`long_table_batches`); None for a
    directory (its tables are added one by one)."""
    if path.is_dir():
        return None
    return long_table_batches(
        path,
        fmt=options.fmt if options.fmt in FORMATS else None,
        model_column=options.model_column,
        item_column=options.item_column,
        score_column=options.score_column,
        task_column=options.task_column,
        run_column=options.run_column,
        cluster_column=options.cluster_column,
    )


def table_files(path: Path) -> list[Path]:
    """The files under a directory whose names say a table (CSV/TSV/Parquet/JSONL), sorted.

    Hidden files and folders (``.ipynb_checkpoints``...) are passed over; so are ``.txt``
    files, tab-separated when given by name, but notes and READMEs in a directory.
    """
    found = []
    for p in sorted(path.rglob("*")):
        hidden = any(part.startswith(".") for part in p.relative_to(path).parts)
        if hidden or not p.is_file() or ".txt" in p.suffixes:
            continue
        try:
            detect_format(p)
        except InputError:
            continue
        found.append(p)
    return found


def table_directory(path: Path, options: LoadOptions) -> tuple[list[Path], list[str]]:
    """The score tables of a directory of tables, and a note for each table left out.

    A directory with no framework logs is read as its score tables, in file-name order (as
    if each were given): every table with a model and a score column (named by the options,
    or detected). A table without them (an item list, a model card) is left out and said, as
    is a table of another format than a forced ``fmt``. A wide table is read from its file.
    """
    if options.layout == "wide":
        raise InputError(
            escape(f"{path}: is a directory; ") + "{layout=wide} reads one table: give the file",
            param="layout",
        )
    files = table_files(path)
    if not files:
        raise InputError(f"{path}: no table files (CSV/TSV/Parquet/JSONL) in this directory")
    scores, notes = [], []
    item_file = Path(options.items).resolve() if options.items else None
    for f in files:
        if options.fmt in FORMATS and detect_format(f) != options.fmt:
            notes.append(
                f"{f}: not {options.fmt} (fmt={options.fmt!r} was given), so not read (left out)"
            )
        elif is_score_table(
            f, model_column=options.model_column, score_column=options.score_column
        ):
            scores.append(f)
        elif f.resolve() != item_file:
            notes.append(
                f"{f}: no model or score column, so not read as scores (left out); give it "
                "as the item file (--items) if it describes the items, or alone with "
                "--layout wide if it is a wide table"
            )
    if not scores:
        raise InputError(
            escape(f"{path}: none of its {len(files)} table files has a model and a score column; ")
            + "name them with {model_column} and {score_column}, or give the file",
            param="model_column",
        )
    return scores, notes
