"""One-line usage errors that point at the help of the command actually typed."""

from __future__ import annotations

import pytest

from evalgap.cli import main


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["simulate", "sequential", "--bogus"], "(see 'evalgap simulate sequential --help')"),
        (["compare", "--bogus"], "No such option '--bogus' (see 'evalgap compare --help')"),
        (["--bogus"], "(see 'evalgap --help')"),
        (["bogus"], "No such command 'bogus' (see 'evalgap --help')"),
    ],
)
def test_usage_errors_name_the_command_path(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalgap: error: ") and err.count("\n") == 1
    assert expected in err


def test_table_column_options_on_framework_logs_are_said_to_be_unused(capsys):
    """--run-column on lm-eval logs was ignored without a word; now the notes say so."""
    import json

    from conftest import shared_file

    logs = shared_file("format_fixtures", "lm_eval")
    assert main(["inspect-data", "--scores", str(logs), "--run-column", "run", "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert (
        "--run-column names columns of score tables; the lm-eval logs were read with their "
        "own fields, so it was not used" in notes
    )


def test_graded_bootstrap_p_shows_its_monte_carlo_error(tmp_path, capsys):
    path = tmp_path / "graded.csv"
    a = [0.2, 0.5, 0.9, 0.4, 0.7, 0.1, 0.33, 0.8]
    b = [0.1, 0.55, 0.6, 0.3, 0.72, 0.05, 0.3, 0.6]
    rows = [f"a,{i},{x}" for i, x in enumerate(a)] + [f"b,{i},{x}" for i, x in enumerate(b)]
    path.write_text("model,item_id,score\n" + "\n".join(rows) + "\n")
    assert main(["compare", "--scores", str(path), "--model-a", "a", "--model-b", "b"]) == 0
    out = capsys.readouterr().out
    # B = 10,000 draws at p = 0.01: sqrt(0.01 * 0.99 / 10,000) = 0.001 (two tails: ~0.0014)
    assert "(MC se 0.0014)" in out


def test_a_header_opened_by_a_stray_quote_gives_a_one_line_error(tmp_path, capsys):
    """Found by the fuzz test: '"model,...' makes the whole file one quoted header cell, and
    the list of columns found printed the file's lines into the message."""
    path = tmp_path / "s.csv"
    path.write_text('"model,task,item_id,score\na,t,1,1.0\nb,t,1,0.0\n')
    assert main(["inspect-data", "--scores", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot find the model column" in err
    assert "(columns found: model,task,item_id,score\\na,t,1,1.0\\nb,\u2026)" in err


def test_too_few_items_is_said_in_the_test_table_too(capsys):
    """4 discordant items: chi-square p = 0.046 < 0.05, but no valid test can reject below 6
    differing items at alpha 0.05; the table must not say 'reject' beside the verdict."""
    argv = [
        "compare",
        "--both-correct",
        "10",
        "--a-only",
        "4",
        "--b-only",
        "0",
        "--both-wrong",
        "3",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "reject  │" not in out
    assert "McNemar chi-square" in out and "0.046 │ too few items │" in out
