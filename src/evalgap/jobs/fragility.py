"""Items to flip: how many items, and which, would reverse each verdict about a pair.

Every verdict ``compare`` and ``audit`` print rests on a test at a level: the exact McNemar
test and the chi-square test (binary), the paired t test and the sign test (graded), and
resolution (``q >= 1``, Definition 1) at the level of each multiplicity procedure. For each,
the fewest items whose removal from the pair reverses the verdict comes from
:mod:`evalgap.stats.fragility`: exact for binary pairs and for the sign test, bounds (exact
where they meet) for the paired t test and graded resolution. Read the other way, an
unresolved pair would be resolved by ``N* - N`` more items at the observed rates; the
resolution entry carries that figure as ``items_to_resolve``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from evalgap._results import Result, plain
from evalgap.stats import fragility as fr
from evalgap.stats import tests

if TYPE_CHECKING:
    from evalgap.stats._types import Alternative, ArrayLike

# The tests each kind of pair's verdict uses, in report order: test -> (core test, label).
BINARY = {"exact": "exact", "mcnemar": "mcnemar", "resolution": "wald"}
GRADED = {"paired_t": "paired_t", "sign": "exact", "resolution": "wald"}
EXACT_METHOD = "exact: bisection over the discordant counts (removals of one kind)"
SIGN_METHOD = "exact: bisection over the counts of positive and negative differences"
GREEDY_METHOD = (
    "greedy: the largest differences in the claim's direction removed first (an upper bound)"
)
BOUNDED_METHOD = GREEDY_METHOD + "; certified lower bound: the sum falls by at most the k largest"


@dataclass(frozen=True, repr=False)
class TestFragility(Result):
    """How few items reverse one test's verdict about a pair.

    Attributes
    ----------
    test : str
        ``exact``, ``mcnemar``, ``paired_t``, ``sign`` or ``resolution``.
    level : float
        The level the verdict uses (alpha, or a multiplicity procedure's).
    claim : str or None
        The model the verdict declares better now; None when it declares neither.
    items_to_flip : int or None
        The fewest items whose removal reverses the verdict (ends the claim, or creates one
        for either model); None where no removal can. An upper bound where ``exact`` is
        False.
    exact : bool
        Whether ``items_to_flip`` is the exact minimum.
    lower_bound : int or None
        A certified lower bound on that minimum (equal to it where ``exact``).
    after : str or None
        The model the verdict would declare better after the removal (None: neither).
    remove_a_only, remove_b_only, remove_concordant : int or None
        The removal by kind: items only A got right (graded: A scored higher), only B got
        right, and items the two agree on.
    item_ids : tuple of str
        One removal set of that size, by item id (empty when only counts were given).
    items_to_resolve : int or None
        Resolution only: ``N* - N``, the items that would resolve an unresolved gap at the
        observed rates (None when resolved, or when N* is not estimated).
    method : str
        How the count was found.
    """

    __test__ = False  # not a pytest test class

    test: str
    level: float
    claim: str | None
    items_to_flip: int | None
    exact: bool
    lower_bound: int | None
    after: str | None
    remove_a_only: int | None
    remove_b_only: int | None
    remove_concordant: int | None
    item_ids: tuple[str, ...]
    items_to_resolve: int | None
    method: str
    _headline = ("test", "items_to_flip")


@dataclass(frozen=True, repr=False)
class Fragility(Result):
    """Items to flip for every test a pair's verdict uses (``compare``'s ``fragility``).

    Attributes
    ----------
    tests : tuple of TestFragility
        One entry per test, in report order.

    Its JSON form maps each test to its entry: ``{"exact": {"items_to_flip": 3, ...}, ...}``.
    """

    tests: tuple[TestFragility, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{test: entry}`` (each entry its fields, ``test`` itself left out)."""
        out = {}
        for entry in self.tests:
            fields = plain(entry)
            fields.pop("test")
            out[entry.test] = fields
        return out

    def __getitem__(self, test: str) -> TestFragility:
        for entry in self.tests:
            if entry.test == test:
                return entry
        raise KeyError(test)

    def __repr__(self) -> str:
        shown = ", ".join(f"{t.test}={t.items_to_flip}" for t in self.tests)
        return f"Fragility({shown})"


def pair_fragility(
    *,
    a_only: int,
    b_only: int,
    n_items: int,
    binary: bool,
    alpha: float,
    power: float,
    alternative: Alternative,
    model_a: str,
    model_b: str,
    required_n: int | None,
    resolved: bool,
    scores_a: ArrayLike | None = None,
    scores_b: ArrayLike | None = None,
    item_ids: ArrayLike | None = None,
) -> Fragility:
    """Return the items to flip of every test a pair's verdict uses (compare's ``fragility``).

    Parameters
    ----------
    a_only, b_only, n_items : int
        The pair's discordant counts (graded: items where A / B scored higher) and items.
    binary : bool
        Whether the scores are 0/1.
    alpha, power, alternative
        The verdict's settings.
    model_a, model_b : str
        The two models, for ``claim`` and ``after``.
    required_n : int or None
        N*, for ``items_to_resolve``.
    resolved : bool
        Whether the pair is resolved (q >= 1).
    scores_a, scores_b : array_like, optional
        The aligned per-item scores; needed for graded pairs (their differences) and for
        naming the items to remove.
    item_ids : array_like, optional
        The items' ids, aligned with the scores.

    Returns
    -------
    Fragility
    """
    need = int(tests.min_differing_items(alpha, alternative))
    d = None
    if scores_a is not None and scores_b is not None:
        d = np.asarray(scores_a, dtype=float) - np.asarray(scores_b, dtype=float)
    ids = None if item_ids is None else np.asarray(item_ids).astype(str)
    names = {1: model_a, -1: model_b, 0: None}
    entries = []
    plan = BINARY if binary else GRADED
    for test, core in plan.items():
        common: dict[str, Any] = {"level": alpha, "alternative": alternative, "power": power}
        if core == "wald":
            common["min_differing"] = need
        if binary or test == "sign":
            flips = fr.binary_flips(a_only, b_only, n_items, test=core, **common)  # type: ignore[arg-type]
            method = EXACT_METHOD if binary else SIGN_METHOD
        else:
            assert d is not None, "graded pairs need their per-item scores"
            flips = fr.graded_flips(d[None, :], test=core, **common)  # type: ignore[arg-type]
            method = BOUNDED_METHOD if flips.decided[0] else GREEDY_METHOD
        to_resolve = None
        if test == "resolution" and not resolved and required_n is not None:
            to_resolve = max(int(required_n) - int(n_items), 0)
        entries.append(
            TestFragility(
                test=test,
                level=float(alpha),
                claim=names[int(flips.favours[0])],
                items_to_flip=_count(flips.items[0]),
                exact=bool(flips.exact[0]),
                lower_bound=_count(flips.lower[0]),
                after=names[int(flips.after[0])],
                remove_a_only=_count(flips.remove_a_only[0]),
                remove_b_only=_count(flips.remove_b_only[0]),
                remove_concordant=_count(flips.remove_concordant[0]),
                item_ids=_removal_set(flips, d, ids, binary),
                items_to_resolve=to_resolve,
                method=method,
            )
        )
    return Fragility(tests=tuple(entries))


def _count(value: float) -> int | None:
    return None if np.isnan(value) else int(value)


def _removal_set(flips: fr.Flips, d: np.ndarray | None, ids: np.ndarray | None, binary: bool):
    """One removal set by item id: for binary pairs the first items of each kind in the
    scores' order (any of a kind serve alike); for graded pairs the greedy set itself."""
    if d is None or ids is None or np.isnan(flips.items[0]):
        return ()
    k = int(flips.items[0])
    if binary:
        chosen = []
        kinds = (d > 0, flips.remove_a_only[0]), (d < 0, flips.remove_b_only[0])
        for mask, count in (*kinds, (d == 0, flips.remove_concordant[0])):
            chosen.append(np.flatnonzero(mask)[: int(count)])
        picked = np.concatenate(chosen)
    elif flips.decided[0]:  # the claim's largest differences first
        picked = np.argsort(-int(flips.favours[0]) * d, kind="stable")[:k]
    else:  # the differences most against the side the removal would favour, first
        picked = np.argsort(int(flips.after[0]) * d, kind="stable")[:k]
    return tuple(ids[np.sort(picked)].tolist())
