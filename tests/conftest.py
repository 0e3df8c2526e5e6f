"""Shared test fixtures: paths to the real evaluation data kept beside the project, and the
command line run in-process (``run_cli``) or through the installed entry point (``EVALGAP``)."""

from __future__ import annotations

import os

# One BLAS thread per test process: pytest-xdist runs a worker per core, and OpenBLAS's own
# threads (one per core each) then spin against one another, making a 0.5 s statsmodels
# oracle take 30 s. Set before NumPy loads (the workers inherit it); a user's setting stands.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import NamedTuple  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The installed console script, beside this interpreter (tests/cli/test_entry_points.py runs it).
EVALGAP = Path(sys.executable).parent / "evalgap"


def shared_file(*parts: str) -> Path:
    """Return a file under ../shared/data, or skip the test saying what is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"real-data file {path} is not present (it lives beside the project, not in it)"
        )
    return path


class CliRun(NamedTuple):
    """What one command run gave: its exit code and what it printed (as ``subprocess.run``)."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(capsys):
    """Run ``evalgap ARGS...`` in-process through ``evalgap.cli.main``; return a ``CliRun``.

    The same code path as the entry point (``main`` catches every error, prints
    ``evalgap: error: ...`` and returns the exit code), without the interpreter start and
    imports a subprocess pays on every call.
    """
    from evalgap.cli import main

    def run(*args) -> CliRun:
        capsys.readouterr()  # what the test printed before is not this command's output
        code = main([str(a) for a in args])
        out = capsys.readouterr()
        return CliRun(code, out.out, out.err)

    return run


def run_entry_point(*args, **kwargs) -> subprocess.CompletedProcess:
    """Run the installed ``evalgap`` executable (a real process, a real pipe)."""
    if not EVALGAP.exists():
        pytest.skip(f"the evalgap entry point is not installed next to {sys.executable}")
    return subprocess.run(
        [str(EVALGAP), *map(str, args)], capture_output=True, text=True, timeout=120, **kwargs
    )


# Every error the command line shows names the invoked command's own flags: a flag it does not
# have (or a Python keyword such as ``model_column=``) sends the user the wrong way. Checked on
# every BadInput any test provokes, so each message test checks its flags exist on the command.
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*(?![\w])")
_COMMAND_NAMED = re.compile(r"evalgap((?: [a-z][a-z-]*)+)")


def command_flags(command) -> set[str]:
    """The long flags of a click command (its options' every spelling, and ``--help``)."""
    import click

    flags = {"--help"}
    for param in getattr(command, "params", ()):
        if isinstance(param, click.Option):
            flags.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return flags


def named_command_flags(text: str) -> set[str]:
    """The flags of every ``evalgap COMMAND [SUBCOMMAND]`` a message itself names."""
    from evalgap.cli._main import cli

    flags: set[str] = set()
    for match in _COMMAND_NAMED.finditer(text):
        command = cli
        for word in match.group(1).split():
            sub = getattr(command, "commands", {}).get(word)
            if sub is None:
                break
            command = sub
            flags |= command_flags(command)
    return flags | command_flags(cli)


def check_error_flags(error, command, text: str) -> None:
    """Fail when ``text`` (a CLI error) names a flag ``command`` lacks, or a Python keyword."""
    import string

    if command is None:
        return
    own = command_flags(command)
    foreign = [f for f in _FLAG.findall(text) if f not in own]
    foreign = [f for f in foreign if f not in named_command_flags(text)]
    assert not foreign, f"'{command.name}' has no {foreign}, yet its error names them: {text}"
    fields = {f for _, f, _, _ in string.Formatter().parse(error.template) if f}
    fields = {f.split("=", 1)[0] for f in fields} | ({error.param} if error.param else set())
    keywords = [f"{f}=" for f in fields if re.search(rf"(?<![\w-]){re.escape(f)}=", text)]
    assert not keywords, f"'{command.name}' error names Python keywords {keywords}: {text}"


@pytest.fixture(autouse=True)
def _errors_name_the_commands_flags(request, monkeypatch):
    """Check every CLI error rendered during a test with :func:`check_error_flags` (a test of
    the fallback itself is marked ``renders_keywords``)."""
    from evalgap.cli import _command

    if request.node.get_closest_marker("renders_keywords"):
        yield
        return

    original = _command.BadInput.__init__

    def init(self, error, command):
        original(self, error, command)
        check_error_flags(error, command, self.message)

    monkeypatch.setattr(_command.BadInput, "__init__", init)
    yield
