"""Write ``board.csv``: a synthetic leaderboard of 24 models on 400 shared items.

Each model's answers follow a two-parameter logistic item-response model
(``P(correct) = expit(a_i theta + c_i)``) with abilities spread over [-1.5, 1.5], slopes
uniform over [0.5, 2] and intercepts N(0, 1): a board on which ``evalgap simulate estimate``
shows what ``evalgap estimate`` recovers from a few items, and ``evalgap ranks`` has ties to
find.

Run ``python examples/make_board.py`` to regenerate the file (seeded, so identical).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.special import expit

N_MODELS, N_ITEMS = 24, 400
OUTPUT = Path(__file__).with_name("board.csv")


def main(path: Path = OUTPUT) -> None:
    rng = np.random.default_rng(16)
    ability = np.linspace(-1.5, 1.5, N_MODELS)
    slope, intercept = rng.uniform(0.5, 2.0, N_ITEMS), rng.normal(0.0, 1.0, N_ITEMS)
    correct = rng.random((N_MODELS, N_ITEMS)) < expit(np.outer(ability, slope) + intercept)
    lines = ["model,item_id,score"]
    for m in range(N_MODELS):
        lines += [f"model-{m:02d},item-{i:03d},{int(c)}" for i, c in enumerate(correct[m])]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
