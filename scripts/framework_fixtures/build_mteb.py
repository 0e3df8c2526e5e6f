"""Write genuine MTEB result files with mteb's own TaskResult (no model run, no network).

Run inside a venv with ``mteb`` installed: ``python build_mteb.py OUT``. Two models, five
tasks (one with two language subsets), each task's scores set by a fixed rule; each result
is written by ``TaskResult.to_disk`` to ``OUT/<org>__<model>/<revision>/<Task>.json``, as
mteb lays out results. ``OUT/oracle.json`` keeps mteb's own ``get_score()`` of each.
"""

import hashlib
import json
import sys
from pathlib import Path

import mteb
from mteb.results import TaskResult

OUT = Path(sys.argv[1])
TASKS = [
    "Banking77Classification",
    "STSBenchmark",
    "SciFact",
    "TwitterURLCorpus",
    "AmazonCounterfactualClassification",
]


def value(model: str, task: str, subset: str) -> float:
    digest = hashlib.sha256(f"{model}|{task}|{subset}".encode()).digest()[0]
    return round(0.4 + 0.5 * digest / 255, 4)


oracle = {}
for model in ("org/model-a", "org/model-b"):
    for name in TASKS:
        task = mteb.get_task(name)
        split = task.metadata.eval_splits[0]
        subsets = list(task.hf_subsets)[:2] or ["default"]
        scores = {
            split: {
                s: {
                    "main_score": value(model, name, s),
                    task.metadata.main_score: value(model, name, s),
                }
                for s in subsets
            }
        }
        result = TaskResult.from_task_results(task, scores, evaluation_time=1.0)
        folder = OUT / model.replace("/", "__") / "no_revision_available"
        folder.mkdir(parents=True, exist_ok=True)
        result.to_disk(folder / f"{name}.json")
        oracle.setdefault(model, {})[name] = result.get_score()
(OUT / "oracle.json").write_text(json.dumps(oracle, indent=1, sort_keys=True))
