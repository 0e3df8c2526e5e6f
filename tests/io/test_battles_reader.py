"""Battle files as LMArena writes them: a JSON array whose records carry flat style columns
(length_a, length_b) or FastChat's nested conv_metadata (sum_assistant_a_tokens,
header_count_a: {h1: ...}, ...). Style control on them equals fit_style on covariates
computed here from the records, and JSON Lines or a CSV of the same battles give the same."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io.battles import _read_json_array, flatten_metadata, read_battles
from evalgap.stats import bradley_terry as bt


def _metadata(rng, side):
    """One answer's conv_metadata fields, with FastChat's names and nesting."""
    return {
        f"sum_assistant_{side}_tokens": int(rng.integers(20, 900)),
        f"context_{side}_tokens": int(rng.integers(5, 50)),
        f"header_count_{side}": {f"h{i}": int(rng.integers(0, 3)) for i in range(1, 7)},
        f"list_count_{side}": {
            "ordered": int(rng.integers(0, 6)),
            "unordered": int(rng.integers(0, 6)),
        },
        f"bold_count_{side}": {"**": int(rng.integers(0, 4)), "__": int(rng.integers(0, 2))},
    }


def _arena(n=3000, seed=3):
    """Battles of 5 models with FastChat-style records, and the models and outcomes coded."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(0.6, -0.6, 5)
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    records, z = [], strength[a] - strength[b]
    for i in range(n):
        meta = {"sum_user_tokens": 30, "turns": 1, **_metadata(rng, "a"), **_metadata(rng, "b")}
        ta, tb = meta["sum_assistant_a_tokens"], meta["sum_assistant_b_tokens"]
        z[i] += 0.9 * (ta - tb) / (ta + tb)
        records.append({"model_a": f"m{a[i]}", "model_b": f"m{b[i]}", "winner": None,
                        "judge": "arena_user", "anony": True, "language": "English",
                        "tstamp": 1.7e9 + i, "conv_metadata": meta,
                        "category_tag": {"if_v0.1": {"if": False}}})  # fmt: skip
    won = rng.random(n) < 1 / (1 + np.exp(-z))
    for r, w in zip(records, won, strict=True):
        r["winner"] = "model_a" if w else "model_b"
    return records, a, b, won.astype(float)


def _normalized(records, name):
    """(a - b) / (a + b) of a FastChat count (a mapping of counts is summed)."""

    def total(meta, key):
        value = meta[key]
        return sum(value.values()) if isinstance(value, dict) else value

    pairs = {"length": ("sum_assistant_a_tokens", "sum_assistant_b_tokens")}
    parts = [(f"{k}_a", f"{k}_b") for k in ("header_count", "list_count", "bold_count")]
    out = []
    for r in records:
        m = r["conv_metadata"]
        if name == "markdown":
            va, vb = (sum(total(m, p[s]) for p in parts) for s in (0, 1))
        else:
            ka, kb = pairs.get(name, (f"{name}_a", f"{name}_b"))
            va, vb = total(m, ka), total(m, kb)
        out.append(0.0 if va + vb == 0 else (va - vb) / (va + vb))
    return np.asarray(out)


def test_nested_conv_metadata_gives_style_control_equal_to_fit_style(tmp_path, run_cli):
    """clean_battle records were read with five keys only: --style length refused them."""
    records, a, b, y = _arena()
    path = tmp_path / "clean_battle_20240814.json"
    path.write_text(json.dumps(records, indent=1))
    x = np.column_stack([_normalized(records, "length"), _normalized(records, "markdown")])
    oracle = bt.fit_style(a, b, y, x)
    out = run_cli("ranks", "--battles", path, "--style", "length,markdown", "--json",
                  "--n-bootstrap", 200, "--cluster-column", "none")  # fmt: skip
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    style = {row["covariate"]: row["coefficient"] for row in printed["bradley_terry"]["style"]}
    np.testing.assert_allclose([style["length"], style["markdown"]], oracle.coefficients,
                               atol=1e-9)  # fmt: skip
    scores = {row["model"]: row["score"] for row in printed["ranks"]}
    np.testing.assert_allclose([scores[f"m{i}"] for i in range(5)], oracle.scores, atol=1e-9)
    # LMArena's four covariates one by one
    names = ("length", "header_count", "list_count", "bold_count")
    table = read_battles(path, style=names)
    expected = np.column_stack([_normalized(records, n) for n in names])
    np.testing.assert_allclose(table.style, expected, atol=1e-15)
    # the same battles as JSON Lines (conv_metadata read as mappings) and as a gzipped array
    lines = tmp_path / "battles.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in records))
    np.testing.assert_allclose(read_battles(lines, style=names).style, expected, atol=1e-15)
    # a CSV whose conv_metadata cells hold JSON text
    frame = pd.DataFrame(records).assign(conv_metadata=[json.dumps(r["conv_metadata"])
                                                        for r in records])  # fmt: skip
    frame.drop(columns=["category_tag"]).to_csv(tmp_path / "b.csv", index=False)
    np.testing.assert_allclose(read_battles(tmp_path / "b.csv", style=names).style, expected,
                               atol=1e-15)  # fmt: skip


def test_flat_style_columns_of_a_json_array_equal_the_same_battles_as_csv(tmp_path, run_cli):
    """A JSON array with length_a/length_b kept only model_a, model_b, winner, question_id
    and category: the flat columns were dropped."""
    rng = np.random.default_rng(5)
    records, a, b, y = _arena(n=1500, seed=5)
    flat = [{"model_a": r["model_a"], "model_b": r["model_b"], "winner": r["winner"],
             "question_id": f"q{i % 300}", "length_a": int(rng.integers(10, 500)),
             "length_b": int(rng.integers(10, 500)), "markdown": int(rng.integers(-3, 4))}
            for i, r in enumerate(records)]  # fmt: skip
    (tmp_path / "b.json").write_text(json.dumps(flat))
    pd.DataFrame(flat).to_csv(tmp_path / "b.csv", index=False)
    args = ("--style", "length,markdown", "--json", "--n-bootstrap", 200)
    from_json = run_cli("ranks", "--battles", tmp_path / "b.json", *args)
    from_csv = run_cli("ranks", "--battles", tmp_path / "b.csv", *args)
    assert from_json.returncode == 0, from_json.stderr
    left, right = json.loads(from_json.stdout), json.loads(from_csv.stdout)
    assert left["bradley_terry"]["style"] == right["bradley_terry"]["style"]
    assert left["ranks"] == right["ranks"]
    length = np.array([(r["length_a"] - r["length_b"]) / (r["length_a"] + r["length_b"])
                       for r in flat])  # fmt: skip
    x = np.column_stack([length, [r["markdown"] for r in flat]])
    oracle = bt.fit_style(a, b, y, x)
    style = [row["coefficient"] for row in left["bradley_terry"]["style"]]
    np.testing.assert_allclose(style, oracle.coefficients, atol=1e-9)


def test_every_column_is_kept_and_a_missing_style_name_lists_the_files_pairs(tmp_path, run_cli):
    records, *_ = _arena(n=40)
    path = tmp_path / "clean_battle.json"
    path.write_text(json.dumps(records))
    frame = _read_json_array(path)
    assert {"judge", "anony", "language", "tstamp", "sum_user_tokens", "turns",
            "sum_assistant_tokens_a", "context_tokens_b", "header_count_a", "length_b",
            "markdown_a"} <= set(frame.columns)  # fmt: skip
    assert "category_tag" not in frame.columns and "conv_metadata" not in frame.columns
    first = records[0]["conv_metadata"]
    assert frame["header_count_a"].iloc[0] == sum(first["header_count_a"].values())
    assert frame["length_a"].iloc[0] == first["sum_assistant_a_tokens"]
    # with a style, only the columns it needs are held; the message lists what is there
    out = run_cli("ranks", "--battles", path, "--style", "length,emoji")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("evalgap: error: --style emoji: ")
    assert ("(pairs in this file: bold_count, context_tokens, header_count, length, list_count, "
            "markdown, sum_assistant_tokens)") in out.stderr  # fmt: skip
    with pytest.raises(InputError, match=r"^style='emoji': "):
        evalgap.ranks(battles=str(path), style="emoji")
    # the fix the message gives works
    fixed = run_cli("ranks", "--battles", path, "--style", "length,bold_count",
                    "--n-bootstrap", 200, "--cluster-column", "none")  # fmt: skip
    assert fixed.returncode == 0, fixed.stderr
    # a count that is no number is refused by battle, naming the column
    records[3]["conv_metadata"]["bold_count_b"] = {"**": "many"}
    path.write_text(json.dumps(records))
    bad = run_cli("ranks", "--battles", path, "--style", "bold_count")
    assert bad.returncode == 2 and "column 'bold_count_b': battle 4 has None" in bad.stderr


def test_flatten_metadata_names_and_sums():
    flat = flatten_metadata({"sum_assistant_a_tokens": 7, "header_count_b": {"h1": 2, "h2": 1},
                             "list_count_b": {"ordered": 1}, "bold_count_b": {"**": 0},
                             "note": "text", "turns": 2, "odd": [1, 2]})  # fmt: skip
    assert flat == {"sum_assistant_tokens_a": 7.0, "length_a": 7.0, "header_count_b": 3.0,
                    "list_count_b": 1.0, "bold_count_b": 0.0, "markdown_b": 4.0,
                    "turns": 2.0}  # fmt: skip
    assert flatten_metadata(None) == {} and flatten_metadata([1]) == {}
