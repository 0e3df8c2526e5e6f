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
from evalgap.stats.paired import pair_sums, pair_sums_observed
from evalgap.stats.ranks import canonical_probe

__all__ = [
    "ENGINES",
    "SCHEDULER_VARIABLE",
    "BoardSums",
    "block_projection",
    "block_sums",
    "board_sums",
]

# float32 products of 0/1 matrices are exact integers while a block's sums stay below 2^24
EXACT_FLOAT32_ITEMS = 2**24


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
        The (item block, model block, model block) products computed.
    projection : numpy.ndarray or None
        Each model's sum of :func:`evalgap.stats.ranks.canonical_probe` over its right
        answers (``X' p``), which orders the rank-set bootstrap's factor; summed over the
        item blocks in their order on every engine (None unless asked for).
    """

    task: str
    models: tuple[str, ...]
    n_items: int
    shared: np.ndarray
    right: np.ndarray
    both_correct: np.ndarray
    blocks: int
    projection: np.ndarray | None = None

    @property
    def complete(self) -> bool:
        """Every model scored every item."""
        return bool((np.diag(self.shared) == self.n_items).all())

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


def _add(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    return first + second


def board_sums(
    folder: str | Path,
    *,
    engine: str = "local",
    scheduler: str | None = None,
    tasks: Sequence[str] | None = None,
    projection: bool = False,
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
        Also each model's ``projection`` (for the rank sets).

    Returns
    -------
    list of BoardSums
        One per task, equal integers on every engine.
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
    if engine == "local":
        sums = [_task_sums(t, _run_local) for t in board]
        if projection:
            pairs = zip(sums, board, strict=True)
            sums = [_with_projection(s, t, _project_local) for s, t in pairs]
        return sums
    with _client(scheduler) as client:
        sums = [_task_sums(t, _on_cluster(client)) for t in board]
        if projection:
            run = _project_on_cluster(client)
            sums = [_with_projection(s, t, run) for s, t in zip(sums, board, strict=True)]
        return sums


Projections = list[tuple[str, Sequence[str], int, int]]


def _with_projection(
    sums: BoardSums, task: ShardTask, run: Callable[[Projections], list[np.ndarray]]
) -> BoardSums:
    """``sums`` with each model's projection: the blocks' parts added over the item blocks in
    their order on the client, so every engine gives the same floats."""
    jobs: Projections = [
        (task.shards[i][j], task.models[m0:m1], i0, task.n_items)
        for j, (m0, m1) in enumerate(task.model_blocks)
        for i, (i0, _) in enumerate(task.item_blocks)
    ]
    parts = iter(run(jobs))
    projection = np.zeros(len(task.models))
    for m0, m1 in task.model_blocks:
        total = np.zeros(m1 - m0)
        for _ in task.item_blocks:
            total += next(parts)
        projection[m0:m1] = total
    return dataclasses.replace(sums, projection=projection)


def _project_local(jobs: Projections) -> list[np.ndarray]:
    return [block_projection(*job) for job in jobs]


def _project_on_cluster(client: Any) -> Callable[[Projections], list[np.ndarray]]:
    def run(jobs: Projections) -> list[np.ndarray]:
        return list(client.gather([client.submit(block_projection, *j, pure=False) for j in jobs]))

    return run


Jobs = list[tuple[int, int, list[tuple[str, Sequence[str], str, Sequence[str]]]]]


def _task_sums(
    task: ShardTask, run: Callable[[Jobs], dict[tuple[int, int], np.ndarray]]
) -> BoardSums:
    """Assemble one task's (K, K) sums from its model-block pairs (a <= b), each summed
    over the item blocks by ``run``."""
    k = len(task.models)
    names: list[Sequence[str]] = [task.models[m0:m1] for m0, m1 in task.model_blocks]
    jobs: Jobs = []
    for a in range(len(task.model_blocks)):
        for b in range(a, len(task.model_blocks)):
            shards = [
                (row[a], names[a], row[b], names[b]) for row in task.shards
            ]  # one per item block
            jobs.append((a, b, shards))
    totals = run(jobs)
    out = np.zeros((3, k, k), dtype=np.int64)
    for (a, b), s in totals.items():
        ra, rb = slice(*task.model_blocks[a]), slice(*task.model_blocks[b])
        out[0, ra, rb], out[1, ra, rb], out[2, ra, rb] = s[0], s[1], s[3]
        if a != b:  # the mirror block: b's rows against a's columns
            out[0, rb, ra], out[1, rb, ra], out[2, rb, ra] = s[0].T, s[2].T, s[3].T
    return BoardSums(
        task=task.task, models=task.models, n_items=task.n_items, shared=out[0],
        right=out[1], both_correct=out[2], blocks=sum(len(s) for *_, s in jobs),
    )  # fmt: skip


def _run_local(jobs: Jobs) -> dict[tuple[int, int], np.ndarray]:
    totals = {}
    for a, b, shards in jobs:
        total = block_sums(*shards[0])
        for shard in shards[1:]:
            total += block_sums(*shard)
        totals[a, b] = total
    return totals


def _on_cluster(client: Any) -> Callable[[Jobs], dict[tuple[int, int], np.ndarray]]:
    def run(jobs: Jobs) -> dict[tuple[int, int], np.ndarray]:
        reduced = {}
        for a, b, shards in jobs:
            parts = [client.submit(block_sums, *shard, pure=False) for shard in shards]
            while len(parts) > 1:  # a pairwise tree of integer sums on the workers
                pairs = zip(parts[::2], parts[1::2], strict=False)
                parts = [client.submit(_add, p, q, pure=False) for p, q in pairs] + (
                    [parts[-1]] if len(parts) % 2 else []
                )
            reduced[a, b] = parts[0]
        keys = list(reduced)
        values = client.gather([reduced[key] for key in keys])
        return dict(zip(keys, values, strict=True))

    return run


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
