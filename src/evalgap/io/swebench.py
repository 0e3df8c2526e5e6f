"""Read SWE-bench results: the harness's run reports and the leaderboard's ``results.json``.

* **A run report** (``<model>.<run_id>.json``, written by ``swebench.harness.
  run_evaluation``'s ``make_run_report``): ``total_instances`` and the instance ids by
  outcome (``resolved_ids``, ``unresolved_ids``, ``empty_patch_ids``, ``error_ids``,
  ``incomplete_ids``, ``completed_ids``). Every instance of the dataset is in one of these
  lists, so each becomes an item: 1 when resolved, 0 otherwise -- the harness's own
  denominator (an empty patch, an error or no prediction counts as not resolved, and the
  notes count them). The model is the file's name without ``.json`` (the harness names it
  ``<model>.<run_id>``).
* **A leaderboard folder** (the SWE-bench/experiments layout, ``evaluation/<split>/
  <system>/results/results.json``): ``{"resolved": [...], "no_generation": [...],
  "no_logs": [...]}``. Only the resolved instances are listed; the unresolved are the rest
  of the split, so the split's instance ids must be given as an item file (``items``:
  one instance id per row). The model is the ``<system>`` folder, the task the ``<split>``.

* **Per-instance reports** (``logs/run_evaluation/<run_id>/<model>/<instance_id>/
  report.json``, ``{instance_id: {"resolved": ..., ...}}``): each is one item of its model
  (the folder above the instance's), of run ``<run_id>``: several runs of a model are runs
  of the same items, averaged per item. Only the instances that ran are known, so the notes
  say that the run report is the harness's denominator; a run whose run report is read too
  (the harness's working folder holds both) is read from its run report alone, and the notes
  count the per-instance reports left out.

Instances are items of task ``swe-bench`` (run reports and per-instance reports) or of the
split (leaderboard: an item file of several splits names each id's split in a task column).
``model_name`` names the model of a single file of any of the three kinds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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

# The counts the harness writes first (the id lists follow, long for a full split).
REPORT_KEYS = ("total_instances", "resolved_instances")
REPORT_LISTS = (
    "resolved_ids",
    "unresolved_ids",
    "empty_patch_ids",
    "error_ids",
    "incomplete_ids",
    "completed_ids",
    "submitted_ids",
)
LEADERBOARD_FILE = "results.json"
TASK = "swe-bench"
MAX_BYTES = 64 * 2**20  # a run report of the full test split is a few hundred KB
# One score: model, task, instance id, run (the run report, run_id or system), 1 if resolved.
Row = tuple[str, str, str, str, float]


def _json(path: Path) -> tuple[Any, list[str]]:
    """A results file and the notes on its harmless repeated keys (a key given twice with
    different values is refused)."""
    return read_json_checked(path, MAX_BYTES, "a SWE-bench results file", param="scores")


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(4096)


def is_run_report(path: Path) -> bool:
    """A harness run report: a JSON object opening with ``total_instances`` and
    ``resolved_instances`` (its id lists follow)."""
    if path.suffix != ".json" or not path.is_file():
        return False
    head = _head(path)
    return head.lstrip()[:1] == b"{" and all(f'"{k}"'.encode() in head for k in REPORT_KEYS)


def is_leaderboard_results(path: Path) -> bool:
    """The leaderboard's ``results/results.json``: ``resolved`` beside ``no_generation``."""
    if path.name != LEADERBOARD_FILE or path.parent.name != "results" or not path.is_file():
        return False
    head = _head(path)
    return head.lstrip()[:1] == b"{" and b'"resolved"' in head


def is_instance_report(path: Path) -> bool:
    """A per-instance ``report.json``: ``{instance_id: {..., "resolved": ...}}``."""
    if path.name != "report.json" or not path.is_file():
        return False
    head = _head(path)
    return head.lstrip()[:1] == b"{" and b'"resolved"' in head and b'"tests_status"' in head


def _instance_rows(files: list[Path], model_name: str | None = None) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    runs: dict[str, set[str]] = {}
    notes: list[str] = []
    for f in files:
        data, repeated = _json(f)
        notes += repeated
        if not isinstance(data, dict) or len(data) != 1:
            raise InputError(f"{f}: a per-instance report holds one instance")
        ((instance, report),) = data.items()
        resolved = report.get("resolved") if isinstance(report, dict) else None
        if not isinstance(resolved, bool):
            raise InputError(escape(f"{f}: instance {instance!r} has no true/false resolved"))
        model = model_name or f.parent.parent.name.replace("__", "/")
        run = _run_id(f)
        runs.setdefault(model, set()).add(run)
        rows.append((model, TASK, str(instance), run, 1.0 if resolved else 0.0))
    notes.append(
        f"{len(rows):,} per-instance report(s) of {len(runs)} model(s): only the instances "
        "that ran are known; the harness's run report (<model>.<run_id>.json) also counts "
        "those with no prediction, an empty patch or an error"
    )
    several = {m: r for m, r in runs.items() if len(r) > 1}
    if several:
        model, found = next(iter(several.items()))
        notes.append(
            escape(
                f"{model}: per-instance reports of {len(found)} runs ({', '.join(sorted(found))})"
                ", averaged per instance"
            )
        )
    return rows, notes


def _ids(value: Any, key: str, path: Path, notes: list[str] | None = None) -> list[str]:
    """The instance ids of a list; with ``notes``, an id listed twice is counted once and
    said there."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(
            escape(f"{path}: {key!r} must be a list of instance ids (strings)"), param="scores"
        )
    ids = list(dict.fromkeys(value))
    if notes is not None and len(ids) < len(value):
        seen: set[str] = set()
        for first in value:
            if first in seen:
                break
            seen.add(first)
        notes.append(
            f"{path}: {key} lists {len(value) - len(ids):,} instance id(s) again (first: "
            f"{first!r}); each instance is counted once"
        )
    return ids


def _count(data: dict[str, Any], key: str, path: Path, listed: int) -> int | None:
    """A count the run report states (``total_instances``), or None when it is not there;
    anything but a whole number is refused with the value as written and the count its id
    lists give (``listed``)."""
    value = data.get(key)
    if value is None and key not in data:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(
            escape(
                f"{path}: {key} is {json.dumps(value)[:40]}, not a whole number of instances; "
                f"the harness writes a count here: write it as one ({listed:,} by the report's "
                "id lists)"
            ),
            param="scores",
        )
    return value


def _report_rows(path: Path, model: str) -> tuple[list[Row], list[str]]:
    data, notes = _json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: a SWE-bench run report is a JSON object")
    lists = {k: set(_ids(data.get(k), k, path, notes)) for k in REPORT_LISTS}
    resolved = lists["resolved_ids"]
    both = resolved & (lists["unresolved_ids"] | lists["error_ids"] | lists["empty_patch_ids"])
    if both:
        raise InputError(
            escape(
                f"{path}: {len(both):,} instance(s) are listed as resolved and as not resolved "
                f"(first: {sorted(both)[0]!r}); the report contradicts itself"
            )
        )
    universe = set().union(*(lists[k] for k in REPORT_LISTS if k != "submitted_ids"))
    total = _count(data, "total_instances", path, len(universe))
    _count(data, "resolved_instances", path, len(resolved))
    if total is not None and total != len(universe):
        raise InputError(
            escape(
                f"{path}: total_instances is {total:,} but its id lists name {len(universe):,} "
                "instances; the report is incomplete (written by an older harness?): give "
                "the instance ids as an item file, or regenerate the report"
            )
        )
    not_run = len(lists["incomplete_ids"] | lists["empty_patch_ids"] | lists["error_ids"])
    if not_run:
        notes.append(
            f"{model}: {len(lists['incomplete_ids']):,} instance(s) without a prediction, "
            f"{len(lists['empty_patch_ids']):,} with an empty patch and "
            f"{len(lists['error_ids']):,} with an evaluation error count as not resolved "
            "(as the harness counts them)"
        )
    run = path.name.removesuffix(".json")
    rows = [(model, TASK, i, run, 1.0 if i in resolved else 0.0) for i in sorted(universe)]
    return rows, notes


def _split(path: Path) -> str:
    """The split of a leaderboard ``evaluation/<split>/<system>/results/results.json``."""
    return path.parent.parent.parent.name or TASK


def _leaderboard_rows(
    path: Path, universe: list[str], model_name: str | None = None
) -> tuple[list[Row], list[str]]:
    data, notes = _json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: a leaderboard results.json is a JSON object")
    model = model_name or path.parent.parent.name
    split = _split(path)
    resolved = set(_ids(data.get("resolved"), "resolved", path, notes))
    known = set(universe)
    stray = resolved - known
    if stray:
        raise InputError(
            escape(
                f"{path}: {len(stray):,} resolved instance(s) are not in the item file (first: "
                f"{sorted(stray)[0]!r}); give the instance ids of split {split!r}"
            )
        )
    listed = {k: _ids(data.get(k), k, path, notes) for k in ("no_generation", "no_logs")}
    missing = [k for k, v in listed.items() if v]
    if missing:
        counts = ", ".join(f"{len(listed[k]):,} {k}" for k in missing)
        notes.append(f"{model}: {counts} instance(s) count as not resolved (as the leaderboard)")
    run = path.parent.parent.name
    return [(model, split, i, run, 1.0 if i in resolved else 0.0) for i in universe], notes


def _instances(items: str | None, paths: list[Path]) -> dict[str | None, list[str]]:
    """The split's instance ids from the item file: its item id column (detected as for any
    item file); with a task column (the splits' names), each split's ids, keyed by split
    (else one list, keyed None)."""
    if not items:
        raise InputError(
            escape(
                f"{paths[0]}: a SWE-bench leaderboard results.json lists only the resolved "
                "instances; give the split's instance ids as an item file "
            )
            + "({items}: one instance_id per row) so the rest count as not resolved",
            param="items",
        )
    from evalgap.io.tables import _detect, column_listing, read_frame

    frame = read_frame(Path(items), as_text=True)
    frame.columns = [str(c) for c in frame.columns]
    column = _detect("item_id", frame.columns, ())
    if column is None:
        raise InputError(
            escape(
                f"{items}: no instance id column (columns found: "
                f"{column_listing(frame.columns)}); name it instance_id"
            ),
            param="items",
        )
    split = _detect("task", frame.columns, (column,))
    frame = frame[frame[column].notna() & (frame[column].astype(str).str.strip() != "")]
    if frame.empty:
        raise InputError(escape(f"{items}: no instance ids"), param="items")
    if split is None:
        return {None: list(dict.fromkeys(frame[column].astype(str)))}
    return {
        str(name): list(dict.fromkeys(part[column].astype(str)))
        for name, part in frame.groupby(split, sort=False)
    }


def _found(folder: Path) -> Iterator[Path]:
    """The SWE-bench files under ``folder``, at any depth: run reports, leaderboard
    results.json and per-instance report.json (lazily, so detection stops at the first)."""
    yield from (q for q in sorted(folder.rglob("*.json")) if is_run_report(q))
    yield from (q for q in sorted(folder.rglob(LEADERBOARD_FILE)) if is_leaderboard_results(q))
    yield from (q for q in sorted(folder.rglob("report.json")) if is_instance_report(q))


def read_swebench(
    paths: PathsArg, *, items: str | None = None, model_name: str | None = None
) -> LongScores:
    """Read SWE-bench run reports, leaderboard folders and per-instance reports (see the
    module) into the long layout: one row per model, instance and run, 1 when resolved."""
    paths = as_paths(paths)
    files: list[Path] = []
    for p in paths:
        files += list(_found(p)) if p.is_dir() else [p]
    if not files:
        raise InputError(
            f"{paths[0]}: no SWE-bench run report, results/results.json or per-instance "
            "report.json found"
        )
    rows: list[Row] = []
    notes: list[str] = []
    if model_name is not None and len(files) > 1:
        raise InputError(
            "{model_name} names the model of one file; these are "
            + escape(f"{len(files)} files (each report is named after its model)"),
            param="model_name",
        )
    reports = [f for f in files if is_run_report(f)]
    boards = [f for f in files if not is_run_report(f) and is_leaderboard_results(f)]
    instance_files = [f for f in files if f not in reports and f not in boards]
    for f in instance_files:
        if not is_instance_report(f):
            raise InputError(f"{f}: neither a SWE-bench run report nor a results/results.json")
    # the harness writes a run's report beside its per-instance reports: read together, the
    # run report (every instance) stands for them
    stems = {f.name.removesuffix(".json") for f in reports}
    covered = [f for f in instance_files if f"{f.parent.parent.name}.{_run_id(f)}" in stems]
    if covered:
        instance_files = [f for f in instance_files if f not in covered]
        notes.append(
            f"{len(covered):,} per-instance report(s) are left out: the run report of their "
            "run is read too and counts every instance"
        )
    if instance_files:
        got, said = _instance_rows(instance_files, model_name)
        rows += got
        notes += said
    for f in reports:
        got, said = _report_rows(f, model_name or f.name.removesuffix(".json"))
        rows += got
        notes += said
    if boards:
        listed = _instances(items, boards)
        splits = sorted({_split(f) for f in boards})
        if None in listed and len(splits) > 1:
            raise InputError(
                escape(
                    f"{boards[0]}: leaderboard results of {len(splits)} splits "
                    f"({', '.join(splits)}) but one list of instance ids; read one split at a "
                    "time, or give the ids of every split with a task column (the split) in "
                )
                + "{items}",
                param="items",
            )
        lacking = [s for s in splits if None not in listed and s not in listed]
        if lacking:
            raise InputError(
                escape(f"{items}: no instance ids of split {lacking[0]!r} (splits listed: ")
                + escape(f"{', '.join(sorted(k for k in listed if k))}); give them in ")
                + "{items}",
                param="items",
            )
        for f in boards:
            universe = listed[None] if None in listed else listed[_split(f)]
            got, said = _leaderboard_rows(f, universe, model_name)
            rows += got
            notes += said
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "run", "score"])
    return LongScores(
        frame=frame,
        source=", ".join(map(str, paths)),
        columns={"item_id": "instance_id", "score": "resolved"},
        notes=tuple(notes),
    )


def _run_id(path: Path) -> str:
    """The run of a per-instance report (``<run_id>/<model>/<instance>/report.json``)."""
    return path.parent.parent.parent.name


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is a run report, a leaderboard results.json, or a folder of them."""
    if path.is_dir():
        return next(_found(path), None) is not None
    return is_run_report(path) or is_leaderboard_results(path) or is_instance_report(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read SWE-bench results as ``options`` say (:func:`read_swebench`)."""
    return read_swebench(paths, items=options.items, model_name=options.model_name)
