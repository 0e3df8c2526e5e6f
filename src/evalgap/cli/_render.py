"""Output of a command: the console, notes on stderr, progress bars, the result's renderer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

import click

from evalgap.jobs._pages import Views

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID



def note(text: str) -> None:
    """A dim line on stderr (where a file was written)."""
    from evalgap.report.text import markup

    console(stderr=True).print(f"[dim]{markup(text)}[/]")


def console(*, stderr: bool = False) -> Console:
    """The Console of this invocation (honours --width; full width when not a terminal)."""
    from evalgap.report.terminal import make_console

    ctx = click.get_current_context(silent=True)
    width = (ctx.find_root().obj or {}).get("width") if ctx is not None else None
    return make_console(stderr=stderr, width=width)


class Report(Protocol):
    """The progress callback a job is handed: ``report(done, total[, label])``."""

    def __call__(self, done: int, total: int, label: str | None = None, /) -> None: ...


def _silent(*_: object) -> None:
    """The callback when no bar is drawn."""


class progress_bar:
    """A progress bar on stderr (silent with --json), driven by the job's own callback.

    The job calls ``report(done, total)`` (or ``report(done, total, label)`` to name its
    phase); the bar takes its total from the job, so the CLI never repeats it. With
    ``by_bytes``, the callback counts bytes read and the bar shows a time estimate (on a
    terminal only: logs stay clean).
    """

    def __init__(self, quiet: bool, title: str, by_bytes: bool = False) -> None:
        self.quiet, self.title, self.by_bytes = quiet, title, by_bytes
        self.progress: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> Report:
        # on a terminal only: elsewhere the bar draws nothing but leaves a blank line on
        # stderr, before the one-line error when the job fails
        if self.quiet or not console(stderr=True).is_terminal:
            return _silent
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

    def report(self, done: int, total: int, label: str | None = None, /) -> None:
        # started at the first report: an option refused before any work leaves stderr one line
        assert self.progress is not None  # handed out by __enter__ only once the bar exists
        if self.task is None:
            self.task = self.progress.add_task(self.title, total=total)
            self.progress.start()
        description = f"{self.title}: {label}" if label else self.title
        self.progress.update(self.task, completed=done, total=total, description=description)

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.progress is not None and self.task is not None:
            self.progress.stop()
        return False


@contextlib.contextmanager
def working(quiet: bool, title: str, *, by_bytes: bool = False) -> Iterator[Report]:
    """A progress bar for one library call: the reading of score tables, then the job's phases.

    Yields the callback to hand to a job that reports its progress; reads of tables report
    through the same bar (labelled 'reading scores'), so only one bar is ever live.
    """
    from evalgap.io._progress import reporting_progress

    with progress_bar(quiet, title, by_bytes=by_bytes) as report:

        def reading(done: int, total: int) -> None:
            report(done, total, "reading scores")

        with reporting_progress(reading):
            yield report


def replaced_by_stdout() -> bool:
    """True when an output given as ``-`` (``--markdown -``, ``--output -``, ...) takes the
    place of the report on standard output (:func:`evalgap.io._write.claim_stdout`)."""
    from evalgap.cli._command import STDOUT_OUTPUT

    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.meta.get(STDOUT_OUTPUT) is not None


def written(what: str, path: str) -> None:
    """Say on stderr where ``what`` was written (nothing for standard output: it shows)."""
    from evalgap.io._write import is_stdout

    if not is_stdout(path):
        note(f"{what} written to {path}")


def emit(result: Views | Mapping[str, Any], json: bool = False) -> None:
    """Print ``result``: as JSON (with --json; a dict as it is), or through its renderer;
    nothing when an output given as ``-`` took the report's place on standard output."""
    if not json and replaced_by_stdout():
        return
    if json:
        from evalgap.report.json_output import to_json

        ctx = click.get_current_context(silent=True)
        indent = (ctx.find_root().obj or {}).get("json_indent") if ctx is not None else None
        click.echo(to_json(result, indent=indent))
        return
    if not isinstance(result, Views):
        raise TypeError("only a job's result has a terminal report; a mapping is printed as JSON")
    result._render(console())


def given_options() -> dict[str, Any]:
    """The options of this invocation the user gave (not left at their defaults)."""
    ctx = click.get_current_context()
    return {
        param.opts[0]: ctx.params[param.name]
        for param in ctx.command.params
        if param.name in ctx.params
        and ctx.get_parameter_source(param.name) is not click.core.ParameterSource.DEFAULT
    }


def write_markdown(result: Views, path: str | None, *, quiet: bool) -> None:
    """--markdown: the result's report as GitHub-flavoured Markdown, written atomically (or
    to standard output for ``-``)."""
    if not path:
        return
    from evalgap.io._write import atomic_write

    text = result._markdown()
    atomic_write(path, lambda handle: handle.write(text), option="--markdown", what="the report")
    if not quiet:
        written("Markdown report", path)


def write_html(result: Views, path: str, sources: list[str], *, quiet: bool) -> None:
    """--html: the result's self-contained HTML page (audit, ranks, card), with what produced
    it."""
    from evalgap.report.html import provenance, write_report

    command = click.get_current_context().command.name
    assert command is not None  # click names every command it makes from its function
    made_by = provenance(sources, given_options(), command=command)
    write_report(path, result.to_html(provenance=made_by))
    if not quiet:
        written("report", path)


def save_plot(result: Views, path: str) -> None:
    """--plot: draw the result's figure (``result.plot()``) into ``path`` (.png, .svg or .pdf)."""
    from evalgap.report import plots

    plots.save_figure(result.plot(), path)
