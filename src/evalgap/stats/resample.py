"""The one resampling engine: paired bootstrap and sign-flip permutation draws.

Reproducibility. Resamples are generated in fixed blocks, each from its own stream spawned
from one :class:`numpy.random.SeedSequence`; the block layout depends only on the data size,
so results depend on ``seed`` alone, never on how many threads run the blocks.

Fast exact paths (STYLE: binary data has closed-form resampling):

* the bootstrap of a binary pair is a multinomial draw on its cells: the resampled number of
  discordant items is ``Binomial(N, (b + c)/N)`` and, given it, the resampled ``b`` is
  ``Binomial(b + c, b / (b + c))`` (:func:`bootstrap_counts`);
* more generally a paired difference with few distinct values is bootstrapped by a
  multinomial draw over those values (:func:`bootstrap_means`);
* the sign-flip null of a binary pair is ``2 Binomial(b + c, 1/2) - (b + c)``.

The bootstrap *test* of a binary pair needs no draws at all: its p-value and percentile
interval are sums over that multinomial law (:func:`binary_bootstrap_p_value`,
:func:`binary_bootstrap_interval`, :func:`binary_bootstrap_cdf`), exact, seed-free and
vectorized over arrays of pairs, with work bounded independently of N.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats import _binomial as binomial
from evalgap.stats import _validate
from evalgap.stats._types import (
    Alternative,
    ArrayLike,
    BoolArray,
    FloatArray,
    FloatOrArray,
    IntArray,
    Seed,
)

# A paired difference with at most this many distinct values is bootstrapped by a multinomial
# draw over the values instead of by resampling items.
MAX_DISTINCT_FOR_MULTINOMIAL = 256
# Widest support of a binary pair's discordant total drawn by its histogram (a few MB).
MAX_HISTOGRAM_SUPPORT = 2**16
# Elements drawn per block when resampling items. A block costs 12 bytes per element (an
# int32 index and the float64 value it picks): 2^20 elements are 12 MiB, so the blocks of two
# worker threads stay inside a 32 MiB last-level cache, where 2^22 (48 MiB a block) spilled
# to memory. Measured by benchmarks/bench_block.py (graded bootstrap of 100,000 items, 2,000
# draws: 0.85 s at 2^20, 0.96 s at 2^22; 2^18 to 2^20 are within noise of each other). It is a
# constant, not read from the machine: the block layout fixes the random streams, and results
# must depend on the seed alone.
BLOCK_ELEMENTS = 2**20


def seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """Return a SeedSequence from an int, None, a SeedSequence or a Generator."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(
            "{seed!b}"
            + escape(
                f" must be a non-negative integer, a Generator or None; got {_validate.show(seed)}"
            ),
            param="seed",
        )
    return np.random.SeedSequence(int(seed))


# Above this many items scipy's binomial quantiles fail to converge (a RuntimeWarning and no
# answer); the Bernstein bound alone then limits the support of the discordant totals.
QUANTILE_MAX_N = 2**40


# Purposes of the child streams derived from one seed (see child_seed). Codes 1 and 2 are the
# streams compare has always used; the others are the audit's per-task steps.
PURPOSES = {
    "required_n_interval": 1,
    "sign_flip": 2,
    "cluster_bootstrap": 3,
    "alternative_clusters": 4,
    "trajectory": 5,
    "ranks": 6,
    "rank_coverage": 7,
    "task_rank_coverage": 8,
    "adaptive_study": 9,
    "estimate_study": 10,
    "gold_study": 11,
    "configuration_study": 12,
}


def child_seed(seed: Seed, purpose: str, key: tuple[int, ...] = ()) -> np.random.SeedSequence:
    """Return the random stream of one resampling ``purpose`` derived from ``seed``.

    The one place where a job's secondary streams come from (STYLE: results depend on the
    seed alone). ``purpose="bootstrap"`` (the main test of a comparison) is the seed's own
    stream; every other purpose of :data:`PURPOSES` gets ``SeedSequence([seed, code, *key])``,
    so purposes never share a stream. The stream does **not** depend on which pair it serves:
    every pair of an audit draws its N* interval (or graded bootstrap, or item order) from
    the same ``(seed, purpose)`` stream, restarted for each pair, so a pair's numbers equal
    those ``compare`` gives for it alone and do not change when other pairs are added,
    dropped or reordered (common random numbers). ``key`` (whole numbers) separates steps
    that must be independent of each other, such as the cluster bootstraps of different
    tasks whose unresolved counts are summed. ``seed=None`` gives fresh entropy; a
    SeedSequence or Generator is used as the root.

    Examples
    --------
    >>> child_seed(0, "required_n_interval").entropy
    [0, 1]
    >>> child_seed(7, "bootstrap").entropy
    7
    """
    if purpose == "bootstrap":
        return seed_sequence(seed)
    if purpose not in PURPOSES:
        raise InputError(f"purpose must be 'bootstrap' or one of {', '.join(PURPOSES)}")
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (np.random.SeedSequence, np.random.Generator)):
        root = seed_sequence(seed)
        return np.random.SeedSequence(root.entropy, spawn_key=(PURPOSES[purpose], *key))
    seed_sequence(seed)  # validates
    return np.random.SeedSequence([int(seed), PURPOSES[purpose], *(int(k) for k in key)])


def restart(stream: np.random.SeedSequence) -> np.random.SeedSequence:
    """Return a fresh copy of ``stream`` (spawning children from it does not touch the copy).

    Per-pair loops restart the same ``(seed, purpose)`` stream for every pair this way.
    """
    return np.random.SeedSequence(
        stream.entropy, spawn_key=stream.spawn_key, pool_size=stream.pool_size
    )


def bootstrap_counts(
    a_only: ArrayLike, b_only: ArrayLike, n_items: ArrayLike, n_resamples: int, seed: Seed = None
) -> tuple[IntArray, IntArray]:
    """Return bootstrap draws ``(a_only*, b_only*)`` of binary pairs, shape ``(..., B)``.

    Resampling N items with replacement from a 2x2 table is a multinomial draw on its four
    cells; only the discordant cells matter for ``delta`` and ``sd_diff``. The resampled
    discordant total is ``Binomial(N, (b + c)/N)`` and, given it, the resampled ``b`` is
    ``Binomial(total, b / (b + c))``. Inputs broadcast over pairs (trials of a simulation):
    one generator from ``seed`` draws every pair in turn. For a pair's own stream, whatever
    the other pairs, use :func:`bootstrap_counts_by_pair`; a single pair gets that path.
    """
    n_resamples = _validate.resamples(n_resamples)
    b = np.asarray(a_only, dtype=np.int64)
    c = np.asarray(b_only, dtype=np.int64)
    n = np.asarray(n_items, dtype=np.int64)
    b, c, n = np.broadcast_arrays(b, c, n)
    if b.ndim == 0:
        b_star, c_star = bootstrap_counts_by_pair(b[None], c[None], n[None], n_resamples, seed)
        return b_star[0], c_star[0]
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    shape = (*b.shape, n_resamples)
    disc = b + c
    p_disc = np.where(n > 0, disc / np.maximum(n, 1), 0.0)
    disc_star = rng.binomial(n[..., None], p_disc[..., None], size=shape)
    p_b = np.where(disc > 0, b / np.maximum(disc, 1), 0.5)
    b_star = rng.binomial(disc_star, p_b[..., None], size=shape)
    return b_star, disc_star - b_star


def bootstrap_counts_by_pair(
    a_only: ArrayLike, b_only: ArrayLike, n_items: ArrayLike, n_resamples: int, seed: Seed = None
) -> tuple[IntArray, IntArray]:
    """Return bootstrap draws ``(a_only*, b_only*)`` of P binary pairs, each ``(P, B)``.

    Every pair draws from its own generator started from the same ``seed``, so a pair's draws
    depend on its counts and the seed only, never on the other pairs (see
    :func:`child_seed`). Per pair the draws come from their histogram: the counts of each
    discordant total are one multinomial draw over its support (cut where the binomial mass
    is below 1e-30), then one constant-parameter binomial per total; the B draws are
    exchangeable, so they are returned grouped by total (their order carries no
    information). The supports and their probabilities are computed for all pairs at once.
    """
    n_resamples = _validate.resamples(n_resamples)
    b = np.asarray(a_only, dtype=np.int64).ravel()
    c = np.asarray(b_only, dtype=np.int64).ravel()
    n = np.asarray(n_items, dtype=np.int64).ravel()
    root = seed_sequence(seed)
    disc = b + c
    inner = (disc > 0) & (disc < n)
    low = np.zeros(b.size, dtype=np.int64)
    high = np.zeros(b.size, dtype=np.int64)
    if inner.any():
        nn, psi = n[inner], disc[inner] / n[inner]
        # scipy's binomial quantiles fail for very large n (isf returns n, a support of size
        # N/2 and memory proportional to N): the Bernstein bound caps the support at
        # O(sqrt(N)) values whatever N; where the quantiles are right they are tighter.
        half = _binomial_halfwidth(nn, psi, 1e-30)
        lo = np.maximum(np.floor(nn * psi - half), 0)
        hi = np.minimum(np.ceil(nn * psi + half), nn)
        # beyond QUANTILE_MAX_N, boost's quantile search gives up with a warning
        small = nn <= QUANTILE_MAX_N
        if small.any():
            lo[small] = np.maximum(binomial.ppf(1e-30, nn[small], psi[small]), lo[small])
            hi[small] = np.minimum(binomial.isf(1e-30, nn[small], psi[small]), hi[small])
        low[inner] = lo.astype(np.int64)
        high[inner] = hi.astype(np.int64)
    histogram = inner & (high - low < MAX_HISTOGRAM_SUPPORT)
    width = np.where(histogram, high - low + 1, 0)
    offsets = np.concatenate([[0], np.cumsum(width)])
    support = np.repeat(low - offsets[:-1], width) + np.arange(offsets[-1])
    pair_of = np.repeat(np.arange(b.size), width)
    pmf = binomial.pmf(support, n[pair_of], (disc / np.maximum(n, 1))[pair_of])
    b_out = np.zeros((b.size, n_resamples), dtype=np.int64)
    c_out = np.zeros((b.size, n_resamples), dtype=np.int64)
    for k in np.flatnonzero(disc > 0):
        rng = np.random.Generator(np.random.PCG64(root))
        if disc[k] == n[k]:
            totals, counts = np.array([n[k]]), np.array([n_resamples])
        elif not histogram[k]:
            # Millions of discordant items: drawing the totals directly is cheaper than
            # a histogram over their support (the same law, another use of the stream).
            totals, counts = np.unique(
                rng.binomial(n[k], disc[k] / n[k], n_resamples), return_counts=True
            )
        else:
            mass = pmf[offsets[k] : offsets[k + 1]]
            counts = rng.multinomial(n_resamples, mass / mass.sum())
            present = np.flatnonzero(counts)
            totals, counts = support[offsets[k] : offsets[k + 1]][present], counts[present]
        # One call over the repeated totals draws exactly what a call per total would.
        drawn_totals = np.repeat(totals, counts)
        b_out[k] = rng.binomial(drawn_totals, b[k] / disc[k])
        c_out[k] = drawn_totals - b_out[k]
    return b_out, c_out


@overload
def bootstrap_means(
    d: ArrayLike,
    n_resamples: int,
    seed: Seed = ...,
    *,
    moments: Literal[False] = ...,
    workers: int | None = ...,
) -> FloatArray: ...
@overload
def bootstrap_means(
    d: ArrayLike,
    n_resamples: int,
    seed: Seed = ...,
    *,
    moments: Literal[True],
    workers: int | None = ...,
) -> tuple[FloatArray, FloatArray]: ...
def bootstrap_means(
    d: ArrayLike,
    n_resamples: int,
    seed: Seed = None,
    *,
    moments: bool = False,
    workers: int | None = None,
) -> FloatArray | tuple[FloatArray, FloatArray]:
    """Return ``n_resamples`` bootstrap means of the 1-D array ``d`` (items resampled).

    Each draw is ``mean(d[I])`` with ``I`` N indices drawn uniformly with replacement
    (Definition 2). When ``d`` has at most ``MAX_DISTINCT_FOR_MULTINOMIAL`` distinct values
    the draw is the exactly equivalent multinomial count over those values. Otherwise items
    are resampled in fixed blocks spread over ``workers`` threads (default: the CPU count).
    With ``moments=True`` returns ``(means, mean_squares)``: the resampled first and second
    raw moments, from which a resampled variance follows.
    """
    n_resamples = _validate.resamples(n_resamples)
    d = np.asarray(d, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise InputError("bootstrap_means needs a non-empty 1-D array")
    n = d.size
    values, freq = np.unique(d, return_counts=True)
    root = seed_sequence(seed)
    if values.size <= MAX_DISTINCT_FOR_MULTINOMIAL:
        rng = np.random.Generator(np.random.PCG64(root))
        draws = rng.multinomial(n, freq / n, size=n_resamples)
        if moments:
            return draws @ values / n, draws @ (values * values) / n
        return draws @ values / n
    rows = max(1, BLOCK_ELEMENTS // n)
    starts = range(0, n_resamples, rows)
    streams = root.spawn(len(starts))

    def block(i_start: tuple[int, int]) -> FloatArray:
        i, start = i_start
        rng = np.random.Generator(np.random.PCG64(streams[i]))
        idx = rng.integers(0, n, size=(min(rows, n_resamples - start), n), dtype=np.int32)
        picked = np.take(d, idx)
        if moments:
            return np.stack([picked.sum(axis=1) / n, (picked * picked).sum(axis=1) / n])
        return picked.sum(axis=1) / n

    if moments:
        both = _run_blocks(block, list(enumerate(starts)), workers, axis=1)
        return both[0], both[1]
    return _run_blocks(block, list(enumerate(starts)), workers)


def sign_flip_sums(
    d: ArrayLike, n_resamples: int, seed: Seed = None, *, workers: int | None = None
) -> np.ndarray:
    """Return ``n_resamples`` draws of ``sum(s_i d_i)`` with independent random signs ``s_i``.

    Two exact paths. When ``|d|`` takes at most ``MAX_DISTINCT_FOR_MULTINOMIAL`` distinct
    non-zero values (binary scores, run averages), the items sharing a value ``v`` contribute
    ``v (2 B_v - n_v)`` with ``B_v ~ Binomial(n_v, 1/2)``: one binomial per value and draw.
    Otherwise signs are random bits, 8 items a byte: a table holds each byte's 256 possible
    partial sums ``sum_{bit k set} d_{8g+k}``, so a draw is ``2 sum_g table[g, byte_g] - sum(d)``.
    """
    n_resamples = _validate.resamples(n_resamples)
    d = np.asarray(d, dtype=float).ravel()
    root = seed_sequence(seed)
    magnitudes, counts = np.unique(np.abs(d[d != 0]), return_counts=True)
    if magnitudes.size <= MAX_DISTINCT_FOR_MULTINOMIAL:
        rng = np.random.Generator(np.random.PCG64(root))
        if magnitudes.size == 0:
            return np.zeros(n_resamples)
        plus = rng.binomial(counts, 0.5, size=(n_resamples, counts.size))
        return (2.0 * plus - counts) @ magnitudes
    n_bytes = (d.size + 7) // 8
    padded = np.zeros(n_bytes * 8)
    padded[: d.size] = d
    bits = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1
    table = padded.reshape(n_bytes, 8) @ bits.T.astype(float)  # (n_bytes, 256)
    total = d.sum()
    rows = max(1, BLOCK_ELEMENTS // n_bytes)
    starts = range(0, n_resamples, rows)
    streams = root.spawn(len(starts))
    group = np.arange(n_bytes)

    def block(i_start: tuple[int, int]) -> FloatArray:
        i, start = i_start
        rng = np.random.Generator(np.random.PCG64(streams[i]))
        raw = rng.integers(0, 256, size=(min(rows, n_resamples - start), n_bytes), dtype=np.uint8)
        return 2.0 * table[group, raw].sum(axis=1) - total

    return _run_blocks(block, list(enumerate(starts)), workers)


def sign_flip_sums_binary(
    n_discordant: ArrayLike, n_resamples: int, seed: Seed = None
) -> np.ndarray:
    """Return sign-flip draws of ``b - c`` for binary pairs: ``2 X - n``, ``X ~ Bin(n, 1/2)``.

    ``n_discordant`` broadcasts; the result has shape ``(..., n_resamples)``.
    """
    n_resamples = _validate.resamples(n_resamples)
    n = np.asarray(n_discordant, dtype=np.int64)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    x = rng.binomial(n[..., None], 0.5, size=(*n.shape, n_resamples))
    return 2 * x - n[..., None]


@overload
def quantile(draws: ArrayLike, q: float, axis: int = ...) -> FloatOrArray: ...
@overload
def quantile(draws: ArrayLike, q: Sequence[float], axis: int = ...) -> FloatArray: ...
def quantile(draws: ArrayLike, q: float | Sequence[float], axis: int = -1) -> FloatOrArray:
    """Return the ``q`` quantiles of draws (linear interpolation, NaN draws left out).

    Infinite draws (an N* with no gap, say) give infinite quantiles where the quantile falls
    among them: NumPy interpolates two equal infinities as ``inf - inf``, a NaN with a
    warning. A slice of NaN draws only gives NaN, without a warning.
    """
    import warnings

    x = np.asarray(draws, dtype=float)
    # nanquantile takes the quantile of each slice in a Python loop (the NaN-free values,
    # then quantile's own arithmetic); without NaN, quantile does the same on all at once
    of = np.nanquantile if np.isnan(x).any() else np.quantile
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is NaN, as said
        out = of(x, q, axis=axis)
        if np.isinf(x).any():
            big = np.finfo(float).max / 4  # no overflow in the interpolation
            clipped = of(np.clip(x, -big, big), q, axis=axis)
            among = np.isnan(out) & (np.abs(clipped) >= big)
            out = np.where(among, np.copysign(np.inf, clipped), out)
    return out


def percentile_interval(
    draws: ArrayLike, alpha: float, axis: int = -1
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the ``(alpha/2, 1 - alpha/2)`` percentile interval of bootstrap draws."""
    low, high = np.asarray(quantile(draws, [alpha / 2.0, 1.0 - alpha / 2.0], axis=axis))
    return low, high


def bootstrap_p_value(
    draws: ArrayLike, axis: int = -1, *, alternative: Alternative = "two-sided"
) -> FloatOrArray:
    """Return the percentile-bootstrap p-value of H0: mean(D) = 0 (Definition 2).

    Two-sided ``p = min(1, 2 min(P*(D* <= 0), P*(D* >= 0)))``: the smallest alpha at which 0
    falls outside the percentile interval, so ``p < alpha`` exactly when the test rejects.
    ``"greater"`` (H1: A better) gives ``P*(D* <= 0)``, ``"less"`` gives ``P*(D* >= 0)``.
    """
    draws = np.asarray(draws)
    below = np.mean(draws <= 0, axis=axis)
    above = np.mean(draws >= 0, axis=axis)
    if alternative == "greater":
        return np.minimum(1.0, below)
    if alternative == "less":
        return np.minimum(1.0, above)
    return np.minimum(1.0, 2.0 * np.minimum(below, above))


def bootstrap_p_value_se(
    draws: ArrayLike, axis: int = -1, *, alternative: Alternative = "two-sided"
) -> FloatOrArray:
    """Return the Monte Carlo standard error of :func:`bootstrap_p_value` (at most 1).

    The binomial standard error of the estimated tail share, ``sqrt(t (1 - t) / B)``, scaled
    as the p-value is (times 2 for the two-sided p, whose tail is the smaller one).
    """
    draws = np.asarray(draws)
    below = np.mean(draws <= 0, axis=axis)
    above = np.mean(draws >= 0, axis=axis)
    if alternative == "two-sided":
        tail, factor = np.minimum(below, above), 2.0
    else:
        tail = np.minimum(1.0, below if alternative == "greater" else above)
        factor = 1.0
    return np.minimum(factor * monte_carlo_se(tail, draws.shape[axis]), 1.0)


def monte_carlo_se(rate: ArrayLike, n_draws: ArrayLike) -> FloatOrArray:
    """Return the binomial standard error ``sqrt(r (1 - r) / M)`` of a share r of M draws.

    The Monte Carlo error of a resampling p-value and of a simulated rejection rate.
    """
    rate = np.asarray(rate, dtype=float)
    return _validate.scalar_or_array(np.sqrt(np.maximum(rate * (1 - rate), 0.0) / n_draws))


@dataclass(frozen=True)
class PairedBootstrap:
    """The Monte Carlo paired bootstrap of graded pairs, one entry per pair (Definition 2)."""

    p_value: FloatOrArray
    monte_carlo_se: FloatOrArray
    low: FloatOrArray
    high: FloatOrArray
    n_resamples: int


def paired_bootstrap(
    differences: ArrayLike | Sequence[ArrayLike],
    n_resamples: int,
    seed: Seed = None,
    *,
    alpha: float = 0.05,
    alternative: Alternative = "two-sided",
) -> PairedBootstrap:
    """Return the paired percentile bootstrap of each pair's per-item differences.

    ``differences`` is one 1-D array of ``D_i = X_i^A - X_i^B`` or a sequence of them (one per
    pair, lengths may differ). Each pair's ``n_resamples`` means come from
    :func:`bootstrap_means` on the stream ``child_seed(seed, "bootstrap")``, restarted for
    every pair, so a pair's p-value and interval depend on its own differences and the seed
    only: ``compare`` and ``audit`` give the same numbers for the same pair. The p-value is
    :func:`bootstrap_p_value`, its Monte Carlo error :func:`bootstrap_p_value_se` and the
    interval :func:`percentile_interval` at level ``1 - alpha``.
    """
    _validate.alternative(alternative)
    single = not isinstance(differences, (list, tuple))
    pairs: list[Any] = (
        list(differences) if isinstance(differences, (list, tuple)) else [differences]
    )
    out = np.full((4, len(pairs)), np.nan)
    stream = child_seed(seed, "bootstrap")
    for k, d in enumerate(pairs):
        means = bootstrap_means(d, n_resamples, restart(stream))
        out[0, k] = bootstrap_p_value(means, alternative=alternative)
        out[1, k] = bootstrap_p_value_se(means, alternative=alternative)
        out[2, k], out[3, k] = percentile_interval(means, alpha)
    f = (lambda x: float(x[0])) if single else (lambda x: x)
    return PairedBootstrap(f(out[0]), f(out[1]), f(out[2]), f(out[3]), int(n_resamples))


# --- exact bootstrap of binary pairs ---------------------------------------------------------
# The discordant total's support is cut where the Bernstein bound on its tail mass falls below
# this: what is left out cannot move a probability by more than 1e-40.
EXACT_TAIL_MASS = 1e-40
# Points per pair at which the sum over the discordant total is taken; wider supports are
# summed on every k-th value of each parity (see binary_bootstrap_cdf).
EXACT_MAX_POINTS = 256
# Pairs x points evaluated at once: bounds memory whatever the number of pairs.
EXACT_BLOCK_ELEMENTS = 2**20


def binary_bootstrap_cdf(
    a_only: ArrayLike,
    b_only: ArrayLike,
    n_items: ArrayLike,
    threshold: ArrayLike,
    *,
    upper: bool = False,
) -> FloatOrArray:
    """Return the exact paired-bootstrap ``P*(b* - c* <= t)`` (or ``>= t``) of binary pairs.

    Resampling the N items of a 2x2 table is a multinomial draw on its cells; the resampled
    discordant total is ``S ~ Binomial(N, (b + c)/N)`` and, given ``S = s``, the resampled
    ``b* ~ Binomial(s, b/(b + c))``, so with ``D* = b* - c* = 2 b* - s``::

        P*(D* <= t) = sum_s P(S = s) P(b* <= floor((s + t)/2) | s)
        P*(D* >= t) = sum_s P(S = s) P(b* >= ceil((s + t)/2) | s)

    each conditional term a regularized incomplete beta function. ``delta* = D*/N``, so
    ``threshold`` (``t``, an integer, broadcasting with the counts) is in units of items.
    Work per pair is bounded whatever N: the sum runs over ``s`` within the Bernstein bound
    of ``E S`` that leaves out mass below ``EXACT_TAIL_MASS``; when that range has more than
    ``EXACT_MAX_POINTS`` values, every k-th value of each parity is taken with weight k. The
    summand is then a smooth Gaussian-shaped function sampled at a step at most a quarter of
    its standard deviation, for which this (trapezoidal) sum converges faster than any
    power of the step; against the full sum it agrees to about 1e-13 relative (tests). The
    weights are normalised to sum to 1.
    """
    b, c, n = _binary_pair_arrays(a_only, b_only, n_items)
    t = _validate.numbers(threshold, "threshold")
    return _tails(b, c, n, t, (upper,))[0]


def _tails(
    b: FloatArray, c: FloatArray, n: FloatArray, t: FloatOrArray, sides: tuple[bool, ...]
) -> list[FloatOrArray]:
    """P*(D* <= t) (side False) and/or P*(D* >= t) (side True), one grid per block of pairs."""
    b, c, n, t = np.broadcast_arrays(b, c, n, t)
    outs = [np.empty(b.shape) for _ in sides]
    flat = [x.ravel() for x in (b, c, n, t)]
    step = max(1, EXACT_BLOCK_ELEMENTS // EXACT_MAX_POINTS)
    for start in range(0, flat[0].size, step):
        part = slice(start, start + step)
        grid, weights, share = _discordant_grid(flat[0][part], flat[1][part], flat[2][part])
        for out, side in zip(outs, sides, strict=True):
            out.ravel()[part] = _conditional_sum(grid, weights, share, flat[3][part][:, None], side)
    return [_validate.scalar_or_array(np.clip(out, 0.0, 1.0)) for out in outs]


def binary_bootstrap_p_value(
    a_only: ArrayLike, b_only: ArrayLike, n_items: ArrayLike, alternative: Alternative = "two-sided"
) -> FloatOrArray:
    """Return the exact percentile-bootstrap p-value of binary pairs (Definition 2).

    Two-sided ``p = min(1, 2 min(P*(delta* <= 0), P*(delta* >= 0)))``; a resampled gap of
    exactly 0 counts in both tails, i.e. toward "the interval contains 0", so ``p < alpha``
    exactly when 0 lies outside the exact percentile interval of
    :func:`binary_bootstrap_interval`. ``"greater"`` (H1: A better) gives
    ``P*(delta* <= 0)``, ``"less"`` gives ``P*(delta* >= 0)``. Arrays broadcast.

    Examples
    --------
    The HellaSwag pair of Table 6 (b = 295, c = 249, N = 10,042):

    >>> round(float(binary_bootstrap_p_value(295, 249, 10042)), 4)
    0.0509
    """
    _validate.alternative(alternative)
    b, c, n = _binary_pair_arrays(a_only, b_only, n_items)
    if alternative == "greater":
        return _tails(b, c, n, 0.0, (False,))[0]
    if alternative == "less":
        return _tails(b, c, n, 0.0, (True,))[0]
    below, above = _tails(b, c, n, 0.0, (False, True))
    return _validate.scalar_or_array(np.minimum(1.0, 2.0 * np.minimum(below, above)))


def binary_bootstrap_interval(
    a_only: ArrayLike, b_only: ArrayLike, n_items: ArrayLike, alpha: float = 0.05
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the exact ``1 - alpha`` percentile-bootstrap interval of binary gaps ``delta``.

    ``low`` is the smallest lattice value ``x = d/N`` with ``P*(delta* <= x) >= alpha/2`` and
    ``high`` the largest with ``P*(delta* >= x) >= alpha/2``, so the interval contains 0
    exactly when :func:`binary_bootstrap_p_value` is at least alpha. Arrays broadcast.
    """
    level = _validate.probability(alpha, "alpha")
    b, c, n = _binary_pair_arrays(a_only, b_only, n_items)
    b, c, n, tail = np.broadcast_arrays(b, c, n, level / 2.0)
    low = _lattice_quantile(b, c, n, tail, upper=False)
    high = _lattice_quantile(b, c, n, tail, upper=True)
    f = _validate.scalar_or_array
    return f(low / n + 0.0), f(high / n + 0.0)  # + 0.0: a zero bound is never -0.0


def _binary_pair_arrays(
    a_only: ArrayLike, b_only: ArrayLike, n_items: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    b = _validate.counts(a_only, "a_only")
    c = _validate.counts(b_only, "b_only")
    n = _validate.counts(n_items, "n_items")
    if np.any(b + c > n) or np.any(n < 1):
        raise InputError(
            "{n_items!b}" + escape(" must be at least 1 and at least a_only + b_only"),
            param="n_items",
        )
    return b, c, n


def _binomial_halfwidth(
    n: np.ndarray, p: np.ndarray, tail_mass: float, bound: float = 1.0
) -> FloatArray:
    """Return t with ``P(|X - E X| >= t) <= tail_mass`` for a sum of n terms (Bernstein).

    Each term lies within ``bound`` of its mean and has variance ``p (1 - p)``.
    """
    log_term = np.log(2.0 / tail_mass)
    var = n * p * (1.0 - p)
    first = bound * log_term / 3.0
    return first + np.sqrt(first * first + 2.0 * log_term * var)


def _discordant_grid(
    b: FloatArray, c: FloatArray, n: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return the summation points of S per pair, their weights and ``b/(b + c)``."""
    disc = b + c
    psi = disc / n
    half = _binomial_halfwidth(n, psi, EXACT_TAIL_MASS)
    low = np.maximum(0.0, np.floor(n * psi - half))
    high = np.minimum(n, np.ceil(n * psi + half))
    width = high - low + 1
    stride = np.maximum(1.0, np.ceil(width / EXACT_MAX_POINTS))
    points = int(min(EXACT_MAX_POINTS, width.max())) + 2
    j = np.arange(points)
    grid = low[:, None] + (j % 2) + 2 * stride[:, None] * (j // 2)
    # With stride 1 both parities advance by 2 and interleave into every integer.
    valid = grid <= high[:, None]
    grid = np.where(valid, grid, low[:, None])
    weights = np.where(valid, binomial.pmf(grid, n[:, None], psi[:, None]), 0.0)
    weights = weights * stride[:, None]
    weights /= weights.sum(axis=1, keepdims=True)
    share = np.where(disc > 0, b / np.maximum(disc, 1), 0.5)
    return grid, weights, share


def _conditional_sum(
    grid: FloatArray, weights: FloatArray, share: FloatArray, t: FloatArray, upper: bool
) -> FloatArray:
    """Sum over S of P(S = s) P(b* <= floor((s+t)/2) | s) (or P(b* >= ceil((s+t)/2) | s))."""
    r = share[:, None]
    s = grid
    if upper:
        m = np.ceil((s + t) / 2.0)  # P(b* >= m) = I_r(m, s - m + 1)
        inside = (m > 0) & (m <= s)
        with np.errstate(invalid="ignore", divide="ignore"):
            tail = special.betainc(np.where(inside, m, 1.0), np.where(inside, s - m + 1, 1.0), r)
        cond = np.where(m <= 0, 1.0, np.where(m > s, 0.0, tail))
    else:
        k = np.floor((s + t) / 2.0)  # P(b* <= k) = I_{1-r}(s - k, k + 1)
        inside = (k >= 0) & (k < s)
        with np.errstate(invalid="ignore", divide="ignore"):
            head = special.betainc(
                np.where(inside, s - k, 1.0), np.where(inside, k + 1, 1.0), 1.0 - r
            )
        cond = np.where(k < 0, 0.0, np.where(k >= s, 1.0, head))
    return np.sum(weights * cond, axis=1)


def _lattice_quantile(
    b: FloatArray, c: FloatArray, n: FloatArray, tail: FloatArray, *, upper: bool
) -> FloatArray:
    """Integer d per pair: the smallest with P*(D* <= d) >= tail, or the largest with >= ."""
    shape = b.shape
    b, c, n, tail = (x.ravel().astype(float) for x in (b, c, n, tail))
    psi = (b + c) / n
    delta = (b - c) / n
    sd = np.sqrt(np.maximum(n * (psi - delta * delta), 0.0))
    z = -special.ndtri(np.clip(tail, 1e-300, 0.5))
    guess = n * delta + (z if upper else -z) * sd
    # The normal quantile is within a few items of the exact one (the Cornish-Fisher term of
    # D* is below (z^2 + 1)/6 items); start from a bracket of that size and widen as needed.
    width = 8.0 + z * z

    def ok(d: FloatArray) -> BoolArray:
        return np.asarray(_tails(b, c, n, d, (upper,))[0]) >= tail

    # upper: the largest d with P(D* >= d) >= tail (ok falls as d grows: ok at lo, not at hi);
    # lower: the smallest d with P(D* <= d) >= tail (ok rises: not ok at lo, ok at hi).
    floor_, ceiling = (-n, n + 1) if upper else (-n - 1, n)
    lo = np.maximum(np.floor(guess - width), floor_)
    hi = np.minimum(np.ceil(guess + width), ceiling)
    for _ in range(64):
        bad_lo = (ok(lo) != upper) & (lo > floor_)
        bad_hi = (ok(hi) == upper) & (hi < ceiling)
        if not (bad_lo.any() or bad_hi.any()):
            break
        width = width * 4
        lo = np.where(bad_lo, np.maximum(np.floor(guess - width), floor_), lo)
        hi = np.where(bad_hi, np.minimum(np.ceil(guess + width), ceiling), hi)
    while np.any(hi - lo > 1):
        mid = np.floor((lo + hi) / 2)
        at_lo = ok(mid) == upper
        lo = np.where(at_lo, mid, lo)
        hi = np.where(at_lo, hi, mid)
    return (lo if upper else hi).reshape(shape)


def _run_blocks(
    block: Callable[[tuple[int, int]], FloatArray],
    items: list[tuple[int, int]],
    workers: int | None,
    axis: int = 0,
) -> FloatArray:
    if workers is None:
        workers = min(os.cpu_count() or 1, 8)
    if workers <= 1 or len(items) == 1:
        parts = [block(item) for item in items]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(block, items))
    return np.concatenate(parts, axis=axis)
