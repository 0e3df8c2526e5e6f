"""Loader benchmarks, measured side by side in one run.

    python benchmarks/bench_loaders.py              # 1 GB of synthetic lm-eval sample logs
    python benchmarks/bench_loaders.py --size-mb 64 # a smaller smoke run

Prints:

1. lm-eval JSONL parse throughput over a synthetic output directory of the given size
   (target >= 50 MB/s), and the parser's peak resident memory against the data size
   (the logs are streamed line by line, never loaded whole);
2. the time to load and align ``../shared/data/mmlu_pro`` (29 models x 12,032 items, with the
   category labels from the item file; target < 3 s), when that data is present;
3. a JSON Lines score table whose rows carry a long base64 payload (``--jsonl-mb``, gzipped):
   peak resident memory of ``read_long_table`` against the data size (read line by line, the
   payload dropped as each line is parsed; before, the whole file was read and split).

Each measurement runs in a fresh child process so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from _child import in_child

STAMP = "2026-01-21T03-44-18.458309"
ROOT = Path(__file__).resolve().parents[1]
MMLU = ROOT.parent / "shared" / "data" / "mmlu_pro"


def write_logs(folder: Path, size_mb: int) -> int:
    """Write lm-eval-shaped sample logs (~3 KB per record, like real MMLU logs); return bytes."""
    rng = np.random.default_rng(0)
    prompt = "The following are multiple choice questions (with answers) about physics. " * 20
    models, tasks = 8, ("mmlu_physics", "hellaswag", "arc_challenge", "gsm8k")
    target = size_mb * 2**20
    per_file = target // (models * len(tasks))
    written = 0
    for m in range(models):
        out_dir = folder / f"org__model-{m}"
        out_dir.mkdir(parents=True)
        (out_dir / f"results_{STAMP}.json").write_text(json.dumps({"model_name": f"org/model-{m}"}))
        for task in tasks:
            path = out_dir / f"samples_{task}_{STAMP}.jsonl"
            with open(path, "w", encoding="utf-8") as handle:
                doc, size = 0, 0
                while size < per_file:
                    correct = float(rng.random() < 0.6)
                    record = {
                        "doc_id": doc,
                        "doc": {
                            "question": f"Question {doc}: " + prompt[:400],
                            "choices": ["A", "B", "C", "D"],
                            "answer": 1,
                        },
                        "target": "B",
                        "arguments": {
                            f"gen_args_{k}": {"arg_0": prompt, "arg_1": f" {c}"}
                            for k, c in enumerate("ABCD")
                        },
                        "resps": [[[f"-{rng.random():.4f}", "False"]] for _ in range(4)],
                        "filtered_resps": [[f"-{rng.random():.4f}", "False"] for _ in range(4)],
                        "filter": "none",
                        "metrics": ["acc", "acc_norm"],
                        "doc_hash": "0" * 64,
                        "prompt_hash": "1" * 64,
                        "target_hash": "2" * 64,
                        "acc": correct,
                        "acc_norm": correct,
                    }
                    line = json.dumps(record) + "\n"
                    handle.write(line)
                    size += len(line)
                    doc += 1
            written += path.stat().st_size
    return written


def _parse(folder: str, queue) -> None:
    from evalgap._scores import align
    from evalgap.io.lm_eval import read_lm_eval

    start = time.perf_counter()
    long = read_lm_eval(folder)
    seconds = time.perf_counter() - start
    s = align(long.frame)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put((seconds, peak, s.n_items, len(s.models)))


def _baseline(queue) -> None:
    import pandas  # noqa: F401  (the parser's imports, for the memory baseline)

    import evalgap.io.lm_eval  # noqa: F401

    queue.put(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)


def _mmlu(queue) -> None:
    from evalgap._scores import align
    from evalgap.io.sources import LoadOptions, load_scores

    start = time.perf_counter()
    long = load_scores(
        MMLU / "mmlu_pro_long.csv.gz",
        LoadOptions(items=str(MMLU / "mmlu_pro_items.csv"), cluster_column="category"),
    )
    s = align(long.frame)
    queue.put((time.perf_counter() - start, len(s.models), s.report.items_union["all"]))


def write_jsonl_table(path: Path, size_mb: int) -> int:
    """Write a gzipped JSONL score table, ~64 KiB of base64 per row; return uncompressed bytes."""
    import base64
    import gzip

    rng = np.random.default_rng(1)
    blob = base64.b64encode(rng.bytes(48 * 1024)).decode()
    written, row = 0, 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        while written < size_mb * 2**20:
            line = json.dumps(
                {
                    "model": f"model-{row % 4}",
                    "item_id": row // 4,
                    "score": int(rng.random() < 0.6),
                    "image": blob,
                }
            )
            out.write(line + "\n")
            written += len(line) + 1
            row += 1
    return written


def _jsonl(path: str, queue) -> None:
    from evalgap.io.tables import read_long_table

    start = time.perf_counter()
    table = read_long_table(path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put((time.perf_counter() - start, peak, len(table.frame)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the synthetic logs")
    parser.add_argument(
        "--jsonl-mb",
        type=int,
        help="uncompressed size of the JSONL score table (default: twice --size-mb)",
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="evalgap-bench-"))
    try:
        start = time.perf_counter()
        size = write_logs(folder, args.size_mb)
        print(
            f"wrote {size / 2**20:,.0f} MiB of lm-eval sample logs in "
            f"{time.perf_counter() - start:.1f} s"
        )
        baseline = in_child(_baseline)
        seconds, peak, items, models = in_child(_parse, str(folder))
        rate = size / 2**20 / seconds
        print(
            f"1. lm-eval parse: {size / 2**20:,.0f} MiB, {models} models, {items:,} items kept "
            f"per model, in {seconds:.1f} s"
        )
        print(f"   throughput {rate:6.0f} MiB/s   target >= 50 MiB/s   ratio {rate / 50:5.1f}x")
        print(
            f"   peak memory {peak / 2**20:6.0f} MiB (baseline after imports "
            f"{baseline / 2**20:.0f} MiB): {(peak - baseline) / size:.3f} of the data size"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if (MMLU / "mmlu_pro_long.csv.gz").exists():
        seconds, models, items = in_child(_mmlu)
        print(
            f"2. MMLU-Pro load + align ({models} models, {items:,} items, 14 categories): "
            f"{seconds:.2f} s   target < 3 s   ratio {seconds / 3:.2f}"
        )
    else:
        print(f"2. skipped: {MMLU} is not present")
    folder = Path(tempfile.mkdtemp(prefix="evalgap-bench-"))
    try:
        path = folder / "table.jsonl.gz"
        size = write_jsonl_table(path, args.jsonl_mb or 2 * args.size_mb)
        baseline = in_child(_baseline)
        seconds, peak, rows = in_child(_jsonl, str(path))
        print(
            f"3. JSONL table with payloads: {size / 2**20:,.0f} MiB ({rows:,} rows) in "
            f"{seconds:.1f} s; peak memory {peak / 2**20:,.0f} MiB (baseline after imports "
            f"{baseline / 2**20:.0f} MiB): {(peak - baseline) / size:.3f} of the data size"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
