"""GitHub-flavoured Markdown: the leaderboard card (a README section or a pull-request comment).

Every cell a user's data can reach (model and task names) is cleaned of control characters
and escaped, so a name cannot break a table or inject markup: ``|`` and the Markdown
punctuation get a backslash, ``<``, ``>`` and ``&`` become entities.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from evalgap.report.terminal import UNBOUNDED_WIDTH
from evalgap.report.text import (
    OWN_ITEMS_MEAN,
    clean,
    format_count,
    format_level,
    format_p,
    format_points,
    format_q,
    format_score,
    number,
    points_interval,
    score_interval,
    shows_own_items_mean,
)

_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def cell(value: object) -> str:
    """Return ``value`` as one safe Markdown table cell (one line, escaped)."""
    text = clean(value).replace("\n", " ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # "@name" and "#12" would mention a user or link an issue in a pull-request comment
    text = text.replace("#", "&#35;").replace("@", "&#64;")
    return _SPECIAL.sub(r"\\\1", text)


def prose(value: object) -> str:
    """Return a sentence for a Markdown paragraph: as :func:`cell`, but ``>`` is kept (it
    quotes only at the start of a line, and a sentence starts with a letter)."""
    return cell(value).replace("&gt;", ">")


def table(header: list[str], align: str, rows: list[list[str]]) -> str:
    """Return a Markdown table; ``align`` has one character per column: ``l`` or ``r``."""
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _span(low: int, high: int) -> str:
    return f"{low}" if low == high else f"{low}–{high}"


def _flip(count: int | None, exact: bool = True) -> str:
    if count is None:
        return "–"
    return f"{'' if exact else '≤'}{format_count(count)}"


def card_markdown(r: Any) -> str:
    """Return a leaderboard card as Markdown: the sentence, then per task the models, the
    adjacent pairs and the board figures, then the settings and notes."""
    level = format_level(r.settings["alpha"])
    out = ["## Leaderboard card", "", prose(_capitalised(r.verdict)) + ".", ""]
    for t in r.tasks:
        out += [f"### {cell(t.task)} ({format_count(t.n_items)} items)", ""]
        out.append(
            f"Adjacent pairs separated: {t.separated} of {len(t.pairs)} · resolved "
            f"(q ≥ 1): {t.resolved} of {len(t.pairs)} · models with a single rank: "
            f"{t.single_rank} of {len(t.models)} · signal-to-noise: "
            f"{number(t.signal_to_noise, '.3g')}"
        )
        out.append("")
        rows = [
            [
                str(m.rank),
                cell(m.model),
                format_score(m.score),
                score_interval(m.score_low, m.score_high),
                _span(m.rank_low, m.rank_high),
                _span(m.marginal_low, m.marginal_high),
                str(m.tier),
                format_count(m.items_missing),
            ]
            for m in t.models
        ]
        header = ["Rank", "Model", "Score", f"{level} interval", "Rank set", "Marginal set",
                  "Tier", "Items missing"]  # fmt: skip
        align = "rlrlllrr"
        if shows_own_items_mean([m.score for m in t.models], [m.own_items_mean for m in t.models]):
            header.insert(4, OWN_ITEMS_MEAN)
            align = align[:4] + "r" + align[4:]
            for row, m in zip(rows, t.models, strict=True):
                row.insert(4, format_score(m.own_items_mean))
        out += [table(header, align, rows), ""]
        if t.pairs:
            test = "exact" if t.pairs[0].test == "exact" else "paired t"
            rows = [
                [
                    f"{cell(p.model_a)} vs {cell(p.model_b)}",
                    format_points(p.delta),
                    points_interval(p.delta_low, p.delta_high),
                    format_p(p.p_value, bare=True),
                    format_q(p.resolution_ratio),
                    "yes" if p.separated else "no",
                    _flip(p.items_to_flip, p.items_to_flip_exact),
                    _flip(p.items_to_flip_resolution, p.items_to_flip_exact),
                ]
                for p in t.pairs
            ]
            header = ["Adjacent pair", "Gap (points)", f"{level} interval", f"p ({test})", "q",
                      "Separated", f"Items to flip ({test})", "Items to flip (q ≥ 1)"]  # fmt: skip
            out += [table(header, "lrlrrlrr", rows), ""]
    if r.over_tasks is not None:
        o = r.over_tasks
        out += [
            f"### Over the {o.n_tasks} tasks",
            "",
            f"The mean of the task scores. Rank sets with the tasks fixed (their items "
            f"resampled) and with the tasks drawn from a population (tasks and items "
            f"resampled); the second are {number(o.widening, '.2f')}x as wide on average.",
            "",
        ]
        rows = [
            [cell(m.model), format_score(m.score), _span(m.rank_low_items, m.rank_high_items),
             _span(m.rank_low, m.rank_high), format_score(m.se_items), format_score(m.se)]
            for m in o.models
        ]  # fmt: skip
        header = ["Model", "Score", "Rank set (these tasks)", "Rank set (tasks sampled)",
                  "SE (these tasks)", "SE (tasks sampled)"]  # fmt: skip
        out += [table(header, "lrllrr", rows), ""]
    s = r.settings
    out += [
        "### Settings",
        "",
        f"alpha {s['alpha']:g} · power {s['power']:g} · rank sets: {cell(s['method'])}"
        + (f", {format_count(s['n_bootstrap'])} bootstrap replicates" if s["n_bootstrap"] else "")
        + f" · seed {cell(s['seed'])} · evalgap {cell(s['evalgap_version'])}",
        "",
        "Rank set: the ranks a model can claim, simultaneously for all models; marginal set: "
        "for that model alone. Separated: the rank sets show A better than B. Items to flip: "
        "the fewest items whose removal from the pair reverses the verdict (≤: an upper "
        "bound). Signal-to-noise: the SD of the models' scores over the median standard "
        "error of one score.",
    ]
    if r.notes:
        out += ["", *(f"- note: {prose(n)}" for n in r.notes)]
    return "\n".join(out) + "\n"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- every other result: its terminal view, replayed into Markdown -------------------------



class MarkdownConsole(Console):
    """A console that records what a terminal renderer prints as GitHub-flavoured Markdown.

    Tables become Markdown tables (their title in bold above; a table without a header gets
    empty header cells), printed lines become paragraphs, and ``note:`` lines a list. Rich
    markup is resolved to plain text first, then every cell and line is escaped
    (:func:`cell`, :func:`prose`): the report says exactly what the terminal says, with no
    ANSI codes and no way for a name to break a table.
    """

    def __init__(self) -> None:
        super().__init__(width=UNBOUNDED_WIDTH, emoji=False, highlight=False, color_system=None)
        self.blocks: list[str] = []

    def print(self, *objects: Any, **kwargs: Any) -> None:
        markup = kwargs.get("markup", True) is not False  # as the terminal prints it
        for obj in objects:
            if isinstance(obj, Table):
                self.blocks.append(_table_markdown(obj))
            else:
                if isinstance(obj, Text):
                    text = obj.plain
                else:
                    text = Text.from_markup(str(obj), emoji=False).plain if markup else str(obj)
                if text.strip():
                    self.blocks.append(_line_markdown(text))

    def markdown(self) -> str:
        """The recorded blocks, notes gathered into lists."""
        out: list[str] = []
        for block in self.blocks:
            if block.startswith("- ") and out and out[-1].startswith("- "):
                out[-1] += "\n" + block
            else:
                out.append(block)
        return "\n\n".join(out) + "\n"


def _plain(value: Any) -> str:
    if isinstance(value, Text):
        return value.plain
    return Text.from_markup(str(value), emoji=False).plain


def _line_markdown(text: str) -> str:
    """A printed line: a list item for a note, a paragraph otherwise."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].startswith("note:"):
        return "\n".join(f"- {prose(line)}" for line in lines)
    return "\n\n".join(prose(line.strip()) for line in lines)


def _table_markdown(t: Table) -> str:
    """A Rich table as a Markdown table, its title in bold above."""
    columns = t.columns
    header = [cell(_plain(c.header)) if t.show_header else " " for c in columns]
    align = "".join("r" if c.justify == "right" else "l" for c in columns)
    cells = [[cell(_plain(v)) for v in c._cells] for c in columns]
    rows = [list(row) for row in zip(*cells, strict=True)] if cells else []
    title = f"**{cell(_plain(t.title))}**\n\n" if t.title else ""
    return title + table(header, align, rows)


def result_markdown(result: Any) -> str:
    """Return a result's report as GitHub-flavoured Markdown: its heading (``_heading``), then
    what its terminal view prints, table by table and line by line (see
    :class:`MarkdownConsole`)."""
    out = MarkdownConsole()
    result._render(out)
    return f"## {result._heading}\n\n" + out.markdown()
