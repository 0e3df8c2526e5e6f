"""One board, one story (issue 38): ranks, audit and card list a leaderboard's models in one
order in every view (Python, JSON, terminal, Markdown, HTML); the card's and the audit's
adjacent pairs are the rank table's adjacent rows, and no listed gap runs against that order;
the counts of separated and resolved pairs and each model's score interval agree.

On MMLU-Pro three models lack items (DeepSeek-Coder-V2 1,681 of 12,032): ordered by the mean
over their own items the audit put DeepSeek (0.636) above Llama-3.1-70B-Instruct (0.628) and
its pair table printed "DeepSeek vs Llama -0.92" under a rank table that ranked Llama higher.
AlpacaEval 2.0's judge board has six models missing one to three of 805 items.
"""

from __future__ import annotations

import html
import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest

import evalgap

from conftest import shared_file

BOARDS = {
    "mmlu_pro": (("mmlu_pro", "mmlu_pro_long.csv.gz"), {}),
    "alpaca_eval": (
        ("alpaca_eval", "alpaca_eval_long.csv.gz"),
        {"model_column": "model", "item_column": "item", "score_column": "win",
         "task_column": "none"},
    ),
}  # fmt: skip
SETTINGS = {"n_bootstrap": 300, "seed": 0}


def _flags(columns: dict[str, str]) -> list[str]:
    return [x for key, value in columns.items() for x in (f"--{key.replace('_', '-')}", value)]


def _tables(page: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every HTML table of a page as (header, rows) of plain text."""
    def text(cell: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()

    out = []
    for table in re.findall(r"<table>(.*?)</table>", page, flags=re.S):
        header = [text(c) for c in re.findall(r"<th[^>]*>(.*?)</th>", table, flags=re.S)]
        body = re.search(r"<tbody>(.*?)</tbody>", table, flags=re.S)
        rows = [
            [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body.group(1) if body else "", flags=re.S)
        ]
        out.append((header, rows))
    return out


def _column(tables, first: list[str], name: str) -> list[str]:
    """The column ``name`` of the first table whose header starts with ``first``."""
    for header, rows in tables:
        if header[: len(first)] == first:
            return [row[header.index(name)] for row in rows]
    raise AssertionError(f"no table starting {first}")


def _markdown_column(text: str, first: str, index: int) -> list[str]:
    """Cell ``index`` of each row of the first Markdown table whose header starts ``first``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows.append(re.sub(r"\\(.)", r"\1", cells[index]))
    return rows


@pytest.fixture(scope="module", params=sorted(BOARDS))
def board(request):
    parts, columns = BOARDS[request.param]
    path = shared_file(*parts)
    ranks = evalgap.ranks(str(path), **columns, **SETTINGS)
    audit = evalgap.audit(str(path), **columns, n_rank_bootstrap=300, seed=0)
    card = evalgap.card(str(path), **columns, **SETTINGS)
    return request.param, path, columns, ranks, audit, card


def test_every_python_and_json_view_lists_one_order(board):
    name, _, _, ranks, audit, card = board
    order = ranks.ranks["model"].tolist()
    assert audit.rankings["model"].tolist() == order
    assert [m.model for m in card.tasks[0].models] == order
    assert audit.rank_sets.ranks["model"].tolist() == order
    as_json = [json.loads(json.dumps(r.to_dict(), default=str)) for r in (ranks, audit, card)]
    assert [row["model"] for row in as_json[0]["ranks"]] == order
    assert [row["model"] for row in as_json[1]["rankings"]] == order
    assert [m["model"] for m in as_json[2]["tasks"][0]["models"]] == order
    if name == "mmlu_pro":
        llama, deepseek = "Meta-Llama-3_1-70B-Instruct_5shots", "DeepSeek-Coder-V2_5shots"
        assert order.index(llama) == 2 and order.index(deepseek) == 3
        own = audit.rankings.set_index("model")["own_items_mean"]
        assert own[deepseek] > own[llama]  # the mean over own items would have swapped them


def test_adjacent_pairs_are_the_rank_tables_rows_and_no_gap_runs_against_them(board):
    _, _, _, ranks, audit, card = board
    order = ranks.ranks["model"].tolist()
    adjacent = list(itertools.pairwise(order))
    pairs = audit.to_frame()
    listed = zip(pairs["model_a"].astype(str), pairs["model_b"].astype(str), strict=True)
    assert list(listed) == adjacent
    assert (pairs["delta"] >= 0).all() and not pairs["order_reversed"].any()
    task = card.tasks[0]
    assert [(p.model_a, p.model_b) for p in task.pairs] == adjacent
    assert all(p.delta >= 0 for p in task.pairs)
    np.testing.assert_array_equal([p.delta for p in task.pairs], pairs["delta"].to_numpy())


def test_counts_and_intervals_are_computed_once(board):
    _, _, _, ranks, audit, card = board
    task = card.tasks[0]
    better = ranks.shown_better[task.task]
    assert task.separated == ranks.separated[task.task] == int(np.diagonal(better, 1).sum())
    assert task.separated == sum(p.separated for p in task.pairs)
    assert task.resolved == len(task.pairs) - audit.unresolved["fixed_n"]
    columns = ["score", "score_low", "score_high", "own_items_mean", "n_items", "rank"]
    in_ranks = ranks.ranks[["model", *columns]].reset_index(drop=True)
    in_audit = audit.rankings[["model", *columns]].reset_index(drop=True)
    pd.testing.assert_frame_equal(in_ranks, in_audit, check_dtype=False)
    in_card = pd.DataFrame([{k: getattr(m, k) for k in ["model", *columns]} for m in task.models])
    pd.testing.assert_frame_equal(in_ranks, in_card, check_dtype=False)


def test_markdown_html_and_terminal_print_the_same_order(board, run_cli, tmp_path):
    _, path, columns, ranks, audit, card = board
    order = ranks.ranks["model"].tolist()
    adjacent = [f"{a} vs {b}" for a, b in itertools.pairwise(order)]
    markdown = card.to_markdown()
    assert _markdown_column(markdown, "Rank", 1) == order
    assert _markdown_column(markdown, "Adjacent pair", 0) == adjacent
    assert not any(gap.startswith("-") for gap in _markdown_column(markdown, "Adjacent pair", 1))
    page = tmp_path / "card.html"
    card.to_html(page)
    tables = _tables(page.read_text())
    assert _column(tables, ["Rank", "Model"], "Model") == order
    assert _column(tables, ["Model A", "Model B"], "Model A") == order[:-1]
    assert _column(tables, ["Model A", "Model B"], "Model B") == order[1:]
    for job, result in (("ranks", ranks), ("audit", audit)):
        page = tmp_path / f"{job}.html"
        result.to_html(page)
        assert _column(_tables(page.read_text()), ["Rank", "Model"], "Model") == order, job
    flags = [*_flags(columns), "--n-bootstrap", "300"]
    out = run_cli("ranks", "--scores", path, *flags)
    assert out.returncode == 0, out.stderr
    listed = [
        line.split()[1] for line in out.stdout.splitlines() if re.match(r"^\s+\d+\s+\S", line)
    ]
    assert listed == order
    out = run_cli("card", "--scores", path, *flags)
    assert out.returncode == 0, out.stderr
    assert _markdown_column(out.stdout, "Rank", 1) == order
