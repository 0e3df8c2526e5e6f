"""Read MTEB result files: one JSON per (model, task), as mteb writes them.

mteb (``TaskResult.to_disk``; the layout of its results repository is
``<org>__<model>/<revision>/<Task>.json``) records, per evaluation split, one entry per
``hf_subset`` (a language or configuration) with the task's ``main_score``. Each task is one
item: its score is the mean of ``main_score`` over its splits and subsets, as mteb's own
``TaskResult.get_score()`` computes it, so a model's mean over the items is MTEB's mean over
tasks. The model is the results folder two levels up (``org__model`` read as
``org/model``), or ``model_name`` for a single file outside that layout. Files of the older
format (before mteb 1.11: ``scores`` per split as a mapping of subsets) are refused with
what to do, never half read. A key written twice in one object with different values
(two ``main_score``, two ``test`` splits) is refused, naming the file and the key; the same
value twice is read once, with a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io._files import PathsArg, as_paths
from evalgap.io._json import read_json_checked

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

TASK = "mteb"
MAX_BYTES = 16 * 2**20  # a task's result file is a few KB; its largest a few MB
FIELDS = (b'"task_name"', b'"scores"')


def is_result_file(path: Path) -> bool:
    """An mteb result: a JSON object naming ``task_name`` and ``scores`` near its start."""
    if path.suffix != ".json" or not path.is_file() or path.name == "model_meta.json":
        return False
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return (
        head.lstrip()[:1] == b"{"
        and all(f in head for f in FIELDS)
        and (b'"mteb_version"' in head or b'"dataset_revision"' in head)
    )


def _task_score(data: dict[str, Any], path: Path) -> tuple[str, float, int]:
    """The task's name, its score (mean main_score over splits and subsets) and how many
    entries it averages."""
    name = data.get("task_name")
    scores = data.get("scores")
    if not isinstance(name, str) or not name or not isinstance(scores, dict) or not scores:
        raise InputError(f"{path}: an mteb result names its task_name and holds scores")
    values = []
    for split, entries in scores.items():
        if isinstance(entries, dict):
            raise InputError(
                escape(
                    f"{path}: split {split!r} holds a mapping of subsets: the format of mteb "
                    "before 1.11; load it with a current mteb (mteb.load_results) and save it "
                    "again, which converts it"
                )
            )
        if not isinstance(entries, list) or not entries:
            raise InputError(escape(f"{path}: split {split!r} holds no scores"))
        for entry in entries:
            score = entry.get("main_score") if isinstance(entry, dict) else None
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise InputError(
                    escape(f"{path}: split {split!r} has an entry without a numeric main_score")
                )
            values.append(float(score))
    mean = sum(values) / len(values)
    if not 0.0 <= mean <= 1.0:
        raise InputError(
            escape(
                f"{path}: task {name!r} has main_score {mean:g}, outside [0, 1]; mteb writes "
                "scores as fractions (a file in percent needs rescaling)"
            )
        )
    return name, mean, len(values)


def read_mteb(paths: PathsArg, *, model_name: str | None = None) -> LongScores:
    """Read mteb result files (or folders of them) into the long layout: one item per task."""
    paths = as_paths(paths)
    files: list[Path] = []
    for p in paths:
        files += sorted(q for q in p.rglob("*.json") if is_result_file(q)) if p.is_dir() else [p]
    if not files:
        raise InputError(f"{paths[0]}: no mteb result file found")
    if model_name is not None and len(files) > 1 and len({f.parent for f in files}) > 1:
        raise InputError(
            "{model_name} names the model of one folder of results; these are "
            + escape(f"{len({f.parent for f in files})} folders"),
            param="model_name",
        )
    rows: list[tuple[str, str, str, float]] = []
    seen: dict[tuple[str, str], Path] = {}
    averaged = 0
    notes: list[str] = []
    for f in files:
        data, repeated = read_json_checked(f, MAX_BYTES, "an mteb result file", param="scores")
        notes += repeated
        if not isinstance(data, dict):
            raise InputError(f"{f}: an mteb result is a JSON object")
        task, score, count = _task_score(data, f)
        model = model_name or f.parent.parent.name.replace("__", "/")
        if not model:
            raise InputError(
                escape(f"{f}: not in mteb's <model>/<revision>/ layout; ")
                + "name its model with {model_name}",
                param="model_name",
            )
        if (model, task) in seen:
            raise InputError(
                escape(
                    f"{model} has two results for task {task!r} ({seen[(model, task)]} and {f}): "
                    "two revisions? give one revision's folder"
                )
            )
        seen[(model, task)] = f
        averaged += count > 1
        rows.append((model, TASK, task, score))
    loose = sorted({r[0] for r, f in zip(rows, files, strict=True) if f in paths})
    if loose and model_name is None:
        notes.append(
            f"model {', '.join(loose)} named after the folder two levels above a result file "
            "given alone (mteb's <model>/<revision>/<task>.json); if the file is not in that "
            "layout, name its model with --model-name"
        )
    if averaged:
        notes.append(
            f"{averaged:,} task result(s) average main_score over several splits or subsets, "
            "as mteb's TaskResult.get_score does"
        )
    return LongScores(
        frame=pd.DataFrame(rows, columns=["model", "task", "item_id", "score"]),
        source=", ".join(map(str, paths)),
        columns={"item_id": "task_name", "score": "mean main_score"},
        notes=tuple(notes),
    )


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is an mteb result file, or a folder holding some."""
    if path.is_dir():
        return any(is_result_file(q) for q in path.rglob("*.json"))
    return is_result_file(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read mteb results as ``options`` say (:func:`read_mteb`)."""
    return read_mteb(paths, model_name=options.model_name)
