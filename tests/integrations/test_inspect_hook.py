"""The inspect_ai extension, with the real inspect_ai and its mockllm provider, offline: two
runs of one task, the second with a baseline configured, end with evalgap's paired verdict,
equal to `evalgap compare` on the same two logs, and written beside the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")

# Two mock models answer a fixed function of the question (no weights, no network); their
# outputs carry token usage, so mockllm counts no tokens (tiktoken would download its table).
SCRIPT = textwrap.dedent(
    """
    import hashlib, os, sys
    from inspect_ai import Task, eval as inspect_eval, task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    def model(name, skill):
        def answer(messages, tools, tool_choice, config):
            question = messages[-1].text
            a = int(question.split()[2].rstrip("?").split("+")[0])
            right = hashlib.sha256((name + question).encode()).digest()[0] < skill
            out = ModelOutput.from_content(model=name, content=str(2 * a if right else 2 * a + 1))
            out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
            return out
        return get_model(f"mockllm/{name}", custom_outputs=answer)

    @task
    def arith():
        # the baseline set in the task's own metadata (not a task argument, which would make
        # each baseline another task to match)
        baseline = os.environ.get("ARITH_BASELINE", "")
        return Task(
            dataset=[Sample(input=f"What is {i}+{i}? Number only.", target=str(2 * i), id=f"q{i}")
                     for i in range(60)],
            solver=generate(), scorer=match(),
            metadata={"evalgap_baseline": baseline} if baseline else None,
        )

    # each argument is one evaluation: NAME:SKILL:LOG_DIR:BASELINE[:VAR=VALUE...] (the
    # variables set for that evaluation alone), run in this one process
    for step in sys.argv[1:]:
        name, skill, out, baseline, *rest = step.split(":")
        env = dict(r.split("=", 1) for r in rest)
        os.environ.update(env)
        print("STEP", step, flush=True)
        print("STEP", step, file=sys.stderr, flush=True)
        os.environ["ARITH_BASELINE"] = baseline if baseline != "-" else ""
        logs = inspect_eval(arith(),
                            model=model(name, int(skill)), log_dir=out, display="none")
        for key in env:
            del os.environ[key]
        print("LOG", logs[0].location, flush=True)
    """
)


def _run(tmp_path: Path, *steps: str) -> tuple[dict[str, list[str]], dict[str, list[str]], list]:
    """Run the evaluations in one process; per step, its stdout and stderr lines, and the
    logs written, in order."""
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVALGAP_")}
    done = subprocess.run(
        [sys.executable, str(script), *steps],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "INSPECT_LOG_LEVEL": "warning"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, list[str]] = {}
    err: dict[str, list[str]] = {}
    for stream, said in ((done.stdout, out), (done.stderr, err)):
        step = ""
        for line in stream.splitlines():
            if line.startswith("STEP "):
                step = line.split(" ", 1)[1]
            said.setdefault(step, []).append(line)
    logs = [
        Path(line.split(" ", 1)[1].removeprefix("file://"))
        for line in done.stdout.splitlines()
        if line.startswith("LOG")
    ]
    return out, err, logs


def _hook_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("evalgap:")]


def test_the_extension_prints_compares_verdict_and_writes_it_beside_the_log(tmp_path, run_cli):
    baseline = f"EVALGAP_BASELINE={tmp_path / 'base'}"
    out, err, (base, new) = _run(tmp_path, "alpha:210:base:-", f"beta:150:new:-:{baseline}")
    # no baseline configured: the hook stays quiet
    assert not _hook_lines(out["alpha:210:base:-"] + err["alpha:210:base:-"])
    printed = _hook_lines(out[f"beta:150:new:-:{baseline}"])
    assert len(printed) == 1, out
    cli = run_cli(
        "compare",
        "--scores",
        base,
        "--scores",
        new,
        "--model-a",
        "mockllm/beta",
        "--model-b",
        "mockllm/alpha",
        "--json",
    )
    expected = json.loads(cli.stdout)
    assert printed[0] == (
        f"evalgap: mockllm/beta against mockllm/alpha (baseline log {base.relative_to(tmp_path)}"
        f"): {expected['verdict']}. 60 items compared; left out: none."
    )
    saved = new.with_name(new.name + ".evalgap.jsonl").read_text().splitlines()
    saved = [json.loads(line) for line in saved]
    assert saved == [expected]
    markdown = new.with_name(new.name + ".evalgap.md").read_text()
    assert markdown.startswith("## evalgap compare") and expected["verdict"][1:40] in markdown


def test_the_task_metadata_names_the_baseline_and_a_bad_one_is_one_line(tmp_path):
    named, missing = f"beta:150:new:{tmp_path / 'base'}", f"beta:150:new2:{tmp_path / 'nowhere'}"
    off = f"beta:150:new3:-:EVALGAP_BASELINE={tmp_path / 'base'}:EVALGAP_HOOK=0"
    out, err, _ = _run(tmp_path, "alpha:210:base:-", named, missing, off)
    assert len(_hook_lines(out[named])) == 1 and not _hook_lines(err[named])
    [line] = _hook_lines(err[missing])
    assert line.startswith(
        "evalgap: cannot compare with the baseline: the task metadata 'evalgap_baseline': "
        "no such file or folder"
    )
    assert not any("Traceback" in line for line in err[missing])
    assert not _hook_lines(out[off] + err[off])


def test_inspects_own_data_frames_read_as_the_logs_do(tmp_path):
    from inspect_ai.analysis import evals_df, samples_df

    import evalgap
    from evalgap.errors import InputError

    _, _, (base, new) = _run(tmp_path, "alpha:210:logs:-", "beta:150:logs:-")
    samples, evals = samples_df(str(tmp_path / "logs")), evals_df(str(tmp_path / "logs"))
    long = evalgap.read_inspect_frames(samples, evals)
    assert set(long.frame["model"]) == {"mockllm/alpha", "mockllm/beta"}
    assert len(long.frame) == 120 and set(long.frame["task"]) == {"arith"}
    framed = evalgap.compare(long, model_a="mockllm/beta", model_b="mockllm/alpha")
    logged = evalgap.compare([base, new], model_a="mockllm/beta", model_b="mockllm/alpha")
    assert (framed.delta, framed.a_only, framed.b_only) == (
        logged.delta,
        logged.a_only,
        logged.b_only,
    )
    assert framed.p_values.exact == logged.p_values.exact
    # the means equal inspect's own accuracy of each log
    accuracy = dict(zip(evals["model"], evals["score_headline_value"], strict=True))
    means = long.frame.groupby("model")["score"].mean()
    assert means.to_dict() == pytest.approx(accuracy)
    with pytest.raises(InputError, match="give evals="):
        evalgap.read_inspect_frames(samples)
    with pytest.raises(InputError, match="not a scorer"):
        evalgap.read_inspect_frames(samples, evals, scorer="nope")
    unscored = samples.copy()
    unscored.loc[unscored.index[:3], "score_match"] = None
    assert (
        "3 sample(s) have no score_match" in evalgap.read_inspect_frames(unscored, evals).notes[0]
    )
