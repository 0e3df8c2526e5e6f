"""evalgap simulate: the simulation studies behind every prescription."""

from __future__ import annotations

import functools
from typing import Any

import click

from evalgap.cli._command import group, renamed
from evalgap.cli._estimate_study import held_out_options
from evalgap.cli._load import score_keywords
from evalgap.cli._options import PROBABILITY, counts_options, loader_options, option
from evalgap.cli._studies import (
    RANK_SET_BOOTSTRAP,
    configuration_options,
    examples,
    run_study,
    simulation_options,
)


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
@simulate.command(epilog=examples("evalgap simulate calibration --plot calibration.png"))
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
@simulation_options
def calibration(**given: Any) -> None:
    """Type-I error and power of five paired tests on the (p, rho_z) grid (Table 2)."""
    from evalgap.jobs.simulate import calibration as study

    run_study(study, "calibration", **given)


@renamed(kept={"--trials": "--n-trials"})
@simulate.command(
    epilog=examples(
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
@simulation_options
def prospective(**given: Any) -> None:
    """Empirical McNemar power at 0.8 N*, N* and 1.2 N* of real pairs (Table 10)."""
    from evalgap.jobs.simulate import prospective as prospective_job

    source = score_keywords(given)
    run_study(prospective_job, "prospective", **source, **given)


@renamed(kept={"--trials": "--n-trials"})
@simulate.command(
    "power-curve", epilog=examples("evalgap simulate power-curve --kind graded --plot graded.svg")
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
@simulation_options
def power_curve(deltas: tuple[float, ...], **given: Any) -> None:
    """Bootstrap power against n, with N* marked (Figures 5-6)."""
    from evalgap.jobs.simulate import power_curve as study

    run_study(study, "power curve", deltas=deltas or (0.02, 0.04, 0.08), **given)


@renamed(
    kept={"--trials": "--n-trials"},
    refused={
        "--horizon": "--horizon is no longer read here: give --horizon-factor (a multiple of "
        "N*); --horizon counts items in the other studies",
    },
)
@simulate.command(
    epilog=examples(
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
@simulation_options
def sequential(both_correct: int, a_only: int, b_only: int, both_wrong: int, **given: Any) -> None:
    """The mixture e-process under H0 and H1, calibrated to a pair (Appendix C, Figure 4)."""
    from evalgap.jobs.simulate import sequential_study

    counts = (both_correct, a_only, b_only, both_wrong)
    run_study(functools.partial(sequential_study, counts), "sequential", **given)


@renamed(kept={"--experiments": "--n-trials"})
@simulate.command(epilog=examples("evalgap simulate aggregation --jobs 2 --json"))
@click.option("--max-tasks", type=click.IntRange(min=1, max=100), default=20, show_default=True)
@option("n_trials", default=1000, help="Trials (simulated experiments) per number of tasks.")
@click.option("--flip-rate", type=PROBABILITY, default=0.1, show_default=True)
@simulation_options
def aggregation(max_tasks: int, **given: Any) -> None:
    """Rejection rates of pooled, max-drop, Fisher and any-of-three against T (Figure 3)."""
    from evalgap.jobs.simulate import aggregation_study

    run_study(aggregation_study, "aggregation", task_counts=tuple(range(1, max_tasks + 1)), **given)


@renamed(kept={"--trials": "--n-trials", "--models": "--n-models"})
@simulate.command(
    epilog=examples(
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
@simulation_options(plot=False)
def monitoring(**given: Any) -> None:
    """Type-I error of stopping when `watch` says decided, looking after every item; with
    --scores, e-BH replayed on a real board in random item orders."""
    from evalgap.jobs.monitoring import monitoring_study

    source = {k: v for k, v in score_keywords(given).items() if v not in (None, False)}
    settings = {k: v for k, v in given.items() if v is not None}
    run_study(monitoring_study, "monitoring", **source, **settings)


@renamed(kept={"--simulations": "--n-trials"})
@simulate.command(
    "task-rank-coverage",
    epilog=examples("evalgap simulate task-rank-coverage --n-trials 100"),
)
@option("n_trials", default=200, help="Trials (simulated benchmarks) per configuration.")
@option("n_bootstrap", default=400, help=RANK_SET_BOOTSTRAP)
@simulation_options(plot=False)
def task_rank_coverage(**given: Any) -> None:
    """Coverage of rank sets over tasks when the tasks are drawn from a population."""
    from evalgap.jobs.task_rank_coverage import task_rank_coverage as study

    run_study(study, "task rank coverage", **given)


@renamed(kept={"--simulations": "--n-trials"})
@simulate.command(epilog=examples("evalgap simulate adaptive --n-trials 100"))
@option("n_trials", default=200, help="Trials (simulated pairs) per configuration.")
@click.option(
    "--horizon",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Items followed at most; the test looks after every one.",
)
@simulation_options(plot=False)
def adaptive(**given: Any) -> None:
    """Type-I error and items saved by adaptive item choice (`evalgap adaptive`)."""
    from evalgap.jobs.adaptive_study import adaptive_study

    run_study(adaptive_study, "adaptive", **given)


@renamed(kept={"--draws": "--n-trials", "--strata": "--n-strata", "--adaptive": "--adaptive-batch"})
@simulate.command(
    epilog=examples(
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
@simulation_options
def estimate(budgets: tuple[int, ...], held_out: tuple[str, ...], **given: Any) -> None:
    """Hold models of a board out and estimate their scores from few items (`estimate`)."""
    from evalgap.jobs.estimate_study import estimate_study

    source = score_keywords(given)
    if budgets:  # else the study's own default
        given["budgets"] = budgets
    run_study(estimate_study, "estimate study", held_out=held_out or None, **source, **given)


@simulate.command(
    epilog=examples(
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
@simulation_options(plot=False)
def gold(**given: Any) -> None:
    """Coverage of the gold-scale gap (`compare --gold-column`) on a judged board."""
    from evalgap.jobs.gold_study import gold_study

    source = score_keywords(given)
    run_study(gold_study, "gold study", **source, **given)


@renamed(kept={"--simulations": "--n-trials"})
@simulate.command("rank-coverage", epilog=examples("evalgap simulate rank-coverage --n-trials 100"))
@option("n_trials", default=200, help="Trials (simulated leaderboards) per configuration.")
@option("n_bootstrap", default=400, help=RANK_SET_BOOTSTRAP)
@simulation_options
def rank_coverage(**given: Any) -> None:
    """Simultaneous coverage of the true ranks by `evalgap ranks` (near-ties, many models)."""
    from evalgap.jobs.rank_coverage import rank_coverage as study

    run_study(study, "rank coverage", **given)


@simulate.command(
    epilog=examples(
        "evalgap simulate configurations --n-trials 4000",
        "evalgap simulate configurations --kind graded --configuration-sd 0 \\",
        "    --configuration-sd 0.03 --n-items 50 --n-configurations 8 --n-runs 3",
    )
)
@configuration_options
@option("n_trials", default=2000, help="Trials (simulated pairs of models) per row.")
@simulation_options(plot=False)
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
    run_study(configuration_study, "configuration study", **given)
