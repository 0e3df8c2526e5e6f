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
  # The 2PL's own (model-based) estimate, e.g. for items chosen by --next:
  evalgap estimate --reference board.csv --scores new.csv --estimator model
\b
  # The 50 items to run next, for a harness (CSV: model,item_id):
  evalgap estimate --reference board.csv --scores new.csv --next 50 --output next.csv
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
@option(
    "next_count",
    help="Items to propose to run next, per model (the most informative at its ability: a "
    "model-based choice, not a random draw).",
)
@option(
    "output",
    help="Write the items to run next to this CSV file (model,item_id)" + STDOUT_HELP + ".",
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
    """
    from evalgap.jobs.estimate import estimate as estimate_job

    source = score_keywords(given, complete_case=False)
    with working(json, "estimate") as progress:
        progress(0, 1, "fitting the reference board")
        result = estimate_job(**source, **given)
    if output:
        _write_next(result, output)
        if not json:
            written("items to run next", output)
    emit(result, json)


def _write_next(result: Any, output: str) -> None:
    import csv

    from evalgap.io._write import atomic_write

    def write(handle: Any) -> None:
        rows = csv.writer(handle, lineterminator="\n")
        rows.writerow(["model", "item_id"])
        for e in result.estimates:
            rows.writerows([e.model, item] for item in e.next_items)

    atomic_write(output, write, option="--output", what="the items to run next")
