"""evalgap fragility: how few items would reverse each verdict of a leaderboard's pairs."""

from __future__ import annotations

from typing import Any

from evalgap.cli._command import command
from evalgap.cli._load import score_keywords
from evalgap.cli._options import SCORE_SOURCES, loader_options, option
from evalgap.cli._render import emit, working

FRAGILITY_EXAMPLES = """
\b
Examples:
  # Every rank-adjacent pair of MMLU-Pro: which verdicts do a few items decide?
  evalgap fragility --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz
\b
  # All pairs, from their 2x2 counts, JSON (one entry per test and procedure):
  evalgap fragility --pairs pairs.csv --json
\b
  # One pair, with the items to remove named: evalgap compare (its fragility table)
"""


@command(epilog=FRAGILITY_EXAMPLES + SCORE_SOURCES)
@option("pairs")
@loader_options
@option("family", default="adjacent")
@option("family_size")
@option("json")
@option("alpha")
@option("power")
def fragility(json: bool, **given: Any) -> None:
    """How few items would reverse each verdict? (items to flip, per pair and test)

    For every pair the audit judges, and for every test and procedure behind its verdicts
    (exact and chi-square McNemar, paired t and sign tests, resolution at alpha and under
    Bonferroni, Sidak and Holm), the fewest items whose removal reverses the verdict: exact
    for binary scores, bounds for graded ones.
    """
    from evalgap.jobs.audit import fragility as fragility_job

    source = score_keywords(given)
    with working(json, "fragility") as progress:
        result = fragility_job(**source, progress=progress, **given)
    emit(result, json)
