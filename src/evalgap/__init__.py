"""evalgap: paired tests, required sample sizes and resolution diagnostics for LLM evaluation.

Is a gap between two models scored on the same items real, and could the benchmark even
have shown it? The public API:

* :func:`compare_counts`, :func:`compare_scores` — one paired gap (the ``compare`` job);
* :func:`plan` — prospective sample sizes (the ``plan`` job);
* :mod:`evalgap.stats` — the vectorized statistics core (NumPy/SciPy only);
* :func:`load_scores` (any source) and :func:`align` — per-item scores from files, aligned.
"""

from __future__ import annotations

__version__ = "0.1.0"

from evalgap.compare import CompareResult, compare_counts, compare_scores
from evalgap.errors import InputError
from evalgap.io.sources import LoadOptions, load_scores
from evalgap.io.tables import read_long_table
from evalgap.plan import PlanResult, plan
from evalgap.scores import ScoreSet, align

__all__ = [
    "CompareResult",
    "InputError",
    "LoadOptions",
    "PlanResult",
    "ScoreSet",
    "__version__",
    "align",
    "compare_counts",
    "compare_scores",
    "load_scores",
    "plan",
    "read_long_table",
]
