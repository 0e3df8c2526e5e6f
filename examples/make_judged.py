"""Write ``judged.csv``: two models scored by an LLM judge, with human labels on some items.

2,000 items. Each model's true answer on an item is right or wrong (the ``human`` score):
model-x is right more often than model-y (by about 7 points), items varying in difficulty
for both. An LLM judge (the ``score`` column) agrees with the truth 90% of the time for
both models, and also passes 30% of model-y's wrong answers (a judge taken in by its longer
answers). A human labelled a random 30% of the items for both models; the ``human`` cell is
empty elsewhere. The judge alone puts model-y ahead; ``compare --gold-column human``
corrects it and says how far the judge favours model-y.

Run ``python examples/make_judged.py`` to regenerate the file (seeded, so identical).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

N_ITEMS = 2_000
LABELLED = 0.30
JUDGE_AGREES = 0.90
LENIENCY = {"model-x": 0.0, "model-y": 0.30}

OUTPUT = Path(__file__).with_name("judged.csv")


def main(path: Path = OUTPUT) -> None:
    rng = np.random.default_rng(2027)
    ease = rng.normal(0.0, 1.0, N_ITEMS)
    labelled = rng.random(N_ITEMS) < LABELLED
    lines = ["model,item_id,score,human"]
    for model, shift in (("model-x", 0.45), ("model-y", 0.10)):
        truth = rng.random(N_ITEMS) < 1 / (1 + np.exp(-(ease + shift)))
        judge = np.where(rng.random(N_ITEMS) < JUDGE_AGREES, truth, ~truth)
        judge |= ~truth & (rng.random(N_ITEMS) < LENIENCY[model])
        lines += [
            f"{model},item-{i:04d},{int(judge[i])},{int(truth[i]) if labelled[i] else ''}"
            for i in range(N_ITEMS)
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
