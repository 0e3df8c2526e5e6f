"""evalgap compare: one paired gap, from 2x2 counts or per-item scores."""

from __future__ import annotations

import click

from evalgap.cli._load import alignment, has_scores, load_long, load_options
from evalgap.cli._options import (
    SCORE_SOURCES,
    common_test_options,
    counts_options,
    loader_options,
    option,
)
from evalgap.cli._render import emit
from evalgap.errors import InputError

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


@click.command(epilog=COMPARE_EXAMPLES + SCORE_SOURCES)
@counts_options
@loader_options
@click.option("--model-a", help="Model A's name in the scores file.")
@click.option("--model-b", help="Model B's name in the scores file.")
@common_test_options
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
    if has_scores(loader):
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
        table = load_long(loader, quiet=as_json)
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
            **alignment(loader),
            **settings,
        )
        emit(result, as_json, "compare-by" if by else "compare")
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
    emit(result, as_json, "compare")


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
        weights, strata, data=list(loader["scores_paths"]), options=load_options(loader)
    )
    result = compare_job(
        table,
        model_a=model_a,
        model_b=model_b,
        weights=design,
        **alignment(loader),
        **{k: settings[k] for k in ("alpha", "power", "alternative")},
    )
    emit(result, as_json, "compare-weighted")
