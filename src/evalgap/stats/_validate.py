"""Argument checks shared by the statistics core.

Each check names the argument and the allowed range in its message, like ``scipy.stats``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from evalgap.errors import InputError, escape, named, param_of
from evalgap.stats._types import Alternative, FloatArray

ALTERNATIVES = ("two-sided", "greater", "less")


# Counts are held as float64: whole numbers are exact up to 2^53.
MAX_COUNT = 2**53
# The smallest significance level tested: z quantiles are taken from the tail (``-ndtri``),
# finite down to here; below it alpha/2 leaves the normal range of floating point.
MIN_ALPHA = 1e-300


def numbers(value: object, name: str, *, what: str = "a finite number") -> FloatArray:
    """Return ``value`` as a float array after checking it holds only finite real numbers.

    Strings, None, booleans, complex numbers, NaN and infinities are refused with an
    ``InputError`` naming ``name``: nothing is coerced silently (``"0.05"`` is not 0.05).
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise InputError(
            named(name) + escape(f" must be {what}; got {show(value)}"), param=param_of(name)
        )
    try:
        # Python ints beyond int64 would become an object array: take them as floats.
        raw = np.asarray(float(value) if isinstance(value, int) else value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(
            named(name) + escape(f" must be {what}; got {show(value)}"), param=param_of(name)
        ) from None
    if raw.dtype.kind not in "iuf":
        raise InputError(
            named(name) + escape(f" must be {what}; got {show(value)}"), param=param_of(name)
        )
    arr = raw.astype(float)
    if raw.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InputError(
            named(name) + escape(f" must be {what}; got {show(_first(arr[~np.isfinite(arr)]))}"),
            param=param_of(name),
        )
    return arr


def probability(value: object, name: str, *, open_interval: bool = True) -> FloatArray:
    """Return ``value`` as a float array after checking it lies in (0, 1) (or [0, 1])."""
    bounds = "(0, 1)" if open_interval else "[0, 1]"
    arr = numbers(value, name, what=f"a finite number in {bounds}")
    bad = (arr <= 0) | (arr >= 1) if open_interval else (arr < 0) | (arr > 1)
    if np.any(bad):
        raise InputError(
            named(name) + escape(f" must lie in {bounds}; got {show(_first(arr[bad]))}"),
            param=param_of(name),
        )
    return arr


def levels(
    alpha: object, power: object, alternative: str = "two-sided"
) -> tuple[FloatArray, FloatArray]:
    """Check a significance level and a target power together; return them as arrays.

    ``alpha`` lies in ``[MIN_ALPHA, 1)`` so that its normal quantile, taken from the tail, is
    finite. ``power`` lies in ``(alpha, 1)``: a level-alpha test rejects with probability at
    least alpha at every gap and size, so a target at or below alpha is met by any benchmark
    (and Equation 3, where ``z_{1-beta}`` turns negative, would give an N* that grows as
    the target power falls).
    """
    alphas = probability(alpha, "alpha")
    powers = probability(power, "power")
    _check_alternative(alternative)
    if np.any(alphas < MIN_ALPHA):
        raise InputError(
            "{alpha!b} must be at least "
            + escape(
                f"{MIN_ALPHA:g} (smaller levels leave the floating-point range); got "
                f"{show(_first(alphas[alphas < MIN_ALPHA]))}"
            ),
            param="alpha",
        )
    low = np.broadcast_to(powers <= alphas, np.broadcast(alphas, powers).shape)
    if np.any(low):
        a = _first(np.broadcast_to(alphas, low.shape)[low])
        p = _first(np.broadcast_to(powers, low.shape)[low])
        raise InputError(
            "{power!b} must exceed {alpha!b} "
            + escape(
                f"({show(a)}): a level-alpha test rejects with probability alpha even with no "
                f"gap, so a power of {show(p)} is reached by any number of items"
            ),
            param="power",
        )
    return alphas, powers


MAX_REPLICATES = 1_000_000  # resamples, permutations or simulations of one job
MAX_SCORE = 1e150  # beyond it a score's square (a variance's term) overflows float64


def score_too_large(score: float) -> InputError:
    """The refusal of a finite score beyond +/-``MAX_SCORE``, the same from every reader."""
    return InputError(  # 1e150: MAX_SCORE as a person writes it
        f"a score of {score:g} is beyond +/-1e150, where the variance of the scores overflows; "
        "rescale the scores"
    )


def replicates(value: object, name: str) -> int:
    """Return a replicate count (resamples, permutations, simulations) at most
    ``MAX_REPLICATES``, or raise saying the bound and why."""
    arr = counts(value, name)
    if float(arr) > MAX_REPLICATES:
        raise InputError(
            named(name)
            + escape(
                f" must be at most {MAX_REPLICATES:,}; got {int(arr):,}: a Monte Carlo "
                "figure from 1,000,000 draws is within 0.0004 of its limit at p = 0.05, "
                "finer than any verdict reads, and each draw holds memory for every pair or "
                "model (2 billion would need gigabytes and hours)"
            ),
            param=param_of(name),
        )
    return int(arr)


def counts(value: object, name: str) -> FloatArray:
    """Return ``value`` as a float array of non-negative whole numbers below 2^53, or raise."""
    arr = numbers(value, name, what="a non-negative whole number")
    # an integer array holds whole numbers: only its sign is checked (half a million pairs'
    # counts are checked several times per audit)
    integers = isinstance(value, np.ndarray) and value.dtype.kind in "iu"
    bad = arr < 0 if integers else (arr < 0) | (arr != np.floor(arr))
    if np.any(bad):
        raise InputError(
            named(name)
            + escape(f" must be a non-negative whole number; got {show(_first(arr[bad]))}"),
            param=param_of(name),
        )
    if arr.size and arr.max() >= MAX_COUNT:
        raise InputError(
            named(name)
            + escape(
                f" must be below 2^53 (counts beyond it are not exact in floating point); "
                f"got {show(_first(arr[arr >= MAX_COUNT]))}"
            ),
            param=param_of(name),
        )
    return arr


def whole_number(value: object, name: str, minimum: int = 0) -> int:
    """Return ``value`` as an int after checking it is a whole number >= ``minimum``."""
    arr = numbers(value, name, what=f"a whole number >= {minimum}")
    if arr.ndim != 0 or arr != np.floor(arr) or arr < minimum:
        raise InputError(
            named(name) + escape(f" must be a whole number >= {minimum}; got {show(value)}"),
            param=param_of(name),
        )
    if arr >= MAX_COUNT:
        raise InputError(
            named(name) + escape(f" must be below 2^53; got {show(value)}"), param=param_of(name)
        )
    return int(arr)


def positive(value: object, name: str) -> FloatArray:
    """Return ``value`` as a float array after checking it is finite and > 0."""
    arr = numbers(value, name, what="a positive finite number")
    if np.any(arr <= 0):
        raise InputError(
            named(name)
            + escape(f" must be a positive finite number; got {show(_first(arr[arr <= 0]))}"),
            param=param_of(name),
        )
    return arr


def show(value: object) -> str:
    """Return a value as a user reads it: ``nan``, ``0.05``, ``'abc'``, never ``np.float64(..)``;
    a float with every digit it needs to be itself (``0.9999999999``, never a rounded ``1``).

    Examples
    --------
    >>> show(0.05), show(0.9999999999), show(1.0000001), show(float("nan"))
    ('0.05', '0.9999999999', '1.0000001', 'nan')
    """
    if isinstance(value, (np.generic, np.ndarray)) and np.size(value) == 1:
        value = np.asarray(value).item()
    if isinstance(value, float):
        if value == 0:
            return "0"
        short = f"{value:g}"
        # the short form where it is the value; else every digit (0.9999999999 is not "1")
        return short if float(short) == value else repr(value)
    text = str(value) if isinstance(value, (bool, int)) else repr(value)
    return text if len(text) <= 40 else text[:30] + f"... ({len(text)} characters)"


def alternative(value: object) -> Alternative:
    """Check the ``alternative`` keyword."""
    return _check_alternative(value)


def _check_alternative(value: object) -> Alternative:
    if not isinstance(value, str) or value not in ALTERNATIVES:
        raise InputError(
            "{alternative!b}"
            + escape(
                f" must be one of {', '.join(ALTERNATIVES)}; got {show(value)}"
            ),
            param="alternative",
        )
    return cast(Alternative, value)  # one of ALTERNATIVES, checked above


def resamples(value: object, name: str = "n_resamples") -> int:
    """Check a resample count: a whole number >= 1."""
    return whole_number(value, name, 1)


def scalar_or_array(arr: object) -> Any:
    """Return a 0-d array as a NumPy scalar and anything else unchanged.

    Typed ``Any``: the callers' own return annotations say what they give (a float or a float
    array, an int or an int array).
    """
    arr = np.asarray(arr)
    return arr[()] if arr.ndim == 0 else arr


def _first(arr: object) -> Any:
    flat = np.asarray(arr).ravel()
    return flat[0].item() if flat.size else arr


# What each numeric, boolean or text argument of the public job functions is, by its name
# (one name, one meaning across the jobs): checked once at each job's entry by arguments().
ARGUMENT_KINDS = {
    **dict.fromkeys(("alpha", "power"), "probability"),
    **dict.fromkeys(
        (
            "accuracy_a",
            "accuracy_b",
            "correlation",
            "delta",
            "sd_diff",
            "flip_rate",
            "margin",
            "equivalence",
            "cost_per_item",
            "cost_per_run",
            "cost_per_configuration",
            "cost_gold",
            "cost_judge",
            "price_per_1k_tokens",
            "tokens_per_item",
        ),
        "number",
    ),
    **dict.fromkeys(
        (
            "both_correct",
            "a_only",
            "b_only",
            "both_wrong",
        ),
        "count",
    ),
    **dict.fromkeys(
        (
            "n_bootstrap",
            "n_bootstrap_required_n",
            "n_permutations",
            "n_cluster_bootstrap",
            "n_rank_bootstrap",
            "n_simulations",
        ),
        "replicates",
    ),
    **dict.fromkeys(
        (
            "family_size",
            "top_k",
            "n_items",
            "max_runs",
            "n_strata",
            "n_repeats",
            "budget",
            "block_pairs",
        ),
        "positive_count",
    ),
    "seed": "seed",
    **dict.fromkeys(("complete_case", "strict", "permutation", "leader_known"), "flag"),
    **dict.fromkeys(
        (
            "alternative",
            "adjustment",
            "family",
            "procedure",
            "chain_procedure",
            "mixture",
            "method",
            "bootstrap",
            "ties",
            "targets",
            "by",
            "model_a",
            "model_b",
            "baseline",
            "candidate",
            "model",
        ),
        "text",
    ),
    **dict.fromkeys(("tasks", "models"), "names"),
}


# How the jobs' own range checks describe some numbers (the messages stay the same).
_RANGES = {
    "accuracy_a": "a finite number in (0, 1)",
    "accuracy_b": "a finite number in (0, 1)",
    "flip_rate": "a finite number in (0, 1)",
    "correlation": "a finite number in [-1, 1]",
    "margin": "a finite number in (0, 1)",
    "equivalence": "a finite number in (0, 1)",
}


def arguments(**values: object) -> None:
    """Check a public job's scalar arguments by their names (see ``ARGUMENT_KINDS``).

    A number must be one finite real number (not a bool, a string, a list or an array, nor
    NaN or inf); a count a whole number (>= 0, or >= 1 for sizes such as ``n_items``); a flag
    True or False; a text option a string; ``tasks``/``models`` a list of names. None (and
    a name not in the table) is left to the job (a default, or its own message). Ranges are
    the job's to check; this keeps a wrong type from reaching the arithmetic, where it would
    fail with an internal error.
    """
    for name, value in values.items():
        kind = ARGUMENT_KINDS.get(name)  # names it does not know are left to the job
        if value is None or kind is None:
            continue
        if kind in ("probability", "number", "count", "replicates"):
            what = {
                "count": "a non-negative whole number",
                "replicates": "a non-negative whole number",
                "probability": "a finite number in (0, 1)",
            }.get(kind, _RANGES.get(name, "a finite number"))
            arr = numbers(value, name, what=what)
            if arr.ndim != 0:
                raise InputError(
                    named(name) + escape(f" must be one number, {what}; got {show(value)}"),
                    param=param_of(name),
                )
            if kind == "probability":
                probability(arr, name)
            elif kind == "count":
                counts(arr, name)
            elif kind == "replicates":
                replicates(arr, name)
        elif kind == "positive_count":
            whole_number(value, name, 1)
        elif kind == "seed":
            if not isinstance(value, (np.random.Generator, np.random.SeedSequence)) and (
                isinstance(value, (bool, np.bool_))
                or not isinstance(value, (int, np.integer))
                or value < 0
            ):
                raise InputError(
                    "{seed!b}"
                    + escape(
                        f" must be a non-negative integer, a Generator or None; got {show(value)}"
                    ),
                    param="seed",
                )
        elif kind == "flag":
            if not isinstance(value, (bool, np.bool_)):
                raise InputError(
                    named(name) + escape(f" must be True or False; got {show(value)}"),
                    param=param_of(name),
                )
        elif kind == "text":
            if not isinstance(value, str):
                raise InputError(
                    named(name) + escape(f" must be a string; got {show(value)}"),
                    param=param_of(name),
                )
        else:
            _names(value, name)


def _names(value: object, name: str) -> None:
    """Check a list (tuple, array...) of names: an iterable of strings, not one string."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise InputError(
            named(name) + escape(f" must be a list of names; got {show(value)}"),
            param=param_of(name),
        )
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise InputError(
            named(name) + escape(f" must be a list of names (strings); got {show(bad[0])}"),
            param=param_of(name),
        )


def check_countable(required: float, what: str, option: str = "delta=") -> None:
    """Refuse a sample size beyond floating point (a gap far too small for any benchmark).

    A finite N*, however large, is reported as a whole number; one that overflows to
    infinity is an ``InputError`` naming ``option``, never an ``OverflowError``.

    Parameters
    ----------
    required : float
        The sample size computed.
    what : str
        What it is for, as the message opens (``"a gap of 1e-300"``).
    option : str
        The keyword to check, named in the message.
    """
    if np.isnan(required):
        raise InputError(
            escape(
                f"{what}: the items needed are not defined at these settings (the sample-size "
                "formula breaks down); check "
            )
            + named(option),
            param=param_of(option),
        )
    if not np.isfinite(required):
        raise InputError(
            escape(
                f"{what} needs more items than floating point can count (N* overflows): no "
                "feasible benchmark resolves it; check the units of "
            )
            + named(option),
            param=param_of(option),
        )
