"""Monitor: deciding pairs while an evaluation runs (e-processes, e-BH), replayed on real data."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert k == 400  # of 12,032 items, as docs/watch.md says
    row = status.pairs.iloc[0]
    assert row["lower"] < row["delta"] < row["upper"]
    # the Instruct model is ahead: the interval of the e-processes that decide leaves 0 out
    ahead = row["lower"] > 0 if row["model_a"] == LLAMA[1] else row["upper"] < 0
    assert ahead and row["e_value"] >= 20
    assert "1 of 1 target pair decided" in status.verdict


def test_graded_pairs_are_decided_and_budget_stops():
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
    with pytest.raises(InputError, match="scored item '1' of task 'all' twice"):
        monitor.update("a", 1, 0.0)
    with pytest.raises(InputError, match="scores are in"):
        monitor.update("b", 1, 2.0)
    with pytest.raises(InputError, match="needs pair="):
        evalgap.Monitor(targets="pair")
    with pytest.raises(InputError, match="price_per_1k_tokens must be a number >= 0; got -1"):
        evalgap.Monitor(price_per_1k_tokens=-1)  # was taken: a negative projected cost
    assert evalgap.Monitor(price_per_1k_tokens=0).price == 0.0  # as --price-per-1k-tokens 0


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
    out = run_cli("simulate", "monitoring", "--n-trials", "50", "--horizon", "100", "--json")
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
    log["status"] = "started"  # the run goes on
    path.write_text(_json.dumps(log))
    follower = LogFollower([tmp_path])
    assert [r[2] for r in follower.poll()] == [str(first[0]["id"])]
    assert follower.poll() == []  # unchanged log: not read again
    log["samples"] = first + second
    log["status"] = "success"
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

    usage = read_new_samples(other).tokens
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
        (Path(__file__).parents[1] / "fixtures" / "frameworks" / "inspect" / "plain_eval").glob(
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
    original = inspect_logs.parse_json
    monkeypatch.setattr(
        inspect_logs,
        "parse_json",
        lambda raw, where: parsed.append(str(where)) or original(raw, where),
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


# --- regression tests: state, logs that are rewritten, re-run, copied, reduced ---------------

FRAMEWORKS = Path(__file__).parents[1] / "fixtures" / "frameworks"


def _lines(root, model, task, records, stamp="2026-01-01T00-00-00", mode="w"):
    """Write lm-eval records ``(doc_id, acc)`` to ``root/model/samples_<task>_<stamp>.jsonl``."""
    folder = root / model
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{stamp}.jsonl"
    with open(path, mode) as out:
        for doc, acc in records:
            out.write(json.dumps({"doc_id": doc, "acc": acc, "metrics": ["acc"]}) + "\n")
    return path


def _eval_members(path):
    from evalgap.io._zip import Archive

    with Archive(path) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def _json_log(eval_path, target, *, status=None, edit=None):
    """An inspect ``.json`` log holding what an ``.eval`` archive holds (``edit`` changes it)."""
    members = _eval_members(eval_path)
    header = json.loads(members["header.json"])
    log = {
        "version": header.get("version", 2),
        "status": status or header["status"],
        "eval": header["eval"],
        "samples": [json.loads(members[n]) for n in sorted(members) if n.startswith("samples/")],
        "reductions": json.loads(members["reductions.json"])
        if "reductions.json" in members
        else [],
    }
    if edit is not None:
        edit(log)
    target.write_text(json.dumps(log))
    return target


def test_a_crafted_state_file_never_runs_code_and_the_state_is_versioned_json(run_cli, tmp_path):
    import os
    import pickle

    root = tmp_path / "out"
    _lines(root, "a", "qa", [(i, 1.0) for i in range(40)])
    _lines(root, "b", "qa", [(i, float(i % 10 != 0)) for i in range(40)])
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    state = tmp_path / "watch.state"
    state.write_bytes(pickle.dumps({"version": 1, "monitor": Payload()}))
    out = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once", "--state", state)
    assert out.returncode == 2 and not marker.exists()
    assert f"--state {state}: not a watch state file" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    state.unlink()
    first = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once", "--state", state)
    assert first.returncode == 1, first.stderr
    saved = json.loads(state.read_text())  # plain JSON, versioned
    assert saved["format"] == "evalgap watch state" and saved["version"] == 2
    assert saved["settings"]["pair"] == ["a", "b"] and len(saved["records"]) == 80
    # every field is checked before use: a wrong version, type or shape is one line
    for change, words in (
        (lambda d: d.update(version=1), "another evalgap version"),
        (lambda d: d["records"].__setitem__(0, ["qa", "a", "0", "x", None]), "records"),
        (lambda d: d["records"].__setitem__(0, ["qa", "a", "0"]), "records"),
        (lambda d: d["follower"].update(cursors={}), "follower.cursors"),
        (lambda d: d["settings"].update(alpha="0.05"), "settings.alpha"),
        (lambda d: d["records"].append(d["records"][0]), "twice"),
    ):
        bad = json.loads(json.dumps(saved))
        change(bad)
        state.write_text(json.dumps(bad))
        out = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once", "--state", state)
        assert out.returncode == 2 and words in out.stderr, (words, out.stderr)
        assert str(state) in out.stderr and len(out.stderr.strip().splitlines()) == 1
    # Python: the same state, saved and loaded; the status is the same after the round trip
    monitor = evalgap.Monitor(targets="pair", pair=("a", "b"))
    monitor.follow(root)
    monitor.poll()
    before = monitor.status()
    monitor.save(tmp_path / "m.json")
    again = evalgap.Monitor.load(tmp_path / "m.json")
    pd.testing.assert_frame_equal(again.status().pairs, before.pairs)
    assert again.settings == monitor.settings
    assert not list(tmp_path.glob(".m.json.*"))  # written through a temporary file


def test_a_state_file_takes_the_same_folder_however_it_is_spelled(run_cli, tmp_path):
    root = tmp_path / "out"
    _lines(root, "a", "qa", [(i, 1.0) for i in range(30)])
    _lines(root, "b", "qa", [(i, float(i % 10 != 0)) for i in range(30)])
    state = tmp_path / "watch.state"
    args = ("--pair", "a", "b", "--once", "--json", "--state", state)
    assert run_cli("watch", "--logs", root, *args).returncode == 1
    _lines(root, "a", "qa", [(i, 1.0) for i in range(30, 40)], mode="a")
    _lines(root, "b", "qa", [(i, 1.0) for i in range(30, 40)], mode="a")
    for spelling in (f"{root}/", f"{root}/./", f"{tmp_path}/out/../out"):
        out = run_cli("watch", "--logs", spelling, *args)
        assert out.returncode in (0, 1), out.stderr
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["pairs"][0]["n_items"] == 40


def test_a_truncated_or_rewritten_log_is_read_again_without_double_counting(tmp_path):
    from evalgap.io.follow import LogFollower

    path = _lines(tmp_path, "m", "qa", [(i, 1.0) for i in range(100)])
    follower = LogFollower([tmp_path])
    assert len(follower.poll()) == 100

    # the run restarts: the file is truncated in place and written again from its start (its
    # records name their filter: other line lengths than the first run's)
    def restarted(items, mode):
        with open(path, mode) as out:
            for i in items:
                record = {"doc_id": i, "filter": "none", "acc": 1.0, "metrics": ["acc"]}
                out.write(json.dumps(record) + "\n")

    restarted(range(30), "w")
    assert follower.poll() == []  # items already counted
    restarted(range(30, 150), "a")
    new = follower.poll()
    assert [r[2] for r in new] == [str(i) for i in range(100, 150)]
    # rewritten longer than the place reached, with other first bytes (another record form)
    with open(path, "w") as out:
        for i in range(200):
            out.write(json.dumps({"acc": 0.0, "doc_id": i, "metrics": ["acc"]}) + "\n")
    again = follower.poll()
    assert [r[2] for r in again] == [str(i) for i in range(150, 200)]
    assert any("rewritten" in n for n in follower.notes)
    assert any("not counted again" in n for n in follower.notes)
    # a new file under the same name (another identity)
    path.unlink()
    _lines(tmp_path, "m", "qa", [(i, 1.0) for i in range(210)])
    assert [r[2] for r in follower.poll()] == [str(i) for i in range(200, 210)]


def test_a_model_run_again_in_the_same_folder_is_followed_as_the_loaders_read_it(run_cli, tmp_path):
    from evalgap.io.lm_eval import read_lm_eval

    root = tmp_path / "out"
    _lines(root, "a", "qa", [(i, 1.0) for i in range(50)])
    _lines(root, "b", "qa", [(i, 0.0) for i in range(50)], stamp="2026-01-01T00-00-00")
    _lines(root, "b", "qa", [(i, float(i % 2)) for i in range(50)], stamp="2026-01-02T00-00-00")
    out = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once", "--json")
    assert out.returncode in (0, 1), out.stderr
    record = json.loads(out.stdout.strip().splitlines()[-1])
    loaded = read_lm_eval(root).frame
    b = loaded[loaded["model"] == "b"].astype({"item_id": int}).sort_values("item_id")
    assert record["pairs"][0]["n_items"] == 50
    assert record["pairs"][0]["delta"] == pytest.approx(1.0 - b["score"].mean())
    assert any("newer run" in n for n in record["notes"])


def test_a_finished_inspect_log_counts_an_item_missing_an_epoch_and_says_so(run_cli, tmp_path):
    source = sorted((FRAMEWORKS / "inspect" / "epochs").glob("*.eval"))

    def drop_one(log):
        log["eval"]["config"]["epochs_reducer"] = ["mean"]
        log["reductions"] = []
        log["samples"] = [s for s in log["samples"] if not (s["id"] == "q03" and s["epoch"] == 2)]

    _json_log(source[0], tmp_path / "alpha.json", edit=drop_one)
    _json_log(
        source[1],
        tmp_path / "beta.json",
        edit=lambda g: g["eval"]["config"].update(epochs_reducer=["mean"]),
    )
    out = run_cli("watch", "--logs", tmp_path, "--targets", "all", "--once", "--json")
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["pairs"][0]["n_items"] == 12  # q03 counted, with its one epoch
    assert any("fewer than the run's 2 epochs" in n for n in record["notes"])
    compared = evalgap.load_scores(tmp_path).frame
    assert compared[compared["item_id"] == "q03"].groupby("model").size().min() == 1
    text = run_cli("watch", "--logs", tmp_path, "--targets", "all", "--once")
    assert "fewer than the run's 2 epochs" in text.stdout


def test_int_and_text_item_ids_pair_and_a_pair_is_a_minus_b_as_named(run_cli, tmp_path):
    monitor = evalgap.Monitor(targets="pair", pair=("a", "b"))
    for i in range(50):
        monitor.update("b", str(i), 0.0)  # b arrives first, its ids as text
        monitor.update("a", i, 1.0)
    row = monitor.status().pairs.iloc[0]
    assert (row["model_a"], row["model_b"], row["n_items"]) == ("a", "b", 50)
    assert row["delta"] == 1.0 and row["lower"] > 0
    monitor.update("a", np.int64(60), 1.0)
    monitor.update("b", 60.0, 1.0)  # a whole number read as a decimal
    assert monitor.status().pairs.iloc[0]["n_items"] == 51
    # the command: b's log is written first, the pair is still a - b
    root = tmp_path / "out"
    _lines(root, "b", "qa", [(i, 0.0) for i in range(40)])
    rows = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once", "--json")
    assert rows.returncode == 2  # a's log does not exist yet: see the model rule
    _lines(root, "a", "qa", [(i, 1.0) for i in range(40)])
    out = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once", "--json")
    pair = json.loads(out.stdout.strip().splitlines()[-1])["pairs"][0]
    assert (pair["model_a"], pair["model_b"], pair["delta"]) == ("a", "b", 1.0)
    flipped = run_cli("watch", "--logs", root, "--pair", "b", "a", "--once", "--json")
    pair = json.loads(flipped.stdout.strip().splitlines()[-1])["pairs"][0]
    assert (pair["model_a"], pair["model_b"], pair["delta"]) == ("b", "a", -1.0)
    text = run_cli("watch", "--logs", root, "--pair", "a", "b", "--once")
    header = next(line for line in text.stdout.splitlines() if "delta" in line)
    assert header.split()[:3] == ["task", "A", "B"]  # a task column
    assert any(line.split()[:3] == ["qa", "a", "b"] for line in text.stdout.splitlines())


def test_a_model_name_not_in_the_logs_stops_at_the_first_look(run_cli, tmp_path):
    import time

    root = tmp_path / "out"
    _lines(root, "llama-8b", "qa", [(i, 1.0) for i in range(20)])
    _lines(root, "llama-70b", "qa", [(i, 0.0) for i in range(20)])
    start = time.monotonic()
    out = run_cli("watch", "--logs", root, "--pair", "llama-8b", "llama-7b", "--interval", "0.01")
    assert time.monotonic() - start < 10  # no poll forever
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "no model 'llama-7b' in the logs" in out.stderr
    assert "llama-70b" in out.stderr and "llama-8b" in out.stderr
    base = run_cli("watch", "--logs", root, "--baseline", "gpt", "--once")
    assert base.returncode == 2 and "no model 'gpt'" in base.stderr
    monitor = evalgap.Monitor(targets="pair", pair=("llama-8b", "nope"))
    monitor.follow(root)
    with pytest.raises(InputError, match="no model 'nope'"):
        monitor.poll()


def test_logs_not_there_yet_and_logs_being_copied_are_waited_for(run_cli, tmp_path):
    from evalgap.io.follow import LogFollower

    missing = tmp_path / "later"
    out = run_cli("watch", "--logs", missing, "--once", "--json")
    assert out.returncode == 1, out.stderr
    assert "does not exist yet" in json.loads(out.stdout)["notes"][0]
    source = sorted((FRAMEWORKS / "inspect" / "plain_eval").glob("*.eval"))[0]
    raw = source.read_bytes()
    copy = tmp_path / "copy" / source.name
    copy.parent.mkdir()
    copy.write_bytes(raw[: len(raw) // 2])  # half copied
    follower = LogFollower([copy.parent])
    assert follower.poll() == []
    assert any(n.startswith(f"waiting for {source.name}") for n in follower.notes)
    copy.write_bytes(raw)
    assert len(follower.poll()) == 16 and not any("waiting" in n for n in follower.notes)
    # a .json log being copied
    plain = sorted((FRAMEWORKS / "inspect" / "plain_json").glob("*.json.gz"))[0]
    import gzip

    text = gzip.decompress(plain.read_bytes())
    half = tmp_path / "json" / plain.name.removesuffix(".gz")
    half.parent.mkdir()
    half.write_bytes(text[: len(text) - 100])
    follower = LogFollower([half.parent])
    assert follower.poll() == [] and "waiting for" in follower.notes[0]
    half.write_bytes(text)
    assert len(follower.poll()) == 16


def _two_reducers(log):
    """Make a log reduce its epochs with max and mean (inspect writes one reduction each)."""
    log["eval"]["config"]["epochs_reducer"] = ["max", "mean"]
    scores: dict = {}
    for sample in log["samples"]:
        value = 1.0 if sample["scores"]["letter"]["value"] == "C" else 0.0
        scores.setdefault(sample["id"], []).append(value)
    log["reductions"].append(
        {
            "scorer": "letter",
            "reducer": "mean",
            "samples": [{"sample_id": k, "value": float(np.mean(v))} for k, v in scores.items()],
        }
    )


def test_epoch_reducers_are_chosen_and_watch_reads_what_compare_reads(run_cli, tmp_path):
    from evalgap.io.follow import LogFollower
    from evalgap.io.inspect_logs import read_inspect

    folder = FRAMEWORKS / "inspect" / "epochs"
    compared = read_inspect(folder).frame
    follower = LogFollower([folder])
    records = follower.poll()
    assert len(records) == len(compared) == 24  # 12 items x 2 models, each reduced by max
    watched = {(m, i): s for m, _, i, s, _ in records}
    assert watched == {
        (m, i): s for m, i, s in zip(compared.model, compared.item_id, compared.score, strict=True)
    }
    # two reducers: a one-line refusal naming them and the option, then either one
    sources = sorted(folder.glob("*.eval"))
    for k, source in enumerate(sources):
        _json_log(source, tmp_path / f"log{k}.json", edit=_two_reducers)
    models = ("--model-a", "mockllm/noisy-alpha", "--model-b", "mockllm/noisy-beta")
    for command in (
        ("watch", "--logs", tmp_path, "--once"),
        ("compare", "--scores", tmp_path, *models),
    ):
        out = run_cli(*command)
        assert out.returncode == 2 and "'max' and 'mean'" in out.stderr
        assert "--reducer" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    for reducer in ("max", "mean"):
        out = run_cli(
            "watch",
            "--logs",
            tmp_path,
            "--targets",
            "all",
            "--once",
            "--json",
            "--reducer",
            reducer,
        )
        pair = json.loads(out.stdout.strip().splitlines()[-1])["pairs"][0]
        frame = read_inspect(tmp_path, reducer=reducer).frame
        means = frame.groupby(["model", "item_id"])["score"].mean().groupby("model").mean()
        assert pair["delta"] == pytest.approx(means[pair["model_a"]] - means[pair["model_b"]])
        compare = run_cli("compare", "--scores", tmp_path, *models, "--reducer", reducer, "--json")
        assert json.loads(compare.stdout)["delta"] == pytest.approx(abs(pair["delta"]))
    bad = run_cli("watch", "--logs", tmp_path, "--once", "--reducer", "mode")
    assert bad.returncode == 2 and "no epoch reducer 'mode'" in bad.stderr


def test_an_in_progress_log_with_another_reducer_waits_for_its_reductions(tmp_path):
    from evalgap.io.follow import LogFollower

    source = sorted((FRAMEWORKS / "inspect" / "epochs").glob("*.eval"))[0]
    members = _eval_members(source)
    import zipfile

    target = tmp_path / source.name
    samples = sorted(n for n in members if n.startswith("samples/"))

    def write(upto, finished):
        with zipfile.ZipFile(target, "w") as out:
            for name, data in members.items():
                if name.startswith("samples/") and name not in samples[:upto]:
                    continue
                if not finished and name in ("header.json", "reductions.json"):
                    continue
                out.writestr(name, data)

    follower = LogFollower([tmp_path])
    write(10, finished=False)
    assert follower.poll() == []
    assert any("reduced with 'max'" in n for n in follower.notes)
    write(len(samples), finished=True)
    records = follower.poll()
    assert len(records) == 12 and not any("waiting" in n for n in follower.notes)


def test_every_option_a_watch_message_names_is_an_option_of_watch(run_cli, tmp_path):
    import re

    from evalgap.cli.watch import watch

    options = {o for p in watch.params for o in p.opts}
    source = sorted((FRAMEWORKS / "inspect" / "plain_eval").glob("*.eval"))
    out = run_cli("watch", "--logs", source[0], "--scorer", "two_parts", "--once")
    assert out.returncode == 2 and "--score-key" in out.stderr
    assert set(re.findall(r"--[a-z][a-z0-9-]*", out.stderr)) <= options
    fine = run_cli(
        "watch",
        "--logs",
        *[x for s in source for x in ("--logs", s)][1:],
        "--scorer",
        "two_parts",
        "--score-key",
        "exact",
        "--targets",
        "all",
        "--once",
        "--json",
    )
    assert fine.returncode in (0, 1), fine.stderr
    assert json.loads(fine.stdout.strip().splitlines()[-1])["pairs"][0]["n_items"] == 16
    lm = tmp_path / "m" / "samples_qa_2026-01-01T00-00-00.jsonl"
    lm.parent.mkdir()
    lm.write_text(json.dumps({"doc_id": 1, "acc": 1.0, "metrics": ["acc"]}) + "\n")
    out = run_cli("watch", "--logs", tmp_path, "--metric", "nope", "--once")
    assert out.returncode == 2
    assert set(re.findall(r"--[a-z][a-z0-9-]*", out.stderr)) <= options


def test_a_projection_beyond_the_items_a_task_has_is_flagged_and_kept():
    rng = np.random.default_rng(4)
    monitor = evalgap.Monitor(targets="pair", pair=("a", "b"))
    for i in range(100):
        monitor.update("a", i, float(rng.random() < 0.62))
        monitor.update("b", i, float(rng.random() < 0.58))
    open_ = monitor.status().pairs.iloc[0]
    assert 150 < open_["further_items"] < np.inf  # at these estimates: far more than 150
    assert not open_["exceeds_task"]  # the task's size is not known yet
    monitor.set_task_items("all", 250)
    status = monitor.status()
    row = status.pairs.iloc[0]
    # the same projection, flagged: the task cannot supply it (no cost for items not there)
    assert row["further_items"] == open_["further_items"] and row["task_items"] == 250
    assert row["exceeds_task"] and row["further_cost"] is None
    further, total = int(row["further_items"]), int(row["further_items"]) + 100
    assert any(
        "cannot be decided with the task's 250 items" in n
        and f"needs about {further:,} more ({total:,} in all" in n
        and f"would need {int(row['required_n']):,})" in n
        for n in status.notes
    )
    assert "none of the others can be decided with its task's items" in status.verdict
    assert f"would need about {further:,} more, anytime-valid" in status.verdict


def test_an_inspect_log_says_how_many_items_its_task_has(tmp_path):
    monitor = evalgap.Monitor(targets="all")
    monitor.follow(FRAMEWORKS / "inspect" / "plain_eval")
    monitor.poll()
    assert monitor.status().pairs["task_items"].tolist() == [16]


def test_new_bytes_are_read_in_bounded_chunks_and_a_huge_line_is_one_error(tmp_path, monkeypatch):
    from evalgap.io import follow

    path = _lines(tmp_path, "m", "qa", [(i, 1.0) for i in range(2000)])
    sizes = []
    real_open = open

    class Tracked:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def seek(self, *args):
            return self.handle.seek(*args)

        def read(self, size=-1):
            sizes.append(size)
            return self.handle.read(size)

    monkeypatch.setattr(follow, "open", lambda *a, **k: Tracked(real_open(*a, **k)), raising=False)
    monkeypatch.setattr(follow, "CHUNK", 4096, raising=False)
    monkeypatch.setattr(follow, "MAX_LINE", 10_000, raising=False)
    follower = follow.LogFollower([tmp_path])
    assert len(follower.poll()) == 2000
    assert sizes and all(0 <= s <= 4096 for s in sizes)
    assert follower.bytes_read == path.stat().st_size
    with real_open(path, "a") as out:
        out.write('{"doc_id": 9999, "acc": 1.0, "pad": "' + "x" * 20_000)
    with pytest.raises(InputError, match="longer than"):
        follower.poll()


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda m: m.update("a", [1], 1.0), "item must be an id"),
        (lambda m: m.update("a", {"x": 1}, 1.0), "item must be an id"),
        (lambda m: m.update("a", 1.5, 1.0), "item must be an id"),
        (lambda m: m.update("a", True, 1.0), "item must be an id"),
        (lambda m: m.update("a", 1, float("nan")), "must be a number in [0, 1]"),
        (lambda m: m.update("a", 1, "1"), "must be a number in [0, 1]"),
        (lambda m: m.update("a", 1, [1.0]), "must be a number in [0, 1]"),
        (lambda m: m.update(None, 1, 1.0), "model= must be a non-empty name"),
        (lambda m: m.update(["a"], 1, 1.0), "model= must be a non-empty name"),
        (lambda m: m.update("a", 1, 1.0, task=3), "task= must be a non-empty name"),
        (lambda m: m.update("a", 1, 1.0, tokens=-5), "tokens= must be a number >= 0"),
        (lambda m: m.update("a", 1, 1.0, tokens="many"), "tokens must be"),
        (lambda m: m.add([1, 2]), "takes a DataFrame"),
        (lambda m: m.add(pd.DataFrame({"model": ["a"]})), "no column 'item_id'"),
        (lambda m: m.poll(), "call follow(logs) first"),
        (lambda m: m.follow([]), "names no log"),
        (lambda m: m.set_task_items("all", 0), "n_items must be a whole number >= 1"),
    ],
)
def test_bad_python_inputs_are_one_line_errors(call, words):
    monitor = evalgap.Monitor(targets="all")
    with pytest.raises(InputError) as caught:
        call(monitor)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert monitor._records == []  # nothing half recorded


def test_watch_function_is_one_look_that_continues_from_a_state_file(tmp_path):
    root = tmp_path / "out"
    _lines(root, "a", "qa", [(i, 1.0) for i in range(20)])
    _lines(root, "b", "qa", [(i, float(i % 10 != 0)) for i in range(20)])
    state = tmp_path / "s.json"
    first = evalgap.watch(root, pair=("a", "b"), state=state)
    assert first.pairs.iloc[0]["n_items"] == 20 and not first.done
    _lines(root, "a", "qa", [(i, 1.0) for i in range(20, 300)], mode="a")
    _lines(root, "b", "qa", [(i, float(i % 2)) for i in range(20, 300)], mode="a")
    second = evalgap.watch(root, pair=("a", "b"), state=state)
    assert second.pairs.iloc[0]["n_items"] == 300 and second.done
    with pytest.raises(InputError, match="written for other logs"):
        evalgap.watch(root, pair=("b", "a"), state=state)


def test_hostile_logs_and_state_files_are_one_line_errors_or_notes(run_cli, tmp_path):
    root = tmp_path / "out"
    _lines(root, "a", "qa", [(i, 1.0) for i in range(10)])
    _lines(root, "b", "qa", [(i, 0.0) for i in range(10)])
    deep = tmp_path / "deep.state"
    deep.write_text("[" * 100_000)
    out = run_cli("watch", "--logs", root, "--once", "--state", deep)
    assert out.returncode == 2 and "not a watch state file" in out.stderr
    same = run_cli("watch", "--logs", root, "--pair", "a", "a", "--once")
    assert same.returncode == 2 and "--pair must name two different models" in same.stderr
    # a metric outside [0, 1]: the file and line, and the option to choose another
    _lines(root, "c", "qa", [(0, 7.0)])
    far = run_cli("watch", "--logs", root, "--once")
    assert far.returncode == 2 and "line 1: 'acc' is 7.0, not a score in [0, 1]" in far.stderr
    assert "--metric" in far.stderr
    # an empty folder, a file that is no log
    (tmp_path / "empty").mkdir()
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    look = run_cli("watch", "--logs", tmp_path / "empty", "--logs", other, "--once", "--json")
    notes = json.loads(look.stdout)["notes"]
    assert look.returncode == 1 and len(notes) == 2
    assert "no lm-eval samples_<task>_<stamp>.jsonl file or inspect_ai log there yet" in notes[0]
    assert "not an lm-eval samples_<task>_<stamp>.jsonl file or an inspect_ai log" in notes[1]


def test_one_model_in_two_folders_is_two_runs_told_apart_by_folder(run_cli, tmp_path):
    _lines(tmp_path / "bf16", "org__m", "qa", [(i, 1.0) for i in range(30)])
    _lines(tmp_path / "fp8", "org__m", "qa", [(i, float(i % 3 != 0)) for i in range(30)])
    out = run_cli(
        "watch", "--logs", tmp_path, "--pair", "org/m (bf16)", "org/m (fp8)", "--once", "--json"
    )
    assert out.returncode in (0, 1), out.stderr
    pair = json.loads(out.stdout.strip().splitlines()[-1])["pairs"][0]
    assert pair["n_items"] == 30 and pair["delta"] == pytest.approx(10 / 30)
    compared = evalgap.load_scores(tmp_path).frame
    assert set(compared["model"]) == {"org/m (bf16)", "org/m (fp8)"}


def test_a_poll_stopped_by_a_broken_line_never_skips_records_later(tmp_path):
    from evalgap.io.follow import LogFollower

    path = _lines(tmp_path, "m", "qa", [(i, 1.0) for i in range(5)])
    with open(path, "a") as out:
        out.write("{broken\n")
    follower = LogFollower([tmp_path])
    with pytest.raises(InputError, match="line 6 is not valid JSON"):
        follower.poll()
    # the five good records were read but not returned: the follower refuses to go on
    # rather than pass over them
    with pytest.raises(InputError, match="this follower stopped there"):
        follower.poll()
    path.write_text("".join(json.dumps({"doc_id": i, "acc": 1.0}) + "\n" for i in range(5)))
    assert len(LogFollower([tmp_path]).poll()) == 5


def test_a_named_model_whose_log_is_still_being_copied_is_waited_for(run_cli, tmp_path):
    source = sorted((FRAMEWORKS / "inspect" / "plain_eval").glob("*.eval"))
    (tmp_path / source[0].name).write_bytes(source[0].read_bytes())
    raw = source[1].read_bytes()
    (tmp_path / source[1].name).write_bytes(raw[: len(raw) // 3])  # beta: being copied
    args = ("watch", "--logs", tmp_path, "--pair", "mockllm/alpha", "mockllm/beta", "--once")
    out = run_cli(*args, "--json")
    assert out.returncode == 1, out.stderr  # waits: beta's log may name the model
    assert any("waiting for" in n for n in json.loads(out.stdout)["notes"])
    (tmp_path / source[1].name).write_bytes(raw)
    done = run_cli(*args, "--json")
    assert json.loads(done.stdout)["pairs"][0]["n_items"] == 16


def test_a_task_run_under_two_argument_sets_is_two_tasks_as_the_loaders_read_it(tmp_path):
    import gzip

    from evalgap.io.follow import LogFollower
    from evalgap.io.inspect_logs import read_inspect

    for packed in (FRAMEWORKS / "inspect" / "variants").glob("*.json.gz"):
        (tmp_path / packed.name.removesuffix(".gz")).write_bytes(
            gzip.decompress(packed.read_bytes())
        )
    records = LogFollower([tmp_path]).poll()
    loaded = read_inspect(tmp_path).frame
    assert len(records) == len(loaded) == 32
    assert {(m, t, i) for m, t, i, _, _ in records} == set(
        zip(loaded.model, loaded.task, loaded.item_id, strict=True)
    )


def test_a_second_inspect_log_of_the_same_run_is_counted_not_silently_passed_over(tmp_path):
    from evalgap.io.follow import LogFollower

    source = sorted((FRAMEWORKS / "inspect" / "plain_eval").glob("*.eval"))[0]
    (tmp_path / "first.eval").write_bytes(source.read_bytes())
    (tmp_path / "again.eval").write_bytes(source.read_bytes())
    follower = LogFollower([tmp_path])
    assert len(follower.poll()) == 16
    said = [n for n in follower.notes if "16 records of items already counted" in n]
    assert len(said) == 1 and said[0].startswith("first.eval")  # read after again.eval
    follower.poll()
    assert said == [n for n in follower.notes if "records of items already" in n]  # once


def test_an_inspect_score_outside_0_1_names_the_log_and_the_option(run_cli, tmp_path):
    source = sorted((FRAMEWORKS / "inspect" / "epochs").glob("*.eval"))[0]

    def graded(log):
        log["eval"]["config"]["epochs_reducer"] = ["mean"]
        log["samples"][0]["scores"]["letter"]["value"] = 5

    _json_log(source, tmp_path / "log.json", edit=graded)
    out = run_cli("watch", "--logs", tmp_path, "--once")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "log.json: sample 'q00'" in out.stderr and "not a score in [0, 1]" in out.stderr
    assert "--scorer" in out.stderr


def test_watch_function_holds_the_polling_loop_and_says_why_it_stopped(run_cli, tmp_path):
    import threading

    from evalgap.report.json_output import to_json

    root = tmp_path / "out"
    _lines(root, "a", "qa", [(i, 1.0) for i in range(20)])
    _lines(root, "b", "qa", [(i, float(i % 10 != 0)) for i in range(20)])
    # nothing arrives: the loop gives up after the timeout, having looked more than once
    seen = []
    status = evalgap.watch(
        root, pair=("a", "b"), once=False, interval=0.05, timeout=1.0, on_status=seen.append
    )
    assert status.stopped == "timeout" and not status.done and len(seen) >= 2
    assert seen[0].new_records == 40 and seen[0].bytes_read > 0 and seen[0].stopped == ""
    assert all(s.new_records == 0 for s in seen[1:]) and seen[-1] is status
    # records arrive while the loop waits: it stops once the pair is decided
    def append():
        _lines(root, "a", "qa", [(i, 1.0) for i in range(20, 300)], mode="a")
        _lines(root, "b", "qa", [(i, float(i % 2)) for i in range(20, 300)], mode="a")

    timer = threading.Timer(0.1, append)
    timer.start()
    decided = evalgap.watch(root, pair=("a", "b"), once=False, interval=0.02, timeout=30)
    timer.join()
    assert decided.stopped == "decided" and decided.done
    assert 20 < decided.pairs["n_items"].iloc[0] <= 300  # decided on what had arrived
    small = tmp_path / "small"
    _lines(small, "a", "qa", [(i, 1.0) for i in range(20)])
    _lines(small, "b", "qa", [(i, float(i % 10 != 0)) for i in range(20)])
    budget = evalgap.watch(small, pair=("a", "b"), budget=20)
    assert budget.stopped == "budget" and budget.done and "budget" in budget.reason
    one = evalgap.watch(tmp_path / "later", once=True)
    assert one.stopped == "once" and not one.done
    assert one.to_dict()["stopped"] == "once" and "stopped='once'" in repr(one)
    assert repr(evalgap.Monitor(targets="pair", pair=("a", "b"))) == (
        "Monitor(pair=('a', 'b'), alpha=0.05, records=0)"
    )
    # the CLI is this function: the same JSON line for one look
    out = run_cli(
        "watch", "--logs", small, "--pair", "a", "b", "--budget", "20", "--once", "--json"
    )
    line = json.loads(out.stdout)
    assert out.returncode == 0 and line["stopped"] == "budget" and line["new_records"] == 40
    assert line == json.loads(to_json(budget.to_dict()))


@pytest.mark.parametrize(
    ("kwargs", "words", "flag_words"),
    [
        ({"pair": ("a", "b"), "baseline": "a"}, "give either pair= or baseline=",
         "give either --pair or --baseline, not both"),
        ({"tokens_per_item": 10.0}, "tokens_per_item= needs price_per_1k_tokens=",
         "--tokens-per-item needs --price-per-1k-tokens"),
        ({"interval": -1.0}, "interval must be", None),
        ({"timeout": 0.0}, "timeout must be", None),
        ({"once": "yes"}, "once must be True or False", None),
        ({"on_status": 3}, "on_status= takes a function", None),
    ],
)
def test_watch_checks_its_arguments_in_the_library(run_cli, tmp_path, kwargs, words, flag_words):
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        evalgap.watch(tmp_path, **kwargs)
    if flag_words:
        args = ["--pair", "a", "b", "--baseline", "a"] if "pair" in kwargs else [
            "--tokens-per-item", "10"]
        out = run_cli("watch", "--logs", tmp_path, "--once", *args)
        assert out.returncode == 2 and flag_words in out.stderr, out.stderr
