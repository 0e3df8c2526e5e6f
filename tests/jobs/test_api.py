"""The public Python API: one flat namespace, every job callable, results that read well.

The CLI calls these same functions, so API and CLI agree by construction; these tests check
the forms of input a notebook has (arrays, counts, DataFrames with their own column names,
paths), the errors a wrong call gets, and the result objects' repr, to_dict and to_frame.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.cli import main

from conftest import ROOT, shared_file

HELLASWAG = {"both_correct": 7986, "a_only": 295, "b_only": 249, "both_wrong": 1512}


def cli_json(args: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*args, "--json"]) == 0
    return json.loads(out.getvalue())


def test_every_public_name_resolves_and_no_module_shadows_a_function():
    for name in evalgap.__all__:
        assert getattr(evalgap, name) is not None, name
    for job in ("compare", "audit", "degrade", "trim", "plan", "plan_degradation", "align"):
        assert callable(getattr(evalgap, job)), job
        assert not isinstance(getattr(evalgap, job), type(evalgap)), job
    for study in ("calibration", "prospective", "power_curve", "sequential", "aggregation"):
        assert callable(getattr(evalgap.simulate, study))
    assert set(evalgap.__all__) <= set(dir(evalgap))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        evalgap.nope  # noqa: B018


def test_import_loads_no_job_and_no_heavy_library():
    code = (
        "import sys, evalgap\n"
        "heavy = [m for m in ('pandas', 'scipy', 'matplotlib', 'evalgap.jobs.audit') "
        "if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_issue_one_liner_prints_a_one_line_repr_with_the_verdict():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 5000)
    b = (a + (rng.random(5000) < 0.1)) % 2
    r = evalgap.compare(a, b)
    text = repr(r)
    assert "\n" not in text and len(text) < 400
    assert text.startswith("CompareResult(delta=") and r.verdict in text
    assert r.n_items == 5000 and r.binary


def test_compare_from_counts_arrays_and_a_frame_agree():
    by_counts = evalgap.compare(**HELLASWAG)
    a = np.repeat([1, 1, 0, 0], [7986, 295, 249, 1512])
    b = np.repeat([1, 0, 1, 0], [7986, 295, 249, 1512])
    by_arrays = evalgap.compare(a, b)
    frame = pd.DataFrame(
        {
            "llm": ["gemma"] * a.size + ["llama"] * b.size,
            "doc": np.tile(np.arange(a.size), 2),
            "acc": np.concatenate([a, b]),
        }
    )
    by_frame = evalgap.compare(
        frame,
        model_a="gemma",
        model_b="llama",
        model_column="llm",
        item_column="doc",
        score_column="acc",
    )
    for r in (by_arrays, by_frame):
        assert r.to_dict()["p_values"] == by_counts.to_dict()["p_values"]
        assert r.required_n == by_counts.required_n == 20256
        assert r.required_n_interval == by_counts.required_n_interval
    assert (by_frame.model_a, by_frame.model_b) == ("gemma", "llama")
    assert by_frame.alignment.items_left_out == 0


def test_compare_from_a_path_matches_the_cli():
    path = ROOT / "examples" / "two_models.csv"
    api = evalgap.compare(str(path), model_a="model-x", model_b="model-y").to_dict()
    cli = cli_json(
        ["compare", "--scores", str(path), "--model-a", "model-x", "--model-b", "model-y"]
    )
    assert api == cli


def test_audit_of_the_mmlu_pro_frame_matches_the_cli():
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    df = pd.read_csv(path)
    settings = {"n_bootstrap": 0, "n_bootstrap_required_n": 0, "n_cluster_bootstrap": 50}
    api = evalgap.audit(
        df,
        model_column="model",
        item_column="question_id",
        score_column="correct",
        cluster_column="category",
        **settings,
    )
    cli = cli_json(
        [
            "audit",
            "--scores",
            str(path),
            "--cluster-column",
            "category",
            "--n-bootstrap",
            "0",
            "--n-bootstrap-required-n",
            "0",
            "--n-cluster-bootstrap",
            "50",
        ]
    )
    assert api.unresolved == cli["unresolved"]
    assert api.unresolved["fixed_n"] == 13


def test_a_frame_missing_a_named_column_is_an_input_error_naming_it():
    df = pd.read_csv(ROOT / "examples" / "two_models.csv")
    with pytest.raises(evalgap.InputError, match=r"no column .accuracy.*columns found: model"):
        evalgap.align(df, score_column="accuracy")
    with pytest.raises(evalgap.InputError, match="model_a= and model_b="):
        evalgap.compare(df)
    with pytest.raises(evalgap.InputError, match="not both"):
        evalgap.compare(np.ones(3), np.zeros(3), both_correct=1)
    with pytest.raises(evalgap.InputError, match="b_only=, both_wrong="):
        evalgap.compare(both_correct=1, a_only=2)
    with pytest.raises(TypeError, match=r"'score_col'.*column options"):
        evalgap.align(df, score_col="score")


def test_align_accepts_the_bundled_example_as_read_by_pandas():
    df = pd.read_csv(ROOT / "examples" / "two_models.csv")
    s = evalgap.align(df)
    assert s.models == ("model-x", "model-y")
    frame = s.report.to_frame()
    assert set(frame["model"]) == {"model-x", "model-y"}
    assert "items_left_out" in repr(s.report)


def test_degrade_and_trim_from_frames():
    counts = pd.DataFrame({"task": ["gsm8k", "mmlu"], "a_only": [60, 30], "b_only": [25, 28]})
    r = evalgap.degrade(counts=counts)
    assert r.degraded and r.to_dict()["false_alarm_bound"] == pytest.approx(0.15)
    assert repr(r).startswith("DegradeResult(degraded=True")
    runs = pd.DataFrame(
        {
            "model": "base",
            "item": ["q1", "q1", "q2", "q2", "q3", "q3"],
            "run": [1, 2, 1, 2, 1, 2],
            "correct": [1, 0, 1, 1, 0, 0],
        }
    )
    t = evalgap.trim(runs, model="base", score_column="correct")
    assert t.to_frame()["item_id"].tolist() == ["q1"]
    assert repr(t) == "TrimResult(model='base', runs=2, kept 1 of 3 items)"


def test_results_have_numpydoc_sections_and_generated_to_dict():
    for name in ("CompareResult", "PlanResult", "DegradeResult", "DegradationPlan"):
        doc = getattr(evalgap, name).__doc__
        assert "Attributes\n    ----------" in doc, name
    for name in ("compare", "audit", "degrade", "trim", "align"):
        doc = getattr(evalgap, name).__doc__
        for section in ("Parameters", "Returns", "Examples"):
            assert f"{section}\n    ---" in doc, (name, section)
    p = evalgap.plan(accuracy_a=0.65, accuracy_b=0.60, correlation=0.3)
    d = p.to_dict()
    assert d["required_n"] == 1028 and d["conventions"]["one_sample_shortcut"] == 515
    assert d["verdict"] == p.verdict
    json.dumps(evalgap.compare(**HELLASWAG).to_dict())  # plain data all the way down


def test_compare_to_frame_lists_the_tests_that_apply():
    frame = evalgap.compare(**HELLASWAG).to_frame()
    assert frame["test"].tolist() == ["mcnemar", "mcnemar_cc", "exact", "mid_p", "bootstrap"]
    assert frame.set_index("test").loc["exact", "p_value"] == pytest.approx(0.0536, abs=5e-5)


def test_strict_refuses_what_is_left_out_not_what_is_detected(tmp_path):
    complete = tmp_path / "complete.csv"
    complete.write_text("model,item_id,score\na,1,1\na,2,0\nb,1,0\nb,2,1\n")
    r = evalgap.compare(str(complete), model_a="a", model_b="b", strict=True)
    assert r.n_items == 2  # the model and score columns were detected: no reason to refuse
    partial = tmp_path / "partial.csv"
    partial.write_text("model,item_id,score\na,1,1\na,2,0\nb,1,0\n")
    with pytest.raises(evalgap.InputError, match=r"strict=True: b has no score for 1 of 2"):
        evalgap.compare(str(partial), model_a="a", model_b="b", strict=True)


def test_calibration_too_small_a_benchmark_is_refused_with_the_smallest_size(run_cli):
    with pytest.raises(evalgap.InputError, match=r"n_items=10 is too small.*n_items=32 or more"):
        evalgap.simulate.calibration(n_items=10, n_trials=20, n_bootstrap=20)
    out = run_cli("simulate", "calibration", "--n-items", "10", "--n-trials", "20")
    assert out.returncode == 2
    assert "use --n-items 32 or more" in out.stderr and "Traceback" not in out.stderr


def test_prospective_refuses_a_pair_without_spread():
    with pytest.raises(evalgap.InputError, match=r"differs the same way.*no N\* to validate"):
        evalgap.simulate.prospective({"x": (0, 1, 0, 0)}, n_trials=20)


def test_graded_audit_html_shows_a_monte_carlo_p_below_its_resolution_as_a_bound():
    from evalgap.report.html import audit_report

    rng = np.random.default_rng(3)
    base = rng.random(400)
    frame = pd.DataFrame(
        {
            "model": np.repeat(["strong", "weak", "weaker"], 400),
            "item_id": np.tile(np.arange(400), 3),
            "score": np.concatenate([base, base * 0.6, base * 0.59 + 0.001]),
        }
    )
    r = evalgap.audit(frame, n_bootstrap=50, n_bootstrap_required_n=0, n_cluster_bootstrap=0)
    assert r.n_bootstrap == 50 and r.to_frame()["p_bootstrap"].min() == 0.0
    page = audit_report(r)
    assert "<td>&lt;0.02</td>" in page  # p < 1/B, not a p-value of 0


def test_graded_bootstraps_above_the_budget_are_skipped_with_a_note():
    rng = np.random.default_rng(5)
    k, n = 33, 60  # 528 pairs with family="all", above the 500-pair graded budget
    frame = pd.DataFrame(
        {
            "model": np.repeat([f"m{i:02d}" for i in range(k)], n),
            "item_id": np.tile(np.arange(n), k),
            "score": rng.random(k * n),
        }
    )
    r = evalgap.audit(frame, family="all", n_bootstrap=20, n_cluster_bootstrap=0)
    assert len(r.pairs) == 528
    assert any(
        "bootstrap p-values skipped for 528 graded pairs (more than 500)" in x for x in r.notes
    )
    assert any("N* intervals skipped for 528 graded pairs" in x for x in r.notes)
    assert np.isnan(r.pairs.p_bootstrap.astype(float)).all()


def test_one_array_alone_is_refused_saying_what_compare_takes():
    with pytest.raises(evalgap.InputError, match=r"needs two score arrays \(got one ndarray\)"):
        evalgap.compare(np.ones(5))


def test_every_public_name_has_numpydoc_sections_and_an_example():
    import inspect

    def names():
        for name in evalgap.__all__:
            if name not in ("simulate", "stats", "__version__", "InputError"):
                yield name, getattr(evalgap, name)
        for name in evalgap.simulate.__all__:
            yield f"simulate.{name}", getattr(evalgap.simulate, name)

    for name, obj in names():
        doc = obj.__doc__ or ""
        if inspect.isclass(obj):
            assert "Attributes\n" in doc, name
        else:
            for section in ("Parameters\n", "Returns\n", "Examples\n"):
                assert section in doc, (name, section)


def _fuzz_frames():
    rng = np.random.default_rng(0)
    rows = [
        (f"m{m}", f"q{i}", r, float(rng.random() < 0.5 + 0.08 * m))
        for m in range(3)
        for i in range(40)
        for r in range(2)
    ]
    return pd.DataFrame(rows, columns=["model", "item", "run", "score"])


_FRAME = _fuzz_frames()
_PAIRS = pd.DataFrame(
    {"model_a": ["x"], "model_b": ["y"], "both_correct": [70], "a_only": [9], "b_only": [3],
     "both_wrong": [18]}
)
_COUNTS = pd.DataFrame({"task": ["g", "m"], "a_only": [60, 30], "b_only": [25, 28]})
_A = np.linspace(0.1, 0.9, 30)
_B = _A[::-1].copy()
# Each public job with the arguments of a valid call and the numeric, flag and text
# arguments to spoil one at a time.
_JOBS = {
    "compare(counts)": (
        lambda **k: evalgap.compare(
            **{"both_correct": 50, "a_only": 6, "b_only": 3, "both_wrong": 40, **k}
        ),
        ["both_correct", "a_only", "b_only", "both_wrong", "alpha", "power", "n_bootstrap",
         "n_bootstrap_required_n", "seed", "alternative", "adjustment"],
    ),
    "compare(arrays)": (
        lambda **k: evalgap.compare(_A, _B, **k),
        ["alpha", "power", "n_bootstrap", "n_permutations", "seed", "model_a"],
    ),
    "compare(frame)": (
        lambda **k: evalgap.compare(_FRAME, model_a="m0", model_b="m1", **k),
        ["alpha", "tasks", "complete_case", "strict", "by"],
    ),
    "compare(weights)": (
        lambda **k: evalgap.compare(_A, _B, **{"weights": np.ones(30), **k}),
        ["alpha", "power", "alternative", "weights"],
    ),
    "compare_counts": (
        lambda **k: evalgap.compare_counts(
            **{"both_correct": 50, "a_only": 6, "b_only": 3, "both_wrong": 40, **k}
        ),
        ["both_correct", "a_only", "alpha", "power", "n_bootstrap", "seed"],
    ),
    "compare_scores": (
        lambda **k: evalgap.compare_scores(_A, _B, **k),
        ["alpha", "power", "n_permutations", "n_bootstrap_required_n"],
    ),
    "audit(pairs)": (
        lambda **k: evalgap.audit(pairs=_PAIRS, **k),
        ["alpha", "power", "family_size", "n_bootstrap", "seed", "procedure", "mixture"],
    ),
    "audit(data)": (
        lambda **k: evalgap.audit(_FRAME, **k),
        ["family_size", "n_cluster_bootstrap", "n_rank_bootstrap", "models", "tasks", "strict"],
    ),
    "ranks": (lambda **k: evalgap.ranks(_FRAME, **k), ["alpha", "n_bootstrap", "seed", "top_k"]),
    "degrade": (
        lambda **k: evalgap.degrade(counts=_COUNTS, **k),
        ["alpha", "n_simulations", "seed", "margin", "equivalence"],
    ),
    "degrade(data)": (
        lambda **k: evalgap.degrade(_FRAME, baseline="m0", candidate="m1", **k),
        ["n_permutations", "permutation", "strict"],
    ),
    "trim": (lambda **k: evalgap.trim(_FRAME, **{"model": "m0", **k}), ["model", "tasks"]),
    "align": (lambda **k: evalgap.align(_FRAME, **k), ["models", "tasks", "complete_case"]),
    "plan": (
        lambda **k: evalgap.plan(**{"accuracy_a": 0.7, "accuracy_b": 0.6, "correlation": 0.5, **k}),
        ["accuracy_a", "accuracy_b", "correlation", "alpha", "power", "n_items"],
    ),
    "plan(graded)": (
        lambda **k: evalgap.plan(**{"delta": 0.03, "sd_diff": 0.4, **k}), ["delta", "sd_diff"]
    ),
    "plan_degradation": (
        lambda **k: evalgap.plan_degradation(**{"delta": 0.02, "flip_rate": 0.1, **k}),
        ["delta", "flip_rate", "n_items", "alpha"],
    ),
    "plan_noninferiority": (
        lambda **k: evalgap.plan_noninferiority(**{"margin": 0.02, "flip_rate": 0.1, **k}),
        ["margin", "flip_rate", "delta", "power"],
    ),
    "plan_pilot": (
        lambda **k: evalgap.plan_pilot(_FRAME, model_a="m0", model_b="m1", **k),
        ["delta", "alpha", "cost_per_item", "cost_per_run", "tokens_per_item", "max_runs"],
    ),
    "plan_sampling": (
        lambda **k: evalgap.plan_sampling(_FRAME, model_a="new", accuracy_a=0.6, **k),
        ["n_items", "delta", "alpha", "n_strata", "seed"],
    ),
    "validate_sampling": (
        lambda **k: evalgap.validate_sampling(
            np.ones((3, 50)), ["a", "b", "c"], [(0, 1)], **k
        ),
        ["n_items", "n_repeats", "n_strata", "alpha", "seed", "leader_known"],
    ),
    "Monitor": (lambda **k: evalgap.Monitor(**k), ["alpha", "power", "budget", "targets"]),
}
_SPOILED = [
    float("nan"), float("inf"), [0.05], np.array([0.05, 0.1]), "0.05", complex(1, 1), {},
    object(),
]
_COUNT_SPOILED = [-1, 1.5, True, np.nan]


@pytest.mark.parametrize(
    ("job", "param"), [(job, p) for job, (_, params) in _JOBS.items() for p in params]
)
def test_every_public_job_refuses_a_spoiled_argument_naming_it(job, param):
    """NaN, inf, lists and arrays where one number is expected, strings, bools and objects:
    a one-line InputError naming the argument, never an internal TypeError/ValueError (the
    original raised e.g. ValueError for compare(both_correct=nan) and TypeError for
    audit(alpha=[0.05]))."""
    call, _ = _JOBS[job]
    flags = ("complete_case", "strict", "permutation", "leader_known")
    spoiled = _SPOILED + (_COUNT_SPOILED if param.startswith(("n_", "both_", "a_", "b_"))
                          or param in ("seed", "family_size", "top_k", "budget", "max_runs")
                          else [])
    for value in spoiled:
        if param in flags and isinstance(value, float) and np.isnan(value):
            continue
        if param == "model_a" and isinstance(value, str):
            continue  # any string is a label
        with pytest.raises(evalgap.InputError) as err:
            call(**{param: value})
        message = str(err.value)
        assert "\n" not in message
        assert param in message or param.split("_")[0] in message, (job, param, value, message)
