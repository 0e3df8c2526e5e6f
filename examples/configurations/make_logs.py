"""Write the inspect_ai logs of docs/configurations.md: 2 models x 2 providers x 2 seeds.

Real inspect_ai runs, offline: inspect's ``mockllm`` provider with a deterministic answer
function stands in for a model API. Each model answers 80 arithmetic questions; whether an
answer is right depends on the model, the question, the provider (a model argument,
``-M provider=...``) and the seed (the generate config's ``seed``). Provider ``slow``
shifts model ``wide``'s accuracy down (a model x provider interaction) and times out on a few
questions (errored samples, kept in the log with ``fail_on_error=False``).

Run from the repository's root (about 20 s)::

    python examples/configurations/make_logs.py

and the logs land in ``examples/configurations/logs/``.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

OUT = Path(__file__).parent / "logs"
ITEMS = 80
# chance of a right answer (of 256) per model and provider
SKILL = {("wide", "fast"): 190, ("wide", "slow"): 150, ("narrow", "fast"): 160,
         ("narrow", "slow"): 160}  # fmt: skip


def _unit(*parts: object) -> int:
    """A number in 0..255 fixed by ``parts``: the same inputs give the same answer."""
    return hashlib.sha256("|".join(map(str, parts)).encode()).digest()[0]


def mock(name: str, provider: str, seed: int):
    """A deterministic model API: right or wrong as the model, item, provider and seed say."""

    def answer(messages, tools, tool_choice, config):
        question = messages[-1].text
        a = int(question.split()[2].split("+")[0])
        if provider == "slow" and _unit("timeout", question, config.seed) < 8:
            raise RuntimeError("the provider timed out")
        # an item's difficulty is shared by every model; the seed reshuffles the rest
        easy = _unit("item", question) - 128
        luck = _unit(name, question, config.seed) - 128
        right = easy // 2 + luck // 2 + SKILL[(name, provider)] > 128
        out = ModelOutput.from_content(model=name, content=str(2 * a if right else 2 * a + 1))
        out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return out

    return get_model(
        f"mockllm/{name}",
        config=GenerateConfig(seed=seed),
        custom_outputs=answer,
        provider=provider,
        memoize=False,
    )


@task
def arithmetic() -> Task:
    """80 sums; the answer is a number."""
    return Task(
        dataset=[
            Sample(input=f"What is {i}+{i}? Number only.", target=str(2 * i), id=f"q{i}")
            for i in range(ITEMS)
        ],
        solver=generate(),
        scorer=match(),
    )


def main() -> None:
    """Write the eight logs (one per model, provider and seed)."""
    shutil.rmtree(OUT, ignore_errors=True)
    for name in ("wide", "narrow"):
        for provider in ("fast", "slow"):
            for seed in (1, 2):
                inspect_eval(
                    arithmetic(),
                    model=mock(name, provider, seed),
                    log_dir=str(OUT),
                    display="none",
                    fail_on_error=False,
                    retry_on_error=0,
                )
    print(f"{len(list(OUT.glob('*.eval')))} logs in {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
