"""Every replicate count is bounded by what a machine can hold, said with the bound and why:
--n-bootstrap 2000000000 ended in a MemoryError traceback after 2.4 GB, or ran on silently."""

from __future__ import annotations

import pytest

import evalgap
from evalgap.errors import InputError

from conftest import ROOT

BOARD = ROOT / "examples" / "board.csv"
COUNTS = ["--both-correct", "10", "--a-only", "5", "--b-only", "2", "--both-wrong", "3"]


@pytest.mark.parametrize(
    "args",
    [["compare", *COUNTS], ["ranks", "--scores", BOARD], ["audit", "--scores", BOARD],
     ["card", "--scores", BOARD]],
)
def test_a_huge_bootstrap_is_refused_with_its_bound(run_cli, args):
    out = run_cli(*args, "--n-bootstrap", "2000000000")
    assert out.returncode == 2
    assert "--n-bootstrap must be at most 1,000,000; got 2,000,000,000" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_the_python_api_says_the_same():
    with pytest.raises(InputError, match=r"^n_bootstrap must be at most 1,000,000"):
        evalgap.ranks(BOARD, n_bootstrap=10**7)
    assert evalgap.compare(both_correct=10, a_only=5, b_only=2, both_wrong=3,
                           n_bootstrap=1_000_000).n_items == 20  # fmt: skip
