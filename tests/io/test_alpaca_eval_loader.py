"""AlpacaEval annotations.json: detection, scores, left-out records, agreement with the table."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io.alpaca_eval import item_id

from conftest import shared_file

BASELINE = "gpt4_1106_preview"


def _records(model, preferences, datasets=None):
    return [
        {
            "instruction": f"Instruction number {i}",
            "output_1": "baseline answer",
            "generator_1": BASELINE,
            "output_2": "model answer",
            "generator_2": model,
            "annotator": "weighted_alpaca_eval_gpt4_turbo",
            "preference": p,
            "dataset": (datasets or ["helpful_base"] * len(preferences))[i],
        }
        for i, p in enumerate(preferences)
    ]


def test_annotations_are_read_as_preference_minus_one(tmp_path):
    for model, prefs in (("m1", [2.0, 1.0, 1.25, None]), ("m2", [1.5, 1.5, 1.0, 2.0])):
        folder = tmp_path / model / "weighted_alpaca_eval_gpt4_turbo"
        folder.mkdir(parents=True)
        (folder / "annotations.json").write_text(json.dumps(_records(model, prefs)))
    long = evalgap.load_scores(tmp_path)
    assert long.source.endswith(str(tmp_path)) or str(tmp_path) in long.source
    frame = long.frame.sort_values(["model", "item_id"])
    assert sorted(frame["model"].unique()) == ["m1", "m2"]
    m1 = frame[frame["model"] == "m1"].set_index("item_id")["score"]
    assert m1[item_id("Instruction number 0")] == 1.0
    assert m1[item_id("Instruction number 2")] == 0.25
    assert len(m1) == 3  # the record without a preference is left out...
    assert any("1 record without a preference" in n for n in long.notes)  # ...and said
    r = evalgap.compare(tmp_path, model_a="m1", model_b="m2", n_bootstrap=200)
    assert r.n_items == 3


def test_bad_preferences_and_foreign_json_are_refused(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(_records("m", [3.0])))
    with pytest.raises(InputError, match=r"record 1 has preference 3\.0"):
        evalgap.load_scores(path)
    path.write_text(json.dumps([{"instruction": "x", "generator_2": "m", "preference": 1}]))
    with pytest.raises(InputError, match="record 1 lacks"):
        evalgap.load_scores(path)


def test_annotations_built_from_the_shared_table_give_its_win_rates(tmp_path):
    """Three models of the shared long table written as annotations.json files (the
    instruction text replaced by its hash, which the long table keeps): the per-model means
    equal the table's mean win, and dataset works as a cluster label."""
    table = pd.read_csv(shared_file("alpaca_eval", "alpaca_eval_long.csv.gz"))
    chosen = ["FuseChat-Gemma-2-9B-Instruct", "Qwen-14B-Chat", "alpaca-7b"]
    for model in chosen:
        sub = table[table["model"] == model]
        records = [
            {
                "instruction": item,
                "generator_1": BASELINE,
                "generator_2": model,
                "preference": pref,
                "dataset": ds,
            }
            for item, pref, ds in zip(sub["item"], sub["preference"], sub["dataset"], strict=True)
        ]
        (tmp_path / f"{model}.json").write_text(json.dumps(records))
    paths = [tmp_path / f"{m}.json" for m in chosen]
    r = evalgap.ranks(paths, n_bootstrap=200)
    got = r.ranks.set_index("model")["score"]
    for model in chosen:
        assert got[model] == pytest.approx(table.loc[table["model"] == model, "win"].mean())
    clustered = evalgap.load_scores(paths, evalgap.LoadOptions(cluster_column="dataset"))
    assert set(clustered.frame["cluster"]) == set(table["dataset"])


def test_records_without_a_model_baseline_or_instruction_are_counted_not_named_none(
    tmp_path, capsys
):
    """generator_2: null became a model named "None" (and a null instruction one item
    "None"): such records are left out and counted, in the notes, terminal and JSON."""
    from evalgap.cli import main

    records = _records("m1", [2.0, 1.0, 1.5, 1.25, 1.75]) + _records(
        "m2", [1.0, 2.0, 1.5, 1.0, 2.0]
    )
    records[1]["generator_2"] = None
    records[6]["generator_2"] = ""
    records[2]["generator_1"] = None
    records[8]["instruction"] = None
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records))
    long = evalgap.load_scores(path)
    frame = long.frame
    assert sorted(frame["model"].unique()) == ["m1", "m2"]
    assert "None" not in set(frame["model"]) | set(frame["item_id"])
    assert frame.groupby("model").size().to_dict() == {"m1": 3, "m2": 3}
    notes = [n for n in long.notes if "left out" in n]
    assert any("2 records with no generator_2 (the model judged" in n for n in notes)
    assert any("1 record with no generator_1 (the baseline" in n for n in notes)
    assert any("1 record with no instruction (the item" in n for n in notes)
    assert main(["inspect-data", "--scores", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert "2 records with no generator_2" in out and '"None"' not in out
    assert main(["inspect-data", "--scores", str(path)]) == 0
    out = capsys.readouterr()
    assert "2 records with no generator_2" in out.out + out.err
    records[3]["generator_2"] = {"name": "x"}
    path.write_text(json.dumps(records))
    with pytest.raises(InputError, match=r"record 4 has generator_2 \{\"name\": \"x\"\}"):
        evalgap.load_scores(path)
