"""Write ``pilot_runs.csv``: a synthetic pilot of two models, 300 items, 4 runs each.

Each item has its own success probability for each model: model X's is drawn from
Beta(2, 2), model Y's is X's less 3 points plus an item-specific shift (SD 0.15), so items
differ in how much better X is (the between-item component). Each model then runs each
item 4 times at temperature > 0: independent 0/1 draws at its probability (the run-to-run,
within-item component). ``evalgap plan --pilot`` estimates both and plans items x reruns.

Run ``python examples/make_pilot.py`` to regenerate the file (seeded, so identical).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

N_ITEMS = 300
N_RUNS = 4
GAP = 0.03
ITEM_SHIFT_SD = 0.15

OUTPUT = Path(__file__).with_name("pilot_runs.csv")


def main(path: Path = OUTPUT) -> None:
    rng = np.random.default_rng(2026)
    p_x = rng.beta(2.0, 2.0, N_ITEMS)
    p_y = np.clip(p_x - GAP + rng.normal(0.0, ITEM_SHIFT_SD, N_ITEMS), 0.0, 1.0)
    lines = ["model,item_id,run,score"]
    for model, p in (("model-x", p_x), ("model-y", p_y)):
        runs = rng.random((N_ITEMS, N_RUNS)) < p[:, None]
        lines += [
            f"{model},item-{i:03d},{r + 1},{int(runs[i, r])}"
            for i in range(N_ITEMS)
            for r in range(N_RUNS)
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
