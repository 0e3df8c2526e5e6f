"""A path given as any ``os.PathLike`` (not only ``pathlib.Path``) is one path everywhere."""

from __future__ import annotations

import os

import pytest

from evalgap.io.open_llm_leaderboard import read_details, source_name

import synthetic as syn


class _Location(os.PathLike):
    """A path-like object that is not a pathlib.Path (as some storage libraries give)."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __fspath__(self) -> str:
        return self._path


def test_source_name_of_a_path_like_is_its_path():
    assert source_name(_Location("runs/details")) == "runs/details"


@pytest.fixture(scope="module")
def reference():
    return syn.leaderboard(seed=3)


def test_details_read_from_a_path_like_name_their_source(tmp_path, reference):
    syn.write_oll_v2(reference, tmp_path)
    long = read_details(_Location(str(tmp_path)))
    assert long.source == str(tmp_path)
    assert sorted(long.frame.model.unique()) == sorted(syn.MODELS)
