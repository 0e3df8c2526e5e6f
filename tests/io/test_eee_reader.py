"""Every Eval Ever instance-level records (schemas 0.2.1 and 0.3.0): records laid out as the
published schema requires; means and item counts equal the records' own; scores off [0, 1]
are scored by is_correct, contradictions are refused by line, unknown versions noted."""

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
    del record["evaluation"]["is_correct"]  # with it, the task is scored by is_correct
    (tmp_path / "x.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError, match=r"line 1: task 'arith' has scores outside \[0, 1\]"):
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


NEW = ROOT.parent / "eee-0.3.0"
# The required fields of schema 0.3.0 (every_eval_ever 0.3.0's instance_level_eval.schema.json)
REQUIRED_030 = REQUIRED  # unchanged from 0.2.1; 0.3.0 adds the optional evaluation_result_id


def test_schema_030_records_read_and_a_task_off_zero_one_is_scored_by_is_correct(run_cli):
    """A judge's 1-10 grades are schema-valid; they were refused with no use of is_correct."""
    long = evalgap.load_scores([NEW])
    for path in sorted(NEW.glob("*.jsonl")):
        records = _records(path)
        for r in records:
            assert set(REQUIRED_030) <= set(r) and r["schema_version"] == "0.3.0"
            assert "evaluation_result_id" in r and {"score", "is_correct"} <= set(r["evaluation"])
        for task in ("arith", "essay"):
            mine = long.frame[(long.frame["model"] == records[0]["model_id"])
                              & (long.frame["task"] == task)]  # fmt: skip
            own = [r["evaluation"] for r in records if r["evaluation_name"] == task]
            assert len(mine) == len(own)
            assert mine["score"].mean() == pytest.approx(
                sum(e["is_correct"] for e in own) / len(own)
            )
            if task == "essay":  # a grade of 1 on 1-10 is no full mark: is_correct scores it
                assert max(e["score"] for e in own) == 10 and min(e["score"] for e in own) == 1
    assert [n for n in long.notes if "outside [0, 1]" in n] == [
        "task essay: evaluation.score lies outside [0, 1] (from 1 to 10), so each of its 20 "
        "records is scored by its evaluation.is_correct (1 or 0)"
    ]
    assert not any("schema_version" in n for n in long.notes)
    out = run_cli("compare", "--scores", NEW, "--model-a", "org/model-a",
                  "--model-b", "org/model-b", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["n_items"] == 30


def test_schema_030_records_validate_against_the_packages_own_schema():
    """With every_eval_ever installed (Python 3.12+), its bundled schema is the oracle."""
    jsonschema = pytest.importorskip("jsonschema")
    schemas = pytest.importorskip("every_eval_ever.schema")
    validator = jsonschema.Draft7Validator(schemas.schema_json("instance_level_eval.schema.json"))
    for path in NEW.glob("*.jsonl"):
        for r in _records(path):
            assert not list(validator.iter_errors(r))


def _lines(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_a_record_whose_score_and_is_correct_disagree_is_refused_by_file_and_line(
    tmp_path, run_cli
):
    records = _records(NEW / "model-a_instances.jsonl")
    arith = [r for r in records if r["evaluation_name"] == "arith"]
    wrong = next(i for i, r in enumerate(arith) if r["evaluation"]["score"] == 0)
    arith[wrong]["evaluation"]["is_correct"] = True
    (tmp_path / "a.jsonl").write_text(_lines(arith))
    out = run_cli("compare", "--scores", tmp_path / "a.jsonl", "--model-a", "x", "--model-b", "y")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("evalgap: error: --scores: ")
    assert (f"a.jsonl: line {wrong + 1}: evaluation.score is 0 but evaluation.is_correct is "
            "true; the record contradicts itself (1 such record(s))") in out.stderr  # fmt: skip
    with pytest.raises(InputError, match=rf"^scores=: .*a.jsonl: line {wrong + 1}: "):
        evalgap.load_scores([tmp_path / "a.jsonl"])
    arith[wrong]["evaluation"]["is_correct"] = False  # the fix: one of the two corrected
    (tmp_path / "a.jsonl").write_text(_lines(arith))
    assert len(evalgap.load_scores([tmp_path / "a.jsonl"]).frame) == 20
    right = next(i for i, r in enumerate(arith) if r["evaluation"]["score"] == 1)
    arith[right]["evaluation"]["is_correct"] = False
    (tmp_path / "b.jsonl").write_text(_lines(arith))
    with pytest.raises(InputError, match=rf"line {right + 1}: evaluation.score is 1 but .* false"):
        evalgap.load_scores([tmp_path / "b.jsonl"])
    # a graded score between 0 and 1 may go with either is_correct
    arith[right]["evaluation"]["score"] = 0.4
    (tmp_path / "c.jsonl").write_text(_lines(arith))
    assert evalgap.load_scores([tmp_path / "c.jsonl"]).frame["score"].min() == 0


def test_an_unknown_schema_version_is_noted_and_a_folder_note_names_no_file_it_read(tmp_path):
    records = _records(NEW / "model-b_instances.jsonl")
    for r in records[:3]:
        r["schema_version"] = "0.4.0"
    (tmp_path / "b.jsonl").write_text(_lines(records))
    (tmp_path / "a.jsonl").write_text((NEW / "model-a_instances.jsonl").read_text())
    long = evalgap.load_scores([tmp_path])
    assert len(long.frame) == 60
    assert any(n.startswith("3 record(s) of schema_version '0.4.0', not one evalgap was tested "
                            "on (0.2.1, 0.3.0)") for n in long.notes)  # fmt: skip
    # the folder's record files were read: no note may say they were not
    assert not any("not read" in n for n in long.notes), long.notes
    (tmp_path / "other.csv").write_text("model,item,score\nm,1,1\n")
    left = evalgap.load_scores([tmp_path]).notes
    assert [n for n in left if "not read" in n] == [
        f"{tmp_path}: 1 table file beside the eee logs was not read (other.csv); give it "
        "separately to read as scores"
    ]
