"""compare --by: model names kept as written, hostile labels inert, exclusions counted."""

from __future__ import annotations

import json

from evalgap.cli import main

from synthetic import grouped_pair


def test_group_verdict_keeps_model_names_and_labels_as_written(tmp_path, capsys):
    # The terminal upper-cased the verdict's first letter, the first letter of model A's
    # name: 'a' was reported as 'A' (a different model). Hostile group labels (markup,
    # escapes, bidi) are shown inert, and a group of one item is left out and counted.
    frame = grouped_pair().rename(columns={"task": "category"})
    frame["model"] = frame["model"].map({"a": "gpt-x", "b": "b"})
    evil = "\x1b[31mred\x1b[0m[red]x[/red]\u202e=1+1"
    frame["category"] = frame["category"].map({"g1": evil, "g2": "g2", "g3": "g3"})
    one = frame[frame["category"] == "g3"]["item_id"].iloc[0]
    frame.loc[frame["item_id"] == one, "category"] = "solo"
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    argv = ["compare", "--scores", str(path), "--model-a", "gpt-x", "--model-b", "b",
            "--by", "category", "--n-bootstrap", "0", "--n-bootstrap-required-n", "0"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "gpt-x and b differ significantly" in out.replace("\n", " ")
    assert "Gpt-x" not in out and "\x1b" not in out and "\u202e" not in out
    assert "[red]x[/red]" in out  # shown as text, not taken as markup
    assert "cluster solo" in out or "solo: 1 shared item" in out


def test_items_left_out_of_the_groups_are_counted_in_terminal_and_json(tmp_path, capsys):
    # Rows with no group label, and an item one model files under another group, vanished
    # from the grouped comparison without a word (the pooled n just shrank); now the
    # alignment's exclusions are notes of the result, in the terminal and in --json.
    frame = grouped_pair().rename(columns={"task": "category"})
    blank = frame["item_id"].isin([f"q{i}" for i in range(7)])
    frame.loc[blank, "category"] = ""
    moved = (frame["model"] == "b") & (frame["item_id"] == "q10")
    frame.loc[moved, "category"] = "elsewhere"
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    argv = ["compare", "--scores", str(path), "--model-a", "a", "--model-b", "b",
            "--by", "category", "--n-bootstrap", "0", "--n-bootstrap-required-n", "0"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    group_of_q10 = frame.loc[(frame["model"] == "a") & (frame["item_id"] == "q10"), "category"]
    assert data["pooled"]["n_items"] == 600 - 7 - 1
    assert "14 rows with an empty model, task or item id were left out" in data["notes"]
    a_rows = frame[(frame["model"] == "a") & ~blank]
    in_group = int((a_rows["category"] == group_of_q10.iloc[0]).sum())
    assert (
        f"b has no score for 1 of {in_group} items on task {group_of_q10.iloc[0]}; its pairs "
        "use the items both models scored"
    ) in data["notes"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "note: 14 rows with an empty model, task or item id were left out" in out
