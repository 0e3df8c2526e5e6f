"""Has a candidate model got worse than its baseline? Aggregating one-sided tests over tasks.

*When LLMs get significantly worse*, Sections 3.1-3.3, Algorithms 1-7. Per task, ``b`` counts
the items only the baseline got right and ``c`` those only the candidate got right; under
H0 (no degradation) ``b ~ Binomial(b + c, 1/2)``, and the exact one-sided McNemar p-value
is ``P(B >= b)`` (:func:`evalgap.stats.tests.mcnemar_exact` with ``alternative="greater"``).
Three aggregates test H0 on every task at once:

* **pooled** (Algorithm 2): the exact test on ``sum b`` and ``sum c``;
* **Fisher** (Algorithm 3): ``-2 sum log p_i ~ chi2(2T)``; tasks without flips carry no
  information and are left out (this reproduces the paper's Table 2);
* **max-drop** (Algorithm 4): ``z_i = (b_i/n_i - 1/2) / sqrt(0.25/n_i) = (2 b_i - n_i)/sqrt(n_i)``
  and ``z_max = max_i z_i``. Tasks are independent under H0, so the p-value is exact:
  ``P(z_max >= z_obs) = 1 - prod_i P(z_i < z_obs)``, each factor a binomial CDF. The Monte Carlo
  of Algorithm 4 is :func:`max_drop_p_value_monte_carlo`.

For graded scores (Appendix D.2, Algorithms 5-7) the same three tests use random sign flips of
the per-item differences, with ``p = (1 + #{draws at least as extreme}) / (m + 1)``. One set of
per-task sign-flip draws serves all three, since the pooled draw is the sum of the task draws.

Departure from the paper: the permutation max-drop scales each task by the root mean square of
its differences, ``sqrt(mean(D^2))/sqrt(N_t)``, not by their SD as Algorithm 7 prints. The RMS
is the same for every sign flip, so the test is an exact permutation test; the printed SD is
computed once from the observed signs and is smallest when they lean one way, which inflates
the observed statistic: Type-I error 0.051-0.112 at alpha = 0.05 for 2-20 tasks of 20-50
items, 0.037-0.063 after (1,000 experiments each, SE 0.007; :func:`max_drop_sigma` and
``evalgap simulate aggregation``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from evalgap.stats import _validate, resample, tests
from evalgap.stats._types import ArrayLike, FloatArray, FloatOrArray, IntArray, Seed
from evalgap.stats.tests import mcnemar_exact

MAX_DROP_EPSILON = 1e-10  # Algorithm 7: keeps a task whose differences have no spread finite


def task_p_values(a_only: ArrayLike, b_only: ArrayLike) -> FloatOrArray:
    """Return each task's exact one-sided McNemar p-value, ``P(B >= b)`` (Algorithm 1)."""
    return mcnemar_exact(a_only, b_only, alternative="greater")


def pooled_p_value(a_only: ArrayLike, b_only: ArrayLike) -> FloatOrArray:
    """Return the pooled test's p-value: the exact one-sided test on summed counts (Alg. 2).

    Counts have shape (..., T) and the p-values shape (...) (a float for one family).
    """
    b = np.asarray(_validate.counts(a_only, "a_only"))
    c = np.asarray(_validate.counts(b_only, "b_only"))
    return mcnemar_exact(b.sum(axis=-1), c.sum(axis=-1), alternative="greater")


def fisher_over_tasks(
    a_only: ArrayLike, b_only: ArrayLike
) -> tuple[float, int] | tuple[FloatArray, IntArray]:
    """Return Fisher's p-value over tasks with flips (Algorithm 3) and how many were left out.

    Counts have shape (..., T); the results have shape (...) (scalars for one family).
    """
    b = _validate.counts(a_only, "a_only")
    c = _validate.counts(b_only, "b_only")
    b, c = np.broadcast_arrays(b, c)
    informative = (b + c) > 0
    out = fisher_over_informative(task_p_values(b, c), informative)
    left_out = (~informative).sum(axis=-1)
    if out.ndim == 0:
        return float(out), int(left_out)
    return out, left_out


def max_drop_statistics(a_only: ArrayLike, b_only: ArrayLike) -> FloatArray:
    """Return ``z_i = (2 b_i - n_i) / sqrt(n_i)`` per task (NaN where ``n_i = 0``)."""
    b = _validate.counts(a_only, "a_only")
    n = b + _validate.counts(b_only, "b_only")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (2 * b - n) / np.sqrt(n), np.nan)


def max_drop_p_value(a_only: ArrayLike, b_only: ArrayLike) -> FloatOrArray:
    """Return the exact max-drop p-value ``1 - prod_i P(z_i < z_obs)`` over tasks with flips.

    ``z_i < z_obs`` iff ``B_i < k_i = (z_obs sqrt(n_i) + n_i)/2``; the product is taken in log
    space (``-expm1(sum log1p(-P(B_i >= k_i)))``) so tiny p-values keep their precision.
    Counts have shape (..., T) and the p-values shape (...); tasks without flips are left out
    (a family with no flips at all has p = 1).
    """
    b = np.asarray(_validate.counts(a_only, "a_only"))
    c = np.asarray(_validate.counts(b_only, "b_only"))
    b, c = np.broadcast_arrays(b, c)
    n = b + c
    z = max_drop_statistics(b, c)
    z_obs = np.nanmax(np.where(n > 0, z, -np.inf), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        k = (z_obs * np.sqrt(n) + n) / 2
    below = np.ceil(k - 1e-9) - 1  # the largest count with z_i < z_obs
    below = np.where(np.isfinite(below), below, -1.0)  # families with no flips at all
    upper = tests.binomial_half_sf(below, n)  # P(B_i > below); 1 below 0, 0 at n and above
    upper = np.where(n > 0, upper, 0.0)  # tasks without flips never exceed z_obs
    with np.errstate(divide="ignore"):
        p = -np.expm1(np.sum(np.log1p(-np.minimum(upper, 1.0)), axis=-1))
    p = np.where(np.isfinite(z_obs[..., 0]), p, 1.0)
    return _validate.scalar_or_array(np.clip(p, 0.0, 1.0))


def max_drop_p_value_monte_carlo(
    a_only: ArrayLike, b_only: ArrayLike, n_simulations: int = 100_000, seed: Seed = None
) -> float:
    """Return Algorithm 4's Monte Carlo max-drop p-value: ``mean(z_max_sim >= z_obs)``."""
    n_simulations = _validate.resamples(n_simulations, "n_simulations")
    b = np.asarray(_validate.counts(a_only, "a_only"), dtype=np.int64)
    n = b + np.asarray(_validate.counts(b_only, "b_only"), dtype=np.int64)
    keep = n > 0
    if not keep.any():
        return 1.0
    b, n = b[keep], n[keep]
    z_obs = np.max((2 * b - n) / np.sqrt(n))
    rng = np.random.Generator(np.random.PCG64(resample.seed_sequence(seed)))
    simulated = rng.binomial(n, 0.5, size=(n_simulations, n.size))
    z_max = np.max((2 * simulated - n) / np.sqrt(n), axis=1)
    return float(np.mean(z_max >= z_obs - 1e-9))


def max_drop_sigma(
    sums: ArrayLike, sum_squares: ArrayLike, n_items: ArrayLike, *, sign_invariant: bool = True
) -> FloatArray:
    """Return the per-task scale ``sigma_t`` of the permutation max-drop (Algorithm 7, line 4).

    ``sums``, ``sum_squares`` and ``n_items`` are ``sum D``, ``sum D^2`` and ``N_t`` per task.
    The default is the sign-invariant scale ``sqrt(mean(D^2)) / sqrt(N_t) + eps``: the root
    mean square is the same for every sign flip of ``D``, so the standardized statistic is a
    fixed function of the flipped data and the permutation p-value is exact (valid at any
    size). ``sign_invariant=False`` gives Algorithm 7 as printed, ``std(D, ddof=1)/sqrt(N_t) +
    eps``: the SD of the *observed* differences shrinks when they lean one way, so the observed
    statistic is inflated against its sign-flip draws, which keep the observed scale. With
    20-50 items per task and 2-20 tasks its Type-I error is 0.051-0.112 at alpha = 0.05 (see
    ``simulate aggregation``); it is kept only to show that.
    """
    s = np.asarray(sums, dtype=float)
    q = np.asarray(sum_squares, dtype=float)
    n = np.asarray(n_items, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if sign_invariant:
            spread = np.where(n > 0, np.sqrt(q / n), 0.0)
        else:  # ddof = 1, as printed; a single item has no SD (0, as numpy's callers used)
            spread = np.where(n > 1, np.sqrt(np.maximum(q - s * s / n, 0.0) / (n - 1)), 0.0)
    return spread / np.sqrt(np.maximum(n, 1.0)) + MAX_DROP_EPSILON


def permutation_max_drop_statistics(
    sums: ArrayLike, sum_squares: ArrayLike, n_items: ArrayLike, *, sign_invariant: bool = True
) -> FloatArray:
    """Return each task's standardized mean ``z_t = mean(D_t) / sigma_t`` (Algorithm 7, line 5).

    With the default sign-invariant scale, ``z_t = sum D / (sqrt(sum D^2) + N_t eps)``; on
    binary scores that is ``(b - c)/sqrt(b + c)``, the ``z_i`` of :func:`max_drop_statistics`.
    """
    n = np.maximum(np.asarray(n_items, dtype=float), 1.0)
    sigma = max_drop_sigma(sums, sum_squares, n_items, sign_invariant=sign_invariant)
    return np.asarray(sums, dtype=float) / n / sigma


def permutation_p_values(
    draws: ArrayLike,
    sums: ArrayLike,
    sum_squares: ArrayLike,
    n_items: ArrayLike,
    *,
    abs_sums: ArrayLike | None = None,
    sign_invariant: bool = True,
) -> tuple[FloatOrArray, FloatArray, FloatOrArray]:
    """Return the sign-flip p-values ``(pooled, per_task, max_drop)`` from shared draws.

    ``draws`` has shape ``(..., m, T)``: m sign-flip draws of each task's ``sum D``; ``sums``,
    ``sum_squares`` and ``n_items`` have shape ``(..., T)`` (the observed ``sum D``, ``sum D^2``
    and ``N_t``). Each p-value is ``(1 + #{draws at least as extreme}) / (m + 1)``; the pooled
    draw is the sum of the task draws (Algorithm 5), per-task p-values feed Fisher (Algorithm
    6), and max-drop compares ``max_t mean_t / sigma_t`` (Algorithm 7 with the scale of
    :func:`max_drop_sigma`). A tolerance of ``1e-9 sum|D|`` keeps draws equal to the observed
    sum (up to rounding) counted as "at least as extreme"; ``abs_sums`` gives ``sum|D|``, by
    default its upper bound ``sqrt(N sum D^2)``.
    """
    draws = np.asarray(draws, dtype=float)
    s = np.asarray(sums, dtype=float)
    q = np.asarray(sum_squares, dtype=float)
    n = np.asarray(n_items, dtype=float)
    scale = np.sqrt(n * q) if abs_sums is None else np.asarray(abs_sums, dtype=float)
    tol = 1e-9 * np.maximum(scale, 1.0)
    pooled_draws = draws.sum(axis=-1)
    pooled_observed = s.sum(axis=-1) - tol.sum(axis=-1)
    pooled = tests.permutation_p_value_from_draws(pooled_draws >= pooled_observed[..., None])
    per_task = np.asarray(
        tests.permutation_p_value_from_draws(draws >= (s - tol)[..., None, :], axis=-2)
    )
    sigma = max_drop_sigma(s, q, n, sign_invariant=sign_invariant)
    size = np.maximum(n, 1.0)
    z_obs = np.max(permutation_max_drop_statistics(s, q, n, sign_invariant=sign_invariant), -1)
    z_sim = np.max(draws / (size * sigma)[..., None, :], axis=-1)
    max_drop = tests.permutation_p_value_from_draws(z_sim >= z_obs[..., None] - 1e-9)
    return pooled, per_task, max_drop


def fisher_over_informative(p_values: ArrayLike, informative: ArrayLike) -> FloatArray:
    """Return Fisher's p-value over the informative tasks (last axis); 1 where there is none."""
    p = np.where(informative, np.asarray(p_values, dtype=float), 1.0)  # log 1 = 0
    with np.errstate(divide="ignore"):  # a p-value that underflowed to 0 makes chi2 infinite
        statistic = -2.0 * np.log(p).sum(axis=-1)
    df = 2 * np.count_nonzero(informative, axis=-1)
    return np.where(df > 0, special.chdtrc(np.maximum(df, 1), statistic), 1.0)


def sign_flip_draws(
    differences: ArrayLike, n_permutations: int, rng: np.random.Generator
) -> FloatArray:
    """Return sign-flip draws of ``sum_i s_i D_i`` for a batch of padded task vectors.

    ``differences`` has shape ``(E, T, N)`` (zeros pad shorter tasks: a zero difference adds
    nothing to any draw); the result has shape ``(E, m, T)``. Signs come from random bytes, one
    bit an item: ``sum_i s_i D_i = 2 sum_{bit i set} D_i - sum_i D_i``.
    """
    m = _validate.resamples(n_permutations, "n_permutations")
    d = np.asarray(differences, dtype=float)
    n = d.shape[-1]
    raw = rng.integers(0, 256, size=(*d.shape[:2], m, max(1, (n + 7) // 8)), dtype=np.uint8)
    bits = np.unpackbits(raw, axis=-1, count=n, bitorder="little")
    picked = np.einsum("etmn,etn->emt", bits, d)
    return 2.0 * picked - d.sum(axis=-1)[:, None, :]


@dataclass(frozen=True)
class PermutationAggregates:
    """Sign-flip permutation p-values (Algorithms 5-7) and the per-task ones behind Fisher."""

    pooled: float
    fisher: float
    max_drop: float
    task_p_values: FloatArray
    tasks_left_out: int
    n_permutations: int


def permutation_aggregates(
    differences_by_task: Sequence[ArrayLike], n_permutations: int = 100_000, seed: Seed = None
) -> PermutationAggregates:
    """Return the permutation pooled, Fisher and max-drop p-values (one-sided: baseline better).

    ``differences_by_task`` is a list of 1-D arrays ``D_t = L_baseline - L_candidate``. Each task
    gets its own seeded stream of sign-flip draws (exact binomial path for few distinct
    values, see :func:`evalgap.stats.resample.sign_flip_sums`); the pooled null draw is their
    sum. Tasks whose differences are all zero carry no information: Fisher leaves them out.

    **Departure from Algorithm 7.** Max-drop standardizes each task's mean by the
    sign-invariant ``sqrt(mean(D_t^2))/sqrt(N_t) + 1e-10`` instead of the printed
    ``std(D_t, ddof=1)/sqrt(N_t) + 1e-10`` (see :func:`max_drop_sigma`): the printed scale
    changes when signs are flipped, which makes the test anti-conservative on small tasks
    (Type-I 0.051-0.112 at alpha = 0.05 with 20-50 items and 2-20 tasks; 0.037-0.063 after,
    within alpha + 2 Monte Carlo SEs).
    On binary scores the new statistic ``sum D / sqrt(sum D^2) = (b - c)/sqrt(b + c)`` is
    exactly the binary max-drop ``z_i`` of Algorithm 4, so the two versions agree.
    """
    m = _validate.resamples(n_permutations, "n_permutations")
    tasks = [np.asarray(d, dtype=float).ravel() for d in differences_by_task]
    streams = resample.seed_sequence(seed).spawn(len(tasks))
    draws = np.empty((m, len(tasks)))
    for t, (d, stream) in enumerate(zip(tasks, streams, strict=True)):
        draws[:, t] = resample.sign_flip_sums(d, m, stream)
    sums = np.array([d.sum() for d in tasks])
    squares = np.array([np.dot(d, d) for d in tasks])
    sizes = np.array([d.size for d in tasks], dtype=float)
    absolute = np.array([np.abs(d).sum() for d in tasks])
    pooled, per_task, max_drop = permutation_p_values(
        draws, sums, squares, sizes, abs_sums=absolute
    )
    informative = np.array([np.any(d != 0) for d in tasks])
    return PermutationAggregates(
        pooled=float(pooled),
        fisher=float(fisher_over_informative(per_task, informative)),
        max_drop=float(max_drop),
        task_p_values=per_task,
        tasks_left_out=int(np.count_nonzero(~informative)),
        n_permutations=m,
    )
