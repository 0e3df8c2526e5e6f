"""The package's import graph has no cycle and no arrow pointing up a layer.

Every import counts: at module level, inside a function and under ``if TYPE_CHECKING:``,
since each ties the two modules together for the next reader (and for a type checker). The
layers themselves are a contract of import-linter (``[tool.importlinter]`` in
pyproject.toml), which ``lint-imports`` checks; the test runs it too when it is installed.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import evalgap

PACKAGE = Path(evalgap.__file__).parent
ROOT = PACKAGE.parent.parent


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (every import statement in its file)."""
    modules = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module if is_package else module.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    name = base + ("." + node.module if node.module else "")
                else:
                    name = node.module or ""
                targets = [name] + [f"{name}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if target.split(".")[0] != "evalgap":
                    continue
                found = resolve(target)
                # a module importing its own package (or itself) is no arrow between modules
                if found and found != module and not module.startswith(found + "."):
                    graph[module].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert "evalgap.jobs.audit" in graph and "evalgap.stats.paired" in graph
    assert cycles(graph) == []


def test_the_variants_sit_below_the_front_doors():
    """A front door dispatches to its job's variants, which never import it back: the gold
    scale, the weighted and grouped comparisons and the rank table import none of the
    modules holding the ``compare``, ``audit``, ``fragility`` and ``ranks`` front doors."""
    graph = import_graph()
    doors = {"evalgap.jobs.compare", "evalgap.jobs.audit", "evalgap.jobs.ranks"}
    variants = (
        "evalgap.jobs.gold",
        "evalgap.jobs.weighted",
        "evalgap.jobs.compare_groups",
        "evalgap.jobs.compare_pair",
        "evalgap.jobs._ranks_result",
    )
    assert {m: sorted(graph[m] & doors) for m in variants if graph[m] & doors} == {}


def test_reports_import_no_job():
    graph = import_graph()
    bad = {
        (m, t)
        for m, targets in graph.items()
        if m.startswith("evalgap.report")
        for t in targets
        if t.startswith("evalgap.jobs") or t == "evalgap.cli" or t.startswith("evalgap.cli.")
    }
    assert bad == set()


@pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter not installed")
def test_the_import_contracts_hold():
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("not run from a source checkout")
    # the contracts of this checkout's sources, whichever copy of the package is installed
    path = os.pathsep.join(p for p in (str(PACKAGE.parent), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        ["lint-imports", "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


def test_the_package_root_imports_lazily():
    """``evalgap/__init__.py`` names each public object's home in ``_HOMES`` and imports it on
    first use: no import statement of its own reaches a module of the package."""
    graph = import_graph()
    assert graph["evalgap"] == set()
    homes = set(evalgap._HOMES.values())
    assert homes <= set(graph), sorted(homes - set(graph))
