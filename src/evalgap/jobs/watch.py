"""Watch an evaluation in progress: which pairs are decided, and how many items the others need.

Scores arrive one at a time (``Monitor.update``) in the order the evaluation produces them.
For every target pair, each item both models have scored extends its e-process:

* binary scores: a mixture of constant bets on the differences, which at delta = 0 is the
  discordant-sign mixture e-process of Appendix C (*Resolution Diagnostics*, Eq. 24), exact
  under H0 (discordant items favour either model with probability 1/2);
* graded scores (any score outside {0, 1} turns the pair graded): the same mixture on
  differences in [-1, 1].

Each is one member of a family of e-processes, one per candidate value of delta
(:func:`evalgap.stats.sequential.mixture_update`), and the interval printed beside a
decision inverts that family: the decision is that the interval leaves 0 out
(:func:`evalgap.stats.sequential.sequence_bounds`), so the two never disagree. All are valid
under continuous monitoring: a single target pair is decided at the first update where its
confidence sequence (the running intersection) leaves 0 out. A family of pairs is decided by
e-BH at the current update (Wang and Ramdas 2022), which keeps the false discovery rate at
alpha when the evaluation stops at a time the data choose, with every interval read at level
``alpha k / K`` (k of K pairs decided), the level at which it leaves 0 out exactly when e-BH
decides its pair. ``targets="adjacent"`` reports the pairs adjacent in the
current ranking but applies e-BH over all pairs (the adjacency itself depends on the data).
Items must arrive in an order that does not depend on the models' answers (a seeded
shuffle, or the dataset's own order when it is not sorted by difficulty).

Item ids are text: a whole number names the same item as its decimal text (``7`` and
``"7"``), as the table loaders read an id column. A pair is always reported as A minus B:
``pair=(A, B)`` as named, each model against ``baseline`` with the baseline as A, other pairs
in the order the models first arrived.

A monitor can follow evaluation logs itself (:meth:`Monitor.follow`, :meth:`Monitor.poll`)
and keep its whole state in a file between runs (:meth:`Monitor.save`,
:meth:`Monitor.load`): versioned JSON holding the scores in arrival order and the place in
every log, checked field by field when read back (never code: no pickle).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError, escape, first_line, named, param_of
from evalgap.jobs._pages import MarkdownPage
from evalgap.jobs.pair_tests import pair_tests
from evalgap.stats import _validate, sequential
from evalgap.stats import power as pw
from evalgap.stats.paired import summarize_scores

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap._scores import ScoreSet
    from evalgap.io.follow import LogFollower
    from evalgap.jobs.adaptive import AdaptiveResult

TARGETS = ("pair", "adjacent", "all", "baseline")
STATE_FORMAT = "evalgap watch state"
STATE_VERSION = 2
MAX_STATE_BYTES = 2**30  # a state file holds scores and places in logs, never this much
GRID_POINTS = 401  # candidate means of the confidence sequence (steps of 0.005 on [-1, 1])


@dataclass
class _Pair:
    model_a: str
    model_b: str
    differences: list[float] = field(default_factory=list)
    scores_a: list[float] = field(default_factory=list)  # the shared items' scores, as compare
    scores_b: list[float] = field(default_factory=list)  # reads them (its N*, one computation)
    binary: bool = True
    a_only: int = 0
    b_only: int = 0
    decided_at: int | None = None  # items seen when the target was first decided
    decided_sign: int = 0  # the sign of its gap then
    sequence: sequential.MixtureSequence | None = None  # the e-processes of every mean so far
    processed: int = 0  # differences already in ``sequence``


@dataclass(frozen=True, repr=False)
class WatchStatus(MarkdownPage, Result):
    """Where an evaluation in progress stands (the ``watch --json`` record of one update).

    Attributes
    ----------
    pairs : pandas.DataFrame
        Per target pair: ``task, model_a, model_b, n_items, delta, lower, upper`` (the
        anytime-valid confidence sequence of delta = A - B: one pair's running intersection
        at alpha; under e-BH, the interval now at level ``alpha k / K``, said in the notes),
        ``e_value`` (the evidence that decides: the least e-value against the means from 0's
        side through one grid step past 0; compared with ``1/alpha``, or e-BH's
        ``K / (k alpha)``), ``decided`` (exactly when the interval leaves 0 out),
        ``further_items`` (the items the watch's anytime-valid rule still needs at the
        current estimates, 0 once decided; infinite when no gap shows or too few items
        differ to project one), ``exceeds_task`` (the projection needs more items than the
        task has: said in the notes too), ``further_cost`` (with token counts and a price;
        None for items the task does not have), ``task_items`` (the items the task has,
        when known) and ``required_n`` (N* at a fixed n, as :func:`evalgap.compare` gives it
        on the same items; smaller than the anytime-valid need; missing where not
        estimated). Every view (terminal, Markdown, JSON) prints these values.
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
    notes : tuple of str
        What the monitor waits for, left out or could not project (one line each).
    new_records : int
        Records the look that made this status read (0 from :meth:`Monitor.status`).
    bytes_read : int
        Bytes of log read so far.
    stopped : {"", "decided", "budget", "timeout", "once"}
        Why :func:`watch` returned: every target decided, the item budget spent, no new
        record within ``timeout``, or one look asked for; empty while watching goes on.
    adaptive : AdaptiveResult or None
        With ``adaptive=True``: the pair's place in the adaptive evaluation and the next
        batch (:func:`evalgap.adaptive` on the scores the logs hold), after a look that
        read new records (and the first).
    """

    pairs: pd.DataFrame
    alpha: float
    procedure: str
    items_seen: dict[str, Any]
    done: bool
    reason: str
    notes: tuple[str, ...] = ()
    new_records: int = 0
    bytes_read: int = 0
    stopped: str = ""
    adaptive: Any = None
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)
    _headline: ClassVar[tuple[str, ...]] = ("done", "stopped")

    def to_frame(self) -> pd.DataFrame:
        """Return the per-pair table."""
        return self.pairs.copy()

    @property
    def verdict(self) -> str:
        """One sentence: how many targets are decided, what the others need."""
        from evalgap.report.sentences import watch_verdict

        return watch_verdict(self)

    _heading: ClassVar[str] = "evalgap watch"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_watch

        render_watch(self, console)


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
        pair: Sequence[str] | None = None,
        baseline: str | None = None,
        alpha: float = 0.05,
        power: float = 0.8,
        budget: int | None = None,
        price_per_1k_tokens: float | None = None,
    ) -> None:
        _validate.arguments(
            targets=targets, alpha=alpha, power=power, budget=budget,
            price_per_1k_tokens=price_per_1k_tokens,
        )
        if targets not in TARGETS:
            raise InputError(
                "{targets!b}" + escape(f" must be one of {', '.join(TARGETS)}; got {targets!r}"),
                param="targets",
            )
        if pair is not None and baseline is not None:
            raise InputError("give either {pair} or {baseline}, not both", param="pair")
        if pair is not None:
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise InputError("{pair} must be two models (model_a, model_b)", param="pair")
            pair = (_name(pair[0], "pair="), _name(pair[1], "pair="))
            if pair[0] == pair[1]:
                raise InputError(
                    "{pair} must name two different models; got {model!r} twice",
                    param="pair",
                    model=pair[0],
                )
        if targets == "pair" and (pair is None or pair[0] == pair[1]):
            raise InputError(
                "{targets=pair} needs {pair}(model_a, model_b), two models", param="targets"
            )
        if baseline is not None:
            baseline = _name(baseline, "baseline=")
        if targets == "baseline" and not baseline:
            raise InputError(
                "{targets=baseline} needs {baseline} (the model to compare against)",
                param="targets",
            )
        if (pair is not None and targets != "pair") or (
            baseline is not None and targets != "baseline"
        ):
            given = "pair" if pair is not None else "baseline"
            raise InputError(
                "{" + given + "} is used with {targets=" + given + "}, not {got!r}",
                param=given,
                got=targets,
            )
        self.targets, self.pair, self.baseline = targets, pair, baseline
        self.alpha = float(_validate.probability(alpha, "alpha"))
        self.power = float(_validate.probability(power, "power"))
        self.budget = None if budget is None else _validate.whole_number(budget, "budget", 1)
        self.price = None
        if price_per_1k_tokens is not None:
            self.price = float(
                _validate.numbers(price_per_1k_tokens, "price_per_1k_tokens", what="a number >= 0")
            )
            if self.price < 0:
                raise InputError(
                    "{price_per_1k_tokens!b}"
                    + escape(
                        f" must be a number >= 0; got {self.price:g}"
                    ),
                    param="price_per_1k_tokens",
                )
        self.follower: LogFollower | None = None  # after follow()
        self._scores: dict = {}  # (task, model) -> {item: score}
        self._tokens: dict = {}  # (task, model) -> [tokens, items with tokens]
        self._pairs: dict = {}  # (task, a, b), oriented as reported (A - B) -> _Pair
        self._order: dict = {}  # task -> models in order of first appearance
        self._task_items: dict = {}  # task -> the items it has, when known
        self._records: list = []  # every update in arrival order (the saved state)

    def __repr__(self) -> str:
        target = {"pair": f"pair={self.pair!r}", "baseline": f"baseline={self.baseline!r}"}
        return (
            f"Monitor({target.get(self.targets, f'targets={self.targets!r}')}, "
            f"alpha={self.alpha:g}, records={len(self._records):,})"
        )

    # --- input --------------------------------------------------------------------------

    def update(
        self, model: str, item: str | int, score: float, *, task: str = "all",
        tokens: float | None = None,
    ) -> None:  # fmt: skip
        """Record one score (in [0, 1]) of ``model`` on ``item``; repeated items are refused.

        ``item`` is text or a whole number (``7`` and ``"7"`` are one item); ``tokens`` is
        what the item cost the model (a number >= 0), for projected costs.
        """
        model, task = _name(model, "model="), _name(task, "task=")
        item = _item_id(item)
        value = _score(score, model, item)
        if tokens is not None:
            tokens = float(_validate.numbers(tokens, "tokens", what="a number >= 0"))
            if tokens < 0:
                raise InputError(
                    "{tokens} must be a number >= 0; got {got!s}", param="tokens", got=f"{tokens:g}"
                )
        key = (task, model)
        seen = self._scores.setdefault(key, {})
        if item in seen:
            raise InputError(f"{model!r} scored item {item!r} of task {task!r} twice")
        seen[item] = value
        self._records.append([task, model, item, value, tokens])
        order = self._order.setdefault(task, [])
        if model not in order:
            order.append(model)
        if tokens is not None:
            spent = self._tokens.setdefault(key, [0.0, 0])
            spent[0] += tokens
            spent[1] += 1
        scores, pairs = self._scores, self._pairs
        for other in order:
            other_value = None if other == model else scores.get((task, other), {}).get(item)
            if other_value is None:
                continue
            a, b = self._orient(other, model)
            value_a, value_b = (other_value, value) if a == other else (value, other_value)
            state = pairs.get((task, a, b))
            if state is None:  # not setdefault: a pair's state is built once, not per record
                state = pairs[(task, a, b)] = _Pair(a, b)
            d = value_a - value_b
            state.differences.append(d)
            state.scores_a.append(value_a)
            state.scores_b.append(value_b)
            if state.binary and (d not in (-1.0, 0.0, 1.0) or value_a not in (0.0, 1.0)):
                state.binary = False
            state.a_only += d > 0
            state.b_only += d < 0

    def _orient(self, first: str, second: str) -> tuple[str, str]:
        """The pair as reported, A - B: as named, the baseline first, else arrival order."""
        if self.targets == "pair" and (second, first) == self.pair:
            return second, first
        if self.targets == "baseline" and second == self.baseline:
            return second, first
        return first, second

    def add(self, frame: pd.DataFrame) -> None:
        """Record the rows of a long frame (``model, item_id, score`` and optionally ``task``,
        ``tokens``) in their order."""
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"add() takes a DataFrame; got {type(frame).__name__}")
        missing = [c for c in ("model", "item_id", "score") if c not in frame.columns]
        if missing:
            raise InputError(
                f"the frame has no column {missing[0]!r}; add() needs model, item_id, score "
                "(and optionally task, tokens)"
            )
        task = frame["task"] if "task" in frame.columns else pd.Series("all", index=frame.index)
        tokens = frame["tokens"] if "tokens" in frame.columns else None
        for k, (model, item, score) in enumerate(
            zip(frame["model"], frame["item_id"], frame["score"], strict=True)
        ):
            spent = None if tokens is None else tokens.iloc[k]
            self.update(
                model,
                item,
                score,
                task=task.iloc[k],
                tokens=None if spent is None or pd.isna(spent) else spent,
            )

    def set_task_items(self, task: str, n_items: int) -> None:
        """Say how many items ``task`` has: no projection then exceeds them."""
        self._task_items[_name(task, "task=")] = _validate.whole_number(n_items, "n_items", 1)

    # --- following logs -------------------------------------------------------------------

    def follow(
        self, logs: str | os.PathLike | Sequence[str | os.PathLike], *, metric: str | None = None,
        scorer: str | None = None, score_key: str | None = None, reducer: str | None = None,
    ) -> None:  # fmt: skip
        """Follow evaluation logs: each :meth:`poll` adds the records they gained.

        ``logs`` is a directory or file (or a list of them) of lm-eval ``samples_*.jsonl``
        files or inspect_ai logs; ``metric`` (lm-eval) and ``scorer``, ``score_key``,
        ``reducer`` (inspect_ai) are the loaders' options of the same names.
        """
        from evalgap.io.follow import LogFollower

        if isinstance(logs, (str, os.PathLike)):
            paths = [logs]
        elif isinstance(logs, (list, tuple)):
            paths = list(logs)
        else:
            raise InputError(
                "{logs} takes a path or a list of paths; got {got!s}",
                param="logs",
                got=_validate.show(logs),
            )
        if not paths:
            raise InputError("{logs} names no log directory or file", param="logs")
        for name, value in (
            ("metric", metric),
            ("scorer", scorer),
            ("score_key", score_key),
            ("reducer", reducer),
        ):
            if value is not None:
                _name(value, f"{name}=")
        self.follower = LogFollower(
            [_normal_path(p) for p in paths],
            metric=metric,
            scorer=scorer,
            score_key=score_key,
            reducer=reducer,
        )

    def poll(self, *, tokens_per_item: float | None = None) -> int:
        """Read what the followed logs gained since the last poll; return the records added.

        A model named by ``pair=`` or ``baseline=`` must be in the logs as soon as the logs
        name any model (a log file of it, with or without records) and every log could be
        read: otherwise (a typo, a model not started yet) this raises naming the models
        found, rather than waiting for a model that may never come. Start watching once each
        named model's log exists.
        """
        if self.follower is None:
            raise InputError("poll() needs logs to follow: call follow(logs) first")
        if tokens_per_item is not None and self.price is None:
            raise InputError(
                "{tokens_per_item} needs {price_per_1k_tokens} for a projected cost",
                param="tokens_per_item",
            )
        records = self.follower.poll()
        self._check_named_models()
        for model, tasks in self.follower.replaced:
            self._forget(model, tasks)
        for model, task, item, score, tokens in records:
            used = tokens_per_item if tokens_per_item is not None else tokens
            self.update(model, item, score, task=task, tokens=used)
        for task, n in self.follower.task_items.items():
            self._task_items.setdefault(task, n)
        return len(records)

    def _forget(self, model: str, tasks: frozenset[str]) -> None:
        """Drop every record of ``model`` on ``tasks`` (a run a newer run of it replaces).

        The monitor is rebuilt from the other records in their arrival order, so the
        model's pairs start again (their e-processes too) from the newer run's records, as
        ``evalgap compare`` reads the latest run alone; the other pairs keep their first
        decisions. The monitor is then the one a saved state of it reads back (a pair of
        models not named by ``pair`` or ``baseline`` may be listed the other way round: each
        is A minus B in the order its models first scored a shared item).
        """
        kept = [r for r in self._records if not (r[1] == model and r[0] in tasks)]
        if len(kept) == len(self._records):
            return
        decided = {
            key: (p.decided_at, p.decided_sign)
            for key, p in self._pairs.items()
            if p.decided_at is not None and not (key[0] in tasks and model in key[1:])
        }
        self._scores, self._tokens, self._pairs, self._order, self._records = {}, {}, {}, {}, []
        for task, name, item, score, tokens in kept:
            self.update(name, item, score, task=task, tokens=tokens)
        for key, (at, sign) in decided.items():
            self._pairs[key].decided_at, self._pairs[key].decided_sign = at, sign

    def _check_named_models(self) -> None:
        if self.follower is None:
            return
        found = self.follower.models | {m for _, m in self._scores}
        named = list(self.pair or ()) + ([self.baseline] if self.baseline else [])
        missing = [m for m in named if m not in found]
        if found and missing and not self.follower.unread:  # an unread log may name it
            from evalgap._scores import not_found

            raise InputError(
                not_found("model", missing[0], sorted(found), at=" in the logs")
                + " (name the models as the logs do; start watching once each named model's "
                "log exists)"
            )

    # --- state --------------------------------------------------------------------------

    @property
    def settings(self) -> dict:
        """What the monitor watches and how (a saved state is resumed only with the same)."""
        follower = self.follower
        return {
            "targets": self.targets,
            "pair": list(self.pair) if self.pair else None,
            "baseline": self.baseline,
            "alpha": self.alpha,
            "power": self.power,
            "budget": self.budget,
            "logs": None if follower is None else list(follower.paths),
            "metric": None if follower is None else follower.metric,
            "scorer": None if follower is None else follower.scorer,
            "score_key": None if follower is None else follower.score_key,
            "reducer": None if follower is None else follower.reducer,
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the monitor's whole state (scores, decisions, place in the logs) to ``path``:
        versioned JSON, written to a temporary file beside it and renamed over it."""
        from evalgap.io import state as state_file

        state = {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "settings": self.settings,
            "records": self._records,
            "decided_at": [
                [*key, p.decided_at] for key, p in self._pairs.items() if p.decided_at is not None
            ],
            "task_items": self._task_items,
            "follower": None if self.follower is None else self.follower.to_state(),
        }
        try:
            state_file.write(path, state, what="watch state")
        except InputError as exc:
            raise InputError(str(exc).strip()) from None

    @classmethod
    def load(cls, path: str | os.PathLike, *, price_per_1k_tokens: float | None = None) -> Monitor:
        """Read a monitor written by :meth:`save` (refused, naming the file, when ``path`` is
        not one: every field is checked before use)."""
        from evalgap.io import follow
        from evalgap.io import state as state_file

        where = str(path)
        data = state_file.read(
            path, what="watch state", fmt=STATE_FORMAT, version=STATE_VERSION,
            limit=MAX_STATE_BYTES,
        )  # fmt: skip
        try:
            d = follow._fields(
                data,
                "state",
                format=str,
                version=int,
                settings=dict,
                records=list,
                decided_at=list,
                task_items=dict,
                follower=(dict, type(None)),
            )
            settings = follow._fields(
                d["settings"],
                "settings",
                targets=str,
                pair=(list, type(None)),
                baseline=(str, type(None)),
                alpha=float,
                power=float,
                budget=(int, type(None)),
                logs=(list, type(None)),
                metric=(str, type(None)),
                scorer=(str, type(None)),
                score_key=(str, type(None)),
                reducer=(str, type(None)),
            )
            monitor = cls(
                targets=settings["targets"],
                pair=settings["pair"],
                baseline=settings["baseline"],
                alpha=settings["alpha"],
                power=settings["power"],
                budget=settings["budget"],
                price_per_1k_tokens=price_per_1k_tokens,
            )
            for row in d["records"]:
                if not isinstance(row, list) or len(row) != 5:
                    raise ValueError("records")
                task, model, item, score, tokens = row
                for value in (task, model, item):
                    follow._text(value, "records")
                spent = None if tokens is None else follow._number(tokens, "records")
                value = follow._number(score, "records")
                monitor.update(model, item, value, task=task, tokens=spent)
            for row in d["decided_at"]:
                if not isinstance(row, list) or len(row) != 4:
                    raise ValueError("decided_at")
                key = tuple(follow._text(v, "decided_at") for v in row[:3])
                if key not in monitor._pairs:
                    raise ValueError("decided_at")
                pair_state = monitor._pairs[key]
                pair_state.decided_at = follow._count(row[3], "decided_at")
                # the sign it was decided with: its gap's then (the state keeps no interval)
                first = pair_state.differences[: pair_state.decided_at]
                pair_state.decided_sign = int(np.sign(np.sum(first)))
            for task, n in d["task_items"].items():
                monitor.set_task_items(follow._text(task, "task_items"), follow._count(n, "n"))
            if d["follower"] is not None:
                monitor.follower = follow.LogFollower.from_state(d["follower"])
            if monitor.settings != settings:
                raise ValueError("settings")
        except InputError as exc:  # a saved value the monitor refuses
            raise InputError(
                f"{where}: not a valid watch state file ({first_line(exc)}); delete it or "
                "give another path"
            ) from None
        except (ValueError, TypeError) as exc:
            raise InputError(
                f"{where}: not a valid watch state file (field {str(exc)[:60]!r}); delete it "
                "or give another path"
            ) from None
        return monitor

    # --- output -------------------------------------------------------------------------

    def status(self) -> WatchStatus:
        """Return where every target stands now (see :class:`WatchStatus`)."""
        keys = self._target_keys()
        lower, upper, evidence, level, notes = self._decisions(keys)
        rows, summaries = [], []
        for k, key in enumerate(keys):
            state = self._pairs[key]
            summaries.append(summarize_scores(state.scores_a, state.scores_b))
            rows.append(
                {
                    "task": key[0],
                    "model_a": key[1],
                    "model_b": key[2],
                    "n_items": len(state.differences),
                    "delta": float(np.mean(state.differences)),
                    "lower": float(lower[k]),
                    "upper": float(upper[k]),
                    "e_value": math.exp(min(float(evidence[k]), 700.0)),
                }
            )
        columns = ["task", "model_a", "model_b", "n_items", "delta", "lower", "upper", "e_value"]
        frame = pd.DataFrame(rows, columns=columns)
        fixed_n = self._required_n(summaries)
        procedure = "e-process" if self.targets == "pair" else "e-BH"
        # the one decision: the printed interval leaves 0 out (``sequence_bounds``)
        decided = np.asarray(evidence >= -np.log(level), dtype=bool)
        frame["decided"] = decided
        notes = (list(self.follower.notes) if self.follower is not None else []) + notes
        notes += self._reversals(frame)
        further, exceeds = [], []
        for done, row, summary, required in zip(
            decided, frame.itertuples(), summaries, fixed_n, strict=True
        ):
            needed = 0 if done else self._further(row.n_items, summary, required)
            total = self._task_items.get(row.task)
            over = total is not None and math.isfinite(needed) and row.n_items + needed > total
            if over:
                fixed = (
                    f"; a test at a fixed n, as evalgap compare's N*, would need {required:,.0f}"
                    if math.isfinite(required)
                    else ""
                )
                notes.append(
                    f"task {row.task}: {row.model_a} vs {row.model_b} cannot be decided with the "
                    f"task's {total:,} items at the current estimates: the watch's anytime-valid "
                    f"rule needs about {needed:,} more ({row.n_items + needed:,} in all{fixed})"
                )
            further.append(needed)
            exceeds.append(over)
        frame["further_items"] = further
        frame["exceeds_task"] = exceeds
        frame["further_cost"] = [
            None if over else self._cost(row)
            for over, row in zip(exceeds, frame.itertuples(), strict=True)
        ]
        frame["task_items"] = [self._task_items.get(t) for t in frame["task"]]
        frame["required_n"] = pd.array(
            [None if math.isnan(v) else int(v) for v in fixed_n], dtype="Int64"
        )
        items = {f"{t}|{m}": len(v) for (t, m), v in self._scores.items()}
        done, reason = self._done(frame)
        return WatchStatus(
            frame,
            self.alpha,
            procedure,
            items,
            done,
            reason,
            tuple(notes),
        )

    def _decisions(self, keys: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, list]:
        """Each target's interval and evidence, from one family of e-processes, and the level
        both are read at: ``(lower, upper, log_evidence, level, notes)``.

        Every pair has an e-process per candidate mean of delta
        (:func:`evalgap.stats.sequential.mixture_update`; at 0 on binary scores, Appendix C's
        discordant-sign mixture). One pair: the interval keeps the means whose e-process has
        never reached ``1/alpha`` (the running intersection), and the pair is decided once
        0 is left out, so at the first item where this happens, for good (Ville). A family:
        e-BH over the pairs' evidence now (an e-value at any stopping time) decides ``k`` of
        ``K``, and every interval is read at level ``alpha k / K`` (``alpha / K`` while none
        is decided): the e-BY intervals of Xu, Wang and Ramdas (2024, *JASA*), whose false
        coverage rate over the decided pairs is at most alpha, and each leaves 0 out
        exactly when e-BH decides its pair.
        """
        grid = sequential.mean_grid(GRID_POINTS)
        if not keys:
            return np.zeros(0), np.zeros(0), np.zeros(0), self.alpha, []
        if self.targets == "pair":
            log_e = np.array([self._sequence(self._pairs[k]).log_max for k in keys])
            level = self.alpha
        else:
            family = list(self._family_keys())
            evidence = self._family_evidence(family, grid)
            rejected = int(sequential.e_bh(np.exp(np.minimum(evidence, 700.0)), self.alpha).sum())
            level = self.alpha * max(rejected, 1) / len(family)
            log_e = np.array([self._current(self._pairs[k], grid) for k in keys])
        lower, upper, evidence = sequential.sequence_bounds(grid, log_e, -np.log(level))
        notes = []
        if self.targets != "pair":
            notes.append(
                f"e-BH decides {rejected} of the family's {len(family)} pairs; every interval "
                f"is at level {level:.3g} (alpha x {max(rejected, 1)}/{len(family)}), so it "
                "leaves 0 out exactly when its pair is decided"
            )
        return lower, upper, evidence, level, notes

    def _sequence(self, state: _Pair) -> sequential.MixtureSequence:
        """The pair's e-processes, extended by the differences since the last look (a look
        costs the new items, not all of them)."""
        if state.sequence is None:
            state.sequence = sequential.mixture_start(GRID_POINTS)
        new = state.differences[state.processed :]
        state.sequence = sequential.mixture_update(state.sequence, np.asarray(new, dtype=float))
        state.processed = len(state.differences)
        return state.sequence

    def _family_evidence(self, family: list, grid: np.ndarray) -> np.ndarray:
        """Every family pair's evidence now (as :func:`sequence_bounds` gives it), exact
        between e-BH's least and largest thresholds, ``1/alpha`` and ``K/alpha``: binary
        pairs from their counts at a few grid points, graded pairs from their sequences."""
        states = [self._pairs[k] for k in family]
        binary = np.array([s.binary for s in states], dtype=bool)
        evidence = np.empty(len(states))
        if binary.any():
            counts = np.array(
                [[s.a_only, s.b_only, len(s.differences) - s.a_only - s.b_only]
                 for s, ok in zip(states, binary, strict=True) if ok]
            )  # fmt: skip
            evidence[binary] = sequential.mixture_evidence_counts(
                counts[:, 0], counts[:, 1], counts[:, 2], grid,
                -np.log(self.alpha), np.log(len(family) / self.alpha),
            )
        for k in np.flatnonzero(~binary):
            log_e = sequential.mixture_log_e(self._sequence(states[k]))
            evidence[k] = sequential.sequence_bounds(grid, log_e, 0.0)[2]
        return evidence

    def _current(self, state: _Pair, grid: np.ndarray) -> np.ndarray:
        """The pair's e-processes now: from its counts when every score is 0 or 1 (the
        product depends on them only), else extended item by item."""
        if state.binary:
            ties = len(state.differences) - state.a_only - state.b_only
            return sequential.mixture_log_e_counts(state.a_only, state.b_only, ties, grid)
        return sequential.mixture_log_e(self._sequence(state))

    def _reversals(self, frame: pd.DataFrame) -> list[str]:
        """Record each target's first decision and say where the gap has since changed sign.

        One pair cannot reverse (its interval only shrinks); under e-BH a pair decided at an
        earlier look may be undecided now, and its gap may have turned: said, never hidden.
        """
        notes = []
        for row in frame.itertuples():
            state = self._pairs[(row.task, row.model_a, row.model_b)]
            sign = int(np.sign(row.delta))
            if row.decided and state.decided_at is None:
                state.decided_at = int(row.n_items)
                state.decided_sign = 1 if row.lower > 0 else -1
            elif state.decided_at is not None and sign == -state.decided_sign != 0:
                ahead = row.model_a if state.decided_sign > 0 else row.model_b
                notes.append(
                    f"task {row.task}: {row.model_a} vs {row.model_b} was decided with {ahead} "
                    f"ahead at {state.decided_at:,} items; the gap now reads {row.delta:+.4f} "
                    f"[{row.lower:+.3f}, {row.upper:+.3f}] after {row.n_items:,}: that early "
                    "decision has reversed sign"
                )
        return notes

    def _target_keys(self) -> list:
        keys = list(self._pairs)
        if self.targets == "all":
            return keys
        if self.targets == "pair":
            assert self.pair is not None  # targets="pair" is refused without pair=
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

    def _family_keys(self) -> list:
        """The pairs of the multiplicity family: every pair, or the baseline's pairs."""
        return [
            key for key in self._pairs if self.targets != "baseline" or self.baseline in key[1:]
        ]

    def _required_n(self, summaries: list) -> np.ndarray:
        """Each pair's N* at a fixed n, as ``evalgap compare`` computes it on the same items
        (:func:`evalgap.jobs.pair_tests.pair_tests`: Eq. 3 raised to its floor; NaN where it
        is not estimated: no spread, or too few items differ)."""
        if not summaries:
            return np.zeros(0)

        def field(name: str) -> np.ndarray:
            return np.array([getattr(s, name) for s in summaries])

        binary = field("binary").astype(bool)
        a_only, b_only, n = field("a_only"), field("b_only"), field("n_items")
        # binary pairs: A's correct items are both_correct + a_only
        both_correct = np.where(binary, np.rint(field("accuracy_a") * n) - a_only, 0)
        tested = pair_tests(
            binary=binary, n_items=n, delta=field("delta"), sd_diff=field("sd_diff"),
            a_only=a_only, b_only=b_only, both_correct=both_correct,
            both_wrong=np.where(binary, n - a_only - b_only - both_correct, 0),
            alpha=self.alpha, power=self.power,
        )  # fmt: skip
        return np.asarray(pw.round_up_all(tested.required_n), dtype=float)  # as compare's

    def _further(self, n_items: int, summary: Any, required: float) -> float:
        """Items still needed to decide by the watch's own rule at the current estimates:
        the anytime-valid N* (Section 6.5: Eq. 3 with the e-process's boundary u in place of
        z_{1-alpha/2}, u at the discordant items N* would bring) minus the items seen;
        infinite where N* is not finite (no gap, no spread, or too few items differ)."""
        if not math.isfinite(required):
            return math.inf
        flip = summary.sd_diff**2 + summary.delta**2  # E[D^2]: the discordant share (binary)
        u = sequential.boundary(max(required * flip, 1.0), self.alpha)
        needed = float(sequential.required_n_anytime(required, u, self.alpha, self.power))
        return max(math.ceil(needed) - n_items, 1) if math.isfinite(needed) else math.inf

    def _cost(self, row: Any) -> float | None:
        if self.price is None or not math.isfinite(row.further_items):
            return None
        spent = [self._tokens.get((row.task, m)) for m in (row.model_a, row.model_b)]
        if any(s is None or s[1] == 0 for s in spent):
            return None
        per_item = sum(s[0] / s[1] for s in spent if s is not None)  # no None here (returned above)
        return row.further_items * per_item / 1000 * self.price

    def _done(self, frame: pd.DataFrame) -> tuple[bool, str]:
        if len(frame) and bool(frame["decided"].all()):
            return True, "every target pair is decided"
        if (
            self.budget is not None
            and self._scores
            and min(len(v) for v in self._scores.values()) >= self.budget
        ):
            return True, f"the item budget ({self.budget:,} per model) is spent"
        return False, ""


def _name(value: object, what: str) -> str:
    """A model, task or option name: non-empty text."""
    if isinstance(value, np.str_):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(
            named(what) + " must be a non-empty name (text); got {got!s}",
            param=param_of(what),
            got=_validate.show(value),
        )
    return value


def _item_id(item: object) -> str:
    """An item id as text, as the table loaders read an id column (``7`` and ``"7"`` alike)."""
    if isinstance(item, np.str_):
        item = str(item)
    if isinstance(item, str):
        if not item.strip():
            raise InputError("item must be a non-empty id (text or a whole number); got ''")
        return item
    if isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_)):
        return str(int(item))
    if (
        isinstance(item, numbers.Real)
        and not isinstance(item, (bool, np.bool_))
        and math.isfinite(item)
        and float(item).is_integer()
    ):
        return str(int(float(item)))  # a whole number read as a decimal (an id column with gaps)
    raise InputError(
        f"item must be an id (text or a whole number); got {_validate.show(item)} "
        f"({type(item).__name__})"
    )


def _score(score: object, model: str, item: str) -> float:
    if type(score) is float and 0.0 <= score <= 1.0:  # what logs give: no ABC check per record
        return score
    if isinstance(score, (bool, np.bool_)):
        return float(score)
    if not isinstance(score, numbers.Real) or not math.isfinite(score):
        raise InputError(
            f"score of {model!r} on item {item!r} must be a number in [0, 1]; got "
            f"{_validate.show(score)}"
        )
    value = float(score)
    if not 0 <= value <= 1:
        raise InputError(f"score of {model!r} on item {item!r} is {value:g}; scores are in [0, 1]")
    return value


def _normal_path(path: object) -> str:
    """A path spelled one way: absolute, without '.', '..' or a trailing separator."""
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(
            "{logs} takes paths; got {got!s}", param="logs", got=_validate.show(path)
        )
    return os.path.normpath(os.path.abspath(os.fspath(path)))


STOPS = ("decided", "budget", "timeout", "once")


def watch(
    logs: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    pair: Sequence[str] | None = None,
    baseline: str | None = None,
    targets: str = "adjacent",
    metric: str | None = None,
    scorer: str | None = None,
    score_key: str | None = None,
    reducer: str | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    budget: int | None = None,
    price_per_1k_tokens: float | None = None,
    tokens_per_item: float | None = None,
    interval: float = 10.0,
    timeout: float | None = None,
    once: bool = True,
    state: str | os.PathLike | None = None,
    on_status: Callable[[WatchStatus], object] | None = None,
    adaptive: bool = False,
    reference: Any = None,
    next_count: int = 50,
    audit: float = 0.2,
    adaptive_state: str | os.PathLike | None = None,
    output: str | os.PathLike | None = None,
    seed: int | None = None,
) -> WatchStatus:
    """Return where evaluation logs in progress stand after one look, or after watching them
    until every target is decided (``evalgap watch``).

    Each look reads only what the logs gained since the last one; between looks the call
    sleeps ``interval`` seconds. It returns when every target is decided or the budget is
    spent (``stopped`` is ``"decided"`` or ``"budget"``), after one look with ``once=True``
    (``"once"``), or after ``timeout`` seconds without a new record (``"timeout"``).

    Parameters
    ----------
    logs : path or list of paths
        Directories (or files) of lm-eval ``samples_*.jsonl`` files or inspect_ai logs.
    pair : tuple of str, optional
        Watch one pair: model A and model B.
    baseline : str, optional
        Watch every model against this one.
    targets : {"adjacent", "all"}
        Without ``pair`` or ``baseline``: the pairs adjacent in the current ranking, or all.
    metric, scorer, score_key, reducer : str, optional
        How to read the logs, as the loaders take them.
    alpha, power : float
        Error level (per pair, or the family's false discovery rate); power of the
        projected item counts.
    budget : int, optional
        Items per model after which the evaluation stops whatever is decided.
    price_per_1k_tokens : float, optional
        Price of 1,000 tokens: the projected cost of the further items.
    tokens_per_item : float, optional
        Tokens one item costs a model, for logs that record none (needs
        ``price_per_1k_tokens``).
    interval : float
        Seconds between looks (>= 0).
    timeout : float, optional
        Stop after this many seconds without a new record (> 0).
    once : bool
        Look once and return (the default in Python; the command line watches until
        decided unless ``--once``).
    state : path, optional
        A state file: read when it exists (refused when written for other logs or
        settings), so the watch continues from it reading only what the logs gained since,
        and saved after every look.
    on_status : callable, optional
        Called with the :class:`WatchStatus` of every look (its ``new_records`` and
        ``bytes_read`` say what that look read), e.g. to print progress.
    adaptive : bool
        Choose the pair's next items (``pair`` needed): after each look that read new
        records, the next batch of :func:`evalgap.adaptive` on the scores the logs hold,
        in the status's ``adaptive`` and written to ``output``. The decision is the
        watch's own (the same e-process, valid whatever order the items come in).
    reference : DataFrame, path or list, optional
        With ``adaptive``: the board scored on the whole benchmark (the logs' task and
        item ids).
    next_count, audit, adaptive_state, output, seed
        With ``adaptive``: the batch's size, its random audit share, the file keeping the
        audit draws (``state`` of :func:`evalgap.adaptive`), the file the batch's item ids
        are written to, and the audit draws' seed.

    Returns
    -------
    WatchStatus
        The last look: ``done`` says whether to stop, ``stopped`` why the call returned,
        ``notes`` what was waited for or left out.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for model, correct in (("a", lambda i: 1.0), ("b", lambda i: float(i % 2))):
    ...     (root / model).mkdir()
    ...     lines = [json.dumps({"doc_id": i, "acc": correct(i)}) for i in range(300)]
    ...     _ = (root / model / "samples_qa_2026-01-01T00-00-00.jsonl").write_text(
    ...         "\\n".join(lines) + "\\n")
    >>> status = watch(root, pair=("a", "b"))
    >>> bool(status.done), status.stopped, int(status.pairs["n_items"].iloc[0])
    (True, 'decided', 300)
    """
    if state is not None and not isinstance(state, (str, os.PathLike)):
        raise InputError(
            "{state} takes a path; got {got!s}", param="state", got=_validate.show(state)
        )
    if not isinstance(once, (bool, np.bool_)):
        raise InputError(
            "{once!b}" + escape(f" must be True or False; got {_validate.show(once)}"),
            param="once",
        )
    if on_status is not None and not callable(on_status):
        raise InputError(
            "{on_status} takes a function of a status; got {got!s}",
            param="on_status",
            got=_validate.show(on_status),
        )
    interval = float(_validate.numbers(interval, "interval", what="a number of seconds >= 0"))
    if interval < 0:
        raise InputError(
            "{interval!b}" + escape(f" must be a number of seconds >= 0; got {interval:g}"),
            param="interval",
        )
    if timeout is not None:
        timeout = float(_validate.positive(timeout, "timeout"))
    board = _adaptive_reference(adaptive, reference, pair, state, adaptive_state, output)
    monitor = Monitor(
        targets="pair" if pair is not None else "baseline" if baseline is not None else targets,
        pair=pair,
        baseline=baseline,
        alpha=alpha,
        power=power,
        budget=budget,
        price_per_1k_tokens=price_per_1k_tokens,
    )
    monitor.follow(logs, metric=metric, scorer=scorer, score_key=score_key, reducer=reducer)
    monitor = resume(monitor, state, price_per_1k_tokens=price_per_1k_tokens)
    quiet_since = time.monotonic()
    first = True
    while True:
        added = monitor.poll(tokens_per_item=tokens_per_item)
        if added:
            quiet_since = time.monotonic()
        status = monitor.status()
        if state is not None:
            save_state(monitor, state)
        stopped = ""
        if status.done:
            decided = len(status.pairs) and bool(status.pairs["decided"].all())
            stopped = "decided" if decided else "budget"
        elif once:
            stopped = "once"
        elif timeout is not None and time.monotonic() - quiet_since >= timeout:
            stopped = "timeout"
        chosen = None
        if board is not None and (added or first):
            chosen = _next_batch(
                monitor, board, next_count=next_count, audit=audit, alpha=alpha,
                state=adaptive_state, output=output, seed=seed,
            )  # fmt: skip
        first = False
        if chosen is not None:
            chosen = _with_watch_decision(chosen, status)
        status = dataclasses.replace(
            status,
            new_records=added,
            bytes_read=0 if monitor.follower is None else monitor.follower.bytes_read,
            stopped=stopped,
            adaptive=chosen,
        )
        if on_status is not None:
            on_status(status)
        if stopped:
            return status
        time.sleep(interval)


def _adaptive_reference(
    adaptive: bool,
    reference: Any,
    pair: Sequence[str] | None,
    state: str | os.PathLike | None,
    adaptive_state: str | os.PathLike | None,
    output: str | os.PathLike | None,
) -> ScoreSet | None:
    """The reference board of an adaptive watch (None without ``adaptive``), after its
    settings are checked: a pair, a reference, and no file written twice or over an input."""
    from evalgap.io._write import refuse_clobbering
    from evalgap.jobs._inputs import scores_of

    if not isinstance(adaptive, (bool, np.bool_)):
        raise InputError(
            "{adaptive!b}" + escape(f" must be True or False; got {_validate.show(adaptive)}"),
            param="adaptive",
        )
    if not adaptive:
        for name, value in (("reference", reference), ("adaptive_state", adaptive_state),
                            ("output", output)):  # fmt: skip
            if value is not None:
                raise InputError("{" + name + "} is used with {adaptive}", param=name)
        return None
    if pair is None or reference is None:
        raise InputError(
            "{adaptive} needs the {pair} to choose items for and a {reference} board scored "
            "on the whole benchmark",
            param="pair" if pair is None else "reference",
        )
    paths = reference if isinstance(reference, (list, tuple)) else [reference]
    refuse_clobbering(
        {"state": state, "adaptive_state": adaptive_state, "output": output},
        {"reference": [p for p in paths if isinstance(p, (str, os.PathLike))]},
    )
    return scores_of(reference)


def _with_watch_decision(chosen: AdaptiveResult, status: WatchStatus) -> AdaptiveResult:
    """The adaptive batch with the watch's own decision, evidence and better model: the
    pair's row of ``status`` (its interval leaving 0 out), so the two never disagree."""
    if not len(status.pairs):
        return chosen
    row = status.pairs.iloc[0]
    decided = bool(row["decided"])
    better = str(row["model_a"] if float(row["delta"]) > 0 else row["model_b"])
    return dataclasses.replace(
        chosen, e_value=float(row["e_value"]), decided=decided, better=better if decided else None
    )


def _next_batch(monitor: Monitor, board: ScoreSet, **settings: Any) -> AdaptiveResult:
    """:func:`evalgap.jobs.adaptive.adaptive_step` on the pair's scores the logs hold."""
    from evalgap.jobs._inputs import scores_of
    from evalgap.jobs.adaptive import adaptive_step

    assert monitor.pair is not None  # an adaptive watch follows one pair
    rows = [
        (task, model, item, score)
        for (task, model), seen in monitor._scores.items()
        if model in monitor.pair
        for item, score in seen.items()
    ]
    frame = pd.DataFrame(rows, columns=["task", "model", "item_id", "score"])
    ran = scores_of(frame) if len(frame) and frame["model"].nunique() == 2 else None
    return adaptive_step(board, ran, monitor.pair, **settings)


def resume(
    monitor: Monitor,
    state: str | os.PathLike | None,
    *,
    price_per_1k_tokens: float | None = None,
) -> Monitor:
    """Return the monitor saved in ``state`` when it watches what ``monitor`` watches.

    Parameters
    ----------
    monitor : Monitor
        A new monitor, following its logs.
    state : path or None
        A state file written by :meth:`Monitor.save`; absent (or None), ``monitor`` is kept.
    price_per_1k_tokens : float, optional
        The price the resumed monitor projects costs with.

    Returns
    -------
    Monitor
        The saved monitor, or ``monitor``; a state written for other logs, pairs or levels
        is refused.
    """
    if state is None or not os.path.exists(state):
        return monitor
    try:
        saved = Monitor.load(state, price_per_1k_tokens=price_per_1k_tokens)
    except InputError as exc:
        raise _state_error(exc, state) from None
    if saved.settings != monitor.settings:
        raise InputError(
            "{state}: written for other {logs!n}, pairs or levels; delete it or give another path",
            param="state",
            state=str(state),
        )
    return saved


def save_state(monitor: Monitor, state: str | os.PathLike) -> None:
    """Write ``monitor`` to the state file ``state`` (:meth:`Monitor.save`); a failure names
    the parameter as :func:`resume` does.

    Parameters
    ----------
    monitor : Monitor
        The monitor to save.
    state : path
        The state file.
    """
    try:
        monitor.save(state)
    except InputError as exc:
        raise _state_error(exc, state) from None


def _state_error(exc: InputError, state: str | os.PathLike) -> InputError:
    """The error of reading or writing the state file, naming the ``state`` parameter."""
    text, where = str(exc), str(state)
    rest = text[len(where) + 2 :] if text.startswith(where + ": ") else text
    rest = rest.replace("{", "{{").replace("}", "}}")
    return InputError("{state}: " + rest, param="state", state=where)
