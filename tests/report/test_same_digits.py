"""One formatter per kind of number: the terminal, the Markdown report and the HTML page of a
result print the same text for each score, gap, p-value, q and interval, in one bracket style.

Each expected string is built from the result's raw numbers by the formatter of its kind
(``evalgap.report.text``), then looked for in every view of that result.
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

import evalgap
from evalgap.report.html import report_html
from evalgap.report.markdown import result_markdown
from evalgap.report.text import (
    format_gap,
    format_n,
    format_p,
    format_points,
    format_q,
    format_score,
    gap_interval,
    points_interval,
    score_interval,
)

from conftest import shared_file

ROOT = Path(__file__).resolve().parents[2]
TWO = ROOT / "examples" / "two_models.csv"
BOARD = ROOT / "examples" / "board.csv"

# An interval in any view: "[low, high]" with a comma; never "low-high" or "low – high".
INTERVAL = re.compile(r"\[([-+]?\d[\d,]*\.\d+), ([-+]?\d[\d,]*\.\d+)\]")
OTHER_INTERVAL = re.compile(r"\d\.\d{3,}\s*[–-]\s*[-+]?\d\.\d{3,}")


def _terminal(result) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=10_000, color_system=None, emoji=False, highlight=False)
    result._render(console)
    return buffer.getvalue()


def _markdown(result) -> str:
    text = result_markdown(result)
    return html.unescape(re.sub(r"\\([\\`*_\[\]|~])", r"\1", text))


def _html(result) -> str:
    page = report_html(result)
    page = re.sub(r"<(style|svg)\b.*?</\1>", " ", page, flags=re.S)  # CSS and figures
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _views(result, *, page: bool) -> dict[str, str]:
    views = {"terminal": _terminal(result), "markdown": _markdown(result)}
    if page:
        views["html"] = _html(result)
    return views


def _assert_in_every_view(views: dict[str, str], expected: list[str]) -> None:
    assert expected
    for name, text in views.items():
        missing = [e for e in expected if e not in text]
        assert not missing, f"{name} lacks {missing[:5]}"


def _assert_one_bracket_style(views: dict[str, str]) -> None:
    for name, text in views.items():
        assert not OTHER_INTERVAL.search(text), (name, OTHER_INTERVAL.search(text))


@pytest.fixture(params=["examples", "mmlu_pro"])
def board(request) -> Path:
    """The bundled example board, and MMLU-Pro (some models skipped items) when present."""
    if request.param == "examples":
        return BOARD
    return shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")  # skips, saying why, when absent


def test_compare_terminal_markdown_and_sentence_agree():
    r = evalgap.compare(TWO, model_a="model-x", model_b="model-y")
    views = _views(r, page=False)
    expected = [format_gap(r.delta), format_points(r.delta), format_score(r.accuracy_a)]
    expected += [format_p(r.p_values.exact, bare=True), format_q(r.resolution_ratio)]
    _assert_in_every_view(views, expected)
    # the sentence quotes the p-value and q as the tables print them
    _assert_in_every_view({"sentence": r.verdict}, [format_p(r.p_values.exact)])
    _assert_in_every_view({"sentence": r.verdict}, [f"q={format_q(r.resolution_ratio)}"])


def test_degrade_terminal_and_markdown_agree():
    r = evalgap.degrade(TWO, baseline="model-x", candidate="model-y")
    views = _views(r, page=False)
    expected = [format_points(t.delta) for t in r.tasks]
    expected += [format_p(t.p_value, digits=3, bare=True) for t in r.tasks]
    _assert_in_every_view(views, expected)


def test_audit_views_agree(board):
    r = evalgap.audit(board)
    views = _views(r, page=True)
    frame = r.to_frame().head(15)
    expected = []
    for row in frame.itertuples():
        expected += [
            format_gap(row.delta),
            gap_interval(row.delta_low, row.delta_high),
            format_n(row.required_n),
        ]
        if row.resolution_ratio == row.resolution_ratio:
            expected.append(format_q(row.resolution_ratio))
    if len(r.pairs) <= 40:  # the terminal lists every pair only when there are few
        _assert_in_every_view(views, expected)
    else:
        _assert_in_every_view({"html": views["html"]}, expected)
    _assert_one_bracket_style(views)
    # the page's model table: every score interval in the one bracket style
    rankings = r.rankings
    low, high = (
        ("score_low", "score_high") if "score_low" in rankings else ("ci_low", "ci_high")
    )
    intervals = [score_interval(a, b) for a, b in zip(rankings[low], rankings[high], strict=True)]
    _assert_in_every_view({"html": views["html"]}, intervals)


def test_ranks_views_agree(board):
    r = evalgap.ranks(board)
    views = _views(r, page=True)
    frame = r.ranks.sort_values(["task", "rank"]).head(40)
    expected = [format_score(v) for v in frame["score"]]
    expected += [format_score(v) for v in frame["se"]]
    _assert_in_every_view(views, expected)
    intervals = [
        score_interval(a, b) for a, b in zip(frame["score_low"], frame["score_high"], strict=True)
    ]
    _assert_in_every_view({"html": views["html"]}, intervals)
    _assert_one_bracket_style(views)


def test_card_views_agree(board):
    r = evalgap.card(board)
    views = _views(r, page=True)
    expected = []
    for t in r.tasks:
        for m in t.models:
            expected += [format_score(m.score), score_interval(m.score_low, m.score_high)]
        for p in t.pairs:
            expected += [
                format_points(p.delta),
                points_interval(p.delta_low, p.delta_high),
                format_p(p.p_value, bare=True),
                format_q(p.resolution_ratio),
            ]
    _assert_in_every_view(views, expected)
    _assert_one_bracket_style(views)
    # a p-value below the floor reads p<1e-15 in every view, never in scientific notation
    for name, text in views.items():
        assert not re.search(r"\d\.\d+e-(1[6-9]|[2-9]\d)", text), name


def test_intervals_share_one_bracket_style():
    assert score_interval(0.69431, 0.71066) == "[0.6943, 0.7107]"
    assert gap_interval(-0.0123, 0.04561) == "[-0.0123, +0.0456]"
    assert points_interval(0.0487, 0.0743) == "[+4.87, +7.43]"
    assert INTERVAL.fullmatch(score_interval(0.1, 0.2))
    assert format_p(1.06e-46) == "p<1e-15" and format_p(1.06e-46, bare=True) == "<1e-15"
    assert format_points(0.06149) == "+6.15" and format_gap(0.06149) == "+0.0615"
    assert format_q(None) == "\u2014" and format_q(12.4) == "12"
