"""Every guarantee the docs state -- a size, a coverage, a family-wise or false-decision rate,
an error ratio -- each produced by one seeded ``evalgap`` command.

``python benchmarks/guarantees.py`` runs the commands and writes ``docs/guarantees.md``: the
figures on that page are this script's output, never typed. ``tests/cross/test_guarantees.py``
checks the page against this registry in the default run, and (marked slow) re-runs every
command and fails where the page's figure is no longer reproduced within its Monte Carlo
error or no longer meets its bound.

Usage::

    python benchmarks/guarantees.py                 # every guarantee; writes the page
    python benchmarks/guarantees.py --only gold_coverage --print
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "guarantees.md"
MMLU_PRO = "../shared/data/mmlu_pro/mmlu_pro_long.csv.gz"
ALPACA_EVAL = "../shared/data/alpaca_eval/alpaca_eval_long.csv.gz"


@dataclass(frozen=True)
class Guarantee:
    """One stated guarantee: what it claims, the command that measures it, how to read the
    figure and its Monte Carlo SE from the command's ``--json``, and the bound it must meet
    (``side`` "at most" or "at least"; met within 2 Monte Carlo SE)."""

    key: str
    claim: str
    command: tuple[str, ...]
    read: Callable[[dict[str, Any]], tuple[float, float]]
    bound: float
    side: str
    stated_in: str

    @property
    def shared_data(self) -> bool:
        """Whether the command reads the shared real-data files (skipped without them)."""
        return any(part.startswith("../shared/") for part in self.command)

    def holds(self, figure: float, se: float) -> bool:
        """Whether ``figure`` meets the bound within 2 Monte Carlo SE (a ``"measured"``
        figure states a rate the docs report, with no bound to meet)."""
        if self.side == "measured":
            return True
        if self.side == "at most":
            return figure <= self.bound + 2 * se + 1e-12
        return figure >= self.bound - 2 * se - 1e-12


def _worst(values: list[float], ses: list[float], largest: bool) -> tuple[float, float]:
    """The worst cell (largest or smallest figure) with its own SE."""
    k = max(range(len(values)), key=lambda i: values[i] if largest else -values[i])
    return float(values[k]), float(ses[k])


def _calibration(test: str) -> Callable[[dict[str, Any]], tuple[float, float]]:
    """The largest type-I error of ``test`` over the calibration grid."""

    def read(d: dict[str, Any]) -> tuple[float, float]:
        cells = d["cells"]
        return _worst([c["type1"][test] for c in cells], [c["type1_se"][test] for c in cells],
                      True)  # fmt: skip

    return read


def _aggregation(test: str) -> Callable[[dict[str, Any]], tuple[float, float]]:
    """The largest null rejection rate of ``test`` over the task counts."""

    def read(d: dict[str, Any]) -> tuple[float, float]:
        return _worst(d["rejection_rates"]["null"][test], d["standard_errors"]["null"][test],
                      True)  # fmt: skip

    return read


def _rows(field: str, se: str, largest: bool, keep: Callable[[dict[str, Any]], bool] = bool
          ) -> Callable[[dict[str, Any]], tuple[float, float]]:  # fmt: skip
    """The worst of a study's rows (those ``keep`` takes) by ``field``, with its SE."""

    def read(d: dict[str, Any]) -> tuple[float, float]:
        rows = [r for r in d["rows"] if keep(r)]
        return _worst([r[field] for r in rows], [r[se] for r in rows], largest)

    return read


def _component_coverage(d: dict[str, Any]) -> tuple[float, float]:
    """The least coverage of any component's interval over the configuration study's rows."""
    names = ("item", "configuration", "item_configuration", "residual")
    cells = [(r[f"coverage_{n}"], r[f"coverage_{n}_se"]) for r in d["rows"] for n in names]
    return _worst([c[0] for c in cells], [c[1] for c in cells], False)


def _estimate(field: str) -> Callable[[dict[str, Any]], tuple[float, float]]:
    """The design-based estimate's error ratio to the plain mean (SE by the delta method,
    the two errors taken as independent: conservative, they are positively correlated) or
    its coverage."""

    def read(d: dict[str, Any]) -> tuple[float, float]:
        est = next(r for r in d["rows"] if r["design"] == "estimate")
        if field == "coverage":
            return float(est["coverage"]), float(est["coverage_se"])
        plain = next(r for r in d["rows"] if r["design"] == "random_mean")
        ratio = est["mae"] / plain["mae"]
        rel = math.hypot(est["mae_se"] / est["mae"], plain["mae_se"] / plain["mae"])
        return float(ratio), float(ratio * rel)

    return read


def _prospective(d: dict[str, Any]) -> tuple[float, float]:
    """The power at N* (the middle size) of the least powerful pair."""
    pairs = d["pairs"]
    k = d["fractions"].index(1.0)
    return _worst([p["power"][k] for p in pairs], [p["power_se"][k] for p in pairs], False)


def _bias_flags(d: dict[str, Any]) -> tuple[float, float]:
    f = d["bias_flags"]
    return float(f["family_wise_holm"]), float(f["monte_carlo_se"])


def _replay(field: str) -> Callable[[dict[str, Any]], tuple[float, float]]:
    """A rate of the e-BH replay over item orders, with its SE."""

    def read(d: dict[str, Any]) -> tuple[float, float]:
        r = d["replay"]
        return float(r[field]), float(r[f"{field}_se"])

    return read


GUARANTEES = (
    Guarantee(
        "mcnemar_size",
        "compare's asymptotic McNemar test holds its level (worst cell of the calibration "
        "grid: 9 accuracy x correlation cells, 500 items, 1,500 trials)",
        ("simulate", "calibration"), _calibration("mcnemar"), 0.05, "at most", "simulate.md",
    ),
    Guarantee(
        "exact_size",
        "compare's exact McNemar test holds its level (worst cell)",
        ("simulate", "calibration"), _calibration("exact"), 0.05, "at most", "simulate.md",
    ),
    Guarantee(
        "bootstrap_size",
        "compare's paired bootstrap test holds its level (worst cell)",
        ("simulate", "calibration"), _calibration("bootstrap"), 0.05, "at most", "simulate.md",
    ),
    Guarantee(
        "prospective_power",
        "at N*, a fresh sample of N* items has the target power 0.8 (MMLU-Pro pair "
        "gemma-7b vs Llama-3-8B, 1,000 resamples)",
        ("simulate", "prospective", "--scores", MMLU_PRO, "--pair", "gemma-7b_5shots",
         "Meta-Llama-3-8B_5shots"),
        _prospective, 0.8, "at least", "simulate.md",
    ),
    Guarantee(
        "eprocess_size",
        "the anytime-valid e-process (Appendix C) keeps type-I error at or below alpha, "
        "monitored after every item (ARC pair of Table 6, 600 trials)",
        ("simulate", "sequential", "--both-correct", "618", "--a-only", "100", "--b-only",
         "78", "--both-wrong", "376"),
        lambda d: (float(d["type1"]), math.sqrt(0.05 * 0.95 / d["n_trials"])), 0.05,
        "at most", "simulate.md",
    ),
    Guarantee(
        "watch_size",
        "watch decides a pair with no gap in at most alpha of streams, looking after every "
        "item for 2,000 items (worst of binary pair, graded pair, e-BH family)",
        ("simulate", "monitoring"), _rows("error_rate", "error_se", True), 0.05, "at most",
        "watch.md",
    ),
    Guarantee(
        "degrade_pooled_size",
        "degrade's pooled test holds its level on 1-20 tasks (worst task count)",
        ("simulate", "aggregation"), _aggregation("pooled"), 0.05, "at most", "degrade.md",
    ),
    Guarantee(
        "degrade_max_drop_size",
        "degrade's max-drop test (studentized, the size-valid form) holds its level",
        ("simulate", "aggregation"), _aggregation("max_drop"), 0.05, "at most", "errata.md",
    ),
    Guarantee(
        "rank_set_coverage",
        "simultaneous rank sets cover the true ranks (worst of the 12 configurations: ties, "
        "near-ties, untied, 5-100 models, 1,000 leaderboards each)",
        ("simulate", "rank-coverage", "--n-trials", "1000"),
        _rows("coverage", "coverage_se", False), 0.95, "at least", "simulate.md",
    ),
    Guarantee(
        "task_rank_set_coverage",
        "two-way rank sets over tasks cover the population ranks (worst configuration)",
        ("simulate", "task-rank-coverage"),
        _rows("coverage", "coverage_se", False, lambda r: r["sets"] == "two-way"), 0.95,
        "at least", "card.md",
    ),
    Guarantee(
        "adaptive_size",
        "adaptive decides a pair with no gap in at most alpha of runs (worst null "
        "configuration)",
        ("simulate", "adaptive"),
        _rows("adaptive_rejected", "adaptive_rejected_se", True, lambda r: r["null"]), 0.05,
        "at most", "adaptive.md",
    ),
    Guarantee(
        "gold_coverage",
        "the gold-scale gap's PPI++ interval covers the true gap (AlpacaEval judge, gold "
        "simulated with known biases, 61 pairs x 1,000 runs, 10% labelled)",
        ("simulate", "gold", "--scores", ALPACA_EVAL, "--score-column", "win",
         "--task-column", "none"),
        lambda d: (float(d["coverage"]), float(d["monte_carlo_se"])), 0.95, "at least",
        "judges.md",
    ),
    Guarantee(
        "judge_bias_family_wise",
        "judge-bias flags (Holm over the models) name an unbiased model in at most alpha of "
        "label sets (AlpacaEval, gold drawn from the judge: 58 unbiased models, 1,000 sets)",
        ("simulate", "gold", "--scores", ALPACA_EVAL, "--score-column", "win",
         "--task-column", "none", "--bias-low", "0", "--bias-high", "0", "--n-pairs", "0"),
        _bias_flags, 0.05, "at most", "judges.md",
    ),
    Guarantee(
        "ebh_early_unresolved",
        "how often e-BH (watch over all 406 MMLU-Pro pairs, a look every 100 items) decides "
        "one of the 18 pairs the fixed-n audit leaves unresolved before the last item, over "
        "200 random item orders (a measured rate, not a bound: see the page for its meaning)",
        ("simulate", "monitoring", "--scores", MMLU_PRO, "--n-trials", "200"),
        lambda d: (float(d["early_rate"]), float(d["early_se"])), float("nan"), "measured",
        "watch.md",
    ),
    Guarantee(
        "ebh_early_opposite",
        "of those orders, how often the early decision has the sign opposite to the full "
        "benchmark's gap",
        ("simulate", "monitoring", "--scores", MMLU_PRO, "--n-trials", "200"),
        lambda d: (float(d["opposite_rate"]), float(d["opposite_se"])), float("nan"),
        "measured", "watch.md",
    ),
    Guarantee(
        "fragility_top_claim",
        "items whose removal reverses MMLU-Pro's top rank claim, with the critical value held "
        "fixed (exact; the recomputed count is in the same JSON entry)",
        ("ranks", "--scores", MMLU_PRO),
        lambda d: (float(d["fragility"][0]["items_to_flip"]), 0.0), float("nan"), "measured",
        "fragility.md",
    ),
    Guarantee(
        "fragility_top_claim_recomputed",
        "the same with the rank sets recomputed without the removed items",
        ("ranks", "--scores", MMLU_PRO),
        lambda d: (float(d["fragility"][0]["items_to_flip_recomputed"]), 0.0), float("nan"),
        "measured", "fragility.md",
    ),
    Guarantee(
        "configuration_test_size",
        "the configuration-effect test on one model's scores holds its level where "
        "configurations do not shift scores (worst of binary and graded; 200 items x 4 "
        "configurations x 2 replicates, 4,000 trials each)",
        ("simulate", "configurations", "--n-trials", "4000"),
        _rows("configuration_rejection", "configuration_rejection_se", True,
              lambda r: r["configuration_sd"] == 0),
        0.05, "at most", "configurations.md",
    ),
    Guarantee(
        "model_configuration_test_size",
        "the test of a model x configuration interaction (does the gap move with the "
        "configuration?) holds its level where it does not (worst of binary and graded)",
        ("simulate", "configurations", "--n-trials", "4000"),
        _rows("model_configuration_rejection", "model_configuration_rejection_se", True,
              lambda r: r["configuration_sd"] == 0),
        0.05, "at most", "configurations.md",
    ),
    Guarantee(
        "configuration_component_coverage",
        "each variance component's 95% interval (item, configuration, item x configuration, "
        "residual) covers its true value (worst component of 6 rows: binary and graded, "
        "configuration SD 0, 0.02, 0.04)",
        ("simulate", "configurations", "--n-trials", "4000"),
        _component_coverage, 0.93, "at least", "configurations.md",
    ),
    Guarantee(
        "configuration_gap_coverage",
        "the gap's 95% interval with configurations random covers the gap over configurations "
        "where configurations shift the two models differently (worst of 4 rows)",
        ("simulate", "configurations", "--n-trials", "4000"),
        _rows("gap_coverage_random", "gap_coverage_random_se", False,
              lambda r: r["configuration_sd"] > 0),
        0.94, "at least", "configurations.md",
    ),
    Guarantee(
        "configuration_gap_coverage_fixed",
        "on the same draws, the gap's interval with configurations fixed (the usual per-item "
        "interval) covers that gap (a measured rate: it is the interval's claim about these "
        "configurations only that holds)",
        ("simulate", "configurations", "--n-trials", "4000"),
        _rows("gap_coverage_fixed", "gap_coverage_fixed_se", False,
              lambda r: r["configuration_sd"] > 0),
        float("nan"), "measured", "configurations.md",
    ),
    Guarantee(
        "estimate_error_ratio",
        "estimate's design-based default errs less than the same items' own mean out of "
        "distribution (MMLU-Pro, fit on the 20 weakest, the 9 strongest from 100 items: "
        "mean absolute error over the plain mean's, at most 0.9)",
        ("simulate", "estimate", "--scores", MMLU_PRO, "--hold-out", "strongest",
         "--n-held-out", "9", "--budget", "100", "--n-trials", "20"),
        _estimate("mae_ratio"), 0.9, "at most", "estimate.md",
    ),
    Guarantee(
        "estimate_coverage",
        "estimate's 95% intervals cover out of distribution (the same runs; at least 0.93)",
        ("simulate", "estimate", "--scores", MMLU_PRO, "--hold-out", "strongest",
         "--n-held-out", "9", "--budget", "100", "--n-trials", "20"),
        _estimate("coverage"), 0.93, "at least", "estimate.md",
    ),
)


@functools.cache
def _output(command: tuple[str, ...]) -> tuple[dict[str, Any], float]:
    """The ``--json`` of one command and its seconds (each command runs once per process:
    several guarantees read one study)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "evalgap", *command, "--json"], cwd=ROOT, capture_output=True,
        text=True, check=False, env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(
            f"evalgap {' '.join(command)}: exit {done.returncode}: {done.stderr.strip()[-400:]}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1]), time.perf_counter() - start


def run(g: Guarantee) -> tuple[float, float, float]:
    """Run ``g``'s command with ``--json``; return its figure, Monte Carlo SE and seconds."""
    output, seconds = _output(g.command)
    figure, se = g.read(output)
    return figure, se, seconds


def command_line(g: Guarantee) -> str:
    """The command as a user types it."""
    return " ".join(["evalgap", *g.command])


def page(measured: dict[str, tuple[float, float, float]]) -> str:
    """The guarantees page from the measured figures."""
    lines = [
        "# Guarantees, each measured by a command",
        "",
        "Every size, coverage, family-wise or false-decision rate and error ratio the docs",
        "state, with the seeded command that measures it (add `--json` for the figure). The",
        "figures below are the output of `python benchmarks/guarantees.py`, which writes this",
        "page; none is typed by hand. A test re-runs every command (`pytest -m slow",
        "tests/cross/test_guarantees.py`) and fails where a figure is no longer reproduced",
        "within its Monte Carlo error, or no longer meets its bound within 2 Monte Carlo SE.",
        "Commands reading `../shared/data` need the real-data files beside the project.",
        "",
        "| Guarantee | Claim | Bound | Measured | MC SE | Holds | Command |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for g in GUARANTEES:
        if g.key not in measured:
            continue
        figure, se, _ = measured[g.key]
        mark = "yes" if g.holds(figure, se) else "**no**"
        bound = "measured" if g.side == "measured" else f"{g.side} {g.bound:g}"
        mark = "-" if g.side == "measured" else mark
        lines.append(
            f"| `{g.key}` | {g.claim} ([where]({g.stated_in})) | {bound} | "
            f"{figure:.4f} | {se:.4f} | {mark} | `{command_line(g)}` |"
        )
    lines += [
        "",
        "Where a figure falls short it says so here rather than in a footnote: the docs page",
        "named beside it states the same measured figure.",
        "",
    ]
    return "\n".join(lines)


def stated(text: str) -> dict[str, tuple[float, float]]:
    """The page's figures by key: (measured, MC SE)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[cells[0].strip("`")] = (float(cells[3]), float(cells[4]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="keys to run (default: all)")
    parser.add_argument("--print", action="store_true", help="print, do not write the page")
    args = parser.parse_args()
    previous = stated(PAGE.read_text(encoding="utf-8")) if PAGE.exists() else {}
    measured = {k: (v[0], v[1], 0.0) for k, v in previous.items()}
    for g in GUARANTEES:
        if args.only and g.key not in args.only:
            continue
        measured[g.key] = run(g)
        figure, se, seconds = measured[g.key]
        print(f"{g.key:28s} {figure:.4f} (SE {se:.4f}) {g.side} {g.bound:g}: "
              f"{'holds' if g.holds(figure, se) else 'FAILS'}  {seconds:.0f} s", flush=True)
    if not args.print:
        PAGE.write_text(page(measured), encoding="utf-8")
        print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
