"""What an engine reads: a shards folder named as the scores, and the options it refuses."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalgap.engine.sums import check_engine
from evalgap.errors import InputError, fields

__all__ = ["refuse_off_engine", "shards_folder"]


def shards_folder(scores: Any) -> str | None:
    """The shards folder ``scores`` names (a path, or a list of one path), or None."""
    from evalgap.io.shards import is_shards

    one = scores
    if isinstance(scores, (list, tuple)) and len(scores) == 1:
        one = scores[0]
    if isinstance(one, (str, Path)) and is_shards(one):
        return str(one)
    return None


def refuse_off_engine(
    folder: str | None,
    engine: str,
    scheduler: str | None,
    ignored: Sequence[str],
    *,
    source: str = "{scores=FOLDER}",
) -> None:
    """Refuse an unknown engine, a scheduler without ``engine="dask"``, the engine without a
    shards folder (``source`` says how the caller names it), and on one the options it would
    not honour (``ignored``, by name)."""
    check_engine(engine, scheduler)
    if folder is None:
        raise InputError(
            "{engine=dask} reads a binary board in Parquet shards: give "
            + source
            + ", a folder with a manifest.json, as evalgap store export writes one with its "
            "shard options; or leave {engine} at local",
            param="engine",
        )
    if ignored:
        raise InputError(
            fields(*ignored) + ": not for a board in Parquet shards (an engine sums the "
            "items' 2x2 counts; it reads no per-item option); leave it out, or audit the "
            "scores on one machine",
            param=ignored[0],
        )
