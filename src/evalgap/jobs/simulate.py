"""The ``simulate`` job: calibrate every test and check every prescription, by simulation.

Five studies (Resolution Diagnostics Section 5, Table 2, Appendices B, C, H; Degradation
paper Appendix C.2, Figure 3), each seeded and vectorized across trials:

* :func:`calibration` - Type-I error and power of McNemar chi-square, exact, mid-p,
  continuity-corrected and the paired bootstrap on a (p, rho_z) grid at n = 500, with the
  alternative tuned so the asymptotic power is 0.80 (Table 2 layout, with Monte Carlo SEs);
* :func:`prospective` - subsample a real pair to 0.8 N*, N*, 1.2 N* and measure McNemar's
  power (Table 10);
* :func:`power_curve` - bootstrap power against n with N* marked (Figures 5-6), binary or
  graded (Beta marginals);
* :func:`sequential` - the mixture e-process under H0 and H1 calibrated to a pair: Type-I
  rate, rejection rate, stopping time relative to N*, sample trajectories (Appendix C, Fig. 4);
* :func:`aggregation` - rejection rates of pooled, max-drop, Fisher and any-of-three for
  T = 1..20 tasks under the null, a balanced and a single-task degradation (Figure 3), and
  the Type-I error of their permutation versions on small graded tasks, beside Algorithm 7
  as printed (whose scale is not sign-invariant).

Work is cut into fixed chunks (a grid cell, a task count, a sample size...), each with its
own random stream spawned from ``seed``; ``jobs`` only decides how many processes run them,
so results do not depend on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from scipy import optimize

from evalgap._results import Result
from evalgap.errors import InputError, escape, fields
from evalgap.jobs._inputs import renamed_keywords
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, aggregation, generators, resample, sequential, tests
from evalgap.stats import power as pw
from evalgap.stats.paired import summarize_counts

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from evalgap._scores import ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.stats._types import Seed

CALIBRATION_VARIANTS = ("mcnemar", "exact", "mid_p", "mcnemar_cc", "bootstrap")
GRID_ACCURACY = (0.5, 0.7, 0.9)
GRID_LATENT_CORRELATION = (0.0, 0.4, 0.8)


def run_chunks(
    function: Callable,
    chunks: list,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
    *,
    done: int = 0,
    total: int | None = None,
) -> list:
    """Return ``[function(*chunk) for chunk in chunks]``, over ``jobs`` processes if > 1.

    ``progress(done, total)`` is called after each chunk; a study that runs several batches
    passes the chunks already ``done`` and the ``total`` over all of them.
    """
    jobs = _jobs(jobs)
    total = len(chunks) if total is None else total
    report = progress or (lambda _done, _total: None)
    out = []
    if jobs == 1 or len(chunks) == 1:
        for chunk in chunks:
            out.append(function(*chunk))
            report(done + len(out), total)
        return out
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(function, *chunk) for chunk in chunks]
        for future in futures:
            out.append(future.result())
            report(done + len(out), total)
        return out


def _streams(seed: Seed, n: int) -> list[np.random.SeedSequence]:
    return resample.seed_sequence(seed).spawn(n)


def _rng(stream: np.random.SeedSequence) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(stream))


def _se(rate: float, trials: int) -> float:
    return float(resample.monte_carlo_se(rate, trials))


# The largest study one call may ask for, refused above with a one-line error before any
# work starts: a million trials already put the Monte Carlo SE of a rate below 0.0005, and a
# batch of trials holds trials x resamples (or trials x items) numbers in memory at once.
MAX_TRIALS = 1_000_000
MAX_RESAMPLES = 100_000
MAX_ITEMS = 1_000_000
MAX_BATCH = 50_000_000  # numbers one batch holds (about 400 MB as float64)


# Why a bound is what it is, said with the refusal, by the count it bounds. A study's
# resamples are drawn anew in every trial, so it bounds them tighter than one job does.
_WHY = {
    "n_trials": "a million trials put the Monte Carlo SE of a rate below 0.0005",
    "n_bootstrap": "each trial draws them anew, so a study holds trials x resamples draws",
    "n_permutations": "each trial draws them anew, so a study holds trials x resamples draws",
    "n_items": "a trial holds every item's scores of every model in memory",
    "horizon": "a trial holds every item's scores of every model in memory",
}


def study_count(value: object, name: str, minimum: int = 1, maximum: int = MAX_TRIALS) -> int:
    """Return ``value`` as an int after checking it is a whole number in [minimum, maximum]."""
    number = _validate.whole_number(value, name, minimum)
    if number > maximum:
        why = _WHY.get(name) if maximum in (MAX_TRIALS, MAX_RESAMPLES, MAX_ITEMS) else None
        raise InputError(
            fields(name)
            + " is more than this study runs (at most {maximum!s}"
            + (escape(f": {why}") if why else "")
            + "); ask for fewer",
            param=name,
            maximum=f"{maximum:,}",
            **{name: number},
        )
    return number


def check_batch(rows: int, columns: int, names: str, **values: object) -> None:
    """Refuse ``rows x columns`` numbers (held in a batch, or drawn) above ``MAX_BATCH``.

    ``names`` is an InputError template naming the parameters behind the two sizes
    (``"{n_trials} x {n_bootstrap}"``), ``values`` the values it shows.
    """
    if rows * columns > MAX_BATCH:
        import string

        first = next(f for _, f, _, _ in string.Formatter().parse(names) if f)
        raise InputError(
            names
            + escape(
                f": {rows:,} x {columns:,} = {rows * columns:,} numbers to hold or draw, "
                f"more than {MAX_BATCH:,}: lower one of them"
            ),
            param=first.split("=")[0],
            **values,
        )


def study_grid(values: object, name: str, check: Callable[[Any], object]) -> tuple:
    """Return a non-empty sequence of numbers as a tuple, each passed through ``check``."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise InputError(f"{name} must be a list of numbers; got {_validate.show(values)}")
    values = tuple(values)
    if not values:
        raise InputError(f"{name} must hold at least one value")
    return tuple(check(v) for v in values)


def _jobs(jobs: object) -> int:
    return study_count(jobs, "jobs", 1, 1024)


# --- calibration (Section 5, Table 2) --------------------------------------------------------


@dataclass(frozen=True, repr=False)
class CalibrationResult(Study, Result):
    """Type-I error and power of five paired-binary tests on a grid (Table 2 layout).

    Attributes
    ----------
    alpha, power : float
        Level of the tests; power the alternative is tuned to.
    n_items, n_trials, n_bootstrap : int
        Items per benchmark, trials per cell and hypothesis, bootstrap resamples.
    seed : int or None
        The seed.
    cells : tuple of dict
        Per (accuracy, latent correlation): the gap, and per test the Type-I error and power
        with their Monte Carlo SEs (``to_frame()``).
    """

    _headline = ("alpha", "n_items", "n_trials")
    simulation: ClassVar[str] = "calibration"  # which study: the renderers dispatch on it

    alpha: float
    power: float
    n_items: int
    n_trials: int
    n_bootstrap: int
    seed: int | None
    cells: tuple[dict, ...]

    @property
    def variants(self) -> dict:
        """Per test: the largest |Type-I - alpha|, the median power and its largest deviation."""
        out = {}
        for v in CALIBRATION_VARIANTS:
            type1 = np.array([c["type1"][v] for c in self.cells])
            power = np.array([c["power"][v] for c in self.cells])
            out[v] = {
                "type1_max_abs_dev": float(np.max(np.abs(type1 - self.alpha))),
                "power_median": float(np.median(power)),
                "power_max_dev": float(np.max(np.abs(power - self.power))),
            }
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return one row per grid cell and test: Type-I error and power with their SEs."""
        import pandas as pd

        return pd.DataFrame(list(self.cells))

    def to_dict(self) -> dict:
        """Return the JSON of ``simulate calibration --json``."""
        return {
            "alpha": self.alpha,
            "target_power": self.power,
            "n_items": self.n_items,
            "n_trials": self.n_trials,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "variants": self.variants,
            "cells": list(self.cells),
        }


    def _figure(self) -> Figure:
        from evalgap.report.plots import calibration_figure

        return calibration_figure(self)


def _accuracy(value: object, name: str = "accuracies") -> float:
    return float(_validate.probability(value, name))


def _correlation(value: object, name: str = "latent_correlations") -> float:
    number = float(_validate.numbers(value, name, what="a finite number in (-1, 1)"))
    if not -1 < number < 1:
        raise InputError(f"{name} must lie in (-1, 1); got {_validate.show(number)}")
    return number


def _fraction(value: object, name: str = "fractions") -> float:
    number = float(_validate.numbers(value, name, what="a finite number in (0, 100]"))
    if not 0 < number <= 100:
        raise InputError(
            f"{name} must lie in (0, 100] (multiples of N*); got {_validate.show(number)}"
        )
    return number


def _gap(value: object) -> float:
    """A number (NaN and inf are left to the gap check, which says why they have no N*)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise InputError(
            "{deltas} must be a finite, non-zero gap; got " + escape(_validate.show(value)),
            param="deltas",
        )
    return float(value)


def tuned_delta(
    p: float, latent_correlation: float, n_items: int, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Return the gap delta at which Equation (6) gives N* = n_items for marginals p -/+ delta/2."""

    def gap(delta: float) -> float:
        cells = generators.latent_cells(p + delta / 2, p - delta / 2, latent_correlation)
        # the cells are proportions: N* per item of the pair's 2x2 table (Equation 6)
        required = pw.required_n_from_counts(cells[1], cells[2], 1.0, alpha=alpha, power=power)
        return float(required) - n_items

    upper = 2 * min(p, 1 - p) - 1e-6
    if gap(upper) > 0:  # even the largest admissible gap needs more items than n_items
        fewest = pw.round_up(gap(upper) + n_items)
        raise InputError(
            "{n_items}"
            + escape(
                f" is too small for the calibration grid: at accuracy {p:g} and latent "
                f"correlation {latent_correlation:g} even the largest gap needs {fewest} items "
                f"for power {power:g}; use "
            )
            + "{n_items="
            + str(fewest)
            + "} or more",
            param="n_items",
            n_items=n_items,
        )
    return float(optimize.brentq(gap, 1e-5, upper, xtol=1e-10))


def _calibration_cell(
    p: float,
    rho: float,
    delta: float,
    n: int,
    trials: int,
    n_bootstrap: int,
    alpha: float,
    stream: np.random.SeedSequence,
) -> dict[str, dict[str, float]]:
    rng = _rng(stream)
    out = {}
    for hypothesis, gap in (("type1", 0.0), ("power", delta)):
        cells = generators.latent_cells(p + gap / 2, p - gap / 2, rho)
        _, b, c, _ = generators.paired_counts(cells, n, trials, rng)
        p_values = {
            "mcnemar": tests.mcnemar(b, c).p_value,
            "exact": tests.mcnemar_exact(b, c),
            "mid_p": tests.mcnemar_exact(b, c, mid_p=True),
            "mcnemar_cc": tests.mcnemar(b, c, correction=True).p_value,
        }
        b_star, c_star = resample.bootstrap_counts(b, c, n, n_bootstrap, rng)
        p_values["bootstrap"] = resample.bootstrap_p_value((b_star - c_star) / n)
        out[hypothesis] = {
            v: float(np.mean(np.asarray(p_values[v]) <= alpha)) for v in CALIBRATION_VARIANTS
        }
    return out


def calibration(
    *,
    n_items: int = 500,
    n_trials: int = 1500,
    n_bootstrap: int = 1000,
    alpha: float = 0.05,
    power: float = 0.8,
    accuracies: Sequence[float] = GRID_ACCURACY,
    latent_correlations: Sequence[float] = GRID_LATENT_CORRELATION,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> CalibrationResult:
    """Type-I error and power of the McNemar family and the bootstrap on a (p, rho) grid.

    For each accuracy ``p`` and latent correlation ``rho`` of the grid, the alternative is
    tuned so the asymptotic power is ``power`` (*Resolution Diagnostics* Section 5, Table 2).

    Parameters
    ----------
    n_items : int
        Items per simulated benchmark (the paper: 500).
    n_trials : int
        Simulated benchmarks per cell, under H0 and under H1.
    n_bootstrap : int
        Resamples of the paired bootstrap test in each trial.
    alpha, power : float
        Level of the tests; target power of the tuned alternative.
    accuracies, latent_correlations : sequence of float
        The grid.
    seed : int or None
        Seed; each cell gets its own stream, so results do not depend on ``jobs``.
    jobs : int
        Processes.
    progress : callable, optional
        ``progress(done, total)`` after each cell.

    Returns
    -------
    CalibrationResult
        Per cell and test: Type-I error and power with Monte Carlo SEs (``to_frame()``).

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.calibration(n_items=100, n_trials=50, n_bootstrap=50,
    ...     accuracies=(0.7,), latent_correlations=(0.4,))
    >>> sorted(r.variants)
    ['bootstrap', 'exact', 'mcnemar', 'mcnemar_cc', 'mid_p']
    """
    _validate.levels(alpha, power)
    n_items = study_count(n_items, "n_items", 10, MAX_ITEMS)
    n_trials = study_count(n_trials, "n_trials")
    n_bootstrap = study_count(n_bootstrap, "n_bootstrap", 1, MAX_RESAMPLES)
    check_batch(n_trials, n_bootstrap, "{n_trials} x {n_bootstrap}")
    accuracies = study_grid(accuracies, "accuracies", _accuracy)
    latent_correlations = study_grid(latent_correlations, "latent_correlations", _correlation)
    grid = [(p, rho) for p in accuracies for rho in latent_correlations]
    deltas = [tuned_delta(p, rho, n_items, alpha, power) for p, rho in grid]
    streams = _streams(seed, len(grid))
    chunks = [
        (p, rho, d, n_items, n_trials, n_bootstrap, alpha, s)
        for (p, rho), d, s in zip(grid, deltas, streams, strict=True)
    ]
    results = run_chunks(_calibration_cell, chunks, jobs, progress)
    cells = []
    for (p, rho), delta, r in zip(grid, deltas, results, strict=True):
        cells.append(
            {
                "accuracy": p,
                "latent_correlation": rho,
                "delta": delta,
                "type1": r["type1"],
                "power": r["power"],
                "type1_se": {v: _se(x, n_trials) for v, x in r["type1"].items()},
                "power_se": {v: _se(x, n_trials) for v, x in r["power"].items()},
            }
        )
    return CalibrationResult(
        float(alpha), float(power), n_items, n_trials, n_bootstrap, seed, tuple(cells)
    )


# --- prospective validation (Table 10) ---------------------------------------------------------


@dataclass(frozen=True, repr=False)
class ProspectiveResult(Study, Result):
    """Empirical McNemar power when a real pair is subsampled around its N* (Table 10).

    Attributes
    ----------
    alpha, power : float
        Level of McNemar's test; the power N* is planned for.
    n_trials : int
        Subsamples per size.
    fractions : tuple of float
        Sizes as multiples of N*.
    pairs : tuple of dict
        Per pair: gap, correlation, N*, sizes and empirical power with SEs (``to_frame()``).
    """

    _headline = ("alpha", "n_trials")
    simulation: ClassVar[str] = "prospective"  # which study: the renderers dispatch on it

    alpha: float
    power: float
    n_trials: int
    fractions: tuple[float, ...]
    pairs: tuple[dict, ...]

    def to_frame(self) -> pd.DataFrame:
        """Return one row per pair and subsample size: items, empirical power and its SE."""
        import pandas as pd

        rows = []
        for pair in self.pairs:
            for fraction, size, power_, se in zip(
                self.fractions, pair["sizes"], pair["power"], pair["power_se"], strict=True
            ):
                rows.append(
                    {
                        "pair": pair["pair"],
                        "required_n": pair["required_n"],
                        "fraction": fraction,
                        "n_items": size,
                        "power": power_,
                        "power_se": se,
                    }
                )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """Return the study as plain data."""
        return {
            "alpha": self.alpha,
            "target_power": self.power,
            "n_trials": self.n_trials,
            "fractions": list(self.fractions),
            "pairs": list(self.pairs),
        }


    def _figure(self) -> Figure:
        from evalgap.report.plots import prospective_figure

        return prospective_figure(self)


def prospective_counts(score_set: ScoreSet, pairs: Sequence[tuple[str, str]]) -> dict:
    """Return ``{"A vs B": 2x2 counts}`` for each pair, on the items BOTH models scored.

    Each pair is taken on its own items (``score_set.pair``; items where either score is
    missing are left out), so adding a pair never changes another pair's counts.
    """
    from evalgap.stats.paired import counts_from_scores, is_binary

    counts = {}
    for a, b in pairs:
        x, y = score_set.pair(a, b)  # the items both scored; raises when there are none
        if not (is_binary(x) and is_binary(y)):
            raise InputError(
                "{pairs}: the prospective study needs binary scores", param="pairs", pairs=(a, b)
            )
        counts[f"{a} vs {b}"] = tuple(int(v) for v in counts_from_scores(x, y))
    return counts


def _pairs_of_scores(pairs: Any, scores: ScoresInput, **reading: Any) -> dict:
    """The 2x2 counts of the model pairs ``pairs`` (``(A, B)`` each) in ``scores``, read with
    ``reading`` (``tasks``, ``strict``, ``complete_case``, ``options`` and column names)."""
    from evalgap.jobs._inputs import scores_of

    if not isinstance(pairs, (str, dict)) and not pairs:
        raise InputError(
            "name the pairs to validate: {pairs} (model A and model B; repeatable)",
            param="pairs",
        )
    if isinstance(pairs, (str, dict)) or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(m, str) for m in p)
        for p in pairs
    ):
        raise InputError(
            "with {scores}, {pairs} names the model pairs to subsample: a list of (A, B); "
            "got {got!s}",
            param="pairs",
            got=_validate.show(pairs),
        )
    models = list(dict.fromkeys(m for pair in pairs for m in pair))
    return prospective_counts(scores_of(scores, models=models, **reading), pairs)


def _pair_counts(cells: Any, name: str) -> tuple:
    """Check a pair's 2x2 counts: four non-negative whole numbers."""
    if isinstance(cells, (str, bytes, dict)) or not hasattr(cells, "__len__") or len(cells) != 4:
        raise InputError(
            f"{name} must be four counts (both_correct, a_only, b_only, both_wrong); "
            f"got {_validate.show(cells)}"
        )
    return tuple(int(_validate.counts(c, name)) for c in cells)


def _prospective_size(
    cells: np.ndarray, size: int, trials: int, alpha: float, stream: np.random.SeedSequence
) -> float:
    _, b, c, _ = generators.paired_counts(cells, size, trials, _rng(stream))
    return float(np.mean(tests.mcnemar(b, c).p_value <= alpha))


def prospective_study(
    scores: ScoresInput | None = None, *, pairs: Sequence[tuple[str, str]], **settings: Any
) -> ProspectiveResult:
    """Deprecated: ``prospective(pairs, scores=scores, ...)`` (one name per study)."""
    import warnings

    warnings.warn(
        "evalgap.simulate.prospective_study is deprecated; use "
        "evalgap.simulate.prospective(pairs, scores=...), which reads the same scores",
        DeprecationWarning,
        stacklevel=2,
    )
    return prospective(list(pairs), scores=scores, **settings)


def prospective(
    pairs: dict[str, Sequence[int]] | Sequence[tuple[str, str]],
    *,
    scores: ScoresInput | None = None,
    fractions: Sequence[float] = (0.8, 1.0, 1.2),
    n_trials: int = 1000,
    alpha: float = 0.05,
    power: float = 0.8,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    complete_case: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> ProspectiveResult:
    """Subsample each real pair (label -> 2x2 counts) to ``fraction * N*`` items, M times.

    N* is Equation (6) at the pair's estimates; each trial is a multinomial draw of that many
    items from the pair's observed cells (a bootstrap subsample) tested by McNemar at alpha
    (*Resolution Diagnostics* Table 10).

    Parameters
    ----------
    pairs : dict or list of (str, str)
        Label -> ``(both_correct, a_only, b_only, both_wrong)``; with ``scores``, the model
        pairs ``(A, B)`` to subsample (``simulate prospective --pair A B``), each labelled
        ``"A vs B"`` and counted on the items both models scored.
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item binary scores holding the models of ``pairs`` (the ``--scores`` of the
        command line; see :func:`evalgap.audit` for the forms).
    fractions : sequence of float
        Subsample sizes as multiples of N*.
    n_trials : int
        Subsamples per size.
    alpha, power : float
        Level of McNemar's test; the power N* is planned for.
    seed, jobs, progress
        As in :func:`calibration`.
    tasks, strict, complete_case, options, **columns
        With ``scores``: how to read and align them, as for :func:`evalgap.audit`.

    Returns
    -------
    ProspectiveResult
        Per pair and size: empirical power and its SE (``to_frame()``).

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.prospective({"hellaswag": (7986, 295, 249, 1512)}, n_trials=100)
    >>> r.to_frame()["n_items"].tolist()
    [16204, 20255, 24307]
    """
    _validate.levels(alpha, power)
    n_trials = study_count(n_trials, "n_trials")
    fractions = study_grid(fractions, "fractions", _fraction)
    reading = dict(tasks=tasks, strict=strict, complete_case=complete_case, options=options)
    given = [n for n, v in {**reading, **columns}.items() if v not in (None, False)]
    if scores is not None or (given and not isinstance(pairs, dict)):
        # model pairs, read from scores= (or from a results store named in options)
        pairs = _pairs_of_scores(pairs, scores, **reading, **columns)
    elif given:
        raise InputError(
            fields(*given) + ": how to read scores, but {pairs} holds 2x2 counts; leave them "
            "out, or give the model pairs with {scores}",
            param="pairs",
        )
    if not isinstance(pairs, dict) or not pairs:
        raise InputError(
            "{pairs!b}"
            + escape(
                " must be a dict of label -> (both_correct, a_only, b_only, both_wrong); "
                f"got {_validate.show(pairs)}"
            ),
            param="pairs",
        )
    pairs = {label: _pair_counts(cells, f"pair {label}") for label, cells in pairs.items()}
    chunks, meta = [], []
    streams = _streams(seed, len(pairs) * len(fractions))
    k = 0
    for label, cells in pairs.items():
        s = summarize_counts(*cells)
        required = float(pw.required_n(s.delta, s.sd_diff, alpha=alpha, power=power))
        if not math.isfinite(required):
            raise InputError(f"pair {label}: a zero gap has no N* to validate")
        if not s.sd_diff > 0:
            raise InputError(
                f"pair {label}: every one of its {int(s.n_items):,} shared items differs the "
                "same way, so the per-item differences have no spread and there is no N* to "
                "validate"
            )
        proportions = np.asarray(cells, dtype=float) / float(s.n_items)
        meta.append((label, s, required))
        for f in fractions:
            chunks.append((proportions, max(1, round(f * required)), n_trials, alpha, streams[k]))
            k += 1
    results = run_chunks(_prospective_size, chunks, jobs, progress)
    rows = []
    for i, (label, s, required) in enumerate(meta):
        rates = results[i * len(fractions) : (i + 1) * len(fractions)]
        rows.append(
            {
                "pair": label,
                "abs_delta": abs(float(s.delta)),
                "correlation": float(s.correlation),
                "required_n": pw.round_up(required),
                "sizes": [max(1, round(f * required)) for f in fractions],
                "power": rates,
                "power_se": [_se(r, n_trials) for r in rates],
            }
        )
    return ProspectiveResult(float(alpha), float(power), n_trials, tuple(fractions), tuple(rows))


# --- power curves (Figures 5-6) --------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class PowerCurveResult(Study, Result):
    """Bootstrap power against n for several gaps, with each gap's N* (Figures 5-6).

    Attributes
    ----------
    kind : str
        ``"binary"`` or ``"graded"``.
    alpha, power : float
        Level; target power.
    n_trials, n_bootstrap : int
        Trials per point; bootstrap resamples per trial.
    curves : tuple of dict
        Per gap: N*, the sizes, the power at each with its SE, and where it crosses the
        target (``to_frame()``).
    """

    _headline = ("kind", "n_trials", "n_bootstrap")
    simulation: ClassVar[str] = "power_curve"  # which study: the renderers dispatch on it

    kind: str
    alpha: float
    power: float
    n_trials: int
    n_bootstrap: int
    curves: tuple[dict, ...]

    def to_frame(self) -> pd.DataFrame:
        """Return one row per gap and sample size: bootstrap power and its SE."""
        import pandas as pd

        rows = []
        for curve in self.curves:
            for n, power_, se in zip(curve["n"], curve["power"], curve["power_se"], strict=True):
                rows.append(
                    {
                        "delta": curve["delta"],
                        "required_n": curve["required_n"],
                        "n_items": n,
                        "power": power_,
                        "power_se": se,
                    }
                )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """Return the curves as plain data."""
        return {
            "kind": self.kind,
            "alpha": self.alpha,
            "target_power": self.power,
            "n_trials": self.n_trials,
            "n_bootstrap": self.n_bootstrap,
            "curves": list(self.curves),
        }


    def _figure(self) -> Figure:
        from evalgap.report.plots import power_curve_figure

        return power_curve_figure(self)


def _binary_point(
    cells: np.ndarray,
    n: int,
    trials: int,
    n_bootstrap: int,
    alpha: float,
    stream: np.random.SeedSequence,
) -> float:
    rng = _rng(stream)
    _, b, c, _ = generators.paired_counts(cells, n, trials, rng)
    b_star, c_star = resample.bootstrap_counts(b, c, n, n_bootstrap, rng)
    return float(np.mean(resample.bootstrap_p_value((b_star - c_star) / n) <= alpha))


def _graded_point(
    shape_b: tuple[float, float],
    rho: float,
    n: int,
    trials: int,
    n_bootstrap: int,
    alpha: float,
    stream: np.random.SeedSequence,
) -> float:
    rng = _rng(stream)
    a, b = generators.paired_beta(n, (4.0, 2.0), shape_b, rho, trials, rng)
    rejections = 0
    for t in range(trials):
        means = resample.bootstrap_means(a[t] - b[t], n_bootstrap, rng, workers=1)
        rejections += float(resample.bootstrap_p_value(means)) <= alpha
    return rejections / trials


def power_curve(
    *,
    kind: str = "binary",
    deltas: Sequence[float] = (0.02, 0.04, 0.08),
    accuracy_a: float = 0.65,
    latent_correlation: float = 0.3,
    fractions: Sequence[float] = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0),
    n_trials: int | None = None,
    n_bootstrap: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> PowerCurveResult:
    """Bootstrap power at ``fraction * N*`` items for each gap (binary, or Beta(4, 2) graded).

    Parameters
    ----------
    kind : {"binary", "graded"}
        Binary scores through the latent copula, or Beta-distributed graded scores.
    deltas : sequence of float
        The gaps.
    accuracy_a, latent_correlation : float
        Model A's accuracy and the latent correlation (binary).
    fractions : sequence of float
        Sample sizes as multiples of each gap's N*.
    n_trials, n_bootstrap : int, optional
        Simulated benchmarks per point and bootstrap resamples per test (defaults: 500 binary,
        200 graded).
    alpha, power, seed, jobs, progress
        As in :func:`calibration`.

    Returns
    -------
    PowerCurveResult
        Per gap: power against n with N* marked (*Resolution Diagnostics* Figures 5-6).

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.power_curve(deltas=(0.05,), n_trials=50, n_bootstrap=50, fractions=(1.0,))
    >>> r.to_frame()["required_n"].tolist()
    [1191]

    Binary: marginals ``p_A`` and ``p_A - delta`` through the latent copula, N* from Equation
    (6). Graded: model A ~ Beta(4, 2), model B ~ Beta(a, 2) with mean lower by delta, N* the
    paired-t required N from the SD of D (estimated on 200,000 simulated items).
    """
    if kind not in ("binary", "graded"):
        raise InputError(
            "{kind!b}" + escape(f" must be 'binary' or 'graded'; got {kind!r}"),
            param="kind",
        )
    _validate.levels(alpha, power)
    accuracy_a = _accuracy(accuracy_a, "accuracy_a")
    latent_correlation = _correlation(latent_correlation, "latent_correlation")
    fractions = study_grid(fractions, "fractions", _fraction)
    deltas = study_grid(deltas, "deltas", _gap)
    _check_curve_deltas(kind, deltas, accuracy_a)
    default = 500 if kind == "binary" else 200
    trials = study_count(default if n_trials is None else n_trials, "n_trials")
    boot = default if n_bootstrap is None else n_bootstrap
    boot = study_count(boot, "n_bootstrap", 1, MAX_RESAMPLES)
    check_batch(trials, boot, "{n_trials} x {n_bootstrap}")
    chunks, meta = [], []
    streams = _streams(seed, len(deltas) * len(fractions) + 1)
    k = 0
    for delta in deltas:
        asked = delta
        if kind == "binary":
            cells = generators.latent_cells(accuracy_a, accuracy_a - delta, latent_correlation)
            required = float(
                pw.required_n_from_counts(cells[1], cells[2], 1.0, alpha=alpha, power=power)
            )
            payload: tuple[Any, ...] = (cells,)
        else:
            mean_b = 4.0 / 6.0 - delta
            shape_b = (2.0 * mean_b / (1.0 - mean_b), 2.0)
            a, b = generators.paired_beta(
                200_000, (4.0, 2.0), shape_b, latent_correlation, (), _rng(streams[-1])
            )
            delta = float(np.mean(a - b))
            required = float(pw.required_n(delta, np.std(a - b), alpha=alpha, power=power))
            payload = (shape_b, latent_correlation)
        limit = POWER_CURVE_MAX_ITEMS[kind]
        if not math.isfinite(required) or max(fractions) * required > limit:
            raise InputError(
                "{deltas:g}"
                + escape(
                    f": N* = {required:,.0f} items, so the curve would simulate up to "
                    f"{max(fractions) * required:,.0f} items per trial; at most {limit:,} "
                    f"for {kind} scores: give a larger gap"
                ),
                param="deltas",
                deltas=asked,
            )
        sizes = [max(2, round(f * required)) for f in fractions]
        if kind == "graded":  # a graded trial holds its items, and each resample its means
            check_batch(trials, max(sizes), "{deltas}: {n_trials!n} x items", deltas=asked)
        meta.append((delta, required, sizes))
        for n in sizes:
            chunks.append((*payload, n, trials, boot, alpha, streams[k]))
            k += 1
    point = _binary_point if kind == "binary" else _graded_point
    results = run_chunks(point, chunks, jobs, progress)
    curves = []
    for i, (delta, required, sizes) in enumerate(meta):
        rates = results[i * len(sizes) : (i + 1) * len(sizes)]
        curves.append(
            {
                "delta": delta,
                "required_n": pw.round_up(required),
                "n": sizes,
                "power": rates,
                "power_se": [_se(r, trials) for r in rates],
                "crossing": _crossing(sizes, rates, power),
            }
        )
    return PowerCurveResult(kind, float(alpha), float(power), trials, boot, tuple(curves))


POWER_CURVE_MAX_ITEMS = {"binary": 10**9, "graded": 20_000}  # graded trials hold every item


def _check_curve_deltas(kind: str, deltas: Sequence[float], accuracy_a: float) -> None:
    """Refuse gaps without an N* (zero, NaN, inf) or outside the marginals' range."""
    if not len(deltas):
        raise InputError("give at least one gap in {deltas}", param="deltas")
    low, high = (accuracy_a - 1, accuracy_a) if kind == "binary" else (-1 / 3, 2 / 3)
    for delta in deltas:
        if not math.isfinite(delta) or delta == 0:
            raise InputError(
                "{deltas} must be a finite, non-zero gap (a zero gap has no N* to trace); "
                "got {value!r}",
                param="deltas",
                value=delta,
            )
        if not low < delta < high:
            what = (
                f"model B's accuracy {accuracy_a:g} - delta must lie in (0, 1)"
                if kind == "binary"
                else "model B's Beta mean 2/3 - delta must lie in (0, 1)"
            )
            raise InputError("{deltas:g}: " + escape(what), param="deltas", deltas=delta)


def _crossing(sizes: Sequence[float], rates: Sequence[float], target: float) -> float | None:
    """The n at which the curve reaches the target, by linear interpolation (None if never).

    A curve already at the target at its smallest n reached it there (or before): that n,
    not "never".
    """
    if len(sizes) and rates[0] >= target:
        return float(sizes[0])
    for k in range(len(sizes) - 1):
        (n0, n1), (r0, r1) = sizes[k : k + 2], rates[k : k + 2]
        if r0 < target <= r1:
            return float(n0 + (target - r0) * (n1 - n0) / (r1 - r0))
    return None


# --- sequential (Appendix C) -------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class SequentialResult(Study, Result):
    """The mixture e-process under H0 and H1 calibrated to one pair (Appendix C, Figure 4).

    Attributes
    ----------
    alpha : float
        Level of the e-process.
    mixture : str
        ``"grid"`` or ``"beta"``.
    n_trials, horizon, required_n : int
        Trials per hypothesis, items followed, the pair's N*.
    discordance, theta : float
        The pair's discordant share and the share of discordant items favouring A.
    type1, rejection_rate : float
        Rejection rates under H0 and H1.
    stopping_ratio_median, stopping_ratio_mean : float or None
        Stopping item under H1 relative to N*.
    trajectories : dict
        Sample log e-value paths, for the figure.
    """

    _headline = ("required_n", "type1", "rejection_rate")
    simulation: ClassVar[str] = "sequential"  # which study: the renderers dispatch on it

    alpha: float
    mixture: str
    n_trials: int
    horizon: int
    required_n: int
    discordance: float
    theta: float
    type1: float
    rejection_rate: float
    stopping_ratio_median: float | None
    stopping_ratio_mean: float | None
    trajectories: dict[str, dict[str, list[float]]]

    def to_dict(self) -> dict:
        """Return the study as plain data."""
        out = dict(self.__dict__)
        out["type1_se"] = _se(self.type1, self.n_trials)
        out["rejection_rate_se"] = _se(self.rejection_rate, self.n_trials)
        return out


    def _figure(self) -> Figure:
        from evalgap.report.plots import sequential_figure

        return sequential_figure(self)


SEQUENTIAL_MAX_HORIZON = 1_000_000  # items a trial may follow (the boundary table grows with it)
SEQUENTIAL_STEP_BLOCK = 4096  # discordant items drawn at a time: bounds memory per chunk
TRAJECTORY_POINTS = 300  # points kept per sample trajectory


def _sequential_chunk(
    psi: float,
    theta: float,
    horizon: int,
    table: np.ndarray,
    trials: int,
    stream: np.random.SeedSequence,
    keep: int,
) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Simulate trials; return (crossed, stopping items, a few trajectories).

    Items arrive in blocks of discordant items, drawn step-major from two streams (gaps between
    discordant items, and their signs), so the draws and the results do not depend on the
    block size; memory is bounded by the block. A trial stops at its first crossing
    ``|b - c| >= D(n)`` or when its next discordant item lies beyond the horizon.
    """
    gap_stream, sign_stream = stream.spawn(2)
    gap_rng, sign_rng = _rng(gap_stream), _rng(sign_stream)
    position = np.zeros(trials, dtype=np.int64)
    excess = np.zeros(trials, dtype=np.int64)  # b - c so far
    active = np.ones(trials, dtype=bool)
    crossed = np.zeros(trials, dtype=bool)
    stop = np.full(trials, np.nan)
    kept: list[tuple[list[np.ndarray], list[np.ndarray]]] = [
        ([], []) for _ in range(min(keep, trials))
    ]
    done = 0
    while active.any():
        block = SEQUENTIAL_STEP_BLOCK
        steps = done + np.arange(1, block + 1)
        gaps = gap_rng.geometric(psi, size=(block, trials))
        signs = np.where(sign_rng.random((block, trials)) < theta, 1, -1)
        positions = position + np.cumsum(gaps, axis=0)
        walk = excess + np.cumsum(signs, axis=0)
        bound = sequential.excess_boundary(steps, table)[:, None]
        inside = (positions <= horizon) & active
        hit = (np.abs(walk) >= bound) & inside
        first = np.argmax(hit, axis=0)
        new = hit.any(axis=0)
        stop[new] = positions[first[new], np.flatnonzero(new)]
        crossed |= new
        for i, (pos_list, walk_list) in enumerate(kept):
            if active[i]:
                last = first[i] + 1 if new[i] else int(inside[:, i].sum())
                pos_list.append(positions[:last, i].copy())  # a copy: not the whole block
                walk_list.append(walk[:last, i].copy())
        active &= ~new & inside[-1]
        position, excess = positions[-1], walk[-1]
        done += block
    paths = []
    for pos_list, walk_list in kept:
        pos = np.concatenate(pos_list) if pos_list else np.zeros(0, dtype=np.int64)
        d = np.concatenate(walk_list) if walk_list else np.zeros(0, dtype=np.int64)
        n = np.arange(1, d.size + 1)
        # about 300 points per trajectory: the e-values of every step would need
        # (steps x mixture grid) memory
        step = max(1, pos.size // TRAJECTORY_POINTS)
        pos, d, n = pos[::step], d[::step], n[::step]
        paths.append((pos, np.asarray(sequential.log_e_value((n + d) / 2, (n - d) / 2))))
    return crossed, stop, paths


def sequential_study(
    pair_counts: tuple[int, int, int, int],
    *,
    n_trials: int = 600,
    alpha: float = 0.05,
    power: float = 0.8,
    horizon_factor: float = 5.0,
    mixture: Literal["grid", "beta"] = "grid",
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> SequentialResult:
    """Run the e-process under H0 (discordance kept, signs fair) and H1 (the pair's signs).

    Items arrive one by one up to ``horizon_factor * N*``; a trial rejects at the first
    discordant item where ``e_n >= 1/alpha``, i.e. ``|b - c| >= D(n)``, the integer boundary of
    :func:`evalgap.stats.sequential.excess_boundary` (the mixture is symmetric in theta).
    Reports the H0 rejection (Type-I) rate, the H1 rejection rate, and the H1 stopping item
    relative to N*. The horizon is at most ``SEQUENTIAL_MAX_HORIZON`` items: a near-tie pair
    (N* of hundreds of millions of items) is refused with the numbers, not simulated.

    Parameters
    ----------
    pair_counts : tuple of int
        ``(both_correct, a_only, b_only, both_wrong)`` of the pair the study is calibrated to.
    n_trials : int
        Trials under H0 and under H1.
    alpha, power : float
        Level of the e-process; the power N* is planned for.
    horizon_factor : float
        The horizon as a multiple of N*.
    mixture : {"grid", "beta"}
        The e-process mixture (*Resolution Diagnostics* Appendix C).
    seed, jobs, progress
        As in :func:`calibration`.

    Returns
    -------
    SequentialResult
        Type-I rate, rejection rate, stopping time relative to N* and sample trajectories.

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.sequential((7986, 295, 249, 1512), n_trials=20)
    >>> r.required_n, r.n_trials
    (20256, 20)
    """
    _validate.levels(alpha, power)
    if (
        isinstance(horizon_factor, bool)
        or not (isinstance(horizon_factor, (int, float)) and math.isfinite(horizon_factor))
        or horizon_factor < 1
    ):
        raise InputError(
            "{horizon_factor} must be a finite multiple of N* >= 1; got {value!r}",
            param="horizon_factor",
            value=horizon_factor,
        )
    if mixture not in sequential.MIXTURES:
        raise InputError(
            "{mixture} must be one of "
            + escape(f"{', '.join(sequential.MIXTURES)}; got {mixture!r}"),
            param="mixture",
        )
    n_trials = study_count(n_trials, "n_trials")
    s = summarize_counts(*_pair_counts(pair_counts, "pair_counts"))
    n = float(s.n_items)
    psi = float((s.a_only + s.b_only) / n)
    if psi <= 0 or s.a_only == s.b_only:
        raise InputError("the sequential study needs a pair with discordant items and a gap")
    theta = float(s.a_only / (s.a_only + s.b_only))
    required = float(pw.required_n(s.delta, s.sd_diff, alpha=alpha, power=power))
    if not math.isfinite(required) or horizon_factor * required > SEQUENTIAL_MAX_HORIZON:
        raise InputError(
            "{horizon_factor:g}"
            + escape(
                f" x N* = {horizon_factor * required:,.0f} items per trial (N* = "
                f"{required:,.0f}); the sequential study follows at most "
                f"{SEQUENTIAL_MAX_HORIZON:,}: lower "
            )
            + "{horizon_factor!n}, or study a pair with a larger gap",
            param="horizon_factor",
            horizon_factor=horizon_factor,
        )
    horizon = math.ceil(horizon_factor * required)
    # a trial under H0 walks its discordant items up to the horizon: bound the draws
    check_batch(n_trials, math.ceil(horizon * psi), "{n_trials} x discordant items to the horizon")
    table = sequential.excess_table(horizon, alpha, mixture=mixture)
    chunk = 100
    sizes = [min(chunk, n_trials - i) for i in range(0, n_trials, chunk)]
    streams = _streams(seed, 2 * len(sizes))
    jobs_list = [
        (psi, th, horizon, table, m, streams[2 * j + h], 3 if j == 0 else 0)
        for h, th in enumerate((0.5, theta))
        for j, m in enumerate(sizes)
    ]
    results = run_chunks(_sequential_chunk, jobs_list, jobs, progress)
    half = len(sizes)
    null = np.concatenate([r[0] for r in results[:half]])
    alt = np.concatenate([r[0] for r in results[half:]])
    stops = np.concatenate([r[1] for r in results[half:]])
    ratios = stops[np.isfinite(stops)] / required
    trajectories = {}
    for name, r in (("H0", results[0]), ("H1", results[half])):
        for i, (pos, log_e) in enumerate(r[2]):
            step = max(1, pos.size // TRAJECTORY_POINTS)
            trajectories[f"{name} trial {i + 1}"] = {
                "items": pos[::step].tolist(),
                "log_e": log_e[::step].tolist(),
            }
    required_n = pw.round_up(required)
    assert required_n is not None  # required is finite (checked above)
    return SequentialResult(
        alpha=float(alpha),
        mixture=mixture,
        n_trials=n_trials,
        horizon=horizon,
        required_n=required_n,
        discordance=psi,
        theta=theta,
        type1=float(null.mean()),
        rejection_rate=float(alt.mean()),
        stopping_ratio_median=float(np.median(ratios)) if ratios.size else None,
        stopping_ratio_mean=float(np.mean(ratios)) if ratios.size else None,
        trajectories=trajectories,
    )


# --- aggregation across tasks (Degradation paper, Appendix C.2, Figure 3) -----------------------

AGGREGATION_SCENARIOS = {"null": (0.5, 0.5), "balanced": (0.52, 0.52), "single_task": (0.58, 0.5)}
AGGREGATION_TESTS = ("pooled", "max_drop", "fisher", "any")
# Small graded tasks under the null: the permutation tests (Algorithms 5-7) that degrade runs on
# graded scores, with Algorithm 7 as printed beside them (its scale is not sign-invariant).
SMALL_TASKS_SCENARIO = "null_small_tasks"
SMALL_TASK_ITEMS = (20, 50)
SMALL_TASK_TESTS = ("pooled", "max_drop", "fisher", "any", "max_drop_as_printed")
SMALL_TASK_BLOCK = 25  # experiments per random stream: bounds memory, fixes the numbers


@dataclass(frozen=True, repr=False)
class AggregationResult(Study, Result):
    """Rejection rates of the degradation aggregates against the number of tasks (Figure 3).

    Attributes
    ----------
    alpha, flip_rate : float
        Level of each test; share of items that flip.
    n_trials : int
        Experiments per scenario and task count.
    task_counts : tuple of int
        The task counts T.
    rates : dict
        Scenario -> test -> rejection rate per T (``to_frame()`` adds the SEs).
    n_permutations : int or None
        Sign flips per permutation test in the small-task scenario.
    """

    _headline = ("alpha", "n_trials", "flip_rate")
    simulation: ClassVar[str] = "aggregation"  # which study: the renderers dispatch on it

    alpha: float
    n_trials: int
    flip_rate: float
    task_counts: tuple[int, ...]
    rates: dict[str, dict[str, list[float]]]  # scenario -> test -> list over task counts
    n_permutations: int | None = None

    def to_frame(self) -> pd.DataFrame:
        """Return one row per scenario, test and task count: the rejection rate and its SE."""
        import pandas as pd

        rows = []
        for scenario, by_test in self.rates.items():
            for test, rates in by_test.items():
                for t, rate in zip(self.task_counts, rates, strict=True):
                    rows.append(
                        {
                            "scenario": scenario,
                            "test": test,
                            "tasks": t,
                            "rate": rate,
                            "se": _se(rate, self.n_trials),
                        }
                    )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """Return the study as plain data."""
        return {
            "alpha": self.alpha,
            "n_trials": self.n_trials,
            "flip_rate": self.flip_rate,
            "task_counts": list(self.task_counts),
            "n_permutations": self.n_permutations,
            "small_task_items": list(SMALL_TASK_ITEMS),
            "rejection_rates": self.rates,
            "standard_errors": {
                s: {t: [_se(x, self.n_trials) for x in v] for t, v in tests_.items()}
                for s, tests_ in self.rates.items()
            },
        }


    def _figure(self) -> Figure:
        from evalgap.report.plots import aggregation_figure

        return aggregation_figure(self)


def _aggregation_chunk(
    first_q: float,
    other_q: float,
    n_tasks: int,
    experiments: int,
    flip_rate: float,
    alpha: float,
    stream: np.random.SeedSequence,
) -> dict[str, float]:
    rng = _rng(stream)
    sizes = rng.integers(500, 10_001, size=(experiments, n_tasks))
    flips = rng.binomial(sizes, flip_rate)
    q = np.full(n_tasks, other_q)
    q[0] = first_q
    b = rng.binomial(flips, q)
    c = flips - b
    pooled = tests.mcnemar_exact(b.sum(axis=1), c.sum(axis=1), alternative="greater")
    max_drop = aggregation.max_drop_p_value(b, c)
    fisher, _ = aggregation.fisher_over_tasks(b, c)
    reject = {
        "pooled": pooled <= alpha,
        "max_drop": np.asarray(max_drop) <= alpha,
        "fisher": np.asarray(fisher) <= alpha,
    }
    reject["any"] = reject["pooled"] | reject["max_drop"] | reject["fisher"]
    return {k: float(np.mean(v)) for k, v in reject.items()}


def _small_tasks_chunk(
    n_tasks: int,
    experiments: int,
    n_permutations: int,
    alpha: float,
    stream: np.random.SeedSequence,
) -> dict[str, float]:
    """Null rejection rates of the permutation aggregates on small graded tasks.

    Each item is concordant (both models score alike, D = 0) with probability 1/2, else both
    models draw independent Beta(4, 2) scores, so D is symmetric about 0 with ties at 0, as
    graded metrics have; task t has N_t ~ U(20, 50) items (zeros pad the rest).
    """
    low, high = SMALL_TASK_ITEMS
    starts = range(0, experiments, SMALL_TASK_BLOCK)
    rejected = {name: 0 for name in SMALL_TASK_TESTS}
    for start, block_stream in zip(starts, stream.spawn(len(starts)), strict=True):
        rng = _rng(block_stream)
        size = min(SMALL_TASK_BLOCK, experiments - start)
        n_items = rng.integers(low, high + 1, size=(size, n_tasks))
        shape = (size, n_tasks, high)
        differ = rng.random(shape) < 0.5
        d = np.where(differ, rng.beta(4.0, 2.0, shape) - rng.beta(4.0, 2.0, shape), 0.0)
        d = np.where(np.arange(high) < n_items[..., None], d, 0.0)
        draws = aggregation.sign_flip_draws(d, n_permutations, rng)
        sums, squares = d.sum(axis=-1), (d * d).sum(axis=-1)
        pooled, per_task, max_drop = aggregation.permutation_p_values(draws, sums, squares, n_items)
        _, _, printed = aggregation.permutation_p_values(
            draws, sums, squares, n_items, sign_invariant=False
        )
        fisher = aggregation.fisher_over_informative(per_task, squares > 0)
        reject = {
            "pooled": pooled <= alpha,
            "max_drop": max_drop <= alpha,
            "fisher": fisher <= alpha,
            "max_drop_as_printed": printed <= alpha,
        }
        reject["any"] = reject["pooled"] | reject["max_drop"] | reject["fisher"]
        for name in SMALL_TASK_TESTS:
            rejected[name] += int(np.count_nonzero(reject[name]))
    return {name: rejected[name] / experiments for name in SMALL_TASK_TESTS}


@renamed_keywords(n_experiments="n_trials")
def aggregation_study(
    *,
    task_counts: Sequence[int] = tuple(range(1, 21)),
    n_trials: int = 1000,
    flip_rate: float = 0.1,
    alpha: float = 0.05,
    n_permutations: int = 99,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> AggregationResult:
    """Run the aggregation study: N_i ~ U(500, 10000) items per task, flip rate 0.1,
    degradation probability q = 1/2 (null), 0.52 on every task, or 0.58 on the first only;
    and the permutation tests under the null on small graded tasks (N_t ~ U(20, 50), each
    experiment with ``n_permutations`` sign flips), where Algorithm 7 as printed exceeds alpha
    and the sign-invariant max-drop does not (*When LLMs get significantly worse*, Figure 3).

    Parameters
    ----------
    task_counts : sequence of int
        Numbers of tasks T.
    n_trials : int
        Simulated experiments per scenario and T.
    flip_rate : float
        Share of items that flip.
    alpha : float
        Level of each test.
    n_permutations : int
        Sign flips per permutation test (small-task scenario).
    seed, jobs, progress
        As in :func:`calibration`.

    Returns
    -------
    AggregationResult
        Rejection rates (and SEs) per scenario, test and T (``to_frame()``).

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.aggregation(task_counts=(1, 3), n_trials=50, n_permutations=19)
    >>> sorted(r.rates)
    ['balanced', 'null', 'null_small_tasks', 'single_task']
    """
    _validate.probability(alpha, "alpha")
    _validate.probability(flip_rate, "flip_rate")
    n_permutations = study_count(n_permutations, "n_permutations", 1, MAX_RESAMPLES)
    n_trials = study_count(n_trials, "n_trials")
    task_counts = study_grid(
        task_counts, "task_counts", lambda v: study_count(v, "task_counts", 1, 100)
    )
    # the small-task scenario holds experiments x sign flips x (up to 50) items at once
    check_batch(n_trials, (n_permutations + 1) * 50, "{n_trials} x {n_permutations}")
    chunks = []
    streams = _streams(seed, (len(AGGREGATION_SCENARIOS) + 1) * len(task_counts))
    k = 0
    for first_q, other_q in AGGREGATION_SCENARIOS.values():
        for t in task_counts:
            chunks.append((first_q, other_q, t, n_trials, flip_rate, alpha, streams[k]))
            k += 1
    small_chunks = [
        (t, n_trials, n_permutations, alpha, streams[k + i]) for i, t in enumerate(task_counts)
    ]
    total = len(chunks) + len(small_chunks)
    results = run_chunks(_aggregation_chunk, chunks, jobs, progress, total=total)
    small = run_chunks(
        _small_tasks_chunk, small_chunks, jobs, progress, done=len(chunks), total=total
    )
    rates, k = {}, 0
    for name in AGGREGATION_SCENARIOS:
        rows = results[k : k + len(task_counts)]
        k += len(task_counts)
        rates[name] = {test: [r[test] for r in rows] for test in AGGREGATION_TESTS}
    rates[SMALL_TASKS_SCENARIO] = {test: [r[test] for r in small] for test in SMALL_TASK_TESTS}
    return AggregationResult(
        float(alpha), n_trials, float(flip_rate), tuple(task_counts), rates, n_permutations
    )
