"""evalgap watch: follow growing logs and say when every target is decided."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from evalgap.cli._command import command
from evalgap.cli._defaults import audit_draw_seed
from evalgap.cli._options import OUTPUT_FILE, STDOUT_HELP, option
from evalgap.cli._render import emit, note, write_markdown

if TYPE_CHECKING:
    from evalgap.jobs.watch import WatchStatus

WATCH_EXAMPLES = """
\b
Examples:
  # Stop a run as soon as the quantized model is decided against the baseline:
  evalgap watch --logs out/ --pair bf16 fp8 --interval 30
\b
  # All adjacent pairs of a leaderboard run, one JSON line per poll, a budget:
  evalgap watch --logs out/ --budget 5000 --json
\b
  # One look at the logs (exit 0: everything decided; 1: not yet):
  evalgap watch --logs out/ --once
\b
  # Choose the pair's next items as they run (the batch rewritten after each new record):
  evalgap watch --logs out/ --pair bf16 fp8 --adaptive --reference board.csv \\
      --next 50 --output batch.txt --adaptive-state pair.json
"""


@command(epilog=WATCH_EXAMPLES)
@click.option(
    "--logs",
    multiple=True,
    required=True,
    type=click.Path(path_type=str),
    help="A directory (or file) of lm-eval samples_*.jsonl or inspect_ai logs that grows "
    "(repeatable).",
)
@click.option("--pair", nargs=2, help="Watch one pair: model A and model B.")
@click.option("--baseline", help="Watch every model against this one.")
@click.option(
    "--targets",
    type=click.Choice(["adjacent", "all"]),
    default="adjacent",
    show_default=True,
    help="Without --pair or --baseline: the pairs adjacent in the current ranking, or all.",
)
@click.option("--metric", help="The per-item metric of the logs (default: lm-eval's per task).")
@click.option("--scorer", help="inspect_ai: the scorer to use when there are several.")
@click.option("--score-key", help="inspect_ai: the entry of a dict-valued score to use.")
@click.option(
    "--reducer",
    help="inspect_ai: the epoch reducer to use when a log records several (mean: average the "
    "epochs).",
)
@click.option("--budget", type=click.IntRange(min=1), help="Stop after this many items per model.")
@click.option(
    "--interval",
    type=click.FloatRange(min=0),
    default=10.0,
    show_default=True,
    help="Seconds between looks at the logs.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Give up (exit 1) after this many seconds without a new record.",
)
@option("price_per_1k_tokens")
@option("tokens_per_item")
@click.option("--once", is_flag=True, help="Look once and exit: 0 if every target is decided.")
@click.option(
    "--state",
    type=OUTPUT_FILE,
    help="Keep the place in the logs and the pairs' evidence in this file between runs (with "
    "--once: each run reads only what was appended since the last).",
)
@click.option(
    "--adaptive",
    is_flag=True,
    help="Choose the pair's next items (with --pair and --reference): after each look that "
    "read new records, the next batch of `evalgap adaptive`, written to --output.",
)
@option(
    "reference",
    help="With --adaptive: a board scored on the whole benchmark (the logs' task and item ids).",
)
@option("next_count", help="With --adaptive: items in the next batch.")
@option("audit", help="With --adaptive: share of each batch drawn at random (the gap's estimate).")
@click.option(
    "--adaptive-state",
    type=OUTPUT_FILE,
    help="With --adaptive: the file keeping the audit draws between looks and runs.",
)
@option(
    "output",
    type=OUTPUT_FILE,  # rewritten after every look, for the harness to read: a file, never '-'
    help="With --adaptive: write the next batch's item ids to this file (rewritten after each "
    "look), one per line.",
)
@audit_draw_seed
@option("power")
@option(
    "markdown",
    help="Also write the latest look's report as GitHub-flavoured Markdown to this file"
    + STDOUT_HELP.replace("the report", "each look's report")
    + ".",
)
@option("json", help="Print one JSON line per look instead of a report.")
@option("alpha")
def watch(
    json: bool,
    once: bool,
    interval: float,
    timeout: float | None,
    state: str | None,
    tokens_per_item: float | None,
    markdown: str | None,
    **given: Any,
) -> None:
    """Watch an evaluation in progress: which pairs are decided, when to stop.

    Reads only the lines appended since the last look. A pair is decided exactly when the
    confidence sequence printed beside it leaves 0 out (one e-process per value of the gap;
    at 0 on binary pairs, the discordant-sign e-process); families: e-BH, each interval at
    level alpha k/K. Valid when watched after every item. Exit codes: 0 (every target
    decided, or the budget spent), 1 (not decided: --once, or --timeout reached), 2 (bad
    input).
    """
    from evalgap.jobs.watch import watch as watch_logs

    def show(status: WatchStatus) -> None:
        if json or status.new_records or once:
            write_markdown(status, markdown, quiet=True)
            _show(status, json)
        if status.stopped == "timeout":
            note(f"no new record for {timeout:g} s: stopping with targets undecided")

    status = watch_logs(
        list(given.pop("logs")), pair=given.pop("pair") or None, once=once, interval=interval,
        timeout=timeout, state=state, tokens_per_item=tokens_per_item, on_status=show, **given,
    )  # fmt: skip
    if not status.done:
        raise click.exceptions.Exit(1)


def _show(status: WatchStatus, json: bool) -> None:
    """One look: a JSON line (with what was read) or the terminal report (the renderer of
    --markdown too, so both say the same counts)."""
    emit(status.to_dict() if json else status, json)
