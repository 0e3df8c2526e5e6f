"""evalgap card: a leaderboard card (Markdown, HTML, JSON) of what each model can claim."""

from __future__ import annotations

from typing import Any

from evalgap.cli._command import command
from evalgap.cli._defaults import rank_set_bootstrap
from evalgap.cli._load import inputs, score_keywords
from evalgap.cli._options import SCORE_SOURCES, STDOUT_HELP, loader_options, option
from evalgap.cli._render import emit, working, write_html, written

CARD_EXAMPLES = """
\b
Examples:
  # MMLU-Pro, categories as tasks: Markdown to paste in a README or a PR comment
  evalgap card --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --items ../shared/data/mmlu_pro/mmlu_pro_items.csv --task-column category \\
      --output card.md --html card.html
\b
  # The card as JSON (every number of the Markdown and HTML):
  evalgap card --scores results.csv --json
"""


@command(epilog=CARD_EXAMPLES + SCORE_SOURCES)
@loader_options
@rank_set_bootstrap
@option("seed")
@option("output", help="Write the card's Markdown to this file (.md)" + STDOUT_HELP + ".")
@option("html")
@option("json")
@option("alpha")
@option("power")
def card(json: bool, html: str | None, output: str | None, **given: Any) -> None:
    """A leaderboard card: what each model and adjacent pair can claim (Markdown by default)

    Per task: each model's score and interval, simultaneous and marginal rank set, tier and
    missing items; each rank-adjacent pair's gap, interval, p, q and items to flip; how many
    pairs are separated, how many models can claim a single rank, the signal-to-noise ratio,
    and the settings.
    """
    from evalgap.jobs.card import card as card_job

    sources = inputs(given)
    source = score_keywords(given)
    with working(json, "card") as progress:
        result = card_job(**source, progress=progress, **given)
    if html:
        write_html(result, html, sources, quiet=json)
    if output:
        from evalgap.io._write import atomic_write

        text = result.to_markdown()
        atomic_write(output, lambda handle: handle.write(text), option="--output", what="the card")
        if not json:
            written("card", output)
            return
    emit(result, json)
