"""Start-up cost of the command line, as ratios to ``python -c "import numpy"``, side by side.

    python benchmarks/bench_cli.py              # 15 rounds
    python benchmarks/bench_cli.py --rounds 5   # a smoke run
    python benchmarks/bench_cli.py --readers    # the small-table reader against the batch one

Each round runs every command once, in turn (so a busy machine slows them alike), as a whole
process, with the bytecode cached as in an install (in a temporary folder, not the source
tree): ``evalgap --version``, ``evalgap --help``, ``evalgap compare`` from 2x2 counts (the
HellaSwag pair of Table 6, terminal report), ``evalgap compare --scores`` on a small long CSV
(two models x 2,000 items, 4,000 rows, written by the benchmark), beside the floor ``python
-c "import numpy"``; and ``evalgap watch --once`` over 50 inspect_ai logs (10 models x 5
tasks x 500 items, written by the benchmark) beside a plain ``json.load`` of the same files.
Printed: each command's median CPU seconds (user + system of the child: the machine is
shared) and wall seconds, its CPU ratio to its floor, and the target (<= 1.5x, <= 1.5x,
<= 3x, <= 4x; none for watch), with the machine's load. The rounds also import, in one
process, the libraries both ``compare`` rows cannot do without (NumPy's generator,
``scipy.special``, click, rich: their floor without evalgap's own modules), and each
``compare`` row gives its ratio to that floor too. A second table shows where the time goes:
the imports of the libraries, one process each, and all of the floor's together.

``--readers`` times ``compare --scores`` on long CSVs of 0.2 to 17 MiB (two models, written
by the benchmark) with the standard-library reader of small tables and with it switched off
(Arrow and pandas read the file), interleaved: where the lines cross is where
``evalgap.io.tables.SMALL_TABLE_BYTES`` should stand.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _child import cpu_run, installed_env

# What ``compare`` from counts cannot do without: the statistics (``scipy.special``, whose
# import alone is about 3x ``import numpy``), the bootstrap's generator, the command line and
# the terminal report.
NEEDED = "numpy.random, scipy.special, click, rich.console, rich.table"

COUNTS = ["--both-correct", "7986", "--a-only", "295", "--b-only", "249", "--both-wrong", "1512"]
NUMPY = 'python -c "import numpy"'
LIBRARIES = "python: the libraries compare needs"
JSON_LOAD = "python: json.load of the 50 logs"


def write_small_csv(path: Path, n_items: int = 2000, seed: int = 0) -> Path:
    """Two models' binary scores on ``n_items`` items, one row per (model, item)."""
    rng = np.random.default_rng(seed)
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["model", "item_id", "score"])
        for model, accuracy in (("X", 0.70), ("Y", 0.66)):
            scores = (rng.random(n_items) < accuracy).astype(int).tolist()
            out.writerows((model, f"q{i:05d}", s) for i, s in enumerate(scores))
    return path


def write_inspect_logs(folder: Path, models: int = 10, tasks: int = 5, items: int = 500) -> Path:
    """``models x tasks`` inspect_ai JSON logs (one per model and task), binary scores."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    for m in range(models):
        for t in range(tasks):
            correct = rng.random(items) < 0.5 + 0.03 * m
            samples = [
                {"id": i, "epoch": 1, "scores": {"choice": {"value": "C" if c else "I"}}}
                for i, c in enumerate(correct.tolist())
            ]
            log = {
                "version": 2,
                "status": "success",
                "eval": {"task": f"task{t}", "model": f"org/model-{m}"},
                "samples": samples,
            }
            (folder / f"task{t}_model-{m}.json").write_text(json.dumps(log))
    return folder


def commands(folder: Path) -> dict[str, tuple[list[str], str, float | None]]:
    """name -> (argv, the floor it is a ratio to, target)."""
    evalgap = shutil.which("evalgap") or "evalgap"
    py = sys.executable
    small = write_small_csv(folder / "small.csv")
    logs = write_inspect_logs(folder / "logs")
    load = (
        "import glob, json, sys\n"
        "for name in sorted(glob.glob(sys.argv[1] + '/*.json')):\n"
        "    with open(name) as f:\n"
        "        json.load(f)\n"
    )
    return {
        NUMPY: ([py, "-c", "import numpy"], NUMPY, None),
        LIBRARIES: ([py, "-c", f"import {NEEDED}"], NUMPY, None),
        "evalgap --version": ([evalgap, "--version"], NUMPY, 1.5),
        "evalgap --help": ([evalgap, "--help"], NUMPY, 1.5),
        "evalgap compare (counts)": ([evalgap, "compare", *COUNTS], NUMPY, 3.0),
        "evalgap compare --scores (4,000-row CSV)": (
            [evalgap, "compare", "--scores", str(small), "--model-a", "X", "--model-b", "Y"],
            NUMPY,
            4.0,
        ),
        JSON_LOAD: ([py, "-c", load, str(logs)], JSON_LOAD, None),
        "evalgap watch --once (50 inspect logs)": (
            [evalgap, "watch", "--logs", str(logs), "--once"],
            JSON_LOAD,
            None,
        ),
    }


def libraries() -> dict[str, list[str]]:
    py = sys.executable
    alone = {
        name: [py, "-c", f"import {name}"]
        for name in ("numpy", "click", "rich.console", "scipy.special", "scipy.stats", "pandas")
    }
    # The floor of ``compare`` from counts: the libraries it cannot do without, with no evalgap.
    return {**alone, "all the counts path needs": [py, "-c", f"import {NEEDED}"]}


def measure(
    cases: dict[str, list[str]], rounds: int, env: dict[str, str]
) -> tuple[dict[str, list[tuple[float, float]]], list[float]]:
    """Per case, (CPU, wall) seconds of each round; the load average before each round."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for argv in cases.values():  # warm the bytecode and file caches once
        run(argv, env)
    loads = []
    for _ in range(rounds):
        loads.append(os.getloadavg()[0])
        for name, argv in cases.items():
            times[name].append(run(argv, env))
    return times, loads


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    # watch --once exits 1 while a target is undecided (its answer, not a failure)
    return cpu_run(argv, env, codes=(0, 1) if "watch" in argv else (0,))


# compare --scores with the small-table reader's bound set from the command line
BOUNDED = (
    "import sys\nfrom evalgap.io import tables\ntables.SMALL_TABLE_BYTES = int(sys.argv[1])\n"
    "from evalgap.cli import main\nsys.exit(main(sys.argv[2:]))"
)


def readers(rounds: int) -> None:
    """``compare --scores`` by each reader on long CSVs of several sizes, side by side."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = installed_env(str(folder / "pycache"))
        cases, sizes = {}, {}
        for items in (2_000, 37_000, 85_000, 170_000, 680_000):
            path = write_small_csv(folder / f"scores-{items}.csv", n_items=items)
            sizes[items] = path.stat().st_size / 2**20
            argv = ["compare", "--scores", str(path), "--model-a", "X", "--model-b", "Y"]
            for reader, bound in (("standard library", 2**26), ("Arrow + pandas", -1)):
                cases[(items, reader)] = [sys.executable, "-c", BOUNDED, str(bound), *argv]
        times, loads = measure(cases, rounds, env)
    print(
        f"compare --scores, {rounds} interleaved rounds, median CPU s; "
        f"load {min(loads):.1f}-{max(loads):.1f}"
    )
    for items, size in sizes.items():
        mine, batch = (statistics.median(t[0] for t in times[(items, r)])
                       for r in ("standard library", "Arrow + pandas"))  # fmt: skip
        print(
            f"  {2 * items:>9,} rows ({size:5.2f} MiB): standard library {mine:6.3f} s, "
            f"Arrow + pandas {batch:6.3f} s ({mine / batch:4.2f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--readers", action="store_true", help="the small-table reader's bound")
    args = parser.parse_args()
    if args.readers:
        readers(max(3, args.rounds // 3))
        return

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = installed_env(str(folder / "pycache"))
        spec = commands(folder)
        times, loads = measure({name: argv for name, (argv, _, _) in spec.items()},
                               args.rounds, env)  # fmt: skip
        lib_times, _ = measure(libraries(), max(3, args.rounds // 3), env)

    def cpu(name: str, table: dict = times) -> float:
        return statistics.median(t[0] for t in table[name])

    print(
        f"{args.rounds} interleaved rounds, median per command, bytecode cached; "
        f"load {min(loads):.1f}-{max(loads):.1f}"
    )
    print(
        f"{'command':<42} {'CPU s':>7} {'wall s':>7} {'CPU ratio':>12} {'target':>7}  met"
        "  to the libraries"
    )
    for name, (_, floor, target) in spec.items():
        wall = statistics.median(t[1] for t in times[name])
        ratio = cpu(name) / cpu(floor)
        met = "" if target is None else ("yes" if ratio <= target else "NO")
        shown = "" if target is None else f"<= {target:g}x"
        versus = "" if floor == NUMPY else " (to json.load)"
        to_floor = f"{cpu(name) / cpu(LIBRARIES):8.2f}x" if "compare" in name else ""
        print(
            f"{name:<42} {cpu(name):7.3f} {wall:7.3f} {ratio:6.2f}x{versus:>6} {shown:>7}  "
            f"{met:3} {to_floor}"
        )

    print("\nimport cost of each library alone (whole process, median CPU s, ratio to numpy):")
    for name in lib_times:
        shown = name if name.startswith("all") else f"import {name}"
        value = cpu(name, lib_times)
        print(f"  {shown:<26} {value:6.3f} s  {value / cpu(NUMPY):5.2f}x")


if __name__ == "__main__":
    main()
