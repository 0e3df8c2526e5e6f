"""Every option more than one command takes, defined once, with one help text."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any, TypeVar, overload

import click

from evalgap.io.registry import format_help, format_names

PROBABILITY = click.FloatRange(0, 1, min_open=True, max_open=True)
COUNT = click.IntRange(min=0)

# A command's function as the option decorators take and return it.
F = TypeVar("F", bound=Callable[..., Any])


class _OutputFile(click.Path):
    """A file to write: its folder checked when the option is read, before any work (and,
    once every option is read, that it is no input of the command: :class:`_ParsesOptions`).

    ``-`` is standard output where ``stdout`` (a text the user reads or pipes on: a report,
    a table, item ids); elsewhere (a file read back, a binary file) it is refused.
    """

    writes = True

    def __init__(self, *, stdout: bool = False) -> None:
        super().__init__(dir_okay=False)
        self.stdout = stdout

    def convert(
        self,
        value: str | os.PathLike[str],
        param: click.Parameter | None,
        ctx: click.Context | None,
    ) -> str | bytes | os.PathLike[str]:
        from evalgap.io._write import check_target

        path = super().convert(value, param, ctx)
        flag = param.opts[0] if param is not None else "--output"
        check_target(path, option=flag, stdout=self.stdout)
        return path


OUTPUT_FILE = _OutputFile()
# A text output that may go to standard output instead ('-'): it then replaces the report
# there (refused with --json, whose record goes there, or with another output on '-').
TEXT_OUTPUT = _OutputFile(stdout=True)
STDOUT_HELP = " ('-': standard output, in place of the report; not with --json)"


class _FigureFile(_OutputFile):
    """A figure to write: its format (by suffix) checked too, before a long study runs."""

    def convert(
        self,
        value: str | os.PathLike[str],
        param: click.Parameter | None,
        ctx: click.Context | None,
    ) -> str | bytes | os.PathLike[str]:
        from evalgap.report.plots import figure_format

        path = super().convert(value, param, ctx)
        figure_format(os.fsdecode(path))  # the library's check, before the study runs
        return path


FIGURE_FILE = _FigureFile()


# Every option more than one command takes, defined once: (flags, click settings). A command
# may override a setting (a default, a help text) with option(name, **overrides).
SHARED_OPTIONS = {
    "alpha": (
        ("--alpha",),
        {
            "type": PROBABILITY,
            "default": 0.05,
            "show_default": True,
            "help": "Significance level, in (0, 1).",
        },
    ),
    "power": (
        ("--power",),
        {
            "type": PROBABILITY,
            "default": 0.8,
            "show_default": True,
            "help": "Target power 1 - beta, in (0, 1).",
        },
    ),
    "alternative": (
        ("--alternative",),
        {
            "type": click.Choice(["two-sided", "greater", "less"]),
            "default": "two-sided",
            "show_default": True,
            "help": "'greater': H1 is that A is better; 'less': that B is better.",
        },
    ),
    "json": (
        ("--json",),
        {"is_flag": True, "help": "Print the result as JSON instead of a report."},
    ),
    "seed": (
        ("--seed",),
        {
            "type": click.IntRange(min=0),
            "default": 0,
            "show_default": True,
            "help": "Seed of every resampling step; the same seed gives the same numbers.",
        },
    ),
    "n_bootstrap": (
        ("--n-bootstrap",),
        {
            "type": click.IntRange(min=0),
            "show_default": True,
            "help": "Bootstrap resamples (0: skip).",
        },
    ),
    "n_bootstrap_required_n": (
        ("--n-bootstrap-required-n",),
        {
            "type": click.IntRange(min=0),
            "default": 500,
            "show_default": True,
            "help": "Bootstrap resamples for the N* interval (0: skip).",
        },
    ),
    "n_trials": (
        ("--n-trials",),
        {
            "type": click.IntRange(min=10),
            "show_default": True,
            "help": "Trials: replicates of the simulation study (per cell, size or hypothesis).",
        },
    ),
    "mixture": (
        ("--mixture",),
        {
            "type": click.Choice(["grid", "beta"]),
            "default": "grid",
            "show_default": True,
            "help": "e-process mixture: uniform grid (paper) or Beta(2,2).",
        },
    ),
    "price_per_1k_tokens": (
        ("--price-per-1k-tokens",),
        {
            "type": click.FloatRange(min=0),
            "help": "Price of 1,000 tokens, for costs (tokens from inspect logs' model usage, "
            "or --tokens-per-item: lm-eval logs carry no counts).",
        },
    ),
    "tokens_per_item": (
        ("--tokens-per-item",),
        {
            "type": click.FloatRange(min=0, min_open=True),
            "help": "Tokens one run of one item costs each model (prompt and answer).",
        },
    ),
    "html": (
        ("--html",),
        {
            "type": TEXT_OUTPUT,
            "help": "Write a self-contained HTML report (tables and figures) to this file"
            + STDOUT_HELP
            + ".",
        },
    ),
    "output": (
        ("--output",),
        {"type": TEXT_OUTPUT, "help": "Write the result to this file" + STDOUT_HELP + "."},
    ),
    "markdown": (
        ("--markdown",),
        {
            "type": TEXT_OUTPUT,
            "metavar": "FILE",
            "help": "Also write the report as GitHub-flavoured Markdown to this file (a job "
            "summary or a pull-request comment: the terminal's tables and sentences, no ANSI)"
            + STDOUT_HELP
            + ".",
        },
    ),
    "reference": (
        ("--reference",),
        {
            "type": click.Path(exists=True),
            "help": "A board of models scored on the whole benchmark (the same task and item ids).",
        },
    ),
    "next_count": (
        ("--next", "next_count"),
        {
            "type": click.IntRange(min=0),
            "default": 50,
            "show_default": True,
            "help": "Items in the next batch.",
        },
    ),
    "audit": (
        ("--audit",),
        {
            "type": click.FloatRange(0, 1),
            "default": 0.2,
            "show_default": True,
            "help": "Share of each batch drawn at random from all items (the gap's unbiased "
            "estimate).",
        },
    ),
    "plot": (
        ("--plot",),
        {"type": FIGURE_FILE, "help": "Write the study's figure to this .png, .svg or .pdf file."},
    ),
    "family": (
        ("--family",),
        {
            "type": click.Choice(["adjacent", "all"]),
            "show_default": True,
            "help": "Rank-adjacent pairs or all pairs, per task.",
        },
    ),
    "pairs": (
        ("--pairs",),
        {
            "type": click.Path(dir_okay=False),
            "help": "CSV with model_a,model_b,both_correct,a_only,b_only,both_wrong per pair.",
        },
    ),
    "family_size": (
        ("--family-size",),
        {
            "type": click.IntRange(min=1),
            "help": "Declared family size m (default: the number of pairs judged).",
        },
    ),
    "both_correct": (("--both-correct",), {"type": COUNT, "help": "Items both models got right."}),
    "a_only": (("--a-only",), {"type": COUNT, "help": "Items only model A got right."}),
    "b_only": (("--b-only",), {"type": COUNT, "help": "Items only model B got right."}),
    "both_wrong": (("--both-wrong",), {"type": COUNT, "help": "Items both models got wrong."}),
}


def option(name: str, **overrides: Any) -> Callable[[F], F]:
    """The shared option ``name`` (see SHARED_OPTIONS), with per-command overrides.

    ``--json`` comes with ``--json-indent N``, which only sets how the JSON is written.
    """
    flags, settings = SHARED_OPTIONS[name]
    decorate = click.option(*flags, **{**settings, **overrides})
    if name != "json":
        return decorate
    indent = click.option(
        "--json-indent",
        type=click.IntRange(min=0),
        metavar="N",
        expose_value=False,
        callback=_remember_indent,
        help="With --json: indent by N spaces, for people to read (default: compact).",
    )

    def both(func: F) -> F:
        return indent(decorate(func))

    return both


def store_argument(func: F) -> F:
    """The STORE argument of the store commands: a DuckDB file."""
    return click.argument("store", metavar="STORE", type=click.Path(dir_okay=False))(func)


def _remember_indent(ctx: click.Context, _param: click.Parameter, value: int | None) -> int | None:
    if value is not None:
        ctx.ensure_object(dict)["json_indent"] = value
    return value


def counts_options(func: F, **overrides: Any) -> F:
    """The four 2x2 counts."""
    for name in ("both_wrong", "b_only", "a_only", "both_correct"):
        func = option(name, **overrides)(func)
    return func


def gold_options(func: F) -> F:
    """The gold labels of judged scores: a column of the scores table, or a second file."""
    func = click.option(
        "--gold",
        metavar="FILE",
        type=click.Path(dir_okay=False),
        help="The gold scores as a second file instead of --gold-column (model, item, score; "
        "the judge's item ids and tasks).",
    )(func)
    return click.option(
        "--gold-column",
        metavar="COLUMN",
        help="The scores are an LLM judge's: this column of the scores table holds a gold "
        "score (human, or a stronger judge) on some items, empty elsewhere; the results are "
        "then on the gold scale (PPI++), with the judge against the gold beside them.",
    )(func)


def common_test_options(func: F) -> F:
    for name in ("json", "alternative", "power", "alpha"):
        func = option(name)(func)
    return func


# Options LoadOptions does not take: the paths are passed apart, alignment acts on the rest.
NOT_LOAD_OPTIONS = ("scores", "hub", "strict", "complete_case")

SCORE_SOURCES = (
    "\n\b\nScore sources (detected from the path; --format forces one):\n" + format_help() + "\n"
)


@overload
def loader_options(func: F, *, exclude: tuple[str, ...] = ()) -> F: ...
@overload
def loader_options(func: None = None, *, exclude: tuple[str, ...] = ()) -> Callable[[F], F]: ...
def loader_options(func: F | None = None, *, exclude: tuple[str, ...] = ()) -> F | Callable[[F], F]:
    """Options shared by every job that reads per-item scores (one loader serves all jobs).

    The flags of :class:`~evalgap.io.options.LoadOptions` are built from its fields, so a
    loader option is defined once (``--format`` among them); the paths and the alignment
    switches are added here. ``exclude`` names the options a command cannot honour (plan
    reads its scores from --pilot or --reference, not --scores), which it then does not offer.
    """
    if func is None:

        def with_exclusions(f: F) -> F:
            return loader_options(f, exclude=exclude)

        return with_exclusions
    from evalgap.io.options import LoadOptions

    options = {
        "strict": click.option(
            "--strict",
            is_flag=True,
            help="Treat any missing, duplicated or unusable item as an error.",
        ),
        "complete_case": click.option(
            "--complete-case",
            is_flag=True,
            help="Use only the items every selected model scored (one common item set) "
            "instead of each pair's own shared items; says how many items that drops.",
        ),
    }
    for f in reversed(dataclasses.fields(LoadOptions)):
        meta = f.metadata
        kwargs: dict[str, Any] = {"help": meta["help"]}
        if "choices" in meta:
            kwargs["type"] = click.Choice(list(meta["choices"]))
        if f.name == "fmt":  # the sources' names, from their registry
            kwargs["type"] = click.Choice(list(format_names()))
        if meta.get("path"):
            kwargs["type"] = click.Path(dir_okay=False)
        if "metavar" in meta:
            kwargs["metavar"] = meta["metavar"]
        if meta.get("multiple"):
            kwargs["multiple"] = True
        elif meta.get("is_flag"):
            kwargs["is_flag"] = True
        elif f.default is not None:
            kwargs.update(default=f.default, show_default=True)
        options[f.name] = click.option(meta["flag"], f.name, **kwargs)
    options["hub"] = click.option(
        "--hub",
        multiple=True,
        metavar="REPO",
        help="Download Open LLM Leaderboard details from the Hugging Face Hub "
        "(needs huggingface_hub).",
    )
    options["scores"] = click.option(
        "--scores",
        multiple=True,
        type=click.Path(path_type=str),
        help="Score file or directory (repeatable; any mix of sources).",
    )
    for name, decorate in options.items():
        if name not in exclude:
            func = decorate(func)
    return func


# The loader options of a command that reads scores only from its own arguments.
NOT_SCORE_SOURCES = ("scores", "hub", "store", "strict", "complete_case")
