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
from typing import Any

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate
from evalgap.stats._types import (
    ArrayLike,
    BoolArray,
    CountOrArray,
    FloatArray,
    FloatOrArray,
    IntArray,
)

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
    binary : True when every score is 0 or 1 (from :func:`summarize_pairs`, a boolean
        array per pair when some pairs are binary and others graded).
    variance_a, variance_b : plug-in (divisor N) variance of each model's scores on the
        pair's items; set by :func:`summarize_pairs`, None elsewhere.
    """

    n_items: CountOrArray
    accuracy_a: FloatOrArray
    accuracy_b: FloatOrArray
    delta: FloatOrArray
    a_only: CountOrArray
    b_only: CountOrArray
    correlation: FloatOrArray
    sd_diff: FloatOrArray
    se: FloatOrArray
    binary: bool | BoolArray
    variance_a: FloatOrArray | None = None
    variance_b: FloatOrArray | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the summary as plain Python numbers (lists for arrays)."""
        out = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if value is None:
                continue
            out[name] = np.asarray(value).tolist() if not isinstance(value, bool) else value
        return out


def summarize_counts(
    both_correct: ArrayLike, a_only: ArrayLike, b_only: ArrayLike, both_wrong: ArrayLike
) -> PairedSummary:
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
    cells = _cell_summary(n11, n10, n01, n00)
    f = _validate.scalar_or_array
    return PairedSummary(
        n_items=f(n.astype(np.int64)),
        accuracy_a=f(cells["accuracy_a"]),
        accuracy_b=f(cells["accuracy_b"]),
        delta=f(cells["delta"]),
        a_only=f(n10.astype(np.int64)),
        b_only=f(n01.astype(np.int64)),
        correlation=f(cells["correlation"]),
        sd_diff=f(cells["sd_diff"]),
        se=f(cells["se"]),
        binary=True,
    )


def _cell_summary(
    n11: ArrayLike, n10: ArrayLike, n01: ArrayLike, n00: ArrayLike
) -> dict[str, Any]:
    """The formulas of :func:`summarize_counts` on 2x2 counts (arrays; NaN where N = 0).

    The one home of these formulas: :func:`summarize_pairs` uses it for masked pairs too.
    The phi denominator is a product of four counts, formed in floating point (in int64 it
    overflows above ~110k items).
    """
    f11, f10, f01, f00 = (np.asarray(v, dtype=float) for v in (n11, n10, n01, n00))
    n = f11 + f10 + f01 + f00
    from evalgap.stats.power import gap_and_variance_from_counts  # scipy: only when asked

    delta, variance = gap_and_variance_from_counts(f10, f01, n)
    sd_diff = np.sqrt(variance)
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = (f11 + f10) * (f01 + f00) * (f11 + f01) * (f10 + f00)
        return {
            "accuracy_a": (f11 + f10) / n,
            "accuracy_b": (f11 + f01) / n,
            "delta": delta,
            "correlation": np.where(
                denominator > 0, (f11 * f00 - f10 * f01) / np.sqrt(denominator), np.nan
            ),
            "sd_diff": sd_diff,
            "se": sd_diff / np.sqrt(n),
        }


def counts_from_scores(
    scores_a: ArrayLike, scores_b: ArrayLike
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Return ``(both_correct, a_only, b_only, both_wrong)`` of binary score arrays.

    The last axis runs over items; scores must be 0 or 1.
    """
    a, b = _aligned(scores_a, scores_b)
    if not (is_binary(a) and is_binary(b)):
        raise InputError("counts_from_scores needs binary scores (every score 0 or 1)")
    right_a = a.astype(bool)
    right_b = b.astype(bool)
    both_correct = np.count_nonzero(right_a & right_b, axis=-1)
    a_only = np.count_nonzero(right_a & ~right_b, axis=-1)
    b_only = np.count_nonzero(~right_a & right_b, axis=-1)
    both_wrong = a.shape[-1] - both_correct - a_only - b_only
    return both_correct, a_only, b_only, both_wrong


def summarize_scores(scores_a: ArrayLike, scores_b: ArrayLike) -> PairedSummary:
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


def summarize_moments(scores_a: ArrayLike, scores_b: ArrayLike) -> PairedSummary:
    """Return the paired summary from sample moments, whatever the scores' support.

    This is the graded path of :func:`summarize_scores`; on binary data it equals
    :func:`summarize_counts` up to floating-point rounding.
    """
    a, b = _aligned(scores_a, scores_b)
    n = a.shape[-1]
    m = _moments(a, b, axis=-1)
    delta = m["accuracy_a"] - m["accuracy_b"]
    scale = np.maximum(np.max(np.abs(a), axis=-1), np.max(np.abs(b), axis=-1))
    sd_diff = np.sqrt(without_rounding_noise(m["var_d"], scale))
    d = a - b
    f = _validate.scalar_or_array
    return PairedSummary(
        n_items=f(np.full(delta.shape, n, dtype=np.int64)),
        accuracy_a=f(m["accuracy_a"]),
        accuracy_b=f(m["accuracy_b"]),
        delta=f(delta),
        a_only=f(np.count_nonzero(d > 0, axis=-1)),
        b_only=f(np.count_nonzero(d < 0, axis=-1)),
        correlation=f(m["correlation"]),
        sd_diff=f(sd_diff),
        se=f(sd_diff / np.sqrt(n)),
        binary=bool(is_binary(a) and is_binary(b)),
    )


def is_binary(scores: ArrayLike) -> bool:
    """Return True when every score is exactly 0 or 1."""
    arr = np.asarray(scores)
    if arr.dtype == bool:
        return True
    return bool(np.all((arr == 0) | (arr == 1)))


def _aligned(scores_a: ArrayLike, scores_b: ArrayLike) -> tuple[FloatArray, FloatArray]:
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


def summarize_pairs(
    scores: ArrayLike, first: ArrayLike, second: ArrayLike, *, chunk: int = 4096
) -> PairedSummary:
    """Return the paired summary of the pairs ``(first[p], second[p])`` of scores (N, K).

    ``scores`` may hold NaN where a model has no score: each pair is summarized on the items
    *both* its models scored (a paired design is defined pair by pair), and ``n_items``
    says how many that is. With ``X`` the scores (0 where missing) and ``O`` the observed
    indicators, all pairs' sufficient statistics are matrix products:

    * binary: ``both_correct = X^T X``, ``a_only = X^T O - X^T X``, ``b_only`` its mirror,
      ``n_items = O^T O`` (single-precision BLAS, exact below 2^24 items, float64 above;
      with no missing score only ``X^T X`` and the column sums are needed);
    * graded: per chunk of pairs, the differences on the shared items give ``delta``,
      ``sd_diff`` (two-pass, so a constant difference has exactly no spread), the
      correlation and the counts of items where one model scored higher.

    A pair with no shared item has ``n_items = 0`` and NaN statistics. The returned summary
    also carries each model's plug-in variance over the pair's items (``variance_a``,
    ``variance_b``), which the unpaired sample size needs.
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2:
        raise InputError(f"scores must be (items, models); got shape {x.shape}")
    i = np.asarray(first, dtype=np.int64)
    j = np.asarray(second, dtype=np.int64)
    # the common case, nothing missing (no column sums to NaN), needs no mask and no filled
    # copy of the matrix
    sums = x.sum(axis=0)
    complete = not np.isnan(sums).any() or not np.isnan(x).any()
    observed = np.broadcast_to(np.True_, x.shape) if complete else ~np.isnan(x)
    filled = x if complete else np.where(observed, x, 0.0)
    if not np.isfinite(sums if complete else filled.sum(axis=0)).all() and np.isinf(filled).any():
        raise InputError("scores contain infinite values; drop or fix those items")
    # A pair is binary when both its models' scores are 0/1: one graded column (a model with
    # partial credit) must not turn every other pair graded. Checked a block of items at a
    # time: no (N, K) temporaries.
    column_binary = np.ones(x.shape[1], dtype=bool)
    for start in range(0, x.shape[0], 2048):
        rows = filled[start : start + 2048]
        column_binary &= np.logical_or(rows == 0, rows == 1).all(axis=0)
    pair_binary = column_binary[i] & column_binary[j]
    if pair_binary.all():
        return _summarize_pairs_binary(filled, observed, i, j, complete)
    if not pair_binary.any():
        return _summarize_pairs_graded(filled, observed, i, j, chunk)
    parts = (
        (
            pair_binary,
            _summarize_pairs_binary(filled, observed, i[pair_binary], j[pair_binary], complete),
        ),
        (
            ~pair_binary,
            _summarize_pairs_graded(filled, observed, i[~pair_binary], j[~pair_binary], chunk),
        ),
    )
    merged = {}
    for name in PairedSummary.__dataclass_fields__:
        if name == "binary":
            continue
        first = getattr(parts[0][1], name)
        out = np.empty(i.size, dtype=np.result_type(first, getattr(parts[1][1], name)))
        for mask, summary in parts:
            out[mask] = getattr(summary, name)
        merged[name] = out
    return PairedSummary(**merged, binary=pair_binary)


def _summarize_pairs_binary(
    x: FloatArray, observed: BoolArray, i: IntArray, j: IntArray, complete: bool
) -> PairedSummary:
    # Sums of 0/1 products are integers, and float32 holds every integer below 2^24 exactly
    # whatever order BLAS adds them in: below 2^24 items the single-precision product is
    # exact and twice as fast, so each pair's cells are read straight into integers. With
    # every item observed (``complete``), one product gives all four cells: a model's items
    # right, among the shared ones, are the product's diagonal (x^2 = x on 0/1 scores).
    # The products are summed over blocks of items, each block converted into one reused
    # buffer (no single-precision copy of the whole matrix): whole numbers, so exactly.
    dtype = np.float32 if x.shape[0] < 2**24 else np.float64
    k, block = x.shape[1], 4096
    both = np.zeros((k, k), dtype=dtype)
    scored = np.zeros((k, k), dtype=dtype)  # [k, l]: items k got right among those l scored
    shared = np.zeros((k, k), dtype=dtype)
    rows = np.empty((min(block, x.shape[0]), k), dtype=dtype)
    seen = rows if complete else np.empty_like(rows)
    for start in range(0, x.shape[0], block):
        size = min(start + block, x.shape[0]) - start
        xs, os = rows[:size], seen[:size]
        xs[...] = x[start : start + size]
        both += xs.T @ xs
        if not complete:
            os[...] = observed[start : start + size]
            scored += xs.T @ os
            shared += os.T @ os
    n11 = both[i, j].astype(np.int64)
    if complete:
        right = np.diagonal(both).astype(np.int64)
        n10 = right[i] - n11
        n01 = right[j] - n11
        n = np.full(i.size, x.shape[0], dtype=np.int64)
    else:
        n = shared[i, j].astype(np.int64)
        n10 = scored[i, j].astype(np.int64) - n11
        n01 = scored[j, i].astype(np.int64) - n11
    n00 = n - n11 - n10 - n01
    cells = _cell_summary(n11, n10, n01, n00)
    return PairedSummary(
        n_items=n,
        a_only=n10,
        b_only=n01,
        binary=True,
        variance_a=cells["accuracy_a"] * (1 - cells["accuracy_a"]),
        variance_b=cells["accuracy_b"] * (1 - cells["accuracy_b"]),
        **cells,
    )


def without_rounding_noise(variance: ArrayLike, scale: ArrayLike) -> FloatArray:
    """Return ``variance`` of differences, 0 where it is rounding error of scores of ``scale``.

    A constant difference (a - (a - 0.1)) is constant only up to one rounding per score, so
    its computed variance is ~1e-33, not 0: a standard deviation below ``ROUNDING_ULPS`` units
    in the last place of the scores' scale is none, for graded scores as for binary ones.
    """
    floor = ROUNDING_ULPS * np.finfo(float).eps * np.asarray(scale, dtype=float)
    return np.where(np.sqrt(variance) <= floor, 0.0, variance)


GRADED_BLOCK_CELLS = 1 << 21  # items x pairs per block of the graded all-pairs summary


def _moments(
    a: FloatArray, b: FloatArray, *, axis: int, observed: BoolArray | None = None
) -> dict[str, Any]:
    """Return the paired moments of scores ``a`` and ``b`` along ``axis`` (items).

    The one home of the graded formulas: means, plug-in (divisor N) variances of each model,
    the variance of ``D = X^A - X^B`` from centred scores (so a constant gap has exactly no
    spread) and the Pearson correlation (NaN where a model's scores are constant).
    ``observed`` marks the items a pair has (``a`` and ``b`` hold 0 elsewhere); by default
    every item counts.
    """
    count = a.shape[axis] if observed is None else observed.sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_a = a.sum(axis=axis) / count
        mean_b = b.sum(axis=axis) / count
        ca = a - np.expand_dims(mean_a, axis)
        cb = b - np.expand_dims(mean_b, axis)
        if observed is not None:
            ca, cb = np.where(observed, ca, 0.0), np.where(observed, cb, 0.0)
        d = ca - cb
        var_a = (ca * ca).sum(axis=axis) / count
        var_b = (cb * cb).sum(axis=axis) / count
        denominator = np.sqrt(var_a * var_b)
        correlation = np.where(
            denominator > 0, (ca * cb).sum(axis=axis) / count / denominator, np.nan
        )
        return {
            "n_items": count,
            "accuracy_a": mean_a,
            "accuracy_b": mean_b,
            "variance_a": var_a,
            "variance_b": var_b,
            "var_d": (d * d).sum(axis=axis) / count,
            "correlation": correlation,
        }


def _summarize_pairs_graded(
    x: FloatArray, observed: BoolArray, i: IntArray, j: IntArray, chunk: int
) -> PairedSummary:
    size = i.size
    out = {
        name: np.full(size, np.nan)
        for name in ("accuracy_a", "accuracy_b", "delta", "var_d", "var_a", "var_b", "corr")
    }
    n = np.empty(size, dtype=np.int64)
    higher = np.empty(size, dtype=np.int64)
    lower = np.empty(size, dtype=np.int64)
    # A block's temporaries are (items x pairs) float64: about 16 MB each, so they stay in
    # the allocator's reach (4,096 pairs of 10,000 items were 330 MB apiece, fresh pages from
    # the system every block: more system time than arithmetic). Each pair's sums run over
    # its items in the same order whatever the block's width, so the numbers are the same.
    chunk = max(1, min(chunk, GRADED_BLOCK_CELLS // max(x.shape[0], 1)))
    complete = bool(observed.all())
    for start in range(0, size, chunk):
        sl = slice(start, start + chunk)
        if complete:  # every item shared: the masks would change nothing
            a, b, both = x[:, i[sl]], x[:, j[sl]], None
        else:
            both = observed[:, i[sl]] & observed[:, j[sl]]
            a = np.where(both, x[:, i[sl]], 0.0)
            b = np.where(both, x[:, j[sl]], 0.0)
        m = _moments(a, b, axis=0, observed=both)
        count, mean_a, mean_b = m["n_items"], m["accuracy_a"], m["accuracy_b"]
        var_a, var_b = m["variance_a"], m["variance_b"]
        out["var_d"][sl], out["corr"][sl] = m["var_d"], m["correlation"]
        raw = a - b if both is None else np.where(both, a - b, 0.0)
        n[sl] = count
        higher[sl] = np.count_nonzero(raw > 0, axis=0)
        lower[sl] = np.count_nonzero(raw < 0, axis=0)
        out["accuracy_a"][sl], out["accuracy_b"][sl] = mean_a, mean_b
        out["delta"][sl] = mean_a - mean_b
        out["var_a"][sl], out["var_b"][sl] = var_a, var_b
    sd = np.sqrt(without_rounding_noise(out["var_d"], np.abs(x).max(initial=0.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sd / np.sqrt(n)
    return PairedSummary(
        n_items=n,
        accuracy_a=out["accuracy_a"],
        accuracy_b=out["accuracy_b"],
        delta=out["delta"],
        a_only=higher,
        b_only=lower,
        correlation=out["corr"],
        sd_diff=sd,
        se=se,
        binary=False,
        variance_a=out["var_a"],
        variance_b=out["var_b"],
    )


@dataclass(frozen=True)
class PairSums:
    """Sums over the items both models of each pair scored: rows ``t`` (given models) by
    columns ``o`` (every model).

    Attributes
    ----------
    n : numpy.ndarray
        Shared items, ``M_t M^T``.
    sum_t, sum_o : numpy.ndarray
        The row model's and the column model's score sums on them, ``X_t M^T`` and ``M_t X^T``
        (``sum_o`` is None when not asked for).
    sum_tt, sum_oo : numpy.ndarray
        Their sums of squares, ``X_t^2 M^T`` and ``M_t (X^2)^T`` (``sum_oo`` None when not
        asked for).
    sum_to : numpy.ndarray
        The sum of products, ``X_t X^T``.
    """

    n: np.ndarray
    sum_t: np.ndarray
    sum_o: np.ndarray | None
    sum_tt: np.ndarray
    sum_oo: np.ndarray | None
    sum_to: np.ndarray


def pair_sums(
    scores: np.ndarray,
    observed: np.ndarray,
    rows: np.ndarray | slice,
    *,
    binary: bool,
    both_sides: bool = True,
    columns: np.ndarray | slice = slice(None),
) -> PairSums:
    """Return the pair sums of the models ``rows`` against every model (or the models
    ``columns``): one matrix product per statistic.

    ``scores`` and ``observed`` are (models x items), ``scores`` 0 where unobserved and
    ``observed`` the 0/1 mask. A pair's paired summary (gap, sd of the differences,
    correlation, 2x2 cells) follows from these six sums; summed over blocks of items they
    give the sums over all items, so a store can accumulate them a block at a time. Every
    product is taken in the arrays' own dtype: 0/1 arrays in float32 are exact while a
    block's sums stay below 2^24.

    Parameters
    ----------
    scores, observed : numpy.ndarray
        (K, N) scores (0 where unobserved) and the observed mask, of one dtype.
    rows : numpy.ndarray or slice
        The models whose pairs with every model are wanted.
    binary : bool
        0/1 scores, which are their own squares (two products saved).
    both_sides : bool
        Also the column model's sums (``sum_o``, ``sum_oo``); leave them out when every
        row is computed, where they are the transposes of ``sum_t`` and ``sum_tt``.
    columns : numpy.ndarray or slice
        The column models (every model by default): one block of models against another
        computes that rectangle only, as a distributed audit's workers do.

    Returns
    -------
    PairSums
        (len(rows), len(columns)) arrays.
    """
    x_t, m_t = scores[rows], observed[rows]
    x_o, m_o = scores[columns], observed[columns]
    n = m_t @ m_o.T
    sum_t = x_t @ m_o.T
    sum_tt = sum_t if binary else (x_t * x_t) @ m_o.T
    sum_o = sum_oo = None
    if both_sides:
        sum_o = m_t @ x_o.T
        sum_oo = sum_o if binary else m_t @ (x_o * x_o).T
    return PairSums(n, sum_t, sum_o, sum_tt, sum_oo, x_t @ x_o.T)


def pair_sums_observed(
    scores: np.ndarray, rows: np.ndarray | slice, columns: np.ndarray | slice = slice(None)
) -> PairSums:
    """Return :func:`pair_sums` of 0/1 scores every model has on every item: one product.

    With nothing unobserved, ``n`` is the number of items, ``sum_t`` and ``sum_o`` are the
    models' totals, and only ``X_t X^T`` is a product -- symmetric (half the work) when
    ``rows`` is ``slice(None)``, every model in order. Exact in float32 while the sums stay
    below 2^24, as :func:`pair_sums`.

    Parameters
    ----------
    scores : numpy.ndarray
        (K, N) 0/1 scores, none unobserved.
    rows : numpy.ndarray or slice
        The models whose pairs with every model are wanted.
    columns : numpy.ndarray or slice
        The column models (every model by default), as :func:`pair_sums` takes them.

    Returns
    -------
    PairSums
        (len(rows), len(columns)) arrays (``n``, ``sum_t`` and ``sum_o`` broadcast,
        read-only).
    """
    totals = scores.sum(axis=1)
    every_column = isinstance(columns, slice) and columns == slice(None)
    every = every_column and isinstance(rows, slice) and rows == slice(None)
    x_t = scores if every else scores[rows]
    x_o = scores if every_column else scores[columns]
    shape = (x_t.shape[0], x_o.shape[0])
    n = np.broadcast_to(np.asarray(scores.shape[1], dtype=scores.dtype), shape)
    sum_t = np.broadcast_to(totals[rows][:, None], shape)
    sum_o = np.broadcast_to(totals[columns][None, :], shape)
    return PairSums(n, sum_t, sum_o, sum_t, sum_o, x_t @ x_o.T)


def pair_sums_from_codes(codes: np.ndarray, rows: np.ndarray) -> PairSums:
    """Return :func:`pair_sums` of binary scores held as int8 codes (-1 unobserved, 0, 1),
    counted without a float copy (for a few rows against many models).

    Parameters
    ----------
    codes : numpy.ndarray
        (K, N) int8 codes.
    rows : numpy.ndarray
        The models whose pairs with every model are wanted.

    Returns
    -------
    PairSums
        (len(rows), K) integer arrays; squares equal the sums (0/1 scores).
    """
    observed, correct = codes >= 0, codes == 1

    def counts(left: BoolArray, right: BoolArray) -> IntArray:
        return np.stack([np.count_nonzero(left[t] & right, axis=1) for t in rows])

    n = counts(observed, observed)
    sum_t = counts(correct, observed)  # the row model's correct answers, shared items
    sum_o = counts(observed, correct)  # the column model's
    return PairSums(n, sum_t, sum_o, sum_t, sum_o, counts(correct, correct))


def counts_from_sums(
    n: CountOrArray, sum_a: CountOrArray, sum_b: CountOrArray, sum_ab: CountOrArray
) -> tuple[float | np.ndarray, float | np.ndarray, float | np.ndarray, float | np.ndarray]:
    """Return a binary pair's 2x2 counts from its sums over the shared items.

    With 0/1 scores ``sum_ab`` counts the items both got right, so ``both_correct = sum_ab``,
    ``a_only = sum_a - sum_ab``, ``b_only = sum_b - sum_ab`` and ``both_wrong = n - sum_a -
    sum_b + sum_ab``. Broadcasts over pairs.

    Parameters
    ----------
    n, sum_a, sum_b, sum_ab : array_like
        Shared items, each model's score sum on them, and the sum of products
        (:func:`pair_sums`).

    Returns
    -------
    tuple of numpy.ndarray
        ``(both_correct, a_only, b_only, both_wrong)``.
    """
    return sum_ab, sum_a - sum_ab, sum_b - sum_ab, n - sum_a - sum_b + sum_ab


def difference_sums(
    sum_a: FloatOrArray,
    sum_b: FloatOrArray,
    sum_ab: FloatOrArray,
    sum_a2: FloatOrArray,
    sum_b2: FloatOrArray,
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the sum and the sum of squares of a pair's per-item differences ``D = A - B``
    from its sums over the shared items: ``sum D = sum_a - sum_b`` and
    ``sum D^2 = sum_a2 - 2 sum_ab + sum_b2``. Broadcasts over pairs.

    Parameters
    ----------
    sum_a, sum_b, sum_ab, sum_a2, sum_b2 : array_like
        The pair's sums (:func:`pair_sums`).

    Returns
    -------
    tuple of numpy.ndarray
        ``(sum_d, sum_d2)``.
    """
    return sum_a - sum_b, sum_a2 - 2 * sum_ab + sum_b2
