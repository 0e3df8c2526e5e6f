"""The shape of the house (issue: one house a maintainer can carry on), checked on every run.

The command line is a thin package: no module over 400 lines, no command body over 40
lines, no argument check of its own (every check is the library's, so Python callers get
it too). Counted from the sources' syntax trees, so a new command is checked as it lands.
The library reads in one sitting too: no function body over 100 lines, each job's front door
in the job's own module (no ``jobs/api.py`` of them all), and at most 70 public names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import evalgap

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "evalgap"
CLI = PACKAGE / "cli"
MODULES = sorted(CLI.glob("*.py"))


def _commands(tree: ast.Module):
    """The functions decorated as click commands (``@command``, ``@x.command(...)``...)."""
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in ("command", "group"):
                yield node
                break


def _body_lines(func: ast.FunctionDef) -> int:
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring is the command's --help, not its body
    return 0 if not body else body[-1].end_lineno - body[0].lineno + 1


def test_the_cli_is_a_package_of_commands():
    assert CLI.is_dir() and len(MODULES) >= 10
    found = [f.name for m in MODULES for f in _commands(ast.parse(m.read_text()))]
    assert len(found) >= 20, found  # the 23 commands and groups live here


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_no_cli_module_over_400_lines(module):
    assert len(module.read_text().splitlines()) <= 400


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_no_command_body_over_40_lines(module):
    long = {
        f.name: _body_lines(f)
        for f in _commands(ast.parse(module.read_text()))
        if _body_lines(f) > 40
    }
    assert not long


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_the_cli_writes_no_argument_check(module):
    """An InputError is made in the library only; the CLI turns it into its own flags."""
    made = [
        n.lineno
        for n in ast.walk(ast.parse(module.read_text()))
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "InputError"
    ]
    assert not made, f"{module.name}: InputError made at lines {made}"


def test_the_body_count_sees_a_long_command():
    """The counter itself: a 41-line command body is caught (a check that cannot fail is none)."""
    lines = "\n".join(f"    x{i} = {i}" for i in range(41))
    tree = ast.parse(f'@cli.command()\ndef long():\n    """Help."""\n{lines}\n')
    assert [_body_lines(f) for f in _commands(tree)] == [41]


MAX_BODY = 100


def _function_bodies() -> dict[str, int]:
    """``module:function`` -> the lines of its body (docstring left out), for every function
    and method of the package, nested ones included."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
                found[key] = max(found.get(key, 0), _body_lines(node))
    return found


def test_no_function_body_over_100_lines():
    long = {k: n for k, n in _function_bodies().items() if n > MAX_BODY}
    assert not long, f"bodies over {MAX_BODY} lines: {long}"


def test_the_body_count_sees_a_long_function():
    lines = "\n".join(f"    x{i} = {i}" for i in range(101))
    tree = ast.parse(f'def long():\n    """Doc."""\n{lines}\n')
    assert [_body_lines(f) for f in tree.body] == [101]


def test_the_front_doors_sit_beside_their_recipes():
    assert not (PACKAGE / "jobs" / "api.py").exists()
    # each public function and type is defined in the module its entry in _HOMES names
    elsewhere = {
        name: getattr(evalgap, name).__module__
        for name, home in evalgap._HOMES.items()
        if callable(getattr(evalgap, name)) and getattr(evalgap, name).__module__ != home
    }
    assert not elsewhere


def test_the_public_api_is_small():
    assert len(evalgap.__all__) <= 70, len(evalgap.__all__)
    # a name that left it still works for one release, with a warning naming the new one
    gone = set(evalgap._RENAMED)
    assert not gone & set(evalgap.__all__)
    assert all(evalgap._RENAMED[name] in evalgap.__all__ or evalgap._RENAMED[name] in gone
               for name in gone)  # fmt: skip
    with pytest.warns(DeprecationWarning, match="use evalgap.compare"):
        assert evalgap.compare_counts.__name__ == "compare_counts"
