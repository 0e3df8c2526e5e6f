"""Shared test fixtures: paths to the real evaluation data kept beside the project."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def shared_file(*parts: str) -> Path:
    """Return a file under ../shared/data, or skip the test saying what is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"real-data file {path} is not present (it lives beside the project, not in it)"
        )
    return path
