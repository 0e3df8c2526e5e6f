"""Configurations as data: the ``configuration`` factor of the long table.

A configuration is what a score was run under besides the model: a seed, a provider, a batch
size, a harness version. ``config_columns`` (``--config-columns seed,provider``) names the
columns of a score table, or the run-metadata fields of a framework's logs, whose values say
it; every combination of their values is one configuration, labelled ``seed=1, provider=a``
(the names in the order given). Every reader that takes the option calls :func:`labels` or
:func:`label`, so a configuration has one spelling whichever source it came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from evalgap._lazy import LazyModule
from evalgap.errors import InputError, escape

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = LazyModule("pandas")

COLUMN = "configuration"  # the long table's column
ERRORED = "errored"  # the long table's flag of a sample that errored (where a reader knows)


def names(config_columns: Sequence[str] | str | None) -> tuple[str, ...]:
    """Return the configuration columns as a tuple of distinct names (commas split)."""
    if not config_columns:
        return ()
    if isinstance(config_columns, str):
        config_columns = [config_columns]
    out: list[str] = []
    for entry in config_columns:
        if not isinstance(entry, str):
            raise InputError(
                "{config_columns}"
                + escape(f" must name columns (strings); got {type(entry).__name__}"),
                param="config_columns",
            )
        out.extend(n.strip() for n in entry.split(",") if n.strip())
    duplicated = sorted({n for n in out if out.count(n) > 1})
    if duplicated:
        raise InputError(
            "{config_columns}" + escape(f" names {duplicated[0]!r} twice; name each once"),
            param="config_columns",
        )
    return tuple(out)


def label(values: Mapping[str, object]) -> str:
    """Return the label of one configuration: ``name=value`` pairs in the order given."""
    return ", ".join(f"{name}={_text(value)}" for name, value in values.items())


def labels(frame: pd.DataFrame, columns: Sequence[str], where: object) -> pd.Categorical:
    """Return each row's configuration label from the ``columns`` of ``frame``.

    One label per distinct combination, built from the columns' integer codes (a table of
    millions of rows under a few configurations formats a few labels, not a label per row).
    A row without a value (missing or blank) in one of the columns is refused, naming
    ``where`` and the first such row: it would otherwise form a configuration of its own.
    """
    import numpy as np

    codes, values = [], []
    for column in columns:
        given = frame[column]
        blank = np.array(given.isna(), dtype=bool)
        if given.dtype == object or isinstance(given.dtype, pd.CategoricalDtype):
            blank |= (given.astype(str).str.strip() == "").to_numpy()
        if blank.any():
            raise InputError(
                escape(
                    f"{where}: row {int(np.flatnonzero(blank)[0]) + 1} has no value of "
                    f"{column!r} ({int(blank.sum()):,} such row{'s' * (int(blank.sum()) != 1)}); "
                )
                + "give every score the configuration it was run under, or leave "
                + escape(repr(column))
                + " out of {config_columns}",
                param="config_columns",
            )
        code, unique = pd.factorize(given, sort=True)
        codes.append(code + 1)
        values.append(["nan", *map(str, unique)])
    sizes = tuple(len(v) for v in values)
    combined = np.ravel_multi_index(tuple(codes), sizes)
    found, inverse = np.unique(combined, return_inverse=True)
    parts = np.unravel_index(found, sizes)
    text = [
        label({c: values[j][parts[j][k]] for j, c in enumerate(columns)})
        for k in range(found.size)
    ]
    return pd.Categorical.from_codes(inverse.reshape(-1), text)


def pick(fields: Mapping[str, object], wanted: Sequence[str], where: object) -> dict[str, object]:
    """Return the values of the ``wanted`` run-metadata fields of one log.

    A field the log does not record raises, naming ``--config-columns`` and the fields it
    has.
    """
    missing = [name for name in wanted if name not in fields]
    if missing:
        raise InputError(
            escape(f"{where}: no run-metadata field {missing[0]!r} given in ")
            + "{config_columns}"
            + escape(f"; fields this log records: {', '.join(sorted(fields))}"),
            param="config_columns",
        )
    return {name: fields[name] for name in wanted}


def refuse_missing(found: Sequence[str], wanted: Sequence[str], where: object) -> None:
    """Refuse configuration columns a table does not have, listing the columns it has."""
    missing = [name for name in wanted if name not in found]
    if missing:
        shown = ", ".join(map(repr, list(found)[:20])) + (", ..." if len(found) > 20 else "")
        raise InputError(
            escape(f"{where}: no column {missing[0]!r} given in ")
            + "{config_columns}"
            + escape(f"; columns found: {shown}"),
            param="config_columns",
        )


def _text(value: object) -> str:
    """A metadata value as one short piece of text (dicts and lists as compact JSON)."""
    if isinstance(value, (dict, list, tuple)):
        import json

        return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return str(value)
