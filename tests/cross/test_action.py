"""The GitHub Action: action.yml validates against the Actions metadata schema, and its run
step gates, writes the job summary and outputs, and runs no input as a command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"


def test_action_yml_validates_against_the_actions_metadata_schema():
    out = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
         str(ACTION)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr


def _run_step(tmp_path: Path, command: str, args: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Run the action's 'Run evalgap' step as the runner would: its inputs in the env."""
    steps = yaml.safe_load(ACTION.read_text())["runs"]["steps"]
    script = next(s for s in steps if s.get("id") == "run")["run"]
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "EVALGAP_COMMAND": command,
        "EVALGAP_ARGS": args,
        "EVALGAP_REPORT": str(tmp_path / "report.md"),
        "EVALGAP_SUMMARY": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
    }
    done = subprocess.run(
        ["bash", "-e", "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=300,
    )  # fmt: skip
    return done, output


def _scores(path: Path) -> Path:
    rng = np.random.default_rng(0)
    base = rng.random(2000) < 0.75
    worse = base & (rng.random(2000) > 0.08)  # the candidate loses 8% of the base's right answers
    rows = [("base", f"q{i}", float(v)) for i, v in enumerate(base)]
    rows += [("fp8", f"q{i}", float(v)) for i, v in enumerate(worse)]
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(path, index=False)
    return path


def test_the_gate_fails_with_its_report_in_the_summary_and_outputs(tmp_path):
    scores = _scores(tmp_path / "my scores.csv")  # an argument with a space, on its own line
    args = f"--scores\n{scores}\n--baseline\nbase\n--candidate\nfp8\n--fail-on-degradation\n"
    done, output = _run_step(tmp_path, "degrade", args)
    assert done.returncode == 1, done.stderr
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("## evalgap degrade") and "|" in report
    assert (tmp_path / "summary.md").read_text() == report
    assert "exit-code=1" in output.read_text() and "report=" in output.read_text()


def test_a_failed_run_never_publishes_an_earlier_report(tmp_path):
    (tmp_path / "report.md").write_text("## evalgap degrade\n\nan earlier run: passed\n")
    done, output = _run_step(tmp_path, "degrade", "--scores\nmissing.csv")
    assert done.returncode == 2 and not (tmp_path / "report.md").exists()
    summary = tmp_path / "summary.md"
    assert not summary.exists() or "earlier run" not in summary.read_text()
    assert "exit-code=2" in output.read_text()


def test_no_input_runs_as_a_command(tmp_path):
    done, _ = _run_step(
        tmp_path, "degrade", "--scores\n$(touch pwned)\n`touch pwned2`; touch pwned3"
    )
    assert done.returncode == 2
    assert not any((tmp_path / name).exists() for name in ("pwned", "pwned2", "pwned3"))
    bad, _ = _run_step(tmp_path, "degrade; touch pwned4", "--help")
    assert bad.returncode == 2 and not (tmp_path / "pwned4").exists()
    assert "command must be degrade, compare, audit or ranks" in bad.stdout


@pytest.mark.parametrize("command", ["compare", "audit"])
def test_other_commands_write_their_report(tmp_path, command):
    scores = _scores(tmp_path / "s.csv")
    if command == "audit":
        args = f"--scores\n{scores}\n--n-bootstrap\n0\n--n-bootstrap-required-n\n0"
    else:
        args = f"--scores\n{scores}\n--model-a\nbase\n--model-b\nfp8"
    done, _ = _run_step(tmp_path, command, args)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report.md").read_text().startswith(f"## evalgap {command}")
