"""Read Open LLM Leaderboard per-item details, v2 and v1, as the Hub repositories hold them.

* **v2** (``open-llm-leaderboard/<org>__<model>-details``): lm-evaluation-harness sample
  records. As JSON lines (``<org>__<model>/samples_<task>_<stamp>.jsonl``, older runs JSON
  arrays) they are read by :mod:`evalgap.io.lm_eval`; this module reads them as Parquet:
  ``samples_<task>_<stamp>.parquet``, or the Hub's auto-converted Parquet
  ``<org>__<model>__<task>/<split>/0000.parquet`` (its ``latest`` split repeats the newest
  timestamped one and is skipped). Items are keyed on (task, ``doc_id``, filter) and the metric
  is chosen as for lm-eval logs (:func:`evalgap.io.lm_eval.default_metric`).
* **v1** (``details_<org>__<model>``, written by lighteval): ``<stamp>/details_<suite>|<task>|
  <shots>_<stamp>.parquet`` (the task is the middle part, e.g. ``arc:challenge``) with
  ``example``, ``full_prompt``, ``gold`` and ``metrics`` (a dict, or a dict written as a
  string), or, in the July-2023 schema, one column per metric; **no** document id. Items are
  keyed on a stable hash (the first 16 hex digits of SHA-256) of the example text, or of the
  full prompt where the example is empty; the k-th repeat of a text within a file is keyed
  ``<hash>#k``, so distinct documents with equal text are never merged. Items whose text
  differs between models cannot be paired and are reported as missing by the alignment. The
  default metric is the one the leaderboard displayed (:data:`V1_METRICS`).

The model name comes from ``model_name``, else from the details folder name
(``<org>__<model>-details`` or ``details_<org>__<model>`` becomes ``<org>/<model>``; a v1
timestamp folder is skipped). :func:`download_details` fetches a model's details from the
Hugging Face Hub when the optional ``huggingface_hub`` package is installed.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape, first_line
from evalgap.io._files import PathsArg, as_paths, expand
from evalgap.io.lm_eval import (
    Metric,
    check_metric_tasks,
    default_metric,
    folder_model,
    metric_rule,
    one_metric_per_task,
)
from evalgap.io.tables import CANDIDATES, read_frame

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

V2_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-:.]+)\.parquet$")
V1_FILE = re.compile(r"^details_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-:._]+)\.parquet$")
V1_COLUMNS = {"example", "full_prompt", "metrics"}
V1_TEXT = ("example", "full_prompt", "instruction")
V1_NOT_METRICS = {
    "gold",
    "gold_index",
    "choices",
    "truncated",
    "padded",
    "num_asked_few_shots",
    "num_effective_few_shots",
    "index",
    "idx",
}
CONVERTED = re.compile(r"^\d{4,5}\.parquet$")
STAMP_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}T[\d\-:._]+$")
# The metric the v1 leaderboard displayed per task (lighteval's harness tasks): length-normalised
# accuracy for ARC and HellaSwag, mc2 for TruthfulQA, accuracy elsewhere.
V1_METRICS = {"arc:challenge": "acc_norm", "hellaswag": "acc_norm", "truthfulqa:mc": "mc2"}


def is_details_parquet(path: Path, model_column: str | None = None) -> bool:
    """True for a details Parquet file (by name or columns), or a folder of them.

    A long score table may key its items by ``doc_id`` too; details never carry a model
    column (one of the detected names, or ``model_column`` when given).
    """
    if path.is_dir():
        return any(_is_details_name(p) for p in path.rglob("*.parquet"))
    if path.suffix != ".parquet":
        return False
    if _is_details_name(path):
        return True
    columns = set(_columns(path))
    has_model = any(c in columns for c in (*CANDIDATES["model"], model_column) if c)
    return ("doc_id" in columns and not has_model) or V1_COLUMNS <= columns


def read_details(
    paths: PathsArg,
    *,
    metric: Metric | None = None,
    model_name: str | None = None,
    all_runs: bool = False,
) -> LongScores:
    """Read Open LLM Leaderboard detail Parquet files or folders (v1 or v2) of many models.

    ``metric`` takes the forms of :func:`evalgap.io.lm_eval.metric_rule`.
    """
    columns, notes, frames = details_batches(
        paths, metric=metric, model_name=model_name, all_runs=all_runs
    )
    frame = pd.concat(list(frames), ignore_index=True)
    return LongScores(frame=frame, source=source_name(paths), columns=columns, notes=tuple(notes))


COLUMNS = {"item_id": "doc_id or hash of the example text", "score": "metric"}


def source_name(paths: PathsArg) -> str:
    """The source label of a read: its paths, comma-separated."""
    # any os.PathLike is one path (iterating one, as for a list, would fail)
    listed: Iterable[object] = [paths] if isinstance(paths, (str, os.PathLike)) else paths
    return ", ".join(os.fspath(p) if isinstance(p, os.PathLike) else str(p) for p in listed)


def details_batches(
    paths: PathsArg,
    *,
    metric: Metric | None = None,
    model_name: str | None = None,
    all_runs: bool = False,
) -> tuple[dict[str, str | None], list[str], Iterator[pd.DataFrame]]:
    """Read details file by file: ``(columns, notes, frames)`` for streaming into a store.

    ``frames`` yields one long frame per details file read, in the order :func:`read_details`
    concatenates them, each read with only the columns it needs (the document text, prompts
    and responses of v2 are never decoded). ``notes`` is a list that is complete once the
    frames are exhausted (each file's metric is said as it is read); a metric that differs
    between models of one task raises at the end.
    """
    paths = as_paths(paths)
    notes: list[str] = []
    metric_for = metric_rule(metric)
    files = list(
        expand(
            paths,
            globs=("*.parquet",),
            what="Open LLM Leaderboard details (*.parquet)",
            accept=_is_details_name,
        )
    )
    check_metric_tasks(metric, {_task_and_stamp(p)[0] for p in files})
    latest: dict[tuple[str, str], tuple[str, Path]] = {}
    runs: list[tuple[str, str, str, Path]] = []
    stamped = {(c[0], c[1]) for c in map(_converted, files) if c and c[2] != "latest"}
    for path in files:
        converted = _converted(path)
        if converted and converted[2] == "latest" and converted[:2] in stamped:
            continue  # the Hub's "latest" split repeats the newest timestamped split
        model = model_name or (converted[0] if converted else model_from_folder(path.parent))
        task, stamp = _task_and_stamp(path)
        runs.append((model, task, stamp, path))
        key = (model, task)
        if key not in latest or stamp > latest[key][0]:
            latest[key] = (stamp, path)
    counts = pd.Series([(m, t) for m, t, _, _ in runs]).value_counts()
    for (model, task), n in counts.items():
        if n > 1 and not all_runs:
            notes.append(
                f"{model} / {task}: {n} runs found, using the latest "
                f"({latest[(model, task)][0]}); pass --all-runs to average them"
            )

    def frames() -> Iterator[pd.DataFrame]:
        metrics_used: dict[tuple[str, str], str] = {}
        for model, task, stamp, path in runs:
            if not all_runs and latest[(model, task)][1] != path:
                continue
            frame, used, how = _read_one(path, model, task, metric_for(task))
            frame["run"] = stamp or "1"
            metrics_used[(model, task)] = used
            notes.append(f"{model} / {task}: metric {used!r}{how}")
            yield frame
        one_metric_per_task(metrics_used)

    return dict(COLUMNS), notes, frames()


def model_from_folder(folder: Path) -> str:
    """``meta-llama__Llama-3.1-8B-details`` / ``details_meta-llama__Llama-3.1-8B`` -> org/model.

    v1 repositories keep each run in a timestamp folder (``<stamp>/details_*.parquet``): the
    model is the folder above it.
    """
    while STAMP_FOLDER.match(folder.name) and folder.parent != folder:
        folder = folder.parent
    return folder_model(folder.name)


def stable_hash(text: str) -> str:
    """The item key of a v1 detail row: the first 16 hex digits of SHA-256 of its text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def download_details(
    repo_id: str,
    *,
    revision: str | None = None,
    local_dir: str | Path | None = None,
    tasks: Sequence[str] | None = None,
) -> Path:
    """Download a model's details dataset from the Hugging Face Hub; return the local folder.

    Needs the optional ``huggingface_hub`` package (and, for gated repositories, a token
    configured for it). ``tasks`` limits the download to files whose name contains one of them.
    """
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise InputError(
            "downloading details needs the huggingface_hub package: pip install huggingface_hub"
        ) from None
    # what the details repositories hold: v2 samples as JSON lines (older runs: JSON arrays),
    # v1 details as Parquet; the Hub's own Parquet conversion lives on another revision
    kinds = ("parquet", "jsonl", "json")
    patterns = (
        [f"*.{k}" for k in kinds] if not tasks else [f"*{t}*.{k}" for t in tasks for k in kinds]
    )
    try:
        folder = snapshot_download(
            repo_id=repo_id,
            repo_type="dataset",
            revision=revision,
            allow_patterns=patterns,
            local_dir=local_dir,
        )
    except Exception as exc:  # the hub client raises many types; all mean "could not fetch"
        raise InputError(
            f"could not download {repo_id} from the Hugging Face Hub: {first_line(exc)}"
        ) from None
    path = Path(folder)
    if local_dir is None and path.name != repo_id.split("/")[-1]:
        # snapshot folders are named by commit; keep the repository name for the model name
        link = path.parent / repo_id.split("/")[-1]
        if not link.exists():
            link.symlink_to(path, target_is_directory=True)
        path = link
    return path


def _is_details_name(path: Path) -> bool:
    return bool(V2_FILE.match(path.name) or V1_FILE.match(path.name) or _converted(path))


def _converted(path: Path) -> tuple[str, str, str] | None:
    """(model, task, split) of the Hub's auto-converted Parquet ``<config>/<split>/0000.parquet``,
    whose config is ``<org>__<model>__<task>``; None for any other file."""
    if not CONVERTED.match(path.name):
        return None
    config, split = path.parent.parent.name, path.parent.name
    parts = config.split("__")
    if len(parts) < 3:
        return None
    return parts[0] + "/" + "__".join(parts[1:-1]), parts[-1], split


def _columns(path: Path) -> list[str]:
    schema = _schema(path)
    return list(schema.names) if schema is not None else []


def _task_and_stamp(path: Path) -> tuple[str, str]:
    """Task and timestamp from a details file name; v1's ``suite|task|shots`` keeps ``task``."""
    converted = _converted(path)
    if converted:
        return converted[1], converted[2]
    for pattern in (V2_FILE, V1_FILE):
        match = pattern.match(path.name)
        if match:
            parts = match["task"].split("|")
            return (parts[1] if len(parts) == 3 else match["task"]), match["stamp"]
    return path.stem, ""


def _read_one(
    path: Path, model: str, task: str, wanted: str | None
) -> tuple[pd.DataFrame, str, str]:
    """One details file as long rows: only the columns its layout needs are read."""
    schema = _schema(path)
    names = list(schema.names) if schema is not None else None
    if names is None:  # not a readable Parquet file: the reader says why
        read_frame(path, "parquet")
        names = []
    if "doc_id" in names:
        return _read_v2(path, schema, model, task, wanted)
    if any(c in names for c in V1_TEXT):
        # the texts that key the items, and the metrics dict (or the July-2023 schema's
        # numeric metric columns); predictions, choices and token lists are not read
        keep = [
            f.name
            for f in schema
            if f.name in V1_TEXT
            or f.name == "metrics"
            or ("metrics" not in names and f.name not in V1_NOT_METRICS and _numeric(f))
        ]
        return _read_v1(path, read_frame(path, "parquet", columns=keep), model, task, wanted)
    raise InputError(
        f"{path}: neither v2 (doc_id and metric columns) nor v1 (example, "
        f"full_prompt, metrics) details; columns found: {', '.join(names)}"
    )


# v2 columns that are never a per-item metric (texts, responses, hashes, the metric list)
V2_NOT_METRICS = {
    "doc_id",
    "doc",
    "target",
    "arguments",
    "resps",
    "filtered_resps",
    "filter",
    "metrics",
    "doc_hash",
    "prompt_hash",
    "target_hash",
}


def _schema(path: Path) -> Any:
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path)
    except Exception:  # not a readable Parquet file: let the table reader report it
        return None


def _numeric(field: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_integer(field.type)
        or pa.types.is_floating(field.type)
        or pa.types.is_boolean(field.type)
    )


def _read_v2(
    path: Path, schema: Any, model: str, task: str, wanted: str | None
) -> tuple[pd.DataFrame, str, str]:
    names = list(schema.names)
    available = [f.name for f in schema if f.name not in V2_NOT_METRICS and _numeric(f)]
    if not available:
        raise InputError(f"{path}: no numeric metric column; columns found: {', '.join(names)}")
    used = wanted or default_metric(task, available)
    if used in names and used not in available:
        raise InputError(
            escape(
                f"{path}: column {used!r} is not a numeric per-item metric; choose one of "
                f"{', '.join(available)} with "
            )
            + "{metric}",
            param="metric",
        )
    if used not in available:
        raise InputError(f"{path}: no metric {used!r}; metrics found: {', '.join(available)}")
    frame = read_frame(
        path, "parquet", columns=[c for c in names if c in {"doc_id", "filter", used}]
    )
    filters = frame["filter"].astype(str) if "filter" in frame.columns else "none"
    labels = pd.Series(task, index=frame.index).where(
        pd.Series(filters, index=frame.index) == "none",
        task + ":" + pd.Series(filters, index=frame.index),
    )
    out = pd.DataFrame(
        {
            "model": model,
            "task": labels,
            "item_id": frame["doc_id"].astype(str),
            "score": frame[used].astype(float),
        }
    )
    return out, used, "" if wanted else " (default)"


def _read_v1(
    path: Path, frame: pd.DataFrame, model: str, task: str, wanted: str | None
) -> tuple[pd.DataFrame, str, str]:
    if "metrics" in frame.columns:
        metrics = frame["metrics"].map(_as_dict)
        bad = metrics.map(lambda m: m is None)
        if bad.any():
            row = int(bad.to_numpy().nonzero()[0][0])
            raise InputError(
                f"{path}: row {row}: 'metrics' is not a dict or a dict written as text"
            )
        available = list(metrics.iloc[0].keys()) if len(metrics) else []
    else:  # the July-2023 schema: one plain column per metric
        available = [
            c
            for c in frame.columns
            if c not in V1_NOT_METRICS and pd.api.types.is_numeric_dtype(frame[c])
        ]
        metrics = frame[available].to_dict("records") if available else None
        metrics = pd.Series(metrics, index=frame.index, dtype=object)
    used = wanted or _v1_default(task, available)
    if used not in available:
        raise InputError(f"{path}: no metric {used!r}; metrics found: {', '.join(available)}")
    text_col = next(c for c in V1_TEXT if c in frame.columns)
    text = frame[text_col].astype(str)
    if text_col == "example" and "full_prompt" in frame.columns:
        empty = text.str.strip() == ""
        text = text.where(~empty, frame["full_prompt"].astype(str))
    # equal texts are distinct documents (the leaderboard lists each): the k-th repeat of a
    # text is keyed "<hash>#k", so documents are paired in their order and never merged
    hashes = text.map(stable_hash)
    repeat = hashes.groupby(hashes).cumcount()
    keys = hashes.where(repeat == 0, hashes + "#" + repeat.astype(str))
    out = pd.DataFrame(
        {
            "model": model,
            "task": task,
            "item_id": keys,
            "score": metrics.map(lambda m: _metric_value(m, used, path)),
        }
    )
    how = (" (default)" if not wanted else "") + (
        ", items keyed by a hash of the text (and its repeat number)"
    )
    return out, used, how


def _v1_default(task: str, available: Collection[str]) -> str:
    for prefix, name in V1_METRICS.items():
        if task.startswith(prefix) and name in available:
            return name
    return default_metric(task, available) if available else "(none)"


def _metric_value(metrics: dict[str, Any], used: str, path: Path) -> object:
    value = metrics.get(used)
    if isinstance(value, str):
        raise InputError(
            escape(f"{path}: metric {used!r} holds text ({value[:30]!r}), not a per-item score; ")
            + "choose a numeric metric with {metric}",
            param="metric",
        )
    return value


def _as_dict(value: object) -> dict[Any, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


# The Open LLM Leaderboard row of the registry (evalgap.io.registry).


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is a details Parquet file, or a directory holding some."""
    return is_details_parquet(path, options.model_column)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read details files as ``options`` say (:func:`read_details`)."""
    return read_details(
        paths,
        metric=list(options.metric) or None,
        model_name=options.model_name,
        all_runs=options.all_runs,
    )


def batches(
    path: Path, options: LoadOptions
) -> tuple[dict[str, str | None], list[str], Iterator[pd.DataFrame]]:
    """Details read a file at a time into a store (:func:`details_batches`)."""
    return details_batches(
        path,
        metric=list(options.metric) or None,
        model_name=options.model_name,
        all_runs=options.all_runs,
    )
