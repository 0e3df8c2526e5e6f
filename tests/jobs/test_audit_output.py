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


def test_verdicts_and_labels_read_alike_from_every_view():
    """The verdicts kept as booleans read as True/False/None per pair (None where the
    procedure gives none), pickle to plain object arrays, and the names the Arrow table takes
    by code are the pair table's own."""
    import pickle

    import pyarrow as pa

    result = _board()
    pairs = result.pairs
    anytime = pairs.resolved["anytime_valid"]
    assert anytime.dtype == object and set(anytime.tolist()) == {True, False, None}
    frame = result.to_frame()
    for proc in pairs.resolved:
        expected = frame[f"resolved_{proc}"].astype(object).where(
            frame[f"resolved_{proc}"].notna(), None
        )
        assert pairs.resolved[proc].tolist() == expected.tolist(), proc
        np.testing.assert_array_equal(
            pairs.unresolved(proc), [v is False for v in pairs.resolved[proc]]
        )
    copy = pickle.loads(pickle.dumps(pairs))
    assert type(copy.resolved) is dict
    assert copy.resolved["anytime_valid"].tolist() == anytime.tolist()
    assert set(pairs.columns.labels) == {"task", "model_a", "model_b"}
    table = result.to_arrow()
    for name in ("task", "model_a", "model_b"):
        kind = table.schema.field(name).type
        assert pa.types.is_string(kind) or pa.types.is_large_string(kind)
        assert table.column(name).to_pylist() == pairs.columns[name].tolist()
