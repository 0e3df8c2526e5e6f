"""A small synthetic leaderboard and writers for every source format evalgap reads.

Each writer produces the files the real tool would (names, layout, record shape), so a
round trip ``write -> load_scores -> align`` must give back the reference arrays.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from paper_tables import TABLE_7

MODELS = ("org-a/alpha", "org-b/beta", "org-c/gamma")
TASKS = {"arc_easy": 40, "gsm8k": 30}
STAMP = "2026-01-21T03-44-18.458309"


def leaderboard(seed: int = 0) -> pd.DataFrame:
    """Reference long frame: model, task, item_id, score (binary)."""
    rng = np.random.default_rng(seed)
    rows = []
    for m_index, model in enumerate(MODELS):
        for task, n in TASKS.items():
            for i in range(n):
                p = 0.5 + 0.1 * m_index
                rows.append((model, task, str(i), float(rng.random() < p)))
    return pd.DataFrame(rows, columns=["model", "task", "item_id", "score"])


def write_lm_eval(
    frame: pd.DataFrame, root: Path, *, metric="acc", stamp=STAMP, extra_metric: str | None = None
) -> Path:
    """``<root>/<org>__<name>/samples_<task>_<stamp>.jsonl`` plus ``results_<stamp>.json``."""
    for model, sub in frame.groupby("model"):
        folder = root / model.replace("/", "__")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"results_{stamp}.json").write_text(
            json.dumps(
                {
                    "model_name": model,
                    "results": {},
                    "config": {"model_args": f"pretrained={model}"},
                }
            )
        )
        for task, rows in sub.groupby("task"):
            with open(folder / f"samples_{task}_{stamp}.jsonl", "w", encoding="utf-8") as out:
                for item, score in zip(rows["item_id"], rows["score"], strict=True):
                    record = {
                        "doc_id": int(item),
                        "doc": {"q": f"question {item}"},
                        "target": "x",
                        "arguments": {"gen_args_0": {"arg_0": "prompt"}},
                        "resps": [["answer"]],
                        "filtered_resps": ["answer"],
                        "filter": "none",
                        "metrics": [metric],
                        metric: score,
                        "doc_hash": "h",
                        "prompt_hash": "p",
                        "target_hash": "t",
                    }
                    if extra_metric:
                        record["metrics"].append(extra_metric)
                        record[extra_metric] = 1.0 - score
                    out.write(json.dumps(record) + "\n")
    return root


def write_oll_v2(frame: pd.DataFrame, root: Path, metric="acc_norm") -> Path:
    for model, sub in frame.groupby("model"):
        folder = root / (model.replace("/", "__") + "-details")
        folder.mkdir(parents=True, exist_ok=True)
        for task, rows in sub.groupby("task"):
            pd.DataFrame(
                {
                    "doc_id": rows["item_id"].astype(int).to_numpy(),
                    "filter": "none",
                    "target": "x",
                    metric: rows["score"].to_numpy(),
                }
            ).to_parquet(folder / f"samples_{task}_{STAMP}.parquet")
    return root


def write_oll_v1(frame: pd.DataFrame, root: Path, *, as_text=False) -> Path:
    for model, sub in frame.groupby("model"):
        folder = root / ("details_" + model.replace("/", "__"))
        folder.mkdir(parents=True, exist_ok=True)
        for task, rows in sub.groupby("task"):
            metrics = [{"acc": s, "acc_norm": s} for s in rows["score"]]
            pd.DataFrame(
                {
                    "example": [f"{task} question {i}" for i in rows["item_id"]],
                    "full_prompt": [f"few-shot ... {task} question {i}" for i in rows["item_id"]],
                    "gold": ["A"] * len(rows),
                    "metrics": [str(m) for m in metrics] if as_text else metrics,
                }
            ).to_parquet(folder / f"details_harness|{task}|25_{STAMP}.parquet")
    return root


def oll_v1_item_ids(frame: pd.DataFrame) -> pd.Series:
    from evalgap.io.open_llm_leaderboard import stable_hash

    return (frame["task"] + " question " + frame["item_id"]).map(stable_hash)


def inspect_log(model: str, task: str, items, scores, *, epochs=1) -> dict:
    samples = []
    for item, score in zip(items, scores, strict=True):
        for epoch in range(1, epochs + 1):
            samples.append(
                {
                    "id": int(item),
                    "epoch": epoch,
                    "scores": {"choice": {"value": "C" if score == 1 else "I"}},
                }
            )
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": task, "model": model},
        "samples": samples,
    }


def write_inspect(frame: pd.DataFrame, root: Path, *, archive=False) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for (model, task), rows in frame.groupby(["model", "task"]):
        log = inspect_log(model, task, rows["item_id"], rows["score"])
        name = f"{task}_{model.replace('/', '_')}"
        if archive:
            with zipfile.ZipFile(root / f"{name}.eval", "w") as z:
                header = {k: v for k, v in log.items() if k != "samples"}
                z.writestr("header.json", json.dumps(header))
                for s in log["samples"]:
                    z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        else:
            (root / f"{name}.json").write_text(json.dumps(log))
    return root


def write_helm(frame: pd.DataFrame, root: Path) -> Path:
    for (model, task), rows in frame.groupby(["model", "task"]):
        run = root / f"{task}:model={model.replace('/', '_')}"
        run.mkdir(parents=True, exist_ok=True)
        (run / "run_spec.json").write_text(
            json.dumps(
                {
                    "name": f"{task}:model={model.replace('/', '_')}",
                    "adapter_spec": {"model": model},
                }
            )
        )
        entries = [
            {
                "instance_id": f"id{i}",
                "train_trial_index": 0,
                "stats": [
                    {
                        "name": {"name": "exact_match", "split": "test"},
                        "count": 1,
                        "sum": s,
                        "mean": s,
                    },
                    {
                        "name": {
                            "name": "exact_match",
                            "split": "test",
                            "perturbation": {"name": "typos"},
                        },
                        "count": 1,
                        "sum": 0,
                        "mean": 0.0,
                    },
                ],
            }
            for i, s in zip(rows["item_id"], rows["score"], strict=True)
        ]
        (run / "per_instance_stats.json").write_text(json.dumps(entries))
    return root


def helm_item_ids(frame: pd.DataFrame) -> pd.Series:
    return "id" + frame["item_id"]


def leaderboard_matrix(n_models: int, n_items: int, *, missing: float = 0.0, seed: int = 0):
    """Binary scores (items x models) with item difficulty and model ability (a Rasch model),
    NaN in a seeded fraction ``missing`` of the cells; models named ``m0000, m0001, ...``."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.5, n_items)
    ability = np.sort(rng.normal(0.0, 1.0, n_models))[::-1]
    p = 1 / (1 + np.exp(difficulty[:, None] - ability[None, :]))
    x = (rng.random((n_items, n_models)) < p).astype(float)
    if missing:
        x[rng.random(x.shape) < missing] = np.nan
    return x, [f"m{m:04d}" for m in range(n_models)]


def table_7() -> pd.DataFrame:
    rows = []
    for r in TABLE_7:
        upper, lower = r.label.split(" vs ")
        rows.append(
            dict(
                zip(
                    ["model_a", "model_b", "both_correct", "a_only", "b_only", "both_wrong"],
                    [f"rank {upper}", f"rank {lower}", *r.cells],
                    strict=True,
                )
            )
        )
    return pd.DataFrame(rows)


def clustered_board(
    seed=0,
    n_items=3000,
    accuracies=(0.74, 0.72, 0.70, 0.64, 0.60),
    cluster_effect=0.0,
    n_clusters=10,
):
    """Synthetic binary leaderboard; a cluster effect shifts each model's accuracy per cluster."""
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, n_clusters, n_items)
    latent = rng.normal(size=n_items)[:, None] * 0.8 + rng.normal(size=(n_items, len(accuracies)))
    shift = rng.normal(0, cluster_effect, (n_clusters, len(accuracies)))[clusters]
    thresholds = np.quantile(latent, accuracies, axis=0).diagonal()
    scores = (latent + shift < thresholds).astype(float)
    rows = [
        {
            "model": f"m{j}",
            "task": "all",
            "item_id": str(i),
            "score": scores[i, j],
            "cluster": f"c{clusters[i]}",
        }
        for i in range(n_items)
        for j in range(len(accuracies))
    ]
    return pd.DataFrame(rows)


def two_model_board() -> pd.DataFrame:
    """1,000 items: only a right on 50, only b right on 28 (Wald t = 22 / sqrt(78 - 0.484) =
    2.50). Fixed n asks t >= z_0.975 + z_0.8 = 2.80, so the pair is unresolved and a, b form
    one unresolved chain; the rank set of two models asks only |t| >= about 1.96, so a is
    shown better than b and they are two tiers."""
    a = np.r_[np.ones(50), np.zeros(28), np.ones(600), np.zeros(322)]
    b = np.r_[np.zeros(50), np.ones(28), np.ones(600), np.zeros(322)]
    items = [f"q{i}" for i in range(1000)]
    return pd.concat(
        [
            pd.DataFrame({"model": name, "task": "all", "item_id": items, "score": values})
            for name, values in (("a", a), ("b", b))
        ],
        ignore_index=True,
    )


def grouped_pair(seed=0, n=600):
    rng = np.random.default_rng(seed)
    group = rng.choice(["g1", "g2", "g3"], n)
    shift = pd.Series({"g1": 0.15, "g2": 0.02, "g3": 0.0})[group].to_numpy()
    a = (rng.random(n) < 0.6 + shift).astype(float)
    b = (rng.random(n) < 0.6).astype(float)
    ids = [f"q{i}" for i in range(n)]
    return pd.DataFrame(
        {
            "model": ["a"] * n + ["b"] * n,
            "task": np.concatenate([group, group]),
            "item_id": ids + ids,
            "score": np.concatenate([a, b]),
        }
    )


def irt_board(seed=0, models=25, items=600, slopes=(0.5, 2.0)):
    """Binary answers of ``models`` models of abilities spread over [-1.5, 1.5] to ``items``
    items of a 2PL (slopes uniform over ``slopes``, intercepts N(0, 1)): a (models, items)
    array."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(-1.5, 1.5, models)
    a, c = rng.uniform(*slopes, items), rng.normal(0, 1, items)
    p = 1 / (1 + np.exp(-(np.outer(skill, a) + c)))
    return (rng.random(p.shape) < p).astype(float)


def long_of(y, names, columns=None):
    """The long frame (model, item_id ``q0000``..., score) of rows ``y`` named ``names``, on
    the item ``columns`` (default: all)."""
    columns = range(y.shape[1]) if columns is None else columns
    return pd.DataFrame(
        [(n, f"q{i:04d}", y[k, i]) for k, n in enumerate(names) for i in columns],
        columns=["model", "item_id", "score"],
    )
