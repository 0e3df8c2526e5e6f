"""No library message names a parameter as plain ``name=`` text.

An ``InputError`` names a parameter as a field of its template (``"{fmt}"``, ``"{layout=wide}"``,
``named("fmt=")``): Python shows ``fmt=``, the command line the invoked command's own flag
(``--format``). Text typed as ``"fmt="`` (or built as ``f"{name}="``) would show the Python
keyword on the command line too. This test reads every ``InputError(...)`` message of the
package and fails on a plain ``word=`` where ``word`` is a parameter of a public function, a
``LoadOptions`` field or the Python name of a command-line option, and on a message led by
such a name alone (``"alpha must be ..."``, where the template says ``{alpha!b}``).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import click

import evalgap
from evalgap.cli import cli
from evalgap.io.options import LoadOptions

SRC = Path(evalgap.__file__).resolve().parent

# The template helpers: their arguments name a parameter on purpose (``named(f"{name}=")``).
HELPERS = {"named", "fields"}

# (file, word): a plain ``word=`` that is not a parameter of the caller, and why.
ALLOWED: dict[tuple[str, str], str] = {}

# (file, word): a message led by the bare name of an array the statistics core takes, which
# only shares its name with a command's option (the option is a file or a column, so its
# flag would point at the wrong thing); the job that calls the core checks the user's input.
BARE_ALLOWED: dict[tuple[str, str], str] = {
    ("stats/paired.py", "scores"): "the (items, models) matrix, not --scores' files",
    ("stats/ranks.py", "scores"): "the (items, models) matrix, not --scores' files",
    ("stats/ranks.py", "clusters"): "the per-item labels, not a command's cluster option",
    ("stats/weighted.py", "strata"): "the per-item labels, not --strata's column name",
    ("stats/weighted.py", "weights"): "the per-item weights, not --weights' file or column",
}
# A message led by a parameter's bare name: "alpha must be ...".
LEADING = re.compile(r"([a-z_][a-z0-9_]*) (must|takes|is|needs|has|holds|should|cannot|with)\b")

# A word followed by '=' that no letter, digit, '-', '.', '{' or quote precedes: ``fmt=``,
# ``(paths=)``; not ``--fmt=``, ``x.fmt=``, ``{fmt=wide}`` (a field) or ``'a=b'`` text.
KEYWORD = re.compile(r"(?<![\w.\-{'\"])([A-Za-z_]\w*)=(?!=)")
FIELD = re.compile(r"\{[^{}]*\}")


def _parameter_names() -> set[str]:
    """Parameters of the public functions and classes, LoadOptions fields, CLI option names."""
    names = {f.name for f in dataclasses.fields(LoadOptions)}
    public = [getattr(evalgap, name) for name in evalgap._HOMES]
    simulate = importlib.import_module("evalgap.simulate")
    public += [getattr(simulate, n) for n in dir(simulate) if not n.startswith("_")]
    for obj in public:
        target = obj.__init__ if inspect.isclass(obj) else obj
        if not callable(target):
            continue
        try:
            names.update(inspect.signature(target).parameters)
        except (TypeError, ValueError):
            continue

    def walk(command: click.Command) -> None:
        names.update(p.name for p in command.params if isinstance(p, click.Option) and p.name)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(cli)
    return names - {"self", "args", "kwargs"}


VALUE = "\x00"  # where the message shows a value computed at run time


def _template(node: ast.AST) -> str:
    """The message as the template ``InputError`` receives it, each run-time value written
    as VALUE and each template helper's result as a field (``named("fmt=")`` -> ``{}``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left) + _template(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else VALUE for part in node.values
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in HELPERS:
            return "{}"
        if node.func.id == "escape" and node.args:  # literal text: its braces are not fields
            return _template(node.args[0]).replace("{", "{{").replace("}", "}}")
    return VALUE


def plain_keywords(root: Path, known: set[str]) -> list[str]:
    """``file:line: word= in 'text'`` for every plain ``word=`` naming a known parameter,
    and for every keyword the message builds from a run-time name (``f"{name}="``)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InputError"):
                continue
            if not node.args:
                continue
            message = node.args[0]
            helper = functions.get(getattr(getattr(message, "func", None), "id", ""))
            if helper is not None:  # InputError(_why(...)): the messages the helper returns
                returned = [r.value for r in ast.walk(helper) if isinstance(r, ast.Return)]
                texts = [_template(value) for value in returned if value is not None]
            else:
                texts = [_template(message)]
            for text in texts:
                found += _keywords(text, relative, node.lineno, known)
                lead = LEADING.match(text)
                if lead and lead.group(1) in known and (relative, lead[1]) not in BARE_ALLOWED:
                    found.append(f"{relative}:{node.lineno}: {lead[1]} leads {text!r}")
    return found


def _keywords(text: str, relative: str, line: int, known: set[str]) -> list[str]:
    """The plain keywords of one message template."""
    found = []
    literal = FIELD.sub("", text.replace("{{", "").replace("}}", ""))
    shown = text.replace(VALUE, "{...}")
    if re.search(VALUE + r"\w*=", literal):  # f"{name}=", f"{column}s="
        found.append(f"{relative}:{line}: a keyword built as text in {shown!r}")
    for match in KEYWORD.finditer(literal):
        word = match.group(1)
        if word in known and (relative, word) not in ALLOWED:
            found.append(f"{relative}:{line}: {word}= in {shown!r}")
    return found


def test_messages_name_parameters_as_template_fields():
    offending = plain_keywords(SRC, _parameter_names())
    assert not offending, (
        "write these parameters as template fields ({name}, {name=value}, {name!b}, "
        "named('name=')), "
        "so the command line shows its flag:\n" + "\n".join(offending)
    )


def test_the_scan_finds_a_plain_keyword(tmp_path):
    """The scan itself: a plain ``fmt=`` (text, f-string, a helper's return) and a bare
    leading ``fmt`` are found, template fields are not."""
    module = tmp_path / "m.py"
    module.write_text(
        "from evalgap.errors import InputError, escape, named\n"
        "def f(path, name):\n"
        "    raise InputError(f'{path}: force a source with fmt=')\n"
        "def g(name):\n"
        "    raise InputError(f'{name}= must be one')\n"
        "def h(path, name):\n"
        "    raise InputError(escape(f'{path}: ') + 'force one with {fmt} or {layout=wide}')\n"
        "def k(name):\n"
        "    raise InputError(named(f'{name}=') + ' must be one', param=name)\n"
        "def _why(n):\n"
        "    return f'tasks={n!r}: no such task'\n"
        "def w(n):\n"
        "    raise InputError(_why(n))\n"
        "def b(n):\n"
        "    raise InputError(f'fmt must be one of csv, tsv; got {n!r}')\n"
        "def c(n):\n"
        "    raise InputError('{fmt!b}' + escape(f' must be one of csv; got {n!r}'), param='fmt')\n"
        "def m(name, n):\n"
        "    raise InputError('give ' + '{' + f'{name}={n}' + '}' + ' or more', param=name)\n"
    )
    found = plain_keywords(tmp_path, {"fmt", "layout", "tasks"})
    assert [line.split(":")[1] for line in found] == ["3", "5", "13", "15"], found
