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
fits every replicate at once: a batched Newton step solves B small (K-1) x (K-1) systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from evalgap.errors import InputError
from evalgap.stats import _validate
from evalgap.stats.resample import seed_sequence

TIES = ("half", "davidson")
NEWTON_STEPS = 100
TOLERANCE = 1e-12  # on the largest Newton step, in score units
BOOTSTRAP_BLOCK = 256


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
    """

    n_models: int
    first: np.ndarray
    second: np.ndarray
    outcome: np.ndarray
    count: np.ndarray

    @property
    def n_battles(self) -> int:
        """Battles in all."""
        return int(self.count.sum())

    def per_model(self) -> np.ndarray:
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

    scores: np.ndarray
    covariance: np.ndarray
    robust_covariance: np.ndarray
    tie_parameter: float | None
    log_likelihood: float
    iterations: int

    def win_probability(self) -> np.ndarray:
        """``P[i, j]``: the probability that model i beats model j (a tie as half)."""
        return special.expit(self.scores[:, None] - self.scores[None, :])


def battles(model_a, model_b, outcome, n_models: int | None = None) -> Battles:
    """Reduce battles (integer codes of the two models, outcome 1/0.5/0 for model_a) to cells.

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
    cells, count = np.unique(key, return_counts=True)
    pair, code = np.divmod(cells, 3)
    return Battles(k, pair // k, pair % k, code / 2.0, count.astype(np.int64))


def check_connected(data: Battles) -> None:
    """Raise when the MLE does not exist: the win graph is not strongly connected."""
    k = data.n_models
    won = data.outcome > 0  # first won or tied: an edge second -> first ("lost to")
    lost = data.outcome < 1
    rows = np.concatenate([data.second[won], data.first[lost]])
    cols = np.concatenate([data.first[won], data.second[lost]])
    graph = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(k, k))
    n, labels = connected_components(graph, directed=True, connection="strong")
    if n > 1:
        sizes = np.bincount(labels)
        smallest = int(np.argmin(sizes))
        members = np.flatnonzero(labels == smallest)
        raise InputError(
            f"the Bradley-Terry scores do not exist: the battles split the models into {n} "
            f"groups that never both win and lose against each other (e.g. models "
            f"{members[:5].tolist()}); add battles between them, or rank each group alone"
        )


def fit(data: Battles, *, ties: str = "half") -> BradleyTerryFit:
    """Maximum-likelihood Bradley-Terry scores with model-based and sandwich covariances.

    Examples
    --------
    >>> b = battles([0, 0, 0, 1, 1, 2], [1, 1, 2, 2, 0, 0], [1, 1, 1, 1, 1, 1])
    >>> np.round(fit(b).scores, 4).tolist()
    [0.314, 0.1283, -0.4423]
    """
    if ties not in TIES:
        raise InputError(f"ties must be one of {', '.join(TIES)}; got {ties!r}")
    check_connected(data)
    if ties == "davidson":
        return _fit_davidson(data)
    pairs = _Pairs.of(data)
    wins, total = pairs.totals(data, data.count[None, :].astype(float))
    theta, steps = _newton(pairs, wins, total, np.zeros((1, data.n_models)))
    theta = theta[0]
    p = special.expit(theta[data.first] - theta[data.second])
    information = _information(data, data.count * p * (1 - p))
    covariance = _inverse_centred(information)
    residual = data.outcome - p  # per battle of each cell, the score is residual (e_i - e_j)
    meat = _information(data, data.count * residual**2)
    robust = covariance @ meat @ covariance
    loglik = float(
        np.sum(data.count * (data.outcome * np.log(p) + (1 - data.outcome) * np.log1p(-p)))
    )
    return BradleyTerryFit(theta, covariance, robust, None, loglik, steps)


def bootstrap(data: Battles, n_resamples: int, seed=0, *, start=None) -> np.ndarray:
    """Return (B, K) bootstrap scores: battles resampled (the cells reweighted by multinomial
    counts) and every replicate fitted at once by batched Newton steps (ties as half wins).

    Replicates whose battles leave a model without a win or without a loss have no MLE;
    their scores are NaN (count them with ``np.isnan(draws).any(axis=1)``).

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
    total_battles = data.n_battles
    share = data.count / total_battles
    pairs = _Pairs.of(data)
    out = np.empty((n_resamples, data.n_models))
    for begin in range(0, n_resamples, BOOTSTRAP_BLOCK):
        rows = min(BOOTSTRAP_BLOCK, n_resamples - begin)
        counts = rng.multinomial(total_battles, share, size=rows).astype(float)
        wins, total = pairs.totals(data, counts)
        theta, _ = _newton(pairs, wins, total, np.repeat(theta0[None, :], rows, axis=0))
        out[begin : begin + rows] = theta
    return out


# --- the fit ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pairs:
    """The distinct pairs of a Battles (its cells are sorted by pair, so each pair's cells
    are contiguous from ``starts``) and the pairs' incidence matrix."""

    first: np.ndarray
    second: np.ndarray
    starts: np.ndarray
    incidence: np.ndarray  # (pairs, K): +1 at first, -1 at second

    @classmethod
    def of(cls, data: Battles) -> _Pairs:
        k = data.n_models
        keys, starts = np.unique(data.first * k + data.second, return_index=True)
        if not np.all(np.diff(data.first * k + data.second) >= 0):  # pragma: no cover
            raise ValueError("Battles cells must be sorted by pair")
        first, second = keys // k, keys % k
        incidence = np.zeros((keys.size, k))
        incidence[np.arange(keys.size), first] = 1.0
        incidence[np.arange(keys.size), second] = -1.0
        return cls(first, second, starts, incidence)

    def totals(self, data: Battles, counts):
        """Wins of ``first`` and battles per pair, for each row of cell weights ``counts``."""
        wins = np.add.reduceat(counts * data.outcome, self.starts, axis=-1)
        return wins, np.add.reduceat(counts, self.starts, axis=-1)


def _newton(pairs: _Pairs, wins, total, theta):
    """Batched Newton on the concave log-likelihood (ties as half wins), one fit per row of
    ``wins``/``total`` (R, pairs); the last model's score is held at 0 during the steps, then
    the scores are centred. Rows that diverge (no MLE) become NaN."""
    i, j, d = pairs.first, pairs.second, pairs.incidence
    k = d.shape[1]
    theta = theta - theta[:, -1:]
    steps = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while steps < NEWTON_STEPS:
            steps += 1
            p = special.expit(theta[:, i] - theta[:, j])
            gradient = (wins - total * p) @ d
            weight = total * p * (1 - p)
            hessian = np.zeros((theta.shape[0], k, k))
            hessian[:, i, j] = -weight
            hessian[:, j, i] = -weight
            hessian[:, np.arange(k), np.arange(k)] = weight @ np.abs(d)
            step = _solve(hessian[:, :-1, :-1], gradient[:, :-1])
            theta[:, :-1] += step
            size = np.max(np.abs(step), axis=1, initial=0.0)
            if np.all((size <= TOLERANCE) | ~np.isfinite(size)):
                break
        diverged = ~np.isfinite(theta).all(axis=1) | (np.abs(theta).max(axis=1) > 50)
    theta = theta - theta.mean(axis=1, keepdims=True)
    theta[diverged] = np.nan
    return theta, steps


def _solve(hessian, gradient):
    try:
        return np.linalg.solve(hessian, gradient[..., None])[..., 0]
    except np.linalg.LinAlgError:  # a singular replicate: solve the others one by one
        out = np.full(gradient.shape, np.nan)
        for r, (h, g) in enumerate(zip(hessian, gradient, strict=True)):
            try:
                out[r] = np.linalg.solve(h, g)
            except np.linalg.LinAlgError:
                pass
        return out


def _information(data: Battles, weight):
    """``sum_cells weight (e_i - e_j)(e_i - e_j)'``: a (K, K) Laplacian."""
    k = data.n_models
    out = np.zeros((k, k))
    np.add.at(out, (data.first, data.second), -weight)
    np.add.at(out, (data.second, data.first), -weight)
    np.add.at(out, (data.first, data.first), weight)
    np.add.at(out, (data.second, data.second), weight)
    return out


def _inverse_centred(information):
    """The covariance of sum-zero scores: the pseudo-inverse of the information (a Laplacian
    whose null space is the constant vector, which the constraint removes)."""
    k = information.shape[0]
    centring = np.eye(k) - 1.0 / k
    return centring @ np.linalg.pinv(information, hermitian=True) @ centring


def _fit_davidson(data: Battles) -> BradleyTerryFit:
    """Davidson's tie model by quasi-Newton on (theta_1..theta_{K-1}, log nu)."""
    k = data.n_models
    i, j, y, c = data.first, data.second, data.outcome, data.count.astype(float)
    win, tie, loss = c * (y == 1), c * (y == 0.5), c * (y == 0)

    def negative(params):
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
    full = np.linalg.inv(hessian)
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


def _numeric_hessian(gradient, x, step: float = 1e-5):
    n = x.size
    out = np.empty((n, n))
    for m in range(n):
        e = np.zeros(n)
        e[m] = step
        out[:, m] = (gradient(x + e) - gradient(x - e)) / (2 * step)
    return (out + out.T) / 2
