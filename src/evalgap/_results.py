"""What every result type shares: ``to_dict()`` generated from its fields, a short repr.

A result is a frozen dataclass deriving from :class:`Result`. Its JSON form is its fields in
order (renamed where the documented key differs, ``_json_names``), then the derived
properties (or argument-free methods) listed in ``_derived`` (such as ``verdict``); nested
results, intervals, tuples, NumPy numbers and DataFrames become plain data, and non-finite
numbers become ``None``. The repr shows the class, the fields named in ``_headline`` and the
verdict when there is one, so a notebook prints one line, not a page.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


class Result:
    """Mixin for frozen dataclass results (see the module docstring)."""

    _json_names: ClassVar[dict[str, str]] = {}
    _derived: ClassVar[tuple[str, ...]] = ()
    _omit: ClassVar[tuple[str, ...]] = ()
    _headline: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the result as plain, JSON-ready data (the ``--json`` contract).

        Returns
        -------
        dict
            Every field (and derived property such as ``verdict``) by its documented key;
            nested results are dicts, sequences are lists, non-finite numbers are None.
        """
        return {key: plain(value) for key, value in self._entries().items()}

    def _entries(self) -> dict[str, Any]:
        """The JSON keys of :meth:`to_dict` with their values as Python holds them."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]  # subclasses are dataclasses
            if f.name not in self._omit:
                out[self._json_names.get(f.name, f.name)] = getattr(self, f.name)
        for name in self._derived:  # properties, or methods taking no argument
            value = getattr(self, name)
            out[self._json_names.get(name, name)] = value() if callable(value) else value
        return out

    def __repr__(self) -> str:
        parts = [f"{name}={_short(getattr(self, name))}" for name in self._headline]
        verdict = getattr(self, "verdict", None)
        if isinstance(verdict, str) and verdict:
            parts.append(repr(verdict))
        return f"{type(self).__name__}({', '.join(parts)})"


class RowResult(Result):
    """Mixin for a result that is one row of a table (a plan, a weighted gap): ``to_frame()``
    returns that row, so results over a grid of settings concatenate into a table."""

    def to_frame(self) -> pd.DataFrame:
        """Return the result as a one-row DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row; its columns are the keys of :meth:`to_dict` (nested results as dicts;
            numbers stay numbers, NaN included).
        """
        return records_frame([self])


class TableResult(Result):
    """Mixin for a result holding a table as a tuple of rows (results or dicts) in the field
    named by ``_rows``: ``to_frame()`` returns that table."""

    _rows: ClassVar[str] = ""

    def to_frame(self) -> pd.DataFrame:
        """Return the result's table, one row per entry of its JSON list (see the class).

        Returns
        -------
        pandas.DataFrame
            Its columns are the JSON keys of those rows in ``to_dict()`` (numbers stay
            numbers, NaN included).
        """
        return records_frame(getattr(self, self._rows))


def records_frame(rows: Iterable[Result | dict[str, Any]]) -> pd.DataFrame:
    """Return one DataFrame row per result (or dict) in ``rows``, its columns the JSON keys
    of their ``to_dict()``: cells as in the JSON (nested results as dicts), except that a
    number stays a number (NaN and infinity are not turned into None)."""
    import pandas as pd

    def cell(value: object) -> Any:
        if isinstance(value, (float, np.floating)):
            return float(value)
        return plain(value)

    entries = [row._entries() if isinstance(row, Result) else row for row in rows]
    records = [{key: cell(value) for key, value in entry.items()} for entry in entries]
    columns = list(dict.fromkeys(key for record in records for key in record))
    return pd.DataFrame(records, columns=columns)


def plain(value: Any) -> Any:
    """Return ``value`` as plain Python data (dicts, lists, numbers, strings, None)."""
    if isinstance(value, Result) or (
        hasattr(value, "to_dict") and not hasattr(value, "columns") and not isinstance(value, type)
    ):
        return value.to_dict()
    if hasattr(value, "columns") and hasattr(value, "to_dict"):  # a pandas DataFrame
        return [plain(row) for row in value.to_dict(orient="records")]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _short(value: object) -> str:
    if isinstance(value, (float, np.floating)):
        text = f"{float(value):.4g}"
        return text if any(ch in text for ch in ".einf") else text + ".0"
    if hasattr(value, "__len__") and not isinstance(value, str):
        return f"<{len(value)}>"
    return repr(value)
