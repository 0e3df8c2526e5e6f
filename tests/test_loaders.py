"""Every source evalgap reads: real fixtures, synthetic round trips, and bad input."""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pandas as pd
import pytest

from evalgap.errors import InputError
from evalgap.io import lm_eval
from evalgap.io.helm import read_helm
from evalgap.io.inspect_logs import read_inspect
from evalgap.io.open_llm_leaderboard import download_details, read_details
from evalgap.io.sources import LoadOptions, detect_source, load_scores
from evalgap.scores import align

import synthetic as syn
from conftest import shared_file

MODELS = sorted(syn.MODELS)


def assert_same_arrays(loaded, reference):
    got = align(loaded, models=MODELS)
    want = align(reference, models=MODELS)
    assert {t.task for t in got.tasks} == {t.task for t in want.tasks}
    for w in want.tasks:
        g = next(t for t in got.tasks if t.task == w.task)
        np.testing.assert_array_equal(g.item_ids, w.item_ids)
        np.testing.assert_array_equal(g.scores, w.scores)


# --- round trips: one synthetic leaderboard in every format ---------------------------------


@pytest.fixture(scope="module")
def reference():
    return syn.leaderboard(seed=3)


def test_round_trip_lm_eval(tmp_path, reference):
    syn.write_lm_eval(reference, tmp_path)
    long = load_scores(tmp_path)
    assert detect_source(tmp_path) == "lm-eval"
    assert_same_arrays(long.frame, reference)


def test_round_trip_oll_v2(tmp_path, reference):
    syn.write_oll_v2(reference, tmp_path)
    assert detect_source(tmp_path) == "oll"
    assert_same_arrays(load_scores(tmp_path).frame, reference)


@pytest.mark.parametrize("as_text", [False, True])
def test_round_trip_oll_v1_aligns_on_text_hashes(tmp_path, reference, as_text):
    syn.write_oll_v1(reference, tmp_path, as_text=as_text)
    long = load_scores(tmp_path)
    expected = reference.assign(item_id=syn.oll_v1_item_ids(reference))
    assert_same_arrays(long.frame, expected)
    assert any("hash of the text" in n for n in long.notes)


@pytest.mark.parametrize("archive", [False, True])
def test_round_trip_inspect(tmp_path, reference, archive):
    syn.write_inspect(reference, tmp_path, archive=archive)
    assert detect_source(tmp_path) == "inspect"
    assert_same_arrays(load_scores(tmp_path).frame, reference)


def test_round_trip_helm(tmp_path, reference):
    syn.write_helm(reference, tmp_path)
    long = load_scores(tmp_path)
    assert_same_arrays(long.frame, reference.assign(item_id=syn.helm_item_ids(reference)))
    assert any("perturbed" in n for n in long.notes)


@pytest.mark.parametrize("name", ["l.csv", "l.tsv", "l.parquet", "l.jsonl", "l.csv.gz"])
def test_round_trip_long_tables(tmp_path, reference, name):
    path = tmp_path / name
    if name.endswith(".parquet"):
        reference.to_parquet(path)
    elif name.endswith(".jsonl"):
        reference.to_json(path, orient="records", lines=True)
    else:
        reference.to_csv(path, index=False, sep="\t" if ".tsv" in name else ",")
    assert_same_arrays(load_scores(path).frame, reference)


def test_round_trip_wide_tables_both_orientations(tmp_path, reference):
    one_task = reference[reference.task == "arc_easy"]
    wide = one_task.pivot(index="item_id", columns="model", values="score").reset_index()
    wide.to_csv(tmp_path / "wide.csv", index=False)
    got = load_scores(tmp_path / "wide.csv", LoadOptions(layout="wide"))
    assert_same_arrays(got.frame, one_task.assign(task="all"))
    rows = one_task.pivot(index="model", columns="item_id", values="score").reset_index()
    rows.to_csv(tmp_path / "rows.csv", index=False)
    got = load_scores(tmp_path / "rows.csv", LoadOptions(layout="wide", models_in="rows"))
    assert_same_arrays(got.frame, one_task.assign(task="all"))


def test_shuffled_columns_read_the_same(tmp_path, reference):
    reference[["score", "item_id", "task", "model"]].to_csv(tmp_path / "s.csv", index=False)
    assert_same_arrays(load_scores(tmp_path / "s.csv").frame, reference)


def test_mixed_sources_in_one_call(tmp_path, reference):
    a = reference[reference.model == MODELS[0]]
    b = reference[reference.model != MODELS[0]]
    syn.write_lm_eval(a, tmp_path / "lm")
    syn.write_inspect(b, tmp_path / "inspect")
    got = load_scores([tmp_path / "lm", tmp_path / "inspect"])
    assert_same_arrays(got.frame, reference)


# --- lm-evaluation-harness -----------------------------------------------------------------


def test_lm_eval_fixture():
    path = shared_file("format_fixtures", "lm_eval")
    long = lm_eval.read_lm_eval(path)
    s = align(long.frame)
    assert s.models == ("RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1",)
    assert s.n_items == 10 and s.tasks[0].task == "math_perturbed_full"
    assert "task math_perturbed_full: metric 'exact_match' (default)" in long.notes
    assert np.all(s.tasks[0].scores == 0)


def test_lm_eval_default_metric_rule():
    assert lm_eval.default_metric("hellaswag", ["acc", "acc_norm"]) == "acc_norm"
    assert lm_eval.default_metric("leaderboard_bbh_navigate", ["acc_norm", "acc"]) == "acc_norm"
    assert lm_eval.default_metric("mmlu_law", ["acc", "acc_norm"]) == "acc"
    assert lm_eval.default_metric("gsm8k", ["exact_match"]) == "exact_match"
    assert (
        lm_eval.default_metric("ifeval", ["inst_level_strict_acc", "prompt_level_strict_acc"])
        == "prompt_level_strict_acc"
    )


def test_lm_eval_metric_choice(tmp_path, reference):
    syn.write_lm_eval(reference, tmp_path, metric="acc", extra_metric="acc_norm")
    default = load_scores(tmp_path)  # arc_easy defaults to acc_norm, gsm8k to acc
    assert "task arc_easy: metric 'acc_norm' (default)" in default.notes
    assert "task gsm8k: metric 'acc' (default)" in default.notes
    chosen = load_scores(tmp_path, LoadOptions(metric=("arc_easy=acc",)))
    assert_same_arrays(chosen.frame, reference)
    with pytest.raises(
        InputError, match="no metric 'f1' for task arc_easy; metrics logged: acc, acc_norm"
    ):
        load_scores(tmp_path, LoadOptions(metric=("f1",)))


def test_lm_eval_filters_are_separate_tasks(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    with open(folder / f"samples_gsm8k_{syn.STAMP}.jsonl", "w") as out:
        for doc in range(5):
            for flt, value in (("strict-match", 0.0), ("flexible-extract", 1.0)):
                out.write(
                    json.dumps(
                        {
                            "doc_id": doc,
                            "filter": flt,
                            "metrics": ["exact_match"],
                            "exact_match": value,
                        }
                    )
                    + "\n"
                )
    s = align(lm_eval.read_lm_eval(folder).frame)
    assert sorted(t.task for t in s.tasks) == ["gsm8k:flexible-extract", "gsm8k:strict-match"]
    assert s.n_items == 10
    one = align(lm_eval.read_lm_eval(folder, filter_name="strict-match").frame)
    assert [t.task for t in one.tasks] == ["gsm8k:strict-match"]


def test_lm_eval_latest_run_is_used_and_said(tmp_path, reference):
    syn.write_lm_eval(reference, tmp_path, stamp="2026-01-01T00-00-00.000001")
    newer = reference.assign(score=1.0)
    syn.write_lm_eval(newer, tmp_path, stamp="2026-02-01T00-00-00.000001")
    long = lm_eval.read_lm_eval(tmp_path)
    assert any(
        "2 runs found, using the latest (2026-02-01T00-00-00.000001)" in n for n in long.notes
    )
    assert_same_arrays(long.frame, newer)
    both = align(lm_eval.read_lm_eval(tmp_path, all_runs=True).frame, models=MODELS)
    assert np.all(both.tasks[0].run_counts == 2)
    expected = (align(reference, models=MODELS).tasks[0].scores + 1.0) / 2
    np.testing.assert_allclose(both.tasks[0].scores, expected)


def test_lm_eval_bad_files(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    path = folder / f"samples_arc_easy_{syn.STAMP}.jsonl"
    path.write_text('{"doc_id": 0, "metrics": ["acc"], "acc": 1}\n{"doc_id": 1, "metr')
    with pytest.raises(InputError, match=r"samples_arc_easy_.*\.jsonl: line 2 is not valid JSON"):
        lm_eval.read_lm_eval(folder)
    path.write_text('{"doc_id": 0, "metrics": ["bleu"], "bleu": [["ref"], ["pred"]]}\n')
    with pytest.raises(InputError, match="metric 'bleu' is corpus-level"):
        lm_eval.read_lm_eval(folder)
    path.write_text('{"id": 0, "acc": 1}\n')
    with pytest.raises(InputError, match="line 1 has no doc_id"):
        lm_eval.read_lm_eval(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(
        InputError,
        match=r"no samples_<task>_<timestamp>\.jsonl files found under this "
        r"directory; run lm_eval with --log_samples",
    ):
        lm_eval.read_lm_eval(empty)


def test_lm_eval_mixed_metrics_are_an_error(tmp_path, reference):
    syn.write_lm_eval(reference[reference.model == MODELS[0]], tmp_path, metric="acc")
    syn.write_lm_eval(reference[reference.model == MODELS[1]], tmp_path, metric="exact_match")
    with pytest.raises(
        InputError, match="task arc_easy: the models were scored with different metrics"
    ):
        lm_eval.read_lm_eval(tmp_path)


# --- Open LLM Leaderboard ------------------------------------------------------------------


def test_oll_v2_model_name_from_folder(tmp_path, reference):
    syn.write_oll_v2(reference, tmp_path)
    long = read_details(tmp_path)
    assert sorted(long.frame.model.unique()) == MODELS
    assert any("metric 'acc_norm' (default)" in n for n in long.notes)


def test_oll_v1_items_that_fail_to_align_are_reported(tmp_path, reference):
    syn.write_oll_v1(reference, tmp_path)
    folder = tmp_path / ("details_" + MODELS[0].replace("/", "__"))
    path = next(folder.glob("*arc_easy*"))
    frame = pd.read_parquet(path)
    frame.loc[0, "example"] = "a reworded question"
    frame.to_parquet(path)
    s = align(load_scores(tmp_path).frame, models=MODELS)
    messages = s.report.messages()
    assert any(
        f"{MODELS[0]} has no score for 1 of 41 items on task arc_easy" in m for m in messages
    )
    assert s.report.items_common["arc_easy"] == 39


def test_hub_download_uses_snapshot_download(tmp_path, monkeypatch, reference):
    syn.write_oll_v2(reference[reference.model == MODELS[0]], tmp_path / "hub")
    folder = next((tmp_path / "hub").iterdir())
    calls = {}

    def snapshot_download(**kwargs):
        calls.update(kwargs)
        return str(folder)

    monkeypatch.setitem(
        sys.modules, "huggingface_hub", types.SimpleNamespace(snapshot_download=snapshot_download)
    )
    local = download_details("open-llm-leaderboard/org-a__alpha-details", tasks=["arc_easy"])
    assert calls["repo_id"] == "open-llm-leaderboard/org-a__alpha-details"
    assert calls["repo_type"] == "dataset" and calls["allow_patterns"] == ["*arc_easy*.parquet"]
    long = read_details(local)
    assert set(long.frame.model) == {MODELS[0]}


def test_hub_download_without_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(InputError, match="pip install huggingface_hub"):
        download_details("open-llm-leaderboard/x__y-details")


# --- inspect_ai ----------------------------------------------------------------------------


def test_inspect_fixture_pairs_on_three_items():
    qwen = shared_file("format_fixtures", "inspect", "data_arc_qwen.json")
    sonnet = shared_file("format_fixtures", "inspect", "data_arc_sonnet.json")
    s = align(read_inspect([qwen, sonnet]).frame)
    assert s.models == ("ollama/qwen2.5:0.5b", "anthropic/claude-sonnet-4-0")
    # Every item either model scored is kept; the pair uses the 3 both scored.
    assert s.n_items == 5 and s.report.items_common == {"inspect_evals/arc_easy": 3}
    a, b = s.pair("ollama/qwen2.5:0.5b", "anthropic/claude-sonnet-4-0")
    assert list(a) == [1.0, 0.0, 0.0] and list(b) == [1.0, 1.0, 1.0]
    assert s.report.messages() == [
        "ollama/qwen2.5:0.5b has no score for 2 of 5 items on task "
        "inspect_evals/arc_easy; its pairs use the items both models scored"
    ]


def test_inspect_epochs_are_runs_and_letters_map(tmp_path):
    log = syn.inspect_log("m", "t", ["1", "2"], [1.0, 0.0], epochs=3)
    log["samples"][1]["scores"]["choice"]["value"] = "P"  # item 1, epoch 2: partial
    (tmp_path / "log.json").write_text(json.dumps(log))
    s = align(read_inspect(tmp_path / "log.json").frame)
    np.testing.assert_allclose(s.tasks[0].scores[:, 0], [(1 + 0.5 + 1) / 3, 0.0])
    assert np.all(s.tasks[0].run_counts == 3)


def test_inspect_several_scorers(tmp_path):
    log = syn.inspect_log("m", "t", ["1"], [1.0])
    log["samples"][0]["scores"]["match"] = {"value": 0}
    (tmp_path / "log.json").write_text(json.dumps(log))
    assert any("using 'choice'" in n for n in read_inspect(tmp_path / "log.json").notes)
    assert read_inspect(tmp_path / "log.json", scorer="match").frame.score.tolist() == [0.0]
    with pytest.raises(InputError, match="no scorer 'nope'; scorers: choice, match"):
        read_inspect(tmp_path / "log.json", scorer="nope")


# --- HELM ----------------------------------------------------------------------------------


def test_helm_fixtures():
    path = shared_file("format_fixtures", "helm")
    long = read_helm(path)
    runs = long.frame.groupby(["model", "task"]).size().to_dict()
    assert runs == {
        (
            "eleutherai/pythia-1b-v0",
            "commonsense:dataset=hellaswag,method=multiple_choice_joint",
        ): 10,
        ("openai/gpt2", "mmlu:subject=philosophy,method=multiple_choice_joint"): 10,
        ("openai/gpt2", "narrative_qa"): 5,
    }
    with pytest.raises(InputError, match="no stat named 'bleu_4'"):
        read_helm(path, stat="bleu_4")


# --- tables: items file, errors, detection ------------------------------------------------


def test_item_file_restricts_items_and_gives_their_clusters(tmp_path, reference):
    one = reference[reference.task == "arc_easy"].drop(columns="task")
    one.to_csv(tmp_path / "s.csv", index=False)
    items = pd.DataFrame(
        {
            "item_id": [str(i) for i in range(38)],
            "subject": ["physics" if i % 2 else "law" for i in range(38)],
        }
    )
    items.to_csv(tmp_path / "items.csv", index=False)
    long = load_scores(
        tmp_path / "s.csv", LoadOptions(items=str(tmp_path / "items.csv"), cluster_column="subject")
    )
    assert "2 items not listed in items.csv were left out" in long.notes
    s = align(long.frame)
    assert s.n_items == 38
    assert set(s.tasks[0].clusters) == {"physics", "law"}
    only = load_scores(tmp_path / "s.csv", LoadOptions(items=str(tmp_path / "items.csv")))
    assert align(only.frame).n_items == 38 and "cluster" not in only.frame.columns
    with pytest.raises(InputError, match="no column 'topic'"):
        load_scores(
            tmp_path / "s.csv",
            LoadOptions(items=str(tmp_path / "items.csv"), cluster_column="topic"),
        )
    pd.DataFrame({"item_id": ["x", "y"]}).to_csv(tmp_path / "none.csv", index=False)
    with pytest.raises(InputError, match="none of its items appear in the scores"):
        load_scores(tmp_path / "s.csv", LoadOptions(items=str(tmp_path / "none.csv")))


def test_unknown_format_lists_what_is_supported(tmp_path):
    path = tmp_path / "scores.xlsx"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(InputError, match=r"supported: csv, tsv, parquet, jsonl .*--format"):
        load_scores(path)
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "readme.txt").write_text("hi")
    with pytest.raises(InputError, match="no evaluation outputs recognised"):
        load_scores(folder)


# --- real data -----------------------------------------------------------------------------


def test_mmlu_pro_loads_29_models_14_categories():
    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    items = shared_file("mmlu_pro", "mmlu_pro_items.csv")
    long = load_scores(scores, LoadOptions(items=str(items), cluster_column="category"))
    s = align(long.frame)
    assert len(s.models) == 29 and s.report.items_union["all"] == 12_032
    assert len(set(s.tasks[0].clusters)) == 14
    means = {e.model: (e.items_scored, round(e.mean_score, 4)) for e in s.report.entries}
    assert means["Meta-Llama-3_1-8B_5shots"] == (12_032, 0.3649)
    assert means["Meta-Llama-3_1-8B-Instruct_5shots"] == (12_032, 0.4419)
    assert means["gemini-1.5-pro-002_5shots"] == (12_020, 0.7025)
    assert means["DeepSeek-Coder-V2_5shots"][0] == 10_351


def test_bbh_wide_file_matches_long_file():
    long = load_scores(shared_file("bbh_codex", "bbh_codex_long.csv"))
    wide = load_scores(shared_file("bbh_codex", "bbh_codex_wide.csv"), LoadOptions(layout="wide"))
    assert "not scores: target" in wide.notes[0]
    a = align(
        # Tables load model and item ids as categoricals: rename as plain text.
        long.frame.astype({"model": str}).replace(
            {"model": {"code-davinci-002-cot": "cot", "code-davinci-002-direct": "direct"}}
        ),
        models=["cot", "direct"],
    )
    b = align(wide.frame, models=["cot", "direct"])
    assert len(a.tasks) == len(b.tasks) == 27
    for ta, tb in zip(
        sorted(a.tasks, key=lambda t: t.task), sorted(b.tasks, key=lambda t: t.task), strict=True
    ):
        np.testing.assert_array_equal(ta.scores, tb.scores)


def test_oll_mixed_metrics_are_an_error(tmp_path, reference):
    syn.write_oll_v2(reference[reference.model == MODELS[0]], tmp_path, metric="acc_norm")
    syn.write_oll_v2(reference[reference.model == MODELS[1]], tmp_path, metric="acc")
    with pytest.raises(InputError, match="the models were scored with different metrics"):
        read_details(tmp_path)
