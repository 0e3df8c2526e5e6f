"""Rank sets at leaderboard scale (against an earlier version of the code in the same run),
and the Bradley-Terry bootstrap against refitting.

    python benchmarks/bench_ranks.py                      # the issue's sizes
    python benchmarks/bench_ranks.py --part rank-sets --against 5d6f453 --rounds 3
    python benchmarks/bench_ranks.py --part rank-sets --against 5d6f453 \\
        --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz   # a real board, 29 models
    python benchmarks/bench_ranks.py --models 100 --items 2000 --arena-models 10 \\
        --battles 20000 --replicates 200                  # a smoke run
    python benchmarks/bench_ranks.py --part arena --arena-models 300 --battles 300000 \\
        --command-replicates 200,1000 --against 3b6c37f --refit-replicates 0  # fit, bootstrap
    python benchmarks/bench_ranks.py --part command --arena-models 300 --battles 300000 \\
        --command-replicates 1000 --rounds 3      # the command beside choix, interleaved
    python benchmarks/bench_ranks.py --part command --arena-models 1000 --battles 1000000 \\
        --command-replicates 1000 --rounds 2

1. Rank sets (max-t stepdown bootstrap, B replicates, simultaneous and marginal) of K models x
   N binary items, or of a long score file's board (``--scores``), in a fresh process: wall
   time and peak resident memory. With ``--against REV`` the same call is timed with the
   code of git revision REV (its ``src`` extracted to a temporary folder) in its own fresh
   process, in interleaved rounds (the order alternating), and the ratio this / REV is the
   median of the rounds' ratios. The two calls' sets are compared; and both versions also
   run the stepdown on one set of draws made here (``rank_sets_from_draws``), where the sets
   and the critical value must be identical.
2. A simulated arena (M models, battles with 10% ties): in a fresh process, the CPU seconds
   of the Bradley-Terry fit and of B bootstrap replicates (each B of ``--command-replicates``),
   beside the code of ``--against REV`` in its own fresh process; then B bootstrap
   replicates two ways on the same data, side by side: the vectorized bootstrap
   (multinomial weights on the distinct cells, every replicate fitted at once) and a
   refit-per-replicate loop (resample the battles, aggregate, fit); their ratio. With
   statsmodels installed, the largest gap between the fit and a logistic regression.
3. The same arena on ``--prompts`` prompts (each battle on a random one): B bootstrap
   replicates resampled a prompt at a time (what ``ranks --battles`` does when the table has
   ``question_id``) beside battle by battle, in one run.
4. ``--part command``: the same arena written as a Parquet battle table and ranked by the
   command users run, ``evalgap ranks --battles FILE --n-bootstrap B --json``, in its own
   process (CPU seconds, peak memory), for each B, interleaved over ``--rounds`` rounds with
   one choix fit of the same battles (when choix is installed; a tie as a win each way) as
   the peer's floor, the ratio per round and its median; with ``--against REV`` the same
   command with REV's code (stopped after ``--old-timeout`` CPU seconds).

One BLAS thread everywhere, as the command line runs (OpenBLAS's idle threads spin, and their
CPU seconds would count against whichever side uses BLAS).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _child import in_child  # noqa: E402
from bench_phases import scores_matrix  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _rank_sets(source, board, replicates, calls, draws, queue) -> None:
    """Time ``rank_sets`` on the board (saved as .npy) with the code under ``source`` (None:
    this checkout), the fastest of ``calls`` calls; then, with ``draws``, the stepdown on
    those draws alone. An error is put on the queue (the parent would wait for ever)."""
    try:
        queue.put(_time_rank_sets(source, board, replicates, calls, draws))
    except Exception as error:  # handed to the parent, which stops with it
        queue.put(error)


def _time_rank_sets(source, board, replicates, calls, draws) -> dict:
    if source is not None:
        sys.path.insert(0, source)
    from evalgap.stats import ranks

    x = np.load(board)
    seconds = []
    for _ in range(calls):
        start = time.perf_counter()
        sets = ranks.rank_sets(x, n_bootstrap=replicates, seed=0, method="bootstrap")
        seconds.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30
    out = {
        "seconds": min(seconds),
        "peak": peak,
        "method": sets.method,
        "sets": _sets(sets),
        "code": ranks.__file__,
    }
    if draws is not None:
        mean, cov = ranks.mean_covariance(x)[::2]
        replicated = np.load(draws)
        start = time.perf_counter()
        same = ranks.rank_sets_from_draws(mean, cov, replicated)
        out["draws_seconds"] = time.perf_counter() - start
        out["draws_sets"] = _sets(same)
    return out


def _sets(sets) -> dict:
    names = ("rank_low", "rank_high", "marginal_low", "marginal_high", "shown_better")
    return {
        **{name: np.asarray(getattr(sets, name)) for name in names},
        "critical_value": sets.critical_value,
        "n_steps": sets.n_steps,
    }


def extract(revision: str, folder: str) -> str:
    """Write ``src`` of git ``revision`` under ``folder``; return the path to put on sys.path."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return str(Path(folder) / "src")


def score_board(path: str):
    """The (items, models) matrix of a long score file (model, item id, 0/1 score)."""
    import pandas as pd

    frame = pd.read_csv(path)
    item = next(c for c in ("item_id", "question_id", "item") if c in frame.columns)
    score = next(c for c in ("score", "correct") if c in frame.columns)
    return frame.pivot_table(index=item, columns="model", values=score).to_numpy(float)


def rank_set_figures(args, folder: str) -> None:
    board = os.path.join(folder, "board.npy")
    if args.scores:
        x = score_board(args.scores)
        label = f"{Path(args.scores).name}, {x.shape[1]:,} models x {x.shape[0]:,} items"
    else:
        x = scores_matrix(args.models, args.items).astype(float)
        label = f"{args.models:,} models x {args.items:,} items"
    np.save(board, x)
    draws = None
    calls = args.calls or (5 if x.size <= 10**6 else 1)
    if args.against:
        # one set of draws, the multiplier bootstrap's law, for both versions' stepdowns
        from evalgap.stats import ranks

        draws = os.path.join(folder, "draws.npy")
        mean, _, cov = ranks.mean_covariance(x)
        rng = np.random.default_rng(0)
        replicated = rng.multivariate_normal(
            mean, cov, args.replicates, method="eigh", check_valid="ignore"
        )
        np.save(draws, replicated)
    versions = [("this", None)]
    if args.against:
        versions.append((args.against, extract(args.against, folder)))
    results: dict[str, list] = {name: [] for name, _ in versions}
    for round_ in range(args.rounds if args.against else 1):
        for name, source in versions[:: 1 if round_ % 2 == 0 else -1]:
            result = in_child(_rank_sets, source, board, args.replicates, calls, draws)
            if isinstance(result, Exception):
                raise SystemExit(f"rank sets with the code of {name}: {result}")
            results[name].append(result)
    this = results["this"]
    seconds = [r["seconds"] for r in this]
    head = f"rank sets, {label}, B = {args.replicates:,} ({this[0]['method']})"
    sets = this[0]["sets"]
    width = float((sets["rank_high"] - sets["rank_low"] + 1).mean())
    if not args.against:
        print(
            f"{head}: {seconds[0]:.2f} s, peak {this[0]['peak']:.2f} GiB; mean set size {width:.1f}"
        )
        return
    other = results[args.against]
    before = [r["seconds"] for r in other]
    ratios = [a / b for a, b in zip(seconds, before, strict=True)]
    print(
        f"{head}: this code {np.median(seconds):.2f} s (rounds "
        + ", ".join(f"{v:.2f}" for v in seconds)
        + f"), {args.against} {np.median(before):.2f} s ("
        + ", ".join(f"{v:.2f}" for v in before)
        + f"); ratio this / {args.against} {np.median(ratios):.3f} (rounds "
        + ", ".join(f"{v:.3f}" for v in ratios)
        + f"); peak {this[0]['peak']:.2f} vs {other[0]['peak']:.2f} GiB; load "
        + " ".join(f"{v:.2f}" for v in os.getloadavg())
    )
    old = other[0]["sets"]
    shift = np.maximum(
        np.abs(sets["rank_low"] - old["rank_low"]), np.abs(sets["rank_high"] - old["rank_high"])
    )
    print(
        f"  the calls' sets: {int((shift > 0).sum()):,} of {shift.size:,} models' simultaneous "
        f"sets differ, by at most {int(shift.max())} ranks; mean set size {width:.2f} vs "
        f"{float((old['rank_high'] - old['rank_low'] + 1).mean()):.2f}; critical value "
        f"{sets['critical_value']:.4f} vs {old['critical_value']:.4f}"
    )
    same, before_same = this[0]["draws_sets"], other[0]["draws_sets"]
    identical = (
        all(
            np.array_equal(same[name], before_same[name])
            for name in same
            if name != "critical_value"
        )
        and same["critical_value"] == before_same["critical_value"]
    )
    print(
        f"  the same draws (rank_sets_from_draws): sets and critical value identical: "
        f"{'yes' if identical else 'NO'}; this code "
        f"{np.median([r['draws_seconds'] for r in this]):.2f} s, {args.against} "
        f"{np.median([r['draws_seconds'] for r in other]):.2f} s"
    )


def _arena_fit(source, n_models, n_battles, replicates, queue) -> None:
    """CPU seconds of the fit and of B bootstrap replicates with the code under ``source``
    (None: this checkout), and the peak memory of the process."""
    if source is not None:
        sys.path.insert(0, source)
    from evalgap.stats import bradley_terry as bt

    a, b, y = arena(n_models, n_battles)
    start = time.process_time()
    data = bt.battles(a, b, y, n_models)
    fit = bt.fit(data)
    fitted = time.process_time()
    draws = bt.bootstrap(data, replicates, seed=1, start=fit.scores)
    done = time.process_time()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30
    queue.put((fitted - start, done - fitted, peak, np.nanstd(draws, axis=0)))


def arena_figures(args) -> None:
    """The fit and the bootstrap in a fresh process, beside ``--against`` REV (same run)."""
    label = f"{args.arena_models:,} models, {args.battles:,} battles"
    with tempfile.TemporaryDirectory() as folder:
        old = extract(args.against, folder) if args.against else None
        for count in [int(v) for v in args.command_replicates.split(",")]:
            fit, boot, peak, sd = in_child(_arena_fit, None, args.arena_models, args.battles, count)
            line = (
                f"Bradley-Terry in a fresh process, {label}, B = {count:,}: fit {fit:.2f} CPU s, "
                f"bootstrap {boot:.2f} CPU s, peak {peak:.2f} GiB"
            )
            if old is not None:
                fit0, boot0, peak0, sd0 = in_child(
                    _arena_fit, old, args.arena_models, args.battles, count
                )
                line += (
                    f"; {args.against}: fit {fit0:.2f} s, bootstrap {boot0:.2f} s, peak "
                    f"{peak0:.2f} GiB; ratios {fit / fit0:.2f} and {boot / boot0:.2f}; bootstrap "
                    f"SDs median ratio {np.median(sd / sd0):.3f}"
                )
            print(line + "; load " + " ".join(f"{v:.2f}" for v in os.getloadavg()))


def write_arena(path: str, n_models: int, n_battles: int) -> None:
    """The simulated arena as a battle table (model_a, model_b, winner) in Parquet."""
    import pandas as pd

    a, b, y = arena(n_models, n_battles)
    names = np.array([f"model-{m:04d}" for m in range(n_models)])
    winner = np.where(y == 1, "model_a", np.where(y == 0, "model_b", "tie"))
    pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner}).to_parquet(path)


def run_command(command, env=None, timeout=None) -> dict:
    """CPU seconds (user + system) and peak memory of one command in its own process; with
    ``timeout`` (CPU seconds, checked twice a second) it is stopped there."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=errors, env=env, cwd=ROOT
        )
        stopped = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.5)
            if timeout is not None and not stopped and _cpu_of(process.pid) > timeout:
                process.kill()
                stopped = True
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        error = errors.read().decode()[-500:]
    if process.returncode != 0 and not stopped:
        raise SystemExit(f"{' '.join(command)} failed: {error}")
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "wall": time.perf_counter() - start,
        "peak": usage.ru_maxrss * 1024 / 2**30,
        "stopped": stopped,
    }


def _cpu_of(pid: int) -> float:
    """CPU seconds a running process has used so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _choix_fit(path: str, queue) -> None:
    """One choix fit (iterative Luce spectral ranking) of the battles: a tie as a win each way.
    Puts its CPU seconds (the fit alone, not the file's reading) and the process's peak."""
    try:
        import choix
        import pandas as pd
    except ImportError:
        queue.put(None)
        return
    frame = pd.read_parquet(path)
    names, codes = np.unique(frame[["model_a", "model_b"]].to_numpy().ravel(), return_inverse=True)
    a, b = codes.reshape(-1, 2).T
    winner = frame["winner"].to_numpy()
    won = np.concatenate([
        np.c_[a, b][winner != "model_b"], np.c_[b, a][winner != "model_a"]
    ])  # fmt: skip
    start = time.process_time()
    choix.ilsr_pairwise(names.size, won, alpha=1e-6)
    seconds = time.process_time() - start
    queue.put((seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30))


def command_figures(args, folder: str) -> None:
    """``evalgap ranks --battles FILE`` end to end at each B beside one choix fit of the same
    file, in ``--rounds`` interleaved rounds (the order alternating; ratios per round, their
    median printed), this code beside ``--against`` REV (stopped after ``--old-timeout`` CPU
    seconds) when given; CPU seconds, peak memory and the machine's load."""
    path = os.path.join(folder, "battles.parquet")
    write_arena(path, args.arena_models, args.battles)
    label = f"{args.arena_models:,} models x {args.battles:,} battles"
    replicates = [int(v) for v in args.command_replicates.split(",")]
    old_source = extract(args.against, folder) if args.against else None
    for count in replicates:
        command = [sys.executable, "-m", "evalgap", "ranks", "--battles", path,
                   "--n-bootstrap", str(count), "--json"]  # fmt: skip
        runs, peers, loads = [], [], []
        for round_ in range(args.rounds):
            steps = ["this", "choix"] if round_ % 2 == 0 else ["choix", "this"]
            for step in steps:
                if step == "this":
                    runs.append(run_command(command))
                else:
                    peers.append(in_child(_choix_fit, path))
            loads.append(os.getloadavg()[0])
        cpu = [r["cpu"] for r in runs]
        wall = np.median([r["wall"] for r in runs])
        line = (
            f"ranks --battles, {label}, B = {count:,}: this code {np.median(cpu):.1f} CPU s "
            f"(rounds {', '.join(f'{v:.1f}' for v in cpu)}; {wall:.1f} s wall), peak "
            f"{max(r['peak'] for r in runs):.2f} GiB"
        )
        if peers[0] is not None:
            choix_cpu = [p[0] for p in peers]
            ratios = [a / b for a, b in zip(cpu, choix_cpu, strict=True)]
            line += (
                f"; one choix fit {np.median(choix_cpu):.2f} CPU s (peak "
                f"{max(p[1] for p in peers):.2f} GiB): ratio {np.median(ratios):.1f}x (rounds "
                + ", ".join(f"{v:.1f}" for v in ratios)
                + ")"
            )
        if old_source is not None:
            env = {**os.environ, "PYTHONPATH": old_source}
            old = run_command(command, env=env, timeout=args.old_timeout)
            if old["stopped"]:
                line += f"; {args.against}: not finished after {old['cpu']:.0f} CPU s"
            else:
                line += (
                    f"; {args.against} {old['cpu']:.1f} CPU s, peak {old['peak']:.2f} GiB: "
                    f"ratio {np.median(cpu) / old['cpu']:.3f}"
                )
        print(line + "; load (1 min) " + " ".join(f"{v:.1f}" for v in loads), flush=True)


def prompt_figures(args) -> None:
    """The bootstrap by prompt beside battle by battle, on the same arena, in one run."""
    from evalgap.stats import bradley_terry as bt

    a, b, y = arena(args.arena_models, args.battles)
    prompt = np.random.default_rng(7).integers(0, args.prompts, a.size)
    data = bt.battles(a, b, y, args.arena_models, cluster=prompt)
    fit = bt.fit(data)
    took = {}
    for by_prompt in (True, False):
        start = time.perf_counter()
        bt.bootstrap(data, args.replicates, seed=1, start=fit.scores, by_cluster=by_prompt)
        took[by_prompt] = time.perf_counter() - start
    print(
        f"bootstrap B = {args.replicates:,} on {data.n_clusters:,} prompts: by prompt "
        f"{took[True]:.2f} s, battle by battle {took[False]:.2f} s"
    )


def arena(n_models, n_battles, seed=0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    tie = rng.random(n_battles) < 0.1
    return a, b, np.where(tie, 0.5, (rng.random(n_battles) < p).astype(float))


def refit_bootstrap(a, b, y, n_models, replicates, seed):
    """The usual way: resample the battles, then fit each replicate on its own."""
    from evalgap.stats import bradley_terry as bt

    rng = np.random.default_rng(seed)
    out = np.empty((replicates, n_models))
    for r in range(replicates):
        pick = rng.integers(0, a.size, a.size)
        out[r] = bt.fit(bt.battles(a[pick], b[pick], y[pick], n_models)).scores
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--scores", help="A long score file to rank, not the synthetic board.")
    parser.add_argument("--against", help="A git revision whose code is timed side by side.")
    parser.add_argument(
        "--rounds", type=int, default=3, help="Interleaved rounds (--against; --part command)."
    )
    parser.add_argument(
        "--calls", type=int, help="Calls per process, the fastest kept (default 5 on small boards)."
    )
    parser.add_argument("--arena-models", type=int, default=50)
    parser.add_argument("--battles", type=int, default=200_000)
    parser.add_argument("--part", choices=("all", "rank-sets", "arena", "command"), default="all")
    parser.add_argument(
        "--command-replicates",
        default="200,1000",
        help="B values of the end-to-end ranks --battles runs (comma-separated).",
    )
    parser.add_argument(
        "--old-timeout",
        type=float,
        default=900.0,
        help="CPU seconds after which the --against version of the command is stopped.",
    )
    parser.add_argument("--prompts", type=int, default=50_000, help="Prompts of the arena (3).")
    parser.add_argument(
        "--refit-replicates",
        type=int,
        help="Replicates of the refit-per-replicate comparison (default: --replicates; 0 skips).",
    )
    args = parser.parse_args()

    if args.part in ("all", "rank-sets"):
        with tempfile.TemporaryDirectory() as folder:
            rank_set_figures(args, folder)
    if args.part == "rank-sets":
        return
    if args.part in ("all", "command"):
        with tempfile.TemporaryDirectory() as folder:
            command_figures(args, folder)
    if args.part == "command":
        return
    arena_figures(args)
    prompt_figures(args)
    refits = args.replicates if args.refit_replicates is None else args.refit_replicates
    if refits == 0:
        return

    from evalgap.stats import bradley_terry as bt

    a, b, y = arena(args.arena_models, args.battles)
    start = time.perf_counter()
    data = bt.battles(a, b, y, args.arena_models)
    fit = bt.fit(data)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    fast = bt.bootstrap(data, args.replicates, seed=1, start=fit.scores)
    fast_seconds = time.perf_counter() - start
    start = time.perf_counter()
    slow = refit_bootstrap(a, b, y, args.arena_models, refits, seed=2)
    slow_seconds = (time.perf_counter() - start) * args.replicates / refits
    print(
        f"Bradley-Terry, {args.arena_models} models, {args.battles:,} battles: fit "
        f"{fit_seconds:.2f} s; bootstrap B = {args.replicates:,}: vectorized {fast_seconds:.2f} s "
        f"vs refit per replicate {slow_seconds:.2f} s (from {refits:,} refits), speed-up "
        f"{slow_seconds / fast_seconds:.0f}x"
    )
    print(
        "bootstrap SEs agree: median ratio "
        f"{np.median(fast.std(axis=0) / slow.std(axis=0)):.3f} (vectorized / refit)"
    )
    try:
        import statsmodels.api as sm
    except ImportError:
        return
    design = np.zeros((y.size, args.arena_models))
    design[np.arange(y.size), a] += 1
    design[np.arange(y.size), b] -= 1
    glm = sm.GLM(y, design[:, 1:], family=sm.families.Binomial()).fit(tol=1e-14)
    oracle = np.concatenate([[0.0], glm.params])
    gap = np.abs(fit.scores - (oracle - oracle.mean())).max()
    print(f"max |score - logistic regression| = {gap:.1e}")


if __name__ == "__main__":
    main()
