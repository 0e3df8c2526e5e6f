"""One look, one story: ``watch``'s terminal report, ``--markdown`` (a file or ``-``),
``--json`` and the Python status say the same counts, and its N* at a fixed n is compare's.

Each view formats the one ``WatchStatus``: the records the look read, the further items by the
watch's anytime-valid rule (flagged when the task cannot supply them), and N* at a fixed n,
computed as ``evalgap compare`` computes it on the same items. Once a view printed "0 new
records" where another said 32, and "infinite" more items where a note said about 3,570.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import evalgap

from conftest import ROOT, run_entry_point

PLAIN_EVAL = ROOT / "tests" / "fixtures" / "frameworks" / "inspect" / "plain_eval"
PAIR = ("mockllm/alpha", "mockllm/beta")


def _row(markdown: str) -> dict[str, str]:
    """The pair table's one row of a watch report in Markdown, by column header."""
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split(" | ")]
    cells = [c.strip() for c in lines[2].strip("|").split(" | ")]
    return dict(zip(header, cells, strict=True))


def _terminal_row(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.lstrip().startswith("arith"))
    return re.split(r"\s{2,}", line.strip())


def test_every_view_of_a_look_says_the_same_counts(tmp_path):
    """The bundled inspect logs (16 items, unresolved): the terminal, --markdown FILE,
    --markdown -, --json and Python agree on 32 new records, the further items, the
    task's flag and N*; the numbers are compare's where they are compare's."""
    report = tmp_path / "look.md"
    flags = ("watch", "--logs", PLAIN_EVAL, "--scorer", "match", "--once")
    terminal = run_entry_point(*flags, "--markdown", report)
    piped = run_entry_point(*flags, "--markdown", "-")
    record = run_entry_point(*flags, "--json")
    assert (terminal.returncode, piped.returncode, record.returncode) == (1, 1, 1)
    data = json.loads(record.stdout)
    status = evalgap.watch(PLAIN_EVAL, scorer="match")
    pair = data["pairs"][0]
    row = status.pairs.iloc[0]

    # the records read: one count in every view
    assert data["new_records"] == status.new_records == 32
    assert "32 new records" in terminal.stdout
    for markdown in (report.read_text(), piped.stdout):
        assert "**" in markdown and "32 new records" in markdown
        assert "0 new records" not in markdown

    # the further items: finite, flagged against the task's 16 items, the same everywhere
    further = int(row["further_items"])
    assert pair["further_items"] == further and further > 1_000
    assert pair["exceeds_task"] is True and bool(row["exceeds_task"])
    assert pair["task_items"] == 16 and pair["further_cost"] is None
    shown = f"{further:,} (task has 16)"
    for markdown in (report.read_text(), piped.stdout):
        cells = _row(markdown)
        assert cells["more items (anytime-valid)"] == shown
        assert cells["N\\* (fixed n)"] == "1,374"
        assert cells["items"] == "16" and cells["decided"] == "no"
    assert _terminal_row(terminal.stdout)[-2:] == [shown, "1,374"]
    clock = re.compile(r"\d\d:\d\d:\d\d")  # the time of each look
    assert clock.sub("", piped.stdout) == clock.sub("", report.read_text())
    assert "evalgap watch" not in terminal.stdout  # the terminal report is not the Markdown

    # the note and the sentence quote the table's numbers, labelled
    note = next(n for n in data["notes"] if "cannot be decided" in n)
    assert f"needs about {further:,} more ({further + 16:,} in all" in note
    assert "anytime-valid" in note and "N*, would need 1,374" in note
    assert f"note: {note}" in terminal.stdout
    assert f"would need about {further:,} more, anytime-valid" in data["verdict"]
    assert data["verdict"] == status.verdict

    # N* at a fixed n is compare's on the same logs (the watch's rule needs more)
    compared = evalgap.compare(
        scores=str(PLAIN_EVAL), model_a=PAIR[0], model_b=PAIR[1],
        options=evalgap.LoadOptions(scorer="match"), n_bootstrap=0, n_bootstrap_required_n=0,
    )  # fmt: skip
    assert compared.required_n == pair["required_n"] == int(row["required_n"]) == 1374
    assert compared.n_items == pair["n_items"] == 16 and compared.delta == pair["delta"]
    assert further + 16 > compared.required_n


def _board_logs(root, n_items: int, shares: tuple[float, float], graded: bool = False):
    """lm-eval logs of two models with no results file (the task's size unknown)."""
    rng = np.random.default_rng(7)
    for model, share in zip(("a", "b"), shares, strict=True):
        folder = root / model
        folder.mkdir(parents=True)
        if graded:
            scores = np.clip(rng.normal(share, 0.25, n_items), 0, 1).round(3)
        else:
            scores = (rng.random(n_items) < share).astype(float)
        lines = [json.dumps({"doc_id": i, "acc": float(s)}) for i, s in enumerate(scores)]
        (folder / "samples_qa_2026-01-01T00-00-00.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
def test_the_watch_n_star_is_compare_n_star_and_the_sentence_reads_the_table(tmp_path, graded):
    logs = _board_logs(tmp_path / "logs", 300, (0.6, 0.57), graded=graded)
    status = evalgap.watch(logs, pair=("a", "b"))
    row = status.pairs.iloc[0]
    scores = evalgap.load_scores([str(logs)])
    compared = evalgap.compare(
        scores=scores, model_a="a", model_b="b", n_bootstrap=0, n_bootstrap_required_n=0,
        n_permutations=0,
    )  # fmt: skip
    assert compared.n_items == int(row["n_items"]) == 300
    assert compared.required_n == int(row["required_n"])
    assert not row["decided"] and not row["exceeds_task"]
    further = int(row["further_items"])
    assert 300 + further > compared.required_n  # anytime-valid costs more than fixed n
    assert f"needs about {further:,} more items at the current estimates (anytime-valid)" in (
        status.verdict
    )
    markdown = status.to_markdown()
    assert _row(markdown)["more items (anytime-valid)"] == f"{further:,}"
    assert _row(markdown)["N\\* (fixed n)"] == f"{compared.required_n:,}"
    assert status.new_records == 600 and "600 new records" in markdown
