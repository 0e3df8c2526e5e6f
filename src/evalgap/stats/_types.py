"""Type aliases for the annotations: NumPy arrays by element type, the tests' alternatives.

Functions of the statistics core broadcast: they take array-likes (numbers, lists, arrays)
and return a float for scalar input and an array otherwise (``FloatOrArray``).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Alternative",
    "ArrayLike",
    "BoolArray",
    "CountOrArray",
    "FloatArray",
    "FloatOrArray",
    "IntArray",
    "Seed",
]

FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]
BoolArray: TypeAlias = NDArray[np.bool_]
# A broadcasting function's result: a float (a NumPy scalar) for scalar input, else an array.
FloatOrArray: TypeAlias = float | FloatArray
# Counts: whole numbers held as floats (exact below 2^53) or as integers.
CountOrArray: TypeAlias = float | FloatArray | IntArray
# What ``numpy.random.default_rng`` accepts as a seed.
Seed: TypeAlias = int | np.random.Generator | np.random.SeedSequence | None
Alternative: TypeAlias = Literal["two-sided", "greater", "less"]
