"""Terminal report of ``evalgap fragility``: per pair, the items to flip of each verdict."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Console

from evalgap.report.sentences import FLIP_TEST_NAMES
from evalgap.report.terminal import _capitalise, print_notes, print_table
from evalgap.report.text import format_count, format_points, markup

# Column order: the tests (binary, then graded), then resolution under each procedure.
COLUMNS = ("exact", "mcnemar", "paired_t", "sign", "resolution", "bonferroni", "sidak", "holm")
LEGEND = (
    "each cell: the fewest items whose removal from the pair reverses that verdict; "
    "* marks a verdict that now declares a winner (the removal ends it), unmarked cells a "
    "verdict with none (the removal creates one); <= an upper bound (graded pairs); - no "
    "removal can"
)


def flip_cell(entry: Any) -> str:
    """One table cell: ``3*`` (a claim three removals end), ``16``, ``<=7``, ``-``."""
    if entry is None:
        return ""
    if entry.items_to_flip is None:
        return "-"
    bound = "" if entry.exact else "<="
    return f"{bound}{format_count(entry.items_to_flip)}{'*' if entry.claim else ''}"


# A family larger than this shows its closest calls only (the JSON gives every pair).
SHOWN_PAIRS = 40


def render_fragility(r: Any, console: Console) -> None:
    """Print one row per pair with a cell per test and procedure, then the sentence; of a
    family of more than ``SHOWN_PAIRS`` pairs, the pairs whose verdicts the fewest removals
    reverse, in the family's order."""
    present = [t for t in COLUMNS if t in r.counts()]
    several = len(set(r.pairs.task.tolist())) > 1
    head = [("task", "left")] * several + [("model A", "left"), ("model B", "left")]
    columns = [*head, ("delta (points)", "right")]
    columns += [(FLIP_TEST_NAMES[t], "right") for t in present]
    shown: list[int] = list(range(len(r.pairs)))
    if len(r.pairs) > SHOWN_PAIRS:
        shown = sorted(np.argsort(r.fewest(), kind="stable")[:SHOWN_PAIRS].tolist())
        console.print(
            f"the {SHOWN_PAIRS} closest calls of {format_count(len(r.pairs))} pairs (the fewest "
            "items to flip; --json for every pair)"
        )
    rows = []
    for p in (r.pairs[k] for k in shown):
        cells = [p.task] * several + [p.model_a, p.model_b]  # raw: print_table escapes names
        cells.append(format_points(p.delta))
        cells.extend(flip_cell(_entry(p, t)) for t in present)
        rows.append(cells)
    print_table(
        console,
        columns,  # type: ignore[arg-type]
        rows,
        names=tuple(range(len(head))),
        title=f"items to flip (alpha={r.alpha:g}, power {r.power:g}, family of "
        f"{format_count(r.family_size)})",
        title_justify="left",
        legend=LEGEND,
    )
    print_notes(console, r.notes)
    console.print()
    console.print(markup(_capitalise(r.verdict) + "."))


def _entry(pair: Any, test: str) -> Any:
    return next((e for e in pair.fragility.tests if e.test == test), None)
