"""One-line usage errors that point at the help of the command actually typed."""

from __future__ import annotations

import pytest

from evalgap.cli import main


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["simulate", "sequential", "--bogus"], "(see 'evalgap simulate sequential --help')"),
        (["compare", "--bogus"], "No such option '--bogus' (see 'evalgap compare --help')"),
        (["--bogus"], "(see 'evalgap --help')"),
        (["bogus"], "No such command 'bogus' (see 'evalgap --help')"),
    ],
)
def test_usage_errors_name_the_command_path(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalgap: error: ") and err.count("\n") == 1
    assert expected in err
