"""Output of a command: the console, notes on stderr, progress bars, the result's renderer."""

from __future__ import annotations

import click


def note(text: str) -> None:
    """A dim line on stderr (where a file was written)."""
    from evalgap.report.text import markup

    console(stderr=True).print(f"[dim]{markup(text)}[/]")


def console(*, stderr: bool = False):
    """The Console of this invocation (honours --width; full width when not a terminal)."""
    from evalgap.report.terminal import make_console

    ctx = click.get_current_context(silent=True)
    width = (ctx.find_root().obj or {}).get("width") if ctx is not None else None
    return make_console(stderr=stderr, width=width)


class progress_bar:
    """A progress bar on stderr (silent with --json), driven by the job's own callback.

    The job calls ``report(done, total)`` (or ``report(done, total, label)`` to name its
    phase); the bar takes its total from the job, so the CLI never repeats it. With
    ``by_bytes``, the callback counts bytes read and the bar shows a time estimate (on a
    terminal only: logs stay clean).
    """

    def __init__(self, quiet: bool, title: str, by_bytes: bool = False):
        self.quiet, self.title, self.by_bytes = quiet, title, by_bytes
        self.progress = None
        self.task = None

    def __enter__(self):
        # on a terminal only: elsewhere the bar draws nothing but leaves a blank line on
        # stderr, before the one-line error when the job fails
        if self.quiet or not console(stderr=True).is_terminal:
            return lambda *_: None
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        estimate = (TimeRemainingColumn(),) if self.by_bytes else ()
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            *estimate,
            console=console(stderr=True),
            transient=True,
        )
        return self.report

    def report(self, done, total, label: str | None = None) -> None:
        # started at the first report: an option refused before any work leaves stderr one line
        if self.task is None:
            self.task = self.progress.add_task(self.title, total=total)
            self.progress.start()
        description = f"{self.title}: {label}" if label else self.title
        self.progress.update(self.task, completed=done, total=total, description=description)

    def __exit__(self, *exc):
        if self.task is not None:
            self.progress.stop()
        return False


def emit(result, as_json: bool, job: str) -> None:
    if as_json:
        from evalgap.report.json_output import to_json

        ctx = click.get_current_context(silent=True)
        indent = (ctx.obj or {}).get("json_indent") if ctx is not None else None
        click.echo(to_json(result, indent=indent))
        return
    from evalgap.report import terminal

    out = console()
    renderers = {
        "compare": terminal.render_compare,
        "compare-by": _render_groups,
        "plan": terminal.render_plan,
        "inspect-data": terminal.render_data,
        "audit": terminal.render_audit,
        "ranks": terminal.render_ranks,
        "degrade": terminal.render_degrade,
        "trim": terminal.render_trim,
        "plan-degradation": terminal.render_plan_degradation,
        "plan-pilot": terminal.render_pilot_plan,
        "plan-sampling": terminal.render_sampling_design,
        "compare-weighted": terminal.render_weighted_compare,
        "simulate": terminal.render_simulation,
        "store-add": terminal.render_store,
        "store-list": terminal.render_store,
        "store-remove": terminal.render_store,
        "store-export": terminal.render_store,
        "store-audit": terminal.render_store,
    }
    renderers[job](result, out)


def _render_groups(result, console) -> None:
    from evalgap.report.groups import render_compare_groups

    render_compare_groups(result, console)
