"""The inspect_ai extension as its users run it: the baseline found in inspect's default
`./logs` by task name, task arguments and model; a task ended in error said, with the option
that keeps it going; the items left out counted in the printed line; no log compared with
itself; every hint naming an environment variable the hook reads, or a flag `inspect eval`
has.

The real evaluations run in one subprocess per test with a registered deterministic model API
(`@modelapi`), offline; the messages are checked on the repository's inspect logs in-process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")

from evalgap.errors import InputError
from evalgap.integrations import inspect_hooks
from evalgap.integrations.inspect_hooks import (
    ENV_BASELINE,
    ENV_MODEL,
    KEEP_GOING,
    find_baseline,
    report,
    task_ended,
)

from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "frameworks" / "inspect"
PLAIN = sorted((FIXTURES / "plain_eval").glob("*.eval"))  # arith(n=16): alpha, then beta
ERRORED = sorted((FIXTURES / "errored").glob("*.eval"))  # with_error: q03 errored in each

# A registered model API answers a fixed function of the question and the model's name (no
# weights, no network); `fail` models raise on one question (betafail on q3, alphafail on
# q5). Each argument of the script is one `inspect eval` of task arith:
# MODEL:N[:keep][:VAR=VALUE...] (keep: --no-fail-on-error; the variables are set for that
# evaluation alone). No log_dir: inspect's default ./logs.
SCRIPT = textwrap.dedent(
    """
    import hashlib, os, sys
    from inspect_ai import Task, eval as inspect_eval, task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelAPI, ModelOutput, ModelUsage, modelapi
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    @modelapi(name="toy")
    def toy():
        class Toy(ModelAPI):
            async def generate(self, input, tools, tool_choice, config):
                question = input[-1].text
                a = int(question.split()[2].split("+")[0])
                if "fail" in self.model_name and a == (3 if "beta" in self.model_name else 5):
                    raise RuntimeError("toy model failure")
                digest = hashlib.sha256((self.model_name + question).encode()).digest()[0]
                skill = 215 if "alpha" in self.model_name else 140
                out = ModelOutput.from_content(self.model_name, str(2 * a + (digest >= skill)))
                out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
                return out
        return Toy

    @task
    def arith(n: int = 40):
        return Task(
            dataset=[Sample(input=f"What is {i}+{i}? Number only.", target=str(2 * i),
                            id=f"q{i}") for i in range(n)],
            solver=generate(), scorer=match(),
        )

    for step in sys.argv[1:]:
        name, n, *rest = step.split(":")
        env = dict(r.split("=", 1) for r in rest if "=" in r)
        os.environ.update(env)
        print("STEP", step, flush=True)
        print("STEP", step, file=sys.stderr, flush=True)
        [log] = inspect_eval(arith(n=int(n)), model=f"toy/{name}", display="none",
                             fail_on_error="keep" not in rest)
        for key in env:
            del os.environ[key]
        print("LOG", log.status, log.location, flush=True)
    """
)


def _evals(tmp_path: Path, *steps: str) -> tuple[dict[str, list[str]], list[Path]]:
    """Run the evaluations in one process from ``tmp_path``; each step's printed lines
    (stdout and stderr, those starting with ``evalgap:``) and the logs written, in order."""
    script = tmp_path / "evals.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVALGAP_", "INSPECT_"))}
    done = subprocess.run(
        [sys.executable, str(script), *steps],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "INSPECT_LOG_LEVEL": "warning"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said: dict[str, list[str]] = {}
    for stream in (done.stdout, done.stderr):
        step = ""
        for line in stream.splitlines():
            if line.startswith("STEP "):
                step = line.split(" ", 1)[1]
            elif line.startswith("evalgap:"):
                said.setdefault(step, []).append(line)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    logs = [Path(line.split()[2]) for line in done.stdout.splitlines() if line.startswith("LOG")]
    return said, logs


def _compare_json(run_cli, base: Path, new: Path, model_a: str, model_b: str) -> dict:
    cli = run_cli(
        "compare", "--scores", base, "--scores", new, "--model-a", model_a, "--model-b", model_b,
        "--json",
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    return json.loads(cli.stdout)


def test_the_baseline_in_the_default_logs_folder_is_the_same_task_arguments_and_model(
    tmp_path, run_cli
):
    """The issue's case: ./logs holds arith under -T n=40 and n=24; the new run (n=40)
    is compared with the n=40 log, says so, and prints `evalgap compare`'s verdict."""
    base = f"{ENV_BASELINE}=logs"
    said, logs = _evals(tmp_path, "alpha:40", "alpha:24", f"beta:40:{base}")
    alpha_40, alpha_24, beta_40 = logs
    assert set(said) == {f"beta:40:{base}"}  # no baseline configured: the hook is quiet
    [line] = said[f"beta:40:{base}"]
    expected = _compare_json(run_cli, alpha_40, beta_40, "toy/beta", "toy/alpha")
    assert expected["n_items"] == 40 and expected["verdict"]
    assert line == (
        f"evalgap: toy/beta against toy/alpha (baseline log {Path('logs') / alpha_40.name}): "
        f"{expected['verdict']}. 40 items compared; left out: none."
    )
    assert alpha_24.name not in line
    saved = beta_40.with_name(beta_40.name + ".evalgap.jsonl").read_text().splitlines()
    saved = [json.loads(line) for line in saved]
    assert [entry["verdict"] for entry in saved] == [expected["verdict"]]
    # the same pair from the whole folder, as the docs show it: the task chosen by its label
    folder = run_cli(
        "compare", "--scores", tmp_path / "logs", "--task", "arith(n=40)",
        "--model-a", "toy/beta", "--model-b", "toy/alpha", "--json",
    )  # fmt: skip
    assert folder.returncode == 0, folder.stderr
    assert json.loads(folder.stdout)["verdict"] == expected["verdict"]
    # a log named as the baseline must be of the same task arguments, as compare pairs them
    with pytest.raises(InputError) as raised:
        report(beta_40, alpha_24)
    assert str(raised.value) == (
        f"baseline=: the log {alpha_24} ran task arith(n=24), the new log arith(n=40); name a "
        "log of the same task and arguments, or a folder of logs"
    )
    assert _compare_json(run_cli, alpha_40, beta_40, "toy/beta", "toy/alpha") == expected
    # the former Python door, given the folder, chooses the same log (it failed on the two -T)
    from evalgap.jobs.compare import against_baseline

    [result] = against_baseline(beta_40, tmp_path / "logs")
    assert (result.n_items, result.verdict) == (40, expected["verdict"])


def test_a_task_ended_in_error_is_said_and_its_option_keeps_it_going(tmp_path, run_cli):
    """inspect stops a task at its first failed sample: the hook says so, naming the option
    `inspect eval` has; with that option the errored samples are left out and counted, with
    the items each log lacks."""
    base, model = f"{ENV_BASELINE}=logs", f"{ENV_MODEL}=toy/alphafail"
    stopped, kept = f"betafail:40:{base}", f"betafail:40:keep:{base}:{model}"
    said, logs = _evals(tmp_path, "alphafail:40:keep", stopped, kept)
    alpha, failed, new = logs
    [note] = said[stopped]
    assert note.startswith("evalgap: task arith(n=40) ended in error (")
    assert "toy model failure" in note and KEEP_GOING in note
    [line] = said[kept]
    expected = _compare_json(run_cli, alpha, new, "toy/betafail", "toy/alphafail")
    assert expected["n_items"] == 38
    assert line == (
        f"evalgap: toy/betafail against toy/alphafail (baseline log "
        f"{Path('logs') / alpha.name}): {expected['verdict']}. 38 items compared; left out: "
        "1 errored sample of the new log, 1 errored sample of the baseline, 1 item the "
        "baseline lacks, 1 item the new log lacks."
    )
    assert failed.name not in line
    assert KEEP_GOING in _inspect_eval_help()


def _inspect_eval_help() -> str:
    """`inspect eval --help`: the options the hook's notes may name."""
    inspect = Path(sys.executable).with_name("inspect")
    if not inspect.exists():
        pytest.skip(f"the inspect command is not installed next to {sys.executable}")
    done = subprocess.run([str(inspect), "eval", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _logs(tmp_path: Path, *sources: Path, names: tuple[str, ...] = ()) -> list[Path]:
    folder = tmp_path / "logs"
    folder.mkdir(exist_ok=True)
    out = []
    for i, source in enumerate(sources):
        target = folder / (names[i] if names else source.name)
        shutil.copy(source, target)
        out.append(target)
    return out


def _said(log: Path, monkeypatch, **env: str) -> tuple[str, bool] | None:
    """What the hook says at the end of a run about the task of ``log`` (a finished log)."""
    for key in ("EVALGAP_BASELINE", "EVALGAP_BASELINE_MODEL"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    from inspect_ai.log import read_eval_log

    return task_ended(read_eval_log(str(log), header_only=True))


def test_the_hooks_environment_variables_are_the_ones_it_reads(tmp_path, monkeypatch):
    """Every variable a message names is read by the hook: each changes what it does."""
    alpha, beta = _logs(tmp_path, *PLAIN)
    assert (ENV_BASELINE, ENV_MODEL) == ("EVALGAP_BASELINE", "EVALGAP_BASELINE_MODEL")
    assert _said(beta, monkeypatch) is None
    text, to_stderr = _said(beta, monkeypatch, EVALGAP_BASELINE=str(alpha.parent))
    assert not to_stderr and f"(baseline log {alpha})" in text
    text, to_stderr = _said(
        beta, monkeypatch, EVALGAP_BASELINE=str(alpha.parent), EVALGAP_BASELINE_MODEL="gamma"
    )
    assert to_stderr and f"(check {ENV_MODEL})" in text and "model=" not in text
    monkeypatch.setenv("EVALGAP_HOOK", "0")
    assert not inspect_hooks.EvalgapHooks().enabled()


def test_several_baseline_models_are_named_with_the_environment_variable(tmp_path, monkeypatch):
    """The issue's hint named `model=` (Python); the hook names EVALGAP_BASELINE_MODEL."""
    alpha, beta, again = _logs(tmp_path, *PLAIN, PLAIN[0], names=("a.eval", "b.eval", "c.eval"))
    text, to_stderr = _said(again, monkeypatch, EVALGAP_BASELINE=str(alpha.parent))
    assert to_stderr and text == (
        f"evalgap: cannot compare with the baseline: in {alpha.parent}, logs of 2 models ran "
        f"task arith(n=16,offset=0) (mockllm/alpha, mockllm/beta); name the baseline's model "
        f"with {ENV_MODEL}"
    )
    text, _ = _said(
        again,
        monkeypatch,
        EVALGAP_BASELINE=str(alpha.parent),
        EVALGAP_BASELINE_MODEL="mockllm/beta",
    )
    assert text.startswith(f"evalgap: mockllm/alpha against mockllm/beta (baseline log {beta}): ")
    # the same model twice: the latest of its logs, and how many matched
    text, _ = _said(
        again,
        monkeypatch,
        EVALGAP_BASELINE=str(alpha.parent),
        EVALGAP_BASELINE_MODEL="mockllm/alpha",
    )
    assert f"(baseline log {alpha})" in text and "mockllm/alpha (baseline)" in text


def test_a_log_is_not_compared_with_itself(tmp_path, monkeypatch):
    [log] = _logs(tmp_path, PLAIN[0])
    with pytest.raises(InputError) as raised:
        report(log, log)
    assert str(raised.value) == (
        f"baseline=: names the new log itself ({log}); a log is not compared with itself: "
        "name an earlier log, or a folder of logs"
    )
    text, to_stderr = _said(log, monkeypatch, EVALGAP_BASELINE=str(log))
    assert to_stderr and "\n" not in text
    assert text.startswith(f"evalgap: cannot compare with the baseline: {ENV_BASELINE}: names")
    assert not log.with_name(log.name + ".evalgap.jsonl").exists()
    # a folder holding only the new log of its task has no baseline, and lists what it holds
    text, _ = _said(log, monkeypatch, EVALGAP_BASELINE=str(log.parent))
    assert text.endswith(
        f"{ENV_BASELINE}: no finished log of task arith(n=16,offset=0) in {log.parent} other "
        "than the new log; logs there: none"
    )


def test_the_task_metadata_is_named_when_it_set_the_baseline(tmp_path, monkeypatch):
    [log] = _logs(tmp_path, PLAIN[0])
    header = SimpleNamespace(
        eval=SimpleNamespace(
            task="arith", task_args={}, metadata={"evalgap_baseline": str(tmp_path / "nowhere")}
        ),
        status="success",
        location=str(log),
    )
    monkeypatch.delenv("EVALGAP_BASELINE", raising=False)
    text, to_stderr = task_ended(header)
    assert to_stderr and text == (
        "evalgap: cannot compare with the baseline: the task metadata 'evalgap_baseline': "
        f"no such file or folder {str(tmp_path / 'nowhere')!r}"
    )


def test_the_line_counts_errored_samples_and_the_items_a_log_lacks(tmp_path, monkeypatch, run_cli):
    alpha, beta = _logs(tmp_path, *ERRORED)
    text, _ = _said(beta, monkeypatch, EVALGAP_BASELINE=str(alpha))
    expected = _compare_json(run_cli, alpha, beta, "mockllm/beta", "mockllm/alpha")
    assert text == (
        f"evalgap: mockllm/beta against mockllm/alpha (baseline log {alpha}): "
        f"{expected['verdict']}. 7 items compared; left out: 1 errored sample of the new log, "
        "1 errored sample of the baseline."
    )


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("error", "ended in error (RuntimeError: boom), so it was not compared"),
        ("cancelled", "ended as 'cancelled'; nothing compared"),
    ],
)
def test_a_task_that_did_not_finish_is_said_and_not_compared(
    tmp_path, monkeypatch, status, expected
):
    header = SimpleNamespace(
        eval=SimpleNamespace(task="arith", task_args={"n": 40}, metadata=None),
        status=status,
        error=SimpleNamespace(message="RuntimeError: boom\nmore"),
        location=str(tmp_path / "x.eval"),
    )
    monkeypatch.setenv("EVALGAP_BASELINE", str(tmp_path))
    text, to_stderr = task_ended(header)
    assert to_stderr and "\n" not in text
    assert text.startswith(f"evalgap: task arith(n=40) {expected}")
    if status == "error":
        assert KEEP_GOING in text and "fail_on_error=False" in text


def test_find_baseline_refuses_what_is_not_there(tmp_path):
    [log] = _logs(tmp_path, PLAIN[1])
    with pytest.raises(InputError, match=r"^baseline=: no such file or folder"):
        find_baseline(log, tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"^log=: no such file or folder"):
        find_baseline(tmp_path / "new.eval", log)
