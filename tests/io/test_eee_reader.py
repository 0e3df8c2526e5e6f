"""Every Eval Ever instance-level records (schema instance_level_eval_0.2.1): records laid
out as the published schema requires; means and item counts equal the records' own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evalgap
from evalgap.errors import InputError

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks" / "eee-0.2.1"
# The schema's required fields (instance_level_eval_0.2.1), and those of a single_turn record
REQUIRED = (
    "schema_version",
    "evaluation_id",
    "model_id",
    "evaluation_name",
    "sample_id",
    "interaction_type",
    "input",
    "answer_attribution",
    "evaluation",
)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_fixtures_follow_the_schema_and_read_with_their_own_means(run_cli):
    long = evalgap.load_scores([ROOT])
    for path in ROOT.glob("*.jsonl"):
        records = _records(path)
        for r in records:
            assert set(REQUIRED) <= set(r) and r["interaction_type"] == "single_turn"
            assert {"raw", "reference"} <= set(r["input"]) and "raw" in r["output"]
            assert {"score", "is_correct"} <= set(r["evaluation"])
        model = records[0]["model_id"]
        mine = long.frame[long.frame["model"] == model]
        assert len(mine) == len(records) == 30
        assert mine["score"].mean() == pytest.approx(
            sum(r["evaluation"]["is_correct"] for r in records) / len(records)
        )
    assert any("1 record(s) carry an error" in n for n in long.notes)
    out = run_cli(
        "compare",
        "--scores",
        ROOT,
        "--model-a",
        "org/model-a",
        "--model-b",
        "org/model-b",
        "--json",
    )
    assert json.loads(out.stdout)["n_items"] == 30


def test_bad_records_are_one_line_errors(tmp_path):
    record = _records(next(ROOT.glob("*.jsonl")))[0]
    record["evaluation"]["score"] = 7.0
    (tmp_path / "x.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError, match=r"line 1: evaluation.score is 7, outside \[0, 1\]"):
        evalgap.load_scores([tmp_path / "x.jsonl"])
    record["evaluation"]["score"] = 1.0
    (tmp_path / "y.jsonl").write_text(json.dumps(record) + "\n{not json\n")
    with pytest.raises(InputError, match="line 2 is not valid JSON"):
        evalgap.load_scores([tmp_path / "y.jsonl"])


def test_a_damaged_gzip_or_text_that_is_not_utf8_is_a_one_line_error(tmp_path, run_cli):
    import gzip

    from evalgap.io.options import LoadOptions

    EEE = LoadOptions(fmt="eee")

    text = "".join(json.dumps(r) + "\n" for r in _records(next(ROOT.glob("*.jsonl"))))
    packed = gzip.compress(text.encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match=r"cut.jsonl.gz: cannot be read after line \d+"):
        evalgap.load_scores([tmp_path / "cut.jsonl.gz"], EEE)
    out = run_cli("ranks", "--scores", tmp_path / "cut.jsonl.gz", "--format", "eee")
    assert out.returncode != 0 and "cut.jsonl.gz: cannot be read" in out.stderr
    assert "Traceback" not in out.stderr and "aborted" not in out.stderr
    (tmp_path / "plain.jsonl.gz").write_text(text)  # named .gz, not gzip
    with pytest.raises(InputError, match=r"plain\.jsonl\.gz: cannot be read after line 0"):
        evalgap.load_scores([tmp_path / "plain.jsonl.gz"], EEE)
    (tmp_path / "latin.jsonl").write_bytes(b'{"model_id": "caf\xe9"}\n')
    with pytest.raises(InputError, match="line 1 is not UTF-8 text"):
        evalgap.load_scores([tmp_path / "latin.jsonl"], EEE)
