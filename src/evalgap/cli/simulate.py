"""evalgap simulate: the simulation studies behind every prescription."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, overload

import click

from evalgap.cli._command import group, renamed
from evalgap.cli._estimate_study import held_out_options
from evalgap.cli._load import score_keywords
from evalgap.cli._options import PROBABILITY, F, counts_options, loader_options, option
from evalgap.cli._render import emit, note, save_plot, working
from evalgap.jobs._pages import Views


@overload
def _simulation_options(func: F, *, plot: bool = True) -> F: ...
@overload
def _simulation_options(func: None = None, *, plot: bool = True) -> Callable[[F], F]: ...
def _simulation_options(func: F | None = None, *, plot: bool = True) -> F | Callable[[F], F]:
    """The options of every study: --json, --jobs, --seed, --alpha (and --plot, when the
    study has a figure)."""
    if func is None:

        def with_plot(f: F) -> F:
            return _simulation_options(f, plot=plot)

        return with_plot
    options: list[Callable[[F], F]] = [
        option("json"),
        click.option(
            "--jobs",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Processes to spread the trials over; results do not depend on it.",
        ),
        option("seed", help="Seed of every random stream."),
        option("alpha"),
    ]
    if plot:
        options.insert(0, option("plot"))
    for decorate in options:
        func = decorate(func)
    return func


# Why the studies' rank-set bootstrap is smaller than the ranks command's 1,000.
_RANK_SET_BOOTSTRAP = (
    "Bootstrap draws of each rank-set computation (fewer than ranks' 1,000: every trial of "
    "every configuration computes its own rank sets)."
)


def _examples(*lines: str) -> str:
    """An Examples block for a study's --help."""
    return "\n\b\nExamples:\n" + "".join(f"  {line}\n" for line in lines)


def _run(
    study: Callable[..., Views], title: str, json: bool, plot: str | None = None, **settings: Any
) -> None:
    """Run one study with a progress bar, then print it and draw its figure."""
    with working(json, title) as progress:
        result = study(progress=progress, **settings)
    if plot:
        save_plot(result, plot)
    emit(result, json)
    if plot and not json:
        note(f"figure written to {plot}")


@group()
def simulate() -> None:
    """Simulation studies: calibrate every test and check every prescription.

    \b
    Examples:
      evalgap simulate calibration --plot calibration.png
      evalgap simulate prospective --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
          --pair gemma-7b_5shots Meta-Llama-3-8B_5shots
      evalgap simulate power-curve --kind graded --plot graded.svg
      evalgap simulate sequential --both-correct 618 --a-only 100 --b-only 78 --both-wrong 376
      evalgap simulate aggregation --jobs 2 --json
      evalgap simulate rank-coverage --n-trials 100
      evalgap simulate monitoring --n-trials 500
      evalgap simulate estimate --scores examples/board.csv --budget 40 --budget 100
      evalgap simulate configurations --n-trials 4000
    """


@renamed(kept={"--trials": "--n-trials"})
@simulate.command(epilog=_examples("evalgap simulate calibration --plot calibration.png"))
@click.option("--n-items", type=click.IntRange(min=10), default=500, show_default=True)
@option("n_trials", default=1500, help="Trials per grid cell and hypothesis.")
@option(
    "n_bootstrap",
    type=click.IntRange(min=10),
    default=1000,
    help="Bootstrap resamples per trial for the paired bootstrap test (fewer than compare's "
    "10,000: every trial of every cell runs its own bootstrap).",
)
@option("power")
@_simulation_options
def calibration(**given: Any) -> None:
    """Type-I error and power of five paired tests on the (p, rho_z) grid (Table 2)."""
    from evalgap.jobs.simulate import calibration as study

    _run(study, "calibration", **given)


@renamed(kept={"--trials": "--n-trials"})
@simulate.command(
    epilog=_examples(
        "evalgap simulate prospective --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\",
        "    --pair gemma-7b_5shots Meta-Llama-3-8B_5shots",
    )
)
@loader_options
@click.option(
    "--pair",
    "pairs",
    nargs=2,
    multiple=True,
    metavar="A B",
    help="Two models of --scores to subsample (repeatable).",
)
@option("n_trials", default=1000, help="Trials (subsamples) per pair and size.")
@option("power")
@_simulation_options
def prospective(**given: Any) -> None:
    """Empirical McNemar power at 0.8 N*, N* and 1.2 N* of real pairs (Table 10)."""
    from evalgap.jobs.simulate import prospective as prospective_job

    source = score_keywords(given)
    _run(prospective_job, "prospective", **source, **given)


@renamed(kept={"--trials": "--n-trials"})
@simulate.command(
    "power-curve", epilog=_examples("evalgap simulate power-curve --kind graded --plot graded.svg")
)
@click.option(
    "--kind",
    type=click.Choice(["binary", "graded"]),
    default="binary",
    show_default=True,
    help="Latent-copula Bernoulli or Beta(4, 2) graded scores.",
)
@click.option(
    "--delta",
    "deltas",
    type=float,
    multiple=True,
    help="Gaps to trace (repeatable; default 0.02, 0.04, 0.08).",
)
@option("n_trials", show_default=False, help="Trials per point (default 500 binary, 200 graded).")
@option(
    "n_bootstrap",
    type=click.IntRange(min=10),
    show_default=False,
    help="Bootstrap resamples per trial (default 500 binary, 200 graded: fewer than "
    "compare's 10,000, as every trial of every point runs its own bootstrap).",
)
@option("power")
@_simulation_options
def power_curve(deltas: tuple[float, ...], **given: Any) -> None:
    """Bootstrap power against n, with N* marked (Figures 5-6)."""
    from evalgap.jobs.simulate import power_curve as study

    _run(study, "power curve", deltas=deltas or (0.02, 0.04, 0.08), **given)


@renamed(
    kept={"--trials": "--n-trials"},
    refused={
        "--horizon": "--horizon is no longer read here: give --horizon-factor (a multiple of "
        "N*); --horizon counts items in the other studies",
    },
)
@simulate.command(
    epilog=_examples(
        "evalgap simulate sequential --both-correct 618 --a-only 100 --b-only 78 \\",
        "    --both-wrong 376",
    )
)
@functools.partial(counts_options, required=True)
@option("n_trials", default=600, help="Trials under H0 and under H1.")
@click.option(
    "--horizon-factor",
    type=click.FloatRange(min=1.0),
    default=5.0,
    show_default=True,
    help="Items to follow, as a multiple of N*.",
)
@option("mixture")
@option("power")
@_simulation_options
def sequential(both_correct: int, a_only: int, b_only: int, both_wrong: int, **given: Any) -> None:
    """The mixture e-process under H0 and H1, calibrated to a pair (Appendix C, Figure 4)."""
    from evalgap.jobs.simulate import sequential_study

    counts = (both_correct, a_only, b_only, both_wrong)
    _run(functools.partial(sequential_study, counts), "sequential", **given)


@renamed(kept={"--experiments": "--n-trials"})
@simulate.command(epilog=_examples("evalgap simulate aggregation --jobs 2 --json"))
@click.option("--max-tasks", type=click.IntRange(min=1, max=100), default=20, show_default=True)
@option("n_trials", default=1000, help="Trials (simulated experiments) per number of tasks.")
@click.option("--flip-rate", type=PROBABILITY, default=0.1, show_default=True)
@_simulation_options
def aggregation(max_tasks: int, **given: Any) -> None:
    """Rejection rates of pooled, max-drop, Fisher and any-of-three against T (Figure 3)."""
    from evalgap.jobs.simulate import aggregation_study

    _run(aggregation_study, "aggregation", task_counts=tuple(range(1, max_tasks + 1)), **given)


@renamed(kept={"--trials": "--n-trials", "--models": "--n-models"})
@simulate.command(
    epilog=_examples(
        "evalgap simulate monitoring --n-trials 500",
        "evalgap simulate monitoring --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\",
        "    --n-trials 200",
    )
)
@loader_options(exclude=("model_columns",))  # --models is the old spelling of --n-models
@option(
    "n_trials",
    default=None,
    show_default=False,
    help="Trials per scenario (default 2,000); with --scores, item orders replayed (default 200).",
)
@click.option("--horizon", type=click.IntRange(min=2), help="Items followed, each a look "
              "(default 2,000; not with --scores).")  # fmt: skip
@click.option("--n-models", type=click.IntRange(min=3), help="Models of the e-BH family "
              "scenario (default 6; not with --scores).")  # fmt: skip
@click.option("--every", type=click.IntRange(min=1), help="With --scores: items between the "
              "replay's looks (default 100; the last look sees every item).")  # fmt: skip
@_simulation_options(plot=False)
def monitoring(**given: Any) -> None:
    """Type-I error of stopping when `watch` says decided, looking after every item; with
    --scores, e-BH replayed on a real board in random item orders."""
    from evalgap.jobs.monitoring import monitoring_study

    source = {k: v for k, v in score_keywords(given).items() if v not in (None, False)}
    settings = {k: v for k, v in given.items() if v is not None}
    _run(monitoring_study, "monitoring", **source, **settings)


@renamed(kept={"--simulations": "--n-trials"})
@simulate.command(
    "task-rank-coverage",
    epilog=_examples("evalgap simulate task-rank-coverage --n-trials 100"),
)
@option("n_trials", default=200, help="Trials (simulated benchmarks) per configuration.")
@option("n_bootstrap", default=400, help=_RANK_SET_BOOTSTRAP)
@_simulation_options(plot=False)
def task_rank_coverage(**given: Any) -> None:
    """Coverage of rank sets over tasks when the tasks are drawn from a population."""
    from evalgap.jobs.task_rank_coverage import task_rank_coverage as study

    _run(study, "task rank coverage", **given)


@renamed(kept={"--simulations": "--n-trials"})
@simulate.command(epilog=_examples("evalgap simulate adaptive --n-trials 100"))
@option("n_trials", default=200, help="Trials (simulated pairs) per configuration.")
@click.option(
    "--horizon",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Items followed at most; the test looks after every one.",
)
@_simulation_options(plot=False)
def adaptive(**given: Any) -> None:
    """Type-I error and items saved by adaptive item choice (`evalgap adaptive`)."""
    from evalgap.jobs.adaptive_study import adaptive_study

    _run(adaptive_study, "adaptive", **given)


@renamed(kept={"--draws": "--n-trials", "--strata": "--n-strata", "--adaptive": "--adaptive-batch"})
@simulate.command(
    epilog=_examples(
        "evalgap simulate estimate --scores examples/board.csv --budget 40 --budget 100",
        "evalgap simulate estimate --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\",
        "    --adaptive-batch 20 --jobs 2 --plot estimate.png",
        "evalgap simulate estimate --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\",
        "    --hold-out strongest --n-held-out 9 --budget 100 --n-trials 20",
    )
)
@loader_options
@click.option(
    "--budget",
    "budgets",
    type=click.IntRange(min=2),
    multiple=True,
    help="Items per sample (repeatable; default 50, 100, 200, 400, 800).",
)
@option(
    "n_trials",
    type=click.IntRange(min=1),
    default=5,
    help="Trials (item samples) per held-out model and budget.",
)
@held_out_options
@click.option(
    "--n-strata",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Strata of the stratified design, at most one per 4 items of the budget (10: the "
    "setting of the published study; plan --reference's own default is 6).",
)
@click.option(
    "--adaptive-batch",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="BATCH",
    help="Also choose items adaptively, BATCH at a time to the budget: drawn at random with "
    "known probabilities (estimate --next BATCH, weighted; the estimate_adaptive design) and "
    "the most informative at the current estimate (model-based).",
)
@click.option(
    "--target",
    type=click.FloatRange(min=0, min_open=True),
    default=0.02,
    show_default=True,
    help="The mean absolute error whose items the floors are said to need.",
)
@_simulation_options
def estimate(budgets: tuple[int, ...], held_out: tuple[str, ...], **given: Any) -> None:
    """Hold models of a board out and estimate their scores from few items (`estimate`)."""
    from evalgap.jobs.estimate_study import estimate_study

    source = score_keywords(given)
    if budgets:  # else the study's own default
        given["budgets"] = budgets
    _run(estimate_study, "estimate study", held_out=held_out or None, **source, **given)


@simulate.command(
    epilog=_examples(
        "evalgap simulate gold --scores examples/board.csv --n-pairs 5 --n-trials 200",
        "evalgap simulate gold --scores ../shared/data/alpaca_eval/alpaca_eval_long.csv.gz \\",
        "    --score-column win --task-column none",
    )
)
@loader_options
@click.option(
    "--n-pairs",
    type=click.IntRange(min=0),
    default=60,
    show_default=True,
    help="Random pairs beside the one built to flip.",
)
@option("n_trials", default=1000, help="Runs (labelled samples) per pair.")
@click.option(
    "--label-share",
    type=PROBABILITY,
    default=0.1,
    show_default=True,
    help="Share of a pair's items labelled per run (at least 3 items).",
)
@click.option(
    "--bias-low",
    type=float,
    default=-0.05,
    show_default=True,
    help="Lowest judge bias of a model (its gold is 1 with probability judge - bias).",
)
@click.option("--bias-high", type=float, default=0.10, show_default=True, help="Highest bias.")
@_simulation_options(plot=False)
def gold(**given: Any) -> None:
    """Coverage of the gold-scale gap (`compare --gold-column`) on a judged board."""
    from evalgap.jobs.gold_study import gold_study

    source = score_keywords(given)
    _run(gold_study, "gold study", **source, **given)


@renamed(kept={"--simulations": "--n-trials"})
@simulate.command(
    "rank-coverage", epilog=_examples("evalgap simulate rank-coverage --n-trials 100")
)
@option("n_trials", default=200, help="Trials (simulated leaderboards) per configuration.")
@option("n_bootstrap", default=400, help=_RANK_SET_BOOTSTRAP)
@_simulation_options
def rank_coverage(**given: Any) -> None:
    """Simultaneous coverage of the true ranks by `evalgap ranks` (near-ties, many models)."""
    from evalgap.jobs.rank_coverage import rank_coverage as study

    _run(study, "rank coverage", **given)


@simulate.command(
    epilog=_examples(
        "evalgap simulate configurations --n-trials 4000",
        "evalgap simulate configurations --kind graded --configuration-sd 0 \\",
        "    --configuration-sd 0.03 --n-items 50 --n-configurations 8 --n-runs 3",
    )
)
@click.option(
    "--kind",
    "kinds",
    type=click.Choice(["binary", "graded"]),
    multiple=True,
    help="Kinds of score (repeatable; default both).",
)
@click.option(
    "--configuration-sd",
    "configuration_sds",
    type=click.FloatRange(min=0),
    multiple=True,
    help="SD of each model's configuration shifts (repeatable; default 0, 0.02, 0.04; 0 "
    "measures the tests' size, above it their power; at most 0.069).",
)
@click.option("--n-items", type=click.IntRange(min=2), default=200, show_default=True)
@click.option("--n-configurations", type=click.IntRange(min=2), default=4, show_default=True)
@click.option(
    "--n-runs",
    type=click.IntRange(min=2),
    default=2,
    show_default=True,
    help="Runs (replicates) per item and configuration (at least 2: the residual needs them).",
)
@click.option(
    "--missing",
    type=click.FloatRange(min=0, max=1, max_open=True),
    default=0.0,
    show_default=True,
    help="Share of runs lost at random (the first run of every cell kept): an unbalanced design.",
)
@option("n_trials", default=2000, help="Trials (simulated pairs of models) per row.")
@_simulation_options(plot=False)
def configurations(
    kinds: tuple[str, ...], configuration_sds: tuple[float, ...], **given: Any
) -> None:
    """Size, power and coverage of the configuration components, tests and the gap's interval
    with configurations random beside fixed."""
    from evalgap.jobs.configuration_study import configuration_study

    if kinds:  # else the study's own defaults
        given["kinds"] = kinds
    if configuration_sds:
        given["configuration_sds"] = configuration_sds
    _run(configuration_study, "configuration study", **given)
