"""evalgap ranks: the simultaneous rank sets each model can claim."""

from __future__ import annotations

import click

from evalgap.cli._load import given_options, has_scores, inputs, read_scores
from evalgap.cli._options import OUTPUT_FILE, SCORE_SOURCES, loader_options, option
from evalgap.cli._render import emit, note, progress_bar
from evalgap.errors import InputError

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


@click.command(epilog=RANKS_EXAMPLES + SCORE_SOURCES)
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
    given_scores = has_scores(loader)
    if bool(battles_path) == given_scores:
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
        _, score_set = read_scores(loader, models=None, quiet=as_json)
        with progress_bar(as_json, "ranks") as progress:
            result = ranks_job(score_set, progress=progress, bootstrap=bootstrap, **settings)
    if html_path:
        from evalgap.report.html import provenance, ranks_report, write_report

        sources = [battles_path] if battles_path else inputs(loader)
        write_report(
            html_path,
            ranks_report(result, provenance=provenance(sources, given_options(), command="ranks")),
        )
        if not as_json:
            note(f"report written to {html_path}")
    emit(result, as_json, "ranks")
