"""The inspect_ai extension: at the end of each task, the paired verdict against a baseline.

Installed with ``pip install "evalgap[inspect]"``, evalgap registers these hooks through
inspect_ai's ``inspect_ai`` entry point. When a baseline is configured -- the environment
variable ``EVALGAP_BASELINE`` (a log file or a folder of logs), or the task's metadata field
``evalgap_baseline`` -- every task that ends prints evalgap's paired comparison of the new
log's model against the baseline's on the same task (gap, interval, p, q and the items still
to run), and writes it beside the log as ``<log>.evalgap.json`` and ``<log>.evalgap.md``.
``EVALGAP_BASELINE_MODEL`` names the baseline's model when its folder holds several;
``EVALGAP_HOOK=0`` turns the hook off. A comparison that cannot be made prints one line
saying why; it never fails the evaluation.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, TaskEnd, hooks

from evalgap.errors import InputError

ENV_BASELINE = "EVALGAP_BASELINE"
ENV_MODEL = "EVALGAP_BASELINE_MODEL"
ENV_SWITCH = "EVALGAP_HOOK"
METADATA_KEY = "evalgap_baseline"


def baseline_of(log: Any) -> str | None:
    """The baseline configured for a task's log: its metadata field, else the environment."""
    metadata = getattr(getattr(log, "eval", None), "metadata", None) or {}
    given = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    return str(given) if given else os.environ.get(ENV_BASELINE) or None


def report(log_path: str | Path, baseline: str | Path, *, model: str | None = None) -> str:
    """Compare the log with its baseline, write the results beside it, return the text
    printed at the end of the task."""
    from evalgap.io._write import atomic_write
    from evalgap.jobs.compare import against_baseline
    from evalgap.report.json_output import to_json
    from evalgap.report.markdown import result_markdown
    from evalgap.report.sentences import baseline_line

    path = Path(log_path)
    results = against_baseline(path, baseline, model=model)
    lines = [baseline_line(r) for r in results]
    payload = "[" + ",".join(to_json(r) for r in results) + "]\n"
    atomic_write(
        path.with_name(path.name + ".evalgap.json"),
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


@hooks(
    name="evalgap",
    description="each task's paired verdict against a baseline log "
    f"({ENV_BASELINE} or the task metadata '{METADATA_KEY}')",
)
class EvalgapHooks(Hooks):
    """Print and save the paired comparison of each finished task with its baseline."""

    def enabled(self) -> bool:
        return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")

    async def on_task_end(self, data: TaskEnd) -> None:
        baseline = baseline_of(data.log)
        if baseline is None:
            return
        location = str(getattr(data.log, "location", "") or "")
        if not location or ("://" in location and not location.startswith("file://")):
            print(
                f"evalgap: the log is not a local file ({location!r}); nothing compared",
                file=sys.stderr,
            )
            return
        status = getattr(data.log, "status", "success")
        if status != "success":
            print(
                f"evalgap: the task ended with status {status!r}; nothing compared",
                file=sys.stderr,
            )
            return
        try:
            text = report(
                location.removeprefix("file://"), baseline, model=os.environ.get(ENV_MODEL)
            )
        except InputError as error:
            print(f"evalgap: cannot compare with the baseline: {error}", file=sys.stderr)
            return
        print(text)
