"""Terminal report and sentence of ``evalgap configurations`` (and of the configuration part of
compare and degrade): the components, the two tests, the mean's two intervals, the errored
samples per configuration."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console

from evalgap.report.sentences import mean_interval_text, score_or_points, se_text
from evalgap.report.terminal import print_table
from evalgap.report.text import (
    format_count,
    format_p,
    format_percent,
    format_statistic,
    markup,
    number,
)

COMPONENT_NAMES = {
    "item": "item",
    "configuration": "configuration",
    "item_configuration": "item x configuration",
    "residual": "residual (replicates)",
}
GAP_NAMES = {
    "item": "item",
    "configuration": "model x configuration",
    "item_configuration": "model x item x configuration",
    "residual": "residual (replicates)",
}


def render_configurations(r: Any, console: Console) -> None:
    """Print the components, the tests, the mean's intervals, the samples per configuration
    and the sentence."""
    c = r.components
    head = f"{r.models[0]} - {r.models[1]} (gap)" if r.pair else r.models[0]
    console.print(
        f"[bold]configurations:[/] {markup(head)}: {format_count(r.n_items)} items x "
        f"{r.n_configurations} configurations ({markup(', '.join(r.factors))}), "
        f"{format_count(c.n_observations)} scores{'' if c.balanced else ' (unbalanced)'}"
    )
    print_components(r, console)
    _print_means(r, console)
    _print_samples(r, console)
    left = []
    if r.items_left_out:
        left.append(f"{format_count(r.items_left_out)} items without a paired score left out")
    if r.configurations_left_out:
        left.append(
            "configurations without a paired score left out: "
            + ", ".join(r.configurations_left_out)
        )
    for line in left:
        console.print(f"[dim]{markup(line)}[/]")
    console.print(markup(r.verdict))


def print_components(r: Any, console: Console) -> None:
    """The components table and the two tests (``r``: anything with ``components``, ``pair``)."""
    c = r.components
    names = GAP_NAMES if r.pair else COMPONENT_NAMES
    level = f"{100 * c.confidence:g}%"
    frame = r.to_frame()
    rows = [
        [
            names[row.component],
            number(row.estimate),
            f"[{number(row.lower)}, {number(row.upper)}]",
            number(row.df, ".3g"),
            format_percent(row.share),
        ]
        for row in frame.itertuples()
    ]
    print_table(
        console,
        [
            ("component", "left"),
            ("variance", "right"),
            (f"{level} CI", "right"),
            ("df", "right"),
            ("share", "right"),
        ],
        rows,
        names=(0,),
        title="variance components" + (" of the gap" if r.pair else ""),
        title_justify="left",
    )
    tests = [
        (
            "model x configuration" if r.pair else "configuration effect",
            c.configuration_test,
        ),
        ("item x configuration", c.interaction_test),
    ]
    print_table(
        console,
        [("test", "left"), ("F", "right"), ("df", "right"), ("p", "right")],
        [
            [
                name,
                format_statistic(t.statistic),
                f"{number(t.df_numerator, '.4g')}, {number(t.df_denominator, '.4g')}",
                format_p(t.p_value, bare=True),
            ]
            for name, t in tests
        ],
        names=(0,),
        title="tests",
        title_justify="left",
    )


def _print_means(r: Any, console: Console) -> None:
    c = r.components
    level = f"{100 * c.confidence:g}%"
    print_table(
        console,
        [("configurations", "left"), ("mean", "right"), ("SE", "right"), (f"{level} CI", "right")],
        [
            [
                label,
                score_or_points(c.mean, r.pair),
                se_text(m.standard_error, r.pair),
                mean_interval_text(m, r.pair),
            ]
            for label, m in (
                ("random (configurations like these)", c.mean_random),
                ("fixed (these configurations only)", c.mean_fixed),
            )
        ],
        names=(0,),
        title="the mean " + ("gap" if r.pair else "score"),
        title_justify="left",
    )
    if not r.pair:
        return
    print_table(
        console,
        [("configuration", "left"), ("gap (A - B)", "right")],
        [
            [name, score_or_points(mean, True)]
            for name, mean in zip(r.configurations, r.configuration_means, strict=True)
        ],
        names=(0,),
        title="the gap per configuration",
        title_justify="left",
    )


def _print_samples(r: Any, console: Console) -> None:
    print_table(
        console,
        [
            ("model", "left"),
            ("configuration", "left"),
            ("mean", "right"),
            ("samples", "right"),
            ("errored", "right"),
            ("empty", "right"),
        ],
        [
            [
                s.model,
                s.configuration,
                number(s.mean_score, ".3f"),
                format_count(s.samples),
                format_count(s.errored),
                format_count(s.empty),
            ]
            for s in r.samples
        ],
        names=(0, 1),
        title="samples per configuration",
        title_justify="left",
    )
    t = r.error_test
    console.print(
        f"errored or empty samples vs configuration: {t.method}"
        + (f", {format_p(t.p_value)}" if math.isfinite(t.p_value) else "")
    )


def render_configuration_compare(r: Any, console: Console) -> None:
    """Print compare with its configuration part: today's paired report then the
    configuration block (fixed), or the gap over configurations like these (random)."""
    from evalgap.report.terminal import _capitalise, print_notes, render_compare

    part = r.configuration
    if r.estimate.scale != "configuration":
        render_compare(r, console)
        render_configuration_part(part, console)
        return
    level = f"{100 * r.ci.level:g}%"
    rows = [
        ["items x configurations", f"{format_count(r.n_items)} x {part.n_configurations}"],
        ["gap (A - B)", score_or_points(r.delta, True)],
        ["SE (configurations random)", se_text(r.se, True)],
        [f"{level} CI", mean_interval_text(part.components.mean_random, True)],
        ["t / df / p (its interval's test)", f"{format_statistic(r.estimate.parts['statistic'])} / "
         f"{number(r.estimate.df, '.3g')} / {format_p(r.p_value, bare=True)}"],
        ["items needed (N*)", format_count(r.required_n) if r.required_n else "more items cannot"],
    ]  # fmt: skip
    print_table(
        console,
        [("", "left"), ("", "right")],
        rows,
        names=(0,),
        title=f"{markup(r.model_a)} vs {markup(r.model_b)}, over configurations like these "
        f"({markup(', '.join(part.factors))})",
        title_justify="left",
    )
    print_components(part, console)
    _print_means(part, console)
    _print_samples(part, console)
    print_notes(console, r.notes)
    console.print(markup(_capitalise(r.verdict) + "."))
    console.print(markup(part.verdict))


def render_configuration_part(part: Any, console: Console) -> None:
    """The configuration part of a pair's result (degrade): components, tests, the mean gap
    and its sentence."""
    console.print()
    print_components(part, console)
    _print_means(part, console)
    console.print(markup(part.verdict))
