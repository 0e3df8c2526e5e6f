"""The inspect_ai commands of docs/integrations.md run as written, with inspect's own command
line and its offline `mockllm` model: the hook finds the baseline in `logs` among two `-T`
settings of the task, and its line equals the page's `evalgap compare` command."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")

PAGE = ROOT / "docs" / "integrations.md"

# The user's task file the page names. mockllm answers every question alike (and counts its
# tokens with a table it would download), so this task's solver stands in for two models of
# different skill: it answers by a fixed function of the model's name and the question
# (offline, deterministic), and inspect scores the answers with its own `match()`.
ARITH = textwrap.dedent(
    """
    import hashlib

    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import match
    from inspect_ai.solver import solver


    @solver
    def answer_by_model():
        async def solve(state, generate):
            model, a = str(state.model), state.metadata["a"]
            digest = hashlib.sha256(f"{model} {a}".encode()).digest()[0]
            wrong = digest >= (215 if "alpha" in model else 140)
            state.output = ModelOutput.from_content(model, str(2 * a + wrong))
            return state

        return solve


    @task
    def arith(n: int = 40):
        return Task(
            dataset=[Sample(input=f"What is {i}+{i}?", target=str(2 * i), id=f"q{i}",
                            metadata={"a": i}) for i in range(n)],
            solver=answer_by_model(),
            scorer=match(),
        )
    """
)


def _inspect_block() -> list[str]:
    """The command lines of the page's first bash block under its inspect_ai heading."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## inspect_ai") :]
    block = re.search(r"^```bash\n(.*?)^```", section, flags=re.S | re.M)
    assert block is not None, "the inspect_ai section has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_page_shows_the_extension_as_inspects_list_does():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## inspect_ai") : text.index("## lm-evaluation-harness")]
    for field in ("**name**", "**description**", "**install**", "**usage**"):
        assert field in section
    for name in ("EVALGAP_BASELINE", "EVALGAP_BASELINE_MODEL", "EVALGAP_HOOK"):
        assert f"`{name}" in section
    from evalgap.integrations import inspect_hooks

    source = Path(inspect_hooks.__file__).read_text(encoding="utf-8")
    for variable in ("ENV_BASELINE", "ENV_MODEL", "ENV_SWITCH"):
        assert f"`{getattr(inspect_hooks, variable)}" in section
        assert f"os.environ.get({variable}" in source  # a variable the hook reads
    assert f"`inspect eval {inspect_hooks.KEEP_GOING}`" in section


@pytest.mark.slow  # three `inspect eval` processes: about 12 s on two cores
def test_the_pages_inspect_commands_run_as_written(tmp_path, run_cli):
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "inspect").exists() or not (bin_dir / "evalgap").exists():
        pytest.skip(f"the inspect and evalgap commands are not installed in {bin_dir}")
    (tmp_path / "arith.py").write_text(ARITH)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVALGAP_", "INSPECT_"))}
    env = {**env, "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "NO_COLOR": "1"}
    lines = _inspect_block()
    assert lines[0] == 'pip install "evalgap[inspect]"'  # installed here already
    outputs = []
    for line in lines[1:]:
        done = subprocess.run(
            ["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path, env=env,
            timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, f"{line}: exit {done.returncode}\n{done.stderr[-3000:]}"
        outputs.append(done)
    printed = [
        # inspect's display may leave its last line open: the hook's line follows its padding
        [
            row.strip()
            for row in (d.stdout + d.stderr).splitlines()
            if row.lstrip().startswith("evalgap:")
        ]
        for d in outputs[:3]
    ]
    assert printed[:2] == [[], []]  # no baseline configured: the hook is quiet
    [line] = printed[2]
    argv = shlex.split(lines[-1])
    assert argv[0] == "evalgap"
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        cli = run_cli(*argv[1:], "--json")
    finally:
        os.chdir(cwd)
    verdict = json.loads(cli.stdout)["verdict"]
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 3
    assert line == (
        f"evalgap: mockllm/beta against mockllm/alpha (baseline log logs/{logs[0].name}): "
        f"{verdict}. 40 items compared; left out: none."
    )
    assert " ".join(verdict.split()[-12:]) in " ".join(outputs[3].stdout.split())
