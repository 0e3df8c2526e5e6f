"""Decompression is bounded: a bomb in any compressed input stops with one line naming it."""

from __future__ import annotations

import gzip
import json
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
import zstandard

from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io import _limits, _zip
from evalgap.io.inspect_logs import read_inspect
from evalgap.io.lm_eval import read_lm_eval
from evalgap.io.tables import read_frame, read_long_table

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks"
EVAL = next((FIXTURES / "inspect" / "plain_eval").glob("*.eval"))
MiB = 2**20


@pytest.fixture
def small_limits(monkeypatch):
    """Bounds of 512 KiB a stream (ratio 10), 256 KiB a member: 4 MiB is a bomb."""
    monkeypatch.setattr(_limits, "EXPANSION_FLOOR", 512 * 1024)
    monkeypatch.setattr(_limits, "EXPANSION_RATIO", 10)
    monkeypatch.setattr(_zip, "MAX_MEMBER_BYTES", 256 * 1024)


def _eval_with_member(path: Path, name: str, data: bytes, method: str) -> None:
    """An .eval archive: the fixture's header plus one sample member ``name`` holding
    ``data`` compressed with zstd (method 93, as inspect writes) or deflate."""
    with _zip.Archive(EVAL) as source:  # inspect's members are zstd: read them with evalgap
        header = source.read("header.json")
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("header.json", header)
        if method == "deflate":
            out.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
            return
        # zipfile cannot write method 93: store the zstd frame, then mark it zstd with the
        # true size and CRC, as inspect's writer does
        packed = zstandard.ZstdCompressor(level=19).compress(data)
        out.writestr(name, packed, compress_type=zipfile.ZIP_STORED)
    raw = bytearray(path.read_bytes())
    encoded = name.encode()
    for magic, method_at, crc_at, size_at in (
        (b"PK\x03\x04", 8, 14, 22),
        (b"PK\x01\x02", 10, 16, 24),
    ):
        start = 0
        while (start := raw.find(magic, start)) >= 0:
            name_at = start + (30 if magic == b"PK\x03\x04" else 46)
            if raw[name_at : name_at + len(encoded)] == encoded:
                struct.pack_into("<H", raw, start + method_at, 93)
                struct.pack_into("<L", raw, start + crc_at, zlib.crc32(data))
                struct.pack_into("<L", raw, start + size_at, len(data))
            start += 4
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("method", ["zstd", "deflate"])
def test_a_zip_member_bomb_is_refused_naming_the_member(tmp_path, small_limits, method):
    log = tmp_path / f"bomb-{method}.eval"
    sample = json.dumps({"id": 1, "epoch": 1, "scores": {}, "pad": " " * (4 * MiB)})
    _eval_with_member(log, "samples/1_epoch_1.json", sample.encode(), method)
    assert log.stat().st_size < 100_000  # a small file ...
    with pytest.raises(InputError) as info:
        read_inspect(log)  # ... that would expand to 4 MiB
    message = str(info.value)
    assert message.startswith(
        f"{log}: member samples/1_epoch_1.json: decompresses to more than 262,144 bytes"
    )
    assert "decompression bomb" in message and "\n" not in message


def test_a_zstd_member_within_the_bounds_reads_as_before(tmp_path):
    """The hand-made method-93 member is read as inspect's own (the CRC and size checked)."""
    with _zip.Archive(EVAL) as archive:  # zipfile itself cannot decompress method 93
        name = next(n for n in archive.namelist() if n.startswith("samples/"))
        data = archive.read(name)
    log = tmp_path / "one.eval"
    _eval_with_member(log, name, data, "zstd")
    with _zip.Archive(log) as archive:
        assert archive.read(name) == data


def test_archive_members_together_are_bounded(tmp_path, monkeypatch):
    """Many members, each under the per-member bound, stop at the archive's bound."""
    monkeypatch.setattr(_limits, "EXPANSION_FLOOR", 3 * MiB)
    monkeypatch.setattr(_limits, "EXPANSION_RATIO", 1)
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for i in range(5):
            out.writestr(f"m{i}", b"\0" * MiB)
    with _zip.Archive(path) as archive:
        for i in range(3):
            assert len(archive.read(f"m{i}")) == MiB
        with pytest.raises(
            InputError,
            match=r"m3: with the members read before it, the archive decompresses to more than 3",
        ):
            archive.read("m3")


def test_a_gzip_table_bomb_is_refused(tmp_path, small_limits):
    rows = "model,item_id,score\n" + "a,1,1\n" * 600_000  # 3.6 MB of rows
    table = tmp_path / "bomb.csv.gz"
    table.write_bytes(gzip.compress(rows.encode()))
    for read in (read_long_table, read_frame):
        with pytest.raises(
            InputError, match=r"bomb\.csv\.gz: decompresses to more than 524,288 bytes"
        ):
            read(table)
    jsonl = tmp_path / "bomb.jsonl.gz"
    jsonl.write_bytes(gzip.compress(b'{"model":"a","item_id":1,"score":1}\n' * 100_000))
    with pytest.raises(
        InputError, match=r"bomb\.jsonl\.gz: decompresses to more than 524,288 bytes"
    ):
        read_long_table(jsonl)
    code = main(["inspect-data", "--scores", str(table)])
    assert code == 2


def test_a_genuine_gzip_table_within_the_bound_reads(tmp_path, small_limits):
    table = tmp_path / "ok.csv.gz"
    table.write_bytes(gzip.compress(b"model,item_id,score\na,1,1\nb,1,0\n"))
    assert len(read_long_table(table).frame) == 2


def _lm_eval_samples(folder: Path, lines: list[bytes], *, gz: bool) -> Path:
    folder.mkdir()
    name = "samples_tiny_2026-01-01T00-00-00.000000.jsonl"
    body = b"".join(lines)
    if gz:
        (folder / (name + ".gz")).write_bytes(gzip.compress(body, 9))
    else:
        (folder / name).write_bytes(body)
    return folder


def test_an_lm_eval_samples_bomb_is_refused(tmp_path, small_limits):
    record = {"doc_id": 0, "doc": {"q": "x"}, "filter": "none", "acc": 1.0}
    lines = [json.dumps(record).encode() + b"\n"] * 50_000
    folder = _lm_eval_samples(tmp_path / "run", lines, gz=True)
    with pytest.raises(InputError, match=r"jsonl\.gz: decompresses to more than 524,288 bytes"):
        read_lm_eval(folder)


def test_an_lm_eval_samples_line_over_the_cap_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(_limits, "MAX_LINE_BYTES", 4096)
    record = {"doc_id": 0, "doc": {"q": "x" * 10_000}, "filter": "none", "acc": 1.0}
    folder = _lm_eval_samples(tmp_path / "run", [json.dumps(record).encode() + b"\n"], gz=False)
    with pytest.raises(InputError, match=r"run/samples_tiny_.*: line 1 is longer than 4,096 bytes"):
        read_lm_eval(folder)


def test_a_parquet_file_with_rows_out_of_proportion_to_its_size_is_refused(
    tmp_path, monkeypatch
):
    """A 440 KB Parquet file of 20 million identical rows ran for minutes in gigabytes of
    memory; the row count in its footer is checked against its size before reading."""
    import pandas as pd

    monkeypatch.setattr(_limits, "PARQUET_ROWS_FLOOR", 10_000)
    n = 400_000
    path = tmp_path / "bomb.parquet"
    pd.DataFrame({"model": ["a"] * n, "item_id": [1] * n, "score": [1.0] * n}).to_parquet(path)
    size = path.stat().st_size
    assert n > 20 * size
    with pytest.raises(InputError, match=rf"{n:,} rows in {size:,} bytes .* decompression bomb"):
        read_long_table(path)
    ok = tmp_path / "ok.parquet"
    pd.DataFrame({"model": ["a", "b"], "item_id": [1, 1], "score": [1.0, 0.0]}).to_parquet(ok)
    assert len(read_long_table(ok).frame) == 2


def test_a_csv_row_longer_than_the_block_is_one_line_naming_the_bound(tmp_path, monkeypatch):
    from evalgap.io import tables

    monkeypatch.setattr(tables, "BATCH_BYTES", 2**16)
    path = tmp_path / "long.csv"
    path.write_text("model,item_id,score\na," + "x" * 200_000 + ",1\nb,1,0\n")
    with pytest.raises(InputError, match=r"long\.csv: a row is longer than 0\.0625 MiB; a score"):
        read_long_table(path)


def test_a_json_file_is_read_whole_only_within_its_bound(tmp_path):
    from evalgap.io._limits import read_json

    path = tmp_path / "doc.json"
    path.write_text('{"a": [1, 2, 3]}')
    assert read_json(path, limit=16) == {"a": [1, 2, 3]}
    too_big = r"doc\.json: larger than a results file holds \(15 bytes\)"
    with pytest.raises(InputError, match=too_big):
        read_json(path, limit=15, what="a results file")
    path.write_text('{"a": [1, 2,\n 3}')
    with pytest.raises(InputError, match=r"doc\.json: not valid JSON \(.*line 2 column 3"):
        read_json(path)
    path.write_bytes(b'{"a": "caf\xe9"}')
    with pytest.raises(InputError, match=r"doc\.json: not UTF-8 text"):
        read_json(path)
    with pytest.raises(InputError, match=r"missing\.json: cannot be read"):
        read_json(tmp_path / "missing.json")
