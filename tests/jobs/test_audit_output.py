"""audit --output: the pair table written from Arrow buffers is the table ``to_frame`` gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.io._write import write_table


def _board():
    """Five models, binary and graded ones (graded pairs have no anytime-valid verdict, so
    that verdict column is nullable), a few missing scores; all pairs."""
    rng = np.random.default_rng(3)
    binary = (rng.random((80, 3)) < [0.3, 0.5, 0.7]).astype(float)
    graded = rng.random((80, 2)).round(2)
    x = np.column_stack([binary, graded])
    x[rng.random(x.shape) < 0.05] = np.nan
    frame = pd.DataFrame(x, columns=[f"m{j}" for j in range(5)])
    frame.insert(0, "item_id", [f"q{i}" for i in range(80)])
    long = frame.melt(id_vars="item_id", var_name="model", value_name="score").dropna()
    return evalgap.audit(
        long, family="all", n_bootstrap=50, n_bootstrap_required_n=20, n_rank_bootstrap=0
    )


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_the_arrow_table_written_is_the_frame(tmp_path, suffix):
    result = _board()
    frame = result.to_frame()
    assert str(frame["resolved_anytime_valid"].dtype) == "boolean"  # a nullable column
    write_table(result.to_arrow(), tmp_path / f"arrow{suffix}")
    write_table(frame, tmp_path / f"frame{suffix}")
    if suffix == ".parquet":
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "arrow.parquet"), frame)
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "frame.parquet"), frame)
    else:
        assert (tmp_path / "arrow.csv").read_bytes() == (tmp_path / "frame.csv").read_bytes()
