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

from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.jobs.audit import audit_counts, audit_scores
from evalgap.report import html as html_report
from evalgap.report.text import clean, markup, number, plural, score_interval

from conftest import EVALGAP
from synthetic import clustered_board, table_7

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
    # every number in a row is whole: delta, its interval, N*, q parse back as numbers
    for line in rows:
        fields = line.split()
        assert re.fullmatch(r"[+-]?\d\.\d{4}|0\.0000", fields[2])
        assert re.fullmatch(r"\[[+-]?\d\.\d{4},", fields[3])
        assert re.fullmatch(r"[+-]?\d\.\d{4}\]", fields[4])
        assert re.fullmatch(r"[\d,]+|infinite", fields[5])
    assert max(len(line) for line in out.splitlines()) > 80


def test_width_option_shortens_names_with_a_legend(tmp_path, capsys):
    names = [f"{LONG}-{k}" for k in range(3)]
    path = scores_file(tmp_path, names)
    code, out, _ = cli(capsys, "--width", "120", "audit", "--scores", path, "--n-bootstrap", "0")
    assert code == 0
    assert "\u2026" in out and "full names:" in out
    legend = out[out.index("full names:") :]
    for name in names:
        assert f"= {name}" in legend  # every shortened name is listed in full
    table = out[out.index("pairs") : out.index("full names:")]
    assert all(len(line) <= 120 for line in table.splitlines())


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
    for section in ("models", "verdicts", "chains", "tiers", "pairs", "figures", "provenance"):
        assert f"id='{section}'" in text


@pytest.fixture(scope="module")
def small_audit():
    return audit_scores(align(clustered_board(n_items=600)), n_cluster_bootstrap=0, seed=1)


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
        score_low=result.rankings["score"] - 0.02,
        score_high=result.rankings["score"] + 0.02,
    )
    from dataclasses import replace

    text = html_report.audit_report(replace(result, rankings=rankings))
    # the one bracket style of a score's interval, as ranks and card print it
    assert score_interval(rankings["score_low"].iloc[0], rankings["score_high"].iloc[0]) in text
    assert "<td class=''>12</td>" in text and "1 model lack items" in text


@pytest.fixture(scope="module")
def all_pairs_audit():
    frame = clustered_board(n_items=300, accuracies=tuple(np.linspace(0.8, 0.5, 14)), seed=2)
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
    frame = clustered_board(n_items=400, accuracies=tuple(np.linspace(0.8, 0.5, 6)), seed=4)
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
    assert header.split() == [
        *("A", "B", "delta", "95%", "CI", "N*", "q", "fix", "bon", "hol", "bh", "any")
    ]
    rows = [line for line in out.splitlines() if re.search(r"\d\.\d{4}\s", line)]
    assert len(rows) == 2 and all(len(row.split()) == 12 for row in rows)
    # the one column other views also give (items to flip) is left out, saying where it is
    assert "(too wide for this terminal)" in " ".join(out.split())


def test_pair_table_says_how_many_rows_it_shows(capsys):
    from evalgap.report.terminal import make_console, render_audit

    frame = clustered_board(n_items=200, accuracies=tuple(np.linspace(0.70, 0.60, 48)), seed=5)
    result = audit_scores(align(frame), n_cluster_bootstrap=0, n_bootstrap=0, seed=5)
    unresolved = int((~result.to_frame()["resolved_fixed_n"]).sum())
    assert unresolved > 40
    render_audit(result, make_console())
    out = capsys.readouterr().out
    title = f"pairs unresolved at fixed n: the first 40 of {unresolved} (of 47 adjacent pairs;"
    assert title in out
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
    assert text.count("<tr><td class='name'>") == 20  # the pair table and its more-columns table
    assert "The charts draw a random sample (seed 0) of 20 of the 91 pairs." in text
    assert "Showing the top 5 of 14 models by rank." in text


# --- one audit, one story: tiers, chains and the sentence on every output ----------------------


def _html_text(page: str) -> str:
    """The page's visible text, tags dropped and entities decoded, spaces collapsed."""
    import html

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_audit_sentence_is_one_string_in_terminal_json_and_html(capsys):
    """The terminal printed its own sentence ("1 of 2 adjacent pairs are unresolved ...")
    and the JSON another ("1 of 2 displayed pairs is ..."): now r.verdict, everywhere."""
    import json

    from evalgap.report.json_output import to_json
    from evalgap.report.terminal import make_console, render_audit

    table = pd.DataFrame(
        {"model_a": ["x", "y"], "model_b": ["y", "z"], "both_correct": [7986, 7000],
         "a_only": [295, 900], "b_only": [249, 300], "both_wrong": [1512, 1842]}
    )  # fmt: skip
    r = audit_counts(table, n_bootstrap=0, n_bootstrap_required_n=0)
    assert r.verdict.startswith("1 of 2 adjacent pairs is unresolved at alpha=0.05")
    render_audit(r, make_console())
    terminal = capsys.readouterr().out.strip().splitlines()[-1]
    page = html_report.audit_report(r)
    summary = re.search(r"<p class='summary'>(.*?)</p>", page).group(1)
    assert terminal == r.verdict == json.loads(to_json(r))["verdict"]
    assert _html_text(summary) == r.verdict


def test_tiers_and_chains_read_the_same_in_terminal_json_and_html(capsys):
    import json

    import evalgap
    from evalgap.report.json_output import to_json
    from evalgap.report.terminal import make_console, render_audit

    from synthetic import two_model_board

    r = evalgap.audit(two_model_board(), n_bootstrap=0, n_bootstrap_required_n=0, seed=0)
    method = "95% simultaneous rank sets (max-t stepdown bootstrap, B=1,000)"
    data = json.loads(to_json(r))
    assert data["tiers"] == {"all": [["a"], ["b"]]} and data["tier_method"] == method
    assert data["chains"] == {"all": [["a", "b"]]}
    render_audit(r, make_console())
    out = capsys.readouterr().out
    assert f"tiers, from {method}:" in out and "all: tier 1: a; tier 2: b" in out
    assert "unresolved chains (fixed n, all): ranks 1-2: a, b" in out
    assert "tied tiers" not in out
    text = _html_text(html_report.audit_report(r))
    assert f"Tiers from {method}." in text
    assert "all 1 1–1 1 a" in text and "all 2 2–2 1 b" in text  # the tiers table
    assert "all chain 1 1–2 2 a, b" in text  # the chains table, never "group"
    assert "group 1" not in text and "Unresolved chains (Fixed n)" in text


def test_audit_page_uses_q_not_r_and_says_what_unresolved_means():
    r = audit_scores(
        align(clustered_board(n_items=800)), n_bootstrap=0, n_bootstrap_required_n=0,
        n_rank_bootstrap=0, n_cluster_bootstrap=0,
    )  # fmt: skip
    page = html_report.audit_report(r)
    text = _html_text(page)
    assert "r = N*/N" not in text and "N*/N" not in text.replace("q = N/N*", "")
    assert "q = N/N* per pair on a log scale" in text  # the caption, and the chart's axis:
    assert ">q = N/N*</text>" in page and ">r = N*/N</text>" not in page
    assert "tied" not in text.lower()
    assert "cannot tell the two models apart, which does not mean they are equal" in text
    # headings name the family: no bare "all"
    assert "<h2 id='pairs'>Adjacent pairs</h2>" in page
    assert "Adjacent pairs by gap size" in text and "total (adjacent pairs)" in text
    binned = r.binned_table().set_index("bucket")
    q = r.to_frame()["resolution_ratio"]
    assert binned.loc["total", "q_median"] == pytest.approx(q.median())
    assert binned.loc["total", "q_smallest"] == pytest.approx(q.min())
    all_pairs = audit_scores(
        align(clustered_board(n_items=800)), family="all", n_bootstrap=0, n_bootstrap_required_n=0,
        n_rank_bootstrap=0, n_cluster_bootstrap=0,
    )  # fmt: skip
    page = html_report.audit_report(all_pairs)
    assert "<h2 id='pairs'>All pairs</h2>" in page and "All 10 pairs on 1 task" in page


def test_audit_pair_table_fits_with_the_gap_interval_and_the_rest_behind_details():
    r = audit_scores(
        align(clustered_board(n_items=800)), n_bootstrap=0, n_bootstrap_required_n=0,
        n_rank_bootstrap=0, n_cluster_bootstrap=0,
    )  # fmt: skip
    page = html_report.audit_report(r)
    start = page.index("<table class='pairs'>")
    main = page[start : page.index("</table>", start)]
    head = main[: main.index("</thead>")]
    # names, the verdicts, delta, its interval, N, N*, q and the exact p: 15 columns, not 21
    cells = len(re.findall(r"<th[ >]", head))
    assert cells - 1 == 2 + len(r.procedures) + 6  # minus the "Resolved under" group cell
    assert "Δ interval" in head and "p exact" in head and "p mid-p" not in head
    row = r.to_frame().iloc[0]
    shown = f"[{number(row.delta_low, '+.4f')}, {number(row.delta_high, '+.4f')}]"
    assert shown in main
    assert "<details><summary>More columns per pair" in page and "p mid-p" in page


def test_audit_terminal_report_of_200k_character_names_is_linear(capsys):
    """Names of 200,000 characters took over 300 s: Rich's highlighter ran its regular
    expressions (quadratic on such a run of characters) over every line holding a name.
    Nothing is highlighted now, names are shortened for display (head…tail #digest), and
    the JSON keeps them whole. At this size the quadratic step takes minutes."""
    from evalgap.report.json_output import to_json
    from evalgap.report.terminal import make_console, render_audit
    from evalgap.report.text import MAX_DISPLAY_NAME, display_name

    long_a, long_b = "a" * 200_000, "a" * 199_999 + "b"
    frame = clustered_board(n_items=300, accuracies=(0.7, 0.6, 0.5))
    frame["model"] = frame["model"].map({"m0": long_a, "m1": long_b, "m2": "short"})
    r = audit_scores(align(frame), n_bootstrap=0, n_bootstrap_required_n=0)
    render_audit(r, make_console())
    out = capsys.readouterr().out
    assert long_a[:1000] not in out
    shown_a, shown_b = display_name(long_a), display_name(long_b)
    assert len(shown_a) == MAX_DISPLAY_NAME and shown_a != shown_b  # still told apart
    assert shown_a in out and shown_b in out
    assert f"names longer than {MAX_DISPLAY_NAME} characters are shortened" in out
    assert long_a in to_json(r) and long_b in to_json(r)
    # the --width path (table fitting) gets the shortened names too
    render_audit(r, make_console(width=100))
    assert long_a[:1000] not in capsys.readouterr().out


def test_audit_page_of_long_names_draws_short_labels():
    """Figures laid out every label in full (names of 20,000 characters: 22 s, growing with
    the length): labels are shortened as in the terminal; tables keep the full names."""
    from evalgap.report.text import display_name

    long_a, long_b = "a" * 50_000, "a" * 49_999 + "b"
    frame = clustered_board(n_items=300, accuracies=(0.7, 0.6, 0.5))
    frame["model"] = frame["model"].map({"m0": long_a, "m1": long_b, "m2": "short"})
    frame["task"] = "t" * 50_000
    r = audit_scores(
        align(frame), n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0
    )
    page = html_report.audit_report(r)
    svgs = "".join(re.findall(r"<svg.*?</svg>", page, re.S))
    assert svgs and long_a[:1000] not in svgs and "t" * 1000 not in svgs
    assert display_name(long_a) in svgs and display_name("t" * 50_000) in svgs
    assert f">{long_a}<" in page.replace("<wbr>", "")  # the tables name it in full


def test_counts_audit_says_it_has_no_tiers_and_why_on_every_output(capsys):
    from evalgap.report.terminal import make_console, render_audit

    r = audit_counts(table_7(), n_bootstrap=0, n_bootstrap_required_n=0)
    why = "no tiers: rank sets need per-item scores, and pair counts have none"
    assert r.tier_method == why and r.to_dict()["tiers"] is None
    page = html_report.audit_report(r)
    assert page.count("<p class='note'>No tiers: rank sets need per-item scores") == 1
    assert "<p>No tiers: rank sets need per-item scores, and pair counts have none.</p>" in page
    render_audit(r, make_console())
    assert f"\n{why}\n" in capsys.readouterr().out


def test_the_audit_shows_its_items_to_flip_in_every_view(small_audit, capsys):
    # the terminal's flip column and the HTML's columns are the to_frame()/JSON counts
    from evalgap.report.html import audit_report
    from evalgap.report.terminal import make_console, render_audit

    frame = small_audit.to_frame()
    assert "items_to_flip_resolution" in frame.columns
    render_audit(small_audit, make_console())
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.lstrip().startswith("A "))
    assert header.split()[-1] == "flip"
    shown = [line.split()[-1] for line in out.splitlines() if re.search(r"\d\.\d{4}\s", line)]
    counts = frame["items_to_flip_resolution"]
    want = ["-" if v != v or v is None else f"{int(v):,}" for v in counts]
    assert shown == want[: len(shown)] and shown
    page = audit_report(small_audit)
    for test in ("exact test", "resolved (fixed n)", "resolved (Holm)"):
        assert f"Items to flip: {test}" in page
