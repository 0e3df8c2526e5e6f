"""The README's commands are what CI runs and what a new user types."""

from __future__ import annotations

import re

from conftest import ROOT

TEST_COMMAND = (
    'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" '
    "&& ruff check . && lint-imports && mypy && mkdocs build --strict && pytest"
)


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_ci_runs_the_readme_test_command_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in [
        line.strip() for block in _bash_blocks(readme) for line in block.splitlines()
    ]
    assert TEST_COMMAND in ci.splitlines()


def test_readme_main_command_uses_the_bundled_example():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = _bash_blocks(readme)[0].strip()
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . && ")
    assert "evalgap compare --scores examples/two_models.csv" in first
    assert (ROOT / "examples" / "two_models.csv").exists()
