"""Anytime-valid testing of a paired binary gap: the paired-Bernoulli mixture e-process.

Resolution Diagnostics, Section 6.5 and Appendix C. Given ``n = b + c`` discordant items, the
signs are i.i.d. Bernoulli(1/2) under H0. Mixing the likelihood ratio over the probability
theta that a discordant item favours A gives the e-process (Equation 24)

    e_n = integral theta^b (1 - theta)^c / (1/2)^n  dnu(theta),

with ``nu`` the discrete uniform mixture over theta in {0.01, ..., 0.49, 0.51, ..., 0.99}
(``mixture="grid"``, the paper's default) or a Beta(a, a) prior (``mixture="beta"``, closed
form ``B(b + a, c + a) / B(a, a) * 2^n``). By Ville's inequality
``P(sup_n e_n >= 1/alpha) <= alpha`` under H0, so "reject at the first n with e_n >= 1/alpha"
is valid at any stopping time.

The **z-equivalent boundary** ``u(n)`` is the McNemar statistic ``|b - c| / sqrt(n)`` at which
``e_n`` first reaches ``1/alpha`` with ``n`` discordant items. Putting ``u(n)`` in place of
``z_{1-alpha/2}`` in Equation (3) gives the anytime-valid N* of the audit.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from evalgap.errors import InputError
from evalgap.stats import _validate

THETA_GRID = np.concatenate([np.arange(1, 50), np.arange(51, 100)]) / 100.0
MIXTURES = ("grid", "beta")


def log_e_value(a_only, b_only, *, mixture: str = "grid", beta_shape: float = 2.0):
    """Return ``log e_n`` after ``b = a_only`` and ``c = b_only`` discordant items (Eq. 24).

    Inputs broadcast and may be non-integer (the boundary solver uses that).
    """
    b = np.asarray(a_only, dtype=float)
    c = np.asarray(b_only, dtype=float)
    b, c = np.broadcast_arrays(b, c)
    n = b + c
    if mixture == "grid":
        log_theta, log_rest = np.log(THETA_GRID), np.log1p(-THETA_GRID)
        terms = b[..., None] * log_theta + c[..., None] * log_rest
        out = special.logsumexp(terms, axis=-1) - np.log(THETA_GRID.size) + n * np.log(2.0)
    elif mixture == "beta":
        a = float(_validate.positive(beta_shape, "beta_shape"))
        out = special.betaln(b + a, c + a) - special.betaln(a, a) + n * np.log(2.0)
    else:
        raise InputError(f"mixture must be one of {', '.join(MIXTURES)}; got {mixture!r}")
    return _validate.scalar_or_array(out)


def boundary(n_discordant, alpha: float = 0.05, *, mixture: str = "grid", beta_shape: float = 2.0):
    """Return ``u(n)``: the ``|b - c|/sqrt(n)`` at which ``e_n`` reaches ``1/alpha``.

    Solved by bisection on ``d = |b - c|`` in ``[0, n]`` (``e_n`` increases with ``d``),
    vectorized over ``n`` (computed once per distinct n). Infinite where even ``d = n`` (every
    discordant item favouring one model) does not reach ``1/alpha``: too few discordant items
    for an anytime-valid rejection.
    """
    _validate.probability(alpha, "alpha")
    n_all = np.asarray(n_discordant, dtype=float)
    values, inverse = np.unique(n_all, return_inverse=True)
    target = -np.log(alpha)
    low = np.zeros_like(values)
    high = values.copy()
    reachable = log_e_value(values, 0.0 * values, mixture=mixture, beta_shape=beta_shape) >= target
    for _ in range(64):
        mid = (low + high) / 2
        e = log_e_value(
            (values + mid) / 2, (values - mid) / 2, mixture=mixture, beta_shape=beta_shape
        )
        above = e >= target
        high = np.where(above, mid, high)
        low = np.where(above, low, mid)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(reachable & (values > 0), high / np.sqrt(values), np.inf)
    return _validate.scalar_or_array(u[inverse].reshape(n_all.shape))


def log_e_trajectory(differences, *, mixture: str = "grid", beta_shape: float = 2.0):
    """Return ``log e_t`` after each item of a sequence of paired binary differences.

    ``differences`` holds ``D_i = X_i^A - X_i^B`` in {-1, 0, 1} along the items' order (the
    last axis); concordant items (0) leave the e-process unchanged.
    """
    d = np.asarray(differences)
    b = np.cumsum(d > 0, axis=-1)
    c = np.cumsum(d < 0, axis=-1)
    return log_e_value(b, c, mixture=mixture, beta_shape=beta_shape)


def rejects(a_only, b_only, alpha: float = 0.05, **mixture_options):
    """Return whether ``e_n >= 1/alpha`` at the given discordant counts."""
    return np.asarray(log_e_value(a_only, b_only, **mixture_options)) >= -np.log(alpha)
