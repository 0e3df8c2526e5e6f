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


def installed_env(cache: str) -> dict[str, str]:
    """The environment of a command as an install runs it: bytecode cached (under ``cache``,
    so the source tree stays clean), and one BLAS thread for every process, as the command
    line sets for itself: otherwise a floor such as ``python -c "import numpy"`` starts
    OpenBLAS's threads, whose spinning adds CPU time evalgap's own processes do not spend."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def cpu_run(
    argv: list[str], env: dict[str, str] | None = None, codes: tuple[int, ...] = (0,)
) -> tuple[float, float]:
    """Run ``argv`` to completion (output discarded); return its (CPU, wall) seconds.

    CPU is user + system time of the child, read from ``RUSAGE_CHILDREN`` before and after:
    on a shared machine it moves far less than wall time with the load. An exit code outside
    ``codes`` raises.
    """
    import resource
    import subprocess
    import time

    def used() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    cpu, start = used(), time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if done.returncode not in codes:
        raise SystemExit(f"{argv[:3]} exited {done.returncode}: {done.stderr[-1000:]!r}")
    return used() - cpu, time.perf_counter() - start
