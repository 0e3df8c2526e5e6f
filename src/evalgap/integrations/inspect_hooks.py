"""The inspect_ai extension: at the end of each run, each task's paired verdict against a
baseline.

Installed with ``pip install "evalgap[inspect]"``, evalgap registers these hooks through
inspect_ai's ``inspect_ai`` entry point. When a baseline is configured -- the environment
variable ``EVALGAP_BASELINE`` (a log file or a folder of logs, such as inspect's ``./logs``),
or the task's metadata field ``evalgap_baseline`` -- each task of the run prints one line:
evalgap's paired comparison of the new log's model against the baseline's on the same task
(the baseline log chosen, the verdict, the items compared and those left out), and writes it
beside the log as ``<log>.evalgap.jsonl`` (one comparison per line, one line per task) and
``<log>.evalgap.md``.

In a folder the baseline is the latest finished log of the same task, with the same task
arguments (``-T``), other than the new log; ``EVALGAP_BASELINE_MODEL`` names its model when
logs of several models match. A task that ended in error (inspect stops a task at its first
failed sample unless run with ``--no-fail-on-error``) is not compared, and the line says so.
``EVALGAP_HOOK=0`` turns the hook off. A comparison that cannot be made prints one line saying
why, on stderr, naming the environment variable to change; it never fails the evaluation.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, RunEnd, hooks

from evalgap.errors import InputError
from evalgap.io.inspect_baseline import (
    Baseline,
    args_text,
    errored_samples,
    find_baseline,
    local_path,
    task_label,
)

__all__ = ["Baseline", "EvalgapHooks", "find_baseline", "report", "task_ended"]

ENV_BASELINE = "EVALGAP_BASELINE"
ENV_MODEL = "EVALGAP_BASELINE_MODEL"
ENV_SWITCH = "EVALGAP_HOOK"
METADATA_KEY = "evalgap_baseline"
# inspect's option that keeps a task running past a failed sample (`inspect eval --help`)
KEEP_GOING = "--no-fail-on-error"


def baseline_of(log: Any) -> tuple[str, str] | None:
    """The baseline configured for a task's log and where it was set: the task's metadata
    field, else the environment; None when there is none."""
    metadata = getattr(getattr(log, "eval", None), "metadata", None) or {}
    given = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    if given:
        return str(given), f"the task metadata {METADATA_KEY!r}"
    from_env = os.environ.get(ENV_BASELINE)
    return (from_env, ENV_BASELINE) if from_env else None


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def task_line(r: Any, chosen: Baseline, errored: tuple[int, int]) -> str:
    """The line printed for one task: the pair and the baseline log chosen, compare's verdict
    word for word, the items compared and those left out.

    ``errored`` holds the errored samples of the new log and of the baseline; the items one
    log lacks are the alignment's missing items of the other model (``r.model_a`` is the new
    log's model, ``r.model_b`` the baseline's).
    """
    from evalgap.report.sentences import compare_verdict
    from evalgap.report.text import plural

    latest = f", the latest of {chosen.matching} matching" if chosen.matching > 1 else ""
    lacks = {r.model_a: 0, r.model_b: 0}
    for entry in r.alignment.entries if r.alignment is not None else ():
        if entry.model in lacks:
            lacks[entry.model] += entry.items_missing
    left = [
        f"{plural(errored[0], 'errored sample')} of the new log" if errored[0] else "",
        f"{plural(errored[1], 'errored sample')} of the baseline" if errored[1] else "",
        f"{plural(lacks[r.model_b], 'item')} the baseline lacks" if lacks[r.model_b] else "",
        f"{plural(lacks[r.model_a], 'item')} the new log lacks" if lacks[r.model_a] else "",
    ]
    shown = ", ".join(part for part in left if part) or "none"
    return (
        f"evalgap: {r.model_a} against {r.model_b} (baseline log {_shown(chosen.path)}{latest}): "
        f"{compare_verdict(r)}. {plural(r.n_items, 'item')} compared; left out: {shown}."
    )


def report(log_path: str | Path, baseline: str | Path, *, model: str | None = None) -> str:
    """Compare the log with its baseline (:func:`find_baseline`), write the results beside it,
    return the text printed for the task (one line per task of the log)."""
    from evalgap.io._write import atomic_write
    from evalgap.jobs.compare import against_baseline
    from evalgap.report.json_output import to_json
    from evalgap.report.markdown import result_markdown

    path = Path(log_path)
    chosen = find_baseline(path, baseline, model=model)
    results = against_baseline(path, chosen.path, model=model)
    errored = (errored_samples(path), errored_samples(chosen.path))
    lines = [task_line(r, chosen, errored) for r in results]
    # JSON lines, not .json: inspect lists a timestamp-named .json file in its log folder as
    # a log (`inspect view` would offer this one and fail to open it)
    payload = "".join(to_json(r) + "\n" for r in results)
    atomic_write(
        path.with_name(path.name + ".evalgap.jsonl"),
        lambda handle: handle.write(payload),
        option="the comparison beside the log,",
        what="the comparison",
    )
    text = "\n".join(result_markdown(r) for r in results)
    atomic_write(
        path.with_name(path.name + ".evalgap.md"),
        lambda handle: handle.write(text),
        option="the comparison beside the log,",
        what="the comparison",
    )
    return "\n".join(lines)


def env_names(source: str) -> Callable[[str], tuple[str, bool] | None]:
    """How the hook's messages name ``report``'s parameters: the environment variables (or the
    task metadata field) that set them, never a Python keyword."""
    names = {"baseline": source, "model": ENV_MODEL, "log": "the new log"}
    return lambda name: (names[name], False) if name in names else None


def task_ended(log: Any) -> tuple[str, bool] | None:
    """What the hook says about one task's log at the end of the run, and whether it goes to
    stderr; None when no baseline is configured."""
    configured = baseline_of(log)
    if configured is None:
        return None
    baseline, source = configured
    spec = getattr(log, "eval", None)
    label = task_label(str(getattr(spec, "task", "?")), args_text(getattr(spec, "task_args", None)))
    status = str(getattr(log, "status", "success"))
    if status == "error":
        error = str(getattr(getattr(log, "error", None), "message", "") or "")
        said = (error.strip().splitlines() or ["an error"])[0]
        said = said if len(said) <= 200 else said[:197] + "..."
        return (
            f"evalgap: task {label} ended in error ({said}), so it was "
            "not compared with the baseline; inspect stops a task at its first failed sample "
            f"unless run with {KEEP_GOING} (fail_on_error=False in Python; failed samples are "
            "then left out and counted)",
            True,
        )
    if status != "success":
        return f"evalgap: task {label} ended as {status!r}; nothing compared", True
    path = local_path(str(getattr(log, "location", "") or ""))
    if path is None:
        where = getattr(log, "location", "")
        text = f"evalgap: the log of task {label} is not a local file ({where!r}); not compared"
        return text, True
    try:
        return report(path, baseline, model=os.environ.get(ENV_MODEL) or None), False
    except InputError as error:
        return f"evalgap: cannot compare with the baseline: {error.render(env_names(source))}", True


@hooks(
    name="evalgap",
    description="each task's paired verdict against a baseline log "
    f"({ENV_BASELINE} or the task metadata '{METADATA_KEY}')",
)
class EvalgapHooks(Hooks):
    """Print and save the paired comparison of each finished task with its baseline.

    The lines are printed when the run ends, after inspect's display has closed, and cover
    every task of the run, those that ended in error included (inspect emits no task end
    for a task stopped by a failed sample).
    """

    def enabled(self) -> bool:
        return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")

    async def on_run_end(self, data: RunEnd) -> None:
        for log in data.logs:
            said = task_ended(log)
            if said is not None:
                print(said[0], file=sys.stderr if said[1] else sys.stdout)
