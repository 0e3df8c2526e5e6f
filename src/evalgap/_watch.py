"""Watch an evaluation in progress: which pairs are decided, and how many items the others need.

Scores arrive one at a time (``Monitor.update``) in the order the evaluation produces them.
For every target pair, each item both models have scored extends its e-process:

* binary scores: the discordant-sign mixture e-process of Appendix C (*Resolution
  Diagnostics*, Eq. 24), exact under H0 (discordant items favour either model with
  probability 1/2);
* graded scores (any score outside {0, 1} turns the pair graded): the two-sided betting
  e-process for differences in [-1, 1] (:func:`evalgap.stats.sequential.betting_log_e`).

Both are valid under continuous monitoring: a single target pair is decided at the first
update where ``e >= 1/alpha``. A family of pairs is decided by e-BH at the current update
(Wang and Ramdas 2022), which keeps the false discovery rate at alpha when the evaluation
stops at a time the data choose. ``targets="adjacent"`` reports the pairs adjacent in the
current ranking but applies e-BH over all pairs (the adjacency itself depends on the data).
Items must arrive in an order that does not depend on the models' answers (a seeded
shuffle, or the dataset's own order when it is not sorted by difficulty).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.stats import _validate, sequential
from evalgap.stats import power as pw

TARGETS = ("pair", "adjacent", "all", "baseline")
GRID_POINTS = 401  # candidate means of the confidence sequence (steps of 0.005 on [-1, 1])


@dataclass
class _Pair:
    model_a: str
    model_b: str
    differences: list = field(default_factory=list)
    binary: bool = True
    a_only: int = 0
    b_only: int = 0
    decided_at: int | None = None  # items seen when a single-pair target first crossed
    sequence: sequential.BettingState | None = None  # the confidence sequence so far
    processed: int = 0  # differences already in ``sequence``


@dataclass(frozen=True, repr=False)
class WatchStatus(Result):
    """Where an evaluation in progress stands (the ``watch --json`` record of one update).

    Attributes
    ----------
    pairs : pandas.DataFrame
        Per target pair: ``task, model_a, model_b, n_items, delta, lower, upper`` (the
        anytime-valid confidence sequence of delta = A - B), ``e_value``, ``decided``,
        ``further_items`` (projected at the current estimates, 0 once decided) and
        ``further_cost`` (with token counts and a price).
    alpha : float
        The error level (per pair, or the family's false discovery rate).
    procedure : str
        ``"e-process"`` (one pair) or ``"e-BH"`` (a family).
    items_seen : dict
        Items each model has scored, per task.
    done : bool
        Every target is decided, or the item budget is spent.
    reason : str
        Why the evaluation may stop (empty while it should go on).
    """

    pairs: pd.DataFrame
    alpha: float
    procedure: str
    items_seen: dict
    done: bool
    reason: str
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)
    _headline: ClassVar[tuple[str, ...]] = ("done",)

    def to_frame(self) -> pd.DataFrame:
        """Return the per-pair table."""
        return self.pairs.copy()

    @property
    def verdict(self) -> str:
        """One sentence: how many targets are decided, what the others need."""
        from evalgap.report.sentences import watch_verdict

        return watch_verdict(self)


class Monitor:
    """Follow an evaluation item by item and say when each comparison is decided.

    Parameters
    ----------
    targets : {"pair", "adjacent", "all", "baseline"}
        One pair (``pair=(A, B)``), the pairs adjacent in the current ranking, all pairs,
        or each model against ``baseline``.
    pair : tuple of str, optional
        The two models of ``targets="pair"``.
    baseline : str, optional
        The model of ``targets="baseline"``.
    alpha, power : float
        Error level; power of the projected item counts.
    budget : int, optional
        Items per model after which the evaluation stops whatever is decided.
    price_per_1k_tokens : float, optional
        With token counts in ``update``: the projected cost of the further items.

    Attributes
    ----------
    targets, pair, baseline, alpha, power, budget : as given
        The settings; ``status()`` reports against them.

    Examples
    --------
    >>> import numpy as np
    >>> m = Monitor(targets="pair", pair=("a", "b"))
    >>> rng = np.random.default_rng(0)
    >>> for item in range(400):
    ...     m.update("a", item, float(rng.random() < 0.8))
    ...     m.update("b", item, float(rng.random() < 0.5))
    >>> status = m.status()
    >>> bool(status.done), status.reason
    (True, 'every target pair is decided')
    """

    def __init__(
        self,
        *,
        targets: str = "adjacent",
        pair=None,
        baseline: str | None = None,
        alpha: float = 0.05,
        power: float = 0.8,
        budget: int | None = None,
        price_per_1k_tokens: float | None = None,
    ):
        _validate.arguments(
            targets=targets, alpha=alpha, power=power, budget=budget,
            price_per_1k_tokens=price_per_1k_tokens,
        )
        if targets not in TARGETS:
            raise InputError(f"targets must be one of {', '.join(TARGETS)}; got {targets!r}")
        if targets == "pair" and (pair is None or len(pair) != 2 or pair[0] == pair[1]):
            raise InputError("targets='pair' needs pair=(model_a, model_b), two models")
        if targets == "baseline" and not baseline:
            raise InputError("targets='baseline' needs baseline= (the model to compare against)")
        self.targets, self.pair, self.baseline = targets, pair, baseline
        self.alpha = float(_validate.probability(alpha, "alpha"))
        self.power = float(_validate.probability(power, "power"))
        self.budget = None if budget is None else _validate.whole_number(budget, "budget", 1)
        self.price = price_per_1k_tokens
        self._scores: dict = {}  # (task, model) -> {item: score}
        self._tokens: dict = {}  # (task, model) -> [tokens, items with tokens]
        self._pairs: dict = {}  # (task, a, b) with a < b in arrival order -> _Pair
        self._order: dict = {}  # task -> models in order of first appearance

    # --- input --------------------------------------------------------------------------

    def update(self, model: str, item, score: float, *, task: str = "all", tokens=None):
        """Record one score (in [0, 1]) of ``model`` on ``item``; repeated items are refused."""
        value = float(_validate.numbers(score, "score"))
        if not 0 <= value <= 1:
            raise InputError(
                f"score of {model!r} on item {item!r} is {value}; scores are in [0, 1]"
            )
        key = (task, str(model))
        seen = self._scores.setdefault(key, {})
        if item in seen:
            raise InputError(f"{model!r} scored item {item!r} of task {task!r} twice")
        seen[item] = value
        order = self._order.setdefault(task, [])
        if str(model) not in order:
            order.append(str(model))
        if tokens is not None:
            spent = self._tokens.setdefault(key, [0.0, 0])
            spent[0] += float(tokens)
            spent[1] += 1
        for other in order:
            if other == str(model) or item not in self._scores.get((task, other), {}):
                continue
            a, b = (
                (other, str(model))
                if order.index(other) < order.index(str(model))
                else (str(model), other)
            )
            state = self._pairs.setdefault((task, a, b), _Pair(a, b))
            d = self._scores[(task, a)][item] - self._scores[(task, b)][item]
            state.differences.append(d)
            if d not in (-1.0, 0.0, 1.0) or self._scores[(task, a)][item] not in (0.0, 1.0):
                state.binary = False
            state.a_only += d > 0
            state.b_only += d < 0

    def add(self, frame: pd.DataFrame) -> None:
        """Record the rows of a long frame (``model, item_id, score`` and optionally ``task``,
        ``tokens``) in their order."""
        task = frame["task"] if "task" in frame.columns else pd.Series("all", index=frame.index)
        tokens = frame["tokens"] if "tokens" in frame.columns else None
        for k, (model, item, score) in enumerate(
            zip(frame["model"], frame["item_id"], frame["score"], strict=True)
        ):
            self.update(
                model,
                item,
                score,
                task=task.iloc[k],
                tokens=None if tokens is None else tokens.iloc[k],
            )

    # --- output -------------------------------------------------------------------------

    def status(self) -> WatchStatus:
        """Return where every target stands now (see :class:`WatchStatus`)."""
        rows = []
        for key in self._target_keys():
            task, a, b = key
            state = self._pairs[key]
            d = np.asarray(state.differences)
            low, high = self._interval(state, d)
            rows.append(
                {
                    "task": task,
                    "model_a": a,
                    "model_b": b,
                    "n_items": d.size,
                    "delta": float(d.mean()),
                    "lower": low,
                    "upper": high,
                    "e_value": self._e_value(state),
                    "sd": float(d.std(ddof=1)) if d.size > 1 else math.nan,
                }
            )
        columns = [
            "task",
            "model_a",
            "model_b",
            "n_items",
            "delta",
            "lower",
            "upper",
            "e_value",
            "sd",
        ]
        frame = pd.DataFrame(rows, columns=columns)
        procedure = "e-process" if self.targets == "pair" else "e-BH"
        decided = np.zeros(len(frame), dtype=bool)
        if procedure == "e-process":
            # Ville's inequality holds for the supremum: once crossed, decided for good
            for k, row in enumerate(frame.itertuples()):
                state = self._pairs[(row.task, row.model_a, row.model_b)]
                if state.decided_at is None and row.e_value >= 1 / self.alpha:
                    state.decided_at = row.n_items
                decided[k] = state.decided_at is not None
        elif len(frame):
            family = self._family_e_values()
            rejected = dict(
                zip(
                    family,
                    sequential.e_bh(np.array(list(family.values())), self.alpha),
                    strict=True,
                )
            )
            decided = np.array(
                [
                    rejected[k]
                    for k in zip(frame["task"], frame["model_a"], frame["model_b"], strict=True)
                ],
                dtype=bool,
            )
        frame["decided"] = decided
        frame["further_items"] = [
            0 if done else self._further(row)
            for done, row in zip(decided, frame.itertuples(), strict=True)
        ]
        frame["further_cost"] = [self._cost(row) for row in frame.itertuples()]
        items = {f"{t}|{m}": len(v) for (t, m), v in self._scores.items()}
        done, reason = self._done(frame)
        return WatchStatus(frame.drop(columns=["sd"]), self.alpha, procedure, items, done, reason)

    def _interval(self, state: _Pair, d: np.ndarray) -> tuple[float, float]:
        """The pair's anytime-valid interval, extended by the differences since the last look
        (a look costs the new items, not all of them)."""
        if state.sequence is None:
            state.sequence = sequential.betting_start(grid_points=GRID_POINTS)
        state.sequence = sequential.betting_update(
            state.sequence, d[state.processed :], alpha=self.alpha
        )
        state.processed = d.size
        return sequential.betting_interval(state.sequence)

    def _e_value(self, state: _Pair) -> float:
        if state.binary:
            log_e = float(sequential.log_e_value(state.a_only, state.b_only))
        elif state.sequence is not None and state.processed == len(state.differences):
            at = state.sequence  # the e-process at mean 0 is the grid's middle point
            zero = int(np.argmin(np.abs(at.grid)))
            log_e = float(np.logaddexp(at.log_up[zero], at.log_down[zero]) - np.log(2.0))
        else:
            log_e = float(sequential.betting_log_e(np.asarray(state.differences))[-1])
        return math.exp(min(log_e, 700.0))

    def _target_keys(self) -> list:
        keys = list(self._pairs)
        if self.targets == "all":
            return keys
        if self.targets == "pair":
            wanted = set(map(str, self.pair))
            return [k for k in keys if {k[1], k[2]} == wanted]
        if self.targets == "baseline":
            return [k for k in keys if self.baseline in (k[1], k[2])]
        adjacent = set()  # adjacent in the current ranking by mean over each model's own items
        for task, order in self._order.items():
            means = {m: np.mean(list(self._scores[(task, m)].values())) for m in order}
            ranked = sorted(order, key=lambda m: (-means[m], m))
            adjacent |= {(task, frozenset(p)) for p in itertools.pairwise(ranked)}
        return [k for k in keys if (k[0], frozenset(k[1:])) in adjacent]

    def _family_e_values(self) -> dict:
        """The e-values of the multiplicity family: every pair, or the baseline's pairs."""
        return {
            key: self._e_value(state)
            for key, state in self._pairs.items()
            if self.targets != "baseline" or self.baseline in key[1:]
        }

    def _further(self, row) -> float:
        """Items still needed to decide at the current estimates (anytime-valid N* - n)."""
        if row.n_items < 2 or row.delta == 0 or not row.sd > 0:
            return math.inf
        fixed = float(pw.required_n(row.delta, row.sd, alpha=self.alpha, power=self.power))
        flip = row.sd**2 + row.delta**2  # E[D^2]: the discordant share for binary scores
        u = sequential.boundary(max(fixed * flip, 1.0), self.alpha)
        needed = float(sequential.required_n_anytime(fixed, u, self.alpha, self.power))
        return max(math.ceil(needed) - row.n_items, 1) if math.isfinite(needed) else math.inf

    def _cost(self, row):
        if self.price is None or not math.isfinite(row.further_items):
            return None
        spent = [self._tokens.get((row.task, m)) for m in (row.model_a, row.model_b)]
        if any(s is None or s[1] == 0 for s in spent):
            return None
        per_item = sum(s[0] / s[1] for s in spent)
        return row.further_items * per_item / 1000 * self.price

    def _done(self, frame):
        if len(frame) and bool(frame["decided"].all()):
            return True, "every target pair is decided"
        if (
            self.budget is not None
            and self._scores
            and min(len(v) for v in self._scores.values()) >= self.budget
        ):
            return True, f"the item budget ({self.budget:,} per model) is spent"
        return False, ""
