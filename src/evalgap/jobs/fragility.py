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

import dataclasses
import gc
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, overload

import numpy as np

from evalgap._results import Result, RowResult, TableResult, plain
from evalgap.jobs._pages import Views
from evalgap.stats import fragility as fr
from evalgap.stats import tests

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

    from evalgap.stats._types import Alternative, ArrayLike

# The tests each kind of pair's verdict uses, in report order: test -> (core test, label).
BINARY_TESTS = ("exact", "mcnemar")
GRADED_TESTS = ("paired_t", "sign")
EXACT_METHOD = "exact: bisection over the discordant counts (removals of one kind)"
SIGN_METHOD = "exact: bisection over the counts of positive and negative differences"
GREEDY_METHOD = (
    "greedy: the largest differences in the claim's direction removed first (an upper bound)"
)
BOUNDED_METHOD = GREEDY_METHOD + "; certified lower bound: the sum falls by at most the k largest"


@dataclass(frozen=True, repr=False)
class TestFragility(RowResult):
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

    tests: tuple[TestFragility | TaskTestFragility, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{test: entry}`` (each entry its fields, ``test`` itself left out)."""
        out = {}
        for entry in self.tests:
            fields = plain(entry)
            fields.pop("test")
            out[entry.test] = fields
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return one row per test (``item_ids`` joined by commas).

        Returns
        -------
        pandas.DataFrame
            ``test`` and the entry's fields.
        """
        import pandas as pd

        return pd.DataFrame(_test_rows(self))

    def __getitem__(self, test: str) -> Any:
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
    d = None
    if scores_a is not None and scores_b is not None:
        d = np.asarray(scores_a, dtype=float) - np.asarray(scores_b, dtype=float)
    procedures = ("resolution",)
    flips = board_flips(
        a_only=np.array([a_only]),
        b_only=np.array([b_only]),
        n_items=np.array([n_items]),
        binary=np.array([binary]),
        statistic=np.array([0.0]),  # a family of one: no procedure's level depends on it
        alpha=alpha,
        power=power,
        family_size=1,
        alternative=alternative,
        differences=None if d is None else (lambda rows: d[None, :].copy()),
        procedures=procedures,
    )
    required = np.nan if resolved or required_n is None else max(int(required_n) - n_items, 0)
    named = None
    if d is not None and item_ids is not None:
        named = [_named_sets(flips, 0, d, item_ids, binary, procedures)]
    table = PairFragilities(
        task=np.array([""]),
        model_a=np.array([model_a]),
        model_b=np.array([model_b]),
        binary=np.array([binary]),
        n_items=np.array([n_items]),
        delta=np.array([np.nan]),
        flips=flips,
        levels={"alpha": np.array([float(alpha)]), "resolution": np.array([float(alpha)])},
        items_to_resolve=np.array([required], dtype=float),
        item_ids=named,
        procedures=procedures,
    )
    return table[0].fragility


def _named_sets(
    flips: dict[str, fr.Flips],
    row: int,
    d: np.ndarray,
    item_ids: ArrayLike,
    binary: bool,
    procedures: tuple[str, ...],
) -> dict[str, tuple[str, ...]]:
    """Pair ``row``'s removal set of each entry, by item id (``d``: its differences)."""
    ids = np.asarray(item_ids).astype(str)
    return {
        test: _removal_set(_take(flips[test], np.array([row])), d, ids, binary)
        for test in _tests_of(binary, procedures)
    }


def _count(value: float) -> int | None:
    return None if np.isnan(value) else int(value)


def _removal_set(
    flips: fr.Flips, d: np.ndarray | None, ids: np.ndarray | None, binary: bool
) -> tuple:
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


# A board's verdicts: the tests and the resolution procedures the audit reports per pair.
BOARD_TESTS = ("exact", "mcnemar", "paired_t", "sign")
BOARD_PROCEDURES = ("resolution", "bonferroni", "sidak", "holm")
# Graded pairs need their per-item differences: (pairs x items) floats, at most this many
# at once; a board whose graded pairs hold more is computed block by block. 16 MiB a matrix:
# the greedy search keeps several, and at 2^24 their page faults cost as much system time
# as the search (100 x 2,000 graded: 10.8 -> 3.3 system s, peak 1.26 -> 0.58 GiB).
GRADED_BLOCK = 1 << 21


def board_flips(
    *,
    a_only: np.ndarray,
    b_only: np.ndarray,
    n_items: np.ndarray,
    binary: np.ndarray,
    statistic: np.ndarray,
    alpha: float,
    power: float,
    family_size: int,
    alternative: Alternative = "two-sided",
    differences: Callable[[np.ndarray], np.ndarray] | None = None,
    procedures: tuple[str, ...] = BOARD_PROCEDURES,
    counted: bool = False,
) -> dict[str, fr.Flips]:
    """Return the items to flip of every pair of a family, per test and per procedure.

    Parameters
    ----------
    a_only, b_only, n_items, binary, statistic : numpy.ndarray
        Per pair: the discordant counts, the items, whether the scores are 0/1, and the
        Wald statistic the procedures rank (the whole family, as the audit's verdicts).
    alpha, power : float
        The level and power.
    family_size : int
        The family's size m.
    alternative : {"two-sided", "greater", "less"}
        The tested side (compare); the audit is two-sided.
    differences : callable, optional
        ``differences(rows) -> (len(rows), items)`` per-item differences of those pairs
        (NaN where a pair lacks an item), which the search sorts where it is and may
        reuse for the next call's rows; needed for graded pairs' paired t test and
        resolution. Without it those entries are NaN.
    procedures : tuple of str
        The resolution procedures to compute (all by default).
    counted : bool
        Whether the graded pairs' ``a_only``, ``b_only`` and ``n_items`` were counted from
        the same differences (the audit's counts): then they are not counted again.

    Returns
    -------
    dict
        ``{"exact", "mcnemar"}`` (binary pairs; NaN for graded), ``{"paired_t", "sign"}``
        (graded; NaN for binary) and the resolution procedures ``{"resolution"`` (fixed n,
        at alpha), ``"bonferroni", "sidak", "holm"}`` -> a
        :class:`evalgap.stats.fragility.Flips` over the pairs. Holm's entry holds the other
        pairs' statistics fixed (only the pair's own items removed).
    """
    m = int(family_size)
    b, c, n = (np.asarray(v, dtype=float) for v in (a_only, b_only, n_items))
    binary = np.asarray(binary, dtype=bool)
    need = int(tests.min_differing_items(alpha, alternative))
    levels = board_levels(statistic, alpha, power, m, procedures)
    side: dict[str, Any] = {"alternative": alternative}
    # The graded pairs' searches over one sort of each block of differences: the paired t
    # test, and resolution at every procedure's level in one search.
    resolution = {"test": "wald", "power": power, "min_differing": need, **side}
    graded = _graded(
        ~binary,
        differences,
        [({"paired_t": alpha}, {"test": "paired_t", **side}), (levels, resolution)],
        counts=(n, b, c) if counted else None,
    )
    out: dict[str, fr.Flips] = {}
    for test in BOARD_TESTS:
        core = "exact" if test == "sign" else test
        rows = ~binary if test in ("paired_t", "sign") else binary
        if test == "paired_t":
            out[test] = graded[test]
        else:
            level = np.full(b.shape, float(alpha))
            out[test] = _binary(rows, (b, c, n), test=core, level=level, **side)
    for name, level in levels.items():
        kw = {"power": power, "min_differing": need, **side}
        binary_part = _binary(binary, (b, c, n), test="wald", level=level, **kw)
        out[name] = _merge(binary, binary_part, graded[name])
    return out


def board_levels(
    statistic: np.ndarray,
    alpha: float,
    power: float,
    family_size: int,
    procedures: Iterable[str] = BOARD_PROCEDURES,
) -> dict[str, np.ndarray]:
    """Return each resolution procedure's level per pair (Holm's with the others fixed)."""
    from evalgap.stats import multiplicity

    shape = np.shape(statistic)
    m = int(family_size)
    make = {
        "resolution": lambda: np.full(shape, float(alpha)),
        "bonferroni": lambda: np.full(shape, float(multiplicity.per_pair_alpha(alpha, m))),
        "sidak": lambda: np.full(shape, float(multiplicity.per_pair_alpha(alpha, m, "sidak"))),
        "holm": lambda: np.asarray(fr.holm_levels(statistic, alpha, power, m), dtype=float),
    }
    return {name: make[name]() for name in procedures}


def _binary(
    rows: np.ndarray, counts: tuple[np.ndarray, ...], *, level: np.ndarray, **kw: Any
) -> fr.Flips:
    """Binary pairs' flips for the pairs in ``rows``, placed over all pairs (NaN elsewhere)."""
    full = _empty(rows.size)
    index = np.flatnonzero(rows)
    if index.size:
        b, c, n = (v[index] for v in counts)
        _place(full, index, fr.binary_flips(b, c, n, level=level[index], **kw))
    return full


def _graded(
    rows: np.ndarray,
    differences: Callable[[np.ndarray], np.ndarray] | None,
    searches: list[tuple[dict[str, Any], dict[str, Any]]],
    counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> dict[str, fr.Flips]:
    """Graded pairs' flips per named level, block by block of their per-item differences,
    each block sorted once for all: ``searches`` holds ``({name: level}, keywords)`` (a
    level per pair or one), the levels of one entry searched together. ``counts``: per pair
    the items and the differences above and below 0, as the audit counted them."""
    named = {name: level for levels, _ in searches for name, level in levels.items()}
    full = {name: _empty(rows.size) for name in named}
    index = np.flatnonzero(rows)
    if differences is None or index.size == 0 or not named:
        return full
    per_pair = {
        name: np.broadcast_to(np.asarray(level, dtype=float), rows.shape)
        for name, level in named.items()
    }
    first = differences(index[:1])
    per_block = max(1, GRADED_BLOCK // max(first.shape[1], 1))
    scratch = fr.Scratch()  # one block's memory, reused by the next
    for start in range(0, index.size, per_block):
        block = index[start : start + per_block]
        known = None if counts is None else tuple(v[block] for v in counts)
        sorted_ = fr.SortedDifferences(
            differences(block), known, scratch=scratch, overwrite=True  # type: ignore[arg-type]
        )
        for levels, kw in searches:
            if not levels:
                continue
            at = [per_pair[name][block] for name in levels]
            parts = fr.graded_flips_at_levels(sorted_, at, **kw)
            for name, part in zip(levels, parts, strict=True):
                _place(full[name], block, part)
    return full


def _empty(size: int) -> fr.Flips:
    nan = np.full(size, np.nan)
    zeros = np.zeros(size, dtype=int)
    return fr.Flips(
        decided=np.zeros(size, dtype=bool),
        favours=zeros.copy(),
        items=nan.copy(),
        lower=nan.copy(),
        exact=np.zeros(size, dtype=bool),
        after=zeros.copy(),
        remove_a_only=nan.copy(),
        remove_b_only=nan.copy(),
        remove_concordant=nan.copy(),
    )


def _place(full: fr.Flips, rows: np.ndarray, part: fr.Flips) -> None:
    for name in fr.Flips.__dataclass_fields__:
        getattr(full, name)[rows] = getattr(part, name)


def _merge(binary: np.ndarray, a: fr.Flips, b: fr.Flips) -> fr.Flips:
    """Binary pairs from ``a``, graded from ``b``."""
    merged = _empty(binary.size)
    _place(merged, np.flatnonzero(binary), _take(a, binary))
    _place(merged, np.flatnonzero(~binary), _take(b, ~binary))
    return merged


def _take(f: fr.Flips, rows: np.ndarray) -> fr.Flips:
    return fr.Flips(**{name: getattr(f, name)[rows] for name in fr.Flips.__dataclass_fields__})


# A family this size or smaller lists each removal set by item id; a larger one gives counts
# (its ids would dwarf the table) and says so.
ITEM_IDS_PAIRS = 1000


@dataclass(frozen=True, repr=False)
class PairFragility(Result):
    """One pair of a board and its items to flip (a row of :class:`FragilityResult`).

    Attributes
    ----------
    task, model_a, model_b : str
        The pair, A ranked above B.
    binary : bool
        Whether both models' scores are 0/1.
    n_items : int
        Items both scored.
    delta : float
        A's mean minus B's.
    fragility : Fragility
        Per test and procedure, as in ``compare``.
    """

    task: str
    model_a: str
    model_b: str
    binary: bool
    n_items: int
    delta: float
    fragility: Fragility
    _headline = ("model_a", "model_b")

    def to_frame(self) -> pd.DataFrame:
        """Return one row per test, the pair's ``task, model_a, model_b, delta`` first.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        return pd.DataFrame(_pair_rows(self))


# The fields of a TestFragility after ``test``, in its JSON order.
ENTRY_FIELDS = tuple(f for f in TestFragility.__dataclass_fields__ if f != "test")
PAIR_FIELDS = ("task", "model_a", "model_b", "binary", "n_items", "delta")


class PairFragilities(Sequence[PairFragility]):
    """The pairs of a :class:`FragilityResult`: a table of arrays, one row per pair.

    It reads as a sequence of :class:`PairFragility` (``len``, indexing, iteration), each
    built when it is read; ``to_dict()`` (the JSON list), :meth:`entries` and
    :meth:`FragilityResult.to_frame` read the arrays column by column, so a family of 10^5
    pairs costs no object per pair and entry. Every view reads the same columns
    (:meth:`entries`), so a row read one at a time equals its JSON.

    Parameters
    ----------
    task, model_a, model_b : numpy.ndarray of str
        The pairs, A ranked above B.
    binary : numpy.ndarray of bool
        Whether both models' scores are 0/1.
    n_items : numpy.ndarray of int
        Items both scored.
    delta : numpy.ndarray of float
        A's mean minus B's.
    flips : dict
        ``test -> Flips`` over the pairs (:func:`board_flips`).
    levels : dict
        ``test -> level`` per pair for the procedures; ``"alpha"`` for the tests.
    items_to_resolve : numpy.ndarray of float
        ``N* - N`` of unresolved pairs (NaN elsewhere), for the ``resolution`` entry.
    item_ids : list of dict, optional
        Per pair, ``test -> removal set by item id`` (empty sets without it).
    """

    def __init__(
        self,
        *,
        task: np.ndarray,
        model_a: np.ndarray,
        model_b: np.ndarray,
        binary: np.ndarray,
        n_items: np.ndarray,
        delta: np.ndarray,
        flips: dict[str, fr.Flips],
        levels: dict[str, np.ndarray],
        items_to_resolve: np.ndarray,
        item_ids: list[dict[str, tuple[str, ...]]] | None = None,
        procedures: tuple[str, ...] = (),
    ) -> None:
        self.task, self.model_a, self.model_b = task, model_a, model_b
        self.binary, self.n_items, self.delta = binary, n_items, delta
        self._flips, self._levels = flips, levels
        self._to_resolve, self._item_ids = items_to_resolve, item_ids
        self._columns: dict[str, dict[str, list[Any]]] | None = None
        self._procedures = procedures

    def __len__(self) -> int:
        return int(self.binary.size)

    @overload
    def __getitem__(self, k: int) -> PairFragility: ...

    @overload
    def __getitem__(self, k: slice) -> list[PairFragility]: ...

    def __getitem__(self, k: int | slice) -> PairFragility | list[PairFragility]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        row = range(len(self))[k]  # IndexError past the end; negative indices count back
        columns = self.entries()
        tests = tuple(
            TestFragility(test=test, **{f: columns[test][f][row] for f in ENTRY_FIELDS})
            for test in _tests_of(bool(self.binary[row]), self._procedures)
        )
        return PairFragility(
            task=str(self.task[row]),
            model_a=str(self.model_a[row]),
            model_b=str(self.model_b[row]),
            binary=bool(self.binary[row]),
            n_items=int(self.n_items[row]),
            delta=float(self.delta[row]),
            fragility=Fragility(tests),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairFragilities):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable-looking arrays: not hashable

    def __repr__(self) -> str:
        return f"PairFragilities(<{len(self)} pairs>)"

    def tests(self) -> tuple[str, ...]:
        """The entries present, in the order the pairs list them (binary tests first where
        the first pair is binary)."""
        kinds = [bool(self.binary[0])] if len(self) else []
        kinds += [not kinds[0]] if kinds and (self.binary != kinds[0]).any() else []
        return tuple(dict.fromkeys(t for kind in kinds for t in self._tests_of(kind)))

    def entries(self) -> dict[str, dict[str, list[Any]]]:
        """Return ``test -> field -> values over all pairs`` (each field of
        :class:`TestFragility` as it reads, ``None`` for a missing count).

        A pair's own entries are those of its kind (binary or graded); the others hold the
        empty values of a test the pair does not have.
        """
        if self._columns is None:
            with _collector_paused():
                self._columns = {test: self._entry_columns(test) for test in self._all_tests()}
        return self._columns

    def _tests_of(self, binary: bool) -> tuple[str, ...]:
        return _tests_of(binary, self._procedures)

    def _all_tests(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self._tests_of(True), *self._tests_of(False))))

    def _entry_columns(self, test: str) -> dict[str, list[Any]]:
        f = self._flips[test]
        graded_bound = ~self.binary & (test != "sign")
        if test == "sign":
            method = np.full(len(self), SIGN_METHOD, dtype=object)
        else:
            method = np.where(
                graded_bound,
                np.where(f.decided, BOUNDED_METHOD, GREEDY_METHOD),
                EXACT_METHOD,
            ).astype(object)
        claim = _names(f.favours, self.model_a, self.model_b)
        level = self._levels.get(test, self._levels["alpha"])
        resolve = _counts(self._to_resolve) if test == "resolution" else [None] * len(self)
        ids = (
            [named.get(test, ()) for named in self._item_ids]
            if self._item_ids is not None
            else [()] * len(self)
        )
        return {
            "level": np.asarray(level, dtype=float).tolist(),
            "claim": claim,
            "items_to_flip": _counts(f.items),
            "exact": np.asarray(f.exact, dtype=bool).tolist(),
            "lower_bound": _counts(f.lower),
            "after": _names(f.after, self.model_a, self.model_b),
            "remove_a_only": _counts(f.remove_a_only),
            "remove_b_only": _counts(f.remove_b_only),
            "remove_concordant": _counts(f.remove_concordant),
            "item_ids": ids,
            "items_to_resolve": resolve,
            "method": method.tolist(),
        }

    def _head(self) -> dict[str, list[Any]]:
        return {
            "task": self.task.tolist(),
            "model_a": self.model_a.tolist(),
            "model_b": self.model_b.tolist(),
            "binary": self.binary.tolist(),
            "n_items": self.n_items.tolist(),
            "delta": self.delta.tolist(),
        }

    def to_dict(self) -> list[dict[str, Any]]:
        """Return the JSON list: per pair its fields and ``fragility`` (``{test: entry}``),
        as :meth:`PairFragility.to_dict` gives it."""
        with _collector_paused():
            return self._to_dict()

    def _to_dict(self) -> list[dict[str, Any]]:
        columns = self.entries()
        rows = {
            test: [
                dict(zip(ENTRY_FIELDS, values, strict=True))
                for values in zip(*(_json(columns[test][f], f) for f in ENTRY_FIELDS), strict=True)
            ]
            for test in self.tests()
        }
        head = self._head()
        head["delta"] = _finite(head["delta"])
        out = []
        for k, values in enumerate(zip(*(head[f] for f in PAIR_FIELDS), strict=True)):
            pair = dict(zip(PAIR_FIELDS, values, strict=True))
            pair["fragility"] = {test: rows[test][k] for test in self._tests_of(values[3])}
            out.append(pair)
        return out

    def items_matrix(self) -> np.ndarray:
        """Return ``(pairs, entries)`` items to flip, each pair's entries in its own order
        (its tests, then the procedures; NaN where no removal reverses the verdict)."""
        out = np.full((len(self), len(self._tests_of(True))), np.nan)
        for kind in (True, False):
            rows = self.binary == kind
            for j, test in enumerate(self._tests_of(kind)):
                out[rows, j] = self._flips[test].items[rows]
        return out


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while plain data (dicts and lists of numbers and
    strings, no cycles) is built: ~10^6 new containers set off its full passes again and
    again, two thirds of building the JSON of 44,850 pairs."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _counts(values: np.ndarray) -> list[int | None]:
    """Whole counts as ints, NaN as None."""
    return [None if v != v else int(v) for v in np.asarray(values, dtype=float).tolist()]


def _names(side: np.ndarray, model_a: np.ndarray, model_b: np.ndarray) -> list[str | None]:
    """+1 -> model A's name, -1 -> model B's, 0 -> None."""
    side = np.asarray(side)
    named = np.where(side > 0, model_a, model_b).astype(object)
    named[side == 0] = None
    return named.tolist()


def _finite(values: list[Any]) -> list[Any]:
    return [v if v is None or math.isfinite(v) else None for v in values]


def _json(values: list[Any], field: str) -> list[Any]:
    """A column as the JSON gives it: sets as lists, non-finite levels as None."""
    if field == "item_ids":
        return [list(v) for v in values]
    if field == "level":
        return _finite(values)
    return values


@dataclass(frozen=True, repr=False)
class FragilityResult(Views, TableResult):
    """Items to flip for every pair of a board (``evalgap fragility``).

    Attributes
    ----------
    family : str
        ``adjacent`` (rank-adjacent pairs per task) or ``all``.
    family_size : int
        m, the size of the family the procedures' levels count.
    alpha, power : float
        The settings.
    pairs : PairFragilities
        One :class:`PairFragility` per pair of the family, in the audit's order (a table
        of arrays that reads as a sequence).
    notes : tuple of str
        What the numbers need said beside them.
    verdict : str
        One sentence (a property): how many verdicts a few removals reverse, and the
        closest call.
    """

    family: str
    family_size: int
    alpha: float
    power: float
    pairs: PairFragilities
    notes: tuple[str, ...] = ()
    _rows = "pairs"
    _derived = ("verdict",)
    _headline = ("family", "family_size")

    @property
    def verdict(self) -> str:
        """One sentence: how many verdicts a few removals reverse, and the closest call."""
        from evalgap.report.sentences import fragility_verdict

        return fragility_verdict(self)

    def closest(self) -> tuple[PairFragility, Any] | None:
        """The pair and test whose verdict the fewest removals reverse (None: no removal
        reverses any); ties go to the earlier pair, then the earlier entry."""
        items = self.pairs.items_matrix()
        if not np.isfinite(items).any():
            return None
        k, j = np.unravel_index(int(np.nanargmin(items)), items.shape)
        pair = self.pairs[int(k)]
        return pair, pair.fragility.tests[int(j)]

    def counts(self) -> dict[str, list[int | None]]:
        """Per test and procedure, the items to flip of every pair (None where a pair has no
        such entry, or no removal reverses it)."""
        columns = self.pairs.entries()
        out = {}
        for test in self.pairs.tests():
            mine = self.pairs.binary if test in ("exact", "mcnemar") else ~self.pairs.binary
            values = columns[test]["items_to_flip"]
            if test in BOARD_PROCEDURES:
                out[test] = values
            else:
                out[test] = [v if m else None for v, m in zip(values, mine.tolist(), strict=True)]
        return out

    def fewest(self) -> np.ndarray:
        """Per pair, the fewest items that reverse any of its verdicts (NaN: none can)."""
        least = np.min(np.nan_to_num(self.pairs.items_matrix(), nan=np.inf), axis=1)
        return np.where(np.isfinite(least), least, np.nan)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per pair and test.

        Returns
        -------
        pandas.DataFrame
            ``task, model_a, model_b, delta, test`` and the entry's fields
            (``items_to_flip, exact, lower_bound, claim, after, ...``).
        """
        import pandas as pd

        columns = self.pairs.entries()
        head = self.pairs._head()
        records = []
        with _collector_paused():
            for k, kind in enumerate(self.pairs.binary.tolist()):
                first = {f: head[f][k] for f in ("task", "model_a", "model_b", "delta")}
                for test in self.pairs._tests_of(kind):
                    entry = {f: plain(columns[test][f][k]) for f in ENTRY_FIELDS}
                    entry["item_ids"] = ",".join(entry["item_ids"])
                    records.append({**first, "test": test, **entry})
        return pd.DataFrame(records)

    _heading: ClassVar[str] = "evalgap fragility"

    def _render(self, console: Console) -> None:
        from evalgap.report.fragility import render_fragility

        render_fragility(self, console)


def _test_rows(fragility: Fragility) -> list[dict[str, Any]]:
    """One dict per test: its JSON fields, ``item_ids`` joined by commas."""
    rows = []
    for entry in fragility.tests:
        fields = plain(entry)
        fields["item_ids"] = ",".join(fields["item_ids"])
        rows.append(fields)
    return rows


def _pair_rows(pair: PairFragility) -> list[dict[str, Any]]:
    head = {k: getattr(pair, k) for k in ("task", "model_a", "model_b", "delta")}
    return [{**head, **row} for row in _test_rows(pair.fragility)]


def board_fragility(
    audit: Any, score_set: Any = None, *, name_items: bool = True
) -> FragilityResult:
    """Return the items to flip of every pair an audit judged.

    The counts are the audit's own (its discordant counts and Wald statistics, from its one
    computation of the pair sums); nothing is recomputed per pair, and the result holds
    them as arrays (:class:`PairFragilities`), so a family of 10^5 pairs builds no object
    per pair until one is read.

    Parameters
    ----------
    audit : AuditResult
        The audit of the board (its pairs, family, settings).
    score_set : ScoreSet, optional
        The board's per-item scores: graded pairs need them, and with them each removal
        set is named by item id (families of up to 1,000 pairs).
    name_items : bool
        Name the removal sets by item id (False: counts by kind only, as the audit keeps).

    Returns
    -------
    FragilityResult
    """
    pairs = audit.pairs
    binary = np.asarray(pairs.binary, dtype=bool)
    notes = []
    lookup = _differences_of(pairs, score_set) if score_set is not None else None
    if lookup is None and not binary.all():
        notes.append(
            "graded pairs' paired t and resolution entries need per-item scores; "
            "they are left empty"
        )
    statistic = np.asarray(pairs.statistic, dtype=float)
    flips = board_flips(
        a_only=np.asarray(pairs.a_only),
        b_only=np.asarray(pairs.b_only),
        n_items=np.asarray(pairs.n_items),
        binary=binary,
        statistic=statistic,
        alpha=audit.alpha,
        power=audit.power,
        family_size=audit.family_size,
        differences=lookup,
        counted=True,
    )
    levels = board_levels(statistic, audit.alpha, audit.power, audit.family_size)
    name_ids = name_items and lookup is not None and len(pairs) <= ITEM_IDS_PAIRS
    if name_items and lookup is not None and not name_ids:
        notes.append(
            f"removal sets are given as counts, not item ids, for families of more than "
            f"{ITEM_IDS_PAIRS:,} pairs"
        )
    named = None
    if name_ids:  # at most ITEM_IDS_PAIRS pairs: one removal set per pair and test
        named = []
        for k in range(len(pairs)):
            d, ids = _pair_items(pairs, k, score_set)
            named.append(_named_sets(flips, k, d, ids, bool(binary[k]), BOARD_PROCEDURES))
    table = PairFragilities(
        task=np.asarray(pairs.task).astype(str),
        model_a=np.asarray(pairs.model_a).astype(str),
        model_b=np.asarray(pairs.model_b).astype(str),
        binary=binary,
        n_items=np.asarray(pairs.n_items, dtype=np.int64),
        delta=np.asarray(pairs.delta, dtype=float),
        flips=flips,
        levels={"alpha": np.full(binary.shape, float(audit.alpha)), **levels},
        items_to_resolve=_to_resolve(pairs),
        item_ids=named,
    )
    return FragilityResult(
        family=audit.family,
        family_size=int(audit.family_size),
        alpha=float(audit.alpha),
        power=float(audit.power),
        pairs=table,
        notes=tuple(notes),
    )


def _tests_of(binary: bool, procedures: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A pair's entries, in report order: its tests, then resolution per procedure (the
    board's by default)."""
    return (*(BINARY_TESTS if binary else GRADED_TESTS), *(procedures or BOARD_PROCEDURES))


def _to_resolve(pairs: Any) -> np.ndarray:
    """Per pair, ``N* - N`` (at least 0) where the pair is unresolved; NaN where resolved or
    N* is not estimated."""
    required = np.asarray(pairs.required_n, dtype=float)
    q = np.asarray(pairs.resolution_ratio, dtype=float)
    n = np.asarray(pairs.n_items, dtype=float)
    with np.errstate(invalid="ignore"):
        short = np.maximum(np.ceil(required) - n, 0.0)
    return np.where(np.isfinite(required) & ~(q >= 1), short, np.nan)


def _pair_items(pairs: Any, k: int, score_set: Any) -> tuple[np.ndarray, np.ndarray]:
    """Pair ``k``'s per-item differences and item ids on the items both models scored."""
    task = next(t for t in score_set.tasks if t.task == str(pairs.task[k]))
    i = score_set.model_index(str(pairs.model_a[k]))
    j = score_set.model_index(str(pairs.model_b[k]))
    rows = task.pair_rows(i, j)
    return task.scores[rows, i] - task.scores[rows, j], np.asarray(task.item_ids)[rows]


def _differences_of(pairs: Any, score_set: Any) -> Callable[[np.ndarray], np.ndarray]:
    """``rows -> (len(rows), items)`` per-item differences, NaN where a pair lacks an item.

    Each row holds its pair's differences on the items both models scored, in item order,
    then NaN (the layout :func:`_pair_items` gives one pair): a task's pairs are taken from
    its score matrix in one subtraction, and a row with gaps is compacted by a stable sort.
    """
    tasks = {t.task: t for t in score_set.tasks}
    column = {model: c for c, model in enumerate(score_set.models)}
    found: dict[str, np.ndarray] = {}
    by_model: dict[str, np.ndarray] = {}  # a task's scores, models x items (one copy)
    whole: dict[str, bool] = {}  # whether every model scored every item of a task
    # One block's memory, written again by the next (the caller is done with a block when
    # it asks for the next: see board_flips), not fresh pages from the system each block.
    buffer = fr.Scratch()

    def differences(rows: np.ndarray) -> np.ndarray:
        if not found:  # on first use: a board of binary pairs never asks
            found["task"] = np.asarray(pairs.task).astype(str)
            for side in ("model_a", "model_b"):
                names = np.asarray(getattr(pairs, side)).astype(str).tolist()
                found[side] = np.array([column[m] for m in names], dtype=np.int64)
        task_of, a, b = found["task"], found["model_a"], found["model_b"]
        rows = np.asarray(rows)
        parts: list[tuple[np.ndarray, np.ndarray]] = []
        names = dict.fromkeys(task_of[rows].tolist())
        reuse = buffer if len(names) == 1 else None  # several tasks: a part each
        for name in names:
            at = np.flatnonzero(task_of[rows] == name)
            if name not in by_model:  # a model's scores as a row, gathered whole per pair
                by_model[name] = np.ascontiguousarray(tasks[name].scores.T)
                whole[name] = not np.isnan(by_model[name]).any()
            d = _subtract_rows(by_model[name], a[rows[at]], b[rows[at]], reuse)
            missing = None if whole[name] else np.isnan(d)
            if missing is not None and missing.any():  # the items both scored first, in order
                d = np.take_along_axis(d, np.argsort(missing, axis=1, kind="stable"), axis=1)
                d = d[:, : int((~missing).sum(axis=1).max(initial=0))]
            parts.append((at, d))
        if len(parts) == 1 and parts[0][0].size == rows.size:  # one task: its rows in order
            return np.ascontiguousarray(parts[0][1])
        width = max((d.shape[1] for _, d in parts), default=0)
        out = np.full((rows.size, width), np.nan)
        for at, d in parts:
            out[at, : d.shape[1]] = d
        return out

    return differences


def _subtract_rows(
    x: np.ndarray, a: np.ndarray, b: np.ndarray, scratch: fr.Scratch | None = None
) -> np.ndarray:
    """``x[a] - x[b]``: where pairs come in runs sharing model A against consecutive models
    B (as a board's pairs do), each run subtracts a slice of B rows from A's one row instead
    of gathering both (the same differences, without two copies of the block); written into
    ``scratch``'s memory when given."""
    cut = np.flatnonzero((a[1:] != a[:-1]) | (b[1:] != b[:-1] + 1)) + 1
    shape = (a.size, x.shape[1])
    out = np.empty(shape) if scratch is None else scratch.take("differences", shape)
    if cut.size > 16:  # short runs: gathering costs less than a call per run
        return np.subtract(x[a], x[b], out=out)
    for start, stop in zip(np.r_[0, cut].tolist(), np.r_[cut, a.size].tolist(), strict=True):
        first = int(b[start])
        np.subtract(x[int(a[start])], x[first : first + stop - start], out=out[start:stop])
    return out


@dataclass(frozen=True, repr=False)
class TaskTestFragility(RowResult):
    """How few items reverse one of ``degrade``'s multi-task verdicts.

    Attributes
    ----------
    test : str
        ``pooled`` (exact, on summed counts), ``max_drop``, ``fisher``, or ``degraded`` (the
        gate: any of the three rejecting).
    level : float
        Alpha.
    claim : bool
        Whether the verdict now says the candidate got worse.
    items_to_flip : int or None
        The fewest removals that reverse it (None where the search found none). Exact for
        ``pooled``; for the others the size of a greedy set (one item at a time from the
        task that moves the p-value most), an upper bound.
    exact : bool
        Whether ``items_to_flip`` is the exact minimum.
    remove_a_only, remove_b_only : dict
        Per task, the items only the baseline (A) or only the candidate (B) got right that
        the removal set takes (tasks with none left out).
    method : str
        How the count was found.
    """

    test: str
    level: float
    claim: bool
    items_to_flip: int | None
    exact: bool
    remove_a_only: dict[str, int]
    remove_b_only: dict[str, int]
    method: str
    _headline = ("test", "items_to_flip")


TASK_GREEDY_METHOD = (
    "greedy: from the task that moves the p-value most, in doubling runs, the last one "
    "bisected (an upper bound)"
)


def degrade_fragility(
    a_only: np.ndarray, b_only: np.ndarray, tasks: tuple[str, ...], alpha: float
) -> Fragility:
    """Return the items to flip of each of ``degrade``'s exact verdicts (binary scores).

    Parameters
    ----------
    a_only, b_only : numpy.ndarray
        Per task: items only the baseline / only the candidate got right.
    tasks : tuple of str
        The tasks' names.
    alpha : float
        The level of each test.

    Returns
    -------
    Fragility
        Entries ``pooled``, ``max_drop``, ``fisher`` and ``degraded`` (the gate).
    """
    from evalgap.stats import aggregation as ag

    b, c = np.asarray(a_only, dtype=float), np.asarray(b_only, dtype=float)

    def fisher(bb: np.ndarray, cc: np.ndarray) -> np.ndarray:
        return np.asarray(ag.fisher_over_tasks(bb, cc)[0], dtype=float)

    def gate(bb: np.ndarray, cc: np.ndarray) -> np.ndarray:
        parts = (ag.pooled_p_value(bb, cc), ag.max_drop_p_value(bb, cc), fisher(bb, cc))
        return np.minimum.reduce([np.asarray(p, dtype=float) for p in parts])

    def per_task(counts: np.ndarray) -> dict[str, int]:
        return {t: int(k) for t, k in zip(tasks, counts, strict=True) if k > 0}

    entries = []
    total = fr.binary_flips(b.sum(), c.sum(), b.sum() + c.sum(), test="exact", level=alpha,
                            alternative="greater")  # fmt: skip
    k = _count(total.items[0])
    # Pooled: any items of the kind serve; take them from the tasks in order.
    take_a = _spread(b, total.remove_a_only[0]) if k is not None else b * 0
    take_b = _spread(c, total.remove_b_only[0]) if k is not None else c * 0
    entries.append(
        TaskTestFragility("pooled", alpha, bool(total.decided[0]), k, k is not None,
                          per_task(take_a), per_task(take_b), EXACT_METHOD)
    )  # fmt: skip
    for name, p_value in (
        ("max_drop", ag.max_drop_p_value),
        ("fisher", fisher),
        ("degraded", gate),
    ):
        found = fr.task_flips(b, c, p_value, alpha)  # type: ignore[arg-type]
        k = _count(found.items)
        entries.append(
            TaskTestFragility(
                name, alpha, found.decided, k, False,
                per_task(np.nan_to_num(found.remove_a_only)),
                per_task(np.nan_to_num(found.remove_b_only)), TASK_GREEDY_METHOD,
            )
        )  # fmt: skip
    return Fragility(tests=tuple(entries))


def _spread(available: np.ndarray, count: float) -> np.ndarray:
    """Take ``count`` items from the tasks in order, as many from each as it has."""
    before = np.concatenate([[0.0], np.cumsum(available)[:-1]])
    return np.clip(count - before, 0.0, available)


# Rank claims are checked by recomputing the rank sets without the removal set on boards of
# at most this many models (a second bootstrap); larger boards give the counts unchecked.
CONFIRM_MODELS = 100
RANK_METHOD = (
    "exact (binary) or bounds (graded) for the studentized gap against the task's stepdown "
    "critical value, held fixed"
)
BATTLE_METHOD = "battles by their influence on the two scores' gap, confirmed by refits"


@dataclass(frozen=True, repr=False)
class RankClaimFragility(RowResult):
    """How few items (or battles) reverse one rank claim of ``evalgap ranks``.

    Attributes
    ----------
    task : str
        The task (``battles`` for an arena).
    claim : str
        ``"top"``: ``model_a`` alone holds rank 1 (shown better than every other model;
        arenas: the highest score); ``"above"``: ``model_a`` is shown better than
        ``model_b``, the next model in the ranking (arenas: scores above it).
    model_a, model_b : str
        The claim's models; for ``top``, ``model_b`` is the competitor whose pair reverses
        first.
    holds : bool
        Whether the claim holds now (an ``above`` claim need not: then the count is what
        would make it hold).
    items_to_flip : int or None
        The fewest items (battles) whose removal reverses the claim; None where none can.
    exact : bool
        Whether the count is the exact minimum (with the critical value held fixed).
    lower_bound : int or None
        A certified lower bound (graded pairs).
    remove_a_only, remove_b_only, remove_concordant : int or None
        The removal by kind (items only A / only B got right, items they agree on); for
        battles ``remove_a_only`` counts the battles removed.
    item_ids : tuple of str
        One removal set by item id (empty for battles).
    critical_value : float
        The stepdown critical value held fixed (NaN for battles).
    confirmed : bool or None
        Whether recomputing (refitting) without the removal set reverses the claim; None
        where it was not checked.
    items_to_flip_recomputed : int or None
        The top claim: the fewest items along the same removal order whose removal makes the
        recomputed rank sets (a new bootstrap, a new critical value) lose the claim, found by
        recomputing (doubling, then bisection); None where not checked or not found.
    refits : int
        Recomputations (refits) the confirmation took.
    method : str
        How the count was found.
    """

    task: str
    claim: str
    model_a: str
    model_b: str
    holds: bool
    items_to_flip: int | None
    exact: bool
    lower_bound: int | None
    remove_a_only: int | None
    remove_b_only: int | None
    remove_concordant: int | None
    item_ids: tuple[str, ...]
    critical_value: float
    confirmed: bool | None
    items_to_flip_recomputed: int | None
    refits: int
    method: str
    _headline = ("claim", "model_a", "items_to_flip")


def rank_fragility(
    ranks: Any,
    score_set: Any,
    *,
    seed: Any = 0,
    n_bootstrap: int = 1000,
    use_clusters: bool = True,
) -> tuple[tuple[RankClaimFragility, ...], tuple[str, ...]]:
    """Return the items to flip of each task's rank claims, and notes on the tasks left out.

    Per task ranked by the max-t stepdown bootstrap on items (not clusters): the top claim
    (a single rank 1) and each rank-adjacent pair's claim. A pair's "shown better" is its
    studentized gap above the task's final critical value; with that value held fixed the
    fewest removals follow from :func:`evalgap.stats.fragility.binary_flips` (exact) or
    :func:`evalgap.stats.fragility.graded_flips` (bounds). The top claim fails as soon as one
    of its pairs does, so its count is the smallest of its pairs'. On boards of up to
    ``CONFIRM_MODELS`` models the rank sets are recomputed without the top claim's removal
    set (same seed), to confirm that the claim is gone.
    """
    out: list[RankClaimFragility] = []
    notes: list[str] = []
    for task in score_set.tasks:
        name = task.task
        method = ranks.methods.get(name, "")
        critical = ranks.critical_values.get(name, float("nan"))
        if "bootstrap" not in method or not np.isfinite(critical):
            if name in ranks.methods:
                notes.append(f"task {name}: no items to flip for rank claims ({method})")
            continue
        if use_clusters and task.clusters is not None:
            notes.append(
                f"task {name}: no items to flip for rank claims (cluster-robust rank sets; "
                "removing items changes their clusters' sums)"
            )
            continue
        out.extend(_task_rank_claims(task, ranks, score_set, critical, seed, n_bootstrap))
    return tuple(out), tuple(notes)


def _task_rank_claims(
    task: Any, ranks: Any, score_set: Any, critical: float, seed: Any, n_bootstrap: int
) -> list[RankClaimFragility]:
    """One task's top claim and adjacent claims (see :func:`rank_fragility`)."""
    name = task.task
    models = ranks.models_of(name)
    better = ranks.shown_better[name]
    column = {m: score_set.model_index(m) for m in models}
    ids = np.asarray(task.item_ids).astype(str)

    def flips(a: str, b: str) -> tuple[fr.Flips, np.ndarray, np.ndarray]:
        x, y = task.scores[:, column[a]], task.scores[:, column[b]]
        rows = ~(np.isnan(x) | np.isnan(y))
        d = x[rows] - y[rows]
        if np.isin(x[rows], (0.0, 1.0)).all() and np.isin(y[rows], (0.0, 1.0)).all():
            b_, c_ = float((d > 0).sum()), float((d < 0).sum())
            found = fr.binary_flips(b_, c_, float(rows.sum()), test="t", threshold=critical)
            return found, d, ids[rows]
        return fr.graded_flips(d[None, :], test="t", threshold=critical), d, ids[rows]

    def entry(claim: str, a: str, b: str, f: fr.Flips, d: np.ndarray, item: np.ndarray,
              holds: bool) -> RankClaimFragility:  # fmt: skip
        binary = bool(np.isin(d, (-1.0, 0.0, 1.0)).all())
        return RankClaimFragility(
            task=str(name), claim=claim, model_a=a, model_b=b, holds=holds,
            items_to_flip=_count(f.items[0]), exact=bool(f.exact[0]),
            lower_bound=_count(f.lower[0]), remove_a_only=_count(f.remove_a_only[0]),
            remove_b_only=_count(f.remove_b_only[0]),
            remove_concordant=_count(f.remove_concordant[0]),
            item_ids=_removal_set(f, d, item, binary), critical_value=float(critical),
            confirmed=None, items_to_flip_recomputed=None, refits=0, method=RANK_METHOD,
        )  # fmt: skip

    out = []
    top, *rest = models
    if rest and better[0, 1:].all():
        found = [(flips(top, other), other) for other in rest]
        (f, d, item), other = min(
            found, key=lambda g: np.inf if np.isnan(g[0][0].items[0]) else g[0][0].items[0]
        )
        top_entry = entry("top", top, other, f, d, item, True)
        if len(models) <= CONFIRM_MODELS and top_entry.items_to_flip:
            top_entry = _confirm_top(top_entry, task, models, column, d, item, ranks, seed,
                                     n_bootstrap)  # fmt: skip
        out.append(top_entry)
    for i in range(len(models) - 1):
        a, b = models[i], models[i + 1]
        f, d, item = flips(a, b)
        out.append(entry("above", a, b, f, d, item, bool(better[i, i + 1])))
    return out


def _confirm_top(entry: RankClaimFragility, task: Any, models: list[str],
                 column: dict[str, int], d: np.ndarray, item: np.ndarray, ranks: Any,
                 seed: Any, n_bootstrap: int) -> RankClaimFragility:  # fmt: skip
    """Recompute the rank sets without the top claim's removal set (and, if the claim still
    holds, without longer prefixes of the same removal order) to confirm it is lost."""
    from evalgap.stats import ranks as rk
    from evalgap.stats import resample

    # The removal order: the top model's winning items first (binary: in the scores' order;
    # graded: the largest differences), as the count was found.
    binary = bool(np.isin(d, (-1.0, 0.0, 1.0)).all())
    ahead = np.flatnonzero(d > 0)
    order = ahead if binary else ahead[np.argsort(-d[ahead], kind="stable")]
    ids = np.asarray(task.item_ids).astype(str)
    refits = 0

    def gone(k: int) -> bool:
        nonlocal refits
        refits += 1
        keep = ~np.isin(ids, item[order[:k]])
        x = task.scores[keep][:, [column[m] for m in models]]
        sets = rk.rank_sets(
            x, alpha=ranks.alpha, n_bootstrap=n_bootstrap, method="bootstrap", marginal=False,
            seed=resample.child_seed(seed, "ranks"),
        )  # fmt: skip
        return not (int(sets.rank_low[0]) == 1 and int(sets.rank_high[0]) == 1)

    k0 = int(entry.items_to_flip or 0)
    first = gone(k0)
    if first:  # the claim holds with no removal: the fewest lie in 1..k0
        low, high = 0, k0
    else:  # lengthen the removal along the same order until the recomputed sets lose it:
        # steps of 1% of the count, doubling (the new critical value is close to the old)
        low, step = k0, max(1, -(-k0 // 100))
        while True:
            if low >= order.size:
                return dataclasses.replace(entry, confirmed=False, refits=refits)
            high = min(low + step, int(order.size))
            if gone(high):
                break
            low, step = high, 2 * step
    while high - low > 1:
        mid = (low + high) // 2
        if gone(mid):
            high = mid
        else:
            low = mid
    return dataclasses.replace(entry, confirmed=first, items_to_flip_recomputed=high, refits=refits)


def _top_battle_flips(
    data: Any, fitted: Any, top: int, challengers: np.ndarray, removals: Any
) -> tuple[Any, int]:
    """The top score's battles to flip: the fewest over its challengers, each predicted by
    influence and confirmed by refits in the order of its prediction, until a challenger's
    prediction exceeds twice the fewest confirmed (the top claim falls with its weakest pair;
    a far prediction is not refitted, so the count stays a confirmed upper bound). Returns
    the entry and the refits made."""
    predicted = [
        fr.battle_flips(data, fitted, top, int(k), confirm=False, removals=removals)
        for k in challengers
    ]
    ranked = sorted(predicted, key=lambda g: np.inf if np.isnan(g.predicted) else g.predicted)
    best, refits = None, 0
    for guess in ranked:
        fewest = np.inf if best is None or np.isnan(best.battles) else best.battles
        if best is not None and not guess.predicted <= 2 * fewest:
            break
        found = fr.battle_flips(data, fitted, top, guess.model_b, removals=removals)
        refits += found.refits
        if best is None or (not np.isnan(found.battles) and found.battles < fewest):
            best = found
    assert best is not None  # an arena has at least two models
    return best, refits


def battle_fragility(
    data: Any, fitted: Any, names: list[str], order: np.ndarray
) -> tuple[RankClaimFragility, ...]:
    """Return the battles to flip of an arena's order claims: the top score and each pair of
    adjacent scores (influence order, confirmed by refits; see
    :func:`evalgap.stats.fragility.battle_flips`), every claim's refits from one set of the
    fit's removals."""
    from evalgap.stats.bradley_terry import Removals

    removals = Removals.of(data, fitted)
    out = []
    pairs = [("top", order[0], order[1])] + [
        ("above", order[i], order[i + 1]) for i in range(len(order) - 1)
    ]
    for claim, a, b in pairs:
        if claim == "top":
            f, refits = _top_battle_flips(data, fitted, int(a), order[1:], removals)
            b = f.model_b
        else:
            f = fr.battle_flips(data, fitted, int(a), int(b), removals=removals)
            refits = f.refits
        k = _count(f.battles)
        out.append(
            RankClaimFragility(
                task="battles", claim=claim, model_a=names[int(a)], model_b=names[int(b)],
                holds=True, items_to_flip=k, exact=False, lower_bound=None,
                remove_a_only=k, remove_b_only=None, remove_concordant=None, item_ids=(),
                critical_value=float("nan"), confirmed=k is not None,
                items_to_flip_recomputed=k, refits=refits, method=BATTLE_METHOD,
            )
        )  # fmt: skip
    return tuple(out)
