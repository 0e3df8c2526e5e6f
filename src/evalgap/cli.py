"""The ``evalgap`` command line: parse options, call a job, hand the result to ``report/``.

Exit codes: 0 success, 2 bad input (one line on stderr naming the option or file and what
to do).
"""

from __future__ import annotations

import dataclasses
import functools
import sys

import click

from evalgap import __version__
from evalgap.errors import InputError
from evalgap.io.registry import format_help, format_names

PROBABILITY = click.FloatRange(0, 1, min_open=True, max_open=True)
COUNT = click.IntRange(min=0)

COMPARE_EXAMPLES = """
\b
Examples:
  # From the 2x2 counts of a binary comparison (HellaSwag, gemma-7b vs Llama-3-8B):
  evalgap compare --both-correct 7986 --a-only 295 --b-only 249 --both-wrong 1512
\b
  # From a long table of per-item scores (CSV/TSV/Parquet/JSONL, optionally .gz):
  evalgap compare --scores examples/two_models.csv --model-a model-x --model-b model-y
\b
  # Machine-readable output, one-sided test (H1: A better):
  evalgap compare --scores results.csv.gz --model-a new --model-b old \\
      --alternative greater --json
"""

PLAN_EXAMPLES = """
\b
Examples:
  # Items needed to resolve 65% vs 60% at per-item correlation 0.3 (Table 1):
  evalgap plan --accuracy-a 0.65 --accuracy-b 0.60 --correlation 0.3
\b
  # Smallest gap a 1,172-item benchmark resolves near 60% accuracy, rho = 0.7:
  evalgap plan --accuracy-a 0.60 --correlation 0.7 --n-items 1172
\b
  # Graded scores: a 0.02 gap with per-item differences of SD 0.25:
  evalgap plan --delta 0.02 --sd-diff 0.25 --json
\b
  # Degradation test: items to detect a 0.5-point drop when 9% of items flip:
  evalgap plan --delta 0.005 --flip-rate 0.09 --n-items 25282
\b
  # Items x reruns from a pilot with 4 runs per item, and the cheapest design:
  evalgap plan --pilot examples/pilot_runs.csv --run-column run --delta 0.03 \\
      --cost-per-item 0.02 --cost-per-run 0.004
\b
  # Runs priced by tokens, on a closed benchmark of 500 items:
  evalgap plan --pilot logs/ --price-per-1k-tokens 0.002 --n-items 500
\b
  # The items to run for a new model (expected accuracy 0.62) vs the leader:
  evalgap plan --reference board.csv --model-a new-model --accuracy-a 0.62 \\
      --n-items 800 --output design.csv
  evalgap compare --scores results.csv --weights design.csv
"""


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
        ("--json", "as_json"),
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
    "trials": (
        ("--trials",),
        {
            "type": click.IntRange(min=10),
            "show_default": True,
            "help": "Simulated trials (per cell, size or hypothesis).",
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
    "both_correct": (("--both-correct",), {"type": COUNT, "help": "Items both models got right."}),
    "a_only": (("--a-only",), {"type": COUNT, "help": "Items only model A got right."}),
    "b_only": (("--b-only",), {"type": COUNT, "help": "Items only model B got right."}),
    "both_wrong": (("--both-wrong",), {"type": COUNT, "help": "Items both models got wrong."}),
}


class _OutputFile(click.Path):
    """A file to write: its folder checked when the option is read, before any work."""

    def __init__(self):
        super().__init__(dir_okay=False)

    def convert(self, value, param, ctx):
        from evalgap.io._write import check_target

        value = super().convert(value, param, ctx)
        check_target(value, option=param.opts[0] if param is not None else "--output")
        return value


OUTPUT_FILE = _OutputFile()


class _FigureFile(_OutputFile):
    """A figure to write: its format (by suffix) checked too, before a long study runs."""

    def convert(self, value, param, ctx):
        from pathlib import Path

        value = super().convert(value, param, ctx)
        if Path(value).suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InputError(f"--plot {value}: give a .png, .svg or .pdf file name")
        return value


FIGURE_FILE = _FigureFile()


def option(name: str, **overrides):
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
    return lambda func: indent(decorate(func))


def _remember_indent(ctx, _param, value):
    if value is not None:
        ctx.ensure_object(dict)["json_indent"] = value
    return value


def _counts_options(func, **overrides):
    """The four 2x2 counts."""
    for name in ("both_wrong", "b_only", "a_only", "both_correct"):
        func = option(name, **overrides)(func)
    return func


def _common_test_options(func):
    for name in ("json", "alternative", "power", "alpha"):
        func = option(name)(func)
    return func


# Options LoadOptions does not take: the paths are passed apart, alignment acts on the rest.
NOT_LOAD_OPTIONS = ("scores_paths", "hub", "strict", "complete_case")

SCORE_SOURCES = (
    "\n\b\nScore sources (detected from the path; --format forces one):\n" + format_help() + "\n"
)


def loader_options(func):
    """Options shared by every job that reads per-item scores (one loader serves all jobs).

    The flags of :class:`~evalgap.io.options.LoadOptions` are built from its fields, so a
    loader option is defined once; the paths and the alignment switches are added here.
    """

    from evalgap.io.options import LoadOptions

    options = [
        click.option(
            "--strict",
            is_flag=True,
            help="Treat any missing, duplicated or unusable item as an error.",
        ),
        click.option(
            "--complete-case",
            is_flag=True,
            help="Use only the items every selected model scored (one common item set) "
            "instead of each pair's own shared items; says how many items that drops.",
        ),
    ]
    for f in reversed(dataclasses.fields(LoadOptions)):
        meta = f.metadata
        kwargs = {"help": meta["help"]}
        if "choices" in meta:
            kwargs["type"] = click.Choice(list(meta["choices"]))
        if f.name == "fmt":  # the sources' names, from their registry
            kwargs["type"] = click.Choice(list(format_names()))
        if meta.get("path"):
            kwargs["type"] = click.Path(dir_okay=False)
        if meta.get("multiple"):
            kwargs["multiple"] = True
        elif meta.get("is_flag"):
            kwargs["is_flag"] = True
        elif f.default is not None:
            kwargs.update(default=f.default, show_default=True)
        options.append(click.option(meta["flag"], f.name, **kwargs))
    options += [
        click.option(
            "--hub",
            multiple=True,
            metavar="REPO",
            help="Download Open LLM Leaderboard details from the Hugging Face Hub "
            "(needs huggingface_hub).",
        ),
        click.option(
            "--scores",
            "scores_paths",
            multiple=True,
            type=click.Path(path_type=str),
            help="Score file or directory (repeatable; any mix of sources).",
        ),
    ]
    for decorate in options:
        func = decorate(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="evalgap")
@click.option(
    "--width",
    type=click.IntRange(min=20),
    help="Width of terminal reports in characters (default: the terminal's width; "
    "unbounded when output is not a terminal).",
)
@click.pass_context
def cli(ctx, width):
    """evalgap: is a gap between two models real, and could this benchmark have shown it?

    Paired tests, required sample sizes (N*), minimum detectable effects and the resolution
    ratio q = N/N* for LLM evaluations scored on shared items.
    """
    ctx.ensure_object(dict)["width"] = width


def _note(text: str) -> None:
    """A dim line on stderr (where a file was written)."""
    from evalgap.report.text import markup

    _console(stderr=True).print(f"[dim]{markup(text)}[/]")


def _console(*, stderr: bool = False):
    """The Console of this invocation (honours --width; full width when not a terminal)."""
    from evalgap.report.terminal import make_console

    ctx = click.get_current_context(silent=True)
    width = (ctx.find_root().obj or {}).get("width") if ctx is not None else None
    return make_console(stderr=stderr, width=width)


@cli.command(epilog=COMPARE_EXAMPLES + SCORE_SOURCES)
@_counts_options
@loader_options
@click.option("--model-a", help="Model A's name in the scores file.")
@click.option("--model-b", help="Model B's name in the scores file.")
@_common_test_options
@option(
    "n_bootstrap",
    default=10_000,
    help="Bootstrap resamples for the paired bootstrap test and interval of graded scores "
    "(binary pairs get the exact bootstrap, no resamples; 0: skip the bootstrap).",
)
@option("n_bootstrap_required_n")
@option("seed")
@click.option(
    "--by",
    metavar="COLUMN",
    help="Compare the pair within each group: 'task', or a column of a score table "
    "(e.g. category); p-values adjusted over the groups.",
)
@click.option(
    "--adjustment",
    type=click.Choice(["holm", "bonferroni", "sidak", "bh"]),
    default="holm",
    show_default=True,
    help="With --by: the multiplicity correction over groups.",
)
@click.option(
    "--weights",
    help="Items sampled with unequal probabilities: a column of the scores table with each "
    "item's weight 1/pi, or the design file plan --reference wrote (item_id, weight, stratum).",
)
@click.option(
    "--strata",
    help="With --weights: the column of stratum labels (default: the design's 'stratum').",
)
def compare(
    both_correct,
    a_only,
    b_only,
    both_wrong,
    model_a,
    model_b,
    alpha,
    power,
    alternative,
    as_json,
    n_bootstrap,
    n_bootstrap_required_n,
    seed,
    by,
    adjustment,
    weights,
    strata,
    **loader,
):
    """Test one paired gap and say whether the benchmark can resolve it.

    Give either the four 2x2 counts of a binary comparison, or --scores with --model-a and
    --model-b. Items not scored for both models are left out and counted in the output.
    """
    from evalgap.jobs.api import compare as compare_job

    counts = (both_correct, a_only, b_only, both_wrong)
    settings = {
        "alpha": alpha,
        "power": power,
        "alternative": alternative,
        "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n,
        "seed": seed,
    }
    if _has_scores(loader):
        if any(c is not None for c in counts):
            raise InputError(
                "give either --scores or the four counts "
                "(--both-correct --a-only --b-only --both-wrong), not both"
            )
        if not model_a or not model_b:
            raise InputError("--scores needs --model-a and --model-b (the two models to compare)")
        if model_a == model_b:
            raise InputError(f"--model-a and --model-b are both {model_a!r}; name two models")
        if by and by != "task":
            if loader["task_column"] and loader["task_column"] != by:
                raise InputError(
                    f"--by {by} and --task-column {loader['task_column']} name different "
                    "columns; --by COLUMN groups by that column"
                )
            loader = {**loader, "task_column": by}
        if weights:
            _refuse_with_weights(by, adjustment)
        elif strata:
            raise InputError("--strata goes with --weights (a stratified item sample)")
        if adjustment != "holm" and not by:
            raise InputError("--adjustment corrects over the groups of --by; give --by or drop it")
        table = _load(loader, quiet=as_json)
        if weights:
            _compare_weighted(table, loader, weights, strata, model_a, model_b, settings, as_json)
            return
        if by and by != "task" and table.columns.get("task") != by:
            raise InputError(
                f"--by {by}: {table.source} has no column {by!r} to group by "
                "(use --by task for a log's tasks)"
            )
        result = compare_job(
            table,
            model_a=model_a,
            model_b=model_b,
            by=by,
            adjustment=adjustment,
            **_alignment(loader),
            **settings,
        )
        _emit(result, as_json, "compare-by" if by else "compare")
        return
    if by:
        raise InputError("--by needs per-item --scores; 2x2 counts have no groups")
    if adjustment != "holm":
        raise InputError("--adjustment corrects over the groups of --by, which needs --scores")
    if weights or strata:
        raise InputError("--weights and --strata need per-item --scores")
    names = ("--both-correct", "--a-only", "--b-only", "--both-wrong")
    missing = [name for name, value in zip(names, counts, strict=True) if value is None]
    if missing:
        raise InputError(
            f"missing {', '.join(missing)}: give all four 2x2 counts, or "
            "--scores FILE with --model-a and --model-b"
        )
    result = compare_job(
        both_correct=both_correct, a_only=a_only, b_only=b_only, both_wrong=both_wrong, **settings
    )
    _emit(result, as_json, "compare")


@cli.command(
    "inspect-data",
    epilog=SCORE_SOURCES
    + """
\b
Examples:
  evalgap inspect-data --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --items ../shared/data/mmlu_pro/mmlu_pro_items.csv --cluster-column category
  evalgap inspect-data --scores lm_eval_output/ --metric hellaswag=acc_norm
  evalgap inspect-data --scores logs/qwen.eval --scores logs/sonnet.eval --json
""",
)
@loader_options
@option("json", help="Print the summary as JSON.")
def inspect_data_command(as_json, **loader):
    """Show what was read: models, tasks, items, metric, scores and the alignment report.

    The first command to run on new files. Models are not paired here: every model is
    aligned with every other, so 'items kept' counts the items scored for all of them.
    """
    from evalgap.jobs.inspect_data import inspect_data

    if not _has_scores(loader):
        raise InputError("give --scores FILE (repeatable) or --hub REPO")
    table, score_set = _read_scores(loader, models=None, quiet=as_json)
    _emit(inspect_data(table, score_set=score_set), as_json, "inspect-data")


AUDIT_EXAMPLES = """
\b
Examples:
  # The MMLU-Pro top-10 adjacent pairs of Table 7, from their 2x2 counts:
  evalgap audit --pairs pairs.csv --family-size 45
\b
  # Every adjacent pair of a leaderboard, with subject clusters and an HTML report:
  evalgap audit --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --cluster-column category --html audit.html
\b
  # All pairs, JSON:
  evalgap audit --scores lm_eval_out/ --family all --json
"""


@cli.command(epilog=AUDIT_EXAMPLES + SCORE_SOURCES)
@click.option(
    "--pairs",
    "pairs_path",
    type=click.Path(dir_okay=False),
    help="CSV with model_a,model_b,both_correct,a_only,b_only,both_wrong per pair.",
)
@loader_options
@click.option(
    "--family",
    type=click.Choice(["adjacent", "all"]),
    default="adjacent",
    show_default=True,
    help="Rank-adjacent pairs or all pairs, per task.",
)
@click.option(
    "--family-size",
    type=click.IntRange(min=1),
    help="Declared family size m (default: the number of pairs audited).",
)
@click.option(
    "--procedure",
    type=click.Choice(
        ["fixed_n", "bonferroni", "sidak", "holm", "bh", "anytime_valid", "clustered"]
    ),
    default="fixed_n",
    show_default=True,
    help="Procedure behind the tiers.",
)
@option("mixture")
@click.option(
    "--n-cluster-bootstrap",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Cluster-bootstrap resamples (0: skip).",
)
@option(
    "n_bootstrap",
    default=2000,
    help="Resamples for each graded pair's bootstrap p-value (binary pairs get the exact "
    "bootstrap; 0: skip).",
)
@option("n_bootstrap_required_n", help="Resamples for each pair's N* interval (0: skip).")
@click.option(
    "--n-rank-bootstrap",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Bootstrap replicates of the rank sets (as evalgap ranks; 0: skip).",
)
@option("seed")
@click.option(
    "--output",
    "output_path",
    type=OUTPUT_FILE,
    help="Write the per-pair table to this .parquet (or .csv) file; --json then keeps the "
    "summary and names the file (for hundreds of thousands of pairs).",
)
@click.option(
    "--html",
    "html_path",
    type=OUTPUT_FILE,
    help="Write a self-contained HTML report (tables and figures) to this file.",
)
@_common_test_options
def audit(
    pairs_path,
    family,
    family_size,
    procedure,
    mixture,
    n_cluster_bootstrap,
    n_bootstrap,
    n_bootstrap_required_n,
    n_rank_bootstrap,
    seed,
    output_path,
    html_path,
    alpha,
    power,
    alternative,
    as_json,
    **loader,
):
    """Which displayed rankings can this benchmark resolve? (a whole leaderboard)

    Per task, models are ranked by displayed accuracy; every rank-adjacent pair (or every
    pair) gets a resolved/unresolved verdict under fixed n, Bonferroni, Sidak, Holm, BH,
    anytime-valid testing and, with --cluster-column, clustering.
    """
    from evalgap.jobs.api import audit as audit_job

    if alternative != "two-sided":
        raise InputError("--alternative: the audit tests two-sided gaps; leave it at two-sided")
    settings = {
        "family": family,
        "family_size": family_size,
        "alpha": alpha,
        "power": power,
        "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n,
        "seed": seed,
        "procedure": procedure,
        "mixture": mixture,
    }
    has_scores = _has_scores(loader)
    if bool(pairs_path) == has_scores:
        raise InputError("give either --pairs FILE (per-pair 2x2 counts) or --scores FILE")
    if pairs_path:
        if family != "adjacent":
            raise InputError(
                "--family all needs per-item --scores; a --pairs file lists its pairs itself"
            )
        ignored = [flag for flag in _given_options() if flag not in AUDIT_PAIRS_FLAGS]
        if ignored:
            raise InputError(
                f"{', '.join(ignored)}: not for a --pairs file of 2x2 counts (it has no "
                "per-item scores to read, cluster or rank); leave it out, or audit --scores"
            )
        result = audit_job(pairs=pairs_path, **settings)
    else:
        _, score_set = _read_scores(loader, models=None, quiet=as_json)
        with _progress(as_json, "audit") as progress:
            result = audit_job(
                score_set,
                n_cluster_bootstrap=n_cluster_bootstrap,
                n_rank_bootstrap=n_rank_bootstrap,
                cluster_column=loader["cluster_column"],
                progress=progress,
                **settings,
            )
    if html_path:
        from evalgap.report.html import audit_report, provenance, write_report

        inputs = [pairs_path] if pairs_path else _inputs(loader)
        write_report(
            html_path, audit_report(result, provenance=provenance(inputs, _given_options()))
        )
        if not as_json:
            _note(f"report written to {html_path}")
    if output_path:
        from evalgap.io._write import write_table

        write_table(result.to_frame(), output_path, option="--output")
        if as_json:
            _emit({**result.to_dict(pairs=False), "pairs_output": str(output_path)}, True, "")
            return
        _note(f"pair table written to {output_path}")
    _emit(result, as_json, "audit")


# The audit flags a --pairs file of 2x2 counts honours; any other given flag is refused.
AUDIT_PAIRS_FLAGS = (
    "--pairs",
    "--family",
    "--family-size",
    "--procedure",
    "--mixture",
    "--n-bootstrap",
    "--n-bootstrap-required-n",
    "--seed",
    "--output",
    "--html",
    "--alpha",
    "--power",
    "--alternative",
    "--json",
)


RANKS_EXAMPLES = """
\b
Examples:
  # Which rank can each of 29 MMLU-Pro models claim (subject clusters resampled)?
  evalgap ranks --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --cluster-column category --html ranks.html
\b
  # An LLM-judge board (graded preferences against a fixed baseline):
  evalgap ranks --scores ../shared/data/alpaca_eval/alpaca_eval_long.csv.gz \\
      --score-column win --top-k 5 --json
\b
  # Arena battles (model_a, model_b, winner), Bradley-Terry:
  evalgap ranks --battles battles.csv
"""


@cli.command(epilog=RANKS_EXAMPLES + SCORE_SOURCES)
@click.option(
    "--battles",
    "battles_path",
    type=click.Path(dir_okay=False),
    help="Arena battles (model_a, model_b, winner) instead of --scores: a table, JSON Lines "
    "or a JSON array (LMArena's clean_battle files).",
)
@loader_options
@option("n_bootstrap", default=1000, help="Bootstrap replicates of the rank sets.")
@option("seed")
@click.option(
    "--top-k",
    type=click.IntRange(min=1),
    help="Also list the models that could be among the best K.",
)
@click.option(
    "--method",
    type=click.Choice(["auto", "bootstrap", "holm"]),
    default="auto",
    show_default=True,
    help="Max-t stepdown bootstrap, Holm pairwise tests, or the bootstrap unless there are "
    "too many models for the items.",
)
@click.option(
    "--bootstrap",
    type=click.Choice(["multiplier", "empirical"]),
    default="multiplier",
    show_default=True,
    help="Gaussian multiplier weights on items (clusters), or items resampled with replacement.",
)
@click.option(
    "--ties",
    type=click.Choice(["half", "davidson"]),
    default="half",
    show_default=True,
    help="Battles: a tie as half a win each, or Davidson's tie model.",
)
@click.option(
    "--html",
    "html_path",
    type=OUTPUT_FILE,
    help="Write a self-contained HTML page (rank-interval plot, table, heatmap).",
)
@option("json")
@option("alpha")
def ranks(
    battles_path,
    n_bootstrap,
    seed,
    top_k,
    method,
    bootstrap,
    ties,
    html_path,
    as_json,
    alpha,
    **loader,
):
    """Which rank can each model claim? (simultaneous rank sets and tiers)

    Per task, all pairs' differences are bounded at once (studentized max-|t| bootstrap with
    stepdown); each model gets the set of ranks it can claim, a marginal set, and a tier.
    """
    from evalgap.jobs.api import ranks as ranks_job

    settings = {
        "alpha": alpha,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "top_k": top_k,
        "method": method,
    }
    has_scores = _has_scores(loader)
    if bool(battles_path) == has_scores:
        raise InputError("give either --battles FILE (arena battles) or --scores FILE")
    if battles_path:
        ctx = click.get_current_context()
        stray = [
            p.opts[0]
            for p in ctx.command.params
            if (p.name in loader and p.name != "fmt") or p.name == "bootstrap"
            if ctx.get_parameter_source(p.name) is not click.core.ParameterSource.DEFAULT
        ]
        if stray:
            raise InputError(
                f"{', '.join(stray)}: score-table options do not apply to --battles; drop them"
            )
        result = ranks_job(
            battles=battles_path, ties=ties, battle_format=loader.get("fmt"), **settings
        )
    else:
        source = click.get_current_context().get_parameter_source("ties")
        if source is not click.core.ParameterSource.DEFAULT:
            raise InputError("--ties applies to --battles only; drop it with --scores")
        _, score_set = _read_scores(loader, models=None, quiet=as_json)
        with _progress(as_json, "ranks") as progress:
            result = ranks_job(score_set, progress=progress, bootstrap=bootstrap, **settings)
    if html_path:
        from evalgap.report.html import provenance, ranks_report, write_report

        inputs = [battles_path] if battles_path else _inputs(loader)
        write_report(
            html_path,
            ranks_report(result, provenance=provenance(inputs, _given_options(), command="ranks")),
        )
        if not as_json:
            _note(f"report written to {html_path}")
    _emit(result, as_json, "ranks")


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


@cli.command(epilog=WATCH_EXAMPLES)
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
@option("power")
@option("json", help="Print one JSON line per look instead of a report.")
@option("alpha")
def watch(
    logs,
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
    state,
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
    from evalgap.jobs.watch import watch as watch_logs

    def show(status) -> None:
        if as_json or status.new_records or once:
            _emit_watch(status, as_json)
        if status.stopped == "timeout":
            _note(f"no new record for {timeout:g} s: stopping with targets undecided")

    status = watch_logs(
        list(logs),
        pair=pair or None,
        baseline=baseline,
        targets=targets,
        metric=metric,
        scorer=scorer,
        score_key=score_key,
        reducer=reducer,
        alpha=alpha,
        power=power,
        budget=budget,
        price_per_1k_tokens=price_per_1k_tokens,
        tokens_per_item=tokens_per_item,
        interval=interval,
        timeout=timeout,
        once=once,
        state=state,
        on_status=show,
    )
    if not status.done:
        raise click.exceptions.Exit(1)


def _emit_watch(status, as_json: bool) -> None:
    if as_json:
        from evalgap.report.json_output import to_json

        click.echo(to_json(status.to_dict()))
        return
    from evalgap.report import terminal

    terminal.render_watch(status, _console(), new_records=status.new_records)


DEGRADE_EXAMPLES = """
\b
Examples:
  # Per-task counts (A = baseline, B = candidate), a CI gate:
  evalgap degrade --counts kv_fp8.csv --fail-on-degradation
\b
  # Two lm-eval output directories, one per model:
  evalgap degrade --baseline out/bf16/ --candidate out/fp8/
\b
  # Two models of one score file; chain-of-thought as the baseline:
  evalgap degrade --scores ../shared/data/bbh_codex/bbh_codex_long.csv \\
      --baseline code-davinci-002-cot --candidate code-davinci-002-direct
\b
  # A release gate: no worse than one point on every task:
  evalgap degrade --counts kv_fp8.csv --margin 0.01 --fail-on-degradation
"""


@cli.command(epilog=DEGRADE_EXAMPLES + SCORE_SOURCES)
@click.option(
    "--counts",
    "counts_path",
    type=click.Path(dir_okay=False),
    help="CSV with task,a_only,b_only[,both_correct,both_wrong] (A = baseline).",
)
@click.option(
    "--baseline", help="The baseline: a model name in --scores, or a path to its own score files."
)
@click.option(
    "--candidate", help="The candidate: a model name in --scores, or a path to its own score files."
)
@loader_options
@option("alpha", help="Significance level of each of the three tests.")
@click.option(
    "--permutation",
    is_flag=True,
    help="Also run the permutation tests on binary scores (graded scores always use them).",
)
@click.option(
    "--n-permutations",
    type=click.IntRange(min=1),
    default=100_000,
    show_default=True,
    help="Sign-flip permutations of the permutation tests.",
)
@click.option(
    "--simulations",
    type=click.IntRange(min=1),
    help="Also run Algorithm 4's Monte Carlo max-drop with this many simulations.",
)
@option("seed", help="Seed of the permutations and simulations.")
@click.option(
    "--margin",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    help="Also test non-inferiority: is the candidate no worse than this share (0.01 = one "
    "point) on every task? With --fail-on-degradation the gate then needs it shown.",
)
@click.option(
    "--equivalence",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    help="Also test equivalence within +/- this share on every task (two one-sided tests).",
)
@click.option(
    "--fail-on-degradation",
    is_flag=True,
    help="Exit with code 1 when the candidate is degraded or, with --margin, when "
    "non-inferiority is not shown on every task (then a drop within the margin passes).",
)
@option("json")
def degrade(
    counts_path,
    baseline,
    candidate,
    alpha,
    permutation,
    n_permutations,
    simulations,
    seed,
    margin,
    equivalence,
    fail_on_degradation,
    as_json,
    **loader,
):
    """Has the candidate (optimized, quantized...) got significantly worse than the baseline?

    Exact one-sided McNemar per task, aggregated over tasks by the pooled, Fisher and
    max-drop tests; the candidate is flagged when any of them rejects. With --margin M, also
    non-inferiority on every task (Tango's score test), which then decides the gate. Exit
    codes: 0 (not degraded, or with --margin non-inferior; or no --fail-on-degradation), 1
    (degraded, or with --margin not shown non-inferior, with --fail-on-degradation), 2 (bad
    input).
    """
    from evalgap.jobs.api import degrade as degrade_job

    settings = {
        "alpha": alpha,
        "n_simulations": simulations,
        "seed": seed,
        "margin": margin,
        "equivalence": equivalence,
    }
    has_scores = _has_scores(loader)
    if counts_path:
        if has_scores or baseline or candidate:
            raise InputError(
                "give either --counts FILE or scores (--scores with --baseline and "
                "--candidate, or --baseline PATH --candidate PATH), not both"
            )
        ctx = click.get_current_context()
        scores_only = {"permutation", "n_permutations", *loader}  # per-item scores' options
        given = [
            q.opts[0]
            for q in ctx.command.params
            if q.name in scores_only
            and ctx.get_parameter_source(q.name)
            in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT)
        ]
        if given:
            raise InputError(
                f"{', '.join(given)}: for per-item scores, not --counts (per-task counts); "
                "leave them out or give scores"
            )
        result = degrade_job(counts=counts_path, **settings)
    else:
        if not baseline or not candidate:
            raise InputError(
                "name the baseline and the candidate: --baseline and --candidate "
                "(model names in --scores, or paths to each model's outputs)"
            )
        from pathlib import Path

        from evalgap.jobs.degrade import check_roles

        check_roles(baseline, candidate)
        given_paths = [Path(x).exists() for x in (baseline, candidate)]
        if any(given_paths) and not all(given_paths):
            raise InputError(
                "--baseline and --candidate must both be paths to score files or both model names"
            )
        if all(given_paths):
            if loader["scores_paths"]:
                raise InputError("with --baseline PATH --candidate PATH, leave out --scores")
            data = None
            options = _options(loader)
        else:
            data, options = _read_scores(loader, models=[baseline, candidate])[1], None
        result = degrade_job(
            data,
            baseline=baseline,
            candidate=candidate,
            permutation=permutation,
            n_permutations=n_permutations,
            options=options,
            tasks=list(loader["tasks"]) or None,
            strict=loader["strict"],
            **settings,
        )
    _emit(result, as_json, "degrade")
    if fail_on_degradation and result.gate_fails:
        raise click.exceptions.Exit(1)


@cli.command(
    epilog="""
\b
Examples:
  # 10 runs of the baseline at temperature 0.3, one row per (item, run):
  evalgap trim --scores runs.csv --model base --run-column run --output flipping_items.csv
  evalgap degrade --scores new_runs/ --baseline base --candidate fp8 \\
      --items flipping_items.csv
"""
    + SCORE_SOURCES
)
@loader_options
@click.option("--model", required=True, help="The baseline model whose runs are read.")
@click.option(
    "--output",
    type=OUTPUT_FILE,
    required=True,
    help="Where to write the kept items (CSV: task,item_id,correct_share).",
)
@option("json", help="Print the counts as JSON.")
def trim(model, output, as_json, **loader):
    """Keep the items that flip across repeated baseline runs (Section 4.1).

    Items solved right (or wrong) in every run carry no signal for degradation tests; the
    others are written to --output, for degrade --items.
    """
    from evalgap.io._write import write_csv
    from evalgap.jobs.api import trim as trim_job

    _, score_set = _read_scores(loader, models=[model], quiet=as_json)
    result = trim_job(score_set, model=model)
    write_csv(result.kept, output, option="--output")
    _emit(result, as_json, "trim")


@cli.command(epilog=PLAN_EXAMPLES)
@click.option("--accuracy-a", type=PROBABILITY, help="Expected accuracy of model A, in (0, 1).")
@click.option(
    "--accuracy-b",
    type=PROBABILITY,
    help="Expected accuracy of model B (default: equal to A, for an MDE).",
)
@click.option(
    "--correlation",
    type=click.FloatRange(-1, 1),
    help="Per-item correlation of the two models' scores, in [-1, 1].",
)
@click.option(
    "--delta",
    type=float,
    help="The gap to resolve, A minus B: with --sd-diff (graded scores) or with "
    "--accuracy-a and --correlation (binary; then accuracy B = A - delta).",
)
@click.option(
    "--sd-diff",
    type=click.FloatRange(0, min_open=True),
    help="Graded scores: SD of the per-item score differences.",
)
@click.option(
    "--n-items",
    type=click.IntRange(min=1),
    help="Items available: adds the MDE, q and the power at this size.",
)
@click.option(
    "--flip-rate",
    type=PROBABILITY,
    help="Degradation plan: the share of items whose score flips between baseline and "
    "candidate (with --delta, the drop to detect; one-sided).",
)
@click.option(
    "--margin",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    help="Non-inferiority plan: items to show the candidate no worse than this share, with "
    "--flip-rate (and --delta, the expected drop; default 0).",
)
@click.option(
    "--pilot",
    multiple=True,
    type=click.Path(path_type=str),
    help="Items x reruns plan from a pilot with repeated runs (a table with a run column, "
    "lm-eval repeats with --all-runs, inspect epochs); repeatable.",
)
@click.option(
    "--reference",
    multiple=True,
    type=click.Path(path_type=str),
    help="Stratified item sample for --model-a vs --model-b from earlier models' per-item "
    "scores on the benchmark (any loader's files); repeatable.",
)
@click.option(
    "--model-a",
    help="Pilot: model A (default: the first of its two models). Reference: model A, "
    "a new model with --accuracy-a.",
)
@click.option(
    "--model-b",
    help="Pilot: model B. Reference: model B (default: the reference's leader).",
)
@click.option(
    "--n-strata",
    type=click.IntRange(min=1),
    default=6,
    show_default=True,
    help="Reference: strata of the item sample.",
)
@option("seed", help="Reference: seed of the item draw.")
@click.option(
    "--output",
    type=OUTPUT_FILE,
    help="Reference: write the design file (task, item_id, weight, stratum; .csv or "
    ".parquet) that compare --weights reads when the results come back.",
)
@click.option(
    "--cost-per-item",
    type=click.FloatRange(min=0),
    help="Pilot: what adding one item costs (writing, checking or licensing it).",
)
@click.option(
    "--cost-per-run",
    type=click.FloatRange(min=0),
    help="Pilot: what one model's run of one item costs (or --price-per-1k-tokens).",
)
@option("price_per_1k_tokens")
@option("tokens_per_item")
@click.option(
    "--max-runs",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Pilot: the largest runs per item laid out on the frontier.",
)
@loader_options
@_common_test_options
@click.pass_context
def plan(ctx, pilot, reference, output, as_json, **settings):
    """How many paired items does a comparison need? (before running it)

    With --flip-rate and --delta: how many items a degradation test needs to detect a drop.
    With --pilot: how many items and how many reruns, and the cheapest design for the costs.
    With --reference: which items to run so one pair's full-benchmark gap resolves fastest.
    """
    import dataclasses

    from evalgap.io.options import LoadOptions
    from evalgap.jobs.plan import plan as make_plan

    names = {f.name for f in dataclasses.fields(LoadOptions)} | set(NOT_LOAD_OPTIONS)
    loader = {k: settings.pop(k) for k in list(settings) if k in names}
    stray = [f for f, k in (("--scores", "scores_paths"), ("--hub", "hub"), ("--store", "store"))
             if loader[k]]
    stray += [f for f, k in (("--strict", "strict"), ("--complete-case", "complete_case"))
              if loader[k]]
    if stray:
        raise InputError(
            f"{', '.join(stray)}: plan reads its scores from --pilot FILE or --reference FILE"
        )
    for name in ("n_strata", "seed", "max_runs"):  # a default is not an option given
        if ctx.get_parameter_source(name) is click.core.ParameterSource.DEFAULT:
            settings[name] = None
    result = make_plan(
        pilot=list(pilot) or None,
        reference=list(reference) or None,
        output=output,
        tasks=list(loader["tasks"]) or None,
        options=_options(loader),
        **settings,
    )
    if not reference:
        _emit(result, as_json, PLAN_RENDERERS[type(result).__name__])
        return
    if as_json:
        out = result.to_dict()
        out["design_file"] = str(output) if output else None
        _emit(out, True, "")
        return
    _emit(result, False, "plan-sampling")
    if output:
        _note(f"design file written to {output}: run its items, then read the results "
              f"with compare --weights {output}")
    else:
        _note("add --output FILE to write the item list (the design file compare --weights reads)")


PLAN_RENDERERS = {
    "PlanResult": "plan",
    "PilotPlan": "plan-pilot",
    "DegradationPlan": "plan-degradation",
    "NonInferiorityPlan": "plan-degradation",
}


def _refuse_with_weights(by, adjustment) -> None:
    """Refuse the compare options the weighted (design-based) gap has no use for."""
    if by:
        raise InputError(
            "--by with --weights: the weighted gap is one estimate of the whole benchmark; "
            "compare one group at a time with --tasks"
        )
    ctx = click.get_current_context()
    for name in ("n_bootstrap", "n_bootstrap_required_n", "seed"):
        if ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT):
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag}: the weighted gap's design-based test resamples nothing")


def _compare_weighted(table, loader, weights, strata, model_a, model_b, settings, as_json):
    """``compare --weights``: the weighted gap of a stratified item sample."""
    from evalgap.jobs.api import compare as compare_job
    from evalgap.jobs.weighted import design_table

    if loader["hub"]:
        raise InputError("--weights reads a design file or a column of a --scores table")
    from pathlib import Path

    if loader.get("store") and not Path(weights).is_file():
        raise InputError(
            f"--weights {weights}: with --store, give the design file (item_id, weight"
            "[, stratum, stratum_size]); a store keeps no weight column"
        )
    design = design_table(
        weights, strata, data=list(loader["scores_paths"]), options=_options(loader)
    )
    result = compare_job(
        table,
        model_a=model_a,
        model_b=model_b,
        weights=design,
        **_alignment(loader),
        **{k: settings[k] for k in ("alpha", "power", "alternative")},
    )
    _emit(result, as_json, "compare-weighted")


def _simulation_options(func):
    options = [
        click.option(
            "--plot",
            "plot_path",
            type=FIGURE_FILE,
            help="Write the study's figure to this .png, .svg or .pdf file.",
        ),
        option("json", help="Print the results as JSON."),
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
    for decorate in options:
        func = decorate(func)
    return func


@cli.group()
def simulate():
    """Simulation studies: calibrate every test and check every prescription.

    \b
    Examples:
      evalgap simulate calibration --plot calibration.png
      evalgap simulate prospective --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
          --pair gemma-7b_5shots Meta-Llama-3-8B_5shots
      evalgap simulate power-curve --kind graded --plot graded.svg
      evalgap simulate sequential --both-correct 618 --a-only 100 --b-only 78 --both-wrong 376
      evalgap simulate aggregation --jobs 2 --json
      evalgap simulate rank-coverage --simulations 100
      evalgap simulate monitoring --trials 500
    """


@simulate.command()
@click.option("--n-items", type=click.IntRange(min=10), default=500, show_default=True)
@option("trials", default=1500, help="Trials per grid cell and hypothesis.")
@option(
    "n_bootstrap",
    type=click.IntRange(min=10),
    default=1000,
    help="Bootstrap resamples per trial for the paired bootstrap test.",
)
@option("power")
@_simulation_options
def calibration(n_items, trials, n_bootstrap, power, alpha, seed, jobs, as_json, plot_path):
    """Type-I error and power of five paired tests on the (p, rho_z) grid (Table 2)."""
    from evalgap.jobs.simulate import calibration as run

    with _progress(as_json, "calibration") as tick:
        result = run(
            n_items=n_items,
            n_trials=trials,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            power=power,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "calibration_figure", as_json, plot_path)


@simulate.command()
@loader_options
@click.option(
    "--pair",
    "pairs",
    nargs=2,
    multiple=True,
    metavar="A B",
    help="Two models of --scores to subsample (repeatable).",
)
@option("trials", default=1000, help="Subsamples per pair and size.")
@option("power")
@_simulation_options
def prospective(pairs, trials, power, alpha, seed, jobs, as_json, plot_path, **loader):
    """Empirical McNemar power at 0.8 N*, N* and 1.2 N* of real pairs (Table 10)."""
    from evalgap.jobs.simulate import prospective as run
    from evalgap.jobs.simulate import prospective_counts

    if not pairs:
        raise InputError("name the pairs to validate with --pair MODEL_A MODEL_B (repeatable)")
    models = list(dict.fromkeys(m for pair in pairs for m in pair))
    _, score_set = _read_scores(loader, models=models, quiet=as_json)
    counts = prospective_counts(score_set, pairs)
    with _progress(as_json, "prospective") as tick:
        result = run(
            counts, n_trials=trials, alpha=alpha, power=power, seed=seed, jobs=jobs, progress=tick
        )
    _finish_simulation(result, "prospective_figure", as_json, plot_path)


@simulate.command("power-curve")
@click.option(
    "--kind",
    type=click.Choice(["binary", "graded"]),
    default="binary",
    show_default=True,
    help="Latent-copula Bernoulli or Beta(4, 2) graded scores.",
)
@click.option(
    "--delta",
    "deltas",
    type=float,
    multiple=True,
    help="Gaps to trace (repeatable; default 0.02, 0.04, 0.08).",
)
@option("trials", show_default=False, help="Trials per point (default 500 binary, 200 graded).")
@option(
    "n_bootstrap",
    type=click.IntRange(min=10),
    show_default=False,
    help="Bootstrap resamples per trial (default 500 binary, 200 graded).",
)
@option("power")
@_simulation_options
def power_curve(kind, deltas, trials, n_bootstrap, power, alpha, seed, jobs, as_json, plot_path):
    """Bootstrap power against n, with N* marked (Figures 5-6)."""
    from evalgap.jobs.simulate import power_curve as run

    deltas = deltas or (0.02, 0.04, 0.08)
    with _progress(as_json, "power curve") as tick:
        result = run(
            kind=kind,
            deltas=deltas,
            n_trials=trials,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            power=power,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "power_curve_figure", as_json, plot_path)


@simulate.command()
@functools.partial(_counts_options, required=True)
@option("trials", default=600, help="Trials under H0 and under H1.")
@click.option(
    "--horizon-factor",
    "--horizon",
    "horizon_factor",
    type=click.FloatRange(min=1.0),
    default=5.0,
    show_default=True,
    help="Items to follow, as a multiple of N* (--horizon: the old spelling).",
)
@option("mixture")
@option("power")
@_simulation_options
def sequential(
    both_correct,
    a_only,
    b_only,
    both_wrong,
    trials,
    horizon_factor,
    mixture,
    power,
    alpha,
    seed,
    jobs,
    as_json,
    plot_path,
):
    """The mixture e-process under H0 and H1, calibrated to a pair (Appendix C, Figure 4)."""
    from evalgap.jobs.simulate import sequential_study

    with _progress(as_json, "sequential") as tick:
        result = sequential_study(
            (both_correct, a_only, b_only, both_wrong),
            n_trials=trials,
            alpha=alpha,
            power=power,
            horizon_factor=horizon_factor,
            mixture=mixture,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "sequential_figure", as_json, plot_path)


@simulate.command()
@click.option("--max-tasks", type=click.IntRange(min=1, max=100), default=20, show_default=True)
@click.option("--experiments", type=click.IntRange(min=10), default=1000, show_default=True)
@click.option("--flip-rate", type=PROBABILITY, default=0.1, show_default=True)
@_simulation_options
def aggregation(max_tasks, experiments, flip_rate, alpha, seed, jobs, as_json, plot_path):
    """Rejection rates of pooled, max-drop, Fisher and any-of-three against T (Figure 3)."""
    from evalgap.jobs.simulate import aggregation_study

    with _progress(as_json, "aggregation") as tick:
        result = aggregation_study(
            task_counts=tuple(range(1, max_tasks + 1)),
            n_experiments=experiments,
            flip_rate=flip_rate,
            alpha=alpha,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "aggregation_figure", as_json, plot_path)


@simulate.command()
@option("trials", default=2000, help="Simulated evaluations per scenario.")
@click.option(
    "--horizon",
    type=click.IntRange(min=2),
    default=2000,
    show_default=True,
    help="Items followed; the rule looks after every one.",
)
@click.option(
    "--models",
    type=click.IntRange(min=3),
    default=6,
    show_default=True,
    help="Models of the e-BH family scenario.",
)
@_simulation_options
def monitoring(trials, horizon, models, alpha, seed, jobs, as_json, plot_path):
    """Type-I error of stopping when `watch` says decided, looking after every item."""
    from evalgap.jobs.monitoring import monitoring_study

    if plot_path:
        raise InputError("--plot: the monitoring study has no figure; its table says it all")
    if jobs != 1:
        raise InputError("--jobs: the monitoring study runs in one process; leave --jobs out")
    with _progress(as_json, "monitoring") as tick:
        result = monitoring_study(
            n_trials=trials,
            horizon=horizon,
            n_models=models,
            alpha=alpha,
            seed=seed,
            progress=tick,
        )
    _emit(result, as_json, "simulate")


@simulate.command("rank-coverage")
@click.option(
    "--simulations",
    type=click.IntRange(min=10),
    default=200,
    show_default=True,
    help="Simulated leaderboards per configuration.",
)
@option("n_bootstrap", default=400, help="Bootstrap draws of each rank-set computation.")
@_simulation_options
def rank_coverage(simulations, n_bootstrap, alpha, seed, jobs, as_json, plot_path):
    """Simultaneous coverage of the true ranks by `evalgap ranks` (near-ties, many models)."""
    from evalgap.jobs.rank_coverage import rank_coverage as study

    with _progress(as_json, "rank coverage") as tick:
        result = study(
            n_simulations=simulations,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "rank_coverage_figure", as_json, plot_path)


def _finish_simulation(result, figure: str, as_json: bool, plot_path) -> None:
    if plot_path:
        from evalgap.report import plots

        plots.save_figure(getattr(plots, figure)(result), plot_path)
    _emit(result, as_json, "simulate")
    if plot_path and not as_json:
        _note(f"figure written to {plot_path}")


STORE_EXAMPLES = """
\b
Examples:
  # Add this week's logs (re-adding a file adds nothing), then audit from the store:
  evalgap store add board.duckdb ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz
  evalgap store add board.duckdb lm_eval_out/ logs/ --json
  evalgap audit --store board.duckdb --json
\b
  # Every pair of a large board from the stored statistics, rows to Parquet:
  evalgap store audit board.duckdb --output pairs.parquet
\b
  # What is in it; remove a model; export the long table:
  evalgap store list board.duckdb
  evalgap store remove board.duckdb --model old-model
  evalgap store export board.duckdb --output board.parquet
"""


@cli.group(epilog=STORE_EXAMPLES)
def store():
    """A results store for a growing leaderboard: one DuckDB file, no server.

    Every job reads it with --store STORE in place of --scores; each source is added in one
    transaction with its content hash, and the pair statistics of new models are updated
    incrementally.
    """


@store.command("add", epilog=STORE_EXAMPLES + SCORE_SOURCES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.argument("sources", metavar="SOURCES...", nargs=-1, required=True, type=click.Path())
@loader_options
@option("json")
def store_add(store_path, sources, as_json, **loader):
    """Add score files or directories to STORE (created if absent); skip those already in it."""
    from evalgap.jobs.store import store_add as add_job

    if _has_scores(loader):
        raise InputError("store add takes its sources as arguments; drop --scores/--hub/--store")
    switches = [flag for flag in ("strict", "complete_case") if loader[flag]]
    if switches:  # alignment switches: they apply when a job reads the store
        raise InputError(
            f"{switches[0]}=True: store add keeps every row; give it to the job that reads "
            "the store (evalgap audit --store STORE ...)"
        )
    with _progress(as_json, "adding sources", by_bytes=True) as progress:
        result = add_job(store_path, list(sources), _options(loader), progress=progress)
    _emit(result, as_json, "store-add")


@store.command("list", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@option("json")
def store_list(store_path, as_json):
    """List the models, tasks, items, runs and sources of STORE."""
    from evalgap.jobs.store import store_list as list_job

    _emit(list_job(store_path), as_json, "store-list")


@store.command("remove", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.option("--model", "models", multiple=True, help="Remove this model (repeatable).")
@click.option(
    "--source", "sources", multiple=True, help="Remove this source by its id (repeatable)."
)
@click.option(
    "--path",
    "source_paths",
    multiple=True,
    help="Remove the source added from this path (repeatable).",
)
@option("json")
def store_remove(store_path, models, sources, source_paths, as_json):
    """Remove models or sources from STORE (one transaction)."""
    from evalgap.jobs.store import store_remove as remove_job

    result = remove_job(store_path, models=models, sources=sources, source_paths=source_paths)
    _emit(result, as_json, "store-remove")


@store.command("export", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.option(
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The Parquet file to write.",
)
@option("json")
def store_export(store_path, output_path, as_json):
    """Export the long scores of STORE to Parquet (model, task, item_id, run, score, cluster)."""
    from evalgap.jobs.store import store_export as export_job

    _emit(export_job(store_path, output_path), as_json, "store-export")


@store.command("audit", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.option(
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The Parquet file every pair's row is written to (as audit --output).",
)
@click.option(
    "--family",
    type=click.Choice(["all", "adjacent"]),
    default="all",
    show_default=True,
    help="Every pair of each task's models, or the rank-adjacent ones (audit's default; "
    "this command's product is the file of every pair's row).",
)
@click.option("--task", "tasks", multiple=True, help="Only this task (repeatable).")
@click.option(
    "--block-pairs",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Pairs audited at a time (memory grows with it, about 0.5 KB per pair).",
)
@option("alpha")
@option("power")
@option("json")
def store_audit(store_path, output_path, family, tasks, block_pairs, alpha, power, as_json):
    """Audit every pair of a binary STORE from its pair statistics, in bounded memory.

    No item is read: each pair's 2x2 counts come from the store. Holm and Benjamini-Hochberg
    run over the whole family; the rows stream to --output. For the cluster bootstrap, rank
    sets and trajectories, which resample items, use evalgap audit --store STORE.
    """
    from evalgap.jobs.store import store_audit as store_audit_job

    with _progress(as_json, "store audit") as tick:
        result = store_audit_job(
            store_path,
            output_path,
            family=family,
            tasks=list(tasks) or None,
            block_pairs=block_pairs,
            alpha=alpha,
            power=power,
            n_bootstrap=0,
            n_bootstrap_required_n=0,
            progress=tick,
        )
    _emit(result, as_json, "store-audit")


class _progress:
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
        if self.quiet or not _console(stderr=True).is_terminal:
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
            console=_console(stderr=True),
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


def _load(loader: dict, *, quiet: bool = True):
    """Read the scores named by the loader options into the long layout (LongScores).

    Unless ``quiet``, a progress bar with an estimate covers the reading of tables.
    """
    from evalgap.io.open_llm_leaderboard import download_details
    from evalgap.io.sources import load_scores
    from evalgap.io.tables import reporting_progress

    paths = list(loader["scores_paths"]) + [str(download_details(r)) for r in loader["hub"]]
    options = _options(loader)
    with _progress(quiet, "reading scores", by_bytes=True) as tick, reporting_progress(tick):
        return load_scores(paths, options)


def _inputs(loader: dict) -> list:
    """The score files, Hub repos and store the loader options name (for provenance)."""
    return [*loader["scores_paths"], *loader["hub"], *filter(None, [loader["store"]])]


def _has_scores(loader: dict) -> bool:
    """Whether the loader options name scores: files, Hub repos or a results store."""
    return bool(loader["scores_paths"] or loader["hub"] or loader.get("store"))


def _options(loader: dict):
    """The LoadOptions of the loader flags."""
    from evalgap.io.options import LoadOptions

    return LoadOptions(**{k: v for k, v in loader.items() if k not in NOT_LOAD_OPTIONS})


def _alignment(loader: dict) -> dict:
    """The alignment settings of the loader options, as the jobs' keyword arguments."""
    return {
        "tasks": list(loader["tasks"]) or None,
        "strict": loader["strict"],
        "complete_case": loader["complete_case"],
    }


def _read_scores(loader: dict, *, models, quiet: bool = True):
    """Read and align the scores named by the loader options; return (long table, ScoreSet).

    The loader's notes travel in the alignment report, so every job shows them on the
    terminal and in --json alike.
    """
    from evalgap.jobs.api import scores_of

    table = _load(loader, quiet=quiet)
    if models is None:
        models = list(loader["model_columns"]) or None
    return table, scores_of(table, models=models, **_alignment(loader))


def _given_options() -> dict:
    """The options of this invocation the user gave (not left at their defaults)."""
    ctx = click.get_current_context()
    return {
        param.opts[0]: ctx.params[param.name]
        for param in ctx.command.params
        if param.name in ctx.params
        and ctx.get_parameter_source(param.name) is not click.core.ParameterSource.DEFAULT
    }


def _emit(result, as_json: bool, job: str) -> None:
    if as_json:
        from evalgap.report.json_output import to_json

        ctx = click.get_current_context(silent=True)
        indent = (ctx.obj or {}).get("json_indent") if ctx is not None else None
        click.echo(to_json(result, indent=indent))
        return
    from evalgap.report import terminal

    console = _console()
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
    renderers[job](result, console)


def _render_groups(result, console) -> None:
    from evalgap.report.groups import render_compare_groups

    render_compare_groups(result, console)


# Python keywords of the jobs and loaders whose flag is not the click parameter of the same
# name; every other ``name=`` is looked up in the commands' own options.
PYTHON_NAME_FLAGS = {
    "paths": "--scores",
    "horizon_factor": "--horizon-factor",
    "chain_procedure": "--procedure",
    "output": "--output",
    "n_trials": "--trials",
    "n_experiments": "--experiments",
    "n_simulations": "--simulations",
    "n_models": "--models",
}

# ``name=`` starting a word, then a quoted value, a pair of quoted values, a number, an
# UPPER-case placeholder, True, or nothing (the parameter itself).
PYTHON_NAME_PATTERN = (
    r"(?<![\w'\"./=\\-])(?P<name>[a-z][a-z0-9_]*)="
    r"(?:'(?P<quoted>[^'\s]*)'"
    r"|\((?P<pair>'[^'\s]*'(?:, '[^'\s]*')+)\)"
    r"|(?P<word>True|[-+]?\d[\d.eE+-]*|[-+]?(?:inf|nan)|[A-Z][A-Z_]*(?:=[A-Z][A-Z_]*)?)"
    r"(?=[\s,;:)\]]|\.(?:\s|$)|$)"
    r"|(?=[\s,;:)\]]|\.(?:\s|$)|$))"
)


def flags_for_python_names(message: str, argv=None) -> str:
    """Return an error message with each Python keyword (``model_column=``) as its CLI flag.

    Jobs and loaders name the Python parameter a user passed (``model_column=``,
    ``delta=0.5``, ``on_error='skip'``, ``strict=True``); on the command line the same
    parameter is a flag (``--model-column``, ``--delta 0.5``, ``--on-error skip``,
    ``--strict``). Flags come from the invoked command's click options (``param.name ->
    param.opts[0]``), then ``PYTHON_NAME_FLAGS`` (the loaders' keywords), then every other
    command's; a name that is no parameter is left as written.
    """
    import re

    chain: list[click.Command] = [cli]
    for word in sys.argv[1:] if argv is None else argv:
        if isinstance(chain[-1], click.Group) and word in chain[-1].commands:
            chain.append(chain[-1].commands[word])
    everything, pending = [], [cli]
    while pending:
        command = pending.pop()
        everything.append(command)
        if isinstance(command, click.Group):
            pending.extend(command.commands.values())
    flags: dict[str, tuple[str, bool]] = {}

    def add(commands) -> None:
        for command in commands:
            for param in command.params:
                if isinstance(param, click.Option) and param.name:
                    flags.setdefault(param.name, (param.opts[0], bool(param.is_flag)))

    add(reversed(chain))  # the invoked command's options win, then the library's own names
    for name, flag in PYTHON_NAME_FLAGS.items():
        flags.setdefault(name, (flag, False))
    add(everything)

    def to_flag(match: re.Match) -> str:
        if match["name"] not in flags:
            return match[0]
        flag, is_flag = flags[match["name"]]
        if match["quoted"] is not None:
            return f"{flag} {match['quoted']}"
        if match["pair"] is not None:
            return " ".join([flag, *(v.strip("'") for v in match["pair"].split(", "))])
        if match["word"] is not None:
            return flag if is_flag and match["word"] == "True" else f"{flag} {match['word']}"
        return flag

    # the entry checks open with the parameter itself: "alpha must be a finite number ..."
    lead = re.match(r"(?P<name>[a-z][a-z0-9_]*)(?= must be )", message)
    if lead and lead["name"] in flags:
        message = flags[lead["name"]][0] + message[lead.end() :]
    return re.sub(PYTHON_NAME_PATTERN, to_flag, message)


def main(argv=None) -> int:
    """Run the CLI; return the exit code (0 ok, 2 bad input)."""
    try:
        code = cli.main(args=argv, prog_name="evalgap", standalone_mode=False)
        if isinstance(code, int):  # click hands back an Exit's code when not standalone
            return code
    except InputError as exc:
        from evalgap.report.text import clean

        message = flags_for_python_names(str(exc), argv)
        click.echo(f"evalgap: error: {clean(message)}", err=True)
        return 2
    except click.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare 'evalgap' (click >= 8.2)
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            return 0
        # The command path names a subcommand's group too ('evalgap simulate sequential');
        # the top-level group is 'evalgap' itself, whatever its function is called.
        path = exc.ctx.command_path if exc.ctx is not None else "evalgap"
        from evalgap.report.text import clean

        click.echo(
            f"evalgap: error: {clean(exc.format_message().rstrip('.'))} (see '{path} --help')",
            err=True,
        )
        return 2
    except click.Abort:
        click.echo("evalgap: aborted", err=True)
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
