"""evalgap degrade and trim: has the candidate got worse than the baseline?"""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import command, renamed
from evalgap.cli._load import score_keywords
from evalgap.cli._options import SCORE_SOURCES, STDOUT_HELP, loader_options, option
from evalgap.cli._render import emit, working, write_markdown
from evalgap.cli.configurations import configurations_option

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


@renamed(kept={"--simulations": "--n-simulations"})
@command(epilog=DEGRADE_EXAMPLES + SCORE_SOURCES)
@click.option(
    "--counts",
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
    help="Sign-flip permutations of the permutation tests (default: 100,000).",
)
@click.option(
    "--n-simulations",
    type=click.IntRange(min=1),
    help="Also run Algorithm 4's Monte Carlo max-drop with this many draws of its null (a "
    "simulation study's replicates are --n-trials).",
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
@configurations_option
@option("markdown")
@option("json")
def degrade(json: bool, fail_on_degradation: bool, markdown: str | None, **given: Any) -> None:
    """Has the candidate (optimized, quantized...) got significantly worse than the baseline?

    Exact one-sided McNemar per task, aggregated over tasks by the pooled, Fisher and
    max-drop tests; the candidate is flagged when any of them rejects. With --margin M, also
    non-inferiority on every task (Tango's score test), which then decides the gate. Exit
    codes: 0 (not degraded, or with --margin non-inferior; or no --fail-on-degradation), 1
    (degraded, or with --margin not shown non-inferior, with --fail-on-degradation), 2 (bad
    input).
    """
    from evalgap.jobs.degrade import degrade as degrade_job

    source = score_keywords(given, complete_case=False)
    with working(json, "reading scores", by_bytes=True):
        result = degrade_job(**source, **given)
    write_markdown(result, markdown, quiet=json)
    emit(result, json)
    if fail_on_degradation and result.gate_fails:
        raise click.exceptions.Exit(1)


@command(
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
@option(
    "output",
    required=True,
    help="Where to write the kept items (CSV: task,item_id,correct_share)" + STDOUT_HELP + ".",
)
@option("json")
def trim(json: bool, output: str, **given: Any) -> None:
    """Keep the items that flip across repeated baseline runs (Section 4.1).

    Items solved right (or wrong) in every run carry no signal for degradation tests; the
    others are written to --output, for degrade --items.
    """
    from evalgap.io._write import write_csv
    from evalgap.jobs.degrade import trim as trim_job

    source = score_keywords(given, complete_case=False)
    with working(json, "reading scores", by_bytes=True):
        result = trim_job(**source, **given)
    write_csv(result.kept, output, option="--output")
    emit(result, json)
