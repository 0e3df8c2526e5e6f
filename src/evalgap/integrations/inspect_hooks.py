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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, RunEnd, hooks

from evalgap.errors import InputError, escape, first_line

ENV_BASELINE = "EVALGAP_BASELINE"
ENV_MODEL = "EVALGAP_BASELINE_MODEL"
ENV_SWITCH = "EVALGAP_HOOK"
METADATA_KEY = "evalgap_baseline"
# inspect's option that keeps a task running past a failed sample (`inspect eval --help`)
KEEP_GOING = "--no-fail-on-error"


@dataclass(frozen=True)
class Baseline:
    """The baseline log chosen for a new log: its path, and how many logs matched (the task,
    its arguments and the model; the latest was chosen)."""

    path: Path
    matching: int = 1


@dataclass(frozen=True)
class _Header:
    path: Path
    task: str
    args: str
    model: str
    created: str
    status: str


def baseline_of(log: Any) -> tuple[str, str] | None:
    """The baseline configured for a task's log and where it was set: the task's metadata
    field, else the environment; None when there is none."""
    metadata = getattr(getattr(log, "eval", None), "metadata", None) or {}
    given = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    if given:
        return str(given), f"the task metadata {METADATA_KEY!r}"
    from_env = os.environ.get(ENV_BASELINE)
    return (from_env, ENV_BASELINE) if from_env else None


def _local(location: str) -> Path | None:
    """The local path of a log's location, or None for a remote one (s3://...)."""
    if "://" in location and not location.startswith("file://"):
        return None
    return Path(location.removeprefix("file://")) if location else None


def _args_text(args: Any) -> str:
    if not isinstance(args, dict) or not args:
        return ""
    # as evalgap's inspect reader labels a task run under several argument sets
    return ",".join(f"{k}={args[k]}" for k in sorted(args))


def _label(task: str, args: str) -> str:
    return f"{task}({args})" if args else task


def _header(path: Path, param: str) -> _Header:
    """The task, arguments, model, creation time and status of one inspect log."""
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path), header_only=True)
    except Exception as error:  # inspect raises several types for a file that is no log
        raise InputError(
            "{" + param + "}" + escape(f": {path} is not an inspect_ai log: {first_line(error)}"),
            param=param,
        ) from None
    spec = log.eval
    return _Header(
        path,
        spec.task,
        _args_text(spec.task_args),
        spec.model,
        str(spec.created),
        str(log.status),
    )


def _folder_headers(folder: Path, new: Path) -> list[_Header]:
    """The headers of the logs under ``folder`` other than ``new`` (unreadable ones left out:
    a folder such as ./logs may hold logs being written)."""
    from inspect_ai.log import list_eval_logs

    out = []
    for info in list_eval_logs(str(folder), recursive=True):
        path = _local(info.name)
        if path is None or not path.exists() or _same(path, new):
            continue
        try:
            out.append(_header(path, "baseline"))
        except InputError:
            continue
    return out


def _same(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except OSError:
        return False


def find_baseline(log: str | Path, baseline: str | Path, *, model: str | None = None) -> Baseline:
    """The baseline log for the inspect_ai log ``log``.

    ``baseline`` is a log file of the same task with the same task arguments (never ``log``
    itself), or a folder of logs: there, the latest finished log of that task and those
    arguments other than ``log``, of the model ``model`` when given (needed when logs of
    several models match); ``matching`` counts the logs it was chosen from. ``evalgap
    compare`` labels a task run under several argument sets ``task(arg=value,...)`` and
    compares those as different tasks.

    Examples
    --------
    A log is not compared with itself:

    >>> find_baseline("logs/new.eval", "logs/new.eval")
    Traceback (most recent call last):
    evalgap.errors.InputError: baseline=: names the new log itself (logs/new.eval); ...
    """
    new, base = Path(log), Path(baseline)
    if _same(new, base):
        raise InputError(
            escape(f"names the new log itself ({base}); ")
            + "a log is not compared with itself: name an earlier log, or a folder of logs",
            param="baseline",
        )
    for name, path in (("log", new), ("baseline", base)):
        if not path.exists():
            raise InputError(
                "{" + name + "}" + escape(f": no such file or folder {str(path)!r}"), param=name
            )
    mine = _header(new, "log")
    label = _label(mine.task, mine.args)
    if base.is_file():
        theirs = _header(base, "baseline")
        if (theirs.task, theirs.args) != (mine.task, mine.args):
            raise InputError(
                escape(
                    f"the log {base} ran task {_label(theirs.task, theirs.args)}, the new log "
                    f"{label}; name a log of the same task and arguments, or a folder of logs"
                ),
                param="baseline",
            )
        return Baseline(base)
    found = _folder_headers(base, new)
    same = [h for h in found if (h.task, h.args) == (mine.task, mine.args)]
    finished = [h for h in same if h.status == "success"]
    if model is not None:
        finished = [h for h in finished if h.model == model]
    if not finished:
        raise _nothing_matches(base, label, found, same, model)
    models = sorted({h.model for h in finished})
    if len(models) > 1:
        raise InputError(
            escape(f"in {base}, logs of {len(models)} models ran task {label} ")
            + escape(f"({', '.join(models)}); ")
            + "name the baseline's model with {model}",
            param="model",
        )
    finished.sort(key=lambda h: (h.created, h.path.name))
    return Baseline(finished[-1].path, len(finished))


def _nothing_matches(
    base: Path, label: str, found: list[_Header], same: list[_Header], model: str | None
) -> InputError:
    """Why no log of ``base`` can be the baseline, with what the folder holds instead."""
    ran = sorted({h.model for h in same if h.status == "success"})
    if model is not None and ran:
        return InputError(
            escape(f"no finished log of task {label} by model {model!r} in {base}; ")
            + escape(f"models that ran it: {', '.join(ran)} (check ")
            + "{model})",
            param="model",
        )
    unfinished = sorted({h.status for h in same if h.status != "success"})
    others = sorted({f"{_label(h.task, h.args)} by {h.model}" for h in found if h not in same})
    text = f"no finished log of task {label} in {base} other than the new log"
    if unfinished:
        text += f" (others ended as {', '.join(unfinished)})"
    text += f"; logs there: {'; '.join(others[:6]) or 'none'}" + (
        "; ..." if len(others) > 6 else ""
    )
    return InputError(escape(text), param="baseline")


def _errored(path: Path) -> int:
    """The errored samples (sample-epochs) of a log, which evalgap's reader leaves out."""
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        return sum(1 for s in read_eval_log_sample_summaries(str(path)) if s.error)
    except Exception:  # a log without sample summaries: its reader's notes still say it
        return 0


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
    errored = (_errored(path), _errored(chosen.path))
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
    label = _label(str(getattr(spec, "task", "?")), _args_text(getattr(spec, "task_args", None)))
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
    path = _local(str(getattr(log, "location", "") or ""))
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
