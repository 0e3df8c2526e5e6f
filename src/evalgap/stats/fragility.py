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
one on those counts. The verdict after ``k`` greedy removals is a function of ``n - k`` and
the sums of the differences left and of their squares: the pairs are sorted once
(:class:`SortedDifferences`, whose runs of sorted values give those sums at any count) for
every test and level, the bound is found by bisection where it is monotone, and the greedy
count from the bound on by a guess (as if the claim were monotone) that is then proven:
every count before it is certified to keep the claim or evaluated (:class:`_Search`); the
counts are those of testing every count.

**Multiplicity.** Under Bonferroni or Sidak a pair's verdict is its test at a fixed level.
Under Holm's step-down the level a pair must clear depends on the others; holding every
other pair's statistic fixed (only this pair's items are removed), it is one number per pair
(:func:`holm_levels`), and the pair's fragility is that of its test at that level.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np

from evalgap.errors import InputError, escape
from evalgap.stats import _validate, intervals, tests
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
    differences: ArrayLike | SortedDifferences,
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
    differences : array_like, shape (pairs, items), or SortedDifferences
        Per-item differences ``D = X^A - X^B``; NaN where a pair has no score for an item.
        A :class:`SortedDifferences` of them serves several tests of the same pairs (it is
        sorted once).
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
    return graded_flips_at_levels(
        differences,
        [level if threshold is None or test != "t" else threshold],
        test=test,
        alternative=alternative,
        power=power,
        min_differing=min_differing,
        threshold_given=threshold is not None,
    )[0]


def graded_flips_at_levels(
    differences: ArrayLike | SortedDifferences,
    levels: Sequence[ArrayLike],
    *,
    test: GradedTest = "paired_t",
    alternative: Alternative = "two-sided",
    power: float = 0.8,
    min_differing: ArrayLike = 0,
    threshold_given: bool = True,
) -> list[Flips]:
    """Return :func:`graded_flips` of one test at each of several levels (per pair or one),
    in one search: a family's procedures (Bonferroni, Sidak, Holm) examine the same pairs
    along the same removal orders. For ``test="t"`` the levels are the thresholds."""
    if isinstance(differences, SortedDifferences):
        board = differences
    else:
        board = SortedDifferences(differences)
    _validate.alternative(alternative)
    if test not in GRADED_TESTS:
        raise InputError(
            "{test!b}" + escape(f" must be one of {', '.join(GRADED_TESTS)}; got {test!r}"),
            param="test",
        )
    pairs = board.n.size
    if test == "t" and not threshold_given:
        raise InputError("the studentized test needs its {threshold}", param="threshold")
    # Each (level, pair) is one row of the search; the board's rows are shared.
    level_v = np.concatenate(
        [np.broadcast_to(np.asarray(v, dtype=float), (pairs,)) for v in levels]
    )
    row_of = np.tile(np.arange(pairs), len(levels))
    need = np.broadcast_to(np.asarray(min_differing, float), (pairs,)).astype(float)[row_of]
    ddof = 0 if test == "wald" else 1
    kw = {"test": test, "alternative": alternative, "power": power, "ddof": ddof}
    b = board
    for_a, for_b = _graded_claims(
        b.s[row_of], b.ss[row_of], b.n[row_of], b.nonzero[row_of], level_v, need, **kw  # type: ignore[arg-type]
    )
    favours = np.where(for_a, 1, np.where(for_b, -1, 0))
    search = _Search(board, row_of, level_v, need, kw)
    size = row_of.size
    nan = np.full(size, np.nan)
    items, lower, after = nan.copy(), nan.copy(), np.zeros(size, dtype=int)
    rem_a, rem_b, rem_c = np.zeros(size), np.zeros(size), np.zeros(size)
    # Sign +1: a claim for A weakens as the largest D go and one appears as the smallest go.
    for sign, claim_now in ((1.0, for_a), (-1.0, for_b)):
        # Drop the largest sign * D first (to lose a claim for that side) ...
        rows = np.flatnonzero(claim_now)
        lose = search.lose(sign, rows)
        items[rows], lower[rows] = lose.items, lose.lower
        mine, theirs = (rem_a, rem_b) if sign > 0 else (rem_b, rem_a)
        mine[rows], theirs[rows], rem_c[rows] = lose.favouring, lose.against, lose.tied
    open_ = np.flatnonzero(favours == 0)
    for sign, side in ((1.0, 1), (-1.0, -1)):
        if (side == 1 and alternative == "less") or (side == -1 and alternative == "greater"):
            continue
        # ... and the smallest sign * D first to create a claim for that side, fewer
        # removals than the other side's (a tie keeps the claim for A).
        gain = search.gain(sign, open_, below=items[open_])
        better = ~np.isnan(gain.items)
        rows = open_[better]
        items[rows] = gain.items[better]
        after[rows] = side
        mine, theirs = (rem_a, rem_b) if side == 1 else (rem_b, rem_a)
        mine[rows], theirs[rows] = gain.favouring[better], gain.against[better]
        rem_c[rows] = gain.tied[better]
    none = np.isnan(items)
    exact = ~none & (lower == items)
    rem_a, rem_b, rem_c = (np.where(none, np.nan, r) for r in (rem_a, rem_b, rem_c))
    return [
        Flips(
            decided=favours[at] != 0,
            favours=favours[at],
            items=items[at],
            lower=lower[at],
            exact=exact[at],
            after=after[at],
            remove_a_only=rem_a[at],
            remove_b_only=rem_b[at],
            remove_concordant=rem_c[at],
        )
        for at in (slice(k * pairs, (k + 1) * pairs) for k in range(len(levels)))
    ]


class Scratch:
    """Reusable float64 memory for the blocks of one board: each block's squares, sorted
    differences and running sums are written over the previous block's, not into fresh pages
    from the system (16 MiB apiece, whose page faults cost as much system time as the
    search). One block at a time: a :class:`SortedDifferences` owns the buffers it took
    until the next is made over the same ``Scratch``."""

    def __init__(self) -> None:
        self._buffers: dict[str, FloatArray] = {}

    def take(self, name: str, shape: tuple[int, ...]) -> FloatArray:
        """A buffer ``name`` of ``shape`` (uninitialised), reusing the last one's memory."""
        size = int(np.prod(shape))
        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[name] = np.empty(size)
        return buffer[:size].reshape(shape)


class SortedDifferences:
    """Graded pairs' per-item differences sorted once, their moments, and the sums of what
    any count of removals along either order leaves.

    Every test's greedy search removes the differences of a pair in one of two orders (the
    largest first, or the smallest), so a board's tests and procedures share one ascending
    sort. The verdict after ``k`` removals needs the sums of ``D`` and ``D^2`` over the items
    left: with the largest removed first those are the ascending order's first ``n - k``,
    with the smallest first its total less its first ``k``. Both come from one pass over the
    sorted block: the sums of each run of ``_CHUNK`` sorted values and their running totals,
    plus, for any count, the few values of its own run (a search evaluates tens of counts a
    pair, not all of them, so nothing of the block's size is written).

    Parameters
    ----------
    differences : array_like, shape (pairs, items)
        Per-item differences ``D = X^A - X^B``; NaN where a pair has no score for an item.
    counts : tuple of array_like, optional
        Per pair the items both scored, and those where ``D > 0`` and ``D < 0`` (the
        audit's ``n_items``, ``a_only`` and ``b_only`` of graded pairs), when already
        counted: then they are not counted again, nor the missing items looked for where
        every pair has all of them.
    scratch : Scratch, optional
        Memory reused from the previous block of the same board (fresh by default).
    overwrite : bool
        Whether ``differences`` may be sorted where they are (it is then not kept in item
        order), saving a copy of the block.

    Attributes
    ----------
    n, positive, negative, nonzero : numpy.ndarray
        Per pair the items, the differences above 0, below 0, and not 0.
    s, q, ss : numpy.ndarray
        Per pair ``sum D``, ``sum D^2`` and the centred ``sum (D - mean)^2`` (from the sorted
        values' running sums, the same sums every count's verdict is taken from).
    """

    def __init__(
        self,
        differences: ArrayLike,
        counts: tuple[ArrayLike, ArrayLike, ArrayLike] | None = None,
        *,
        scratch: Scratch | None = None,
        overwrite: bool = False,
    ) -> None:
        d = np.atleast_2d(np.asarray(differences, dtype=float))
        scratch = Scratch() if scratch is None else scratch
        if counts is None:
            present = ~np.isnan(d)
            self.n = present.sum(axis=1).astype(float)
            self.positive = (d > 0).sum(axis=1).astype(float)
            self.negative = (d < 0).sum(axis=1).astype(float)
        else:
            n, positive, negative = (
                np.broadcast_to(np.asarray(v, dtype=float), d.shape[:1]) for v in counts
            )
            self.n, self.positive, self.negative = n, positive, negative
            present = None if bool((n == d.shape[1]).all()) else ~np.isnan(d)
        self.complete = present is None or bool(present.all())
        self.nonzero = self.positive + self.negative
        self.shape = d.shape
        # Sorted where they are (``overwrite``) or in reused memory; a pair's missing items
        # (NaN) sort last as +inf and are then zeros, so they add nothing to any sum.
        if not (overwrite and d.flags.writeable and d.flags.c_contiguous):
            buffer = scratch.take("sorted", d.shape)
            buffer[...] = d
            d = buffer
        if not self.complete:
            d[~present] = np.inf
        d.sort(axis=1)
        if not self.complete:
            d[np.arange(d.shape[1])[None, :] >= self.n[:, None]] = 0.0
        self._ascending = d
        self._descending: FloatArray | None = None
        self._scratch = scratch
        self._sums: dict[bool, tuple[FloatArray, FloatArray, IntArray]] = {}
        # Running sums are made as deep as a scan asks, in steps growing by half.
        columns = d.shape[1]
        steps = np.ceil(64 * 1.5 ** np.arange(np.log(max(columns, 64) / 64) / np.log(1.5) + 1))
        self._depths = np.unique(np.minimum(np.append(steps, columns), columns)).astype(np.int64)
        # Running totals of each run of _CHUNK sorted values (D and D^2): [:, c] sums the
        # first c runs.
        pairs, columns = d.shape
        runs = columns // _CHUNK
        body = d[:, : runs * _CHUNK].reshape(pairs * runs, _CHUNK)
        self._runs = np.zeros((2, pairs, runs + 1))
        for total, part in zip(
            self._runs, (body @ np.ones(_CHUNK), np.einsum("ij,ij->i", body, body)), strict=True
        ):
            np.cumsum(part.reshape(pairs, runs), axis=1, out=total[:, 1:])
        self._flat = d.reshape(-1)
        s, q = self._prefix(np.arange(pairs), self.n.astype(np.int64))
        self.s, self.q = s, cast(FloatArray, q)
        s, n = self.s, self.n
        centred = self.q - np.divide(s * s, n, out=np.zeros_like(s), where=n > 0)
        self.ss = np.maximum(centred, 0.0)

    def ordered(self, largest: bool) -> FloatArray:
        """Each pair's differences sorted, the largest first (or the smallest), then zeros
        where items are missing."""
        if not largest:
            return self._ascending
        if self._descending is None:
            ascending = self._ascending
            if self.complete:
                self._descending = ascending[:, ::-1]
            else:  # reverse the items each pair has, keep the padding last
                column = np.arange(ascending.shape[1])[None, :]
                last = self.n[:, None].astype(np.int64) - 1
                at = np.where(column <= last, last - column, column)
                self._descending = np.take_along_axis(ascending, at, axis=1)
        return self._descending

    def _prefix(
        self, pair: IntArray, k: IntArray, squares: bool = True
    ) -> tuple[FloatArray, FloatArray | None]:
        """The sums of ``D`` and ``D^2`` (None unless ``squares``) over the first ``k``
        ascending values of ``pair`` (both 1-d): the runs' running totals and the values of
        the last, partial run (read from the flat block, a run never crossing its row)."""
        run = k // _CHUNK
        start = run * _CHUNK
        columns = self.shape[1]
        at = (pair * columns + start)[:, None] + _RUN
        values = np.take(self._flat, at, mode="clip")
        values *= _RUN < (k - start)[:, None]
        cell = pair * self._runs.shape[2] + run
        s = np.take(self._runs[0], cell) + values.sum(axis=1)
        if not squares:
            return s, None
        return s, np.take(self._runs[1], cell) + np.einsum("ij,ij->i", values, values)

    def left_constant(
        self, largest: bool, pair: IntArray, k: IntArray
    ) -> tuple[FloatArray, BoolArray]:
        """After removing the first ``k`` of the order (largest first or smallest), a value
        of what is left and whether all of it equals that value: what is left is a run of
        the ascending sort (its first ``n - k``, or all but its first ``k``), constant where
        the run's two ends are equal (``pair`` and ``k`` broadcast; nothing left: False)."""
        n = self.n[pair].astype(np.int64)
        first, last = (np.zeros_like(k), n - k - 1) if largest else (k, n - 1 + 0 * k)
        edge = self.shape[1] - 1
        low = self._ascending[pair, np.clip(first, 0, edge)]
        high = self._ascending[pair, np.clip(last, 0, edge)]
        return low, (low == high) & (k < n)

    def run_total(self, pair: IntArray, run: IntArray) -> FloatArray:
        """The sum of each pair's first ``run * _CHUNK`` ascending values (its runs' total)."""
        return np.take(self._runs[0], pair * self._runs.shape[2] + run)

    def remaining(
        self, largest: bool, pair: IntArray, k: IntArray, *, squares: bool = True
    ) -> tuple[FloatArray, FloatArray | None]:
        """The sums of ``D`` and ``D^2`` over the items left after removing the first ``k``
        of the order (``k``: shape (pairs, counts), non-decreasing along each row, 0 to the
        pair's items); ``squares`` False skips ``D^2`` (None).

        The sums at each row's first count come from the runs' totals; the later counts
        subtract the removed values' running sum, so a row of ``w`` counts reads ``w``
        values of the order, not the order up to them."""
        pair = np.asarray(pair, dtype=np.int64)
        k = np.asarray(k, dtype=np.int64)
        first = k[:, 0]
        n = self.n[pair].astype(np.int64)
        # What the first count leaves: the ascending order's first n - k (largest removed
        # first), or all of it less its first k.
        if largest:
            s0, q0 = self._prefix(pair, n - first, squares)
        else:
            s_k, q_k = self._prefix(pair, first, squares)
            s0 = self.s[pair] - s_k
            q0 = None if q_k is None else self.q[pair] - q_k
        offset = k - first[:, None]
        span = int(offset.max(initial=0))
        if span > _WIDE:  # a scan over many counts: the running sums of the whole order
            total, total_squares = self._running(largest, pair, k[:, -1])
            r, column = pair[:, None], np.maximum(k - 1, 0)
            rem_s = self.s[r] - np.where(k > 0, total[r, column], 0.0)
            if not squares:
                return rem_s, None
            return rem_s, self.q[r] - np.where(k > 0, total_squares[r, column], 0.0)
        if span == 0:
            rem_s = np.broadcast_to(s0[:, None], k.shape)
            return rem_s, None if q0 is None else np.broadcast_to(q0[:, None], k.shape)
        ordered = self.ordered(largest)
        at = np.minimum(first[:, None] + np.arange(span)[None, :], self.shape[1] - 1)
        removed = ordered[pair[:, None], at]
        squared = removed * removed if squares else None
        running = np.cumsum(removed, axis=1)
        taken = np.take_along_axis(running, np.maximum(offset - 1, 0), axis=1)
        rem_s = s0[:, None] - np.where(offset > 0, taken, 0.0)
        if squared is None:
            return rem_s, None
        running = np.cumsum(squared, axis=1, out=squared)
        taken = np.take_along_axis(running, np.maximum(offset - 1, 0), axis=1)
        return rem_s, q0[:, None] - np.where(offset > 0, taken, 0.0)  # type: ignore[index]

    def _running(
        self, largest: bool, rows: IntArray, deepest: IntArray
    ) -> tuple[FloatArray, FloatArray]:
        """The running sums of ``D`` and ``D^2`` along an order, made for ``rows`` at least
        through the counts ``deepest`` (one per row), for scans that evaluate every count:
        kept, so the levels and sides that scan the same pairs share them."""
        ordered = self.ordered(largest)
        if largest not in self._sums:
            take = self._scratch.take
            made = np.zeros(self.shape[0], dtype=np.int64)
            self._sums[largest] = (take(f"sum{largest}", self.shape),
                                   take(f"sq{largest}", self.shape), made)  # fmt: skip
        total, squares, made = self._sums[largest]
        short = deepest > made[rows]
        if not short.any():
            return total, squares
        todo, deepest = rows[short], deepest[short]
        if todo.size > 1 and np.any(todo[1:] <= todo[:-1]):  # a pair asked for twice: deepest
            by = np.lexsort((-deepest, todo))
            todo, deepest = todo[by], deepest[by]
            first = np.r_[True, todo[1:] != todo[:-1]]
            todo, deepest = todo[first], deepest[first]
        depths = self._depths
        target = depths[np.minimum(np.searchsorted(depths, deepest), depths.size - 1)]
        for start, stop in set(zip(made[todo].tolist(), target.tolist(), strict=True)):
            group = todo[(made[todo] == start) & (target == stop)]
            # Continue each row's running sums from where they stopped: adding the carry to
            # the first new term makes the same additions, in the same order, as one cumsum.
            part = ordered[group, start:stop]
            square = part * part
            if start:
                part[:, 0] += total[group, start - 1]
                square[:, 0] += squares[group, start - 1]
            total[group, start:stop] = np.cumsum(part, axis=1, out=part)
            squares[group, start:stop] = np.cumsum(square, axis=1, out=square)
            made[group] = stop
        return total, squares


# Sorted values are summed in runs of this many: a count's sums read at most one run.
_CHUNK = 16
_RUN = np.arange(_CHUNK)[None, :]
# A row of counts wider than this (a scan) reads the order's running sums, made once.
_WIDE = 256


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
    critical: FloatArray | None = None,
    margin: float = 0.0,
) -> tuple[BoolArray, BoolArray]:
    """Whether moments ``(S, SS, n)`` claim A better / B better (the verdict of the test);
    for ``test="t"`` the ``level`` array holds the critical values of the studentized gap.

    ``critical`` gives the paired t test's critical values at ``n`` (:class:`_Critical`):
    ``|t|`` is compared with them, and the p-value computed only within ``_BAND`` of one.
    ``margin`` asks whether the statistic clears its bar by that much (relative) instead: a
    certificate for the counts before it (the paired t test needs ``critical`` for it).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = np.where(n > 0, s / np.maximum(n, 1.0), 0.0)
        sd = np.sqrt(np.maximum(ss, 0.0) / np.maximum(n - ddof, 1.0))
    usable = n > ddof + 0
    if test == "paired_t" and critical is not None:
        yes = usable & (n >= 2) & _t_rejects(delta, sd, n, level, critical, alternative, margin)
        for_a, for_b = yes & (delta > 0), yes & (delta < 0)
    elif test == "paired_t":
        p = np.asarray(
            tests.paired_t_from_moments(
                delta, sd, np.maximum(n, 2.0), alternative=alternative
            ).p_value,
            dtype=float,
        )
        yes = usable & (n >= 2) & (p <= level) & (margin == 0)
        for_a, for_b = yes & (delta > 0), yes & (delta < 0)
    elif test == "t":
        t = np.asarray(tests.wald_statistic(delta, sd, np.maximum(n, 1.0)), dtype=float)
        usable = usable & (n >= 2)
        bar = level + margin * (np.abs(level) + 1.0)
        for_a, for_b = usable & (t > bar), usable & (t < -bar)
    else:
        t = np.asarray(tests.wald_statistic(delta, sd, np.maximum(n, 1.0)), dtype=float)
        bar = resolution_threshold(level, power, alternative)
        bar = bar + margin * (np.abs(bar) + 1.0)
        enough = usable & (nonzero >= need)
        for_a, for_b = enough & (t >= bar), enough & (t <= -bar)
    if margin > 0:  # a certificate holds where the gap is on the claim's side (monotone)
        for_a, for_b = for_a & (delta > 0), for_b & (delta < 0)
    if alternative == "greater":
        for_b = np.zeros_like(for_b)
    elif alternative == "less":
        for_a = np.zeros_like(for_a)
    return np.asarray(for_a, dtype=bool), np.asarray(for_b, dtype=bool)


def _t_rejects(
    delta: FloatArray,
    sd: FloatArray,
    n: FloatArray,
    level: FloatArray,
    critical: FloatArray,
    alternative: Alternative,
    margin: float,
) -> BoolArray:
    """Whether the paired t test rejects (``p <= level``), by its critical values: the
    p-value (as :func:`evalgap.stats.tests.paired_t_from_moments` gives it) only where the
    statistic is within ``_BAND`` of its critical value, the only place the two may part."""
    size = np.maximum(n, 2.0)
    delta, sd, size, level, critical = np.broadcast_arrays(delta, sd, size, level, critical)
    t = np.asarray(tests.wald_statistic(delta, sd, size), dtype=float)
    statistic = np.abs(t) if alternative == "two-sided" else t
    scale = np.abs(critical) + 1.0
    rejects = statistic >= critical + margin * scale
    if margin == 0:
        near = np.abs(statistic - critical) <= _BAND * scale
        if near.any():
            exact = tests.paired_t_from_moments(
                delta[near], sd[near], size[near], alternative=alternative
            )
            rejects[near] = np.asarray(exact.p_value, dtype=float) <= level[near]
    return rejects


# The paired t test's verdict along a removal order compares |t| with the t quantile at the
# remaining degrees of freedom (one quantile per df, not a p-value per count); where |t| is
# this close to it (relative), the p-value is computed as the verdict always was, so the two
# agree to the bit (stdtrit's quantiles are good to ~1e-12 for levels above 1e-100; the
# p-values serve levels below that, and more distinct levels than _TABLE_LEVELS).
_BAND = 1e-8
_TABLE_LEVELS = 8
# A certificate that every earlier count keeps the claim: the statistic clears its bar by
# this much (relative), far above the rounding of the statistic and of the quantile.
_MARGIN = 1e-6


class _Critical:
    """The paired t test's critical values, per level (of the pairs') and degrees of freedom."""

    def __init__(self, level: FloatArray, alternative: Alternative, most: int):
        levels, self.index = np.unique(level, return_inverse=True)
        self.usable = levels.size <= _TABLE_LEVELS and bool(
            np.all((levels > 1e-100) & (levels < 1.0))
        )
        if self.usable:
            self.table = _t_quantiles(tuple(levels.tolist()), alternative, most)

    def at(self, rows: IntArray, n: FloatArray) -> FloatArray | None:
        """The critical values of ``rows`` (one per row of ``n``) at ``n`` items."""
        if not self.usable:
            return None
        df = np.minimum(np.maximum(n, 2.0) - 1.0, self.table.shape[1] - 1).astype(np.int64)
        return self.table[self.index[rows][:, None], df]


@functools.lru_cache(maxsize=16)
def _t_quantiles(levels: tuple[float, ...], alternative: Alternative, most: int) -> FloatArray:
    """The t quantiles of ``levels`` at 0..most degrees of freedom (0 read as 1): one table
    for every block of a board's pairs, not 10^4 quantiles a block."""
    df = np.maximum(np.arange(most + 1, dtype=float), 1.0)
    table = np.asarray(intervals.t_quantile(np.asarray(levels)[:, None], df[None, :], alternative))
    table.flags.writeable = False
    return table


@dataclass(frozen=True)
class _Greedy:
    items: FloatArray  # the count at which the claim reverses; NaN where it never does
    lower: FloatArray  # certified lower bound (losing a claim only)
    favouring: FloatArray  # removed items with values > 0 (favouring the claimed side),
    tied: FloatArray  # = 0
    against: FloatArray  # and < 0


class _Search:
    """The greedy removal searches of one test over a :class:`SortedDifferences`.

    A claim for a side (``sign`` +1: A, -1: B) is examined on ``sign * D``: to lose it the
    largest ``sign * D`` go first, to create it the smallest. The verdict after ``k``
    removals depends on the sums of what is left only (``n - k``, ``S_k``, ``Q_k``), so each
    count costs a few values of the sorted order, not a pass over the items.

    Where a claim is lost, the certified bound (the full sample's SS kept) is monotone in
    ``k`` while the removed differences favour the claim (the first ``P``): ``S_k`` falls,
    ``n_k`` falls, the SS is fixed, so ``T_k`` falls, the t quantile at ``n_k - 1`` df rises
    and the count of non-zero differences falls; the first count that ends it is found by
    bisection there, and by an exhaustive scan past ``P`` (where ``S_k`` grows back). The
    greedy claim itself is not monotone (removing an extreme value can shrink the SD more
    than the gap), but it holds wherever the bound does: the same ``S_k`` and ``n_k`` with an
    SS no larger. So its search starts at the bound (:meth:`_leap`), and there the counts it
    does not evaluate are certified. Every shortcut is taken only with a floating-point
    certificate: the statistic clears its bar by ``_MARGIN`` at the last count skipped (the
    rounding of ``T`` is ~1e-15), and the first removal lowers the SS by more than the
    rounding of the sums can add (``16 n^2 eps Q``); otherwise the search starts at 1. A
    claim is created by an exhaustive scan from 1 (nothing monotone to use there). Each
    count evaluated is judged as the verdict always is, so the counts are those of a scan
    over every count.
    """

    def __init__(self, board: SortedDifferences, row_of: IntArray, level: FloatArray,
                 need: FloatArray, kw: dict[str, Any]):  # fmt: skip
        # The search's rows are (level, pair) rows; ``row_of`` gives each one's pair.
        self.board, self.row_of, self.level, self.need = board, row_of, level, need
        # A claim for B is a claim for A on -D: one-sided tests examine the upper side.
        side: Alternative = "greater" if kw["alternative"] != "two-sided" else "two-sided"
        self.kw = {**kw, "alternative": side}
        self.critical = (
            _Critical(level, side, board.shape[1]) if kw["test"] == "paired_t" else None
        )
        # Resolution's bar per row (the claim's |T| >= z_{1-alpha'/2} + z_{1-beta}).
        self.bar = (
            resolution_threshold(level, kw["power"], side) if kw["test"] == "wald" else None
        )

    def _holds(self, sign: float, largest: bool, rows: IntArray, k: IntArray, *,
               bound: bool = False, margin: float = 0.0) -> BoolArray:  # fmt: skip
        """Whether the claim for ``sign`` holds on ``rows`` after the first ``k`` removals
        (``k``: one row per row, 1-based counts) of the order, and at least one item stays;
        ``bound``: with the full sample's SS and every removal counted as non-zero."""
        b = self.board
        pair = self.row_of[rows]
        count = np.minimum(np.clip(k, 1, b.shape[1]), b.n[pair][:, None].astype(np.int64))
        left, squares = b.remaining(largest, pair, count, squares=not bound)
        return self._claim(sign, largest, rows, k, left, squares, margin=margin)

    def _claim(self, sign: float, largest: bool, rows: IntArray, k: IntArray,
               left: FloatArray, squares: FloatArray | None, *,
               margin: float = 0.0) -> BoolArray:  # fmt: skip
        """:meth:`_holds` from the sums of the differences left after ``k`` removals
        (``left``) and of their squares (None: the bound, with the full sample's SS)."""
        b = self.board
        pair = self.row_of[rows]
        r, own = pair[:, None], rows[:, None]
        bound = squares is None
        n_b = b.n[r] - k
        valid = n_b >= 1
        s_b = sign * left
        if bound:
            nz_b = b.nonzero[r] - k
            ss_b = np.broadcast_to(b.ss[r], s_b.shape)
        else:
            nz_b = b.nonzero[r] - self._nonzero_removed(largest, r, k)
            q_b = squares
            with np.errstate(divide="ignore", invalid="ignore"):
                ss_b = np.maximum(q_b - np.where(n_b > 0, s_b * s_b / n_b, 0.0), 0.0)
            # What is left is a run of the sorted values: where its ends are equal it is
            # constant, so its sum is its count times that value and its SS 0, exactly (the
            # sums' rounding would give a gap of 1e-16 over no spread, an infinite t).
            value, constant = b.left_constant(largest, r, k)
            if constant.any():
                s_b = np.where(constant, sign * value * n_b, s_b)
                ss_b = np.where(constant, 0.0, ss_b)
        n_b = np.maximum(n_b, 0)
        critical = None
        if self.critical is not None:
            critical = self.critical.at(rows, n_b)
            if critical is None and margin > 0:  # no certificate without the quantiles
                return np.zeros(k.shape, dtype=bool)
        for_a, _ = _graded_claims(s_b, ss_b, n_b.astype(float), nz_b, self.level[own],
                                  self.need[own], critical=critical, margin=margin,
                                  **self.kw)  # fmt: skip
        return for_a & valid

    def _nonzero_removed(self, largest: bool, pair: IntArray, k: IntArray) -> IntArray:
        """Non-zero differences among the first ``k`` of the order: its first sign's run,
        then the zeros, then the other sign's."""
        b = self.board
        first = (b.positive if largest else b.negative)[pair]
        zero = (b.n - b.positive - b.negative)[pair]
        return np.minimum(k, first) + np.maximum(k - first - zero, 0)

    def _certify(self, sign: float, largest: bool, rows: IntArray, start: IntArray,
                 end: IntArray, slack: FloatArray) -> BoolArray:  # fmt: skip
        """Whether the greedy claim surely holds at every count ``start..end`` (within the
        removals that favour it): ``S_k`` is smallest at ``end``, the SS largest at
        ``start`` (removals only lower it; ``slack`` covers the sums' rounding), ``n_k`` and
        the non-zero count smallest at ``end``, so the claim from those, by ``_MARGIN``,
        bounds every count between."""
        b = self.board
        pair = self.row_of[rows]
        s_start, q_start = b.remaining(largest, pair, start[:, None])
        s_end, _ = b.remaining(largest, pair, end[:, None], squares=False)
        s_start, q_start, s_end = s_start[:, 0], q_start[:, 0], sign * s_end[:, 0]  # type: ignore[index]
        n_start = b.n[pair] - start
        with np.errstate(divide="ignore", invalid="ignore"):
            centred = q_start - s_start * s_start / n_start
        ss = np.maximum(centred, 0.0) + slack
        n_end = b.n[pair] - end
        nz_end = b.nonzero[pair] - self._nonzero_removed(largest, pair, end)
        critical = None
        if self.critical is not None:
            critical = self.critical.at(rows, n_end[:, None])
            if critical is None:
                return np.zeros(rows.size, dtype=bool)
            critical = critical[:, 0]
        for_a, _ = _graded_claims(s_end, ss, n_end, nz_end, self.level[rows], self.need[rows],
                                  critical=critical, margin=_MARGIN, **self.kw)  # fmt: skip
        return for_a & (n_end >= 1)

    def _leap(self, sign: float, largest: bool, rows: IntArray, start: FloatArray,
              stop: FloatArray) -> FloatArray:  # fmt: skip
        """Per row the first count in ``start..stop`` at which the greedy claim no longer
        holds (NaN: none).

        A guess first: the claim is close to monotone along the order, so galloping from
        ``start`` and bisecting find a count ``c`` where it holds at ``c - 1`` and not at
        ``c``, as if it were. Then every count before ``c`` is shown to hold: the counts
        ``start..c - 1`` are cut into runs halving in width towards ``c`` (its margin shrinks
        there), all certified in one pass (:meth:`_certify`); a run that is not (or lies past
        the removals that favour the claim) is evaluated count by count. The first count
        found not to hold is the answer; ``c`` where every count before it holds."""
        b = self.board
        pair = self.row_of[rows]
        n, q = b.n[pair], b.q[pair]
        slack = 16.0 * n * n * np.finfo(float).eps * q
        favour = (b.positive if largest else b.negative)[pair].astype(np.int64)
        begin = np.asarray(start, dtype=np.int64)
        end = np.asarray(stop, dtype=np.int64)

        def holds(at: IntArray, k: IntArray) -> BoolArray:
            return self._holds(sign, largest, rows[at], k[:, None])[:, 0]

        # The guess: gallop from start (the claim ends within a few percent of the bound),
        # then bisect; ``low`` is taken to hold, ``high`` fails (stop + 1: past the counts).
        low, high = begin - 1, end + 1
        step = np.maximum(32, (begin - 1) // 16)
        probe = np.minimum(begin + step - 1, end)
        going = np.flatnonzero(begin <= end)
        while going.size:
            now = holds(going, probe[going])
            low[going] = np.where(now, probe[going], low[going])
            high[going] = np.where(now, high[going], probe[going])
            going = going[now & (probe[going] < end[going])]
            step[going] *= 2
            probe[going] = np.minimum(probe[going] + step[going], end[going])
        while (open_ := np.flatnonzero(high - low > 1)).size:
            mid = (low[open_] + high[open_]) // 2
            now = holds(open_, mid)
            low[open_] = np.where(now, mid, low[open_])
            high[open_] = np.where(now, high[open_], mid)
        # The proof: runs [c - 2^(j+1) + 1, c - 2^j] (from start on) for j = 0, 1, ...
        length = np.maximum(high - begin, 0)
        runs = np.ceil(np.log2(length + 1.0)).astype(np.int64)
        entry = np.repeat(np.arange(rows.size), runs)
        j = np.arange(entry.size) - np.repeat(np.cumsum(runs) - runs, runs)
        last = high[entry] - (1 << j)
        first = np.maximum(high[entry] - (1 << (j + 1)) + 1, begin[entry])
        sure = np.zeros(entry.size, dtype=bool)
        inside = np.flatnonzero(last <= favour[entry])
        if inside.size:
            at = entry[inside]
            sure[inside] = self._certify(sign, largest, rows[at], first[inside], last[inside],
                                         slack[at])  # fmt: skip
        out = np.where(high <= end, high, np.nan).astype(float)
        look = np.flatnonzero(~sure)
        if look.size:  # count by count, every run left in one evaluation
            at = entry[look]
            k = first[look, None] + np.arange(int((last - first)[look].max()) + 1)[None, :]
            within = k <= last[look, None]
            k = np.minimum(k, last[look, None])
            failed = ~self._holds(sign, largest, rows[at], k) & within
            got = failed.any(axis=1)
            count = np.where(got, k[np.arange(look.size), np.argmax(failed, axis=1)], np.inf)
            earliest = np.full(rows.size, np.inf)
            np.minimum.at(earliest, at, count)
            out = np.where(earliest < np.inf, earliest, out)
        return out

    def lose(self, sign: float, rows: IntArray) -> _Greedy:
        """The first count that ends the claim of ``rows`` (and its certified bound)."""
        b = self.board
        largest = sign > 0
        pair = self.row_of[rows]
        last = b.n[pair] - 1  # at least one item stays
        # The bound: bisection over the removals that favour the claim, where it is monotone.
        favour = (b.positive if largest else b.negative)[pair]
        most = np.minimum(favour, last)

        def bound_holds(at: IntArray, k: FloatArray, margin: float = 0.0) -> BoolArray:
            count = k[:, None].astype(np.int64)
            return self._holds(sign, largest, rows[at], count, bound=True, margin=margin)[:, 0]

        # Bracket the bound from every 32nd part of the removals favouring the claim (each
        # part's sum taken as its first value, or its last, times its length), test the
        # bracket's ends, then gallop up (by half again each step) from there while the bound
        # holds, so the sums are made little deeper than the count, and bisect the last step.
        # Where the bracket is wrong the search only takes more steps: it finds the first
        # count that fails (certified below), whatever the counts it tries.
        low, high = np.zeros(rows.size), most + 1  # holds at low; high: fails or past most
        crossing = self._crossing(sign, largest, rows, most)
        if crossing is None:
            below, above = self._bracket(sign, largest, rows, most)
        else:  # the count the closed form gives, and the one before it
            below, above = crossing - 1.0, np.where(crossing <= most, crossing, 0.0)
        for guess in (below, above):
            at = np.flatnonzero((guess > low) & (guess < high))
            if at.size:
                holds = bound_holds(at, guess[at])
                low[at] = np.where(holds, guess[at], low[at])
                high[at] = np.where(holds, high[at], guess[at])
        probe = np.where(low > 0, np.minimum(most, np.ceil(low * 1.5)), np.minimum(most, 16.0))
        probe = np.where(high <= most, low, probe)  # bracketed: bisect
        while (going := np.flatnonzero((probe > low) & (high == most + 1))).size:
            holds = bound_holds(going, probe[going])
            low[going] = np.where(holds, probe[going], low[going])
            high[going] = np.where(holds, high[going], probe[going])
            probe[going] = np.minimum(most[going], np.ceil(probe[going] * 1.5))
        while (open_ := np.flatnonzero(high - low > 1)).size:
            mid = np.floor((low[open_] + high[open_]) / 2.0)
            holds = bound_holds(open_, mid)
            low[open_] = np.where(holds, mid, low[open_])
            high[open_] = np.where(holds, high[open_], mid)
        # Certificate: every count up to ``low`` holds (by the margin there) ...
        sure = low == 0
        check = np.flatnonzero(~sure)
        if check.size:
            sure[check] = bound_holds(check, low[check], _MARGIN)
        skipped = np.where(sure, low, 0.0)
        lower = np.where(sure & (high <= most), high, np.nan)
        # ... else (or past the monotone run) the bound is scanned count by count.
        scan = np.flatnonzero(np.isnan(lower))
        lower[scan] = self._scan(sign, largest, rows[scan], skipped[scan] + 1, last[scan],
                                 bound=True, hit=False)  # fmt: skip
        # The greedy claim holds wherever the bound does (same S_k, SS no larger), when the
        # first removal lowers the SS by more than the sums' rounding can raise it.
        n, s, q = b.n[pair], b.s[pair], b.q[pair]
        top = sign * b.ordered(largest)[pair, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            drop = n / (n - 1.0) * (top - sign * s / n) ** 2
        safe = drop > 16.0 * n * n * np.finfo(float).eps * q
        start = np.where(safe, skipped, 0.0) + 1
        items = self._leap(sign, largest, rows, start, last)
        return self._kinds(items, lower, rows, largest, lose=True)

    def _crossing(self, sign: float, largest: bool, rows: IntArray,
                  most: FloatArray) -> FloatArray | None:  # fmt: skip
        """Per row the first count (``1..most``; ``most + 1``: none) at which the bound
        fails, from its closed form, or None for a test without one.

        With the full sample's SS kept the statistic is ``S_k / sqrt(SS)`` (Wald) or
        ``S_k sqrt((n_k - 1) / n_k) / sqrt(SS)`` (paired t), so the bound holds while the sum
        left ``S_k`` clears ``bar sqrt(SS)`` (against the t quantile at ``n_k - 1`` df, times
        ``sqrt(n_k / (n_k - 1))``), and for resolution while ``n_k`` differences are not 0.
        ``S_k`` falls with ``k`` over the removals that favour the claim: the count is found
        by bisection over the runs' totals (no values read), then among its run's counts.
        It is a guess, rounding aside: the search verifies it as any other."""
        test = self.kw["test"]
        critical = self.critical
        if test == "paired_t" and (critical is None or not critical.usable):
            return None
        if test not in ("wald", "paired_t"):
            return None
        b = self.board
        pair = self.row_of[rows]
        n = b.n[pair].astype(np.int64)
        root = np.sqrt(b.ss[pair])
        limit = b.nonzero[pair] - self.need[rows] if test == "wald" else b.n[pair]

        def clears(at: IntArray, k: IntArray, left: FloatArray) -> BoolArray:
            """Whether the sums ``left`` after ``k`` removals (each (len(at), w)) of the rows
            ``at`` clear the bar."""
            n_k = n[at, None] - k
            if self.bar is not None:
                bar = (self.bar[rows[at]] * root[at])[:, None]
            else:
                quantile = critical.at(rows[at], n_k.astype(float))  # type: ignore[union-attr]
                with np.errstate(divide="ignore", invalid="ignore"):
                    bar = quantile * root[at, None] * np.sqrt(n_k / (n_k - 1.0))
            return (left >= bar) & (k <= limit[at, None]) & (n_k >= 2)

        # Over the runs: the ascending totals A(16 j) are the sums left after n - 16 j
        # removals (the largest first, j stepping down from n // 16) or, less the total,
        # after 16 j (the smallest first); the first run boundary that fails, by bisection.
        top = n // _CHUNK
        if largest:
            steps = top - np.ceil((n - most) / _CHUNK)

            def ends(step: FloatArray, at: IntArray) -> BoolArray:
                j = top[at] - step.astype(np.int64)
                left = b.run_total(pair[at], j)
                return ~clears(at, (n[at] - j * _CHUNK)[:, None], left[:, None])[:, 0]

        else:
            steps = np.floor(most / _CHUNK)

            def ends(step: FloatArray, at: IntArray) -> BoolArray:
                j = step.astype(np.int64)
                left = b.run_total(pair[at], j) - b.s[pair[at]]
                return ~clears(at, (j * _CHUNK)[:, None], left[:, None])[:, 0]

        ended = _fewest(ends, steps)
        held = np.maximum(np.where(np.isnan(ended), steps, ended - 1), 0).astype(np.int64)
        # From 0 where no run was seen to hold (largest first: the first, partial run).
        start = np.where(held > 0, n - (top - held) * _CHUNK, 0) if largest else held * _CHUNK
        # ... then the counts of the run after the last count that holds (two runs: the
        # partial run's counts and the next when none was seen to hold).
        k = np.minimum(start[:, None] + 1 + np.arange(2 * _CHUNK)[None, :], n[:, None])
        left, _ = b.remaining(largest, pair, k, squares=False)
        fails = ~clears(np.arange(rows.size), k, sign * left) & (k <= most[:, None])
        first = k[np.arange(rows.size), np.argmax(fails, axis=1)]
        return np.where(fails.any(axis=1), first, most + 1).astype(float)

    def _bracket(self, sign: float, largest: bool, rows: IntArray,
                 most: FloatArray) -> tuple[FloatArray, FloatArray]:  # fmt: skip
        """Per row two counts the bound likely holds at and fails at (0 where none is
        known): the bound from the sums of the first ``c * j`` differences of the order,
        ``c`` a 32nd of ``most``, taken as ``c`` times the first value of each part of
        ``c`` (at least the sum, the order being sorted) or its last (at most)."""
        b = self.board
        parts = 32
        width = np.floor(most / parts)
        below, above = np.zeros(rows.size), np.zeros(rows.size)
        wide = np.flatnonzero(width >= 16)
        if not wide.size:
            return below, above
        c = width[wide].astype(np.int64)[:, None]
        start = c * np.arange(parts)[None, :]
        ordered = b.ordered(largest)
        pair = self.row_of[rows[wide]][:, None]
        k = start + c  # the counts at each part's end
        ends = []
        for first in (start, start + c - 1):
            left = b.s[pair] - c * np.cumsum(ordered[pair, first], axis=1)
            ends.append(self._claim(sign, largest, rows[wide], k, left, None))
        # The first values make the claim weaker than it is (their sum is further along the
        # order): where that still holds, the bound does; the last values make it stronger.
        holds_low, holds_high = ends
        row = np.arange(wide.size)
        holding = holds_low.sum(axis=1)  # the weaker claim holds on its first parts only
        below[wide] = np.where(holding > 0, k[row, np.maximum(holding - 1, 0)], 0.0)
        failing = np.argmax(~holds_high, axis=1)
        above[wide] = np.where(~holds_high.all(axis=1), k[row, failing], 0.0)
        return below, above

    def gain(self, sign: float, rows: IntArray, below: FloatArray) -> _Greedy:
        """The first count that creates a claim for ``sign`` on ``rows``, if fewer than
        ``below`` (NaN: any)."""
        largest = sign < 0
        last = self.board.n[self.row_of[rows]] - 1
        last = np.where(np.isnan(below), last, np.minimum(last, below - 1))
        items = self._scan(sign, largest, rows, np.ones(rows.size), last, hit=True)
        return self._kinds(items, np.full(rows.size, np.nan), rows, largest, lose=False)

    def _scan(self, sign: float, largest: bool, rows: IntArray, start: FloatArray,
              stop: FloatArray, *, hit: bool, bound: bool = False) -> FloatArray:  # fmt: skip
        """Per row the first count in ``start..stop`` where the claim holds (``hit``) or
        not; NaN where none. Counts are taken in widening windows and a row leaves once
        found, so a search that ends after a few counts evaluates a few."""
        out = np.full(rows.size, np.nan)
        first = np.asarray(start, dtype=np.int64).copy()
        stop = np.asarray(stop, dtype=np.int64)
        todo = np.flatnonzero(first <= stop)
        width = 32
        while todo.size:
            k = first[todo, None] + np.arange(width)[None, :]
            inside = k <= stop[todo, None]
            k = np.minimum(k, np.maximum(stop[todo, None], 1))
            holds = self._holds(sign, largest, rows[todo], k, bound=bound)
            found = (holds == hit) & inside
            got = found.any(axis=1)
            out[todo[got]] = k[got, np.argmax(found[got], axis=1)]
            first[todo] += width
            todo = todo[~got]
            todo = todo[first[todo] <= stop[todo]]
            width *= 4
        return out

    def _kinds(self, items: FloatArray, lower: FloatArray, rows: IntArray, largest: bool,
               lose: bool) -> _Greedy:  # fmt: skip
        """The removed items by kind: the order is sorted, so the first ``at`` hold the
        values of the order's first sign, then the zeros, then the others; ``at`` never
        reaches the padding of missing items (at least one stays)."""
        b = self.board
        at = np.nan_to_num(items)
        pair = self.row_of[rows]
        first = (b.positive if largest else b.negative)[pair]
        zero = (b.n - b.positive - b.negative)[pair]
        taken_first = np.minimum(at, first)
        tied = np.minimum(np.maximum(at - first, 0), zero)
        taken_last = at - taken_first - tied
        favouring, against = (taken_first, taken_last) if lose else (taken_last, taken_first)
        return _Greedy(items, lower, favouring, tied, against)


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
