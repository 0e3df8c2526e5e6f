"""Start-up cost of the command line, as ratios to ``python -c "import numpy"``, side by side.

    python benchmarks/bench_cli.py              # 15 rounds
    python benchmarks/bench_cli.py --rounds 5   # a smoke run

Each round runs every command once, in turn (so a busy machine slows them alike), as a whole
process: ``evalgap --version``, ``evalgap --help`` and ``evalgap compare`` from 2x2 counts
(the HellaSwag pair of Table 6, terminal report), beside the floor ``python -c "import
numpy"``. Printed: each command's minimum and median wall time and its ratio to the floor's
(medians), with the targets <= 1.5x, <= 1.5x and <= 3x. A second table shows where
``compare``'s time goes: the imports of the libraries it needs, one process each, and of all
the libraries the counts path needs together (its floor without evalgap's own modules).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

# What ``compare`` from counts cannot do without: the statistics (``scipy.special``, whose
# import alone is about 3x ``import numpy``), the bootstrap's generator, the command line and
# the terminal report.
NEEDED = "numpy.random, scipy.special, click, rich.console, rich.table"

COUNTS = ["--both-correct", "7986", "--a-only", "295", "--b-only", "249", "--both-wrong", "1512"]


def commands() -> dict[str, tuple[list[str], float | None]]:
    evalgap = shutil.which("evalgap") or "evalgap"
    py = sys.executable
    return {
        'python -c "import numpy"': ([py, "-c", "import numpy"], None),
        "evalgap --version": ([evalgap, "--version"], 1.5),
        "evalgap --help": ([evalgap, "--help"], 1.5),
        "evalgap compare (counts)": ([evalgap, "compare", *COUNTS], 3.0),
    }


def libraries() -> dict[str, list[str]]:
    py = sys.executable
    alone = {
        name: [py, "-c", f"import {name}"]
        for name in ("numpy", "click", "rich.console", "scipy.special", "scipy.stats", "pandas")
    }
    # The floor of ``compare`` from counts: the libraries it cannot do without, with no evalgap.
    return {**alone, "all the counts path needs": [py, "-c", f"import {NEEDED}"]}


def run_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(cases: dict[str, list[str]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    for argv in cases.values():  # warm the file cache once
        run_once(argv)
    for _ in range(rounds):
        for name, argv in cases.items():
            times[name].append(run_once(argv))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    spec = commands()
    times = measure({name: argv for name, (argv, _) in spec.items()}, args.rounds)
    floor = statistics.median(times['python -c "import numpy"'])
    print(f"{'command':<28} {'min s':>7} {'median s':>9} {'ratio':>7} {'target':>7}  met")
    for name, (_, target) in spec.items():
        med = statistics.median(times[name])
        ratio = med / floor
        met = "" if target is None else ("yes" if ratio <= target else "NO")
        shown = "" if target is None else f"<= {target:g}x"
        print(f"{name:<28} {min(times[name]):7.3f} {med:9.3f} {ratio:6.2f}x {shown:>7}  {met}")

    print("\nimport cost of each library alone (whole process, median):")
    lib_times = measure(libraries(), max(3, args.rounds // 3))
    for name, values in lib_times.items():
        med = statistics.median(values)
        shown = name if name.startswith("all") else f"import {name}"
        print(f"  {shown:<26} {med:6.3f} s  {med / floor:5.2f}x")


if __name__ == "__main__":
    main()
