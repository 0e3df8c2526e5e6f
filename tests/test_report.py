"""Presentation: terminal width, the HTML report's content, atomic writing, figures.

Terminal tests run in-process (stdout captured, so not a terminal) with COLUMNS unset, and
once through a real pipe in a subprocess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from evalgap._audit import audit_counts, audit_scores
from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.report import html as html_report
from evalgap.report.text import clean, markup, number, plural

from test_audit import leaderboard, table_7
from test_cli import EVALGAP

LONG = "organisation-name/Some-Very-Long-Model-Name-70B-Instruct-v0.3_5shots"


@pytest.fixture(autouse=True)
def no_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


def scores_file(tmp_path, names, *, n_items=400, graded=False, seed=0, tasks=("all",)):
    rng = np.random.default_rng(seed)
    rows = []
    for task in tasks:
        latent = rng.normal(size=n_items)
        for k, name in enumerate(names):
            signal = latent + rng.normal(size=n_items) + 0.15 * k
            if graded:
                values = 1 / (1 + np.exp(-signal))
            else:
                values = (signal > 0).astype(int)
            rows += [(name, task, f"q{i}", v) for i, v in enumerate(values)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "score"]).to_csv(path, index=False)
    return path


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


# --- the text helpers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "spec", "expected"),
    [
        (-0.00001, "+.4f", "0.0000"),
        (-0.0, ".2f", "0.00"),
        (0.0, "+.4f", "0.0000"),
        (-0.5, "+.2f", "-0.50"),
        (0.012, "+.4f", "+0.0120"),
        (-1e-9, ".2e", "-1.00e-09"),
        (float("nan"), ".3f", "\u2014"),
        (float("inf"), ".3f", "infinite"),
    ],
)
def test_number_never_prints_negative_zero(value, spec, expected):
    assert number(value, spec) == expected


def test_plural_and_clean():
    assert (plural(1, "task"), plural(2, "task"), plural(1032, "item")) == (
        "1 task",
        "2 tasks",
        "1,032 items",
    )
    shown = "a\u241b[2J\u2407\u240d\u240a\u2409\ufffd\ufffdb"
    assert clean("a\x1b[2J\x07\r\n\t\x9b\u202eb") == shown
    assert clean("line\nnext\tcol", keep_layout=True) == "line\nnext\tcol"
    assert markup("[/bold]") == "\\[/bold]"
    # a trailing backslash must not escape the closing tag of the template around it
    from io import StringIO

    from rich.console import Console

    buffer = StringIO()
    Console(file=buffer, width=200).print(f"[dim]{markup('model' + chr(92))}[/] next")
    assert buffer.getvalue() == "model\\ next\n"


# --- terminal width ---------------------------------------------------------------------------


def test_audit_off_a_terminal_keeps_names_and_numbers_whole(tmp_path, capsys):
    names = [f"{LONG}-{k}" for k in range(4)]
    path = scores_file(tmp_path, names)
    code, out, _ = cli(capsys, "audit", "--scores", path, "--n-bootstrap", "0")
    assert code == 0
    # each pair row carries both full names on one line (no 80-column folding)
    rows = [line for line in out.splitlines() if line.count(LONG) == 2]
    assert len(rows) == 3
    assert "\u2026" not in out and "full names:" not in out
    # every number in a row is whole: delta, N*, q parse back as numbers
    for line in rows:
        fields = line.split()
        assert re.fullmatch(r"[+-]?\d\.\d{4}|0\.0000", fields[2])
        assert re.fullmatch(r"[\d,]+|infinite", fields[3])
    assert max(len(line) for line in out.splitlines()) > 80


def test_width_option_shortens_names_with_a_legend(tmp_path, capsys):
    names = [f"{LONG}-{k}" for k in range(3)]
    path = scores_file(tmp_path, names)
    code, out, _ = cli(capsys, "--width", "100", "audit", "--scores", path, "--n-bootstrap", "0")
    assert code == 0
    assert "\u2026" in out and "full names:" in out
    legend = out[out.index("full names:") :]
    for name in names:
        assert f"= {name}" in legend  # every shortened name is listed in full
    table = out[out.index("pairs") : out.index("full names:")]
    assert all(len(line) <= 100 for line in table.splitlines())


def test_compare_p_values_are_whole_off_a_terminal(tmp_path, capsys):
    path = scores_file(tmp_path, [LONG + "-a", LONG + "-b"], n_items=3000)
    code, out, _ = cli(
        capsys, "compare", "--scores", path, "--model-a", LONG + "-a", "--model-b", LONG + "-b"
    )
    assert code == 0
    assert f"compare: {LONG}-a vs {LONG}-b" in out  # the title on one line
    assert "..." not in out and "\u2026" not in out
    p_column = [line for line in out.splitlines() if line.startswith("│ McNemar chi-square")]
    assert p_column and re.search(r"│\s+(\d\.\d+e-\d+|\d\.\d+)\s+│", p_column[0])


def test_audit_through_a_pipe_in_a_subprocess(tmp_path):
    if not EVALGAP.exists():
        pytest.skip("the evalgap entry point is not installed")
    names = [f"{LONG}-{k}" for k in range(3)]
    path = scores_file(tmp_path, names)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    out = subprocess.run(
        [str(EVALGAP), "audit", "--scores", str(path), "--n-bootstrap", "0"],
        capture_output=True,  # stdout is a pipe, not a terminal
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert len([line for line in out.stdout.splitlines() if line.count(LONG) == 2]) == 2
    assert "\u2026" not in out.stdout


# --- the HTML report -------------------------------------------------------------------------


def test_graded_audit_gives_the_full_report(tmp_path, capsys):
    path = scores_file(tmp_path, ["judge-a", "judge-b", "judge-c"], graded=True)
    report = tmp_path / "graded.html"
    code, _, err = cli(capsys, "audit", "--scores", path, "--n-bootstrap", "0", "--html", report)
    assert code == 0, err
    text = report.read_text(encoding="utf-8")
    assert text.rstrip().endswith("</html>")
    assert "Does not apply: the e-process is defined for binary (0/1) scores" in text
    assert "n/a for graded pairs" in text and "A higher" in text
    for section in ("models", "verdicts", "ties", "pairs", "figures", "provenance"):
        assert f"id='{section}'" in text


@pytest.fixture(scope="module")
def small_audit():
    return audit_scores(align(leaderboard(n_items=600)), n_cluster_bootstrap=0, seed=1)


def test_report_leads_with_models_and_names_no_json_keys(small_audit):
    text = html_report.audit_report(small_audit)
    assert text.index("id='models'") < text.index("id='verdicts'")
    headers = re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", text)
    assert "Items scored" in headers and "Items missing" in headers and "Rank" in headers
    for key in ("model_a", "resolution_ratio", "required_n", "p_exact", "fixed_n"):
        assert key not in headers
    assert "{" not in re.sub(r"<style>.*?</style>|<svg.*?</svg>", "", text, flags=re.S)
    assert "<script" not in text


def test_rankings_columns_from_the_lead_are_shown_when_present(small_audit):
    result = small_audit
    rankings = result.rankings.assign(
        items_missing=[0, 12, 0, 0, 0],
        ci_low=result.rankings["displayed_accuracy"] - 0.02,
        ci_high=result.rankings["displayed_accuracy"] + 0.02,
    )
    from dataclasses import replace

    text = html_report.audit_report(replace(result, rankings=rankings))
    low = number(rankings["ci_low"].iloc[0], ".4f")
    assert f"{low} – " in text
    assert "<td class=''>12</td>" in text and "1 model lack items" in text


@pytest.fixture(scope="module")
def all_pairs_audit():
    frame = leaderboard(n_items=300, accuracies=tuple(np.linspace(0.8, 0.5, 14)), seed=2)
    return audit_scores(align(frame), family="all", n_cluster_bootstrap=0, n_bootstrap=0, seed=2)


def test_charts_say_how_many_pairs_they_show(all_pairs_audit):
    result = all_pairs_audit
    assert len(result.pairs) == 91  # more than the 60 labelled bars the old chart stopped at
    text = html_report.audit_report(result)
    finite = int(np.isfinite(1 / result.to_frame()["resolution_ratio"].astype(float)).sum())
    if finite == 91:
        assert "All 91 pairs are shown." in text
    else:
        assert f"Showing {finite} of 91 pairs." in text
    assert "id='heatmap'" in text


def test_provenance_from_the_cli(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    path = scores_file(tmp_path, ["m1", "m2", "m3"])
    report = tmp_path / "r.html"
    code, _, _ = cli(
        capsys, "audit", "--scores", path, "--n-bootstrap", "0", "--alpha", "0.01", "--html", report
    )
    assert code == 0
    text = report.read_text(encoding="utf-8")
    from evalgap import __version__

    assert str(path) in text and __version__ in text and "2023-11-14 22:13 UTC" in text
    assert "<td class='text'>--alpha</td><td class='text'>0.01</td>" in text


def test_report_is_written_atomically(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("old report")

    def broken(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html_report.os, "replace", broken)
    with pytest.raises(InputError, match=r"cannot write the report \(No space left on device\)"):
        html_report.write_report(target, "<html>new</html>")
    assert target.read_text() == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


def test_unwritable_report_names_the_reason(tmp_path, capsys):
    path = scores_file(tmp_path, ["m1", "m2"])
    code, _, err = cli(capsys, "audit", "--scores", path, "--html", tmp_path / "missing" / "r.html")
    assert code == 2
    assert f"the folder {tmp_path / 'missing'} does not exist" in err and "None" not in err


def test_failed_report_leaves_no_file(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise InputError("boom")

    monkeypatch.setattr(html_report, "audit_report", broken)
    path = scores_file(tmp_path, ["m1", "m2"])
    code, _, _ = cli(capsys, "audit", "--scores", path, "--html", tmp_path / "r.html")
    assert code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv"]


def test_counts_report_without_per_item_data():
    text = html_report.audit_report(audit_counts(table_7()))
    assert "rank 5" in text and text.count("<svg") == 3


# --- figures ---------------------------------------------------------------------------------


def test_figures_raise_no_library_warning():
    frame = leaderboard(n_items=400, accuracies=tuple(np.linspace(0.8, 0.5, 6)), seed=4)
    frame["model"] = frame["model"].map(lambda m: f"{LONG}-{m}-$x^2$")
    result = audit_scores(align(frame), n_cluster_bootstrap=20, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = html_report.audit_report(result)
    assert f"{LONG}-m0-$x^2$" in text  # the name is drawn literally, not as mathtext


def test_importing_the_report_leaves_matplotlib_alone():
    code = (
        "import matplotlib; matplotlib.use('svg'); import sys\n"
        "import evalgap.report.html, evalgap.report.plots\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
        "assert matplotlib.rcParams['svg.fonttype'] == 'path'\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_too_narrow_width_wraps_rows_instead_of_dropping_columns(tmp_path, capsys):
    names = [f"{LONG}-{k}" for k in range(3)]
    path = scores_file(tmp_path, names)
    code, out, _ = cli(capsys, "--width", "40", "audit", "--scores", path, "--n-bootstrap", "0")
    assert code == 0
    header = next(line for line in out.splitlines() if line.lstrip().startswith("A "))
    assert header.split() == ["A", "B", "delta", "N*", "q", "fix", "bon", "hol", "bh", "any"]
    rows = [line for line in out.splitlines() if re.search(r"\d\.\d{4}\s", line)]
    assert len(rows) == 2 and all(len(row.split()) == 10 for row in rows)


def test_pair_table_says_how_many_rows_it_shows(capsys):
    from evalgap.report.terminal import make_console, render_audit

    frame = leaderboard(n_items=200, accuracies=tuple(np.linspace(0.70, 0.60, 48)), seed=5)
    result = audit_scores(align(frame), n_cluster_bootstrap=0, n_bootstrap=0, seed=5)
    unresolved = int((~result.to_frame()["resolved_fixed_n"]).sum())
    assert unresolved > 40
    render_audit(result, make_console())
    out = capsys.readouterr().out
    assert f"pairs unresolved at fixed n: the first 40 of {unresolved} (47 pairs in all;" in out
    assert len([line for line in out.splitlines() if re.match(r"\s*m\d+\s+m\d+\s", line)]) == 40


def test_terminal_names_models_that_lack_items(small_audit, capsys):
    from dataclasses import replace

    from evalgap.report.terminal import make_console, render_audit

    rankings = small_audit.rankings.assign(items_missing=[0, 1681, 0, 7, 0])
    render_audit(replace(small_audit, rankings=rankings), make_console())
    out = capsys.readouterr().out
    lacking = f"{rankings.model[1]} 1,681, {rankings.model[3]} 7"
    assert f"items missing (2 models; each pair uses the items both scored): {lacking}\n" in out


def test_large_audits_say_what_the_page_leaves_out(all_pairs_audit, monkeypatch):
    monkeypatch.setattr(html_report, "MAX_TABLE_PAIRS", 10)
    monkeypatch.setattr(html_report, "MAX_DRAWN_PAIRS", 20)
    monkeypatch.setattr(html_report, "MAX_FOREST_MODELS", 5)
    text = html_report.audit_report(all_pairs_audit)
    assert "Showing the first 10 of 91 pairs (in rank order)" in text
    assert text.count("<tr><td class='name'>") == 10
    assert "The charts draw a random sample (seed 0) of 20 of the 91 pairs." in text
    assert "Showing the top 5 of 14 models by rank." in text
