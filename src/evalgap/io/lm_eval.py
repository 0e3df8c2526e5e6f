"""Read lm-evaluation-harness (0.4.0 to 0.4.13) per-sample logs.

``lm_eval --log_samples --output_path OUT`` writes, per model, ``OUT/<model>/results_<stamp>.json``
and one ``samples_<task>_<stamp>.jsonl`` per task: one JSON record per (document, filter) with
``doc_id``, ``doc``, ``filter`` (from 0.4.6), ``metrics`` (the metric names logged) and one key
per metric. 0.4.0-0.4.2 write ``OUT/results.json`` and ``<model_args>_<task>.jsonl`` holding a
JSON array; ``--output_path NAME.json`` writes ``NAME_<stamp>.json`` beside the samples.

* Items are keyed on (task, ``doc_id``). When one ``doc_id`` names different documents in
  different logs (a re-ordered dataset), the task's items are keyed by a hash of the logged
  document instead (said in the notes).
* A task scored under several filters (gsm8k's ``strict-match`` and ``flexible-extract``)
  scores each document once per filter: the filters are never pooled, ``filter_name`` must
  choose one (the task is then labelled ``task:filter``). Records without a ``filter`` key
  (before 0.4.6) are matched to the filters of the task's config in logging order.
* The metric is chosen per task: ``metric="acc"`` for every task, ``"hellaswag=acc_norm"`` for
  one, or by default (:func:`default_metric`): the task's only per-item metric; with several,
  ``acc_norm`` for the tasks where leaderboards report it (:data:`ACC_NORM_TASKS`), else the
  first of :data:`PREFERRED_METRICS` that was logged.
* When a model has several timestamped runs of a task, the latest is used and the notes say
  so; ``all_runs=True`` keeps every run as a repeated run of each item (averaged per item).
* Runs of a task under different settings recorded in their results files (n-shot, chat
  template, system instruction, multi-turn few-shot, gen_kwargs) are different tasks,
  labelled by what differs (``gsm8k [0-shot]``, ``gsm8k [3-shot]``): never averaged as
  repeats, never paired across models; said in the notes.
* The model name comes from the run's results file (``model_name``, else ``pretrained=`` in
  ``model_args``), else the directory name (``org__model`` read as ``org/model``); one name in
  two directories becomes two models named after their directories.
* ``--predict_only`` files (no scores) are left out and said.

JSON-lines files are streamed line by line; memory grows with the number of items.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeAlias

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io import configurations
from evalgap.io._files import PathsArg, as_paths, expand
from evalgap.io._limits import open_maybe_gzip, read_lines

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

SAMPLE_FILE = re.compile(
    r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?)"
    r"\.jsonl?(?:\.gz)?$"
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


# The metric option: one name for every task, "task=name" entries, or a task-to-name map.
Metric: TypeAlias = str | Sequence[str] | Mapping[str, str]


@dataclass(frozen=True)
class SampleFile:
    """One ``samples_<task>_<stamp>.jsonl`` file and whose run it is."""

    path: Path
    model: str
    task: str
    stamp: str
    named: bool = True
    filters: tuple[str, ...] = ()
    # (name, value) pairs of the run's prompt and decoding settings
    setting: tuple[tuple[str, object], ...] = ()
    label: str = ""  # "3-shot": set when the task was run under several settings
    # the run's metadata fields (seeds, model_args, batch size, versions: see run_metadata)
    metadata: tuple[tuple[str, object], ...] = ()

    @property
    def name(self) -> str:
        """The task as evalgap names it: ``gsm8k``, or ``gsm8k [3-shot]`` (see ``label``)."""
        return f"{self.task} [{self.label}]" if self.label else self.task


def run_time(stamp: str) -> str:
    """Return the key that orders a model's runs of a task by time, the latest last: the run
    a reader reads (and a follower follows) is the one with the largest key.

    lm-eval stamps a run ``2026-01-02T10-30-00.123456`` (``:`` in older versions); the two
    separators order alike.
    """
    return stamp.replace(":", "-")


def default_metric(task: str, available: Iterable[str]) -> str:
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
    """True for a samples file, or a directory holding samples files (any 0.4.x layout)."""
    if path.is_file():
        if path.suffix == ".json":
            return _is_json_samples(path)
        return bool(SAMPLE_FILE.match(path.name)) or _is_array_samples(path)
    if not path.is_dir():
        return False
    if any(
        (SAMPLE_FILE.match(p.name) and not p.name.endswith(".json")) or _is_json_samples(p)
        for p in path.rglob("samples_*")
    ):
        return True
    return any(_is_array_samples(p) for p in path.rglob("*.jsonl"))


def _is_json_samples(path: Path) -> bool:
    """A ``samples_<task>_<stamp>.json`` holding a JSON array of records (not a results file)."""
    if not (path.suffix == ".json" and SAMPLE_FILE.match(path.name) and path.is_file()):
        return False
    with open(path, "rb") as handle:
        head = handle.read(256).lstrip()
    return head.startswith(b"[")


def _is_array_samples(path: Path) -> bool:
    """An lm-eval 0.4.0-0.4.2 samples file: ``<model_args>_<task>.jsonl`` holding a JSON array,
    with a results ``.json`` file beside it."""
    if path.suffix != ".jsonl" or SAMPLE_FILE.match(path.name) or not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(256).lstrip()
    except OSError:
        return False
    return head.startswith(b"[") and b'"doc_id"' in head and any(path.parent.glob("*.json"))


def read_lm_eval(
    paths: PathsArg,
    *,
    metric: Metric | None = None,
    filter_name: str | None = None,
    all_runs: bool = False,
    model_name: str | None = None,
    tasks: Sequence[str] | None = None,
    config_columns: Sequence[str] = (),
) -> LongScores:
    """Read lm-eval sample logs (files or output directories, many models at once).

    ``metric``: None (defaults per task), a metric name for every task, or a mapping /
    ``"task=metric"`` strings per task. ``filter_name`` chooses the filter of tasks scored
    under several (required for them: their filters are never pooled).
    ``model_name`` names the model when the files carry no name (a single model's files).
    ``tasks``: the tasks the job will keep (``--task``); a filter is then only required for
    those, and selecting ``task:filter`` chooses that filter.
    ``config_columns`` names run-metadata fields (:func:`run_metadata`: ``seed``,
    ``batch_size``, ``model_args``, ``lm_eval_version``...) whose values label each run's
    configuration; the latest run is then kept per configuration, and runs under different
    configurations are kept side by side (column ``configuration``).
    """
    paths = as_paths(paths)
    config_columns = configurations.names(config_columns)
    files = discover(paths, model_name=model_name)
    if config_columns:  # a setting named as a configuration is a factor, not another task
        named = {SETTING_FIELDS.get(c, c) for c in config_columns}
        files = [
            dataclasses.replace(f, setting=tuple(s for s in f.setting if s[0] not in named))
            for f in files
        ]
    notes: list[str] = []
    files = _separate_folders(files, notes)
    files = _label_settings(files, notes)
    check_metric_tasks(metric, {f.task for f in files})
    metric_for = metric_rule(metric)
    by_run: dict[tuple[str, str, str], list[SampleFile]] = defaultdict(list)
    configuration_of: dict[Path, str] = {}
    for f in files:
        if config_columns:
            picked = configurations.pick(dict(f.metadata), config_columns, f.path)
            configuration_of[f.path] = configurations.label(picked)
        by_run[(f.model, f.name, configuration_of.get(f.path, ""))].append(f)
    chosen: list[SampleFile] = []
    for (model, task, configured), runs in sorted(by_run.items()):
        task = f"{task} ({configured})" if configured else task
        runs.sort(key=lambda f: run_time(f.stamp))
        if len(runs) > 1 and not all_runs:
            notes.append(
                f"{model} / {task}: {len(runs)} runs found, using the latest "
                f"({runs[-1].stamp}); pass --all-runs to average them per item"
                + (
                    ""
                    if runs[-1].named
                    else " (no results file names their model: if they are different models, "
                    "give each its own folder)"
                )
            )
            runs = runs[-1:]
        chosen.extend(runs)
    frames = []
    metrics_used: dict[tuple[str, str], str] = {}
    predict_only = []
    for f in chosen:
        read = _read_samples(f, metric_for(f.task))
        if read is None:
            predict_only.append(f)
            continue
        frame, used = read
        frame["run"] = f.stamp
        if config_columns:
            frame[configurations.COLUMN] = configuration_of[f.path]
        frames.append(frame)
        metrics_used[(f.model, f.name)] = used
    if predict_only:
        listing = ", ".join(sorted({f"{f.model} / {f.task}" for f in predict_only})[:4])
        if not frames:
            raise InputError(
                f"{predict_only[0].path}: the records carry model outputs but no scores "
                "(written with --predict_only?); evalgap needs per-item scores: rerun "
                "lm_eval without --predict_only"
            )
        notes.append(
            f"{len(predict_only)} samples files without scores (--predict_only?) left out: "
            f"{listing}"
        )
    frame = pd.concat(frames, ignore_index=True)
    frame = _choose_filters(frame, filter_name, notes, tasks)
    frame = _key_documents(frame, notes)
    base = {f.name: f.task for f in chosen}
    for task, used in one_metric_per_task(metrics_used).items():
        default = "" if metric_for(base.get(task, task)) else " (default)"
        notes.append(f"task {task}: metric {used!r}{default}")
    source = ", ".join(str(p) for p in paths)
    factor = [configurations.COLUMN] if config_columns else []
    columns: dict[str, str | None] = {
        "item_id": "doc_id",
        "task": "task[:filter]",
        "score": "metric",
        "run": "run timestamp",
    }
    if config_columns:
        columns[configurations.COLUMN] = ",".join(config_columns)
    return LongScores(
        frame=frame[["model", "task", "item_id", "run", "score", *factor]],
        source=source,
        columns=columns,
        notes=tuple(notes),
    )


SEEDS = ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")


def run_metadata(data: dict[str, Any] | None) -> dict[str, object]:
    """Return the run-metadata fields of a results file, as ``config_columns`` names them.

    The run's ``config`` entries (``model``, ``model_args``, ``batch_size``, ``device``,
    ``gen_kwargs``, ``random_seed``, ``numpy_seed``, ``torch_seed``, ``fewshot_seed``,
    ``model_dtype``, ``model_revision``...), each ``key=value`` of a ``model_args`` string as
    ``model_args.key``, the file's versions (``lm_eval_version``, ``git_hash``,
    ``transformers_version``...), and ``seed``: the four seeds as ``lm_eval --seed`` takes
    them (one number when they are equal, else ``random,numpy,torch,fewshot``).

    Examples
    --------
    >>> fields = run_metadata({"config": {"model_args": "pretrained=m,dtype=bf16",
    ...     "random_seed": 0, "numpy_seed": 1234, "torch_seed": 1234, "fewshot_seed": 1234}})
    >>> fields["seed"], fields["model_args.dtype"]
    ('0,1234,1234,1234', 'bf16')
    """
    if not data:
        return {}
    config = data["config"] if isinstance(data.get("config"), dict) else {}
    fields: dict[str, object] = {
        key: value
        for key, value in config.items()
        if isinstance(value, (str, int, float, bool, dict, list)) or value is None
    }
    args = config.get("model_args")
    if isinstance(args, str):
        for part in args.split(","):
            key, eq, value = part.partition("=")
            if eq and key.strip():
                fields[f"model_args.{key.strip()}"] = value.strip()
    elif isinstance(args, dict):
        fields.update({f"model_args.{k}": v for k, v in args.items()})
    for key in (
        "lm_eval_version",
        "git_hash",
        "upper_git_hash",
        "transformers_version",
        "model_source",
        "chat_template_sha",
        "system_instruction_sha",
        "fewshot_as_multiturn",
        "max_length",
    ):
        if key in data:
            fields[key] = data[key]
    seeds = [config.get(k) for k in SEEDS]
    if any(s is not None for s in seeds):
        fields["seed"] = (
            seeds[0] if len({str(s) for s in seeds}) == 1 else ",".join(map(str, seeds))
        )
    return fields


def _choose_filters(
    frame: pd.DataFrame,
    filter_name: str | None,
    notes: list[str],
    tasks: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One filter per task: the only one, or ``filter_name``; several are never pooled."""
    keep = pd.Series(True, index=frame.index)
    for task, sub in frame.groupby("base_task", sort=True):
        filters = list(dict.fromkeys(sub["filter"]))
        if tasks is not None and len(filters) > 1:
            labels = set(sub["task"])
            chosen = [t for t in tasks if t in labels]
            if task not in tasks and len(chosen) <= 1:
                continue  # not selected, or one filter selected by its task:filter label
        if len(filters) == 1:
            if filter_name is not None and filters[0] != filter_name:
                notes.append(
                    f"task {task}: no filter {filter_name!r}; its only filter "
                    f"{filters[0]!r} is used"
                )
            continue
        if filter_name is None:
            raise InputError(
                escape(
                    f"task {task} was scored under {len(filters)} filters "
                    f"({', '.join(filters)}), each over the same documents; "
                )
                + "choose one with {filter_name=NAME} (pooling them would count every document "
                "twice)",
                param="filter_name",
            )
        if filter_name not in filters:
            raise InputError(
                f"task {task}: no filter {filter_name!r}; its filters: {', '.join(filters)}"
            )
        keep &= (frame["base_task"] != task) | (frame["filter"] == filter_name)
        notes.append(f"task {task}: filter {filter_name!r} of {', '.join(filters)}")
    return frame[keep]


def _key_documents(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """Key items by ``doc_id``, unless a ``doc_id`` names different documents in different
    logs (a re-ordered dataset): then by ``doc_hash``, said in the notes."""
    frame = frame.copy()
    has_hash = frame["doc_hash"].notna()
    for task, sub in frame[has_hash].groupby("task", sort=True):
        hashes = sub.groupby("item_id")["doc_hash"].nunique()
        if (hashes <= 1).all():
            continue
        if frame.loc[frame["task"] == task, "doc_hash"].isna().any():
            raise InputError(
                f"task {task}: the same doc_id names different documents in different logs "
                f"(doc_hash differs for {int((hashes > 1).sum())} doc_ids), and some logs "
                "carry no doc_hash to pair them by; rerun on the same dataset order"
            )
        in_task = frame["task"] == task
        sub = frame[in_task]
        order = sub.groupby(["model", "run", "doc_hash"]).cumcount()
        frame.loc[in_task, "item_id"] = sub["doc_hash"].str[:16] + order.map(
            lambda k: "" if k == 0 else f"#{k}"
        )
        notes.append(
            f"task {task}: {int((hashes > 1).sum())} doc_ids name different documents in "
            "different logs (a re-ordered dataset); items are paired by doc_hash instead"
        )
    return frame


def check_metric_tasks(metric: Metric | None, tasks: Iterable[str]) -> None:
    """Raise when a ``TASK=NAME`` metric choice names a task that is not in the input."""
    if metric is None or isinstance(metric, str):
        return
    named = (
        metric.keys()
        if isinstance(metric, dict)
        else [m.partition("=")[0].strip() for m in metric if "=" in m]
    )
    known = set(tasks)
    for task in named:
        if task not in known:
            raise InputError(
                "{metric}"
                + escape(
                    f" names task {task!r}, which is not in the input; tasks found: "
                    f"{', '.join(sorted(known)[:12])}"
                ),
                param="metric",
            )


def one_metric_per_task(metrics_used: dict[tuple[str, str], str]) -> dict[str, str]:
    """Return task -> metric from ``{(model, task): metric}``; raise if a task's models differ.

    Comparing one model's ``acc`` with another's ``acc_norm`` would be meaningless, so mixed
    metrics on a task are an error that says how to choose one.
    """
    out: dict[str, str] = {}
    for task in sorted({t for _, t in metrics_used}):
        used = {m: u for (m, t), u in metrics_used.items() if t == task}
        if len(set(used.values())) > 1:
            detail = ", ".join(f"{m}: {u}" for m, u in sorted(used.items()))
            raise InputError(
                escape(f"task {task}: the models were scored with different metrics ({detail}); ")
                + "choose one with {metric}",
                param="metric",
                metric=f"{task}=NAME",
            )
        out[task] = next(iter(used.values()))
    return out


def discover(paths: Iterable[Path], *, model_name: str | None = None) -> list[SampleFile]:
    """Return every samples file under ``paths`` with its model, task and timestamp."""
    found: list[SampleFile] = []
    for path in expand(
        paths,
        globs=("samples_*.jsonl", "samples_*.jsonl.gz", "samples_*.json", "*.jsonl"),
        what="samples_<task>_<timestamp>.jsonl files",
        hint="run lm_eval with --log_samples to write per-item results",
        accept=lambda p: (
            (_is_json_samples(p) if p.suffix == ".json" else bool(SAMPLE_FILE.match(p.name)))
            or _is_array_samples(p)
        ),
    ):
        match = SAMPLE_FILE.match(path.name)
        if match is not None:
            results = _results_for(path.parent, match["stamp"])
            name = model_name or _name_in(results)
            found.append(
                SampleFile(
                    path,
                    name or folder_model(path.parent.name),
                    match["task"],
                    match["stamp"],
                    named=bool(name),
                    filters=_filters_in(results, match["task"]),
                    setting=_setting_in(results, match["task"]),
                    metadata=tuple(run_metadata(results).items()),
                )
            )
            continue
        if not _is_array_samples(path):
            raise InputError(
                f"{path}: not an lm-eval samples file (expected samples_<task>_<timestamp>.jsonl)"
            )
        found.append(_array_file(path, model_name))
    return found


def _array_file(path: Path, model_name: str | None) -> SampleFile:
    """An lm-eval 0.4.0-0.4.2 ``<model_args>_<task>.jsonl``: find its results file."""
    for results in sorted(path.parent.glob("*.json")):
        data = _load_results(results)
        args = (data.get("config") or {}).get("model_args") if data else None
        if not isinstance(args, str) or data is None:  # no data: no args either
            continue
        prefix = re.sub("/|=", "__", args) + "_"
        if path.name.startswith(prefix):
            task = path.name[len(prefix) :].removesuffix(".jsonl")
            name = model_name or _name_in(data)
            stamp = data.get("date") or results.stem
            return SampleFile(
                path,
                name or results.stem,
                task,
                str(stamp),
                named=bool(name),
                filters=_filters_in(data, task),
                setting=_setting_in(data, task),
                metadata=tuple(run_metadata(data).items()),
            )
    raise InputError(
        f"{path}: an lm-eval 0.4.0-0.4.2 samples file (a JSON array) with no results .json "
        "file beside it whose model_args match its name; keep the results file with it"
    )


def folder_model(name: str) -> str:
    """A model named by its folder: lm-eval and the Open LLM Leaderboard write ``org/model``
    as ``org__model`` (details repositories add ``details_`` or ``-details``)."""
    name = re.sub(r"^details_", "", name)
    name = re.sub(r"-details$", "", name)
    return name.replace("__", "/", 1)


def _load_results(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError, UnicodeDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("results"), dict) else None


def _results_for(directory: Path, stamp: str) -> dict[str, Any] | None:
    """The results file of the run ``stamp`` (``results_<stamp>.json``, or ``<name>_<stamp>.json``
    when lm-eval was given ``--output_path <name>.json``)."""
    for results in sorted(directory.glob(f"*{stamp}.json")):
        data = _load_results(results)
        if data is not None:
            return data
    return None


def _name_in(data: dict[str, Any] | None) -> str | None:
    if not data:
        return None
    name = data.get("model_name")
    config = data["config"] if isinstance(data.get("config"), dict) else {}
    model = config.get("model") if isinstance(config.get("model"), str) else None
    return (
        (name if isinstance(name, str) and name else None)
        or _pretrained(config.get("model_args"))
        or model
    )


def _filters_in(data: dict[str, Any] | None, task: str) -> tuple[str, ...]:
    """Filter names of ``task`` in the order lm-eval logs them (its config's filter_list)."""
    if not data:
        return ()
    config = (data.get("configs") or {}).get(task) or {}
    names = [f.get("name") for f in config.get("filter_list") or [] if isinstance(f, dict)]
    if names and all(isinstance(n, str) for n in names):
        return tuple(n for n in names if isinstance(n, str))  # every one, checked above
    keys = [k.split(",", 1)[1] for k in (data.get("results") or {}).get(task, {}) if "," in k]
    return tuple(dict.fromkeys(k for k in keys if "_stderr" not in k))


# The settings recorded in a results file that change what an item's score measures (the
# prompt or the decoding), with how a label names a value: runs that differ in any of them
# are different tasks, never repeated runs of one.
SETTINGS = {
    "n-shot": lambda v: "n-shot unknown" if v is None else f"{v}-shot",
    "chat template": lambda v: f"chat template {v}" if v else "no chat template",
    "system instruction": lambda v: f"system instruction {v}" if v else "no system instruction",
    "multi-turn few-shot": lambda v: "multi-turn few-shot" if v else "single-turn few-shot",
    "gen_kwargs": lambda v: f"gen_kwargs {v}" if v else "default gen_kwargs",
}
# The run-metadata field (config_columns) of each setting that has one
SETTING_FIELDS = {
    "chat_template_sha": "chat template",
    "system_instruction_sha": "system instruction",
    "fewshot_as_multiturn": "multi-turn few-shot",
}


def _setting_in(data: dict[str, Any] | None, task: str) -> tuple[tuple[str, object], ...]:
    """The run's settings of ``task`` (see :data:`SETTINGS`) from its results file."""
    if not data:
        return (("n-shot", None),)
    config = (data.get("configs") or {}).get(task)
    config = config if isinstance(config, dict) else {}
    shots = (data.get("n-shot") or {}).get(task) if isinstance(data.get("n-shot"), dict) else None
    if not isinstance(shots, int) or isinstance(shots, bool):
        shots = config.get("num_fewshot")
    shots = shots if isinstance(shots, int) and not isinstance(shots, bool) else None
    template = data.get("chat_template_sha") or ("applied" if data.get("chat_template") else None)
    system = data.get("system_instruction_sha") or (
        "given" if data.get("system_instruction") else None
    )
    run_config = data["config"] if isinstance(data.get("config"), dict) else {}
    gen = run_config.get("gen_kwargs") or None
    if gen is not None and not isinstance(gen, str):
        gen = json.dumps(gen, sort_keys=True, default=str)
    return (
        ("n-shot", shots),
        ("chat template", str(template)[:12] if template else None),
        ("system instruction", str(system)[:12] if system else None),
        ("multi-turn few-shot", bool(data.get("fewshot_as_multiturn"))),
        ("gen_kwargs", gen),
    )


def _label_settings(files: list[SampleFile], notes: list[str]) -> list[SampleFile]:
    """A task run under several settings (0-shot and 3-shot) becomes one task per setting,
    labelled by the settings that differ (``gsm8k [3-shot]``), so its runs are never
    averaged as repeats of one item nor paired across models; said in the notes."""
    by_task: dict[str, set] = defaultdict(set)
    for f in files:
        by_task[f.task].add(f.setting)
    labels: dict[tuple, str] = {}
    for task, settings in sorted(by_task.items()):
        if len(settings) < 2:
            continue
        values = [dict(s) for s in settings]
        differ = [k for k in SETTINGS if len({str(v.get(k)) for v in values}) > 1]
        for setting, value in zip(settings, values, strict=True):
            labels[(task, setting)] = ", ".join(SETTINGS[k](value.get(k)) for k in differ)
        named = sorted(f"{task} [{labels[(task, s)]}]" for s in settings)
        notes.append(
            f"task {task}: runs with different {', '.join(differ)} (as their results files "
            f"record) are different tasks, never averaged or paired: {', '.join(named)}"
        )
    return [
        dataclasses.replace(f, label=labels[(f.task, f.setting)])
        if (f.task, f.setting) in labels
        else f
        for f in files
    ]


def _separate_folders(files: list[SampleFile], notes: list[str]) -> list[SampleFile]:
    """The same model name in two folders (bf16 and fp8 runs): name each after its folder."""
    folders = defaultdict(set)
    for f in files:
        folders[f.model].add(f.path.parent)
    out = []
    for f in files:
        dirs = folders[f.model]
        if len(dirs) > 1:
            where = _distinct_name(f.path.parent, dirs)
            f = dataclasses.replace(f, model=f"{f.model} ({where})")
        out.append(f)
    for model, dirs in sorted(folders.items()):
        if len(dirs) > 1:
            notes.append(
                f"model {model} has logs in {len(dirs)} folders "
                f"({', '.join(sorted('/'.join(d.parts[-2:]) for d in dirs))}); "
                "each is named after its folder"
            )
    return out


def _distinct_name(directory: Path, among: Collection[Path]) -> str:
    """The shortest name telling ``directory`` from the others: its own name, else its
    parent's (lm-eval names both folders after the model: ``bf16/<model>``, ``fp8/<model>``)."""
    for depth in (1, 2):
        names = {"/".join(d.parts[-depth:][:1]) for d in among}
        if len(names) == len(among):
            return directory.parts[-depth]
    return "/".join(directory.parts[-2:])


def _pretrained(model_args: object) -> str | None:
    if isinstance(model_args, dict):
        return model_args.get("pretrained") or model_args.get("model")
    if isinstance(model_args, str):
        for part in model_args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("pretrained", "model") and value:
                return value.strip()
    return None


def metric_rule(metric: Metric | None) -> Callable[[str], str | None]:
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


def _open(path: Path) -> ContextManager[IO[bytes]]:
    return open_maybe_gzip(path, gzipped=path.name.endswith(".gz"))


def _records(f: SampleFile) -> Iterator[tuple[str, Any]]:
    """Yield (line number, record) of a JSON-lines file or a 0.4.0-0.4.2 JSON array."""
    try:
        with _open(f.path) as handle:
            first = handle.read(64).lstrip()[:1]
        if first == b"[":  # lm-eval 0.4.0-0.4.2, and older leaderboard details: a JSON array
            with _open(f.path) as handle:
                data = json.loads(handle.read())
            if not isinstance(data, list):
                raise InputError(f"{f.path}: expected a JSON array of sample records")
            yield from ((f"record {i}", r) for i, r in enumerate(data, start=1))
            return
        with _open(f.path) as handle:
            for lineno, raw in read_lines(handle, f.path, what="an lm-eval samples file"):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except UnicodeDecodeError:
                    raise InputError(
                        f"{f.path}: line {lineno} is not UTF-8 text; lm-eval writes UTF-8 JSON"
                    ) from None
                except (ValueError, RecursionError) as exc:
                    raise InputError(
                        f"{f.path}: line {lineno} is not valid JSON ({exc}); the "
                        "file may be truncated"
                    ) from None
                yield f"line {lineno}", record
    except InputError:
        raise
    except UnicodeDecodeError:
        raise InputError(f"{f.path}: not UTF-8 text; lm-eval writes UTF-8 JSON") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{f.path}: not valid JSON ({exc})") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{f.path}: cannot be read ({exc})") from None


def _doc_key(record: dict[str, Any]) -> str | None:
    """A document's identity: a hash of the logged document (the same for every lm-eval
    version), else the record's own ``doc_hash``."""
    doc = record.get("doc")
    if doc is not None:
        text = json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    value = record.get("doc_hash")
    return value if isinstance(value, str) else None


def _read_samples(f: SampleFile, metric: str | None) -> pd.DataFrame:
    """The file's records as a frame, or None when they carry no score (--predict_only)."""
    doc_ids, filters, hashes, scores = [], [], [], []
    used = metric
    available: list[str] | None = None
    seen: dict[str, int] = defaultdict(int)
    for lineno, record in _records(f):
        if not isinstance(record, dict) or "doc_id" not in record:
            raise InputError(f"{f.path}: {lineno} has no doc_id; not an lm-eval samples record")
        doc = record["doc_id"]
        if isinstance(doc, bool) or not isinstance(doc, (int, str)) or doc == "":
            raise InputError(
                f"{f.path}: {lineno} has doc_id {json.dumps(doc, default=str)[:40]}; lm-eval "
                "numbers each document (doc_id 0, 1, ...): the file is damaged"
            )
        doc = str(doc)
        flt = record.get("filter")
        if flt is None:
            # lm-eval < 0.4.6 logs one record per (filter, document) without naming the
            # filter, filter by filter in the task's filter_list order
            k = seen[doc]
            seen[doc] += 1
            flt = f.filters[k] if len(f.filters) > 1 and k < len(f.filters) else "none"
        if available is None:
            # --predict_only logs the placeholder metric "bypass" with no value
            available = [m for m in record.get("metrics", []) if m in record and m != "bypass"] or [
                k
                for k, v in record.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "doc_id"
            ]
            if not available:
                return None
            if used is None:
                used = default_metric(f.task, available)
            elif used not in available:
                raise InputError(
                    f"{f.path}: no metric {used!r} for task {f.task}; "
                    f"metrics logged: {', '.join(available)}"
                )
        value = record.get(used)
        if isinstance(value, (list, tuple, dict)):
            raise InputError(
                escape(
                    f"{f.path}: {lineno}: metric {used!r} is corpus-level (its per-item value "
                    f"is a {type(value).__name__}); "
                )
                + "choose a per-item metric with {metric}"
                + escape(f" (logged: {', '.join(available)})"),
                param="metric",
            )
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
            raise InputError(
                f"{f.path}: {lineno}: metric {used!r} is {str(value)[:20]}..., not a score; "
                "lm-eval writes a per-item metric as a number such as 0, 1 or 0.73"
            )
        doc_ids.append(doc)
        filters.append(str(flt))
        hashes.append(_doc_key(record))
        scores.append(float(value) if isinstance(value, bool) else value)
    filters_s = pd.Series(filters, dtype=object)
    frame = pd.DataFrame(
        {
            "model": f.model,
            "base_task": f.name,
            "filter": filters_s,
            "task": filters_s.map(lambda x: f.name if x == "none" else f"{f.name}:{x}"),
            "item_id": pd.Series(doc_ids, dtype=object),
            "doc_hash": pd.Series(hashes, dtype=object),
            "score": pd.Series(scores, dtype=object),
        }
    )
    return frame, used or "(no records)"


# The lm-eval row of the registry (evalgap.io.registry).


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is lm-eval samples, or a directory holding some."""
    return is_lm_eval_path(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read lm-eval samples as ``options`` say (:func:`read_lm_eval`)."""
    return read_lm_eval(
        paths,
        metric=list(options.metric) or None,
        filter_name=options.filter_name,
        all_runs=options.all_runs,
        model_name=options.model_name,
        tasks=tuple(options.tasks) or None,
        config_columns=options.config_columns,
    )


def read_lm_eval_results(
    results: Mapping[str, Mapping[str, Any]],
    *,
    metric: Metric | None = None,
    filter_name: str | None = None,
) -> LongScores:
    """Read the dicts ``lm_eval.simple_evaluate(..., log_samples=True)`` returns.

    Parameters
    ----------
    results : mapping
        ``{name: results}``: each run's results dict under the name its model takes (the
        dict carries no model name when the model was passed as an object).
    metric, filter_name
        As for :func:`read_lm_eval`.

    Returns
    -------
    LongScores
        As :func:`read_lm_eval` reads the same runs from ``lm_eval --log_samples`` files:
        each dict is laid out as lm-eval writes it (a results file and one samples file per
        task) and read by the same reader, so filters, metrics and run settings are handled
        alike.

    Examples
    --------
    Two runs' dicts, shaped as ``simple_evaluate`` returns them (here three documents):

    >>> import evalgap
    >>> def run(correct):
    ...     return {"results": {"arc": {"acc,none": sum(correct) / 3}}, "configs": {},
    ...             "samples": {"arc": [{"doc_id": i, "doc": {"q": i}, "filter": "none",
    ...                                  "metrics": ["acc"], "acc": c}
    ...                                 for i, c in enumerate(correct)]}}
    >>> long = evalgap.read_lm_eval_results({"new": run([1, 1, 0]), "base": run([1, 0, 0])})
    >>> long.frame.groupby("model")["score"].sum().to_dict()
    {'base': 1, 'new': 2}
    """
    import tempfile

    if not isinstance(results, Mapping) or not results:
        raise InputError(
            "{results} must map each run's name to the dict lm_eval.simple_evaluate returned",
            param="results",
        )
    if metric is not None and not isinstance(metric, (str, Mapping, list, tuple)):
        raise InputError(
            "{metric} names a metric (one name, or one per task); got "
            + escape(type(metric).__name__),
            param="metric",
        )
    names = [str(name) for name in results]
    with tempfile.TemporaryDirectory(prefix="evalgap-lm-eval-") as folder:

        def named(text: str) -> str:
            """Messages name the run and its task, not the temporary files."""
            for k, name in enumerate(names):
                text = text.replace(str(Path(folder) / f"run{k}"), f"results[{name!r}]")
            return text.replace(folder, "<results>")

        for k, (name, run) in enumerate(results.items()):
            if not isinstance(run, Mapping):
                raise InputError(
                    "{results}"
                    + escape(
                        f"[{name!r}] must be the dict lm_eval.simple_evaluate returned; got "
                        f"{type(run).__name__}"
                    ),
                    param="results",
                )
            if not isinstance(run.get("samples"), Mapping):
                raise InputError(
                    "{results}"
                    + escape(
                        f"[{name!r}] has no per-sample records; call lm_eval.simple_evaluate "
                        "with log_samples=True"
                    ),
                    param="results",
                )
            out = Path(folder) / f"run{k}"
            out.mkdir()
            stamp = "2000-01-01T00-00-00.000000"
            header = {key: value for key, value in run.items() if key != "samples"}
            header["model_name"] = str(name)
            try:
                (out / f"results_{stamp}.json").write_text(json.dumps(header, default=str))
                for task, records in run["samples"].items():
                    if not isinstance(task, str) or not task or "/" in task or "\\" in task:
                        raise InputError(
                            "{results}"
                            + escape(
                                f"[{name!r}]: task {task!r} cannot be a task name (lm-eval "
                                "names its files after it); rename it"
                            ),
                            param="results",
                        )
                    if not isinstance(records, list):
                        raise InputError(
                            "{results}"
                            + escape(f"[{name!r}]['samples'][{task!r}] must be a list of records"),
                            param="results",
                        )
                    lines = "".join(json.dumps(r, default=str) + "\n" for r in records)
                    (out / f"samples_{task}_{stamp}.jsonl").write_text(lines)
            except InputError:
                raise
            except (OverflowError, ValueError, TypeError, RecursionError) as exc:
                raise InputError(
                    "{results}"
                    + escape(f"[{name!r}] holds a value JSON cannot carry ({type(exc).__name__})"),
                    param="results",
                ) from None
        try:
            read = read_lm_eval([folder], metric=metric, filter_name=filter_name)
        except InputError as error:
            raise InputError(escape(named(str(error)))) from None
        except (OverflowError, ValueError, TypeError) as exc:
            raise InputError(
                "{results}" + escape(f" hold a score that is not a number ({type(exc).__name__})"),
                param="results",
            ) from None
        notes = tuple(named(n) for n in read.notes)
    return dataclasses.replace(read, source="lm_eval.simple_evaluate results", notes=notes)
