"""An output named like an input of the same command is refused before any work, and the input
is left as it was: an atomic write would otherwise replace the user's data with the result."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "args",
    [
        ("audit", "--scores", "{csv}", "--output", "{csv}"),
        ("audit", "--scores", "{csv}", "--html", "{csv}"),
        ("ranks", "--scores", "{csv}", "--html", "{csv}"),
        ("estimate", "--reference", "{csv}", "--scores", "{csv}", "--output", "{link}"),
        ("adaptive", "--reference", "{csv}", "--pair", "a", "b", "--output", "{csv}"),
        ("adaptive", "--reference", "{csv}", "--pair", "a", "b", "--state", "{out}",
         "--output", "{out}"),
    ],
)  # fmt: skip
def test_an_output_onto_an_input_is_refused_and_the_input_kept(run_cli, tmp_path, args):
    csv = tmp_path / "board.csv"
    rows = ["model,item_id,score"] + [f"{m},q{i},{(i * 7 + k) % 3 % 2}" for k, m in
                                      enumerate("abcd") for i in range(40)]  # fmt: skip
    csv.write_text("\n".join(rows) + "\n")
    link = tmp_path / "link.csv"
    link.symlink_to(csv)  # another name of the same file
    before = csv.read_bytes()
    argv = [a.format(csv=csv, link=link, out=tmp_path / "out.json") for a in args]
    out = run_cli(*argv)
    assert out.returncode == 2, out.stdout
    assert "the same file as" in out.stderr and "name another file" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert csv.read_bytes() == before
