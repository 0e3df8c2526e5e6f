"""Detect each path's source and read it, through the rows of :mod:`evalgap.io.registry`.

:func:`evalgap.load_scores` and the results store read files here; nothing in this module
names a source: what a source is, how it is recognised and read, is its registry row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io import registry, tables
from evalgap.io.options import LoadOptions
from evalgap.io.registry import Source, resolve

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = LazyModule("pandas")

# Options that name columns of a score table; a framework log has its own fields for these.
COLUMN_OPTIONS = ("run_column", "item_column", "score_column", "model_column", "task_column")


def detect_source(path: Path, *, model_column: str | None = None) -> str:
    """Return the name of the source of ``path`` (the first registry row claiming it).

    Parameters
    ----------
    path : Path
        A file or a directory.
    model_column : str, optional
        A table's model column: a Parquet file holding it is a table.

    Returns
    -------
    str
        The source's name; a directory holding outputs of several sources, or nothing
        any source recognises, raises :class:`~evalgap.errors.InputError`.
    """
    return _detect(Path(path), LoadOptions(model_column=model_column))


def source_of(path: Path, options: LoadOptions) -> str:
    """Return the source to read ``path`` as: the one ``options.fmt`` forces, else detected."""
    if options.layout == "wide":  # a wide layout is a table's, whatever the format says
        return _fallback().name
    if options.fmt is not None:
        for row in registry.SOURCES:
            if options.fmt == row.name or options.fmt in row.format_names:
                return row.name
        raise InputError(
            "{fmt} must be one of " + escape(", ".join(registry.format_names())) + "; got {got!r}",
            param="fmt",
            got=options.fmt,
        )
    return _detect(path, options)


def directory_sources(path: Path, options: LoadOptions | None = None) -> list[str]:
    """Every source with outputs in a directory; the fallback (tables) only where none is."""
    options = options or LoadOptions()
    rows = registry.SOURCES
    found = [row.name for row in rows if not row.fallback and resolve(row.detect)(path, options)]
    return found or [
        row.name for row in rows if row.fallback and resolve(row.detect)(path, options)
    ]


def read_paths(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read files and directories, any mix of sources, into one long table.

    Paths of one source are read together, so that identity checks (the same model in two
    folders, a re-ordered dataset, task variants) see every log at once; a directory of a
    source read file by file (tables) is read as its files, each alone. The item file of
    ``options.items`` is applied last.
    """
    groups: dict[str, list[Path]] = {}
    parts: list[LongScores] = []
    left_out: list[str] = []
    for path in paths:
        row = registry.source_named(source_of(path, options))
        if row.files is not None:
            files, notes = resolve(row.files)(path, options) if path.is_dir() else ([path], [])
            parts.extend(_read([f], options, row) for f in files)
            left_out.extend(notes)
        else:
            groups.setdefault(row.name, []).append(path)
    for name, group in groups.items():
        row = registry.source_named(name)
        parts.append(_read(group, options, row))
        left_out.extend(n for path in group for n in unread_tables(path, row))
    if len(parts) == 1:
        result = parts[0]
    else:
        frame = pd.concat([p.frame for p in parts], ignore_index=True)
        if "run" in frame.columns:  # a source without runs has one run per item
            frame["run"] = frame["run"].astype(object).where(frame["run"].notna(), "1")
        result = LongScores(
            frame,
            ", ".join(p.source for p in parts),
            parts[0].columns,
            tuple(n for p in parts for n in p.notes),
        )
    if left_out:
        result = dataclasses.replace(result, notes=(*result.notes, *left_out))
    if options.items:
        result = tables.apply_item_file(
            result, options.items, cluster_column=options.cluster_column
        )
    return result


def source_files(path: Path, options: LoadOptions) -> tuple[list[Path], list[str]]:
    """The sources a path is: a directory of a source read file by file as its files (and
    notes on the files left out), any other path itself."""
    if path.is_dir():
        row = registry.source_named(source_of(path, options))
        if row.files is not None:
            return resolve(row.files)(path, options)
    return [path], []


def read_batches(path: Path, options: LoadOptions) -> tuple[dict, list[str], Iterator] | None:
    """A path read a frame at a time, ``(columns, notes, frames)``, or None to read it whole.

    Sources with a ``batches`` function stream (without an item file to join, which needs
    every row); ``notes`` is complete once the frames are exhausted.
    """
    if options.items or options.layout != "long" or options.config_columns:
        return None
    row = registry.source_named(source_of(path, options))
    streamed = resolve(row.batches)(path, options) if row.batches is not None else None
    if streamed is None:
        return None
    columns, notes, frames = streamed

    def with_unused_options() -> Iterator[Any]:
        yield from frames
        note = unused_table_options(options, row)
        if note is not None:
            notes.append(note)

    return columns, notes, with_unused_options()


def unread_tables(path: Path, row: Source) -> list[str]:
    """A note naming the table files in a source's directory that its reader does not read."""
    if not path.is_dir():
        return []
    used = resolve(row.reads_table) if row.reads_table is not None else (lambda p: False)
    left = [f.relative_to(path) for f in tables.table_files(path) if not used(f)]
    if not left:
        return []
    shown = ", ".join(map(str, left[:3])) + (", ..." if len(left) > 3 else "")
    return [
        f"{path}: {len(left):,} table file{'s' if len(left) > 1 else ''} beside the {row.name} "
        f"logs {'were' if len(left) > 1 else 'was'} not read ({shown}); give "
        f"{'them' if len(left) > 1 else 'it'} separately to read as scores"
    ]


def unused_table_options(options: LoadOptions, row: Source) -> str | None:
    """The note saying which table-column options a source's reader did not use, or None."""
    flags = {f.name: f.metadata["flag"] for f in dataclasses.fields(LoadOptions)}
    ignored = [
        flags[name] for name in COLUMN_OPTIONS if getattr(options, name) and name not in row.options
    ]
    if not ignored:
        return None
    return (
        f"{', '.join(ignored)} name{'s' if len(ignored) == 1 else ''} columns of score tables; "
        f"the {row.name} logs were read with their own fields, so "
        f"{'it was' if len(ignored) == 1 else 'they were'} not used"
    )


def _detect(path: Path, options: LoadOptions) -> str:
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        found = directory_sources(path, options)
        if len(found) > 1:
            raise InputError(
                f"{path}: holds outputs of several sources ({', '.join(found)}); give each "
                "source's files or directory separately"
            )
        if found:
            return found[0]
        raise InputError(
            escape(
                f"{path}: no evaluation outputs recognised in this directory "
                f"(looked for {', '.join(row.name for row in registry.SOURCES)}); give a file, "
            )
            + "or force a source with {fmt}",
            param="fmt",
        )
    for row in sorted(registry.SOURCES, key=lambda r: r.fallback):  # the fallback last
        if row.may_claim(path.name) and resolve(row.detect)(path, options):
            return row.name
    raise InputError(
        escape(f"{path}: not recognised as any source ({', '.join(registry.format_names())}); ")
        + "force one with {fmt}",
        param="fmt",
    )


def _fallback() -> Source:
    return next(row for row in registry.SOURCES if row.fallback)


def _read(paths: list[Path], options: LoadOptions, row: Source) -> LongScores:
    if options.config_columns and "config_columns" not in row.options:
        taking = ", ".join(r.name for r in registry.SOURCES if "config_columns" in r.options)
        raise InputError(
            escape(f"{paths[0]}: the {row.name} reader records no configurations, so ")
            + "{config_columns}"
            + escape(f" cannot be honoured ({taking} can); leave it out for these files"),
            param="config_columns",
        )
    result = resolve(row.read)(paths, options)
    note = unused_table_options(options, row)
    if note is None:
        return result
    return dataclasses.replace(result, notes=(*result.notes, note))
