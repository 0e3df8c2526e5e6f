"""ranks --battles resamples battles a prompt at a time when the table has prompt ids
(question_id, or --cluster-column), says how much wider that makes the intervals, and takes
--cluster-column none for battle by battle."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import evalgap


def _arena(tmp_path, prompts=300, per_prompt=12, spread=1.5, seed=0):
    rng = np.random.default_rng(seed)
    strength = np.linspace(1.0, -1.0, 6)
    prompt = np.repeat(np.arange(prompts), per_prompt)
    a = rng.integers(0, 6, prompt.size)
    b = (a + rng.integers(1, 6, prompt.size)) % 6
    effect = rng.normal(0, spread, (prompts, 6))
    z = strength[a] - strength[b] + effect[prompt, a] - effect[prompt, b]
    won = rng.random(prompt.size) < 1 / (1 + np.exp(-z))
    frame = pd.DataFrame({
        "model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b],
        "winner": np.where(won, "model_a", "model_b"), "question_id": prompt.astype(str),
        "conversation": (prompt // 3).astype(str),
    })  # fmt: skip
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    return path


def test_battles_are_resampled_by_prompt_and_the_widening_is_said(tmp_path, run_cli):
    path = _arena(tmp_path)
    out = run_cli("ranks", "--battles", path, "--n-bootstrap", 400, "--json")
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    bt = printed["bradley_terry"]
    assert bt["n_prompts"] == 300 and bt["prompt_widening"] > 1.2
    assert any("resampled by prompt (question_id: 300 prompts" in n for n in printed["notes"])
    python = evalgap.ranks(battles=str(path), n_bootstrap=400).to_dict()
    assert python == json.loads(json.dumps(printed))
    # battle by battle: narrower sets' standard errors, no prompts
    flat = json.loads(
        run_cli("ranks", "--battles", path, "--n-bootstrap", 400, "--json",
                "--cluster-column", "none").stdout
    )  # fmt: skip
    assert flat["bradley_terry"]["n_prompts"] is None
    # another column groups them: 100 conversations of 3 prompts
    other = json.loads(
        run_cli("ranks", "--battles", path, "--n-bootstrap", 400, "--json",
                "--cluster-column", "conversation").stdout
    )  # fmt: skip
    assert other["bradley_terry"]["n_prompts"] == 100
    missing = run_cli("ranks", "--battles", path, "--cluster-column", "nothing")
    assert missing.returncode == 2 and "--cluster-column nothing" in missing.stderr
    assert "Traceback" not in missing.stderr
