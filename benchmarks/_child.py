"""Run a benchmark step in a fresh process, so its peak memory is its own."""

from __future__ import annotations

import multiprocessing as mp


def in_child(target, *args):
    """Call ``target(*args, queue)`` in a spawned process and return what it puts on the queue."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    process = ctx.Process(target=target, args=(*args, queue))
    process.start()
    out = queue.get()
    process.join()
    return out
