"""MTEB results written by mteb's own TaskResult.to_disk (mteb 2.26.24): one item per task,
each task's score equal to mteb's own get_score(), models read from the results layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io.options import LoadOptions

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks" / "mteb-2.26.24"
ORACLE = json.loads((ROOT / "oracle.json").read_text())


def test_each_tasks_score_is_mtebs_own_and_models_come_from_the_layout(run_cli):
    long = evalgap.load_scores([ROOT / "org__model-a", ROOT / "org__model-b"])
    assert set(long.frame["model"]) == {"org/model-a", "org/model-b"}
    for model, tasks in ORACLE.items():
        mine = long.frame[long.frame["model"] == model].set_index("item_id")["score"]
        assert len(mine) == len(tasks) == 5
        for task, score in tasks.items():
            assert mine[task] == pytest.approx(score, abs=1e-12)
    assert any("average main_score over several splits" in n for n in long.notes)
    out = run_cli(
        "compare",
        "--scores",
        ROOT / "org__model-a",
        "--scores",
        ROOT / "org__model-b",
        "--model-a",
        "org/model-a",
        "--model-b",
        "org/model-b",
        "--json",
    )
    data = json.loads(out.stdout)
    assert data["n_items"] == 5
    means = {m: sum(t.values()) / 5 for m, t in ORACLE.items()}  # MTEB's mean over tasks
    assert data["accuracy_a"] == pytest.approx(means["org/model-a"])


def test_old_format_and_off_scale_results_are_refused(tmp_path):
    old = {
        "task_name": "X",
        "mteb_version": "1.2.0",
        "scores": {"test": {"en": {"main_score": 0.5}}},
    }
    (tmp_path / "m" / "r").mkdir(parents=True)
    (tmp_path / "m" / "r" / "X.json").write_text(json.dumps(old))
    with pytest.raises(InputError, match=r"before 1\.11"):
        evalgap.load_scores([tmp_path / "m" / "r" / "X.json"])
    pct = {"task_name": "Y", "mteb_version": "2.0", "scores": {"test": [{"main_score": 81.2}]}}
    (tmp_path / "m" / "r" / "Y.json").write_text(json.dumps(pct))
    with pytest.raises(InputError, match="outside \\[0, 1\\]"):
        evalgap.load_scores([tmp_path / "m" / "r" / "Y.json"])


def test_a_file_given_alone_says_where_its_model_name_came_from(tmp_path):
    import shutil

    one = next((ROOT / "org__model-a").rglob("SciFact.json"))
    (tmp_path / "downloads").mkdir()
    shutil.copy(one, tmp_path / "downloads" / "SciFact.json")
    long = evalgap.load_scores([tmp_path / "downloads" / "SciFact.json"])
    assert set(long.frame["model"]) == {tmp_path.name}
    assert any(f"model {tmp_path.name} named after the folder two levels above" in n
               for n in long.notes)  # fmt: skip
    named = evalgap.load_scores(
        [tmp_path / "downloads" / "SciFact.json"], LoadOptions(model_name="org/model-a")
    )
    assert set(named.frame["model"]) == {"org/model-a"} and not any(
        "two levels above" in n for n in named.notes
    )
    # read as a folder, the layout names the models: nothing to say
    folder = evalgap.load_scores([ROOT / "org__model-a"])
    assert not any("two levels above" in n for n in folder.notes)


def test_a_key_given_twice_is_refused_naming_the_file_and_key(tmp_path, run_cli):
    """A result with main_score written twice read as the last one, without a word."""
    folder = tmp_path / "org__m" / "rev"
    folder.mkdir(parents=True)
    text = ('{"task_name": "X", "mteb_version": "2.0", "scores": {"test": '
            '[{"main_score": 0.25, "hf_subset": "default", "main_score": 0.75}]}}')  # fmt: skip
    (folder / "X.json").write_text(text)
    out = run_cli("inspect-data", "--scores", folder / "X.json")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("evalgap: error: --scores: ")
    assert "X.json: key 'main_score' is given twice in one object, as 0.25 and 0.75" in out.stderr
    with pytest.raises(InputError, match=r"^scores=: .*key 'main_score' is given twice"):
        evalgap.load_scores([folder / "X.json"])
    # the fix the message gives (keep one) reads; the same value twice is read once, said
    (folder / "X.json").write_text(text.replace('"main_score": 0.25, ', ""))
    assert evalgap.load_scores([folder / "X.json"]).frame["score"].tolist() == [0.75]
    (folder / "X.json").write_text(text.replace("0.25", "0.75"))
    long = evalgap.load_scores([folder / "X.json"])
    assert long.frame["score"].tolist() == [0.75]
    assert any("key 'main_score' is repeated with the same value (1 extra time)" in n
               for n in long.notes)  # fmt: skip
