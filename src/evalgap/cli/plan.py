"""evalgap plan: items (and reruns) a comparison needs, before running it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from evalgap.cli._command import command
from evalgap.cli._load import score_keywords
from evalgap.cli._options import (
    NOT_SCORE_SOURCES,
    PROBABILITY,
    common_test_options,
    loader_options,
    option,
)
from evalgap.cli._render import emit, note, working

if TYPE_CHECKING:
    from evalgap.jobs._pages import Views

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
  # Items x runs x seeds from a pilot run twice under each of 4 seeds:
  evalgap plan --pilot examples/pilot_configurations.csv --run-column run \\
      --config-columns seed --delta 0.05 --cost-per-item 1 --cost-per-run 0.01 \\
      --cost-per-configuration 100
\b
  # The items to run for a new model (expected accuracy 0.62) vs the leader:
  evalgap plan --reference board.csv --model-a new-model --accuracy-a 0.62 \\
      --n-items 800 --output design.csv
  evalgap compare --scores results.csv --weights design.csv
"""


@command(epilog=PLAN_EXAMPLES)
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
    help="Reference: strata of the item sample (default: 6).",
)
@option(
    "seed",
    default=None,
    show_default=False,
    help="Reference: seed of the item draw (default: 0; the other plans draw nothing and "
    "refuse it).",
)
@option(
    "output",
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
@click.option(
    "--cost-per-configuration",
    type=click.FloatRange(min=0),
    help="Pilot with --config-columns: what adding one configuration costs (a seed's or a "
    "provider's setup); prices items x runs x configurations.",
)
@option("price_per_1k_tokens")
@option("tokens_per_item")
@click.option(
    "--max-runs",
    type=click.IntRange(min=1),
    help="Pilot: the largest runs per item laid out on the frontier (default: 10).",
)
@loader_options(exclude=NOT_SCORE_SOURCES)
@common_test_options
def plan(json: bool, **given: Any) -> None:
    """How many paired items does a comparison need? (before running it)

    With --flip-rate and --delta: how many items a degradation test needs to detect a drop.
    With --pilot: how many items and how many reruns, and the cheapest design for the costs.
    With --reference: which items to run so one pair's full-benchmark gap resolves fastest.
    """
    from evalgap.jobs.plan import plan as make_plan

    source = score_keywords(given)
    given.update(pilot=list(given["pilot"]) or None, reference=list(given["reference"]) or None)
    with working(json, "reading scores", by_bytes=True):
        result = make_plan(**source, **given)
    if given["reference"]:
        _design(result, given["output"], json)
        return
    emit(result, json)


def _design(result: Views, output: str | None, json: bool) -> None:
    """The item sample of plan --reference, and where its design file went."""
    if json:
        emit({**result.to_dict(), "design_file": str(output) if output else None}, True)
        return
    emit(result)
    if output:
        note(
            f"design file written to {output}: run its items, then read the results "
            f"with compare --weights {output}"
        )
    else:
        note("add --output FILE to write the item list (the design file compare --weights reads)")
