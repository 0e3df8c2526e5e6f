"""The ``adaptive`` job: decide one pair with the items that say most about it.

Each call takes the pair's answers so far and a reference board scored on the whole
benchmark, and returns where the pair stands -- the anytime-valid e-value on the signs of the
items where the two differ, the full-benchmark gap estimated from the random audit draws --
and the next batch of items to run (:mod:`evalgap.stats.adaptive`). A state file keeps the
audit draws (each with the predicted difference fixed when it was drawn), so the estimate
stays unbiased across calls; the decision needs no state (the e-value is a function of the
two discordant counts).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import RowResult
from evalgap._scores import ScoreSet
from evalgap.errors import InputError
from evalgap.jobs._board import is_paths, reference_source
from evalgap.jobs._inputs import _renamed, _stored, scores_of
from evalgap.jobs._pages import Views
from evalgap.jobs.estimate import _benchmark
from evalgap.stats import _validate
from evalgap.stats import adaptive as design
from evalgap.stats.estimate import ability_map
from evalgap.stats.sequential import log_e_value
from evalgap.stats.stratified import fit_2pl, success_probability

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions

STATE_FORMAT = "evalgap-adaptive"
STATE_VERSION = 1
MAX_STATE_BYTES = 64 * 2**20


@dataclass(frozen=True, repr=False)
class AdaptiveResult(Views, RowResult):
    """Where one pair stands in an adaptive evaluation, and what to run next
    (``evalgap adaptive``).

    Attributes
    ----------
    model_a, model_b : str
        The pair.
    n_items : int
        Items both models have run.
    a_only, b_only : int
        Of those, the items only A (only B) got right (graded scores: where A's score is
        higher, lower).
    e_value : float
        The mixture e-value on those signs (Resolution Diagnostics, Eq. 24).
    alpha : float
        The level: the pair is decided when ``e_value >= 1 / alpha``.
    decided : bool
        Whether it is.
    better : str or None
        The model shown better, once decided.
    gap : float
        The full-benchmark gap ``mean(A) - mean(B)`` estimated from the audit draws
        (model-assisted difference estimate; NaN before any audit draw was run).
    gap_interval : tuple of float
        Its Student-t (1 - alpha) interval (NaN with fewer than two audit draws): a fixed-n
        interval, valid at a budget chosen in advance, not across looks as the decision is.
    n_audit : int
        Audit draws run (the estimate's sample).
    pending_audit : int
        Audit draws proposed but not yet run by both models (proposed again).
    next_items : tuple of str
        The items to run next (not yet run by both), most informative first, then the
        audit draws.
    n_benchmark_items : int
        Items of the benchmark (the reference board's).
    reference_models : int
        Reference models the 2PL was fitted on (the pair left out).
    notes : tuple of str
        What the numbers need said beside them.
    verdict : str
        One sentence (a property).
    """

    model_a: str
    model_b: str
    n_items: int
    a_only: int
    b_only: int
    e_value: float
    alpha: float
    decided: bool
    better: str | None
    gap: float
    gap_interval: tuple[float, float]
    n_audit: int
    pending_audit: int
    next_items: tuple[str, ...]
    n_benchmark_items: int
    reference_models: int
    notes: tuple[str, ...] = field(default=())
    _headline = ("model_a", "model_b", "e_value", "decided")
    _derived = ("verdict",)

    @property
    def verdict(self) -> str:
        """One sentence: decided or not, on how many items, and the estimated gap."""
        from evalgap.report.sentences import adaptive_verdict

        return adaptive_verdict(self)

    _heading: ClassVar[str] = "evalgap adaptive"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_adaptive

        render_adaptive(self, console)


def adaptive_step(
    reference: ScoreSet,
    scores: ScoreSet | None,
    pair: tuple[str, str],
    *,
    next_count: int = 50,
    audit: float = design.AUDIT,
    alpha: float = 0.05,
    state: str | os.PathLike | None = None,
    output: str | os.PathLike | None = None,
    seed: int | None = None,
) -> AdaptiveResult:
    """Return where ``pair`` stands on the items run so far, and the next batch to run.

    Parameters
    ----------
    reference : ScoreSet
        A board scored on the benchmark; the pair's own models, if on it, are left out of
        the 2PL fit.
    scores : ScoreSet or None
        The pair's scores on the items run so far (None: none yet).
    pair : tuple of str
        Model A and model B.
    next_count : int
        Items in the next batch.
    audit : float
        Share of each batch drawn at random from all items (for the gap estimate).
    alpha : float
        The level of the decision and of the gap's interval.
    state : path, optional
        The file keeping the audit draws between calls (read if present, then rewritten);
        without one no audit draw is taken (it could not be kept).
    output : path, optional
        Write the next batch's item ids there, one per line.
    seed : int, optional
        Seed of the audit draws.

    Returns
    -------
    AdaptiveResult
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    next_count = _validate.whole_number(next_count, "next_count", 0)
    audit = float(_validate.probability(audit, "audit", open_interval=False))
    a, b = (str(m) for m in pair)
    if a == b:
        raise InputError("{pair} must name two different models", param="pair")
    ref, ids = _benchmark(reference)
    several = len(reference.tasks) > 1
    keep = [k for k, m in enumerate(reference.models) if str(m) not in (a, b)]
    if len(keep) < 3:
        raise InputError(
            f"the reference board has {len(keep)} model(s) besides the pair; the 2PL needs 3",
            param="reference",
        )
    ref = ref[keep]
    if ((ref[~np.isnan(ref)] < 0) | (ref[~np.isnan(ref)] > 1)).any():
        raise InputError("{reference} scores must lie in [0, 1]", param="reference")
    notes: list[str] = []
    y = _pair_answers(scores, (a, b), ids, several, notes)
    fit = fit_2pl(ref)
    if not fit.converged:
        notes.append(f"the reference 2PL fit stopped after {fit.n_iter} sweeps before converging")
    run = ~np.isnan(y[0]) & ~np.isnan(y[1])
    one_sided = int((~np.isnan(y[0]) ^ ~np.isnan(y[1])).sum())
    if one_sided:
        notes.append(
            f"{one_sided:,} item(s) run by only one of the two models are left out until both "
            "have run them"
        )
    d = y[0, run] - y[1, run]
    a_only, b_only = int((d > 0).sum()), int((d < 0).sum())
    e_value = float(np.exp(log_e_value(a_only, b_only)))
    decided = e_value >= 1 / alpha
    better = (a if a_only > b_only else b) if decided else None

    # the abilities on the items run; the predicted differences, fixed for this batch
    theta = ability_map(np.where(run, y, np.nan), fit.slope, fit.intercept)[0]
    p = success_probability(theta, fit.slope, fit.intercept)
    predicted = p[0] - p[1]
    draws = _read_state(state, (a, b), ids) if state is not None else []
    index = {item: k for k, item in enumerate(ids)}
    done = [r for r in draws if run[index[r["item_id"]]]]
    pending = [r for r in draws if not run[index[r["item_id"]]]]
    terms = design.assisted_terms(
        np.array([y[0, index[r["item_id"]]] - y[1, index[r["item_id"]]] for r in done]),
        np.array([r["predicted"] for r in done]),
        np.array([r["predicted_mean"] for r in done]),
    )
    gap = design.gap_interval(terms, alpha=alpha)

    rng = np.random.default_rng(seed)
    # pending audit draws are proposed again (first, within the batch) and no new one is
    # drawn until they are run; without a state file no draw is taken (none could be kept)
    share = 0.0 if pending or state is None else audit
    room = max(next_count - len(pending), 0)
    items, drawn = (
        design.choose_items(
            design.sign_information(p[0], p[1]), run | _positions(pending, index), room,
            audit=share, rng=rng,
        )
        if room
        else (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool))
    )  # fmt: skip
    new_draws = [
        {
            "item_id": str(ids[j]),
            "predicted": float(predicted[j]),
            "predicted_mean": float(predicted.mean()),
        }
        for j in items[drawn]
    ]
    to_run = [r["item_id"] for r in pending][:next_count] + [str(ids[j]) for j in items[~drawn]]
    to_run += [r["item_id"] for r in new_draws if not run[index[r["item_id"]]]]
    if state is not None:
        _write_state(state, (a, b), ids.size, draws + new_draws)
    elif audit > 0:
        notes.append(
            "no state file: no audit draw is taken (it could not be kept between calls), so "
            "the full-benchmark gap is not estimated; give a state file"
        )
    next_items = tuple(dict.fromkeys(to_run))
    if output is not None:
        _write_batch(output, next_items)
    if pending:
        notes.append(
            f"{len(pending)} audit draw(s) not yet run by both models are left out of the gap "
            "estimate until they are, and proposed again"
        )
    return AdaptiveResult(
        model_a=a, model_b=b, n_items=int(run.sum()), a_only=a_only, b_only=b_only,
        e_value=e_value, alpha=alpha, decided=bool(decided), better=better,
        gap=gap["estimate"], gap_interval=(gap["low"], gap["high"]), n_audit=int(gap["n"]),
        pending_audit=len(pending), next_items=next_items,
        n_benchmark_items=int(ids.size), reference_models=len(keep), notes=tuple(notes),
    )  # fmt: skip


def _positions(draws: list[dict[str, Any]], index: dict[str, int]) -> np.ndarray:
    mask = np.zeros(len(index), dtype=bool)
    mask[[index[r["item_id"]] for r in draws]] = True
    return mask


def _pair_answers(
    scores: ScoreSet | None,
    pair: tuple[str, str],
    ids: np.ndarray,
    several: bool,
    notes: list[str],
) -> np.ndarray:
    """The pair's scores on the benchmark's items (2 x N, NaN where not run)."""
    y = np.full((2, ids.size), np.nan)
    if scores is None:
        return y
    models = [str(m) for m in scores.models]
    missing = [m for m in pair if m not in models]
    if missing and len(models) > 0:
        shown = ", ".join(repr(m) for m in models[:5])
        raise InputError(
            f"{missing[0]!r} is not among the scored models ({shown}); name the pair as the "
            "scores name it",
            param="pair",
        )
    new, new_ids = _benchmark(scores, several=several)  # ids qualified as the reference's
    position = {item: k for k, item in enumerate(ids)}
    known = np.array([item in position for item in new_ids], dtype=bool)
    if not known.all():
        notes.append(
            f"{int((~known).sum()):,} scored item(s) are not in the reference board and are left "
            "out"
        )
    columns = np.array([position[item] for item in new_ids[known]], dtype=np.int64)
    for row, model in enumerate(pair):
        y[row, columns] = new[models.index(model), known]
    if ((y[~np.isnan(y)] < 0) | (y[~np.isnan(y)] > 1)).any():
        raise InputError("{scores} must lie in [0, 1]", param="scores")
    return y


def _read_state(
    path: str | os.PathLike, pair: tuple[str, str], ids: np.ndarray
) -> list[dict[str, Any]]:
    """The audit draws kept in ``path`` (none if it does not exist); a file that is not
    such a state, or one kept for another pair or benchmark, is refused naming it."""
    from evalgap.io import state as state_file

    where = str(path)
    if not os.path.exists(path):
        return []
    data = state_file.read(
        path, what="adaptive state", fmt=STATE_FORMAT, version=STATE_VERSION,
        limit=MAX_STATE_BYTES,
    )  # fmt: skip
    if data.get("pair") != list(pair) or data.get("benchmark_items") != int(ids.size):
        raise InputError(
            f"{where}: kept for another pair or benchmark ({data.get('pair')!r}, "
            f"{data.get('benchmark_items')!r} items); give another path"
        )
    known = set(ids.tolist())
    draws = data.get("audit_draws")
    if not isinstance(draws, list):
        raise InputError(f"{where}: its audit_draws are not a list; not an adaptive state")
    out = []
    for k, r in enumerate(draws):
        ok = (
            isinstance(r, dict)
            and isinstance(r.get("item_id"), str)
            and r["item_id"] in known
            and all(
                isinstance(r.get(f), (int, float))
                and not isinstance(r.get(f), bool)
                and -1 <= r[f] <= 1
                for f in ("predicted", "predicted_mean")
            )
        )
        if not ok:
            raise InputError(
                f"{where}: audit draw {k + 1} is not an item of the benchmark with predicted "
                "differences in [-1, 1]; not an adaptive state"
            )
        out.append(
            {
                "item_id": r["item_id"],
                "predicted": float(r["predicted"]),
                "predicted_mean": float(r["predicted_mean"]),
            }
        )
    return out


def _write_batch(path: str | os.PathLike, items: tuple[str, ...]) -> None:
    from evalgap.io._write import atomic_write

    atomic_write(
        path,
        lambda handle: handle.writelines(f"{item}\n" for item in items),
        option="output=",
        what="the next batch",
    )


def _write_state(
    path: str | os.PathLike, pair: tuple[str, str], n: int, draws: list[dict[str, Any]]
) -> None:
    from evalgap.io import state as state_file

    state_file.write(
        path,
        {"format": STATE_FORMAT, "version": STATE_VERSION, "pair": list(pair),
         "benchmark_items": n, "audit_draws": draws},
        what="adaptive state",
    )  # fmt: skip


def adaptive(
    scores: ScoresInput | None = None,
    *,
    reference: ScoresInput | None = None,
    pair: Sequence[str] | None = None,
    next_count: int = 50,
    audit: float = 0.2,
    alpha: float = 0.05,
    state: str | Path | None = None,
    output: str | Path | None = None,
    seed: int | None = None,
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> AdaptiveResult:
    """Decide one pair with the items that say most about it: where it stands, and what to
    run next.

    The decision is the mixture e-process on the signs of the items where the two models
    differ (Resolution Diagnostics, Eq. 24): valid under continuous monitoring and under any
    choice of items that does not see the signs it is about to reveal, so the items can be
    chosen for the information their sign should carry under a 2PL fitted on the reference
    board (the pair left out) at the pair's abilities so far. A share of each batch
    (``audit``) is drawn at random from all items; with the ``state`` file keeping those
    draws, they give an unbiased estimate of the full-benchmark gap (model-assisted
    difference estimate). See :mod:`evalgap.stats.adaptive`.

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        The pair's per-item scores on the items run so far (none: the first batch).
    reference : DataFrame, ScoreSet, str, Path or list
        A board of models scored on the benchmark (the same task and item ids).
    pair : tuple of str
        Model A and model B.
    next_count : int
        Items in the next batch.
    audit : float
        Share of each batch drawn at random from all items (0 to 1).
    alpha : float
        The level of the decision and of the gap's interval.
    state : str or Path, optional
        A file keeping the audit draws between calls (read if present, rewritten); without
        it no audit draw is taken and the gap is not estimated.
    output : str or Path, optional
        Write the next batch's item ids there, one per line (``--output``).
    seed : int, optional
        Seed of the audit draws.
    tasks : list of str, optional
        Select the tasks (of both inputs).
    options : LoadOptions, optional
        With paths: how to read them.
    **columns
        Column names of DataFrames or table files (both inputs).

    Returns
    -------
    AdaptiveResult
        ``e_value``, ``decided``, ``better``, ``gap`` and ``gap_interval``, ``next_items``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, evalgap
    >>> rng = np.random.default_rng(0)
    >>> skill = np.linspace(-1.5, 1.5, 12)
    >>> a, c = rng.uniform(0.5, 2.5, 1000), rng.normal(0, 1, 1000)
    >>> y = (rng.random((12, 1000)) < 1 / (1 + np.exp(-(np.outer(skill, a) + c)))).astype(int)
    >>> board = pd.DataFrame([(f"m{k}", i, y[k, i]) for k in range(12) for i in range(1000)],
    ...                      columns=["model", "item_id", "score"])
    >>> r = evalgap.adaptive(reference=board, pair=("m11", "m3"), next_count=40, seed=0)
    >>> r.n_items, len(r.next_items)
    (0, 40)
    >>> ran = board[board["model"].isin(["m11", "m3"])
    ...             & board["item_id"].astype(str).isin(r.next_items)]
    >>> r = evalgap.adaptive(ran, reference=board, pair=("m11", "m3"), seed=1)
    >>> r.n_items, r.decided, r.better
    (40, True, 'm11')
    """
    from evalgap.jobs._inputs import _check_columns

    _check_columns(columns, "adaptive")
    from evalgap.io._write import refuse_clobbering

    _validate.arguments(alpha=alpha, tasks=tasks)
    if reference is None or pair is None or isinstance(pair, str) or len(pair) != 2:
        raise InputError(
            "give a {reference} board scored on the benchmark and the {pair} (two models)",
            param="reference" if reference is None else "pair",
        )
    if str(pair[0]) == str(pair[1]):
        raise InputError("{pair} must name two different models", param="pair")
    given = _renamed(columns, "data", "scores", scores)
    refuse_clobbering(
        {"output": output, "state": state},
        {k: v for k, v in (("reference", reference), ("scores", given)) if is_paths(v)},
    )
    source, read = reference_source(reference, options)
    board = scores_of(source, tasks=tasks, options=read, **columns)
    ran = None
    if given is not None or _stored(options):
        ran = scores_of(given, models=list(pair), tasks=tasks, options=options, **columns)
    return adaptive_step(
        board, ran, (str(pair[0]), str(pair[1])), next_count=next_count, audit=audit,
        alpha=alpha, state=state, output=output, seed=seed,
    )  # fmt: skip
