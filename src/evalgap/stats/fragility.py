"""Fragility of paired verdicts: the fewest items whose removal reverses each one.

A verdict is a claim about a pair: "A is significantly better than B" (a test rejects at its
level, favouring A) or "A resolves B" (Definition 1: ``|T| >= z_{1-alpha'/2} + z_{1-beta}``
with enough differing items for any valid test, i.e. ``q >= 1``); or the absence of one.
Its fragility is the smallest number of items whose removal from the pair reverses it: a
claim is lost, or, for a pair with no claim, one appears (favouring either model). The
other way round, the items that would *settle* an unresolved pair at the observed rates are
``N* - N`` (:func:`evalgap.stats.power.required_n`); the two answer the same question from
the two sides of the line.

**Binary pairs: exact.** Every McNemar-family test depends on the items only through the
discordant counts ``b`` (A right, B wrong) and ``c`` (B right, A wrong); the Wald statistic
``T = (b - c) / sqrt(b + c - (b - c)^2 / N)`` (Eq. 1 with Eq. 5's variance) also on ``N``.
Each is monotone in each count: a claim for A grows stronger when a ``c`` item or (for
``T``) a concordant item is removed, and weaker when a ``b`` item is. So the cheapest way to
end a claim for A removes ``b`` items only; the cheapest way to create one removes ``c``
items, then (for ``T``, whose variance counts the concordant items) concordant ones, the
``c`` items first because each moves ``T`` further. Along each such sequence the claim is
monotone in the number removed, and a bisection finds the exact count for all pairs at once
(``O(log N)`` evaluations of the test, vectorized over pairs). The tests check the count
against an exhaustive search over every mix of removals.

**Graded pairs: bounds, exact where they meet.** For the paired t test and the Wald
statistic the best removal set is a subset-selection problem. The greedy sequence (remove
the largest differences in the claim's direction) gives a removal set that does reverse the
claim: an *upper bound* ``items``. A certified *lower bound* holds for any set of ``k``
items: the sum of differences cannot fall below ``S - (sum of the k largest)`` and the
centred sum of squares of what remains cannot exceed the full sample's, so while
``T_k >= (S - top_k) sqrt((n_k - ddof)/n_k) / sqrt(SS)`` still clears the bar no ``k``
items can reverse the claim. Where the two meet the count is exact (``exact`` True). For a
graded pair with no claim only the greedy upper bound is given, and NaN there means the
greedy search found no set, not that none exists (``exact`` False). The sign test depends only
on the counts of positive and negative differences, so its fragility is the binary exact
one on those counts.

**Multiplicity.** Under Bonferroni or Sidak a pair's verdict is its test at a fixed level.
Under Holm's step-down the level a pair must clear depends on the others; holding every
other pair's statistic fixed (only this pair's items are removed), it is one number per pair
(:func:`holm_levels`), and the pair's fragility is that of its test at that level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from evalgap.errors import InputError, escape
from evalgap.stats import _validate, tests
from evalgap.stats._types import Alternative, ArrayLike, BoolArray, FloatArray, IntArray
from evalgap.stats.multiplicity import resolution_threshold
from evalgap.stats.power import gap_and_variance_from_counts

BinaryTest = Literal["exact", "mid_p", "mcnemar", "mcnemar_cc", "wald", "t"]
GradedTest = Literal["paired_t", "wald", "t"]
BINARY_TESTS: tuple[str, ...] = ("exact", "mid_p", "mcnemar", "mcnemar_cc", "wald", "t")
GRADED_TESTS: tuple[str, ...] = ("paired_t", "wald", "t")


@dataclass(frozen=True)
class Flips:
    """The fewest removals that reverse each pair's verdict (arrays over pairs).

    Attributes
    ----------
    decided : numpy.ndarray of bool
        The verdict now: whether the test claims a winner (rejects, or resolves).
    favours : numpy.ndarray of int
        +1 where the claim favours A, -1 where it favours B, 0 where there is none.
    items : numpy.ndarray of float
        The fewest items whose removal reverses the verdict; NaN where no removal can
        (e.g. too few differing items for any claim to appear). An upper bound where
        ``exact`` is False.
    lower : numpy.ndarray of float
        A certified lower bound on that count (equal to ``items`` where ``exact``); NaN
        where none is known.
    exact : numpy.ndarray of bool
        Whether ``items`` is the exact minimum.
    after : numpy.ndarray of int
        The claim after the removal: +1 A, -1 B, 0 none.
    remove_a_only, remove_b_only, remove_concordant : numpy.ndarray of float
        A removal set of ``items`` items that reverses the verdict, by kind: items only A
        got right (graded: A scored higher), items only B got right (B higher), items on
        which the two agree. Any items of a kind serve equally for binary pairs; for graded
        pairs the kinds count the greedy set (the largest differences of that sign).
    """

    decided: BoolArray
    favours: np.ndarray
    items: FloatArray
    lower: FloatArray
    exact: BoolArray
    after: np.ndarray
    remove_a_only: FloatArray
    remove_b_only: FloatArray
    remove_concordant: FloatArray

    def to_dict(self) -> dict[str, Any]:
        """Return the arrays as lists (NaN as None)."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = np.asarray(getattr(self, name))
            if value.dtype.kind == "f":
                out[name] = [None if np.isnan(v) else v for v in value.ravel().tolist()]
            else:
                out[name] = value.ravel().tolist()
        return out


def claims(
    test: BinaryTest,
    a_only: ArrayLike,
    b_only: ArrayLike,
    n_items: ArrayLike,
    level: ArrayLike,
    *,
    alternative: Alternative = "two-sided",
    power: float = 0.8,
    min_differing: ArrayLike = 0,
    threshold: ArrayLike | None = None,
) -> tuple[BoolArray, BoolArray]:
    """Return whether a binary pair's test claims A better, and whether it claims B better.

    ``"exact"``, ``"mid_p"``, ``"mcnemar"`` (chi-square) and ``"mcnemar_cc"`` (continuity
    corrected) claim a winner when their p-value is at most ``level``; ``"wald"`` when
    ``|T|`` reaches :func:`evalgap.stats.multiplicity.resolution_threshold` and at least
    ``min_differing`` items differ (the pair is resolved, ``q >= 1``); ``threshold`` gives
    that ``|T|`` when the caller has it already. ``"t"`` claims a winner when the
    studentized gap (the paired t statistic, sample SD) exceeds ``threshold``: a rank set's
    "shown better" at its stepdown critical value. Arrays broadcast over pairs.
    """
    b = np.asarray(a_only, dtype=float)
    c = np.asarray(b_only, dtype=float)
    n = np.asarray(n_items, dtype=float)
    level = np.asarray(level, dtype=float)
    if test == "t":
        if threshold is None:
            raise InputError("the studentized test needs its {threshold}", param="threshold")
        size = np.maximum(n, 2.0)
        delta, variance = gap_and_variance_from_counts(b, c, size)
        sd = np.sqrt(variance * size / (size - 1.0))  # the sample SD (divisor N - 1)
        t = np.asarray(tests.wald_statistic(delta, sd, size)) * (n >= 2)
        bar = np.asarray(threshold, dtype=float)
        for_a, for_b = t > bar, t < -bar
    elif test == "wald":
        delta, variance = gap_and_variance_from_counts(b, c, np.maximum(n, 1.0))
        t = np.asarray(tests.wald_statistic(delta, np.sqrt(variance), np.maximum(n, 1.0)))
        bar = (
            resolution_threshold(level, power, alternative)
            if threshold is None
            else np.asarray(threshold, dtype=float)
        )
        enough = (b + c) >= np.asarray(min_differing, dtype=float)
        for_a, for_b = (t >= bar) & enough, (t <= -bar) & enough
    else:
        p = _p_value(test, b, c, alternative)
        for_a, for_b = (p <= level) & (b > c), (p <= level) & (c > b)
    if alternative == "greater":
        for_b = np.zeros_like(for_b)
    elif alternative == "less":
        for_a = np.zeros_like(for_a)
    return np.asarray(for_a, dtype=bool), np.asarray(for_b, dtype=bool)


def _p_value(test: str, b: FloatArray, c: FloatArray, alternative: Alternative) -> FloatArray:
    if test == "exact":
        return np.asarray(tests.mcnemar_exact(b, c, alternative=alternative), dtype=float)
    if test == "mid_p":
        p = tests.mcnemar_exact(b, c, alternative=alternative, mid_p=True)
        return np.asarray(p, dtype=float)
    if test in ("mcnemar", "mcnemar_cc"):
        result = tests.mcnemar(b, c, correction=test == "mcnemar_cc", alternative=alternative)
        return np.asarray(result.p_value, dtype=float)
    raise InputError(
        "{test!b}" + escape(f" must be one of {', '.join(BINARY_TESTS)}; got {test!r}"),
        param="test",
    )


def binary_flips(
    a_only: ArrayLike,
    b_only: ArrayLike,
    n_items: ArrayLike,
    *,
    test: BinaryTest = "exact",
    level: ArrayLike = 0.05,
    alternative: Alternative = "two-sided",
    power: float = 0.8,
    min_differing: ArrayLike = 0,
    threshold: ArrayLike | None = None,
) -> Flips:
    """Return the exact fewest items whose removal reverses each binary pair's verdict.

    Parameters
    ----------
    a_only, b_only : array_like
        Discordant counts ``b`` (only A right) and ``c`` (only B right), one per pair.
    n_items : array_like
        Items of each pair (the concordant ones are ``N - b - c``).
    test : {"exact", "mid_p", "mcnemar", "mcnemar_cc", "wald"}
        The test whose verdict is examined (see :func:`claims`).
    level : array_like
        Its level per pair: ``alpha``, or a procedure's (Bonferroni ``alpha/m``, or Holm's
        from :func:`holm_levels`).
    alternative : {"two-sided", "greater", "less"}
        The tested side: one-sided, only a claim for that side counts.
    power : float
        The power of the resolution line (``"wald"`` only).
    min_differing : array_like
        Items that must differ for a ``"wald"`` claim (``tests.min_differing_items``).
    threshold : array_like, optional
        The critical value of the ``"t"`` test, per pair.

    Returns
    -------
    Flips
        Per pair: the verdict, the exact fewest removals that reverse it and which kinds of
        items to remove (see the module docstring for why this is the minimum).

    Examples
    --------
    The HellaSwag pair of Table 6 (b = 295, c = 249, N = 10,042) is significant by the
    chi-square test (p = 0.049), and removing one of its 295 A-only items ends that:

    >>> f = binary_flips(295, 249, 10_042, test="mcnemar")
    >>> bool(f.decided[0]), float(f.items[0]), float(f.remove_a_only[0])
    (True, 1.0, 1.0)
    """
    b = _validate.counts(a_only, "a_only")
    c = _validate.counts(b_only, "b_only")
    n = _validate.counts(n_items, "n_items")
    _validate.alternative(alternative)
    if test not in BINARY_TESTS:
        _p_value(test, b, c, alternative)  # raises the message naming the tests
    given = np.asarray(np.nan if threshold is None else threshold, float)
    b, c, n, level_b, need, given = np.broadcast_arrays(
        b, c, n, np.asarray(level, float), np.asarray(min_differing, float), given
    )
    b, c, n, level_b, need, given = (
        np.atleast_1d(np.asarray(v, float)) for v in (b, c, n, level_b, need, given)
    )
    if test == "t" and threshold is None:
        raise InputError("the studentized test needs its {threshold}", param="threshold")
    if np.any(b + c > n):
        raise InputError("{n_items!b} must be at least a_only + b_only", param="n_items")
    concordant = n - b - c
    kw: dict[str, Any] = {"alternative": alternative, "power": power}

    bar = {"wald": resolution_threshold(level_b, power, alternative), "t": given}.get(
        test, level_b
    )

    def claim(
        bb: FloatArray, cc: FloatArray, nn: FloatArray, rows: IntArray | slice = slice(None)
    ) -> tuple[BoolArray, BoolArray]:
        return claims(
            test, bb, cc, nn, level_b[rows], min_differing=need[rows], threshold=bar[rows], **kw
        )

    for_a, for_b = claim(b, c, n)
    favours = np.where(for_a, 1, np.where(for_b, -1, 0))
    decided = favours != 0
    nan = np.full(b.shape, np.nan)
    items, after = nan.copy(), np.zeros(b.shape, dtype=int)
    rem_a, rem_b, rem_c = (np.zeros(b.shape) for _ in range(3))

    # A claim for A ends when enough A-only items go (for B: B-only items).
    def end_a(k: FloatArray, r: IntArray) -> BoolArray:
        return ~claim(b[r] - k, c[r], n[r] - k, r)[0]

    def end_b(k: FloatArray, r: IntArray) -> BoolArray:
        return ~claim(b[r], c[r] - k, n[r] - k, r)[1]

    lose_a = _fewest(end_a, np.where(for_a, b, 0.0))
    lose_b = _fewest(end_b, np.where(for_b, c, 0.0))
    items = np.where(for_a, lose_a, np.where(for_b, lose_b, items))
    rem_a = np.where(for_a, np.nan_to_num(lose_a), rem_a)
    rem_b = np.where(for_b, np.nan_to_num(lose_b), rem_b)

    # No claim: the fewest removals that create one, for A (remove B-only items, then, for the
    # Wald statistic, concordant ones) or for B (the mirror), whichever is fewer.
    extra = concordant if test in ("wald", "t") else np.zeros_like(concordant)
    open_ = ~decided
    # Removing differing items below min_differing ends any "wald" claim, so stop there.
    spare = np.maximum(b + c - need, 0.0) if test == "wald" else b + c
    first_a = np.minimum(c, spare)
    first_b = np.minimum(b, spare)

    def toward_a(k: FloatArray, r: IntArray) -> BoolArray:
        j = np.minimum(k, first_a[r])
        return claim(b[r], c[r] - j, n[r] - k, r)[0]

    def toward_b(k: FloatArray, r: IntArray) -> BoolArray:
        j = np.minimum(k, first_b[r])
        return claim(b[r] - j, c[r], n[r] - k, r)[1]

    gain_a = _fewest(toward_a, np.where(open_ & (alternative != "less"), first_a + extra, 0.0))
    gain_b = _fewest(toward_b, np.where(open_ & (alternative != "greater"), first_b + extra, 0.0))
    pick_a = open_ & ~np.isnan(gain_a) & (np.isnan(gain_b) | (gain_a <= gain_b))
    pick_b = open_ & ~np.isnan(gain_b) & ~pick_a
    items = np.where(pick_a, gain_a, np.where(pick_b, gain_b, items))
    after = np.where(pick_a, 1, np.where(pick_b, -1, after))
    k_a, k_b = np.nan_to_num(gain_a), np.nan_to_num(gain_b)
    rem_b = np.where(pick_a, np.minimum(k_a, first_a), rem_b)
    rem_a = np.where(pick_b, np.minimum(k_b, first_b), rem_a)
    rem_c = np.where(pick_a, k_a - np.minimum(k_a, first_a), rem_c)
    rem_c = np.where(pick_b, k_b - np.minimum(k_b, first_b), rem_c)
    none = np.isnan(items)
    rem_a, rem_b, rem_c = (np.where(none, np.nan, r) for r in (rem_a, rem_b, rem_c))
    return Flips(
        decided=decided,
        favours=favours,
        items=items,
        lower=items.copy(),
        exact=~none,
        after=after,
        remove_a_only=rem_a,
        remove_b_only=rem_b,
        remove_concordant=rem_c,
    )


def _fewest(done: Callable[[FloatArray, IntArray], BoolArray], most: FloatArray) -> FloatArray:
    """Return per pair the smallest ``k`` in ``1..most`` with ``done(k)``; NaN where none.

    ``done(k, rows)`` answers for the pairs ``rows`` at counts ``k`` (aligned), and must be
    monotone in ``k`` (False then True); pairs with ``most = 0`` are not searched, and each
    step of the bisection evaluates only the pairs whose bracket is still open.
    """
    most = np.asarray(most, dtype=float)
    out = np.full(most.shape, np.nan)
    rows = np.flatnonzero(most >= 1)
    if rows.size == 0:
        return out
    rows = rows[done(most[rows], rows)]
    low = np.ones(rows.size)
    high = most[rows].copy()
    while True:
        open_ = np.flatnonzero(low < high)
        if open_.size == 0:
            break
        mid = np.floor((low[open_] + high[open_]) / 2.0)
        hit = done(mid, rows[open_])
        high[open_] = np.where(hit, mid, high[open_])
        low[open_] = np.where(hit, low[open_], mid + 1.0)
    out[rows] = low
    return out


def holm_levels(
    statistic: ArrayLike,
    alpha: float = 0.05,
    power: float = 0.8,
    family_size: int | None = None,
) -> FloatArray:
    """Return the level each pair must clear under Holm's step-down, the others held fixed.

    Sorted by ``|T|`` (largest first), Holm tests the r-th pair at ``alpha/(m - r + 1)`` and
    stops at the first that fails (:func:`evalgap.stats.multiplicity.resolved_holm`). Move
    one pair's statistic while the others stay: it is resolved exactly when it clears
    ``alpha/(m - t)``, where ``t`` is the number of the *other* pairs that Holm resolves
    ahead of it when it is placed last among those it beats. For a resolved pair at rank
    ``r`` that is ``r - 1`` plus the run of following pairs that still clear the level of
    the rank one earlier; for an unresolved pair it is the number Holm resolves now.

    So ``resolved_holm(T)[i] == (|T_i| >= resolution_threshold(holm_levels(T)[i]))`` for any
    value of ``T_i`` with the others fixed, which the tests check by moving each pair.

    Examples
    --------
    >>> [round(float(v), 4) for v in holm_levels([5.0, 4.0, 0.5])]
    [0.025, 0.025, 0.05]
    """
    t = np.abs(np.asarray(statistic, dtype=float)).ravel()
    n = t.size
    m = n if family_size is None else int(family_size)
    order = np.argsort(-t, kind="stable")
    ranked = t[order]
    rank = np.arange(1, n + 1)
    bar = np.asarray(resolution_threshold(alpha / (m - rank + 1), power), dtype=float)
    passes = ranked >= bar
    resolved_now = int(np.cumprod(passes).sum())
    # After the pair at rank r leaves, the pair at rank u > r moves to rank u - 1.
    moved = np.zeros(n, dtype=bool)
    moved[1:] = ranked[1:] >= bar[:-1]
    # first_fail[u]: the first index >= u (0-based) where a moved pair fails.
    fails = np.where(moved, n, np.arange(n))
    first_fail = np.append(np.minimum.accumulate(fails[::-1])[::-1], n)
    r0 = np.arange(n)  # 0-based rank
    ahead = np.where(r0 < resolved_now, r0 + (first_fail[np.minimum(r0 + 1, n)] - (r0 + 1)), 0)
    ahead = np.where(r0 < resolved_now, ahead, resolved_now)
    out = np.empty(n)
    out[order] = alpha / (m - ahead)
    return out.reshape(np.shape(statistic))


def graded_flips(
    differences: ArrayLike,
    *,
    test: GradedTest = "paired_t",
    level: ArrayLike = 0.05,
    alternative: Alternative = "two-sided",
    power: float = 0.8,
    min_differing: ArrayLike = 0,
    threshold: ArrayLike | None = None,
) -> Flips:
    """Return bounds on the fewest items whose removal reverses each graded pair's verdict.

    Parameters
    ----------
    differences : array_like, shape (pairs, items)
        Per-item differences ``D = X^A - X^B``; NaN where a pair has no score for an item.
    test : {"paired_t", "wald", "t"}
        The paired t test (sample SD) at ``level``; resolution by the Wald statistic
        (plug-in SD) at ``level`` and ``power`` with ``min_differing`` non-zero differences;
        or the studentized gap against ``threshold`` (a rank set's "shown better").
    level, alternative, power, min_differing, threshold
        As in :func:`binary_flips`.

    Returns
    -------
    Flips
        ``items`` from the greedy sequence (the largest differences in the claim's
        direction removed first): a set that does reverse the verdict, so an upper bound;
        ``lower`` a certified lower bound for a claim that exists (see the module
        docstring), NaN for a pair without one; ``exact`` where the two meet.

    Examples
    --------
    >>> d = [[0.5, 0.4, 0.3, 0.2, 0.1, 0.0, 0.3, 0.2]]
    >>> f = graded_flips(d)
    >>> int(f.favours[0]), float(f.items[0]), float(f.lower[0])
    (1, 4.0, 2.0)
    """
    d = np.atleast_2d(np.asarray(differences, dtype=float))
    _validate.alternative(alternative)
    if test not in GRADED_TESTS:
        raise InputError(
            "{test!b}" + escape(f" must be one of {', '.join(GRADED_TESTS)}; got {test!r}"),
            param="test",
        )
    pairs = d.shape[0]
    if test == "t" and threshold is None:
        raise InputError("the studentized test needs its {threshold}", param="threshold")
    # The studentized test compares with its threshold where the others use their level.
    compared = np.asarray(threshold if test == "t" else level, dtype=float)
    level_p = np.broadcast_to(compared, (pairs,)).astype(float)
    need = np.broadcast_to(np.asarray(min_differing, float), (pairs,)).astype(float)
    ddof = 0 if test == "wald" else 1
    present = ~np.isnan(d)
    n = present.sum(axis=1).astype(float)
    s = np.nansum(d, axis=1)
    q = np.nansum(d * d, axis=1)
    nonzero = (present & (d != 0)).sum(axis=1).astype(float)
    ss = np.maximum(q - np.divide(s * s, n, out=np.zeros_like(s), where=n > 0), 0.0)
    kw = {"test": test, "alternative": alternative, "power": power, "ddof": ddof}
    for_a, for_b = _graded_claims(s, ss, n, nonzero, level_p, need, **kw)  # type: ignore[arg-type]
    favours = np.where(for_a, 1, np.where(for_b, -1, 0))
    nan = np.full(pairs, np.nan)
    items, lower, after = nan.copy(), nan.copy(), np.zeros(pairs, dtype=int)
    rem_a, rem_b, rem_c = np.zeros(pairs), np.zeros(pairs), np.zeros(pairs)
    # Sign +1: a claim for A weakens as the largest D go and one appears as the smallest go.
    for sign, claim_now in ((1.0, for_a), (-1.0, for_b)):
        # Drop the largest sign * D first (to lose a claim for that side) ...
        lose = _greedy(sign * d, present, n, sign * s, q, nonzero, level_p, need, kw, lose=True)
        items = np.where(claim_now, lose.items, items)
        lower = np.where(claim_now, lose.lower, lower)
        mine, theirs = (rem_a, rem_b) if sign > 0 else (rem_b, rem_a)
        mine[claim_now], theirs[claim_now] = lose.favouring[claim_now], lose.against[claim_now]
        rem_c[claim_now] = lose.tied[claim_now]
    open_ = favours == 0
    for sign, side in ((1.0, 1), (-1.0, -1)):
        if (side == 1 and alternative == "less") or (side == -1 and alternative == "greater"):
            continue
        # ... and the smallest sign * D first to create a claim for that side.
        gain = _greedy(sign * d, present, n, sign * s, q, nonzero, level_p, need, kw, lose=False)
        better = open_ & ~np.isnan(gain.items) & (np.isnan(items) | (gain.items < items))
        items = np.where(better, gain.items, items)
        after = np.where(better, side, after)
        # Kinds as seen from sign * D: "against" are the items favouring the other model.
        mine, theirs = (rem_a, rem_b) if side == 1 else (rem_b, rem_a)
        mine[better], theirs[better] = gain.favouring[better], gain.against[better]
        rem_c[better] = gain.tied[better]
    none = np.isnan(items)
    exact = ~none & (lower == items)
    rem_a, rem_b, rem_c = (np.where(none, np.nan, r) for r in (rem_a, rem_b, rem_c))
    return Flips(
        decided=favours != 0,
        favours=favours,
        items=items,
        lower=lower,
        exact=exact,
        after=after,
        remove_a_only=rem_a,
        remove_b_only=rem_b,
        remove_concordant=rem_c,
    )


def _graded_claims(
    s: FloatArray,
    ss: FloatArray,
    n: FloatArray,
    nonzero: FloatArray,
    level: FloatArray,
    need: FloatArray,
    *,
    test: str,
    alternative: Alternative,
    power: float,
    ddof: int,
) -> tuple[BoolArray, BoolArray]:
    """Whether moments ``(S, SS, n)`` claim A better / B better (the verdict of the test);
    for ``test="t"`` the ``level`` array holds the critical values of the studentized gap."""
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = np.where(n > 0, s / np.maximum(n, 1.0), 0.0)
        sd = np.sqrt(np.maximum(ss, 0.0) / np.maximum(n - ddof, 1.0))
    usable = n > ddof + 0
    if test == "paired_t":
        p = np.asarray(
            tests.paired_t_from_moments(
                delta, sd, np.maximum(n, 2.0), alternative=alternative
            ).p_value,
            dtype=float,
        )
        yes = usable & (n >= 2) & (p <= level)
        for_a, for_b = yes & (delta > 0), yes & (delta < 0)
    elif test == "t":
        t = np.asarray(tests.wald_statistic(delta, sd, np.maximum(n, 1.0)), dtype=float)
        usable = usable & (n >= 2)
        for_a, for_b = usable & (t > level), usable & (t < -level)
    else:
        t = np.asarray(tests.wald_statistic(delta, sd, np.maximum(n, 1.0)), dtype=float)
        bar = resolution_threshold(level, power, alternative)
        enough = usable & (nonzero >= need)
        for_a, for_b = enough & (t >= bar), enough & (t <= -bar)
    if alternative == "greater":
        for_b = np.zeros_like(for_b)
    elif alternative == "less":
        for_a = np.zeros_like(for_a)
    return np.asarray(for_a, dtype=bool), np.asarray(for_b, dtype=bool)


@dataclass(frozen=True)
class _Greedy:
    items: FloatArray  # the count at which the claim reverses; NaN where it never does
    lower: FloatArray  # certified lower bound (losing a claim only)
    favouring: FloatArray  # removed items with values > 0 (favouring the claimed side),
    tied: FloatArray  # = 0
    against: FloatArray  # and < 0


def _greedy(
    values: FloatArray,
    present: BoolArray,
    n: FloatArray,
    s: FloatArray,
    q: FloatArray,
    nonzero: FloatArray,
    level: FloatArray,
    need: FloatArray,
    kw: dict[str, Any],
    *,
    lose: bool,
) -> _Greedy:
    """Remove items one by one in the greedy order; return the first count that reverses.

    ``values`` is ``sign * D``, so the claim examined is "A better" on ``values`` (a claim for
    B is a claim for A on ``-D``). With ``lose`` the claim exists, the largest values go
    first, and the count is the first at which it is gone, with the certified lower bound
    beside it; otherwise the smallest values go first and the count is the first at which a
    claim appears (no bound).
    """
    filled = np.where(present, values, -np.inf if lose else np.inf)
    ordered = -np.sort(-filled, axis=1) if lose else np.sort(filled, axis=1)
    ordered = np.where(np.isfinite(ordered), ordered, 0.0)
    k = np.arange(1, ordered.shape[1] + 1, dtype=float)
    shape = ordered.shape
    kw_a = {**kw, "alternative": "greater" if kw["alternative"] != "two-sided" else "two-sided"}

    def holds(
        rows: np.ndarray, cols: slice, ss_: FloatArray | None
    ) -> tuple[BoolArray, BoolArray]:
        """Whether the claim still holds on ``rows`` after each count of removals in ``cols``
        (0-based columns: count ``k = column + 1``), and at least one item stays; ``ss_``
        replaces the remaining SS (the certified bound). The moments after removal come from
        the same left-to-right cumulative sums as over all counts, taken only as far as the
        scan goes; each pair's level and need broadcast along its row."""
        o = ordered[rows, : cols.stop]
        s_b = s[rows, None] - np.cumsum(o, axis=1)[:, cols]
        n_b = n[rows, None] - k[None, cols]
        valid = n_b >= 1
        if ss_ is None:
            q_b = q[rows, None] - np.cumsum(o * o, axis=1)[:, cols]
            nz_b = nonzero[rows, None] - np.cumsum(o != 0, axis=1)[:, cols]
            with np.errstate(divide="ignore", invalid="ignore"):
                ss_b = np.maximum(q_b - np.where(n_b > 0, s_b * s_b / n_b, 0.0), 0.0)
        else:
            nz_b = nonzero[rows, None] - k[None, cols]
            ss_b = np.broadcast_to(ss_[rows, None], s_b.shape)
        for_a, _ = _graded_claims(
            s_b, ss_b, np.maximum(n_b, 0), nz_b, level[rows, None], need[rows, None], **kw_a
        )
        return for_a & valid, valid

    def gone(ss_: FloatArray | None) -> Callable[[np.ndarray, slice], BoolArray]:
        def test(rows: np.ndarray, cols: slice) -> BoolArray:
            still, valid = holds(rows, cols, ss_)
            return ~still & valid

        return test

    if lose:
        items = _first_where(gone(None), shape)
        # Certified: S' >= S - (k largest), SS' <= SS, and at most k non-zero differences go.
        ss_all = np.maximum(q - np.where(n > 0, s * s / np.maximum(n, 1.0), 0.0), 0.0)
        lower = _first_where(gone(ss_all), shape)
    else:
        items = _first_where(lambda rows, cols: holds(rows, cols, None)[0], shape)
        lower = np.full(n.shape, np.nan)
    # The removed items by kind: the order is sorted, so the first ``at`` hold the positive
    # values, then the zeros, then the negative ones (the other way round when the smallest
    # go first); ``at`` never reaches the padding of missing items (at least one stays).
    at = np.nan_to_num(items)
    zero = (present & (values == 0)).sum(axis=1)
    first = (present & ((values > 0) if lose else (values < 0))).sum(axis=1)
    taken_first = np.minimum(at, first)
    tied = np.minimum(np.maximum(at - first, 0), zero)
    taken_last = at - taken_first - tied
    favouring, against = (taken_first, taken_last) if lose else (taken_last, taken_first)
    return _Greedy(items, lower, favouring.astype(float), tied.astype(float),
                   against.astype(float))  # fmt: skip


def _first_where(
    condition: Callable[[np.ndarray, slice], BoolArray], shape: tuple[int, ...]
) -> FloatArray:
    """1-based index of the first column where ``condition(rows, columns)`` holds, per row;
    NaN where it never does. The columns are taken in widening blocks and a row leaves once
    found, so a search that ends after a few removals costs a few columns, not all of them
    (the answer is the same as evaluating every column)."""
    rows, cols = shape
    out = np.full(rows, np.nan)
    todo = np.arange(rows)
    start, width = 0, 32
    while todo.size and start < cols:
        stop = min(cols, start + width)
        hit = condition(todo, slice(start, stop))
        found = hit.any(axis=1)
        out[todo[found]] = start + np.argmax(hit[found], axis=1) + 1.0
        todo = todo[~found]
        start, width = stop, width * 4
    return out


@dataclass(frozen=True)
class TaskFlips:
    """Removals over the tasks of one family that reverse a multi-task verdict (greedy).

    Attributes
    ----------
    decided : bool
        The verdict now (the combined p-value at most ``level``).
    items : float
        The removals the greedy search needed; NaN where none reverses it (or the search
        stopped at its limit). An upper bound on the fewest.
    remove_a_only, remove_b_only : numpy.ndarray
        Per task, how many A-only (B-only) items the removal set takes.
    """

    decided: bool
    items: float
    remove_a_only: np.ndarray
    remove_b_only: np.ndarray


def task_flips(
    a_only: ArrayLike,
    b_only: ArrayLike,
    p_value: Callable[[FloatArray, FloatArray], FloatArray],
    level: float,
    *,
    limit: int = 100_000,
) -> TaskFlips:
    """Return a greedy removal set over tasks that reverses a one-sided multi-task verdict.

    ``p_value(b, c)`` maps counts of shape ``(..., T)`` to p-values of shape ``(...)`` (the
    pooled, max-drop and Fisher tests of *When LLMs get significantly worse* all do, and so
    does their minimum). The verdict claims "A better" (a drop from A to B) when the p-value
    is at most ``level``. To end the claim, A-only items are removed, from the task whose
    removal raises the p-value most; to create one, B-only items, from the task whose removal
    lowers it most. Each step evaluates every task's move at once (one call on a ``(T, T)``
    batch) and removes a run of items from the chosen task, the run doubling while the
    verdict holds; the run that reverses it is bisected to its fewest items. The count is an
    upper bound on the fewest removals: the set found does reverse the verdict, but a
    different mix over tasks might do it with fewer. Steps grow with the logarithm of the
    count, so a billion discordant items take a few dozen evaluations, not one per item.
    """
    b = np.asarray(_validate.counts(a_only, "a_only"), dtype=float).ravel().copy()
    c = np.asarray(_validate.counts(b_only, "b_only"), dtype=float).ravel().copy()
    start_b, start_c = b.copy(), c.copy()
    decided = bool(np.asarray(p_value(b, c)) <= level)
    pool = b if decided else c
    eye = np.eye(b.size)
    budget = min(limit, int(pool.sum()))
    removed, run = 0, 1.0

    def flips(t: int, k: float) -> bool:
        bb, cc = b.copy(), c.copy()
        (bb if decided else cc)[t] -= k
        return bool((np.asarray(p_value(bb, cc)) <= level) != decided)

    while removed < budget:
        step = np.minimum(pool, min(run, budget - removed)) * eye  # each task's run
        moves_b = b[None, :] - (step if decided else 0.0)
        moves_c = c[None, :] - (0.0 if decided else step)
        p = np.asarray(p_value(np.maximum(moves_b, 0.0), np.maximum(moves_c, 0.0)), dtype=float)
        p = np.where(pool > 0, p, -np.inf if decided else np.inf)
        t = int(np.argmax(p) if decided else np.argmin(p))
        take = float(step[t, t])
        if (p[t] <= level) != decided:  # this run reverses it: bisect to its fewest items
            low, high = 0.0, take  # low keeps the verdict, high reverses it
            while high - low > 1:
                mid = float(np.floor((low + high) / 2))
                low, high = (low, mid) if flips(t, mid) else (mid, high)
            pool[t] -= high
            return TaskFlips(decided, float(removed + high), start_b - b, start_c - c)
        pool[t] -= take
        removed += int(take)
        run *= 2.0
    nothing = np.full(b.size, np.nan)
    return TaskFlips(decided, np.nan, nothing, nothing.copy())


@dataclass(frozen=True)
class BattleFlips:
    """Battles whose removal reverses "A is ranked above B" in a Bradley-Terry fit.

    Attributes
    ----------
    model_a, model_b : int
        The pair (A's score above B's now).
    battles : float
        The fewest battles, along the influence order, whose removal reverses the order on
        refitting; NaN where removing every battle that pulls A up does not. An upper bound
        on the fewest of any kind (the search follows the influence order).
    predicted : float
        What the influence function alone predicts (before any refit).
    refits : int
        Refits the confirmation took.
    removed : numpy.ndarray
        Per cell of the battles (``Battles.first/second/outcome``), how many to remove.
    """

    model_a: int
    model_b: int
    battles: float
    predicted: float
    refits: int
    removed: np.ndarray


def battle_flips(
    data: Any,
    fitted: Any,
    model_a: int,
    model_b: int,
    *,
    confirm: bool = True,
    removals: Any = None,
) -> BattleFlips:
    """Return the battles whose removal puts ``model_b`` level with or above ``model_a``.

    Influence (as Huang et al., ICLR 2026, for arenas): removing one battle of cell c (pair
    ``(i, j)``, outcome ``y``) moves the scores by about ``-C s_c`` with ``s_c = (y - p_c)
    (e_i - e_j)`` the battle's score and ``C`` the inverse information, so the gap ``theta_A -
    theta_B`` moves by ``-(y - p_c)(C_Ai - C_Aj - C_Bi + C_Bj)``. Battles are removed in
    order of that effect (most negative first). The predicted count is where the summed
    effects reach the gap; refits along the same order then find the smallest count that
    reverses the order: the first at the prediction, then (once a count that reverses it and
    one that does not bracket the answer) at the count where the refitted gaps,
    interpolated, reach 0, bisecting when that does not close in; the number of refits is
    reported. Each refit is exact (:class:`evalgap.stats.bradley_terry.Removals`,
    warm-started from the nearest refit). The order is sorted only as far as it is needed:
    the battles that move the gap most belong to pairs with A or B (bounded against all
    others), the full sort only where the search goes past them. ``confirm=False`` returns
    the prediction alone (no refit; ``battles`` NaN), or, where the battles of A's and B's
    pairs that move the gap more than any other battle can do not reach it, a lower bound on
    the prediction (the rest counted at that most each): enough to rank challengers and to
    stop where a bound is too far. ``removals`` (a ``Removals.of(data, fitted)``) serves
    many pairs of one fit (an arena's claims ask pair after pair); without it one is built
    for this pair. Ties count as half wins (the default fit).
    """
    if removals is None:
        from evalgap.stats.bradley_terry import Removals

        removals = Removals.of(data, fitted)
    refit = removals
    theta = refit.scores
    gap = float(theta[model_a] - theta[model_b])
    count = np.asarray(data.count, dtype=float)
    nothing = refit.nothing  # one read-only array for every result that removes nothing
    if gap <= 0:
        return BattleFlips(model_a, model_b, np.nan, np.nan, 0, nothing)
    order = _InfluenceOrder(refit, model_a, model_b, count, gap, exact=confirm)
    predicted = order.predicted
    if not np.isfinite(predicted) and order.available == 0:
        return BattleFlips(model_a, model_b, np.nan, np.nan, 0, nothing)
    if not confirm:
        return BattleFlips(model_a, model_b, np.nan, predicted, 0, nothing)
    found: dict[int, tuple[float, Any]] = {0: (gap, theta)}

    def refitted(k: int) -> float:
        """The refitted gap after removing the first k battles of the order (NaN: no MLE)."""
        nearest = min(found, key=lambda seen: (abs(seen - k), seen))
        cells, take = order.removal(k)
        start = found[nearest][1] if found[nearest][1] is not None else theta
        found[k] = refit.gap(model_a, model_b, cells, take, start)
        return found[k][0]

    high = int(predicted if np.isfinite(predicted) else order.available)
    low, low_gap = 0, gap
    extensions = 0
    while not (value := refitted(high)) <= 0:  # NaN: no MLE there, not reversed
        available = int(order.available)  # the full order, sorted only when needed
        if high >= available:
            return BattleFlips(model_a, model_b, np.nan, predicted, len(found) - 1, nothing)
        low, low_gap = high, value
        slope = (gap - value) / high if np.isfinite(value) else 0.0
        extensions += 1
        if slope > 0 and extensions < 3:  # extrapolate the refitted gaps to 0, a little past
            high = min(available, high + max(1, int(np.ceil(1.1 * value / slope))))
        else:
            high = min(2 * high, available)
    high_gap, side, repeats = value, 0, 0
    while high - low > 1:
        if np.isfinite(low_gap) and repeats < 2:
            root = low + (high - low) * low_gap / (low_gap - high_gap)
            k = int(min(max(np.ceil(root), low + 1), high - 1))
        else:
            k = (low + high) // 2
        value = refitted(k)
        now = 1 if value <= 0 else -1
        repeats = repeats + 1 if now == side else 0
        side = now
        if value <= 0:
            high, high_gap = k, value
        else:
            low, low_gap = k, value
    cells, take = order.removal(high)
    removed = nothing.copy()
    removed[cells] = take
    return BattleFlips(model_a, model_b, float(high), predicted, len(found) - 1, removed)


class _InfluenceOrder:
    """The cells that raise B against A, most first (by influence, ties by cell), sorted only
    as far as needed: first the cells of the pairs with A or B whose effect exceeds what any
    other cell's can (an exact prefix of the full order), the full order on demand."""

    def __init__(
        self, refit: Any, model_a: int, model_b: int, count: np.ndarray, gap: float, exact: bool
    ):
        self.refit, self.model_a, self.model_b, self.count = refit, model_a, model_b, count
        near, bound = refit.near(model_a, model_b)
        effect = refit.effect(model_a, model_b, near)
        keep = effect < -bound
        self._set(near[keep], effect[keep], complete=near.size == count.size)
        self.gap = gap
        self.lower_bound = np.nan
        if not self.complete and self.reach_index() >= self.cells.size:
            reached = -self.reach[-1] if self.reach.size else 0.0
            battles = self.cumulative[-1] if self.cumulative.size else 0.0
            if not exact and bound > 0:  # each further battle moves the gap by <= bound
                self.lower_bound = float(battles + max(np.ceil((gap - reached) / bound), 1.0))
            else:
                self.extend(reach=True)

    def _set(self, cells: np.ndarray, effect: np.ndarray, complete: bool) -> None:
        negative = effect < 0
        cells, effect = cells[negative], effect[negative]
        by = np.lexsort((cells, effect))
        self.cells, self.effect, self.complete = cells[by], effect[by], complete
        self.per_cell = self.count[self.cells]
        self.cumulative = np.cumsum(self.per_cell)
        self.reach = np.cumsum(self.effect * self.per_cell)  # the gap's change after whole cells

    def extend(self, battles: float = np.inf, reach: bool = False) -> None:
        """Sort the cells with a negative effect, the first until they hold ``battles``
        battles (or, with ``reach``, until their effects reach the gap), growing a partial
        selection fourfold at a time; the cells at or below the selection's largest effect
        are an exact prefix of the full order."""
        effect = self.refit.effect(self.model_a, self.model_b)
        negative = np.flatnonzero(effect < 0)
        values = effect[negative]
        size = max(4 * self.cells.size, 1024)
        while size < negative.size:
            cut = np.partition(values, size)[size]
            pick = negative[values < cut]
            self._set(pick, effect[pick], complete=False)
            enough = self.cumulative[-1] >= battles if self.cumulative.size else False
            if (reach and self.reach_index() < self.cells.size) or enough:
                return
            size *= 4
        self._set(negative, values, complete=True)

    def reach_index(self) -> int:
        """The first cell whose completion reaches the gap."""
        return int(np.searchsorted(-self.reach, self.gap))

    @property
    def available(self) -> float:
        if not self.complete:
            self.extend()
        return float(self.cumulative[-1]) if self.cumulative.size else 0.0

    @property
    def predicted(self) -> float:
        if np.isfinite(self.lower_bound):
            return self.lower_bound
        whole = self.reach_index()
        if whole >= self.cells.size:
            return np.nan
        before = self.reach[whole - 1] if whole else 0.0
        partial = np.ceil((self.gap + before) / -self.effect[whole])
        return float((self.cumulative[whole - 1] if whole else 0.0) + max(partial, 1.0))

    def removal(self, k: float) -> tuple[np.ndarray, np.ndarray]:
        """The cells touched by removing the first k battles of the order, and how many of
        each."""
        if (not self.cumulative.size or self.cumulative[-1] < k) and not self.complete:
            self.extend(battles=k)
        used = int(np.searchsorted(self.cumulative, k)) + 1
        cells, per_cell = self.cells[:used], self.per_cell[:used]
        before = np.concatenate([[0.0], self.cumulative[: used - 1]])
        return cells, np.clip(k - before, 0.0, per_cell)
