"""--markdown: every job's report as GitHub-flavoured Markdown renders to HTML tables that
hold the terminal's numbers and sentences, with no ANSI codes, and no name can break them."""

from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

import evalgap

ROOT = Path(__file__).resolve().parents[2]
TWO = ROOT / "examples" / "two_models.csv"
JUDGED = ROOT / "examples" / "judged.csv"


class _Tables(HTMLParser):
    """The tables of an HTML page: a list of tables, each a list of rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _render(text: str) -> tuple[str, list[list[list[str]]]]:
    html = MarkdownIt("commonmark").enable("table").render(text)
    parser = _Tables()
    parser.feed(html)
    return html, parser.tables


def _board(n_models=4, n_items=300, seed=0):
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.5, 0.8, n_models)
    rows = [
        (f"m{k}", f"q{i}", float(rng.random() < skill[k]))
        for k in range(n_models)
        for i in range(n_items)
    ]
    return pd.DataFrame(rows, columns=["model", "item", "score"])


def _watch_logs(root: Path) -> Path:
    for model, rate in (("a", 0.9), ("b", 0.6)):
        folder = root / model
        folder.mkdir(parents=True)
        rng = np.random.default_rng(len(model))
        with open(folder / "samples_qa_2026-01-01T00-00-00.jsonl", "w") as out:
            for doc in range(200):
                acc = float(rng.random() < rate)
                out.write(json.dumps({"doc_id": doc, "acc": acc, "metrics": ["acc"]}) + "\n")
    return root


JOBS = {
    "compare": lambda t: evalgap.compare(TWO, model_a="model-x", model_b="model-y"),
    "compare-by": lambda t: evalgap.compare(
        _board().assign(task=lambda f: np.where(f["item"].str[-1] < "5", "t1", "t2")),
        model_a="m0",
        model_b="m1",
        by="task",
        task_column="task",
    ),
    "compare-gold": lambda t: evalgap.compare(
        JUDGED, model_a="model-x", model_b="model-y", gold_column="human", cost_judge=0.01
    ),
    "degrade": lambda t: evalgap.degrade(_board(2), baseline="m1", candidate="m0"),
    "audit": lambda t: evalgap.audit(_board(), n_bootstrap=0, n_bootstrap_required_n=0),
    "audit-gold": lambda t: evalgap.audit(JUDGED, gold_column="human"),
    "ranks": lambda t: evalgap.ranks(_board(), n_bootstrap=400),
    "watch": lambda t: evalgap.watch(_watch_logs(t / "logs"), pair=("a", "b")),
}


@pytest.mark.parametrize("job", list(JOBS))
def test_each_jobs_markdown_renders_its_tables_and_sentences(job, tmp_path):
    from evalgap.report import terminal

    result = JOBS[job](tmp_path)
    text = result.to_markdown()
    assert "\x1b[" not in text and text.startswith(f"## {type(result)._heading}\n")
    assert type(result)._heading.startswith("evalgap ")
    html, tables = _render(text)
    # the terminal's own view, printed as plain text: every table of it is a table here
    console = terminal.make_console(width=10_000)
    with console.capture() as captured:
        result._render(console)
    plain = captured.get()
    assert tables, html
    for rows in tables:
        widths = {len(row) for row in rows}
        assert len(widths) == 1, rows  # no row broken by a cell
    body = " ".join(" ".join(" ".join(row) for row in rows) for rows in tables)
    numbers = set(re.findall(r"[+-]?\d[\d,]*\.\d+", plain))
    shown = set(re.findall(r"[+-]?\d[\d,]*\.\d+", body + " " + re.sub("<[^>]+>", " ", html)))
    assert numbers <= shown, sorted(numbers - shown)[:10]
    verdict = getattr(result, "verdict", None)
    if verdict:
        words = unescape(re.sub("<[^>]+>", "", html))
        assert verdict[1:80] in " ".join(words.split())
    written = tmp_path / "report.md"
    assert result.to_markdown(written) == written.read_text()


def test_the_cli_writes_the_same_markdown_and_keeps_its_terminal_output(run_cli, tmp_path):
    args = ["compare", "--scores", TWO, "--model-a", "model-x", "--model-b", "model-y"]
    out = run_cli(*args, "--markdown", tmp_path / "c.md")
    assert out.returncode == 0 and "compare: model-x vs model-y" in out.stdout
    python = evalgap.compare(TWO, model_a="model-x", model_b="model-y").to_markdown()
    assert (tmp_path / "c.md").read_text() == python
    same = run_cli(*args, "--markdown", TWO)
    assert same.returncode == 2 and "--markdown" in same.stderr  # never over an input
    # a degraded gate writes its report before exiting 1
    _board(2).to_csv(tmp_path / "b.csv", index=False)
    gate = run_cli(
        "degrade",
        "--scores",
        tmp_path / "b.csv",
        "--baseline",
        "m1",
        "--candidate",
        "m0",
        "--fail-on-degradation",
        "--markdown",
        tmp_path / "d.md",
    )
    assert gate.returncode == 1 and "evalgap degrade" in (tmp_path / "d.md").read_text()
    for command, extra in (("audit", []), ("ranks", ["--n-bootstrap", "400"])):
        _board().to_csv(tmp_path / "board.csv", index=False)
        run = run_cli(
            command,
            "--scores",
            tmp_path / "board.csv",
            *extra,
            "--markdown",
            tmp_path / f"{command}.md",
        )
        assert run.returncode == 0 and (tmp_path / f"{command}.md").read_text().startswith(
            f"## evalgap {command}"
        )
    logs = _watch_logs(tmp_path / "logs")
    look = run_cli(
        "watch", "--logs", logs, "--pair", "a", "b", "--once", "--markdown", tmp_path / "w.md"
    )
    assert look.returncode in (0, 1) and "## evalgap watch" in (tmp_path / "w.md").read_text()


def test_hostile_names_cannot_break_a_table_or_inject_markup():
    hostile = "x | <script>alert(1)</script> **bold** [link](http://e.com)"
    frame = _board(2).replace({"model": {"m0": hostile}})
    r = evalgap.compare(frame, model_a=hostile, model_b="m1")
    html, tables = _render(r.to_markdown())
    assert "<script>" not in html and "<a href" not in html and "<strong>bold" not in html
    for rows in tables:
        assert len({len(row) for row in rows}) == 1
    assert hostile in unescape(re.sub("<[^>]+>", "", html))


def test_names_with_rich_markup_or_mentions_read_as_written():
    for name in ("gpt[v2]", "x[/]y", "@octocat", "fix #12"):
        frame = (
            _board(2)
            .replace({"model": {"m0": name}})
            .assign(task=lambda f: np.where(f["item"].str[-1] < "5", "t1", "t2"))
        )
        r = evalgap.compare(frame, model_a=name, model_b="m1", by="task", task_column="task")
        html, tables = _render(r.to_markdown())
        words = unescape(re.sub("<[^>]+>", "", html))
        assert name in words and r.verdict[:20] in " ".join(words.split())
        assert all(len({len(row) for row in rows}) == 1 for rows in tables)
        assert "<a " not in html
    text = evalgap.compare(
        _board(2).replace({"model": {"m0": "@octocat"}}), model_a="@octocat", model_b="m1"
    ).to_markdown()
    assert "@octocat" not in text and "&#64;octocat" in text  # no mention in a PR comment


def test_names_spelled_like_emoji_codes_read_as_written_in_every_view(run_cli, tmp_path):
    """Model names such as ``:smile:`` are names, not emoji: the terminal, the CLI's Markdown
    and the Python Markdown all print them as written (rich replaced them in Markdown)."""
    frame = _board(2).replace({"model": {"m0": ":smile:", "m1": "org:fire:"}})
    frame.to_csv(tmp_path / "b.csv", index=False)
    args = ["compare", "--scores", tmp_path / "b.csv", "--model-a", ":smile:"]
    out = run_cli(*args, "--model-b", "org:fire:", "--markdown", tmp_path / "c.md")
    written = (tmp_path / "c.md").read_text()
    python = evalgap.compare(frame, model_a=":smile:", model_b="org:fire:").to_markdown()
    assert out.returncode == 0 and "compare: :smile: vs org:fire:" in out.stdout
    assert written == python and "compare: :smile: vs org:fire:" in written
    assert not re.search("[\U0001f300-\U0001faff]", written)
