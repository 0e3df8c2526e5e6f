"""evalgap ranks: the simultaneous rank sets each model can claim."""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import command
from evalgap.cli._defaults import rank_set_bootstrap
from evalgap.cli._engine import engine_options
from evalgap.cli._load import inputs, score_keywords
from evalgap.cli._options import SCORE_SOURCES, gold_options, loader_options, option
from evalgap.cli._render import emit, working, write_html, write_markdown

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
\b
  # An LLM judge's scores, ranked on the scale of human labels on some items:
  evalgap ranks --scores examples/judged.csv --gold-column human
"""


@command(epilog=RANKS_EXAMPLES + SCORE_SOURCES)
@click.option(
    "--battles",
    type=click.Path(dir_okay=False),
    help="Arena battles (model_a, model_b, winner) instead of --scores: a table, JSON Lines "
    "or a JSON array (LMArena's clean_battle files).",
)
@loader_options
@rank_set_bootstrap
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
    "--style",
    help="Battles: style control by these comma-separated covariates (a column of the "
    "differences a - b, or NAME_a and NAME_b columns of each answer's value), e.g. "
    "--style length,markdown.",
)
@gold_options
@engine_options
@option("html")
@option("markdown")
@option("json")
@option("alpha")
def ranks(json: bool, html: str | None, markdown: str | None, **given: Any) -> None:
    """Which rank can each model claim? (simultaneous rank sets and tiers)

    Per task, all pairs' differences are bounded at once (studentized max-|t| bootstrap with
    stepdown); each model gets the set of ranks it can claim, a marginal set, and a tier.
    With --battles, --format names the battle file's format.
    """
    from evalgap.jobs.ranks import ranks as ranks_job

    sources = [given["battles"]] if given["battles"] else inputs(given)
    source = score_keywords(given)
    with working(json, "ranks") as progress:
        result = ranks_job(**source, progress=progress, **given)
    if html:
        write_html(result, html, sources, quiet=json)
    write_markdown(result, markdown, quiet=json)
    emit(result, json)
