"""One entry point for every input: detect each path's source and read it.

Every job (compare, audit, degrade, simulate) reads its scores through :func:`load_scores`,
so a loader written once serves all. Sources, detected from the path or forced with
``fmt``:

==============  ==========================================================================
``table``       long CSV/TSV/Parquet/JSONL table, optionally gzipped (``csv`` ... to force)
``wide``        a wide table (``layout="wide"``), models in columns or in rows
``lm-eval``     lm-evaluation-harness ``samples_<task>_<stamp>.jsonl`` files or output dirs
``oll``         Open LLM Leaderboard details Parquet (v2 lm-eval or v1 lighteval)
``inspect``     inspect_ai logs, ``.json`` or ``.eval``
``helm``        HELM run directories with ``per_instance_stats.json``
``alpaca-eval``  AlpacaEval ``annotations.json`` (an LLM judge's preferences vs a baseline)
==============  ==========================================================================
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io import alpaca_eval, helm, inspect_logs, lm_eval, open_llm_leaderboard, tables
from evalgap.io.options import LoadOptions

SOURCES = ("table", "lm-eval", "oll", "inspect", "helm", "alpaca-eval")
TABLE_FORMATS = tables.FORMATS


def detect_source(path: Path, *, model_column: str | None = None) -> str:
    """Return the source of ``path`` (see the module table), or raise listing the options.

    ``model_column`` names a table's model column: a Parquet file holding it is a table.
    """
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        found = directory_sources(path)
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
                f"(looked for {', '.join(SOURCES)}); "
            )
            + "give a file, or force a source with {fmt}",
            param="fmt",
        )
    if lm_eval.is_lm_eval_path(path):
        return "lm-eval"
    if helm.is_helm_path(path):
        return "helm"
    if inspect_logs.is_inspect_path(path):
        return "inspect"
    if alpaca_eval.is_annotations_path(path):
        return "alpaca-eval"
    if path.suffix == ".parquet" and open_llm_leaderboard.is_details_parquet(path, model_column):
        return "oll"
    tables.detect_format(path)  # raises with the list of supported formats
    return "table"


def load_scores(paths, options: LoadOptions | None = None) -> LongScores:
    """Read every path (files or directories, any mix of sources) into one long table.

    Parameters
    ----------
    paths : str, Path or list of them
        Score tables (CSV/TSV/Parquet/JSONL, optionally gzipped), lm-evaluation-harness
        outputs, Open LLM Leaderboard details, inspect_ai logs or HELM run directories; the
        source of each is detected (``options.fmt`` forces one).
    options : LoadOptions, optional
        How to read them: column names, layout, metric, filter, scorer...

    Returns
    -------
    LongScores
        One row per (model, task, item[, run]) with its score; ``notes`` say what was
        detected or left out. :func:`evalgap.align` turns it into aligned arrays.

    Examples
    --------
    >>> import evalgap
    >>> table = evalgap.load_scores("examples/two_models.csv")
    >>> sorted(set(table.frame["model"])), len(table.frame)
    (['model-x', 'model-y'], 4000)
    """
    if options is not None and not isinstance(options, LoadOptions):
        raise InputError(
            f"load_scores(options=...): expected a LoadOptions, got {type(options).__name__}"
        )
    options = options or LoadOptions()
    if options.store:
        if paths:
            raise InputError(
                "give either score files (paths=) or a results store (store=), not both"
            )
        from evalgap.io import store

        return store.load(options)  # every option honoured on the stored rows, or refused
    if isinstance(paths, (str, Path)):
        paths = [paths]
    elif paths is None or not hasattr(paths, "__iter__"):
        raise InputError(
            "load_scores(paths=...): expected a path or a list of paths, "
            f"got {type(paths).__name__}"
        )
    if not all(isinstance(p, (str, Path)) for p in paths):
        bad = next(p for p in paths if not isinstance(p, (str, Path)))
        raise InputError(
            "load_scores(paths=...): every path must be a string or a Path, "
            f"got {type(bad).__name__}"
        )
    paths = [Path(p) for p in paths]
    if not paths:
        raise InputError("no score files given; pass paths=FILE (repeatable)")
    # Paths of one framework are read together, so that identity checks (the same model in
    # two folders, a re-ordered dataset, task variants) see every log at once.
    groups: dict[str, list[Path]] = {}
    parts = []
    left_out: list[str] = []
    for path in paths:
        source = _source(path, options)
        if source == "table":
            files, notes = table_directory(path, options) if path.is_dir() else ([path], [])
            parts.extend(_load_one([f], options, source) for f in files)
            left_out.extend(notes)
        else:
            groups.setdefault(source, []).append(path)
    for source, group in groups.items():
        parts.append(_load_one(group, options, source))
        left_out.extend(n for path in group for n in unread_tables(path, source))
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


def directory_sources(path: Path) -> list[str]:
    """Every source with outputs in a directory: frameworks' logs, else score tables."""
    found = [
        source
        for source, present in (
            ("lm-eval", lm_eval.is_lm_eval_path),
            ("helm", helm.is_helm_path),
            ("oll", open_llm_leaderboard.is_details_parquet),
            (
                "inspect",
                lambda d: (
                    any(True for _ in d.rglob("*.eval"))
                    or any(inspect_logs.is_inspect_path(p) for p in d.rglob("*.json"))
                ),
            ),
            (
                "alpaca-eval",
                lambda d: any(
                    alpaca_eval.is_annotations_path(p) for p in d.rglob(alpaca_eval.FILE)
                ),
            ),
        )
        if present(path)
    ]
    # Logs carry tables of their own (lm-eval's JSONL samples, OLL's Parquet): tables count
    # only where no framework was found.
    return found or (["table"] if table_files(path) else [])


def table_files(path: Path) -> list[Path]:
    """The files under a directory whose names say a table (CSV/TSV/Parquet/JSONL), sorted.

    Hidden files and folders (``.ipynb_checkpoints``...) are passed over; so are ``.txt``
    files, tab-separated when given by name, but notes and READMEs in a directory.
    """
    found = []
    for p in sorted(path.rglob("*")):
        hidden = any(part.startswith(".") for part in p.relative_to(path).parts)
        if hidden or not p.is_file() or ".txt" in p.suffixes:
            continue
        try:
            tables.detect_format(p)
        except InputError:
            continue
        found.append(p)
    return found


def table_directory(path: Path, o: LoadOptions) -> tuple[list[Path], list[str]]:
    """The score tables of a directory of tables, and a note for each table left out.

    A directory with no framework logs is read as its score tables, in file-name order (as
    if each were given): every table with a model and a score column (named by the options,
    or detected). A table without them (an item list, a model card) is left out and said, as
    is a table of another format than a forced ``fmt``. A wide table is read from its file.
    """
    if o.layout == "wide":
        raise InputError(
            escape(f"{path}: is a directory; ") + "{layout=wide} reads one table: give the file",
            param="layout",
        )
    files = table_files(path)
    if not files:
        raise InputError(f"{path}: no table files (CSV/TSV/Parquet/JSONL) in this directory")
    scores, notes = [], []
    item_file = Path(o.items).resolve() if o.items else None
    for f in files:
        if o.fmt in TABLE_FORMATS and tables.detect_format(f) != o.fmt:
            notes.append(f"{f}: not {o.fmt} (fmt={o.fmt!r} was given), so not read (left out)")
        elif tables.is_score_table(f, model_column=o.model_column, score_column=o.score_column):
            scores.append(f)
        elif f.resolve() != item_file:
            notes.append(
                f"{f}: no model or score column, so not read as scores (left out); give it "
                "as the item file (--items) if it describes the items, or alone with "
                "--layout wide if it is a wide table"
            )
    if not scores:
        raise InputError(
            escape(f"{path}: none of its {len(files)} table files has a model and a score column; ")
            + "name them with {model_column} and {score_column}, or give the file",
            param="model_column",
        )
    return scores, notes


# The table files a framework's reader takes from its directory (the others it leaves).
FRAMEWORK_TABLES = {
    "lm-eval": lm_eval.is_lm_eval_path,
    "oll": open_llm_leaderboard._is_details_name,
}


def unread_tables(path: Path, source: str) -> list[str]:
    """A note naming the table files in a framework's directory that its reader does not read."""
    if not path.is_dir():
        return []
    used = FRAMEWORK_TABLES.get(source, lambda p: False)
    left = [f.relative_to(path) for f in table_files(path) if not used(f)]
    if not left:
        return []
    shown = ", ".join(map(str, left[:3])) + (", ..." if len(left) > 3 else "")
    return [
        f"{path}: {len(left):,} table file{'s' if len(left) > 1 else ''} beside the {source} "
        f"logs {'were' if len(left) > 1 else 'was'} not read ({shown}); give "
        f"{'them' if len(left) > 1 else 'it'} separately to read as scores"
    ]


def _source(path: Path, o: LoadOptions) -> str:
    if o.fmt in TABLE_FORMATS or o.layout == "wide":
        return "table"
    if o.fmt in SOURCES:
        return o.fmt
    if o.fmt is not None:
        raise InputError(
            f"fmt= must be one of {', '.join(SOURCES[1:] + TABLE_FORMATS)}; got {o.fmt!r}"
        )
    return detect_source(path, model_column=o.model_column)


# Options that name columns of a score table; a framework log has its own fields for these.
TABLE_ONLY_OPTIONS = {
    "run_column": "--run-column",
    "item_column": "--item-column",
    "score_column": "--score-column",
    "model_column": "--model-column",
    "task_column": "--task-column",
}


def _load_one(paths: list[Path], o: LoadOptions, source: str) -> LongScores:
    result = _read_source(paths, o, source)
    note = unused_table_options(o, source)
    if note is None:
        return result
    return dataclasses.replace(result, notes=(*result.notes, note))


def unused_table_options(o: LoadOptions, source: str) -> str | None:
    """The note saying which table-column options a framework's logs did not use, or None."""
    ignored = [flag for name, flag in TABLE_ONLY_OPTIONS.items() if getattr(o, name)]
    if source == "table" or not ignored:
        return None
    return (
        f"{', '.join(ignored)} name{'s' if len(ignored) == 1 else ''} columns of score tables; "
        f"the {source} logs were read with their own fields, so "
        f"{'it was' if len(ignored) == 1 else 'they were'} not used"
    )


def _read_source(paths: list[Path], o: LoadOptions, source: str) -> LongScores:
    path = paths if source != "table" else paths[0]
    table_fmt = o.fmt if o.fmt in TABLE_FORMATS else None
    metric = list(o.metric) or None
    if source == "lm-eval":
        return lm_eval.read_lm_eval(
            path,
            metric=metric,
            filter_name=o.filter_name,
            all_runs=o.all_runs,
            model_name=o.model_name,
            tasks=tuple(o.tasks) or None,
        )
    if source == "oll":
        return open_llm_leaderboard.read_details(
            path, metric=metric, model_name=o.model_name, all_runs=o.all_runs
        )
    if source == "inspect":
        return inspect_logs.read_inspect(
            path, scorer=o.scorer, score_key=o.score_key, on_error=o.on_error, reducer=o.reducer
        )
    if source == "helm":
        return helm.read_helm(path, stat=o.stat)
    if source == "alpaca-eval":
        return alpaca_eval.read_annotations(path, cluster_column=o.cluster_column)
    if o.layout == "wide":
        return tables.read_wide_table(
            path,
            fmt=table_fmt,
            models_in=o.models_in,
            item_column=o.item_column,
            task_column=o.task_column,
            model_column=o.model_column,
            cluster_column=None if o.items else o.cluster_column,
            model_columns=list(o.model_columns) or None,
            exclude_columns=(o.cluster_column,) if o.items else (),
        )
    if o.layout != "long":
        raise InputError(f"layout= must be 'long' or 'wide'; got {o.layout!r}")
    return tables.read_long_table(
        path,
        fmt=table_fmt,
        model_column=o.model_column,
        item_column=o.item_column,
        score_column=o.score_column,
        task_column=o.task_column,
        run_column=o.run_column,
        cluster_column=None if o.items else o.cluster_column,
        exclude_columns=(o.cluster_column,) if o.items else (),
    )
