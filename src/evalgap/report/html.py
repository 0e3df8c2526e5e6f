"""Self-contained HTML reports: inline CSS and SVG figures, no scripts, no network.

The audit report leads with the per-model table (what a leaderboard shows, with intervals
and missing items), then the verdicts, the pairs and the figures, and ends with where the
numbers came from (provenance) and a glossary of the column headers.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError, escape
from evalgap.report import plots
from evalgap.report.sentences import (
    flip_rank_claim,
    judge_table,
    style_line,
)
from evalgap.report.text import (
    OWN_ITEMS_MEAN,
    clean,
    format_count,
    format_gap,
    format_level,
    format_n,
    format_p,
    format_percent,
    format_points,
    format_q,
    format_score,
    format_statistic,
    gap_interval,
    number,
    pairs_noun,
    plot_label,
    plural,
    points_interval,
    score_interval,
    shows_own_items_mean,
)

if TYPE_CHECKING:
    from evalgap.io._files import PathArg

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1220px;
  padding: 0 16px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
nav { font-size: 0.9em; } nav a { margin-right: 0.9em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.82em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; vertical-align: top; }
th { background: #f4f4f4; font-weight: 600; }
td.text, th.text { text-align: left; }
td.name { text-align: left; min-width: 10em; max-width: 16em; overflow-wrap: anywhere; }
td { white-space: nowrap; } td.text, td.name { white-space: normal; }
th { white-space: normal; }
th.verdict, td.verdict { text-align: center; white-space: nowrap; }
th.group { text-align: center; background: #e8eef8; }
.unresolved { color: #b3401b; font-weight: 600; } .resolved { color: #1b5fb3; }
.na { color: #888; }
.note { color: #555; font-size: 0.9em; } figure { margin: 1em 0; }
figcaption { max-width: 60em; }
.scroll { overflow-x: auto; }
.summary { font-size: 1.05em; background: #f7f7f2; padding: 0.6em 0.9em;
  border-left: 4px solid #999; }
dl.legend { font-size: 0.85em; display: grid; grid-template-columns: max-content auto;
  gap: 0.15em 1em; max-width: 70em; }
dl.legend dt { font-weight: 600; } dl.legend dd { margin: 0; }
svg { max-width: 100%; height: auto; }
"""

PROCEDURE_NAMES = {
    "fixed_n": "Fixed n",
    "bonferroni": "Bonferroni",
    "sidak": "Sidak",
    "holm": "Holm",
    "bh": "Benjamini-Hochberg",
    "anytime_valid": "Anytime-valid (e-process)",
    "clustered": "Clustered (design effect)",
}
PROCEDURE_SHORT = {
    "fixed_n": "Fixed n",
    "bonferroni": "Bonf.",
    "sidak": "Sidak",
    "holm": "Holm",
    "bh": "BH",
    "anytime_valid": "Anytime",
    "clustered": "Clustered",
}
# The procedures' names inside a sentence.
PROCEDURE_IN_PROSE = {
    **PROCEDURE_NAMES,
    "fixed_n": "fixed n",
    "anytime_valid": "anytime-valid testing",
    "clustered": "clustering",
}
PROCEDURE_MEANING = {
    "fixed_n": "N* at level alpha for each pair on its own, as if it were the only comparison.",
    "bonferroni": "N* at level alpha/m: no false claim in the whole family (m pairs).",
    "sidak": "N* at level 1-(1-alpha)^(1/m); all but equal to Bonferroni.",
    "holm": "Step-down on the Wald statistics; family-wise error at alpha, more power.",
    "bh": "Benjamini-Hochberg step-up: controls the false discovery rate.",
    "anytime_valid": "Mixture e-process boundary: valid however often results are peeked at.",
    "clustered": "N* times the design effect of the pair's intra-cluster correlation.",
}
BINARY_ONLY = {"anytime_valid": "the e-process is defined for binary (0/1) scores"}
# Tasks drawn per figure type; the tables list every task.
MAX_TASK_FIGURES = 6
# Large audits (a 1,000-model --family all has 499,500 pairs): the page lists and draws at
# most this many pairs and says so; --json carries every pair.
MAX_TABLE_PAIRS = 5_000
MAX_DRAWN_PAIRS = 5_000
MAX_FOREST_MODELS = 100

# The tests and procedures of the audit's items to flip, as the headers name them.
FLIP_TESTS = {
    "exact": "exact test",
    "mcnemar": "McNemar",
    "paired_t": "paired t",
    "sign": "sign test",
    "resolution": "resolved (fixed n)",
    "bonferroni": "resolved (Bonferroni)",
    "sidak": "resolved (Šidák)",
    "holm": "resolved (Holm)",
}
PAIR_HEADERS = {
    "task": "Task",
    "model_a": "Model A (ranked higher)",
    "model_b": "Model B",
    "delta": "Δ = A − B",
    "delta_interval": "Δ interval",
    "n_items": "Items N",
    "correlation": "Corr. ρ",
    "a_only": "Only A right",
    "b_only": "Only B right",
    "required_n": "N*",
    "resolution_ratio": "q = N/N*",
    "p_exact": "p exact",
    "p_mid_p": "p mid-p",
    "p_mcnemar": "p McNemar",
    "p_bootstrap": "p bootstrap",
    "p_paired_t": "p paired t",
    "icc": "ICC",
    "design_effect": "Design effect",
    "required_n_clustered": "N* clustered",
}
# What a board's score is, in every page that lists one (audit, ranks, card)
SCORE_MEANING = (
    "The model's mean score; where models lack items, the additive fit model + item over the "
    "scores there are, which charges a model with the difficulty of the items it lacks (its "
    "mean over its own items is shown as Own-items mean). The order of every table of the board."
)
OWN_ITEMS_MEANING = (
    "The model's mean over the items it was scored on, shown where some model lacks items "
    "(what a leaderboard that ignores the missing items prints)."
)
GLOSSARY = {
    "Score": SCORE_MEANING,
    "95% interval": "a 95% confidence interval of the score, that model alone (Wilson's for "
    "binary scores).",
    "Items missing": "items of the task with no usable score for this model; each pair is "
    "tested on the items both of its models scored.",
    OWN_ITEMS_MEAN: OWN_ITEMS_MEANING,
    "Δ = A − B": "difference of the two models' mean scores on their shared items.",
    "Corr. ρ": "per-item correlation of the two models' scores (pairing gains 1/(1 − ρ)).",
    "Only A right / Only B right": "discordant items (binary scores); for graded scores, "
    "items where A (B) scored higher.",
    "N*": "items a paired test needs to detect a gap of this size at the stated alpha and "
    "power (Equation 3).",
    "Δ interval": "the paired confidence interval of Δ at the audit's level (Newcombe's "
    "method 10 for binary scores, the paired t interval for graded scores).",
    "q = N/N*": "resolution ratio: the items available over the items needed; a pair is "
    "resolved when q ≥ 1.",
    "p exact / mid-p / McNemar": "paired tests of Δ = 0 on the discordant items.",
    "p bootstrap / paired t": "paired percentile bootstrap and paired t-test p-values.",
    "Resolved under …": "yes when the benchmark has enough items to resolve the gap under "
    "that procedure; no (unresolved) when it has not: at this N the benchmark cannot tell "
    "the two models apart, which does not mean they are equal.",
    "Unresolved chain": "a run of models, consecutive in the displayed ranking, each "
    "unresolved against the next under the chain procedure (--procedure). Not a tier.",
    "Tier": "from the simultaneous rank sets (as evalgap ranks): a new tier starts where "
    "every model above is shown better than every model below.",
}


# --- public API -----------------------------------------------------------------------------


def audit_report(
    result: Any, *, title: str = "evalgap audit", provenance: dict | None = None
) -> str:
    """Return the audit as one HTML page (per-model table first; no scripts, no network).

    ``provenance`` (see ``provenance()``) lists the inputs, evalgap version, options and
    date; it is printed at the end of the page.
    """
    if result.gold is not None:
        return gold_audit_report(result, title=title, provenance=provenance)
    r = result
    n_pairs = len(r.pairs)
    n_tasks = len(set(r.pairs.task.tolist()))
    sections = [
        ("models", "Models"),
        ("verdicts", "Verdicts"),
        ("chains", "Unresolved chains"),
        ("tiers", "Tiers"),
        *([("ranks", "Rank sets")] if r.rank_sets is not None else []),
        *([("heatmap", "Pairwise verdicts")] if r.family == "all" else []),
        *([("flips", "Flips under clustering")] if "clustered" in r.pairs.resolved else []),
        ("pairs", _capitalised(_family_heading(r))),
        ("binned", "By gap size"),
        ("figures", "Figures"),
        *([("clusters", "Cluster stress tests")] if r.cluster_stress is not None else []),
        ("provenance", "Provenance"),
        ("legend", "Glossary"),
    ]
    parts = [
        f"<h1>{_e(title)}</h1>",
        "<nav>" + "".join(f"<a href='#{key}'>{_e(name)}</a>" for key, name in sections) + "</nav>",
        f"<p class='summary'>{_e(_summary(r))}</p>",
        f"<p>{_e(_capitalised(pairs_noun(r.family, n_pairs)))} on {plural(n_tasks, 'task')}; "
        f"alpha = {r.alpha:g}, power = {r.power:g}; family size m = {format_count(r.family_size)} "
        "(Bonferroni "
        f"multiplies N* by {number(r.bonferroni_inflation, '.2f')}, Sidak by "
        f"{number(r.sidak_inflation, '.2f')}). Each pair is tested on the items both of its "
        "models scored.</p>",
    ]
    parts += _models_section(r)
    parts += _verdicts_section(r)
    parts += _chains_section(r)
    parts += _tiers_section(r)
    if r.rank_sets is not None:
        parts += _rank_sets_section(r.rank_sets)
    if r.family == "all":
        parts += _heatmap_section(r)
    if "clustered" in r.pairs.resolved:
        parts += _flips_section(r)
    parts.append(f"<h2 id='pairs'>{_e(_capitalised(_family_heading(r)))}</h2>")
    parts.append(_pairs_table(r))
    parts.append(f"<h2 id='binned'>{_e(_capitalised(_family_heading(r)))} by gap size</h2>")
    parts.append(_binned_table(r))
    parts += _figures_section(r)
    if r.cluster_stress is not None:
        parts.append(_cluster_section(r))
    return _page(title, parts, r.notes, provenance, GLOSSARY)


def report_html(
    result: Result,
    path: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    provenance: dict | None = None,
) -> str:
    """Return a result's HTML report -- the page ``--html`` writes -- and write it to ``path``.

    The same page as the command line draws for the same inputs, byte for byte, except the
    provenance section: the command line records its command, input files and options there
    (see :func:`provenance`); from Python it says the page came from the Python API unless
    ``provenance`` is given.

    Parameters
    ----------
    result : a job's result
        What a job returned: :func:`evalgap.audit`, :func:`evalgap.ranks` and
        :func:`evalgap.card` draw the page of their ``--html``; any other result its terminal
        report as a page (``result.to_html(path)`` is the same).
    path : str or Path, optional
        Where to write the page (atomically: a temporary file beside it, then a rename).
    title : str, optional
        The page title (default ``"evalgap audit"`` / ``"evalgap ranks"``).
    provenance : dict, optional
        What produced the result, as :func:`provenance` returns it.

    Returns
    -------
    str
        The page: one self-contained HTML document (inline CSS and SVG, no scripts).

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> pairs = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "both_correct": [80],
    ...     "a_only": [15], "b_only": [5], "both_wrong": [0]})
    >>> page = evalgap.report_html(evalgap.audit(pairs=pairs, n_bootstrap=0))
    >>> page.startswith("<!DOCTYPE html>"), "<title>evalgap audit</title>" in page
    (True, True)
    """
    to_html = getattr(result, "to_html", None)
    if not callable(to_html):
        raise InputError(
            "{result}" + escape(f" is a {type(result).__name__}, not a result of evalgap's jobs"),
            param="result",
        )
    return str(to_html(path, title=title, provenance=provenance))


def _page(
    title: str,
    parts: list[str],
    notes: Iterable[str],
    provenance: dict | None,
    glossary: dict,
) -> str:
    """One self-contained page: the sections, the notes, provenance and the glossary."""
    parts = [*parts, *(f"<p class='note'>note: {_e(note)}</p>" for note in notes)]
    parts += _provenance_section(provenance)
    parts += ["<h2 id='legend'>Glossary</h2>", _legend(glossary)]
    body = "\n".join(parts)
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
        f"</body></html>\n"
    )


def provenance(inputs: Iterable[PathArg], options: dict, *, command: str = "audit") -> dict:
    """Return what produced a report: input files (size, SHA-256), version, options, date.

    ``options`` maps each option the user gave to its value. The date honours
    ``SOURCE_DATE_EPOCH`` so a report can be rebuilt byte for byte.
    """
    from evalgap import __version__

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (
        dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
        if epoch and epoch.isdigit()
        else dt.datetime.now(dt.timezone.utc)
    )
    return {
        "command": f"evalgap {command}",
        "evalgap_version": __version__,
        "date": when.strftime("%Y-%m-%d %H:%M UTC"),
        "inputs": [_describe_input(p) for p in inputs],
        "options": {str(k): v for k, v in options.items()},
    }


def write_report(path: PathArg, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file beside it, then a rename.

    A failure leaves no partial file (and an existing report untouched).
    """
    from evalgap.io._write import atomic_write

    atomic_write(path, lambda handle: handle.write(text), option="--html", what="the report")


def _summary(r: Any) -> str:
    return r.verdict


def _models_section(r: Any) -> list[str]:
    rankings = r.rankings
    several = rankings["task"].nunique() > 1 if len(rankings) else False
    out = ["<h2 id='models'>Models</h2>"]
    chain_names = _chain_names(r)
    tier_of = _tier_numbers(r)
    rows = []
    for row in rankings.itertuples(index=False):
        record = row._asdict()
        interval = score_interval(record.get("score_low"), record.get("score_high"))
        missing = record.get("items_missing")
        rows.append(
            {
                **({"Task": record["task"]} if several else {}),
                "Rank": int(record["rank"]),
                "Model": record["model"],
                "Score": format_score(record["score"]),
                "95% interval": interval,
                OWN_ITEMS_MEAN: format_score(record.get("own_items_mean", record["score"])),
                "Items scored": format_count(record["n_items"]),
                "Items missing": format_count(missing) if _finite(missing) else "—",
                "Unresolved chain": chain_names.get((record["task"], record["model"]), ""),
                **({"Tier": tier_of.get((record["task"], record["model"]), "")} if tier_of else {}),
            }
        )
    frame = pd.DataFrame(rows)
    if "own_items_mean" not in rankings or not shows_own_items_mean(
        rankings["score"], rankings["own_items_mean"]
    ):
        frame = frame.drop(columns=OWN_ITEMS_MEAN)
    out.append(_table(frame, text=("Task", "Unresolved chain"), names=("Model",)))
    out.append(f"<p class='note'>{_e(_tier_sentence(r))}</p>")
    lacking = (
        rankings[rankings["items_missing"].fillna(0) > 0]
        if "items_missing" in rankings.columns
        else rankings.iloc[0:0]
    )
    if len(lacking):
        out.append(
            f"<p class='note'>{plural(len(lacking), 'model')} lack items; each pair is tested "
            "on the items both of its models scored, so a pair with one of them uses fewer "
            "items than the task has.</p>"
        )
    elif "items_missing" not in rankings.columns:
        out.append("<p class='note'>Missing-item counts are not available for this audit.</p>")
    tasks = list(dict.fromkeys(rankings["task"]))
    shown = tasks[:MAX_TASK_FIGURES]
    for task in shown:
        everyone = rankings[rankings["task"] == task]
        sub = everyone.sort_values("rank", kind="stable").head(MAX_FOREST_MODELS)
        caption = (
            "Each model's score"
            + (" with its 95% interval" if "score_low" in sub.columns else "")
            + "; models in one shaded bracket form an unresolved chain under "
            f"{PROCEDURE_IN_PROSE.get(r.chain_procedure, r.chain_procedure)} (each "
            "adjacent gap unresolved)."
        )
        if len(sub) < len(everyone):
            caption += f" Showing the top {len(sub)} of {len(everyone)} models by rank."
        out.append(
            _figure(
                plots.forest(
                    sub, r.chains.get(task, []), f"{plot_label(task)}: scores, best first"
                ),
                caption,
            )
        )
    if len(tasks) > len(shown):
        out.append(
            f"<p class='note'>Score charts: showing {len(shown)} of {len(tasks)} tasks (the "
            "first in the input's order); the table above lists every task.</p>"
        )
    return out


def _verdicts_section(r: Any) -> list[str]:
    n = len(r.pairs)
    rows = []
    for proc in r.procedures:
        count = r.unresolved.get(proc)
        rows.append(
            {
                "Procedure": PROCEDURE_NAMES.get(proc, proc),
                "Unresolved pairs": format_count(count),
                "Share": "—" if count is None or not n else format_percent(count / n, 0),
                "What it asks": PROCEDURE_MEANING.get(proc, "")
                if count is not None
                else "Does not apply: " + BINARY_ONLY.get(proc, "no verdicts for these data"),
            }
        )
    out = [
        "<h2 id='verdicts'>Unresolved pairs by procedure</h2>",
        f"<p>Out of {_e(pairs_noun(r.family, n))}; family size m = "
        f"{format_count(r.family_size)}.</p>",
        _table(pd.DataFrame(rows), text=("Procedure", "What it asks")),
    ]
    sens = r.correlation_sensitivity
    out.append(
        "<p class='note'>Correlation sensitivity (ρ − 0.1 / as estimated / ρ + 0.1, clamped): "
        f"{sens['correlation_minus_0.1']} / {sens['correlation']} / "
        f"{sens['correlation_plus_0.1']} unresolved at fixed n.</p>"
    )
    return out


def _chain_names(r: Any) -> dict:
    names = {}
    for task, chains in r.chains.items():
        k = 0
        for chain in chains:
            if len(chain) > 1:
                k += 1
                for model in chain:
                    names[(task, model)] = f"chain {k}"
    return names


def _tier_numbers(r: Any) -> dict:
    tiers = r.tiers or {}
    return {
        (task, model): k
        for task, groups in tiers.items()
        for k, group in enumerate(groups, start=1)
        for model in group
    }


def _tier_sentence(r: Any) -> str:
    """ "Tiers from 95% simultaneous rank sets (...)." or "No tiers: <why>."."""
    method = r.tier_method
    return f"{_capitalised(method)}." if r.tiers is None else f"Tiers from {method}."


def _chains_section(r: Any) -> list[str]:
    procedure = PROCEDURE_NAMES.get(r.chain_procedure, r.chain_procedure)
    out = [
        f"<h2 id='chains'>Unresolved chains ({_e(procedure)})</h2>",
        "<p>Runs of models, consecutive in the displayed ranking, each unresolved against "
        "the next: at these sizes the benchmark cannot order them by their adjacent gaps "
        "(which does not make them equal). Drawn as shaded brackets in the score charts "
        "above. These are not the tiers, which come from the rank sets (next section).</p>",
    ]
    ranks = {(row.task, row.model): int(row.rank) for row in r.rankings.itertuples()}
    rows = []
    for task, chains in r.chains.items():
        k = 0
        for chain in chains:
            if len(chain) < 2:
                continue
            k += 1
            positions = [ranks.get((task, m)) for m in chain]
            known = [p for p in positions if p is not None]
            rows.append(
                {
                    "Task": task,
                    "Chain": f"chain {k}",
                    "Ranks": f"{min(known)}–{max(known)}" if known else "",
                    "Models": len(chain),
                    "Members, best first": ", ".join(clean(m) for m in chain),
                }
            )
    if rows:
        out.append(_table(pd.DataFrame(rows), text=("Task", "Chain", "Members, best first")))
    else:
        out.append("<p>None: every model is resolved from its neighbours.</p>")
    return out


def _tiers_section(r: Any) -> list[str]:
    out = ["<h2 id='tiers'>Tiers</h2>", f"<p>{_e(_tier_sentence(r))}</p>"]
    tiers = r.tiers
    if tiers is None:
        return out
    ranks = {(row.task, row.model): int(row.rank) for row in r.rankings.itertuples()}
    rows = []
    for task, groups in tiers.items():
        for k, group in enumerate(groups, start=1):
            positions = [ranks[(task, m)] for m in group if (task, m) in ranks]
            rows.append(
                {
                    "Task": task,
                    "Tier": k,
                    "Ranks": f"{min(positions)}–{max(positions)}" if positions else "",
                    "Models": len(group),
                    "Members, best first": ", ".join(clean(m) for m in group),
                }
            )
    out.append(_table(pd.DataFrame(rows), text=("Task", "Members, best first")))
    return out


def _heatmap_section(r: Any) -> list[str]:
    procedure = r.chain_procedure
    column = f"resolved_{procedure}"
    out = [
        "<h2 id='heatmap'>Pairwise verdicts</h2>",
        f"<p>Every pair of models under {_e(PROCEDURE_IN_PROSE.get(procedure, procedure))}, models "
        "in rank order.</p>",
    ]
    tasks = list(dict.fromkeys(r.rankings["task"]))
    shown = tasks[:MAX_TASK_FIGURES]
    frame = r.pairs.to_frame()
    for task in shown:
        ranking = r.rankings[r.rankings["task"] == task].sort_values("rank", kind="stable")
        models = ranking["model"].tolist()
        k = len(models)
        limit = plots.MAX_HEATMAP_MODELS
        models = models[:limit]
        sub = frame[frame["task"] == task]
        verdicts = {
            (a, b): (None if pd.isna(v) else bool(v))
            for a, b, v in zip(sub["model_a"], sub["model_b"], sub[column], strict=True)
        }
        caption = (
            "Blue: resolved; orange: unresolved (the two models cannot be told apart with "
            "these items); grey: no verdict."
        )
        if k > limit:
            caption += (
                f" Showing the top {limit} of {k} models by rank; every pair is in the table."
            )
        out.append(
            _figure(
                plots.verdict_heatmap(models, verdicts, f"{plot_label(task)}: pairwise verdicts"),
                caption,
            )
        )
    if len(tasks) > len(shown):
        out.append(
            f"<p class='note'>Heatmaps: showing {len(shown)} of {len(tasks)} tasks (the first "
            "in the input's order).</p>"
        )
    return out


def _rank_sets_section(ranks: Any) -> list[str]:
    """The rank-interval plot of each task (the sets of evalgap ranks)."""
    level = format_level(ranks.alpha)
    out = [
        "<h2 id='ranks'>Rank sets</h2>",
        f"<p>{_e(ranks.verdict)} A model's rank set holds every rank it can claim; the sets "
        f"hold all true ranks at once with {level} confidence.</p>",
    ]
    for task in list(dict.fromkeys(ranks.ranks["task"]))[:MAX_TASK_FIGURES]:
        out.append(
            _figure(
                plots.rank_intervals(
                    _rank_figure_frame(ranks, task), f"{plot_label(task)}: rank sets", level=level
                ),
                f"Thin bars: {level} simultaneous rank sets; thick: marginal sets; dots: the "
                "ranks by score; shaded bands: tiers.",
            )
        )
    return out


def _rank_figure_frame(ranks: Any, task: str) -> pd.DataFrame:
    sub = ranks.ranks[ranks.ranks["task"] == task].sort_values("rank", kind="stable")
    marginal = ranks.marginal[ranks.marginal["task"] == task].set_index("model")
    figure = sub.copy()
    if len(marginal):
        figure["marginal_low"] = marginal.loc[figure["model"], "rank_low"].to_numpy()
        figure["marginal_high"] = marginal.loc[figure["model"], "rank_high"].to_numpy()
    return figure


def _flips_section(r: Any) -> list[str]:
    out = ["<h2 id='flips'>Pairs whose verdict flips under clustering</h2>"]
    flips = r.flips()
    if not len(flips):
        out.append("<p>None: clustering leaves every resolved pair resolved.</p>")
        return out
    columns = [
        "task",
        "model_a",
        "model_b",
        "delta",
        "icc",
        "design_effect",
        "required_n",
        "required_n_clustered",
        "n_items",
    ]
    frame = flips[[c for c in columns if c in flips.columns]].copy()
    for c in ("required_n", "required_n_clustered"):
        frame[c] = frame[c].map(format_n)
    if "delta" in frame.columns:
        frame["delta"] = frame["delta"].map(format_gap)
    frame = frame.rename(columns=PAIR_HEADERS)
    out.append(
        _table(
            frame,
            text=(PAIR_HEADERS["task"],),
            names=(PAIR_HEADERS["model_a"], PAIR_HEADERS["model_b"]),
        )
    )
    return out


def _pairs_table(r: Any) -> str:
    """The pairs: names, verdicts, the gap with its interval, N, N*, q and the primary p.

    The other columns (correlation, discordant counts, the other p-values) are in a second
    table behind a disclosure, so the first fits a 1280-pixel window without scrolling.
    """
    p = r.to_frame()  # the pairs, with their items to flip when the audit has them
    several = p["task"].nunique() > 1
    binary = bool(p["binary"].all()) if "binary" in p.columns else True
    header_names = dict(PAIR_HEADERS)
    flips = [c for c in p.columns if c.startswith("items_to_flip_")]
    for c in flips:
        test = c.removeprefix("items_to_flip_")
        header_names[c] = f"Items to flip: {FLIP_TESTS.get(test, test)}"
    if not binary:
        header_names["a_only"], header_names["b_only"] = "A higher", "B higher"
    names = ["model_a", "model_b"]
    verdicts = list(r.procedures)
    primary = [c for c in ("p_exact", "p_paired_t") if c in p.columns and not p[c].isna().all()]
    main = ["delta", "delta_interval", "n_items", "required_n", "resolution_ratio", *primary]
    more = ["correlation", "a_only", "b_only", "p_mid_p", "p_mcnemar", "p_bootstrap", *flips]
    more = [c for c in more if c in p.columns and not p[c].isna().all()]
    total = len(p)
    p = p.head(MAX_TABLE_PAIRS)
    records = p.to_dict(orient="records")
    lead = ["<th class='text' rowspan='2'>Task</th>"] if several else []
    lead += [f"<th class='text' rowspan='2'>{_e(header_names[c])}</th>" for c in names]
    head_top = [*lead, f"<th class='group' colspan='{len(verdicts)}'>Resolved under …</th>"]
    head_top += [f"<th rowspan='2'>{_e(header_names.get(c, c))}</th>" for c in main]
    head_bottom = [f"<th class='verdict'>{_e(PROCEDURE_SHORT.get(v, v))}</th>" for v in verdicts]
    rows, more_rows = [], []
    for record in records:
        cells = [f"<td class='text'>{_e(record['task'])}</td>"] if several else []
        cells += [f"<td class='name'>{_name(record[c])}</td>" for c in names]
        keys = list(cells)
        for proc in verdicts:
            value = record.get(f"resolved_{proc}")
            if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                cells.append("<td class='verdict na'>n/a</td>")
            elif bool(value):
                cells.append("<td class='verdict resolved'>yes</td>")
            else:
                cells.append("<td class='verdict unresolved'>no</td>")
        cells += [_pair_cell(r, record, c) for c in main]
        rows.append("<tr>" + "".join(cells) + "</tr>")
        more_cells = keys + [_pair_cell(r, record, c) for c in more]
        more_rows.append("<tr>" + "".join(more_cells) + "</tr>")
    table = (
        "<table class='pairs'><thead><tr>"
        + "".join(head_top)
        + "</tr><tr>"
        + "".join(head_bottom)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )
    more_head = [h.replace(" rowspan='2'", "") for h in lead]
    more_head += [f"<th>{_e(header_names.get(c, c))}</th>" for c in more]
    more_table = (
        "<details><summary>More columns per pair: "
        + _e(", ".join(header_names.get(c, c) for c in more))
        + "</summary><div class='scroll'><table class='pairs'><thead><tr>"
        + "".join(more_head)
        + "</tr></thead><tbody>"
        + "".join(more_rows)
        + "</tbody></table></div></details>"
        if more
        else ""
    )
    notes = []
    for proc in verdicts:
        if p[f"resolved_{proc}"].isna().any() and proc in BINARY_ONLY:
            notes.append(f"{PROCEDURE_NAMES[proc]}: n/a for graded pairs ({BINARY_ONLY[proc]}).")
    if "correlation" in more and not p["correlation"].map(_finite).all():
        notes.append(
            f"{PAIR_HEADERS['correlation']} — : undefined, one model of the pair has the same "
            "score on every shared item."
        )
    if len(p) < total:
        notes.insert(
            0,
            f"Showing the first {format_count(len(p))} of {format_count(total)} pairs (in rank "
            "order); the --json "
            "output lists every pair.",
        )
    level = format_level(r.alpha)
    legend = (
        "<p class='note'>yes = resolved (enough items for this gap under the procedure); "
        "no = unresolved (at this N the benchmark cannot tell the two apart; not a claim that "
        f"they are equal). Δ interval: {level} paired interval (Newcombe for binary pairs, "
        "paired t for graded). Columns are explained in the <a href='#legend'>glossary</a>."
        + "".join(f" {_e(n)}" for n in notes)
        + "</p>"
    )
    return f"<div class='scroll'>{table}</div>{more_table}{legend}"


def _pair_cell(r: Any, record: dict, c: str) -> str:
    value = record.get(c)
    if c == "delta_interval":
        return f"<td>{_e(gap_interval(record.get('delta_low'), record.get('delta_high')))}</td>"
    if c == "required_n":
        return f"<td>{_e(format_n(value))}</td>"
    if c == "resolution_ratio":
        return f"<td>{_e(format_q(value) if _finite(value) else '—')}</td>"
    if c == "correlation" and not _finite(value):
        return "<td class='na'>—</td>"
    if c.startswith("p_"):
        # a Monte Carlo bootstrap p below its resolution 1/B reads p<1/B, never 0
        monte_carlo = c == "p_bootstrap" and not record.get("binary", True)
        floor = 1.0 / r.n_bootstrap if monte_carlo and r.n_bootstrap else 0.0
        text = "" if not _finite(value) else format_p(value, floor, bare=True)
        return f"<td>{_e(text)}</td>"
    if c == "delta":  # the precision of its interval beside it
        return f"<td>{_e(format_gap(value))}</td>"
    if c.startswith("items_to_flip_"):  # no removal reverses the verdict: none
        return "<td class='na'>—</td>" if not _finite(value) else f"<td>{format_count(value)}</td>"
    return f"<td>{_e(_format(value))}</td>"


def _family_heading(r: Any) -> str:
    """The pairs of the audit's family: "adjacent pairs", "all pairs", "listed pairs"."""
    return {"adjacent": "adjacent pairs", "all": "all pairs"}.get(r.family, "listed pairs")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _binned_table(r: Any) -> str:
    """Pairs, unresolved and q by |Δ| (Table 3), from :meth:`AuditResult.binned_table`."""
    labels = {
        "<= 1%": "≤ 1 point",
        "1%-2%": "1–2 points",
        "2%-5%": "2–5 points",
        "5%-15%": "5–15 points",
        "> 15%": "> 15 points",
        "total": f"total ({_family_heading(r)})",
    }
    rows = [
        {
            "|Δ|": labels.get(row["bucket"], row["bucket"]),
            "Pairs": row["pairs"],
            "Unresolved (fixed n)": row["unresolved"],
            "Median q = N/N*": format_q(row["q_median"]) if _finite(row["q_median"]) else "—",
            "Smallest q": format_q(row["q_smallest"]) if _finite(row["q_smallest"]) else "—",
        }
        for row in r.binned_table().to_dict(orient="records")
    ]
    return _table(pd.DataFrame(rows), text=("|Δ|",))


def _figures_section(r: Any) -> list[str]:
    p = r.pairs.to_frame()
    out = ["<h2 id='figures'>Figures</h2>"]
    sampled = ""
    if len(p) > MAX_DRAWN_PAIRS:
        # a seeded sample keeps the SVG small; the same pairs on every run
        keep = np.sort(np.random.default_rng(0).choice(len(p), MAX_DRAWN_PAIRS, replace=False))
        sampled = (
            f" The charts draw a random sample (seed 0) of {format_count(MAX_DRAWN_PAIRS)} of the "
            f"{format_count(len(p))} pairs."
        )
        total = len(p)
        p = p.iloc[keep]
    else:
        total = len(p)
    q = p["resolution_ratio"].astype(float)
    finite = np.isfinite(q) & (q > 0)
    n_drawn = int(finite.sum())
    tasks = p["task"].nunique()
    if tasks == 1 and n_drawn <= plots.MAX_LABELLED_BARS:
        how = "one bar per pair, sorted by q"
    else:
        how = "one point per pair" + (", one column per task" if tasks > 1 else "")
    caption = (
        f"q = N/N* per pair on a log scale ({how}); below the dashed line (q < 1) the pair "
        f"is unresolved at fixed n. {_shown(n_drawn, total, 'pairs')}{sampled}"
    )
    if n_drawn < len(p):
        caption += " Pairs with a zero gap (q = 0) or no q cannot be drawn on a log scale."
    out.append(_figure(plots.resolution_chart(p), caption))
    if "unpaired_required_n" in p.columns:
        both = np.isfinite(p["required_n"].astype(float)) & np.isfinite(
            p["unpaired_required_n"].astype(float)
        )
        caption = (
            "Items each pair needs: paired N* (across) against the N an unpaired design with "
            "independent items would need per model (up). Points above the dashed diagonal "
            "are pairs that pairing helps, by the factor of their height above it; points "
            f"right of the dotted line need more items than the pair has. "
            f"{_shown(int(both.sum()), total, 'pairs')}{sampled}"
        )
        if int(both.sum()) < len(p):
            caption += " Pairs with no gap need infinitely many items and are not drawn."
        out.append(_figure(plots.required_n_comparison(p), caption))
    if r.trajectories:
        out.append(
            _figure(
                plots.trajectories(r.trajectories, r.alpha),
                f"Mixture e-process log e_n along the items, in a seeded random order, for the "
                f"{plural(len(r.trajectories), 'pair')} nearest the anytime-valid verdict "
                "boundary (chosen by how close their statistic is to it). The e-process "
                "rejects 'no gap' once its curve crosses the dashed line log(1/alpha). The "
                "table's anytime-valid verdict asks more: it is power-inclusive, calling a "
                "pair resolved only when its statistic clears the boundary u(n) plus the "
                "power margin z_beta, i.e. when the e-process would cross the line with the "
                "target power. A curve can therefore cross the line while the table says "
                "'no'. Dotted vertical lines: each pair's fixed-n N*.",
            )
        )
    return out


def _cluster_section(r: Any) -> str:
    s = r.cluster_stress
    parts = [
        "<h2 id='clusters'>Cluster stress tests</h2>",
        f"<p>Cluster bootstrap: B = {format_count(s.n_resamples)}, seed {_e(s.seed)}, clusters "
        "from "
        f"'{_e(s.column)}'. Share of draws by unresolved count under the clustered verdict:</p>",
    ]
    dist = pd.DataFrame(
        {
            "Unresolved pairs": list(s.unresolved_distribution),
            "Share of draws": [
                f"{number(100 * v, '.1f')}%" for v in s.unresolved_distribution.values()
            ],
        }
    )
    parts.append(_table(dist))
    intervals = s.intervals
    if len(intervals):
        headers = {
            "task": "Task",
            "model_a": "Model A",
            "model_b": "Model B",
            "icc": "ICC",
            "icc_low": "ICC 5%",
            "icc_high": "ICC 95%",
            "design_effect_low": "Design effect 5%",
            "design_effect_high": "Design effect 95%",
            "required_n_clustered_low": "N* clustered 5%",
            "required_n_clustered_high": "N* clustered 95%",
            "unresolved_share": "Share of draws unresolved",
        }
        parts.append(
            _table(
                intervals.rename(columns=headers),
                text=("Task",),
                names=("Model A", "Model B"),
            )
        )
        ordered = intervals.sort_values("icc", ascending=False, kind="stable")
        shown = ordered.head(plots.MAX_ICC_PAIRS)
        caption = "ICC of the paired difference per pair, with its 5–95% cluster-bootstrap range. "
        if len(shown) < len(ordered):
            caption += (
                f"Showing {len(shown)} of {len(ordered)} pairs: those with the largest ICC "
                "(where clustering costs most); every pair is in the table above."
            )
        else:
            caption += f"All {len(ordered)} pairs, largest ICC first."
        parts.append(_figure(plots.cluster_icc(shown), caption))
    if s.unresolved_distribution:
        parts.append(
            _figure(
                plots.unresolved_distribution(s.unresolved_distribution, len(r.pairs)),
                "Unresolved count across cluster-bootstrap draws.",
            )
        )
    parts.append("<h3>Leave one cluster out</h3>")
    parts.append(
        _table(
            s.leave_one_out.rename(
                columns={
                    "task": "Task",
                    "dropped": "Cluster left out",
                    "items": "Items left",
                    "unresolved": "Unresolved (clustered)",
                }
            ),
            text=("Task", "Cluster left out"),
        )
    )
    alt = pd.DataFrame(
        {
            "Cluster definition": [k.replace("_", " ") for k in s.alternatives],
            "Unresolved (clustered)": list(s.alternatives.values()),
        }
    )
    parts.append("<h3>Alternative cluster definitions</h3>")
    parts.append("<p>Random clusters of the same sizes are the null check.</p>")
    parts.append(_table(alt, text=("Cluster definition",)))
    return "\n".join(parts)


def _provenance_section(prov: dict | None) -> list[str]:
    from evalgap import __version__

    out = ["<h2 id='provenance'>Provenance</h2>"]
    if not prov:
        out.append(
            f"<p>Made with evalgap {_e(__version__)} from the Python API (no command-line "
            "record).</p>"
        )
        return out
    items = {
        "Command": prov.get("command", ""),
        "evalgap version": prov.get("evalgap_version", __version__),
        "Date": prov.get("date", ""),
    }
    out.append(_legend(items))
    inputs = prov.get("inputs") or []
    if inputs:
        frame = pd.DataFrame(
            [
                {
                    "Input": i.get("path", ""),
                    "Size": i.get("size", "—"),
                    "SHA-256 (first 16)": i.get("sha256", "—"),
                }
                for i in inputs
            ]
        )
        out.append(_table(frame, text=("Input", "SHA-256 (first 16)"), names=()))
    options = prov.get("options") or {}
    if options:
        frame = pd.DataFrame([{"Option": k, "Value": _option_value(v)} for k, v in options.items()])
        out.append(_table(frame, text=("Option", "Value")))
    else:
        out.append("<p class='note'>Every option at its default.</p>")
    return out


# --- helpers ------------------------------------------------------------------------------


def _describe_input(path: PathArg) -> dict:
    p = Path(str(path))
    info = {"path": clean(path)}
    try:
        if p.is_file():
            info["size"] = f"{format_count(p.stat().st_size)} bytes"
            digest = hashlib.sha256()
            with p.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            info["sha256"] = digest.hexdigest()[:16]
        elif p.is_dir():
            info["size"] = "directory"
    except OSError:
        pass
    return info


def _option_value(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(clean(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return clean(value)


def _legend(items: dict) -> str:
    return (
        "<dl class='legend'>"
        + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items.items())
        + "</dl>"
    )


def _shown(shown: int, total: int, noun: str) -> str:
    if shown >= total:
        return f"All {format_count(total)} {noun} are shown."
    return f"Showing {format_count(shown)} of {format_count(total)} {noun}."


def _table(frame: pd.DataFrame, text: Iterable[str] = (), names: Iterable[str] = ()) -> str:
    def css(column: str) -> str:
        if column in names:
            return "name"
        return "text" if column in text else ""

    head = "".join(f"<th class='{css(c) and 'text'}'>{_e(c)}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            shown = _name(value) if column in names else _e(_format(value))
            cells.append(f"<td class='{css(column)}'>{shown}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f"<div class='scroll'>{table}</div>"


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption class='note'>{_e(caption)}</figcaption></figure>"


def _finite(value: Any) -> bool:
    try:
        return value is not None and value is not pd.NA and math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _format(value: object) -> str:
    # A cell the page did not format by its kind (score, gap, p, q, count: text.py does)
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return format_count(value)
    if isinstance(value, (float, np.floating)):
        return "" if math.isnan(value) else format_statistic(value)
    return clean(value)


def _e(value: object) -> str:
    return html.escape(clean(value))


def _name(value: object) -> str:
    """A model name, escaped, that a narrow cell wraps after '_' or '/' before anywhere else."""
    return _e(_format(value)).replace("_", "_<wbr>").replace("/", "/<wbr>")


# --- evalgap ranks --------------------------------------------------------------------------

RANKS_GLOSSARY = {
    "Rank set": "The ranks a model can claim: with the stated confidence, every model's true "
    "rank lies in its set at once (simultaneous sets).",
    "Marginal set": "The ranks one model can claim when it alone is asked about: narrower, and "
    "valid for that model only.",
    "Tier": "A run of models, consecutive in the ranking, that cannot be ordered among "
    "themselves: a new tier starts where every model above is shown better than every model "
    "from there down.",
    "Rank": "One plus the number of models ahead of it on the items both scored (on complete "
    "data, the rank by score); equal ranks are listed by score.",
    OWN_ITEMS_MEAN: OWN_ITEMS_MEANING,
    "Score": SCORE_MEANING + " Battles: the Bradley-Terry log-strength. SE is its standard "
    "error.",
    "Items to flip": "The fewest items (battles) whose removal reverses a rank claim, with the "
    "stepdown's critical value held fixed; Recomputed: the count at which recomputing the rank "
    "sets without them (a new bootstrap) loses the top claim.",
}


def _rank_span(low: float, high: float) -> str:
    low, high = int(low), int(high)
    return str(low) if low == high else f"{low}-{high}"


def ranks_report(
    result: Any, *, title: str = "evalgap ranks", provenance: dict | None = None
) -> str:
    """Return the rank sets as one HTML page: per task, the rank-interval plot, the table
    and the pairwise heatmap of the pairs the method orders (no scripts, no network)."""
    r = result
    tasks = list(dict.fromkeys(r.ranks["task"]))
    level = format_level(r.alpha)
    gold = getattr(r, "gold", None)
    parts = [
        f"<h1>{_e(title)}</h1>",
        f"<p class='summary'>{_e(r.verdict)}</p>",
        f"<p>Method: {_e(r.method)}; alpha = {r.alpha:g}"
        + (
            f", {format_count(r.n_bootstrap)} "
            f"{'draws' if gold is not None else 'bootstrap replicates'}"
            if r.n_bootstrap
            else ""
        )
        + ".</p>",
    ]
    for task in tasks[:MAX_TASK_FIGURES]:
        parts += _rank_task_section(r, task, level)
    if len(tasks) > MAX_TASK_FIGURES:
        parts.append(
            f"<p class='note'>Showing {MAX_TASK_FIGURES} of {len(tasks)} tasks; every task is "
            "in --json.</p>"
        )
    if getattr(r, "over_tasks", None) is not None:
        parts += _over_tasks_section(r.over_tasks)
    parts += _rank_fragility_section(r)
    style = (r.bradley_terry or {}).get("style")
    if style:
        line = _capitalised(style_line(style, r.alpha))
        parts.append(f"<h2 id='style'>Style control</h2><p>{_e(line)}.</p>")
    if gold is not None:
        parts += _judge_sections(gold, r.alpha)
    glossary = RANKS_GLOSSARY if gold is None else GOLD_RANKS_GLOSSARY
    return _page(title, parts, r.notes, provenance, glossary)


def _rank_task_section(r: Any, task: str, level: str) -> list[str]:
    """Return one task's section: the rank-interval plot, the rank table and the heatmap of
    the pairs the method orders."""
    sub = r.ranks[r.ranks["task"] == task].sort_values("rank", kind="stable")
    figure = _rank_figure_frame(r, task)
    parts = [
        f"<h2>{_e(task)}</h2>",
        _figure(
            plots.rank_intervals(figure, f"{clean(task)}: rank sets", level=level),
            f"Thin bars: {level} simultaneous rank sets; thick: marginal sets; dots: the "
            "ranks (models ahead on shared items); shaded bands: tiers.",
        ),
        _table(
            _rank_table(r, sub, figure, level),
            text=("Rank set", "Marginal set", f"{level} interval"),
            names=("Model",),
        ),
    ]
    heatmap = _ordered_pairs_figure(r, task, sub)
    if heatmap is not None:
        parts.append(heatmap)
    return parts


def _rank_table(r: Any, sub: pd.DataFrame, figure: pd.DataFrame, level: str) -> pd.DataFrame:
    """Return a task's rank table: rank, model, score and SE (own-items mean and interval
    when there), items or battles, rank set, marginal set and tier."""
    columns = {
        "Rank": sub["rank"].to_numpy(),
        "Model": sub["model"].to_numpy(),
        "Score": [format_score(v) for v in sub["score"]],
        "SE": [format_score(v) for v in sub["se"]],
    }
    if "own_items_mean" in sub and shows_own_items_mean(sub["score"], sub["own_items_mean"]):
        columns[OWN_ITEMS_MEAN] = [format_score(v) for v in sub["own_items_mean"]]
    if "score_low" in sub:
        columns[f"{level} interval"] = [
            score_interval(lo, hi)
            for lo, hi in zip(sub["score_low"], sub["score_high"], strict=True)
        ]
    columns["Battles" if r.bradley_terry else "Items"] = sub["n_items"].to_numpy()
    columns["Rank set"] = [
        _rank_span(lo, hi) for lo, hi in zip(sub["rank_low"], sub["rank_high"], strict=True)
    ]
    if "marginal_low" in figure:
        columns["Marginal set"] = [
            _rank_span(lo, hi)
            for lo, hi in zip(figure["marginal_low"], figure["marginal_high"], strict=True)
        ]
    columns["Tier"] = sub["tier"].to_numpy()
    return pd.DataFrame(columns)


def _ordered_pairs_figure(r: Any, task: str, sub: pd.DataFrame) -> str | None:
    """Return the heatmap of which of a task's pairs the rank sets order (the top models'),
    or None without the pairwise verdicts."""
    better = r.shown_better.get(task)
    if better is None:
        return None
    models = sub["model"].tolist()[: plots.MAX_HEATMAP_MODELS]
    index = {m: i for i, m in enumerate(r.models_of(task))}
    verdicts: dict[tuple[str, str], bool | None] = {}
    for a_pos, a in enumerate(models):
        for b in models[a_pos + 1 :]:
            i, j = index[a], index[b]
            verdicts[(a, b)] = bool(better[i, j] or better[j, i])
    caption = (
        "Blue: the pair is ordered (one model shown better, simultaneously over all "
        "pairs); orange: not ordered."
    )
    if len(sub) > len(models):
        caption += f" Showing the top {len(models)} of {len(sub)} models."
    return _figure(
        plots.verdict_heatmap(models, verdicts, f"{clean(task)}: ordered pairs"), caption
    )


def _rank_fragility_section(r: Any) -> list[str]:
    """Return the section of the items (battles) to flip each rank claim, none without."""
    if not r.fragility:
        return []
    noun = "Battles" if r.bradley_terry else "Items"
    claims = r.fragility[:MAX_TABLE_PAIRS]
    frame = pd.DataFrame(
        {
            "Task": [e.task for e in claims],
            "Model A": [e.model_a for e in claims],
            "Model B": [e.model_b for e in claims],
            "Claim": [flip_rank_claim(e) for e in claims],
            f"{noun} to flip": [
                "" if e.items_to_flip is None
                else f"{'' if e.exact else '<='}{format_count(e.items_to_flip)}"
                for e in claims
            ],
            "Recomputed": [e.items_to_flip_recomputed for e in claims],
        }
    )  # fmt: skip
    return [
        f"<h2 id='fragility'>{noun} to flip</h2>",
        _table(frame, text=("Claim", f"{noun} to flip"), names=("Task", "Model A", "Model B")),
    ]


# The terms of the judge-against-the-gold table, on every page that shows it.
JUDGE_GLOSSARY = {
    "Judge bias": "The judge's mean minus the gold's on a model's labelled items.",
    "Agreement": "Binary scores: the share of labelled items where judge and gold agree; "
    "graded: their correlation r.",
}
GOLD_RANKS_GLOSSARY = {
    **{k: v for k, v in RANKS_GLOSSARY.items() if k not in ("Score", "Items to flip")},
    "Score": "The model's PPI++ score on its judged items: the judge's mean corrected by the "
    "gold labels; SE is its standard error, the interval its t interval (that model alone). "
    "The rank sets are drawn from the multivariate t law of the scores' joint covariance.",
    **JUDGE_GLOSSARY,
}
GOLD_GLOSSARY = {
    "Gap (gold)": "A minus B on the gold scale: the judge's gap on every item both were judged "
    "on, corrected by the gold labels where both are labelled (paired PPI++).",
    "q": "N / N* at fixed n: at least 1 when the labels and judged items resolve the gap at "
    "(alpha, power).",
    "Holm": "Resolved under Holm's step-down over the family.",
    "Gold to resolve": "The gold labels that would resolve the gap with these judged items.",
    "Flips": "The judge's bias differs between the two models and reverses a significant "
    "gold-scale gap.",
    **JUDGE_GLOSSARY,
}


def _judge_sections(gold: pd.DataFrame, alpha: float) -> list[str]:
    """The judge against the gold labels: a heading, and a table per task."""
    parts = ["<h2 id='judge'>The judge against the gold labels</h2>"]
    for task, sub in gold.groupby("task", sort=False):
        headers, rows = judge_table(sub, alpha)
        if gold["task"].nunique() > 1:
            parts.append(f"<h3>{_e(task)}</h3>")
        parts.append(
            _table(pd.DataFrame(rows, columns=headers), text=tuple(headers), names=("model",))
        )
    return parts


def gold_audit_report(
    result: Any, *, title: str = "evalgap audit (gold scale)", provenance: dict | None = None
) -> str:
    """Return the gold-scale audit as one HTML page: the verdict, the pairs and the judge
    against the gold per model (no scripts, no network)."""
    r = result
    level = format_level(r.alpha)
    p = r.to_frame()
    pairs = pd.DataFrame(
        {
            "Task": p["task"],
            "Model A": p["model_a"],
            "Model B": p["model_b"],
            "Gap (gold)": [format_gap(v) for v in p["delta"]],
            f"{level} interval": [
                gap_interval(lo, hi)
                for lo, hi in zip(p["delta_low"], p["delta_high"], strict=True)
            ],
            "p": [format_p(v, bare=True) for v in p["p_ppi_t"]],
            "q": [format_q(v) for v in p["resolution_ratio"]],
            "Fixed n": ["yes" if v else "no" for v in p["resolved_fixed_n"]],
            "Holm": ["yes" if v else "no" for v in p["resolved_holm"]],
            "Gold to resolve": [
                "—" if v is None or v != v else format_n(v) for v in p["required_n"]
            ],
            "Judge gap": [format_gap(v) for v in p["judge_delta"]],
            "Judge p": [format_p(v, bare=True) for v in p["judge_p_value"]],
            "Flips": ["yes" if v else "" for v in p["judge_flips"]],
        }
    )
    parts = [
        f"<h1>{_e(title)}</h1>",
        f"<p class='summary'>{_e(_capitalised(r.verdict))}.</p>",
        "<h2 id='pairs'>Pairs on the gold scale</h2>",
        _table(pairs, text=tuple(pairs.columns[3:]), names=("Task", "Model A", "Model B")),
        *_judge_sections(r.gold, r.alpha),
    ]
    return _page(title, parts, r.notes, provenance, GOLD_GLOSSARY)


# --- evalgap card ---------------------------------------------------------------------------

CARD_GLOSSARY = {
    **RANKS_GLOSSARY,
    "Separated": "The rank sets show A better than B, simultaneously over all pairs.",
    "q": "N / N*: at least 1 when the benchmark's items resolve the gap at (alpha, power).",
    "Items to flip": "The fewest items whose removal from the pair reverses the verdict "
    "(<=: an upper bound, for graded scores).",
    "Signal-to-noise": "The SD of the models' scores over the median standard error of one score.",
}


def _over_tasks_section(o: Any) -> list[str]:
    """The aggregate over tasks and its two kinds of rank sets (ranks and card pages)."""
    parts = [f"<h2 id='over-tasks'>Over the {o.n_tasks} tasks</h2>"]
    parts.append(
        "<p>The mean of the task scores. Rank sets with the tasks fixed (their items "
        "resampled) and with the tasks drawn from a population (tasks and items "
        f"resampled); the second are {_e(number(o.widening, '.2f'))}x as wide on average."
        "</p>"
    )
    frame = pd.DataFrame(
        {
            "Model": [m.model for m in o.models],
            "Score": [format_score(m.score) for m in o.models],
            "Rank set (these tasks)": [
                _rank_span(m.rank_low_items, m.rank_high_items) for m in o.models
            ],
            "Rank set (tasks sampled)": [_rank_span(m.rank_low, m.rank_high) for m in o.models],
            "SE (these tasks)": [format_score(m.se_items) for m in o.models],
            "SE (tasks sampled)": [format_score(m.se) for m in o.models],
        }
    )
    spans = ("Rank set (these tasks)", "Rank set (tasks sampled)")
    parts.append(_table(frame, text=spans, names=("Model",)))
    return parts


def card_report(
    result: Any, *, title: str = "evalgap card", provenance: dict | None = None
) -> str:
    """Return the leaderboard card as one HTML page: per task the models and the adjacent
    pairs (the same rows as the Markdown card and ``--json``)."""
    r = result
    level = format_level(r.settings["alpha"])
    parts = [f"<h1>{_e(title)}</h1>", f"<p class='summary'>{_e(_capitalised(r.verdict))}.</p>"]
    for t in r.tasks:
        parts.append(f"<h2>{_e(t.task)} ({_e(plural(t.n_items, 'item'))})</h2>")
        parts.append(
            f"<p>Adjacent pairs separated: {t.separated} of {len(t.pairs)}; resolved (q &ge; 1): "
            f"{t.resolved} of {len(t.pairs)}; models with a single rank: {t.single_rank} of "
            f"{len(t.models)}; signal-to-noise: {_e(number(t.signal_to_noise, '.3g'))}.</p>"
        )
        models = pd.DataFrame(
            {
                "Rank": [m.rank for m in t.models],
                "Model": [m.model for m in t.models],
                "Score": [format_score(m.score) for m in t.models],
                f"{level} interval": [score_interval(m.score_low, m.score_high) for m in t.models],
                "Rank set": [_rank_span(m.rank_low, m.rank_high) for m in t.models],
                "Marginal set": [_rank_span(m.marginal_low, m.marginal_high) for m in t.models],
                "Tier": [m.tier for m in t.models],
                "Items missing": [format_count(m.items_missing) for m in t.models],
            }
        )
        own = [m.own_items_mean for m in t.models]
        if shows_own_items_mean([m.score for m in t.models], own):
            models.insert(4, OWN_ITEMS_MEAN, [format_score(v) for v in own])
        text = (f"{level} interval", "Rank set", "Marginal set")
        parts.append(_table(models, text=text, names=("Model",)))
        if t.pairs:
            test = "exact" if t.pairs[0].test == "exact" else "paired t"
            flips = [
                "" if p.items_to_flip is None
                else f"{'' if p.items_to_flip_exact else '<='}{format_count(p.items_to_flip)}"
                for p in t.pairs
            ]  # fmt: skip
            pairs = pd.DataFrame(
                {
                    "Model A": [p.model_a for p in t.pairs],
                    "Model B": [p.model_b for p in t.pairs],
                    "Gap (points)": [format_points(p.delta) for p in t.pairs],
                    f"{level} interval": [
                        points_interval(p.delta_low, p.delta_high) for p in t.pairs
                    ],
                    f"p ({test})": [format_p(p.p_value, bare=True) for p in t.pairs],
                    "q": [format_q(p.resolution_ratio) for p in t.pairs],
                    "Separated": [p.separated for p in t.pairs],
                    f"Items to flip ({test})": flips,
                    "Items to flip (q >= 1)": [
                        "" if p.items_to_flip_resolution is None
                        else format_count(p.items_to_flip_resolution)
                        for p in t.pairs
                    ],
                }
            )
            pair_text = (f"{level} interval", f"Items to flip ({test})")
            parts.append(_table(pairs, text=pair_text, names=("Model A", "Model B")))
    if r.over_tasks is not None:
        parts += _over_tasks_section(r.over_tasks)
    s = r.settings
    parts.append(
        "<h2>Settings</h2><p>"
        + _e(
            f"alpha {s['alpha']:g}; power {s['power']:g}; rank sets: {s['method']}"
            + (f", {format_count(s['n_bootstrap'])} bootstrap "
               "replicates" if s["n_bootstrap"] else "")
            + f"; seed {s['seed']}; evalgap {s['evalgap_version']}."
        )
        + "</p>"
    )
    return _page(title, parts, r.notes, provenance, CARD_GLOSSARY)


# Result type name -> (page renderer's name in this module, default title); by name, so this
# layer imports no job, and the renderer is looked up when a page is drawn.
