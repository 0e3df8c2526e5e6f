"""ranks --battles --style: the scores and coefficients are fit_style's, every view says the
coefficients, and bad style columns are one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.stats import bradley_terry as bt


def _styled(tmp_path, n=6000, seed=0):
    rng = np.random.default_rng(seed)
    strength = np.linspace(0.8, -0.8, 5)
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    length_a, length_b = rng.integers(50, 800, n), rng.integers(50, 800, n)
    markdown = rng.integers(-3, 4, n)
    norm = (length_a - length_b) / (length_a + length_b)
    z = strength[a] - strength[b] + 1.2 * norm + 0.1 * markdown
    won = rng.random(n) < 1 / (1 + np.exp(-z))
    frame = pd.DataFrame({
        "model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b],
        "winner": np.where(won, "model_a", "model_b"), "length_a": length_a,
        "length_b": length_b, "markdown": markdown,
    })  # fmt: skip
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    return path, a, b, won.astype(float), np.column_stack([norm, markdown])


def test_style_controlled_ranks_are_fit_style_and_every_view_says_the_coefficients(
    tmp_path, run_cli
):
    path, a, b, y, x = _styled(tmp_path)
    out = run_cli("ranks", "--battles", path, "--style", "length,markdown", "--json",
                  "--n-bootstrap", 400)  # fmt: skip
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    oracle = bt.fit_style(a, b, y, x)
    style = {row["covariate"]: row for row in printed["bradley_terry"]["style"]}
    assert style["length"]["coefficient"] == pytest.approx(oracle.coefficients[0], abs=1e-9)
    assert style["markdown"]["coefficient"] == pytest.approx(oracle.coefficients[1], abs=1e-9)
    assert style["length"]["low"] < 1.2 < style["length"]["high"]
    # the style-controlled scores, by model name (the oracle coded m0..m4 as 0..4)
    scores = {row["model"]: row["score"] for row in printed["ranks"]}
    np.testing.assert_allclose([scores[f"m{i}"] for i in range(5)], oracle.scores, atol=1e-9)
    python = evalgap.ranks(battles=str(path), style="length,markdown", n_bootstrap=400)
    assert python.to_dict() == json.loads(json.dumps(printed))
    assert any("style-controlled (length, markdown)" in n for n in printed["notes"])
    text = run_cli("ranks", "--battles", path, "--style", "length,markdown",
                   "--n-bootstrap", 400)  # fmt: skip
    assert "Style coefficients" in text.stdout and "length +" in text.stdout
    page = tmp_path / "r.html"
    run_cli("ranks", "--battles", path, "--style", "length", "--n-bootstrap", 400,
            "--html", page)  # fmt: skip
    assert "Style control" in page.read_text()
    # bad input: one line
    missing = run_cli("ranks", "--battles", path, "--style", "emoji")
    assert missing.returncode == 2 and "no column 'emoji'" in missing.stderr
    davidson = run_cli("ranks", "--battles", path, "--style", "length", "--ties", "davidson")
    assert davidson.returncode == 2 and "half wins" in davidson.stderr
    scored = run_cli("ranks", "--scores", "examples/two_models.csv", "--style", "length")
    assert scored.returncode == 2 and "--style" in scored.stderr
