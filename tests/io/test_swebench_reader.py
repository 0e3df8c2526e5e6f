"""SWE-bench results: run reports written by the harness's own make_run_report (swebench
5.0.2) and leaderboard folders in the SWE-bench/experiments layout; the means and instance
counts equal the tool's own figures, nothing is dropped silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io.options import LoadOptions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks" / "swebench-5.0.2"
REPORTS = FIXTURES / "run_reports"
BOARD = FIXTURES / "leaderboard"


def test_run_reports_give_the_harness_resolved_rate_over_every_instance(run_cli):
    long = evalgap.load_scores([REPORTS])
    assert set(long.frame["model"]) == {"org__model-a.demo", "org__model-b.demo"}
    for path in REPORTS.glob("*.json"):
        report = json.loads(path.read_text())
        mine = long.frame[long.frame["model"] == path.name.removesuffix(".json")]
        assert len(mine) == report["total_instances"]
        assert mine["score"].mean() == pytest.approx(
            report["resolved_instances"] / report["total_instances"]
        )
        assert set(mine.loc[mine["score"] == 1, "item_id"]) == set(report["resolved_ids"])
    assert any("2 with an empty patch and 1 with an evaluation error" in n for n in long.notes)
    out = run_cli(
        "compare",
        "--scores",
        REPORTS,
        "--model-a",
        "org__model-a.demo",
        "--model-b",
        "org__model-b.demo",
        "--json",
    )
    data = json.loads(out.stdout)
    assert data["n_items"] == 20 and data["accuracy_a"] == 0.5 and data["accuracy_b"] == 0.3


def test_a_leaderboard_folder_needs_the_splits_instances_and_counts_the_rest_as_unresolved():
    with pytest.raises(InputError, match="give the split's instance ids as an item file"):
        evalgap.load_scores([BOARD / "evaluation"])
    long = evalgap.load_scores(
        [BOARD / "evaluation"], LoadOptions(items=str(BOARD / "instances.csv"))
    )
    assert set(long.frame["task"]) == {"verified"}
    for folder in ("20250101_sys-a", "20250102_sys-b"):
        results = json.loads(
            (BOARD / "evaluation/verified" / folder / "results/results.json").read_text()
        )
        mine = long.frame[long.frame["model"] == folder]
        assert len(mine) == 20
        assert mine["score"].mean() == pytest.approx(len(results["resolved"]) / 20)
    assert any("1 no_generation" in n for n in long.notes)
    assert any("1 no_logs" in n for n in long.notes)


def test_bad_swebench_files_are_one_line_errors(tmp_path):
    report = json.loads((REPORTS / "org__model-a.demo.json").read_text())
    report["total_instances"] = 500
    (tmp_path / "short.demo.json").write_text(json.dumps(report))
    with pytest.raises(InputError, match="total_instances is 500 but its id lists name 20"):
        evalgap.load_scores([tmp_path / "short.demo.json"])
    stray = tmp_path / "evaluation" / "lite" / "sys" / "results"
    stray.mkdir(parents=True)
    (stray / "results.json").write_text(json.dumps({"resolved": ["nope-1"], "no_generation": []}))
    with pytest.raises(InputError, match="not in the item file"):
        evalgap.load_scores(
            [tmp_path / "evaluation"], LoadOptions(items=str(BOARD / "instances.csv"))
        )


def test_a_full_split_report_is_detected_by_its_leading_counts(tmp_path):
    report = json.loads((REPORTS / "org__model-a.demo.json").read_text())
    ids = [f"repo__repo-{i}" for i in range(2294)]  # SWE-bench test's size: long id lists
    report.update(
        total_instances=2294,
        completed_instances=2294,
        resolved_instances=500,
        completed_ids=ids,
        resolved_ids=ids[:500],
        unresolved_ids=ids[500:],
        incomplete_ids=[],
        empty_patch_ids=[],
        error_ids=[],
        submitted_ids=ids,
    )
    (tmp_path / "big.run.json").write_text(json.dumps(report, indent=4))
    long = evalgap.load_scores([tmp_path])
    assert len(long.frame) == 2294 and long.frame["score"].sum() == 500


def test_contradictory_or_malformed_lists_are_refused(tmp_path):
    report = json.loads((REPORTS / "org__model-a.demo.json").read_text())
    report["unresolved_ids"] = [*report["unresolved_ids"], report["resolved_ids"][0]]
    (tmp_path / "both.run.json").write_text(json.dumps(report))
    with pytest.raises(InputError, match="listed as resolved and as not resolved"):
        evalgap.load_scores([tmp_path / "both.run.json"])
    odd = tmp_path / "evaluation" / "lite" / "sys" / "results"
    odd.mkdir(parents=True)
    (odd / "results.json").write_text(json.dumps({"resolved": [], "no_generation": 5}))
    with pytest.raises(InputError, match="'no_generation' must be a list of instance ids"):
        evalgap.load_scores(
            [tmp_path / "evaluation"], LoadOptions(items=str(BOARD / "instances.csv"))
        )


def test_per_instance_reports_are_the_instances_that_ran():
    long = evalgap.load_scores([FIXTURES / "instance_reports"])
    for model, report_file in (
        ("org/model-a", "org__model-a.demo.json"),
        ("org/model-b", "org__model-b.demo.json"),
    ):
        report = json.loads((REPORTS / report_file).read_text())
        mine = long.frame[long.frame["model"] == model]
        # the instances the harness completed, and the ones it resolved
        ran = set(report["resolved_ids"]) | set(report["unresolved_ids"])
        assert set(mine["item_id"]) == ran
        assert int(mine["score"].sum()) == report["resolved_instances"]
    assert any("only the instances that ran are known" in n for n in long.notes)


def _harness_folder(root: Path, runs=("demo",)) -> Path:
    """The harness's working folder: the run reports, and each run's per-instance reports
    under logs/run_evaluation/<run_id>/<model>/<instance>/report.json."""
    import shutil

    for report in REPORTS.glob("*.json"):
        shutil.copy(report, root / report.name)
    for run in runs:
        shutil.copytree(FIXTURES / "instance_reports", root / "logs/run_evaluation" / run)
    return root


def test_a_run_report_stands_for_its_runs_per_instance_reports(tmp_path):
    long = evalgap.load_scores([_harness_folder(tmp_path)])
    # read alone, each source would give two models; together the run reports stand
    assert set(long.frame["model"]) == {"org__model-a.demo", "org__model-b.demo"}
    assert len(long.frame) == 40
    assert any("per-instance report(s) are left out: the run report of their run" in n
               for n in long.notes)  # fmt: skip


def test_per_instance_reports_of_two_runs_are_runs_of_the_same_items(tmp_path):
    folder = _harness_folder(tmp_path, runs=("demo", "demo2"))
    for report in folder.glob("*.json"):
        report.unlink()  # no run report: the per-instance reports are the data
    long = evalgap.load_scores([folder])
    a = long.frame[long.frame["model"] == "org/model-a"]
    assert set(a["run"]) == {"demo", "demo2"} and len(a) == 2 * a["item_id"].nunique()
    assert any("org/model-a: per-instance reports of 2 runs (demo, demo2)" in n for n in long.notes)
    # the jobs average the runs per item: the same figures as one run
    one = evalgap.compare([folder / "logs/run_evaluation/demo"], model_a="org/model-a",
                          model_b="org/model-b")  # fmt: skip
    two = evalgap.compare([folder], model_a="org/model-a", model_b="org/model-b")
    assert two.delta == pytest.approx(one.delta) and two.n_items == one.n_items


def test_leaderboard_splits_are_read_one_at_a_time_and_model_name_is_honoured(tmp_path):
    import shutil

    shutil.copytree(BOARD / "evaluation", tmp_path / "evaluation")
    shutil.copytree(tmp_path / "evaluation/verified", tmp_path / "evaluation/lite")
    items = LoadOptions(items=str(BOARD / "instances.csv"))
    with pytest.raises(InputError, match=r"results of 2 splits \(lite, verified\)"):
        evalgap.load_scores([tmp_path / "evaluation"], items)
    # an item file with a task column (the split) gives each split its own ids
    import pandas as pd

    ids = pd.read_csv(BOARD / "instances.csv")["instance_id"]
    more = pd.concat([ids, pd.Series(["extra__extra-1"])])  # verified lists one id more
    both = pd.concat([pd.DataFrame({"instance_id": more, "task": "verified"}),
                      pd.DataFrame({"instance_id": ids, "task": "lite"})])  # fmt: skip
    both.to_csv(tmp_path / "splits.csv", index=False)
    split_items = LoadOptions(items=str(tmp_path / "splits.csv"))
    long = evalgap.load_scores([tmp_path / "evaluation"], split_items)
    counts = long.frame.groupby("task")["item_id"].nunique().to_dict()
    assert counts == {"lite": 20, "verified": 21}
    both[both["task"] == "verified"].to_csv(tmp_path / "one.csv", index=False)
    with pytest.raises(InputError, match="no instance ids of split 'lite'"):
        evalgap.load_scores([tmp_path / "evaluation"], LoadOptions(items=str(tmp_path / "one.csv")))
    pd.DataFrame({"name": ids}).to_csv(tmp_path / "odd.csv", index=False)
    with pytest.raises(InputError, match="no instance id column"):
        evalgap.load_scores([BOARD / "evaluation"], LoadOptions(items=str(tmp_path / "odd.csv")))
    one = BOARD / "evaluation/verified/20250101_sys-a/results/results.json"
    named = evalgap.load_scores([one], LoadOptions(items=items.items, model_name="sys-a"))
    assert set(named.frame["model"]) == {"sys-a"}
    report = next((FIXTURES / "instance_reports/org__model-a").glob("*/report.json"))
    named = evalgap.load_scores([report], LoadOptions(model_name="model-a"))
    assert set(named.frame["model"]) == {"model-a"}


def test_a_count_that_is_no_number_and_ids_listed_twice_are_said(tmp_path, run_cli):
    """total_instances "twenty" was read without a word (only an int was checked), and a
    resolved id listed twice was silently counted once."""
    report = json.loads((REPORTS / "org__model-a.demo.json").read_text())
    worded = dict(report, total_instances="twenty")
    (tmp_path / "worded.demo.json").write_text(json.dumps(worded))
    out = run_cli("compare", "--scores", tmp_path / "worded.demo.json",
                  "--model-a", "x", "--model-b", "y")  # fmt: skip
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("evalgap: error: --scores: ")
    assert 'worded.demo.json: total_instances is "twenty", not a whole number' in out.stderr
    assert f"write it as one ({report['total_instances']} by the report's id lists)" in out.stderr
    with pytest.raises(InputError, match=r"^scores=: .*total_instances is \"twenty\""):
        evalgap.load_scores([tmp_path / "worded.demo.json"])
    # the fix the message gives works
    (tmp_path / "worded.demo.json").write_text(json.dumps(dict(report, total_instances=20)))
    assert len(evalgap.load_scores([tmp_path / "worded.demo.json"]).frame) == 20
    for bad in (True, -3, 2.5, None):
        (tmp_path / "odd.demo.json").write_text(json.dumps(dict(report, resolved_instances=bad)))
        with pytest.raises(InputError, match=r"resolved_instances is .*, not a whole number"):
            evalgap.load_scores([tmp_path / "odd.demo.json"])
    twice = dict(report, resolved_ids=[*report["resolved_ids"], report["resolved_ids"][0]])
    (tmp_path / "twice.demo.json").write_text(json.dumps(twice))
    long = evalgap.load_scores([tmp_path / "twice.demo.json"])
    assert len(long.frame) == 20 and long.frame["score"].sum() == len(report["resolved_ids"])
    first = report["resolved_ids"][0]
    assert any(f"resolved_ids lists 1 instance id(s) again (first: {first!r})" in n
               for n in long.notes)  # fmt: skip
    board = tmp_path / "evaluation" / "verified" / "sys" / "results"
    board.mkdir(parents=True)
    ids = [str(i) for i in evalgap.load_scores(
        [BOARD / "evaluation"], LoadOptions(items=str(BOARD / "instances.csv"))
    ).frame["item_id"].unique()[:2]]  # fmt: skip
    (board / "results.json").write_text(json.dumps({"resolved": [ids[0], ids[0]],
                                                    "no_generation": []}))  # fmt: skip
    long = evalgap.load_scores(
        [tmp_path / "evaluation"], LoadOptions(items=str(BOARD / "instances.csv"))
    )
    assert long.frame["score"].sum() == 1
    assert any("resolved lists 1 instance id(s) again" in n for n in long.notes)


def test_a_key_given_twice_is_refused_or_read_once_when_the_values_agree(tmp_path, run_cli):
    """json.loads keeps the last of two values of a key: a report naming resolved_ids twice
    read as whichever came last."""
    report = json.loads((REPORTS / "org__model-a.demo.json").read_text())
    text = json.dumps(report)
    twice = text[:-1] + ', "resolved_ids": []}'
    (tmp_path / "twice.demo.json").write_text(twice)
    out = run_cli("inspect-data", "--scores", tmp_path / "twice.demo.json")
    assert out.returncode == 2 and out.stderr.startswith("evalgap: error: --scores: ")
    assert "twice.demo.json: key 'resolved_ids' is given twice in one object" in out.stderr
    same = text[:-1] + f', "total_instances": {report["total_instances"]}}}'
    (tmp_path / "same.demo.json").write_text(same)
    long = evalgap.load_scores([tmp_path / "same.demo.json"])
    assert len(long.frame) == report["total_instances"]
    assert any("key 'total_instances' is repeated with the same value" in n for n in long.notes)
