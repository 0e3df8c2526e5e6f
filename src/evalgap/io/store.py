"""A results store: one embedded DuckDB file holding the long scores of a growing leaderboard.

Tables
------
``scores``, ``plain_scores`` (read together as the view ``all_scores``)
    The long layout, one row per (model, task, item_id[, run]): ``source_id, seq, model,
    task, item_id, run, score, cluster`` (``seq`` keeps each source's row order, so reading
    the store back gives the frame its loader gave). A long Parquet table without task, run
    and cluster columns that DuckDB inserts itself goes to ``plain_scores``, the same rows
    without those three columns (task ``all``, no run, no cluster): DuckDB writes 20 million
    rows of five columns about a second faster than of eight. Every read goes through
    ``all_scores``, a view each connection makes (:func:`_scores_view`); every delete goes
    to both tables. A store holding plain rows is version 3, so an evalgap that would not
    read them refuses it.
``sources``
    One row per added source (a file or a directory): its path, the SHA-256 of its bytes,
    the loader that read it, the loader options (JSON), the time, the rows, and what the
    loader said (its notes and column roles), so a job reading the store says it again.
``pair_stats``
    Per task and pair of models (``model_a < model_b``), the sufficient statistics of the
    paired comparison on the items both scored (runs averaged): ``n, sum_a, sum_b, sum_ab,
    sum_a2, sum_b2``. For binary scores they are the 2x2 counts (``both_correct = sum_ab``,
    ``a_only = sum_a - sum_ab``, ``b_only = sum_b - sum_ab``, ``both_wrong = n - sum_a -
    sum_b + sum_ab``); for graded scores the differences' moments (``sum_d = sum_a - sum_b``,
    ``sum_d2 = sum_a2 - 2 sum_ab + sum_b2``).

``items``, ``vectors``
    Per task, the items' numbering; per task and model, the model's per-item scores on it
    (runs averaged; int8 codes for binary scores, float64 otherwise), with its mean.

Each source is added in ONE transaction (rows, vectors, pair statistics, sources row): a
loader error, a foreign file or a kill during the add leaves the store as it was. A long table
or Open LLM Leaderboard details too large for one transaction's memory stream in: their rows
are committed batch by batch (a long Parquet table DuckDB reads alike, in one ``INSERT ...
SELECT FROM read_parquet``) under a source id no sources row lists (no reader sees them), and
the source is listed in one last transaction; a failure deletes the rows, and the next
connection deletes those a kill left. The vectors are the new rows read back numbered in Arrow
batches and scattered into a matrix (DuckDB's aggregate where an item has several rows), and
the pair sums of binary scores come from their int8 codes a block of items at a time: memory
is the (models x items) codes and one block, whatever the source's size. Reading the store
back codes its ids batch by batch (:func:`read_long`), in bounded memory per row. Adding a
source whose bytes (and options) are already stored adds nothing. Adding a model updates only
the pairs of the models the source touches: one product of their vectors with the K stored
vectors, not the K^2 pairs of the leaderboard and no item re-read. :func:`rebuild_pair_stats`
recomputes all pairs from the items, block by block of models with the items streamed
(bounded memory: K x K accumulators and one block of item columns).

``item_clusters``, ``pair_cluster_stats``
    When a task's items carry cluster labels: each item's cluster, and the same pair
    statistics per (task, cluster), kept up to date the same way (a new model's pairs, one
    product per cluster's columns) -- what the cluster ICC and design effect of every pair
    are computed from without the items.

``duckdb`` is imported lazily: the CLI starts without it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import errno
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from evalgap._lazy import LazyModule
from evalgap.errors import InputError, escape, named, param_of
from evalgap.io.reading import COLUMN_OPTIONS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from types import TracebackType

    import pandas as pd
    import pyarrow as pa
    from duckdb import DuckDBPyConnection

    from evalgap._scores import LongScores
    from evalgap.io.options import LoadOptions
    from evalgap.stats.paired import PairSums

    # a long table read batch by batch: (columns, notes, frames)
    Streamed = tuple[dict, list[str], Iterator[pd.DataFrame]]
else:
    pd = LazyModule("pandas")

SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    source_id INTEGER PRIMARY KEY, path VARCHAR, sha256 VARCHAR, loader VARCHAR,
    options VARCHAR, added_at TIMESTAMP, n_rows BIGINT, notes VARCHAR, columns VARCHAR,
    removed_models VARCHAR);
ALTER TABLE sources ADD COLUMN IF NOT EXISTS removed_models VARCHAR;
CREATE TABLE IF NOT EXISTS scores (
    source_id INTEGER, seq BIGINT, model VARCHAR, task VARCHAR, item_id VARCHAR,
    run VARCHAR, score DOUBLE, cluster VARCHAR);
CREATE TABLE IF NOT EXISTS plain_scores (
    source_id INTEGER, seq BIGINT, model VARCHAR, item_id VARCHAR, score DOUBLE);
CREATE TABLE IF NOT EXISTS items (task VARCHAR, item_id VARCHAR, ix INTEGER);
CREATE TABLE IF NOT EXISTS vectors (
    task VARCHAR, model VARCHAR, is_binary BOOLEAN, n_items INTEGER, mean DOUBLE,
    first_seen BIGINT, scores BLOB);
CREATE TABLE IF NOT EXISTS pair_stats (
    task VARCHAR, model_a VARCHAR, model_b VARCHAR, n BIGINT, sum_a DOUBLE, sum_b DOUBLE,
    sum_ab DOUBLE, sum_a2 DOUBLE, sum_b2 DOUBLE);
CREATE TABLE IF NOT EXISTS item_clusters (task VARCHAR, ix INTEGER, cluster VARCHAR);
CREATE TABLE IF NOT EXISTS pair_cluster_stats (
    task VARCHAR, model_a VARCHAR, model_b VARCHAR, n BIGINT, sum_a DOUBLE, sum_b DOUBLE,
    sum_ab DOUBLE, sum_a2 DOUBLE, sum_b2 DOUBLE, cluster VARCHAR);
"""

# Rows of one Arrow batch read back from the store.
_BATCH_ROWS = 1 << 20

PAIR_COLUMNS = ("task", "model_a", "model_b", "n", "sum_a", "sum_b", "sum_ab", "sum_a2", "sum_b2")

# Per (model, task, item): runs averaged, unusable scores left out (as alignment does).


# The store's identity: a table naming the format and its version, checked on every open, so
# that a DuckDB file of something else is never written into and a store made by a newer
# evalgap is not misread. Stores made before the table (version 1: the same tables) get it
# at their next write.
META_TABLE = "evalgap_store"
STORE_FORMAT = "evalgap-store"
STORE_VERSION = 3
# The version from which a store may hold rows in ``plain_scores``: a store gets it when its
# first such rows are written, so an evalgap that would not read them refuses the store.
_PLAIN_VERSION = 3
_STORE_TABLES = {"sources", "scores", "pair_stats"}
_REPAIR = (
    "restore it from a copy, or rebuild it: add its sources to a new store (evalgap store "
    "add NEW.duckdb FILES; store list shows them), or save what still reads with store export"
)


def connect(
    store: str | os.PathLike[str], *, read_only: bool = False, create: bool = True
) -> DuckDBPyConnection:
    """Open the store (creating its tables unless ``read_only``); raise InputError if not one."""
    import duckdb

    path = Path(store)
    if not path.exists() and (read_only or not create):
        raise InputError(f"{path}: no such store; create it with evalgap store add {path} FILE")
    if path.is_dir():
        raise InputError(f"{path}: a directory, not a store file; name a .duckdb file")
    if path.exists() and not _is_duckdb_file(path):
        # DuckDB would open another file (a CSV) as an empty database in memory: an add
        # would then report rows stored nowhere
        raise InputError(
            f"{path}: not a DuckDB file, so not an evalgap store; name the store file (a new "
            "name creates one)"
        )
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if _is_damage(exc):
            raise InputError(f"{path}: the store is damaged ({first}); {_REPAIR}") from None
        raise InputError(
            f"{path}: cannot open it as a store (a DuckDB file, not in use by another "
            f"writer): {first}"
        ) from None
    try:
        with guard(path):
            _check_identity(con, path, read_only)
            _scores_view(con)
            if not read_only:
                _delete_scores(con, _DROP_UNFINISHED)
            elif con.execute(_UNFINISHED).fetchall()[0][0]:  # an add killed mid-way
                con.close()
                connect(path).close()  # clean up once
                return connect(path, read_only=True)
    except BaseException:
        _close(con)
        raise
    return con


def _scores_view(con: DuckDBPyConnection) -> None:
    """Make ``all_scores``, this connection's view of every stored row in the long layout:
    ``scores`` and, where the store has it, ``plain_scores`` (task ``all``, no run, no
    cluster). Every read of the rows goes through it; a temporary view, so a store opened
    read-only (one made before ``plain_scores``) is read alike."""
    plain = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = 'plain_scores'"
    ).fetchall()[0][0]
    con.execute(
        "CREATE OR REPLACE TEMP VIEW all_scores AS SELECT source_id, seq, model, task, "
        "item_id, run, score, cluster FROM main.scores"
        + (
            " UNION ALL SELECT source_id, seq, model, 'all', item_id, CAST(NULL AS VARCHAR), "
            "score, CAST(NULL AS VARCHAR) FROM main.plain_scores"
            if plain
            else ""
        )
    )


def _mark_version(con: DuckDBPyConnection, version: int) -> None:
    """Record that the store is (at least) of ``version``, before writing what needs it."""
    con.execute(
        f"UPDATE {META_TABLE} SET value = ? WHERE key = 'version' AND CAST(value AS INTEGER) < ?",
        [str(version), version],
    )


def _delete_scores(con: DuckDBPyConnection, where: str, params: Sequence[object] = ()) -> None:
    """Delete the stored rows ``where`` holds, from both tables of rows (a connection that
    writes has both: :data:`SCHEMA`)."""
    for table in ("scores", "plain_scores"):
        con.execute(f"DELETE FROM {table} WHERE {where}", list(params))


def refuse_overwriting(
    store: str | os.PathLike[str], output: str | os.PathLike[str], option: str = "output"
) -> None:
    """Refuse an output file that is the store itself (writing it would replace the store)."""
    try:
        same = Path(output).resolve() == Path(store).resolve()
    except OSError:
        same = False
    if same:
        raise InputError(
            named(f"{option}=") + ": that is the store file itself; writing there would "
            "replace the store: name another file",
            param=param_of(f"{option}="),
            **{option: str(output)},
        )


def is_store_file(path: Path) -> bool:
    """Whether a non-empty file is a DuckDB database (a results store, by its magic bytes):
    a store given where score files are read (``--reference``) is read as the store."""
    return path.is_file() and path.stat().st_size > 0 and _is_duckdb_file(path)


def _is_duckdb_file(path: Path) -> bool:
    """Whether a file is a DuckDB database (its magic bytes), or empty (a new one)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(12)
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror})") from None
    return not head or head[8:12] == b"DUCK"


def _check_identity(con: DuckDBPyConnection, path: Path, read_only: bool) -> None:
    """Refuse a DuckDB file that is not an evalgap store; create or label a store to write."""
    tables = {
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main'"
        ).fetchall()
    }
    if META_TABLE in tables:
        meta = dict(con.execute(f"SELECT key, value FROM {META_TABLE}").fetchall())
        if meta.get("format") != STORE_FORMAT:
            raise InputError(
                f"{path}: a DuckDB file but not an evalgap store (its {META_TABLE} table "
                "names another format); name a new file for the store"
            )
        version = meta.get("version", "")
        if not version.isdigit() or int(version) > STORE_VERSION:
            raise InputError(
                f"{path}: an evalgap store of version {version!r}, newer than this evalgap "
                f"reads (version {STORE_VERSION}); upgrade evalgap to use it"
            )
        if not read_only:
            con.execute(SCHEMA)
        return
    legacy = _STORE_TABLES <= tables and {"source_id", "seq", "model", "score"} <= {
        r[0]
        for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'scores' "
            "AND database_name = current_database() AND schema_name = 'main'"
        ).fetchall()
    }
    if tables and not legacy:
        shown = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
        raise InputError(
            f"{path}: a DuckDB file but not an evalgap store (it holds other tables: {shown}); "
            "name a new file for the store"
        )
    if read_only:
        if not tables:
            raise InputError(
                f"{path}: a DuckDB file but not an evalgap store (no tables); add scores with "
                f"evalgap store add {path} FILE"
            )
        return
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(SCHEMA)
        con.execute(f"CREATE TABLE {META_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR)")
        con.execute(
            f"INSERT INTO {META_TABLE} VALUES ('format', ?), ('version', ?)",
            [STORE_FORMAT, str(STORE_VERSION)],
        )
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise


class guard:
    """Turn DuckDB's and the system's errors on the store into one-line InputErrors.

    A store damaged in the middle (a block whose checksum fails) opens and then fails on
    the first query reading that block; a full disk fails a write. Either way the message
    names the store and says what to do, instead of a DuckDB traceback. ``doing`` says what
    failed ("adding a.csv") and ``kept`` what is known of the store ("; the store is as it
    was").
    """

    def __init__(self, path: str | os.PathLike[str], doing: str = "", *, kept: str = "") -> None:
        self.path, self.doing, self.kept = Path(path), doing, kept

    def __enter__(self) -> guard:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        import duckdb

        if exc is None or isinstance(exc, InputError):
            return False
        if isinstance(exc, json.JSONDecodeError):  # a sources row edited by hand, or torn
            raise InputError(
                f"{self.path}: the store is damaged (a sources row is not valid JSON: {exc}); "
                f"{_REPAIR}"
            ) from None
        if isinstance(exc, OSError) and exc.errno is not None:
            full = exc.errno == errno.ENOSPC
            where = exc.filename or self.path
        elif isinstance(exc, duckdb.Error):
            full = "no space left" in str(exc).lower()
            where = self.path
        else:
            return False
        doing = f" while {self.doing}" if self.doing else ""
        kept = self.kept
        if full:
            raise InputError(
                f"{where}: no space left on the device{doing}{kept}; free some space and run "
                "the command again"
            ) from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, OSError):
            raise InputError(f"{where}: {exc.strerror or first}{doing}{kept}") from None
        if _is_damage(exc):
            raise InputError(f"{where}: the store is damaged ({first}); {_REPAIR}") from None
        raise InputError(f"{where}: the store failed{doing} ({first}){kept}") from None


@contextlib.contextmanager
def opened(
    store: str | os.PathLike[str], doing: str = "", *, read_only: bool = True, kept: str = ""
) -> Iterator[DuckDBPyConnection]:
    """The store's connection, closed at the end, with its errors as one line (:class:`guard`)."""
    con = connect(store, read_only=read_only, create=False)
    try:
        with guard(store, doing, kept=kept):
            yield con
    finally:
        _close(con)


def _is_damage(exc: BaseException) -> bool:
    """Whether a DuckDB error says the file is damaged (a checksum, a bad block, a bad header)."""
    import duckdb

    text = str(exc).lower()
    return isinstance(exc, (duckdb.SerializationException, duckdb.InternalException)) or any(
        word in text for word in ("corrupt", "checksum", "invalidated", "not a valid duckdb")
    )


def _rollback(con: DuckDBPyConnection) -> None:
    """Roll back, keeping the error that caused it (a damaged store may refuse the rollback)."""
    try:
        con.execute("ROLLBACK")
    except Exception:
        pass


def _close(con: DuckDBPyConnection) -> None:
    try:
        con.close()
    except Exception:
        pass


# Rows of a source whose add did not finish: a streamed add commits its rows batch by batch
# (bounded memory) and its sources row last, so they carry an id above every listed source.
_UNFINISHED = (
    "SELECT count(*) FROM all_scores WHERE source_id > "
    "(SELECT coalesce(max(source_id), 0) FROM sources)"
)
_DROP_UNFINISHED = "source_id > (SELECT coalesce(max(source_id), 0) FROM sources)"


def content_hash(path: Path) -> str:
    """SHA-256 of a file's bytes; of a directory, of its files' relative paths and bytes."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for f in files:
        if path.is_dir():
            digest.update(str(f.relative_to(path)).encode() + b"\0")
        with open(f, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def options_json(options: LoadOptions) -> str:
    """The loader options as sorted JSON (tuples as lists), recorded with each source."""
    import dataclasses

    return json.dumps(
        {
            f.name: getattr(options, f.name)
            for f in dataclasses.fields(options)
            if f.name != "store"
        },
        sort_keys=True,
        default=list,
    )


def add_source(
    con: DuckDBPyConnection,
    path: str | os.PathLike[str],
    options: LoadOptions,
    *,
    pair_stats: bool = True,
    long: LongScores | None = None,
) -> dict:
    """Add one source (file or directory) in one transaction; return what was done.

    Returns ``{"path", "added", "sha256", "rows", "source_id", "replaced", "notes"}``;
    ``added`` is False (and nothing is written) when a source with the same bytes and
    options is already stored whole. A path is one source per loader options: when the
    path was added before with the same options and its bytes changed since (or models were
    removed from it), the new content replaces the old in the same transaction (its ids in
    ``replaced``), so the store never holds two versions of a file. ``options.model_columns``
    and ``options.tasks`` keep only those models' and tasks' rows. ``long`` (a LongScores)
    skips reading the path (the rows are taken as given).
    """
    from evalgap.io.reading import read_paths

    if options.config_columns:  # the store's rows have no configuration to keep it in
        raise InputError(
            "a results store keeps one score per model, item and run, without the "
            "configuration it was run under, so {config_columns} cannot be honoured here; "
            "leave it out, or read the files themselves (evalgap configurations)",
            param="config_columns",
        )
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    sha = content_hash(path)
    opts = options_json(options)
    stored = con.execute(
        "SELECT source_id, path, sha256, removed_models FROM sources WHERE options = ?", [opts]
    ).fetchall()
    done = {"path": str(path), "sha256": sha, "replaced": (), "notes": ()}
    whole = [r[0] for r in stored if r[2] == sha and r[3] is None]
    if whole:
        return {**done, "added": False, "rows": 0, "source_id": whole[0]}
    same_path = os.path.normpath(str(path))
    replaced = tuple(r[0] for r in stored if os.path.normpath(r[1]) == same_path)
    _refuse_other_reading(con, path, same_path, opts)
    selection = _Selection(options, path)
    if long is None:
        streamed = _long_table_batches(path, options)
        if streamed is not None:
            source_id, rows = _add_batches(
                con, path, sha, opts, streamed, pair_stats, selection, replaced, options
            )
            return {
                **done,
                "added": rows > 0,
                "rows": rows,
                "source_id": source_id,
                "replaced": replaced if rows else (),
                "notes": selection.notes(),
            }
        long = read_paths([path], options)
    long = dataclasses.replace(long, frame=selection.keep(long.frame))
    if long.frame.empty:
        return {**done, "added": False, "rows": 0, "source_id": None, "notes": selection.notes()}
    source_id, rows = add_long(con, long, path, sha, opts, pair_stats=pair_stats, replaces=replaced)
    return {
        **done,
        "added": True,
        "rows": rows,
        "source_id": source_id,
        "replaced": replaced,
        "notes": selection.notes(),
    }


# Options that select rows rather than say how to read them: a path added with other
# selections is other rows of the same file, not another reading of it.
_SELECTION_OPTIONS = ("model_columns", "tasks")


def _refuse_other_reading(con: DuckDBPyConnection, path: Path, same_path: str, opts: str) -> None:
    """Refuse a path stored already with other reading options (its rows would be in the
    store twice, read two ways); other selections of models or tasks are fine."""
    mine = {k: v for k, v in json.loads(opts).items() if k not in _SELECTION_OPTIONS}
    for source_id, stored_path, stored_opts in con.execute(
        "SELECT source_id, path, options FROM sources ORDER BY source_id"
    ).fetchall():
        if os.path.normpath(stored_path) != same_path:
            continue
        theirs = {k: v for k, v in json.loads(stored_opts).items() if k not in _SELECTION_OPTIONS}
        if theirs != mine:
            name = next(k for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k))
            raise InputError(
                escape(f"{path}: stored already as source {source_id}, read with ")
                + named(f"{name}=")
                + escape(f" (here {mine.get(name)!r}); its rows would be stored ")
                + "twice: remove it first (store remove, {source_paths=PATH}) or add it with "
                "the same options",
                param=param_of(f"{name}="),
                **({name: theirs.get(name)} if param_of(f"{name}=") else {}),
            )


class _Selection:
    """The rows of the models and tasks ``store add`` was told to keep (all by default).

    A named model or task that a source does not hold is said in a note, as is a source
    left without rows (nothing is added from it).
    """

    def __init__(self, options: LoadOptions, path: Path) -> None:
        self.models = list(options.model_columns)
        self.tasks = list(options.tasks)
        self.path = path
        self.seen: dict[str, set[str]] = {"model": set(), "task": set()}
        self.rows = 0
        self.positions: np.ndarray | None = None

    def keep(self, frame: pd.DataFrame) -> pd.DataFrame:
        mask = np.ones(len(frame), dtype=bool)
        for column, wanted in (("model", self.models), ("task", self.tasks)):
            if wanted:
                values = frame[column] if column in frame.columns else pd.Series("all", frame.index)
                hit = values.astype(str).isin(wanted).to_numpy()
                self.seen[column].update(pd.unique(values[hit].astype(str)))
                mask &= hit
        self.rows += int(mask.sum())
        self.positions = None if mask.all() else np.flatnonzero(mask)  # rows of the frame kept
        return frame if mask.all() else frame[mask]

    def notes(self) -> tuple:
        out = []
        for column, wanted in (("model", self.models), ("task", self.tasks)):
            absent = [w for w in wanted if w not in self.seen[column]]
            if absent:
                out.append(
                    f"{self.path}: no {column} {', '.join(map(repr, absent))} in it (of the "
                    f"{column}s selected to add)"
                )
        if (self.models or self.tasks) and self.rows == 0:
            out.append(f"{self.path}: no row of the selected models and tasks; nothing added")
        return tuple(out)


def add_long(
    con: DuckDBPyConnection,
    long: LongScores,
    path: Path,
    sha: str,
    opts: str,
    *,
    pair_stats: bool = True,
    replaces: Sequence[int] = (),
) -> tuple[int, int]:
    """Insert a LongScores as one source in one transaction; return (source_id, rows).

    ``replaces``: ids of stored sources the new one replaces (deleted in the same
    transaction). With ``pair_stats=False`` (bulk loads), call :func:`rebuild_pair_stats`
    afterwards.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        source_id = con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchall()[
            0
        ][0]
        rows = _insert_rows(con, _store_frame(long.frame, path, source_id=source_id))
        old = _drop_sources(con, replaces)
        if pair_stats:
            update_pair_stats(con, source_id, also=old)
        _insert_source_row(con, source_id, path, sha, long, opts, rows)
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise
    return source_id, rows


def _insert_rows(con: DuckDBPyConnection, table: pa.Table) -> int:
    """Append an Arrow table of the store's columns to ``scores``; return its rows.

    DuckDB scans the Arrow buffers in place (ids as dictionary arrays: each label is copied
    once per batch, not once per row), so no Python object is made per row.
    """
    con.register("_new_rows", table)
    try:
        con.execute(
            "INSERT INTO scores SELECT source_id, seq, model, task, item_id, run, score, cluster "
            "FROM _new_rows"
        )
    finally:
        con.unregister("_new_rows")
    return table.num_rows


def _drop_sources(con: DuckDBPyConnection, ids: Sequence[int]) -> list:
    """Delete the rows and sources rows of ``ids``; return the (task, model)s they touched."""
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    touched = con.execute(
        f"SELECT DISTINCT task, model FROM all_scores WHERE source_id IN ({marks})", list(ids)
    ).fetchall()
    _delete_scores(con, f"source_id IN ({marks})", ids)
    con.execute(f"DELETE FROM sources WHERE source_id IN ({marks})", list(ids))
    return touched


def _long_table_batches(path: Path, options: LoadOptions) -> Streamed | None:
    """A source read batch by batch (out of core), or None for sources read whole.

    What :func:`evalgap.load_scores` reads through a source's ``batches`` function
    (:func:`evalgap.io.reading.read_batches`) streams into the store: a CSV, TSV or Parquet
    long table a batch at a time, only the chosen columns read, memory at one batch (about a
    million rows) whatever the file's size; Open LLM Leaderboard details a file at a time,
    each read with only its ids and metric. Everything else (other frameworks' logs, wide
    tables, JSON Lines, an item file to join) goes through the loaders whole.
    """
    from evalgap.io.reading import read_batches

    return read_batches(path, options)


def _add_batches(
    con: DuckDBPyConnection,
    path: Path,
    sha: str,
    opts: str,
    streamed: Streamed,
    pair_stats: bool,
    selection: _Selection,
    replaces: Sequence[int] = (),
    options: LoadOptions | None = None,
) -> tuple[int | None, int]:
    """Insert a streamed long table as one source, all or nothing; (source_id, rows).

    DuckDB holds a transaction's appended rows in memory, so one transaction around a
    hundred million rows would not be bounded. The rows are committed batch by batch under
    a new source id that no sources row lists yet -- invisible to every reader, which sees a
    store's sources only -- and the source becomes part of the store in one last
    transaction (its vectors, pair statistics and sources row, and the removal of the
    sources it ``replaces``). A failure removes the rows; a kill leaves them unlisted, and
    the next connection deletes them. ``selection`` keeps the chosen models' and tasks'
    rows; with none left nothing is listed. A long Parquet table that DuckDB reads as the
    batch reader does is inserted by DuckDB in one statement (:func:`_insert_parquet`).
    """
    from evalgap._scores import LongScores

    chosen, notes, batches = streamed
    source_id = con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchall()[0][0]
    rows = read = 0
    try:
        # the vectors are read from the file while DuckDB inserts its rows (two readers of
        # one file: the insert waits on DuckDB, the vectors on Arrow, neither holds the GIL)
        vectors = _Beside(
            _file_vectors if pair_stats and not replaces and _numbers_no_items(con) else None,
            path,
            chosen,
            source_id,
        )
        inserted = _insert_parquet(con, path, streamed, source_id, options, vectors)
        given = vectors.result()  # joined whether or not DuckDB took the file
        if inserted is None:
            given = None
        rows = inserted or 0
        for batch in batches if inserted is None else ():
            kept = selection.keep(batch)
            table = _store_frame(
                kept,
                path,
                offset=read,
                rows=selection.positions,
                source_id=source_id,
                first_seq=rows,
            )
            read += len(batch)
            if table.num_rows:
                rows += _insert_rows(con, table)
        if rows == 0:
            return None, 0
        con.execute("BEGIN TRANSACTION")
        try:
            old = _drop_sources(con, replaces)
            if pair_stats:
                update_pair_stats(con, source_id, also=old, given=given)
            described = LongScores(pd.DataFrame(), str(path), chosen, tuple(notes))
            _insert_source_row(con, source_id, path, sha, described, opts, rows)
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise
    except BaseException:
        try:  # a kill or a dead connection leaves them unlisted: the next open deletes them
            _delete_scores(con, "source_id = ?", [source_id])
        except Exception:
            pass
        raise
    return source_id, rows


# Options a long Parquet table may be read with by DuckDB itself: the columns' names.
_AS_NAMED = ("fmt", *COLUMN_OPTIONS, "cluster_column")


def _insert_parquet(
    con: DuckDBPyConnection,
    path: Path,
    streamed: Streamed,
    source_id: int,
    options: LoadOptions | None,
    beside: _Beside,
) -> int | None:
    """Insert a long Parquet table's rows read by DuckDB itself (``INSERT ... SELECT FROM
    read_parquet``, at DuckDB's own pace and memory); return the rows, or None where the
    batch reader must read it. ``beside`` (a :class:`_Beside`) is started as the insert
    starts, to run while DuckDB works.

    The rows are the ones the batch reader gives (:func:`evalgap.io.tables.long_table_batches`:
    the same chosen columns; ids as text, ``seq`` the file's row number, NaN scores NULL)
    where the two read alike: a table source with only column names among its options, ids
    of text or integers, numeric scores. Anything else -- other types, an infinite score, a
    blank cluster label, no rows, a file DuckDB refuses -- goes through the batch reader,
    which says what is wrong as it always has.

    A table without task, run and cluster columns goes to ``plain_scores`` (five columns,
    not eight: DuckDB writes three fewer columns of 20 million rows, about a second of an
    add of 1,000 x 20,000), read back through ``all_scores`` as task ``all``.
    """
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evalgap.io import reading, registry, tables

    if options is None or path.is_dir():
        return None
    for field in dataclasses.fields(options):
        if field.name not in _AS_NAMED and getattr(options, field.name) != field.default:
            return None
    if not registry.source_named(reading.source_of(path, options)).fallback:
        return None
    forced = options.fmt if options.fmt in tables.FORMATS else None
    _, fmt, compression = tables._check_file(path, forced)
    if fmt != "parquet" or compression is not None:
        return None
    chosen = streamed[0]
    try:
        schema = pq.read_schema(path)
    except Exception:
        return None

    def kind(column: str) -> pa.DataType:
        found = schema.field(column).type
        return found.value_type if pa.types.is_dictionary(found) else found

    def quoted(column: str) -> str:
        return '"' + str(column).replace('"', '""') + '"'

    def text(role: str) -> str:
        if not chosen.get(role):
            return "'all'" if role == "task" else "NULL"
        return f"CAST({quoted(chosen[role])} AS VARCHAR)"

    roles = [r for r in ("model", "task", "item_id", "run", "cluster") if chosen.get(r)]
    if any(
        not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t))
        for t in (kind(chosen[r]) for r in roles)
    ):
        return None
    score = kind(chosen["score"])
    if not (pa.types.is_integer(score) or pa.types.is_floating(score)):
        return None
    value = f"CAST({quoted(chosen['score'])} AS DOUBLE)"
    # rows with an empty model, task or item id are left out by the batch reader, which
    # says so: such a file goes to it (the distinct labels are a few thousand at most)
    ids = [r for r in ("model", "task", "item_id") if chosen.get(r)]
    try:
        n, infinite, *labels = con.execute(
            f"SELECT count(*), count(*) FILTER (WHERE isinf({value})), "
            + ", ".join(f"list(DISTINCT {text(r)}) FILTER (WHERE true)" for r in ids)
            + ", "
            + " + ".join(f"count(*) FILTER (WHERE {quoted(chosen[r])} IS NULL)" for r in ids)
            + " FROM read_parquet(?)",
            [str(path)],
        ).fetchall()[0]
        if n == 0 or infinite or labels[-1]:
            return None
        if any(not label.strip() for found in labels[:-1] for label in found if label is not None):
            return None
        if chosen.get("cluster"):
            labels = con.execute(
                f"SELECT DISTINCT {text('cluster')} FROM read_parquet(?)", [str(path)]
            ).fetchall()
            if any(label is not None and not label.strip() for (label,) in labels):
                return None
        score = f"CASE WHEN isnan({value}) THEN NULL ELSE {value} END"
        if any(chosen.get(r) for r in ("task", "run", "cluster")):
            table = "scores"
            columns = [text(r) for r in ("model", "task", "item_id", "run")]
            columns += [score, text("cluster")]
        else:
            table = "plain_scores"
            columns = [text("model"), text("item_id"), score]
            _mark_version(con, _PLAIN_VERSION)
        beside.start()
        con.execute(
            f"INSERT INTO {table} SELECT ?, file_row_number, {', '.join(columns)} "
            "FROM read_parquet(?, file_row_number = true)",
            [source_id, str(path)],
        )
    except duckdb.Error:
        _delete_scores(con, "source_id = ?", [source_id])
        return None
    return int(n)


class _Beside:
    """A call run in a thread from :meth:`start` (none when ``call`` is None), its result
    taken by :meth:`result` (None if never started; its exception raised again)."""

    def __init__(self, call: Callable[..., _Given | None] | None, *args: object) -> None:
        import threading

        self.call, self.args = call, args
        self.thread: threading.Thread | None = None
        self.outcome: tuple = (None, None)

    def start(self) -> None:
        import threading

        call = self.call
        if call is None or self.thread is not None:
            return

        def run() -> None:
            try:
                self.outcome = (call(*self.args), None)
            except BaseException as exc:  # raised again in the caller's thread
                self.outcome = (None, exc)

        self.thread = threading.Thread(target=run, daemon=True, name="evalgap-vectors")
        self.thread.start()

    def result(self) -> _Given | None:
        if self.thread is None:
            return None
        self.thread.join()
        value, exc = self.outcome
        if exc is not None:
            raise exc
        return value


def _numbers_no_items(con: DuckDBPyConnection) -> bool:
    """Whether the store numbers no item of the task ``all`` yet (a file's own numbering
    then stands, :func:`_file_vectors`)."""
    return not con.execute("SELECT count(*) FROM items WHERE task = 'all'").fetchall()[0][0]


@dataclasses.dataclass(frozen=True)
class _Given:
    """A new source's models, item numbering and vectors, read from its file; and, where
    its models are one block of :func:`_write_pairs`, their names (the models with a
    vector, in name order) and pair sums."""

    models: list
    items: object  # an Arrow table of ``items`` rows
    vectors: object  # an Arrow table of ``vectors`` rows
    pairs: tuple | None = None


def _file_vectors(path: Path, chosen: dict, source_id: int) -> _Given | None:
    """The models, item numbering and vectors of a long Parquet table (as
    :func:`_insert_parquet` inserts it), read from the file's dictionary-encoded id columns
    (an integer per row, no text hashed or joined), or None where the store must compute
    them from its rows: a task, run or cluster column, ids that are not text or have nulls,
    or a (model, item) with several rows. Only for a store that numbers no item yet
    (:func:`_numbers_no_items`); it reads the file only, so it runs beside the insert.

    The items are numbered in the order of their first row and the vectors scattered as
    :func:`_scatter_vectors` does from the stored rows, so the store is the same.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if any(chosen.get(r) for r in ("task", "run", "cluster")):
        return None
    model, item, score = chosen["model"], chosen["item_id"], chosen["score"]
    if len({model, item, score}) < 3:
        return None
    try:
        source = pq.ParquetFile(path, read_dictionary=[model, item])
    except Exception:
        return None
    for column in (model, item):
        kind = source.schema_arrow.field(column).type
        if not (
            pa.types.is_dictionary(kind)
            and (pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type))
        ):
            return None

    # Each batch's dictionary mapped to codes over the whole file, in the order labels are
    # met (a batch repeating the previous one's dictionary reuses its map).
    found = {c: pa.array([], pa.string()) for c in (model, item)}
    last: dict = {model: (None, None), item: (None, None)}

    def codes(batch: pa.RecordBatch, column: str) -> np.ndarray:
        array = batch.column(column)
        dictionary, known = last[column]
        if dictionary is None or not array.dictionary.equals(dictionary):
            labels = array.dictionary.cast(pa.string())
            new = pc.is_null(pc.index_in(labels, value_set=found[column]))
            if pc.any(new).as_py():
                added = pc.unique(labels.filter(new))
                found[column] = pa.concat_arrays([found[column], added])
            known = pc.index_in(labels, value_set=found[column]).to_numpy().astype(np.intp)
            last[column] = (array.dictionary, known)
        return known[array.indices.to_numpy()]

    # One pass: each row scattered at (model, item) in the order their labels are met,
    # the matrix growing as labels come; then its rows put in name order (as the store
    # sorts models) and its columns in the order of each item's first row (the numbering,
    # from 0: the task is new). A dictionary may hold labels no row has: those are neither
    # items nor models.
    never = np.iinfo(np.int64).max
    first, seen = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    scatter = _Scatter(0, 0)
    n_rows = 0
    lo = np.int64(source_id) << 32  # first_seen: (source, row) as one integer
    for batch in source.iter_batches(batch_size=_BATCH_ROWS, columns=[model, item, score]):
        if batch.column(model).null_count or batch.column(item).null_count:
            return None
        mc, ic = codes(batch, model), codes(batch, item)
        first = np.concatenate([first, np.full(len(found[item]) - first.size, never)])
        seen = np.concatenate([seen, np.zeros(len(found[model]) - seen.size, dtype=bool)])
        np.minimum.at(first, ic, np.arange(n_rows, n_rows + len(batch)))
        seen[mc] = True
        n_rows += len(batch)
        scatter.grow(seen.size, first.size)
        values = batch.column(score)
        if values.null_count:
            values = pc.fill_null(pc.cast(values, pa.float64(), safe=False), np.nan)
        part = values.to_numpy(zero_copy_only=False)
        f = np.arange(lo, lo + len(batch))
        lo += len(batch)
        if part.dtype.kind == "f" and np.isnan(part).any():  # NaN: not a score
            usable = ~np.isnan(part)
            mc, ic, part, f = mc[usable], ic[usable], part[usable], f[usable]
        scatter.add(mc, ic, part, f)
    order = np.flatnonzero(first < never)
    order = order[np.argsort(first[order], kind="stable")]
    items = pa.table(
        {
            "task": pa.array(["all"] * order.size, pa.string()),
            "item_id": found[item].take(pa.array(order)),
            "ix": pa.array(np.arange(order.size, dtype=np.int32)),
        }
    )
    met = found[model].to_pylist()
    rows = sorted(np.flatnonzero(seen), key=lambda m: met[m])
    names = [met[m] for m in rows]
    scatter.take(np.asarray(rows, dtype=np.intp), order)
    vectors = scatter.table("all", names)
    if vectors is None:
        return None
    # the store has no other model on the task: every pair is one of these models'
    kept, x0, mask, binary = scatter.board()
    pairs = None
    if kept.size <= _PAIR_BLOCK:
        pairs = ([names[m] for m in kept], _block_sums(x0, mask, binary, np.arange(kept.size)))
    return _Given(names, items, vectors, pairs)


def _insert_source_row(
    con: DuckDBPyConnection,
    source_id: int,
    path: Path,
    sha: str,
    long: LongScores,
    opts: str,
    rows: int,
) -> None:
    con.execute(
        "INSERT INTO sources (source_id, path, sha256, loader, options, added_at, n_rows, "
        "notes, columns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            source_id,
            str(path),
            sha,
            long.source,
            opts,
            _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None),  # datetime.UTC: 3.11+
            rows,
            json.dumps(list(long.notes)),
            json.dumps(long.columns, default=str),
        ],
    )


def _store_frame(
    frame: pd.DataFrame,
    path: str | Path = "the source",
    offset: int = 0,
    rows: np.ndarray | None = None,
    *,
    source_id: int = 0,
    first_seq: int = 0,
) -> pa.Table:
    """The long frame as an Arrow table of the store's columns (``source_id, seq, model, task,
    item_id, run, score, cluster``: text, float scores, null where absent).

    Scores are converted as the alignment converts them (``True``/``False`` text is 1/0);
    a score that is not a number (or is infinite) is refused with its row, since the store
    keeps numbers only and would otherwise lose it silently. ``rows``: the loaded table's
    row of each row of ``frame`` (when some were not selected), for that message. ``seq``
    numbers the rows from ``first_seq``. Categorical ids (what the table readers give) become
    dictionary arrays of their labels: one ``str()`` per category, none per row.
    """
    import pyarrow as pa

    from evalgap._scores import _numeric_scores

    n = len(frame)
    raw = frame["score"].reset_index(drop=True)
    if not (pd.api.types.is_numeric_dtype(raw.dtype) or raw.dtype == bool):
        raw = raw.astype(object)  # text of any dtype, as the alignment reads it
    values, bad, _ = _numeric_scores(raw)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        line = offset + (row if rows is None else int(rows[row])) + 1
        raise InputError(
            f"{path}: {int(bad.sum()):,} score(s) are not finite numbers (first: row "
            f"{line} of the loaded table, {frame['score'].iloc[row]!r}); the store "
            "keeps numeric scores: fix or drop those rows, then add the file again"
        )

    def text(name: str) -> pa.Array:
        if name not in frame.columns:
            return pa.nulls(n, pa.string())
        col = frame[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            labels = pa.array([str(c) for c in col.cat.categories], type=pa.string())
            codes = col.cat.codes.to_numpy().astype(np.int32)
            return pa.DictionaryArray.from_arrays(pa.array(codes, mask=codes < 0), labels)
        col = col.astype(object)
        texts = col.where(col.notna(), None).map(lambda v: v if v is None else str(v))
        return pa.array(texts.to_numpy(), type=pa.string())

    return pa.table(
        {
            "source_id": pa.array(np.full(n, source_id, dtype=np.int32)),
            "seq": pa.array(np.arange(first_seq, first_seq + n, dtype=np.int64)),
            "model": text("model"),
            "task": text("task"),
            "item_id": text("item_id"),
            "run": text("run"),
            # NaN (an empty score) is stored as NULL, as a pandas frame's NaN was
            "score": pa.array(values.to_numpy(dtype=float), from_pandas=True),
            "cluster": text("cluster"),
        }
    )


def update_pair_stats(
    con: DuckDBPyConnection,
    source_id: int,
    also: Iterable[tuple[str, str]] = (),
    given: _Given | None = None,
) -> None:
    """Update the store for the (task, model)s a source touches (and ``also``, those of the
    sources it replaced): vectors, then their pairs. ``given``: the source's models, items
    and vectors read from its file (:func:`_file_vectors`)."""
    if given is not None:
        touched = [("all", m) for m in given.models]
    else:
        touched = con.execute(
            "SELECT DISTINCT task, model FROM all_scores WHERE source_id = ?", [source_id]
        ).fetchall()
    _refresh(
        con,
        _keyed(set(touched) | set(also)),
        source_id=source_id,
        relabel=bool(also),
        given=given,
    )


def _keyed(touched: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (task, model)s with a task and a model, sorted: rows with an empty one stay in
    the store (read back as given, where the alignment leaves them out and says so) but
    have no vector and no pair, as the alignment gives them none."""
    return sorted((t, m) for t, m in touched if t and m and t.strip() and m.strip())


def _refresh(
    con: DuckDBPyConnection,
    touched: Iterable[tuple[str, str]],
    *,
    source_id: int | None = None,
    relabel: bool = False,
    given: _Given | None = None,
) -> None:
    """Recompute the vectors of the touched (task, model)s and their pairs with every model.

    A model's vector is its per-item score on the task's item numbering (runs averaged; int8
    with -1 where unscored for binary scores, float64 with NaN otherwise), stored as a blob:
    one new model's K pairs are then one matrix product against the K stored vectors, read
    without touching the items.
    """
    by_task: dict = {}
    for task, model in touched:
        by_task.setdefault(task, []).append(model)
    for task, models in by_task.items():
        if given is not None:  # numbered already, no cluster labels
            _insert_arrow(con, "items", given.items)
        elif source_id is not None:
            _number_new_items(con, task, source_id)
        # rows gone (a removal, a replaced source) may take or change items' clusters: the
        # labels are read again, and if they changed every pair's cluster sums follow
        relabelled = relabel and _relabel_items(con, task)
        if source_id is not None and given is None:
            _refuse_label_clash(con, task, source_id)
        _write_vectors(con, task, models, source_id=source_id, given=given)
        every = [
            r[0] for r in con.execute("SELECT model FROM vectors WHERE task = ?", [task]).fetchall()
        ]
        _write_pairs(con, task, models, cluster_models=every if relabelled else None, given=given)


def _relabel_items(con: DuckDBPyConnection, task: str) -> bool:
    """Label the task's items from the rows now stored; return whether a label changed."""
    query = "SELECT ix, cluster FROM item_clusters WHERE task = ? ORDER BY ix"
    before = con.execute(query, [task]).fetchall()
    _label_items(con, task)
    return con.execute(query, [task]).fetchall() != before


def _number_new_items(con: DuckDBPyConnection, task: str, source_id: int) -> None:
    con.execute(
        """
        INSERT INTO items
        SELECT ?, item_id,
               (SELECT coalesce(max(ix), -1) FROM items WHERE task = ?)
               + row_number() OVER (ORDER BY first)
        FROM (SELECT item_id, min(seq) AS first FROM all_scores
              WHERE source_id = ? AND task = ? AND item_id IS NOT NULL
              AND trim(item_id) <> ''
              AND item_id NOT IN (SELECT item_id FROM items WHERE task = ?)
              GROUP BY item_id)
        """,
        [task, task, source_id, task, task],
    )
    con.execute(
        """
        INSERT INTO item_clusters
        SELECT ?, i.ix, min(s.cluster) FROM all_scores s JOIN items i
          ON s.task = i.task AND s.item_id = i.item_id
        WHERE s.source_id = ? AND s.task = ? AND s.cluster IS NOT NULL
          AND i.ix NOT IN (SELECT ix FROM item_clusters WHERE task = ?)
        GROUP BY i.ix
        """,
        [task, source_id, task, task],
    )


def _refuse_label_clash(con: DuckDBPyConnection, task: str, source_id: int) -> None:
    """An item has one cluster label (the alignment refuses two): a source giving a stored
    item another label, or one item two labels, is refused rather than kept in part."""
    clash = con.execute(
        """
        SELECT s.item_id, c.cluster, s.cluster FROM all_scores s
        JOIN items i ON s.task = i.task AND s.item_id = i.item_id
        JOIN item_clusters c ON c.task = i.task AND c.ix = i.ix
        WHERE s.source_id = ? AND s.task = ? AND s.cluster IS NOT NULL
          AND s.cluster <> c.cluster
        LIMIT 1
        """,
        [source_id, task],
    ).fetchall()
    if clash:
        item, stored, given = clash[0]
        raise InputError(
            f"item {item!r}{'' if task == 'all' else f' (task {task})'} would carry the cluster "
            f"labels {stored!r} and {given!r}; each item needs one cluster label: add the file "
            "with the cluster column the store keeps (store list), or remove the other source "
            "first"
        )


def _write_vectors(
    con: DuckDBPyConnection,
    task: str,
    models: Sequence[str],
    *,
    source_id: int | None = None,
    given: _Given | None = None,
) -> None:
    """Write the vectors of the task's ``models`` (replacing theirs), from their rows.

    Most sources give each (model, item) one row: the vectors are then the rows themselves,
    scattered straight into a (models x items) matrix from Arrow batches of the numbered rows
    (:func:`_scatter_vectors`). A source with runs or repeated rows goes through DuckDB's
    aggregate, which averages the runs and refuses two scores for one run.
    """
    if given is not None:  # read from the source's file
        _insert_arrow(con, "vectors", given.vectors)
        return
    marks = ", ".join("?" * len(models))
    # Models new to the task have all their rows in the new source: read only its rows
    # (a range of the table), not the whole store.
    known = con.execute(
        f"SELECT count(*) FROM vectors WHERE task = ? AND model IN ({marks})", [task, *models]
    ).fetchall()[0][0]
    only_source = source_id is not None and known == 0
    n_ix = con.execute("SELECT count(*) FROM items WHERE task = ?", [task]).fetchall()[0][0]
    records = _scatter_vectors(con, task, models, source_id if only_source else None, n_ix)
    if records is not None:
        con.execute(f"DELETE FROM vectors WHERE task = ? AND model IN ({marks})", [task, *models])
        _insert_arrow(con, "vectors", records)
        return
    # Per item, the mean over its runs, each run's rows collapsed first (as the alignment
    # collapses identical duplicate rows); a run with two different scores is a conflict.
    rows = con.execute(
        f"""
        SELECT model, ix, avg(s) AS s, min(f) AS f, bool_or(hi > s) AS conflict FROM (
            SELECT s.model, i.ix, coalesce(s.run, '1') AS r, min(s.score) AS s,
                   max(s.score) AS hi, min(s.source_id * 4294967296 + s.seq) AS f
            FROM all_scores s JOIN items i ON s.task = i.task AND s.item_id = i.item_id
            WHERE s.task = ? AND s.model IN ({marks}) AND s.score IS NOT NULL
              AND isfinite(s.score) {"AND s.source_id = ?" if only_source else ""}
            GROUP BY s.model, i.ix, r)
        GROUP BY model, ix
        """,
        [task, *models, *([source_id] if only_source else [])],
    ).df()
    if rows["conflict"].any():
        _refuse_conflict(con, task, rows.loc[rows["conflict"].to_numpy(dtype=bool)], source_id)
    con.execute(f"DELETE FROM vectors WHERE task = ? AND model IN ({marks})", [task, *models])
    records = []
    for model, sub in rows.groupby("model", sort=False):
        values = np.full(n_ix, np.nan)
        values[sub["ix"].to_numpy()] = sub["s"].to_numpy()
        binary = bool(np.isin(sub["s"].to_numpy(), (0.0, 1.0)).all())
        blob = (
            np.where(np.isnan(values), -1, values).astype(np.int8).tobytes()
            if binary
            else values.tobytes()
        )
        records.append(
            (task, model, binary, len(sub), float(sub["s"].mean()), int(sub["f"].min()), blob)
        )
    if records:
        con.executemany("INSERT INTO vectors VALUES (?, ?, ?, ?, ?, ?, ?)", records)


def _scatter_vectors(
    con: DuckDBPyConnection, task: str, models: Iterable[str], source_id: int | None, n_ix: int
) -> pa.Table | None:
    """The vectors of ``models`` as an Arrow table of ``vectors`` rows, or None when some
    (model, item) has more than one row (runs, repeated rows: left to the aggregate).

    The rows (of ``source_id`` alone when given) are read numbered -- model and item as
    integers, joined in DuckDB -- in Arrow batches and scattered into a matrix: int8 codes
    (-1 unscored) while every score is 0 or 1, float64 (NaN unscored) from the first other
    score. Memory: the matrix (one byte a cell for binary scores) and one batch.
    """
    import pyarrow as pa

    names = sorted(set(models))
    k = len(names)
    con.register(
        "_touched",
        pa.table({"model": pa.array(names, pa.string()), "mx": np.arange(k, dtype=np.int32)}),
    )
    scatter = _Scatter(k, n_ix)
    try:
        reader = con.sql(
            "SELECT m.mx, i.ix, s.score, s.source_id * 4294967296 + s.seq AS f FROM all_scores s "
            "JOIN items i ON s.task = i.task AND s.item_id = i.item_id "
            "JOIN _touched m ON s.model = m.model "
            "WHERE s.task = ? AND s.score IS NOT NULL AND isfinite(s.score)"
            + (" AND s.source_id = ?" if source_id is not None else ""),
            params=[task, *([source_id] if source_id is not None else [])],
        ).to_arrow_reader(_BATCH_ROWS)
        for batch in _closing(reader):
            scatter.add(
                batch.column("mx").to_numpy().astype(np.intp),
                batch.column("ix").to_numpy().astype(np.intp),
                batch.column("score").to_numpy(),
                batch.column("f").to_numpy(),
            )
    finally:
        con.unregister("_touched")
    return scatter.table(task, names)


class _Scatter:
    """Scores scattered into a (models x items) matrix, a batch of (model, item, score,
    first) at a time: int8 codes (-1 unscored) while every score is 0 or 1, float64 (NaN
    unscored) from the first other score; then the ``vectors`` rows."""

    def __init__(self, k: int, n_ix: int) -> None:
        self.codes = np.full((k, n_ix), -1, dtype=np.int8)
        self.values: np.ndarray | None = None  # float64, once a score is neither 0 nor 1
        self.first = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
        self.rows = 0

    def grow(self, k: int, n_ix: int) -> None:
        """Make room for ``k`` models and ``n_ix`` items (unscored where new), doubling
        the room as it grows (each cell copied a bounded number of times): :meth:`take`
        keeps the rows and columns in use."""
        have_k, have_n = self.codes.shape
        dk = 0 if k <= have_k else max(k, 2 * have_k) - have_k
        dn = 0 if n_ix <= have_n else max(n_ix, 2 * have_n) - have_n
        if dk or dn:
            self.codes = np.pad(self.codes, ((0, dk), (0, dn)), constant_values=-1)
            if self.values is not None:
                self.values = np.pad(self.values, ((0, dk), (0, dn)), constant_values=np.nan)
            self.first = np.pad(self.first, (0, dk), constant_values=np.iinfo(np.int64).max)

    def take(self, rows: np.ndarray, columns: np.ndarray) -> None:
        """Keep the models ``rows`` and the items ``columns``, in those orders."""
        self.codes = self.codes[rows][:, columns]
        if self.values is not None:
            self.values = self.values[rows][:, columns]
        self.first = self.first[rows]

    def add(self, mx: np.ndarray, ix: np.ndarray, score: np.ndarray, first: np.ndarray) -> None:
        self.rows += len(mx)
        if self.values is None and not np.isin(score, (0.0, 1.0)).all():
            self.values = np.where(self.codes >= 0, self.codes, np.nan)
        if self.values is None:
            self.codes[mx, ix] = score.astype(np.int8)
        else:
            self.values[mx, ix] = score
        np.minimum.at(self.first, mx, first)

    def board(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
        """The models with a score (the rows :meth:`table` keeps) and their scores as
        :func:`read_vectors` gives them back (``as_codes``): (rows, codes or scores,
        mask or None, binary)."""
        if self.values is None:
            kept = np.flatnonzero((self.codes >= 0).any(axis=1))
            return kept, self.codes[kept], None, True
        observed = ~np.isnan(self.values)
        kept = np.flatnonzero(observed.any(axis=1))
        x, mask = self.values[kept], observed[kept]
        return kept, np.where(mask, x, 0.0), mask.astype(np.float64), False

    def table(self, task: str, names: list[str]) -> pa.Table | None:
        """The ``vectors`` rows of the models ``names`` (the matrix's rows), or None when a
        cell was written twice (runs to average, or repeated rows)."""
        import pyarrow as pa

        codes, values, first, k = self.codes, self.values, self.first, len(names)
        observed = codes >= 0 if values is None else ~np.isnan(values)
        n = observed.sum(axis=1)
        if int(n.sum()) != self.rows:
            return None
        binary = np.ones(k, dtype=bool)
        if values is None:
            total = (codes == 1).sum(axis=1)
            blobs = [codes[m].tobytes() for m in range(k)]
        else:
            binary &= (np.isin(values, (0.0, 1.0)) | ~observed).all(axis=1)
            total = np.where(observed, values, 0.0).sum(axis=1)
            blobs = [
                np.where(observed[m], values[m], -1).astype(np.int8).tobytes()
                if binary[m]
                else values[m].tobytes()
                for m in range(k)
            ]
        kept = np.flatnonzero(n > 0)  # a model without a usable score has no vector
        return pa.table(
            {
                "task": pa.array([task] * kept.size, pa.string()),
                "model": pa.array([names[m] for m in kept], pa.string()),
                "is_binary": pa.array(binary[kept]),
                "n_items": pa.array(n[kept].astype(np.int32)),
                "mean": pa.array(total[kept] / n[kept]),
                "first_seen": pa.array(first[kept]),
                "scores": pa.array([blobs[m] for m in kept], pa.binary()),
            }
        )


def _insert_arrow(con: DuckDBPyConnection, table_name: str, table: pa.Table) -> None:
    """Append an Arrow table whose columns are ``table_name``'s, in order."""
    con.register("_arrow_rows", table)
    try:
        con.execute(f"INSERT INTO {table_name} SELECT * FROM _arrow_rows")
    finally:
        con.unregister("_arrow_rows")


def _refuse_conflict(
    con: DuckDBPyConnection, task: str, conflicts: pd.DataFrame, source_id: int | None
) -> None:
    """Raise naming an item the store would hold with two different scores (and where)."""
    first = conflicts.iloc[0]
    found = con.execute(
        """
        SELECT s.item_id, coalesce(s.run, '1') AS r, s.score, s.source_id, src.path
        FROM all_scores s JOIN items i ON s.task = i.task AND s.item_id = i.item_id
        LEFT JOIN sources src ON src.source_id = s.source_id
        WHERE s.task = ? AND s.model = ? AND i.ix = ? ORDER BY s.source_id, s.seq
        """,
        [task, first["model"], int(first["ix"])],
    ).fetchall()
    item, run = found[0][0], found[0][1]
    scores = [r for r in found if r[1] == run]
    low = min(scores, key=lambda r: r[2])
    high = max(scores, key=lambda r: r[2])

    def where(r: tuple[Any, ...]) -> str:
        if r[3] == source_id or r[4] is None:
            return "the file being added"
        return f"{r[4]} (source {r[3]})"

    raise InputError(
        escape(
            f"item {item!r} of model {first['model']!r}"
            f"{'' if task == 'all' else f' (task {task})'}"
            f"{'' if run == '1' else f' run {run!r}'} would be stored with the scores "
            f"{low[2]:g} ({where(low)}) and {high[2]:g} ({where(high)}) "
            f"({len(conflicts):,} such items); "
        )
        + "a store holds one score per item and run: remove the other source first (store "
        "remove, by the source's id that store list shows), or name the runs with {run_column}",
        param="run_column",
    )


@overload
def read_vectors(
    con: DuckDBPyConnection,
    task: str,
    models: Sequence[str] | None = ...,
    *,
    as_codes: Literal[False] = ...,
) -> tuple[list[str], np.ndarray, np.ndarray, bool]: ...
@overload
def read_vectors(
    con: DuckDBPyConnection, task: str, models: Sequence[str] | None = ..., *, as_codes: bool
) -> tuple[list[str], np.ndarray, np.ndarray | None, bool]: ...
def read_vectors(
    con: DuckDBPyConnection,
    task: str,
    models: Sequence[str] | None = None,
    *,
    as_codes: bool = False,
) -> tuple[list[str], np.ndarray, np.ndarray | None, bool]:
    """The task's model vectors as (names, scores with 0 where unscored, observed mask, binary).

    With ``as_codes`` a binary board comes as its int8 codes (1, 0, -1 unscored) in place of
    the scores, and no mask.

    Binary boards come as float32 (exact: integer sums below 2^24), graded ones as float64.
    """
    n_ix = con.execute("SELECT count(*) FROM items WHERE task = ?", [task]).fetchall()[0][0]
    where, params = "", [task]
    if models is not None:
        where = f"AND model IN ({', '.join('?' * len(models))})"
        params += list(models)
    rows = con.execute(
        f"SELECT model, is_binary, scores FROM vectors WHERE task = ? {where} ORDER BY model",
        params,
    ).fetchall()
    binary = all(r[1] for r in rows)
    dtype = np.float32 if binary else np.float64
    if binary:  # one int8 matrix, -1 where unscored
        codes = np.full((len(rows), n_ix), -1, dtype=np.int8)
        for k, (_, _, blob) in enumerate(rows):
            v = np.frombuffer(blob, dtype=np.int8)
            codes[k, : v.size] = v
        if as_codes:
            return [r[0] for r in rows], codes, None, True
        return [r[0] for r in rows], (codes == 1).astype(dtype), (codes >= 0).astype(dtype), True
    x = np.full((len(rows), n_ix), np.nan)
    for k, (_, is_binary, blob) in enumerate(rows):
        v = np.frombuffer(blob, dtype=np.int8 if is_binary else np.float64)
        x[k, : v.size] = np.where(v < 0, np.nan, v) if is_binary else v
    mask = ~np.isnan(x)
    return [r[0] for r in rows], np.where(mask, x, 0.0), mask.astype(dtype), False


# Models whose pairs with every model are taken in one product (memory: 6 x block x K floats).
_PAIR_BLOCK = 2048


def _write_pairs(
    con: DuckDBPyConnection,
    task: str,
    models: Sequence[str],
    *,
    cluster_models: Sequence[str] | None = None,
    block_models: int = _PAIR_BLOCK,
    given: _Given | None = None,
) -> None:
    """The pairs of ``models`` with every model of the task: one product per statistic,
    ``block_models`` of them at a time (the per-cluster sums of ``cluster_models``' pairs, by
    default the same models). ``given``: a new task's models read from their file, with
    their pair sums when they were one block (:func:`_file_vectors`)."""
    _write_cluster_pairs(con, task, cluster_models or models)
    if given is not None and given.pairs is not None:  # a new task: these are all its pairs
        names, sums = given.pairs
        if len(names) >= 2:
            _insert_pairs(con, task, names, np.arange(len(names)), sums)
        return
    # binary boards come as their int8 codes; graded ones as scores and mask
    names, x0, mask, binary = read_vectors(con, task, as_codes=True)
    marks = ", ".join("?" * len(models))
    con.execute(
        f"DELETE FROM pair_stats WHERE task = ? AND (model_a IN ({marks}) OR model_b IN ({marks}))",
        [task, *models, *models],
    )
    index = {m: k for k, m in enumerate(names)}
    rows_t = np.array([index[m] for m in models if m in index], dtype=np.int64)
    if rows_t.size == 0 or len(names) < 2:
        return
    for start in range(0, rows_t.size, block_models):
        block = rows_t[start : start + block_models]
        sums = _block_sums(x0, mask, binary, block)
        _insert_pairs(con, task, names, block, sums, done=rows_t[:start])


def _block_sums(
    x0: np.ndarray, mask: np.ndarray | None, binary: bool, block: np.ndarray
) -> PairSums:
    """The pair sums of the ``block`` models with every model, from the board as
    :func:`read_vectors` gives it (``as_codes``)."""
    from evalgap.stats import paired

    if not binary:
        assert mask is not None  # graded boards come with their mask
        return paired.pair_sums(x0, mask, block, binary=False)
    if block.size <= 16:  # a few new models: count on the codes, no float copies
        return paired.pair_sums_from_codes(x0, block)
    return _code_pair_sums(x0, block)


def _code_pair_sums(codes: np.ndarray, rows: np.ndarray, block_items: int = 4096) -> PairSums:
    """:func:`evalgap.stats.paired.pair_sums` of binary scores held as int8 codes, taken a
    block of items at a time: memory is one (models x block) float32 copy, not two of the
    whole board. Each block's products are exact in float32 (counts below 2^24) and summed
    in float64, so the sums are the exact counts. When ``rows`` are every model in order,
    the column models' sums are the transpose of the row models' (one product saved); a
    block every model scored whole takes one product, symmetric for every model in order
    (:func:`evalgap.stats.paired.pair_sums_observed`)."""
    from evalgap.stats import paired

    k = codes.shape[0]
    every = rows.size == k and bool((rows == np.arange(k)).all())
    n = np.zeros((rows.size, k))
    sum_t, sum_to = np.zeros_like(n), np.zeros_like(n)
    sum_o = None if every else np.zeros_like(n)
    for lo in range(0, codes.shape[1], block_items):
        part = codes[:, lo : lo + block_items]
        x = (part == 1).astype(np.float32)
        if (part >= 0).all():  # every model scored every item of the block: one product
            sums = paired.pair_sums_observed(x, slice(None) if every else rows)
        else:
            m = (part >= 0).astype(np.float32)
            sums = paired.pair_sums(x, m, rows, binary=True, both_sides=not every)
        n += sums.n
        sum_t += sums.sum_t
        sum_to += sums.sum_to
        if sum_o is not None:
            assert sums.sum_o is not None  # both sides asked for
            sum_o += sums.sum_o
    sum_o = sum_t.T if sum_o is None else sum_o
    return paired.PairSums(n, sum_t, sum_o, sum_t, sum_o, sum_to)


def _item_clusters(con: DuckDBPyConnection, task: str, n_ix: int) -> np.ndarray | None:
    """Each item's cluster label on the task's numbering (None where unlabelled), or None."""
    rows = con.execute("SELECT ix, cluster FROM item_clusters WHERE task = ?", [task]).fetchnumpy()
    if len(rows["ix"]) == 0:
        return None
    labels = np.full(n_ix, None, dtype=object)
    labels[np.asarray(rows["ix"], dtype=np.int64)] = rows["cluster"]
    return labels


def _write_cluster_pairs(
    con: DuckDBPyConnection, task: str, models: Sequence[str], *, block_models: int = 512
) -> None:
    """The per-cluster statistics of the pairs of ``models`` with every model of the task:
    for each cluster, :func:`evalgap.stats.paired.pair_sums` on that cluster's item columns."""
    from evalgap.stats import paired

    marks = ", ".join("?" * len(models))
    con.execute(
        f"DELETE FROM pair_cluster_stats WHERE task = ? AND (model_a IN ({marks}) "
        f"OR model_b IN ({marks}))",
        [task, *models, *models],
    )
    n_ix = con.execute("SELECT count(*) FROM items WHERE task = ?", [task]).fetchall()[0][0]
    labels = _item_clusters(con, task, n_ix)
    if labels is None:  # no clusters: nothing to read
        return
    names, x0, mask, binary = read_vectors(con, task)
    if len(names) < 2:
        return
    index = {m: k for k, m in enumerate(names)}
    touched = np.array([index[m] for m in models if m in index], dtype=np.int64)
    present = labels[labels != None]  # noqa: E711  (an object array of labels and None)
    for cluster in sorted(set(present.tolist())):
        cols = labels == cluster
        xc, mc = np.ascontiguousarray(x0[:, cols]), np.ascontiguousarray(mask[:, cols])
        for start in range(0, touched.size, block_models):
            rows_t = touched[start : start + block_models]
            sums = paired.pair_sums(xc, mc, rows_t, binary=binary)
            _insert_pairs(
                con, task, names, rows_t, sums, cluster=str(cluster), done=touched[:start]
            )


def _insert_pairs(
    con: DuckDBPyConnection,
    task: str,
    names: Sequence[str],
    rows_t: np.ndarray,
    sums: PairSums,
    *,
    cluster: str | None = None,
    done: Sequence[int] | np.ndarray = (),
) -> None:
    """Insert the pairs of the ``rows_t`` models (``done``: models of earlier blocks of
    the same update, whose pairs with these are written already)."""
    import pyarrow as pa

    n, s_t, s_o, s_tt, s_oo, s_to = (
        sums.n,
        sums.sum_t,
        sums.sum_o,
        sums.sum_tt,
        sums.sum_oo,
        sums.sum_to,
    )
    assert s_o is not None and s_oo is not None  # the column models' sums: both sides given
    touched = np.zeros(len(names), dtype=bool)
    touched[rows_t] = True
    earlier = np.zeros(len(names), dtype=bool)
    earlier[np.asarray(done, dtype=np.int64)] = True
    t_idx, o_idx = np.nonzero(n > 0)
    other = o_idx
    me = rows_t[t_idx]
    # a pair of two touched models is written once (from the touched model named first)
    keep = (me != other) & (~touched[other] | (me < other)) & ~earlier[other]
    t_idx, o_idx, me, other = t_idx[keep], o_idx[keep], me[keep], other[keep]
    first = me < other  # names are sorted: the smaller index is model_a
    labels = pa.array(names, pa.string())

    # a dictionary array: each name copied once, not once per pair
    def name(index: np.ndarray) -> pa.DictionaryArray:
        return pa.DictionaryArray.from_arrays(pa.array(index.astype(np.int32)), labels)

    def constant(value: str) -> pa.DictionaryArray:
        return pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(len(me), dtype=np.int32)), pa.array([value], pa.string())
        )

    columns = {
        "task": constant(task),
        "model_a": name(np.where(first, me, other)),
        "model_b": name(np.where(first, other, me)),
        "n": n[t_idx, o_idx].astype(np.int64),
        "sum_a": np.where(first, s_t[t_idx, o_idx], s_o[t_idx, o_idx]).astype(np.float64),
        "sum_b": np.where(first, s_o[t_idx, o_idx], s_t[t_idx, o_idx]).astype(np.float64),
        "sum_ab": s_to[t_idx, o_idx].astype(np.float64),
        "sum_a2": np.where(first, s_tt[t_idx, o_idx], s_oo[t_idx, o_idx]).astype(np.float64),
        "sum_b2": np.where(first, s_oo[t_idx, o_idx], s_tt[t_idx, o_idx]).astype(np.float64),
    }
    if cluster is not None:
        columns["cluster"] = constant(cluster)
    table = "pair_stats" if cluster is None else "pair_cluster_stats"
    _insert_arrow(con, table, pa.table(columns))


def rebuild_pair_stats(
    con: DuckDBPyConnection, *, block_models: int = 512, block_items: int = 2048
) -> None:
    """Recompute every pair's statistics (and every model's vector) from scratch, from the
    items: blocks of models x streamed items.

    Per task, items are numbered and read ``block_items`` at a time (projection and filter
    pushed into DuckDB); each block adds its products into K x K accumulators (``n = M M^T``,
    ``sum_a = X M^T``, ``sum_ab = X X^T``, ``sum_a2 = X^2 M^T`` with X the scores, 0 where
    unobserved, and M the observed mask), computed ``block_models`` rows at a time. Memory:
    three or four K x K float64 accumulators and one (K x block_items) block.
    """
    for table in ("pair_stats", "pair_cluster_stats", "item_clusters", "vectors", "items"):
        con.execute(f"DELETE FROM {table}")
    for (task,) in con.execute("SELECT DISTINCT task FROM all_scores ORDER BY task").fetchall():
        for frame in _task_pair_stats(con, task, block_models, block_items):
            if len(frame):
                con.register("_pairs", frame)
                con.execute("INSERT INTO pair_stats SELECT * FROM _pairs")
                con.unregister("_pairs")
        _label_items(con, task)
        models = [
            r[0]
            for r in con.execute(
                "SELECT model FROM vectors WHERE task = ? ORDER BY model", [task]
            ).fetchall()
        ]
        _write_cluster_pairs(con, task, models, block_models=block_models)


def _label_items(con: DuckDBPyConnection, task: str) -> None:
    """Every item's cluster label of the task, from all its rows."""
    con.execute("DELETE FROM item_clusters WHERE task = ?", [task])
    con.execute(
        """
        INSERT INTO item_clusters
        SELECT ?, i.ix, min(s.cluster) FROM all_scores s JOIN items i
          ON s.task = i.task AND s.item_id = i.item_id
        WHERE s.task = ? AND s.cluster IS NOT NULL GROUP BY i.ix
        """,
        [task, task],
    )


def _task_pair_stats(
    con: DuckDBPyConnection, task: str, block_models: int, block_items: int
) -> Iterator[pd.DataFrame]:
    """Yield the task's pair statistics as frames, a block of first models at a time."""
    from evalgap.stats import paired

    models = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT model FROM all_scores WHERE task = ? ORDER BY model", [task]
        ).fetchall()
    ]
    k = len(models)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _ids AS SELECT item_id, "
        "(row_number() OVER (ORDER BY item_id)) - 1 AS ix FROM "
        "(SELECT DISTINCT item_id FROM all_scores WHERE task = ?)",
        [task],
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _mids AS SELECT model, first, "
        "(row_number() OVER (ORDER BY model)) - 1 AS mx FROM "
        "(SELECT model, min(source_id * 4294967296 + seq) AS first FROM all_scores "
        "WHERE task = ? GROUP BY model)",
        [task],
    )
    n_items = con.execute("SELECT count(*) FROM _ids").fetchall()[0][0]
    # One pass numbers the task's items and models (runs averaged); each block of items is
    # then a range scan of this table.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE _num AS
        SELECT mx, ix, avg(s) AS s FROM (
            SELECT m.mx, i.ix, coalesce(s.run, '1') AS r, min(s.score) AS s FROM all_scores s
            JOIN _ids i USING (item_id) JOIN _mids m USING (model)
            WHERE s.task = ? AND s.score IS NOT NULL AND isfinite(s.score)
            GROUP BY m.mx, i.ix, r)
        GROUP BY mx, ix ORDER BY ix
        """,
        [task],
    )
    acc_n = np.zeros((k, k))
    acc_a = np.zeros((k, k))
    acc_ab = np.zeros((k, k))
    acc_a2 = np.zeros((k, k))
    graded = False
    for lo in range(0, n_items, block_items):
        width = min(block_items, n_items - lo)
        rows = con.execute(
            "SELECT mx, ix, s FROM _num WHERE ix >= ? AND ix < ?", [lo, lo + width]
        ).fetchnumpy()
        x = np.zeros((k, width), dtype=np.float64)
        mask = np.zeros((k, width), dtype=np.float32)
        mx = np.asarray(rows["mx"], dtype=np.int64)
        ix = np.asarray(rows["ix"], dtype=np.int64) - lo
        x[mx, ix] = rows["s"]
        mask[mx, ix] = 1
        graded = graded or bool(np.any((x != 0) & (x != 1)))
        # Binary blocks multiply exactly in float32 (integer sums below 2^24 per block).
        xf = x.astype(np.float32) if not graded else x
        mf = mask if not graded else mask.astype(np.float64)
        for start in range(0, k, block_models):
            rows_slice = slice(start, min(start + block_models, k))
            # every row is computed: the other side's sums are the transposes
            sums = paired.pair_sums(xf, mf, rows_slice, binary=not graded, both_sides=False)
            acc_n[rows_slice] += sums.n
            acc_a[rows_slice] += sums.sum_t
            acc_ab[rows_slice] += sums.sum_to
            acc_a2[rows_slice] += sums.sum_tt
    _rebuild_vectors(con, task, models, n_items, block_models)
    for table in ("_ids", "_mids", "_num"):
        con.execute(f"DROP TABLE {table}")
    names = np.array(models, dtype=object)
    # Pairs are written a block of first models at a time: the K^2/2 rows of names never
    # sit in memory at once.
    for start in range(0, k, block_models):
        block_rows = np.arange(start, min(start + block_models, k))
        i, second = np.nonzero(np.arange(k)[None, :] > block_rows[:, None])
        first = block_rows[i]
        keep = acc_n[first, second] > 0
        first, second = first[keep], second[keep]
        yield pd.DataFrame(
            {
                "task": task,
                "model_a": names[first],
                "model_b": names[second],
                "n": acc_n[first, second].astype(np.int64),
                "sum_a": acc_a[first, second],
                "sum_b": acc_a[second, first],
                "sum_ab": acc_ab[first, second],
                "sum_a2": acc_a2[first, second],
                "sum_b2": acc_a2[second, first],
            }
        )


def _rebuild_vectors(
    con: DuckDBPyConnection, task: str, models: Sequence[str], n_items: int, block_models: int
) -> None:
    """Renumber the task's items and rewrite every model's vector, a block of models at a time."""
    con.execute("DELETE FROM items WHERE task = ?", [task])
    con.execute("INSERT INTO items SELECT ?, item_id, ix FROM _ids", [task])
    con.execute("DELETE FROM vectors WHERE task = ?", [task])
    first = dict(con.execute("SELECT mx, first FROM _mids").fetchall())
    for start in range(0, len(models), block_models):
        stop = min(start + block_models, len(models))
        rows = con.execute(
            "SELECT mx, ix, s FROM _num WHERE mx >= ? AND mx < ?", [start, stop]
        ).fetchnumpy()
        x = np.full((stop - start, n_items), np.nan)
        x[
            np.asarray(rows["mx"], dtype=np.int64) - start, np.asarray(rows["ix"], dtype=np.int64)
        ] = rows["s"]
        records = []
        for k in range(stop - start):
            v = x[k]
            seen = ~np.isnan(v)
            if not seen.any():
                continue
            binary = bool(np.isin(v[seen], (0.0, 1.0)).all())
            blob = np.where(seen, v, -1).astype(np.int8).tobytes() if binary else v.tobytes()
            records.append(
                (
                    task,
                    models[start + k],
                    binary,
                    int(seen.sum()),
                    float(v[seen].mean()),
                    int(first[start + k]),
                    blob,
                )
            )
        if records:
            con.executemany("INSERT INTO vectors VALUES (?, ?, ?, ?, ?, ?, ?)", records)


def pair_stats(
    con: DuckDBPyConnection,
    *,
    tasks: Sequence[str] | None = None,
    pairs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The stored pair statistics with the 2x2 counts and difference moments beside them.

    ``pairs`` (a frame of ``task, model_a, model_b`` with ``model_a < model_b``) fetches
    only those pairs.
    """
    from evalgap.stats import paired

    where, params = "", []
    if tasks:
        where = f"WHERE task IN ({', '.join('?' * len(tasks))})"
        params = list(tasks)
    if pairs is not None:
        frame = _fetch_pairs(con, "pair_stats", pairs)
    else:
        frame = con.execute(
            f"SELECT * FROM pair_stats {where} ORDER BY task, model_a, model_b", params
        ).df()
    a, b, ab = frame["sum_a"], frame["sum_b"], frame["sum_ab"]
    frame["both_correct"], frame["a_only"], frame["b_only"], frame["both_wrong"] = (
        paired.counts_from_sums(frame["n"], a, b, ab)
    )
    frame["sum_d"], frame["sum_d2"] = paired.difference_sums(
        a, b, ab, frame["sum_a2"], frame["sum_b2"]
    )
    return frame


def pair_cluster_stats(con: DuckDBPyConnection, *, pairs: pd.DataFrame) -> pd.DataFrame:
    """The stored per-cluster statistics of ``pairs`` (``task, model_a, model_b`` with
    ``model_a < model_b``); empty when the store keeps no clusters."""
    if con.execute("SELECT count(*) FROM pair_cluster_stats").fetchall()[0][0] == 0:
        return pd.DataFrame(columns=["task", "model_a", "model_b", "cluster", *PAIR_COLUMNS[3:]])
    return _fetch_pairs(con, "pair_cluster_stats", pairs, order=", cluster")


def _fetch_pairs(
    con: DuckDBPyConnection, table: str, pairs: pd.DataFrame, order: str = ""
) -> pd.DataFrame:
    """The rows of ``table`` for the ``pairs`` wanted (a join in DuckDB)."""
    con.register("_wanted", pairs[["task", "model_a", "model_b"]])
    try:
        return con.execute(
            f"SELECT p.* FROM {table} p JOIN _wanted w USING (task, model_a, model_b) "
            f"ORDER BY task, model_a, model_b{order}"
        ).df()
    finally:
        con.unregister("_wanted")


def model_means(con: DuckDBPyConnection, *, tasks: Sequence[str] | None = None) -> pd.DataFrame:
    """Per task and model: the mean over the model's own items (runs averaged), whether
    every score is 0 or 1 (``binary``), in order of appearance."""
    where, params = "", []
    if tasks:
        where = f"WHERE task IN ({', '.join('?' * len(tasks))})"
        params = list(tasks)
    return con.execute(
        f"SELECT task, model, mean, is_binary AS binary FROM vectors {where} ORDER BY first_seen",
        params,
    ).df()


# How each loader option is taken when the scores come from a store (``--store``). The store
# keeps the rows its sources' loaders gave, so an option about reading files is honoured
# only where it is what the rows were read with; these few are applied to the stored rows:
STORE_READ_OPTIONS = {
    "store": "the store read",
    "model_columns": "the models read (pushed into the query)",
    "tasks": "the tasks read (pushed into the query)",
    "items": "the item file, applied to the stored rows as to a file's",
    "cluster_column": "the stored clusters' column, or the item file's with items=",
}


def check_read_options(con: DuckDBPyConnection, path: Path, options: LoadOptions) -> None:
    """Refuse a loader option a store read cannot honour, in one line naming it.

    Every option of :class:`~evalgap.io.options.LoadOptions` left at its default is fine.
    :data:`STORE_READ_OPTIONS` are applied to the stored rows (``cluster_column`` only when
    it names the column the stored clusters came from, or the item file's); any other option
    is honoured when every source was added with that same value (the rows were read with
    it) and refused otherwise.
    """
    recorded = [
        (i, json.loads(o), json.loads(c) if c else {})
        for i, o, c in con.execute(
            "SELECT source_id, options, columns FROM sources ORDER BY source_id"
        ).fetchall()
    ]
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if value == f.default or (f.name in STORE_READ_OPTIONS and f.name != "cluster_column"):
            continue
        if f.name == "cluster_column":
            if not options.items:
                _check_stored_clusters(path, value, recorded)
            continue
        given = json.loads(json.dumps(value, default=list))
        differ = [(i, o.get(f.name)) for i, o, _ in recorded if o.get(f.name) != given]
        if differ:
            source, theirs = differ[0]
            raise InputError(
                "{" + f.name + "}: the store keeps the rows its sources' loaders gave and "
                "source {source!s} was read with {" + f.name + "!n} set to {theirs!r}; a store "
                "is read as stored: drop {" + f.name + "!n}, or add the files with it to a new "
                "store (evalgap store add)",
                param=f.name,
                source=source,
                theirs=theirs,
                **{f.name: value},
            )


def _check_stored_clusters(path: Path, column: str, recorded: list[tuple[int, dict, dict]]) -> None:
    """Refuse ``cluster_column`` unless the stored clusters are that column's."""
    roles = {c.get("cluster") for _, _, c in recorded}
    named = {r for r in roles if r and (r == column or str(r).endswith(":" + column))}
    if roles == named:
        return
    if not any(roles):
        raise InputError(
            "{cluster_column}: {path!s} keeps no cluster labels (its sources were added "
            "without clusters); give {items=FILE} with a {cluster_column!r} column, or add "
            "the files with {cluster_column} to a new store",
            param="cluster_column",
            cluster_column=column,
            path=path,
        )
    stored = ", ".join(sorted(repr(str(r)) for r in roles if r)) or "none"
    raise InputError(
        "{cluster_column}: {path!s} keeps the clusters of {stored!s}, read when its sources "
        "were added{some!s}; drop {cluster_column!n} to use them, give {items=FILE} with a "
        "{cluster_column!r} column, or add the files with {cluster_column} to a new store",
        param="cluster_column",
        cluster_column=column,
        path=path,
        stored=stored,
        some="" if all(roles) else " (some sources have none)",
    )


def load(options: LoadOptions) -> LongScores:
    """The scores of the store ``options.store`` names, read with the loader ``options``.

    What :func:`evalgap.load_scores` returns for ``store=``: every option is honoured or
    refused (:func:`check_read_options`); an item file keeps only the items it lists and
    gives their clusters, as it does for score files.
    """
    from evalgap.io import tables

    assert options.store is not None  # a store is read only when one is named
    path = Path(options.store)
    con = connect(path, read_only=True)
    try:
        with guard(path, "reading it"):
            check_read_options(con, path, options)
            long = read_long(
                con, models=list(options.model_columns) or None, tasks=list(options.tasks) or None
            )
    finally:
        _close(con)
    if options.items:
        long = tables.apply_item_file(long, options.items, cluster_column=options.cluster_column)
    return long


def refuse_unknown(con: DuckDBPyConnection, column: str, wanted: Sequence[str] | None) -> None:
    """Raise naming a wanted model or task the store does not hold, with those it holds."""
    if not wanted:
        return
    stored = [
        r[0]
        for r in con.execute(
            f"SELECT {column} FROM all_scores GROUP BY {column} ORDER BY min(source_id), min(seq)"
        ).fetchall()
    ]
    missing = [w for w in wanted if w not in set(stored)]
    if missing:
        shown = ", ".join(stored[:10]) + (", ..." if len(stored) > 10 else "")
        raise InputError(
            "{"
            + column
            + "s}"
            + escape(f": no such {column} in the store; {column}s found: {shown or 'none'}"),
            param=f"{column}s",
            **{f"{column}s": missing[0]},
        )


def read_long(
    con: DuckDBPyConnection,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
) -> LongScores:
    """The stored scores as a LongScores (rows in the order they were added).

    ``models``/``tasks`` are pushed into the query when every one named is stored (an unknown
    name is left for alignment to report, listing the names there are).
    """
    from evalgap._scores import LongScores

    clauses, params = [], []
    for column, wanted in (("model", models), ("task", tasks)):
        if wanted:
            stored = {
                r[0] for r in con.execute(f"SELECT DISTINCT {column} FROM all_scores").fetchall()
            }
            if set(wanted) <= stored:
                clauses.append(f"{column} IN ({', '.join('?' * len(wanted))})")
                params += list(wanted)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    frame = _scan_long(con, where, params)
    sources = con.execute(
        "SELECT loader, notes, columns FROM sources ORDER BY source_id"
    ).fetchall()
    if not sources:
        raise InputError("the store is empty; add scores with evalgap store add STORE FILE")
    notes = tuple(n for _, notes, _ in sources for n in json.loads(notes))
    return LongScores(
        frame,
        ", ".join(loader for loader, _, _ in sources),
        json.loads(sources[0][2]),
        notes,
    )


def _scan_long(
    con: DuckDBPyConnection, where: str, params: list, batch_rows: int = 1 << 20
) -> pd.DataFrame:
    """The scores in the order they were added, gathered batch by batch as integer codes.

    Each batch's id columns are dictionary-encoded by Arrow and their few labels found in
    (or added to) the labels met so far (:class:`_Labels`), so a 20-million-row board costs
    its codes (4 bytes a row a column), with no Python object per row or per batch label.
    Rows come in the table's insertion order, which is the order they were added; should the
    scan ever not be in (source, row) order, the rows are read again sorted.
    """
    columns = ("model", "task", "item_id", "run", "cluster")
    table = _labelled_scores(con)
    # a join's rows come in no particular order: they are read sorted at once
    # (the view's two tables come one after the other: sources added alternately to each are
    # out of order, found so at the first batch out of order, and read sorted)
    orders = (
        ("", "ORDER BY source_id, seq") if table == "all_scores" else ("ORDER BY source_id, seq",)
    )
    for ordered in orders:
        reader = con.sql(
            f"SELECT source_id, seq, model, task, item_id, run, score, cluster FROM {table} "
            f"{where} {ordered}",
            params=params,
        ).to_arrow_reader(batch_rows)
        labels = {c: _Labels() for c in columns}
        scores, last, in_order = [], -1, True
        for batch in _closing(reader):
            if batch.num_rows and not ordered:  # the sorted read is in order by construction
                # (source, row) as one increasing integer: seq < 2^32 within a source
                key = (batch.column("source_id").to_numpy().astype(np.int64) << 32) + batch.column(
                    "seq"
                ).to_numpy()
                if key[0] <= last or (np.diff(key) <= 0).any():
                    in_order = False
                    break
                last = int(key[-1])
            for c in columns:
                labels[c].add(batch.column(c))
            scores.append(batch.column("score").to_numpy(zero_copy_only=False).astype(float))
        if in_order:
            break
    out = {"score": np.concatenate(scores) if scores else np.zeros(0)}
    for c in columns:
        names, coded = labels[c].sorted()
        if c in ("model", "task", "item_id"):  # categories sorted, as astype("category") does
            small = np.int8 if len(names) < 2**7 else np.int16 if len(names) < 2**15 else np.int32
            out[c] = pd.Categorical.from_codes(coded.astype(small), names)
        elif names:  # a column no row has is left out
            values = np.array([*names, None], dtype=object)[coded]  # code -1 (missing): None
            if c == "run":  # a source without runs has one run per item
                values[pd.isna(values)] = "1"
            out[c] = pd.Series(values, dtype=object)  # as the loaders give them: objects
    order = ("model", "task", "item_id", "run", "score", "cluster")
    return pd.DataFrame({c: out[c] for c in order if c in out}, copy=False)


class _Labels:
    """An id column read batch by batch: the labels met so far (an Arrow array) and each
    row's code into them (-1 where missing)."""

    def __init__(self) -> None:
        import pyarrow as pa

        self.labels = pa.array([], pa.string())
        self.parts: list[np.ndarray] = []

    def add(self, column: pa.Array) -> None:
        """Code a batch's column: Arrow encodes it, and only its distinct labels are looked
        up in (or appended to) the labels met so far."""
        import pyarrow.compute as pc

        if column.null_count == len(column):  # no id here (runs, clusters): nothing to hash
            self.parts.append(np.full(len(column), -1, dtype=np.int32))
            return
        if (
            not column.null_count
            and column[0] == column[-1]  # cheap first: most batches of varying ids stop here
            and pc.all(pc.equal(column, column[0])).as_py()
        ):  # one label (a single task, a model's rows): compared, not hashed
            code = self._to_global(column.slice(0, 1))[0]
            self.parts.append(np.full(len(column), code, dtype=np.int32))
            return
        encoded = pc.dictionary_encode(column)
        to_global = self._to_global(encoded.dictionary)
        indices = encoded.indices.fill_null(len(to_global)).to_numpy(zero_copy_only=False)
        self.parts.append(np.append(to_global, np.int32(-1))[indices])

    def _to_global(self, local: pa.Array) -> np.ndarray:
        """The codes of distinct labels ``local`` among the labels met so far (new ones
        appended)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        found = pc.index_in(local, value_set=self.labels)
        new = pc.is_null(found)
        to_global = found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32)
        fresh = np.flatnonzero(new.to_numpy(zero_copy_only=False))
        to_global[fresh] = len(self.labels) + np.arange(fresh.size, dtype=np.int32)
        if fresh.size:
            self.labels = pa.concat_arrays([self.labels, local.filter(new).cast(pa.string())])
        return to_global

    def sorted(self) -> tuple[list, np.ndarray]:
        """The labels sorted, and every row's code into them."""
        names = self.labels.to_pylist()
        coded = np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int32)
        self.parts = []
        order = sorted(range(len(names)), key=names.__getitem__)
        if order == list(range(len(names))):  # met in order (or none met): codes as they are
            return names, coded
        rank = np.empty(len(names) + 1, dtype=np.int32)
        rank[order] = np.arange(len(names), dtype=np.int32)
        rank[-1] = -1  # a missing id stays missing
        return [names[k] for k in order], rank[coded]


def _labelled_scores(con: DuckDBPyConnection) -> str:
    """The scores table to read: as stored, or with each row's item label filled in where
    the row has none and its item has one.

    A cluster label belongs to an item (``item_clusters``, one per item: a second one is
    refused at the add), and the pair statistics use it for every model's rows; a source
    added without clusters leaves its rows unlabelled. Read back as stored, those rows would
    meet the labelled rows of the same items and lose their label to whichever row came
    first, so the read gives every row its item's label, as the statistics do.
    """
    labelled = con.execute("SELECT count(*) FROM item_clusters").fetchall()[0][0]
    if (
        not labelled
        or not con.execute("SELECT count(*) FROM all_scores WHERE cluster IS NULL").fetchall()[0][0]
    ):
        return "all_scores"
    return (
        "(SELECT s.source_id, s.seq, s.model, s.task, s.item_id, s.run, s.score, "
        "coalesce(s.cluster, c.cluster) AS cluster FROM all_scores s "
        "LEFT JOIN items i ON s.task = i.task AND s.item_id = i.item_id "
        "LEFT JOIN item_clusters c ON c.task = i.task AND c.ix = i.ix) AS scores"
    )


def _closing(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """Yield a record batch reader's batches; close it however the loop ends."""
    try:
        yield from reader
    finally:
        reader.close()


def summary(con: DuckDBPyConnection) -> dict:
    """Models, tasks, rows and sources of the store (``store list``)."""
    models = [
        r[0]
        for r in con.execute(
            "SELECT model FROM all_scores GROUP BY model ORDER BY min(source_id), min(seq)"
        ).fetchall()
    ]
    tasks = [
        r[0]
        for r in con.execute(
            "SELECT task FROM all_scores GROUP BY task ORDER BY min(source_id), min(seq)"
        ).fetchall()
    ]
    # an empty model, task or item id is no model, task or item (the alignment's rule)
    models = [m for m in models if m is not None and m.strip()]
    tasks = [t for t in tasks if t is not None and t.strip()]
    n_rows, n_items, n_runs = con.execute(
        "SELECT count(*), count(DISTINCT (task, item_id)) FILTER (WHERE item_id IS NOT NULL "
        "AND trim(item_id) <> ''), count(DISTINCT run) FROM all_scores"
    ).fetchall()[0]
    has_removed = bool(
        con.execute(
            "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'sources' "
            "AND column_name = 'removed_models' AND database_name = current_database()"
        ).fetchall()[0][0]
    )  # a store made before the column has none removed
    sources = con.execute(
        "SELECT source_id, path, sha256, loader, options, added_at, n_rows, "
        f"{'removed_models' if has_removed else 'NULL AS removed_models'} FROM sources "
        "ORDER BY source_id"
    ).df()
    records = [
        {
            "source_id": int(r.source_id),
            "path": r.path,
            "sha256": r.sha256,
            "loader": r.loader,
            "options": json.loads(r.options),
            "added_at": r.added_at.isoformat(),
            "rows": int(r.n_rows),
            "removed_models": (
                json.loads(r.removed_models) if isinstance(r.removed_models, str) else []
            ),
        }
        for r in sources.itertuples()
    ]
    return {
        "models": models,
        "tasks": tasks,
        "n_rows": int(n_rows),
        "n_items": int(n_items),
        "n_runs": int(n_runs),
        "sources": records,
    }


def remove(
    con: DuckDBPyConnection,
    *,
    models: Sequence[str] = (),
    sources: Iterable[object] = (),
    paths: Iterable[object] = (),
) -> dict:
    """Remove models (all their rows) and/or sources (by id, or by the path they were added
    from), in one transaction.

    A source id matches ids only and a path matches paths only, so a file named ``1`` is
    never taken for source 1. A source that loses a model keeps its other rows; its row
    count is updated and the model is recorded as removed from it, so adding the file again
    replaces the source whole (bringing the model back) instead of being skipped.
    """
    ids, matched = [], []
    for s in sources:
        source_id = _source_id(s)
        found = con.execute(
            "SELECT source_id, path FROM sources WHERE source_id = ?", [source_id]
        ).fetchall()
        if not found:
            raise InputError(
                "{sources}: no source with that id in the store (see store list)",
                param="sources",
                sources=s,
            )
        ids.append(source_id)
        matched.append({"source_id": source_id, "path": found[0][1], "matched": "id"})
    for p in paths:
        if not isinstance(p, (str, Path)):
            raise InputError(
                "{source_paths}: a path is a string (see store list)",
                param="source_paths",
                source_paths=p,
            )
        found = [
            r
            for r in con.execute("SELECT source_id, path FROM sources").fetchall()
            if os.path.normpath(r[1]) == os.path.normpath(str(p))
        ]
        if not found:
            raise InputError(
                "{source_paths}: no source added from that path (see store list)",
                param="source_paths",
                source_paths=str(p),
            )
        for source_id, path in found:
            ids.append(source_id)
            matched.append({"source_id": source_id, "path": path, "matched": "path"})
    ids = sorted(set(ids))
    stored = {r[0] for r in con.execute("SELECT DISTINCT model FROM all_scores").fetchall()}
    for m in models:
        if m not in stored:
            raise InputError(
                "{models}: no such model in the store (see store list)", param="models", models=m
            )
    con.execute("BEGIN TRANSACTION")
    try:
        before = con.execute("SELECT count(*) FROM all_scores").fetchall()[0][0]
        touched = _drop_sources(con, ids)
        if models:
            marks = ", ".join("?" * len(models))
            touched += con.execute(
                f"SELECT DISTINCT task, model FROM all_scores WHERE model IN ({marks})",
                list(models),
            ).fetchall()
            losing = con.execute(
                f"SELECT source_id, list(DISTINCT model ORDER BY model) FROM all_scores "
                f"WHERE model IN ({marks}) GROUP BY source_id",
                list(models),
            ).fetchall()
            _delete_scores(con, f"model IN ({marks})", models)
            for source_id, lost in losing:  # what the source holds now, and what it lost
                prior = con.execute(
                    "SELECT removed_models FROM sources WHERE source_id = ?", [source_id]
                ).fetchall()[0][0]
                removed = sorted({*json.loads(prior or "[]"), *lost})
                con.execute(
                    "UPDATE sources SET removed_models = ?, n_rows = (SELECT count(*) FROM "
                    "all_scores WHERE source_id = ?) WHERE source_id = ?",
                    [json.dumps(removed), source_id, source_id],
                )
            # a source left without rows is gone; re-adding it must add it again
            emptied = con.execute(
                "SELECT source_id, path FROM sources "
                "WHERE source_id NOT IN (SELECT DISTINCT source_id FROM all_scores)"
            ).fetchall()
            con.execute(
                "DELETE FROM sources "
                "WHERE source_id NOT IN (SELECT DISTINCT source_id FROM all_scores)"
            )
            matched += [{"source_id": i, "path": p, "matched": "emptied"} for i, p in emptied]
        rows = before - con.execute("SELECT count(*) FROM all_scores").fetchall()[0][0]
        # the touched models' vectors and pairs are recomputed (or dropped), never stale
        _refresh(con, _keyed(touched), relabel=True)
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise
    return {
        "rows_removed": int(rows),
        "sources_removed": len(matched),
        "models_removed": len(set(models)),
        "removed_sources": tuple(matched),
    }


def _source_id(value: object) -> int:
    """A source id: an integer (or a string of digits, as typed); anything else is refused."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
        raise InputError(
            "{sources}: a source id is an integer (see store list)", param="sources", sources=value
        )
    text = str(value).strip()
    if not text.isdigit():
        raise InputError(
            "{sources}: a source id is an integer (see store list); remove a source by the "
            "path it was added from with {source_paths}",
            param="sources",
            sources=value,
        )
    return int(text)


def export(con: DuckDBPyConnection, output: str | os.PathLike[str]) -> int:
    """Write the long scores to a Parquet file with DuckDB's COPY; return the rows written.

    The file is written beside ``output`` under a temporary name and renamed over it only
    once complete: a failure (a full disk) leaves no partial file and keeps a previous one.
    """
    output = Path(output)
    if output.suffix != ".parquet":
        raise InputError(
            "{output}: store export writes Parquet; name a .parquet file",
            param="output",
            output=str(output),
        )
    if output.is_dir():
        raise InputError(
            "{output}: is a directory; name a .parquet file", param="output", output=str(output)
        )
    if not output.parent.is_dir():
        raise InputError(
            "{output}: no folder {folder!r} to write in",
            param="output",
            output=str(output),
            folder=str(output.parent),
        )
    temporary = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    try:
        _copy(con, temporary)
        os.replace(temporary, output)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return int(con.execute("SELECT count(*) FROM all_scores").fetchall()[0][0])


def _copy(con: DuckDBPyConnection, target: Path) -> None:
    con.execute(
        "COPY (SELECT model, task, item_id, run, score, cluster FROM all_scores "
        "ORDER BY source_id, seq) TO ? (FORMAT PARQUET)",
        [str(target)],
    )
