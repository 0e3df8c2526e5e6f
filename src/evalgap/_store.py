"""The results store job: add, list, remove and export the scores of a growing leaderboard.

The DuckDB I/O lives in :mod:`evalgap.io.store`; this module runs the jobs and returns their
results. Every job reads a store in place of score files (``--store STORE``, or
:func:`read_store` in Python): the store gives back the long table its sources' loaders gave,
so ``audit --store`` gives exactly the numbers of ``audit --scores`` on the same files.

What is exact, and from what: the audit of a store reads its items (the audit's cluster
bootstrap, rank sets, trajectories and graded bootstraps resample items, so items are what
make every number equal to a from-scratch audit). The per-pair sufficient statistics
(:func:`store_pairs`: the 2x2 counts of binary scores, the sums and sums of squares of
graded differences, per task) are kept up to date at each add, for the new models' pairs
only, and equal the statistics recomputed from scratch; they are what a pairwise table of a
thousand-model board is read from without touching the items.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalgap._results import Result
from evalgap.errors import InputError


@dataclass(frozen=True, repr=False)
class StoreAddResult(Result):
    """What ``store add`` did.

    Attributes
    ----------
    store : str
        The store file.
    added_sources, skipped_sources : tuple of str
        Sources added; sources already stored (same bytes and options), left as they were.
    rows_added : int
        Score rows added.
    """

    store: str
    added_sources: tuple
    skipped_sources: tuple
    rows_added: int
    _headline = ("added_sources", "skipped_sources", "rows_added")


@dataclass(frozen=True, repr=False)
class StoreListResult(Result):
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
        Per source: id, path, SHA-256, loader, options, time added, rows.
    """

    store: str
    models: tuple
    tasks: tuple
    n_rows: int
    n_items: int
    n_runs: int
    sources: tuple
    _headline = ("n_rows",)


@dataclass(frozen=True, repr=False)
class StoreRemoveResult(Result):
    """What ``store remove`` did.

    Attributes
    ----------
    store : str
        The store file.
    rows_removed, sources_removed, models_removed : int
        What was removed.
    """

    store: str
    rows_removed: int
    sources_removed: int
    models_removed: int
    _headline = ("rows_removed",)


@dataclass(frozen=True, repr=False)
class StoreExportResult(Result):
    """What ``store export`` wrote.

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


def store_add(store, paths, options=None, *, progress=None) -> StoreAddResult:
    """Add score sources to a store (created if absent); return what was added and skipped.

    Each path (file or directory, any source :func:`evalgap.load_scores` reads) is one
    source, added in one transaction with its pair statistics; a path whose bytes and
    options are already stored is skipped. A source that cannot be read raises InputError
    and leaves the store as it was (sources added before it stay).

    Parameters
    ----------
    store : str or Path
        The store file (DuckDB).
    paths : str, Path or list of them
        Score files or directories; each is one source.
    options : LoadOptions, optional
        How to read them (recorded with each source).
    progress : callable, optional
        Called as ``progress(done, total, path)`` before each source.

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
    from evalgap.io import store as io
    from evalgap.io.options import LoadOptions

    options = options or LoadOptions()
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not paths:
        raise InputError("store add: give at least one score file or directory")
    added, skipped, rows = [], [], 0
    con = io.connect(store)
    try:
        for done, path in enumerate(paths):
            if progress is not None:
                progress(done, len(paths), str(path))
            outcome = io.add_source(con, path, options)
            (added if outcome["added"] else skipped).append(str(path))
            rows += outcome["rows"]
    finally:
        con.close()
    return StoreAddResult(str(store), tuple(added), tuple(skipped), int(rows))


def store_list(store) -> StoreListResult:
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

    con = io.connect(store, read_only=True)
    try:
        s = io.summary(con)
    finally:
        con.close()
    return StoreListResult(
        str(store),
        tuple(s["models"]),
        tuple(s["tasks"]),
        s["n_rows"],
        s["n_items"],
        s["n_runs"],
        tuple(s["sources"]),
    )


def store_remove(store, *, models=(), sources=()) -> StoreRemoveResult:
    """Remove models and/or sources (by id or path) from a store, in one transaction.

    The pair statistics of what the removed rows touched are recomputed.

    Parameters
    ----------
    store : str or Path
        The store file.
    models : list of str
        Models to remove (every row of each).
    sources : list of str or int
        Sources to remove, by id or by the path they were added from.

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

    if not models and not sources:
        raise InputError("store remove: name what to remove with models= or sources=")
    con = io.connect(store, create=False)
    try:
        out = io.remove(con, models=tuple(models), sources=tuple(sources))
    finally:
        con.close()
    return StoreRemoveResult(str(store), **out)


def store_export(store, output) -> StoreExportResult:
    """Write a store's long scores to a Parquet file (DuckDB's COPY, no pandas in between).

    Parameters
    ----------
    store : str or Path
        The store file.
    output : str or Path
        The ``.parquet`` file to write: ``model, task, item_id, run, score, cluster``.

    Returns
    -------
    StoreExportResult
        The file written and its rows.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.store_export(path, os.path.join(os.path.dirname(path), "b.parquet")).rows
    4000
    """
    from evalgap.io import store as io

    con = io.connect(store, read_only=True)
    try:
        rows = io.export(con, output)
    finally:
        con.close()
    return StoreExportResult(str(store), str(output), rows)


def read_store(store, *, models=None, tasks=None):
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
    >>> len(evalgap.read_store(path).frame)
    4000
    """
    from evalgap.io import store as io

    con = io.connect(store, read_only=True)
    try:
        return io.read_long(con, models=models, tasks=tasks)
    finally:
        con.close()


def store_pairs(store, *, tasks=None):
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

    con = io.connect(store, read_only=True)
    try:
        return io.pair_stats(con, tasks=tasks)
    finally:
        con.close()


def audit_store(store, *, family: str = "adjacent", tasks=None, **settings):
    """Audit a store's binary leaderboard from its pair statistics alone (no item is read).

    Per task, models are ranked by their mean score over their own items (as ``audit``
    ranks them, ties by name); the rank-adjacent pairs (``family="adjacent"``) or all pairs
    take their 2x2 counts from the store, oriented upper minus lower, and are audited as
    :func:`evalgap.audit` audits ``pairs=``. Each pair's statistics, p-values, N* and
    verdicts equal those of ``audit`` on the items; what needs items (cluster bootstrap,
    rank sets, e-process trajectories, graded scores) is left to ``audit --store``.

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
        tier_procedure, mixture`` as :func:`evalgap.audit` takes them.

    Returns
    -------
    AuditResult
        As :func:`evalgap.audit` with ``pairs=``.

    Examples
    --------
    >>> import tempfile, os, evalgap
    >>> path = os.path.join(tempfile.mkdtemp(), "board.duckdb")
    >>> _ = evalgap.store_add(path, ["examples/two_models.csv"])
    >>> evalgap.audit_store(path, n_bootstrap=0).unresolved["fixed_n"]
    1
    """
    import numpy as np
    import pandas as pd

    from evalgap._audit import audit_counts
    from evalgap.io import store as io

    con = io.connect(store, read_only=True)
    try:
        means = io.model_means(con, tasks=tasks)
        if not means["binary"].all():
            raise InputError(
                "an audit from pair statistics needs binary scores; audit the items of a graded "
                "store with evalgap.audit(evalgap.read_store(STORE))"
            )
        wanted = []
        for task, sub in means.groupby("task", sort=False):
            names = sub["model"].to_numpy(dtype=object)
            order = np.lexsort((names.astype(str), -sub["mean"].to_numpy()))
            ranked = names[order]
            if family == "adjacent":
                upper, lower = ranked[:-1], ranked[1:]
            else:
                i, j = np.triu_indices(len(ranked), k=1)
                upper, lower = ranked[i], ranked[j]
            wanted.append(pd.DataFrame({"task": task, "upper": upper, "lower": lower}))
        if not wanted:
            raise InputError("the store is empty; add scores with evalgap store add STORE FILE")
        wanted = pd.concat(wanted, ignore_index=True)
        wanted["model_a"] = np.where(
            wanted["upper"] < wanted["lower"], wanted["upper"], wanted["lower"]
        )
        wanted["model_b"] = np.where(
            wanted["upper"] < wanted["lower"], wanted["lower"], wanted["upper"]
        )
        stats = io.pair_stats(con, pairs=wanted)
    finally:
        con.close()
    table = wanted.merge(stats, on=["task", "model_a", "model_b"], how="inner", sort=False)
    flip = (table["upper"] != table["model_a"]).to_numpy()
    a_only = table["a_only"].to_numpy()
    b_only = table["b_only"].to_numpy()
    frame = pd.DataFrame(
        {
            "task": table["task"],
            "model_a": table["upper"],
            "model_b": table["lower"],
            "both_correct": table["both_correct"].round().astype(np.int64),
            "a_only": np.where(flip, b_only, a_only).round().astype(np.int64),
            "b_only": np.where(flip, a_only, b_only).round().astype(np.int64),
            "both_wrong": table["both_wrong"].round().astype(np.int64),
        }
    )
    return audit_counts(frame, source=str(store), **settings)
