"""evalgap adaptive: decide one pair with the items that say most about it, batch by batch."""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import command
from evalgap.cli._defaults import audit_draw_seed
from evalgap.cli._load import score_keywords
from evalgap.cli._options import OUTPUT_FILE, SCORE_SOURCES, STDOUT_HELP, loader_options, option
from evalgap.cli._render import emit, working, written

ADAPTIVE_EXAMPLES = """
\b
Examples:
  # The first batch for a pair, from a board scored on the whole benchmark:
  evalgap adaptive --reference board.csv --pair model-a model-b --next 50 \\
      --state pair.json --output batch.txt
\b
  # After running batch.txt with both models: where the pair stands, and the next batch:
  evalgap adaptive --reference board.csv --scores pair_so_far.csv --pair model-a model-b \\
      --state pair.json --output batch.txt --json
"""


@command(epilog=ADAPTIVE_EXAMPLES + SCORE_SOURCES)
@option(
    "reference",
    required=True,
    help="A board of models scored on the whole benchmark (the same task and item ids); the "
    "pair's own models on it are left out of the fit.",
)
@click.option("--pair", nargs=2, required=True, help="Model A and model B.")
@loader_options(exclude=("strict", "complete_case"))
@option("next_count")
@option("audit")
@click.option(
    "--state",
    type=OUTPUT_FILE,
    help="A file keeping the audit draws between calls (read if present, then rewritten).",
)
@option(
    "output",
    help="Write the next batch's item ids to this file, one per line" + STDOUT_HELP + ".",
)
@audit_draw_seed
@option("json")
@option("alpha")
def adaptive(json: bool, **given: Any) -> None:
    """Which of two models is better, with as few items as it takes? (batch by batch)

    Runs next the items whose answers say most about the pair (a 2PL fitted on the reference
    board, at the pair's abilities so far) and tests the signs of the items where the two
    differ with an anytime-valid e-process: look after every batch, stop when it decides.
    A random share of each batch estimates the full-benchmark gap without bias.
    """
    from evalgap.jobs.adaptive import adaptive as adaptive_job

    source = score_keywords(given, complete_case=False)
    with working(json, "adaptive") as progress:
        progress(0, 1, "fitting the reference board")
        result = adaptive_job(**source, **given)
    if given.get("output") and not json:
        from evalgap.report.text import plural

        written(f"the next batch ({plural(len(result.next_items), 'item')})", given["output"])
    emit(result, json)
