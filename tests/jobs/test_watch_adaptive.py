"""watch --adaptive: after each look that read new records, the pair's next batch is what
evalgap.adaptive proposes on the scores the logs hold; the decision is the watch's own."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError


def _world(tmp_path, items=300):
    rng = np.random.default_rng(0)
    skill = np.linspace(-1.5, 1.5, 12)
    a, c = rng.uniform(0.5, 2.5, items), rng.normal(0, 1, items)
    y = (rng.random((12, items)) < 1 / (1 + np.exp(-(np.outer(skill, a) + c)))).astype(float)
    names = [f"m{k:02d}" for k in range(12)]
    board = pd.DataFrame(
        [(n, i, y[k, i]) for k, n in enumerate(names) for i in range(items)],
        columns=["model", "item_id", "score"],
    )
    return y, board


def _logs(root, y, rows, ran):
    """lm-eval sample logs of two models on the items ``ran`` (one task, ``qa``)."""
    for name, k in zip(("m10", "m02"), rows, strict=True):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps({"doc_id": int(i), "acc": float(y[k, i])}) for i in ran]
        (folder / "samples_qa_2026-01-01T00-00-00.jsonl").write_text("\n".join(lines) + "\n")


def test_the_watch_proposes_what_adaptive_proposes_and_writes_it(tmp_path, run_cli):
    y, board = _world(tmp_path)
    ran = range(0, 300, 10)
    _logs(tmp_path / "logs", y, (10, 2), ran)
    batch, kept = tmp_path / "batch.txt", tmp_path / "pair.json"
    status = evalgap.watch(tmp_path / "logs", pair=("m10", "m02"), adaptive=True,
                           reference=board, next_count=20, output=batch,
                           adaptive_state=kept, seed=4)  # fmt: skip
    a = status.adaptive
    assert a.n_items == 30 and len(a.next_items) == 20
    assert batch.read_text().split() == list(a.next_items)
    # the same call of evalgap.adaptive on the logs' scores proposes the same batch
    scores = pd.DataFrame(
        [(m, str(i), y[k, i]) for m, k in (("m10", 10), ("m02", 2)) for i in ran],
        columns=["model", "item_id", "score"],
    )
    again = evalgap.adaptive(scores, reference=board, pair=("m10", "m02"), next_count=20,
                             seed=4, state=tmp_path / "fresh.json")  # fmt: skip
    assert again.next_items == a.next_items
    # the decision, its evidence and the better model are the watch's own (its interval)
    row = status.pairs.iloc[0]
    assert (a.decided, a.e_value) == (bool(row["decided"]), pytest.approx(row["e_value"]))
    assert status.to_dict()["adaptive"]["decided"] == status.to_dict()["pairs"][0]["decided"]
    assert status.to_dict()["adaptive"]["next_items"] == list(a.next_items)
    # the command line: the same batch file and JSON, and the sentence in the report
    board.to_csv(tmp_path / "board.csv", index=False)
    out = run_cli("watch", "--logs", tmp_path / "logs", "--pair", "m10", "m02", "--adaptive",
                  "--reference", tmp_path / "board.csv", "--next", 20, "--once",
                  "--output", tmp_path / "b2.txt", "--seed", 4, "--json")  # fmt: skip
    assert out.returncode in (0, 1), out.stderr
    printed = json.loads(out.stdout.splitlines()[-1])
    assert printed["adaptive"]["next_items"] == (tmp_path / "b2.txt").read_text().split()
    text = run_cli("watch", "--logs", tmp_path / "logs", "--pair", "m10", "m02", "--adaptive",
                   "--reference", tmp_path / "board.csv", "--once")  # fmt: skip
    assert "Next batch: 50 items chosen for m10 vs m02" in " ".join(text.stdout.split())


def test_adaptive_settings_are_checked(tmp_path):
    y, board = _world(tmp_path, items=60)
    _logs(tmp_path / "logs", y, (10, 2), range(10))
    with pytest.raises(InputError, match="adaptive= needs the pair="):
        evalgap.watch(tmp_path / "logs", adaptive=True, reference=board)
    with pytest.raises(InputError, match="reference= is used with adaptive="):
        evalgap.watch(tmp_path / "logs", pair=("m10", "m02"), reference=board)
    with pytest.raises(InputError, match="the same file as"):
        evalgap.watch(tmp_path / "logs", pair=("m10", "m02"), adaptive=True, reference=board,
                      output=tmp_path / "x.json", adaptive_state=tmp_path / "x.json")  # fmt: skip
