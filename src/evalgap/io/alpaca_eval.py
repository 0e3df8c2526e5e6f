"""Read AlpacaEval ``annotations.json`` files: an LLM judge's preferences against a baseline.

Each file is a JSON list of records with ``instruction``, ``generator_1`` (the fixed
baseline), ``generator_2`` (the model judged), ``preference`` in [1, 2] (1: the baseline's
output preferred, 2: the model's; the weighted annotators give the judge's probability in
between) and optionally ``dataset`` (the instruction's source set). A record becomes one
score of ``generator_2``: ``preference - 1``, the probability that it beats the baseline,
whose mean over the instructions is the leaderboard's win rate. The item is the instruction
(the first 12 hex digits of its SHA-1, as the long table in the shared data). Records
without a preference (the judge failed), or without a model, baseline or instruction
(``null``: never a model named "None"), are left out and counted; the same instruction
judged twice for one model is handled by the alignment (identical duplicates collapse, and
are said).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io._files import PathsArg, as_paths, expand

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

FILE = "annotations.json"
# The fields naming a record's model, baseline and item; a record without one (null or
# empty) cannot be placed, so it is left out and counted, never named "None".
IDENTITIES = {
    "generator_2": "the model judged",
    "generator_1": "the baseline",
    "instruction": "the item",
}
FIELDS = (b'"generator_2"', b'"preference"', b'"instruction"')
TASK = "alpaca_eval"


def is_annotations_path(path: Path) -> bool:
    """True for a JSON file whose head is a list of records with AlpacaEval's fields."""
    if path.suffix != ".json" or not path.is_file():
        return False
    with open(path, "rb") as handle:
        head = handle.read(65536)
    return head.lstrip()[:1] == b"[" and all(f in head for f in FIELDS)


def item_id(instruction: str) -> str:
    """The item key of an instruction: the first 12 hex digits of its SHA-1 (UTF-8).

    Examples
    --------
    >>> item_id("What is 2 + 2?")
    '58bf025cafcc'
    """
    return hashlib.sha1(instruction.encode("utf-8")).hexdigest()[:12]


def read_annotations(paths: PathsArg, *, cluster_column: str | None = None) -> LongScores:
    """Read annotations files (or directories holding them) into the long layout.

    ``cluster_column="dataset"`` keeps each record's ``dataset`` as its cluster label.
    """
    paths = as_paths(paths)
    rows, notes = [], []
    baselines = set()
    for path in expand(paths, globs=(FILE,), what=FILE, accept=is_annotations_path):
        records = _load(path)
        missing = 0
        unnamed = dict.fromkeys(IDENTITIES, 0)
        for number, record in enumerate(records, start=1):
            if not isinstance(record, dict) or not {
                "instruction",
                "generator_1",
                "generator_2",
                "preference",
            } <= set(record):
                raise InputError(
                    f"{path}: record {number} lacks instruction, generator_1, generator_2 or "
                    "preference; not an AlpacaEval annotations file"
                )
            preference = record["preference"]
            if preference is None:
                missing += 1
                continue
            fields = {f: _text(record[f], f, path, number) for f in IDENTITIES}
            if any(v is None for v in fields.values()):
                for f, v in fields.items():
                    unnamed[f] += v is None
                continue
            named = cast(dict[str, str], fields)  # every identity is there (checked above)
            if (
                isinstance(preference, bool)
                or not isinstance(preference, (int, float))
                or not (1.0 <= float(preference) <= 2.0)
            ):
                raise InputError(
                    f"{path}: record {number} has preference {preference!r}; AlpacaEval "
                    "preferences are numbers in [1, 2]"
                )
            baselines.add(named["generator_1"])
            row = {
                "model": named["generator_2"],
                "task": TASK,
                "item_id": item_id(named["instruction"]),
                "score": float(preference) - 1.0,
            }
            if cluster_column is not None:
                if cluster_column not in record:
                    raise InputError(
                        f"{path}: record {number} has no field {cluster_column!r} for the "
                        "cluster label (AlpacaEval records carry 'dataset')"
                    )
                label = record[cluster_column]
                if label is None or (isinstance(label, str) and not label.strip()):
                    raise InputError(
                        escape(
                            f"{path}: record {number} has an empty cluster label in field "
                            f"{cluster_column!r}; "
                        )
                        + "give every record a label, or leave out {cluster_column}",
                        param="cluster_column",
                    )
                row["cluster"] = str(label)
            rows.append(row)
        if missing:
            notes.append(
                f"{path}: {missing:,} record{'s' if missing != 1 else ''} without a preference "
                "(the judge gave none) left out"
            )
        for field, count in unnamed.items():
            if count:
                notes.append(
                    f"{path}: {count:,} record{'s' if count != 1 else ''} with no "
                    f"{field} ({IDENTITIES[field]}: null or empty) left out"
                )
    if not rows:
        raise InputError(f"{', '.join(map(str, paths))}: no annotated record to read")
    if len(baselines) > 1:
        notes.append(
            f"the records compare against {len(baselines)} baselines "
            f"({', '.join(sorted(baselines)[:3])}): scores of models judged against different "
            "baselines are not paired"
        )
    notes.insert(
        0, f"AlpacaEval annotations: score = preference - 1 against {sorted(baselines)[0]}"
    )
    return LongScores(
        frame=pd.DataFrame(rows),
        source=", ".join(map(str, paths)),
        columns={
            "model": "generator_2",
            "item_id": "instruction",
            "score": "preference - 1",
            "task": None,
            "cluster": cluster_column,
        },
        notes=tuple(notes),
    )


def _load(path: Path) -> list[Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{path}: not readable as JSON ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: an AlpacaEval annotations file is a JSON list of records")
    return data


def _text(value: object, field: str, path: Path, number: int) -> str | None:
    """The text of an identity field, None when null or blank; other types are refused."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # a numeric name or instruction is still its text
    raise InputError(
        f"{path}: record {number} has {field} {json.dumps(value)[:60]}; AlpacaEval records "
        f"name {IDENTITIES[field]} as text"
    )


# The AlpacaEval row of the registry (evalgap.io.registry).


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is an annotations file, or a directory holding one."""
    if path.is_dir():
        return any(is_annotations_path(p) for p in path.rglob(FILE))
    return is_annotations_path(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read annotations files as ``options`` say (:func:`read_annotations`)."""
    return read_annotations(paths, cluster_column=options.cluster_column)
