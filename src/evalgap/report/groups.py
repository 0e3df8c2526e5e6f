"""Terminal report of ``compare --by``: one row per group, then the pooled comparison."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from evalgap.report.text import clean, format_count, format_p, format_points, format_q, markup


def render_compare_groups(r: Any, console: Console) -> None:
    """Print the per-group table (gap, p, adjusted p, q) and the verdict sentence."""
    test = "exact" if r.pooled.binary else "paired t"
    table = Table(
        title=f"compare by {markup(r.by)}: {markup(r.model_a)} vs {markup(r.model_b)}",
        title_justify="left",
    )
    table.add_column(markup(r.by), no_wrap=True)
    for name in ("items", "delta (points)", f"p ({test})", f"p ({r.adjustment})", "q"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column(f"at alpha={r.alpha:g}", justify="center")
    for g in r.groups:
        q = g.result.resolution_ratio
        table.add_row(
            markup(g.group),
            format_count(g.result.n_items),
            format_points(g.result.delta),
            format_p(g.p_value, bare=True),
            format_p(g.p_adjusted, bare=True),
            format_q(q),
            "too few items" if g.result.too_few_items else ("reject" if g.significant else "-"),
        )
    p = r.pooled
    pooled_p = p.p_values.exact if p.binary else p.p_values.paired_t
    table.add_section()
    table.add_row(
        "pooled",
        format_count(p.n_items),
        format_points(p.delta),
        format_p(pooled_p, bare=True),
        "",
        format_q(p.resolution_ratio),
        "",
    )
    console.print(table)
    for note in r.notes:
        console.print(f"[yellow]note:[/] {markup(note)}")
    # the verdict opens with model A's name: kept as written ('gpt-x' is not 'Gpt-x')
    console.print(clean(r.verdict + "."), markup=False)
