"""Every bundled example is what its generator writes: seeded, so byte for byte."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GENERATORS = sorted(EXAMPLES.glob("make_*.py"))


def test_every_generator_is_found():
    assert {g.name for g in GENERATORS} >= {"make_board.py", "make_example.py", "make_judged.py",
                                           "make_pilot.py"}  # fmt: skip


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.stem)
def test_the_example_is_what_its_generator_writes(generator, tmp_path):
    spec = importlib.util.spec_from_file_location(f"examples_{generator.stem}", generator)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = tmp_path / module.OUTPUT.name
    module.main(written)
    assert written.read_bytes() == module.OUTPUT.read_bytes()
