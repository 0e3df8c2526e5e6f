"""evalgap audit: which displayed rankings of a leaderboard the benchmark resolves."""

from __future__ import annotations

import click

from evalgap.cli._load import given_options, has_scores, inputs, read_scores
from evalgap.cli._options import (
    OUTPUT_FILE,
    SCORE_SOURCES,
    common_test_options,
    loader_options,
    option,
)
from evalgap.cli._render import emit, note, progress_bar
from evalgap.errors import InputError

AUDIT_EXAMPLES = """
\b
Examples:
  # The MMLU-Pro top-10 adjacent pairs of Table 7, from their 2x2 counts:
  evalgap audit --pairs pairs.csv --family-size 45
\b
  # Every adjacent pair of a leaderboard, with subject clusters and an HTML report:
  evalgap audit --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --cluster-column category --html audit.html
\b
  # All pairs, JSON:
  evalgap audit --scores lm_eval_out/ --family all --json
"""


@click.command(epilog=AUDIT_EXAMPLES + SCORE_SOURCES)
@click.option(
    "--pairs",
    "pairs_path",
    type=click.Path(dir_okay=False),
    help="CSV with model_a,model_b,both_correct,a_only,b_only,both_wrong per pair.",
)
@loader_options
@click.option(
    "--family",
    type=click.Choice(["adjacent", "all"]),
    default="adjacent",
    show_default=True,
    help="Rank-adjacent pairs or all pairs, per task.",
)
@click.option(
    "--family-size",
    type=click.IntRange(min=1),
    help="Declared family size m (default: the number of pairs audited).",
)
@click.option(
    "--procedure",
    type=click.Choice(
        ["fixed_n", "bonferroni", "sidak", "holm", "bh", "anytime_valid", "clustered"]
    ),
    default="fixed_n",
    show_default=True,
    help="Procedure behind the tiers.",
)
@option("mixture")
@click.option(
    "--n-cluster-bootstrap",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Cluster-bootstrap resamples (0: skip).",
)
@option(
    "n_bootstrap",
    default=2000,
    help="Resamples for each graded pair's bootstrap p-value (binary pairs get the exact "
    "bootstrap; 0: skip).",
)
@option("n_bootstrap_required_n", help="Resamples for each pair's N* interval (0: skip).")
@click.option(
    "--n-rank-bootstrap",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Bootstrap replicates of the rank sets (as evalgap ranks; 0: skip).",
)
@option("seed")
@click.option(
    "--output",
    "output_path",
    type=OUTPUT_FILE,
    help="Write the per-pair table to this .parquet (or .csv) file; --json then keeps the "
    "summary and names the file (for hundreds of thousands of pairs).",
)
@click.option(
    "--html",
    "html_path",
    type=OUTPUT_FILE,
    help="Write a self-contained HTML report (tables and figures) to this file.",
)
@common_test_options
def audit(
    pairs_path,
    family,
    family_size,
    procedure,
    mixture,
    n_cluster_bootstrap,
    n_bootstrap,
    n_bootstrap_required_n,
    n_rank_bootstrap,
    seed,
    output_path,
    html_path,
    alpha,
    power,
    alternative,
    as_json,
    **loader,
):
    """Which displayed rankings can this benchmark resolve? (a whole leaderboard)

    Per task, models are ranked by displayed accuracy; every rank-adjacent pair (or every
    pair) gets a resolved/unresolved verdict under fixed n, Bonferroni, Sidak, Holm, BH,
    anytime-valid testing and, with --cluster-column, clustering.
    """
    from evalgap.jobs.api import audit as audit_job

    if alternative != "two-sided":
        raise InputError("--alternative: the audit tests two-sided gaps; leave it at two-sided")
    settings = {
        "family": family,
        "family_size": family_size,
        "alpha": alpha,
        "power": power,
        "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n,
        "seed": seed,
        "procedure": procedure,
        "mixture": mixture,
    }
    given_scores = has_scores(loader)
    if bool(pairs_path) == given_scores:
        raise InputError("give either --pairs FILE (per-pair 2x2 counts) or --scores FILE")
    if pairs_path:
        if family != "adjacent":
            raise InputError(
                "--family all needs per-item --scores; a --pairs file lists its pairs itself"
            )
        ignored = [flag for flag in given_options() if flag not in AUDIT_PAIRS_FLAGS]
        if ignored:
            raise InputError(
                f"{', '.join(ignored)}: not for a --pairs file of 2x2 counts (it has no "
                "per-item scores to read, cluster or rank); leave it out, or audit --scores"
            )
        result = audit_job(pairs=pairs_path, **settings)
    else:
        _, score_set = read_scores(loader, models=None, quiet=as_json)
        with progress_bar(as_json, "audit") as progress:
            result = audit_job(
                score_set,
                n_cluster_bootstrap=n_cluster_bootstrap,
                n_rank_bootstrap=n_rank_bootstrap,
                cluster_column=loader["cluster_column"],
                progress=progress,
                **settings,
            )
    if html_path:
        from evalgap.report.html import audit_report, provenance, write_report

        sources = [pairs_path] if pairs_path else inputs(loader)
        write_report(
            html_path, audit_report(result, provenance=provenance(sources, given_options()))
        )
        if not as_json:
            note(f"report written to {html_path}")
    if output_path:
        from evalgap.io._write import write_table

        write_table(result.to_frame(), output_path, option="--output")
        if as_json:
            emit({**result.to_dict(pairs=False), "pairs_output": str(output_path)}, True, "")
            return
        note(f"pair table written to {output_path}")
    emit(result, as_json, "audit")


# The audit flags a --pairs file of 2x2 counts honours; any other given flag is refused.
AUDIT_PAIRS_FLAGS = (
    "--pairs",
    "--family",
    "--family-size",
    "--procedure",
    "--mixture",
    "--n-bootstrap",
    "--n-bootstrap-required-n",
    "--seed",
    "--output",
    "--html",
    "--alpha",
    "--power",
    "--alternative",
    "--json",
)
