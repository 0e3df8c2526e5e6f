"""Errors name what the user typed: the Python keyword from Python, the flag from the CLI.

Jobs and loaders write their parameters as fields of the message (``InputError("{model_column}
...", param="model_column")``): ``str(error)`` says ``model_column=``, and the CLI renders the
same message with the invoked command's flag (``--model-column``); nothing rewrites text.
"""

from __future__ import annotations

import ast
import re

import pytest

from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.inspect_logs import read_inspect
from evalgap.io.options import LoadOptions
from evalgap.io.sources import load_scores
from evalgap.io.tables import read_long_table
from evalgap.jobs import simulate as sim
from evalgap.jobs.degrade import check_roles
from evalgap.jobs.plan import plan, plan_degradation

from conftest import ROOT


def conflicting_scores(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("model,item_id,score\nm1,q0,1\nm1,q0,0\nm2,q0,1\nm1,q1,0\nm2,q1,1\n")
    return path


def graded_pair(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("model,item_id,score\nx,1,0.5\ny,1,0.25\nx,2,1\ny,2,0\n")
    return path


# (Python call, what Python says, CLI arguments, what the CLI says) for one mistake each.
CASES = {
    "read_long_table": (
        lambda tmp: read_long_table(_file(tmp, "who,item_id,points\nx,1,1\n")),
        "cannot find the model column; name it with model_column= (columns found: who, "
        "item_id, points)",
        lambda tmp: ["inspect-data", "--scores", _file(tmp, "who,item_id,points\nx,1,1\n")],
        "cannot find the model column; name it with --model-column (columns found: who, "
        "item_id, points)",
    ),
    "align-runs": (
        lambda tmp: align(load_scores(conflicting_scores(tmp)).frame),
        "name the run column with run_column= if these are repeated runs, or fix the file",
        lambda tmp: ["inspect-data", "--scores", conflicting_scores(tmp)],
        "name the run column with --run-column if these are repeated runs, or fix the file",
    ),
    "load_scores-layout": (
        lambda tmp: load_scores(
            _file(tmp, "model,item_id,score\nx,1,1\n"), LoadOptions(layout="diagonal")
        ),
        "layout= must be 'long' or 'wide'; got 'diagonal'",
        None,  # the CLI's choice list refuses it first
        None,
    ),
    "plan_degradation": (
        lambda tmp: plan_degradation(delta=0.5, flip_rate=0.3),
        "delta=0.5 exceeds flip_rate=0.3: an accuracy drop comes from items that flip",
        lambda tmp: ["plan", "--delta", "0.5", "--flip-rate", "0.3"],
        "--delta 0.5 exceeds --flip-rate 0.3: an accuracy drop comes from items that flip",
    ),
    "plan": (
        lambda tmp: plan(delta=0.02),
        "give accuracy_a=, accuracy_b= (or delta=) and correlation= (binary scores) or "
        "delta= and sd_diff= (graded scores)",
        lambda tmp: ["plan", "--delta", "0.02"],
        "give --accuracy-a, --accuracy-b (or --delta) and --correlation (binary scores) or "
        "--delta and --sd-diff (graded scores)",
    ),
    "degrade-roles": (
        lambda tmp: check_roles("x", "x"),
        "baseline= and candidate= are both 'x'; name two different models",
        lambda tmp: [
            "degrade",
            "--scores",
            graded_pair(tmp),
            *("--baseline", "x", "--candidate", "x"),
        ],
        "--baseline and --candidate are both 'x'; name two different models",
    ),
    "prospective": (
        lambda tmp: sim.prospective_counts(
            align(load_scores(graded_pair(tmp)).frame), [("x", "y")]
        ),
        "pairs=('x', 'y'): the prospective study needs binary scores",
        lambda tmp: ["simulate", "prospective", "--scores", graded_pair(tmp), "--pair", "x", "y"],
        "--pair x y: the prospective study needs binary scores",
    ),
    "sequential": (
        lambda tmp: sim.sequential_study((5, 5, 3, 4), horizon_factor=1e9),
        "horizon_factor=1e+09 x N* = 259,013,031,234 items per trial (N* = 259); the "
        "sequential study follows at most 1,000,000: lower horizon_factor=, or study",
        lambda tmp: [
            *("simulate", "sequential", "--both-correct", "5", "--a-only", "5", "--b-only", "3"),
            *("--both-wrong", "4", "--horizon-factor", "1e9"),
        ],
        "--horizon-factor 1e+09 x N* = 259,013,031,234 items per trial (N* = 259); the "
        "sequential study follows at most 1,000,000: lower --horizon-factor, or study",
    ),
    "read_inspect": (
        lambda tmp: read_inspect(tmp, on_error="ignore"),
        "on_error= must be one of skip, fail; got 'ignore'",
        None,  # the CLI's choice list refuses it first
        None,
    ),
}


def _file(tmp, text: str):
    path = tmp / f"t{abs(hash(text)) % 10_000}.csv"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_python_names_the_keyword_and_the_cli_the_flag(case, tmp_path, run_cli):
    call, python_says, argv, cli_says = CASES[case]
    with pytest.raises(InputError) as info:
        call(tmp_path)
    message = str(info.value)
    assert python_says in message
    assert not re.search(r"(?<![\w-])--[a-z]", message), message  # no flag from Python
    if argv is None:
        return
    out = run_cli(*argv(tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("evalgap: error: ") and cli_says in line


def _raised_messages(path):
    """Yield (line, text) of each literal piece of an ``InputError(...)`` message in a file."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InputError":
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    yield part.lineno, part.value


# Flags of other programs that a message may name (lm_eval's own options).
FOREIGN_FLAGS = ("--predict_only", "--log_samples")


def test_jobs_and_loaders_name_python_parameters_not_flags():
    """Job and io errors reach Python users too: they name ``name=``, never ``--name``
    (the CLI turns the first into the second). The CLI's own messages and the report
    writers (whose flag is handed to them by the CLI) may name flags."""
    src = ROOT / "src" / "evalgap"
    offending = []
    for path in sorted(src.rglob("*.py")):
        relative = path.relative_to(src).as_posix()
        if relative.startswith(("cli/", "report/")):
            continue
        for line, text in _raised_messages(path):
            for foreign in FOREIGN_FLAGS:
                text = text.replace(foreign, "")
            if re.search(r"(?<![\w-])--[a-z]", text):
                offending.append(f"{relative}:{line}: {text!r}")
    assert not offending, "\n".join(offending)
