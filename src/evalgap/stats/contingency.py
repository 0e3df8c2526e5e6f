"""Is a rate (errored samples) associated with a factor (the configuration)? An r x 2 table test.

Rows are the levels of the factor (configurations), the two columns the counts of samples
that failed and that did not. The null hypothesis is one failure rate for every row.

* Every expected count at least 5: Pearson's chi-square test of independence on
  ``(r - 1)`` df (no continuity correction), as ``scipy.stats.chi2_contingency`` computes it.
* Otherwise, where the chi-square approximation is poor, Fisher's exact test conditional on
  both margins: for two rows scipy's; for more rows the Freeman-Halton p-value (the
  probability of the tables no more probable than the observed one). With the margins fixed
  a table is its failures per row, of multivariate hypergeometric probability
  ``prod_r C(n_r, f_r) / C(N, F)``, so the p-value is exact by enumerating every way to
  share the F failures over the rows (row by row, each partial sum kept only while the rows
  left can complete it), up to ``MAX_EXACT_TABLES`` tables. Past that (many failures over
  many rows, rare where some expected count is below 5) it is estimated from 9,999 tables
  drawn with the margins fixed from a fixed seed (the same table always gives the same
  p-value), and the method names its Monte Carlo standard error.

A table where no sample failed (or every sample did) has nothing to test: the p-value is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

from evalgap.errors import InputError
from evalgap.stats._types import ArrayLike

__all__ = ["MIN_EXPECTED", "MONTE_CARLO_TABLES", "IndependenceTest", "failure_association"]

MIN_EXPECTED = 5.0  # the chi-square test's usual condition on every expected count
MONTE_CARLO_TABLES = 9_999
MAX_EXACT_TABLES = 200_000  # tables enumerated (its partial sums times a row's counts held at once)


@dataclass(frozen=True)
class IndependenceTest:
    """A test of one failure rate across the rows of a table: statistic, df, p-value, method.

    ``statistic`` is Pearson's chi-square (the observed table's probability for the exact
    test); ``df`` is NaN for the exact test; ``method`` names the test used.
    """

    statistic: float
    df: float
    p_value: float
    method: str


def failure_association(failed: ArrayLike, total: ArrayLike) -> IndependenceTest:
    """Return the test that every row's failure rate is the same (see the module).

    Parameters
    ----------
    failed, total : array of int (rows,)
        Failures and samples per row (a configuration); rows without samples are left out.

    Examples
    --------
    >>> t = failure_association([0, 0, 6, 14], [200, 200, 200, 200])
    >>> t.method, round(t.statistic, 3), t.df, t.p_value < 1e-4
    ('chi-square', 27.077, 3.0, True)
    >>> round(failure_association([0, 4], [80, 80]).p_value, 4)
    0.1203
    """
    f = np.asarray(failed, dtype=float)
    n = np.asarray(total, dtype=float)
    if f.shape != n.shape or f.ndim != 1:
        raise InputError("failed and total must be 1-d arrays of the same length")
    if (f < 0).any() or (f > n).any() or (f != np.round(f)).any() or (n != np.round(n)).any():
        raise InputError("failed and total must be counts with 0 <= failed <= total")
    keep = n > 0
    f, n = f[keep], n[keep]
    table = np.column_stack([f, n - f]).astype(np.int64)
    if f.size < 2 or table[:, 0].sum() == 0 or table[:, 1].sum() == 0:
        return IndependenceTest(np.nan, np.nan, np.nan, "none (one rate in every row)")
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    if (expected >= MIN_EXPECTED).all():
        chi2, p, df, _ = sps.chi2_contingency(table, correction=False)
        return IndependenceTest(float(chi2), float(df), float(p), "chi-square")
    if f.size == 2:
        _, p = sps.fisher_exact(table)
        probability = float(sps.hypergeom.pmf(table[0, 0], table.sum(), table[:, 0].sum(), n[0]))
        return IndependenceTest(probability, np.nan, float(p), "Fisher exact")
    exact = _freeman_halton(table[:, 0], table.sum(axis=1))
    if exact is not None:
        probability, p_value = exact
        return IndependenceTest(probability, np.nan, p_value, "Fisher-Freeman-Halton exact")
    method = sps.MonteCarloMethod(n_resamples=MONTE_CARLO_TABLES, rng=np.random.default_rng(0))
    result = sps.fisher_exact(table, method=method)
    p = float(result.pvalue)
    se = float(np.sqrt(p * (1 - p) / MONTE_CARLO_TABLES))
    return IndependenceTest(
        float(result.statistic),
        np.nan,
        p,
        f"Fisher-Freeman-Halton ({MONTE_CARLO_TABLES:,} tables, seed 0; Monte Carlo SE "
        f"{se:.2g})",
    )


def _freeman_halton(failed: np.ndarray, total: np.ndarray) -> tuple[float, float] | None:
    """The observed table's probability and the exact Freeman-Halton p-value of an r x 2
    table (failures ``failed`` of ``total`` per row), or None past ``MAX_EXACT_TABLES``."""
    f_total = int(failed.sum())
    cap = np.minimum(total, f_total).astype(np.int64)
    ways = np.zeros(f_total + 1)  # completions counted first: the enumeration's size
    ways[0] = 1.0
    for c in cap:
        ways = np.convolve(ways, np.ones(c + 1))[: f_total + 1]
    if ways[f_total] > MAX_EXACT_TABLES:
        return None
    log_c = special.gammaln(total[:, None] + 1) - special.gammaln(np.arange(f_total + 1) + 1)
    log_c = log_c - special.gammaln(np.maximum(total[:, None] - np.arange(f_total + 1), 0) + 1)
    left = np.concatenate([np.cumsum(cap[::-1])[::-1][1:], [0]])  # what the later rows hold
    sums, logp = np.zeros(1, dtype=np.int64), np.zeros(1)
    for row, c in enumerate(cap):
        k = np.arange(c + 1)
        sums = (sums[:, None] + k).ravel()
        logp = (logp[:, None] + log_c[row, : c + 1]).ravel()
        keep = (sums <= f_total) & (sums + left[row] >= f_total)
        sums, logp = sums[keep], logp[keep]
    log_total = special.gammaln(total.sum() + 1) - special.gammaln(f_total + 1)
    log_total -= special.gammaln(total.sum() - f_total + 1)
    observed = float(np.sum(log_c[np.arange(failed.size), failed]))
    probability = np.exp(logp - log_total)
    as_likely = logp <= observed + 1e-7 * max(1.0, abs(observed))  # ties in floating point
    return float(np.exp(observed - log_total)), float(min(1.0, probability[as_likely].sum()))
