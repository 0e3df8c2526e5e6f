"""A library error names the Python keyword; the command line names the invoked command's flag.

Each case makes one mistake twice: on the command line (click's own runner on ``cli``) and
as the Python call the command makes. The command line must show its own flag for the
parameter (``--pair`` is audit's ``--pairs`` file, never another command's flag) and Python
the keyword, from the same message in the library (no rewriting afterwards).
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import evalgap
from evalgap.cli import cli
from evalgap.errors import InputError
from evalgap.jobs import monitoring, rank_coverage
from evalgap.jobs import simulate as sim
from evalgap.jobs.inspect_data import inspect_data
from evalgap.jobs.watch import Monitor

from conftest import ROOT

PAIR = ROOT / "examples" / "two_models.csv"
COUNTS = ("--both-correct", "5", "--a-only", "5", "--b-only", "3", "--both-wrong", "4")

# command: (CLI arguments, what the CLI says, the Python call, what Python says)
CASES = {
    "compare": (
        ["compare", "--both-correct", "1", "--a-only", "2"],
        "missing --b-only, --both-wrong: give all four 2x2 counts",
        lambda tmp: evalgap.compare(both_correct=1, a_only=2),
        "missing b_only=, both_wrong=: give all four 2x2 counts",
    ),
    "audit": (
        ["audit"],
        "give either --pairs FILE (per-pair 2x2 counts) or --scores FILE",
        lambda tmp: evalgap.audit(),
        "give either pairs=FILE (per-pair 2x2 counts) or scores=FILE",
    ),
    "audit-family": (
        ["audit", "--pairs", "pairs.csv", "--family", "all"],
        "--family all needs per-item --scores; a --pairs file lists its pairs itself",
        lambda tmp: evalgap.audit(pairs="pairs.csv", family="all"),
        "family='all' needs per-item scores=; a pairs= file lists its pairs itself",
    ),
    "ranks": (
        ["ranks", "--battles", "b.csv", "--model-column", "m"],
        "--model-column: per-item score options do not apply to --battles",
        lambda tmp: evalgap.ranks(battles="b.csv", model_column="m"),
        "model_column=: per-item score options do not apply to battles=",
    ),
    "degrade": (
        ["degrade", "--counts", "c.csv", "--baseline", "x"],
        "give either --counts FILE (per-task counts) or scores (--scores with --baseline",
        lambda tmp: evalgap.degrade(counts="c.csv", baseline="x"),
        "give either counts=FILE (per-task counts) or scores (scores= with baseline=",
    ),
    "trim": (
        ["trim", "--model", "base", "--output", "kept.csv"],
        "nothing to trim: give the baseline's repeated runs, --scores FILE",
        lambda tmp: evalgap.trim(model="base"),
        "nothing to trim: give the baseline's repeated runs, scores=FILE",
    ),
    "plan": (
        ["plan", "--delta", "0.5", "--flip-rate", "0.3"],
        "--delta 0.5 exceeds --flip-rate 0.3: an accuracy drop comes from items that flip",
        lambda tmp: evalgap.plan(delta=0.5, flip_rate=0.3),
        "delta=0.5 exceeds flip_rate=0.3: an accuracy drop comes from items that flip",
    ),
    "watch": (
        ["watch", "--logs", "logs", "--pair", "a", "b", "--baseline", "a", "--once"],
        "give either --pair or --baseline, not both",
        lambda tmp: Monitor(pair=("a", "b"), baseline="a"),
        "give either pair= or baseline=, not both",
    ),
    "inspect-data": (
        ["inspect-data"],
        "nothing to inspect: give --scores FILE",
        lambda tmp: inspect_data(),
        "nothing to inspect: give scores=FILE",
    ),
    "simulate-calibration": (
        ["simulate", "calibration", "--n-items", "10"],
        "--n-items 10 is too small for the calibration grid",
        lambda tmp: sim.calibration(n_items=10),
        "n_items=10 is too small for the calibration grid",
    ),
    "simulate-prospective": (
        ["simulate", "prospective", "--scores", PAIR],
        "name the pairs to validate: --pair (model A and model B; repeatable)",
        lambda tmp: sim.prospective([], scores=PAIR),
        "name the pairs to validate: pairs= (model A and model B; repeatable)",
    ),
    "simulate-power-curve": (
        ["simulate", "power-curve", "--delta", "0"],
        "--delta must be a finite, non-zero gap",
        lambda tmp: sim.power_curve(deltas=(0.0,)),
        "deltas= must be a finite, non-zero gap",
    ),
    "simulate-sequential": (
        ["simulate", "sequential", *COUNTS, "--horizon-factor", "1e9"],
        "--horizon-factor 1e+09 x N* = ",
        lambda tmp: sim.sequential_study((5, 5, 3, 4), horizon_factor=1e9),
        "horizon_factor=1e+09 x N* = ",
    ),
    "simulate-aggregation": (
        ["simulate", "aggregation", "--n-trials", "10000000000"],
        "--n-trials 10000000000 is more than this study runs",
        lambda tmp: sim.aggregation_study(n_trials=10**10),
        "n_trials=10000000000 is more than this study runs",
    ),
    "simulate-resamples": (
        ["simulate", "rank-coverage", "--n-bootstrap", "200000"],
        "--n-bootstrap 200000 is more than this study runs (at most 100,000: each trial draws "
        "them anew, so a study holds trials x resamples draws); ask for fewer",
        lambda tmp: rank_coverage.rank_coverage(n_bootstrap=200_000),
        "n_bootstrap=200000 is more than this study runs (at most 100,000: each trial draws "
        "them anew, so a study holds trials x resamples draws); ask for fewer",
    ),
    "simulate-monitoring": (
        ["simulate", "monitoring", "--jobs", "2"],
        "--jobs: the monitoring study runs in one process",
        lambda tmp: monitoring.monitoring_study(jobs=2),
        "jobs=: the monitoring study runs in one process",
    ),
    "simulate-rank-coverage": (
        ["simulate", "rank-coverage", "--n-trials", "10000000000"],
        "--n-trials 10000000000 is more than this study runs",
        lambda tmp: rank_coverage.rank_coverage(n_trials=10**10),
        "n_trials=10000000000 is more than this study runs",
    ),
    "store-remove": (
        ["store", "remove", "board.duckdb", "--source", "a.csv"],
        "--source a.csv: a source id is an integer (see store list); remove a source by the "
        "path it was added from with --source-path",
        lambda tmp: evalgap.store_remove(tmp / "board.duckdb", sources=["a.csv"]),
        "sources='a.csv': a source id is an integer (see store list); remove a source by the "
        "path it was added from with source_paths=",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_cli_names_its_own_flag_and_python_the_keyword(case, tmp_path, monkeypatch):
    argv, cli_says, call, python_says = CASES[case]
    monkeypatch.chdir(tmp_path)
    if case.startswith("store"):
        evalgap.store_add(tmp_path / "board.duckdb", [PAIR])
    result = CliRunner().invoke(cli, [str(a) for a in argv])
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("evalgap: error: ") and cli_says in line, line
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line))
    command = cli
    for word in argv:
        command = getattr(command, "commands", {}).get(str(word), command)
    own = {o for p in command.params for o in getattr(p, "opts", ())}
    assert flags and flags <= own, (flags - own, line)  # only the invoked command's flags
    with pytest.raises(InputError) as info:
        call(tmp_path)
    message = str(info.value)
    assert python_says in message
    assert not re.search(r"(?<![\w-])--[a-z]", message), message  # no flag from Python


def test_an_audit_error_about_pairs_names_audits_flag_not_another_commands():
    line = CliRunner().invoke(cli, ["audit"]).output
    assert "--pairs FILE" in line and "--pair " not in line


@pytest.mark.renders_keywords
def test_a_message_keeps_a_keyword_the_command_has_no_flag_for():
    from evalgap.cli._command import BadInput

    error = InputError("{delta} and {no_such}", param="delta", delta=0.5)
    assert BadInput(error, cli.commands["plan"]).message == "--delta 0.5 and no_such="
    assert str(error) == "delta=0.5 and no_such="


def test_a_template_renders_values_switches_and_placeholders():
    error = InputError(
        "{pairs}; {strict}; {by=task}; {by=COLUMN}; {n!b} must; {v!r}",
        param="pairs",
        pairs=("a", "b"),
        strict=True,
        v="x",
    )
    flags = {
        "pairs": ("--pair", False),
        "strict": ("--strict", True),
        "by": ("--by", False),
        "n": ("--n-items", False),
    }
    assert str(error) == "pairs=('a', 'b'); strict=True; by='task'; by=COLUMN; n must; 'x'"
    assert (
        error.render(flags.get)
        == "--pair a b; --strict; --by task; --by COLUMN; --n-items must; 'x'"
    )
    assert str(InputError("no model", param="model")) == "model=: no model"
    assert str(InputError("{braces} kept {{as}} text", param="braces")) == "braces= kept {as} text"
    assert str(InputError("plain {text} stays")) == "plain {text} stays"
