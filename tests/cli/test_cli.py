"""The ``evalgap`` command line, run in-process through ``evalgap.cli.main`` (the installed
entry point itself is run once per subcommand in ``test_entry_points.py``)."""

from __future__ import annotations

import json

import pytest

from conftest import EVALGAP, ROOT, shared_file  # noqa: F401 (EVALGAP: imported from here)

COMPARE_KEYS = {
    "n_items",
    "accuracy_a",
    "accuracy_b",
    "delta",
    "a_only",
    "b_only",
    "correlation",
    "sd_diff",
    "se",
    "p_values",
    "ci",
    "required_n",
    "mde",
    "resolution_ratio",
    "resolved",
}
PLAN_KEYS = {
    "required_n",
    "mde",
    "resolution_ratio",
    "conventions",
    "unpaired_required_n",
    "lemma_constant",
    "shortcut_ratio",
}


def test_compare_counts_json_contract(run_cli):
    out = run_cli(
        "compare",
        "--both-correct",
        "7986",
        "--a-only",
        "295",
        "--b-only",
        "249",
        "--both-wrong",
        "1512",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert COMPARE_KEYS <= set(data)
    assert set(data["p_values"]) >= {"mcnemar", "mcnemar_cc", "exact", "mid_p"}
    assert set(data["ci"]) >= {"low", "high", "method"}
    assert data["n_items"] == 10_042 and data["a_only"] == 295 and data["b_only"] == 249
    assert round(data["p_values"]["mcnemar"], 3) == 0.049
    assert round(data["p_values"]["exact"], 3) == 0.054
    assert data["required_n"] == 20_256 and data["resolved"] is False
    assert round(data["resolution_ratio"], 2) == 0.50


def test_compare_report_ends_in_one_sentence(run_cli):
    out = run_cli(
        "compare",
        "--both-correct",
        "7986",
        "--a-only",
        "295",
        "--b-only",
        "249",
        "--both-wrong",
        "1512",
        "--n-bootstrap",
        "0",
        "--n-bootstrap-required-n",
        "0",
    )
    assert out.returncode == 0, out.stderr
    last = " ".join(out.stdout.split()).rsplit("resolved (q >= 1)", 1)[1]
    assert (
        "Significant by chi-square (p=0.049) but not by the exact test (p=0.054); q=0.50: "
        "resolving a gap this size at alpha=0.05, power 0.8 needs 20,256 items"
    ) in last


def test_compare_scores_on_mmlu_pro(run_cli):
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    out = run_cli(
        "compare",
        "--scores",
        str(path),
        "--model-a",
        "Meta-Llama-3_1-8B_5shots",
        "--model-b",
        "Meta-Llama-3_1-8B-Instruct_5shots",
        "--n-bootstrap",
        "2000",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["n_items"], data["a_only"], data["b_only"]) == (12_032, 1127, 2053)
    # Binary pairs get the exact bootstrap: no resamples, no Monte Carlo error.
    assert (data["bootstrap"]["method"], data["bootstrap"]["n_resamples"]) == ("exact", None)
    assert data["alignment"]["items_left_out"] == 0


def test_compare_scores_counts_items_left_out(run_cli):
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    out = run_cli(
        "compare",
        "--scores",
        str(path),
        "--model-a",
        "DeepSeek-Coder-V2_5shots",
        "--model-b",
        "gemini-1.5-pro-002_5shots",
        "--n-bootstrap",
        "0",
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "DeepSeek-Coder-V2_5shots has no score for 1,681 of 12,032 items" in text
    assert "gemini-1.5-pro-002_5shots has no score for 12 of 12,032 items" in text


def test_compare_bundled_example(run_cli):
    out = run_cli(
        "compare",
        "--scores",
        str(ROOT / "examples" / "two_models.csv"),
        "--model-a",
        "model-x",
        "--model-b",
        "model-y",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["n_items"] == 2000


def test_plan_json_contract_and_table_1(run_cli):
    out = run_cli(
        "plan",
        "--accuracy-a",
        "0.65",
        "--accuracy-b",
        "0.60",
        "--correlation",
        "0.3",
        "--n-items",
        "1172",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert PLAN_KEYS <= set(data)
    assert data["required_n"] == 1028
    assert data["conventions"] == {
        "one_sample_per_arm": 736,
        "one_sample_shortcut": 515,
        "two_sample_per_arm": 1471,
        "two_sample_shortcut": 1030,
    }
    assert data["resolution_ratio"] == pytest.approx(1172 / 1027.5758, rel=1e-5)


def test_plan_zero_gap_is_null_not_a_crash(run_cli):
    out = run_cli(
        "plan", "--accuracy-a", "0.6", "--correlation", "0.7", "--n-items", "1172", "--json"
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["required_n"] is None and data["resolved"] is False
    # MDE at equal accuracies: sqrt(K) * sqrt(2 p q (1 - rho)) / sqrt(N)
    assert data["mde"] == pytest.approx(2.8015852 * (2 * 0.24 * 0.3) ** 0.5 / 1172**0.5, rel=1e-6)
    assert "zero gap" in data["verdict"]


def test_plan_graded(run_cli):
    out = run_cli("plan", "--delta", "0.02", "--sd-diff", "0.25", "--json")
    data = json.loads(out.stdout)
    assert data["required_n"] == 1227  # ceil(7.8489 * 0.0625 / 0.0004)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["plan", "--accuracy-a", "0.65", "--accuracy-b", "0.6", "--correlation", "0.95"],
            "choose a correlation in [-0.5991, 0.8987]",
        ),
        (["plan", "--accuracy-a", "1.5", "--correlation", "0.3"], "'--accuracy-a'"),
        (
            [
                "compare",
                "--both-correct",
                "1",
                "--a-only",
                "2",
                "--b-only",
                "3",
                "--both-wrong",
                "4",
                "--alpha",
                "2",
            ],
            "'--alpha': 2.0 is not in the range 0<x<1",
        ),
        (["compare", "--both-correct", "1", "--a-only", "2"], "missing --b-only, --both-wrong"),
        (
            ["compare", "--scores", "no-such-file.csv", "--model-a", "a", "--model-b", "b"],
            "no-such-file.csv: no such file",
        ),
        (["compare", "--a-only", "-3"], "'--a-only': -3 is not in the range x>=0"),
    ],
)
def test_bad_input_exits_2_with_one_line(run_cli, args, message):
    out = run_cli(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalgap: error:")
    assert message in lines[0]
    assert "Traceback" not in out.stderr


def test_unknown_model_names_the_models(run_cli, tmp_path):
    table = tmp_path / "s.csv"
    table.write_text("model,item_id,score\nx,1,1\ny,1,0\nx,2,0\ny,2,0\n")
    out = run_cli("compare", "--scores", str(table), "--model-a", "x", "--model-b", "z")
    assert out.returncode == 2
    assert "no model 'z'; models found: x, y" in out.stderr


@pytest.mark.parametrize("command", ["compare", "plan"])
def test_help_shows_examples(run_cli, command):
    out = run_cli(command, "--help")
    assert out.returncode == 0 and "Examples:" in out.stdout and f"evalgap {command}" in out.stdout


def test_inspect_data_on_mmlu_pro_with_item_file(run_cli):
    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    items = shared_file("mmlu_pro", "mmlu_pro_items.csv")
    out = run_cli(
        "inspect-data",
        "--scores",
        str(scores),
        "--items",
        str(items),
        "--cluster-column",
        "category",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["models"]) == 29 and data["clusters"] == 14 and data["binary"]
    assert data["tasks"] == [{"task": "all", "items": 12_032, "items_kept": 10_326}]
    gemini = next(m for m in data["models"] if m["model"] == "gemini-1.5-pro-002_5shots")
    assert (gemini["items_scored"], round(gemini["mean_score"], 4)) == (12_020, 0.7025)
    text = run_cli("inspect-data", "--scores", str(scores)).stdout
    assert "DeepSeek-Coder-V2_5shots has no score for 1,681 of 12,032 items" in " ".join(
        text.split()
    )


def test_compare_reads_lm_eval_directories(run_cli, tmp_path):
    import synthetic as syn

    reference = syn.leaderboard(seed=5)
    syn.write_lm_eval(reference, tmp_path)
    out = run_cli(
        "compare",
        "--scores",
        str(tmp_path),
        "--model-a",
        "org-a/alpha",
        "--model-b",
        "org-c/gamma",
        "--task",
        "arc_easy",
        "--n-bootstrap",
        "0",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    ref = reference[reference.task == "arc_easy"].pivot(
        index="item_id", columns="model", values="score"
    )
    assert data["n_items"] == 40
    assert data["a_only"] == int(((ref["org-a/alpha"] == 1) & (ref["org-c/gamma"] == 0)).sum())


def test_compare_inspect_fixture_pair(run_cli):
    qwen = shared_file("format_fixtures", "inspect", "data_arc_qwen.json")
    sonnet = shared_file("format_fixtures", "inspect", "data_arc_sonnet.json")
    out = run_cli(
        "compare",
        "--scores",
        str(qwen),
        "--scores",
        str(sonnet),
        "--model-a",
        "ollama/qwen2.5:0.5b",
        "--model-b",
        "anthropic/claude-sonnet-4-0",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["n_items"], data["a_only"], data["b_only"]) == (3, 0, 2)
    assert data["alignment"]["items_left_out"] == 2


def test_loader_errors_are_one_line(run_cli, tmp_path):
    bad = tmp_path / "samples_arc_easy_2026-01-21T03-44-18.458309.jsonl"
    bad.write_text('{"doc_id": 0, "metrics": ["acc"], "acc": 1}\n{"doc_id": 1, "ac')
    out = run_cli("inspect-data", "--scores", str(bad))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "line 2 is not valid JSON" in out.stderr
    out = run_cli("inspect-data", "--scores", str(tmp_path / "missing.csv"))
    assert out.returncode == 2 and "no such file" in out.stderr


def test_inspect_data_help_lists_the_sources(run_cli):
    out = run_cli("inspect-data", "--help")
    assert out.returncode == 0
    for source in ("lm-eval", "oll", "inspect", "helm", "wide table"):
        assert source in out.stdout


def test_audit_pairs_file_json(run_cli, tmp_path):
    from synthetic import table_7

    path = tmp_path / "pairs.csv"
    table_7().to_csv(path, index=False)
    out = run_cli(
        "audit",
        "--pairs",
        str(path),
        "--family-size",
        "45",
        "--json",
        "--html",
        str(tmp_path / "report.html"),
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["family_size"] == 45 and round(data["bonferroni_inflation"], 2) == 2.14
    assert data["unresolved"]["fixed_n"] == 4 and data["unresolved"]["anytime_valid"] == 5
    assert len(data["pairs"]) == 9 and data["chains"]["all"][2] == ["rank 3", "rank 4"]
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html


def test_audit_scores_report_in_the_terminal(run_cli):
    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    items = shared_file("mmlu_pro", "mmlu_pro_items.csv")
    out = run_cli(
        "audit",
        "--scores",
        str(scores),
        "--items",
        str(items),
        "--cluster-column",
        "category",
        "--n-cluster-bootstrap",
        "200",
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "flips under clustering:" in text
    assert "of 28 adjacent pairs are unresolved" in text
    assert "8 unresolved chains (fixed n) join 21 models" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["audit"], "give either --pairs FILE"),
        (["audit", "--pairs", "x.csv", "--family", "all"], "--family all needs per-item"),
        (["audit", "--pairs", "missing.csv"], "missing.csv: no such file"),
    ],
)
def test_audit_bad_input(run_cli, args, message):
    out = run_cli(*args)
    assert out.returncode == 2 and message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def _help_examples() -> list[str]:
    """Every 'evalgap ...' line of every command's --help (epilog and docstring)."""
    import re

    import click

    from evalgap.cli import cli

    found, pending = [], [cli]
    while pending:
        command = pending.pop()
        text = f"{command.help or ''}\n{command.epilog or ''}".replace("\\\n", " ")
        found += [re.sub(r"\s+", " ", line.strip()) for line in text.splitlines()]
        if isinstance(command, click.Group):
            pending.extend(command.commands.values())
    return list(dict.fromkeys(line for line in found if line.startswith("evalgap ")))


def _runnable(example: str) -> bool:
    """An example needs no file, or only the repository's examples/ files, and is quick."""
    words = example.split()[1:]
    if words[0] in ("simulate", "watch", "store") or "--output" in words or "--html" in words:
        return False
    files = [w for w in words if "/" in w or "." in w.lstrip("0123456789.")]
    return all(w.startswith("examples/") and (ROOT / w).exists() for w in files)


RUNNABLE_EXAMPLES = [e for e in _help_examples() if _runnable(e)]


def test_help_examples_are_found():
    assert len(RUNNABLE_EXAMPLES) >= 6  # compare (counts, file), plan (four kinds, pilot)


@pytest.mark.parametrize("example", RUNNABLE_EXAMPLES)
def test_every_runnable_help_example_works(example, monkeypatch, capsys):
    import shlex

    from evalgap.cli import main

    monkeypatch.chdir(ROOT)
    assert main(shlex.split(example)[1:]) == 0, capsys.readouterr().err
