"""--engine and --scheduler: where a board in Parquet shards has its sums computed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from evalgap.engine import ENGINES, SCHEDULER_VARIABLE


def engine_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --engine and --scheduler to a command that reads a board in shards."""
    command = click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="The Dask scheduler's address (tcp://host:8786), with --engine dask; default "
        f"${SCHEDULER_VARIABLE}.",
    )(command)
    return click.option(
        "--engine",
        type=click.Choice(list(ENGINES)),
        default="local",
        show_default=True,
        help="Where a binary board in Parquet shards (a folder written by store export "
        "--shard-items) has its pair sums computed: this process, or the workers of a "
        "dask.distributed cluster (the folder at the same path on each).",
    )(command)
