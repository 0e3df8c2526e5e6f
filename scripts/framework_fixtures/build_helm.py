"""Write small genuine HELM runs; run inside a venv with crfm-helm installed
(see ../make_framework_fixtures.py). Usage: build_helm.py OUT_DIR

Models: HELM's own ``simple/model1`` (it answers with the prompt's last word) and
``simple/model2``, a deployment of a weightless client defined here (it answers a fixed
function of the prompt), registered through a local ``prod_env``. Scenarios: HELM's offline
``simple_mcqa`` and ``simple_classification``; ``simple_mcqa`` is run in two suites (one
scenario under two configurations) and, for model2, through a ``model_deployment=`` entry.
Only the per-run JSON files are kept (scenario_state.json is dropped to keep them small).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

OUT = Path(sys.argv[1])
HERE = Path(__file__).resolve().parent

CLIENT = '''
import hashlib

from helm.clients.simple_client import SimpleClient


class WeightlessClient(SimpleClient):
    """Answers "A"-"D" (or Even/Odd) from a hash of the prompt."""

    def invoke_model(self, raw_request):
        digest = hashlib.sha256(raw_request["prompt"].encode()).digest()[0]
        words = raw_request["prompt"].split()
        if "parity" in raw_request["prompt"].lower():
            answer = "Even" if digest % 2 else "Odd"
        else:
            answer = words[-1] if digest < 120 else "ABCD"[digest % 4]
        return {"completions": [answer] * raw_request["num_completions"]}
'''

DEPLOYMENTS = """model_deployments:
  - name: simple/model2
    model_name: simple/model2
    tokenizer_name: simple/tokenizer1
    max_sequence_length: 2048
    client_spec:
      class_name: "weightless_helm_client.WeightlessClient"
"""

METADATA = """models:
  - name: simple/model2
    display_name: Weightless model 2
    description: A weightless test model.
    creator_organization_name: evalgap
    access: open
    release_date: 2025-01-01
    tags: [TEXT_MODEL_TAG, FULL_FUNCTIONALITY_TEXT_MODEL_TAG]
"""


def helm_run(entries: list[str], suite: str, work: Path) -> None:
    subprocess.run(
        [
            str(Path(sys.executable).parent / "helm-run"),
            "--run-entries",
            *entries,
            "--suite",
            suite,
            "--max-eval-instances",
            "12",
            "-o",
            str(work / "benchmark_output"),
            "--local-path",
            str(work / "prod_env"),
            "--disable-cache",
        ],
        check=True,
        cwd=work,
        env={"PYTHONPATH": str(work), "PATH": "/usr/bin:/bin"},
    )


def main() -> None:
    work = OUT.parent / "helm_work"
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(OUT, ignore_errors=True)
    (work / "prod_env").mkdir(parents=True)
    (work / "weightless_helm_client.py").write_text(CLIENT)
    (work / "prod_env" / "model_deployments.yaml").write_text(DEPLOYMENTS)
    (work / "prod_env" / "model_metadata.yaml").write_text(METADATA)
    mixed = "simple_classification:model=simple/model2,model_deployment=simple/model2"
    helm_run(
        [
            "simple_mcqa:model=simple/model1",
            "simple_mcqa:model=simple/model2",
            "simple_classification:model=simple/model1",
            mixed,
        ],
        "v1",
        work,
    )
    helm_run(["simple_mcqa:model=simple/model1", "simple_mcqa:model=simple/model2"], "v2", work)
    for run in (work / "benchmark_output" / "runs").glob("*/*"):
        if not (run / "per_instance_stats.json").exists():
            continue
        target = OUT / run.parent.name / run.name
        target.mkdir(parents=True)
        for name in ("run_spec.json", "per_instance_stats.json", "stats.json"):
            shutil.copy(run / name, target / name)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
