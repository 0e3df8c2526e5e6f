"""Readable terminal reports of every job's result, drawn with rich.

Every user string (model, task, item and file names, notes that quote them) passes through
``text.markup`` before Rich sees it, and tables never split a name or a number: names that
do not fit are shortened with an ellipsis and listed in full below the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # structural types: the report layer never imports a job
    import pandas as pd
    from rich.console import JustifyMethod

from evalgap.report.sentences import (
    flip_claim,
    flip_rank_claim,
    flip_removal,
    judge_table,
    style_line,
    watch_adaptive_line,
)
from evalgap.report.text import (
    MAX_DISPLAY_NAME,
    OWN_ITEMS_MEAN,
    clean,
    display_name,
    format_count,
    format_gap,
    format_level,
    format_n,
    format_p,
    format_percent,
    format_points,
    format_q,
    format_score,
    gap_interval,
    is_long_name,
    markup,
    number,
    pairs_noun,
    plural,
    score_interval,
    shows_own_items_mean,
)

# Width used when the output is not a terminal (a pipe, a file, a CI log): wide enough that
# no line is wrapped, since whatever reads it (a log viewer, grep) wraps or scrolls itself.
UNBOUNDED_WIDTH = 10_000
# A name is never shortened below this many characters to make a table fit.
MIN_NAME_WIDTH = 16


def make_console(*, stderr: bool = False, width: int | None = None) -> Console:
    """Return the Console every command prints to.

    ``width`` (the ``--width`` option) wins; otherwise a terminal's own width is used, and
    output that is not a terminal is never wrapped. Emoji codes such as ``:smile:`` in a
    model name are printed as typed, and nothing is highlighted: Rich's highlighter would
    colour parts of user names, and its patterns take time quadratic in a long name.
    """
    if width is None and not Console(stderr=stderr).is_terminal:
        return Console(
            stderr=stderr, width=UNBOUNDED_WIDTH, emoji=False, soft_wrap=True, highlight=False
        )
    return Console(stderr=stderr, width=width, emoji=False, highlight=False)


def print_notes(
    console: Console, notes: Iterable[str], *, style: str = "yellow", label: str = "note:"
) -> None:
    """Print one ``note: ...`` line per message (user strings escaped)."""
    for note in notes:
        console.print(
            f"[{style}]{label}[/] {markup(note)}" if label else f"[{style}]{markup(note)}[/]"
        )


def print_table(
    console: Console,
    columns: list[tuple[str, JustifyMethod]],
    rows: list[list[str]],
    *,
    names: tuple[int, ...] = (),
    name_line: str | None = None,
    legend: str | None = None,
    optional: tuple[int, str, str] | None = None,
    **table_options: Any,
) -> None:
    """Print a table whose names are never split, at any console width.

    ``columns`` are (header, justify) pairs; cells are Rich markup, except the columns listed
    in ``names``, which hold raw user strings (escaped here). When the table is wider than the
    console, in this order until one fits:

    1. the longest names are shortened with a middle ellipsis (never below
       ``MIN_NAME_WIDTH`` characters, and only while every shortened name stays distinct),
       and the full names are listed under the table;
    2. each row's names go on a line of their own, above its numbers (``name_line``, a
       ``str.format`` pattern over the name cells such as ``"{0} vs {1}"``, joins them;
       default: two spaces);
    3. rows are printed whole, at their full width, for the terminal to wrap.

    ``optional`` is (the index of a column the other views also give, the legend's words
    for it, the legend's words when it is left out): before rows are printed wider than the
    console (3), the table is tried without it, and the legend says where it is.

    A name or a number is never split inside a cell.
    """
    width = console.width

    def build(limit: int | None) -> tuple[Table, dict[str, str]]:
        shortened: dict[str, str] = {}
        table = Table(**table_options)
        for k, (header, justify) in enumerate(columns):
            cells = [row[k] for row in rows]
            if k in names:
                shown = [_shorten(c, limit) for c in cells]
                shortened.update({b: a for a, b in zip(cells, shown, strict=True) if a != b})
                cells = shown
                widest = max([Text(c).cell_len for c in cells] + [len(header)])
            else:
                shown_width = [Text.from_markup(c, emoji=False).cell_len for c in cells]
                widest = max([*shown_width, len(header)])
            table.add_column(header, justify=justify, no_wrap=True, min_width=widest)
        for row in rows:
            table.add_row(
                *[
                    markup(_shorten(row[k], limit)) if k in names else row[k]
                    for k in range(len(columns))
                ]
            )
        return table, shortened

    rows = [[clean(c) if k in names else c for k, c in enumerate(row)] for row in rows]
    table, shortened = build(None)
    needed = _natural_width(console, table)
    if needed > width and names and rows:
        # the longest name limit that fits (binary search: the width falls as the limit does)
        low, high = MIN_NAME_WIDTH, max(len(row[k]) for row in rows for k in names) - 1
        best = None
        while low <= high:
            middle = (low + high) // 2
            candidate = build(middle)
            if _natural_width(console, candidate[0]) <= width:
                best, low = (*candidate, middle), middle + 1
            else:
                high = middle - 1
        if best is not None and _distinct(rows, names, best[2]):
            table, shortened, _ = best
            needed = _natural_width(console, table)
        elif optional is None and _print_stacked(
            console, columns, rows, names, name_line, legend, table_options
        ):
            return
        elif optional is not None and _print_stacked(
            console, columns, rows, names, name_line,
            (legend + "; " if legend else "") + optional[1], table_options,
        ):  # fmt: skip
            return
    if optional is not None and needed > width:
        k, _, elsewhere = optional
        kept = [j for j in range(len(columns)) if j != k]
        print_table(
            console, [columns[j] for j in kept], [[row[j] for j in kept] for row in rows],
            names=tuple(kept.index(j) for j in names if j != k), name_line=name_line,
            legend=(legend + "; " if legend else "") + elsewhere, **table_options,
        )  # fmt: skip
        return
    if optional is not None:
        legend = (legend + "; " if legend else "") + optional[1]
    if needed > width:
        # Rich never renders wider than its console (it would drop columns to fit), so widen
        # the console for this table; the terminal then wraps each row as a whole.
        console.width = needed
        try:
            console.print(table, crop=False)
        finally:
            console.width = width
    else:
        console.print(table)
    if legend:
        console.print(legend)
    if shortened:
        console.print("full names:")
        for short, full in sorted(shortened.items()):
            console.print(f"  {markup(short)} = {markup(full)}")


def _distinct(rows: list[list[str]], names: tuple[int, ...], limit: int) -> bool:
    """True when no two names read alike once shortened to ``limit`` characters."""
    every = {row[k] for row in rows for k in names}
    return len({_shorten(name, limit) for name in every}) == len(every)


def _print_stacked(
    console: Console,
    columns: list[tuple[str, JustifyMethod]],
    rows: list[list[str]],
    names: tuple[int, ...],
    name_line: str | None,
    legend: str | None,
    options: dict[str, Any],
) -> bool:
    """Print each row's names on a line of their own above its other cells; False when
    even the other cells are wider than the console."""
    values = [k for k in range(len(columns)) if k not in names]
    cells = [[Text.from_markup(row[k], emoji=False) for k in values] for row in rows]
    widths = [
        max([line[j].cell_len for line in cells] + [len(columns[k][0])])
        for j, k in enumerate(values)
    ]
    indent, gap = "    ", "  "
    line_width = len(indent) + sum(widths) + len(gap) * max(len(widths) - 1, 0)
    if line_width > console.width:
        return False

    def names_of(row: Sequence[str]) -> Text:
        parts = [row[k] for k in names]
        return Text(name_line.format(*parts) if name_line else "  ".join(parts))

    def values_of(line: list[Text], justify: list[JustifyMethod]) -> Text:
        out = Text(indent)
        for j, cell in enumerate(line):
            cell = cell.copy()
            # the tables' columns are left, right or centre, never 'default' or 'full'
            cell.align(justify[j], widths[j])  # type: ignore[arg-type]
            out.append_text(cell)
            if j < len(line) - 1:
                out.append(gap)
        out.rstrip()  # in place
        return out

    title = options.get("title")
    if title:
        console.print(title)
    justify = [columns[k][1] for k in values]
    console.print(names_of([header for header, _ in columns]), style="bold", overflow="fold")
    console.print(values_of([Text(columns[k][0]) for k in values], justify), style="bold")
    console.print("\u2500" * line_width)
    for row, line in zip(rows, cells, strict=True):
        console.print(names_of(row), overflow="fold")
        console.print(values_of(line, justify), no_wrap=True, crop=False)
    if legend:
        console.print(legend)
    return True


def _natural_width(console: Console, table: Table) -> int:
    return Measurement.get(
        console, console.options.update(max_width=UNBOUNDED_WIDTH), table
    ).maximum


def _shorten(name: str, limit: int | None) -> str:
    if limit is None or len(name) <= limit:
        return name
    head = (limit - 1) // 2
    tail = limit - 1 - head
    return name[:head] + "\u2026" + name[len(name) - tail :]


TEST_NAMES = {
    "mcnemar": "McNemar chi-square",
    "mcnemar_cc": "McNemar, continuity-corrected",
    "exact": "exact conditional (binomial)",
    "mid_p": "mid-p",
    "paired_t": "paired t",
    "sign_flip": "sign-flip permutation",
    "bootstrap": "paired bootstrap (Definition 2)",
}
FLIP_LABELS = {
    **TEST_NAMES,
    "exact": "exact test",
    "mcnemar": "chi-square",
    "sign": "sign test",
    "resolution": "resolution (q >= 1)",
}
PROCEDURE_SHORT = {
    "fixed_n": ("fix", "fixed n"),
    "bonferroni": ("bon", "Bonferroni"),
    "sidak": ("sid", "Sidak"),
    "holm": ("hol", "Holm"),
    "bh": ("bh", "Benjamini-Hochberg"),
    "anytime_valid": ("any", "anytime-valid e-process"),
    "clustered": ("clu", "clustered (design effect)"),
}


def _print_compare_data(r: Any, console: Console) -> None:
    """Print the comparison's data: items, scores, the gap, the agreement counts and spread."""
    title = f"{r.model_a} vs {r.model_b}" if (r.model_a, r.model_b) != ("A", "B") else "A vs B"
    data = Table(title=f"compare: {markup(title)}", show_header=False, title_justify="left")
    data.add_column(style="bold")
    data.add_column(justify="right")
    data.add_row("items (N)", format_count(r.n_items))
    label = "accuracy" if r.binary else "mean score"
    data.add_row(f"{label} A / B", f"{format_score(r.accuracy_a)} / {format_score(r.accuracy_b)}")
    data.add_row("delta (A - B)", f"{format_gap(r.delta)} ({format_points(r.delta)} points)")
    if r.binary:
        both = f"{format_count(r.both_correct)} / {format_count(r.both_wrong)}"
        data.add_row("both correct / both wrong", both)
        only = f"{format_count(r.a_only)} / {format_count(r.b_only)}"
        data.add_row("only A correct / only B correct", only)
    else:
        data.add_row("A higher / B higher", f"{format_count(r.a_only)} / {format_count(r.b_only)}")
    data.add_row(
        "correlation", "undefined" if r.correlation is None else number(r.correlation, ".3f")
    )
    data.add_row("sd of differences / se", f"{number(r.sd_diff, '.4f')} / {number(r.se, '.5f')}")
    console.print(data)


def render_compare(r: Any, console: Console) -> None:
    """Print the comparison on its scale: the data, the tests, the intervals, the resolution
    diagnostics (on the gold or design scale, that scale's table)."""
    if r.gold is not None:
        _render_gold_compare(r, console)
        return
    if r.design is not None:
        _render_weighted_compare(r, console)
        return
    _print_compare_data(r, console)

    side = {
        "two-sided": "two-sided",
        "greater": "one-sided, H1: A better",
        "less": "one-sided, H1: B better",
    }[r.alternative]
    rows = []
    floor = r.bootstrap.p_floor if r.bootstrap else 0.0
    # Below the minimum-items rule no valid test can reject: a small asymptotic p is an artefact
    too_few = any(note.startswith("too few items") for note in r.notes)
    for key, p in r.p_values.to_dict().items():
        if p is None:
            continue
        text = format_p(p, floor if key == "bootstrap" else 0.0, bare=True)
        if key == "bootstrap" and r.bootstrap is not None and r.bootstrap.monte_carlo_se:
            text += f" (MC se {number(r.bootstrap.monte_carlo_se, '.2g')})"
        decision = "too few items" if too_few else ("reject" if p <= r.alpha else "-")
        rows.append([TEST_NAMES[key], text, decision])
    print_table(
        console,
        [("test", "left"), ("p-value", "right"), ("at alpha", "center")],
        rows,
        title=f"tests ({side}, alpha={r.alpha:g})",
        title_justify="left",
    )
    rows = [
        [
            markup(interval.method),
            format_percent(interval.level, 0),
            format_gap(interval.low),
            format_gap(interval.high),
        ]
        for interval in r.intervals
    ]
    print_table(
        console,
        [("method", "left"), ("level", "right"), ("low", "right"), ("high", "right")],
        rows,
        title="intervals for delta",
        title_justify="left",
    )

    res = Table(
        title=f"resolution ({side}, alpha={r.alpha:g}, power {r.power:g})",
        show_header=False,
        title_justify="left",
    )
    res.add_column(style="bold")
    res.add_column(justify="right", no_wrap=True)
    estimable = r.resolution_ratio is not None or r.delta == 0
    res.add_row("required items N*", format_n(r.required_n) if estimable else "not estimable")
    if r.required_n_interval is not None:
        lo, hi = r.required_n_interval.low, r.required_n_interval.high
        res.add_row("N* 90% bootstrap interval", f"{format_n(lo)} to {format_n(hi)}")
    if r.required_n_discordant is not None:
        res.add_row("N* (Connor discordance form)", format_n(r.required_n_discordant))
    if r.resolution_ratio is not None:
        res.add_row("resolution ratio q = N/N*", format_q(r.resolution_ratio))
    res.add_row("resolved (q >= 1)", "yes" if r.resolved else "no")
    if r.mde is not None:
        res.add_row(
            "minimum detectable effect at N",
            f"{format_gap(r.mde, signed=False)} ({format_points(r.mde, signed=False)} points)",
        )
    if r.unpaired_required_n is not None:
        res.add_row("unpaired (independent items) N", format_n(r.unpaired_required_n))
    if r.paired_efficiency is not None:
        res.add_row("efficiency gained by pairing", f"{number(r.paired_efficiency, '.2f')}x")
    for s in r.correlation_sensitivity:
        res.add_row(
            f"at correlation {number(s.correlation, '.3f')}",
            f"N* {format_n(s.required_n)}, {'resolved' if s.resolved else 'unresolved'}",
        )
    console.print(res)
    if r.fragility is not None:
        _render_fragility(r, console)
    if r.alignment is not None:
        print_notes(console, r.alignment.messages())
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _task_flip_cell(entry: Any) -> str:
    """A degrade items-to-flip cell: ``122`` (exact), ``<=96`` (greedy), ``-`` (none found)."""
    if entry.items_to_flip is None:
        return "-"
    return f"{'' if entry.exact else '<='}{format_count(entry.items_to_flip)}"


def _render_fragility(r: Any, console: Console) -> None:
    """The items-to-flip table: per test, the verdict now, the fewest removals that reverse
    it, and the verdict after."""
    rows = []
    for e in r.fragility.tests:
        count = "-" if e.items_to_flip is None else format_count(e.items_to_flip)
        rows.append(
            [
                FLIP_LABELS[e.test],
                markup(flip_claim(e.claim, e.test)),
                count,
                markup(flip_removal(e, r.binary, r.model_a, r.model_b)),
                markup(flip_claim(e.after, e.test)) if e.items_to_flip is not None else "-",
            ]
        )
    print_table(
        console,
        [("test", "left"), ("verdict", "left"), ("items to flip", "right"),
         ("remove", "left"), ("then", "left")],
        rows,
        title="items to flip (the fewest removals that reverse each verdict)",
        title_justify="left",
    )  # fmt: skip
    resolve = r.fragility["resolution"].items_to_resolve
    if resolve is not None:
        console.print(
            f"the other way: {format_count(resolve)} more items at these rates would resolve the "
            "gap (N* - N)"
        )


def render_plan(r: Any, console: Console) -> None:
    """Print the plan: inputs, N*, MDE and power at N, and the calculator conventions."""
    t = Table(
        title=f"plan (alpha={r.alpha:g}, power {r.power:g}, {r.alternative})",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right", no_wrap=True)
    if r.accuracy_a is not None:
        b = r.accuracy_b if r.accuracy_b is not None else r.accuracy_a
        t.add_row("accuracy A / B", f"{format_score(r.accuracy_a)} / {format_score(b)}")
        t.add_row("correlation", number(r.correlation, ".3f"))
        if r.correlation_bounds:
            low, high = r.correlation_bounds
            t.add_row("admissible correlations", f"\\[{number(low, '.3f')}, {number(high, '.3f')}]")
    t.add_row("gap delta", format_gap(r.delta))
    t.add_row("sd of differences", number(r.sd_diff, ".4f"))
    t.add_row("required paired items N*", format_n(r.required_n))
    if r.n_items is not None:
        t.add_row("items available N", format_count(r.n_items))
        t.add_row("resolution ratio q", format_q(r.resolution_ratio))
        t.add_row("power at N (exact, footnote 1)", number(r.power_at_n, ".3f"))
        t.add_row("minimum detectable effect at N", format_gap(r.mde, signed=False))
    if r.unpaired_required_n is not None:
        t.add_row("unpaired N per model (contrast)", format_n(r.unpaired_required_n))
        t.add_row("efficiency gained by pairing", f"{number(r.paired_efficiency, '.2f')}x")
    console.print(t)
    if r.conventions is not None:
        c = Table(title="what common calculators say (Table 1)", title_justify="left")
        c.add_column("convention (tools that return it)")
        c.add_column("per arm", justify="right", no_wrap=True)
        c.add_column("x (1 - rho)", justify="right", no_wrap=True)
        c.add_row(
            "K/h^2, one-sample (R pwr.p.test)",
            format_n(r.conventions.one_sample_per_arm),
            format_n(r.conventions.one_sample_shortcut),
        )
        c.add_row(
            "2K/h^2, two-sample (R pwr.2p.test, statsmodels NormalIndPower)",
            format_n(r.conventions.two_sample_per_arm),
            format_n(r.conventions.two_sample_shortcut),
        )
        c.add_row("paired N* (Equation 6)", "-", format_n(r.required_n))
        console.print(c)
        console.print(
            f"shortcut ratio n_h/N* = {number(r.shortcut_ratio, '.4f')}; Lemma 1 constant "
            f"C(p, rho) = {number(r.lemma_constant, '.4f')}; the ratio stays within 1/2 +/- 0.05 "
            f"for |delta| <= {number(r.shortcut_tolerance, '.3f')} (Corollary 1)."
        )
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def render_plan_degradation(r: Any, console: Console) -> None:
    """Print the degradation plan's verdict sentence."""
    console.print(markup(_capitalise(r.verdict) + "."))


def render_data(d: Any, console: Console) -> None:
    """Print what was read: models, tasks, items, metric notes and the alignment report."""
    console.print(f"[bold]read:[/] {markup(d.source)}")
    for note in d.notes:
        console.print(f"  {markup(note)}")
    rows = [
        [
            s.model,
            format_count(s.items_scored),
            format_score(s.mean_score),
            format_count(s.items_kept),
            str(s.max_runs),
        ]
        for s in d.models
    ]
    print_table(
        console,
        [
            ("model", "left"),
            ("items", "right"),
            ("mean (own items)", "right"),
            ("kept", "right"),
            ("runs", "right"),
        ],
        rows,
        names=(0,),
        title=plural(len(d.models), "model"),
        title_justify="left",
    )
    rows = [[task, format_count(items), format_count(kept)] for task, items, kept in d.tasks]
    print_table(
        console,
        [("task", "left"), ("items", "right"), ("kept for every model", "right")],
        rows,
        names=(0,),
        title=plural(len(d.tasks), "task"),
        title_justify="left",
    )
    kind = "binary (0/1)" if d.binary else "graded"
    clusters = f"; {plural(d.clusters, 'cluster')}" if d.clusters is not None else ""
    console.print(f"scores: {kind}{clusters}")
    messages = d.alignment.messages()
    print_notes(console, messages)
    if not messages:
        console.print("every model has a usable score for every item; nothing was left out")


def render_audit(r: Any, console: Console, *, max_rows: int = 40) -> None:
    """Print the audit: verdicts per procedure, tiers, flips and the pairs at issue (on the
    gold scale, every pair's PPI++ gap and verdicts and the judge against the gold)."""
    if r.gold is not None:
        _render_gold_audit(r, console)
        return
    _print_audit_verdicts(r, console)
    _print_missing_items(r, console)
    _print_audit_pairs(r, console, max_rows)
    _print_cluster_flips(r, console)
    _print_chains_and_tiers(r, console)
    if r.rank_sets is not None:
        console.print(f"rank sets: {markup(r.rank_sets.verdict)}")
    names = [*r.rankings["model"], *r.rankings["task"]]
    if any(is_long_name(name) for name in names):
        console.print(
            f"[yellow]note:[/] names longer than {MAX_DISPLAY_NAME} characters are shortened "
            "here (head…tail #digest); --json gives them whole"
        )
    print_notes(console, r.notes)
    console.print()
    console.print(markup(r.verdict))


def _print_audit_verdicts(r: Any, console: Console) -> None:
    """Print the unresolved pairs per procedure and their sensitivity to the correlation."""
    n_pairs = len(r.pairs)
    rows = [
        [PROCEDURE_SHORT.get(proc, (proc, proc))[1], f"{count} / {n_pairs}"]
        for proc, count in r.unresolved.items()
    ]
    missing = [p for p in r.procedures if p not in r.unresolved]
    print_table(
        console,
        [("procedure", "left"), ("unresolved", "right")],
        rows,
        title=f"audit: {pairs_noun(r.family, n_pairs)}, family size "
        f"m={r.family_size} (Bonferroni N* x{number(r.bonferroni_inflation, '.2f')})",
        title_justify="left",
    )
    for proc in missing:
        console.print(
            f"{PROCEDURE_SHORT.get(proc, (proc, proc))[1]}: no verdicts "
            "(it applies to binary scores only)"
        )
    sens = r.correlation_sensitivity
    console.print(
        f"correlation -/+ 0.1: {sens['correlation_minus_0.1']} / "
        f"{sens['correlation_plus_0.1']} unresolved (fixed n: {sens['correlation']})"
    )


def _audit_shown_pairs(
    r: Any, frame: pd.DataFrame, max_rows: int
) -> tuple[pd.DataFrame, str]:
    """Return the audit's pairs to print (all, or the first unresolved ones at fixed n) and
    the table's title saying which."""
    n_pairs = len(r.pairs)
    if n_pairs <= max_rows:
        shown, title = frame, pairs_noun(r.family, n_pairs)
    else:
        unresolved = frame[~frame["resolved_fixed_n"].fillna(True).astype(bool)]
        shown = unresolved.head(max_rows)
        which = (
            f"all {len(unresolved)}"
            if len(unresolved) <= max_rows
            else f"the first {len(shown)} of {len(unresolved)}"
        )
        title = (
            f"pairs unresolved at fixed n: {which} (of {pairs_noun(r.family, n_pairs)}; "
            "--json or --html for every pair)"
        )
    return shown, title


def _print_audit_pairs(r: Any, console: Console, max_rows: int) -> None:
    """Print the table of pairs: gap, interval, N*, q, each procedure's verdict and the items
    to flip it, with its legend."""
    frame = r.to_frame()  # the pairs, with their items to flip when the audit has them
    shown, title = _audit_shown_pairs(r, frame, max_rows)
    several_tasks = frame["task"].nunique() > 1
    columns: list[tuple[str, JustifyMethod]] = [("task", "left")] if several_tasks else []
    level = format_level(r.alpha)
    columns += [
        ("A", "left"),
        ("B", "left"),
        ("delta", "right"),
        (f"{level} CI", "right"),
        ("N*", "right"),
        ("q", "right"),
    ]
    # Sidak's verdicts all but equal Bonferroni's; the full set is in --json and --html.
    shown_procedures = [proc for proc in r.procedures if proc != "sidak" and proc in r.unresolved]
    columns += [(PROCEDURE_SHORT.get(p, (p, p))[0], "center") for p in shown_procedures]
    flip = "items_to_flip_resolution" if "items_to_flip_resolution" in frame.columns else None
    if flip is not None:
        columns.append(("flip", "right"))
    rows = [
        _audit_pair_cells(row, several_tasks, shown_procedures, flip)
        for row in shown.itertuples()
    ]
    legend = (
        "verdicts: "
        + ", ".join(
            f"{PROCEDURE_SHORT.get(p, (p, p))[0]} = {PROCEDURE_SHORT.get(p, (p, p))[1]}"
            for p in shown_procedures
        )
        + f"; ok = resolved, no = unresolved (the benchmark cannot tell the two apart at "
        f"this N, not that they are equal); {level} CI = paired interval of delta "
        "(Newcombe for binary scores, t for graded); N* = items needed, q = N/N*"
    )
    optional = None
    if flip is not None:
        optional = (
            len(columns) - 1,
            "flip = the fewest items whose removal reverses the fixed-n verdict (every test "
            "and procedure: --json, --html, evalgap fragility)",
            "the fewest items whose removal reverses each verdict: --json, --html, evalgap "
            "fragility (too wide for this terminal)",
        )
    print_table(
        console,
        columns,
        rows,
        names=(0, 1, 2) if several_tasks else (0, 1),
        name_line="{0}: {1} vs {2}" if several_tasks else "{0} vs {1}",
        legend=legend,
        optional=optional,
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        title=title,
        title_justify="left",
    )


def _audit_pair_cells(
    row: Any, several_tasks: bool, shown_procedures: list[str], flip: str | None
) -> list[str]:
    """Return one pair's cells of the audit table."""
    cells = ([display_name(row.task)] if several_tasks else []) + [
        display_name(row.model_a),
        display_name(row.model_b),
        format_gap(row.delta),
        gap_interval(row.delta_low, row.delta_high),
        format_n(row.required_n),
        format_q(row.resolution_ratio),
    ]
    for proc in shown_procedures:
        value = getattr(row, f"resolved_{proc}")
        cells.append(
            "" if value is None or _missing(value) else ("ok" if value else "[red]no[/]")
        )
    if flip is not None:
        count = getattr(row, flip)
        cells.append("-" if count is None or _missing(count) or count != count else
                     format_count(int(count)))  # fmt: skip
    return cells


def _print_cluster_flips(r: Any, console: Console) -> None:
    """Print the pairs whose verdict flips under clustering and the cluster bootstrap's
    unresolved counts."""
    flips = r.flips()
    for row in flips.itertuples():
        console.print(
            f"[yellow]flips under clustering:[/] {markup(display_name(row.model_a))} vs "
            f"{markup(display_name(row.model_b))} ({markup(display_name(row.task))}): "
            f"N* {format_n(row.required_n)} -> "
            f"{format_n(row.required_n_clustered)} "
            f"with design effect {number(row.design_effect, '.2f')}"
        )
    if r.cluster_stress is not None and r.cluster_stress.unresolved_distribution:
        dist = ", ".join(
            f"{k}: {format_percent(v)}"
            for k, v in r.cluster_stress.unresolved_distribution.items()
        )
        console.print(
            f"cluster bootstrap (B={format_count(r.cluster_stress.n_resamples)}) unresolved "
            f"counts: {dist}"
        )
        alt = ", ".join(f"{markup(k)} {v}" for k, v in r.cluster_stress.alternatives.items())
        console.print(f"alternative clusterings, unresolved: {alt}")


def _print_chains_and_tiers(r: Any, console: Console) -> None:
    """Print each task's chains of unresolved rank-adjacent pairs, then its tiers."""
    procedure = PROCEDURE_SHORT.get(r.chain_procedure, (r.chain_procedure,) * 2)[1]
    for task, chains in r.chains.items():
        joined, rank = [], 1
        for chain in chains:
            if len(chain) > 1:
                members = ", ".join(markup(display_name(m)) for m in chain)
                joined.append(f"ranks {rank}-{rank + len(chain) - 1}: {members}")
            rank += len(chain)
        if joined:
            console.print(
                f"unresolved chains ({procedure}, {markup(display_name(task))}): "
                + "; ".join(joined)
            )
    tiers = r.tiers
    if tiers is None:
        console.print(markup(r.tier_method))
    else:
        console.print(f"tiers, from {markup(r.tier_method)}:")
        for task, groups in tiers.items():
            listed = "; ".join(
                f"tier {k}: " + ", ".join(markup(display_name(m)) for m in group)
                for k, group in enumerate(groups, start=1)
            )
            console.print(f"  {markup(display_name(task))}: {listed}")


def _print_missing_items(r: Any, console: Console) -> None:
    """One line naming the models that lack items (when the rankings say so)."""
    rankings = r.rankings
    if "items_missing" not in rankings.columns or rankings.empty:
        return
    lacking = rankings[rankings["items_missing"].fillna(0) > 0]
    if lacking.empty:
        console.print("every model has a score for every item of its tasks")
        return
    several = rankings["task"].nunique() > 1
    parts = [
        f"{markup(display_name(row.model))} {format_count(int(row.items_missing))}"
        + (f" ({markup(display_name(row.task))})" if several else "")
        for row in lacking.itertuples()
    ]
    console.print(
        f"items missing ({plural(len(parts), 'model')}; each pair uses the items both scored): "
        + ", ".join(parts)
    )


def render_degrade(r: Any, console: Console) -> None:
    """Print per-task counts and tests, the three aggregates, the rules of thumb, the verdict."""
    headers = ("task", "items", "only base", "only cand", "flips", "degr. rate", "delta", "p")
    rows = []
    # the "all" row is the total over tasks: shown (without a p-value) when there are several
    shown = (*r.tasks, r.total) if len(r.tasks) > 1 else tuple(r.tasks)
    for k, task in enumerate(shown):
        total_row = k == len(r.tasks)
        rows.append(
            [
                str(task.task),
                "" if task.n_items is None else format_count(task.n_items),
                format_count(task.a_only),
                format_count(task.b_only),
                _pct(task.flip_rate, 2),
                _pct(task.degradation_rate, 1),
                ""
                if task.delta is None or not math.isfinite(task.delta)
                else format_points(task.delta) + "pt",
                "" if total_row else _degrade_p(task.p_value),
            ]
        )
    print_table(
        console,
        [(h, "left" if h == "task" else "right") for h in headers],
        rows,
        names=(0,),
        title=f"degrade: {markup(r.candidate)} against {markup(r.baseline)} ({r.method} tests)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    rows = []
    for name, p in r.p_values.items():
        rows.append(
            [
                markup(name.replace("_", "-")),
                _degrade_p(p),
                "[red]degraded[/]" if p <= r.alpha else "-",
            ]
        )
    if r.max_drop_monte_carlo is not None:
        rows.append(
            [
                f"max-drop, Monte Carlo (S={format_count(r.n_simulations)})",
                _degrade_p(r.max_drop_monte_carlo),
                "",
            ]
        )
    if r.permutation is not None and r.method == "exact":
        for name in ("pooled", "max_drop", "fisher"):
            rows.append(
                [
                    f"{name.replace('_', '-')}, permutation "
                    f"(m={format_count(r.permutation.n_permutations)})",
                    _degrade_p(getattr(r.permutation, name)),
                    "",
                ]
            )
    columns = [("test", "left"), ("p-value", "right"), ("at alpha", "center")]
    legend = None
    if r.fragility is not None:
        columns.append(("items to flip", "right"))
        flips = {e.test: e for e in r.fragility.tests}
        for row in rows:
            key = row[0].replace("-", "_")
            row.append(_task_flip_cell(flips[key]) if key in flips else "")
        gate = flips["degraded"]
        rows.append(["any of the three (the gate)", "", "[red]degraded[/]" if gate.claim else "-",
                     _task_flip_cell(gate)])  # fmt: skip
        legend = (
            "items to flip: the fewest items whose removal reverses the verdict (<=: a greedy "
            "set over tasks, an upper bound)"
        )
    print_table(
        console,
        columns,  # type: ignore[arg-type]
        rows,
        title=f"aggregated over tasks (alpha={r.alpha:g})",
        title_justify="left",
        legend=legend,
    )
    _render_margins(r, console)
    rules = r.rules_of_thumb
    if rules["delta_over_2_points"] is not None:
        console.print(
            f"rules of thumb, for contrast: drop > 2 points "
            f"{'yes' if rules['delta_over_2_points'] else 'no'}; flip rate >= 5% "
            f"{'yes' if rules['flip_rate_at_least_5_percent'] else 'no'}"
        )
    print_notes(console, r.notes)
    console.print()
    console.print(markup(r.verdict))


def _render_margins(r: Any, console: Console) -> None:
    """Per task non-inferiority (and equivalence), the worst upper bound of the drop first;
    delta is baseline minus candidate, as in the table above."""

    def pt(value: float | None) -> str:
        return format_points(value)

    for key, verdict, title in (
        ("non_inferiority", "non_inferior", "non-inferiority: drop below {m:g} points?"),
        ("equivalence", "equivalent", "equivalence: drop within +/- {m:g} points?"),
    ):
        block = getattr(r, key)
        if block is None:
            continue
        bounds = ["upper bound"] if key == "non_inferiority" else ["lower", "upper"]
        rows = []
        ranked = sorted(  # the largest upper bound of the drop first, an undefined one first
            block["tasks"],
            key=lambda t: -math.inf if math.isnan(t["upper_bound"]) else -t["upper_bound"],
        )
        for k, t in enumerate([*ranked, block["pooled"]]):
            pooled = k == len(ranked)
            rows.append(
                [
                    "pooled (all items)" if pooled else str(t["task"]),
                    format_count(t['n_items']),
                    pt(t["delta"]),
                    *(pt(t[f"{b.split()[0]}_bound"]) for b in bounds),
                    _degrade_p(t["p_value"]),
                    "[green]yes[/]" if t[verdict] else "[red]no[/]",
                ]
            )
        headers = ["task", "items", "delta", *bounds, "p", "shown"]
        print_table(
            console,
            [(h, "left" if h == "task" else "right") for h in headers],
            rows,
            names=(0,),
            title=title.format(m=100 * block["margin"])
            + f" ({100 * (1 - (r.alpha if key == 'non_inferiority' else 2 * r.alpha)):g}% "
            "bounds, points; worst first)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )


def render_trim(r: Any, console: Console) -> None:
    """Print how many items flip across the baseline's runs, per task."""
    rows = [
        [str(row.task), *(format_count(n) for n in (row.items, row.never_flip, row.kept))]
        for row in r.per_task.itertuples()
    ]
    print_table(
        console,
        [(h, "left" if h == "task" else "right") for h in ("task", "items", "never flip", "kept")],
        rows,
        names=(0,),
        title=f"trim: {markup(r.model)}, {plural(r.runs, 'run')} per item",
        title_justify="left",
    )
    total, kept = int(r.per_task["items"].sum()), int(r.per_task["kept"].sum())
    share = number(100 * kept / total, ".1f") + "%" if total else "no items"
    console.print(
        f"Kept {format_count(kept)} of {plural(total, 'item')} ({share}); the other "
        f"{format_count(total - kept)} never flipped across {plural(r.runs, 'run')}."
    )


def render_simulation(result: Any, console: Console) -> None:
    """Print a simulation study in the layout of the paper's table or figure it reproduces."""
    kind = getattr(result, "simulation", None)
    if kind == "calibration":
        _render_calibration(result, console)
    elif kind == "prospective":
        _render_prospective(result, console)
    elif kind == "power_curve":
        _render_power_curve(result, console)
    elif kind == "sequential":
        _render_sequential(result, console)
    elif type(result).__name__ == "MonitoringResult":
        _render_monitoring(result, console)
    elif type(result).__name__ == "RankCoverageResult":
        _render_rank_coverage(result, console)
    elif type(result).__name__ == "TaskRankCoverageResult":
        _render_task_rank_coverage(result, console)
    elif kind == "aggregation":
        _render_aggregation(result, console)
    elif type(result).__name__ == "AdaptiveStudyResult":
        _render_adaptive_study(result, console)
    elif type(result).__name__ == "EstimateStudyResult":
        _render_estimate_study(result, console)
    elif type(result).__name__ == "ConfigurationStudyResult":
        _render_configuration_study(result, console)
    else:  # a study without a layout of its own still says what it found
        console.print(markup(_capitalise(result.verdict)))


def _render_calibration(result: Any, console: Console) -> None:
    """Print the calibration study: each test's Type-I and power deviations (Table 2)."""
    rows = [
        [
            markup(name),
            f"{number(100 * v['type1_max_abs_dev'], '.1f')} pp",
            number(v["power_median"], ".2f"),
            f"{number(100 * v['power_max_dev'], '.1f')} pp",
        ]
        for name, v in result.variants.items()
    ]
    headers: tuple[str, ...] | list[str] = (
        "test", "max |Type-I - alpha|", "power, median", "max |power - target|"
    )  # fmt: skip
    print_table(
        console,
        [(h, "left" if h == "test" else "right") for h in headers],
        rows,
        title=f"calibration: n={format_count(result.n_items)}, "
              f"{plural(result.n_trials, 'trial')} per "
        "cell (Table 2 layout)",
        title_justify="left",
    )
    se = 100 * math.sqrt(result.alpha * (1 - result.alpha) / result.n_trials)
    se_power = 100 * math.sqrt(result.power * (1 - result.power) / result.n_trials)
    console.print(
        f"Monte Carlo SE: {number(se, '.1f')} pp on Type-I error, "
        f"{number(se_power, '.1f')} pp on power, per cell."
    )


def _render_prospective(result: Any, console: Console) -> None:
    """Print the prospective validation: each pair's power at fractions of N* (Table 10)."""
    headers = ["pair", "|delta|", "rho", "N*", *[f"{f:g} N*" for f in result.fractions]]
    rows = [
        [
            str(pair["pair"]),
            f"{number(100 * pair['abs_delta'], '.2f')}pp",
            number(pair["correlation"], ".2f"),
            format_count(pair['required_n']),
            *[number(p, ".3f") for p in pair["power"]],
        ]
        for pair in result.pairs
    ]
    print_table(
        console,
        [(h, "left" if h == "pair" else "right") for h in headers],
        rows,
        names=(0,),
        title=f"prospective validation, {plural(result.n_trials, 'trial')} (Table 10 layout)",
        title_justify="left",
    )
    _largest_se(console, [se for pair in result.pairs for se in pair["power_se"]], "power")


def _render_power_curve(result: Any, console: Console) -> None:
    """Print each power curve: the power at each n and where it reaches the target."""
    for curve in result.curves:
        crossing = (
            "never"
            if curve["crossing"] is None
            else f"{format_count(curve['crossing'])} "
            f"({number(curve['crossing'] / curve['required_n'], '.2f')} N*)"
        )
        console.print(
            f"delta {number(curve['delta'], '.4g')}: N* {format_count(curve['required_n'])}; "
            "power "
            + ", ".join(
                f"{number(p, '.2f')} (SE {number(se, '.2f')})@{format_count(n)}"
                for n, p, se in zip(curve["n"], curve["power"], curve["power_se"], strict=True)
            )
            + f"; reaches {result.power:g} at n = {crossing}"
        )


def _render_sequential(result: Any, console: Console) -> None:
    """Print the sequential study: the e-process's Type-I and rejection rates, stopping times."""
    r, d = result, result.to_dict()
    console.print(
        f"mixture e-process ({markup(r.mixture)}), {plural(r.n_trials, 'trial')} per "
        f"hypothesis, up to {plural(r.horizon, 'item')} (N* = {format_count(r.required_n)})"
    )
    console.print(
        f"Type-I rate under H0: {number(r.type1, '.3f')} (SE {number(d['type1_se'], '.3f')}, "
        f"alpha {r.alpha:g}); rejection rate under H1: {number(r.rejection_rate, '.3f')} "
        f"(SE {number(d['rejection_rate_se'], '.3f')})"
    )
    if r.stopping_ratio_median is not None:
        console.print(
            f"stopping time under H1: median {number(r.stopping_ratio_median, '.2f')} N*, "
            f"mean {number(r.stopping_ratio_mean, '.2f')} N*"
        )


def _render_monitoring(result: Any, console: Console) -> None:
    """Print the monitoring study: each scenario's error rate under continuous looks."""
    rows = [
        [
            str(row.scenario),
            format_count(row.n_models),
            format_count(row.horizon),
            f"{number(row.error_rate, '.4f')} ({number(row.error_se, '.4f')})",
        ]
        for row in result.rows.itertuples()
    ]
    print_table(
        console,
        [
            ("scenario", "left"),
            ("models", "right"),
            ("looks", "right"),
            ("error rate (SE)", "right"),
        ],
        rows,
        names=(0,),
        title=f"stopping under continuous monitoring, alpha = {result.alpha:g}",
        title_justify="left",
    )


def _render_rank_coverage(result: Any, console: Console) -> None:
    """Print the rank-coverage study: each configuration's coverage and set size."""
    rows = [
        [
            str(row.configuration),
            format_count(row.n_models),
            format_count(row.n_items),
            markup(row.method),
            f"{number(row.coverage, '.3f')} ({number(row.coverage_se, '.3f')})",
            number(row.mean_width, ".1f"),
            number(row.marginal_coverage, ".3f"),
        ]
        for row in result.rows.itertuples()
    ]
    print_table(
        console,
        [
            ("configuration", "left"),
            ("K", "right"),
            ("N", "right"),
            ("method", "left"),
            ("coverage (SE)", "right"),
            ("set size", "right"),
            ("marginal", "right"),
        ],
        rows,
        names=(0,),
        title=f"rank coverage: {plural(result.n_trials, 'simulated leaderboard')} per "
        f"configuration, nominal {1 - result.alpha:g}",
        title_justify="left",
    )
    console.print(markup(result.verdict))


def _render_task_rank_coverage(result: Any, console: Console) -> None:
    """Print the rank sets over tasks study: each configuration's coverage."""
    rows = [
        [
            str(row.configuration),
            format_count(row.n_models),
            f"{format_count(row.n_tasks)} x {format_count(row.n_items)}",
            markup(row.sets),
            f"{number(row.coverage, '.3f')} ({number(row.coverage_se, '.3f')})",
            number(row.mean_width, ".2f"),
        ]
        for row in result.rows.itertuples()
    ]
    print_table(
        console,
        [("configuration", "left"), ("K", "right"), ("tasks x items", "right"),
         ("sets", "left"), ("coverage (SE)", "right"), ("set size", "right")],
        rows,
        names=(0,),
        title=f"rank sets over tasks: {plural(result.n_trials, 'simulated benchmark')} "
        f"per configuration, nominal {1 - result.alpha:g}",
        title_justify="left",
    )  # fmt: skip
    console.print(markup(result.verdict))


def _render_configuration_study(result: Any, console: Console) -> None:
    """Print the configuration study: rejection rates and coverages (SE) per row."""

    def rate(row: Any, name: str) -> str:
        return f"{number(getattr(row, name), '.3f')} ({number(getattr(row, name + '_se'), '.3f')})"

    components = ("item", "configuration", "item_configuration", "residual")
    rows = [
        [
            markup(row.kind),
            number(row.configuration_sd, "g"),
            rate(row, "configuration_rejection"),
            rate(row, "model_configuration_rejection"),
            " ".join(number(getattr(row, f"coverage_{c}"), ".3f") for c in components),
            rate(row, "gap_coverage_random"),
            rate(row, "gap_coverage_fixed"),
        ]
        for row in result.rows.itertuples()
    ]
    first = result.rows.iloc[0]
    print_table(
        console,
        [("scores", "left"), ("configuration SD", "right"), ("configuration test", "right"),
         ("model x configuration", "right"),
         ("coverage: item, configuration, item x configuration, residual", "right"),
         ("gap, random", "right"), ("gap, fixed", "right")],
        rows,
        names=(0,),
        title=f"configuration components: {plural(result.n_trials, 'trial')} per row, "
        f"{format_count(first.n_items)} items x {format_count(first.n_configurations)} "
        f"configurations x {plural(first.n_runs, 'run')}, alpha "
        f"{result.alpha:g} (rejection rates and coverages, Monte Carlo SE)",
        title_justify="left",
    )  # fmt: skip
    console.print(markup(result.verdict))


def _render_aggregation(result: Any, console: Console) -> None:
    """Print the aggregation study: each scenario's rejection rates by number of tasks."""
    shown = [t for t in (1, 2, 5, 10, 20) if t in result.task_counts]
    for scenario, rates in result.rates.items():
        rows = [
            [markup(test), *[number(values[result.task_counts.index(n)], ".3f") for n in shown]]
            for test, values in rates.items()
        ]
        print_table(
            console,
            [("test", "left"), *[(f"T={n}", "right") for n in shown]],
            rows,
            title=f"{markup(scenario.replace('_', ' '))}: rejection rate by number of tasks",
            title_justify="left",
        )
    errors = result.to_dict()["standard_errors"].values()
    _largest_se(console, [x for tests in errors for v in tests.values() for x in v], "rate")


def _render_adaptive_study(result: Any, console: Console) -> None:
    """The adaptive study: rejections within the horizon and items to a decision, both
    designs side by side."""

    def items(value: float) -> str:
        return "-" if not math.isfinite(value) else format_count(value)

    rows = [
        [
            str(row.configuration),
            number(row.gap, "+.3f"),
            f"{number(row.adaptive_rejected, '.3f')} ({number(row.adaptive_rejected_se, '.3f')})",
            f"{number(row.random_rejected, '.3f')} ({number(row.random_rejected_se, '.3f')})",
            items(row.adaptive_median_items),
            items(row.random_median_items),
            "-" if not math.isfinite(row.ratio) else number(row.ratio, ".2f"),
        ]
        for row in result.rows.itertuples()
    ]
    print_table(
        console,
        [("configuration", "left"), ("gap", "right"), ("adaptive: decided (SE)", "right"),
         ("random: decided (SE)", "right"), ("adaptive items", "right"),
         ("random items", "right"), ("ratio", "right")],
        rows,
        names=(0,),
        title=f"adaptive item choice: {plural(result.n_trials, 'simulated pair')} per "
        f"configuration, looked at after every item up to {format_count(result.horizon)}, alpha "
        f"{result.alpha:g} (under the null, decided = Type-I error)",
        title_justify="left",
    )  # fmt: skip
    console.print(markup(_capitalise(result.verdict)))


def _render_estimate_study(result: Any, console: Console) -> None:
    """The estimate study: each design's error, coverage and width per budget, against the
    random items' mean, the floors beside them."""

    def cell(value: float, pattern: str) -> str:
        return "-" if not math.isfinite(value) else number(value, pattern)

    rows = [
        [
            format_count(row.budget),
            markup(str(row.label)),
            f"{number(row.mae, '.4f')} ({number(row.mae_se, '.4f')})" if row.cases else
            number(row.mae, ".4f"),
            cell(row.mae_ratio, ".2f"),
            cell(row.coverage, ".3f"),
            cell(row.median_half_width, ".4f"),
            cell(row.width_ratio, ".2f"),
        ]
        for row in result.rows.itertuples()
    ]
    held = (
        "leave one model out" if result.hold_out == "each"
        else f"the {plural(len(result.held_out), f'{result.hold_out} model')} held out together"
    )  # fmt: skip
    print_table(
        console,
        [("items", "right"), ("design", "left"), ("mean abs. error (SE)", "right"),
         ("vs items' mean", "right"), ("coverage", "right"), ("median half-width", "right"),
         ("width ratio", "right")],
        rows,
        names=(1,),
        title=f"estimate, {held}: {plural(len(result.held_out), 'held-out model')}"
        f" x {plural(result.n_trials, 'draw')} per budget, "
        f"{plural(result.reference_models, 'reference model')}, "
        f"{format_count(result.n_items)} items, intervals at {1 - result.alpha:g}",
        title_justify="left",
    )  # fmt: skip
    console.print(markup(_capitalise(result.verdict)))


def _largest_se(console: Console, ses: Sequence[float], what: str) -> None:
    """Say the Monte Carlo error of a table's figures: the largest SE among them."""
    if ses:
        console.print(f"Monte Carlo SE: at most {number(max(ses), '.3f')} on each {what}.")


def _pct(value: float | None, digits: int) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return format_percent(value, digits)


def _degrade_p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return ""
    return format_p(p, digits=3, bare=True)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _missing(value: object) -> bool:
    """True for pandas' missing value (a nullable verdict), without importing pandas."""
    return type(value).__name__ == "NAType"


def render_ranks(r: Any, console: Console, *, max_rows: int = 60) -> None:
    """Print each task's models best first: score, its SE, the rank sets and the tier."""
    frame = r.ranks
    marginal = r.marginal.set_index(["task", "model"]) if len(r.marginal) else None
    several = frame["task"].nunique() > 1
    level = format_level(r.alpha)
    for task, sub in frame.groupby("task", sort=False):
        sub = sub.sort_values("rank", kind="stable")  # rows are in board order
        shown = sub.head(max_rows)
        columns: list[tuple[str, JustifyMethod]] = [
            ("rank", "right"), ("model", "left"), ("score", "right"), ("se", "right")
        ]  # fmt: skip
        own = "own_items_mean" in sub and shows_own_items_mean(sub["score"], sub["own_items_mean"])
        columns += [(OWN_ITEMS_MEAN.lower(), "right")] if own else []
        columns += [("n", "right"), ("rank set", "center")]
        columns += [("marginal", "center")] if marginal is not None else []
        columns += [("tier", "right")]
        rows = []
        for row in shown.itertuples():
            cells = [
                str(row.rank),
                str(row.model),
                format_score(row.score),
                format_score(row.se),
                *([format_score(row.own_items_mean)] if own else []),
                format_count(row.n_items),
                _rank_set(row.rank_low, row.rank_high),
            ]
            if marginal is not None:
                m = marginal.loc[(task, row.model)]
                cells.append(_rank_set(m["rank_low"], m["rank_high"]))
            cells.append(str(row.tier))
            rows.append(cells)
        more = (
            f" (the first {max_rows} of {format_count(len(sub))}; --json or --html for all)"
            if len(sub) > max_rows
            else ""
        )
        print_table(
            console,
            columns,
            rows,
            names=(1,),
            legend=(
                f"rank set: the ranks the model can claim, all models at once with {level} "
                "confidence; marginal: this model's alone; tier: models that cannot be "
                "ordered among themselves"
            )
            if task == frame["task"].iloc[-1] or not several
            else None,
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
            pad_edge=False,
            title=f"ranks{f' ({markup(task)})' if several else ''}: {plural(len(sub), 'model')}"
            f", {r.method}{more}",
            title_justify="left",
        )
    gold = getattr(r, "gold", None)
    if gold is not None:
        for task, sub in gold.groupby("task", sort=False):
            _print_judge_table(
                console, sub, r.alpha,
                title=f"the judge against the gold labels{f' ({markup(task)})' if several else ''}",
            )  # fmt: skip
    if r.top_k:
        for task, models in r.top_k["models"].items():
            where = f" ({markup(task)})" if several else ""
            console.print(
                f"could be among the best {r.top_k['k']}{where}: "
                + ", ".join(markup(m) for m in models)
            )
    if r.over_tasks is not None:
        _render_over_tasks(r.over_tasks, console)
    if r.fragility:
        _render_rank_claims(r, console, several, max_rows)
    style = (r.bradley_terry or {}).get("style")
    if style:
        console.print(markup(_capitalise(style_line(style, r.alpha)) + "."))
    print_notes(console, r.notes)
    console.print()
    console.print(markup(r.verdict))


def _render_over_tasks(o: Any, console: Console) -> None:
    """The aggregate over tasks: rank sets with the tasks fixed and with tasks sampled."""
    rows = [
        [m.model, format_score(m.score), _rank_set(m.rank_low_items, m.rank_high_items),
         _rank_set(m.rank_low, m.rank_high), format_score(m.se_items), format_score(m.se)]
        for m in o.models
    ]  # fmt: skip
    print_table(
        console,
        [("model", "left"), ("score", "right"), ("set (these tasks)", "center"),
         ("set (tasks sampled)", "center"), ("se", "right"), ("se (tasks sampled)", "right")],
        rows,
        names=(0,),
        title=f"over the {o.n_tasks} tasks (mean of task scores): the sets with tasks sampled "
        f"are {number(o.widening, '.2f')}x as wide",
        title_justify="left",
    )  # fmt: skip


def render_estimate(r: Any, console: Console) -> None:
    """Print each model's estimated full-benchmark score, its interval, the plain mean of the
    same items beside it and what the estimate rests on."""
    level = format_level(r.alpha)
    rows = [
        [
            e.model,
            format_score(e.score),
            score_interval(e.ci.low, e.ci.high),
            format_score(e.plain_score),
            score_interval(e.plain_ci.low, e.plain_ci.high),
            number(e.width_ratio, ".2f"),
            format_count(e.n_items),
            number(e.ability, "+.2f"),
            "yes" if e.extrapolated else "no",
        ]
        for e in r.estimates
    ]
    kind = (
        ("design-based, weighted by the design" if r.weighted
         else "design-based") + ", the 2PL as control variate" if r.estimator == "design"
        else f"model-based 2PL, conformal intervals from "
        f"{plural(r.reference_models, 'reference model')}"
    )  # fmt: skip
    print_table(
        console,
        [("model", "left"), ("score", "right"), (f"{level} interval", "center"),
         ("items' mean", "right"), (f"{level} interval", "center"), ("width ratio", "right"),
         ("items", "right"), ("ability", "right"), ("extrapolated", "center")],
        rows,
        names=(0,),
        title=f"estimated scores over {format_count(r.n_benchmark_items)} items ({kind})",
        title_justify="left",
    )  # fmt: skip
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def render_adaptive(r: Any, console: Console) -> None:
    """Print where the pair stands, its estimated gap and the next batch's size."""
    level = format_level(r.alpha)
    gap = "-" if r.n_audit < 2 else (
        f"{format_gap(r.gap)} {gap_interval(*r.gap_interval)}"
    )
    print_table(
        console,
        [("pair", "left"), ("items run", "right"), ("A only", "right"), ("B only", "right"),
         ("e-value", "right"), ("decided", "center"), (f"gap ({level})", "center"),
         ("audit draws", "right"), ("next batch", "right")],
        [[f"{r.model_a} vs {r.model_b}", format_count(r.n_items), format_count(r.a_only),
          format_count(r.b_only),
          number(r.e_value, ".3g"), r.better if r.decided else "no", gap,
          format_count(r.n_audit)
          + (f" (+{format_count(r.pending_audit)} pending)" if r.pending_audit else ""),
          format_count(len(r.next_items))]],
        names=(0,),
        title=f"adaptive evaluation over {format_count(r.n_benchmark_items)} items (2PL of "
        f"{plural(r.reference_models, 'reference model')})",
        title_justify="left",
    )  # fmt: skip
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _render_rank_claims(r: Any, console: Console, several: bool, max_rows: int) -> None:
    """The items (battles) to flip of the rank claims: the top claim and adjacent pairs."""
    noun = "battles" if r.bradley_terry else "items"
    rows = []
    for e in r.fragility[: max_rows + 1]:
        count = (
            "-" if e.items_to_flip is None
            else f"{'' if e.exact else '<='}{format_count(e.items_to_flip)}"
        )  # fmt: skip
        rows.append(
            [e.task] * several
            + [
                e.model_a,
                e.model_b,
                flip_rank_claim(e),
                count,
                ""
                if e.items_to_flip_recomputed is None
                else format_count(e.items_to_flip_recomputed),
            ]
        )
    head: list[tuple[str, JustifyMethod]] = [("task", "left")] * several
    head += [("model A", "left"), ("model B", "left")]
    print_table(
        console,
        [*head, ("claim", "left"), (f"{noun} to flip", "right"), ("recomputed", "right")],
        rows,
        names=tuple(range(len(head))),
        title=f"{noun} to flip (the fewest whose removal reverses each rank claim)",
        title_justify="left",
    )


def _rank_set(low: float, high: float) -> str:
    low, high = int(low), int(high)
    return str(low) if low == high else f"{low}-{high}"


def render_watch(status: Any, console: Console) -> None:
    """Print one look at an evaluation in progress: the target pairs and the verdict.

    Every count is the status's own (the terminal, ``--markdown`` and ``to_markdown`` print
    the same): the records the look read, the further items by the watch's anytime-valid rule
    (with the items the task has when they fall short), and N* at a fixed n as ``compare``
    gives it on the same items.
    """
    import time

    from pandas import isna

    def further(row: Any) -> str:
        text = format_n(row.further_items)
        return f"{text} (task has {int(row.task_items):,})" if row.exceeds_task else text

    frame = status.pairs
    rows = [
        [
            str(row.task),
            str(row.model_a),
            str(row.model_b),
            f"{int(row.n_items):,}",
            number(row.delta, "+.4f"),
            f"[{number(row.lower, '+.3f')}, {number(row.upper, '+.3f')}]",
            number(row.e_value, ".3g"),
            "[green]yes[/]" if row.decided else "no",
            further(row),
            format_n(None if isna(row.required_n) else row.required_n),
        ]
        for row in frame.itertuples()
    ]
    if rows:
        print_table(
            console,
            [
                ("task", "left"),
                ("A", "left"),
                ("B", "left"),
                ("items", "right"),
                ("delta", "right"),
                ("confidence sequence", "center"),
                ("e", "right"),
                ("decided", "center"),
                ("more items (anytime-valid)", "right"),
                ("N* (fixed n)", "right"),
            ],
            rows,
            names=(0, 1, 2),
            name_line="{0}: {1} vs {2}",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
            pad_edge=False,
            title=f"{time.strftime('%H:%M:%S')}: {plural(status.new_records, 'new record')}",
            title_justify="left",
        )
    console.print(markup(status.verdict))
    if status.adaptive is not None:
        console.print(markup(_capitalise(watch_adaptive_line(status.adaptive)) + "."))
    print_notes(console, status.notes + (() if status.adaptive is None else status.adaptive.notes))


def render_pilot_plan(r: Any, console: Console) -> None:
    """Print the pilot's variance components, the (N, K) frontier and the verdict."""
    c = r.variance_components
    t = Table(
        title=f"pilot: {markup(r.model_a)} vs {markup(r.model_b)} ({format_count(c.n_items)} "
              "items, "
        f"{c.runs_per_item:.3g} runs per item and model)",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right", no_wrap=True)
    t.add_row("pilot gap delta", format_gap(c.pilot_delta))
    t.add_row("between items (variance of true differences)", number(c.between_items, ".4g"))
    t.add_row("within items (run noise, A + B)", number(c.within_items, ".4g"))
    t.add_row("  of which A / B", f"{number(c.within_a, '.4g')} / {number(c.within_b, '.4g')}")
    t.add_row("items needed with unlimited reruns", format_n(r.items_floor))
    if r.cost_per_item is not None:
        t.add_row("cost per item / per run", f"{r.cost_per_item:g} / {r.cost_per_run:.4g}")
    if r.tokens_per_item is not None:
        t.add_row("tokens per run of an item", format_count(r.tokens_per_item))
    console.print(t)
    f = Table(
        title=f"designs resolving delta={r.delta:+.4g} (alpha={r.alpha:g}, power {r.power:g})",
        title_justify="left",
    )
    for name in ("runs K", "items N", "SE of the gap", "total runs", "cost"):
        f.add_column(name, justify="right", no_wrap=True)
    for d in r.frontier:
        mark = " *" if r.cheapest is not None and d.n_runs == r.cheapest.n_runs else ""
        f.add_row(
            f"{d.n_runs}{mark}",
            format_count(d.n_items),
            format_score(d.se),
            format_count(2 * d.n_items * d.n_runs),
            "-" if d.cost is None else f"{d.cost:,.4g}",
        )
    console.print(f)
    if r.configurations is not None:
        _print_configuration_plan(r, console)
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _print_configuration_plan(r: Any, console: Console) -> None:
    """The pilot's gap components over items x configurations, and the designs by C."""
    c = r.configurations
    t = Table(
        title=f"the gap over {format_count(c.n_configurations)} configurations "
        f"({markup(', '.join(c.factors))}): variance components",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right", no_wrap=True)
    for name, value in c.components.items():
        t.add_row(name.replace("_", " x "), number(value, ".4g"))
    t.add_row("model x configuration test, p", number(c.interaction_p_value, ".3g"))
    console.print(t)
    f = Table(
        title=f"designs resolving delta={r.delta:+.4g} with the configurations random "
        f"({c.n_runs} run{'s' if c.n_runs != 1 else ''} per item and configuration)",
        title_justify="left",
    )
    for name in ("configurations C", "items N", "SE of the gap", "cost"):
        f.add_column(name, justify="right", no_wrap=True)
    for d in c.frontier:
        f.add_row(
            str(d.n_configurations),
            format_count(d.n_items),
            format_score(d.standard_error),
            "-" if c.cheapest is None else f"{d.cost:,.4g}",  # no cost given
        )
    console.print(f)


def render_sampling_design(r: Any, console: Console) -> None:
    """Print the stratified design: what is known, the strata, the predicted saving."""
    t = Table(
        title=f"stratified sample for {markup(r.model_a)} vs {markup(r.model_b)} "
              f"({format_count(r.n_items)} of "
        f"{format_count(r.n_population)} items, IRT fit on {r.n_reference_models} reference "
        "models)",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right", no_wrap=True)
    for name, how in r.known.items():
        t.add_row(markup(name), "its responses" if how == "responses" else "its expected accuracy")
    t.add_row("gap sized for" + (" (predicted)" if r.delta_predicted else ""), f"{r.delta:+.4f}")
    t.add_row("predicted share of items they disagree on", f"{r.predicted_disagreement:.3f}")
    t.add_row(
        f"predicted SE from {format_count(r.n_items)} items: design / random",
        (f"{format_score(r.predicted_se)} / {format_score(r.srs_se)}"),
    )
    t.add_row(
        "items needed (N*): design / random",
        (f"{format_n(r.required_n_design)} / {format_n(r.required_n_srs)}"),
    )
    t.add_row("items ratio (predicted)", number(r.items_ratio, ".3f"))
    console.print(t)
    s = Table(title="strata (Neyman allocation)", title_justify="left")
    for name in ("stratum", "items", "drawn", "weight", "predicted SD"):
        s.add_column(name, justify="right", no_wrap=True)
    for h in r.strata:
        s.add_row(
            str(h.stratum),
            format_count(h.size),
            format_count(h.n_items),
            f"{h.weight:.3g}",
            number(h.predicted_sd, ".3f"),
        )
    console.print(s)
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _opposes(r: Any) -> bool:
    from evalgap.stats.power import opposes_alternative

    return bool(opposes_alternative(r.delta, r.alternative))


def _render_weighted_compare(r: Any, console: Console) -> None:
    """Print the weighted (design-based) comparison and its verdict."""
    d = r.design
    t = Table(
        title=f"{markup(r.model_a)} vs {markup(r.model_b)}, weighted (items sampled with "
        "unequal probabilities)",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right", no_wrap=True)
    t.add_row("items in the sample", format_count(r.n_items))
    if d.population_size is not None:
        t.add_row("benchmark items (stratum sizes)", format_count(d.population_size))
    t.add_row("sum of the weights", f"{d.weight_sum:,.6g}")
    t.add_row("effective sample size (Kish)", format_count(d.effective_n))
    if d.n_strata is not None:
        t.add_row("strata", format_count(d.n_strata))
    t.add_row("weighted gap delta", format_gap(r.delta))
    t.add_row("plain mean difference (unweighted)", format_gap(d.unweighted_delta))
    t.add_row("design-based SE", format_score(r.se))
    ci = r.ci
    t.add_row(
        f"{100 * ci.level:g}% interval",
        gap_interval(float(ci.low), float(ci.high)),
    )
    side = {"two-sided": "two-sided", "greater": "H1: A better", "less": "H1: B better"}
    t.add_row(
        f"z / p ({side[r.alternative]})",
        f"{number(d.statistic, '.3f')} / {format_p(r.p_value, bare=True)}",
    )
    estimable = r.required_n is not None or r.delta == 0 or _opposes(r)
    t.add_row(
        "items a design like this needs",
        format_n(r.required_n) if estimable else "not estimable",
    )
    console.print(t)
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _bracket(ci: Any) -> str:
    """A gap's interval object as ``[low, high]``."""
    return gap_interval(float(ci.low), float(ci.high))


def _print_judge_table(
    console: Console, frame: pd.DataFrame, alpha: float, title: str = ""
) -> None:
    """Each model: its gold-scale score and the judge against the gold."""
    headers, rows = judge_table(frame, alpha)
    m = Table(
        title=title or "Each model, gold scale and judge", title_justify="left", box=box.SIMPLE
    )
    for name in headers:
        m.add_column(name, justify="left" if name == "model" else "right")
    for cells in rows:
        m.add_row(*(markup(c) for c in cells))
    console.print(m)


def _render_gold_compare(r: Any, console: Console) -> None:
    """Print the gold-scale (PPI++) comparison, the judge's figures beside it, and the verdict."""
    level, g = format_level(r.alpha), r.gold
    t = Table(
        title=f"{markup(r.model_a)} vs {markup(r.model_b)}, judged, on the gold scale (PPI++)",
        show_header=False,
        title_justify="left",
    )
    t.add_column(style="bold")
    t.add_column(justify="right", no_wrap=True)
    t.add_row("items judged for both models", format_count(r.n_items))
    t.add_row("of them gold-labelled for both", format_count(g.n_gold))
    t.add_row("gap on the gold scale (PPI++)", format_gap(r.delta))
    t.add_row(f"{level} interval", _bracket(r.ci))
    side = {"two-sided": "two-sided", "greater": "H1: A better", "less": "H1: B better"}
    t.add_row(
        f"t / p ({side[r.alternative]})",
        f"{number(g.statistic, '.3f')} / {format_p(r.p_value, bare=True)}",
    )
    t.add_row("weight on the judge (lambda)", number(g.lam, ".3f"))
    t.add_row("effective gold labels", format_count(g.effective_n))
    t.add_row(
        "gold labels only: gap, interval",
        f"{format_gap(g.gold_only_delta)} {_bracket(g.gold_only_ci)}",
    )
    t.add_row(
        f"judge only: gap, interval ({g.judge.test} p)",
        f"{format_gap(g.judge.delta)} {_bracket(g.judge.ci)} "
        f"({format_p(g.judge.p_value, bare=True)})",
    )
    t.add_row(
        "judge's bias, A minus B (p)",
        f"{format_gap(g.bias_difference)} {_bracket(g.bias_difference_ci)} "
        f"({format_p(g.bias_difference_p, bare=True)})",
    )
    t.add_row("smallest gap resolved (MDE)", format_gap(r.mde, signed=False))
    t.add_row(
        "gold labels that resolve the gap",
        "-" if r.required_n is None else format_n(r.required_n),
    )
    if g.design_gold is not None:
        t.add_row(
            "cheapest design: gold labels / judged items",
            f"{format_n(g.design_gold)} / {format_n(g.design_judged)} "
            f"(cost {g.design_cost:,.4g})",
        )
    console.print(t)
    _print_judge_table(console, g.judge_frame(r.alpha), r.alpha)
    if r.alignment is not None:
        print_notes(console, r.alignment.messages())
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _render_gold_audit(r: Any, console: Console) -> None:
    """Print the gold-scale audit: every pair's PPI++ gap and verdicts, the judge beside it,
    and the judge against the gold per model."""
    frame = r.to_frame()
    several = frame["task"].nunique() > 1
    columns: list[tuple[str, JustifyMethod]] = [("task", "left")] if several else []
    columns += [("model A", "left"), ("model B", "left"), ("gap (gold)", "right"),
                (format_level(r.alpha), "right"), ("p", "right"), ("q", "right"),
                ("fixed n", "center"), ("Holm", "center"), ("gold to resolve", "right"),
                ("judge gap", "right"), ("judge p", "right"), ("flips", "center")]  # fmt: skip
    rows = []
    for row in frame.itertuples():
        cells = [str(row.task)] if several else []
        cells += [
            str(row.model_a),
            str(row.model_b),
            format_gap(row.delta),
            gap_interval(row.delta_low, row.delta_high),
            format_p(row.p_ppi_t, bare=True),
            "-" if row.resolution_ratio is None or row.resolution_ratio != row.resolution_ratio
            else format_q(row.resolution_ratio),
            "yes" if row.resolved_fixed_n else "no",
            "yes" if row.resolved_holm else "no",
            "-" if row.required_n is None or row.required_n != row.required_n
            else format_n(int(row.required_n)),
            format_gap(row.judge_delta),
            format_p(row.judge_p_value, bare=True),
            "yes" if row.judge_flips else "",
        ]  # fmt: skip
        rows.append(cells)
    print_table(
        console,
        columns,
        rows,
        names=(0, 1, 2) if several else (0, 1),
        legend=(
            "gap (gold): A minus B on the gold scale (PPI++); q = N/N* at fixed n; fixed n, "
            "Holm: resolved (q >= 1) at alpha, and under Holm over "
            f"m={format_count(r.family_size)}; gold "
            "to resolve: gold labels that resolve the gap with these judged items; flips: the "
            "judge's bias reverses the pair"
        ),
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        title=f"the audit on the gold scale: {plural(len(frame), 'pair')} "
        f"({'rank-adjacent' if r.family == 'adjacent' else 'all pairs'})",
        title_justify="left",
    )
    for task, sub in r.gold.groupby("task", sort=False):
        _print_judge_table(
            console, sub, r.alpha,
            title=f"the judge against the gold labels{f' ({markup(task)})' if several else ''}",
        )  # fmt: skip
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def render_store(r: Any, console: Console) -> None:
    """Print what a ``store`` command did or what a store holds."""
    name = type(r).__name__
    if name == "StoreAddResult":
        replaced = set(getattr(r, "replaced_sources", ()))
        for path in r.added_sources:
            console.print(
                f"replaced {markup(path)}: its bytes changed (or models were removed from it) "
                "since it was added; the old rows were removed"
                if path in replaced
                else f"added {markup(path)}"
            )
        for path in r.skipped_sources:
            console.print(
                f"skipped {markup(path)}: already in the store (same bytes and options); "
                "nothing added"
            )
        console.print(
            f"{plural(len(r.added_sources), 'source')} added ({format_count(r.rows_added)} rows), "
            f"{format_count(len(r.skipped_sources))} already stored, in {markup(r.store)}"
        )
        print_notes(console, r.notes)
    elif name == "StoreListResult":
        console.print(
            f"[bold]{markup(r.store)}:[/] {plural(len(r.models), 'model')}, "
            f"{plural(len(r.tasks), 'task')}, {format_count(r.n_items)} items, "
            f"{format_count(r.n_rows)} rows, "
            f"{plural(r.n_runs, 'run label')}"
        )
        rows = [
            [str(s["source_id"]), s["path"], format_count(s['rows']), s["added_at"][:19]]
            for s in r.sources
        ]
        print_table(
            console,
            [("id", "right"), ("path", "left"), ("rows", "right"), ("added (UTC)", "left")],
            rows,
            names=(1,),
            title=plural(len(r.sources), "source"),
            title_justify="left",
        )
        console.print("models: " + ", ".join(markup(m) for m in r.models))
        console.print("tasks: " + ", ".join(markup(t) for t in r.tasks))
        for s in r.sources:
            if s.get("removed_models"):
                console.print(
                    f"source {s['source_id']}: models removed from it: "
                    + ", ".join(markup(m) for m in s["removed_models"])
                    + "; adding its file again brings them back"
                )
    elif name == "StoreRemoveResult":
        for s in getattr(r, "removed_sources", ()):
            how = {"id": "by its id", "path": "by its path"}.get(
                s["matched"], "all its rows were of the removed models"
            )
            console.print(f"removed source {s['source_id']} ({markup(s['path'])}): {how}")
        console.print(
            f"removed {format_count(r.rows_removed)} rows ({plural(r.sources_removed, 'source')}, "
            f"{plural(r.models_removed, 'model')}) from {markup(r.store)}; pair statistics "
            "recomputed"
        )
    elif name == "ShardsExportResult":
        console.print(
            f"wrote {plural(r.shards, 'Parquet shard')} of {plural(r.tasks, 'task')} of "
            f"{markup(r.store)} to {markup(r.output)} (its manifest.json lists them)"
        )
    elif name == "StoreAuditSummary":
        console.print(
            f"audit from the pair statistics: {plural(r.n_pairs, r.family + ' pair')} "
            f"(family {r.family}, family size {format_count(r.family_size)}), every row in "
            f"{markup(r.output)}"
        )
        print_table(
            console,
            [("procedure", "left"), ("unresolved", "right")],
            [[proc, format_count(n)] for proc, n in r.unresolved.items()],
            title="unresolved pairs",
            title_justify="left",
        )
        for task, chains in r.chains.items():
            joined = sum(len(c) > 1 for c in chains)
            console.print(
                f"{markup(task)}: {plural(len(chains), 'unresolved chain')} "
                f"({format_count(joined)} of more than one model)"
            )
        print_notes(console, r.notes)
    else:
        console.print(f"wrote {format_count(r.rows)} rows of {markup(r.store)} to "
                      f"{markup(r.output)}")


def render_gold_coverage(result: Any, console: Console, max_rows: int = 20) -> None:
    """Print the gold study: each pair's coverage and widths, then the coverage over all."""
    shown = result.pairs[:max_rows]
    rows = [
        [
            f"{p.model_a} vs {p.model_b}",
            format_count(p.n_items),
            format_count(p.n_gold),
            format_points(p.judge_gap),
            format_points(p.true_gap),
            number(p.coverage, ".3f"),
            number(p.gold_only_coverage, ".3f"),
            number(p.width_ratio, ".2f"),
            "yes" if p.flipped else "no",
        ]
        for p in shown
    ]
    columns: list[tuple[str, JustifyMethod]] = [
        ("pair", "left"), ("items", "right"), ("labels", "right"), ("judge gap", "right"),
        ("gold gap", "right"), ("coverage", "right"), ("gold only", "right"),
        ("width ratio", "right"), ("flipped", "left"),
    ]  # fmt: skip
    more = f" (the first {max_rows}; --json for all)" if len(result.pairs) > max_rows else ""
    print_table(
        console,
        columns,
        rows,
        names=(0,),
        title=f"gold study: {plural(len(result.pairs), 'pair')} x "
        f"{plural(result.n_trials, 'run')}, {format_percent(result.label_share)} of each "
        f"pair's items labelled per run{more}",
        title_justify="left",
        legend="gaps in points; coverage: runs whose PPI++ interval holds the true gold-scale "
        "gap; gold only: the gold labels alone; width ratio: PPI++ width over gold-only width",
    )
    console.print(markup(_capitalise(result.verdict) + "."))
