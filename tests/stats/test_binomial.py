"""The binomial helpers give scipy.stats.binom's numbers exactly, without importing it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from evalgap.stats import _binomial as binomial


@pytest.mark.parametrize("n", [0, 1, 2, 7, 50, 1_000, 123_457, 10**9])
@pytest.mark.parametrize("p", [0.0, 1e-9, 0.013, 0.5, 0.77, 1.0])
def test_pmf_equals_scipy_stats_on_the_whole_support(n, p):
    k = np.unique(np.clip(np.round(np.linspace(0, n, 41)), 0, n))
    np.testing.assert_array_equal(binomial.pmf(k, n, p), stats.binom.pmf(k, n, p))


@pytest.mark.parametrize("n", [1, 2, 7, 50, 1_000, 123_457, 10**9])
@pytest.mark.parametrize("p", [1e-9, 0.013, 0.5, 0.77, 1 - 1e-9])
@pytest.mark.parametrize("q", [1e-30, 1e-6, 0.3, 0.5, 0.999])
def test_quantiles_equal_scipy_stats(n, p, q):
    assert binomial.ppf(q, n, p) == stats.binom.ppf(q, n, p)
    assert binomial.isf(q, n, p) == stats.binom.isf(q, n, p)


def test_compare_from_counts_does_not_import_scipy_stats_or_pandas():
    code = (
        "import sys, evalgap\n"
        "evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)\n"
        "print(sorted(m for m in ('scipy.stats', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
