"""Write ``pilot_configurations.csv``: a synthetic pilot of two models, 200 items, each run
twice under each of 4 seeds.

Model X's success probability on an item is drawn from Beta(2, 2), model Y's is X's less 4
points plus an item-specific shift (SD 0.1). The seed shifts model X's probabilities on
every item alike (by 0, +5, -4 and +2 points) and leaves Y's alone: a model x configuration
interaction, so the gap measured under one seed does not carry to the next. ``evalgap plan
--pilot ... --config-columns seed`` estimates the gap's components over items x seeds and
prices items x runs x seeds.

Run ``python examples/make_pilot_configurations.py`` to regenerate the file (seeded, so
identical).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

N_ITEMS = 200
SEED_SHIFTS = (0.0, 0.05, -0.04, 0.02)  # model X's shift under each seed
N_RUNS = 2
GAP = 0.04
ITEM_SHIFT_SD = 0.1

OUTPUT = Path(__file__).with_name("pilot_configurations.csv")


def main(path: Path = OUTPUT) -> None:
    rng = np.random.default_rng(2042)
    p_x = rng.beta(2.0, 2.0, N_ITEMS)
    p_y = np.clip(p_x - GAP + rng.normal(0.0, ITEM_SHIFT_SD, N_ITEMS), 0.01, 0.99)
    shifts = np.asarray(SEED_SHIFTS)
    lines = ["model,item_id,seed,run,score"]
    for model, p in (("model-x", p_x[:, None] + shifts), ("model-y", p_y[:, None] + 0 * shifts)):
        p = np.clip(p, 0.0, 1.0)
        runs = rng.random((N_ITEMS, shifts.size, N_RUNS)) < p[:, :, None]
        lines += [
            f"{model},item-{i:03d},{s + 1},{r + 1},{int(runs[i, s, r])}"
            for i in range(N_ITEMS)
            for s in range(shifts.size)
            for r in range(N_RUNS)
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
