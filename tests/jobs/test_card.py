"""The leaderboard card: every number is the one ranks, audit and fragility give; the
Markdown renders to GitHub tables; names cannot break a table."""

from __future__ import annotations

import numpy as np
import pytest
from markdown_it import MarkdownIt

import evalgap

from synthetic import clustered_board


@pytest.fixture(scope="module")
def board():
    return clustered_board(n_items=1200, accuracies=(0.74, 0.72, 0.6, 0.59, 0.5), seed=4)


@pytest.fixture(scope="module")
def card(board):
    return evalgap.card(board, n_bootstrap=300)


def test_card_numbers_are_those_of_ranks_audit_and_fragility(board, card):
    ranks = evalgap.ranks(board, n_bootstrap=300)
    audit = evalgap.audit(board, n_bootstrap=0, n_bootstrap_required_n=0,
                          n_cluster_bootstrap=0, n_rank_bootstrap=0)  # fmt: skip
    flips = evalgap.fragility(board)
    (task,) = card.tasks
    expected = ranks.ranks.set_index("model")
    for m in task.models:
        row = expected.loc[m.model]
        assert (m.rank, m.rank_low, m.rank_high, m.tier) == (
            row["rank"], row["rank_low"], row["rank_high"], row["tier"])  # fmt: skip
        assert m.score == pytest.approx(row["score"]) and m.items_missing == 0
    pairs = audit.pairs.to_frame()
    assert [(p.model_a, p.model_b) for p in task.pairs] == list(
        zip(pairs["model_a"], pairs["model_b"], strict=True)
    )
    for p, (_, row), f in zip(task.pairs, pairs.iterrows(), flips.pairs, strict=True):
        assert p.p_value == pytest.approx(row["p_exact"])
        assert p.items_to_flip == f.fragility["exact"].items_to_flip
        assert p.items_to_flip_resolution == f.fragility["resolution"].items_to_flip
    assert task.resolved == int((pairs["resolution_ratio"] >= 1).sum())
    assert task.single_rank == int((expected["rank_low"] == expected["rank_high"]).sum())
    scores = expected["score"].to_numpy()
    assert task.signal_to_noise == pytest.approx(
        scores.std(ddof=1) / np.median(expected["se"]))  # fmt: skip


def test_markdown_renders_to_tables_with_every_row(card):
    html = MarkdownIt("commonmark").enable("table").render(card.to_markdown())
    (task,) = card.tasks
    assert html.count("<table>") == 2
    assert html.count("<tr>") == (1 + len(task.models)) + (1 + len(task.pairs))
    assert "<h2>Leaderboard card</h2>" in html and "Settings" in html


def test_hostile_names_stay_in_their_cell(board):
    nasty = {"m0": "a|b <script>x</script>", "m1": "*bold* [link](http://x)"}
    frame = board.assign(model=board["model"].replace(nasty))
    r = evalgap.card(frame, n_bootstrap=200)
    html = MarkdownIt("commonmark").enable("table").render(r.to_markdown())
    assert "<script>" not in html and "<strong>" not in html and "<a href" not in html
    (task,) = r.tasks
    cells_per_row = 8
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<tr>") == len(task.models)
    assert body.count("<td") == cells_per_row * len(task.models)


def test_card_cli_writes_markdown_html_and_json(run_cli, board, tmp_path):
    import json

    scores = tmp_path / "board.csv"
    board.to_csv(scores, index=False)
    md, page = tmp_path / "card.md", tmp_path / "card.html"
    out = run_cli("card", "--scores", scores, "--n-bootstrap", 300, "--output", md, "--html", page)
    assert out.returncode == 0, out.stderr
    assert md.read_text().startswith("## Leaderboard card")
    assert page.read_text().startswith("<!DOCTYPE html>")
    printed = run_cli("card", "--scores", scores, "--n-bootstrap", 300, "--json")
    data = json.loads(printed.stdout)
    assert data["verdict"] == evalgap.card(str(scores), n_bootstrap=300).verdict
    assert set(data["tasks"][0]) >= {"models", "pairs", "separated", "signal_to_noise"}
    plain = run_cli("card", "--scores", scores, "--n-bootstrap", 300)
    assert plain.stdout == md.read_text()


def test_task_rank_coverage_two_way_covers_where_items_only_does_not():
    from evalgap.jobs.task_rank_coverage import TaskConfiguration, task_rank_coverage

    config = TaskConfiguration("strong interaction", (0.63, 0.6, 0.57, 0.54, 0.51), 0.06, 10,
                               1000)  # fmt: skip
    r = task_rank_coverage([config], n_trials=80, n_bootstrap=300, seed=3)
    rows = r.rows.set_index("sets")
    two, one = rows.loc["two-way"], rows.loc["items only"]
    assert two["coverage"] >= 0.95 - 2 * max(two["coverage_se"], 0.024)
    assert one["coverage"] < 0.95 - 2 * one["coverage_se"]
    assert two["mean_width"] > one["mean_width"]
    assert "items only sets fall short" in r.verdict


def test_card_over_tasks_has_both_kinds_of_sets():
    frames = []
    for t in range(4):
        part = clustered_board(n_items=400, accuracies=(0.74, 0.72, 0.6), seed=10 + t)
        frames.append(part.assign(task=f"t{t}"))
    import pandas as pd

    board = pd.concat(frames, ignore_index=True)
    r = evalgap.card(board, n_bootstrap=300)
    o = r.over_tasks
    assert o is not None and o.n_tasks == 4 and len(o.models) == 3
    scores = [np.mean([t.models[[m.model for m in t.models].index(name)].score
                       for t in r.tasks]) for name in (m.model for m in o.models)]  # fmt: skip
    assert [m.score for m in o.models] == pytest.approx(scores)
    assert all(m.se > 0 and m.se_items > 0 for m in o.models)
    assert "### Over the 4 tasks" in r.to_markdown() and "Over the 4 tasks" in r.to_html()
    single = evalgap.card(board[board.task == "t0"], n_bootstrap=300)
    assert single.over_tasks is None


@pytest.mark.parametrize("source", ["mmlu_pro", "bbh"])
def test_card_of_real_boards_writes_markdown_html_and_json(source, run_cli, tmp_path):
    """MMLU-Pro with its 14 categories as tasks, and BBH's 27 tasks: every format written,
    the JSON's tasks those of the Markdown."""
    import json

    from conftest import shared_file

    if source == "mmlu_pro":
        args = ["--scores", shared_file("mmlu_pro", "mmlu_pro_long.csv.gz"), "--items",
                shared_file("mmlu_pro", "mmlu_pro_items.csv"), "--task-column", "category"]
        tasks = 14
    else:
        args = ["--scores", shared_file("bbh_codex", "bbh_codex_long.csv")]
        tasks = 27
    md, page = tmp_path / "card.md", tmp_path / "card.html"
    out = run_cli("card", *args, "--n-bootstrap", 300, "--output", md, "--html", page, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["tasks"]) == tasks and data["over_tasks"]["n_tasks"] == tasks
    text = md.read_text()
    assert text.count("\n### ") == tasks + 2  # each task, over tasks, settings
    assert page.read_text().count("<h2") >= tasks + 2  # each task, over tasks, settings
