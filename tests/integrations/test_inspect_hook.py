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
    import hashlib, sys
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
    def arith(baseline: str = ""):
        return Task(
            dataset=[Sample(input=f"What is {i}+{i}? Number only.", target=str(2 * i), id=f"q{i}")
                     for i in range(120)],
            solver=generate(), scorer=match(),
            metadata={"evalgap_baseline": baseline} if baseline else None,
        )

    name, skill, out, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    logs = inspect_eval(arith(baseline=baseline if baseline != "-" else ""),
                        model=model(name, skill), log_dir=out, display="none")
    print("LOG", logs[0].location)
    """
)


def _run(tmp_path: Path, name: str, skill: int, out: str, baseline: str = "-", env=None):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    full = {**os.environ, "INSPECT_LOG_LEVEL": "warning", **(env or {})}
    full.pop("EVALGAP_BASELINE", None) if env is None else None
    done = subprocess.run(
        [sys.executable, str(script), name, str(skill), str(tmp_path / out), baseline],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=full,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    log = next(line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("LOG"))
    return done, Path(log.removeprefix("file://"))


def test_the_extension_prints_compares_verdict_and_writes_it_beside_the_log(tmp_path, run_cli):
    first, base = _run(tmp_path, "alpha", 210, "base")
    # no baseline configured: the hook stays quiet
    assert not any(line.startswith("evalgap:") for line in first.stdout.splitlines())
    second, new = _run(
        tmp_path, "beta", 150, "new", env={"EVALGAP_BASELINE": str(tmp_path / "base")}
    )
    printed = [line for line in second.stdout.splitlines() if line.startswith("evalgap:")]
    assert len(printed) == 1, second.stdout + second.stderr
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
    assert printed[0] == f"evalgap: mockllm/beta against mockllm/alpha: {expected['verdict']}."
    saved = json.loads(new.with_name(new.name + ".evalgap.json").read_text())
    assert saved == [expected]
    markdown = new.with_name(new.name + ".evalgap.md").read_text()
    assert markdown.startswith("## evalgap compare") and expected["verdict"][1:40] in markdown


def test_the_task_metadata_names_the_baseline_and_a_bad_one_is_one_line(tmp_path):
    _run(tmp_path, "alpha", 210, "base")
    done, _ = _run(tmp_path, "beta", 150, "new", baseline=str(tmp_path / "base"))
    assert sum(line.startswith("evalgap:") for line in done.stdout.splitlines()) == 1
    missing, _ = _run(tmp_path, "beta", 150, "new2", baseline=str(tmp_path / "nowhere"))
    assert "evalgap: cannot compare with the baseline" in missing.stderr
    assert "no such file or folder" in missing.stderr and "Traceback" not in missing.stderr
    off, _ = _run(
        tmp_path,
        "beta",
        150,
        "new3",
        env={"EVALGAP_BASELINE": str(tmp_path / "base"), "EVALGAP_HOOK": "0"},
    )
    assert not any(line.startswith("evalgap:") for line in off.stdout.splitlines())


def test_inspects_own_data_frames_read_as_the_logs_do(tmp_path):
    from inspect_ai.analysis import evals_df, samples_df

    import evalgap
    from evalgap.errors import InputError

    _, base = _run(tmp_path, "alpha", 210, "logs")
    _, new = _run(tmp_path, "beta", 150, "logs")
    samples, evals = samples_df(str(tmp_path / "logs")), evals_df(str(tmp_path / "logs"))
    long = evalgap.read_inspect_frames(samples, evals)
    assert set(long.frame["model"]) == {"mockllm/alpha", "mockllm/beta"}
    assert len(long.frame) == 240 and set(long.frame["task"]) == {"arith"}
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
