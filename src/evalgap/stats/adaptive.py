"""Adaptive paired testing: run next the items whose answers say most about which of two
models is better, keep the decision anytime-valid, and estimate the full-benchmark gap
without bias from a random share of the items.

**The decision.** The test is the paired-Bernoulli mixture e-process on the signs of the
items where the two models differ (Resolution Diagnostics, Eq. 24,
:func:`evalgap.stats.sequential.log_e_value`). Its null is McNemar's: on every item the two
models' answers are exchangeable, so an item's sign, once they differ, is a fair coin. A
choice of items made from anything but the signs still to be seen -- a reference board,
the answers run so far -- cannot bias those coins, so the e-process stays a nonnegative
martingale under the null whatever the order of the items and Ville's inequality holds under
continuous monitoring. The items are therefore chosen deterministically, by the information
a sign is expected to carry (:func:`sign_information`): the chance the models differ times
the Kullback-Leibler divergence of the chance A wins, when they differ, from one half.
Under a 2PL (``P(y = 1) = expit(a_j theta + c_j)``) the odds that A wins a differing item
are ``exp(a_j (theta_A - theta_B))``: items of high slope near the two models' abilities.

**The estimate.** The items chosen for information are no sample of the benchmark. A share
of each batch (``audit``) is drawn uniformly at random from all ``N`` items, with
replacement, and gives the model-assisted difference estimate (Sarndal, Swensson and
Wretman, 1992, Ch. 6): with ``m_j`` the predicted difference of item ``j`` *fixed before
the draw*, each audit draw ``J`` gives

    z = mean_j(m_j) + d_J - m_J,

whose expectation over the uniform draw is ``mean_j(d_j) = mu`` exactly: the full-benchmark
gap, without bias whatever the 2PL gets wrong (:func:`assisted_terms`). The better the
predictions, the smaller the spread of ``d_J - m_J``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evalgap.errors import InputError, named, param_of
from evalgap.stats import intervals
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, IntArray

AUDIT = 0.2  # the share of each batch drawn at random from all the items


def sign_information(p_a: ArrayLike, p_b: ArrayLike) -> FloatArray:
    """Return each item's expected information from the sign of the pair's difference.

    ``P(differ) * KL(w || 1/2)`` with ``P(differ) = p_a (1 - p_b) + p_b (1 - p_a)`` and
    ``w = p_a (1 - p_b) / P(differ)`` the chance A wins when they differ, in nats: the
    expected growth of the log e-value per item run, to second order, when the bet matches
    ``w``. A thousandth of ``P(differ)`` is added so that, before the abilities tell the
    models apart (``w = 1/2`` everywhere), the items most likely to differ come first.

    Examples
    --------
    >>> info = sign_information([0.9, 0.5, 0.99], [0.9, 0.5, 0.01])
    >>> [round(float(v), 4) for v in info]
    [0.0002, 0.0005, 0.6794]
    """
    pa, pb = np.asarray(p_a, dtype=float), np.asarray(p_b, dtype=float)
    if pa.shape != pb.shape or ((pa < 0) | (pa > 1) | (pb < 0) | (pb > 1)).any():
        raise InputError("p_a and p_b must be probabilities of the same shape")
    differ = np.clip(pa * (1 - pb) + pb * (1 - pa), 1e-300, 1.0)
    win = np.clip(pa * (1 - pb) / differ, 1e-15, 1 - 1e-15)
    kl = win * np.log(2 * win) + (1 - win) * np.log(2 * (1 - win))
    return differ * kl + 1e-3 * differ


def choose_items(
    information: ArrayLike,
    run: ArrayLike,
    batch: int,
    *,
    audit: float = AUDIT,
    rng: np.random.Generator | None = None,
) -> tuple[IntArray, BoolArray]:
    """Return the next batch: item indices and which of them are audit draws.

    ``audit * batch`` audit draws (rounded up or down at random, in proportion, so a small
    batch still gets its share on average) are uniform over all ``N`` items, with
    replacement (an item already run costs nothing again: its answers are reused); the rest
    are the items not run yet (and not drawn for the audit) of the highest ``information``,
    ties broken by index.

    Parameters
    ----------
    information : array_like, shape (N,)
        :func:`sign_information` of every item.
    run : array_like of bool, shape (N,)
        Items both models have run.
    batch : int
        Items in the batch (>= 1).
    audit : float
        Share of the batch drawn at random (0 to 1).
    rng : numpy.random.Generator, optional

    Examples
    --------
    >>> items, drawn = choose_items([0.1, 0.5, 0.3, 0.0], [False, True, False, False], 2,
    ...                             audit=0.0)
    >>> items.tolist(), drawn.tolist()
    ([2, 0], [False, False])
    """
    info = np.asarray(information, dtype=float)
    done = np.asarray(run, dtype=bool)
    if info.ndim != 1 or done.shape != info.shape:
        raise InputError("information and run must be one value per item")
    if int(batch) < 1:
        raise InputError(named("batch") + " must be at least 1", param=param_of("batch"))
    if not 0.0 <= float(audit) <= 1.0:
        raise InputError(named("audit") + " must lie in [0, 1]", param=param_of("audit"))
    rng = rng if rng is not None else np.random.default_rng()
    share = float(audit) * int(batch)
    n_audit = int(share)
    if share > n_audit:  # a fraction of a draw: one more, with that chance
        n_audit += int(rng.random() < share - n_audit)
    drawn = rng.integers(0, info.size, size=n_audit)
    left = ~done
    left[drawn] = False
    candidates = np.flatnonzero(left)
    ranked = candidates[np.argsort(-info[candidates], kind="stable")]
    chosen = ranked[: int(batch) - n_audit]
    items = np.concatenate([chosen, drawn]).astype(np.int64)
    return items, np.concatenate([np.zeros(chosen.size, bool), np.ones(n_audit, bool)])


def assisted_terms(d: ArrayLike, predicted: ArrayLike, predicted_mean: ArrayLike) -> FloatArray:
    """Return the audit draws' terms ``z = mean(m) + d_J - m_J`` of the difference estimate.

    ``d``: each audit draw's observed difference; ``predicted``: its predicted difference
    ``m_J`` and ``predicted_mean``: ``mean_j m_j`` over all items, both as they were before
    the draw. Each term's expectation over a uniform draw is the full-benchmark gap; their
    mean estimates it without bias.

    Examples
    --------
    >>> d = np.array([1.0, 0.0, -1.0, 1.0])  # a benchmark of four items: mu = 0.25
    >>> m = np.array([0.5, 0.1, -0.2, 0.3])
    >>> round(float(assisted_terms(d, m, np.full(4, m.mean())).mean()), 12)  # every item once
    0.25
    """
    d = np.asarray(d, dtype=float)
    m = np.asarray(predicted, dtype=float)
    base = np.asarray(predicted_mean, dtype=float)
    if not (d.shape == m.shape == base.shape):
        raise InputError("d, predicted and predicted_mean must have one value per audit draw")
    return base + d - m


def gap_interval(terms: ArrayLike, *, alpha: float = 0.05) -> dict[str, Any]:
    """The mean of the audit terms and its Student-t (1 - alpha) interval (``n >= 2``),
    clipped to [-1, 1] (the range of a gap between scores in [0, 1]).

    The t quantile with ``n - 1`` degrees of freedom, not the normal one: a few dozen audit
    draws are the usual sample early on, where the normal interval falls short (0.915 at 20
    draws on MMLU-Pro, ``benchmarks/bench_adaptive.py``).

    Returns ``{"estimate", "se", "low", "high", "n"}``; with fewer than two terms the
    spread is unknown and ``se``, ``low`` and ``high`` are NaN.

    Examples
    --------
    >>> g = gap_interval([0.1, 0.3, 0.2, 0.0])
    >>> round(g["estimate"], 4), round(g["se"], 4), round(g["low"], 4), g["n"]
    (0.15, 0.0645, -0.0554, 4)
    """
    z = np.asarray(terms, dtype=float)
    n = z.size
    if n == 0:
        return {
            "estimate": float("nan"),
            "se": float("nan"),
            "low": float("nan"),
            "high": float("nan"),
            "n": 0,
        }
    mean = float(z.mean())
    if n < 2:
        return {
            "estimate": mean,
            "se": float("nan"),
            "low": float("nan"),
            "high": float("nan"),
            "n": 1,
        }
    sd = float(z.std(ddof=1))
    interval = intervals.t_interval(mean, sd, n, alpha)
    low, high = max(float(interval.low), -1.0), min(float(interval.high), 1.0)
    return {"estimate": mean, "se": sd / float(np.sqrt(n)), "low": low, "high": high, "n": n}
