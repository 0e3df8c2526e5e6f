"""Readable terminal reports of ``compare`` and ``plan`` results, drawn with rich."""

from __future__ import annotations

import math

import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

from evalgap.audit import AuditResult
from evalgap.compare import CompareResult, format_p
from evalgap.degrade import DegradeResult, TrimResult
from evalgap.inspect_data import DataSummary
from evalgap.plan import PlanResult

TEST_NAMES = {
    "mcnemar": "McNemar chi-square",
    "mcnemar_cc": "McNemar, continuity-corrected",
    "exact": "exact conditional (binomial)",
    "mid_p": "mid-p",
    "paired_t": "paired t",
    "sign_flip": "sign-flip permutation",
    "bootstrap": "paired bootstrap (Definition 2)",
}


def render_compare(r: CompareResult, console: Console) -> None:
    """Print the comparison: the data, the tests, the intervals, the resolution diagnostics."""
    title = f"{r.model_a} vs {r.model_b}" if (r.model_a, r.model_b) != ("A", "B") else "A vs B"
    data = Table(title=f"compare: {title}", show_header=False, title_justify="left")
    data.add_column(style="bold")
    data.add_column(justify="right")
    data.add_row("items (N)", f"{r.n_items:,}")
    label = "accuracy" if r.binary else "mean score"
    data.add_row(f"{label} A / B", f"{r.accuracy_a:.4f} / {r.accuracy_b:.4f}")
    data.add_row("delta (A - B)", f"{r.delta:+.4f} ({100 * r.delta:+.2f} points)")
    if r.binary:
        data.add_row("both correct / both wrong", f"{r.both_correct:,} / {r.both_wrong:,}")
        data.add_row("only A correct / only B correct", f"{r.a_only:,} / {r.b_only:,}")
    else:
        data.add_row("A higher / B higher", f"{r.a_only:,} / {r.b_only:,}")
    data.add_row("correlation", "undefined" if r.correlation is None else f"{r.correlation:.3f}")
    data.add_row("sd of differences / se", f"{r.sd_diff:.4f} / {r.se:.5f}")
    console.print(data)

    side = {
        "two-sided": "two-sided",
        "greater": "one-sided, H1: A better",
        "less": "one-sided, H1: B better",
    }[r.alternative]
    t = Table(title=f"tests ({side}, alpha={r.alpha:g})", title_justify="left")
    t.add_column("test")
    t.add_column("p-value", justify="right")
    t.add_column("at alpha", justify="center")
    floor = r.bootstrap.p_floor if r.bootstrap else 0.0
    for key, p in r.p_values.to_dict().items():
        if p is None:
            continue
        text = format_p(p, floor if key == "bootstrap" else 0.0).removeprefix("p=")
        t.add_row(TEST_NAMES[key], text, "reject" if p <= r.alpha else "-")
    console.print(t)

    ci = Table(title="intervals for delta", title_justify="left")
    ci.add_column("method")
    ci.add_column("level", justify="right")
    ci.add_column("low", justify="right")
    ci.add_column("high", justify="right")
    for interval in r.intervals:
        ci.add_row(
            interval.method,
            f"{interval.level:.0%}",
            f"{interval.low:+.5f}",
            f"{interval.high:+.5f}",
        )
    console.print(ci)

    res = Table(
        title=f"resolution (alpha={r.alpha:g}, power {r.power:g})",
        show_header=False,
        title_justify="left",
    )
    res.add_column(style="bold")
    res.add_column(justify="right")
    res.add_row("required items N*", _n(r.required_n))
    if r.required_n_interval is not None:
        lo, hi = r.required_n_interval.low, r.required_n_interval.high
        res.add_row("N* 90% bootstrap interval", f"{_n(lo)} to {_n(hi)}")
    if r.required_n_discordant is not None:
        res.add_row("N* (Connor discordance form)", _n(r.required_n_discordant))
    if r.resolution_ratio is not None:
        res.add_row("resolution ratio q = N/N*", f"{r.resolution_ratio:.3g}")
    res.add_row("resolved (q >= 1)", "yes" if r.resolved else "no")
    if r.mde is not None:
        res.add_row("minimum detectable effect at N", f"{r.mde:.4f} ({100 * r.mde:.2f} points)")
    if r.unpaired_required_n is not None:
        res.add_row("unpaired (independent items) N", _n(r.unpaired_required_n))
    if r.paired_efficiency is not None:
        res.add_row("efficiency gained by pairing", f"{r.paired_efficiency:.2f}x")
    for s in r.sensitivity:
        res.add_row(
            f"at correlation {s.correlation:.3f}",
            f"N* {_n(s.required_n)}, {'resolved' if s.resolved else 'unresolved'}",
        )
    console.print(res)
    if r.alignment is not None:
        for message in r.alignment.messages():
            console.print(f"[yellow]note:[/] {message}")
    for note in r.notes:
        console.print(f"[yellow]note:[/] {note}")
    console.print()
    console.print(_capitalise(r.verdict) + ".")


def render_plan(r: PlanResult, console: Console) -> None:
    """Print the plan: inputs, N*, MDE and power at N, and the calculator conventions."""
    t = Table(
        title=f"plan (alpha={r.alpha:g}, power {r.power:g}, {r.alternative})",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right")
    if r.accuracy_a is not None:
        b = r.accuracy_b if r.accuracy_b is not None else r.accuracy_a
        t.add_row("accuracy A / B", f"{r.accuracy_a:.4f} / {b:.4f}")
        t.add_row("correlation", f"{r.correlation:.3f}")
        if r.correlation_bounds:
            t.add_row("admissible correlations", "[{:.3f}, {:.3f}]".format(*r.correlation_bounds))
    t.add_row("gap delta", f"{r.delta:+.4f}")
    t.add_row("sd of differences", f"{r.sd_diff:.4f}")
    t.add_row("required paired items N*", _n(r.required_n))
    if r.n_items is not None:
        t.add_row("items available N", f"{r.n_items:,}")
        t.add_row("resolution ratio q", f"{r.resolution_ratio:.3g}")
        t.add_row("power at N (exact, footnote 1)", f"{r.power_at_n:.3f}")
        t.add_row("minimum detectable effect at N", f"{r.mde:.4f}")
    if r.unpaired_required_n is not None:
        t.add_row("unpaired N per model (contrast)", _n(r.unpaired_required_n))
        t.add_row("efficiency gained by pairing", f"{r.paired_efficiency:.2f}x")
    console.print(t)
    if r.conventions is not None:
        c = Table(title="what common calculators say (Table 1)", title_justify="left")
        c.add_column("convention (tools that return it)")
        c.add_column("per arm", justify="right")
        c.add_column("x (1 - rho)", justify="right")
        c.add_row(
            "K/h^2, one-sample (R pwr.p.test)",
            _n(r.conventions.one_sample_per_arm),
            _n(r.conventions.one_sample_shortcut),
        )
        c.add_row(
            "2K/h^2, two-sample (R pwr.2p.test, statsmodels NormalIndPower)",
            _n(r.conventions.two_sample_per_arm),
            _n(r.conventions.two_sample_shortcut),
        )
        c.add_row("paired N* (Equation 6)", "-", _n(r.required_n))
        console.print(c)
        console.print(
            f"shortcut ratio n_h/N* = {r.shortcut_ratio:.4f}; Lemma 1 constant "
            f"C(p, rho) = {r.lemma_constant:.4f}; the ratio stays within 1/2 +/- 0.05 for "
            f"|delta| <= {r.shortcut_tolerance:.3f} (Corollary 1)."
        )
    console.print()
    console.print(_capitalise(r.verdict) + ".")


def render_data(d: DataSummary, console: Console) -> None:
    """Print what was read: models, tasks, items, metric notes and the alignment report."""
    console.print(f"[bold]read:[/] {d.source}")
    for note in d.notes:
        console.print(f"  {note}")
    m = Table(title=f"{len(d.models)} models", title_justify="left")
    m.add_column("model", overflow="fold")
    m.add_column("items", justify="right")
    m.add_column("mean (own items)", justify="right")
    m.add_column("kept", justify="right")
    m.add_column("runs", justify="right")
    for s in d.models:
        m.add_row(
            s.model,
            f"{s.items_scored:,}",
            f"{s.mean_score:.4f}",
            f"{s.items_kept:,}",
            str(s.max_runs),
        )
    console.print(m)
    t = Table(title=f"{len(d.tasks)} tasks", title_justify="left")
    t.add_column("task", overflow="fold")
    t.add_column("items", justify="right")
    t.add_column("kept for every model", justify="right")
    for task, items, kept in d.tasks:
        t.add_row(task, f"{items:,}", f"{kept:,}")
    console.print(t)
    kind = "binary (0/1)" if d.binary else "graded"
    clusters = f"; {d.clusters} clusters" if d.clusters is not None else ""
    console.print(f"scores: {kind}{clusters}")
    messages = d.alignment.messages()
    for message in messages:
        console.print(f"[yellow]note:[/] {message}")
    if not messages:
        console.print("every model has a usable score for every item; nothing was left out")


def render_audit(r: AuditResult, console: Console, *, max_rows: int = 40) -> None:
    """Print the audit: verdicts per procedure, tie groups, flips and the pairs at issue."""
    t = Table(
        title=f"audit: {len(r.pairs)} {r.family} pairs, family size m={r.family_size} "
        f"(Bonferroni N* x{r.bonferroni_inflation:.2f})",
        title_justify="left",
    )
    t.add_column("procedure")
    t.add_column("unresolved", justify="right")
    for proc, count in r.unresolved.items():
        t.add_row(proc, f"{count} / {len(r.pairs)}")
    console.print(t)
    sens = r.sensitivity
    console.print(
        f"correlation -/+ 0.1: {sens['correlation_minus_0.1']} / "
        f"{sens['correlation_plus_0.1']} unresolved (fixed n: {sens['correlation']})"
    )
    shown = r.pairs if len(r.pairs) <= max_rows else r.pairs[~r.pairs["resolved_fixed_n"]]
    p = Table(
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
        title="pairs"
        + (
            ""
            if shown is r.pairs
            else f" unresolved at fixed n "
            f"({len(shown)} of {len(r.pairs)}; --json or --html for all)"
        ),
        title_justify="left",
    )
    several_tasks = r.pairs["task"].nunique() > 1
    columns = (["task"] if several_tasks else []) + ["A", "B", "delta", "N*", "q"]
    for column in columns:
        text = column in ("task", "A", "B")
        p.add_column(
            column,
            justify="left" if text else "right",
            no_wrap=not text,
            overflow="fold" if text else "ellipsis",
            min_width=8 if text else None,
        )
    # Sidak's verdicts all but equal Bonferroni's; the full set is in --json and --html.
    shown_procedures = [proc for proc in r.procedures if proc != "sidak"]
    for proc in shown_procedures:
        p.add_column(_short(proc), justify="center", no_wrap=True)
    for row in shown.head(max_rows).itertuples():
        cells = ([str(row.task)] if several_tasks else []) + [
            str(row.model_a),
            str(row.model_b),
            f"{row.delta:+.4f}",
            _n(row.required_n),
            f"{row.resolution_ratio:.3g}",
        ]
        for proc in shown_procedures:
            value = getattr(row, f"resolved_{proc}")
            cells.append(
                "" if value is None or value is pd.NA else ("ok" if value else "[red]no[/]")
            )
        p.add_row(*cells)
    console.print(p)
    flips = r.flips()
    for row in flips.itertuples():
        console.print(
            f"[yellow]flips under clustering:[/] {row.model_a} vs {row.model_b} "
            f"({row.task}): N* {_n(row.required_n)} -> {_n(row.required_n_clustered)} "
            f"with design effect {row.design_effect:.2f}"
        )
    if r.cluster_stress is not None and r.cluster_stress.unresolved_distribution:
        dist = ", ".join(
            f"{k}: {v:.1%}" for k, v in r.cluster_stress.unresolved_distribution.items()
        )
        console.print(
            f"cluster bootstrap (B={r.cluster_stress.n_resamples}) unresolved counts: {dist}"
        )
        alt = ", ".join(f"{k} {v}" for k, v in r.cluster_stress.alternatives.items())
        console.print(f"alternative clusterings, unresolved: {alt}")
    for task, groups in r.tie_groups.items():
        tied = [g for g in groups if len(g) > 1]
        if tied:
            console.print(
                f"tie groups ({r.tie_procedure}, {task}): "
                + "; ".join("{" + ", ".join(g) + "}" for g in tied)
            )
    for note in r.notes:
        console.print(f"[yellow]note:[/] {note}")
    console.print()
    console.print(audit_sentence(r))


def audit_sentence(r: AuditResult) -> str:
    """One plain sentence summarising the audit."""
    n = len(r.pairs)
    extras = [
        f"{count} {proc.replace('_', '-')}"
        for proc, count in r.unresolved.items()
        if proc in ("bonferroni", "anytime_valid", "clustered")
    ]
    out = (
        f"{r.unresolved['fixed_n']} of {n} {r.family} pairs are unresolved at alpha="
        f"{r.alpha:g}, power {r.power:g} with a fixed n"
    )
    if extras:
        out += f" ({', '.join(extras)})"
    groups = [g for task_groups in r.tie_groups.values() for g in task_groups if len(g) > 1]
    if not groups:
        return out + "; no ties."
    where = f" across {len(r.tie_groups)} tasks" if len(r.tie_groups) > 1 else ""
    models = sum(len(g) for g in groups)
    return out + (
        f"; {len(groups)} tie group(s){where} hold {models} model"
        f"{'s' if models > 1 else ''} that cannot be told apart."
    )


def render_degrade(r: DegradeResult, console: Console) -> None:
    """Print per-task counts and tests, the three aggregates, the rules of thumb, the verdict."""
    t = Table(
        title=f"degrade: {r.candidate} against {r.baseline} ({r.method} tests)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for column in ("task", "items", "only base", "only cand", "flips", "degr. rate", "delta", "p"):
        t.add_column(
            column,
            justify="left" if column == "task" else "right",
            overflow="fold" if column == "task" else "ellipsis",
        )
    for task in (*r.tasks, r.total):
        t.add_row(
            task.task,
            _opt(task.n_items, "{:,}"),
            f"{task.a_only:,}",
            f"{task.b_only:,}",
            _opt(task.flip_rate, "{:.2%}"),
            _opt(task.degradation_rate, "{:.1%}"),
            _opt(None if task.delta is None else 100 * task.delta, "{:+.2f}pt"),
            "" if task.task == "all" else _degrade_p(task.p_value),
        )
    console.print(t)
    a = Table(title=f"aggregated over tasks (alpha={r.alpha:g})", title_justify="left")
    a.add_column("test")
    a.add_column("p-value", justify="right")
    a.add_column("at alpha", justify="center")
    for name, p in r.p_values.items():
        a.add_row(
            name.replace("_", "-"), _degrade_p(p), "[red]degraded[/]" if p <= r.alpha else "-"
        )
    if r.max_drop_monte_carlo is not None:
        a.add_row(
            f"max-drop, Monte Carlo (S={r.n_simulations:,})", _degrade_p(r.max_drop_monte_carlo), ""
        )
    if r.permutation is not None and r.method == "exact":
        for name in ("pooled", "max_drop", "fisher"):
            a.add_row(
                f"{name.replace('_', '-')}, permutation (m={r.permutation.n_permutations:,})",
                _degrade_p(getattr(r.permutation, name)),
                "",
            )
    console.print(a)
    rules = r.rules_of_thumb
    if rules["delta_over_2_points"] is not None:
        console.print(
            f"rules of thumb, for contrast: drop > 2 points "
            f"{'yes' if rules['delta_over_2_points'] else 'no'}; flip rate >= 5% "
            f"{'yes' if rules['flip_rate_at_least_5_percent'] else 'no'}"
        )
    for note in r.notes:
        console.print(f"[yellow]note:[/] {note}")
    console.print()
    console.print(r.verdict)


def render_trim(r: TrimResult, console: Console) -> None:
    """Print how many items flip across the baseline's runs, per task."""
    t = Table(title=f"trim: {r.model}, {r.runs} runs per item", title_justify="left")
    for column in ("task", "items", "never flip", "kept"):
        t.add_column(column, justify="left" if column == "task" else "right")
    for row in r.per_task.itertuples():
        t.add_row(str(row.task), f"{row.items:,}", f"{row.never_flip:,}", f"{row.kept:,}")
    console.print(t)
    total, kept = int(r.per_task["items"].sum()), int(r.per_task["kept"].sum())
    console.print(
        f"Kept {kept:,} of {total:,} items ({kept / total:.1%}); the other "
        f"{total - kept:,} never flipped across {r.runs} runs."
    )


def render_simulation(result, console: Console) -> None:
    """Print a simulation study in the layout of the paper's table or figure it reproduces."""
    from evalgap import simulate as sim

    if isinstance(result, sim.CalibrationResult):
        t = Table(
            title=f"calibration: n={result.n_items}, {result.n_trials} trials per cell "
            f"(Table 2 layout)",
            title_justify="left",
        )
        for column in ("test", "max |Type-I - alpha|", "power, median", "max |power - target|"):
            t.add_column(column, justify="left" if column == "test" else "right")
        for name, v in result.variants.items():
            t.add_row(
                name,
                f"{100 * v['type1_max_abs_dev']:.1f} pp",
                f"{v['power_median']:.2f}",
                f"{100 * v['power_max_dev']:.1f} pp",
            )
        console.print(t)
        se = 100 * math.sqrt(result.alpha * (1 - result.alpha) / result.n_trials)
        console.print(
            f"Monte Carlo SE: {se:.1f} pp on Type-I error, "
            f"{100 * math.sqrt(result.power * (1 - result.power) / result.n_trials):.1f}"
            f" pp on power, per cell."
        )
    elif isinstance(result, sim.ProspectiveResult):
        t = Table(
            title=f"prospective validation, {result.n_trials} trials (Table 10 layout)",
            title_justify="left",
        )
        for column in ("pair", "|delta|", "rho", "N*", *[f"{f:g} N*" for f in result.fractions]):
            t.add_column(column, justify="left" if column == "pair" else "right", overflow="fold")
        for pair in result.pairs:
            t.add_row(
                pair["pair"],
                f"{100 * pair['abs_delta']:.2f}pp",
                f"{pair['correlation']:.2f}",
                f"{pair['required_n']:,}",
                *[f"{p:.3f}" for p in pair["power"]],
            )
        console.print(t)
    elif isinstance(result, sim.PowerCurveResult):
        for curve in result.curves:
            crossing = (
                "never"
                if curve["crossing"] is None
                else f"{curve['crossing']:,.0f} ({curve['crossing'] / curve['required_n']:.2f} N*)"
            )
            console.print(
                f"delta {curve['delta']:.4g}: N* {curve['required_n']:,}; power "
                + ", ".join(
                    f"{p:.2f}@{n:,}" for n, p in zip(curve["n"], curve["power"], strict=True)
                )
                + f"; reaches {result.power:g} at n = {crossing}"
            )
    elif isinstance(result, sim.SequentialResult):
        r = result
        console.print(
            f"mixture e-process ({r.mixture}), {r.n_trials} trials per hypothesis, "
            f"up to {r.horizon:,} items (N* = {r.required_n:,})"
        )
        console.print(
            f"Type-I rate under H0: {r.type1:.3f} (alpha {r.alpha:g}); rejection "
            f"rate under H1: {r.rejection_rate:.3f}"
        )
        if r.stopping_ratio_median is not None:
            console.print(
                f"stopping time under H1: median {r.stopping_ratio_median:.2f} N*, "
                f"mean {r.stopping_ratio_mean:.2f} N*"
            )
    elif isinstance(result, sim.AggregationResult):
        shown = [t for t in (1, 2, 5, 10, 20) if t in result.task_counts]
        for scenario, rates in result.rates.items():
            t = Table(
                title=f"{scenario.replace('_', ' ')}: rejection rate by number of tasks",
                title_justify="left",
            )
            t.add_column("test")
            for n in shown:
                t.add_column(f"T={n}", justify="right")
            for test, values in rates.items():
                t.add_row(test, *[f"{values[result.task_counts.index(n)]:.3f}" for n in shown])
            console.print(t)


def _opt(value, pattern: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return pattern.format(value)


def _degrade_p(p) -> str:
    if p is None or not math.isfinite(p):
        return ""
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


def _short(procedure: str) -> str:
    names = {
        "fixed_n": "fix",
        "bonferroni": "bon",
        "sidak": "sid",
        "holm": "hol",
        "anytime_valid": "any",
        "clustered": "clu",
    }
    return names.get(procedure, procedure)


def _n(n) -> str:
    if n is None or (isinstance(n, float) and not math.isfinite(n)):
        return "infinite"
    return f"{math.ceil(n):,}"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
