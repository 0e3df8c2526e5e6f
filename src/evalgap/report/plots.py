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
