"""Fuzzing the loaders: whatever the bytes, the result is scores or a one-line InputError."""

from __future__ import annotations

import gzip
import io
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.sources import load_scores

import synthetic as syn

NAMES = [
    "s.csv",
    "s.tsv",
    "s.jsonl",
    "s.parquet",
    "s.csv.gz",
    "s.jsonl.gz",
    "log.json",
    "log.eval",
    f"samples_arc_easy_{syn.STAMP}.jsonl",
    "per_instance_stats.json",
]
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def load_or_input_error(path: Path) -> None:
    try:
        align(load_scores(path).frame)
    except InputError as exc:
        message = str(exc)
        assert message and "\n" not in message and "Traceback" not in message


@given(data=st.binary(max_size=3000), name=st.sampled_from(NAMES))
@FUZZ
def test_random_bytes(data, name):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        load_or_input_error(path)


@given(text=st.text(max_size=1500), name=st.sampled_from(NAMES))
@FUZZ
def test_random_text(text, name):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        load_or_input_error(path)


def _valid_files() -> dict[str, bytes]:
    frame = syn.leaderboard(seed=1)
    one = frame[(frame.model == syn.MODELS[0]) & (frame.task == "arc_easy")]
    out = {}
    csv = frame.to_csv(index=False).encode()
    out["s.csv"] = csv
    out["s.csv.gz"] = gzip.compress(csv)
    out["s.jsonl"] = frame.to_json(orient="records", lines=True).encode()
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    out["s.parquet"] = buffer.getvalue()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        syn.write_lm_eval(one, root / "lm")
        out[f"samples_arc_easy_{syn.STAMP}.jsonl"] = next(
            (root / "lm").rglob("samples_*")
        ).read_bytes()
        syn.write_inspect(one, root / "inspect")
        out["log.json"] = next((root / "inspect").glob("*.json")).read_bytes()
        syn.write_inspect(one, root / "eval", archive=True)
        out["log.eval"] = next((root / "eval").glob("*.eval")).read_bytes()
        syn.write_helm(one, root / "helm")
        out["per_instance_stats.json"] = next(
            (root / "helm").rglob("per_instance_stats.json")
        ).read_bytes()
    return out


VALID = _valid_files()


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_fixtures_load(name, tmp_path):
    path = tmp_path / name
    path.write_bytes(VALID[name])
    assert align(load_scores(path).frame).n_items > 0


@given(name=st.sampled_from(sorted(VALID)), cut=st.floats(0.0, 1.0))
@FUZZ
def test_truncated_files(name, cut):
    data = VALID[name]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data[: int(len(data) * cut)])
        load_or_input_error(path)


@given(
    name=st.sampled_from(sorted(VALID)), position=st.floats(0.0, 0.999), byte=st.integers(0, 255)
)
@FUZZ
def test_corrupted_bytes(name, position, byte):
    data = bytearray(VALID[name])
    data[int(len(data) * position)] = byte
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(bytes(data))
        load_or_input_error(path)


def test_eval_archive_without_header(tmp_path):
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("samples/1_epoch_1.json", "{}")
    with pytest.raises(InputError, match=r"no header\.json"):
        load_scores(path)
