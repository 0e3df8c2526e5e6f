"""Which inspect_ai log is a new log's baseline: the same task, task arguments and model.

Read from the logs' headers alone (inspect_ai's own reader, imported when called). The
inspect_ai extension (:mod:`evalgap.integrations.inspect_hooks`) and
:func:`evalgap.jobs.compare.against_baseline` choose a baseline here, so a folder such as
inspect's ``./logs`` holding one task under several ``-T`` settings gives one answer to both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgap.errors import InputError, escape, first_line


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


def local_path(location: str) -> Path | None:
    """The local path of a log's location, or None for a remote one (s3://...)."""
    if "://" in location and not location.startswith("file://"):
        return None
    return Path(location.removeprefix("file://")) if location else None


def args_text(args: Any) -> str:
    """A log's task arguments as ``name=value,...`` in name order ("" without any)."""
    if not isinstance(args, dict) or not args:
        return ""
    # as evalgap's inspect reader labels a task run under several argument sets
    return ",".join(f"{k}={args[k]}" for k in sorted(args))


def task_label(task: str, args: str) -> str:
    """A task as messages name it: ``task(args)``, or the bare name without arguments."""
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
        args_text(spec.task_args),
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
        path = local_path(info.name)
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
    label = task_label(mine.task, mine.args)
    if base.is_file():
        theirs = _header(base, "baseline")
        if (theirs.task, theirs.args) != (mine.task, mine.args):
            raise InputError(
                escape(
                    f"the log {base} ran task {task_label(theirs.task, theirs.args)}, the new log "
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
    others = sorted({f"{task_label(h.task, h.args)} by {h.model}" for h in found if h not in same})
    text = f"no finished log of task {label} in {base} other than the new log"
    if unfinished:
        text += f" (others ended as {', '.join(unfinished)})"
    text += f"; logs there: {'; '.join(others[:6]) or 'none'}" + (
        "; ..." if len(others) > 6 else ""
    )
    return InputError(escape(text), param="baseline")


def errored_samples(path: Path) -> int:
    """The errored samples (sample-epochs) of a log, which evalgap's reader leaves out."""
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        return sum(1 for s in read_eval_log_sample_summaries(str(path)) if s.error)
    except Exception:  # a log without sample summaries: its reader's notes still say it
        return 0
