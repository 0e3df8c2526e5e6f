"""Bradley-Terry scores of K models from pairwise battles (arena-style leaderboards).

``P(i beats j) = 1 / (1 + exp(-(theta_i - theta_j)))``, fitted by maximum likelihood. A
tie counts as half a win for each model (the default; the likelihood is then linear in the
outcome, so only each pair's battles and wins matter), or follows Davidson's (1970) model:
``P(i wins) = pi_i / D``, ``P(tie) = nu sqrt(pi_i pi_j) / D`` with
``D = pi_i + pi_j + nu sqrt(pi_i pi_j)`` and ``pi = exp(theta)``. Scores are identified by
``sum(theta) = 0``.

The MLE exists only when the comparison graph is strongly connected (every model has lost
to and beaten, through some chain, every other; a tie links both ways); otherwise the models
that never lose (or never win) drift to infinity, and :func:`fit` says which they are.

Standard errors: model-based (the inverse Fisher information) and sandwich (robust to a
misspecified win model: ``H^-1 (sum_b s_b s_b') H^-1`` over battles b). The bootstrap
reweights the distinct (pair, outcome) cells by multinomial counts (resampling battles) and
solves every replicate of a block from the full fit by chord steps (the full fit's inverse
information), on (K, K) count matrices where the pairs fill the square (:func:`bootstrap`).
:class:`Removals` refits the battles with some taken away (the battles to flip a claim).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import linalg, optimize, special
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components

from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, IntArray, Seed
from evalgap.stats.resample import seed_sequence

TIES = ("half", "davidson")
NEWTON_STEPS = 100
TOLERANCE = 1e-12  # on the largest Newton step, in score units
BOOTSTRAP_BLOCK = 256
BOOTSTRAP_ELEMENTS = 2**23  # cells (or K^2) x replicates held at once (64 MiB of floats)
CHORD_STEPS = 60
CHORD_TOLERANCE = 1e-9  # bootstrap replicates: far below any standard error


@dataclass(frozen=True)
class Battles:
    """Battles reduced to their distinct cells: pair ``(first, second)`` with
    ``first < second``, outcome ``y`` (1: first won, 0.5: tie, 0: second won) and ``count``.

    Attributes
    ----------
    n_models : int
        K; models are coded 0..K-1.
    first, second : numpy.ndarray
        The pair of each cell.
    outcome, count : numpy.ndarray
        Its outcome and how many battles had it.
    clusters : scipy.sparse.csr_matrix or None
        With clusters (prompts): a (clusters, cells) matrix of how many battles of each
        cluster fell in each cell; the sandwich covariance and the bootstrap then treat a
        cluster's battles as one draw.
    """

    n_models: int
    first: IntArray
    second: IntArray
    outcome: FloatArray
    count: IntArray
    clusters: csr_matrix | None = None

    @property
    def n_clusters(self) -> int:
        """Clusters of battles (0 without clusters)."""
        return 0 if self.clusters is None else int(self.clusters.shape[0])

    @property
    def n_battles(self) -> int:
        """Battles in all."""
        return int(self.count.sum())

    def per_model(self) -> IntArray:
        """Battles each model took part in."""
        k = self.n_models
        return np.bincount(self.first, self.count, k) + np.bincount(self.second, self.count, k)


@dataclass(frozen=True)
class BradleyTerryFit:
    """A fitted Bradley-Terry model.

    Attributes
    ----------
    scores : numpy.ndarray
        ``theta`` (sum zero), one per model.
    covariance : numpy.ndarray
        Model-based (inverse Fisher information) covariance of the scores.
    robust_covariance : numpy.ndarray
        Sandwich covariance.
    tie_parameter : float or None
        Davidson's ``nu`` (None for ties as half wins).
    log_likelihood : float
        At the maximum.
    iterations : int
        Newton steps taken.
    """

    scores: FloatArray
    covariance: FloatArray
    robust_covariance: FloatArray
    tie_parameter: float | None
    log_likelihood: float
    iterations: int

    def win_probability(self) -> FloatArray:
        """``P[i, j]``: the probability that model i beats model j (a tie as half)."""
        return special.expit(self.scores[:, None] - self.scores[None, :])


def battles(
    model_a: ArrayLike,
    model_b: ArrayLike,
    outcome: ArrayLike,
    n_models: int | None = None,
    cluster: ArrayLike | None = None,
) -> Battles:
    """Reduce battles (integer codes of the two models, outcome 1/0.5/0 for model_a) to cells.

    ``cluster`` (integer codes 0..C-1, one per battle: the prompt it was fought on) keeps
    which battles share a cluster, for the clustered sandwich and bootstrap.

    Examples
    --------
    >>> b = battles([0, 1, 0, 2], [1, 0, 1, 0], [1, 1, 0.5, 0])
    >>> b.first.tolist(), b.second.tolist(), b.outcome.tolist(), b.count.tolist()
    ([0, 0, 0, 0], [1, 1, 1, 2], [0.0, 0.5, 1.0, 1.0], [1, 1, 1, 1])
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    y = np.asarray(outcome, dtype=float)
    if not (a.shape == b.shape == y.shape) or a.ndim != 1:
        raise InputError("model_a, model_b and outcome must be 1-D arrays of one length")
    if not np.isin(y, (0.0, 0.5, 1.0)).all():
        raise InputError("outcome must be 1 (model_a won), 0.5 (tie) or 0 (model_b won)")
    if (a == b).any():
        raise InputError("a model cannot battle itself; drop those rows first")
    k = int(max(a.max(initial=-1), b.max(initial=-1)) + 1 if n_models is None else n_models)
    swap = a > b
    first, second = np.where(swap, b, a), np.where(swap, a, b)
    y = np.where(swap, 1.0 - y, y)
    key = (first * k + second) * 3 + np.rint(2 * y).astype(np.int64)
    cells, cell_of, count = np.unique(key, return_inverse=True, return_counts=True)
    pair, code = np.divmod(cells, 3)
    clusters = None
    if cluster is not None:
        c = np.asarray(cluster)
        if c.shape != a.shape or not np.issubdtype(c.dtype, np.integer) or (c < 0).any():
            raise InputError("cluster must hold one integer code >= 0 per battle")
        clusters = csr_matrix(
            (np.ones(c.size), (c, cell_of)), shape=(int(c.max(initial=-1)) + 1, cells.size)
        )
        clusters.sum_duplicates()
    return Battles(k, pair // k, pair % k, code / 2.0, count.astype(np.int64), clusters)


def from_counts(wins: ArrayLike, ties: ArrayLike | None = None) -> Battles:
    """Battles from (K, K) count matrices: ``wins[i, j]`` battles model i won against model
    j, and ``ties[i, j]`` (i < j; the upper triangle, or a symmetric matrix) the battles
    they tied. The fit depends on the battles only through these counts, so a fit (and the
    battle bootstrap) from them equals one from the battles themselves.

    Examples
    --------
    >>> wins = np.array([[0, 2, 1], [1, 0, 1], [1, 0, 0]])
    >>> np.round(fit(from_counts(wins)).scores, 4).tolist()
    [0.314, 0.1283, -0.4423]
    """
    w = np.asarray(wins)
    k = w.shape[0] if w.ndim == 2 else -1
    t = np.zeros((max(k, 0),) * 2, dtype=np.int64) if ties is None else np.asarray(ties)
    for name, m in (("wins", w), ("ties", t)):
        if m.shape != (k, k) or not np.issubdtype(m.dtype, np.integer) or (m < 0).any():
            raise InputError(f"{name} must be a square (K, K) matrix of counts >= 0")
    upper = np.triu(t, 1)
    lower = np.tril(t, -1).T
    if lower.any() and upper.any() and not np.array_equal(upper, lower):
        raise InputError(
            "{ties!b} must count each pair once: its upper triangle, or symmetric", param="ties"
        )
    tied = np.where(upper.any(), upper, lower)
    if np.diag(w).any():
        raise InputError("wins[i, i] must be 0: a model cannot battle itself")
    i, j = np.triu_indices(k, 1)
    # cells sorted by pair, then outcome: second won (0), tie (0.5), first won (1)
    count = np.stack([w[j, i], tied[i, j], w[i, j]], axis=1).ravel()
    keep = count > 0
    first, second = np.repeat(i, 3)[keep], np.repeat(j, 3)[keep]
    outcome = np.tile([0.0, 0.5, 1.0], i.size)[keep]
    return Battles(k, first, second, outcome, count[keep].astype(np.int64))


def check_connected(data: Battles, names: Sequence[str] | None = None) -> None:
    """Raise when the MLE does not exist: the win graph is not strongly connected.

    The error lists the groups (by ``names`` when given, else model numbers), the first
    few models of each.
    """
    pairs = _Pairs.of(data)
    wins, total = pairs.totals(data, data.count.astype(float))
    _check_pairs_connected(pairs, wins, total, data.n_models, names)


def _check_pairs_connected(
    pairs: _Pairs, wins: np.ndarray, total: np.ndarray, k: int, names: Sequence[str] | None
) -> None:
    """:func:`check_connected` from each pair's battles and wins of its first model."""
    n, labels = _strong_components(pairs, wins, total, k)
    if n > 1:

        def label(m: int) -> str:
            name = str(names[m]) if names is not None else str(m)
            return name if len(name) <= 60 else name[:57] + "..."

        groups = []
        for g in range(min(n, 4)):
            members = np.flatnonzero(labels == g)
            shown = ", ".join(label(m) for m in members[:3])
            more = f" and {members.size - 3:,} more" if members.size > 3 else ""
            groups.append(f"[{shown}{more}]")
        rest = f" and {n - 4:,} more groups" if n > 4 else ""
        raise InputError(
            f"the Bradley-Terry scores do not exist: the battles split the models into {n:,} "
            f"groups that never both win and lose against each other: {', '.join(groups)}"
            f"{rest}; add battles between them, or rank each group alone"
        )


def _strong_components(
    pairs: _Pairs, wins: np.ndarray, total: np.ndarray, k: int
) -> tuple[int, IntArray]:
    """The strongly connected components of the win graph: an edge from the loser to the
    winner of each pair with a win (or a loss) of its first model; a tie links both ways."""
    won, lost = wins > 0, total - wins > 0
    rows = np.concatenate([pairs.second[won], pairs.first[lost]])
    cols = np.concatenate([pairs.first[won], pairs.second[lost]])
    graph = csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(k, k))
    n, labels = connected_components(graph, directed=True, connection="strong")
    return int(n), labels


def fit(
    data: Battles,
    *,
    ties: Literal["half", "davidson"] = "half",
    names: Sequence[str] | None = None,
    start: ArrayLike | None = None,
) -> BradleyTerryFit:
    """Maximum-likelihood Bradley-Terry scores with model-based and sandwich covariances.

    Ties as half wins: Newton's method on the pairs' win counts (the likelihood depends on
    the battles only through each pair's battles and wins: the (K, K) win and battle count
    matrices, kept as their nonzero pairs), with step halving, so the cost is O(pairs + K^3)
    whatever the number of battles. ``start`` (scores, e.g. a fit of nearly the same battles)
    warm-starts Newton's method; the maximum does not depend on it. ``names`` label the
    models in errors.

    Examples
    --------
    >>> b = battles([0, 0, 0, 1, 1, 2], [1, 1, 2, 2, 0, 0], [1, 1, 1, 1, 1, 1])
    >>> np.round(fit(b).scores, 4).tolist()
    [0.314, 0.1283, -0.4423]
    """
    if ties not in TIES:
        raise InputError(
            "{ties!b}" + escape(f" must be one of {', '.join(TIES)}; got {ties!r}"),
            param="ties",
        )
    if ties == "davidson":
        check_connected(data, names)
        return _fit_davidson(data)
    k = data.n_models
    pairs = _Pairs.of(data)
    wins, total = pairs.totals(data, data.count.astype(float))
    _check_pairs_connected(pairs, wins, total, k, names)
    theta, steps = _newton_one(pairs, wins, total, k, _start(start, k))
    p_pair = special.expit(theta[pairs.first] - theta[pairs.second])
    covariance = _inverse_centred(_pair_information(pairs, total * p_pair * (1 - p_pair), k))
    p = special.expit(theta[data.first] - theta[data.second])
    residual = data.outcome - p  # per battle of each cell, the score is residual (e_i - e_j)
    meat = _meat(data, pairs, residual)
    robust = covariance @ meat @ covariance
    with np.errstate(divide="ignore"):
        loglik = float(
            np.sum(
                data.count
                * (
                    np.where(data.outcome > 0, data.outcome * np.log(p), 0.0)
                    + np.where(data.outcome < 1, (1 - data.outcome) * np.log1p(-p), 0.0)
                )
            )
        )
    return BradleyTerryFit(theta, covariance, robust, None, loglik, steps)


def fit_scores(data: Battles, *, start: ArrayLike | None = None) -> FloatArray:
    """Return the Bradley-Terry scores alone (ties as half wins, sum zero): :func:`fit`
    without its covariances, for refits of nearly the same battles (warm-started from
    ``start``, typically two Newton steps). Raises as :func:`fit` when no MLE exists.

    Examples
    --------
    >>> b = battles([0, 0, 0, 1, 1, 2], [1, 1, 2, 2, 0, 0], [1, 1, 1, 1, 1, 1])
    >>> np.round(fit_scores(b, start=[0.3, 0.1, -0.4]), 4).tolist()
    [0.314, 0.1283, -0.4423]
    """
    pairs = _Pairs.of(data)
    wins, total = pairs.totals(data, data.count.astype(float))
    _check_pairs_connected(pairs, wins, total, data.n_models, None)
    return _newton_one(pairs, wins, total, data.n_models, _start(start, data.n_models))[0]


def _start(start: ArrayLike | None, k: int) -> FloatArray:
    """Newton's starting scores (zeros unless given), refused unless K finite numbers."""
    if start is None:
        return np.zeros(k)
    theta = np.asarray(start, dtype=float)
    if theta.shape != (k,) or not np.isfinite(theta).all():
        raise InputError(f"start must hold {k} finite scores, one per model", param="start")
    return theta


def sandwich_is_degenerate(data: Battles, fit: BradleyTerryFit) -> bool:
    """True when the sandwich covariance claims no variance in some direction of the scores
    (e.g. every battle a tie: each battle's outcome equals its expectation, the meat is 0).

    The meat is a Laplacian weighted by the cells' squared residuals; its null space beyond
    the constant is the contrasts between the groups of models that no battle with a
    residual links, so it is degenerate exactly when that graph is not connected.
    """
    p = special.expit(fit.scores[data.first] - fit.scores[data.second])
    live = np.abs(data.outcome - p) > 1e-12
    k = data.n_models
    graph = coo_matrix(
        (np.ones(int(live.sum())), (data.first[live], data.second[live])), shape=(k, k)
    )
    return connected_components(graph, directed=False)[0] > 1


def bootstrap(
    data: Battles,
    n_resamples: int,
    seed: Seed = 0,
    *,
    start: FloatArray | None = None,
    by_cluster: bool = True,
) -> FloatArray:
    """Return (B, K) bootstrap scores: battles resampled (the cells reweighted by multinomial
    counts) and every replicate fitted (ties as half wins). With clusters (``data.clusters``)
    and ``by_cluster``, whole clusters are resampled with replacement instead (the cells'
    counts are the drawn clusters' counts summed), so battles on one prompt move together.

    Each replicate is solved from the full-data scores by chord steps, Newton steps that
    reuse the full data's information matrix (one (K, K) inverse for all replicates; each
    step is a matrix product over the pairs), with exact Newton steps for the few replicates
    that do not settle. Memory is bounded by blocks of replicates, so the cost grows with
    B x (cells + K^2), not with K^3 per replicate. Replicates whose battles leave a model
    without a win or without a loss have no MLE; their scores are NaN (count them with
    ``np.isnan(draws).any(axis=1)``).

    Examples
    --------
    >>> b = battles(np.repeat([0, 1, 0], 50), np.repeat([1, 2, 2], 50),
    ...             np.tile([1, 0, 1, 1, 0.5], 30))
    >>> bootstrap(b, 200, seed=1).shape
    (200, 3)
    """
    n_resamples = _validate.resamples(n_resamples)
    check_connected(data)
    theta0 = fit(data).scores if start is None else np.asarray(start, dtype=float)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    pairs = _Pairs.of(data)
    k = data.n_models
    total0 = pairs.totals(data, data.count.astype(float))[1]
    p0 = special.expit(theta0[pairs.first] - theta0[pairs.second])
    information = _pair_information(pairs, total0 * p0 * (1 - p0), k)
    chord = np.linalg.inv(information[:-1, :-1])  # the last score held at 0
    out = np.empty((n_resamples, k))
    clustered = by_cluster and data.clusters is not None
    c = data.n_clusters
    widest = max(data.count.size, k * k, c if clustered else 0, 1)
    block = max(1, min(BOOTSTRAP_BLOCK, BOOTSTRAP_ELEMENTS // widest))
    to_total, to_wins = pairs.summing(data)
    dense = _is_dense(pairs, k)
    cell_flat = data.first * k + data.second
    for begin in range(0, n_resamples, block):
        rows = min(block, n_resamples - begin)
        if clustered:
            assert data.clusters is not None
            drawn = _multinomial_counts(rng, np.ones(c, dtype=np.int64), rows)
            counts = np.asarray(data.clusters.T @ drawn)
        else:
            counts = _multinomial_counts(rng, data.count, rows)
        if dense:  # per replicate, (K, K): its battles and wins of the row's model, exact
            # in float32 (whole and half counts), half the memory of a block
            squares = [
                (_square(cell_flat, w * data.outcome, k), _square(cell_flat, w, k))
                for w in counts.T
            ]
            out[begin : begin + rows] = _chord_dense(pairs, squares, theta0, chord)
            continue
        # (pairs, rows): each replicate's pair battles and wins of the pair's first model
        total, wins = np.asarray(to_total @ counts), np.asarray(to_wins @ counts)
        out[begin : begin + rows] = _chord(pairs, wins, total, theta0, chord)
    return out


def _multinomial_counts(rng: np.random.Generator, count: np.ndarray, rows: int) -> FloatArray:
    """(cells, rows): ``rows`` draws of Multinomial(n, count / n) with ``n = sum(count)``,
    how often each cell (or cluster) is drawn when its n units are resampled with
    replacement.

    Drawing the n units' indices and counting them costs O(n) a row; NumPy's multinomial
    costs O(cells) a row at several times the price per element, so it serves only where
    the units far outnumber the cells. Both are the same law."""
    n = int(count.sum())
    if n > 8 * count.size:
        return np.ascontiguousarray(rng.multinomial(n, count / n, size=rows).T, dtype=float)
    out = np.empty((count.size, rows))
    dtype = np.int32 if count.size < 2**31 else np.int64
    unit_cell = np.repeat(np.arange(count.size, dtype=dtype), count)
    for r in range(rows):
        out[:, r] = np.bincount(unit_cell[rng.integers(0, n, n)], minlength=count.size)
    return out


@dataclass(frozen=True)
class Removals:
    """Refits of one Bradley-Terry fit (ties as half wins) with some of its battles taken
    away: the data kept as each pair's wins and battles, so a refit touches the removed
    cells' pairs, then iterates chord steps ``theta += C g(theta)`` with the full fit's
    covariance ``C`` (the centred inverse information; a gradient sums to zero, so this is
    Newton's step with the fit's information, kept sum zero). Removing few battles moves the
    scores little, and each step shrinks the error by about the relative change of the
    information, so two or three steps over the pairs settle a refit; a removal that leaves
    a model without a win or a loss has no maximum (no refit).

    Build it once per fit with :meth:`of`; :meth:`effect` and :meth:`gap` serve every pair
    of models.
    """

    data: Battles
    scores: FloatArray
    covariance: FloatArray
    pairs: _Pairs
    pair_of_cell: IntArray
    wins: FloatArray
    total: FloatArray
    residual: FloatArray  # per cell: outcome - P(first wins) at the fit
    model_cells: IntArray  # the cells of each model's pairs, model by model
    model_starts: IntArray
    squares: tuple[FloatArray, FloatArray] | None  # (K, K) wins and battles, dense arenas
    nothing: FloatArray  # per cell, read-only zeros: the removal of no battle
    graph: BoolArray | None  # dense arenas: [u, v] when u lost to v at least once

    @classmethod
    def of(cls, data: Battles, fitted: BradleyTerryFit) -> Removals:
        """The refits of ``data`` around its fit ``fitted`` (ties as half wins)."""
        pairs = _Pairs.of(data)
        cells = data.first.size
        pair_of_cell = np.repeat(np.arange(pairs.starts.size), np.diff(np.r_[pairs.starts, cells]))
        wins, total = pairs.totals(data, data.count.astype(float))
        theta = np.asarray(fitted.scores, dtype=float)
        residual = data.outcome - special.expit(theta[data.first] - theta[data.second])
        member = np.concatenate([data.first, data.second])
        by_model = np.argsort(member, kind="stable")
        starts = np.searchsorted(member[by_model], np.arange(data.n_models + 1))
        squares, graph = None, None
        if _is_dense(pairs, data.n_models):
            k, flat = data.n_models, pairs.first * data.n_models + pairs.second
            squares = (
                np.bincount(flat, wins, k * k).astype(float).reshape(k, k),
                np.bincount(flat, total, k * k).astype(float).reshape(k, k),
            )
            graph = np.zeros((k, k), dtype=bool)
            graph[pairs.second[wins > 0], pairs.first[wins > 0]] = True
            graph[pairs.first[total > wins], pairs.second[total > wins]] = True
        nothing = np.zeros(cells)
        nothing.flags.writeable = False
        return cls(
            data, theta, np.asarray(fitted.covariance, dtype=float), pairs, pair_of_cell,
            wins, total, residual, by_model % max(cells, 1), starts, squares, nothing, graph,
        )  # fmt: skip

    def effect(self, model_a: int, model_b: int, cells: IntArray | None = None) -> FloatArray:
        """How removing one battle of each cell (of ``cells``; all by default) moves the gap
        ``theta_A - theta_B``, to first order (the influence function): ``-(y - p)(C_Ai -
        C_Aj - C_Bi + C_Bj)`` for a battle of pair ``(i, j)`` with outcome ``y``."""
        u = self.covariance[model_a] - self.covariance[model_b]
        first, second = self.data.first, self.data.second
        if cells is None:
            return -self.residual * (u[first] - u[second])
        return -self.residual[cells] * (u[first[cells]] - u[second[cells]])

    def near(self, model_a: int, model_b: int) -> tuple[IntArray, float]:
        """The cells of the pairs that involve A or B, and a bound on how far one battle of
        any other cell moves the gap (``max |u_i - u_j|`` over the other models, ``u = C_A -
        C_B``): the cells that move the gap most are among these unless the bound says not."""
        starts, cells = self.model_starts, self.model_cells
        near = np.unique(
            np.concatenate([
                cells[starts[model_a] : starts[model_a + 1]],
                cells[starts[model_b] : starts[model_b + 1]],
            ])
        )  # fmt: skip
        u = self.covariance[model_a] - self.covariance[model_b]
        others = np.delete(u, [model_a, model_b])
        bound = float(others.max() - others.min()) if others.size else 0.0
        return near, bound

    def gap(
        self,
        model_a: int,
        model_b: int,
        cells: IntArray,
        take: FloatArray,
        start: FloatArray | None = None,
    ) -> tuple[float, FloatArray | None]:
        """``theta_A - theta_B`` refitted with ``take[m]`` battles of cell ``cells[m]``
        removed, and the refitted scores; ``(nan, None)`` when the removal leaves no maximum.

        Chord steps from ``start`` (default: the fit's scores) stop once a step is below
        the fit's tolerance, or once the gap's sign is settled: the steps shrink
        geometrically (by ``rho`` = the last two steps' ratio, at most 1/2), so the scores
        move at most ``step rho / (1 - rho)`` further and the gap at most twice that; the
        sign is taken when the gap exceeds eight times that bound.
        """
        pairs, k = self.pairs, self.data.n_models
        affected, where = np.unique(self.pair_of_cell[cells], return_inverse=True)
        fewer = np.bincount(where, take, affected.size)
        fewer_wins = np.bincount(where, take * self.data.outcome[cells], affected.size)
        total, wins = self.total[affected], self.wins[affected]
        no_win = (wins - fewer_wins <= 0) & (wins > 0)  # the pair's first model's last win
        no_loss = (total - fewer - wins + fewer_wins <= 0) & (total - wins > 0)

        def pair_counts() -> tuple[FloatArray, FloatArray]:
            all_wins, all_total = self.wins.copy(), self.total.copy()
            all_wins[affected] -= fewer_wins
            all_total[affected] -= fewer
            return all_wins, all_total

        if (no_win | no_loss).any() and not self._connected_without(
            affected, no_win, no_loss, pair_counts
        ):
            return np.nan, None
        theta = (self.scores if start is None else start).copy()
        if self.squares is not None:  # the removal made in place on the (K, K) counts, undone
            flat = pairs.first[affected] * k + pairs.second[affected]
            square_wins, square_total = (m.reshape(-1) for m in self.squares)
            square_wins[flat] -= fewer_wins
            square_total[flat] -= fewer
            try:
                theta = self._chord_gap(model_a, model_b, theta, None)
            finally:
                square_wins[flat] += fewer_wins
                square_total[flat] += fewer
        else:
            theta = self._chord_gap(model_a, model_b, theta, pair_counts())
        if theta is None:
            try:  # Newton's method on the pair counts where the chord steps do not settle
                theta, _ = _newton_one(pairs, *pair_counts(), k, self.scores)
            except InputError:
                return np.nan, None
        return float(theta[model_a] - theta[model_b]), theta

    def _connected_without(
        self,
        pairs: IntArray,
        no_win: BoolArray,
        no_loss: BoolArray,
        pair_counts: Callable[[], tuple[FloatArray, FloatArray]],
    ) -> bool:
        """Whether the win graph stays strongly connected when ``pairs`` lose the edge of
        their first model's wins (``no_win``: second -> first, loser to winner) or of its
        losses (``no_loss``: first -> second). It does when every lost edge ``u -> v`` is
        bypassed, ``u -> w -> v`` for some w (one row and one column of a dense arena's
        (K, K) graph); else the components are counted from the pairs' counts."""
        graph = self.graph
        if graph is not None:
            first, second = self.pairs.first[pairs], self.pairs.second[pairs]
            source = np.concatenate([second[no_win], first[no_loss]])
            target = np.concatenate([first[no_win], second[no_loss]])
            graph[source, target] = False
            try:
                bypassed = all(
                    (graph[u] & graph[:, v]).any() for u, v in zip(source, target, strict=True)
                )
            finally:
                graph[source, target] = True
            if bypassed:
                return True
        return _strong_components(self.pairs, *pair_counts(), self.data.n_models)[0] == 1

    def _chord_gap(
        self,
        model_a: int,
        model_b: int,
        theta: FloatArray,
        counts: tuple[FloatArray, FloatArray] | None,
    ) -> FloatArray | None:
        """:meth:`gap`'s chord steps on the pairs' ``counts`` (wins, battles), or on the
        (K, K) squares when None; None when they do not settle."""
        first, second, k = self.pairs.first, self.pairs.second, self.data.n_models
        previous = np.inf
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(CHORD_STEPS):
                if counts is None:
                    assert self.squares is not None
                    step = self.covariance @ _dense_gradient(*self.squares, theta)
                else:
                    r = counts[0] - counts[1] * special.expit(theta[first] - theta[second])
                    step = self.covariance @ (np.bincount(first, r, k) - np.bincount(second, r, k))
                theta += step
                size = float(np.max(np.abs(step), initial=0.0))
                gap = float(theta[model_a] - theta[model_b])
                if not np.isfinite(size) or size > 1e3:
                    return None
                if size <= TOLERANCE:
                    return theta
                ratio = size / previous  # 0 after the first step: no rate known yet
                if 0 < ratio <= 0.5 and abs(gap) > 8 * size * ratio / (1 - ratio):
                    return theta
                previous = size
        return None


def _has_mle(pairs: _Pairs, wins: np.ndarray, total: np.ndarray, k: int) -> bool:
    """Whether one replicate's pair counts have a finite MLE (a strongly connected win
    graph)."""
    return _strong_components(pairs, wins, total, k)[0] == 1


# --- the fit ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pairs:
    """The distinct pairs of a Battles (its cells are sorted by pair, so each pair's cells
    are contiguous from ``starts``)."""

    first: np.ndarray
    second: np.ndarray
    starts: np.ndarray
    incidence: csr_matrix  # (pairs, K): +1 at first, -1 at second

    @classmethod
    def of(cls, data: Battles) -> _Pairs:
        k = data.n_models
        key = data.first * k + data.second
        step = np.diff(key)
        if (step < 0).any():  # pragma: no cover
            raise ValueError("Battles cells must be sorted by pair")
        starts = np.flatnonzero(np.r_[True, step != 0]) if key.size else np.zeros(0, np.int64)
        keys = key[starts]
        first, second = keys // k, keys % k
        rows = np.concatenate([np.arange(keys.size)] * 2)
        values = np.concatenate([np.ones(keys.size), -np.ones(keys.size)])
        incidence = csr_matrix(
            (values, (rows, np.concatenate([first, second]))), shape=(keys.size, k)
        )
        return cls(first, second, starts, incidence)

    def totals(self, data: Battles, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Wins of ``first`` and battles per pair, for each row of cell weights ``counts``."""
        wins = np.add.reduceat(counts * data.outcome, self.starts, axis=-1)
        return wins, np.add.reduceat(counts, self.starts, axis=-1)

    def summing(self, data: Battles) -> tuple[csr_matrix, csr_matrix]:
        """(pairs, cells) matrices that sum cell counts into each pair's battles and into
        the wins of its first model (a tie as half)."""
        cells = np.arange(data.first.size)
        pair = np.repeat(np.arange(self.starts.size), np.diff(np.r_[self.starts, cells.size]))
        shape = (self.starts.size, cells.size)
        return (
            csr_matrix((np.ones(cells.size), (pair, cells)), shape=shape),
            csr_matrix((data.outcome, (pair, cells)), shape=shape),
        )

    def gradient(self, residual: np.ndarray, k: int) -> FloatArray:
        """``sum_pairs residual (e_first - e_second)`` for each row of ``residual``."""
        residual = np.atleast_2d(residual)
        return np.asarray((self.incidence.T @ residual.T).T)


def _pair_information(pairs: _Pairs, weight: np.ndarray, k: int) -> FloatArray:
    """``sum_pairs weight (e_i - e_j)(e_i - e_j)'``: a (K, K) Laplacian (one bincount over
    the pairs' flat positions, not a scatter per pair)."""
    half: FloatArray = np.bincount(pairs.first * k + pairs.second, weight, k * k).astype(float)
    out = half.reshape(k, k)
    out = -(out + out.T)
    out[np.diag_indices(k)] = np.bincount(pairs.first, weight, k) + np.bincount(
        pairs.second, weight, k
    )
    return out


def _solve_information(information: np.ndarray, gradient: np.ndarray) -> FloatArray:
    """Newton's step with the last score held at 0: the reduced information is positive
    definite when the battles connect the models (a Cholesky solve); else least squares."""
    try:
        return _cholesky_solve(information[:-1, :-1], gradient[:-1])
    except linalg.LinAlgError:
        return np.linalg.lstsq(information[:-1, :-1], gradient[:-1], rcond=None)[0]


def _cholesky_solve(matrix: np.ndarray, right: np.ndarray) -> FloatArray:
    """``matrix^-1 right`` for a positive definite ``matrix`` (LinAlgError otherwise)."""
    factor = linalg.cho_factor(matrix, lower=True, check_finite=False)
    return np.asarray(linalg.cho_solve(factor, right, check_finite=False))


def _log_likelihood(pairs: _Pairs, wins: np.ndarray, total: np.ndarray, theta: np.ndarray) -> float:
    """``sum wins log s(d) + losses log s(-d)``, with ``log s(-d) = log s(d) - d``: one
    logarithm per pair (the refits of an arena's items to flip call it thousands of times)."""
    diff = theta[pairs.first] - theta[pairs.second]
    return float(total @ special.log_expit(diff) - (total - wins) @ diff)


def _newton_one(
    pairs: _Pairs, wins: np.ndarray, total: np.ndarray, k: int, start: np.ndarray
) -> tuple[FloatArray, int]:
    """Newton's method with step halving on the concave log-likelihood of one data set from
    ``start`` (the last score held at 0, then the scores centred)."""
    theta = start - start[-1]
    value = _log_likelihood(pairs, wins, total, theta)
    for steps in range(1, NEWTON_STEPS + 1):
        p = special.expit(theta[pairs.first] - theta[pairs.second])
        gradient = pairs.gradient(wins - total * p, k)[0]
        step = _solve_information(_pair_information(pairs, total * p * (1 - p), k), gradient)
        scale = 1.0
        while True:
            trial = theta.copy()
            trial[:-1] += scale * step
            new = _log_likelihood(pairs, wins, total, trial)
            if new >= value - 1e-12 * abs(value) or scale < 1e-6:
                break
            scale /= 2
        theta, value = trial, new
        if np.max(np.abs(scale * step), initial=0.0) <= TOLERANCE:
            return theta - theta.mean(), steps
    raise InputError(
        f"the Bradley-Terry fit did not converge in {NEWTON_STEPS} Newton steps; the battles "
        "may be too one-sided for finite scores"
    )


def _chord(
    pairs: _Pairs, wins: np.ndarray, total: np.ndarray, theta0: np.ndarray, chord: np.ndarray
) -> FloatArray:
    """Fit each column of ``wins``/``total`` (pairs, replicates) from ``theta0`` by chord
    steps (the fixed inverse information ``chord``), then exact Newton steps for replicates
    that have not settled; returns (replicates, K), NaN rows where no finite maximum exists."""
    k = theta0.size
    rows = wins.shape[1]
    theta = np.repeat((theta0 - theta0[-1])[None, :], rows, axis=0)
    # a model without a win or without a loss: no MLE (the usual way a replicate has none)
    incidence, incidence_t = pairs.incidence, pairs.incidence.T.tocsr()
    won = incidence_t.maximum(0) @ wins + (-incidence_t).maximum(0) @ (total - wins)
    played = abs(incidence_t) @ total
    settled = ~((won > 0) & (won < played)).all(axis=0)
    theta[settled] = np.nan
    # pairs x replicates: the pairs' score differences and the gradient are sparse products
    # with the incidence matrix (much faster than gathering columns of the scores); the
    # replicates still moving are compacted only when some settle
    live = np.flatnonzero(~settled)
    wins_t, total_t = np.ascontiguousarray(wins[:, live]), np.ascontiguousarray(total[:, live])
    current = np.ascontiguousarray(theta[live].T)  # (K, live)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(CHORD_STEPS):
            if not live.size:
                break
            p = special.expit(incidence @ current)  # (pairs, live)
            p *= total_t
            np.subtract(wins_t, p, out=p)
            gradient = incidence_t @ p  # (K, live)
            step = chord @ gradient[:-1]  # (K - 1, live); chord is symmetric
            current[:-1] += step
            size = np.max(np.abs(step), axis=0, initial=0.0)
            done = (size <= CHORD_TOLERANCE) | ~np.isfinite(size) | (size > 1e3)
            if done.any():
                bad = ~np.isfinite(size) | (size > 1e3)
                theta[live[done]] = current[:, done].T
                theta[live[bad]] = np.nan
                settled[live[done]] = True
                keep = ~done
                live = live[keep]
                wins_t, total_t = wins_t[:, keep], total_t[:, keep]
                current = np.ascontiguousarray(current[:, keep])
        theta[live] = current.T
        for r in np.flatnonzero(~settled):  # slow settlers: exact Newton if an MLE exists
            exists = _has_mle(pairs, wins[:, r], total[:, r], k)
            theta[r] = _newton_row(pairs, wins[:, r], total[:, r], theta[r]) if exists else np.nan
    failed = ~np.isfinite(theta).all(axis=1)
    theta[failed] = np.nan
    theta[~failed] -= theta[~failed].mean(axis=1, keepdims=True)
    return theta


DENSE_SLABS = 8  # row slabs covering the upper triangle: 56% of the square's elements


DENSE_MODELS = 150  # below, a replicate's few pairs cost less than the calls on a square


def _is_dense(pairs: _Pairs, k: int) -> bool:
    """Whether the pairs fill enough of the (K, K) square that gradients are cheaper on
    dense matrices (contiguous, no gathers) than pair by pair: about 4x faster per element,
    so from one pair in eight of the square, and from ``DENSE_MODELS`` models (measured:
    at 100 models the pairs, batched over replicates, are faster; at 200 the squares)."""
    return k >= DENSE_MODELS and 8 * pairs.first.size >= k * k


def _square(flat: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """A (K, K) float32 matrix of ``values`` summed at the flat positions ``flat``."""
    return np.bincount(flat, values, k * k).astype(np.float32).reshape(k, k)


def _dense_gradient(wins: np.ndarray, total: np.ndarray, theta: np.ndarray) -> FloatArray:
    """The log-likelihood's gradient from (K, K) upper triangles of wins (of the row's
    model) and battles: ``g_i = sum_j r_ij - sum_j r_ji`` with ``r_ij = w_ij - n_ij
    s(theta_i - theta_j)``. ``s(theta_i - theta_j) = 1 / (1 + e^-theta_i e^theta_j)``: an
    outer product, so no exponential per pair; row slabs ``[a, b) x [a, K)`` skip most of
    the empty lower triangle."""
    k = theta.size
    down, up = np.exp(-theta), np.exp(theta)
    gradient = np.zeros(k)
    slabs = int(np.clip(k // 128, 1, DENSE_SLABS))  # small squares: fewer calls, not less work
    edges = np.linspace(0, k, slabs + 1).astype(np.int64)
    for a, b in itertools.pairwise(edges):
        r = np.multiply.outer(down[a:b], up[a:])
        r += 1.0
        np.divide(total[a:b, a:], r, out=r)
        np.subtract(wins[a:b, a:], r, out=r)
        gradient[a:b] += r.sum(axis=1)
        gradient[a:] -= r.sum(axis=0)
    return gradient


def _chord_dense(
    pairs: _Pairs,
    squares: list[tuple[np.ndarray, np.ndarray]],
    theta0: np.ndarray,
    chord: np.ndarray,
) -> FloatArray:
    """:func:`_chord` on (K, K) upper triangles of each replicate's wins and battles
    (``squares``; dense arenas: the gradient from contiguous matrices, see
    :func:`_dense_gradient`); returns (replicates, K), NaN rows where no maximum exists."""
    rows, k = len(squares), theta0.size
    theta = np.repeat((theta0 - theta0[-1])[None, :], rows, axis=0)
    # a model without a win or without a loss: no MLE (the usual way a replicate has none)
    won = np.array([w.sum(axis=1) + n.sum(axis=0) - w.sum(axis=0) for w, n in squares])
    played = np.array([n.sum(axis=1) + n.sum(axis=0) for _, n in squares])
    settled = np.asarray(~((won > 0) & (won < played)).all(axis=1))
    theta[settled] = np.nan
    live = np.flatnonzero(~settled)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(CHORD_STEPS):
            if not live.size:
                break
            gradient = np.stack([_dense_gradient(*squares[r], theta[r]) for r in live], axis=1)
            step = chord @ gradient[:-1]  # (K - 1, live); chord is symmetric
            theta[live, :-1] += step.T
            size = np.max(np.abs(step), axis=0, initial=0.0)
            bad = ~np.isfinite(size) | (size > 1e3)
            theta[live[bad]] = np.nan
            settled[live[(size <= CHORD_TOLERANCE) | bad]] = True
            live = live[~settled[live]]
        flat = pairs.first * k + pairs.second
        for r in live:  # slow settlers: exact Newton if an MLE exists
            w, n = squares[r][0].reshape(-1)[flat], squares[r][1].reshape(-1)[flat]
            theta[r] = _newton_row(pairs, w, n, theta[r]) if _has_mle(pairs, w, n, k) else np.nan
    failed = ~np.isfinite(theta).all(axis=1)
    theta[failed] = np.nan
    theta[~failed] -= theta[~failed].mean(axis=1, keepdims=True)
    return theta


def _newton_row(
    pairs: _Pairs, wins: np.ndarray, total: np.ndarray, theta: np.ndarray
) -> FloatArray:
    """Exact Newton steps for one replicate; NaN when they do not settle (no MLE)."""
    k = theta.size
    theta = theta.copy()
    for _ in range(NEWTON_STEPS):
        p = special.expit(theta[pairs.first] - theta[pairs.second])
        gradient = pairs.gradient(wins - total * p, k)[0]
        hessian = _pair_information(pairs, total * p * (1 - p), k)
        try:
            step = _cholesky_solve(hessian[:-1, :-1], gradient[:-1])
        except linalg.LinAlgError:
            return np.full(k, np.nan)
        theta[:-1] += step
        size = np.max(np.abs(step), initial=0.0)
        if not np.isfinite(size):
            break
        if size <= TOLERANCE:
            return theta
    return np.full(k, np.nan)


def _meat(data: Battles, pairs: _Pairs, residual: np.ndarray) -> FloatArray:
    """The sandwich's meat: the sum over independent units of their score contributions'
    outer products. A battle's contribution is ``residual (e_i - e_j)``; with clusters a
    cluster's is the sum over its battles (Liang and Zeger, 1986), so battles on one prompt
    that err alike count as one draw."""
    k = data.n_models
    if data.clusters is None:
        squared = np.add.reduceat(data.count * residual**2, pairs.starts) if residual.size else 0
        return _pair_information(pairs, np.asarray(squared, dtype=float), k)
    cells = np.arange(data.first.size)
    signed = csr_matrix(
        (np.concatenate([residual, -residual]),
         (np.concatenate([cells, cells]), np.concatenate([data.first, data.second]))),
        shape=(cells.size, k),
    )  # fmt: skip
    per_cluster = data.clusters @ signed  # (clusters, K): each cluster's summed score
    return np.asarray((per_cluster.T @ per_cluster).todense())


def _information(data: Battles, weight: np.ndarray) -> FloatArray:
    """``sum_cells weight (e_i - e_j)(e_i - e_j)'``: a (K, K) Laplacian."""
    pairs = _Pairs.of(data)
    per_pair = np.add.reduceat(weight, pairs.starts) if weight.size else np.zeros(0)
    return _pair_information(pairs, np.asarray(per_pair, dtype=float), data.n_models)


def _inverse_centred(information: np.ndarray) -> FloatArray:
    """The covariance of sum-zero scores from the information (a Laplacian whose null space
    is the constant vector): invert it with the last score held at 0 (through its Cholesky
    factor), then centre (``(I - 11'/K) M (I - 11'/K)``, as row and column means)."""
    k = information.shape[0]
    embed = np.zeros((k, k))
    reduced = information[:-1, :-1]
    try:
        inverse = _cholesky_solve(reduced, np.eye(k - 1))
    except linalg.LinAlgError:
        inverse = np.linalg.inv(reduced)
    embed[:-1, :-1] = (inverse + inverse.T) / 2
    column = embed.mean(axis=0)
    return embed - column[None, :] - column[:, None] + column.mean()


def _fit_davidson(data: Battles) -> BradleyTerryFit:
    """Davidson's tie model by quasi-Newton on (theta_1..theta_{K-1}, log nu)."""
    k = data.n_models
    i, j, y, c = data.first, data.second, data.outcome, data.count.astype(float)
    win, tie, loss = c * (y == 1), c * (y == 0.5), c * (y == 0)
    if not tie.any():  # nu's MLE is 0, where Davidson's model is Bradley-Terry
        plain = fit(data)
        return BradleyTerryFit(
            plain.scores,
            plain.covariance,
            plain.covariance,
            0.0,
            plain.log_likelihood,
            plain.iterations,
        )
    if not (win.any() or loss.any()):
        raise InputError(
            "every battle is a tie: Davidson's tie parameter has no finite estimate (it "
            "grows without bound); use {ties=half}, where equal models score 0",
            param="ties",
        )

    def negative(params: FloatArray) -> tuple[float, FloatArray]:
        theta = np.append(params[:-1], 0.0)
        log_nu = params[-1]
        a, b = theta[i], theta[j]
        mid = log_nu + (a + b) / 2
        log_d = np.logaddexp(np.logaddexp(a, b), mid)
        value = -np.sum(win * (a - log_d) + loss * (b - log_d) + tie * (mid - log_d))
        pa, pb, pt = np.exp(a - log_d), np.exp(b - log_d), np.exp(mid - log_d)
        total = win + tie + loss
        # d value / d a, d b, d log_nu
        da = -(win + tie / 2 - total * (pa + pt / 2))
        db = -(loss + tie / 2 - total * (pb + pt / 2))
        dn = -(tie - total * pt)
        grad = np.zeros(k)
        np.add.at(grad, i, da)
        np.add.at(grad, j, db)
        return value, np.append(grad[:-1], dn.sum())

    start = np.zeros(k)
    result = optimize.minimize(
        negative, start, jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 10_000}
    )
    theta = np.append(result.x[:-1], 0.0)
    theta = theta - theta.mean()
    hessian = _numeric_hessian(lambda q: negative(q)[1], result.x)
    try:
        full = np.linalg.inv(hessian)
    except np.linalg.LinAlgError:
        full = np.full(hessian.shape, np.nan)
    if not (result.success or np.isfinite(result.fun)) or not np.isfinite(full).all():
        raise InputError(
            "Davidson's tie model has no finite estimate on these battles (its information "
            "matrix is singular); use {ties=half}",
            param="ties",
        )
    embed = np.zeros((k, k))
    embed[:-1, :-1] = full[:-1, :-1]
    centring = np.eye(k) - 1.0 / k
    covariance = centring @ embed @ centring
    return BradleyTerryFit(
        theta,
        covariance,
        covariance,
        float(np.exp(result.x[-1])),
        float(-result.fun),
        int(result.nit),
    )


def _numeric_hessian(
    gradient: Callable[[FloatArray], FloatArray], x: FloatArray, step: float = 1e-5
) -> FloatArray:
    n = x.size
    out = np.empty((n, n))
    for m in range(n):
        e = np.zeros(n)
        e[m] = step
        out[:, m] = (gradient(x + e) - gradient(x - e)) / (2 * step)
    return (out + out.T) / 2


# --- style control -----------------------------------------------------------------------


@dataclass(frozen=True)
class StyleFit:
    """Bradley-Terry scores with battle covariates (style control).

    ``P(a beats b) = expit(theta_a - theta_b + x_b . beta)``, with ``x_b`` the battle's
    covariates (differences between the two answers, a minus b: length, markdown, ...).

    Attributes
    ----------
    scores : numpy.ndarray
        ``theta`` (sum zero): the models' strengths with the covariates held equal.
    coefficients : numpy.ndarray
        ``beta``, one per covariate.
    covariance, robust_covariance : numpy.ndarray
        Model-based and sandwich covariances of ``(theta, beta)`` ((K + p) square; the
        sandwich clustered by prompt when the fit was given clusters).
    log_likelihood : float
        At the maximum.
    iterations : int
        Newton steps taken.
    """

    scores: FloatArray
    coefficients: FloatArray
    covariance: FloatArray
    robust_covariance: FloatArray
    log_likelihood: float
    iterations: int


def fit_style(
    model_a: ArrayLike,
    model_b: ArrayLike,
    outcome: ArrayLike,
    covariates: ArrayLike,
    n_models: int | None = None,
    *,
    cluster: ArrayLike | None = None,
) -> StyleFit:
    """Maximum-likelihood Bradley-Terry scores and covariate coefficients (ties as half
    wins): the logistic regression of the outcome on ``e_a - e_b`` and the covariates,
    one model's score held at 0 and the scores then centred.

    Newton's method with step halving; the information is assembled from per-pair sums (a
    K x K Laplacian), per-model sums of the covariates and their (p x p) products, so the
    cost is O(battles x p^2 + (K + p)^3). ``cluster`` (one integer code per battle) sums the
    sandwich's scores by prompt.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 3, 4000); b = (a + rng.integers(1, 3, 4000)) % 3
    >>> x = rng.normal(size=(4000, 1))
    >>> z = np.array([0.5, 0.0, -0.5])[a] - np.array([0.5, 0.0, -0.5])[b] + 0.8 * x[:, 0]
    >>> y = (rng.random(4000) < 1 / (1 + np.exp(-z))).astype(float)
    >>> f = fit_style(a, b, y, x)
    >>> np.round(f.scores, 1).tolist(), round(float(f.coefficients[0]), 1)
    ([0.5, 0.0, -0.5], 0.8)
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    y = np.asarray(outcome, dtype=float)
    x = np.asarray(covariates, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    data = battles(a, b, y, n_models)  # checks the battles, reduces them to cells
    if x.shape[0] != a.size or not np.isfinite(x).all():
        raise InputError("covariates must be one finite row per battle")
    empty = np.flatnonzero(~np.any(x != 0, axis=0))
    if empty.size:  # a covariate 0 in every battle has no coefficient to find
        raise InputError(
            f"covariate {int(empty[0]) + 1} is 0 in every battle: nothing tells its effect"
        )
    check_connected(data)
    k, p = data.n_models, x.shape[1]
    theta, beta = fit(data).scores, np.zeros(p)

    def loglik(t: np.ndarray, c: np.ndarray) -> float:
        z = t[a] - t[b] + x @ c
        return float(np.sum(y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)))

    def information(weight: np.ndarray) -> FloatArray:
        # the (K, K) block and the models' covariate sums by bincounts: the covariates
        # differ battle by battle, so only these sums, not the battles, can be pooled by pair
        out = np.zeros((k + p, k + p))
        pair = np.bincount(a * k + b, weight, k * k).reshape(k, k)
        out[:k, :k] = -(pair + pair.T)
        out[np.diag_indices(k)] += np.bincount(a, weight, k) + np.bincount(b, weight, k)
        wx = weight[:, None] * x
        cross = np.stack(
            [np.bincount(a, wx[:, c], k) - np.bincount(b, wx[:, c], k) for c in range(p)],
            axis=1,
        )
        out[:k, k:], out[k:, :k] = cross, cross.T
        out[k:, k:] = x.T @ wx
        return out

    free = np.r_[np.arange(k - 1), np.arange(k, k + p)]  # the last score held at 0
    theta = theta - theta[-1]
    now, steps = loglik(theta, beta), 0
    while steps < NEWTON_STEPS:
        steps += 1
        z = theta[a] - theta[b] + x @ beta
        prob = special.expit(z)
        residual = y - prob
        gradient = np.concatenate(
            [np.bincount(a, residual, k) - np.bincount(b, residual, k), x.T @ residual]
        )
        hessian = information(prob * (1 - prob))
        step = np.zeros(k + p)
        step[free] = np.linalg.solve(hessian[np.ix_(free, free)], gradient[free])
        scale = 1.0
        while scale > 1e-10:
            t, c = theta + scale * step[:k], beta + scale * step[k:]
            if loglik(t, c) >= now - 1e-12:
                break
            scale /= 2
        theta, beta, now = t, c, loglik(t, c)
        if np.abs(scale * step).max() < TOLERANCE:
            break
    prob = special.expit(theta[a] - theta[b] + x @ beta)
    hessian = information(prob * (1 - prob))
    inverse = np.zeros((k + p, k + p))
    inverse[np.ix_(free, free)] = np.linalg.inv(hessian[np.ix_(free, free)])
    centring = np.eye(k + p)
    centring[:k, :k] -= 1.0 / k  # the scores' sum-zero constraint
    covariance = centring @ inverse @ centring.T
    residual = y - prob
    if cluster is None:  # a battle's score is residual (e_a - e_b, x): the information's form
        meat = information(residual**2)
    else:
        meat = _style_cluster_meat(a, b, x, residual, k, cluster)
    robust = centring @ inverse @ meat @ inverse @ centring.T
    return StyleFit(theta - theta.mean(), beta, covariance, robust, now, steps)


def _style_cluster_meat(
    a: np.ndarray, b: np.ndarray, x: np.ndarray, residual: np.ndarray, k: int, cluster: ArrayLike
) -> FloatArray:
    """The style fit's meat with each cluster's scores summed: ``U'U`` with ``U`` (clusters,
    K + p), its model part kept sparse (a cluster touches few models), so memory grows with
    the battles, not battles x models."""
    codes = np.asarray(cluster)
    if codes.shape != a.shape or not np.issubdtype(codes.dtype, np.integer):
        raise InputError("cluster must hold one integer code per battle")
    c = int(codes.max(initial=-1)) + 1
    models = csr_matrix(
        (np.concatenate([residual, -residual]), (np.tile(codes, 2), np.concatenate([a, b]))),
        shape=(c, k),
    )
    models.sum_duplicates()
    weighted = residual[:, None] * x
    covariates = np.stack([np.bincount(codes, weighted[:, j], c) for j in range(x.shape[1])], 1)
    p = x.shape[1]
    out = np.empty((k + p, k + p))
    out[:k, :k] = (models.T @ models).toarray()
    out[:k, k:] = np.asarray(models.T @ covariates)
    out[k:, :k] = out[:k, k:].T
    out[k:, k:] = covariates.T @ covariates
    return out
