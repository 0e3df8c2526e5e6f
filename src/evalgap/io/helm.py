"""Read HELM runs: ``per_instance_stats.json`` with the run's ``run_spec.json``.

A HELM run directory (``benchmark_output/runs/<suite>/<run name>/``) holds one model on one
scenario. ``per_instance_stats.json`` lists, per instance and train trial, the stats computed
on it; evalgap takes one named stat (default ``exact_match``) on the unperturbed instances.
The model is ``adapter_spec.model`` of ``run_spec.json``; the task is the run name without its
``model=`` part (``mmlu:subject=philosophy,method=multiple_choice_joint``), so the same
scenario run for two models pairs up. Train trials are runs of the same item.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io._files import PathsArg, as_paths, expand
from evalgap.io._limits import read_json

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

STATS_FILE = "per_instance_stats.json"


def is_helm_path(path: Path) -> bool:
    """True for a ``per_instance_stats.json`` file or a directory holding one."""
    if path.is_file():
        return path.name == STATS_FILE
    return path.is_dir() and next(path.rglob(STATS_FILE), None) is not None


def read_helm(paths: PathsArg, *, stat: str = "exact_match") -> LongScores:
    """Read HELM run directories (or their ``per_instance_stats.json``) into the long layout."""
    paths = as_paths(paths)
    frames, notes, lacking = [], [], []
    runs = [
        (p, *_model_and_task(p.parent)) for p in expand(paths, globs=(STATS_FILE,), what=STATS_FILE)
    ]
    tasks = _task_labels(runs)
    for stats_path, model, _, _ in runs:
        run = stats_path.parent
        task = tasks[stats_path]
        data = _load(stats_path)
        rows, perturbed, available = [], 0, set()
        for entry in data:
            if not isinstance(entry, dict) or entry.get("instance_id") in (None, ""):
                raise InputError(
                    f"{stats_path}: an entry has no instance_id; not a HELM per-instance stats file"
                )
            found = None
            for s in entry.get("stats", []):
                name = s.get("name", {})
                available.add(name.get("name"))
                if name.get("name") != stat:
                    continue
                if name.get("perturbation"):
                    perturbed += 1
                    continue
                found = s.get("mean")
            trial = entry.get("train_trial_index")
            rows.append((str(entry["instance_id"]), str(0 if trial is None else trial), found))
        if all(r[2] is None for r in rows):
            lacking.append((run.name, sorted(a for a in available if isinstance(a, str))))
            continue
        if perturbed:
            notes.append(
                f"{run.name}: {perturbed} perturbed {stat} values left out (only "
                "unperturbed instances are compared)"
            )
        frame = pd.DataFrame(rows, columns=["item_id", "run", "score"])
        frame.insert(0, "task", task)
        frame.insert(0, "model", model)
        frames.append(frame)
    if not frames:
        found = sorted({a for _, names in lacking for a in names})
        raise InputError(
            escape(f"no HELM run has a stat named {stat!r}; stats found: {', '.join(found[:12])}")
            + " (choose with {stat})",
            param="stat",
        )
    for name, stats_found in lacking:
        notes.append(
            f"HELM run {name} has no stat {stat!r} (stats: {', '.join(stats_found[:6])}"
            f"{', ...' if len(stats_found) > 6 else ''}); this run is left out"
        )
    return LongScores(
        frame=pd.concat(frames, ignore_index=True),
        source=", ".join(map(str, paths)),
        columns={"item_id": "instance_id", "run": "train_trial_index", "score": stat},
        notes=tuple(notes),
    )


def _task_labels(runs: list[tuple[Path, str, str, str]]) -> dict[Path, str]:
    """Task label per run: the run name without its model part; when one model has two runs
    with that label (one scenario in two suites), every run of it is labelled with its suite
    folder too, so each suite is its own task and no item is counted twice."""
    seen: dict[tuple[str, str], int] = {}
    for _, model, task, _ in runs:
        seen[(model, task)] = seen.get((model, task), 0) + 1
    doubled = {task for (_, task), n in seen.items() if n > 1}
    return {
        path: f"{task} [{path.parent.parent.name}]" if task in doubled else task
        for path, _, task, _ in runs
    }


def _load(path: Path) -> list[Any]:
    data = read_json(path, what="a HELM stats file")
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a list of per-instance entries")
    for entry in data:
        stats = entry.get("stats", []) if isinstance(entry, dict) else None
        if not isinstance(stats, list) or not all(
            isinstance(s, dict) and isinstance(s.get("name", {}), dict) for s in stats
        ):
            raise InputError(
                f"{path}: an entry's 'stats' is not a list of stat objects with a 'name' "
                "object; not a HELM per-instance stats file"
            )
    return data


def _model_and_task(run: Path) -> tuple[str, str, str]:
    """Return a run's model, its task label (the run name without the model) and its name."""
    spec_path = run / "run_spec.json"
    name, model = run.name, None
    if spec_path.exists():
        spec: object
        try:
            spec = read_json(spec_path, what="a HELM run spec")
        except InputError:  # a damaged spec only loses the names it would give
            spec = None
        if isinstance(spec, dict):
            name = spec["name"] if isinstance(spec.get("name"), str) else name
            adapter = spec["adapter_spec"] if isinstance(spec.get("adapter_spec"), dict) else {}
            model = adapter["model"] if isinstance(adapter.get("model"), str) else None
    scenario, _, args = name.partition(":")
    kept = [a for a in args.split(",") if a and not a.startswith(("model=", "model_deployment="))]
    if model is None:
        model = next(
            (a.split("=", 1)[1] for a in args.split(",") if a.startswith("model=")), run.name
        )
    return model, scenario + (":" + ",".join(kept) if kept else ""), name


# The HELM row of the registry (evalgap.io.registry).


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is a ``per_instance_stats.json`` or a directory holding one."""
    return is_helm_path(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read HELM runs as ``options`` say (:func:`read_helm`)."""
    return read_helm(paths, stat=options.stat)
