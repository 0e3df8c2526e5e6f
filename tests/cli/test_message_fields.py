"""Messages that once wrote their parameter as plain ``name=`` text: the command line now shows
the invoked command's own flag, Python the keyword, and the Python text is what it was."""

from __future__ import annotations

import re
import shutil

import pytest
from click.testing import CliRunner

import evalgap
from evalgap.cli import cli
from evalgap.errors import InputError
from evalgap.io.options import LoadOptions

from conftest import ROOT

TWO_MODELS = ROOT / "examples" / "two_models.csv"
PAIR = "model,item_id,score\nx,1,1\ny,1,0\nx,2,0\ny,2,1\n"


def _tree(tmp):
    """A folder with no evaluation output, a folder of tables without model/score columns,
    a scores file, a broken watch state and a store holding the scores."""
    (tmp / "none").mkdir()
    (tmp / "none" / "readme.md").write_text("notes\n")
    (tmp / "tables").mkdir()
    (tmp / "tables" / "items.csv").write_text("item,text\n1,a\n")
    (tmp / "scores.csv").write_text(PAIR)
    (tmp / "state.json").write_text("not json\n")
    evalgap.store_add(tmp / "board.duckdb", [tmp / "scores.csv"])
    shutil.copy(tmp / "board.duckdb", tmp / "board.parquet")  # a store named like the output


# (CLI arguments, what the CLI says, the Python call, what Python says) for one mistake each.
CASES = {
    "format": (
        lambda t: ["inspect-data", "--scores", t / "none"],
        "give a file, or force a source with --format",
        lambda t: evalgap.load_scores(t / "none"),
        "give a file, or force a source with fmt=",
    ),
    "layout": (
        lambda t: ["inspect-data", "--scores", t / "tables", "--layout", "wide"],
        "tables: is a directory; --layout wide reads one table: give the file",
        lambda t: evalgap.load_scores(t / "tables", LoadOptions(layout="wide")),
        "tables: is a directory; layout='wide' reads one table: give the file",
    ),
    "model-column": (
        lambda t: ["inspect-data", "--scores", t / "tables"],
        "none of its 1 table files has a model and a score column; name them with "
        "--model-column and --score-column, or give the file",
        lambda t: evalgap.load_scores(t / "tables"),
        "none of its 1 table files has a model and a score column; name them with "
        "model_column= and score_column=, or give the file",
    ),
    "watch-state": (
        lambda t: ["watch", "--logs", t / "none", "--state", t / "state.json", "--once"],
        "state.json: not a watch state file",
        lambda t: evalgap.watch(t / "none", state=t / "state.json", once=True),
        "state.json': not a watch state file",
    ),
    "compare-strata": (
        lambda t: [
            *("compare", "--scores", t / "scores.csv", "--model-a", "x", "--model-b", "y"),
            *("--strata", "stratum"),
        ],
        "--strata goes with --weights (a stratified item sample) or with gold labels drawn by "
        "stratum (--gold-column); give one",
        lambda t: evalgap.compare(t / "scores.csv", model_a="x", model_b="y", strata="stratum"),
        "strata= goes with weights= (a stratified item sample) or with gold labels drawn by "
        "stratum (gold_column=); give one",
    ),
    "store-audit-task": (
        lambda t: [
            *("store", "audit", t / "board.duckdb", "--output", t / "o.parquet"),
            *("--task", "nosuch"),
        ],
        "--task nosuch: no such task in the store; tasks found: all",
        lambda t: evalgap.store_audit(t / "board.duckdb", t / "o.parquet", tasks=["nosuch"]),
        "tasks='nosuch': no such task in the store; tasks found: all",
    ),
    "store-audit-output": (
        lambda t: ["store", "audit", t / "board.parquet", "--output", t / "board.parquet"],
        "board.parquet: that is the store file itself; writing there would replace the store",
        lambda t: evalgap.store_audit(t / "board.parquet", t / "board.parquet"),
        "board.parquet': that is the store file itself; writing there would replace the store",
    ),
    "plan-delta": (  # a message led by the bare name: "{delta!b} must be"
        lambda t: ["plan", "--delta", "0", "--pilot", ROOT / "examples" / "pilot_runs.csv"],
        "--delta must be non-zero: no design resolves a gap of zero",
        lambda t: evalgap.plan(delta=0, pilot=ROOT / "examples" / "pilot_runs.csv"),
        "delta must be non-zero: no design resolves a gap of zero",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_cli_shows_its_flag_and_python_the_keyword(case, tmp_path):
    argv, cli_says, call, python_says = CASES[case]
    _tree(tmp_path)
    result = CliRunner().invoke(cli, [str(a) for a in argv(tmp_path)])
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("evalgap: error: ") and cli_says in line, line
    flag = {
        "format": "--format",
        "layout": "--layout wide",
        "model-column": "--model-column",
        "watch-state": "--state " + str(tmp_path / "state.json"),
        "compare-strata": "--strata",
        "store-audit-task": "--task nosuch",
        "store-audit-output": "--output " + str(tmp_path / "board.parquet"),
        "plan-delta": "--delta",
    }[case]
    assert flag in line
    with pytest.raises(InputError) as info:
        call(tmp_path)
    message = str(info.value)
    assert python_says in message, message
    assert not re.search(r"(?<![\w-])--[a-z]", message), message  # no flag from Python


def _raises(call) -> str:
    with pytest.raises(InputError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda: evalgap.Monitor(pair="ab"), "pair= must be two models (model_a, model_b)"),
        (
            lambda: evalgap.Monitor(targets="all", baseline="m"),
            "baseline= is used with targets='baseline', not 'all'",
        ),
        (lambda: evalgap.watch("logs", state=3), "state= takes a path; got 3"),
        (lambda: evalgap.watch([]), "logs= names no log directory or file"),
        (
            lambda: evalgap.watch("logs", on_status=3),
            "on_status= takes a function of a status; got 3",
        ),
        (
            lambda: evalgap.compare(
                [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], weights=[1.0, 2.0], alpha=0.05
            ),
            "weights= must give one weight per item: 2 weights for 3 items",
        ),
        (
            lambda: evalgap.compare(
                [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], weights=[1.0, 2.0, 1.0], strata=["a", None, "b"]
            ),
            "strata= holds missing labels (NaN or None): give every item its stratum",
        ),
        (
            lambda: evalgap.load_scores(TWO_MODELS, LoadOptions(layout="diagonal")),
            "layout= must be 'long' or 'wide'; got 'diagonal'",
        ),
        (
            lambda: evalgap.load_scores(["a.csv"], options=LoadOptions(store="b.duckdb")),
            "give either score files (paths=) or a results store (store=), not both",
        ),
        (lambda: evalgap.load_scores([]), "no score files given; pass paths=FILE (repeatable)"),
        (
            lambda: evalgap.align(),
            "align() needs scores= (per-item scores: a table, a ScoreSet or result files)",
        ),
    ],
)
def test_python_text_is_unchanged(call, says):
    assert says in _raises(call)
