"""The binomial pmf and quantiles, from the Boost routines ``scipy.stats.binom`` itself calls.

``scipy.stats`` takes 1-1.5 s to import (it builds every distribution), several times the
rest of a ``compare`` from counts; the binomial needs only three of ``scipy.special``'s Boost
ufuncs, which ``scipy.stats.binom`` evaluates for ``pmf``, ``ppf`` and ``isf``. They are
called here on the same arguments (a probability strictly inside (0, 1), whole ``k`` and
``n`` in the support), so the numbers are identical to ``scipy.stats.binom``'s, which the
test suite checks. A SciPy that moves these private names falls back to ``scipy.stats``.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

try:
    from scipy.special._ufuncs import _binom_isf, _binom_pmf, _binom_ppf
except ImportError:  # pragma: no cover - a SciPy that renamed them: the same Boost code
    from scipy.stats import binom as _binom

    _binom_pmf, _binom_ppf, _binom_isf = _binom.pmf, _binom.ppf, _binom.isf


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``P(X = k)`` for ``X ~ Binomial(n, p)``; ``k`` whole, ``0 <= k <= n``."""
    return _binom_pmf(k, n, p)


def ppf(q: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """The smallest ``k`` with ``P(X <= k) >= q``, for ``0 < q < 1``."""
    return _binom_ppf(q, n, p)


def isf(q: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """The smallest ``k`` with ``P(X > k) <= q``, for ``0 < q < 1``."""
    return _binom_isf(q, n, p)
