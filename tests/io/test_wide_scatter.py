"""A wide table of numeric model columns is scattered without melting: the same aligned
scores, item order and alignment report as melting it to long rows (the oracle here)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalgap.io.tables import read_wide_table
from evalgap.jobs._inputs import scores_of


def wide_frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "item": [f"i{k}" for k in range(300)],
            "task": rng.choice(["t1", "t2"], 300),
            "cl": rng.choice(["a", "b", "c"], 300),
        }
    )
    for m in range(6):
        x = (rng.random(300) < 0.6).astype(float)
        x[rng.random(300) < 0.1] = np.nan  # items this model did not score
        frame[f"m{m}"] = x
    frame["graded"] = rng.random(300)
    return frame


def melted(frame: pd.DataFrame, models, with_task: bool, cluster: str | None) -> pd.DataFrame:
    ids = ["item"] + (["task"] if with_task else []) + ([cluster] if cluster else [])
    long = frame.melt(id_vars=ids, value_vars=models, var_name="model", value_name="score")
    long = long[long["score"].notna()]
    out = pd.DataFrame(
        {
            "model": long["model"].astype(str),
            "task": long["task"].astype(str) if with_task else "all",
            "item_id": long["item"].astype(str),
            "score": long["score"],
        }
    )
    if cluster:
        out["cluster"] = long[cluster].astype(str)
    return out


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("cluster", [None, "cl"])
@pytest.mark.parametrize("with_task", [True, False])
def test_scatter_equals_melt(tmp_path, suffix, cluster, with_task):
    frame = wide_frame()
    if not with_task:
        frame = frame.drop(columns="task")
    path = tmp_path / f"wide{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    read = read_wide_table(path, item_column="item", cluster_column=cluster)
    assert isinstance(read.frame["model"].dtype, pd.CategoricalDtype)  # the scatter path
    models = [f"m{m}" for m in range(6)] + ["graded"]
    got = scores_of(read)
    want = scores_of(
        melted(frame, models, with_task, cluster), cluster_column="cluster" if cluster else None
    )
    assert got.models == want.models == tuple(models)
    # the same report, apart from the loaders' own notes (what each detected)
    drop = set(got.report.loader_notes) | set(want.report.loader_notes)
    got_report, want_report = got.report.to_dict(), want.report.to_dict()
    for report in (got_report, want_report):
        report["messages"] = [m for m in report["messages"] if m not in drop]
    assert got_report == want_report
    for a, b in zip(got.tasks, want.tasks, strict=True):
        assert a.task == b.task
        np.testing.assert_array_equal(a.item_ids, b.item_ids)
        np.testing.assert_array_equal(a.scores, b.scores)
        if cluster:
            np.testing.assert_array_equal(a.clusters, b.clusters)
