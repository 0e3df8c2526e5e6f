"""One anytime-valid decision: at every look, ``watch`` decides a pair exactly when the
confidence sequence printed beside it leaves 0 out, and equal models are decided in at most
alpha of the streams.

Once "decided" stood beside [-0.08, 1.0] and "not decided" beside [0.16, 0.84]: the decision
came from the discordant-sign e-process and the interval from another (a betting confidence
sequence), and about one look in forty over such streams disagreed.
"""

from __future__ import annotations

import numpy as np
import pytest

import evalgap

ALPHA = 0.05


def _stream(k: int, items: int) -> tuple[float, np.ndarray, np.ndarray]:
    """Stream k: equal models (even k) or a gap of 0.05-0.2 (odd k); binary two times in
    three (a share of 0.25-0.5 of discordant items), else graded (Beta scores)."""
    rng = np.random.default_rng([39, k])
    gap = 0.0 if k % 2 == 0 else float(rng.choice([0.05, 0.1, 0.2]))
    if rng.random() < 2 / 3:
        share = rng.uniform(0.25, 0.5)
        u = rng.random(items)
        d = np.where(u < (share + gap) / 2, 1, np.where(u < share, -1, 0))
        both = (rng.random(items) < 0.5).astype(float)
        return gap, np.where(d == 0, both, d == 1).astype(float), np.where(
            d == 0, both, d == -1
        ).astype(float)
    return gap, np.clip(rng.beta(2, 3, items) + gap, 0, 1), rng.beta(2, 3, items)


def _watch_streams(n_streams: int, items: int, every: int = 10) -> dict[str, int]:
    """Follow every stream with a Monitor, looking every ``every`` items; count the looks
    whose decision and interval disagree, and the equal-model streams ever decided."""
    counts = dict.fromkeys(("looks", "disagree", "nulls", "false"), 0)
    for k in range(n_streams):
        gap, a, b = _stream(k, items)
        monitor = evalgap.Monitor(targets="pair", pair=("a", "b"), alpha=ALPHA)
        ever = False
        for item in range(items):
            monitor.update("a", item, a[item])
            monitor.update("b", item, b[item])
            if (item + 1) % every:
                continue
            row = monitor.status().pairs.iloc[0]
            counts["looks"] += 1
            counts["disagree"] += bool(row["decided"]) != bool(row["lower"] > 0 or row["upper"] < 0)
            counts["disagree"] += bool(row["decided"]) != bool(row["e_value"] >= 1 / ALPHA)
            ever |= bool(row["decided"])
        counts["nulls"] += gap == 0
        counts["false"] += gap == 0 and ever
    return counts


def _check(counts: dict[str, int]) -> None:
    assert counts["disagree"] == 0, counts
    se = np.sqrt(ALPHA * (1 - ALPHA) / counts["nulls"])
    assert counts["false"] / counts["nulls"] <= ALPHA + 2 * se, counts


def test_decided_exactly_when_the_interval_leaves_zero_out_at_every_look():
    """80 streams of 100 items, a look every 10: 800 looks (the slow test below looks
    30,000 times over 1,000 streams)."""
    _check(_watch_streams(80, 100))


@pytest.mark.slow  # about 5 minutes: 30,000 looks
def test_decided_exactly_when_the_interval_leaves_zero_out_over_a_thousand_streams():
    _check(_watch_streams(1000, 300))


def test_under_e_bh_every_interval_is_read_at_the_level_that_decides():
    """Four models, all pairs: e-BH decides k of 6 pairs, every interval (at level
    alpha k / 6) leaves 0 out exactly when its pair is decided, at every look."""
    rng = np.random.default_rng(5)
    skill = {"a": 0.75, "b": 0.7, "c": 0.5, "d": 0.5}
    monitor = evalgap.Monitor(targets="all")
    decided_some = False
    for item in range(600):
        for model, p in skill.items():
            monitor.update(model, item, float(rng.random() < p))
        if (item + 1) % 20 == 0:
            status = monitor.status()
            pairs = status.pairs
            outside = (pairs["lower"] > 0) | (pairs["upper"] < 0)
            assert (pairs["decided"] == outside).all(), pairs
            k = int(pairs["decided"].sum())
            assert any(f"at level {ALPHA * max(k, 1) / 6:.3g}" in n for n in status.notes)
            decided_some |= k > 0
    assert decided_some


def test_an_early_decision_whose_sign_reverses_is_said():
    """e-BH over three models: A beats B on the first 150 items and loses every later one:
    the note says the early decision has reversed sign."""
    monitor = evalgap.Monitor(targets="all")
    notes: tuple[str, ...] = ()
    for item in range(600):
        first = item < 150
        monitor.update("A", item, float(first))
        monitor.update("B", item, float(not first))
        monitor.update("C", item, float(item % 2))
        if (item + 1) % 50 == 0:
            notes = monitor.status().notes
    reversed_ = [n for n in notes if "reversed sign" in n]
    assert reversed_ and "A vs B was decided with A ahead at" in reversed_[0]
