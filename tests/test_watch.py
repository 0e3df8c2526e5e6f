"""Monitor: deciding pairs while an evaluation runs (e-processes, e-BH), replayed on real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError

from conftest import shared_file

LLAMA = ("Meta-Llama-3_1-8B_5shots", "Meta-Llama-3_1-8B-Instruct_5shots")


def _mmlu(models):
    frame = pd.read_csv(shared_file("mmlu_pro", "mmlu_pro_long.csv.gz"))
    return frame[frame["model"].isin(models)]


def _replay(monitor, frame, seed=0, every=200):
    """Feed the rows item by item in a seeded random order; status every ``every`` items."""
    items = np.random.default_rng(seed).permutation(frame["question_id"].unique())
    rows = {q: g for q, g in frame.groupby("question_id")}
    history = []
    for k, item in enumerate(items, 1):
        for row in rows[item].itertuples():
            monitor.update(row.model, item, float(row.correct))
        if k % every == 0 or k == len(items):
            status = monitor.status()
            history.append((k, status))
            if status.done:
                break
    return history


def test_a_clear_pair_is_decided_long_before_the_benchmark_ends():
    frame = _mmlu(LLAMA)
    monitor = evalgap.Monitor(targets="pair", pair=LLAMA)
    k, status = _replay(monitor, frame)[-1]
    assert status.done and status.reason == "every target pair is decided"
    assert k <= 1000  # of 12,032 items
    row = status.pairs.iloc[0]
    assert row["lower"] < row["delta"] < row["upper"]
    # the Instruct model is ahead; the betting confidence sequence (a different, more
    # conservative construction than the discordant-sign e-process that decides) reaches 0
    ahead = row["lower"] >= 0 if row["model_a"] == LLAMA[1] else row["upper"] <= 0
    assert ahead and row["e_value"] >= 20
    assert "1 of 1 target pair decided" in status.verdict


@pytest.mark.slow  # about 20 s: 60,000 updates through the Python loop
def test_pairs_the_fixed_n_audit_leaves_unresolved_are_never_decided_early():
    """Seven MMLU-Pro models adjacent in rank, among them pairs the audit leaves unresolved
    at fixed n: e-BH over all pairs never decides one of those before the last item."""
    models = [
        "Meta-Llama-3_1-70B_5shots",
        "Meta-Llama-3-70B_5shots",
        "jamba-1.5-large_5shots",
        "Qwen1.5-110B_5shots",
        "Yi-34B_5shots",
        "mathstral-7B_5shots",
        "Mixtral-8x7B-Instruct-v0.1_5shots",
    ]
    frame = _mmlu(models)
    audit = evalgap.audit(
        frame,
        model_column="model",
        item_column="question_id",
        score_column="correct",
        n_bootstrap=0,
        n_bootstrap_required_n=0,
        n_rank_bootstrap=0,
    ).to_frame()
    unresolved = {
        frozenset((a, b))
        for a, b, ok in zip(audit.model_a, audit.model_b, audit.resolved_fixed_n, strict=True)
        if not ok
    }
    assert len(unresolved) >= 2
    monitor = evalgap.Monitor(targets="adjacent")
    for k, status in _replay(monitor, frame, every=3000)[:-1]:
        decided = {
            frozenset((a, b))
            for a, b, d in zip(
                status.pairs.model_a, status.pairs.model_b, status.pairs.decided, strict=True
            )
            if d
        }
        assert not decided & unresolved, (k, decided & unresolved)
    assert status.procedure == "e-BH"


def test_graded_pairs_use_the_betting_e_process_and_budget_stops():
    rng = np.random.default_rng(1)
    monitor = evalgap.Monitor(
        targets="baseline", baseline="base", budget=300, price_per_1k_tokens=2.0
    )
    for item in range(300):
        monitor.update("base", item, rng.beta(5, 5), tokens=500)
        monitor.update("same", item, rng.beta(5, 5), tokens=400)
        monitor.update("better", item, min(1.0, rng.beta(5, 5) + 0.2), tokens=700)
    status = monitor.status()
    table = status.pairs.set_index("model_b")
    assert status.done and "budget" in status.reason
    assert table.loc["better", "decided"] and not table.loc["same", "decided"]
    assert table.loc["same", "further_cost"] == pytest.approx(
        table.loc["same", "further_items"] * 900 / 1000 * 2.0
    )


def test_bad_updates_are_refused():
    monitor = evalgap.Monitor(targets="all")
    monitor.update("a", 1, 1.0)
    with pytest.raises(InputError, match="scored item 1 of task 'all' twice"):
        monitor.update("a", 1, 0.0)
    with pytest.raises(InputError, match="scores are in"):
        monitor.update("b", 1, 2.0)
    with pytest.raises(InputError, match="needs pair="):
        evalgap.Monitor(targets="pair")


def _write_chunk(root, frame, models, items):
    """Append the models' records of ``items`` to lm-eval-style sample logs under ``root``."""
    import json as _json

    for model in models:
        folder = root / model
        folder.mkdir(parents=True, exist_ok=True)
        rows = frame[(frame["model"] == model) & frame["question_id"].isin(items)]
        present = set(rows["question_id"])
        rows = rows.set_index("question_id").loc[[i for i in items if i in present]]
        with open(folder / "samples_mmlu_pro_2026-01-01T00-00-00.jsonl", "a") as out:
            for item, row in rows.iterrows():
                out.write(
                    _json.dumps(
                        {"doc_id": int(item), "acc": float(row["correct"]), "metrics": ["acc"]}
                    )
                    + "\n"
                )


def test_watch_command_follows_a_growing_log_directory(run_cli, tmp_path):
    import json as _json

    frame = _mmlu(LLAMA)
    items = list(np.random.default_rng(0).permutation(frame["question_id"].unique()))
    root = tmp_path / "out"
    for start in range(0, 3000, 300):
        _write_chunk(root, frame, LLAMA, items[start : start + 300])
        out = run_cli("watch", "--logs", root, "--pair", *LLAMA, "--once", "--json")
        line = _json.loads(out.stdout.strip().splitlines()[-1])
        # each --once is a fresh look at the whole log (a running watch reads only new lines)
        assert line["new_records"] == 2 * (start + 300)
        if out.returncode == 0:
            break
        assert out.returncode == 1 and not line["done"]
    assert out.returncode == 0 and line["done"]
    assert line["reason"] == "every target pair is decided"
    assert line["pairs"][0]["n_items"] < 2000 < 12_032
    text = run_cli("watch", "--logs", root, "--pair", *LLAMA, "--once")
    assert text.returncode == 0 and "1 of 1 target pair decided" in text.stdout
    # every adjacent pair of the two models, with a projected cost
    cost = run_cli(
        "watch",
        "--logs",
        root,
        "--once",
        "--json",
        "--price-per-1k-tokens",
        "0.5",
        "--tokens-per-item",
        "800",
    )
    record = _json.loads(cost.stdout.strip().splitlines()[-1])
    assert record["pairs"][0]["decided"] and record["pairs"][0]["further_cost"] == 0.0
    refused = run_cli("watch", "--logs", root, "--once", "--tokens-per-item", "800")
    assert refused.returncode == 2 and "--price-per-1k-tokens" in refused.stderr


def test_the_follower_reads_only_what_was_appended(tmp_path):
    from evalgap.io.follow import LogFollower

    log = tmp_path / "m1" / "samples_mmlu_pro_2026-01-01T00-00-00.jsonl"
    log.parent.mkdir()
    line = '{"doc_id": %d, "acc": 1.0, "metrics": ["acc"]}\n'
    log.write_text("".join(line % i for i in range(100)))
    follower = LogFollower([tmp_path])
    assert len(follower.poll()) == 100
    first = follower.bytes_read
    with open(log, "a") as out:
        out.write(line % 100 + '{"doc_id": 101, "ac')  # the last line is still being written
    new = follower.poll()
    assert [r[2] for r in new] == ["100"] and follower.bytes_read - first == len(line % 100)
    with open(log, "a") as out:
        out.write('c": 0.0, "metrics": ["acc"]}\n')
    assert follower.poll() == [("m1", "mmlu_pro", "101", 0.0, None)]
    assert follower.poll() == []


def test_monitoring_study_keeps_the_level_when_looking_after_every_item(run_cli):
    from evalgap import simulate

    r = simulate.monitoring(n_trials=400, horizon=400, seed=3)
    rows = r.rows.set_index("scenario")
    assert list(rows.index) == ["binary pair", "graded pair", "binary family"]
    assert (rows["error_rate"] <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)).all()
    assert rows.loc["binary family", "n_models"] == 6
    out = run_cli("simulate", "monitoring", "--trials", "50", "--horizon", "100", "--json")
    assert out.returncode == 0, out.stderr


@pytest.mark.slow  # the defaults: about 30 s
def test_monitoring_study_defaults():
    from evalgap import simulate

    rows = simulate.monitoring().rows
    assert (rows["error_rate"] <= 0.05 + 2 * rows["error_se"]).all()


def test_inspect_logs_are_followed_item_by_item_with_their_epochs(run_cli, tmp_path):
    """A log rewritten as samples complete: items pass once, and only with all their epochs."""
    import copy
    import json as _json

    from evalgap.io.follow import LogFollower

    source = _json.loads(
        shared_file("format_fixtures", "inspect", "data_arc_sonnet.json").read_text()
    )
    log = copy.deepcopy(source)
    log["eval"].setdefault("config", {})["epochs"] = 2
    first, second = [], []
    for sample in source["samples"]:
        again = copy.deepcopy(sample)
        again["epoch"] = 2
        first.append(sample)
        second.append(again)
    path = tmp_path / "run.json"
    log["samples"] = first[:3] + second[:1]  # items 1-3 at epoch 1, item 1 at epoch 2
    path.write_text(_json.dumps(log))
    follower = LogFollower([tmp_path])
    assert [r[2] for r in follower.poll()] == [str(first[0]["id"])]
    assert follower.poll() == []  # unchanged log: not read again
    log["samples"] = first + second
    path.write_text(_json.dumps(log) + " ")
    later = follower.poll()
    assert sorted(r[2] for r in later) == sorted(str(s["id"]) for s in first[1:])
    # two models' logs side by side: the command pairs them
    other = shared_file("format_fixtures", "inspect", "data_arc_qwen.json")
    (tmp_path / "qwen.json").write_text(other.read_text())
    out = run_cli(
        "watch",
        "--logs",
        tmp_path,
        "--targets",
        "all",
        "--once",
        "--json",
        "--price-per-1k-tokens",
        "3",
    )
    record = _json.loads(out.stdout.strip().splitlines()[-1])
    assert record["pairs"][0]["n_items"] == 3 and out.returncode == 1  # 3 items: undecided
    # the logs' own token counts are read (they price the further items once those are
    # finite: with 3 items no decision is reachable yet, so neither is a cost)
    from evalgap.io.inspect_logs import read_new_samples

    usage = read_new_samples(other)[2]
    assert len(usage) == 3 and all(v > 0 for v in usage.values())
    pair = record["pairs"][0]
    assert pair["further_items"] is None and pair["further_cost"] is None


def test_an_eval_archive_has_only_its_new_samples_parsed(tmp_path, monkeypatch):
    """An .eval log written while samples complete: each look decompresses the new sample
    members only, and every item passes once."""
    import zipfile
    from pathlib import Path

    from evalgap.io import inspect_logs
    from evalgap.io.follow import LogFollower

    source = sorted(
        (Path(__file__).parent / "fixtures" / "frameworks" / "inspect" / "plain_eval").glob(
            "*.eval"
        )
    )[0]
    from evalgap.io._zip import Archive

    with Archive(source) as archive:  # inspect compresses members with zstd
        members = {n: archive.read(n) for n in archive.namelist()}
    samples = sorted(n for n in members if n.startswith("samples/"))
    target = tmp_path / source.name

    def write(upto):
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
            for name, data in members.items():
                if not name.startswith("samples/") or name in samples[:upto]:
                    out.writestr(name, data)

    parsed = []
    original = inspect_logs._json
    monkeypatch.setattr(
        inspect_logs, "_json", lambda raw, where: parsed.append(str(where)) or original(raw, where)
    )
    follower = LogFollower([tmp_path])
    write(3)
    first = follower.poll()
    write(len(samples))
    parsed.clear()
    second = follower.poll()
    sample_reads = [w for w in parsed if "samples/" in w]
    assert len(first) == 3 and len(second) == len(samples) - 3
    assert len(sample_reads) == len(samples) - 3  # the first three were not parsed again
    assert not {r[2] for r in first} & {r[2] for r in second}


def test_a_state_file_carries_the_place_in_the_logs_between_runs(run_cli, tmp_path):
    import json as _json

    frame = _mmlu(LLAMA)
    items = list(np.random.default_rng(1).permutation(frame["question_id"].unique()))
    root, state = tmp_path / "out", tmp_path / "watch.state"
    decided_at = None
    for k, start in enumerate(range(0, 3000, 300)):
        _write_chunk(root, frame, LLAMA, items[start : start + 300])
        out = run_cli(
            "watch", "--logs", root, "--pair", *LLAMA, "--once", "--json", "--state", state
        )
        line = _json.loads(out.stdout.strip().splitlines()[-1])
        assert line["new_records"] == 600  # only what was appended since the last run
        assert line["pairs"][0]["n_items"] == 300 * (k + 1)
        if out.returncode == 0:
            decided_at = line["pairs"][0]["n_items"]
            break
    assert decided_at is not None and decided_at < 3000
    other = run_cli("watch", "--logs", root, "--targets", "all", "--once", "--state", state)
    assert other.returncode == 2 and "written for other --logs, pairs or levels" in other.stderr
    state.write_bytes(b"not a state")
    broken = run_cli("watch", "--logs", root, "--pair", *LLAMA, "--once", "--state", state)
    assert broken.returncode == 2 and "not a watch state file" in broken.stderr
