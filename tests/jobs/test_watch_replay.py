"""e-BH replayed on MMLU-Pro: the replay decides as ``watch`` does, and the rate docs/watch.md
states for pairs the fixed-n audit leaves unresolved is the one its command measures."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.jobs.monitoring import order_decisions

from conftest import EVALGAP, ROOT, shared_file

MODELS = [
    "Meta-Llama-3_1-70B_5shots",
    "Meta-Llama-3-70B_5shots",
    "Qwen1.5-110B_5shots",
    "jamba-1.5-large_5shots",
    "Yi-34B_5shots",
    "mathstral-7B_5shots",
]


def test_the_replay_decides_what_the_monitor_decides_at_every_look():
    """Six MMLU-Pro models close in rank, one item order, a look every 1,000 items: the
    replay's e-BH decisions are the Monitor's (targets="all") pair for pair."""
    frame = pd.read_csv(shared_file("mmlu_pro", "mmlu_pro_long.csv.gz"))
    frame = frame[frame["model"].isin(MODELS)]
    wide = frame.pivot(index="question_id", columns="model", values="correct")[MODELS]
    x = wide.to_numpy(dtype=float)
    first, second = np.triu_indices(len(MODELS), 1)
    d = x[:, first] - x[:, second]
    cells = [(d > 0).astype(np.int32), (d < 0).astype(np.int32), (d == 0).astype(np.int32)]
    order = np.random.default_rng(0).permutation(len(x))
    looks = np.arange(1000, len(x), 1000)
    decided, _ = order_decisions(cells, order, looks, 0.05)
    monitor = evalgap.Monitor(targets="all")
    items = wide.index.to_numpy()
    seen = 0
    for t, look in enumerate(looks):
        for position in order[seen:look]:
            for m, model in enumerate(MODELS):
                monitor.update(model, items[position], x[position, m])
        seen = look
        pairs = monitor.status().pairs
        by_monitor = {
            frozenset((a, b))
            for a, b, ok in zip(pairs.model_a, pairs.model_b, pairs.decided, strict=True)
            if ok
        }
        by_replay = {
            frozenset((MODELS[i], MODELS[j]))
            for i, j, ok in zip(first, second, decided[t], strict=True)
            if ok
        }
        assert by_monitor == by_replay, look
    assert decided.any() and not decided.all()


def _stated() -> tuple[str, float, float]:
    """The replay command docs/watch.md gives, and the rate and SE it states."""
    text = (ROOT / "docs" / "watch.md").read_text()
    command = re.search(r"`(evalgap simulate monitoring --scores [^`]+)`", text)
    rate = re.search(r"in ([0-9.]+) \(SE ([0-9.]+)\) of the orders", text)
    assert command and rate, "docs/watch.md no longer states the replay's command and rate"
    return command.group(1), float(rate.group(1)), float(rate.group(2))


def test_the_docs_state_the_replay_command_and_its_rate():
    command, rate, se = _stated()
    assert "--n-trials 200" in command and 0 <= rate <= 1 and se >= 0


@pytest.mark.slow  # about 3 minutes: 200 orders of 12,032 items, e-BH over 406 pairs
def test_the_stated_replay_rate_is_what_its_command_measures():
    import json
    import subprocess

    shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    command, rate, se = _stated()
    if not EVALGAP.exists():
        pytest.skip(f"the evalgap entry point is not installed next to {EVALGAP.parent}")
    args = [str(EVALGAP), *shlex.split(command)[1:], "--json"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    measured = json.loads(result.stdout)
    assert abs(measured["early_rate"] - rate) <= 2 * np.hypot(se, measured["early_se"]) + 1e-3
