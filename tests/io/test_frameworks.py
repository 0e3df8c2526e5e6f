"""Genuine logs written by the frameworks themselves, checked against their own numbers.

The logs under tests/fixtures/frameworks/ were written by inspect-ai, lm-evaluation-harness
(three versions) and HELM with weightless models (scripts/make_framework_fixtures.py; the
versions are in the README there). Each check compares evalgap's reading with what the
framework itself reported: inspect's ``read_eval_log`` results and reductions (recorded at
build time in inspect/oracle.json), lm-eval's aggregate metrics in its results files, and
the documents themselves for pairing by identity.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io.helm import read_helm
from evalgap.io.inspect_logs import read_inspect, value_to_float
from evalgap.io.lm_eval import read_lm_eval
from evalgap.io.sources import LoadOptions, load_scores

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks"
INSPECT = FIXTURES / "inspect"
LM_EVAL = sorted(p for p in FIXTURES.glob("lm_eval-*") if p.is_dir())


def _having(case: str) -> list[Path]:
    return [p for p in LM_EVAL if (p / case).is_dir()]


def _oracle():
    return json.loads((INSPECT / "oracle.json").read_text())


def _restored(source: Path, tmp_path: Path) -> Path:
    """A copy of a fixture folder with its gzipped logs restored as the framework wrote them
    (they are stored gzipped to keep the repository small)."""
    target = tmp_path / source.parent.name / source.name
    shutil.copytree(source, target)
    for packed in target.rglob("*.gz"):
        with gzip.open(packed) as src, open(packed.with_suffix(""), "wb") as out:
            shutil.copyfileobj(src, out)
        packed.unlink()
    return target


def _unpacked(folder: str, tmp_path: Path) -> Path:
    return _restored(INSPECT / folder, tmp_path)


def _oracle_logs(folder: str) -> dict:
    return {k: v for k, v in _oracle().items() if k.startswith(folder + "/")}


def _table(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int, int]:
    """(both right, only a, only b, both wrong) of two binary score vectors."""
    a, b = a.astype(bool), b.astype(bool)
    return (int(np.sum(a & b)), int(np.sum(a & ~b)), int(np.sum(~a & b)), int(np.sum(~a & ~b)))


def _oracle_pair(logs: list[dict], scorer: str, by_input=False):
    """The 2x2 table from inspect's own per-sample reduced values."""
    values = []
    for log in logs:
        reduced = log["reduced"][scorer]
        if by_input:
            reduced = {log["input_of_id"][k]: v for k, v in reduced.items()}
        values.append({k: value_to_float(v) for k, v in reduced.items()})
    common = sorted(set(values[0]) & set(values[1]))
    return _table(*(np.array([v[k] for k in common]) for v in values)), len(common)


# --- inspect -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "scorer", "by_input"),
    [
        ("plain_eval", "match", False),
        ("plain_json", "match", False),
        ("epochs", "letter", False),
        ("errored", "letter", False),
        ("eval_set", "letter", False),
        ("shuffled", "letter", True),
    ],
)
def test_inspect_counts_equal_inspects_own(tmp_path, folder, scorer, by_input):
    oracle = _oracle_logs(folder)
    long = read_inspect(_unpacked(folder, tmp_path), scorer=scorer)
    s = align(long.frame)
    assert len(s.tasks) == 1 and len(s.models) == 2
    logs = [next(v for v in oracle.values() if v["model"] == m) for m in s.models]
    for j, log in enumerate(logs):  # each model's accuracy is the one inspect reported
        assert s.tasks[0].scores[:, j].mean() == pytest.approx(log["metrics"][scorer]["accuracy"])
    want, n = _oracle_pair(logs, scorer, by_input)
    assert s.n_items == n
    assert _table(*s.pair(*s.models)) == want


def test_inspect_eval_and_json_read_alike(tmp_path):
    a = align(read_inspect(INSPECT / "plain_eval").frame)
    b = align(read_inspect(_unpacked("plain_json", tmp_path)).frame)
    np.testing.assert_array_equal(a.tasks[0].scores, b.tasks[0].scores)
    np.testing.assert_array_equal(a.tasks[0].item_ids, b.tasks[0].item_ids)


def test_inspect_yes_no_and_dict_values_as_inspect_maps_them():
    oracle = _oracle_logs("plain_eval")
    by_model = {v["model"]: v["metrics"] for v in oracle.values()}
    yes_no = align(read_inspect(INSPECT / "plain_eval", scorer="yes_no").frame)
    for j, m in enumerate(yes_no.models):
        assert yes_no.tasks[0].scores[:, j].mean() == pytest.approx(
            by_model[m]["yes_no"]["accuracy"]
        )
    with pytest.raises(
        InputError, match=r"scores a dict of values \(exact, close\); choose one with score_key="
    ):
        read_inspect(INSPECT / "plain_eval", scorer="two_parts")
    for key in ("exact", "close"):
        s = align(read_inspect(INSPECT / "plain_eval", scorer="two_parts", score_key=key).frame)
        for j, m in enumerate(s.models):
            assert s.tasks[0].scores[:, j].mean() == pytest.approx(by_model[m][key]["mean"])


def test_inspect_epoch_reducer_as_recorded():
    long = read_inspect(INSPECT / "epochs")
    assert any("epochs reduced with 'max' as recorded in the log" in n for n in long.notes)
    s = align(long.frame)
    assert np.all(s.tasks[0].run_counts == 1)  # one reduced value per item, not two epochs


def test_inspect_errored_samples_skipped_and_counted_or_fatal():
    long = read_inspect(INSPECT / "errored")
    assert sum("1 errored sample (q03) left out" in n for n in long.notes) == 2
    with pytest.raises(InputError, match=r"1 errored sample \(q03\); rerun them"):
        read_inspect(INSPECT / "errored", on_error="fail")


def test_inspect_eval_set_index_is_not_read_as_a_log():
    s = align(read_inspect(INSPECT / "eval_set").frame)
    t = align(read_inspect(INSPECT / "eval_set" / "logs.json").frame, models=list(s.models))
    np.testing.assert_array_equal(s.tasks[0].scores, t.tasks[0].scores)


def test_inspect_shuffled_without_ids_pairs_by_input(tmp_path):
    long = read_inspect(_unpacked("shuffled", tmp_path))
    assert any("items are keyed by a hash of each sample's input" in n for n in long.notes)
    # by position the pairs would be wrong: the ids name different questions in each log
    logs = list(_oracle_logs("shuffled").values())
    assert logs[0]["input_of_id"] != logs[1]["input_of_id"]


def test_inspect_shuffled_with_repeated_inputs_is_refused(tmp_path):
    folder = _unpacked("shuffled", tmp_path)
    path = next(folder.glob("*.json"))
    log = json.loads(path.read_text())
    log["samples"][1]["input"] = log["samples"][0]["input"]
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match="have the same input, so items cannot be told apart"):
        read_inspect(folder)


def test_inspect_task_variants_are_separate_tasks(tmp_path):
    oracle = _oracle_logs("variants")
    s = align(read_inspect(_unpacked("variants", tmp_path)).frame)
    assert sorted(t.task for t in s.tasks) == ["arith(n=8,offset=0)", "arith(n=8,offset=100)"]
    for t in s.tasks:
        offset = int(t.task.split("offset=")[1].rstrip(")"))
        for j, m in enumerate(s.models):
            log = next(
                v for v in oracle.values() if v["model"] == m and v["task_args"]["offset"] == offset
            )
            assert t.scores[:, j].mean() == pytest.approx(log["metrics"]["match"]["accuracy"])


def test_compare_on_an_eval_pair_with_the_default_install(capsys):
    logs = sorted((INSPECT / "plain_eval").glob("*.eval"))
    code = main(
        [
            "compare",
            "--scores",
            str(logs[0]),
            "--scores",
            str(logs[1]),
            "--json",
            "--model-a",
            "mockllm/alpha",
            "--model-b",
            "mockllm/beta",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    oracle = _oracle_logs("plain_eval")
    a, b = (
        next(v for v in oracle.values() if v["model"] == m)
        for m in ("mockllm/alpha", "mockllm/beta")
    )
    table, n = _oracle_pair([a, b], "match")
    assert out["n_items"] == n
    assert (out["both_correct"], out["a_only"], out["b_only"], out["both_wrong"]) == table
    assert out["accuracy_a"] == pytest.approx(a["metrics"]["match"]["accuracy"])


# --- lm-eval -------------------------------------------------------------------------------


def _results(folder: Path) -> dict:
    """model -> task -> {metric,filter: value}, from lm-eval's own results files."""
    out = {}
    for path in folder.rglob("*.json"):
        if not path.is_file():
            continue
        data = json.loads(path.read_text())
        if "results" not in data:
            continue
        args = data["config"]["model_args"]
        if isinstance(args, str):
            args = dict(kv.split("=", 1) for kv in args.split(",") if "=" in kv)
        name = data.get("model_name") or (args or {}).get("pretrained") or data["config"]["model"]
        out[name] = data["results"]
    return out


@pytest.mark.parametrize("folder", LM_EVAL, ids=lambda p: p.name)
@pytest.mark.parametrize("flt", ["strict-match", "flexible-extract"])
def test_lm_eval_means_equal_its_results_file(tmp_path, folder, flt):
    runs = _restored(folder / "runs", tmp_path)
    results = _results(runs)
    long = read_lm_eval(runs, filter_name=flt, metric=["tiny_mc=acc_norm"])
    s = align(long.frame)
    assert sorted(s.models) == ["weightless-a", "weightless-b"]
    for t in s.tasks:
        base = t.task.split(":")[0]
        key = f"exact_match,{flt}" if base == "tiny_gen" else "acc_norm,none"
        for j, m in enumerate(s.models):
            assert t.scores[:, j].mean() == pytest.approx(results[m][base][key])
        assert t.scores.shape[0] == 30


@pytest.mark.parametrize("folder", LM_EVAL, ids=lambda p: p.name)
def test_lm_eval_two_filters_need_a_choice(tmp_path, folder):
    with pytest.raises(InputError, match=r"task tiny_gen was scored under 2 filters"):
        read_lm_eval(_restored(folder / "runs", tmp_path))


def _docs_scores(folder: Path, metric="acc", key="question"):
    """model -> {question text: score}, read straight from the records' documents."""
    out = {}
    for path in folder.rglob("*tiny_mc*.jsonl"):
        text = path.read_text()
        records = (
            json.loads(text)
            if text.lstrip().startswith("[")
            else [json.loads(line) for line in text.splitlines() if line.strip()]
        )
        model = "weightless-a" if "weightless-a" in str(path) else "weightless-b"
        out[model] = {
            (r["doc"][key] if key == "question" else r[key]): float(r[metric]) for r in records
        }
    return out


@pytest.mark.parametrize("folder", _having("reordered"), ids=lambda p: p.name)
def test_lm_eval_reordered_dataset_pairs_by_document(tmp_path, folder):
    logs = _restored(folder / "reordered", tmp_path)
    long = read_lm_eval(logs)
    assert any("doc_ids name different documents" in n for n in long.notes)
    s = align(long.frame)
    docs = _docs_scores(logs)
    common = sorted(docs["weightless-a"])
    want = _table(
        *(np.array([docs[m][q] for q in common]) for m in ("weightless-a", "weightless-b"))
    )
    assert s.n_items == 30 and _table(*s.pair("weightless-a", "weightless-b")) == want
    # pairing by doc_id alone would have paired different documents
    by_id = _docs_scores(logs, key="doc_id")
    ids = sorted(by_id["weightless-a"])
    wrong = _table(
        *(np.array([by_id[m][i] for i in ids]) for m in ("weightless-a", "weightless-b"))
    )
    assert wrong != want


@pytest.mark.parametrize("folder", _having("file_form"), ids=lambda p: p.name)
def test_lm_eval_output_path_file_form_names_each_model(tmp_path, folder):
    logs = _restored(folder / "file_form", tmp_path)
    long = read_lm_eval(logs)
    assert sorted(long.frame.model.unique()) == ["weightless-a", "weightless-b"]
    results = _results(logs)
    s = align(long.frame)
    for j, m in enumerate(s.models):
        assert s.tasks[0].scores[:, j].mean() == pytest.approx(results[m]["tiny_mc"]["acc,none"])


def _two_filter_log(root: Path, b=11, c=3, n=300) -> Path:
    """gsm8k-like: two models, 300 documents, each scored under two filters."""
    for model, wins in (("base", range(b)), ("cand", range(b, b + c))):
        folder = root / model
        folder.mkdir(parents=True)
        stamp = "2026-01-01T00-00-00.000001"
        (folder / f"results_{stamp}.json").write_text(
            json.dumps({"results": {"gsm8k": {}}, "model_name": model, "config": {}})
        )
        with open(folder / f"samples_gsm8k_{stamp}.jsonl", "w") as out:
            for flt in ("strict-match", "flexible-extract"):
                for doc in range(n):
                    right = doc in wins or doc >= 100
                    record = {
                        "doc_id": doc,
                        "filter": flt,
                        "metrics": ["exact_match"],
                        "exact_match": float(right),
                    }
                    out.write(json.dumps(record) + "\n")
    return root


def test_degrade_gate_does_not_flip_on_two_filters(tmp_path, capsys):
    root = _two_filter_log(tmp_path / "logs")
    args = [
        "degrade",
        "--scores",
        str(root),
        "--baseline",
        "base",
        "--candidate",
        "cand",
        "--alpha",
        "0.01",
        "--fail-on-degradation",
        "--json",
    ]
    assert main(args) == 2
    assert "choose one with --filter NAME" in capsys.readouterr().err
    for flt in ("strict-match", "flexible-extract"):
        assert main([*args, "--filter", flt]) == 0  # not degraded at alpha 0.01
        out = json.loads(capsys.readouterr().out)
        p = stats.binomtest(11, 14, alternative="greater").pvalue  # 0.0287, not pooled 0.0019
        assert min(out["p_values"].values()) == pytest.approx(p)
        assert out["total"]["n_items"] == 300


def test_lm_eval_filter_missing_from_a_task_is_said_not_dropped(tmp_path):
    root = _two_filter_log(tmp_path / "logs")
    with pytest.raises(InputError, match="task gsm8k: no filter 'exact'; its filters"):
        read_lm_eval(root, filter_name="exact")


# --- HELM ----------------------------------------------------------------------------------


def _helm_stat(run: Path, name="exact_match") -> float:
    stats_ = json.loads((run / "stats.json").read_text())
    (value,) = [
        s["mean"]
        for s in stats_
        if s["name"]["name"] == name
        and s["name"].get("split") == "test"
        and not s["name"].get("perturbation")
    ]
    return value


def test_helm_means_equal_its_stats_json(tmp_path):
    runs = _restored(FIXTURES / "helm" / "runs", tmp_path)
    long = read_helm(runs)
    s = align(long.frame)
    # model_deployment= in a run name does not split a task; one scenario in two suites is
    # two tasks, never one task with every item counted twice
    assert sorted(t.task for t in s.tasks) == [
        "simple_classification",
        "simple_mcqa [v1]",
        "simple_mcqa [v2]",
    ]
    assert all(t.scores.shape == (12, 2) for t in s.tasks)
    for t in s.tasks:
        scenario, _, suite = t.task.partition(" [")
        for j, m in enumerate(s.models):
            run = next(
                p.parent
                for p in runs.rglob("run_spec.json")
                if p.parent.name.startswith(scenario + ":model=" + m.replace("/", "_"))
                and (not suite or p.parent.parent.name == suite.rstrip("]"))
            )
            assert t.scores[:, j].mean() == pytest.approx(_helm_stat(run))


def test_helm_runs_without_the_stat_are_left_out_and_said(tmp_path):
    runs = _restored(FIXTURES / "helm" / "runs", tmp_path)
    long = read_helm(runs, stat="exact_match@5")  # only the multiple-choice runs have it
    assert set(long.frame.task) == {"simple_mcqa [v1]", "simple_mcqa [v2]"}
    lacking = [n for n in long.notes if "has no stat 'exact_match@5'" in n]
    assert len(lacking) == 2 and all("simple_classification" in n for n in lacking)


def test_lm_eval_predict_only_logs_are_not_scores(tmp_path):
    folder = FIXTURES / "lm_eval-0.4.13"
    only = _restored(folder / "predict_only", tmp_path)
    with pytest.raises(InputError, match=r"carry model outputs but no scores \(written with"):
        read_lm_eval(only)
    # beside scored logs of the same model name in another folder: left out and said, and the
    # two folders are not merged into one model
    long = read_lm_eval([only, _restored(folder / "dummy", tmp_path)])
    assert any("samples files without scores (--predict_only?) left out" in n for n in long.notes)
    assert any("has logs in 2 folders" in n for n in long.notes)
    assert long.frame.model.nunique() == 1 and len(long.frame) == 30


@pytest.mark.parametrize("folder", LM_EVAL, ids=lambda p: p.name)
def test_lm_eval_dummy_model_is_named(tmp_path, folder):
    long = read_lm_eval(_restored(folder / "dummy", tmp_path))
    results = _results(_restored(folder / "dummy", tmp_path / "again"))
    (name,) = results
    assert list(long.frame.model.unique()) == [name]
    assert long.frame.score.astype(float).mean() == pytest.approx(
        results[name]["tiny_mc"]["acc,none"]
    )


def test_cli_on_error_fail_stops_with_one_line(capsys):
    assert main(["inspect-data", "--scores", str(INSPECT / "errored"), "--on-error", "fail"]) == 2
    err = capsys.readouterr().err
    assert "1 errored sample (q03); rerun them" in err and err.count("\n") == 1


def test_lm_eval_same_model_in_two_folders_compares_as_two(tmp_path, capsys):
    runs = _restored(FIXTURES / "lm_eval-0.4.13" / "runs", tmp_path)
    for precision in ("bf16", "fp8"):
        shutil.copytree(runs / "weightless-a", tmp_path / "two" / precision / "weightless-a")
    code = main(
        [
            *("compare", "--scores", str(tmp_path / "two"), "--task", "tiny_mc", "--json"),
            *("--model-a", "weightless-a (bf16)", "--model-b", "weightless-a (fp8)"),
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_items"] == 30 and out["a_only"] == out["b_only"] == 0


def test_lm_eval_task_selection_limits_the_filter_choice(tmp_path):
    runs = _restored(FIXTURES / "lm_eval-0.4.13" / "runs", tmp_path)
    results = _results(runs)
    # --task tiny_gen:flexible-extract is itself the filter choice
    long = load_scores(runs, LoadOptions(tasks=("tiny_gen:flexible-extract",)))
    s = align(long.frame, tasks=["tiny_gen:flexible-extract"])
    for j, m in enumerate(s.models):
        want = results[m]["tiny_gen"]["exact_match,flexible-extract"]
        assert s.tasks[0].scores[:, j].mean() == pytest.approx(want)
    with pytest.raises(InputError, match="task tiny_gen was scored under 2 filters"):
        load_scores(runs, LoadOptions(tasks=("tiny_gen",)))


def _lm_eval_run(folder: Path, stamp: str, shots: int, correct: list[int], model="m") -> None:
    """One lm-eval 0.4.x run: a results file recording n-shot and a samples file."""
    folder.mkdir(parents=True, exist_ok=True)
    results = {
        "results": {"tiny": {"acc,none": 0.5}},
        "n-shot": {"tiny": shots},
        "configs": {"tiny": {"num_fewshot": shots}},
        "model_name": model,
    }
    (folder / f"results_{stamp}.json").write_text(json.dumps(results))
    records = [
        {"doc_id": i, "doc": {"q": i}, "filter": "none", "metrics": ["acc"], "acc": c}
        for i, c in enumerate(correct)
    ]
    (folder / f"samples_tiny_{stamp}.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records)
    )


def test_lm_eval_runs_with_different_n_shot_are_different_tasks(tmp_path):
    """--all-runs averaged a 0-shot run with two 3-shot runs of the same model and task
    (each results file records its n-shot): now they are two tasks, the 3-shot runs the
    repeats of one, and the notes say why."""
    _lm_eval_run(tmp_path / "m", "2026-01-01T00-00-00.1", 0, [0, 0, 0, 0])
    _lm_eval_run(tmp_path / "m", "2026-01-02T00-00-00.1", 3, [1, 1, 0, 1])
    _lm_eval_run(tmp_path / "m", "2026-01-03T00-00-00.1", 3, [1, 0, 0, 1])
    long = read_lm_eval(tmp_path, all_runs=True)
    frame = long.frame
    assert sorted(frame["task"].unique()) == ["tiny [0-shot]", "tiny [3-shot]"]
    means = frame.groupby("task")["score"].apply(lambda s: s.astype(float).mean()).to_dict()
    assert means == {"tiny [0-shot]": 0.0, "tiny [3-shot]": 5 / 8}
    runs = frame.groupby("task")["run"].nunique().to_dict()
    assert runs == {"tiny [0-shot]": 1, "tiny [3-shot]": 2}
    assert any(
        "task tiny: runs with different n-shot" in n and "tiny [0-shot], tiny [3-shot]" in n
        for n in long.notes
    )
    # without --all-runs: the latest run of each setting, not the latest of all
    latest = read_lm_eval(tmp_path).frame
    assert latest.groupby("task")["run"].unique().map(list).to_dict() == {
        "tiny [0-shot]": ["2026-01-01T00-00-00.1"],
        "tiny [3-shot]": ["2026-01-03T00-00-00.1"],
    }


def test_lm_eval_models_run_with_different_n_shot_are_not_paired(tmp_path):
    _lm_eval_run(tmp_path / "a", "2026-01-01T00-00-00.1", 0, [0, 1, 0, 1], model="a")
    _lm_eval_run(tmp_path / "b", "2026-01-01T00-00-00.2", 5, [1, 1, 1, 1], model="b")
    frame = read_lm_eval(tmp_path).frame
    assert frame.groupby("task")["model"].unique().map(list).to_dict() == {
        "tiny [0-shot]": ["a"],
        "tiny [5-shot]": ["b"],
    }
    _lm_eval_run(tmp_path / "c", "2026-01-01T00-00-00.3", 0, [1, 1, 1, 0], model="c")
    same = read_lm_eval([tmp_path / "a", tmp_path / "c"])
    assert set(same.frame["task"]) == {"tiny"}  # one setting: the task keeps its name
    assert not any("different n-shot" in n for n in same.notes)


@pytest.mark.parametrize("instance_id", [None, ""])
def test_helm_entry_without_an_instance_id_is_one_line_never_none(tmp_path, instance_id):
    """A null instance_id became the item "None" (all such entries one item)."""
    runs = _restored(FIXTURES / "helm" / "runs", tmp_path)
    stats = next(runs.rglob("per_instance_stats.json"))
    entries = json.loads(stats.read_text())
    entries[0]["instance_id"] = instance_id
    stats.write_text(json.dumps(entries))
    with pytest.raises(InputError, match="an entry has no instance_id"):
        read_helm(runs)


@pytest.mark.parametrize("doc_id", [None, 1.5, [1], ""])
def test_lm_eval_record_with_a_null_doc_id_is_one_line(tmp_path, doc_id):
    """A null doc_id became the item "None", so such records collapsed into one item."""
    _lm_eval_run(tmp_path / "m", "2026-01-01T00-00-00.1", 0, [1, 0, 1])
    samples = next((tmp_path / "m").glob("samples_*"))
    lines = samples.read_text().splitlines()
    record = json.loads(lines[1])
    record["doc_id"] = doc_id
    lines[1] = json.dumps(record)
    samples.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"samples_tiny_.*: line 2 has doc_id .*; lm-eval numbers"):
        read_lm_eval(tmp_path)


def test_simple_evaluate_dicts_read_as_their_log_files(tmp_path):
    """lm_eval.simple_evaluate(..., log_samples=True) dicts of the two weightless models give
    the per-item scores their --log_samples files give, and lm-eval's own means."""
    import evalgap
    from evalgap.io.lm_eval import read_lm_eval_results

    source = FIXTURES / "lm_eval-0.4.13"
    dicts = {
        name: json.loads(
            gzip.decompress((source / "simple_evaluate" / f"{name}.json.gz").read_bytes())
        )
        for name in ("weightless-a", "weightless-b")
    }
    got = read_lm_eval_results(dicts, filter_name="flexible-extract")
    files = read_lm_eval(_restored(source / "runs", tmp_path), filter_name="flexible-extract")
    keys = ["model", "task", "item_id"]
    mine = got.frame.assign(score=got.frame["score"].astype(float)).set_index(keys)["score"]
    theirs = files.frame.assign(score=files.frame["score"].astype(float)).set_index(keys)["score"]
    assert len(mine) == 120 and mine.sort_index().equals(theirs.sort_index())
    for name, run in dicts.items():  # lm-eval's own means
        means = got.frame[got.frame["model"] == name].groupby("task")["score"].mean()
        assert float(means["tiny_mc"]) == pytest.approx(run["results"]["tiny_mc"]["acc,none"])
        assert float(means["tiny_gen:flexible-extract"]) == pytest.approx(
            run["results"]["tiny_gen"]["exact_match,flexible-extract"]
        )
    r = evalgap.compare_lm_eval(
        dicts["weightless-a"],
        dicts["weightless-b"],
        model_a="weightless-a",
        model_b="weightless-b",
        filter_name="flexible-extract",
        by="task",
    )
    on_files = evalgap.compare(
        str(_restored(source / "runs", tmp_path / "again")),
        model_a="weightless-a",
        model_b="weightless-b",
        options=LoadOptions(filter_name="flexible-extract"),
        by="task",
    )
    assert [g.result.delta for g in r.groups] == [g.result.delta for g in on_files.groups]
    with pytest.raises(evalgap.InputError, match="log_samples=True"):
        evalgap.compare_lm_eval({"results": {}}, {"results": {}})


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["samples"]["tiny_mc"][0].update(acc=10**400), "not a score"),
        (lambda d: d["samples"].update({"a/b": []}), "cannot be a task name"),
        (lambda d: d["samples"]["tiny_mc"][0].pop("doc_id"), "results['run']"),
    ],
)
def test_bad_simple_evaluate_dicts_are_one_line_errors(change, needle):
    from evalgap.io.lm_eval import read_lm_eval_results

    run = json.loads(
        gzip.decompress(
            (FIXTURES / "lm_eval-0.4.13" / "simple_evaluate" / "weightless-a.json.gz").read_bytes()
        )
    )
    change(run)
    with pytest.raises(InputError) as err:
        read_lm_eval_results({"run": run}, filter_name="strict-match")
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert "evalgap-lm-eval-" not in str(err.value)  # never a temporary path
    with pytest.raises(InputError, match="must be the dict"):
        read_lm_eval_results({"run": 3})
    with pytest.raises(InputError, match="names a metric"):
        read_lm_eval_results({"run": run}, metric=3)
