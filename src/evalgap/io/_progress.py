"""The progress of the reads under way: a light module (no pandas), so the command line can
set it up around any job, reading or not, without loading the table readers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeAlias

Progress: TypeAlias = Callable[[int, int], object]

# The progress callback of the reads under way (set by the CLI around loading, so loaders
# called through several layers report without each layer passing it on).
_PROGRESS: ContextVar[Progress | None] = ContextVar("evalgap_read_progress", default=None)


@contextmanager
def reporting_progress(callback: Progress | None) -> Iterator[Progress | None]:
    """Within the block, table reads call ``callback(done_bytes, total_bytes)`` as they go."""
    token = _PROGRESS.set(callback)
    try:
        yield callback
    finally:
        _PROGRESS.reset(token)
