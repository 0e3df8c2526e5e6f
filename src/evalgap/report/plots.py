"""Figures, drawn with matplotlib and returned as SVG text (embedded inline in HTML reports).

Every function takes a result (or its parts) and returns one ``<svg>`` string, so a report
needs no image files and no network to be viewed.
"""

from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # the Agg backend is chosen before pyplot loads
import numpy as np
import pandas as pd

# Keep text as text in SVG: smaller files, searchable and selectable labels.
matplotlib.rcParams["svg.fonttype"] = "none"
MAX_BARS_PER_TASK = 60
RESOLVED, UNRESOLVED = "#3b7dd8", "#d8613b"


def to_svg(fig) -> str:
    """Return the figure as SVG text and close it."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def resolution_bars(pairs: pd.DataFrame) -> str:
    """r = N*/N per pair, faceted by task, log scale, with the r = 1 line (Figures 2-3)."""
    tasks = list(dict.fromkeys(pairs["task"]))
    fig, axes = plt.subplots(len(tasks), 1, figsize=(9, 2.8 * len(tasks)), squeeze=False)
    for ax, task in zip(axes[:, 0], tasks, strict=True):
        sub = pairs[pairs["task"] == task].copy()
        sub["r"] = 1.0 / sub["resolution_ratio"]
        sub = sub.replace([np.inf], np.nan).dropna(subset=["r"]).sort_values("r")
        if len(sub) > MAX_BARS_PER_TASK:
            sub = sub.iloc[np.linspace(0, len(sub) - 1, MAX_BARS_PER_TASK).astype(int)]
        labels = [f"{a} vs {b}" for a, b in zip(sub["model_a"], sub["model_b"], strict=True)]
        colours = [UNRESOLVED if r > 1 else RESOLVED for r in sub["r"]]
        ax.bar(range(len(sub)), sub["r"], color=colours)
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylabel("r = N*/N")
        ax.set_title(f"{task}: bars above the line are unresolved", fontsize=10)
        ax.set_xticks(range(len(sub)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=6)
    fig.tight_layout()
    return to_svg(fig)


def efficiency(pairs: pd.DataFrame) -> str:
    """Unpaired / paired required N against the pair's correlation, with 1/(1 - rho) (Figure 1)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    sub = pairs[np.isfinite(pairs["paired_efficiency"]) & np.isfinite(pairs["correlation"])]
    ax.scatter(
        sub["correlation"],
        sub["paired_efficiency"],
        facecolors="none",
        edgecolors=RESOLVED,
        label="pairs",
    )
    if len(sub):
        grid = np.linspace(
            max(-0.5, sub["correlation"].min()), min(0.99, sub["correlation"].max()), 100
        )
        ax.plot(grid, 1 / (1 - grid), "k--", label="1 / (1 - rho)")
    ax.set_xlabel("per-item correlation rho")
    ax.set_ylabel("unpaired N / paired N*")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title("efficiency gained by pairing", fontsize=10)
    fig.tight_layout()
    return to_svg(fig)


def trajectories(curves: dict) -> str:
    """log e_n along the items for chosen pairs, with the log(1/alpha) threshold (Figure 4)."""
    fig, ax = plt.subplots(figsize=(7, 4))
    threshold = None
    for label, curve in curves.items():
        line = ax.plot(curve["items"], curve["log_e"], label=label, linewidth=1.2)[0]
        threshold = curve["threshold"]
        if curve.get("required_n") and math.isfinite(curve["required_n"]):
            ax.axvline(curve["required_n"], color=line.get_color(), linestyle=":", linewidth=1)
    if threshold is not None:
        ax.axhline(threshold, color="black", linestyle="--", linewidth=1, label="log(1/alpha)")
    ax.set_xlabel("items")
    ax.set_ylabel("log e_n")
    ax.set_title("mixture e-process (dotted: fixed-n N*)", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return to_svg(fig)


def cluster_icc(intervals: pd.DataFrame) -> str:
    """ICC of the paired difference per pair, with its 5-95% cluster-bootstrap interval."""
    fig, ax = plt.subplots(figsize=(9, 5.5))
    sub = intervals.head(MAX_BARS_PER_TASK)
    x = np.arange(len(sub))
    err = np.vstack(
        [np.maximum(sub["icc"] - sub["icc_low"], 0), np.maximum(sub["icc_high"] - sub["icc"], 0)]
    )
    ax.bar(x, sub["icc"], yerr=err, color=RESOLVED, capsize=2)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(
        [f"{a} vs {b}" for a, b in zip(sub["model_a"], sub["model_b"], strict=True)],
        rotation=60,
        ha="right",
        fontsize=6,
    )
    ax.set_ylabel("ICC of D")
    ax.set_title(
        "intra-cluster correlation of the paired difference (5-95% bootstrap)", fontsize=10
    )
    fig.tight_layout()
    return to_svg(fig)


def unresolved_distribution(distribution: dict, n_pairs: int) -> str:
    """Share of cluster-bootstrap draws with each unresolved count."""
    fig, ax = plt.subplots(figsize=(6, 3))
    counts = sorted(distribution)
    ax.bar(counts, [distribution[c] for c in counts], color=UNRESOLVED)
    ax.set_xlabel(f"unresolved pairs (of {n_pairs})")
    ax.set_ylabel("share of bootstrap draws")
    ax.set_title("cluster bootstrap of the clustered verdict", fontsize=10)
    fig.tight_layout()
    return to_svg(fig)


def save_figure(fig, path) -> None:
    """Write the figure to ``path`` (PNG, SVG or PDF by its suffix) and close it."""
    from pathlib import Path

    from evalgap.errors import InputError

    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        plt.close(fig)
        raise InputError(f"--plot {path}: give a .png, .svg or .pdf file name")
    try:
        fig.savefig(path, bbox_inches="tight", dpi=150)
    except OSError as exc:
        raise InputError(f"--plot {path}: cannot write the figure ({exc.strerror})") from None
    finally:
        plt.close(fig)


def calibration_figure(result):
    """Type-I error and power of each test per grid cell, with alpha, 0.8 and MC bands."""
    variants = list(result.variants)
    labels = [f"p={c['accuracy']:g}\nrho={c['latent_correlation']:g}" for c in result.cells]
    x = np.arange(len(result.cells))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
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
    fig.tight_layout()
    return fig


def prospective_figure(result):
    """Empirical McNemar power at fractions of N* for each pair (Table 10)."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for pair in result.pairs:
        ax.errorbar(
            result.fractions,
            pair["power"],
            yerr=[2 * s for s in pair["power_se"]],
            marker="o",
            capsize=2,
            label=f"{pair['pair']} (N*={pair['required_n']:,})",
        )
    ax.axhline(result.power, color="black", linestyle="--", linewidth=1)
    ax.axvline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("sample size / N*")
    ax.set_ylabel("empirical McNemar power")
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def power_curve_figure(result):
    """Bootstrap power against n, N* dashed for each gap (Figures 5-6)."""
    fig, ax = plt.subplots(figsize=(6.5, 4))
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
    ax.set_xlabel("paired sample size n")
    ax.set_ylabel("bootstrap power")
    ax.set_title(f"{result.kind} scores; dashed: N*", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def sequential_figure(result):
    """Sample e-process trajectories under H0 and H1 with the log(1/alpha) threshold (Fig. 4)."""
    fig, ax = plt.subplots(figsize=(7, 4))
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
    fig.tight_layout()
    return fig


def aggregation_figure(result):
    """Rejection rates of the aggregates against the number of tasks, per scenario (Fig. 3)."""
    fig, axes = plt.subplots(1, len(result.rates), figsize=(13, 3.8), sharey=False)
    for ax, (scenario, rates) in zip(np.atleast_1d(axes), result.rates.items(), strict=True):
        for test, values in rates.items():
            ax.plot(result.task_counts, values, marker="o", ms=3, label=test)
        if scenario.startswith("null"):
            ax.axhline(result.alpha, color="black", linestyle="--", linewidth=1)
        ax.set_title(scenario.replace("_", " "), fontsize=10)
        ax.set_xlabel("number of tasks T")
        ax.set_ylabel("rejection rate")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    return fig
