"""evalgap watch: follow growing logs and say when every target is decided."""

from __future__ import annotations

import click

from evalgap.cli._options import OUTPUT_FILE, option
from evalgap.cli._render import console, note
from evalgap.errors import InputError

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
"""


@click.command(epilog=WATCH_EXAMPLES)
@click.option(
    "--logs",
    "log_paths",
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
    "state_path",
    type=OUTPUT_FILE,
    help="Keep the place in the logs and the pairs' evidence in this file between runs (with "
    "--once: each run reads only what was appended since the last).",
)
@option("power")
@option("json", help="Print one JSON line per look instead of a report.")
@option("alpha")
def watch(
    log_paths,
    pair,
    baseline,
    targets,
    metric,
    scorer,
    score_key,
    reducer,
    budget,
    interval,
    timeout,
    price_per_1k_tokens,
    tokens_per_item,
    once,
    state_path,
    power,
    as_json,
    alpha,
):
    """Watch an evaluation in progress: which pairs are decided, when to stop.

    Reads only the lines appended since the last look. Binary pairs: the discordant-sign
    e-process; graded: a betting e-process; families: e-BH. Valid when watched after every
    item. Exit codes: 0 (every target decided, or the budget spent), 1 (not decided: --once,
    or --timeout reached), 2 (bad input).
    """
    import time
    from pathlib import Path

    from evalgap.jobs.watch import Monitor

    if pair and baseline:
        raise InputError("give either --pair A B or --baseline M, not both")
    if tokens_per_item is not None and price_per_1k_tokens is None:
        raise InputError("--tokens-per-item needs --price-per-1k-tokens for a projected cost")
    monitor = Monitor(
        targets="pair" if pair else "baseline" if baseline else targets,
        pair=tuple(pair) if pair else None,
        baseline=baseline,
        alpha=alpha,
        power=power,
        budget=budget,
        price_per_1k_tokens=price_per_1k_tokens,
    )
    monitor.follow(
        list(log_paths), metric=metric, scorer=scorer, score_key=score_key, reducer=reducer
    )
    if state_path and Path(state_path).exists():
        try:
            saved = Monitor.load(state_path, price_per_1k_tokens=price_per_1k_tokens)
        except InputError as exc:
            raise InputError(f"--state {exc}") from None
        if saved.settings != monitor.settings:
            raise InputError(
                f"--state {state_path}: written for other --logs, pairs or levels; delete it "
                "or give another path"
            )
        monitor = saved
    quiet_since = time.monotonic()
    while True:
        added = monitor.poll(tokens_per_item=tokens_per_item)
        if added:
            quiet_since = time.monotonic()
        status = monitor.status()
        if state_path:
            try:
                monitor.save(state_path)
            except InputError as exc:
                raise InputError(f"--state {exc}") from None
        if as_json or added or once:
            _emit_watch(status, as_json, added, monitor.follower.bytes_read)
        if status.done:
            return
        if once:
            raise click.exceptions.Exit(1)
        if timeout is not None and time.monotonic() - quiet_since >= timeout:
            note(f"no new record for {timeout:g} s: stopping with targets undecided")
            raise click.exceptions.Exit(1)
        time.sleep(interval)


def _emit_watch(status, as_json: bool, new_records: int, bytes_read: int) -> None:
    if as_json:
        from evalgap.report.json_output import to_json

        click.echo(
            to_json({**status.to_dict(), "new_records": new_records, "bytes_read": bytes_read})
        )
        return
    from evalgap.report import terminal

    terminal.render_watch(status, console(), new_records=new_records)
