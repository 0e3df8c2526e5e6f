"""Figures, drawn with matplotlib and returned as SVG text (embedded inline in HTML reports).

Every report function takes a result (or its parts) and returns one ``<svg>`` string, so a
report needs no image files and no network to be viewed. Figures are built on
``matplotlib.figure.Figure`` directly: importing this module neither selects a backend nor
touches pyplot's state, so it leaves a notebook's plotting alone. Text is created with
mathtext off (a ``$`` in a model name is a dollar sign), and matplotlib's layout and glyph
warnings are kept off the terminal.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import re
import warnings
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, ParamSpec, TypeVar

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, NullLocator
from scipy.special import ndtri

from evalgap.report.text import format_count, format_gap, plot_label, plural

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

    from evalgap.io._files import PathArg

_P = ParamSpec("_P")
_R = TypeVar("_R")

# Text stays text in SVG (smaller, searchable); "$" never starts mathtext.
RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "text.usetex": False,
}
RESOLVED, UNRESOLVED, NEUTRAL = "#3b7dd8", "#d8613b", "#bbbbbb"
# Above this many pairs in one task, the r chart draws unlabelled points instead of bars.
MAX_LABELLED_BARS = 60
# The verdict heatmap and the ICC chart show at most this many models / pairs.
MAX_HEATMAP_MODELS = 60
MAX_ICC_PAIRS = 40


def _plain_text(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a figure-building function with mathtext off and layout warnings silenced."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with matplotlib.rc_context(RC), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return func(*args, **kwargs)

    return wrapper


def _new_figure(width: float, height: float, *, panels: int = 1) -> Figure:
    # One panel: saving with bbox_inches="tight" already keeps every label on the canvas;
    # the (slower) constrained layout is needed only to keep panels from overlapping.
    fig = Figure(figsize=(width, height), layout="constrained" if panels > 1 else None)
    FigureCanvasAgg(fig)
    return fig


def to_svg(fig: Figure) -> str:
    """Return the figure as SVG text (without the XML prologue).

    The same figure gives the same text, so a report is reproducible byte for byte: no date,
    and the ids of clip paths and markers (random by default) are hashed from the figure's
    content, then suffixed by a digest of the whole figure so two figures on one page never
    share an id.
    """
    buffer = io.StringIO()
    with matplotlib.rc_context({**RC, "svg.hashsalt": "evalgap"}), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    ids = set(re.findall(r'id="([a-z][0-9a-f]{10})"', text))
    if ids:
        text = re.sub(
            r"\b(" + "|".join(sorted(ids)) + r")\b", lambda m: f"{m[1]}-{digest}", text
        )
    return text


def _plain_log(axis: Any) -> None:
    """Log-scale tick labels as plain numbers (the default labels are mathtext)."""
    axis.set_major_formatter(FuncFormatter(_tick))
    axis.set_minor_locator(NullLocator())


def _tick(value: float, _position: object = None) -> str:
    if value >= 1:
        return format_count(value)
    return f"{value:g}"


def _pair_labels(frame: pd.DataFrame) -> list[str]:
    return [
        f"{plot_label(a)} vs {plot_label(b)}"
        for a, b in zip(frame["model_a"], frame["model_b"], strict=True)
    ]


@_plain_text
def forest(ranking: pd.DataFrame, groups: list[list[str]], title: str) -> str:
    """Each model's score with its 95% interval, best first; unresolved chains as brackets.

    ``ranking`` holds one task's rows of ``AuditResult.rankings``; intervals are drawn when
    its ``score_low``/``score_high`` columns are present. Models of one unresolved chain
    (``groups``, ``AuditResult.chains``) share a shaded band and a bracket labelled "chain k".
    """
    ranking = ranking.sort_values("rank", kind="stable")  # rows are in board order
    k = len(ranking)
    fig = _new_figure(8, 1.2 + 0.26 * k)
    ax = fig.subplots()
    y = np.arange(k)
    score = ranking["score"].to_numpy(dtype=float)
    group_of = {m: g for g, members in enumerate(groups) for m in members}
    sizes = {g: len(members) for g, members in enumerate(groups)}
    tied = np.array([sizes.get(group_of.get(m, -1), 1) > 1 for m in ranking["model"]])
    colours = np.where(tied, UNRESOLVED, RESOLVED)
    if {"score_low", "score_high"} <= set(ranking.columns):
        low = ranking["score_low"].to_numpy(dtype=float)
        high = ranking["score_high"].to_numpy(dtype=float)
        ok = np.isfinite(low) & np.isfinite(high)
        for colour in (RESOLVED, UNRESOLVED):
            sel = ok & (colours == colour)
            ax.hlines(y[sel], low[sel], high[sel], color=colour, linewidth=1.6)
    ax.scatter(score, y, c=list(colours), s=22, zorder=3)
    x_right = ax.get_xlim()[1]
    position = {m: i for i, m in enumerate(ranking["model"])}
    number = 0
    for members in groups:
        rows = sorted(position[m] for m in members if m in position)
        if len(rows) < 2:
            continue
        number += 1
        top, bottom = rows[0] - 0.35, rows[-1] + 0.35  # a visible gap between groups
        ax.axhspan(top, bottom, color=UNRESOLVED, alpha=0.08, linewidth=0)
        ax.annotate(
            f"chain {number}",
            xy=(1.0, (top + bottom) / 2),
            xycoords=("axes fraction", "data"),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
            color=UNRESOLVED,
        )
        ax.plot(
            [1.0, 1.0],
            [top, bottom],
            transform=ax.get_yaxis_transform(),
            color=UNRESOLVED,
            linewidth=2,
            clip_on=False,
        )
    ax.set_xlim(right=x_right)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [f"{r}. {plot_label(m)}" for r, m in zip(ranking["rank"], ranking["model"], strict=True)],
        fontsize=7,
    )
    ax.invert_yaxis()
    with_intervals = {"score_low", "score_high"} <= set(ranking.columns)
    ax.set_xlabel("score" + (" (95% interval)" if with_intervals else ""))
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="#eeeeee")
    return to_svg(fig)


@_plain_text
def rank_intervals(ranks: pd.DataFrame, title: str, *, level: str = "95%") -> str:
    """The rank-set chart of :func:`rank_sets_figure` as SVG text (the HTML pages')."""
    return to_svg(rank_sets_figure(ranks, title, level=level))


@_plain_text
def rank_sets_figure(ranks: pd.DataFrame, title: str, *, level: str = "95%") -> Figure:
    """One horizontal bar per model, best first: its simultaneous rank set, point rank marked.

    ``ranks`` holds one task's rows with ``model``, ``rank``, ``rank_low``, ``rank_high``
    and ``tier``; ``marginal_low``/``marginal_high``, when present, are drawn as a thicker
    inner bar (a marginal set lies inside the simultaneous one). Tiers are shaded bands,
    alternately. Above :data:`MAX_LABELLED_BARS` models the names are left out.
    """
    ranks = ranks.sort_values("rank", kind="stable")  # rows are in board order
    k = len(ranks)
    labelled = k <= MAX_LABELLED_BARS
    fig = _new_figure(8, min(14.0, 1.3 + (0.24 if labelled else 0.012) * k))
    ax = fig.subplots()
    y = np.arange(k)
    low = ranks["rank_low"].to_numpy(dtype=float)
    high = ranks["rank_high"].to_numpy(dtype=float)
    tier = ranks["tier"].to_numpy()
    ax.hlines(y, low - 0.4, high + 0.4, color=UNRESOLVED, linewidth=1.4 if labelled else 0.8)
    if {"marginal_low", "marginal_high"} <= set(ranks.columns):
        ax.hlines(
            y,
            ranks["marginal_low"].to_numpy(dtype=float) - 0.4,
            ranks["marginal_high"].to_numpy(dtype=float) + 0.4,
            color=RESOLVED,
            linewidth=3.2 if labelled else 1.2,
        )
    ax.scatter(
        ranks["rank"].to_numpy(dtype=float), y, color="black", s=14 if labelled else 3, zorder=3
    )
    for number in np.unique(tier):
        rows = np.flatnonzero(tier == number)
        if number % 2 == 1:
            ax.axhspan(rows[0] - 0.5, rows[-1] + 0.5, color=NEUTRAL, alpha=0.25, linewidth=0)
        if labelled:
            ax.annotate(
                f"tier {number}",
                xy=(1.0, (rows[0] + rows[-1]) / 2),
                xycoords=("axes fraction", "data"),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
                color="#555555",
            )
    if labelled:
        ax.set_yticks(y)
        ax.set_yticklabels(
            [f"{r}. {plot_label(m)}" for r, m in zip(ranks["rank"], ranks["model"], strict=True)],
            fontsize=7,
        )
    else:
        ax.set_ylabel(f"{format_count(k)} models, best first")
        ax.yaxis.set_major_locator(NullLocator())
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_xlim(0.3, k + 0.7)
    ax.set_xlabel(
        f"rank ({level} simultaneous set"
        + ("; thick: marginal set)" if "marginal_low" in ranks.columns else ")")
    )
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="#eeeeee")
    return fig


@_plain_text
def resolution_chart(pairs: pd.DataFrame) -> str:
    """q = N/N* for every pair (log scale) with the q = 1 line (Figures 2-3, drawn as q).

    One task with at most ``MAX_LABELLED_BARS`` pairs: one labelled bar per pair. More
    pairs, or several tasks: every pair as a point, one column per task (names are in the
    pairs table). A pair with q = 0 (no gap) or no q has no place on a log scale.
    """
    data = pairs.assign(q=pairs["resolution_ratio"].astype(float))
    data["q"] = data["q"].replace([np.inf, -np.inf], np.nan)
    data = data.dropna(subset=["q"])
    data = data[data["q"] > 0]
    tasks = list(dict.fromkeys(data["task"]))
    if len(tasks) == 1 and len(data) <= MAX_LABELLED_BARS:
        data = data.sort_values("q")
        fig = _new_figure(9, 4.2)
        ax = fig.subplots()
        colours = [UNRESOLVED if q < 1 else RESOLVED for q in data["q"]]
        ax.bar(range(len(data)), data["q"], color=colours)
        ax.set_xticks(range(len(data)))
        ax.set_xticklabels(_pair_labels(data), rotation=60, ha="right", fontsize=6)
        ax.set_xlabel("pair, sorted by q")
    else:
        fig = _new_figure(max(6.0, min(14.0, 1.0 + 0.6 * len(tasks))), 4.5)
        ax = fig.subplots()
        rng = np.random.default_rng(0)  # jitter only: the same figure on every run
        for k, task in enumerate(tasks):
            q = data.loc[data["task"] == task, "q"].to_numpy()
            x = k + rng.uniform(-0.3, 0.3, q.size)
            ax.scatter(x, q, s=8, c=np.where(q < 1, UNRESOLVED, RESOLVED), alpha=0.7)
        ax.set_xticks(range(len(tasks)))
        ax.set_xticklabels([plot_label(t) for t in tasks], rotation=45, ha="right", fontsize=7)
        ax.set_xlabel("task (one point per pair)")
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_yscale("log")
    _plain_log(ax.yaxis)
    ax.set_ylabel("q = N/N*")
    ax.set_title("below the dashed line (q < 1): unresolved at fixed n", fontsize=10)
    return to_svg(fig)


@_plain_text
def required_n_comparison(pairs: pd.DataFrame) -> str:
    """Paired N* against the unpaired N per pair (log-log), the items available marked.

    The distance above the diagonal is what pairing saves; points right of the vertical
    line need more items than the pair has.
    """
    paired = pairs["required_n"].astype(float).to_numpy()
    unpaired = pairs["unpaired_required_n"].astype(float).to_numpy()
    ok = np.isfinite(paired) & np.isfinite(unpaired) & (paired > 0) & (unpaired > 0)
    fig = _new_figure(6.5, 4.8)
    ax = fig.subplots()
    resolved = pairs["resolved_fixed_n"].fillna(False).to_numpy(dtype=bool)
    for mask, colour, label in (
        (resolved, RESOLVED, "resolved"),
        (~resolved, UNRESOLVED, "unresolved"),
    ):
        sel = ok & mask
        ax.scatter(
            paired[sel],
            unpaired[sel],
            s=14,
            facecolors="none",
            edgecolors=colour,
            label=f"{label} at fixed n",
        )
    if ok.any():
        low = min(paired[ok].min(), unpaired[ok].min())
        high = max(paired[ok].max(), unpaired[ok].max())
        ax.plot(
            [low, high],
            [low, high],
            color="black",
            linestyle="--",
            linewidth=1,
            label="no gain from pairing",
        )
        n = float(np.median(pairs["n_items"].to_numpy(dtype=float)))
        ax.axvline(
            n,
            color="grey",
            linestyle=":",
            linewidth=1,
            label=f"items available (median N = {format_count(n)})",
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        _plain_log(ax.xaxis)
        _plain_log(ax.yaxis)
    ax.set_xlabel("paired N* (items needed, each pair)")
    ax.set_ylabel("unpaired N (independent items per model)")
    ax.set_title("items needed with and without pairing", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    return to_svg(fig)


@_plain_text
def trajectories(curves: dict[str, Any], alpha: float) -> str:
    """log e_n along the items for chosen pairs, with the log(1/alpha) boundary (Figure 4)."""
    fig = _new_figure(7.5, 4.2)
    ax = fig.subplots()
    for label, curve in curves.items():
        line = ax.plot(curve["items"], curve["log_e"], label=plot_label(label), linewidth=1.2)[0]
        required = curve.get("required_n")
        if required is not None and math.isfinite(required):
            ax.axvline(required, color=line.get_color(), linestyle=":", linewidth=1)
    threshold = next(
        (c["threshold"] for c in curves.values() if "threshold" in c), math.log(1 / alpha)
    )
    ax.axhline(
        threshold,
        color="black",
        linestyle="--",
        linewidth=1,
        label=f"boundary log(1/alpha) = {threshold:.2f}",
    )
    ax.set_xlabel("items, in a random order")
    ax.set_ylabel("log e_n")
    ax.set_title("mixture e-process per pair (dotted: the pair's fixed-n N*)", fontsize=10)
    ax.legend(fontsize=7)
    return to_svg(fig)


@_plain_text
def verdict_heatmap(
    models: list[str], verdicts: dict[tuple[str, str], bool | None], title: str
) -> str:
    """A models x models grid, best first: resolved, unresolved or no verdict per pair.

    ``verdicts`` maps (model_a, model_b) to True (resolved), False (unresolved) or None.
    """
    k = len(models)
    index = {m: i for i, m in enumerate(models)}
    grid = np.full((k, k), 0.5)
    for (a, b), value in verdicts.items():
        if a in index and b in index and value is not None:
            i, j = index[a], index[b]
            grid[i, j] = grid[j, i] = 1.0 if value else 0.0
    np.fill_diagonal(grid, np.nan)
    side = min(13.0, 2.5 + 0.22 * k)
    fig = _new_figure(side + 1.5, side)
    ax = fig.subplots()
    cmap = ListedColormap([UNRESOLVED, NEUTRAL, RESOLVED]).with_extremes(bad="white")
    ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    labels = [f"{i + 1}. {plot_label(m)}" for i, m in enumerate(models)]
    size = 7 if k <= 30 else 5
    ax.set_xticks(range(k))
    ax.set_xticklabels([str(i + 1) for i in range(k)], fontsize=size)
    ax.set_yticks(range(k))
    ax.set_yticklabels(labels, fontsize=size)
    ax.set_xlabel("rank")
    ax.set_title(title, fontsize=10)
    handles = [
        Patch(color=RESOLVED, label="resolved"),
        Patch(color=UNRESOLVED, label="unresolved"),
        Patch(color=NEUTRAL, label="no verdict"),
    ]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return to_svg(fig)


@_plain_text
def cluster_icc(intervals: pd.DataFrame) -> str:
    """ICC of the paired difference per pair, with its 5-95% cluster-bootstrap interval."""
    sub = intervals
    fig = _new_figure(9, 5.5)
    ax = fig.subplots()
    x = np.arange(len(sub))
    err = np.vstack(
        [np.maximum(sub["icc"] - sub["icc_low"], 0), np.maximum(sub["icc_high"] - sub["icc"], 0)]
    )
    ax.bar(x, sub["icc"], yerr=err, color=RESOLVED, capsize=2)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(_pair_labels(sub), rotation=60, ha="right", fontsize=6)
    ax.set_ylabel("ICC of D")
    ax.set_title(
        "intra-cluster correlation of the paired difference (5-95% bootstrap)", fontsize=10
    )
    return to_svg(fig)


@_plain_text
def unresolved_distribution(distribution: dict[int, float], n_pairs: int) -> str:
    """Share of cluster-bootstrap draws with each unresolved count."""
    fig = _new_figure(6, 3)
    ax = fig.subplots()
    counts = sorted(distribution)
    ax.bar(counts, [distribution[c] for c in counts], color=UNRESOLVED)
    ax.set_xlabel(f"unresolved pairs (of {n_pairs})")
    ax.set_ylabel("share of bootstrap draws")
    ax.set_title("cluster bootstrap of the clustered verdict", fontsize=10)
    return to_svg(fig)


def figure_format(path: PathArg) -> str:
    """Return the figure format ``path`` names by its suffix (``png``, ``svg``, ``pdf``), or
    raise an InputError naming the ``plot`` parameter (checked before a long study runs)."""
    from pathlib import Path

    from evalgap.errors import InputError

    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        raise InputError(
            "{plot}: give a .png, .svg or .pdf file name", param="plot", plot=str(path)
        )
    return suffix[1:]


def save_figure(fig: Figure, path: PathArg) -> None:
    """Write the figure to ``path`` (PNG, SVG or PDF by its suffix)."""
    from evalgap.io._write import atomic_write

    fmt = figure_format(path)

    def draw(handle: IO[bytes]) -> None:
        with matplotlib.rc_context(RC), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fig.savefig(handle, format=fmt, bbox_inches="tight", dpi=150)

    # A failure (a full disk, a bad name) leaves no partial figure behind.
    atomic_write(path, draw, option="--plot", mode="wb", what="the figure")


@_plain_text
def calibration_figure(result: Any) -> Figure:
    """Type-I error and power of each test per grid cell, with alpha, 0.8 and MC bands."""
    variants = list(result.variants)
    labels = [f"p={c['accuracy']:g}\nrho={c['latent_correlation']:g}" for c in result.cells]
    x = np.arange(len(result.cells))
    fig = _new_figure(12, 4.2, panels=2)
    axes = fig.subplots(1, 2)
    for key, ax, target in (("type1", axes[0], result.alpha), ("power", axes[1], result.power)):
        for k, v in enumerate(variants):
            ax.errorbar(
                x + (k - 2) * 0.08,
                [c[key][v] for c in result.cells],
                yerr=[2 * c[f"{key}_se"][v] for c in result.cells],
                fmt="o",
                ms=4,
                capsize=2,
                label=v,
            )
        ax.axhline(target, color="black", linestyle="--", linewidth=1)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_xlabel("grid cell (accuracy p, latent correlation rho_z)")
    axes[0].set_ylabel("Type-I error")
    axes[1].set_ylabel("power")
    axes[0].set_title(f"under H0 (alpha = {result.alpha:g}), n = {result.n_items}", fontsize=10)
    axes[1].set_title(f"under H1 tuned to asymptotic power {result.power:g}", fontsize=10)
    axes[1].legend(fontsize=7)
    return fig


@_plain_text
def prospective_figure(result: Any) -> Figure:
    """Empirical McNemar power at fractions of N* for each pair (Table 10)."""
    fig = _new_figure(6.5, 4)
    ax = fig.subplots()
    for pair in result.pairs:
        ax.errorbar(
            result.fractions,
            pair["power"],
            yerr=[2 * s for s in pair["power_se"]],
            marker="o",
            capsize=2,
            label=f"{plot_label(pair['pair'])} (N*={format_count(pair['required_n'])})",
        )
    ax.axhline(result.power, color="black", linestyle="--", linewidth=1)
    ax.axvline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("sample size / N*")
    ax.set_ylabel("empirical McNemar power")
    ax.legend(fontsize=6)
    return fig


@_plain_text
def power_curve_figure(result: Any) -> Figure:
    """Bootstrap power against n, N* dashed for each gap (Figures 5-6)."""
    fig = _new_figure(6.5, 4)
    ax = fig.subplots()
    for curve in result.curves:
        line = ax.errorbar(
            curve["n"],
            curve["power"],
            yerr=[2 * s for s in curve["power_se"]],
            marker="o",
            capsize=2,
            label=f"delta = {curve['delta']:.3g}",
        )[0]
        ax.axvline(curve["required_n"], color=line.get_color(), linestyle="--", linewidth=1)
    ax.axhline(result.power, color="black", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    _plain_log(ax.xaxis)
    ax.set_xlabel("paired sample size n")
    ax.set_ylabel("bootstrap power")
    ax.set_title(f"{result.kind} scores; dashed: N*", fontsize=10)
    ax.legend(fontsize=7)
    return fig


@_plain_text
def sequential_figure(result: Any) -> Figure:
    """Sample e-process trajectories under H0 and H1 with the log(1/alpha) threshold (Fig. 4)."""
    fig = _new_figure(7, 4)
    ax = fig.subplots()
    for label, curve in result.trajectories.items():
        colour = "grey" if label.startswith("H0") else RESOLVED
        ax.plot(
            curve["items"],
            curve["log_e"],
            color=colour,
            linewidth=1,
            label=label if label.endswith("1") else None,
        )
    ax.axhline(
        math.log(1 / result.alpha), color="black", linestyle="--", linewidth=1, label="log(1/alpha)"
    )
    ax.axvline(result.required_n, color=UNRESOLVED, linestyle=":", linewidth=1, label="fixed-n N*")
    ax.set_xlabel("items")
    ax.set_ylabel("log e_n")
    ax.legend(fontsize=7)
    return fig


@_plain_text
def aggregation_figure(result: Any) -> Figure:
    """Rejection rates of the aggregates against the number of tasks, per scenario (Fig. 3)."""
    fig = _new_figure(13, 3.8, panels=len(result.rates))
    axes = fig.subplots(1, len(result.rates), sharey=False)
    for ax, (scenario, rates) in zip(np.atleast_1d(axes), result.rates.items(), strict=True):
        for test, values in rates.items():
            ax.plot(result.task_counts, values, marker="o", ms=3, label=test)
        if scenario.startswith("null"):
            ax.axhline(result.alpha, color="black", linestyle="--", linewidth=1)
        ax.set_title(scenario.replace("_", " "), fontsize=10)
        ax.set_xlabel("number of tasks T")
        ax.set_ylabel("rejection rate")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    return fig


@_plain_text
def rank_coverage_figure(result: Any) -> Figure:
    """Coverage of each configuration with 2 Monte Carlo SE bars; the nominal level dashed."""
    rows = result.rows
    k = len(rows)
    fig = _new_figure(8, 1.2 + 0.35 * k)
    ax = fig.subplots()
    y = np.arange(k)
    coverage = rows["coverage"].to_numpy(dtype=float)
    se = rows["coverage_se"].to_numpy(dtype=float)
    ax.errorbar(coverage, y, xerr=2 * se, fmt="o", color=RESOLVED, capsize=3)
    ax.axvline(1 - result.alpha, color=UNRESOLVED, linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [
            f"{plot_label(c)} ({m})"
            for c, m in zip(rows["configuration"], rows["method"], strict=True)
        ],
        fontsize=7,
    )
    ax.invert_yaxis()
    ax.set_xlabel("simultaneous coverage of the true ranks (+/- 2 Monte Carlo SE)")
    ax.set_title(f"rank coverage, {format_count(result.n_trials)} leaderboards "
                 "each", fontsize=10)
    ax.grid(axis="x", color="#eeeeee")
    return fig


@_plain_text
def estimate_study_figure(result: Any) -> Figure:
    """Mean absolute error and coverage against items, per design (``simulate estimate``);
    the design-unbiased floors dashed, the target error and the nominal level dotted."""
    fig = _new_figure(11, 4.2, panels=2)
    left, right = fig.subplots(1, 2)
    rows = result.rows
    for _, part in rows.groupby("design", sort=False):
        label = str(part["label"].iloc[0])
        if part["cases"].iloc[0] == 0:
            left.plot(part["budget"], part["mae"], linestyle="--", linewidth=1, label=label)
            continue
        left.errorbar(part["budget"], part["mae"], yerr=2 * part["mae_se"], marker="o", ms=4,
                      capsize=2, label=label)  # fmt: skip
        right.errorbar(part["budget"], part["coverage"], yerr=2 * part["coverage_se"],
                       marker="o", ms=4, capsize=2, label=label)  # fmt: skip
    left.axhline(result.target, color="black", linestyle=":", linewidth=1)
    right.axhline(1 - result.alpha, color="black", linestyle=":", linewidth=1)
    budgets = sorted(rows["budget"].unique())
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xticks(budgets, [format_count(b) for b in budgets])
        ax.minorticks_off()
        ax.set_xlabel("items the held-out model was scored on")
    left.set_ylim(bottom=0)
    left.set_ylabel("mean absolute error")
    right.set_ylabel("coverage of the interval")
    left.set_title(
        f"{plural(len(result.held_out), 'held-out model')} x {plural(result.n_trials, 'draw')}; "
        f"dotted: {result.target:g}",
        fontsize=10,
    )
    right.set_title(f"nominal {1 - result.alpha:g} dotted", fontsize=10)
    left.legend(fontsize=7)
    return fig


@_plain_text
def compare_figure(result: Any) -> Figure:
    """The gap of a comparison with its interval, against the smallest gap the benchmark can
    resolve (the MDE, shaded on both sides of 0): a gap inside the band is unresolved."""
    delta = float(result.delta)
    ci = result.ci
    low, high = float(ci.low), float(ci.high)
    mde = getattr(result, "mde", None)
    fig = _new_figure(7, 1.9)
    ax = fig.subplots()
    if mde is not None and math.isfinite(float(mde)):
        ax.axvspan(-float(mde), float(mde), color=NEUTRAL, alpha=0.35, linewidth=0)
        ax.annotate(
            "unresolved band (|gap| < MDE)", xy=(0, 0.85), xycoords=("data", "axes fraction"),
            ha="center", fontsize=7, color="#555555",
        )  # fmt: skip
    ax.axvline(0, color="#999999", linewidth=0.8)
    colour = RESOLVED if (low > 0 or high < 0) else UNRESOLVED
    ax.hlines(0, low, high, color=colour, linewidth=2.2)
    ax.scatter([delta], [0], color="black", s=22, zorder=3)
    reach = max(abs(low), abs(high), float(mde) if mde is not None else 0.0) * 1.25 or 0.01
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-1, 1)
    ax.yaxis.set_major_locator(NullLocator())
    names = (getattr(result, "model_a", None), getattr(result, "model_b", None))
    pair = f"{plot_label(names[0])} - {plot_label(names[1])}" if all(names) else "A - B"
    level = getattr(ci, "level", None)
    shown = f"{100 * float(level):g}% interval" if level is not None else "interval"
    ax.set_xlabel(f"gap {pair} ({shown}; shaded: the MDE on either side of 0)")
    ax.set_title(f"{pair}: gap {format_gap(delta)} [{format_gap(low)}, {format_gap(high)}]",
                 fontsize=10)  # fmt: skip
    ax.grid(axis="x", color="#eeeeee")
    return fig


@_plain_text
def degrade_figure(result: Any) -> Figure:
    """Each task's drop (baseline minus candidate, in points) with its one-sided (1 - alpha)
    upper bound (with a margin, the bound of the non-inferiority verdict; else delta + z se),
    drawn as a symmetric bar, and the margin when one was given."""
    z = float(ndtri(1 - float(result.alpha)))
    rows = [t for t in result.tasks if t.delta is not None and t.se is not None]
    if not rows:
        raise ValueError("no task has per-item scores, so no drop has an interval to draw")
    k = len(rows)
    fig = _new_figure(8, 1.2 + 0.3 * k)
    ax = fig.subplots()
    y = np.arange(k)
    drop = np.array([100 * t.delta for t in rows])
    upper = drop + np.array([100 * z * t.se for t in rows])
    margin = (result.non_inferiority or {}).get("margin")
    if margin is not None:  # the bounds the verdict used (Tango's score interval)
        bound = {row["task"]: row["upper_bound"] for row in result.non_inferiority["tasks"]}
        upper = np.array([100 * bound.get(t.task, np.nan) for t in rows])
    bad = upper >= 100 * margin if margin is not None else drop - (upper - drop) > 0
    colours = np.where(bad, UNRESOLVED, RESOLVED)
    ax.hlines(y, drop - (upper - drop), upper, color=list(colours), linewidth=1.8)
    ax.scatter(drop, y, color="black", s=16, zorder=3)
    ax.axvline(0, color="#999999", linewidth=0.8)
    if margin is not None:
        ax.axvline(100 * margin, color=UNRESOLVED, linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels([plot_label(t.task) for t in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(
        f"drop in points, {plot_label(result.baseline)} minus {plot_label(result.candidate)} "
        f"({100 * (1 - 2 * float(result.alpha)):g}% interval; right end: the one-sided bound"
        + ("; dashed: the margin)" if margin is not None else ")")
    )
    ax.set_title("drop per task", fontsize=10)
    ax.grid(axis="x", color="#eeeeee")
    return fig
