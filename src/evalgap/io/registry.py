"""The score sources evalgap reads: one row per source, in detection order.

Each source is one loader module and one :class:`Source` row of :data:`SOURCES`: its name,
the functions that recognise and read it, the :class:`~evalgap.io.options.LoadOptions`
fields its reader uses, and one line of help. Everything else is derived from the rows: the
detection of a path's source and its reading (:mod:`evalgap.io.reading`), the ``fmt=``
values and ``--format`` choices (:func:`format_names`), the list of sources in the
command-line help (:func:`format_help`) and the store's streaming of large sources.
Adding a source touches its module, its row and its tests.

The functions of a row are named ``"module:function"`` and imported on first use, so this
table (and the command-line help built from it) loads no loader and nothing heavy.

The contract of a row's functions:

- ``detect(path, options) -> bool``: whether the file or directory ``path`` is this
  source's. A directory holding outputs of two sources is refused, so detectors of
  directories should not claim what another source's detector claims. A file is given only
  to the detectors whose row's ``file_names`` match its name, so naming a table file loads
  no framework's loader; a row's ``file_names`` must match every file its detector claims.
- ``read(paths, options) -> LongScores``: read the paths (files or directories of this
  source, given together so identity checks see every log at once) into the long layout.
- ``batches(path, options)`` (optional): ``(columns, notes, frames)`` to stream one path
  into a results store a frame at a time, or None to have it read whole.
- ``reads_table(path) -> bool`` (optional): whether a table file in a directory of this
  source is one its reader reads; the others are named in a note (not read).
- ``files(path, options) -> (files, notes)`` (optional): a directory of this source is
  read as its files, each alone (as if each were given), with notes on those left out.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

Ref = str | Callable[..., Any]
"""A row's function: the function itself, or ``"module:function"`` imported on first use."""


def resolve(ref: Ref) -> Callable[..., Any]:
    """Return the function ``ref`` names (``"module:function"``), or ``ref`` if callable."""
    if callable(ref):
        return ref
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Source:
    """One score source: how it is recognised, read and described.

    Attributes
    ----------
    name : str
        The source's name in notes and messages (``fmt=name`` forces it).
    help : str
        One line for the command-line help: the files this source reads.
    detect : str or callable
        ``detect(path, options) -> bool``: ``path`` is this source's.
    read : str or callable
        ``read(paths, options) -> LongScores``.
    options : tuple of str
        The :class:`~evalgap.io.options.LoadOptions` fields ``read`` uses (beyond the
        selections every source takes); a table's column options given to a source that
        does not use them are said in a note.
    formats : tuple of str
        The ``fmt=`` / ``--format`` values that force this source; default: its name.
    batches : str or callable, optional
        ``batches(path, options)``: the path streamed into a store, or None (read whole).
    reads_table : str or callable, optional
        ``reads_table(path) -> bool``: the table files of this source's directories.
    files : str or callable, optional
        ``files(path, options) -> (files, notes)``: a directory read file by file.
    file_names : tuple of str, optional
        Case-sensitive glob patterns (:func:`fnmatch.fnmatchcase`) matching the name of every
        file ``detect`` can claim: a file whose name matches none is not given to ``detect``
        (nor its module imported). None (the default): any file. Directories are given to
        every detector.
    fallback : bool
        Tried after every other source; in a directory, counted only where no other
        source is found (frameworks' logs carry tables of their own). Its detector raises
        the error for a path no source recognises.
    """

    name: str
    help: str
    detect: Ref
    read: Ref
    options: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    batches: Ref | None = None
    reads_table: Ref | None = None
    files: Ref | None = None
    file_names: tuple[str, ...] | None = None
    fallback: bool = False

    @property
    def format_names(self) -> tuple[str, ...]:
        """The ``fmt=`` values that force this source."""
        return self.formats or (self.name,)

    def may_claim(self, name: str) -> bool:
        """Whether ``detect`` can claim a file named ``name`` (see ``file_names``)."""
        return self.file_names is None or any(fnmatchcase(name, p) for p in self.file_names)


# In detection order: a file is the first source whose detector claims it.
SOURCES: tuple[Source, ...] = (
    Source(
        "lm-eval",
        "samples_<task>_<stamp>.jsonl files or lm_eval --output_path dirs",
        detect="evalgap.io.lm_eval:detect",
        read="evalgap.io.lm_eval:read",
        # samples_<task>_<stamp>.json[l][.gz], and 0.4.0-0.4.2's <model_args>_<task>.jsonl
        file_names=("samples_*", "*.jsonl"),
        options=("metric", "filter_name", "all_runs", "model_name", "tasks", "config_columns"),
        reads_table="evalgap.io.lm_eval:is_lm_eval_path",
    ),
    Source(
        "helm",
        "HELM run dirs with per_instance_stats.json",
        detect="evalgap.io.helm:detect",
        read="evalgap.io.helm:read",
        file_names=("per_instance_stats.json",),
        options=("stat",),
    ),
    Source(
        "oll",
        "Open LLM Leaderboard details Parquet (v2 or v1), or --hub REPO",
        detect="evalgap.io.open_llm_leaderboard:detect",
        read="evalgap.io.open_llm_leaderboard:read",
        # details by name, the Hub's converted <config>/<split>/0000.parquet, or by columns
        file_names=("*.parquet",),
        options=("metric", "model_name", "all_runs"),
        batches="evalgap.io.open_llm_leaderboard:batches",
        reads_table="evalgap.io.open_llm_leaderboard:_is_details_name",
    ),
    Source(
        "inspect",
        "inspect_ai logs (.json or .eval)",
        detect="evalgap.io.inspect_logs:detect",
        read="evalgap.io.inspect_logs:read",
        file_names=("*.eval", "*.json"),
        options=("scorer", "score_key", "on_error", "reducer", "config_columns"),
    ),
    Source(
        "swebench",
        "SWE-bench run reports, or leaderboard results/results.json (+ --items)",
        detect="evalgap.io.swebench:detect",
        read="evalgap.io.swebench:read",
        # run reports, results/results.json and per-instance report.json
        file_names=("*.json",),
        options=("model_name",),
    ),
    Source(
        "mteb",
        "MTEB result JSON (<org>__<model>/<revision>/<Task>.json): one item per task",
        detect="evalgap.io.mteb:detect",
        read="evalgap.io.mteb:read",
        file_names=("*.json",),
        options=("model_name",),
    ),
    Source(
        "eee",
        "Every Eval Ever instance-level records (JSON lines)",
        detect="evalgap.io.eee:detect",
        read="evalgap.io.eee:read",
        file_names=("*.jsonl", "*.jsonl.gz"),
        reads_table="evalgap.io.eee:is_instance_file",
        formats=("eee", "every-eval-ever"),
    ),
    Source(
        "alpaca-eval",
        "AlpacaEval annotations.json (judge preferences vs a baseline)",
        detect="evalgap.io.alpaca_eval:detect",
        read="evalgap.io.alpaca_eval:read",
        # annotations.json, or any JSON array of records with AlpacaEval's fields
        file_names=("*.json",),
        options=("cluster_column",),
    ),
    Source(
        "table",
        "CSV/TSV/Parquet/JSONL (.gz ok), one row per (model, item); wide table: --layout wide",
        detect="evalgap.io.tables:detect",
        read="evalgap.io.tables:read",
        options=(
            "layout",
            "models_in",
            "item_column",
            "score_column",
            "model_column",
            "task_column",
            "run_column",
            "cluster_column",
            "model_columns",
            "config_columns",
        ),
        formats=("csv", "tsv", "parquet", "jsonl"),
        batches="evalgap.io.tables:batches",
        files="evalgap.io.tables:table_directory",
        fallback=True,
    ),
)


def source_named(name: str) -> Source:
    """Return the row of the source ``name`` (a name of :data:`SOURCES`)."""
    for row in SOURCES:
        if row.name == name:
            return row
    raise KeyError(name)


def format_names() -> tuple[str, ...]:
    """The ``fmt=`` values (the CLI's ``--format`` choices), in the order of :data:`SOURCES`."""
    return tuple(f for row in SOURCES for f in row.format_names)


def format_help() -> str:
    """The sources as help lines, one per source: its name and what it reads."""
    width = max(len(row.name) for row in SOURCES)
    return "\n".join(f"  {row.name:<{width}}  {row.help}" for row in SOURCES)
