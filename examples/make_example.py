"""Write ``two_models.csv``: a synthetic two-model evaluation on 2,000 shared items.

The two models' per-item correctness is drawn from a latent Gaussian copula: each item has a
difficulty shared by both models (correlation 0.6 on the latent scale), so the 0/1 scores
are positively correlated as real models' are. Model X is right about 72% of the time,
model Y about 69%: a typical "is a 3-point gap real on a 2,000-item benchmark?" question.

Run ``python examples/make_example.py`` to regenerate the file (seeded, so identical).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats

N_ITEMS = 2000
LATENT_CORRELATION = 0.6
ACCURACY = {"model-x": 0.72, "model-y": 0.69}


OUTPUT = Path(__file__).with_name("two_models.csv")


def main(path: Path = OUTPUT) -> None:
    rng = np.random.default_rng(45)  # a draw whose gap is significant yet unresolved
    cov = [[1.0, LATENT_CORRELATION], [LATENT_CORRELATION, 1.0]]
    latent = rng.multivariate_normal([0.0, 0.0], cov, size=N_ITEMS)
    lines = ["model,item_id,score"]
    for column, (model, accuracy) in enumerate(ACCURACY.items()):
        correct = latent[:, column] < stats.norm.ppf(accuracy)
        lines += [f"{model},item-{i:04d},{int(c)}" for i, c in enumerate(correct)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
