"""Read lm-evaluation-harness (0.4.x) per-sample logs.

``lm_eval --log_samples --output_path OUT`` writes, per model, ``OUT/<model>/results_<stamp>.json``
and one ``samples_<task>_<stamp>.jsonl`` per task: one JSON record per (document, filter) with
``doc_id``, ``filter``, ``metrics`` (the metric names logged) and one key per metric.

* Items are keyed on (task, ``doc_id``, filter). A task evaluated under several filters
  (gsm8k's ``strict-match`` and ``flexible-extract``) yields one task per filter, labelled
  ``task:filter``; the ``none`` filter keeps the plain task name.
* The metric is chosen per task: ``metric="acc"`` for every task, ``"hellaswag=acc_norm"`` for
  one, or by default (:func:`default_metric`): the task's only per-item metric; with several,
  ``acc_norm`` for the tasks where leaderboards report it (:data:`ACC_NORM_TASKS`), else the
  first of :data:`PREFERRED_METRICS` that was logged.
* When a model has several timestamped runs of a task, the latest is used and the notes say
  so; ``all_runs=True`` keeps every run as a repeated run of each item (averaged per item).
* The model name comes from the ``results_<stamp>.json`` beside the samples (``model_name``,
  else ``pretrained=`` in ``model_args``), else the directory name.

Files are streamed line by line; memory grows with the number of items, not the log size.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from evalgap.errors import InputError
from evalgap.io._files import expand
from evalgap.scores import LongScores

SAMPLE_FILE = re.compile(
    r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?)"
    r"\.jsonl(?:\.gz)?$"
)
# Multiple-choice tasks whose headline number is the length-normalised accuracy.
ACC_NORM_TASKS = (
    "arc_challenge",
    "arc_easy",
    "hellaswag",
    "piqa",
    "openbookqa",
    "sciq",
    "leaderboard_bbh",
    "leaderboard_gpqa",
    "leaderboard_musr",
)
PREFERRED_METRICS = (
    "acc",
    "exact_match",
    "prompt_level_strict_acc",
    "acc_norm",
    "em",
    "f1",
    "pass@1",
    "mcc",
)


@dataclass(frozen=True)
class SampleFile:
    """One ``samples_<task>_<stamp>.jsonl`` file and whose run it is."""

    path: Path
    model: str
    task: str
    stamp: str


def default_metric(task: str, available) -> str:
    """Return the metric evalgap uses for ``task`` when none is named (see module docstring)."""
    available = list(available)
    if len(available) == 1:
        return available[0]
    if "acc_norm" in available and task.startswith(ACC_NORM_TASKS):
        return "acc_norm"
    for name in PREFERRED_METRICS:
        if name in available:
            return name
    return available[0]


def is_lm_eval_path(path: Path) -> bool:
    """True for a samples file, or a directory holding samples files."""
    if path.is_file():
        return bool(SAMPLE_FILE.match(path.name))
    return path.is_dir() and any(SAMPLE_FILE.match(p.name) for p in path.rglob("samples_*"))


def read_lm_eval(
    paths,
    *,
    metric=None,
    filter_name: str | None = None,
    all_runs: bool = False,
    model_name: str | None = None,
) -> LongScores:
    """Read lm-eval sample logs (files or output directories, many models at once).

    ``metric``: None (defaults per task), a metric name for every task, or a mapping /
    ``"task=metric"`` strings per task. ``filter_name`` keeps only that filter.
    ``model_name`` names the model when the files carry no name (a single model's files).
    """
    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    files = discover(paths, model_name=model_name)
    metric_for = metric_rule(metric)
    notes: list[str] = []
    by_run: dict[tuple[str, str], list[SampleFile]] = defaultdict(list)
    for f in files:
        by_run[(f.model, f.task)].append(f)
    chosen: list[SampleFile] = []
    for (model, task), runs in sorted(by_run.items()):
        runs.sort(key=lambda f: f.stamp)
        if len(runs) > 1 and not all_runs:
            notes.append(
                f"{model} / {task}: {len(runs)} runs found, using the latest "
                f"({runs[-1].stamp}); pass --all-runs to average them per item"
            )
            runs = runs[-1:]
        chosen.extend(runs)
    frames = []
    metrics_used: dict[tuple[str, str], str] = {}
    for f in chosen:
        frame, used = _read_samples(f, metric_for(f.task), filter_name)
        if all_runs:
            frame["run"] = f.stamp
        frames.append(frame)
        metrics_used[(f.model, f.task)] = used
    for task, used in one_metric_per_task(metrics_used).items():
        notes.append(f"task {task}: metric {used!r}{'' if metric_for(task) else ' (default)'}")
    frame = pd.concat(frames, ignore_index=True)
    if filter_name is not None and frame.empty:
        raise InputError(f"no record has filter {filter_name!r}; check --filter")
    source = ", ".join(str(p) for p in paths)
    return LongScores(
        frame=frame,
        source=source,
        columns={"item_id": "doc_id", "task": "task[:filter]", "score": "metric"},
        notes=tuple(notes),
    )


def one_metric_per_task(metrics_used: dict) -> dict:
    """Return task -> metric from ``{(model, task): metric}``; raise if a task's models differ.

    Comparing one model's ``acc`` with another's ``acc_norm`` would be meaningless, so mixed
    metrics on a task are an error that says how to choose one.
    """
    out = {}
    for task in sorted({t for _, t in metrics_used}):
        used = {m: u for (m, t), u in metrics_used.items() if t == task}
        if len(set(used.values())) > 1:
            detail = ", ".join(f"{m}: {u}" for m, u in sorted(used.items()))
            raise InputError(
                f"task {task}: the models were scored with different metrics "
                f"({detail}); choose one with --metric {task}=NAME"
            )
        out[task] = next(iter(used.values()))
    return out


def discover(paths, *, model_name: str | None = None) -> list[SampleFile]:
    """Return every samples file under ``paths`` with its model, task and timestamp."""
    found: list[SampleFile] = []
    names: dict[Path, str] = {}
    for path in expand(
        paths,
        globs=("samples_*.jsonl", "samples_*.jsonl.gz"),
        what="samples_<task>_<timestamp>.jsonl files",
        hint="run lm_eval with --log_samples to write per-item results",
        accept=lambda p: bool(SAMPLE_FILE.match(p.name)),
    ):
        match = SAMPLE_FILE.match(path.name)
        if match is None:
            raise InputError(
                f"{path}: not an lm-eval samples file (expected samples_<task>_<timestamp>.jsonl)"
            )
        model = model_name or _model_name(path.parent, names)
        found.append(SampleFile(path, model, match["task"], match["stamp"]))
    return found


def _model_name(directory: Path, cache: dict) -> str:
    """The model of a run directory: from its results file, else the directory's name."""
    directory = directory.resolve()
    if directory in cache:
        return cache[directory]
    name = None
    for results in sorted(directory.glob("results_*.json"), reverse=True):
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        name = data.get("model_name") or _pretrained(data.get("config", {}).get("model_args"))
        if name:
            break
    cache[directory] = name or directory.name
    return cache[directory]


def _pretrained(model_args) -> str | None:
    if isinstance(model_args, dict):
        return model_args.get("pretrained") or model_args.get("model")
    if isinstance(model_args, str):
        for part in model_args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("pretrained", "model") and value:
                return value.strip()
    return None


def metric_rule(metric):
    """Turn a ``metric`` argument into a function ``task -> metric name or None``.

    ``None``: defaults everywhere; ``"acc"``: acc for every task; ``["acc",
    "hellaswag=acc_norm"]``: acc_norm for hellaswag, acc elsewhere; a dict maps tasks.
    """
    if metric is None:
        return lambda task: None
    if isinstance(metric, str):
        metric = [metric]
    per_task, everywhere = {}, None
    items = metric.items() if isinstance(metric, dict) else None
    if items is None:
        for entry in metric:
            task, sep, name = entry.partition("=")
            if sep:
                per_task[task.strip()] = name.strip()
            else:
                everywhere = entry.strip()
    else:
        per_task = dict(items)
    return lambda task: per_task.get(task, everywhere)


def _open(path: Path):
    return gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")


def _read_samples(f: SampleFile, metric: str | None, filter_name: str | None):
    doc_ids, tasks, scores = [], [], []
    used = metric
    available: list[str] | None = None
    try:
        with _open(f.path) as handle:
            for lineno, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except ValueError as exc:
                    raise InputError(
                        f"{f.path}: line {lineno} is not valid JSON ({exc}); the "
                        "file may be truncated"
                    ) from None
                if not isinstance(record, dict) or "doc_id" not in record:
                    raise InputError(
                        f"{f.path}: line {lineno} has no doc_id; not an lm-eval samples record"
                    )
                flt = record.get("filter", "none")
                if filter_name is not None and flt != filter_name:
                    continue
                if available is None:
                    available = [m for m in record.get("metrics", []) if m in record] or [
                        k
                        for k, v in record.items()
                        if isinstance(v, (int, float)) and k != "doc_id"
                    ]
                    if used is None:
                        if not available:
                            raise InputError(f"{f.path}: line {lineno} logs no metric value")
                        used = default_metric(f.task, available)
                    elif used not in available:
                        raise InputError(
                            f"{f.path}: no metric {used!r} for task {f.task}; "
                            f"metrics logged: {', '.join(available)}"
                        )
                value = record.get(used)
                if isinstance(value, (list, tuple, dict)):
                    raise InputError(
                        f"{f.path}: line {lineno}: metric {used!r} is corpus-level (its "
                        f"per-item value is a {type(value).__name__}); choose a per-item metric "
                        f"with --metric (logged: {', '.join(available)})"
                    )
                doc_ids.append(str(record["doc_id"]))
                tasks.append(f.task if flt == "none" else f"{f.task}:{flt}")
                scores.append(float(value) if isinstance(value, bool) else value)
    except UnicodeDecodeError:
        raise InputError(f"{f.path}: not UTF-8 text; lm-eval writes UTF-8 JSON lines") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{f.path}: cannot be read ({exc})") from None
    frame = pd.DataFrame(
        {
            "model": f.model,
            "task": tasks,
            "item_id": doc_ids,
            "score": pd.Series(scores, dtype=object),
        }
    )
    return frame, used or "(no records)"
