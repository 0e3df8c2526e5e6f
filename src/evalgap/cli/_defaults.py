"""Shared options whose default differs from the other commands', each saying why in its help.

``--n-bootstrap`` is 10,000 in compare (one pair), 2,000 in audit (every pair of a board),
1,000 in ranks and card (the rank sets: each replicate redraws every model) and 400 in the
rank-coverage studies (every trial computes rank sets); ``--seed`` is 0 everywhere but for the
audit draws of adaptive item choice, where it is none unless given.
"""

from __future__ import annotations

from evalgap.cli._options import option

rank_set_bootstrap = option(
    "n_bootstrap",
    default=1000,
    help="Bootstrap replicates of the rank sets (audit's --n-rank-bootstrap); fewer than "
    "compare's 10,000 resamples of one pair, as each redraws every model's scores.",
)

audit_draw_seed = option(
    "seed",
    default=None,
    show_default=False,
    help="Seed of the audit draws (watch: with --adaptive). Default: none, fresh randomness on "
    "each call, so one batch's audit draws do not repeat another's; the state file keeps what "
    "was drawn.",
)
