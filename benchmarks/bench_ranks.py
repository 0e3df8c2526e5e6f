"""Rank sets at leaderboard scale (against an earlier version of the code in the same run),
and the Bradley-Terry bootstrap against refitting.

    python benchmarks/bench_ranks.py                      # the issue's sizes
    python benchmarks/bench_ranks.py --part rank-sets --against 5d6f453 --rounds 3
    python benchmarks/bench_ranks.py --part rank-sets --against 5d6f453 \\
        --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz   # a real board, 29 models
    python benchmarks/bench_ranks.py --models 100 --items 2000 --arena-models 10 \\
        --battles 20000 --replicates 200                  # a smoke run
    python benchmarks/bench_ranks.py --part arena --arena-models 300 --battles 300000 \\
        --refit-replicates 0                              # a large arena alone

1. Rank sets (max-t stepdown bootstrap, B replicates, simultaneous and marginal) of K models x
   N binary items, or of a long score file's board (``--scores``), in a fresh process: wall
   time and peak resident memory. With ``--against REV`` the same call is timed with the
   code of git revision REV (its ``src`` extracted to a temporary folder) in its own fresh
   process, in interleaved rounds (the order alternating), and the ratio this / REV is the
   median of the rounds' ratios. The two calls' sets are compared; and both versions also
   run the stepdown on one set of draws made here (``rank_sets_from_draws``), where the sets
   and the critical value must be identical.
2. A simulated arena (M models, battles with 10% ties): the Bradley-Terry fit, then B
   bootstrap replicates two ways on the same data, side by side: the vectorized bootstrap
   (multinomial weights on the distinct cells, every replicate fitted at once) and a
   refit-per-replicate loop (resample the battles, aggregate, fit); their ratio. With
   statsmodels installed, the largest gap between the fit and a logistic regression.
3. The same arena on ``--prompts`` prompts (each battle on a random one): B bootstrap
   replicates resampled a prompt at a time (what ``ranks --battles`` does when the table has
   ``question_id``) beside battle by battle, in one run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _child import in_child
from bench_phases import scores_matrix

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
    identical = all(
        np.array_equal(same[name], before_same[name]) for name in same if name != "critical_value"
    ) and same["critical_value"] == before_same["critical_value"]
    print(
        f"  the same draws (rank_sets_from_draws): sets and critical value identical: "
        f"{'yes' if identical else 'NO'}; this code "
        f"{np.median([r['draws_seconds'] for r in this]):.2f} s, {args.against} "
        f"{np.median([r['draws_seconds'] for r in other]):.2f} s"
    )


def _arena_fit(n_models, n_battles, replicates, queue) -> None:
    from evalgap.stats import bradley_terry as bt

    a, b, y = arena(n_models, n_battles)
    start = time.perf_counter()
    data = bt.battles(a, b, y, n_models)
    fit = bt.fit(data)
    bt.bootstrap(data, replicates, seed=1, start=fit.scores)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30
    queue.put((seconds, peak))


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
    parser.add_argument("--rounds", type=int, default=3, help="Interleaved rounds (--against).")
    parser.add_argument(
        "--calls", type=int, help="Calls per process, the fastest kept (default 5 on small boards)."
    )
    parser.add_argument("--arena-models", type=int, default=50)
    parser.add_argument("--battles", type=int, default=200_000)
    parser.add_argument("--part", choices=("all", "rank-sets", "arena"), default="all")
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
    seconds, peak = in_child(_arena_fit, args.arena_models, args.battles, args.replicates)
    print(
        f"Bradley-Terry in a fresh process, {args.arena_models:,} models, {args.battles:,} "
        f"battles: fit and B = {args.replicates:,} bootstrap {seconds:.1f} s, peak {peak:.2f} GiB"
    )
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
