"""Every pair's integer sums over a sharded binary board, block by block, on one engine."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evalgap.engine._names import ENGINES, SCHEDULER_VARIABLE
from evalgap.errors import InputError, escape
from evalgap.io.shards import ShardTask, read_manifest, read_shard
from evalgap.stats.board import (
    BoardScores,
    additive_scores_from_sums,
    board_scores_from_counts,
    listed_order,
    paired_rank,
)
from evalgap.stats.paired import pair_sums, pair_sums_observed
from evalgap.stats.ranks import canonical_probe

__all__ = [
    "ENGINES",
    "SCHEDULER_VARIABLE",
    "BoardSums",
    "FitSums",
    "block_fit",
    "block_projection",
    "block_sums",
    "board_sums",
    "item_counts",
]

# float32 products of 0/1 matrices are exact integers while a block's sums stay below 2^24
EXACT_FLOAT32_ITEMS = 2**24

# the client's bytes per model pair of a task: the three int64 (K, K) totals it assembles
CLIENT_BYTES_PER_PAIR = 3 * 8
# with missing scores, the additive fit's float64 (K, K) sums beside them, and its solution
# (the Laplacian, its SVD and pseudo-inverse): 69-71 bytes per pair measured at 1,000-3,000
# models (benchmarks/bench_distributed.py, section k)
FIT_BYTES_PER_PAIR = 8 + 72
# and one model-block pair's partial sums in flight (4 int64 (m, m) arrays and the products
# they are cast from): measured 1.2x the totals' bytes at 8,000 models in blocks of 2,000
# (benchmarks/bench_distributed.py, section k)
BLOCK_BYTES_PER_PAIR = 64

Progress = Callable[[int, int, str], object]


@dataclass(frozen=True)
class FitSums:
    """The sums over items of the additive fit model + item of a board with missing scores
    (:func:`evalgap.stats.board.additive_scores_from_sums`), over the models with 2 or more
    scored items, as the single machine fits them.

    Attributes
    ----------
    weighted : numpy.ndarray
        (K, K) ``R' diag(1/m) R``: ``R`` the observed cells, ``m_i`` the models scoring item
        ``i``.
    share : numpy.ndarray
        (K,) ``R' (1/m)``.
    item_mean_share : numpy.ndarray
        (K,) ``R' xbar``, ``xbar_i`` the mean score of item ``i``.
    item_mean_total : float
        ``sum_i xbar_i``.
    n_items : int
        The items some model scored.
    """

    weighted: np.ndarray
    share: np.ndarray
    item_mean_share: np.ndarray
    item_mean_total: float
    n_items: int


@dataclass(frozen=True)
class BoardSums:
    """One task's pair sums over every item, (K, K) int64 arrays in the manifest's model
    order.

    Attributes
    ----------
    task : str
        The task.
    models : tuple of str
        The models (rows and columns).
    n_items : int
        The task's items.
    shared : numpy.ndarray
        ``shared[j, k]``: items both j and k scored (``O' O``); the diagonal is each
        model's scored items.
    right : numpy.ndarray
        ``right[j, k]``: items j got right among those k also scored (``X' O``); the
        diagonal is each model's right answers.
    both_correct : numpy.ndarray
        ``both_correct[j, k]``: items both got right (``X' X``).
    blocks : int
        The block tasks computed (products, and with missing scores the item counts and
        the fit's products).
    projection : numpy.ndarray or None
        Each model's sum of :func:`evalgap.stats.ranks.canonical_probe` over its right
        answers (``X' p``), which orders the rank-set bootstrap's factor; summed over the
        item blocks in their order on every engine (None unless asked for).
    fit : FitSums or None
        Where some scores are missing, the additive fit's sums (the board's scores).
    """

    task: str
    models: tuple[str, ...]
    n_items: int
    shared: np.ndarray
    right: np.ndarray
    both_correct: np.ndarray
    blocks: int
    projection: np.ndarray | None = None
    fit: FitSums | None = None

    @property
    def complete(self) -> bool:
        """Every model scored every item."""
        return bool((np.diag(self.shared) == self.n_items).all())

    @property
    def ranked(self) -> np.ndarray:
        """The models a ranking lists: those with 2 or more scored items (indices)."""
        return np.flatnonzero(np.diag(self.shared) >= 2)

    def board(self, alpha: float = 0.05) -> tuple[np.ndarray, BoardScores]:
        """Return the ranked models (indices) and their board as the single machine lists
        it (:func:`evalgap.stats.board.board_scores`; its arrays follow the ranked models).

        On a complete board, :func:`~evalgap.stats.board.board_scores_from_counts`. With
        missing scores the score is the additive fit (from :attr:`fit`); the rank is one
        plus the models ahead on the items both scored, from the signs of the integer sums
        ``right[j, k] - right[k, j]`` (pairs sharing fewer than 2 items are not compared);
        equal ranks go by score, then by name. The score's standard error and interval sum
        per-item terms of the fit, which these sums do not hold: NaN.
        """
        kept = self.ranked
        names = np.array(self.models, dtype=object)[kept].astype(str)
        shared = self.shared[np.ix_(kept, kept)]
        right = self.right[np.ix_(kept, kept)]
        gap = (right - right.T) / np.maximum(shared, 1)
        gap[shared < 2] = np.nan
        if self.complete:
            return kept, board_scores_from_counts(np.diag(right), self.n_items, names, alpha=alpha)
        if self.fit is None:
            raise ValueError("a board with missing scores needs its fit's sums (fit=True)")
        f = self.fit
        n = np.diag(shared)
        score = additive_scores_from_sums(
            n, f.weighted[np.ix_(kept, kept)], f.share[kept], np.diag(right),
            f.item_mean_share[kept], f.item_mean_total, f.n_items,
        )  # fmt: skip
        rank = paired_rank(gap)
        order, against = listed_order(score, rank, names)
        upper, lower = order[:-1], order[1:]
        unknown = np.full(kept.size, np.nan)
        return kept, BoardScores(
            score=score, se=unknown, score_low=unknown, score_high=unknown,
            own_items_mean=np.diag(right) / n, n=n.astype(np.int64),
            rank=rank.astype(np.int64), order=order.astype(np.int64), interval="wilson",
            against=against, reversed=int((gap[upper, lower] < 0).sum()),
        )  # fmt: skip

    def counts(self, first: np.ndarray, second: np.ndarray) -> dict[str, np.ndarray]:
        """The 2x2 counts of the pairs ``(first[p], second[p])`` (indices into ``models``),
        A the first: ``both_correct, a_only, b_only, both_wrong`` (int64)."""
        both = self.both_correct[first, second]
        a_right = self.right[first, second]
        b_right = self.right[second, first]
        return {
            "both_correct": both,
            "a_only": a_right - both,
            "b_only": b_right - both,
            "both_wrong": self.shared[first, second] - a_right - b_right + both,
        }


def block_sums(
    path_a: str, models_a: Sequence[str], path_b: str, models_b: Sequence[str]
) -> np.ndarray:
    """Return the (4, Ka, Kb) int64 sums of one item block's models ``a`` against its models
    ``b``: shared items, a's right answers on them, b's, and both right.

    The work of one task of a distributed audit: it reads its two shards (one when
    ``path_a == path_b``) and takes the products of :func:`evalgap.stats.paired.pair_sums`
    (one product, :func:`~evalgap.stats.paired.pair_sums_observed`, where every item was
    scored), exact in float32 below 2^24 items, as integers.
    """
    codes_a = read_shard(path_a, models_a)
    same = path_a == path_b
    codes = codes_a if same else np.concatenate([codes_a, read_shard(path_b, models_b)])
    dtype = np.float32 if codes.shape[1] < EXACT_FLOAT32_ITEMS else np.float64
    scores = (codes == 1).astype(dtype)
    k = codes_a.shape[0]
    columns = slice(None) if same else slice(k, None)
    if (codes >= 0).all():  # every item scored: one product, the rest are totals
        sums = pair_sums_observed(scores, slice(0, k), columns)
    else:
        observed = (codes >= 0).astype(dtype)
        sums = pair_sums(scores, observed, slice(0, k), binary=True, columns=columns)
    assert sums.sum_o is not None  # both sides asked for
    return np.stack([sums.n, sums.sum_t, sums.sum_o, sums.sum_to]).round().astype(np.int64)


def block_projection(path: str, models: Sequence[str], start: int, n_items: int) -> np.ndarray:
    """Return one shard's models' sums of the canonical probe over their right answers:
    ``X_block' p[start:start + n]`` (float64)."""
    codes = read_shard(path, models)
    probe = canonical_probe(n_items)[start : start + codes.shape[1]]
    return np.asarray((codes == 1).astype(float) @ probe)


def item_counts(path: str, models: Sequence[str], left_out: Sequence[int] = ()) -> np.ndarray:
    """Return (2, n) int64 per item of one shard: the models that scored it and those that
    got it right, leaving out the shard's models at positions ``left_out`` (models with
    fewer than 2 scored items, which the fit leaves out)."""
    codes = read_shard(path, models)
    if len(left_out):
        codes = np.delete(codes, list(left_out), axis=0)
    return np.stack([(codes >= 0).sum(axis=0), (codes == 1).sum(axis=0)]).astype(np.int64)


def block_fit(
    path_a: str, models_a: Sequence[str], path_b: str, models_b: Sequence[str],
    counts: np.ndarray,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Return one item block's sums of the additive fit (:class:`FitSums`) of models ``a``
    against models ``b``: ``weighted`` (Ka, Kb) ``R_a' diag(1/m) R_b`` in float64, and
    where ``a`` and ``b`` are one block ``share`` and ``item_mean_share`` (Ka,).

    ``counts`` are the block's :func:`item_counts` summed over every model block: ``m``
    and the right answers per item (items no model scored weigh 0).
    """
    observed_a = (read_shard(path_a, models_a) >= 0).astype(float)
    same = path_a == path_b
    observed_b = observed_a if same else (read_shard(path_b, models_b) >= 0).astype(float)
    scored, right = counts
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(scored > 0, 1.0 / scored, 0.0)
    out = {"weighted": observed_a @ (observed_b * weight).T}
    if same:
        out["share"] = observed_a @ weight
        out["item_mean_share"] = observed_a @ (right * weight)
    return out


def _add(first: Any, second: Any) -> Any:
    """The sum of two partial sums: arrays, or dicts of arrays (key by key)."""
    if isinstance(first, dict):
        return {key: first[key] + second[key] for key in first}
    return first + second


Leaf = tuple[Callable[..., Any], tuple[Any, ...]]


class _Local:
    """Block tasks run in this process, one after another."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress

    def reduce(
        self, groups: list[list[Leaf]], label: str, consume: Callable[[int, Any], None]
    ) -> None:
        """Sum each group's leaves in a pairwise tree (the order every engine adds in) and
        hand each total to ``consume(group, total)``."""
        total, done = sum(len(g) for g in groups), 0
        for index, group in enumerate(groups):
            parts = []
            for function, args in group:
                parts.append(function(*args))
                done += 1
                if self.progress is not None:
                    self.progress(done, total, label)
            consume(index, _tree(parts, _add))

    def put(self, value: Any) -> Any:
        return value


class _Cluster:
    """Block tasks on the workers of a dask.distributed cluster, each group's partial sums
    added on the workers; the totals gathered one at a time as they finish."""

    def __init__(self, client: Any, progress: Progress | None) -> None:
        self.client, self.progress = client, progress

    def reduce(
        self, groups: list[list[Leaf]], label: str, consume: Callable[[int, Any], None]
    ) -> None:
        from distributed import as_completed

        submit = self.client.submit
        leaves: set[str] = set()
        roots: dict[str, int] = {}
        watched: list[Any] = []
        for index, group in enumerate(groups):
            parts = [submit(function, *args, pure=False) for function, args in group]
            root = _tree(parts, lambda p, q: submit(_add, p, q, pure=False))
            leaves.update(p.key for p in parts)
            roots[root.key] = index
            watched.extend(parts if root.key in leaves else [*parts, root])
        del parts, root
        total, done = len(leaves), 0
        finished = as_completed(watched)
        del watched  # a leaf's partial sums are freed once its tree has added them
        # every leaf and root as it finishes: a leaf advances the bar, a root is gathered
        # and consumed at once (the client holds one group's total at a time)
        for future in finished:
            if future.key in leaves:
                done += 1
                if self.progress is not None:
                    self.progress(done, total, label)
            if future.key in roots:
                consume(roots[future.key], future.result())
            del future

    def put(self, value: Any) -> Any:
        return self.client.scatter(value)


def _tree(parts: list[Any], add: Callable[[Any, Any], Any]) -> Any:
    """``parts`` added in a pairwise tree, in one fixed order on every engine."""
    while len(parts) > 1:
        pairs = zip(parts[::2], parts[1::2], strict=False)
        parts = [add(p, q) for p, q in pairs] + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def board_sums(
    folder: str | Path,
    *,
    engine: str = "local",
    scheduler: str | None = None,
    tasks: Sequence[str] | None = None,
    projection: bool = False,
    fit: bool = True,
    progress: Progress | None = None,
) -> list[BoardSums]:
    """Return every task's pair sums over a board in Parquet shards.

    Parameters
    ----------
    folder : str or Path
        The shards folder (:func:`evalgap.io.shards.write_shards`).
    engine : {"local", "dask"}
        ``local``: every block in this process, one after another; ``dask``: the blocks
        as tasks of a dask.distributed cluster, reduced on its workers.
    scheduler : str, optional
        The Dask scheduler's address (``tcp://host:8786``); default the environment
        variable ``EVALGAP_SCHEDULER``. Only with ``engine="dask"``.
    tasks : list of str, optional
        Only these tasks.
    projection : bool
        Also each model's ``projection`` (for the rank sets), on a complete board.
    fit : bool
        Where some scores are missing, also the additive fit's sums (:class:`FitSums`,
        the board's order): a second pass over the shards.
    progress : callable, optional
        Called as ``progress(done, total, phase)`` as each block task finishes.

    Returns
    -------
    list of BoardSums
        One per task, equal integers on every engine (and equal floats: every sum is added
        in the same order).
    """
    check_engine(engine, scheduler)
    board = read_manifest(folder)
    if tasks is not None:
        unknown = [t for t in tasks if t not in {b.task for b in board}]
        if unknown:
            raise InputError(
                "{tasks}" + escape(f": no such task in {folder}"), param="tasks", tasks=unknown[0]
            )
        board = [b for b in board if b.task in tasks]
    for task in board:
        check_client_memory(task, CLIENT_BYTES_PER_PAIR)
    if engine == "local":
        return [_sums(t, _Local(progress), projection, fit) for t in board]
    with _client(scheduler) as client:
        return [_sums(t, _Cluster(client, progress), projection, fit) for t in board]


def _sums(task: ShardTask, runner: _Local | _Cluster, projection: bool, fit: bool) -> BoardSums:
    sums = _task_sums(task, runner)
    if fit and not sums.complete:
        sums = _with_fit(sums, task, runner)
    if projection and sums.complete:  # the rank sets from sums are a complete board's
        sums = _with_projection(sums, task, runner)
    return sums


def _task_sums(task: ShardTask, runner: _Local | _Cluster) -> BoardSums:
    """One task's (K, K) sums from its model-block pairs (a <= b), each summed over the item
    blocks on the runner and placed as it arrives."""
    k = len(task.models)
    names = _block_names(task)
    pairs = _block_pairs(task)
    out = np.zeros((3, k, k), dtype=np.int64)

    def place(index: int, s: np.ndarray) -> None:
        a, b = pairs[index]
        ra, rb = slice(*task.model_blocks[a]), slice(*task.model_blocks[b])
        out[0, ra, rb], out[1, ra, rb], out[2, ra, rb] = s[0], s[1], s[3]
        if a != b:  # the mirror block: b's rows against a's columns
            out[0, rb, ra], out[1, rb, ra], out[2, rb, ra] = s[0].T, s[2].T, s[3].T

    groups = [
        [(block_sums, (row[a], names[a], row[b], names[b])) for row in task.shards]
        for a, b in pairs
    ]  # one leaf per item block
    runner.reduce(groups, "pair sums", place)
    return BoardSums(
        task=task.task, models=task.models, n_items=task.n_items, shared=out[0],
        right=out[1], both_correct=out[2], blocks=sum(len(g) for g in groups),
    )  # fmt: skip


def _block_names(task: ShardTask) -> list[Sequence[str]]:
    return [task.models[m0:m1] for m0, m1 in task.model_blocks]


def _block_pairs(task: ShardTask) -> list[tuple[int, int]]:
    blocks = range(len(task.model_blocks))
    return [(a, b) for a in blocks for b in blocks if a <= b]


def _with_fit(sums: BoardSums, task: ShardTask, runner: _Local | _Cluster) -> BoardSums:
    """``sums`` with the additive fit's sums: the models scoring each item (a pass over
    every shard, summed over the model blocks), then per model-block pair the products
    weighted by them, summed over the item blocks."""
    k = len(task.models)
    check_client_memory(task, CLIENT_BYTES_PER_PAIR + FIT_BYTES_PER_PAIR)
    names = _block_names(task)
    left_out = np.diag(sums.shared) < 2  # not ranked: not in the fit either
    dropped = [np.flatnonzero(left_out[m0:m1]) for m0, m1 in task.model_blocks]
    per_item: list[np.ndarray] = [np.zeros((2, 0), dtype=np.int64)] * len(task.item_blocks)

    def keep(index: int, counts: np.ndarray) -> None:
        per_item[index] = counts

    groups = [
        [(item_counts, (path, names[j], dropped[j])) for j, path in enumerate(row)]
        for row in task.shards
    ]  # one group per item block, a leaf per model block
    runner.reduce(groups, "item counts", keep)
    scored_items = sum(int((c[0] > 0).sum()) for c in per_item)
    item_mean_total = 0.0
    for c in per_item:  # in item order on every engine
        with np.errstate(divide="ignore", invalid="ignore"):
            item_mean_total += float(np.where(c[0] > 0, c[1] / c[0], 0.0).sum())
    counts = [runner.put(c) for c in per_item]
    pairs = _block_pairs(task)
    weighted = np.zeros((k, k))
    share, item_mean_share = np.zeros(k), np.zeros(k)

    def place(index: int, s: dict[str, np.ndarray]) -> None:
        a, b = pairs[index]
        ra, rb = slice(*task.model_blocks[a]), slice(*task.model_blocks[b])
        weighted[ra, rb] = s["weighted"]
        weighted[rb, ra] = s["weighted"].T
        if a == b:
            share[ra], item_mean_share[ra] = s["share"], s["item_mean_share"]

    fits = [
        [
            (block_fit, (row[a], names[a], row[b], names[b], counts[i]))
            for i, row in enumerate(task.shards)
        ]
        for a, b in pairs
    ]
    runner.reduce(fits, "fit sums", place)
    fitted = FitSums(weighted, share, item_mean_share, item_mean_total, scored_items)
    blocks = sums.blocks + sum(map(len, groups)) + sum(map(len, fits))
    return dataclasses.replace(sums, fit=fitted, blocks=blocks)


def _with_projection(sums: BoardSums, task: ShardTask, runner: _Local | _Cluster) -> BoardSums:
    """``sums`` with each model's projection: per model block, the item blocks' parts
    added in the same tree on every engine, so every engine gives the same floats."""
    projection = np.zeros(len(task.models))

    def place(index: int, total: np.ndarray) -> None:
        projection[slice(*task.model_blocks[index])] = total

    groups = [
        [
            (block_projection, (task.shards[i][j], task.models[m0:m1], i0, task.n_items))
            for i, (i0, _) in enumerate(task.item_blocks)
        ]
        for j, (m0, m1) in enumerate(task.model_blocks)
    ]
    runner.reduce(groups, "projections", place)
    return dataclasses.replace(sums, projection=projection)


def available_memory() -> int | None:
    """This machine's available memory in bytes (Linux's MemAvailable), or None unknown."""
    try:
        with open("/proc/meminfo") as lines:
            for line in lines:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_client_memory(task: ShardTask, bytes_per_pair: int) -> None:
    """Refuse a task whose (K, K) totals the client could not hold, before any block runs:
    ``bytes_per_pair K^2`` and one model-block pair's partial sums in flight
    (``BLOCK_BYTES_PER_PAIR m^2``) against the memory available."""
    k = len(task.models)
    block = max((m1 - m0 for m0, m1 in task.model_blocks), default=0)
    need, available = bytes_per_pair * k**2 + BLOCK_BYTES_PER_PAIR * block**2, available_memory()
    if available is None or need <= available:
        return
    largest = int(max(available - BLOCK_BYTES_PER_PAIR * block**2, 0) / bytes_per_pair) ** 0.5
    raise InputError(
        "{engine}"
        + escape(
            f": task {task.task!r} has {k:,} models, whose pair totals ({bytes_per_pair} "
            f"bytes x {k:,}^2, with a block of {block:,} models in flight: "
            f"{need / 2**30:.1f} GiB) the client assembles in memory, and "
            f"{available / 2**30:.1f} GiB is available here (room for {int(largest):,} "
            "models); run the command where more memory is free, or export the board's "
            "models in groups that fit"
        ),
        param="engine",
    )


def check_engine(engine: str, scheduler: str | None) -> None:
    """Refuse an unknown engine, and a scheduler given to the local engine."""
    if engine not in ENGINES:
        raise InputError(
            "{engine}" + escape(f": must be one of {', '.join(ENGINES)}"),
            param="engine",
            engine=engine,
        )
    if engine == "local" and scheduler is not None:
        raise InputError(
            "{scheduler}: goes with {engine=dask}; the local engine uses no scheduler",
            param="scheduler",
        )


def _client(scheduler: str | None) -> Any:
    """A client of the Dask scheduler at ``scheduler`` (or $EVALGAP_SCHEDULER)."""
    address = scheduler or os.environ.get(SCHEDULER_VARIABLE)
    if not address:
        raise InputError(
            "{engine=dask} needs a scheduler: give {scheduler=ADDRESS} (tcp://host:8786) or "
            "set " + SCHEDULER_VARIABLE,
            param="scheduler",
        )
    try:
        from distributed import Client
    except ImportError:
        raise InputError(
            "{engine=dask} needs dask.distributed: pip install 'evalgap[distributed]'",
            param="engine",
        ) from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(
            "{scheduler}" + escape(f": no Dask scheduler answered at {address} ({error})"),
            param="scheduler",
            scheduler=address,
        ) from None
