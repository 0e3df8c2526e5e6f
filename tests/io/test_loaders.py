"""Every source evalgap reads: real fixtures, synthetic round trips, and bad input."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io import lm_eval
from evalgap.io.helm import read_helm
from evalgap.io.inspect_logs import read_inspect
from evalgap.io.open_llm_leaderboard import download_details, read_details
from evalgap.io.sources import LoadOptions, detect_source, load_scores

import synthetic as syn
from conftest import ROOT, shared_file

FIXTURES = ROOT / "tests" / "fixtures" / "frameworks"

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
    # several filters score the same documents: never pooled, a filter must be chosen
    with pytest.raises(
        InputError,
        match=r"task gsm8k was scored under 2 filters \(strict-match, flexible-extract\), "
        r"each over the same documents; choose one with filter_name=NAME",
    ):
        lm_eval.read_lm_eval(folder)
    one = align(lm_eval.read_lm_eval(folder, filter_name="strict-match").frame)
    assert [t.task for t in one.tasks] == ["gsm8k:strict-match"]
    assert one.n_items == 5 and list(one.tasks[0].scores[:, 0]) == [0.0] * 5
    with pytest.raises(InputError, match="task gsm8k: no filter 'exact'; its filters: strict"):
        lm_eval.read_lm_eval(folder, filter_name="exact")


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
    assert calls["repo_type"] == "dataset"
    assert calls["allow_patterns"] == ["*arc_easy*.parquet", "*arc_easy*.jsonl", "*arc_easy*.json"]
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
    with pytest.raises(
        InputError, match="no log has a scorer 'nope'; scorers found: choice, match"
    ):
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
    # a run without the stat is left out and said, not fatal; none with it is an error
    bleu = read_helm(path, stat="bleu_4")
    assert set(bleu.frame.task) == {"narrative_qa"}
    assert sum("has no stat 'bleu_4'" in n and "this run is left out" in n for n in bleu.notes) == 2
    with pytest.raises(InputError, match="no HELM run has a stat named 'nope'"):
        read_helm(path, stat="nope")


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
    with pytest.raises(InputError, match=r"supported: csv, tsv, parquet, jsonl .*fmt="):
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


# --- issue 10: wrongly shaped input gives one line naming the cause ------------------------

GOOD_SAMPLE = {"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}}
GOOD_EVAL = {"task": "t", "model": "m"}


def _helm_run(root, stats, spec=None):
    run = root / "run"
    run.mkdir(parents=True)
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    if spec is not None:
        (run / "run_spec.json").write_text(json.dumps(spec))
    return root


@pytest.mark.parametrize(
    ("kind", "content", "message"),
    [
        ("helm", {"a": 1}, "expected a list of per-instance entries"),
        ("helm", [1, 2], "an entry's 'stats' is not a list of stat objects"),
        ("helm", [{"instance_id": "a", "stats": "x"}], "an entry's 'stats' is not a list"),
        ("helm", [{"instance_id": "a", "stats": [{"name": "x"}]}], "with a 'name' object"),
        ("helm", [{"stats": []}], "an entry has no instance_id"),
        ("inspect", {"eval": [], "samples": []}, "not an inspect_ai log"),
        ("inspect", {"eval": {"task": 1, "model": "m"}, "samples": [GOOD_SAMPLE]}, "no eval.model"),
        ("inspect", {"eval": GOOD_EVAL, "samples": {"a": 1}}, "'samples' is not a list"),
        ("inspect", {"eval": GOOD_EVAL, "samples": [1]}, "'samples' is not a list of sample"),
        (
            "inspect",
            {"eval": GOOD_EVAL, "samples": [{"id": 1, "scores": []}]},
            "no sample has scores",
        ),
        (
            "inspect",
            {"eval": GOOD_EVAL, "samples": [GOOD_SAMPLE], "reductions": {}},
            "'reductions' is not a list",
        ),
    ],
)
def test_wrongly_shaped_logs_give_one_line(tmp_path, kind, content, message):
    if kind == "helm":
        path = _helm_run(tmp_path, content)
    else:
        path = tmp_path / "log.json"
        path.write_text(json.dumps({"version": 2, **content}))
    with pytest.raises(InputError, match=message) as error:
        load_scores(path, LoadOptions(fmt=kind))
    assert "\n" not in str(error.value)


def test_helm_run_spec_of_the_wrong_shape_is_ignored_not_fatal(tmp_path):
    stats = [{"instance_id": "a", "stats": [{"name": {"name": "exact_match"}, "mean": 1}]}]
    long = read_helm(_helm_run(tmp_path, stats, spec=[1, 2]))
    assert long.frame.score.tolist() == [1]


def test_helm_model_deployment_is_not_part_of_the_task(tmp_path):
    for model in ("a", "b"):
        name = f"mmlu:subject=x,model={model},model_deployment=host/{model}"
        run = tmp_path / name.replace("/", "_")
        run.mkdir()
        stats = [{"instance_id": "i1", "stats": [{"name": {"name": "exact_match"}, "mean": 1}]}]
        (run / "per_instance_stats.json").write_text(json.dumps(stats))
        spec = {"name": name, "adapter_spec": {"model": f"org/{model}"}}
        (run / "run_spec.json").write_text(json.dumps(spec))
    s = align(read_helm(tmp_path).frame)
    assert [t.task for t in s.tasks] == ["mmlu:subject=x"] and s.n_items == 1


def test_oll_metric_naming_a_text_column_is_an_error(tmp_path):
    folder = tmp_path / "org__m-details"
    folder.mkdir()
    frame = pd.DataFrame({"doc_id": [0, 1], "acc_norm": [1.0, 0.0], "pred": ["A", "B"]})
    frame.to_parquet(folder / f"samples_arc_easy_{syn.STAMP}.parquet")
    with pytest.raises(InputError, match="column 'pred' is not a numeric per-item metric"):
        read_details(folder, metric=["pred"])


@pytest.mark.parametrize("source", ["lm-eval", "oll"])
def test_metric_for_a_task_that_does_not_exist_is_an_error(tmp_path, reference, source):
    (syn.write_lm_eval if source == "lm-eval" else syn.write_oll_v2)(reference, tmp_path)
    with pytest.raises(InputError, match="metric= names task 'arc_chalenge', which is not in"):
        load_scores(tmp_path, LoadOptions(metric=("arc_chalenge=acc",)))


def test_run_column_is_not_advised_for_framework_logs(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    records = [{"doc_id": 0, "metrics": ["acc"], "acc": v} for v in (1, 0)]
    (folder / f"samples_arc_easy_{syn.STAMP}.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records)
    )
    with pytest.raises(InputError, match="has conflicting scores") as error:
        align(load_scores(folder).frame)
    assert "--run-column" not in str(error.value)


# --- Open LLM Leaderboard as laid out on the Hub -------------------------------------------


def _v2_records(scores, flt="none"):
    return [
        {
            "doc_id": i,
            "doc": {"q": f"question {i}"},
            "filter": flt,
            "metrics": ["acc_norm", "acc"],
            "acc_norm": s,
            "acc": 1.0 - s,
        }
        for i, s in enumerate(scores)
    ]


def _fake_hub(monkeypatch, hub: Path, calls: dict):
    """snapshot_download over a local folder laid out like the Hub repository."""
    import fnmatch
    import shutil

    def snapshot_download(repo_id, repo_type, revision, allow_patterns, local_dir):
        calls.update(repo_id=repo_id, allow_patterns=allow_patterns)
        source = hub / repo_id
        target = Path(local_dir) if local_dir else hub.parent / "cache" / repo_id / "abc123"
        for path in source.rglob("*"):
            rel = path.relative_to(source).as_posix()
            if path.is_file() and any(fnmatch.fnmatch(rel, p) for p in allow_patterns):
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target / rel)
        return str(target)

    monkeypatch.setitem(
        sys.modules, "huggingface_hub", types.SimpleNamespace(snapshot_download=snapshot_download)
    )


def test_hub_v2_details_as_the_repositories_hold_them(tmp_path, monkeypatch):

    hub = tmp_path / "hub"
    scores = {"org-a/alpha": [1, 0, 1, 1, 0, 1], "org-b/beta": [0, 0, 1, 1, 1, 1]}
    for model, s in scores.items():
        repo = hub / "open-llm-leaderboard" / (model.replace("/", "__") + "-details")
        folder = repo / model.replace("/", "__")
        folder.mkdir(parents=True)
        task = "leaderboard_gpqa_main"
        # an older run as a JSON array, the newer as JSON lines
        (folder / f"samples_{task}_2024-05-01T00-00-00.000000.json").write_text(
            json.dumps(_v2_records([0.0] * 6))
        )
        (folder / f"samples_{task}_2024-06-01T00-00-00.000000.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in _v2_records([float(x) for x in s]))
        )
        (repo / "README.md").write_text("dataset card")
    calls = {}
    _fake_hub(monkeypatch, hub, calls)
    paths = [
        download_details(f"open-llm-leaderboard/{m.replace('/', '__')}-details") for m in scores
    ]
    assert calls["allow_patterns"] == ["*.parquet", "*.jsonl", "*.json"]
    assert all(isinstance(p, Path) for p in paths)
    long = load_scores(paths)
    s = align(long.frame)
    assert s.models == ("org-a/alpha", "org-b/beta")  # org__model -> org/model
    np.testing.assert_array_equal(s.tasks[0].scores, np.array(list(scores.values())).T)
    assert any("2 runs found, using the latest (2024-06-01" in n for n in long.notes)
    assert any("metric 'acc_norm' (default)" in n for n in long.notes)


def test_oll_auto_converted_parquet_skips_the_latest_copy(tmp_path):
    config = tmp_path / "org__model__leaderboard_arc_challenge"
    for split, scores in (
        ("2024_06_01T00_00_00.000000", [1.0, 0.0, 1.0]),
        ("latest", [1.0, 0.0, 1.0]),
    ):
        (config / split).mkdir(parents=True)
        frame = pd.DataFrame({"doc_id": [0, 1, 2], "acc_norm": scores, "acc": [0.0] * 3})
        frame.to_parquet(config / split / "0000.parquet")
    assert detect_source(tmp_path) == "oll"
    long = read_details(tmp_path)
    assert set(long.frame.model) == {"org/model"}
    assert set(long.frame.task) == {"leaderboard_arc_challenge"}
    assert len(long.frame) == 3  # the "latest" split repeats the timestamped one


def test_oll_v1_timestamp_folders_july_2023_schema_and_defaults(tmp_path):
    stamp = "2023-07-19T10-51-31.000000"
    for model, acc_norm in (("org__alpha", [1, 0, 1, 1]), ("org__beta", [0, 0, 1, 1])):
        folder = tmp_path / f"details_{model}" / stamp
        folder.mkdir(parents=True)
        frame = pd.DataFrame(
            {
                # two different documents with the same text: never merged into one item
                "example": ["Q1", "Q2", "Q2", "Q3"],
                "full_prompt": ["p1", "p2", "p2", "p3"],
                "gold": ["A"] * 4,
                "acc": [0, 0, 0, 0],
                "acc_norm": acc_norm,
            }
        )
        frame.to_parquet(folder / f"details_harness|arc:challenge|25_{stamp}.parquet")
    long = load_scores(tmp_path)
    s = align(long.frame)
    assert s.models == ("org/alpha", "org/beta")
    assert s.n_items == 4 and s.report.messages() == []
    np.testing.assert_array_equal(s.tasks[0].scores.sum(axis=0), [3, 2])  # acc_norm, as shown
    assert any("metric 'acc_norm' (default)" in n for n in long.notes)


# --- directories of tables -------------------------------------------------------------------


def test_a_directory_of_tables_reads_its_score_tables_and_says_what_it_left_out(tmp_path):
    folder = tmp_path / "board"
    (folder / "part").mkdir(parents=True)
    pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "item_id": [1, 2, 1, 2], "score": [1, 0, 1, 1]}
    ).to_csv(folder / "one.csv", index=False)
    pd.DataFrame({"model": ["c", "c"], "item_id": [1, 2], "score": [0.0, 1.0]}).to_parquet(
        folder / "part" / "two.parquet"
    )
    pd.DataFrame({"item_id": [1, 2], "category": ["x", "y"]}).to_csv(
        folder / "items.csv", index=False
    )
    (folder / "README.txt").write_text("model\tscore\nnot\tread\n")
    read = load_scores(folder)
    given = load_scores([folder / "one.csv", folder / "part" / "two.parquet"])
    pd.testing.assert_frame_equal(read.frame, given.frame)
    left_out = [n for n in read.notes if "left out" in n]
    assert left_out == [
        f"{folder / 'items.csv'}: no model or score column, so not read as scores (left out); "
        "give it as the item file (--items) if it describes the items, or alone with --layout "
        "wide if it is a wide table"
    ]
    # the columns named by the options decide what a score table is
    with pytest.raises(InputError, match=r"none of its 3 table files has a model and a score"):
        load_scores(folder, LoadOptions(score_column="points"))
    # the item file given is used, not left out; a forced format leaves the others out
    with_items = load_scores(
        folder, LoadOptions(items=str(folder / "items.csv"), cluster_column="category")
    )
    assert not [n for n in with_items.notes if "left out" in n]
    assert set(with_items.frame["cluster"]) == {"x", "y"}
    csv_only = load_scores(folder, LoadOptions(fmt="csv"))
    assert set(csv_only.frame["model"]) == {"a", "b"}
    assert any("two.parquet: not csv" in n for n in csv_only.notes)
    # hidden folders (a notebook's checkpoints) are not read
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / "one.csv").rename(folder / ".ipynb_checkpoints" / "one-checkpoint.csv")
    assert set(load_scores(folder).frame["model"]) == {"c"}
    with pytest.raises(InputError, match="is a directory; layout='wide' reads one table"):
        load_scores(folder, LoadOptions(layout="wide"))


def test_a_damaged_table_in_a_directory_stops_the_read_naming_it(tmp_path):
    pd.DataFrame({"model": ["a", "b"], "item_id": [1, 1], "score": [1, 0]}).to_csv(
        tmp_path / "a.csv", index=False
    )
    (tmp_path / "b.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match=r"b\.parquet: cannot be read as parquet"):
        load_scores(tmp_path)


def test_a_parquet_score_table_keyed_by_doc_id_is_a_table_not_details(tmp_path):
    for name in ("alpha", "beta"):
        pd.DataFrame(
            {"model_name": [name] * 3, "doc_id": [0, 1, 2], "acc": [1.0, 0.0, 1.0]}
        ).to_parquet(tmp_path / f"{name}.parquet")
    assert detect_source(tmp_path / "alpha.parquet") == "table"
    read = load_scores(tmp_path)
    assert sorted(set(read.frame["model"])) == ["alpha", "beta"]
    # a model column named by the option: still a table (details carry no model column)
    pd.DataFrame({"llm": ["x"] * 3, "doc_id": [0, 1, 2], "acc": [1.0, 0.0, 1.0]}).to_parquet(
        tmp_path / "x.parquet"
    )
    named = load_scores(tmp_path / "x.parquet", LoadOptions(model_column="llm"))
    assert set(named.frame["model"]) == {"x"}


def test_tables_beside_a_frameworks_logs_are_said_not_read(tmp_path):
    import shutil

    shutil.copytree(FIXTURES / "inspect" / "epochs", tmp_path / "logs")
    pd.DataFrame({"model": ["a"], "item_id": [1], "score": [1]}).to_csv(
        tmp_path / "logs" / "extra.csv", index=False
    )
    read = load_scores(tmp_path / "logs")
    assert read.notes[-1] == (
        f"{tmp_path / 'logs'}: 1 table file beside the inspect logs was not read (extra.csv); "
        "give it separately to read as scores"
    )


def test_a_directory_of_several_frameworks_is_refused_not_read_in_part(tmp_path):
    import shutil

    folder = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "inspect", folder / "inspect")
    shutil.copytree(FIXTURES / "lm_eval-0.4.4", folder / "lm_eval")
    with pytest.raises(InputError, match=r"several sources \(lm-eval, inspect\); give each"):
        load_scores(folder)
    assert set(load_scores(folder / "inspect").frame["model"])  # each alone reads


DEEP = "[" * 100_000 + "]" * 100_000
LM_RECORD = '{"doc_id": 0, "doc": {"q": 1}, "filter": "none", "metrics": ["acc"], "acc": 1}\n'


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"log.json": '{"eval": {"task": "t", "model": "m"}, "version": 2, "samples": ' + DEEP
          + "}"}, r"log\.json: not valid JSON \(nested too deeply\)"),
        ({"annotations.json": '[{"instruction": "x", "generator_1": "b", "generator_2": "m", '
          '"preference": ' + DEEP + "}]"}, "annotations.json: not readable as JSON"),
        ({"samples_t_2026-01-01T00-00-00.1.jsonl": LM_RECORD + '{"doc_id": 1, "doc": ' + DEEP
          + "}\n"}, "line 2 is not valid JSON"),
        ({"per_instance_stats.json": DEEP, "run_spec.json": '{"name": "x:model=m"}'},
         "per_instance_stats.json: not valid JSON"),
        ({"samples_t_2026-01-01T00-00-00.1.jsonl": LM_RECORD.replace('"q": 1', '"q": "\xe9"')},
         "line 1 is not UTF-8 text"),
    ],
    ids=["inspect", "alpaca", "lm-eval", "helm", "lm-eval-latin1"],
)  # fmt: skip
def test_deeply_nested_or_misencoded_json_is_one_line(tmp_path, files, message):
    """JSON nested 100,000 deep raised RecursionError (not a ValueError) through the
    inspect, AlpacaEval, lm-eval and HELM loaders: a traceback."""
    for name, text in files.items():
        data = text.encode("latin-1") if "latin1" in message or "\xe9" in text else text.encode()
        (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError, match=message):
        load_scores(tmp_path)


def test_an_eval_sample_member_that_is_not_an_object_is_named(tmp_path):
    import zipfile

    with zipfile.ZipFile(tmp_path / "log.eval", "w") as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "t", "model": "m"}}))
        archive.writestr("samples/1_epoch_1.json", "[1]")
    with pytest.raises(InputError, match=r"log\.eval: samples/1_epoch_1\.json: a sample is a JSON"):
        read_inspect(tmp_path / "log.eval")


@pytest.mark.parametrize(
    "reader",
    [lm_eval.read_lm_eval, read_inspect, read_helm, read_details],
    ids=["lm-eval", "inspect", "helm", "open-llm-leaderboard"],
)
@pytest.mark.parametrize("paths", [123, None, [None], b"x", ["a.jsonl", 5], "", float("nan")])
def test_framework_readers_name_a_path_of_the_wrong_type(reader, paths):
    """The framework readers raised TypeError ('int' object is not iterable) from Python,
    and an empty path read the current folder."""
    with pytest.raises(InputError, match=r"^paths=: "):
        reader(paths)
