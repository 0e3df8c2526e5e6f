"""A binary board split into Parquet shards: item blocks x model blocks, with a manifest.

A folder holds ``manifest.json`` and, per task, one Parquet file per (item block, model
block): one int8 column per model of the block (1 right, 0 wrong, -1 not scored), one row
per item of the block. A worker of a distributed audit reads the shards of its blocks and
nothing else; the manifest says which models and items each shard holds, so every worker
and the client agree on the board's layout without reading the data.

The manifest (version 1)::

    {"format": "evalgap-shards", "version": 1,
     "tasks": [{"task": "mmlu", "models": ["a", "b", ...], "n_items": 20000,
                "item_blocks": [[0, 5000], ...], "model_blocks": [[0, 500], ...],
                "shards": [["mmlu/i0000-m0000.parquet", ...], ...]}]}

``shards[i][j]`` is the file of item block ``i`` and model block ``j`` (a path relative to
the folder).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evalgap.errors import InputError, escape

__all__ = ["MANIFEST", "ShardTask", "is_shards", "read_manifest", "read_shard", "write_shards"]

MANIFEST = "manifest.json"
FORMAT = "evalgap-shards"


@dataclass(frozen=True)
class ShardTask:
    """One task of a sharded board: its models, items and the file of every block.

    Attributes
    ----------
    task : str
        The task's name.
    models : tuple of str
        Every model, in the board's column order (model blocks are ranges of it).
    n_items : int
        Items of the task.
    item_blocks, model_blocks : tuple of (int, int)
        The [start, stop) ranges of items and of models, in order.
    shards : tuple of tuple of str
        ``shards[i][j]``: the absolute path of item block i, model block j.
    """

    task: str
    models: tuple[str, ...]
    n_items: int
    item_blocks: tuple[tuple[int, int], ...]
    model_blocks: tuple[tuple[int, int], ...]
    shards: tuple[tuple[str, ...], ...]


def is_shards(path: str | Path) -> bool:
    """Return True when ``path`` is a folder holding a shards manifest."""
    return Path(path).is_dir() and (Path(path) / MANIFEST).is_file()


def _blocks(total: int, size: int) -> list[tuple[int, int]]:
    return [(start, min(start + size, total)) for start in range(0, max(total, 1), size)]


def write_shards(
    folder: str | Path,
    tasks: Iterable[tuple[str, Sequence[str], np.ndarray]],
    *,
    shard_items: int,
    shard_models: int,
) -> list[ShardTask]:
    """Write binary boards as Parquet shards and their manifest into ``folder`` (created;
    it must be empty or absent).

    Parameters
    ----------
    folder : str or Path
        The folder to write.
    tasks : iterable of (str, list of str, numpy.ndarray)
        Per task its name, its models and their int8 codes (models, items): 1, 0, or -1
        where a model has no score.
    shard_items, shard_models : int
        Items and models per shard (the last block of each takes what is left).

    Returns
    -------
    list of ShardTask
        The tasks written, as :func:`read_manifest` reads them back.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name, value in (("shard_items", shard_items), ("shard_models", shard_models)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(
                "{" + name + "}: must be a whole number >= 1", param=name, **{name: value}
            )
    root = Path(folder)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise InputError(
            "{output}" + escape(": shards go into a new or empty folder; choose another"),
            param="output",
            output=str(folder),
        )
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for t_index, (task, models, codes) in enumerate(tasks):
        codes = np.asarray(codes, dtype=np.int8)
        items, model_blocks = (
            _blocks(codes.shape[1], shard_items),
            _blocks(len(models), shard_models),
        )
        (root / f"t{t_index:04d}").mkdir()
        files = []
        for i, (i0, i1) in enumerate(items):
            row = []
            for j, (m0, m1) in enumerate(model_blocks):
                relative = f"t{t_index:04d}/i{i:04d}-m{j:04d}.parquet"
                table = pa.table({str(models[k]): pa.array(codes[k, i0:i1]) for k in range(m0, m1)})
                pq.write_table(table, root / relative)
                row.append(relative)
            files.append(row)
        entries.append(
            {
                "task": task,
                "models": [str(m) for m in models],
                "n_items": int(codes.shape[1]),
                "item_blocks": items,
                "model_blocks": model_blocks,
                "shards": files,
            }
        )
    manifest = {"format": FORMAT, "version": 1, "tasks": entries}
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return read_manifest(root)


def read_manifest(folder: str | Path) -> list[ShardTask]:
    """Return the tasks of a shards folder, every shard's path made absolute.

    A folder without a manifest, or a manifest of another format or version, is refused in
    one line naming the folder.
    """
    root = Path(folder)
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        raise InputError(
            escape(
                f"{folder}: not a board in Parquet shards (no readable {MANIFEST}: {error}); "
                "evalgap store export writes one with its shard options"
            )
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(escape(f"{folder}/{MANIFEST}: not an evalgap shards manifest"))
    if manifest.get("version") != 1:
        raise InputError(
            escape(
                f"{folder}/{MANIFEST}: version {manifest.get('version')!r}; this evalgap "
                "reads version 1"
            )
        )
    return [
        ShardTask(
            task=str(t["task"]),
            models=tuple(t["models"]),
            n_items=int(t["n_items"]),
            item_blocks=tuple((int(a), int(b)) for a, b in t["item_blocks"]),
            model_blocks=tuple((int(a), int(b)) for a, b in t["model_blocks"]),
            shards=tuple(tuple(str(root.resolve() / f) for f in row) for row in t["shards"]),
        )
        for t in manifest["tasks"]
    ]


def read_shard(path: str, models: Sequence[str] | None = None) -> np.ndarray:
    """Return one shard's int8 codes as (models, items).

    ``models``, when given, are the names the manifest lists for the shard: a shard whose
    columns differ is refused (a folder changed after its manifest was written).
    """
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    if models is not None and list(table.column_names) != [str(m) for m in models]:
        raise InputError(
            escape(f"{path}: its models differ from the manifest's; export the board again")
        )
    if table.num_columns == 0:
        return np.zeros((0, table.num_rows), dtype=np.int8)
    return np.stack([c.to_numpy().astype(np.int8, copy=False) for c in table.columns])
