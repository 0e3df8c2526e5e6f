"""The configurations job: the long table's configurations to components, tests and intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import evalgap
from evalgap import LoadOptions
from evalgap.errors import InputError

LOGS = Path(__file__).resolve().parents[2] / "examples" / "configurations" / "logs"
CONFIG = LoadOptions(config_columns=("model_args.provider", "seed"))


def _balanced(seed: int = 5, items: int = 30, configs: int = 4, reps: int = 3):
    """A long table of two models (items x configurations x replicates) and its arrays."""
    rng = np.random.default_rng(seed)
    shift = rng.normal(0, 0.3, (1, configs, 1))
    a = rng.normal(0, 1, (items, 1, 1)) + shift + rng.normal(0, 0.5, (items, configs, reps))
    b = a - 0.2 - 0.5 * shift + rng.normal(0, 0.5, (items, configs, reps))
    rows = [
        {
            "model": name,
            "item": f"q{i:02d}",
            "provider": f"p{c}",
            "run": r,
            "score": y[i, c, r],
        }
        for name, y in (("a", a), ("b", b))
        for i in range(items)
        for c in range(configs)
        for r in range(reps)
    ]
    return pd.DataFrame(rows), a, b


def _anova(y: np.ndarray) -> np.ndarray:
    """The ANOVA estimator of a balanced two-way random model with replicates, by hand."""
    n_i, n_c, r = y.shape
    grand = y.mean()
    item = y.mean(axis=(1, 2))
    conf = y.mean(axis=(0, 2))
    cell = y.mean(axis=2)
    ms_i = n_c * r * ((item - grand) ** 2).sum() / (n_i - 1)
    ms_c = n_i * r * ((conf - grand) ** 2).sum() / (n_c - 1)
    inter = cell - item[:, None] - conf[None, :] + grand
    ms_ic = r * (inter**2).sum() / ((n_i - 1) * (n_c - 1))
    ms_e = ((y - cell[:, :, None]) ** 2).sum() / (n_i * n_c * (r - 1))
    return np.array(
        [(ms_i - ms_ic) / (n_c * r), (ms_c - ms_ic) / (n_i * r), (ms_ic - ms_e) / r, ms_e]
    )


def test_a_balanced_table_gives_the_anova_estimates_of_the_score_and_the_gap():
    frame, a, b = _balanced()
    one = evalgap.configurations(
        frame,
        model="a",
        run_column="run",
        options=LoadOptions(config_columns=("provider",)),
    )
    np.testing.assert_allclose(one.components.estimate, _anova(a), rtol=0, atol=1e-9)
    gap = evalgap.configurations(
        frame,
        model_a="a",
        model_b="b",
        run_column="run",
        options=LoadOptions(config_columns=("provider",)),
    )
    np.testing.assert_allclose(gap.components.estimate, _anova(a - b), rtol=0, atol=1e-9)
    assert gap.components.balanced and gap.n_items == 30 and gap.n_configurations == 4
    np.testing.assert_allclose(gap.configuration_means, (a - b).mean(axis=(0, 2)), atol=1e-12)
    # the fixed-configuration SE of a balanced design is the per-item one: MS_item / (I C r)
    per_item = (a - b).mean(axis=(1, 2))
    assert gap.components.mean_fixed.standard_error == pytest.approx(
        per_item.std(ddof=1) / np.sqrt(30), rel=1e-9
    )


def test_real_inspect_logs_count_errored_samples_and_test_them_as_scipy_does():
    r = evalgap.configurations(LOGS, model="mockllm/wide", options=CONFIG)
    assert [s.errored for s in r.samples] == [0, 0, 1, 3]
    assert [s.samples for s in r.samples] == [80] * 4
    assert r.components.n_observations == 316  # 320 samples, 4 errored
    # two rows of a 2-configuration table are Fisher's exact test
    seeds = evalgap.configurations(
        LOGS,
        model="mockllm/wide",
        tasks=None,
        options=LoadOptions(config_columns=("seed",)),
    )
    failed = [s.errored for s in seeds.samples]
    expected = sps.fisher_exact([[f, 80 - f] for f in failed]).pvalue  # the latest log per seed
    assert seeds.error_test.method == "Fisher exact"
    assert seeds.error_test.p_value == pytest.approx(expected, rel=1e-12)


def test_the_gap_over_real_logs_reads_like_its_numbers():
    r = evalgap.configurations(
        LOGS, model_a="mockllm/wide", model_b="mockllm/narrow", options=CONFIG
    )
    c = r.components
    assert c.configuration_test.p_value < 0.001  # the slow provider costs wide, not narrow
    assert c.mean_fixed.lower > 0 > c.mean_random.lower
    assert "Claim the gap for these configurations only, or run more configurations" in r.verdict
    assert repr(r).startswith("ConfigurationsResult(models=<2>, n_items=80, n_configurations=4")
    frame = r.to_frame()
    assert frame["component"].tolist() == [
        "item",
        "configuration",
        "item_configuration",
        "residual",
    ]


def test_json_terminal_and_markdown_show_one_computation(run_cli):
    args = ["configurations", "--scores", LOGS, "--config-columns", "model_args.provider,seed"]
    args += ["--model-a", "mockllm/wide", "--model-b", "mockllm/narrow"]
    out = run_cli(*args, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    r = evalgap.configurations(
        LOGS, model_a="mockllm/wide", model_b="mockllm/narrow", options=CONFIG
    )
    assert data == json.loads(json.dumps(r.to_dict()))
    text = run_cli(*args).stdout
    markdown = r.to_markdown()
    f = data["configuration_test"]["statistic"]
    for view in (text, markdown):
        assert f"{f:.4g}" in view
        assert f"{100 * data['mean_random']['lower']:+.1f}" in view
        assert "model x configuration" in view
    assert " ".join(data["verdict"].split()) in " ".join(text.split())


def test_html_and_markdown_files(run_cli, tmp_path):
    out = run_cli(
        "configurations",
        "--scores",
        LOGS,
        "--config-columns",
        "seed",
        "--model",
        "mockllm/narrow",
        "--html",
        tmp_path / "r.html",
        "--markdown",
        tmp_path / "r.md",
    )
    assert out.returncode == 0, out.stderr
    assert "variance components" in (tmp_path / "r.html").read_text()
    assert (tmp_path / "r.md").read_text().startswith("## evalgap configurations")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (("--model", "mockllm/wide"), "the scores carry no configuration: name the columns"),
        (("--config-columns", "seed"), "name the model with --model, or the pair with --model-a"),
        (
            ("--config-columns", "seed", "--model", "m", "--model-a", "mockllm/wide"),
            "give --model for one model, or --model-a and --model-b for a pair",
        ),
        (("--config-columns", "seed", "--model", "nobody"), "no model 'nobody' in "),
        (("--config-columns", "sead", "--model", "mockllm/wide"), "no run-metadata field 'sead'"),
    ],
)
def test_each_refusal_is_one_line_naming_the_commands_flags(run_cli, given, message):
    out = run_cli("configurations", "--scores", LOGS, *given)
    assert out.returncode == 2
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_the_python_refusal_names_the_keyword():
    with pytest.raises(InputError, match="config_columns="):
        evalgap.configurations(LOGS, model="mockllm/wide")


def _mean_squares(y: np.ndarray) -> tuple[float, float, float, int, int, int]:
    """MS_item, MS_configuration, MS_interaction of a balanced design, and I, C, r."""
    n_i, n_c, r = y.shape
    grand, item, conf, cell = y.mean(), y.mean(axis=(1, 2)), y.mean(axis=(0, 2)), y.mean(axis=2)
    ms_i = n_c * r * ((item - grand) ** 2).sum() / (n_i - 1)
    ms_c = n_i * r * ((conf - grand) ** 2).sum() / (n_c - 1)
    inter = cell - item[:, None] - conf[None, :] + grand
    ms_ic = r * (inter**2).sum() / ((n_i - 1) * (n_c - 1))
    return ms_i, ms_c, ms_ic, n_i, n_c, r


def test_compare_random_is_the_closed_form_gap_over_configurations():
    frame, a, b = _balanced(seed=11)
    options = LoadOptions(config_columns=("provider",))
    r = evalgap.compare(frame, model_a="a", model_b="b", run_column="run",
                        configurations="random", options=options)  # fmt: skip
    ms_i, ms_c, ms_ic, n_i, n_c, reps = _mean_squares(a - b)
    n = n_i * n_c * reps
    variance = (ms_i + ms_c - ms_ic) / n  # E: s2_i/I + s2_c/C + s2_ic/(IC) + s2_e/(ICr)
    terms = np.array([ms_i, ms_c, -ms_ic]) / n
    df = variance**2 / (terms**2 / [n_i - 1, n_c - 1, (n_i - 1) * (n_c - 1)]).sum()
    assert variance > 0
    assert r.estimate.scale == "configuration"
    assert r.delta == pytest.approx((a - b).mean(), abs=1e-12)
    assert r.se == pytest.approx(np.sqrt(variance), rel=1e-9)
    assert r.estimate.df == pytest.approx(df, rel=1e-9)
    t = (a - b).mean() / np.sqrt(variance)
    assert r.estimate.parts["statistic"] == pytest.approx(t, rel=1e-9)
    # the test inverts the interval (at 1 - p an end of it is zero), near Satterthwaite's t
    m = r.configuration.components
    end = evalgap.stats.config_components.decompose_gap(a, b, confidence=1 - r.p_value)
    assert end.mean_random.lower == pytest.approx(0.0, abs=1e-9)
    assert r.p_value == pytest.approx(2 * sps.t.sf(abs(t), df), rel=0.2)
    assert m.mean_random.standard_error == r.se
    assert r.ci.method == "configurations random"
    assert (float(r.ci.low), float(r.ci.high)) == (
        r.configuration.components.mean_random.lower,
        r.configuration.components.mean_random.upper,
    )


def test_compare_fixed_keeps_todays_gap_and_adds_the_part():
    frame, _, _ = _balanced(seed=12)
    options = LoadOptions(config_columns=("provider",))
    plain = evalgap.compare(frame, model_a="a", model_b="b", run_column="run",
                            options=options)  # fmt: skip
    fixed = evalgap.compare(frame, model_a="a", model_b="b", run_column="run",
                            configurations="fixed", options=options)  # fmt: skip
    assert plain.configuration is None and fixed.configuration is not None
    assert fixed.delta == plain.delta and fixed.p_value == plain.p_value
    assert fixed.estimate.scale == "paired"
    assert fixed.to_dict()["configuration"]["n_configurations"] == 4


def test_degrade_random_margin_uses_the_same_estimate():
    from evalgap.stats import pair_estimate as pe

    frame, a, b = _balanced(seed=13)
    options = LoadOptions(config_columns=("provider",))
    e = pe.configuration(a, b, alpha=0.1)  # one-sided 0.05: the 0.90 interval's upper end
    for margin, expected in ((float(e.ci.high) + 0.01, True), (float(e.ci.high) - 0.01, False)):
        r = evalgap.degrade(frame, baseline="a", candidate="b", run_column="run",
                            margin=margin, configurations="random", options=options)  # fmt: skip
        pooled = r.non_inferiority["pooled"]
        assert pooled["upper_bound"] == pytest.approx(float(e.ci.high), rel=1e-12)
        assert pooled["delta"] == pytest.approx(float(e.delta), rel=1e-12)
        assert r.non_inferiority["non_inferior"] is expected
        assert r.non_inferiority["scale"] == "configuration"
        assert r.gate_fails is not expected


def test_compare_random_json_terminal_and_markdown_agree(run_cli):
    args = ["compare", "--scores", LOGS, "--config-columns", "model_args.provider,seed",
            "--model-a", "mockllm/wide", "--model-b", "mockllm/narrow",
            "--configurations", "random"]  # fmt: skip
    data = json.loads(run_cli(*args, "--json").stdout)
    text = " ".join(run_cli(*args).stdout.split()).lower()  # the report capitalises sentences
    assert data["estimate"]["scale"] == "configuration"
    assert data["se"] == data["configuration"]["mean_random"]["standard_error"]
    assert f"[{100 * data['ci']['low']:+.2f}, {100 * data['ci']['high']:+.2f}]" in text
    assert " ".join(data["verdict"].split()).lower() in text
    assert " ".join(data["configuration"]["verdict"].split()).lower() in text
    r = evalgap.compare(LOGS, model_a="mockllm/wide", model_b="mockllm/narrow",
                        configurations="random", options=CONFIG)  # fmt: skip
    assert data["delta"] == r.delta
    assert r.verdict.lower() in " ".join(r.to_markdown().split()).lower()


@pytest.mark.parametrize(
    ("command", "given", "message"),
    [
        (("compare", "--model-a", "mockllm/wide", "--model-b", "mockllm/narrow"), (),
         "the scores carry no configuration: name the columns"),
        (("degrade", "--baseline", "mockllm/wide", "--candidate", "mockllm/narrow"), (),
         "the scores carry no configuration: name the columns"),
        (("compare", "--model-a", "mockllm/wide", "--model-b", "mockllm/narrow"),
         ("--config-columns", "seed", "--by", "task"),
         "--configurations and --by are not taken together"),
    ],
)  # fmt: skip
def test_compare_and_degrade_refuse_configurations_they_cannot_honour(
    run_cli, command, given, message
):
    out = run_cli(*command, "--scores", LOGS, *given, "--configurations", "random")
    assert out.returncode == 2
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_counts_carry_no_configuration(run_cli):
    out = run_cli("compare", "--both-correct", 5, "--a-only", 3, "--b-only", 2,
                  "--both-wrong", 1, "--configurations", "random")  # fmt: skip
    assert out.returncode == 2
    assert "--configurations needs the configuration of each score" in out.stderr


def test_clusters_are_refused_where_the_configuration_decomposition_ignores_them(run_cli):
    base = ["--scores", LOGS, "--config-columns", "seed", "--cluster-column", "x"]
    out = run_cli("compare", *base, "--model-a", "mockllm/wide", "--model-b", "mockllm/narrow",
                  "--configurations", "fixed")  # fmt: skip
    assert out.returncode == 2
    assert "--configurations and --cluster-column are not taken together" in out.stderr
    with pytest.raises(InputError, match="cluster_column= is not used by the decomposition"):
        evalgap.configurations(LOGS, model="mockllm/wide", cluster_column="x", options=CONFIG)


def test_the_random_configuration_test_agrees_with_its_interval():
    from evalgap.stats import config_components as cc
    from evalgap.stats import pair_estimate as pe

    _, a, b = _balanced(seed=14)
    for alpha in (0.05, 0.2):
        e = pe.configuration(a, b, alpha=alpha)
        m = cc.decompose_gap(a, b, confidence=1 - e.p_value).mean_random
        assert min(abs(m.lower), abs(m.upper)) == pytest.approx(0.0, abs=1e-9)
        assert (e.p_value <= alpha) == (not e.ci.contains(0.0))
    greater = pe.configuration_p_value(a, b, alternative="greater")
    less = pe.configuration_p_value(a, b, alternative="less")
    assert greater + less == pytest.approx(1.0, abs=1e-12)
    assert min(greater, less) == pytest.approx(e.p_value / 2, rel=1e-9)


def test_one_configuration_is_refused_naming_what_is_missing(run_cli, tmp_path):
    frame, _, _ = _balanced(seed=15, items=5, configs=2, reps=1)
    frame[frame["provider"] == "p0"].to_csv(tmp_path / "one.csv", index=False)
    for command in (
        ("configurations", "--model", "a"),
        ("compare", "--model-a", "a", "--model-b", "b", "--configurations", "random"),
    ):
        out = run_cli(*command, "--scores", tmp_path / "one.csv", "--config-columns", "provider")
        assert out.returncode == 2
        assert "under 1 configuration (provider=p0)" in out.stderr
        assert "name other columns with --config-columns" in out.stderr
