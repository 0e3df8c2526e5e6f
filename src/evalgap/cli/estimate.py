"""evalgap estimate: a new model's full-benchmark score from a few items, with an interval."""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import command
from evalgap.cli._load import score_keywords
from evalgap.cli._options import SCORE_SOURCES, STDOUT_HELP, loader_options, option
from evalgap.cli._render import emit, working, written

ESTIMATE_EXAMPLES = """
\b
Examples:
  # A model scored on 100 random items, against a reference board of the whole benchmark:
  evalgap estimate --reference board.csv --scores new_model_100_items.csv
\b
  # Draw the next 50 items at random with known probabilities (in proportion to the 2PL's
  # variance at the model's ability, with a uniform share); design.csv is the design after
  # them (model,item_id,weight,scored; scored 0: run it):
  evalgap estimate --reference board.csv --scores new.csv --next 50 --output design.csv
\b
  # Once they are run: the weighted design-based estimate, and the next batch on top:
  evalgap estimate --reference board.csv --scores new.csv --weights design.csv \\
      --next 50 --output design2.csv
\b
  # Items drawn by a stratified design (plan --reference wrote item_id,weight,stratum):
  evalgap estimate --reference board.csv --scores new.csv --weights plan_design.csv
\b
  # The most informative items instead (model-based: estimate them with --estimator model):
  evalgap estimate --reference board.csv --scores new.csv --next 50 --next-draw informative \\
      --output next.csv
  evalgap estimate --reference board.csv --scores new.csv --estimator model
"""


@command(epilog=ESTIMATE_EXAMPLES + SCORE_SOURCES)
@option("reference", required=True)
@loader_options(exclude=("strict", "complete_case"))
@click.option(
    "--estimator",
    type=click.Choice(["design", "model"]),
    default="design",
    show_default=True,
    help="design: the random items' mean with the 2PL's predictions as a control variate "
    "(design-unbiased, t interval from the sampling design); model: the 2PL's own estimate "
    "(model-based, conformal interval from the reference models, biased towards them for a "
    "model unlike them).",
)
@click.option(
    "--weights",
    help="The design the scored items were drawn by: the file --output wrote after a random "
    "draw (model,item_id,weight), a column of the scores table with each item's weight 1/pi, "
    "or a design file (item_id, weight[, stratum, stratum_size]) as plan --reference writes; "
    "the design-based estimate is then the weighted one.",
)
@click.option(
    "--strata",
    help="With --weights: the column of stratum labels (default: the design's 'stratum').",
)
@option(
    "next_count",
    help="Items to draw (or propose) to run next, per model; items drawn again that are "
    "already scored need no run, so a few fewer may be listed.",
)
@click.option(
    "--next-draw",
    type=click.Choice(["random", "informative"]),
    default="random",
    show_default=True,
    help="random: drawn with known probabilities, in proportion to the 2PL's variance "
    "p(1-p) at the model's ability mixed with a uniform share (the design-based estimate "
    "stays unbiased); informative: the most informative items (model-based: estimate them "
    "with --estimator model).",
)
@click.option(
    "--uniform-share",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.2,
    show_default=True,
    help="With --next-draw random: the share of the draw spread uniformly over every item, "
    "so that none has probability 0.",
)
@option("seed", help="Seed of the random draw of the next items.")
@option(
    "output",
    help="Write the items to run next to this CSV file: with --next-draw random the design "
    "after them (model,item_id,weight,scored; give it back as --weights), else "
    "model,item_id" + STDOUT_HELP + ".",
)
@option("json")
@option("alpha")
def estimate(json: bool, output: str | None, **given: Any) -> None:
    """What would a model score on the whole benchmark? (from a few of its items)

    The scored items (drawn at random) give their mean; a 2PL item-response model fitted on
    the reference board predicts every item, and the estimate corrects the mean by those
    predictions as a control variate (PPI++ coefficient). It is unbiased however badly the
    2PL fits, and its t interval comes from the sampling design. The items' own mean, its
    interval and the width ratio are printed beside it. --estimator model gives the 2PL's own
    estimate with a conformal interval calibrated on the reference models (model-based).
    The next items are drawn at random with known probabilities; with their design given
    back as --weights the estimate is the weighted one and stays unbiased.
    """
    from evalgap.jobs.estimate import estimate as estimate_job

    source = score_keywords(given, complete_case=False)
    with working(json, "estimate") as progress:
        progress(0, 1, "fitting the reference board")
        result = estimate_job(**source, **given)
    if output:
        _write_next(result, output)
        if not json:
            random = result.next_draw == "random"
            written("the design with the items to run next" if random else "items to run next",
                    output)  # fmt: skip
    emit(result, json)


def _write_next(result: Any, output: str) -> None:
    from evalgap.io._write import write_csv

    write_csv(result.next_design(), output, option="--output")
