"""evalgap plan: items (and reruns) a comparison needs, before running it."""

from __future__ import annotations

import click

from evalgap.cli._load import load_options
from evalgap.cli._options import (
    NOT_LOAD_OPTIONS,
    OUTPUT_FILE,
    PROBABILITY,
    common_test_options,
    loader_options,
    option,
)
from evalgap.cli._render import emit, note
from evalgap.errors import InputError

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


@click.command(epilog=PLAN_EXAMPLES)
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
@common_test_options
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
    stray = [
        f
        for f, k in (("--scores", "scores_paths"), ("--hub", "hub"), ("--store", "store"))
        if loader[k]
    ]
    stray += [
        f for f, k in (("--strict", "strict"), ("--complete-case", "complete_case")) if loader[k]
    ]
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
        options=load_options(loader),
        **settings,
    )
    if not reference:
        emit(result, as_json, PLAN_RENDERERS[type(result).__name__])
        return
    if as_json:
        out = result.to_dict()
        out["design_file"] = str(output) if output else None
        emit(out, True, "")
        return
    emit(result, False, "plan-sampling")
    if output:
        note(
            f"design file written to {output}: run its items, then read the results "
            f"with compare --weights {output}"
        )
    else:
        note("add --output FILE to write the item list (the design file compare --weights reads)")


PLAN_RENDERERS = {
    "PlanResult": "plan",
    "PilotPlan": "plan-pilot",
    "DegradationPlan": "plan-degradation",
    "NonInferiorityPlan": "plan-degradation",
}
