"""Every example of the README and of docs/ runs.

The Python examples (``>>>``) are doctests (pyproject's ``--doctest-glob``). This file runs the
shell examples: every ``evalgap ...`` line of a ```bash or ```console block, and the commands of
the five-question tables, through the command line in-process, from a scratch folder (inputs
named relative to the repository's root are passed by absolute path; outputs land in the
scratch folder). A block's commands run in order, so one may read what an earlier one wrote.

Expected exit code: 0; the one a comment or table row states ("exits 1"); 2 for a console
example whose output is ``evalgap: error: ...``. A console example's printed sentences must
appear in the output. Examples that need data this checkout lacks (the real data beside the
project, a user's own files named as placeholders, the network) skip, saying which.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest

import evalgap

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# Inputs the examples name as the user's own files: the example shows the form of a call.
PLACEHOLDERS = {
    "results.csv": "a user's per-item results",
    "results.csv.gz": "a user's per-item results",
    "results.parquet": "a user's per-item results",
    "lm_eval_out/": "a user's lm-eval output folder",
    "out/bf16/": "a user's lm-eval output folder",
    "out/": "a folder of logs being written",
    "logs/": "a user's inspect logs",
    "logs/arc_qwen.eval": "a user's inspect log",
    "kv_fp8.csv": "a user's 2x2 counts per task",
    "runs.csv": "a user's repeated baseline runs",
    "kept.csv": "items written by an earlier trim",
    "pairs.csv": "a user's pair counts",
    "battles.csv": "a user's arena battles",
    "board.csv": "a reference board scored on the whole benchmark",
    "new.csv": "a new model's scores on some items",
    "judged.csv": "a user's judge scores",
    "arith.py": "a user's inspect task",
    "reports/": "a user's SWE-bench run reports",
    "results/org__model-a": "a user's MTEB results",
    "results/org__model-b": "a user's MTEB results",
    "experiments/evaluation/verified": "a SWE-bench/experiments checkout",
    "logs/base": "a user's inspect logs",
    "gold.csv": "a user's gold labels",
    "new_model_100_items.csv": "a new model's scores on some items",
    "pair_so_far.csv": "a pair's scores on the items run so far",
    "details/meta-llama__Llama-3.1-8B-details": "downloaded Open LLM Leaderboard details",
    "benchmark_output/runs/v1/": "a user's HELM run folder",
}

# Examples that take more than a couple of seconds: kept out of the default run.
SLOW = {
    "store add board.duckdb ../shared": "adds MMLU-Pro to a store, then audits it",
    "ranks --scores ../shared/data/mmlu_pro": "rank sets of MMLU-Pro, B = 1,000",
    "simulate rank-coverage": "about 50 s",
    "simulate adaptive --jobs 2": "about 25 s",
    "simulate task-rank-coverage": "about 15 s",
    "simulate calibration": "about 8 s",
    "simulate aggregation": "a simulation study",
    "simulate prospective": "a simulation study",
    "plan --reference": "fits an IRT model to MMLU-Pro",
    "--cluster-column category --html": "cluster bootstrap of MMLU-Pro's audit",
}

OUTPUT_OPTIONS = {"--output", "--html", "--plot", "--state"}


class Command(NamedTuple):
    argv: list[str]
    exit_codes: frozenset[int]
    output: str  # the documented output of a console example ("" when none is shown)


class Example(NamedTuple):
    page: str
    line: int
    commands: list[Command]


def _expected(comment: str, default: int = 0) -> frozenset[int]:
    codes = {int(c) for c in re.findall(r"\bexits? (\d)\b", comment)}
    return frozenset(codes or {default})


def _shell_block(text: str) -> list[Command]:
    commands = []
    for line in text.replace("\\\n", " ").splitlines():
        code, _, comment = line.partition(" #")
        start = code.find("evalgap ")
        if start < 0 or code.lstrip().startswith("#") or not code[start:].startswith("evalgap "):
            continue
        if start > 0 and not code[:start].rstrip().endswith("&&"):
            continue  # `python -m ... evalgap` and prose are not command lines
        commands.append(Command(shlex.split(code[start:])[1:], _expected(comment), ""))
    return commands


def _console_block(text: str) -> list[Command]:
    commands = []
    for chunk in re.split(r"^\$ ", text, flags=re.M)[1:]:
        first, _, output = chunk.partition("\n")
        if not first.startswith("evalgap "):
            continue
        code, _, comment = first.partition(" #")
        default = 2 if output.lstrip().startswith("evalgap: error:") else 0
        commands.append(Command(shlex.split(code)[1:], _expected(comment, default), output))
    return commands


def _examples(path: Path) -> list[Example]:
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(ROOT).as_posix()
    found = []
    for m in re.finditer(r"^```(bash|console)\n(.*?)^```", text, flags=re.S | re.M):
        parse = _shell_block if m.group(1) == "bash" else _console_block
        commands = parse(m.group(2))
        if commands:
            found.append(Example(page, text.count("\n", 0, m.start()) + 1, commands))
    for number, row in enumerate(text.splitlines(), start=1):
        if row.startswith("|"):
            for span in re.findall(r"`(evalgap [a-z-]+ --[^`]*)`", row):
                argv = shlex.split(span)[1:]
                found.append(Example(page, number, [Command(argv, _expected(row), "")]))
    return found


def _distinct(examples: list[Example]) -> list[Example]:
    seen, kept = set(), []
    for example in examples:
        key = tuple(tuple(c.argv) for c in example.commands)
        if key not in seen:
            seen.add(key)
            kept.append(example)
    return kept


# An example repeated on another page (the README's table on the docs' home page) runs once.
EXAMPLES = _distinct([example for page in PAGES for example in _examples(page)])


def _param(example: Example):
    text = " ".join(" ".join(c.argv) for c in example.commands)
    slow = [reason for key, reason in SLOW.items() if key in text]
    marks = [pytest.mark.slow] if slow else []
    return pytest.param(example, id=f"{example.page}:{example.line}", marks=marks)


INPUT_OPTIONS = {
    "--scores",
    "--store",
    "--items",
    "--pilot",
    "--reference",
    "--weights",
    "--logs",
    "--counts",
    "--pairs",
    "--battles",
}


def _absent(argv: list[str]) -> str | None:
    """Why a command cannot run here (a placeholder input, the network), or None."""
    for i, token in enumerate(argv):
        if token == "--hub":
            return "downloads from the Hugging Face Hub (network)"
        if token in PLACEHOLDERS and not (i > 0 and argv[i - 1] in OUTPUT_OPTIONS):
            return f"{token} stands for {PLACEHOLDERS[token]}"
    return None


def _argv_from_root(argv: list[str], scratch: Path) -> list[str]:
    """Name existing inputs by absolute path; skip when the real data is absent."""
    out = []
    for i, token in enumerate(argv):
        after = argv[i - 1] if i > 0 else ""
        at_root = ROOT / token
        if after not in OUTPUT_OPTIONS and not token.startswith("-") and at_root.exists():
            token = str(at_root.resolve())
        elif token.startswith("../shared/data"):
            pytest.skip(f"real data {token} is not present beside the project")
        elif after in INPUT_OPTIONS and not (scratch / token).exists():
            pytest.fail(f"{after} {token}: no such input (a typo, or add it to PLACEHOLDERS)")
        out.append(token)
    return out


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed_sentences(output: str) -> list[str]:
    """The documented output's prose (tables and '...' elisions left out), joined per paragraph."""
    paragraphs, current = [], []
    for line in output.splitlines():
        table = line[:1] in "│┃┏┡└┌├╭╰━─" or not line.strip() or line.strip() == "..."
        if table:
            if current:
                paragraphs.append(_words(" ".join(current)))
            current = []
        else:
            current.append(line)
    if current:
        paragraphs.append(_words(" ".join(current)))
    return paragraphs


def test_every_page_has_its_examples_found():
    """The extraction finds the examples (a change of fence or prompt would hide them all)."""
    pages = {e.page for e in EXAMPLES}
    assert {"README.md", "docs/compare.md", "docs/plan.md", "docs/audit.md"} <= pages
    assert sum(len(e.commands) for e in EXAMPLES) > 60


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES])
def test_example_runs(example, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    absent = [reason for c in example.commands if (reason := _absent(c.argv))]
    runnable = [c for c in example.commands if not _absent(c.argv)]
    if not runnable:
        pytest.skip("; ".join(absent))
    root = f"{ROOT.resolve()}/"
    for command in runnable:
        argv = _argv_from_root(command.argv, tmp_path)
        result = run_cli(*argv)
        shown = f"evalgap {shlex.join(command.argv)}"
        assert result.returncode in command.exit_codes, (
            f"{shown}: exit {result.returncode}\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
        printed = _words(result.stdout + "\n" + result.stderr).replace(root, "")
        for sentence in _printed_sentences(command.output):
            assert sentence in printed, f"{shown}: documented output not printed:\n{sentence}"


def _five_questions() -> list:
    """The README's first table, one (command line, Python call) parameter per row."""
    rows = []
    for row in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if row.startswith("| ") and len(cells) == 4 and cells[1].startswith("`evalgap "):
            command = shlex.split(cells[1].strip("`"))[1:]
            call = cells[2].strip("`")
            slow = [reason for key, reason in SLOW.items() if key in " ".join(command)]
            marks = [pytest.mark.slow] if slow else []
            rows.append(pytest.param(command, call, id=command[0], marks=marks))
    return rows


def test_the_readme_opens_with_the_five_questions():
    assert [p.values[0][0] for p in _five_questions()] == [
        "compare",
        "ranks",
        "fragility",
        "card",
        "plan",
        "degrade",
        "watch",
    ]


@pytest.mark.parametrize(("command", "call"), _five_questions())
def test_five_questions_python_equals_the_command_line(
    command, call, run_cli, tmp_path, monkeypatch
):
    """Each row's Python call gives the JSON its command line prints, key for key."""
    monkeypatch.chdir(tmp_path)
    argv = _argv_from_root(command, tmp_path)
    monkeypatch.chdir(ROOT)  # the Python call names its files as the table does
    scores = argv[argv.index("--scores") + 1] if "--scores" in argv else None
    df = pd.read_csv(scores) if scores else None
    result = eval(call, {"evalgap": evalgap, "df": df})
    python = json.loads(json.dumps(result.to_dict(), default=str))
    monkeypatch.chdir(tmp_path)
    cli = run_cli(*argv, "--json")
    printed = json.loads(cli.stdout.strip().splitlines()[-1])
    shared = set(printed) & set(python)
    assert {"verdict"} <= shared
    assert {k: printed[k] for k in shared} == {k: python[k] for k in shared}


def test_every_public_name_is_in_the_reference():
    """The API reference documents every name `evalgap` exports, and no name it lacks."""
    reference = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "api").glob("*.md")
    )
    documented = set(re.findall(r"^::: evalgap\.(\w+)", reference, flags=re.M))
    # the parts of a result live in a private module, documented beside the result
    assert documented - {"jobs"} == set(evalgap.__all__) - {"__version__"}
