"""Configurations as data: --config-columns on tables, DataFrames, lm-eval and inspect_ai logs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io.lm_eval import run_metadata
from evalgap.io.options import LoadOptions

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "examples" / "configurations" / "logs"
FIXTURES = ROOT / "tests" / "fixtures" / "frameworks"
LM_EVAL = FIXTURES / "lm_eval-0.4.13"


def _unzipped(folder: Path, tmp_path: Path) -> Path:
    """The fixture folder with its gzipped logs as the framework wrote them."""
    target = tmp_path / folder.name
    for packed in folder.rglob("*"):
        if packed.is_file():
            out = target / packed.relative_to(folder)
            out.parent.mkdir(parents=True, exist_ok=True)
            data = packed.read_bytes()
            if packed.suffix == ".gz":
                out, data = out.with_suffix(""), gzip.decompress(data)
            out.write_bytes(data)
    return target


def _crossed(path: Path | None = None) -> pd.DataFrame:
    """Two models x 2 seeds x 2 providers x 10 items, each row's score known."""
    rng = np.random.default_rng(3)
    rows = [
        {"model": m, "item": i, "seed": s, "provider": p, "score": int(rng.random() < 0.6)}
        for m in ("a", "b")
        for s in (1, 2)
        for p in ("x", "y")
        for i in range(10)
    ]
    frame = pd.DataFrame(rows)
    if path is not None:
        frame.to_csv(path, index=False)
    return frame


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_table_keeps_one_configuration_per_combination(tmp_path, suffix):
    raw = _crossed()
    path = tmp_path / f"scores{suffix}"
    if suffix == ".csv":
        raw.to_csv(path, index=False)
    else:
        raw.to_json(path, orient="records", lines=True)
    read = evalgap.load_scores(path, LoadOptions(config_columns=("seed", "provider")))
    frame = read.frame
    expected = "seed=" + raw["seed"].astype(str) + ", provider=" + raw["provider"]
    assert frame["configuration"].astype(str).tolist() == expected.tolist()
    assert read.columns["configuration"] == "seed,provider"
    assert sorted(set(frame["configuration"].astype(str))) == [
        "seed=1, provider=x",
        "seed=1, provider=y",
        "seed=2, provider=x",
        "seed=2, provider=y",
    ]


def test_configurations_are_averaged_per_item_where_a_job_does_not_use_them(tmp_path):
    raw = _crossed(tmp_path / "s.csv")
    aligned = evalgap.align(
        evalgap.load_scores(tmp_path / "s.csv", LoadOptions(config_columns=("seed", "provider")))
    )
    means = raw.groupby(["item", "model"])["score"].mean().unstack()
    task = aligned.tasks[0]
    order = np.argsort(task.item_ids.astype(int))
    np.testing.assert_allclose(task.scores[order], means[["a", "b"]].to_numpy())
    assert task.run_counts.max() == 4  # 2 seeds x 2 providers per item


def test_a_dataframe_takes_the_configuration_from_the_options():
    read = evalgap.jobs._inputs.long_scores(
        _crossed(), options=LoadOptions(config_columns=("provider",))
    )
    assert set(read.frame["configuration"]) == {"provider=x", "provider=y"}


def test_a_missing_configuration_column_is_named_with_the_columns_found(tmp_path):
    _crossed(tmp_path / "s.csv")
    with pytest.raises(InputError, match=r"no column 'sed' given in config_columns=.*'seed'"):
        evalgap.load_scores(tmp_path / "s.csv", LoadOptions(config_columns=("sed",)))


def test_the_flag_takes_a_comma_separated_list_and_names_itself(tmp_path, run_cli):
    _crossed(tmp_path / "s.csv")
    out = run_cli(
        "inspect-data", "--scores", tmp_path / "s.csv", "--config-columns", "seed,provider"
    )
    assert out.returncode == 0, out.stderr
    out = run_cli("inspect-data", "--scores", tmp_path / "s.csv", "--config-columns", "seed,sed")
    assert out.returncode == 2
    assert "no column 'sed' given in --config-columns" in out.stderr


def test_a_source_without_configurations_refuses_the_option(tmp_path, run_cli):
    runs = _unzipped(FIXTURES / "helm" / "runs", tmp_path)
    out = run_cli("inspect-data", "--scores", runs, "--config-columns", "seed")
    assert out.returncode == 2
    assert "the helm reader records no configurations, so --config-columns" in out.stderr


def test_lm_eval_run_metadata_from_a_real_results_file(tmp_path):
    runs = _unzipped(LM_EVAL / "runs", tmp_path)
    read = evalgap.load_scores(
        runs, LoadOptions(config_columns=("seed", "batch_size"), filter_name="strict-match")
    )
    stamp = next((LM_EVAL / "runs" / "weightless-a").glob("results_*.json.gz"))
    config = json.loads(gzip.open(stamp).read())["config"]
    seeds = [config[k] for k in ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")]
    seed = seeds[0] if len(set(seeds)) == 1 else ",".join(map(str, seeds))
    assert set(read.frame["configuration"]) == {f"seed={seed}, batch_size={config['batch_size']}"}
    fixture = ROOT.parent / "shared" / "data" / "format_fixtures" / "lm_eval"
    results = next(fixture.glob("results_*.json"), None)
    if results is not None:  # the shared copy of a published lm-eval 0.4.9.2 run
        fields = run_metadata(json.loads(results.read_text()))
        assert fields["seed"] == "0,1234,1234,1234"
        assert fields["batch_size"] == "16"
        assert fields["lm_eval_version"] == "0.4.9.2"
        assert fields["model_args.trust_remote_code"] == "True"


def test_lm_eval_unknown_field_lists_the_fields_the_run_records(tmp_path):
    runs = _unzipped(LM_EVAL / "runs", tmp_path)
    with pytest.raises(InputError, match=r"no run-metadata field 'provider'.*random_seed"):
        evalgap.load_scores(runs, LoadOptions(config_columns=("provider",)))


def test_inspect_logs_under_two_providers_and_two_seeds_with_their_errored_samples():
    read = evalgap.load_scores(LOGS, LoadOptions(config_columns=("model_args.provider", "seed")))
    frame = read.frame
    per = frame.groupby(["model", "configuration"])
    assert per.size().tolist() == [80] * 8  # every sample kept, errored ones flagged
    errored = per["errored"].sum().unstack()
    assert errored.loc["mockllm/wide"].to_dict() == {
        "model_args.provider=fast, seed=1": 0,
        "model_args.provider=fast, seed=2": 0,
        "model_args.provider=slow, seed=1": 1,
        "model_args.provider=slow, seed=2": 3,
    }
    assert frame.loc[frame["errored"], "score"].isna().all()
    plain = evalgap.load_scores(LOGS)  # without the option: one log per model, as before
    assert "configuration" not in plain.frame.columns


def test_lm_eval_runs_under_two_gen_kwargs_are_configurations_when_named(tmp_path):
    runs = _unzipped(LM_EVAL / "runs", tmp_path)
    folder = runs / "weightless-a"
    results = next(folder.glob("results_*.json"))
    stamp = results.name.removeprefix("results_").removesuffix(".json")
    later = "2026-11-23T00-00-00.000000"
    data = json.loads(results.read_text())
    data["config"]["gen_kwargs"] = {"temperature": 0.7}
    (folder / f"results_{later}.json").write_text(json.dumps(data))
    for sample in folder.glob(f"samples_*_{stamp}.jsonl"):
        (folder / sample.name.replace(stamp, later)).write_bytes(sample.read_bytes())
    options = dict(filter_name="strict-match", model_columns=("weightless-a",))
    plain = evalgap.load_scores(folder, LoadOptions(**options))
    assert any(t.endswith("]") for t in set(plain.frame["task"]))  # two tasks, by gen_kwargs
    read = evalgap.load_scores(folder, LoadOptions(config_columns=("gen_kwargs",), **options))
    assert not any(t.endswith("]") for t in set(read.frame["task"]))
    first = json.dumps(json.loads(results.read_text())["config"]["gen_kwargs"])  # {} here
    assert set(read.frame["configuration"]) == {
        f"gen_kwargs={first}",
        'gen_kwargs={"temperature":0.7}',
    }


def test_a_store_refuses_configurations_before_writing(tmp_path, run_cli):
    out = run_cli("store", "add", tmp_path / "s.duckdb", LOGS, "--config-columns", "seed")
    assert out.returncode == 2
    assert "--config-columns cannot be honoured here" in out.stderr
    assert not (tmp_path / "s.duckdb").exists()


def test_a_configuration_column_that_is_read_as_the_score_is_refused(tmp_path, run_cli):
    """Naming the score column as a configuration gave a gap of 0 over 'configurations' that
    were the scores themselves; it is refused naming both roles."""
    path = tmp_path / "s.csv"
    rows = [f"{m},q{i},{s},{(i + s) % 2}" for m in "ab" for i in range(6) for s in (1, 2)]
    path.write_text("model,item_id,seed,score\n" + "\n".join(rows) + "\n")
    done = run_cli(
        "compare", "--scores", path, "--model-a", "a", "--model-b", "b",
        "--config-columns", "score", "--configurations", "random",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        f"evalgap: error: --config-columns names 'score', which {path} reads as the score "
        "column; a configuration is what a score was run under (a seed, a provider): name "
        "other columns\n"
    )


@pytest.mark.parametrize(
    ("column", "role", "flag"),
    [("model", "model", "--model-column"), ("item_id", "item id", "--item-column")],
)
def test_a_configuration_column_the_reader_would_take_for_an_id_says_why(
    tmp_path, run_cli, column, role, flag
):
    """--config-columns model was answered 'cannot find the model column' beside a list of
    columns holding 'model': true (a configuration column is never detected as a role) but
    not why; the refusal now names the option and both ways out."""
    path = tmp_path / "s.csv"
    rows = [f"{m},q{i},{s},{(i + s) % 2}" for m in "ab" for i in range(6) for s in (1, 2)]
    path.write_text("model,item_id,seed,score\n" + "\n".join(rows) + "\n")
    done = run_cli("audit", "--scores", path, "--config-columns", column)
    assert done.returncode == 2
    assert done.stderr == (
        f"evalgap: error: --config-columns names {column!r}, which {path} would read as the "
        f"{role} column; a configuration is what a score was run under (a seed, a provider): "
        f"name other columns, or name the {role} column with {flag}\n"
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_score_without_its_configuration_is_refused_by_row(tmp_path, suffix):
    """A blank provider formed a configuration of its own ('prov=' from a CSV, 'prov=nan'
    from Parquet), silently; it is refused naming the file, the first row and the count."""
    frame = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"] * 3,
            "item_id": [f"q{i // 4}" for i in range(12)],
            "score": [1, 0] * 6,
            "prov": ["x", "y", None, "x"] + ["x", "y"] * 4,
        }
    )
    path = tmp_path / f"s{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    with pytest.raises(InputError) as raised:
        evalgap.load_scores(path, LoadOptions(config_columns=("prov",)))
    assert str(raised.value) == (
        f"{path}: row 3 has no value of 'prov' (1 such row); give every score the "
        "configuration it was run under, or leave 'prov' out of config_columns="
    )
