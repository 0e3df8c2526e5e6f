"""Bad counts, roles and plans for the degradation gate: one line naming file, row and column,
exit code 2, never a traceback, a RuntimeWarning or a silently wrong verdict (issue 10)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import evalgap
from evalgap.cli import main
from evalgap.errors import InputError

from conftest import shared_file

HEADER = "task,a_only,b_only"

COUNTS_CASES = [
    # (rows after the header, the error's text)
    (["t1,30,5", "t1,30,5", "t2,3,4"], "rows 1, 2 repeat task 't1'; give each task one row"),
    (["t1,3,4", "t2,3,4", "t1,9,9"], "rows 1, 3 repeat task 't1'"),
    (
        ["t1,9223372036854775000,5", "t2,9223372036854775000,4"],
        "row 1: a_only must be at most 9,007,199,254,740,992 (2^53); "
        "got 9223372036854775000",
    ),
    (["t1,3,inf", "t2,3,4"], "row 1: b_only must be a non-negative whole "
     "number; got inf"),
    (["t1,3,4", "t2,-inf,4"], "row 2: a_only must be a non-negative whole "
     "number; got -inf"),
    (["t1,1.5,4"], "row 1: a_only must be a non-negative whole number; got 1.5"),
    (["t1,,4"], "row 1: a_only must be a non-negative whole number; got an "
     "empty or NA cell"),
    (["t1,three,4"], "row 1: a_only must be a non-negative whole number; got "
     "'three'"),
    (
        ["t1,4503599627370496,0", "t2,4503599627370496,1"],
        "all counts together sum to 9,007,199,254,740,993, above 9,007,199,254,740,992",
    ),
    (
        ["t1,9007199254740992,0", "t2,1,0"],
        "the a_only counts over tasks sum to 9,007,199,254,740,993, above "
        "9,007,199,254,740,992",
    ),
]


@pytest.mark.parametrize(("rows", "expected"), COUNTS_CASES)
def test_bad_counts_file_is_one_line_naming_file_row_and_column(tmp_path, capsys, rows, expected):
    path = tmp_path / "counts.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    assert main(["degrade", "--counts", str(path), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and out.err.startswith(f"evalgap: error: {path}: ")
    assert expected in out.err


def test_large_but_valid_counts_give_finite_p_values(tmp_path, capsys):
    """A billion discordant items: exact tails still finite, no warning, no overflow."""
    path = tmp_path / "counts.csv"
    path.write_text(
        "task,a_only,b_only,both_correct,both_wrong\n"
        "t1,1000000000,999990000,5,5\nt2,3,4,100,100\n"
    )
    assert main(["degrade", "--counts", str(path), "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    # one-sided exact p of b = 1e9 + 3 against c = 999,990,004: the normal approximation
    # with continuity correction is exact to ~1e-9 at this size (scipy's bdtrc was 3e-1 off)
    n, b = 1_999_990_007, 1_000_000_003
    oracle = norm.sf((b - 0.5 - n / 2) / np.sqrt(n / 4))
    assert data["p_values"]["pooled"] == pytest.approx(oracle, rel=1e-6)
    assert data["degraded"] is False
    assert data["total"]["n_items"] == 1_999_990_217


def test_same_model_as_baseline_and_candidate(capsys):
    bbh = shared_file("bbh_codex", "bbh_codex_long.csv")
    code = main(
        [
            "degrade",
            "--scores",
            str(bbh),
            "--baseline",
            "code-davinci-002-cot",
            "--candidate",
            "code-davinci-002-cot",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "--baseline and --candidate are both 'code-davinci-002-cot'" in err


def test_same_model_in_the_python_api():
    from evalgap._scores import align
    from evalgap.errors import InputError
    from evalgap.io.sources import load_scores
    from evalgap.jobs.degrade import degrade_scores

    score_set = align(load_scores(shared_file("bbh_codex", "bbh_codex_long.csv")).frame)
    with pytest.raises(InputError, match="are both 'code-davinci-002-cot'"):
        degrade_scores(score_set, "code-davinci-002-cot", "code-davinci-002-cot")


@pytest.mark.parametrize(
    ("delta", "flip_rate", "expected"),
    [
        ("0.5", "0.01", "--delta 0.5 exceeds --flip-rate 0.01"),
        ("0.1", "0.09", "--delta 0.1 exceeds --flip-rate 0.09"),
        ("inf", "0.1", "delta must be a finite number; got inf"),
    ],
)
def test_degradation_plan_refuses_a_drop_above_the_flip_rate(capsys, delta, flip_rate, expected):
    """Eq. 11: delta = (b - c)/N <= (b + c)/N; 'required_n 3' for an impossible drop before."""
    assert main(["plan", "--flip-rate", flip_rate, "--delta", delta]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err


def test_degradation_plan_accepts_a_drop_equal_to_the_flip_rate(capsys):
    assert main(["plan", "--flip-rate", "0.09", "--delta", "0.09", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    # N = p (z_0.95 + z_0.8)^2 / delta^2 = 0.09 * 6.183 / 0.0081 = 68.7
    assert data["required_n"] == 69


def test_options_for_scores_are_refused_with_counts(tmp_path, capsys):
    """--permutation, --n-permutations and the loader options (--task, --strict...) were
    silently ignored with --counts, in the CLI and in Python."""
    path = tmp_path / "counts.csv"
    pd.DataFrame({"task": ["a"], "a_only": [9], "b_only": [2]}).to_csv(path, index=False)
    for extra, named in (
        (["--permutation", "--n-permutations", "5"], "--permutation, --n-permutations: "),
        (["--task", "a"], "--task: "),
        (["--strict"], "--strict: "),
    ):
        assert main(["degrade", "--counts", str(path), *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"evalgap: error: {named}for per-item scores")
        assert err.count("\n") == 1
    counts = pd.read_csv(path)
    with pytest.raises(InputError, match=r"^permutation=, tasks=: for per-item scores"):
        evalgap.degrade(counts=counts, permutation=True, tasks=["a"])
    assert main(["degrade", "--counts", str(path), "--n-simulations", "50", "--seed", "1"]) == 0
