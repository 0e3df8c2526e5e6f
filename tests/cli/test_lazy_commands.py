"""The command line imports a command's module only when that command is used.

``evalgap --help`` lists every command from the static table in ``cli._main`` (so the table
must say what the commands' docstrings say), and a command runs from its module, imported at
its first lookup. Start-up time itself is measured by ``benchmarks/bench_cli.py``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from evalgap.cli import cli
from evalgap.cli._command import LazyCommands
from evalgap.cli._main import COMMANDS


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_names_each_commands_function_and_the_first_paragraph_of_its_help(name):
    module, function, first_paragraph = COMMANDS[name]
    command = getattr(importlib.import_module(module), function)
    assert isinstance(command, click.Command) and command.name == name
    assert inspect.cleandoc(command.help or "").split("\n\n")[0] == first_paragraph
    assert cli.commands[name] is command


def test_the_group_help_lists_what_click_would_list_with_every_command_imported():
    lazy = CliRunner().invoke(cli, ["--help"], terminal_width=100)
    eager = click.Group(
        "evalgap",
        commands={name: cli.commands[name] for name in COMMANDS},
        params=cli.params,
        help=cli.help,
        context_settings=cli.context_settings,
    )
    plain = CliRunner().invoke(eager, ["--help"], terminal_width=100)
    assert lazy.exit_code == plain.exit_code == 0
    listing = lazy.output.split("Commands:")[1]
    assert listing == plain.output.split("Commands:")[1]
    assert len(listing.strip().splitlines()) == len(COMMANDS) == 15


def test_lazy_commands_import_at_first_lookup_and_keep_added_ones():
    commands = LazyCommands({"plan": ("evalgap.cli.plan", "plan", "How many...")})
    assert list(commands) == ["plan"] and not commands.loaded
    assert commands["plan"].name == "plan" and list(commands.loaded) == ["plan"]
    extra = click.Command("extra", help="An added command.")
    commands["extra"] = extra
    assert list(commands) == ["plan", "extra"] and len(commands) == 2
    assert commands.short_help("extra", 40) == "An added command."
    assert commands.get("missing") is None
    del commands["plan"]
    assert list(commands) == ["extra"]


PROGRAM = """
import contextlib, io, json, sys
from evalgap.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "output": out.getvalue(),
                  "modules": sorted(m for m in sys.modules if m.startswith("evalgap.cli."))}))
"""


def run(*argv: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *argv], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_the_group_help_imports_no_command_module():
    ran = run("--help")
    assert ran["code"] == 0 and "store" in ran["output"]
    assert [m for m in ran["modules"] if m.split(".")[-1] in {"compare", "store", "simulate"}] == []


def test_a_command_imports_its_own_module_and_not_the_others():
    ran = run("plan", "--help")
    assert ran["code"] == 0 and "--delta" in ran["output"]
    assert "evalgap.cli.plan" in ran["modules"]
    for other in ("adaptive", "audit", "compare", "simulate", "store", "watch", "fragility"):
        assert f"evalgap.cli.{other}" not in ran["modules"]


def test_an_unknown_command_is_one_line_naming_it_and_the_closest_one():
    done = subprocess.run(
        [sys.executable, "-m", "evalgap", "compaer"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "evalgap: error: No such command 'compaer'. Did you mean 'compare'? (see 'evalgap --help')"
    )
