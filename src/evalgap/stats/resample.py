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
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate

# A paired difference with at most this many distinct values is bootstrapped by a multinomial
# draw over the values instead of by resampling items.
MAX_DISTINCT_FOR_MULTINOMIAL = 256
# Elements drawn per block when resampling items: bounds memory (about 48 MB per block).
BLOCK_ELEMENTS = 2**22


def seed_sequence(seed) -> np.random.SeedSequence:
    """Return a SeedSequence from an int, None, a SeedSequence or a Generator."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, a Generator or None; got {seed!r}")
    return np.random.SeedSequence(int(seed))


def bootstrap_counts(a_only, b_only, n_items, n_resamples: int, seed=None):
    """Return bootstrap draws ``(a_only*, b_only*)`` of binary pairs, shape ``(..., B)``.

    Resampling N items with replacement from a 2x2 table is a multinomial draw on its four
    cells; only the discordant cells matter for ``delta`` and ``sd_diff``. Inputs broadcast.
    """
    n_resamples = _validate.resamples(n_resamples)
    b = np.asarray(a_only, dtype=np.int64)
    c = np.asarray(b_only, dtype=np.int64)
    n = np.asarray(n_items, dtype=np.int64)
    b, c, n = np.broadcast_arrays(b, c, n)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    shape = (*b.shape, n_resamples)
    disc = b + c
    p_disc = np.where(n > 0, disc / np.maximum(n, 1), 0.0)
    disc_star = rng.binomial(n[..., None], p_disc[..., None], size=shape)
    p_b = np.where(disc > 0, b / np.maximum(disc, 1), 0.5)
    b_star = rng.binomial(disc_star, p_b[..., None], size=shape)
    return b_star, disc_star - b_star


def bootstrap_means(
    d, n_resamples: int, seed=None, *, moments: bool = False, workers: int | None = None
):
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

    def block(i_start):
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


def sign_flip_sums(d, n_resamples: int, seed=None, *, workers: int | None = None) -> np.ndarray:
    """Return ``n_resamples`` draws of ``sum(s_i d_i)`` with independent random signs ``s_i``.

    Signs come from random bits: ``sum(s_i d_i) = 2 sum_{s_i = +1} d_i - sum(d_i)``.
    """
    n_resamples = _validate.resamples(n_resamples)
    d = np.asarray(d, dtype=float)
    n = d.size
    total = d.sum()
    rows = max(1, BLOCK_ELEMENTS // max(n, 1))
    starts = range(0, n_resamples, rows)
    streams = seed_sequence(seed).spawn(len(starts))
    n_bytes = (n + 7) // 8

    def block(i_start):
        i, start = i_start
        rng = np.random.Generator(np.random.PCG64(streams[i]))
        r = min(rows, n_resamples - start)
        raw = rng.integers(0, 256, size=(r, n_bytes), dtype=np.uint8)
        plus = np.unpackbits(raw, axis=1, count=n)
        return 2.0 * (plus @ d) - total

    return _run_blocks(block, list(enumerate(starts)), workers)


def sign_flip_sums_binary(n_discordant, n_resamples: int, seed=None) -> np.ndarray:
    """Return sign-flip draws of ``b - c`` for binary pairs: ``2 X - n``, ``X ~ Bin(n, 1/2)``.

    ``n_discordant`` broadcasts; the result has shape ``(..., n_resamples)``.
    """
    n_resamples = _validate.resamples(n_resamples)
    n = np.asarray(n_discordant, dtype=np.int64)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    x = rng.binomial(n[..., None], 0.5, size=(*n.shape, n_resamples))
    return 2 * x - n[..., None]


def percentile_interval(draws, alpha: float, axis: int = -1):
    """Return the ``(alpha/2, 1 - alpha/2)`` percentile interval of bootstrap draws."""
    low, high = np.quantile(draws, [alpha / 2.0, 1.0 - alpha / 2.0], axis=axis)
    return low, high


def bootstrap_p_value(draws, axis: int = -1):
    """Return the percentile-bootstrap two-sided p-value of H0: mean(D) = 0 (Definition 2).

    ``p = min(1, 2 min(P*(D* <= 0), P*(D* >= 0)))``: the smallest alpha at which 0 falls
    outside the percentile interval, so ``p < alpha`` exactly when the test rejects.
    """
    draws = np.asarray(draws)
    below = np.mean(draws <= 0, axis=axis)
    above = np.mean(draws >= 0, axis=axis)
    return np.minimum(1.0, 2.0 * np.minimum(below, above))


def _run_blocks(block, items, workers, axis: int = 0):
    if workers is None:
        workers = min(os.cpu_count() or 1, 8)
    if workers <= 1 or len(items) == 1:
        parts = [block(item) for item in items]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(block, items))
    return np.concatenate(parts, axis=axis)
