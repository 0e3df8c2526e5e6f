"""Where a board's block sums are computed: in this process, or on a Dask cluster.

The statistics of a binary board that grow with its items are sums over items of products
of 0/1 matrices (:func:`evalgap.stats.paired.pair_sums`): shared items, each model's right
answers on them and the items both got right, for every pair. Over a board in Parquet
shards (:mod:`evalgap.io.shards`) they are computed one (item block, model block, model
block) at a time, each block's products exact in float32 and cast to int64, and the
blocks' integer sums added: the totals are the same integers whatever the order, the
number of workers or the engine. ``engine="local"`` computes the blocks in this process;
``engine="dask"`` on the workers of a dask.distributed scheduler (``scheduler=ADDRESS``
or the ``EVALGAP_SCHEDULER`` environment variable), which read their shards themselves:
the folder must be at the same path on every worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalgap.engine._names import ENGINES, SCHEDULER_VARIABLE

if TYPE_CHECKING:
    from evalgap.engine.sums import BoardSums, board_sums

__all__ = ["ENGINES", "SCHEDULER_VARIABLE", "BoardSums", "board_sums"]


def __getattr__(name: str) -> Any:
    # the sums (NumPy, the shard reader) are imported at their first use, not with the
    # command line's options
    if name in ("BoardSums", "board_sums"):
        from evalgap.engine import sums

        return getattr(sums, name)
    raise AttributeError(f"module 'evalgap.engine' has no attribute {name!r}")
