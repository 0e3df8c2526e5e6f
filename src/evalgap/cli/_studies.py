"""What every `evalgap simulate` study shares (its options, examples and run with a progress
bar), and the options of `simulate configurations`; the commands are in
:mod:`evalgap.cli.simulate`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

import click

from evalgap.cli._options import F, option
from evalgap.cli._render import emit, note, save_plot, working
from evalgap.jobs._pages import Views


@overload
def simulation_options(func: F, *, plot: bool = True) -> F: ...
@overload
def simulation_options(func: None = None, *, plot: bool = True) -> Callable[[F], F]: ...
def simulation_options(func: F | None = None, *, plot: bool = True) -> F | Callable[[F], F]:
    """The options of every study: --json, --jobs, --seed, --alpha (and --plot, when the
    study has a figure)."""
    if func is None:

        def with_plot(f: F) -> F:
            return simulation_options(f, plot=plot)

        return with_plot
    options: list[Callable[[F], F]] = [
        option("json"),
        click.option(
            "--jobs",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Processes to spread the trials over; results do not depend on it.",
        ),
        option("seed", help="Seed of every random stream."),
        option("alpha"),
    ]
    if plot:
        options.insert(0, option("plot"))
    for decorate in options:
        func = decorate(func)
    return func


# Why the studies' rank-set bootstrap is smaller than the ranks command's 1,000.
RANK_SET_BOOTSTRAP = (
    "Bootstrap draws of each rank-set computation (fewer than ranks' 1,000: every trial of "
    "every configuration computes its own rank sets)."
)


def examples(*lines: str) -> str:
    """An Examples block for a study's --help."""
    return "\n\b\nExamples:\n" + "".join(f"  {line}\n" for line in lines)


def run_study(
    study: Callable[..., Views], title: str, json: bool, plot: str | None = None, **settings: Any
) -> None:
    """Run one study with a progress bar, then print it and draw its figure."""
    with working(json, title) as progress:
        result = study(progress=progress, **settings)
    if plot:
        save_plot(result, plot)
    emit(result, json)
    if plot and not json:
        note(f"figure written to {plot}")


def configuration_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add the design options of `simulate configurations` to a command."""
    decorators = [
        click.option(
            "--kind",
            "kinds",
            type=click.Choice(["binary", "graded"]),
            multiple=True,
            help="Kinds of score (repeatable; default both).",
        ),
        click.option(
            "--configuration-sd",
            "configuration_sds",
            type=click.FloatRange(min=0),
            multiple=True,
            help="SD of each model's configuration shifts (repeatable; default 0, 0.02, 0.04; 0 "
            "measures the tests' size, above it their power; at most 0.069).",
        ),
        click.option("--n-items", type=click.IntRange(min=2), default=200, show_default=True),
        click.option(
            "--n-configurations", type=click.IntRange(min=2), default=4, show_default=True
        ),
        click.option(
            "--n-runs",
            type=click.IntRange(min=2),
            default=2,
            show_default=True,
            help="Runs (replicates) per item and configuration (at least 2: the residual needs "
            "them).",
        ),
        click.option(
            "--missing",
            type=click.FloatRange(min=0, max=1, max_open=True),
            default=0.0,
            show_default=True,
            help="Share of runs lost at random (the first run of every cell kept): an "
            "unbalanced design.",
        ),
    ]
    for decorate in reversed(decorators):
        function = decorate(function)
    return function
