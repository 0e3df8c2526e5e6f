"""evalgap simulate: the simulation studies behind every prescription."""

from __future__ import annotations

import functools

import click

from evalgap.cli._load import read_scores
from evalgap.cli._options import FIGURE_FILE, PROBABILITY, counts_options, loader_options, option
from evalgap.cli._render import emit, note, progress_bar
from evalgap.errors import InputError


def _simulation_options(func):
    options = [
        click.option(
            "--plot",
            "plot_path",
            type=FIGURE_FILE,
            help="Write the study's figure to this .png, .svg or .pdf file.",
        ),
        option("json", help="Print the results as JSON."),
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
    for decorate in options:
        func = decorate(func)
    return func


@click.group()
def simulate():
    """Simulation studies: calibrate every test and check every prescription.

    \b
    Examples:
      evalgap simulate calibration --plot calibration.png
      evalgap simulate prospective --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
          --pair gemma-7b_5shots Meta-Llama-3-8B_5shots
      evalgap simulate power-curve --kind graded --plot graded.svg
      evalgap simulate sequential --both-correct 618 --a-only 100 --b-only 78 --both-wrong 376
      evalgap simulate aggregation --jobs 2 --json
      evalgap simulate rank-coverage --simulations 100
      evalgap simulate monitoring --trials 500
    """


@simulate.command()
@click.option("--n-items", type=click.IntRange(min=10), default=500, show_default=True)
@option("trials", default=1500, help="Trials per grid cell and hypothesis.")
@option(
    "n_bootstrap",
    type=click.IntRange(min=10),
    default=1000,
    help="Bootstrap resamples per trial for the paired bootstrap test.",
)
@option("power")
@_simulation_options
def calibration(n_items, trials, n_bootstrap, power, alpha, seed, jobs, as_json, plot_path):
    """Type-I error and power of five paired tests on the (p, rho_z) grid (Table 2)."""
    from evalgap.jobs.simulate import calibration as run

    with progress_bar(as_json, "calibration") as tick:
        result = run(
            n_items=n_items,
            n_trials=trials,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            power=power,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "calibration_figure", as_json, plot_path)


@simulate.command()
@loader_options
@click.option(
    "--pair",
    "pairs",
    nargs=2,
    multiple=True,
    metavar="A B",
    help="Two models of --scores to subsample (repeatable).",
)
@option("trials", default=1000, help="Subsamples per pair and size.")
@option("power")
@_simulation_options
def prospective(pairs, trials, power, alpha, seed, jobs, as_json, plot_path, **loader):
    """Empirical McNemar power at 0.8 N*, N* and 1.2 N* of real pairs (Table 10)."""
    from evalgap.jobs.simulate import prospective as run
    from evalgap.jobs.simulate import prospective_counts

    if not pairs:
        raise InputError("name the pairs to validate with --pair MODEL_A MODEL_B (repeatable)")
    models = list(dict.fromkeys(m for pair in pairs for m in pair))
    _, score_set = read_scores(loader, models=models, quiet=as_json)
    counts = prospective_counts(score_set, pairs)
    with progress_bar(as_json, "prospective") as tick:
        result = run(
            counts, n_trials=trials, alpha=alpha, power=power, seed=seed, jobs=jobs, progress=tick
        )
    _finish_simulation(result, "prospective_figure", as_json, plot_path)


@simulate.command("power-curve")
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
@option("trials", show_default=False, help="Trials per point (default 500 binary, 200 graded).")
@option(
    "n_bootstrap",
    type=click.IntRange(min=10),
    show_default=False,
    help="Bootstrap resamples per trial (default 500 binary, 200 graded).",
)
@option("power")
@_simulation_options
def power_curve(kind, deltas, trials, n_bootstrap, power, alpha, seed, jobs, as_json, plot_path):
    """Bootstrap power against n, with N* marked (Figures 5-6)."""
    from evalgap.jobs.simulate import power_curve as run

    deltas = deltas or (0.02, 0.04, 0.08)
    with progress_bar(as_json, "power curve") as tick:
        result = run(
            kind=kind,
            deltas=deltas,
            n_trials=trials,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            power=power,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "power_curve_figure", as_json, plot_path)


@simulate.command()
@functools.partial(counts_options, required=True)
@option("trials", default=600, help="Trials under H0 and under H1.")
@click.option(
    "--horizon",
    type=click.FloatRange(min=1.0),
    default=5.0,
    show_default=True,
    help="Items to follow, as a multiple of N*.",
)
@option("mixture")
@option("power")
@_simulation_options
def sequential(
    both_correct,
    a_only,
    b_only,
    both_wrong,
    trials,
    horizon,
    mixture,
    power,
    alpha,
    seed,
    jobs,
    as_json,
    plot_path,
):
    """The mixture e-process under H0 and H1, calibrated to a pair (Appendix C, Figure 4)."""
    from evalgap.jobs.simulate import sequential_study

    with progress_bar(as_json, "sequential") as tick:
        result = sequential_study(
            (both_correct, a_only, b_only, both_wrong),
            n_trials=trials,
            alpha=alpha,
            power=power,
            horizon_factor=horizon,
            mixture=mixture,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "sequential_figure", as_json, plot_path)


@simulate.command()
@click.option("--max-tasks", type=click.IntRange(min=1, max=100), default=20, show_default=True)
@click.option("--experiments", type=click.IntRange(min=10), default=1000, show_default=True)
@click.option("--flip-rate", type=PROBABILITY, default=0.1, show_default=True)
@_simulation_options
def aggregation(max_tasks, experiments, flip_rate, alpha, seed, jobs, as_json, plot_path):
    """Rejection rates of pooled, max-drop, Fisher and any-of-three against T (Figure 3)."""
    from evalgap.jobs.simulate import aggregation_study

    with progress_bar(as_json, "aggregation") as tick:
        result = aggregation_study(
            task_counts=tuple(range(1, max_tasks + 1)),
            n_experiments=experiments,
            flip_rate=flip_rate,
            alpha=alpha,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "aggregation_figure", as_json, plot_path)


@simulate.command()
@option("trials", default=2000, help="Simulated evaluations per scenario.")
@click.option(
    "--horizon",
    type=click.IntRange(min=2),
    default=2000,
    show_default=True,
    help="Items followed; the rule looks after every one.",
)
@click.option(
    "--models",
    type=click.IntRange(min=3),
    default=6,
    show_default=True,
    help="Models of the e-BH family scenario.",
)
@_simulation_options
def monitoring(trials, horizon, models, alpha, seed, jobs, as_json, plot_path):
    """Type-I error of stopping when `watch` says decided, looking after every item."""
    from evalgap.jobs.monitoring import monitoring_study

    if plot_path:
        raise InputError("--plot: the monitoring study has no figure; its table says it all")
    if jobs != 1:
        raise InputError("--jobs: the monitoring study runs in one process; leave --jobs out")
    with progress_bar(as_json, "monitoring") as tick:
        result = monitoring_study(
            n_trials=trials,
            horizon=horizon,
            n_models=models,
            alpha=alpha,
            seed=seed,
            progress=tick,
        )
    emit(result, as_json, "simulate")


@simulate.command("rank-coverage")
@click.option(
    "--simulations",
    type=click.IntRange(min=10),
    default=200,
    show_default=True,
    help="Simulated leaderboards per configuration.",
)
@option("n_bootstrap", default=400, help="Bootstrap draws of each rank-set computation.")
@_simulation_options
def rank_coverage(simulations, n_bootstrap, alpha, seed, jobs, as_json, plot_path):
    """Simultaneous coverage of the true ranks by `evalgap ranks` (near-ties, many models)."""
    from evalgap.jobs.rank_coverage import rank_coverage as study

    with progress_bar(as_json, "rank coverage") as tick:
        result = study(
            n_simulations=simulations,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
            seed=seed,
            jobs=jobs,
            progress=tick,
        )
    _finish_simulation(result, "rank_coverage_figure", as_json, plot_path)


def _finish_simulation(result, figure: str, as_json: bool, plot_path) -> None:
    if plot_path:
        from evalgap.report import plots

        plots.save_figure(getattr(plots, figure)(result), plot_path)
    emit(result, as_json, "simulate")
    if plot_path and not as_json:
        note(f"figure written to {plot_path}")
