"""``-`` names standard output for every output that is a text (``--markdown``, ``--html``,
``--output`` of a report or a table), as in any Unix tool, through the installed entry point.

That output then takes the report's place on standard output (the same bytes as the file
it would write; notes stay on stderr); ``-`` is refused with one line where standard output
already carries something (``--json``, a second ``-``) or where the output is a file read
back or binary (``--state``, ``--plot``, Parquet). No file named ``-`` is ever written.
"""

from __future__ import annotations

import pytest

from conftest import ROOT, run_entry_point

TWO_MODELS = ROOT / "examples" / "two_models.csv"
BOARD = ROOT / "examples" / "board.csv"
PILOT_RUNS = ROOT / "examples" / "pilot_runs.csv"
PLAIN_EVAL = ROOT / "tests" / "fixtures" / "frameworks" / "inspect" / "plain_eval"
COMPARE = ("compare", "--scores", TWO_MODELS, "--model-a", "model-x", "--model-b", "model-y",
           "--n-bootstrap", "0", "--n-bootstrap-required-n", "0")  # fmt: skip


@pytest.mark.parametrize(
    ("args", "flag", "name", "starts"),
    [
        (COMPARE, "--markdown", "report.md", "## evalgap compare\n"),
        (("card", "--scores", BOARD, "--n-bootstrap", "200", "--seed", "1"), "--output",
         "card.md", "## Leaderboard card\n"),
        (("audit", "--scores", BOARD, "--n-bootstrap", "0", "--n-rank-bootstrap", "0",
          "--n-bootstrap-required-n", "0"), "--output", "pairs.csv", "task,model_a,model_b,"),
        (("trim", "--scores", PILOT_RUNS, "--model", "model-x", "--run-column", "run"),
         "--output", "kept.csv",
         "task,item_id,correct_share"),
    ],
    ids=["compare --markdown", "card --output", "audit --output", "trim --output"],
)  # fmt: skip
def test_a_dash_prints_what_the_file_would_hold_in_place_of_the_report(
    tmp_path, args, flag, name, starts
):
    to_file = run_entry_point(*args, flag, tmp_path / name, cwd=tmp_path)
    piped = run_entry_point(*args, flag, "-", cwd=tmp_path)
    assert to_file.returncode == piped.returncode == 0, piped.stderr
    written = (tmp_path / name).read_text(encoding="utf-8")
    assert written.startswith(starts)
    assert piped.stdout.replace("\r\n", "\n") == written.replace("\r\n", "\n")
    assert "written to" not in piped.stderr  # no note about a file that is not there
    assert not (tmp_path / "-").exists()


def test_html_to_standard_output_is_the_page(tmp_path):
    args = ("ranks", "--scores", BOARD, "--n-bootstrap", "200", "--seed", "3")
    page = run_entry_point(*args, "--html", "-", cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>") and page.stdout.rstrip().endswith("</html>")
    assert "rank set" not in page.stdout.split("</html>")[-1]  # nothing printed after the page
    assert not (tmp_path / "-").exists()


def test_watch_markdown_dash_replaces_each_looks_terminal_report(tmp_path):
    look = run_entry_point(
        "watch", "--logs", PLAIN_EVAL, "--scorer", "match", "--once", "--markdown", "-",
        cwd=tmp_path,
    )  # fmt: skip
    assert look.returncode == 1, look.stderr  # undecided, as without --markdown
    assert look.stdout.startswith("## evalgap watch\n") and "32 new records" in look.stdout
    assert look.stdout.count("## evalgap watch") == 1 and "───" not in look.stdout
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((*COMPARE, "--markdown", "-", "--json"),
         "--markdown - writes to standard output, where --json prints its record; give "
         "--markdown a file name or leave out --json"),
        (("ranks", "--scores", BOARD, "--markdown", "-", "--html", "-"),
         "--html - and --markdown - both write to standard output; give one of them a file "
         "name"),
        (("simulate", "calibration", "--plot", "-"),
         "--plot -: writes a file, not standard output; give a file name"),
        (("store", "export", "s.duckdb", "--output", "-"),
         "--output -: writes a file, not standard output; give a file name"),
        (("watch", "--logs", PLAIN_EVAL, "--once", "--state", "-"),
         "--state -: writes a file, not standard output; give a file name"),
        (("watch", "--logs", PLAIN_EVAL, "--once", "--output", "-"),
         "--output -: writes a file, not standard output; give a file name"),
    ],
    ids=["with --json", "two dashes", "--plot", "parquet", "--state", "watch --output"],
)  # fmt: skip
def test_a_dash_where_standard_output_cannot_take_it_is_one_line(tmp_path, args, message):
    out = run_entry_point(*args, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"evalgap: error: {message}\n"
    assert not (tmp_path / "-").exists()
