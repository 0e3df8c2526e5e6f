"""Write two genuine SWE-bench run reports with the harness's own ``make_run_report``.

Run inside a venv with ``swebench`` installed (5.0.2 for the fixtures), from an empty folder:
``python build_swebench.py`` writes ``reports/org__model-{a,b}.demo.json``. No Docker and no
network: the per-instance ``report.json`` files the harness would have written after running
each instance's tests are written here (resolved or not, by a fixed rule), one instance has
no prediction, some have empty patches, and one ran without leaving a report (an error).
"""

import json

from swebench.harness.constants import LOG_REPORT, RUN_EVALUATION_LOG_DIR
from swebench.harness.reporting import make_run_report

ids = [f"astropy__astropy-{1000 + i}" for i in range(8)] + [
    f"django__django-{2000 + i}" for i in range(12)
]
dataset = [{"instance_id": i} for i in ids]
for model, resolved, skip, empty in (
    ("org/model-a", set(ids[0:20:2]), {ids[19]}, {ids[5]}),
    ("org/model-b", set(ids[0:20:3]), set(), {ids[7], ids[8]}),
):
    preds = {}
    for i in ids:
        if i in skip:
            continue
        preds[i] = {
            "instance_id": i,
            "model_name_or_path": model,
            "model_patch": "" if i in empty else "diff --git a/x b/x\n",
        }
        if i in empty:
            continue
        d = RUN_EVALUATION_LOG_DIR / "demo" / model.replace("/", "__") / i
        d.mkdir(parents=True, exist_ok=True)
        if i == ids[3] and model == "org/model-b":
            continue  # ran, but no report: an error instance
        (d / LOG_REPORT).write_text(
            json.dumps(
                {
                    i: {
                        "patch_is_None": False,
                        "patch_exists": True,
                        "patch_successfully_applied": True,
                        "resolved": i in resolved,
                        "tests_status": {},
                    }
                }
            )
        )
    make_run_report(preds, dataset, "demo", report_dir="reports")
