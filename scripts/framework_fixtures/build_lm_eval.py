"""Write small genuine lm-evaluation-harness logs; run inside a venv with lm-eval installed
(see ../make_framework_fixtures.py). Usage: build_lm_eval.py OUT_DIR

Tasks are local ``dataset_path: json`` YAMLs: ``tiny_gen`` (generation, two filters like
gsm8k: ``strict-match`` and ``flexible-extract``) and ``tiny_mc`` (multiple choice: acc and
acc_norm). Models: ``--model dummy`` (random loglikelihoods, answers "lol") and a weightless
registered LM whose answers are a fixed function of the prompt and its ``pretrained=`` name.
``reordered/`` runs ``tiny_mc`` once on the documents in order and once on the same
documents re-ordered, so the same ``doc_id`` names different documents.
Each run goes through lm-eval's own command line (``lm_eval ... --log_samples``).
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
from importlib.metadata import version as _version
from pathlib import Path

VERSION = _version("lm_eval")
V = tuple(int(x) for x in VERSION.split(".")[:3])
OLD = V <= (0, 4, 2)
if OLD:
    # lm-eval <= 0.4.2 fetches its exact_match metric from the Hugging Face Hub when imported;
    # offline, give it the same computation (mean of prediction == reference) locally.
    import evaluate

    class _ExactMatch:
        def compute(self, predictions, references, **kwargs):
            same = [p == r for p, r in zip(predictions, references, strict=False)]
            return {"exact_match": sum(same) / len(same)}

    _load = evaluate.load
    evaluate.load = lambda name, *a, **k: (
        _ExactMatch() if name == "exact_match" else _load(name, *a, **k)
    )

import lm_eval  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.api.registry import get_model, register_model  # noqa: E402

try:
    get_model("dummy")  # load the built-in models before registering one more
except Exception:
    import lm_eval.models  # older versions register their models on import

OUT = Path(sys.argv[1])
PARTS = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None  # rebuild only these


def _h(text: str, salt: str) -> int:
    return hashlib.sha256((salt + "|" + text).encode()).digest()[0]


@register_model("weightless")
class Weightless(LM):
    """Answers right when a hash of (name, prompt) falls under ``skill``/256."""

    def __init__(self, pretrained: str = "weightless", skill: int = 128, **kwargs) -> None:
        super().__init__()
        self.name, self.skill = pretrained, int(skill)

    @classmethod
    def create_from_arg_string(cls, arg_string, additional_config=None):
        args = dict(kv.split("=", 1) for kv in arg_string.split(",") if kv)
        return cls(**args)

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        out = []
        for r in requests:
            context, continuation = r.args
            gold = continuation.strip().startswith("(right)")
            score = -(_h(context + continuation, self.name) / 64.0)
            if gold and _h(context, self.name) < self.skill:
                score = 1.0
            out.append((score, False))
        return out

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for r in requests:
            context = r.args[0]
            question = context.split("Question: What is ")[-1].split("?")[0]
            a, b = (int(x) for x in question.split("+"))
            right = _h(context, self.name) < self.skill
            value = a + b if right else a + b + 1
            style = _h(context, self.name + "style") % 3
            text = [f"#### {value}", f"The answer is {value}.", f"so {value} it is"][style]
            out.append(text)
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        return [-1.0 for _ in requests]


GEN_YAML = """task: tiny_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Question: What is {{{{a}}}}+{{{{b}}}}?\\nAnswer:"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
filter_list:
  - name: strict-match
    filter:
      - function: regex
        regex_pattern: "#### (\\\\-?[0-9\\\\.\\\\,]+)"
      - function: take_first
  - name: flexible-extract
    filter:
      - function: regex
        group_select: -1
        regex_pattern: "(-?[$0-9.,]{{2,}})|(-?[0-9]+)"
      - function: take_first
metadata:
  version: 1.0
"""

MC_YAML = """task: tiny_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: "{{{{label}}}}"
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def write_tasks(root: Path, *, reorder: bool) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    gen = [{"a": 3 * i + 1, "b": 7 * i + 2, "answer": str(10 * i + 3)} for i in range(30)]
    mc = []
    for i in range(30):
        wrong = [f"option {i}-{k}" for k in range(3)]
        label = i % 4
        choices = [*wrong[:label], f"(right) answer {i}", *wrong[label:]]
        mc.append(
            {
                "question": f"Which answer belongs to question {i}?",
                "choices": choices,
                "label": label,
            }
        )
    if reorder:
        random.Random(7).shuffle(mc)
    (root / "gen.jsonl").write_text("".join(json.dumps(d) + "\n" for d in gen))
    (root / "mc.jsonl").write_text("".join(json.dumps(d) + "\n" for d in mc))
    (root / "tiny_gen.yaml").write_text(GEN_YAML.format(data=root / "gen.jsonl"))
    (root / "tiny_mc.yaml").write_text(MC_YAML.format(data=root / "mc.jsonl"))
    return root


def cli(args: list[str]) -> None:
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval", *args]
    try:
        cli_evaluate()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise


def main() -> None:
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1)
    if OUT.exists() and PARTS is None:
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True, exist_ok=True)

    def want(part: str) -> bool:
        return PARTS is None or part in PARTS

    tasks = write_tasks(OUT.parent / "lm_eval_tasks" / "ordered", reorder=False)
    shuffled = write_tasks(OUT.parent / "lm_eval_tasks" / "reordered", reorder=True)
    common = ["--log_samples", "--seed", "0", "--batch_size", "1"]
    for name, skill in (("weightless-a", 150), ("weightless-b", 110)):
        if not want("runs"):
            break
        cli(
            [
                "--model",
                "weightless",
                "--model_args",
                f"pretrained={name},skill={skill}",
                "--tasks",
                "tiny_gen,tiny_mc",
                "--include_path",
                str(tasks),
                "--output_path",
                str(OUT / "runs" / (name if OLD else "")),
                *common,
            ]
        )
    if want("dummy"):
        cli(
            [
                "--model",
                "dummy",
                "--tasks",
                "tiny_mc",
                "--include_path",
                str(tasks),
                "--output_path",
                str(OUT / "dummy"),
                *common,
            ]
        )
    if V >= (0, 4, 13) and want("predict_only"):  # outputs without metrics
        cli(
            [
                "--model",
                "dummy",
                "--tasks",
                "tiny_gen",
                "--include_path",
                str(tasks),
                "--output_path",
                str(OUT / "predict_only"),
                "--predict_only",
                *common,
            ]
        )
    # the same documents, re-ordered, for one model: same doc_ids, different documents
    for name, where in (("weightless-a", tasks), ("weightless-b", shuffled)):
        if not want("reordered"):
            break
        cli(
            [
                "--model",
                "weightless",
                "--model_args",
                f"pretrained={name},skill=128",
                "--tasks",
                "tiny_mc",
                "--include_path",
                str(where),
                "--output_path",
                str(OUT / "reordered" / (name if OLD else "")),
                *common,
            ]
        )
    # the --output_path FILE.json form, two models in one folder
    for name in ("weightless-a", "weightless-b"):
        if not want("file_form"):
            break
        cli(
            [
                "--model",
                "weightless",
                "--model_args",
                f"pretrained={name},skill=140",
                "--tasks",
                "tiny_mc",
                "--include_path",
                str(tasks),
                "--output_path",
                str(OUT / "file_form" / f"{name}.json"),
                *common,
            ]
        )
    # lm_eval.simple_evaluate(..., log_samples=True) in Python: the results dict it returns
    # (per-sample records under "samples"), saved as JSON, for evalgap.read_lm_eval_results
    for name, skill in (("weightless-a", 150), ("weightless-b", 110)):
        if not want("simple_evaluate") or V < (0, 4, 13):
            break
        from lm_eval.tasks import TaskManager

        results = lm_eval.simple_evaluate(
            model=Weightless(pretrained=name, skill=skill),
            tasks=["tiny_gen", "tiny_mc"],
            task_manager=TaskManager(include_path=str(tasks)),
            log_samples=True,
            random_seed=0,
            numpy_random_seed=0,
            torch_random_seed=0,
            batch_size=1,
        )
        target = OUT / "simple_evaluate" / f"{name}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(results, default=str, indent=1))
    (OUT / "VERSION").write_text(str(VERSION) + "\n")
    shutil.rmtree(OUT.parent / "lm_eval_tasks", ignore_errors=True)


if __name__ == "__main__":
    main()
