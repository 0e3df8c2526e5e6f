"""watch after a model is run again into the same lm-eval output folder: the newer run's
records replace the earlier run's, as compare reads the latest run (issue 40)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import evalgap

RUNS = Path(__file__).parents[1] / "fixtures" / "frameworks" / "lm_eval-0.4.13" / "runs"
PAIR = ("weightless-a", "weightless-b")
NEWER = "2026-11-23T09-15-00.000001"


def _copy_run(root: Path, model: str) -> Path:
    """lm-eval's own output of ``model`` (its results and tiny_mc samples), unzipped."""
    folder = root / model
    folder.mkdir(parents=True)
    for source in (RUNS / model).glob("*.gz"):
        if "tiny_gen" in source.name:
            continue  # one task is enough here
        (folder / source.name.removesuffix(".gz")).write_bytes(gzip.decompress(source.read_bytes()))
    return folder


def _rerun(folder: Path, *, keep: int | None = None) -> Path:
    """A newer run of the folder's model: its files under a later stamp, every score flipped
    (the first ``keep`` records written so far when given: a run in progress)."""
    samples = next(folder.glob("samples_tiny_mc_*.jsonl"))
    results = next(folder.glob("results_*.json"))
    stamp = samples.name.removeprefix("samples_tiny_mc_").removesuffix(".jsonl")
    records = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    for record in records:
        for metric in record["metrics"]:
            record[metric] = 1.0 - float(record[metric])
    newer = folder / samples.name.replace(stamp, NEWER)
    written = records if keep is None else records[:keep]
    newer.write_text("".join(json.dumps(r) + "\n" for r in written))
    (folder / results.name.replace(stamp, NEWER)).write_text(results.read_text())
    return newer


def test_watch_follows_the_newer_run_and_agrees_with_compare(tmp_path):
    root = tmp_path / "out"
    for model in PAIR:
        _copy_run(root, model)
    state = tmp_path / "watch.json"
    before = evalgap.watch(root, pair=PAIR, state=state)
    old_gap = float(before.pairs["delta"].iloc[0])
    first = evalgap.compare(str(root), model_a=PAIR[0], model_b=PAIR[1])
    assert old_gap == pytest.approx(first.delta)

    newer = _rerun(root / PAIR[1])  # model B run again into its folder, scores changed
    after = evalgap.watch(root, pair=PAIR, state=state)  # continues from the state file
    compared = evalgap.compare(str(root), model_a=PAIR[0], model_b=PAIR[1])
    row = after.pairs.iloc[0]
    assert compared.delta != pytest.approx(old_gap)  # the re-run moved the gap
    assert float(row["delta"]) == pytest.approx(compared.delta)
    assert int(row["n_items"]) == compared.n_items == 30
    said = [n for n in after.notes if newer.name in n]
    assert said and "replace" in said[0] and PAIR[1] in said[0]
    assert not any("not counted again" in n for n in after.notes)


def test_a_rerun_in_progress_counts_only_the_items_it_has_written(tmp_path):
    root = tmp_path / "out"
    for model in PAIR:
        _copy_run(root, model)
    monitor = evalgap.Monitor(targets="pair", pair=PAIR)
    monitor.follow(root)
    assert monitor.poll() == 60
    newer = _rerun(root / PAIR[1], keep=12)
    monitor.poll()
    status = monitor.status()
    assert int(status.pairs["n_items"].iloc[0]) == 12  # never the earlier run's other 18
    # the run goes on to the end: the pair reads what compare reads
    _rerun(root / PAIR[1])
    assert newer.exists()
    monitor.poll()
    row = monitor.status().pairs.iloc[0]
    compared = evalgap.compare(str(root), model_a=PAIR[0], model_b=PAIR[1])
    assert int(row["n_items"]) == 30
    assert float(row["delta"]) == pytest.approx(compared.delta)


def test_a_rerun_keeps_the_other_pairs_and_a_saved_state_reads_the_same(tmp_path):
    root = tmp_path / "out"
    for model in PAIR:
        _copy_run(root, model)
    _copy_run(root / "other", PAIR[0]).rename(root / "weightless-c")
    monitor = evalgap.Monitor(targets="all")
    monitor.follow(root)
    monitor.poll()
    before = monitor.status().pairs
    _rerun(root / PAIR[1], keep=0)  # started, nothing written yet: B has no items now
    monitor.poll()
    waiting = monitor.status().pairs
    assert PAIR[1] not in set(waiting["model_a"]) | set(waiting["model_b"])
    _rerun(root / PAIR[1])
    monitor.poll()
    after = monitor.status().pairs

    def by_pair(frame):
        return {frozenset((r.model_a, r.model_b)): r for r in frame.itertuples()}

    assert set(by_pair(after)) == set(by_pair(before))
    untouched = frozenset((PAIR[0], "weightless-c"))
    kept, was = by_pair(after)[untouched], by_pair(before)[untouched]
    assert (kept.model_a, kept.delta, kept.n_items) == (was.model_a, was.delta, was.n_items)
    # a resumed monitor (its saved state) reads what the live one reads
    monitor.save(tmp_path / "state.json")
    again = evalgap.Monitor.load(tmp_path / "state.json").status().pairs
    columns = ["task", "model_a", "model_b", "n_items", "delta", "lower", "upper"]
    ordered = ["model_a", "model_b"]
    assert (
        again[columns]
        .sort_values(ordered)
        .reset_index(drop=True)
        .equals(after[columns].sort_values(ordered).reset_index(drop=True))
    )
