"""The library is the command line: every command, run with ``--json``, prints what the public
Python function returns for the same options (``json.loads(to_json(result.to_dict()))``).

Small synthetic data and the bundled examples keep the module fast; the data are written once
per module. Where the command line prints more than the result (``plan --reference`` adds
the design file's path), the test says so.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import evalgap
import evalgap.simulate as simulate
from evalgap.cli import cli
from evalgap.report.json_output import to_json

ROOT = Path(__file__).resolve().parents[2]
TWO_MODELS = ROOT / "examples" / "two_models.csv"
PILOT_RUNS = ROOT / "examples" / "pilot_runs.csv"


def run_json(*args, code: int = 0):
    """Run ``evalgap ARGS --json`` in-process with click's runner; return the parsed JSON."""
    result = CliRunner().invoke(cli, [*map(str, args), "--json"], catch_exceptions=False)
    assert result.exit_code == code, (result.exit_code, result.output)
    return json.loads(result.stdout)


def same(cli_json, result) -> None:
    """The command line's JSON equals the Python result's, key for key."""
    python = json.loads(to_json(result if isinstance(result, dict) else result.to_dict()))
    assert cli_json == python


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    """Four binary models on two tasks of 150 items, with a cluster and a weight column."""
    rng = np.random.default_rng(7)
    rows = []
    skill = {"alpha": 0.78, "beta": 0.74, "gamma": 0.6, "delta": 0.58}
    for task in ("qa", "math"):
        ease = rng.normal(0, 1, 150)
        for model, p in skill.items():
            correct = rng.random(150) < 1 / (1 + np.exp(-(np.log(p / (1 - p)) + ease)))
            for i in range(150):
                rows.append((model, task, f"{task}-{i:03d}", int(correct[i]), f"c{i % 6}",
                             1.0 + (i % 3)))
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "score", "cluster", "w"])
    path = tmp_path_factory.mktemp("board") / "board.csv"
    frame.to_csv(path, index=False)
    return path


QUICK_COMPARE = {"n_bootstrap": 200, "n_bootstrap_required_n": 50}
QUICK_AUDIT = {
    "n_bootstrap": 0,
    "n_bootstrap_required_n": 0,
    "n_cluster_bootstrap": 50,
    "n_rank_bootstrap": 100,
}


def flags(settings: dict) -> list[str]:
    out = []
    for key, value in settings.items():
        out += [f"--{key.replace('_', '-')}", str(value)]
    return out


# --- compare ------------------------------------------------------------------------------


def test_compare_from_counts():
    counts = {"both_correct": 700, "a_only": 90, "b_only": 60, "both_wrong": 150}
    cli_json = run_json("compare", *flags(counts), *flags(QUICK_COMPARE))
    same(cli_json, evalgap.compare(**counts, **QUICK_COMPARE))


def test_compare_from_a_scores_table():
    models = {"model_a": "model-x", "model_b": "model-y"}
    cli_json = run_json("compare", "--scores", TWO_MODELS, *flags(models), *flags(QUICK_COMPARE))
    same(cli_json, evalgap.compare(str(TWO_MODELS), **models, **QUICK_COMPARE))
    same(cli_json, evalgap.compare(scores=str(TWO_MODELS), **models, **QUICK_COMPARE))


def test_compare_weighted_and_by_group(board):
    models = {"model_a": "alpha", "model_b": "beta"}
    weighted = run_json("compare", "--scores", board, *flags(models), "--weights", "w")
    same(weighted, evalgap.compare(str(board), **models, weights="w"))
    assert weighted["delta"] == pytest.approx(
        evalgap.compare(str(board), **models, weights="w").estimate.delta
    )
    assert weighted["design"]["unweighted_delta"] != weighted["delta"]
    by = run_json("compare", "--scores", board, *flags(models), "--by", "task",
                  *flags(QUICK_COMPARE))
    same(by, evalgap.compare(str(board), **models, by="task", **QUICK_COMPARE))
    assert [g["group"] for g in by["groups"]] == ["qa", "math"]


# --- audit and ranks ----------------------------------------------------------------------


def test_audit_json_and_html(board, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    page = tmp_path / "audit.html"
    cli_json = run_json("audit", "--scores", board, "--cluster-column", "cluster",
                        *flags(QUICK_AUDIT), "--html", page)
    result = evalgap.audit(str(board), cluster_column="cluster", **QUICK_AUDIT)
    same(cli_json, result)
    python_page = tmp_path / "python.html"
    returned = result.to_html(python_page)
    assert python_page.read_text(encoding="utf-8") == returned
    assert _without_provenance(page.read_text(encoding="utf-8")) == _without_provenance(returned)
    assert "from the Python API" in returned and "evalgap audit" in page.read_text()
    # a result the command line draws no page for: one line saying which ones it draws
    # a result without a page of its own is its terminal report as a page, its sentence whole
    result = evalgap.compare(both_correct=5, a_only=3, b_only=1, both_wrong=1)
    page = evalgap.report_html(result)
    assert page.startswith("<!DOCTYPE html>") and "<title>evalgap compare</title>" in page
    said = " ".join(html.unescape(page).split()).lower()
    assert " ".join(result.verdict.split()).lower()[:200] in said
    with pytest.raises(evalgap.InputError, match="not a result of evalgap's jobs"):
        evalgap.report_html({"delta": 0.1})


def test_fragility_of_a_board_and_of_pair_counts(board, tmp_path):
    same(
        run_json("fragility", "--scores", board, "--family", "all"),
        evalgap.fragility(str(board), family="all"),
    )
    pairs = tmp_path / "pairs.csv"
    pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "both_correct": [7986], "a_only": [295],
                  "b_only": [249], "both_wrong": [1512]}).to_csv(pairs, index=False)
    same(run_json("fragility", "--pairs", pairs), evalgap.fragility(pairs=str(pairs)))


def test_audit_of_pair_counts(tmp_path):
    pairs = tmp_path / "pairs.csv"
    pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "z"],
                  "both_correct": [7986, 7000], "a_only": [295, 900],
                  "b_only": [249, 300], "both_wrong": [1512, 1842]}).to_csv(pairs, index=False)
    quick = {"n_bootstrap": 0, "n_bootstrap_required_n": 0}
    same(run_json("audit", "--pairs", pairs, *flags(quick)),
         evalgap.audit(pairs=str(pairs), **quick))


def test_ranks_of_scores_and_battles_and_html(board, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    page = tmp_path / "ranks.html"
    cli_json = run_json("ranks", "--scores", board, "--n-bootstrap", 200, "--html", page)
    result = evalgap.ranks(str(board), n_bootstrap=200)
    same(cli_json, result)
    # the provenance is injectable: a record of the run in place of "from the Python API"
    from evalgap.report.html import provenance

    record = provenance([board], {"--scores": (str(board),)})
    injected = evalgap.report_html(result, provenance=record)
    assert _without_provenance(page.read_text(encoding="utf-8")) == _without_provenance(injected)
    assert record["inputs"][0]["sha256"] in injected and "from the Python API" not in injected
    rng = np.random.default_rng(3)
    names = np.array(["p", "q", "r"])
    a, b = rng.integers(0, 3, 300), rng.integers(1, 3, 300)
    battles = pd.DataFrame({"model_a": names[a], "model_b": names[(a + b) % 3]})
    battles["winner"] = np.where(rng.random(300) < 0.6, "model_a", "model_b")
    battle_file = tmp_path / "battles.csv"
    battles.to_csv(battle_file, index=False)
    same(run_json("ranks", "--battles", battle_file, "--n-bootstrap", 200),
         evalgap.ranks(battles=str(battle_file), n_bootstrap=200))


def _without_provenance(page: str) -> str:
    """The page less its provenance section (the command, inputs and options of the run)."""
    return re.sub(r"<h2 id='provenance'>.*?(?=<h2 id='legend'>)", "", page, flags=re.S)


# --- degrade and trim ---------------------------------------------------------------------


def test_degrade_and_trim(board, tmp_path):
    roles = {"baseline": "alpha", "candidate": "gamma"}
    cli_json = run_json("degrade", "--scores", board, *flags(roles), "--margin", 0.02)
    result = evalgap.degrade(str(board), **roles, margin=0.02)
    same(cli_json, result)
    assert result.to_frame()["task"].tolist() == [t["task"] for t in cli_json["tasks"]]
    assert list(result.to_frame().columns) == list(cli_json["tasks"][0])
    counts = tmp_path / "counts.csv"
    pd.DataFrame({"task": ["a", "b"], "a_only": [60, 30], "b_only": [25, 28]}).to_csv(
        counts, index=False
    )
    same(run_json("degrade", "--counts", counts), evalgap.degrade(counts=str(counts)))
    kept = tmp_path / "kept.csv"
    cli_trim = run_json("trim", "--scores", PILOT_RUNS, "--model", "model-x", "--output", kept)
    trimmed = evalgap.trim(str(PILOT_RUNS), model="model-x")
    same(cli_trim, trimmed)
    assert pd.read_csv(kept)["item_id"].tolist() == trimmed.to_frame()["item_id"].tolist()


# --- plan: the five planners ----------------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        {"accuracy_a": 0.72, "accuracy_b": 0.7, "correlation": 0.5, "n_items": 1000},
        {"delta": 0.02, "flip_rate": 0.1},
        {"margin": 0.02, "flip_rate": 0.1},
    ],
    ids=["counts", "degradation", "noninferiority"],
)
def test_plan_without_files(settings):
    cli_json = run_json("plan", *flags(settings))
    result = evalgap.plan(**settings)
    same(cli_json, result)
    frame = result.to_frame()
    assert len(frame) == 1 and list(frame.columns) == list(cli_json)


def test_plan_from_a_pilot_and_a_reference(board, tmp_path):
    models = {"model_a": "model-x", "model_b": "model-y"}
    same(run_json("plan", "--pilot", PILOT_RUNS, *flags(models), "--cost-per-item", 1),
         evalgap.plan(pilot=str(PILOT_RUNS), **models, cost_per_item=1.0))
    design = tmp_path / "design.csv"
    new = {"model_a": "new", "accuracy_a": 0.6, "delta": 0.1}
    cli_json = run_json("plan", "--reference", board, *flags(new), "--output", design)
    from_cli = pd.read_csv(design)
    python_design = tmp_path / "python_design.csv"
    result = evalgap.plan(reference=str(board), **new, output=str(python_design))
    # the command line adds where it wrote the design file
    assert cli_json.pop("design_file") == str(design)
    same(cli_json, result)
    pd.testing.assert_frame_equal(from_cli, pd.read_csv(python_design))


# --- watch --------------------------------------------------------------------------------


def test_watch_once(tmp_path):
    root = tmp_path / "out"
    for model, share in (("a", 0.9), ("b", 0.6)):
        (root / model).mkdir(parents=True)
        lines = [
            json.dumps({"doc_id": i, "acc": float((i * 7919 % 100) / 100 < share)})
            for i in range(120)
        ]
        (root / model / "samples_qa_2026-01-01T00-00-00.jsonl").write_text(
            "\n".join(lines) + "\n"
        )
    cli_json = run_json("watch", "--logs", root, "--pair", "a", "b", "--once", code=0)
    status = evalgap.watch(root, pair=("a", "b"), once=True)
    same(cli_json, status)
    assert cli_json["stopped"] == "decided" and cli_json["new_records"] == 240


# --- simulate -----------------------------------------------------------------------------


def test_simulate_studies(board):
    same(run_json("simulate", "calibration", "--n-items", 60, "--n-trials", 20,
                  "--n-bootstrap", 20),
         simulate.calibration(n_items=60, n_trials=20, n_bootstrap=20))
    same(run_json("simulate", "power-curve", "--delta", 0.1, "--n-trials", 10,
                  "--n-bootstrap", 10),
         simulate.power_curve(deltas=(0.1,), n_trials=10, n_bootstrap=10))
    arc = {"both_correct": 716, "a_only": 100, "b_only": 78, "both_wrong": 278}
    same(run_json("simulate", "sequential", *flags(arc), "--n-trials", 20,
                  "--horizon-factor", 1.5),
         simulate.sequential(tuple(arc.values()), n_trials=20, horizon_factor=1.5))
    same(run_json("simulate", "aggregation", "--max-tasks", 2, "--n-trials", 20),
         simulate.aggregation(task_counts=(1, 2), n_trials=20))
    same(run_json("simulate", "monitoring", "--n-trials", 20, "--horizon", 50, "--n-models", 3),
         simulate.monitoring(n_trials=20, horizon=50, n_models=3))
    same(run_json("simulate", "prospective", "--scores", board, "--pair", "alpha", "gamma",
                  "--n-trials", 20),
         simulate.prospective([("alpha", "gamma")], scores=str(board), n_trials=20))
    with pytest.raises(evalgap.InputError, match=r"a list of \(A, B\)"):
        simulate.prospective({"x": (1, 2, 3, 4)}, scores=str(board))


@pytest.mark.slow  # every default configuration: about 8 s each way
def test_simulate_rank_coverage():
    same(run_json("simulate", "rank-coverage", "--n-trials", 10, "--n-bootstrap", 200),
         simulate.rank_coverage(n_trials=10, n_bootstrap=200))


# --- inspect-data and the store -----------------------------------------------------------


def test_inspect_data(board):
    cli_json = run_json("inspect-data", "--scores", board)
    summary = evalgap.inspect_data(str(board))
    same(cli_json, summary)


def test_store_commands(board, tmp_path):
    cli_store, py_store = tmp_path / "cli.duckdb", tmp_path / "py.duckdb"

    def renamed(data):  # the two stores differ only in their path
        return json.loads(json.dumps(data).replace(str(py_store), str(cli_store)))

    added = run_json("store", "add", cli_store, board)
    same(added, renamed(evalgap.store_add(str(py_store), [str(board)]).to_dict()))
    listed = run_json("store", "list", cli_store)
    same(listed, evalgap.store_list(str(cli_store)))
    assert list(evalgap.store_list(str(cli_store)).to_frame().columns) == list(
        listed["sources"][0]
    )
    cli_out, py_out = tmp_path / "cli.parquet", tmp_path / "py.parquet"
    audited = run_json("store", "audit", cli_store, "--output", cli_out)
    summary = evalgap.store_audit(str(cli_store), py_out, n_bootstrap=0,
                                  n_bootstrap_required_n=0)
    assert audited == json.loads(to_json(summary.to_dict()).replace(str(py_out), str(cli_out)))
    pd.testing.assert_frame_equal(pd.read_parquet(cli_out), pd.read_parquet(py_out))
    cli_export, py_export = tmp_path / "cli_export.parquet", tmp_path / "py_export.parquet"
    exported = run_json("store", "export", cli_store, "--output", cli_export)
    result = evalgap.store_export(str(py_store), py_export)
    assert exported == renamed(json.loads(
        to_json(result.to_dict()).replace(str(py_export), str(cli_export))
    ))
    removed = run_json("store", "remove", cli_store, "--model", "delta")
    same(removed, renamed(evalgap.store_remove(str(py_store), models=["delta"]).to_dict()))


# --- names --------------------------------------------------------------------------------


def test_old_names_still_work_with_a_warning(board):
    with pytest.warns(DeprecationWarning, match="data= is now called scores="):
        old = evalgap.audit(data=str(board), **QUICK_AUDIT)
    assert old.to_dict() == evalgap.audit(scores=str(board), **QUICK_AUDIT).to_dict()
    with pytest.warns(DeprecationWarning) as caught:
        r = evalgap.compare(a=[1, 0, 1, 1], b=[0, 0, 1, 0], n_bootstrap=0, n_permutations=0,
                            n_bootstrap_required_n=0)
    assert [str(w.message).split(";")[0] for w in caught] == [
        "a= is now called scores=", "b= is now called scores_b="
    ]
    assert r.a_only == 2 and r.b_only == 0
    with pytest.raises(evalgap.InputError, match="give scores= alone"):
        evalgap.trim(str(board), data=str(board), model="alpha")
    with pytest.warns(DeprecationWarning, match="evalgap.audit_store is now"):
        assert evalgap.audit_store is evalgap.store_audit_in_memory
    with pytest.warns(DeprecationWarning, match="evalgap.read_store is now"):
        assert evalgap.read_store is evalgap.store_read
    with pytest.warns(DeprecationWarning, match="paths= is now called scores="):
        with pytest.raises(evalgap.InputError, match=r"store_add\(scores=...\): a path"):
            evalgap.store_add("x.duckdb", paths=3)
    for old_name in ("audit_store", "audit_store_streamed", "read_store"):
        assert old_name not in evalgap.__all__


def test_every_public_result_is_a_table_or_says_why_not():
    from evalgap._results import Result

    for name in evalgap.__all__:
        value = getattr(evalgap, name, None)
        if isinstance(value, type) and issubclass(value, Result):
            if not hasattr(value, "to_frame"):
                assert "Not a table (no ``to_frame()``)" in (value.__doc__ or ""), name
