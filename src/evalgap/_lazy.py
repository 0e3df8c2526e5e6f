"""A module imported at its first use, so a command that never builds a table never pays for
pandas (about 0.2 s of a command's start).

Written as ``if TYPE_CHECKING: import pandas as pd`` / ``else: pd = LazyModule("pandas")``:
type checkers see the module, and the program imports it when an attribute is first read.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``; reading an attribute imports it (once)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(importlib.import_module(self._name), attribute)
        # kept on the proxy: the next read is a plain attribute, as fast as the module's
        setattr(self, attribute, value)
        return value

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported at first use>"
