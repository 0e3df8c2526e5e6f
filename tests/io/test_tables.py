"""Long score tables: formats, column detection, alignment and the report of exclusions."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.tables import read_long_table

from conftest import shared_file


def _leaderboard(seed=0, n_items=60, models=("m1", "m2", "m3")):
    rng = np.random.default_rng(seed)
    rows = []
    for m in models:
        for i in range(n_items):
            rows.append({"model": m, "item_id": f"q{i}", "score": int(rng.random() < 0.6)})
    return pd.DataFrame(rows)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    name = path.name.removesuffix(".gz")
    if name.endswith(".parquet"):
        frame.to_parquet(path)
        return path
    if name.endswith(".jsonl"):
        text = frame.to_json(orient="records", lines=True)
    else:
        text = frame.to_csv(index=False, sep="\t" if name.endswith(".tsv") else ",")
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name", ["s.csv", "s.tsv", "s.parquet", "s.jsonl", "s.csv.gz", "s.jsonl.gz", "s.tsv.gz"]
)
def test_every_format_reads_back_to_identical_arrays(tmp_path, name):
    frame = _leaderboard()
    expected = align(frame.assign(task="all"))
    got = align(read_long_table(_write(frame, tmp_path / name)).frame)
    assert got.models == expected.models
    np.testing.assert_array_equal(got.tasks[0].scores, expected.tasks[0].scores)
    np.testing.assert_array_equal(got.tasks[0].item_ids, expected.tasks[0].item_ids)


def test_detected_columns_are_reported(tmp_path):
    frame = _leaderboard().rename(columns={"item_id": "question_id", "score": "correct"})
    table = read_long_table(_write(frame, tmp_path / "t.csv"))
    assert "item id column: 'question_id' (detected)" in table.notes
    assert "score column: 'correct' (detected)" in table.notes


def test_named_columns_override_detection(tmp_path):
    frame = _leaderboard().rename(columns={"model": "who", "item_id": "q", "score": "points"})
    path = _write(frame, tmp_path / "t.csv")
    with pytest.raises(
        InputError,
        match=r"cannot find the model column; name it with "
        r"model_column= \(columns found: who, q, points\)",
    ):
        read_long_table(path)
    table = read_long_table(path, model_column="who", item_column="q", score_column="points")
    assert table.columns["model"] == "who" and table.notes == ()
    with pytest.raises(InputError, match="no column 'nope'"):
        read_long_table(path, model_column="nope", item_column="q", score_column="points")


def test_bad_files_give_one_line_errors(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError, match="the file is empty"):
        read_long_table(empty)
    header = tmp_path / "header.csv"
    header.write_text("model,item_id,score\n")
    with pytest.raises(InputError, match="header but no rows"):
        read_long_table(header)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"model": "a", "item_id": 1, "score": 1}\n{"model": "b", "item_id"\n')
    with pytest.raises(InputError, match="line 2 is not valid JSON"):
        read_long_table(broken)
    unknown = tmp_path / "scores.xlsx"
    unknown.write_text("x")
    with pytest.raises(InputError, match=r"supported: csv, tsv, parquet, jsonl.*fmt="):
        read_long_table(unknown)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("model,item_id,score\nmod\xe8le,1,1\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_long_table(latin)
    with pytest.raises(InputError, match="no such file"):
        read_long_table(tmp_path / "missing.csv")
    for err in (InputError,):
        assert issubclass(err, ValueError)


def test_missing_items_are_left_out_and_counted():
    frame = _leaderboard().assign(task="all")
    frame = frame[~((frame.model == "m2") & frame.item_id.isin(["q1", "q2", "q3"]))]
    s = align(frame)
    # Pairs are defined pair by pair: m2's pairs use its 57 items, m1 vs m3 all 60.
    assert s.n_items == 60
    assert s.pair("m1", "m2")[0].size == 57 and s.pair("m1", "m3")[0].size == 60
    assert s.report.items_common == {"all": 57} and s.report.items_left_out == 3
    entry = next(e for e in s.report.entries if e.model == "m2")
    assert entry.items_missing == 3 and entry.items_kept == 57
    assert s.report.messages() == [
        "m2 has no score for 3 of 60 items; its pairs use the items both models scored"
    ]
    with pytest.raises(InputError, match="strict=True: m2 has no score for 3 of 60 items"):
        align(frame, strict=True)
    # --complete-case: one common item set, and the report says what it dropped.
    common = align(frame, complete_case=True)
    assert common.n_items == 57 and common.pair("m1", "m3")[0].size == 57
    assert common.report.messages()[0] == (
        "--complete-case: 3 of 60 items are not scored by every selected model and are left "
        "out of every pair"
    )
    # Selecting models that are complete keeps every item.
    assert align(frame, models=["m1", "m3"]).n_items == 60


def test_unusable_scores_are_excluded_and_counted():
    frame = _leaderboard().assign(task="all").astype({"score": object})
    frame.loc[0, "score"] = "n/a"
    frame.loc[1, "score"] = np.nan
    frame.loc[2, "score"] = "inf"
    s = align(frame)
    entry = next(e for e in s.report.entries if e.model == "m1")
    assert (entry.non_numeric, entry.empty_scores) == (2, 1)
    assert s.pair("m1", "m2")[0].size == 57
    assert any("non-numeric" in m for m in s.report.messages())


def test_duplicates_identical_are_collapsed_conflicting_are_an_error():
    frame = _leaderboard().assign(task="all")
    doubled = pd.concat([frame, frame.iloc[:2]])
    s = align(doubled)
    assert s.n_items == 60
    assert next(e for e in s.report.entries if e.model == "m1").duplicates_collapsed == 2
    clash = frame.iloc[[0]].assign(score=1 - frame.iloc[0]["score"])
    with pytest.raises(
        InputError,
        match=r"item 'q0' of model 'm1' has conflicting scores .*"
        r"run_column=",
    ):
        align(pd.concat([frame, clash]))


def test_runs_are_averaged_per_item_not_counted_as_items():
    rows = [
        {"model": m, "task": "all", "item_id": i, "run": r, "score": float((i + r) % 2)}
        for m in ("a", "b")
        for i in range(10)
        for r in range(3)
    ]
    s = align(pd.DataFrame(rows))
    assert s.n_items == 10
    np.testing.assert_allclose(
        s.tasks[0].scores[:, 0], [(1 / 3) if i % 2 == 0 else 2 / 3 for i in range(10)]
    )
    assert np.all(s.tasks[0].run_counts == 3)
    assert all(e.max_runs == 3 for e in s.report.entries)


def test_unknown_model_lists_the_models_found():
    with pytest.raises(InputError, match="no model 'zzz'; models found: m1, m2, m3"):
        align(_leaderboard().assign(task="all"), models=["m1", "zzz"])


def test_tasks_are_aligned_separately_and_pooled_for_a_pair():
    a = _leaderboard(seed=1).assign(task="t1")
    b = _leaderboard(seed=2, n_items=40).assign(task="t2")
    s = align(pd.concat([a, b]))
    assert [t.task for t in s.tasks] == ["t1", "t2"]
    assert s.n_items == 100
    x, y = s.pair("m1", "m2")
    assert x.shape == y.shape == (100,)


def test_mmlu_pro_llama_base_vs_instruct():
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    table = read_long_table(path, cluster_column="category")
    s = align(table.frame, models=["Meta-Llama-3_1-8B_5shots", "Meta-Llama-3_1-8B-Instruct_5shots"])
    a, b = s.pair("Meta-Llama-3_1-8B_5shots", "Meta-Llama-3_1-8B-Instruct_5shots")
    assert a.size == 12_032
    assert int(((a == 1) & (b == 0)).sum()) == 1127 and int(((a == 0) & (b == 1)).sum()) == 2053
    assert round(a.mean(), 4) == 0.3649 and round(b.mean(), 4) == 0.4419
    assert set(s.tasks[0].clusters) >= {"math", "law", "history"}


def test_mmlu_pro_missing_items_are_reported():
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    s = align(read_long_table(path).frame)
    missing = {e.model: e.items_missing for e in s.report.entries if e.items_missing}
    assert missing == {
        "DeepSeek-Coder-V2_5shots": 1681,
        "gemini-1.5-flash-002_5shots": 20,
        "gemini-1.5-pro-002_5shots": 12,
    }
    assert len(s.models) == 29


def test_bbh_conditions_pair_on_task_and_item():
    path = shared_file("bbh_codex", "bbh_codex_long.csv")
    s = align(read_long_table(path).frame)
    assert len(s.tasks) == 27 and s.n_items == 6511
    direct, cot = s.pair("code-davinci-002-direct", "code-davinci-002-cot")
    assert int(((direct == 1) & (cot == 0)).sum()) == 573
    assert int(((direct == 0) & (cot == 1)).sum()) == 1981


@pytest.mark.parametrize("name", ["p.csv.gz", "p.tsv", "p.parquet", "p.jsonl"])
def test_reading_reports_progress_in_bytes_up_to_the_file_size(tmp_path, name):
    path = _write(_leaderboard(n_items=500), tmp_path / name)
    calls = []
    table = read_long_table(path, progress=lambda done, total: calls.append((done, total)))
    size = path.stat().st_size
    assert calls and calls[-1] == (size, size)
    done = [d for d, _ in calls]
    assert done == sorted(done) and all(t == size for _, t in calls)
    assert len(table.frame) == 1500


def test_long_tables_hold_ids_as_categorical_codes(tmp_path):
    path = _write(_leaderboard(n_items=200), tmp_path / "c.csv.gz")
    frame = read_long_table(path).frame
    for column in ("model", "task", "item_id"):
        assert isinstance(frame[column].dtype, pd.CategoricalDtype)
        assert frame[column].cat.codes.dtype.itemsize <= 2
    assert frame["score"].dtype == np.float64
    assert list(frame["model"].cat.categories) == ["m1", "m2", "m3"]


def test_zero_padded_ids_match_an_item_file_as_written(tmp_path):
    from evalgap.io.tables import apply_item_file

    frame = _leaderboard(n_items=12).assign(item_id=lambda f: f["item_id"].str[1:].str.zfill(4))
    scores = read_long_table(_write(frame, tmp_path / "z.csv"))
    assert "0007" in set(scores.frame["item_id"])
    items = tmp_path / "items.csv"
    items.write_text("item_id,topic\n" + "".join(f"{i:04d},t{i % 2}\n" for i in range(10)))
    kept = apply_item_file(scores, items, cluster_column="topic")
    assert kept.notes[-1] == "2 items not listed in items.csv were left out"
    s = align(kept.frame)
    assert s.n_items == 10 and list(s.tasks[0].item_ids[:3]) == ["0000", "0001", "0002"]
    assert list(s.tasks[0].clusters[:3]) == ["t0", "t1", "t0"]


def test_a_score_whose_square_overflows_is_refused_in_every_job(run_cli, tmp_path):
    """1e308 is finite, but its variance overflows: compare refused it and ranks ranked it
    (score 2e306, se null, raw warnings); every job now refuses it in one line."""
    path = tmp_path / "big.csv"
    pd.DataFrame({"model": list("aabbcc"), "item_id": [1, 2] * 3,
                  "score": [0.5, 1e308, 0.2, 0.3, 0.1, 0.4]}).to_csv(path, index=False)  # fmt: skip
    for args in (["ranks"], ["audit"], ["compare", "--model-a", "a", "--model-b", "b"]):
        out = run_cli(*args, "--scores", path)
        assert out.returncode == 2 and "beyond +/-1e150" in out.stderr, out.stderr
        assert "Warning" not in out.stderr and out.stderr.count("\n") == 1
