"""The results store job: add, list, remove and export the scores of a growing leaderboard.

The DuckDB I/O lives in :mod:`evalgap.io.store`; this module runs the jobs and returns their
results. Every job reads a store in place of score files (``--store STORE``, or
:func:`store_read` in Python): the store gives back the long table its sources' loaders gave,
so ``audit --store`` gives exactly the numbers of ``audit --scores`` on the same files.

What is exact, and from what: the audit of a store reads its items (the audit's cluster
bootstrap, rank sets, trajectories and graded bootstraps resample items, so items are what
make every number equal to a from-scratch audit). The per-pair sufficient statistics
(:func:`store_pairs`: the 2x2 counts of binary scores, the sums and sums of squares of
graded differences, per task, and per cluster when the items carry clusters) are kept up
to date at each add, for the new models' pairs only, and equal the statistics recomputed
from scratch; they are what a pairwise table of a thousand-model board -- its verdicts, and
each pair's cluster ICC, design effect and clustered verdict -- is read from without
touching the items (:func:`store_audit_in_memory`, :func:`store_audit`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ClassVar

from evalgap._results import Result, TableResult
from evalgap.errors import InputError, escape, named, param_of
from evalgap.jobs._pages import Views
from evalgap.stats import _validate

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from duckdb import DuckDBPyConnection
    from rich.console import Console

    from evalgap._scores import LongScores
    from evalgap.engine import BoardSums
    from evalgap.io._files import PathsArg
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.audit import AuditResult

class _StoreView(Views):
    """A store command's result: its summary in the terminal (one renderer for them all)."""

    _heading: ClassVar[str] = "evalgap store"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_store

        render_store(self, console)


@dataclass(frozen=True, repr=False)
class StoreAddResult(_StoreView, Result):
    """What ``store add`` did.

    Not a table (no ``to_frame()``): lists of source paths and a row count;
    :meth:`StoreListResult.to_frame` is the table of sources.

    Attributes
    ----------
    store : str
        The store file.
    added_sources, skipped_sources : tuple of str
        Sources added; sources already stored (same bytes and options), left as they were.
    rows_added : int
        Score rows added.
    notes : tuple of str
        What was left out: the tables of a directory that hold no scores, the selected
        models or tasks a source does not hold.
    replaced_sources : tuple of str
        Sources added again whose bytes had changed (or had lost models to ``store
        remove``): the new content replaced the old rows (also listed in ``added_sources``).
    """

    store: str
    added_sources: tuple[str, ...]
    skipped_sources: tuple[str, ...]
    rows_added: int
    notes: tuple[str, ...] = ()
    replaced_sources: tuple[str, ...] = ()
    _headline = ("added_sources", "skipped_sources", "rows_added")



@dataclass(frozen=True, repr=False)
class StoreListResult(_StoreView, TableResult):
    """What a store holds.

    Attributes
    ----------
    store : str
        The store file.
    models, tasks : tuple of str
        In the order they were added.
    n_rows, n_items, n_runs : int
        Score rows; distinct (task, item) pairs; distinct run labels.
    sources : tuple of dict
        Per source: id, path, SHA-256, loader, options, time added, rows, and the models
        removed from it (``store remove --model``; adding its file again brings them back).
    """

    store: str
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    n_rows: int
    n_items: int
    n_runs: int
    sources: tuple[dict[str, Any], ...]
    _headline = ("n_rows",)
    _rows = "sources"



@dataclass(frozen=True, repr=False)
class StoreRemoveResult(_StoreView, TableResult):
    """What ``store remove`` did.

    Attributes
    ----------
    store : str
        The store file.
    rows_removed, sources_removed, models_removed : int
        What was removed.
    removed_sources : tuple of dict
        Each source removed: ``source_id``, ``path`` and what matched it (``"id"``,
        ``"path"``, or ``"emptied"``: every row of it was of a removed model).
    """

    store: str
    rows_removed: int
    sources_removed: int
    models_removed: int
    removed_sources: tuple[dict[str, Any], ...] = ()
    _headline = ("rows_removed",)
    _rows = "removed_sources"



@dataclass(frozen=True, repr=False)
class StoreExportResult(_StoreView, Result):
    """What ``store export`` wrote.

    Not a table (no ``to_frame()``): a path and a row count; the rows are in the Parquet
    file ``output``.

    Attributes
    ----------
    store, output : str
        The store file and the Parquet file written.
    rows : int
        Rows written.
    """

    store: str
    output: str
    rows: int
    _headline = ("output", "rows")


@dataclass(frozen=True, repr=False)
class ShardsExportResult(_StoreView, Result):
    """What ``store export --shard-items/--shard-models`` wrote.

    Not a table (no ``to_frame()``): a folder and counts; the manifest in ``output`` lists
    every shard.

    Attributes
    ----------
    store, output : str
        The store file and the folder written (``manifest.json`` and the Parquet shards).
    tasks : int
        Tasks written.
    shards : int
        Parquet files written (item blocks x model blocks, summed over tasks).
    """

    store: str
    output: str
    tasks: int
    shards: int
    _headline = ("output", "shards")



def store_add(
    store: str | Path,
    scores: PathsArg | None = None,
    options: LoadOptions | None = None,
    *,
    progress: Callable[..., object] | None = None,
    **columns: Any,
) -> StoreAddResult:
    """Add score sources to a store (created if absent); return what was added and skipped.

    Each path (file or directory, any source :func:`evalgap.load_scores` reads) is one
    source, added in one transaction with its pair statistics; a path whose bytes and
    options are already stored is skipped, and a path added before with the same options
    whose bytes changed replaces its old rows. ``models=``/``tasks=`` (``--models``,
    ``--task``) keep only those models' and tasks' rows. An item that would be stored with
    two different scores (the same model, task, item and run) is refused. A directory of
    tables (no framework logs) is its score tables, each one source (a long table streams
    in batches); tables without a model and a score column are left out and said in
    ``notes``. A source that cannot be read raises InputError and leaves the store as it was
    (sources added before it stay).

    Parameters
    ----------
    store : str or Path
        The store file (DuckDB).
    scores : str, Path or list of them
        Score files or directories (``store add STORE SOURCES...``); each is one source.
        (``paths=``, its earlier name, still works with a DeprecationWarning.)
    options : LoadOptions, optional
        How to read them (recorded with each source).
    progress : callable, optional
        Called as ``progress(done, total, path)`` before each source.
    **columns
        Loader options by keyword (``cluster_column="category"``, ...), as every job takes
        them; they override ``options``.

    Returns
    -------
    StoreAddResult
        ``added_sources``, ``skipped_sources`` (already stored) and ``rows_added``.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> evalgap.store_add(path, ["examples/two_models.csv"]).rows_added
    4000
    >>> evalgap.store_add(path, ["examples/two_models.csv"]).skipped_sources
    ('examples/two_models.csv',)
    """
    import dataclasses

    from evalgap.io import store as io
    from evalgap.io.options import LoadOptions
    from evalgap.jobs._inputs import _renamed

    paths = _renamed(columns, "paths", "scores", scores)  # the score files to add
    options = options or LoadOptions()
    if not isinstance(options, LoadOptions):
        raise InputError(
            "store_add({options}...): expected a LoadOptions, got "
            + escape(type(options).__name__),
            param="options",
        )
    if columns:
        known = {f.name for f in dataclasses.fields(LoadOptions)}
        unknown = sorted(set(columns) - known)
        if unknown:
            raise InputError(
                "store_add: unknown loader option "
                + named(f"{unknown[0]}=")
                + " (see evalgap.LoadOptions)",
                param=param_of(f"{unknown[0]}="),
            )
        for name, value in columns.items():  # a name alone where a list is taken: that name
            if isinstance(value, str) and isinstance(getattr(LoadOptions(), name), tuple):
                columns[name] = (value,)
        options = dataclasses.replace(options, **columns)
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, Path)) for p in paths):
        raise InputError(
            "store_add({scores}...): a path or a list of paths (str or Path); got "
            + escape(f"{paths!r:.80}"),
            param="scores",
        )
    if not paths:
        raise InputError("store add: give at least one score file or directory")
    paths, notes = _sources_of(paths, options)
    added, skipped, replaced, rows = [], [], [], 0
    created = not Path(store).exists()
    con = None
    try:
        con = io.connect(store)
        for done, path in enumerate(paths):
            if progress is not None:
                progress(done, len(paths), str(path))
            before = "; the store is as it was" + (" before it" if done else "")
            with io.guard(store, f"adding {path}", kept=before):
                outcome = io.add_source(con, path, options)
            if outcome["added"]:
                added.append(str(path))
            elif outcome["source_id"] is not None:
                skipped.append(str(path))
            if outcome["replaced"]:
                replaced.append(str(path))
            notes.extend(outcome["notes"])
            rows += outcome["rows"]
    except BaseException:
        if con is not None:
            io._close(con)
        if created and not added:  # a store this call created holds nothing: no file left
            for leftover in (Path(store), Path(f"{store}.wal")):
                leftover.unlink(missing_ok=True)
        raise
    io._close(con)
    return StoreAddResult(
        str(store), tuple(added), tuple(skipped), int(rows), tuple(notes), tuple(replaced)
    )


def _sources_of(
    paths: Iterable[str | Path], options: LoadOptions
) -> tuple[list[Path], list[str]]:
    """The sources to add: each path, a directory of tables as its score tables; and notes."""
    from evalgap.io.reading import source_files

    out, notes = [], []
    for path in map(Path, paths):
        files, left_out = source_files(path, options)
        out.extend(files)
        notes.extend(left_out)
    return out, notes


def store_list(store: str | Path) -> StoreListResult:
    """Return the models, tasks, rows and sources of a store.

    Parameters
    ----------
    store : str or Path
        The store file.

    Returns
    -------
    StoreListResult
        Models and tasks in order of addition, row, item and run counts, the sources.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.store_list(path).models
    ('model-x', 'model-y')
    """
    from evalgap.io import store as io

    with io.opened(store, "listing it") as con:
        s = io.summary(con)
    return StoreListResult(
        str(store),
        tuple(s["models"]),
        tuple(s["tasks"]),
        s["n_rows"],
        s["n_items"],
        s["n_runs"],
        tuple(s["sources"]),
    )


def store_remove(
    store: str | Path,
    *,
    models: Sequence[str] | None = (),
    sources: Sequence[str] = (),
    source_paths: Sequence[str] = (),
) -> StoreRemoveResult:
    """Remove models and/or sources (by id or by path) from a store, in one transaction.

    The pair statistics of what the removed rows touched are recomputed. A source that
    loses a model keeps its other rows, with its row count updated and the model recorded
    as removed from it: adding its file again replaces it whole, bringing the model back.

    Parameters
    ----------
    store : str or Path
        The store file.
    models : list of str
        Models to remove (every row of each).
    sources : list of int
        Sources to remove, by id (``store list``); an id matches ids only.
    source_paths : list of str
        Sources to remove, by the path they were added from; a path matches paths only.

    Returns
    -------
    StoreRemoveResult
        Rows, sources and models removed.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.store_remove(path, models=["model-y"]).rows_removed
    2000
    """
    from evalgap.io import store as io

    models, sources, paths = (
        [v] if isinstance(v, (str, int, Path)) else list(v or ())
        for v in (models, sources, source_paths)
    )
    if not models and not sources and not paths:
        raise InputError(
            "store remove: name what to remove with {models}, {sources} or {source_paths}",
            param="models",
        )
    bad = [m for m in models if not isinstance(m, str)]
    if bad:
        raise InputError(
            "{models}: a model is named by a string (see store list)",
            param="models",
            models=bad[0],
        )
    with io.opened(store, "removing", read_only=False, kept="; the store is as it was") as con:
        out = io.remove(con, models=tuple(models), sources=tuple(sources), paths=tuple(paths))
    return StoreRemoveResult(str(store), **out)


def store_export(
    store: str | Path,
    output: str | Path,
    *,
    shard_items: int | None = None,
    shard_models: int | None = None,
) -> StoreExportResult | ShardsExportResult:
    """Write a store's long scores to a Parquet file (DuckDB's COPY, no pandas in between),
    or its binary boards as Parquet shards for an audit on a cluster.

    Parameters
    ----------
    store : str or Path
        The store file.
    output : str or Path
        The ``.parquet`` file to write: ``model, task, item_id, run, score, cluster``; with
        ``shard_items`` or ``shard_models`` a new or empty folder of shards: per task, one
        Parquet file of int8 codes per block of items and models, and ``manifest.json``
        (:mod:`evalgap.io.shards`), which :func:`evalgap.audit` reads, on a cluster with
        ``engine="dask"``.
    shard_items, shard_models : int, optional
        Items and models per shard (default: all of them).

    Returns
    -------
    StoreExportResult or ShardsExportResult
        The file written and its rows, or the folder and its shards.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.store_export(path, os.path.join(os.path.dirname(path), "b.parquet")).rows
    4000
    >>> shards = os.path.join(os.path.dirname(path), "shards")
    >>> evalgap.store_export(path, shards, shard_items=1000, shard_models=1).shards
    4
    """
    from evalgap.io import store as io

    io.refuse_overwriting(store, output)
    if shard_items is not None or shard_models is not None:
        return _export_shards(store, output, shard_items, shard_models)
    with io.opened(store, f"exporting it to {output}") as con:
        rows = io.export(con, output)
    return StoreExportResult(str(store), str(output), rows)


def _export_shards(
    store: str | Path, output: str | Path, shard_items: int | None, shard_models: int | None
) -> ShardsExportResult:
    """The store's binary boards as Parquet shards (graded boards refused: their sums are not
    exact integers, so a cluster could not reproduce the single machine's)."""
    from evalgap.io import store as io
    from evalgap.io.shards import write_shards

    big = 2**62  # "all of them": one block along that side
    with io.opened(store, f"exporting it to {output}") as con:
        tasks = [
            r[0] for r in con.execute("SELECT DISTINCT task FROM vectors ORDER BY task").fetchall()
        ]
        if not tasks:
            raise _no_scores(con, None)

        def boards() -> Iterator[tuple[str, list[str], np.ndarray]]:
            for task in tasks:
                names, codes, _, binary = io.read_vectors(con, task, as_codes=True)
                if not binary:
                    raise InputError(
                        escape(f"{store}: task {task!r} has graded scores; ")
                        + "{shard_items}: shards hold binary boards (their sums are exact "
                        "integers); export the long scores without it",
                        param="shard_items",
                    )
                yield task, names, codes

        written = write_shards(
            output, boards(), shard_items=shard_items or big, shard_models=shard_models or big
        )
    files = sum(len(t.item_blocks) * len(t.model_blocks) for t in written)
    return ShardsExportResult(str(store), str(output), len(written), files)


def store_read(
    store: str | Path, *, models: Sequence[str] | None = None, tasks: Sequence[str] | None = None
) -> LongScores:
    """Return a store's scores as a LongScores, the table every job takes.

    ``models`` and ``tasks`` are pushed into the query (alignment still selects and orders).

    Parameters
    ----------
    store : str or Path
        The store file.
    models, tasks : list of str, optional
        Read only these models and tasks.

    Returns
    -------
    LongScores
        The rows in the order they were added, with the loaders' notes.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> len(evalgap.store_read(path).frame)
    4000
    """
    from evalgap.io import store as io

    models, tasks = _names("models", models), _names("tasks", tasks)
    with io.opened(store, "reading it") as con:
        for column, wanted in (("model", models), ("task", tasks)):
            io.refuse_unknown(con, column, wanted)
        return io.read_long(con, models=models, tasks=tasks)


def _names(argument: str, value: str | Iterable[str] | None) -> list[str] | None:
    """A selection of names as a list (one name alone taken as itself), or None."""
    if value is None:
        return None
    value = [value] if isinstance(value, str) else value
    try:
        value = list(value)
    except TypeError:
        raise InputError(
            "{" + argument + "}: a name or a list of names", param=argument, **{argument: value}
        ) from None
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise InputError("{" + argument + "}: names are strings", **{argument: bad[0]})
    return value or None


def store_pairs(store: str | Path, *, tasks: Sequence[str] | None = None) -> pd.DataFrame:
    """Return the stored per-pair statistics (2x2 counts, difference moments) as a DataFrame.

    Parameters
    ----------
    store : str or Path
        The store file.
    tasks : list of str, optional
        Only these tasks.

    Returns
    -------
    pandas.DataFrame
        Per task and pair (``model_a < model_b``): ``n, sum_a, sum_b, sum_ab, sum_a2,
        sum_b2`` and, derived, ``both_correct, a_only, b_only, both_wrong, sum_d, sum_d2``.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.store_pairs(path)[["model_a", "model_b", "a_only", "b_only"]].values.tolist()
    [['model-x', 'model-y', 282.0, 235.0]]
    """
    from evalgap.io import store as io

    tasks = _names("tasks", tasks)
    with io.opened(store, "reading its pair statistics") as con:
        io.refuse_unknown(con, "task", tasks)
        return io.pair_stats(con, tasks=tasks)


def store_audit_in_memory(
    store: str | Path,
    *,
    family: str = "adjacent",
    tasks: Sequence[str] | None = None,
    **settings: Any,
) -> AuditResult:
    """Audit a store's binary leaderboard from its pair statistics (no item is read where
    every model scored every item).

    Per task, models are listed in the board's order, as ``audit`` and ``ranks`` list them
    (by mean on a complete board; where models lack items, by the board of their stored
    items); the rank-adjacent pairs (``family="adjacent"``) or all pairs
    take their 2x2 counts from the store, oriented upper minus lower, and are audited as
    :func:`evalgap.audit` audits ``pairs=``. Each pair's statistics, p-values, N* and
    verdicts equal those of ``audit`` on the items; when the store keeps clusters, so do
    each pair's cluster ICC, design effect and clustered verdict (from the per-cluster
    sums, Section 6.4). What resamples items (the cluster bootstrap and alternative
    clusterings of the cluster stress, rank sets, e-process trajectories, graded scores)
    is left to ``audit --store``.

    Parameters
    ----------
    store : str or Path
        The store file (binary scores).
    family : {"adjacent", "all"}
        Rank-adjacent pairs or all pairs, per task.
    tasks : list of str, optional
        Only these tasks.
    **settings
        ``alpha, power, family_size, n_bootstrap, n_bootstrap_required_n, seed,
        chain_procedure, mixture`` as :func:`evalgap.audit` takes them.

    Returns
    -------
    AuditResult
        As :func:`evalgap.audit` with ``pairs=``.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.store_audit_in_memory(path, n_bootstrap=0).unresolved["fixed_n"]
    1
    """
    import dataclasses

    _validate.arguments(tasks=tasks, **settings)
    import pandas as pd

    from evalgap.io import store as io

    tasks = _check_audit_arguments(family, tasks, settings)
    with io.opened(store, "auditing it") as con:
        ranked = _ranked_models(con, tasks)
        # one block per task: the whole family at once
        blocks = [b for b in _pair_blocks(ranked, family, block_pairs=None) if len(b)]
        if not blocks:
            raise InputError(f"{store}: no pairs to audit (one model per task)")
        counts = [_block_counts(con, block, store) for block in blocks]
        wanted = [c.attrs.pop("wanted") for c in counts]
        frame = pd.concat(counts, ignore_index=True)
        frame.attrs["wanted"] = pd.concat(wanted, ignore_index=True)
        ranks = _store_ranking(ranked)[["task", "model", "rank"]]
        result = _audit_block(con, frame, settings, source=str(store), ranks=ranks)
    return dataclasses.replace(result, family=family)  # the family asked for, whatever K


def _audit_block(
    con: DuckDBPyConnection, counts: pd.DataFrame, settings: dict[str, Any], **fixed: Any
) -> AuditResult:
    """Audit pairs from their stored statistics: the 2x2 recipe of ``audit(pairs=)``, then
    each pair's clustered verdict from its per-cluster sums when the store keeps clusters."""
    from evalgap.io import store as io
    from evalgap.jobs.audit import audit_counts

    result = audit_counts(counts, **fixed, **settings)
    clusters = io.pair_cluster_stats(con, pairs=counts.attrs["wanted"])
    if clusters.empty:
        return result
    return _clustered_from_statistics(result, clusters)


def _check_audit_arguments(
    family: str, tasks: str | Sequence[str] | None, settings: dict[str, Any]
) -> list[str] | None:
    """Refuse an unknown family or procedure in one line listing the choices; return the
    tasks as a list (a single name taken as one task)."""
    from evalgap.jobs.audit import FAMILIES, PROCEDURES
    from evalgap.stats.sequential import MIXTURES

    for name, value, choices in (
        ("family", family, FAMILIES),
        ("chain_procedure", settings.get("chain_procedure", "fixed_n"), PROCEDURES),
        ("mixture", settings.get("mixture", "grid"), MIXTURES),
    ):
        if not isinstance(value, str) or value not in choices:
            raise InputError(
                "{" + name + "}: must be one of " + escape(", ".join(choices)), **{name: value}
            )
    return _names("tasks", tasks)


def _refuse_unpaired(store: str | Path, table: pd.DataFrame) -> None:
    """Refuse pairs of the family with no item both models scored (no statistics stored)."""
    missing = table["n"].isna().to_numpy()
    if missing.any():
        row = table.loc[missing].iloc[0]
        task = "" if row["task"] == "all" else f" (task {row['task']})"
        raise InputError(
            escape(
                f"{store}: models {row['upper']!r} and {row['lower']!r}{task} share no item "
                f"({int(missing.sum()):,} such pairs); a pair is compared on the items both "
            )
            + "scored: audit the tasks whose models share items ({tasks}), or audit the "
            "items of the models that do with evalgap's audit job, which takes a selection "
            "of models",
            param="tasks",
        )


def _clustered_from_statistics(result: AuditResult, clusters: pd.DataFrame) -> AuditResult:
    """The cluster ICC, design effect and clustered verdict of every pair, from the stored
    per-cluster sums (Section 6.4; what ``audit`` computes from the items' differences)."""
    import dataclasses

    import numpy as np
    import pandas as pd

    from evalgap.jobs.audit import PairTable, clustered_verdicts, count_unresolved
    from evalgap.stats import clusters as cl
    from evalgap.stats.paired import difference_sums

    pairs = result.pairs.to_frame()
    upper, lower = pairs["model_a"].to_numpy(dtype=object), pairs["model_b"].to_numpy(dtype=object)
    swap = upper.astype(str) > lower.astype(str)
    key = pd.DataFrame(
        {
            "task": pairs["task"].to_numpy(),
            "model_a": np.where(swap, lower, upper),
            "model_b": np.where(swap, upper, lower),
            "row": np.arange(len(pairs)),
            "sign": np.where(swap, -1.0, 1.0),
        }
    )
    long = key.merge(clusters, on=["task", "model_a", "model_b"], how="inner")
    icc = np.full(len(pairs), np.nan)
    mbar = np.full(len(pairs), np.nan)
    for _, sub in long.groupby("task", sort=False):
        rows, row_codes = np.unique(sub["row"].to_numpy(), return_inverse=True)
        _, cluster_codes = np.unique(sub["cluster"].to_numpy(dtype=str), return_inverse=True)
        shape = (cluster_codes.max() + 1, rows.size)
        sizes, sums, sumsq = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        d_sum, d_sq = difference_sums(
            sub["sum_a"], sub["sum_b"], sub["sum_ab"], sub["sum_a2"], sub["sum_b2"]
        )
        d_sum = sub["sign"] * d_sum
        sizes[cluster_codes, row_codes] = sub["n"].to_numpy(dtype=float)
        sums[cluster_codes, row_codes] = np.asarray(d_sum)  # pandas Series in, Series out
        sumsq[cluster_codes, row_codes] = np.asarray(d_sq)
        value, size = cl.icc_from_stats(sizes, sums, sumsq)
        icc[rows], mbar[rows] = value, size
    clustered_verdicts(pairs, icc, mbar)
    return dataclasses.replace(
        result, pairs=PairTable.from_frame(pairs), unresolved=count_unresolved(pairs)
    )


@dataclass(frozen=True, repr=False)
class StoreAuditSummary(_StoreView, Result):
    """An all-pairs audit of a store streamed from its pair statistics to a Parquet file.

    Not a table (no ``to_frame()``): counts of a family too large to hold; every pair's row
    is in the Parquet file ``output`` (``pandas.read_parquet(summary.output)``).

    Attributes
    ----------
    family : str
        ``"all"`` or ``"adjacent"``.
    family_size : int
        Pairs in the family (every task's).
    n_pairs : int
        Pairs audited (the rows written).
    unresolved : dict
        Per procedure, the pairs left unresolved (as :attr:`AuditResult.unresolved`).
    correlation_sensitivity : dict
        Unresolved pairs with the correlation shifted by -0.1 / as estimated / +0.1.
    chains : dict
        Per task, the unresolved chains: models chained by unresolved rank-adjacent gaps (by
        ``chain_procedure``), as :attr:`AuditResult.chains`.
    output : str
        The Parquet file holding every pair's row (as ``audit --output``).
    notes : tuple of str
        What was assumed.
    """

    family: str
    family_size: int
    n_pairs: int
    unresolved: dict[str, int]
    correlation_sensitivity: dict[str, int]
    chains: dict[str, list[list[str]]]
    output: str
    notes: tuple[str, ...]
    _headline = ("family", "n_pairs", "unresolved")



def store_audit(
    store: str | Path,
    output: str | Path,
    *,
    family: str = "all",
    tasks: Sequence[str] | None = None,
    block_pairs: int = 1_000_000,
    chain_procedure: str = "fixed_n",
    progress: Callable[..., object] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    **settings: Any,
) -> StoreAuditSummary:
    """Audit every pair of a binary store from its statistics, in bounded memory.

    The pair table of a K-model board has K(K-1)/2 rows per task: 12.5 million at K =
    5,000, more than :func:`store_audit_in_memory` holds in memory. This streams it in
    blocks of ``block_pairs`` pairs, twice: the first pass computes every pair's Wald
    statistic (one float per pair) so the step-wise procedures (Holm, Benjamini-Hochberg)
    see the whole family; the second audits each block as :func:`store_audit_in_memory`
    does (same family size) with Holm's and BH's verdicts taken from the whole family, and
    appends its rows to the Parquet file ``output``. Every row equals the corresponding row
    of ``store_audit_in_memory(store, family=family)`` (tested: every verdict and p-value
    identically; the
    anytime boundary, solved by bisection on each block's distinct discordant counts, to
    1e-13 relative); only the rank-adjacent rows (for the chains) and the counts stay in
    memory.

    Parameters
    ----------
    store : str or Path
        The store file (binary scores).
    output : str or Path
        The Parquet file to write every pair's row to.
    family : {"all", "adjacent"}
        Which pairs, per task. Every pair by default, unlike :func:`evalgap.audit` (which
        shows a ranking, hence its rank-adjacent default): this job's product is the file of
        every pair's row.
    tasks : list of str, optional
        Only these tasks.
    block_pairs : int
        Pairs per block (memory grows with it: about 0.5 KB per pair).
    chain_procedure : str
        The procedure whose adjacent verdicts make the unresolved chains.
    progress : callable, optional
        Called as ``progress(done, total, phase)`` after each block of each pass.
    engine : {"local", "dask"}
        With ``store`` a folder of Parquet shards (``store_export(..., shard_items=)``):
        where the pairs' counts are summed, in this process or on a dask.distributed
        cluster (:func:`evalgap.engine.board_sums`); the rows equal the store's.
    scheduler : str, optional
        The Dask scheduler's address, with ``engine="dask"`` (default
        ``$EVALGAP_SCHEDULER``).
    **settings
        ``alpha, power, n_bootstrap, n_bootstrap_required_n, seed, mixture`` as
        :func:`evalgap.audit` takes them.

    Returns
    -------
    StoreAuditSummary

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> s = store_audit(path, os.path.join(folder, "pairs.parquet"), n_bootstrap=0)
    >>> s.n_pairs, s.unresolved["fixed_n"]
    (1, 1)
    """
    _validate.arguments(tasks=tasks, block_pairs=block_pairs, **settings)
    import dataclasses

    from evalgap.engine.inputs import refuse_off_engine, shards_folder
    from evalgap.io import store as io

    tasks = _check_audit_arguments(family, tasks, {**settings, "chain_procedure": chain_procedure})
    _check_blocks_and_output(block_pairs, output)
    folder = shards_folder(store)
    if folder is not None or engine != "local" or scheduler is not None:
        refuse_off_engine(folder, engine, scheduler, [], source="STORE as a folder")
        assert folder is not None  # refused above otherwise
        if chain_procedure == "clustered":
            raise InputError(
                "{chain_procedure=clustered}: shards keep no cluster labels; choose another "
                "procedure",
                param="chain_procedure",
            )
        from evalgap.engine import board_sums
        from evalgap.jobs.audit import sums_ranking

        sums = board_sums(
            folder, engine=engine, scheduler=scheduler, tasks=tasks, progress=progress
        )
        ranked = {s.task: sums_ranking(s) for s in sums}
        shards = _ShardCounts({s.task: s for s in sums}, folder)
        summary = _stream_audit(
            shards, ranked, output, family, block_pairs, chain_procedure, progress, settings
        )
        blocks = sum(s.blocks for s in sums)
        note = f"pair counts from {blocks:,} block products of the shards on the {engine} engine"
        return dataclasses.replace(summary, notes=(*summary.notes, note))
    io.refuse_overwriting(store, output)
    with io.opened(store, "auditing it") as con:
        ranked = _ranked_models(con, tasks)
        _refuse_unclustered(con, store, chain_procedure)
        return _stream_audit(
            _StoreCounts(con, store), ranked, output, family, block_pairs, chain_procedure,
            progress, settings,
        )  # fmt: skip


@dataclass(frozen=True)
class _StoreCounts:
    """A store's pair counts per block of pairs, and their audit (clustered verdicts from
    the per-cluster sums it keeps)."""

    con: DuckDBPyConnection
    store: str | Path

    @property
    def name(self) -> str:
        return str(self.store)

    def counts(self, block: pd.DataFrame) -> pd.DataFrame:
        return _block_counts(self.con, block, self.store)

    def audit(self, frame: pd.DataFrame, settings: dict[str, Any], **fixed: Any) -> AuditResult:
        return _audit_block(
            self.con, frame, settings, chain_procedure="fixed_n", source=str(self.store),
            **fixed,
        )  # fmt: skip


@dataclass(frozen=True)
class _ShardCounts:
    """Pair counts per block of pairs from the sums of a board in shards (one task per
    block of pairs, as :func:`_pair_blocks` makes them)."""

    sums: dict[str, BoardSums]
    name: str

    def counts(self, block: pd.DataFrame) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        s = self.sums[str(block["task"].iloc[0])]
        names = block.attrs["names"]
        column = {m: k for k, m in enumerate(s.models)}
        where = np.array([column[m] for m in names])
        upper, lower = block["rank_a"].to_numpy(), block["rank_b"].to_numpy()
        shared = s.shared[where[upper], where[lower]]
        _refuse_unpaired(self.name, pd.DataFrame({  # as the store refuses them
            "task": block["task"].to_numpy(), "upper": names[upper], "lower": names[lower],
            "n": np.where(shared > 0, shared, np.nan),
        }))  # fmt: skip
        return pd.DataFrame(
            {
                "task": block["task"].to_numpy(), "model_a": names[upper],
                "model_b": names[lower], **s.counts(where[upper], where[lower]),
            }
        )  # fmt: skip

    def audit(self, frame: pd.DataFrame, settings: dict[str, Any], **fixed: Any) -> AuditResult:
        from evalgap.jobs.audit import audit_counts

        return audit_counts(frame, chain_procedure="fixed_n", source=self.name, **fixed, **settings)


def _stream_audit(
    source: _StoreCounts | _ShardCounts,
    ranked: dict,
    output: str | Path,
    family: str,
    block_pairs: int,
    chain_procedure: str,
    progress: Callable[..., object] | None,
    settings: dict[str, Any],
) -> StoreAuditSummary:
    """The two passes of :func:`store_audit` over the family's blocks of pairs, whatever
    gives their counts."""
    import pandas as pd

    from evalgap.io._write import atomic_write
    from evalgap.jobs.audit import PROCEDURES, family_verdicts, unresolved_chains
    from evalgap.stats import power as pw

    alpha = settings.get("alpha", 0.05)
    power = settings.get("power", 0.8)
    blocks = list(_pair_blocks(ranked, family, block_pairs))
    m = sum(len(b) for b in blocks)
    if m == 0:
        raise InputError(f"{source.name}: no pairs to audit (one model per task)")
    pw.critical_values(alpha, power)  # alpha and power checked before any work
    tick = progress or (lambda *_: None)
    statistic, testable = _family_statistics(source, blocks, alpha, tick)
    # Holm's and BH's verdicts rank the whole family; each block's are taken from here
    stepwise = family_verdicts(statistic, testable, alpha, power, m)
    tally = _AuditTally()

    def write(handle: IO[Any]) -> None:
        _write_audited_pairs(handle, source, blocks, settings, stepwise, family, tick, tally)

    atomic_write(output, write, option="--output", mode="wb", what="the pairs table")
    adjacent = pd.concat(tally.adjacent, ignore_index=True)
    chains = unresolved_chains(adjacent, _store_ranking(ranked), chain_procedure)
    unresolved = tally.unresolved
    return StoreAuditSummary(
        family=family,
        family_size=m,
        n_pairs=m,
        unresolved={proc: unresolved[proc] for proc in PROCEDURES if proc in unresolved},
        correlation_sensitivity=tally.sensitivity,
        chains=chains,
        output=str(output),
        notes=(
            f"family {family}: {m:,} pairs audited ("
            + (
                "every pair of each task's models; evalgap audit audits the rank-adjacent "
                "pairs by default"
                if family == "all"
                else "each task's rank-adjacent pairs"
            )
            + f") in {len(blocks)} block(s) of up to {block_pairs:,}",
        ),
    )


def _check_blocks_and_output(block_pairs: int, output: str | Path) -> None:
    """Refuse a block size that is not a whole number >= 1 and an output not a .parquet."""
    if isinstance(block_pairs, bool) or not isinstance(block_pairs, int) or block_pairs < 1:
        raise InputError(
            "{block_pairs}: must be a whole number of pairs >= 1",
            param="block_pairs",
            block_pairs=block_pairs,
        )
    if Path(output).suffix.lower() != ".parquet":
        raise InputError(
            "{output}: store audit writes Parquet; name a .parquet file",
            param="output",
            output=str(output),
        )


def _refuse_unclustered(
    con: DuckDBPyConnection, store: str | Path, chain_procedure: str
) -> None:
    """Refuse the clustered chain procedure on a store that keeps no cluster labels."""
    clustered = con.execute("SELECT count(*) FROM pair_cluster_stats").fetchall()[0][0]
    if chain_procedure == "clustered" and not clustered:
        raise InputError(
            "{chain_procedure=clustered}: "
            + escape(f"{store} keeps no cluster labels, so no pair has a ")
            + "clustered verdict; choose another procedure, or add the files with "
            "{cluster_column} to a store",
            param="chain_procedure",
        )


def _family_statistics(
    source: _StoreCounts | _ShardCounts,
    blocks: list[pd.DataFrame],
    alpha: float,
    tick: Callable[..., object],
) -> tuple[np.ndarray, np.ndarray]:
    """Pass 1 of :func:`store_audit`: every pair's Wald statistic, block by block, and
    whether it has enough differing items to be tested."""
    import numpy as np

    from evalgap.stats import tests
    from evalgap.stats.paired import summarize_counts

    m = sum(len(b) for b in blocks)
    statistic = np.empty(m)
    testable = np.empty(m, dtype=bool)
    start = 0
    for k, block in enumerate(blocks):
        tick(k, 2 * len(blocks), "statistics of every pair")
        frame = source.counts(block)
        s = summarize_counts(*(frame[c].to_numpy() for c in _COUNTS))
        stop = start + len(frame)
        statistic[start:stop] = tests.wald_statistic(s.delta, s.sd_diff, s.n_items)
        testable[start:stop] = s.a_only + s.b_only >= tests.min_differing_items(alpha)
        start = stop
    return statistic, testable


@dataclass
class _AuditTally:
    """What :func:`store_audit` adds up over its blocks: the unresolved pairs per procedure,
    the correlation sensitivity counts and the rank-adjacent pairs' rows."""

    unresolved: dict[str, int] = field(default_factory=dict)
    sensitivity: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("correlation_minus_0.1", "correlation", "correlation_plus_0.1"), 0
        )
    )
    adjacent: list[pd.DataFrame] = field(default_factory=list)

    def add(self, rows: pd.DataFrame, adjacent: np.ndarray) -> None:
        """Count one block's audited pairs in; ``adjacent`` marks the rank-adjacent ones
        (next in the listed order: tied models share a rank, so not told by the ranks)."""
        from evalgap.jobs.audit import count_unresolved, sensitivity_counts

        for proc, count in count_unresolved(rows).items():
            self.unresolved[proc] = self.unresolved.get(proc, 0) + count
        for key, count in sensitivity_counts(rows).items():
            self.sensitivity[key] += count
        self.adjacent.append(rows[adjacent])


def _write_audited_pairs(
    handle: IO[Any],
    source: _StoreCounts | _ShardCounts,
    blocks: list[pd.DataFrame],
    settings: dict[str, Any],
    stepwise: dict[str, np.ndarray],
    family: str,
    tick: Callable[..., object],
    tally: _AuditTally,
) -> None:
    """Pass 2 of :func:`store_audit`: audit each block with the family's stepwise verdicts,
    count it in ``tally`` and append its rows to the Parquet file ``handle``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    m = sum(len(b) for b in blocks)
    writer, start = None, 0
    try:
        for k, block in enumerate(blocks):
            tick(len(blocks) + k, 2 * len(blocks), "verdicts, written to Parquet")
            result = source.audit(source.counts(block), settings, family_size=m)
            rows = result.pairs.to_frame()
            stop = start + len(rows)
            rows["resolved_holm"] = stepwise["holm"][start:stop]
            rows["resolved_bh"] = stepwise["bh"][start:stop]
            upper, lower = block["rank_a"].to_numpy(), block["rank_b"].to_numpy()
            ranks = block.attrs["ranks"]
            rows["rank_a"], rows["rank_b"] = ranks[upper], ranks[lower]
            start = stop
            tally.add(rows, adjacent=lower == upper + 1)
            table = pa.Table.from_pandas(rows, preserve_index=False)
            if writer is None:  # the family is said in the file, as on every view
                schema = table.schema.with_metadata(
                    {**(table.schema.metadata or {}), b"evalgap.family": family.encode()}
                )
                writer = pq.ParquetWriter(handle, schema)
            writer.write_table(table.cast(writer.schema))
        tick(2 * len(blocks), 2 * len(blocks), "verdicts, written to Parquet")
    finally:
        if writer is not None:
            writer.close()


def _store_ranking(ranked: dict[str, tuple[np.ndarray, np.ndarray]]) -> pd.DataFrame:
    """Return each task's models in listed order, one row per (task, rank, model); tied
    models share a rank, as the board lists them."""
    import pandas as pd

    return pd.concat(
        [
            pd.DataFrame({"task": task, "rank": ranks, "model": names})
            for task, (names, ranks) in ranked.items()
        ],
        ignore_index=True,
    )


_COUNTS = ("both_correct", "a_only", "b_only", "both_wrong")


def _no_scores(con: DuckDBPyConnection, tasks: Sequence[str] | None) -> InputError:
    """Why there is nothing to audit: an empty store, or tasks it does not hold."""
    stored = [
        r[0] for r in con.execute("SELECT DISTINCT task FROM vectors ORDER BY task").fetchall()
    ]
    if not stored:
        return InputError("the store is empty; add scores with evalgap store add STORE FILE")
    missing = [t for t in tasks or () if t not in stored]
    return InputError(
        "{tasks}"
        + escape(
            f": no such task in the store; tasks "
            f"found: {', '.join(stored[:10])}{', ...' if len(stored) > 10 else ''}"
        ),
        param="tasks",
        tasks=missing[0] if missing else tasks[0] if tasks else None,
    )


def _ranked_models(
    con: DuckDBPyConnection, tasks: Sequence[str] | None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per task, the models best first and their ranks, as ``audit`` and ``ranks`` list
    them: by mean on a complete board (a model's rank one plus the models with a higher
    mean, so equal means share it); where models lack items, by the board of their stored
    items (:func:`evalgap.stats.board.board_scores`: the paired rank, then the additive
    score)."""
    from evalgap.io import store as io
    from evalgap.jobs.audit import rank_order
    from evalgap.stats.board import paired_rank_from_means

    means = io.model_means(con, tasks=tasks)
    if means.empty:
        raise _no_scores(con, tasks)
    if not means["binary"].all():
        raise InputError(
            "an audit from pair statistics needs binary scores; audit the items of a graded "
            "store with evalgap.audit(evalgap.store_read(STORE))"
        )
    out = {}
    for task, sub in means.groupby("task", sort=False):
        names = sub["model"].to_numpy(dtype=object)
        board = _board_of_items(con, str(task))
        if board is None:
            means = sub["mean"].to_numpy()
            order = rank_order(names, means)
            board = names[order], paired_rank_from_means(means[order])
        out[str(task)] = board
    return out


def _board_of_items(
    con: DuckDBPyConnection, task: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """The task's models in board order from its stored items and their ranks, or None when
    every model scored every item (the order by mean is then the board's)."""
    import numpy as np

    from evalgap._scores import TaskScores
    from evalgap.io import store as io
    from evalgap.jobs.audit import board_order

    names, codes, _, _ = io.read_vectors(con, task, as_codes=True)
    if (codes >= 0).all():
        return None
    scores = np.where(codes >= 0, codes, np.nan).T
    items = TaskScores(
        task=task,
        item_ids=np.arange(scores.shape[0]),
        scores=scores,
        run_counts=(codes >= 0).T.astype(np.int64),
        clusters=None,
    )
    order, listed = board_order(items, np.array(names, dtype=object), 0.05, False, [])
    return np.array(names, dtype=object)[order], np.asarray(listed.rank, dtype=np.int64)


def _pair_blocks(ranked: dict, family: str, block_pairs: int | None) -> Iterator[pd.DataFrame]:
    """Blocks of (task, rank_a, rank_b), A above B, in rank order (row-major); with
    ``block_pairs=None`` one block per task."""
    import numpy as np

    from evalgap.jobs.audit import family_pairs

    for task, (names, ranks) in ranked.items():
        k = len(names)
        if family == "adjacent" or block_pairs is None:
            yield _block(task, names, ranks, *family_pairs(np.arange(k), family))
            continue
        rows_per_upper = np.arange(k - 1, 0, -1)
        first = 0
        while first < k - 1:  # whole rows of the upper triangle, about block_pairs at a time
            cum = np.cumsum(rows_per_upper[first:])
            last = first + max(1, int(np.searchsorted(cum, block_pairs, side="right")))
            last = min(last, k - 1)
            upper = np.repeat(np.arange(first, last), rows_per_upper[first:last])
            lower = np.concatenate([np.arange(i + 1, k) for i in range(first, last)])
            yield _block(task, names, ranks, upper, lower)
            first = last


def _block(
    task: str, names: np.ndarray, ranks: np.ndarray, upper: np.ndarray, lower: np.ndarray
) -> pd.DataFrame:
    """A block of pairs: ``rank_a``, ``rank_b`` are the models' places in the listed order
    (from 0); ``attrs`` hold the listed names and their ranks (equal where tied)."""
    import pandas as pd

    block = pd.DataFrame({"task": task, "rank_a": upper, "rank_b": lower})
    block.attrs["names"], block.attrs["ranks"] = names, ranks
    return block


def _block_counts(
    con: DuckDBPyConnection, block: pd.DataFrame, store: str | Path = "the store"
) -> pd.DataFrame:
    """The 2x2 counts of a block's pairs, oriented A (upper rank) minus B."""
    import numpy as np
    import pandas as pd

    from evalgap.io import store as io

    names = block.attrs["names"]
    upper = names[block["rank_a"].to_numpy()]
    lower = names[block["rank_b"].to_numpy()]
    swap = upper.astype(str) > lower.astype(str)
    wanted = pd.DataFrame(
        {
            "task": block["task"].to_numpy(),
            "model_a": np.where(swap, lower, upper),
            "model_b": np.where(swap, upper, lower),
        }
    )
    stats = io.pair_stats(con, pairs=wanted)
    table = wanted.merge(stats, on=["task", "model_a", "model_b"], how="left", sort=False)
    _refuse_unpaired(store, table.assign(upper=upper, lower=lower))
    a_only = table["a_only"].to_numpy()
    b_only = table["b_only"].to_numpy()
    counts = pd.DataFrame(
        {
            "task": table["task"],
            "model_a": upper,
            "model_b": lower,
            "both_correct": table["both_correct"].round().astype(np.int64),
            "a_only": np.where(swap, b_only, a_only).round().astype(np.int64),
            "b_only": np.where(swap, a_only, b_only).round().astype(np.int64),
            "both_wrong": table["both_wrong"].round().astype(np.int64),
        }
    )
    counts.attrs["wanted"] = wanted
    return counts
