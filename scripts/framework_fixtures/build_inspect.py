"""Write small genuine inspect_ai logs with weightless mock models; run inside a venv with
inspect-ai installed (see ../make_framework_fixtures.py). Usage: build_inspect.py OUT_DIR

The "models" are ``mockllm`` models whose answer is a fixed function of the question text
and the model's name (no weights, no network). The oracle file records, per log, what
inspect's own reader (``read_eval_log``) says: sample count, errors, the headline metric of
each scorer, and each sample's reduced value, so the tests can compare evalgap with it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

from inspect_ai import Epochs, Task, eval, eval_set, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Target,
    accuracy,
    match,
    mean,
    scorer,
)
from inspect_ai.solver import TaskState, generate, solver

OUT = Path(sys.argv[1])


def _digit(text: str, salt: str) -> int:
    return hashlib.sha256((salt + text).encode()).digest()[0]


def weightless(name: str, skill: int):
    """A mock model answering right when a hash of (name, question) falls under ``skill``/256."""
    calls = {"n": 0}

    def answer(messages, tools, tool_choice, config):
        calls["n"] += 1
        question = messages[-1].text
        a, b = (int(x) for x in question.split()[2].rstrip("?").split("+"))
        right = _digit(question + str(calls["n"] if "noisy" in name else ""), name) < skill
        return ModelOutput.from_content(model=name, content=str(a + b if right else a + b + 1))

    return get_model(f"mockllm/{name}", custom_outputs=answer)


def samples(n: int, *, ids: bool = True, offset: int = 0):
    out = []
    for i in range(n):
        a, b = 3 * i + 1 + offset, 7 * i + 2
        out.append(
            Sample(
                input=f"What is {a}+{b}? Answer with the number only.",
                target=str(a + b),
                id=f"q{i:02d}" if ids else None,
            )
        )
    return out


@scorer(metrics=[accuracy()])
def yes_no():
    async def score(state: TaskState, target: Target) -> Score:
        ok = state.output.completion.strip() == target.text
        return Score(value="yes" if ok else "no")

    return score


@scorer(metrics={"exact": [mean()], "close": [mean()]})
def two_parts():
    async def score(state: TaskState, target: Target) -> Score:
        got = state.output.completion.strip()
        exact = got == target.text
        close = abs(int(got) - int(target.text)) <= 1
        return Score(value={"exact": int(exact), "close": int(close)})

    return score


@scorer(metrics=[accuracy()])
def letter():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=CORRECT if state.output.completion.strip() == target.text else INCORRECT)

    return score


@solver
def flaky(bad_ids):
    async def solve(state: TaskState, generate_):
        if state.sample_id in bad_ids:
            raise RuntimeError(f"simulated failure on {state.sample_id}")
        return state

    return solve


@task
def arith(n: int = 16, offset: int = 0):
    return Task(
        dataset=MemoryDataset(samples(n, offset=offset), name="arith"),
        solver=generate(),
        scorer=[match(), yes_no(), two_parts()],
    )


def run(tasks, model, log_dir, **kw):
    logs = eval(
        tasks,
        model=model,
        log_dir=str(log_dir),
        display="none",
        max_samples=1,
        max_connections=1,
        **kw,
    )
    assert all(log.status in ("success", "error") for log in logs)
    return logs


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    alpha, beta = weightless("alpha", 150), weightless("beta", 110)
    # 1. the same task, both formats, three scorers (match: C/I, yes_no: yes/no, dict)
    for fmt in ("eval", "json"):
        for m in (alpha, beta):
            run(arith(), m, OUT / f"plain_{fmt}", log_format=fmt)
    # 2. epochs reduced by "max" (the model answers differently per call)
    for name, skill in (("noisy-alpha", 130), ("noisy-beta", 100)):
        run(
            Task(
                dataset=MemoryDataset(samples(12), name="epochs"),
                solver=generate(),
                scorer=letter(),
                epochs=Epochs(2, "max"),
                name="epochs_max",
            ),
            weightless(name, skill),
            OUT / "epochs",
            log_format="eval",
        )
    # 3. an errored sample, kept going with fail_on_error=False
    for m in (alpha, beta):
        run(
            Task(
                dataset=MemoryDataset(samples(8), name="errs"),
                solver=[flaky({"q03"}), generate()],
                scorer=letter(),
                name="with_error",
            ),
            m,
            OUT / "errored",
            log_format="eval",
            fail_on_error=False,
        )
    # 4. an eval set (writes logs.json beside the logs)
    eval_set(
        [
            Task(
                dataset=MemoryDataset(samples(10), name="set"),
                solver=generate(),
                scorer=letter(),
                name="set_task",
            )
        ],
        model=[weightless("alpha", 150), weightless("beta", 110)],
        log_dir=str(OUT / "eval_set"),
        display="none",
        log_format="eval",
    )
    # 5. a shuffled dataset without ids: ids are positions after shuffling
    for m, seed in ((alpha, 1), (beta, 2)):
        ds = MemoryDataset(samples(12, ids=False), name="noids", shuffled=False)
        ds.shuffle(seed=seed)
        run(
            Task(dataset=ds, solver=generate(), scorer=letter(), name="shuffled"),
            m,
            OUT / "shuffled",
            log_format="json",
        )
    # 6. one task under two -T variants
    for m in (alpha, beta):
        for offset in (0, 100):
            run(
                arith(n=8, offset=offset),
                m,
                OUT / "variants",
                log_format="json",
                task_args={"n": 8, "offset": offset},
            )
    write_oracle()


def write_oracle() -> None:
    oracle = {}
    for info in list_eval_logs(str(OUT), recursive=True):
        log = read_eval_log(info.name)
        rel = str(Path(info.name.replace("file://", "")).relative_to(OUT))
        reduced = {}
        for r in log.reductions or []:
            reduced[r.scorer] = {str(s.sample_id): s.value for s in r.samples}
        by_input = {}
        for s in log.samples or []:
            if s.error is None and s.epoch == 1:
                by_input[str(s.id)] = s.input if isinstance(s.input, str) else str(s.input)
        oracle[rel] = {
            "model": log.eval.model,
            "task": log.eval.task,
            "task_args": log.eval.task_args,
            "status": log.status,
            "shuffled": log.eval.dataset.shuffled,
            "samples": len(log.samples or []),
            "errors": sum(1 for s in log.samples or [] if s.error is not None),
            "metrics": {
                sc.name: {k: m.value for k, m in sc.metrics.items()}
                for sc in (log.results.scores if log.results else [])
            },
            "reduced": reduced,
            "input_of_id": by_input,
        }
    (OUT / "oracle.json").write_text(json.dumps(oracle, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
