"""Simulation study: are the configuration components, their tests and the gap's interval
calibrated? (``simulate configurations``)

Each trial draws two models' scores on ``n_items`` items crossed with ``n_configurations``
configurations, ``n_runs`` runs per cell. Model M's probability of success on item i
under configuration c is

    p^M_ic = mu_M + a_i + u^M_i + b^M_c + (ab)^M_ic,

all effects independent, zero-mean and uniform (so every p stays inside (0, 1) and each
variance is known exactly): ``a_i`` shared by both models (half-width 0.2), ``u^M_i`` each
model's own item effect (0.08), ``b^M_c`` each model's own configuration shift (SD
``configuration_sd``: configurations shift the two models differently, so the gap moves with
the configuration) and ``(ab)^M_ic`` item x configuration (0.08); ``mu_A = 0.52``,
``mu_B = 0.48``. A score is a Bernoulli draw with probability ``p`` (binary) or a
Beta(``4 p``, ``4 (1 - p)``) draw (graded, mean ``p``). Model A's true components are then

    item = (0.2^2 + 0.08^2) / 3,  configuration = configuration_sd^2,
    item_configuration = 0.08^2 / 3,
    residual = E[p (1 - p)] = mu_A (1 - mu_A) - (item + configuration + item_configuration)

(the residual over 5 for graded scores: a Beta(4 p, 4 (1 - p)) score's variance is
``p (1 - p) / 5``). Per trial: model A's components and their intervals
(:func:`evalgap.stats.config_components.decompose_models`, all trials of a chunk at once),
the test of a configuration effect on A (size where ``configuration_sd = 0``, power
otherwise), the test of a model x configuration interaction on the gap, and the gap's mean
interval with the configurations random and fixed, both against the population gap
``mu_A - mu_B = 0.04``. Each figure is a share of trials, with its Monte Carlo SE
``sqrt(r (1 - r) / S)``. With ``missing`` a share of the runs is lost at random (the pair's
run of a cell together, the first run of every cell kept): the unbalanced design of
Henderson's method III and the approximate F tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample
from evalgap.stats.config_components import COMPONENTS, decompose_models

MEANS = (0.52, 0.48)  # mu_A, mu_B
ITEM_HALF_WIDTH = 0.2  # a_i, shared
MODEL_ITEM_HALF_WIDTH = 0.08  # u^M_i
INTERACTION_HALF_WIDTH = 0.08  # (ab)^M_ic
GRADED_CONCENTRATION = 4.0  # Beta(k p, k (1 - p))
# p stays in (0, 1) while mu_A + the half-widths <= 1
MAX_CONFIGURATION_SD = float(
    (1 - MEANS[0] - ITEM_HALF_WIDTH - MODEL_ITEM_HALF_WIDTH - INTERACTION_HALF_WIDTH) / np.sqrt(3)
)
KINDS = ("binary", "graded")
_CHUNK_NUMBERS = 1 << 21  # scores of one model per chunk of trials


def true_components(kind: str, configuration_sd: float) -> np.ndarray:
    """Model A's four components (in the order of ``COMPONENTS``) in the study's design."""
    item = (ITEM_HALF_WIDTH**2 + MODEL_ITEM_HALF_WIDTH**2) / 3
    interaction = INTERACTION_HALF_WIDTH**2 / 3
    configuration = configuration_sd**2
    residual = MEANS[0] * (1 - MEANS[0]) - (item + configuration + interaction)
    if kind == "graded":
        residual /= GRADED_CONCENTRATION + 1
    return np.array([item, configuration, interaction, residual])


@dataclass(frozen=True, repr=False)
class ConfigurationStudyResult(Study, Result):
    """Calibration of the configuration components, per kind of score and configuration SD.

    Attributes
    ----------
    rows : pandas.DataFrame
        Per kind and ``configuration_sd``: ``kind, n_items, n_configurations, n_runs,
        missing, configuration_sd``; ``configuration_rejection`` (the configuration-effect
        test on one model's scores: its size where ``configuration_sd`` is 0, its power
        otherwise) and
        ``model_configuration_rejection`` (the gap's test of a model x configuration
        interaction); ``coverage_item``, ``coverage_configuration``,
        ``coverage_item_configuration``, ``coverage_residual`` (each component's interval);
        ``gap_coverage_random`` and ``gap_coverage_fixed`` (the gap's interval with the
        configurations random or fixed, on the same draws); each with its Monte Carlo SE in
        the column of the same name ending ``_se``.
    alpha : float
        The tests' level; the intervals are at ``1 - alpha``.
    n_trials : int
        Trials per row.
    """

    rows: pd.DataFrame
    alpha: float
    n_trials: int
    _headline: ClassVar[tuple[str, ...]] = ("n_trials",)
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)

    def to_frame(self) -> pd.DataFrame:
        """Return the per-row table."""
        return self.rows.copy()

    @property
    def verdict(self) -> str:
        """The worst size, the least coverage of the components and of the random-configuration
        gap beside the fixed one."""
        rows = self.rows
        null = rows[rows["configuration_sd"] == 0]
        shifted = rows[rows["configuration_sd"] > 0]
        parts = []
        for name, test in (
            ("configuration_rejection", "configuration-effect test"),
            ("model_configuration_rejection", "model x configuration test"),
        ):
            if not len(null):
                break
            worst = null.loc[null[name].idxmax()]
            bound = self.alpha + 2 * worst[f"{name}_se"]
            held = "within" if worst[name] <= bound else "above"
            parts.append(
                f"{test}: size at most {worst[name]:.3f} ({held} alpha + 2 MC SE = {bound:.3f})"
            )
        coverage = rows[[f"coverage_{name}" for name in COMPONENTS]].to_numpy()
        parts.append(f"component intervals cover at least {coverage.min():.3f}")
        if len(shifted):
            parts.append(
                f"where configurations shift scores the gap's interval covers at least "
                f"{shifted['gap_coverage_random'].min():.3f} with configurations random, "
                f"{shifted['gap_coverage_fixed'].min():.3f} with them fixed"
            )
        return "; ".join(parts) + f" ({self.n_trials:,} trials per row)."


def _draw(
    rng: np.random.Generator, kind: str, configuration_sd: float, shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Both models' scores (trials, items, configurations, runs)."""
    trials, n_items, n_configurations, _ = shape
    shift = configuration_sd * np.sqrt(3)
    item = rng.uniform(-ITEM_HALF_WIDTH, ITEM_HALF_WIDTH, (trials, n_items, 1, 1))
    scores = []
    for mean in MEANS:
        p = (
            mean
            + item
            + rng.uniform(-MODEL_ITEM_HALF_WIDTH, MODEL_ITEM_HALF_WIDTH, (trials, n_items, 1, 1))
            + rng.uniform(-shift, shift, (trials, 1, n_configurations, 1))
            + rng.uniform(
                -INTERACTION_HALF_WIDTH,
                INTERACTION_HALF_WIDTH,
                (trials, n_items, n_configurations, 1),
            )
        )
        if kind == "binary":
            scores.append((rng.random(shape) < p).astype(float))
        else:
            k = GRADED_CONCENTRATION
            scores.append(rng.beta(k * p, k * (1 - p), size=shape))
    return scores[0], scores[1]


def _chunk(
    kind: str,
    configuration_sd: float,
    shape: tuple[int, int, int, int],
    alpha: float,
    missing: float,
    stream: np.random.SeedSequence,
) -> np.ndarray:
    """Counts over one chunk of trials: the two tests' rejections, the four components'
    coverage, the gap's coverage with configurations random and fixed."""
    rng = np.random.Generator(np.random.PCG64(stream))
    a, b = _draw(rng, kind, configuration_sd, shape)
    if missing:  # each run of a pair lost at random, the first run of every cell kept
        lost = rng.random(shape) < missing
        lost[..., 0] = False
        a[lost] = np.nan
        b[lost] = np.nan
    model = decompose_models(a, confidence=1 - alpha)
    gap = decompose_models(a - b, confidence=1 - alpha)
    truth = true_components(kind, configuration_sd)
    covered = (model.lower <= truth) & (truth <= model.upper)
    target = MEANS[0] - MEANS[1]
    return np.concatenate(
        [
            [(model.configuration_test[:, 3] < alpha).sum()],
            [(gap.configuration_test[:, 3] < alpha).sum()],
            covered.sum(axis=0),
            [((gap.mean_random[:, 3] <= target) & (target <= gap.mean_random[:, 4])).sum()],
            [((gap.mean_fixed[:, 3] <= target) & (target <= gap.mean_fixed[:, 4])).sum()],
        ]
    ).astype(float)


_FIGURES = (
    "configuration_rejection",
    "model_configuration_rejection",
    *(f"coverage_{name}" for name in COMPONENTS),
    "gap_coverage_random",
    "gap_coverage_fixed",
)


def configuration_study(
    *,
    kinds: Sequence[str] = KINDS,
    configuration_sds: Sequence[float] = (0.0, 0.02, 0.04),
    n_items: int = 200,
    n_configurations: int = 4,
    n_runs: int = 2,
    missing: float = 0.0,
    n_trials: int = 2000,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ConfigurationStudyResult:
    """Run the configuration study (see the module docstring).

    Parameters
    ----------
    kinds : sequence of {"binary", "graded"}
        Kinds of score to simulate.
    configuration_sds : sequence of float
        SDs of each model's configuration shifts (0: the tests' size; above: their power),
        at most ``MAX_CONFIGURATION_SD`` (0.069), where a probability would leave [0, 1].
    n_items, n_configurations, n_runs : int
        The crossed design of every trial (at least 2 items, 2 configurations, 2 runs:
        the residual needs replicates).
    missing : float
        The share of runs lost at random (both models' run of a cell together; the first
        run of every cell kept): an unbalanced design, fitted by Henderson's method III.
    n_trials : int
        Trials per kind and SD.
    alpha : float
        The tests' level; intervals at ``1 - alpha``.
    seed : int or None
        Seed of every stream.
    jobs : int
        Processes to spread the chunks of trials over; results do not depend on it.
    progress : callable, optional
        Called with (done, total) chunks.

    Returns
    -------
    ConfigurationStudyResult

    Examples
    --------
    >>> r = configuration_study(kinds=["binary"], configuration_sds=[0.0], n_items=50,
    ...                         n_trials=200)
    >>> r.rows[["kind", "configuration_sd"]].values.tolist()
    [['binary', 0.0]]
    >>> bool(r.rows["coverage_residual"].iloc[0] > 0.9)
    True
    """
    from evalgap.jobs.simulate import MAX_ITEMS, check_batch, run_chunks, study_count, study_grid

    alpha = float(_validate.probability(alpha, "alpha"))
    n_trials = study_count(n_trials, "n_trials")
    n_items = study_count(n_items, "n_items", 2, MAX_ITEMS)
    n_configurations = study_count(n_configurations, "n_configurations", 2, 1000)
    n_runs = study_count(n_runs, "n_runs", 2, 1000)
    missing = float(_validate.numbers(missing, "missing"))
    if not 0 <= missing < 1:
        raise InputError(
            "{missing!b} must be at least 0 and below 1 (a share of runs); got {missing!s}",
            param="missing",
            missing=missing,
        )
    cell = n_items * n_configurations * n_runs
    check_batch(n_items * n_configurations, n_runs, "{n_items} x {n_configurations} x {n_runs}")

    def kind_of(value: object) -> str:
        if value not in KINDS:
            raise InputError(
                "{kinds!b} must be 'binary' or 'graded'; got {value!r}", param="kinds", value=value
            )
        return str(value)

    def sd_of(value: object) -> float:
        sd = float(_validate.numbers(value, "configuration_sds"))
        if not 0 <= sd <= MAX_CONFIGURATION_SD:
            raise InputError(
                "{configuration_sds!b} must be between 0 and "
                f"{MAX_CONFIGURATION_SD:.3f} (a larger shift takes a probability out of [0, 1]); "
                f"got {sd:g}",
                param="configuration_sds",
            )
        return sd

    kinds = study_grid(kinds, "kinds", kind_of)
    sds = study_grid(configuration_sds, "configuration_sds", sd_of)
    per_chunk = max(1, _CHUNK_NUMBERS // cell)
    sizes = [min(per_chunk, n_trials - start) for start in range(0, n_trials, per_chunk)]
    settings = [(kind, sd) for kind in kinds for sd in sds]
    root = resample.child_seed(seed, "configuration_study")
    chunks = []
    for (kind, sd), setting_stream in zip(settings, root.spawn(len(settings)), strict=True):
        for size, stream in zip(sizes, setting_stream.spawn(len(sizes)), strict=True):
            chunks.append(
                (kind, sd, (size, n_items, n_configurations, n_runs), alpha, missing, stream)
            )
    counts = run_chunks(_chunk, chunks, jobs, progress)
    rows = []
    for s, (kind, sd) in enumerate(settings):
        total = np.sum(counts[s * len(sizes) : (s + 1) * len(sizes)], axis=0)
        row: dict[str, object] = {
            "kind": kind,
            "n_items": n_items,
            "n_configurations": n_configurations,
            "n_runs": n_runs,
            "missing": missing,
            "configuration_sd": sd,
        }
        for name, count in zip(_FIGURES, total, strict=True):
            rate = float(count / n_trials)
            row[name] = rate
            row[f"{name}_se"] = float(resample.monte_carlo_se(rate, n_trials))
        rows.append(row)
    return ConfigurationStudyResult(pd.DataFrame(rows), alpha, n_trials)
