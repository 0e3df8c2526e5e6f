"""Write the reference results that tests/test_identity.py holds later versions to.

    PYTHONPATH=<checkout of the reference version>/src python scripts/make_identity_reference.py

Runs the audit (family all, bootstraps off) of the evalgap importable from PYTHONPATH on
three leaderboards: MMLU-Pro (29 models, read from ../shared/data), and a synthetic 300 models
x 20,000 items, complete and with 2% of the scores missing. Saves, per leaderboard, every
pair's counts and every procedure's verdicts, and the floating-point statistics of a seeded
sample of 2,000 pairs (all pairs for MMLU-Pro), to tests/fixtures/identity/<name>.npz.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import evalgap  # noqa: E402

from synthetic import leaderboard_matrix  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "identity"
INTS = ("n_items", "a_only", "b_only")
FLOATS = (
    "delta", "statistic", "required_n", "resolution_ratio", "p_mcnemar", "p_exact",
    "p_mid_p", "p_paired_t", "anytime_boundary", "required_n_anytime",
)
SAMPLE = 2000
OPTIONS = dict(family="all", n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0)


def leaderboards():
    mmlu = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro_long.csv.gz"
    yield "mmlu_pro", pd.read_csv(mmlu), dict(
        model_column="model", item_column="question_id", score_column="correct"
    )
    for name, missing in (("synthetic_300x20000", 0.0), ("synthetic_300x20000_missing", 0.02)):
        x, models = leaderboard_matrix(300, 20000, missing=missing, seed=17)
        frame = pd.DataFrame(x, columns=models)
        frame.insert(0, "item", [f"i{i}" for i in range(x.shape[0])])
        long = frame.melt(id_vars="item", var_name="model", value_name="score").dropna()
        yield name, long, dict(model_column="model", item_column="item", score_column="score")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, frame, columns in leaderboards():
        table = evalgap.audit(frame, **OPTIONS, **columns).to_frame()
        rng = np.random.default_rng(0)
        sample = np.sort(rng.choice(len(table), min(SAMPLE, len(table)), replace=False))
        arrays = {
            "model_a": table["model_a"].astype(str).to_numpy().astype("U"),
            "model_b": table["model_b"].astype(str).to_numpy().astype("U"),
            "sample": sample,
        }
        arrays.update({k: table[k].to_numpy(dtype=np.int64) for k in INTS})
        for column in table.columns:
            if column.startswith("resolved_"):  # True / False / missing as 1 / 0 / -1
                values = table[column].astype(object)
                arrays[column] = np.array(
                    [-1 if v is pd.NA or v is None else int(v) for v in values], dtype=np.int8
                )
        arrays.update({k: table[k].to_numpy(dtype=float)[sample] for k in FLOATS})
        np.savez_compressed(OUT / f"{name}.npz", **arrays)
        print(name, len(table), "pairs")


if __name__ == "__main__":
    main()
