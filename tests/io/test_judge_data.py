"""LLM-judge data (AlpacaEval 2.0, graded win probabilities): the audit end to end.

The real-data tests read ``../shared/data/alpaca_eval`` and are skipped, saying so, when it
is absent. They use small resample counts: the checks (the run completes, the page is
clean, the per-model means, the column roles, the layout of names) do not depend on how
many bootstrap draws are made, and the default counts cost ~8 s more per run.

Role detection, name layout and the matplotlib backend are also tested on small synthetic
inputs, so they run everywhere.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

import evalgap
from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io.sources import LoadOptions, load_scores
from evalgap.io.tables import CANDIDATES, apply_item_file, read_long_table, read_wide_table
from evalgap.jobs.audit import audit_scores
from evalgap.report.terminal import print_table, render_audit

from conftest import SHARED_DATA, shared_file

ALPACA = ("alpaca_eval", "alpaca_eval_long.csv.gz")
# Small resample counts: every code path of the default run, a fraction of its time.
FEW_DRAWS = [
    "--n-cluster-bootstrap",
    "50",
    "--n-bootstrap",
    "200",
    "--n-bootstrap-required-n",
    "50",
]
NO_DRAWS = ["--n-cluster-bootstrap", "0", "--n-bootstrap", "0", "--n-bootstrap-required-n", "0"]
AUDIT = ["audit", "--score-column", "win", "--cluster-column", "dataset"]


def run(*args) -> tuple[int, str]:
    """Run the CLI in-process; return (exit code, stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in args])
    return code, out.getvalue()


def leaderboard_figures() -> dict[str, tuple[float, float]]:
    """The README's public leaderboard figures: model -> (win rate, standard error), in %."""
    text = (SHARED_DATA / "alpaca_eval" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("Sanity figures") :]
    found = re.findall(r"([A-Za-z][\w.-]*) (\d+\.\d{3}) \((\d+\.\d{3})\)", section)
    return {name: (float(rate), float(se)) for name, rate, se in found}


# --- the AlpacaEval audit, end to end ---------------------------------------------------------


def test_graded_audit_writes_the_full_report_and_a_clean_page(tmp_path):
    """The issue's command runs to the end: terminal report, full HTML report (the anytime
    column marked as not applying), and the page loads in Chromium with no console message.
    ~8 s: one audit of 58 models with its figures, and one browser start."""
    data = shared_file(*ALPACA)
    page = tmp_path / "alpaca.html"
    code, out = run(*AUDIT, "--scores", data, "--html", page, *FEW_DRAWS)
    assert code == 0
    # one task: the cluster column is not also taken as the task column
    assert out.startswith("audit: 57 adjacent pairs, family size m=57")
    assert "anytime-valid e-process: no verdicts (it applies to binary scores only)" in out
    assert "note: anytime-valid verdicts need binary scores; graded pairs have none" in out
    for model in ("vicuna-13b-v1.5", "vicuna-7b-v1.5"):  # the README's duplicated rows
        assert f"note: {model}: 805 identical duplicate rows were collapsed" in out
    missing = {"alpaca-7b_concise": 1, "alpaca-7b_verbose": 3, "gpt35_turbo_instruct": 1}
    missing |= {"minotaur-13b": 1, "phi-2": 2, "text_davinci_001": 2}
    line = next(x for x in out.splitlines() if x.startswith("items missing (6 models;"))
    for model, count in missing.items():
        assert f"{model} {count}" in line
    assert "cluster bootstrap (B=50)" in out

    html = page.read_text(encoding="utf-8")
    assert html.rstrip().endswith("</html>")
    for section in ("models", "verdicts", "chains", "tiers", "flips", "pairs", "binned", "figures"):
        assert f"id='{section}'" in html or f'id="{section}"' in html
    assert "57 adjacent pairs on 1 task" in html
    assert "Does not apply: the e-process is defined for binary (0/1) scores" in html
    assert "Anytime-valid (e-process): n/a for graded pairs" in html
    assert "A higher" in html and "Only A right" not in html.split("id='legend'")[0]
    # the baseline scores 0.5 on every item: its correlation is undefined, and said so
    assert "undefined, one model of the pair has the same score on every shared item" in html
    # the per-model table shows the leaderboard's win rates (4 decimals)
    for model, (rate, _) in leaderboard_figures().items():
        assert f">{model}</td><td class=''>{rate / 100:.4f}<" in html, model

    browser = pytest.importorskip("test_report_browser")
    if browser.BROWSER is None:
        pytest.skip("no chromium on this machine")
    dom, log = browser.open_in_browser(page, tmp_path / "profile")
    assert ":CONSOLE" not in log  # no console message at all, errors included
    assert dom.count("<svg") >= 5 and 'id="clusters"' in dom
    browser.assert_verdicts_visible(page, tmp_path / "profile", 7)


def test_per_model_means_are_the_leaderboard_win_rates_in_json():
    """--json on the same data: each model's mean win equals the public leaderboard's win
    rate to the README's three decimals; --family all audits every one of the C(58, 2) pairs."""
    data = shared_file(*ALPACA)
    figures = leaderboard_figures()
    assert len(figures) == 5 and "NullModel" in figures
    code, out = run(*AUDIT, "--scores", data, "--json", *NO_DRAWS)
    assert code == 0
    result = json.loads(out)
    means = {row["model"]: row["own_items_mean"] for row in result["rankings"]}
    assert len(means) == 58
    for model, (rate, _) in figures.items():
        assert round(100 * means[model], 3) == pytest.approx(rate, abs=1e-9), model
    assert result["family_size"] == 57 and len(result["pairs"]) == 57
    assert "anytime_valid" not in result["unresolved"]  # no verdicts, not a count of zero
    assert "anytime-valid verdicts need binary scores; graded pairs have none" in result["notes"]
    assert {p["task"] for p in result["pairs"]} == {"all"}
    assert all(p["verdicts"].get("anytime_valid") is None for p in result["pairs"])

    code, out = run(*AUDIT, "--scores", data, "--json", "--family", "all", *NO_DRAWS)
    assert code == 0
    every = json.loads(out)
    assert len(every["pairs"]) == every["family_size"] == 58 * 57 // 2
    assert every["unresolved"]["fixed_n"] >= result["unresolved"]["fixed_n"]


# --- names in the terminal ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def alpaca_audit():
    long = load_scores(
        shared_file(*ALPACA), LoadOptions(score_column="win", cluster_column="dataset")
    )
    return audit_scores(
        align(long.frame), n_cluster_bootstrap=0, n_bootstrap=0, n_bootstrap_required_n=0
    )


def rendered(result, width: int) -> str:
    buffer = io.StringIO()
    render_audit(result, Console(file=buffer, width=width, emoji=False))
    return buffer.getvalue()


def assert_names_whole(text: str, pairs: list[tuple[str, str]], width: int) -> None:
    """Every shown pair has a line holding both its names, each whole or as an ellipsis form
    listed under "full names:" for that name; no table line is wider than the console."""
    legend: dict[str, str] = {}
    if "full names:" in text:
        listing = text[text.index("full names:") :].split("flips under clustering")[0]
        for short, full in re.findall(r"(\S*\u2026\S*) =\s+(\S+)", listing):
            assert short not in legend, f"{short} stands for two names"
            legend[short] = full
    forms: dict[str, set[str]] = {}
    for short, full in legend.items():
        forms.setdefault(full, set()).add(short)
    start = text.index("--html for every pair)") + len("--html for every pair)")
    table = text[start : text.index("verdicts: ", start)].splitlines()
    assert all(len(line.rstrip()) <= width for line in table)
    words = {w for line in table for w in line.split()}
    for a, b in pairs:
        shown_a, shown_b = {a} | forms.get(a, set()), {b} | forms.get(b, set())
        assert any(
            any(x in line.split() for x in shown_a) and any(y in line.split() for y in shown_b)
            for line in table
        ), (a, b)
    # every name-like word of the table is a whole name or a listed short form
    names = {n for pair in pairs for n in pair}
    for word in words:
        if "\u2026" in word:
            assert word in legend
        elif re.search(r"[A-Za-z]{3,}", word):
            assert word in names or word in {"delta", "fix", "bon", "hol", "clu", "flip"}, word


@pytest.mark.parametrize("width", [80, 120])
def test_alpaca_pair_table_never_splits_a_model_name(alpaca_audit, width):
    text = rendered(alpaca_audit, width)
    pairs = alpaca_audit.to_frame()
    shown = pairs[~pairs["resolved_fixed_n"].astype(bool)].head(40)
    assert_names_whole(text, list(zip(shown.model_a, shown.model_b, strict=True)), width)
    if width == 80:  # too narrow for two long names beside the numbers: names on their line
        assert "FuseChat-Qwen-2.5-7B-Instruct vs FuseChat-Llama-3.1-8B-Instruct" in text
        assert "\u2026" not in text.split("flips under clustering")[0]


def test_shortened_names_that_would_read_alike_go_on_their_own_line():
    """Middle-ellipsis forms of these names collide ('FuseCha…Instruct'), so they are not
    used: each row's names go on a line of their own, whole."""
    names = [
        "FuseChat-Qwen-2.5-7B-Instruct",
        "FuseChat-Llama-3.1-8B-Instruct",
        "FuseChat-Llama-3.2-3B-Instruct",
    ]
    rows = [[names[0], names[1], "+0.0131"], [names[1], names[2], "+0.1203"]]
    buffer = io.StringIO()
    console = Console(file=buffer, width=56)
    print_table(
        console, [("A", "left"), ("B", "left"), ("delta", "right")], rows, names=(0, 1),
        name_line="{0} vs {1}",
    )  # fmt: skip
    text = buffer.getvalue()
    assert "\u2026" not in text and "full names" not in text
    # each name whole on a line (the pair's line breaks after "vs", never inside a name)
    lines = [line.strip() for line in text.splitlines()]
    assert lines[3:] == [
        f"{names[0]} vs",
        names[1],
        "+0.0131",
        f"{names[1]} vs",
        names[2],
        "+0.1203",
    ]
    assert all(len(line.rstrip()) <= 56 for line in text.splitlines())
    # the numbers stay in one column under a header
    assert [line.strip() for line in text.splitlines() if line.strip().startswith("+0.")] == [
        "+0.0131",
        "+0.1203",
    ]


def test_distinct_shortened_names_are_listed_in_full():
    names = ["alpha-model-one-instruct", "beta-model-two-instruct", "gamma-model-three-base"]
    rows = [[names[0], names[1], "1"], [names[1], names[2], "2"]]
    buffer = io.StringIO()
    print_table(Console(file=buffer, width=44), [("A", "left"), ("B", "left"), ("x", "right")],
                rows, names=(0, 1))  # fmt: skip
    text = buffer.getvalue()
    assert "full names:" in text
    legend = dict(re.findall(r"(\S*\u2026\S*) =\s+(\S+)", text.split("full names:")[1]))
    assert sorted(legend.values()) == sorted(names)
    table = text.split("full names:")[0]
    assert all(len(line.rstrip()) <= 44 for line in table.splitlines())
    for short, full in legend.items():
        head, tail = short.split("\u2026")
        assert full.startswith(head) and full.endswith(tail) and short in table


# --- column roles ------------------------------------------------------------------------------

ROLE_FLAG = {
    "model": "model_column",
    "item_id": "item_column",
    "score": "score_column",
    "task": "task_column",
    "run": "run_column",
    "cluster": "cluster_column",
}


def role_table(path: Path, named_role: str, taken_role: str) -> dict[str, str]:
    """Write a long table whose ``named_role`` column carries ``taken_role``'s first
    candidate name; ``taken_role`` has its second candidate name. Return role -> column."""
    columns = {role: CANDIDATES[role][0] for role in CANDIDATES} | {"cluster": "cluster"}
    columns[taken_role] = CANDIDATES[taken_role][1]
    columns[named_role] = CANDIDATES[taken_role][0]
    values = {
        "model": ["m1", "m1", "m2", "m2"],
        "item_id": ["q1", "q2", "q1", "q2"],
        "score": [1, 0, 0, 1],
        "task": ["t", "t", "t", "t"],
        "run": ["0", "0", "0", "0"],
        "cluster": ["c1", "c2", "c1", "c2"],
    }
    pd.DataFrame({columns[r]: values[r] for r in columns}).to_csv(path, index=False)
    return columns


@pytest.mark.parametrize(
    ("named_role", "taken_role"),
    [(named, taken) for named in ROLE_FLAG for taken in CANDIDATES if named != taken],
)
@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_named_column_is_never_detected_as_another_role(tmp_path, named_role, taken_role, suffix):
    """A column given for one role (say --cluster-column dataset) is not also detected as
    another (the task), whatever the roles; the other role takes its next candidate."""
    csv = tmp_path / "scores.csv"
    columns = role_table(csv, named_role, taken_role)
    path = csv
    if suffix == ".jsonl":  # the reader that holds every field, not the batch reader
        path = tmp_path / "scores.jsonl"
        pd.read_csv(csv).to_json(path, orient="records", lines=True)
    named = columns[named_role]
    table = read_long_table(path, **{ROLE_FLAG[named_role]: named})
    assert table.columns[named_role] == named
    assert table.columns[taken_role] == CANDIDATES[taken_role][1]
    assert [c for r, c in table.columns.items() if c == named] == [named]
    frame = table.frame
    assert sorted(frame["model"].astype(str).unique()) == ["m1", "m2"]
    assert sorted(frame["item_id"].astype(str).unique()) == ["q1", "q2"]


def test_alpaca_cluster_column_is_not_the_task(tmp_path):
    """The issue's case, in miniature: columns model, item, dataset, preference, win."""
    path = tmp_path / "judge.csv"
    pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "item": ["i1", "i2", "i1", "i2"],
            "dataset": ["koala", "oasst", "koala", "oasst"],
            "preference": [1.2, 1.9, 1.5, 1.1],
            "win": [0.2, 0.9, 0.5, 0.1],
        }
    ).to_csv(path, index=False)
    table = read_long_table(path, score_column="win", cluster_column="dataset")
    assert table.columns["task"] is None and table.columns["cluster"] == "dataset"
    assert set(table.frame["task"].astype(str)) == {"all"}
    assert not any("dataset" in note for note in table.notes)
    # without the cluster flag, 'dataset' is not taken as the task either (its name does not
    # say task: AlpacaEval's README calls it a cluster label), and with no score column the
    # one numeric column in [0, 1] is the score, said so
    table = read_long_table(path)
    assert table.columns["task"] is None and table.columns["score"] == "win"
    assert any("score column: 'win' (detected: the numeric column with values in [0, 1]; "
               "'preference' lies outside [0, 1]" in n for n in table.notes)  # fmt: skip
    named = read_long_table(path, score_column="win", task_column="dataset")
    assert set(named.frame["task"].astype(str)) == {"koala", "oasst"}


def test_two_numeric_columns_in_zero_one_are_listed_with_the_flag_that_names_one(
    tmp_path, run_cli
):
    """A long table with a model column is never called wide: two candidate scores are
    listed, and the message names the flag of the command run."""
    path = tmp_path / "two.csv"
    pd.DataFrame({"model": ["a", "a", "b", "b"], "item": ["i1", "i2", "i1", "i2"],
                  "win": [0.2, 0.9, 0.5, 0.1], "agree": [1.0, 0.0, 0.5, 0.5]}).to_csv(
        path, index=False)  # fmt: skip
    with pytest.raises(InputError, match=r"2 numeric columns could be the score \('win', "
                                         r"'agree'\), none named as one; name it with "
                                         r"score_column="):  # fmt: skip
        read_long_table(path)
    out = run_cli("audit", "--scores", path)
    assert out.returncode == 2 and "--score-column" in out.stderr and "wide" not in out.stderr
    assert "score_column=" not in out.stderr


def test_wide_table_roles(tmp_path):
    path = tmp_path / "wide.csv"
    pd.DataFrame(
        {
            "item_id": ["q1", "q2", "q3"],
            "item": ["x1", "x2", "x3"],
            "dataset": ["koala", "oasst", "koala"],
            "subset": [1, 1, 0],
            "m1": [1, 0, 1],
            "m2": [0, 0, 1],
        }
    ).to_csv(path, index=False)
    # a cluster column named like a task is not the task (nor is a model column so named)
    wide = read_wide_table(path, cluster_column="dataset", model_columns=["subset", "m1", "m2"])
    assert wide.columns == {"item_id": "item_id", "task": None}
    assert set(wide.frame["task"]) == {"all"} and set(wide.frame["cluster"]) == {"koala", "oasst"}
    assert set(wide.frame["model"]) == {"subset", "m1", "m2"}
    # without the cluster flag, 'dataset' is not the task column either: its name does not
    # say task ('subset', a model, is not one)
    wide = read_wide_table(path, model_columns=["subset", "m1"])
    assert wide.columns["task"] is None
    # a column named as the task (or the cluster) is not the item id: the next candidate is
    for given in ({"task_column": "item_id"}, {"cluster_column": "item_id"}):
        wide = read_wide_table(path, model_columns=["m1", "m2"], **given)
        assert wide.columns["item_id"] == "item"
        assert set(wide.frame["item_id"]) == {"x1", "x2", "x3"}
    # every item id candidate named for another role leaves none to find: say so
    with pytest.raises(InputError, match="cannot find the item id column"):
        read_wide_table(path, task_column="item_id", cluster_column="item", model_columns=["m1"])


def test_item_file_cluster_column_is_not_a_task_key(tmp_path):
    scores = tmp_path / "s.csv"
    pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "item_id": ["q1", "q2"] * 2, "score": [1, 0, 0, 1]}
    ).to_csv(scores, index=False)
    items = tmp_path / "items.csv"
    pd.DataFrame({"item_id": ["q1", "q2"], "dataset": ["koala", "oasst"]}).to_csv(
        items, index=False
    )
    kept = apply_item_file(read_long_table(scores), items, cluster_column="dataset")
    assert len(kept.frame) == 4  # matched on item id alone, not on (item id, "task")
    assert dict(zip(kept.frame["item_id"], kept.frame["cluster"], strict=True)) == {
        "q1": "koala",
        "q2": "oasst",
    }
    # the scores carry the same column: with the clusters taken from the item file, the
    # scores' column of that name is not detected as their task column either
    frame = pd.read_csv(scores).assign(dataset=["koala", "oasst"] * 2)
    for suffix in (".csv", ".jsonl"):
        path = tmp_path / f"with_dataset{suffix}"
        if suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_json(path, orient="records", lines=True)
        options = LoadOptions(items=str(items), cluster_column="dataset")
        long = load_scores(path, options)
        assert set(long.frame["task"].astype(str)) == {"all"}, suffix
        assert long.frame["cluster"].astype(str).tolist() == ["koala", "oasst"] * 2
    wide = tmp_path / "wide.csv"
    pd.DataFrame({"item_id": ["q1", "q2"], "dataset": ["koala", "oasst"], "a": [1, 0]}).to_csv(
        wide, index=False
    )
    long = load_scores(
        wide,
        LoadOptions(
            items=str(items), cluster_column="dataset", layout="wide", model_columns=("a",)
        ),
    )
    assert set(long.frame["task"].astype(str)) == {"all"}
    assert set(long.frame["model"]) == {"a"}


# --- plots leave matplotlib's backend alone ----------------------------------------------------

BACKEND_CHECK = """
import sys
import matplotlib
import pandas as pd

sentinel = matplotlib.rcParams._get("backend")  # no backend chosen yet
from evalgap.report import plots
assert matplotlib.rcParams._get("backend") is sentinel  # importing chose none

ranking = pd.DataFrame({{"rank": [1, 2, 3], "model": ["a", "b", "c"],
                        "score": [0.7, 0.6, 0.5],
                        "score_low": [0.65, 0.55, 0.45], "score_high": [0.75, 0.65, 0.55]}})

def draw(tag):
    assert plots.forest(ranking, [["b", "c"]], "scores").startswith("<svg")
    fig = plots._new_figure(2, 2)
    fig.add_subplot().plot([0, 1])
    plots.save_figure(fig, {out!r} + tag + ".png")

draw("a")  # nothing chosen yet: evalgap must not resolve (or pick) a backend
assert matplotlib.rcParams._get("backend") is sentinel
assert "matplotlib.pyplot" not in sys.modules
matplotlib.use("pdf")  # a script that chose a backend keeps it
draw("b")
assert matplotlib.get_backend() == "pdf", matplotlib.get_backend()
import matplotlib.pyplot as plt  # a notebook: pyplot live, with an open figure
plt.switch_backend("svg")
plt.figure()
draw("c")
assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
assert plt.get_fignums() == [1], plt.get_fignums()  # no figure added to pyplot's list
print("ok")
"""


def test_plots_never_switch_the_matplotlib_backend(tmp_path):
    code = BACKEND_CHECK.format(out=str(tmp_path / "fig-"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
    for tag in "abc":
        assert (tmp_path / f"fig-{tag}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_alpaca_eval_file_alone_is_one_58_model_board_with_the_leaderboards_figures():
    """With no option: the score is 'win' (the one numeric column in [0, 1]), 'dataset' is
    not a task, and each model's score and SE equal the public leaderboard's (the data's
    README); every score bound on the card lies inside [0, 1]."""
    path = shared_file(*ALPACA)
    r = evalgap.ranks(path, n_bootstrap=200)
    assert set(r.ranks["task"]) == {"all"} and len(r.ranks) == 58
    board = r.ranks.set_index("model")
    for model, (win_rate, se) in {
        "FuseChat-Gemma-2-9B-Instruct": (70.497, 1.343),
        "FuseChat-Llama-3.2-3B-Instruct": (51.297, 1.483),
        "Qwen-14B-Chat": (7.502, 0.815),
        "alpaca-7b": (2.591, 0.487),
        "NullModel": (76.920, 0.909),
    }.items():
        assert 100 * board.loc[model, "score"] == pytest.approx(win_rate, abs=5e-4)
        assert 100 * board.loc[model, "se"] == pytest.approx(se, abs=5e-4)
    assert (board["score_low"] >= 0).all() and (board["score_high"] <= 1).all()
    card = evalgap.card(path, n_bootstrap=200).to_dict()
    bounds = [m[k] for t in card["tasks"] for m in t["models"] for k in ("score_low", "score_high")]
    assert len(bounds) == 116 and all(0 <= b <= 1 for b in bounds)
