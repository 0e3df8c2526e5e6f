"""Paired summaries of a gap between two models scored on the same items.

Two input paths, one result:

* :func:`summarize_counts` takes the 2x2 table of a binary comparison
  (``both_correct, a_only, b_only, both_wrong``), broadcasting over any number of pairs;
* :func:`summarize_scores` takes two aligned score arrays (binary or graded) whose last
  axis runs over items. Binary arrays are reduced to their 2x2 counts and sent through
  :func:`summarize_counts`, so the two paths agree exactly.

Notation (Resolution Diagnostics, Section 3): per item ``D_i = X_i^A - X_i^B``; the gap
``delta`` is the mean of ``D``; ``sd_diff`` is sigma_D, the plug-in (divide-by-N) standard
deviation of ``D``, which for binary data is Equation (5) evaluated at the observed
accuracies and phi correlation, ``sigma_D^2 = (b + c)/N - delta^2``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate

# Spread below this many units in the last place of the scores' scale is rounding, not
# spread: a constant difference (0.7 - 0.1 on some items, 0.8 - 0.2 on others) has sd_diff 0,
# as its binary equivalent does, instead of 1e-17 and an N* of 1e-31.
ROUNDING_ULPS = 64


@dataclass(frozen=True)
class PairedSummary:
    """Paired summary statistics, one entry per pair (arrays broadcast like NumPy).

    Attributes
    ----------
    n_items : number of items scored for both models (N).
    accuracy_a, accuracy_b : mean score of model A and model B on those items.
    delta : mean of D = X^A - X^B, i.e. ``accuracy_a - accuracy_b``.
    a_only, b_only : discordant counts. Binary: items only A (only B) got right.
        Graded: items on which A (B) scored strictly higher.
    correlation : per-item Pearson correlation of the two models' scores (phi for binary);
        NaN when either model's scores are constant.
    sd_diff : sigma_D, plug-in standard deviation of D (divisor N).
    se : standard error of delta, ``sd_diff / sqrt(N)`` (Equation 1).
    binary : True when every score is 0 or 1.
    """

    n_items: np.ndarray
    accuracy_a: np.ndarray
    accuracy_b: np.ndarray
    delta: np.ndarray
    a_only: np.ndarray
    b_only: np.ndarray
    correlation: np.ndarray
    sd_diff: np.ndarray
    se: np.ndarray
    binary: bool

    def to_dict(self) -> dict:
        """Return the summary as plain Python numbers (lists for arrays)."""
        out = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = np.asarray(value).tolist() if not isinstance(value, bool) else value
        return out


def summarize_counts(both_correct, a_only, b_only, both_wrong) -> PairedSummary:
    """Return the paired summary of binary comparisons given their 2x2 counts.

    With ``n11 = both_correct``, ``n10 = a_only``, ``n01 = b_only``, ``n00 = both_wrong`` and
    ``N = n11 + n10 + n01 + n00``::

        accuracy_a = (n11 + n10) / N          accuracy_b = (n11 + n01) / N
        delta      = (n10 - n01) / N
        sd_diff^2  = (n10 + n01) / N - delta^2            (Equation 5 at the estimates)
        phi        = (n11 n00 - n10 n01) / sqrt((n11+n10)(n01+n00)(n11+n01)(n10+n00))

    Arguments broadcast against each other, so arrays of counts give arrays of summaries.

    Examples
    --------
    The HellaSwag pair of Table 6 (gemma-7b vs Llama-3-8B, N = 10,042):

    >>> s = summarize_counts(7986, 295, 249, 1512)
    >>> round(float(s.delta) * 100, 2), round(float(s.correlation), 2)
    (0.46, 0.81)
    """
    n11 = _validate.counts(both_correct, "both_correct")
    n10 = _validate.counts(a_only, "a_only")
    n01 = _validate.counts(b_only, "b_only")
    n00 = _validate.counts(both_wrong, "both_wrong")
    n11, n10, n01, n00 = np.broadcast_arrays(n11, n10, n01, n00)
    n = n11 + n10 + n01 + n00
    if np.any(n == 0):
        raise InputError("the 2x2 counts must contain at least one item (their sum is 0)")
    accuracy_a = (n11 + n10) / n
    accuracy_b = (n11 + n01) / n
    delta = (n10 - n01) / n
    var_d = np.maximum((n10 + n01) / n - delta**2, 0.0)
    denominator = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.where(
            denominator > 0, (n11 * n00 - n10 * n01) / np.sqrt(denominator), np.nan
        )
    sd_diff = np.sqrt(var_d)
    f = _validate.scalar_or_array
    return PairedSummary(
        n_items=f(n.astype(np.int64)),
        accuracy_a=f(accuracy_a),
        accuracy_b=f(accuracy_b),
        delta=f(delta),
        a_only=f(n10.astype(np.int64)),
        b_only=f(n01.astype(np.int64)),
        correlation=f(correlation),
        sd_diff=f(sd_diff),
        se=f(sd_diff / np.sqrt(n)),
        binary=True,
    )


def counts_from_scores(scores_a, scores_b) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(both_correct, a_only, b_only, both_wrong)`` of binary score arrays.

    The last axis runs over items; scores must be 0 or 1.
    """
    a, b = _aligned(scores_a, scores_b)
    if not (is_binary(a) and is_binary(b)):
        raise InputError("counts_from_scores needs binary scores (every score 0 or 1)")
    a = a.astype(bool)
    b = b.astype(bool)
    both_correct = np.count_nonzero(a & b, axis=-1)
    a_only = np.count_nonzero(a & ~b, axis=-1)
    b_only = np.count_nonzero(~a & b, axis=-1)
    both_wrong = a.shape[-1] - both_correct - a_only - b_only
    return both_correct, a_only, b_only, both_wrong


def summarize_scores(scores_a, scores_b) -> PairedSummary:
    """Return the paired summary of two aligned score arrays (last axis = items).

    Binary scores (all 0/1) go through :func:`summarize_counts` on their 2x2 counts. Graded
    scores use the moments of ``D = X^A - X^B``: ``delta = mean(D)``,
    ``sd_diff = sqrt(mean((D - delta)^2))`` and the Pearson correlation of the scores;
    ``a_only``/``b_only`` count the items where A/B scored strictly higher.
    """
    a, b = _aligned(scores_a, scores_b)
    if is_binary(a) and is_binary(b):
        return summarize_counts(*counts_from_scores(a, b))
    return summarize_moments(a, b)


def summarize_moments(scores_a, scores_b) -> PairedSummary:
    """Return the paired summary from sample moments, whatever the scores' support.

    This is the graded path of :func:`summarize_scores`; on binary data it equals
    :func:`summarize_counts` up to floating-point rounding.
    """
    a, b = _aligned(scores_a, scores_b)
    n = a.shape[-1]
    d = a - b
    delta = d.mean(axis=-1)
    var_d = np.mean((d - delta[..., None]) ** 2, axis=-1)  # centred before squaring
    scale = np.maximum(np.max(np.abs(a), axis=-1), np.max(np.abs(b), axis=-1))
    var_d = np.where(np.sqrt(var_d) <= ROUNDING_ULPS * np.finfo(float).eps * scale, 0.0, var_d)
    ca = a - a.mean(axis=-1, keepdims=True)
    cb = b - b.mean(axis=-1, keepdims=True)
    denominator = np.sqrt(np.sum(ca * ca, axis=-1) * np.sum(cb * cb, axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.where(denominator > 0, np.sum(ca * cb, axis=-1) / denominator, np.nan)
    sd_diff = np.sqrt(var_d)
    f = _validate.scalar_or_array
    return PairedSummary(
        n_items=f(np.full(delta.shape, n, dtype=np.int64)),
        accuracy_a=f(a.mean(axis=-1)),
        accuracy_b=f(b.mean(axis=-1)),
        delta=f(delta),
        a_only=f(np.count_nonzero(d > 0, axis=-1)),
        b_only=f(np.count_nonzero(d < 0, axis=-1)),
        correlation=f(correlation),
        sd_diff=f(sd_diff),
        se=f(sd_diff / np.sqrt(n)),
        binary=bool(is_binary(a) and is_binary(b)),
    )


def is_binary(scores) -> bool:
    """Return True when every score is exactly 0 or 1."""
    arr = np.asarray(scores)
    if arr.dtype == bool:
        return True
    return bool(np.all((arr == 0) | (arr == 1)))


def _aligned(scores_a, scores_b) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape:
        raise InputError(
            f"scores_a and scores_b must have the same shape (one score per item for each "
            f"model); got {a.shape} and {b.shape}"
        )
    if a.ndim == 0 or a.shape[-1] == 0:
        raise InputError("scores_a and scores_b must hold at least one item")
    for name, arr in (("scores_a", a), ("scores_b", b)):
        if not np.all(np.isfinite(arr)):
            raise InputError(f"{name} contains NaN or infinite scores; drop or fix those items")
    return a, b


def pairwise_counts(scores) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the (K, K) 2x2 counts of every pair of K models from binary scores (N, K).

    One matrix product: ``both_correct = X^T X``; ``a_only[i, j] = sum_n X[n, i] (1 - X[n, j])
    = ones[i] - both_correct[i, j]``, ``b_only = a_only^T``, and ``both_wrong`` the rest.
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2:
        raise InputError(f"scores must be (items, models); got shape {x.shape}")
    if not is_binary(x):
        raise InputError("pairwise_counts needs binary scores (every score 0 or 1)")
    both_correct = x.T @ x
    correct = np.diag(both_correct)
    a_only = correct[:, None] - both_correct
    b_only = a_only.T
    both_wrong = x.shape[0] - both_correct - a_only - b_only
    return (
        both_correct.round().astype(np.int64),
        a_only.round().astype(np.int64),
        b_only.round().astype(np.int64),
        both_wrong.round().astype(np.int64),
    )


def summarize_pairs(scores, first, second, *, chunk: int = 4096) -> PairedSummary:
    """Return the paired summary of the pairs ``(first[p], second[p])`` of scores (N, K).

    Binary scores: the 2x2 counts of every pair from :func:`pairwise_counts` (one matrix
    product), then :func:`summarize_counts`. Graded scores: means and the covariance matrix
    (one matrix product) give ``delta``, ``sd_diff`` and the correlation of every pair; the
    counts of items where one model scored higher are taken in chunks of pairs.
    """
    x = np.asarray(scores, dtype=float)
    i = np.asarray(first, dtype=np.int64)
    j = np.asarray(second, dtype=np.int64)
    if is_binary(x):
        both_correct, a_only, b_only, both_wrong = pairwise_counts(x)
        return summarize_counts(both_correct[i, j], a_only[i, j], b_only[i, j], both_wrong[i, j])
    if not np.all(np.isfinite(x)):
        raise InputError("scores contain NaN or infinite values; drop or fix those items")
    n = x.shape[0]
    mean = x.mean(axis=0)
    centred = x - mean
    cov = centred.T @ centred / n
    var_d = np.maximum(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0)
    # From the covariance matrix the cancellation error is relative to the variances.
    rounding = ROUNDING_ULPS * np.finfo(float).eps * (cov[i, i] + cov[j, j])
    var_d = np.where(var_d <= rounding, 0.0, var_d)
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = np.sqrt(cov[i, i] * cov[j, j])
        correlation = np.where(denominator > 0, cov[i, j] / denominator, np.nan)
    higher = np.empty(i.size, dtype=np.int64)
    lower = np.empty(i.size, dtype=np.int64)
    for start in range(0, i.size, chunk):
        stop = start + chunk
        d = x[:, i[start:stop]] - x[:, j[start:stop]]
        higher[start:stop] = np.count_nonzero(d > 0, axis=0)
        lower[start:stop] = np.count_nonzero(d < 0, axis=0)
    sd = np.sqrt(var_d)
    return PairedSummary(
        n_items=np.full(i.size, n, dtype=np.int64),
        accuracy_a=mean[i],
        accuracy_b=mean[j],
        delta=mean[i] - mean[j],
        a_only=higher,
        b_only=lower,
        correlation=correlation,
        sd_diff=sd,
        se=sd / np.sqrt(n),
        binary=False,
    )
