"""The GitHub Action run as the runner runs it, without a runner: every ``run:`` step of
action.yml with bash (the runner's flags), its ``${{ }}`` inputs rendered into the step's
environment, a GITHUB_OUTPUT and GITHUB_STEP_SUMMARY file per step, and the action's outputs
read through action.yml's ``outputs:``. Outputs name only files that were written, the job
summary always says something (the error when there is one), and the exit codes are the
documented ones. The cases are the ones .github/workflows/test-action.yml runs with ``uses: ./``,
and that workflow's own check step is run on each. Every ``uses:`` is pinned to a commit.

Steps that need the network are stood in for: the Python of this test run is setup-python's,
the installed ``evalgap`` is the install step's, and the cache steps are skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
SELF_TEST = ROOT / ".github" / "workflows" / "test-action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the Action's steps need bash")


class ActionRun(NamedTuple):
    exit_code: int
    outputs: dict[str, str]
    summary: str
    stdout: str


def _render(text: str, context: dict[str, str]) -> str:
    """Replace each ``${{ name }}`` as the runner does; a name the test does not know fails."""

    def value(match: re.Match) -> str:
        name = match.group(1)
        assert name in context, f"the test does not know the expression ${{{{ {name} }}}}"
        return context[name]

    return EXPRESSION.sub(value, text)


def _read_outputs(path: Path) -> dict[str, str]:
    """The step's outputs from a GITHUB_OUTPUT file: name=value and name<<DELIMITER lines."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text().splitlines() if path.exists() else [])
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for more in lines:
                if more == delimiter:
                    break
                body.append(more)
            outputs[name] = "\n".join(body)
        else:
            name, _, text = line.partition("=")
            outputs[name] = text
    return outputs


def _bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    # shell: bash on a runner is `bash --noprofile --norc -eo pipefail {0}`
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )  # fmt: skip


def _base_env(workdir: Path) -> dict[str, str]:
    temp = workdir.parent / f"{workdir.name}-runner-temp"
    temp.mkdir(exist_ok=True)
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "RUNNER_TEMP": str(temp),
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        "GITHUB_WORKSPACE": str(workdir),
    }


def run_action(workdir: Path, **given: str) -> ActionRun:
    """Run action.yml's steps in ``workdir`` with the inputs ``given`` (the rest default)."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"action.yml has no input {unknown}"
    inputs.update(given)
    context = {f"inputs.{name}": value for name, value in inputs.items()}
    context["github.action_path"] = str(ROOT)
    context["steps.python.outputs.python-version"] = ".".join(map(str, sys.version_info[:3]))
    steps_outputs: dict[str, dict[str, str]] = {}
    summary, stdout, exit_code = "", "", 0
    files = Path(tempfile.mkdtemp(prefix="runner-files-", dir=workdir.parent))
    for number, step in enumerate(ACTION["runs"]["steps"]):
        if "uses" in step or step.get("name") == "Install evalgap":
            continue  # the stand-ins: this run's Python and its installed evalgap
        assert step.get("shell") == "bash", step
        for step_id, outputs in steps_outputs.items():
            context.update({f"steps.{step_id}.outputs.{k}": v for k, v in outputs.items()})
        output_file, summary_file = files / f"output-{number}", files / f"summary-{number}"
        env = _base_env(workdir)
        env.update({k: _render(str(v), context) for k, v in step.get("env", {}).items()})
        env.update(GITHUB_OUTPUT=str(output_file), GITHUB_STEP_SUMMARY=str(summary_file))
        done = _bash(step["run"], env, workdir)
        if "id" in step:
            steps_outputs[step["id"]] = _read_outputs(output_file)
        if summary_file.exists():
            summary += summary_file.read_text()
        stdout += done.stdout
        if done.returncode != 0:
            exit_code = done.returncode
            break  # the runner runs no later step of a failed action
    outputs = {}
    for name, spec in ACTION["outputs"].items():
        step_id, output = re.fullmatch(
            r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}", spec["value"]
        ).groups()
        outputs[name] = steps_outputs.get(step_id, {}).get(output, "")
    return ActionRun(exit_code, outputs, summary, stdout)


def _documented_exit_codes() -> dict[str, int]:
    """The exit codes action.yml documents: {'passed': 0, 'the gate failed': 1, ...}."""
    text = ACTION["outputs"]["exit-code"]["description"]
    listed = re.search(r"\((\d [^,)]+(?:, \d [^,)]+)*)\)", text).group(1)
    return {meaning: int(code) for code, meaning in (p.split(" ", 1) for p in listed.split(", "))}


def _assert_honest(run: ActionRun, workdir: Path) -> None:
    """Every output naming a file names one that was written; the summary is never empty."""
    report = run.outputs["report"]
    if report:
        assert (workdir / report).is_file(), f"report={report} but no such file was written"
    assert run.summary.strip(), "the job summary is empty"
    assert run.outputs["exit-code"] == str(run.exit_code)


def _workdir(tmp_path: Path) -> Path:
    workdir = tmp_path / "workspace"
    (workdir / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "two_models.csv", workdir / "examples")
    return workdir


def _self_test_cases() -> list[dict]:
    jobs = yaml.safe_load(SELF_TEST.read_text())["jobs"]
    return jobs["gate"]["strategy"]["matrix"]["include"]


def test_the_documented_exit_codes_are_those_of_the_docs():
    codes = _documented_exit_codes()
    assert codes == {"passed": 0, "the gate failed": 1, "bad input": 2}
    assert (
        "`exit-code` (0 passed, 1 the gate failed, 2 bad input)"
        in (ROOT / "docs" / "ci.md").read_text()
    )


def test_bad_input_sets_no_report_and_puts_the_error_in_the_summary(tmp_path):
    workdir = _workdir(tmp_path)
    (workdir / "evalgap-report.md").write_text("## evalgap degrade\n\nan earlier run: passed\n")
    run = run_action(
        workdir, args="--scores\nmissing scores.csv\n--baseline\nmodel-x\n--candidate\nmodel-y"
    )
    assert run.exit_code == _documented_exit_codes()["bad input"]
    _assert_honest(run, workdir)
    assert run.outputs["report"] == "" and not (workdir / "evalgap-report.md").exists()
    assert "evalgap: error:" in run.summary and "missing scores.csv" in run.summary
    assert "earlier run" not in run.summary
    assert "::error title=evalgap::evalgap: error:" in run.stdout


def test_a_gate_that_passes_and_one_that_fails_set_the_report_they_wrote(tmp_path):
    workdir = _workdir(tmp_path)
    args = (
        "--scores\nexamples/two_models.csv\n--baseline\n{}\n--candidate\n{}\n--fail-on-degradation"
    )
    codes = _documented_exit_codes()
    for baseline, candidate, expected in [
        ("model-y", "model-x", codes["passed"]),
        ("model-x", "model-y", codes["the gate failed"]),
    ]:
        run = run_action(workdir, args=args.format(baseline, candidate), report="out/gate.md")
        assert run.exit_code == expected, run.stdout
        _assert_honest(run, workdir)
        report = (workdir / "out" / "gate.md").read_text()
        assert run.outputs["report"] == "out/gate.md" and report.startswith("## evalgap degrade")
        assert run.summary == report  # the report, and nothing else


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"command": "delete"}, "command must be degrade, compare, audit or ranks"),
        ({"summary": "yes"}, 'summary must be "true" or "false"'),
        ({"report": "-"}, "report must be a file name"),
        ({"report": "a.md\nexit-code=0"}, "report must be a file name"),
    ],
)
def test_bad_action_inputs_are_refused_in_the_summary(tmp_path, inputs, message):
    workdir = _workdir(tmp_path)
    run = run_action(workdir, **{"args": "--scores\nexamples/two_models.csv", **inputs})
    assert run.exit_code == 2
    _assert_honest(run, workdir)
    assert run.outputs["report"] == "" and message in run.summary and message in run.stdout


def test_with_summary_false_only_an_error_reaches_the_summary(tmp_path):
    workdir = _workdir(tmp_path)
    good = "--scores\nexamples/two_models.csv\n--baseline\nmodel-y\n--candidate\nmodel-x"
    run = run_action(workdir, args=good, summary="false")
    assert run.exit_code == 0 and run.summary == "" and run.outputs["report"]
    bad = good.replace("examples/two_models.csv", "missing.csv")
    run = run_action(workdir, args=bad, summary="false")
    assert run.exit_code == 2 and "missing.csv" in run.summary


def test_what_evalgap_prints_is_read_as_no_workflow_command(tmp_path):
    workdir = _workdir(tmp_path)
    run = run_action(workdir, args="--scores\n::add-mask::x.csv\n--baseline\na\n--candidate\nb")
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].removeprefix("::stop-commands::")
    assert len(token) >= 32 and f"::{token}::" in lines
    end = lines.index(f"::{token}::")
    assert any("::add-mask::x.csv" in line for line in lines[start:end])
    assert not any(line.startswith("::add-mask::") for line in lines[end:])


def test_the_cache_key_follows_the_action_dependencies(tmp_path):
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "pip-cache")
    env = _base_env(tmp_path)
    env.update(ACTION_PATH=str(ROOT), PYTHON_VERSION="3.11.9", GITHUB_OUTPUT=str(tmp_path / "out"))
    done = _bash(step["run"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    outputs = _read_outputs(tmp_path / "out")
    if not outputs:
        pytest.skip("pip's cache is disabled here (pip cache dir fails), so the step sets none")
    assert outputs["key"].startswith(outputs["restore-key"])
    assert outputs["restore-key"].startswith("evalgap-pip-Linux-X64-py3.11.9-")
    assert Path(outputs["dir"]).is_absolute()


@pytest.mark.parametrize("case", _self_test_cases(), ids=lambda case: case["case"])
def test_the_workflow_cases_pass_their_own_check(tmp_path, case):
    """The self-test workflow's `uses: ./` step and check step, for one case of its matrix."""
    steps = yaml.safe_load(SELF_TEST.read_text())["jobs"]["gate"]["steps"]
    action = next(s for s in steps if s.get("uses") == "./")
    check = next(s for s in steps if s.get("name", "").startswith("The exit code"))
    context = {f"matrix.{k}": str(v) for k, v in case.items()}
    workdir = _workdir(tmp_path)
    run = run_action(workdir, **{k: _render(v, context) for k, v in action["with"].items()})
    _assert_honest(run, workdir)
    assert run.exit_code == case["exit-code"]
    context.update({f"steps.{action['id']}.outputs.{k}": v for k, v in run.outputs.items()})
    context[f"steps.{action['id']}.outcome"] = "success" if run.exit_code == 0 else "failure"
    env = {**os.environ, **{k: _render(str(v), context) for k, v in check["env"].items()}}
    done = _bash(check["run"], env, workdir)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflow_covers_a_degraded_and_a_non_degraded_pair():
    codes = {case["exit-code"] for case in _self_test_cases()}
    assert {0, 1, 2} <= codes


def _uses(node) -> list[str]:
    if isinstance(node, dict):
        found = [node["uses"]] if isinstance(node.get("uses"), str) else []
        return found + [u for value in node.values() for u in _uses(value)]
    if isinstance(node, list):
        return [u for value in node for u in _uses(value)]
    return []


@pytest.mark.parametrize(
    "path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_action_used_is_pinned_to_a_commit_with_its_tag_beside_it(path):
    text = path.read_text()
    uses = _uses(yaml.safe_load(text))
    assert uses
    for use in uses:
        if use.startswith("./"):
            continue  # this repository's own action, at the commit under test
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", use), f"{use} is not pinned to a SHA"
        assert re.search(rf"uses: {re.escape(use)} # v\d+(\.\d+)*\n", text), (
            f"{use}: say which release the SHA is, as '# vX.Y.Z' after it"
        )


def test_the_docs_pin_the_actions_they_show():
    text = (ROOT / "docs" / "ci.md").read_text()
    for use in re.findall(r"uses: (actions/\S+)", text):
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", use), f"docs/ci.md: {use}"


def _release_check():
    pytest.importorskip("tomllib", reason="the release check runs on Python 3.11 or later")
    sys.path.insert(0, str(ROOT / ".github" / "scripts"))
    try:
        import release_check
    finally:
        sys.path.pop(0)
    return release_check


def test_a_release_tag_must_be_the_package_version_with_a_changelog_section(tmp_path):
    release_check = _release_check()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "evalgap"\nversion = "1.2.0"\n')
    (tmp_path / "CHANGELOG.md").write_text(
        "# Changelog\n\n## [Unreleased]\n\n"
        "## [1.2.0] - 2026-12-01\n\n- a fix\n\n## [1.1.0]\n\n- x\n"
    )
    assert release_check.check("v1.2.0", tmp_path) == "- a fix\n"
    for tag, says in [
        ("v1.2.1", "does not match the package version 1.2.0"),
        ("1.2.0", "is not a release tag"),
        ("v1.2", "is not a release tag"),
        ("v1", "is not a release tag"),
    ]:
        with pytest.raises(ValueError, match=says):
            release_check.check(tag, tmp_path)
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n\n## [Unreleased]\n\n- a fix\n")
    with pytest.raises(ValueError, match=r"no section '## \[1.2.0\]'"):
        release_check.check("v1.2.0", tmp_path)
