"""The options of `simulate estimate` that choose the models held out and their reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def held_out_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add --held-out, --hold-out and --n-held-out to a command."""
    decorators = [
        click.option(
            "--held-out",
            "held_out",
            multiple=True,
            metavar="MODEL",
            help="A model to hold out in turn (repeatable; default: every model of --scores).",
        ),
        click.option(
            "--hold-out",
            type=click.Choice(["each", "strongest", "weakest", "random"]),
            default="each",
            show_default=True,
            help="Hold each model out in turn (the others its reference), or the --n-held-out "
            "strongest, weakest or random models together (the rest the reference: out of "
            "distribution for the strongest and weakest).",
        ),
        click.option(
            "--n-held-out",
            type=click.IntRange(min=1),
            default=9,
            show_default=True,
            help="Models held out together with --hold-out strongest, weakest or random.",
        ),
    ]
    for decorate in reversed(decorators):
        function = decorate(function)
    return function
