"""Read arena-style battle tables: one row per battle between two models.

Columns ``model_a``, ``model_b`` and ``winner`` (Chatbot Arena's spelling: ``model_a``,
``model_b``, ``tie`` or ``tie (bothbad)``; ``a``/``b`` are accepted too), and optionally
``question_id`` and ``category``. CSV/TSV/Parquet/JSONL, or a JSON array of battle records
(LMArena's ``clean_battle_<date>.json``, read record by record), optionally gzipped. A battle
of a model with itself carries no information: such rows are left out and counted in the
notes.

Every other column is kept for style control: the flat ones as they are, and FastChat's
nested ``conv_metadata`` (in a JSON array, JSON Lines or Parquet) flattened by
:func:`flatten_metadata`: a count of one answer keeps its key (``header_count_a``; a mapping
of counts, ``{"h1": 2, "h2": 1}``, becomes its sum, as FastChat's style control takes it), a
key with the side inside moves the side to the end (``sum_assistant_a_tokens`` becomes
``sum_assistant_tokens_a``), and two names of LMArena's style control are added:
``length_a``/``length_b`` (the answers' tokens) and ``markdown_a``/``markdown_b`` (headers,
list items and bold spans together). ``--style length,markdown`` thus works on a real
``clean_battle`` file, and ``--style length,header_count,list_count,bold_count`` takes
LMArena's four covariates one by one.
"""

from __future__ import annotations

import codecs
import functools
import gzip
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from evalgap._lazy import LazyModule
from evalgap.errors import InputError, escape
from evalgap.io import tables
from evalgap.io._files import PathArg
from evalgap.stats._types import FloatArray, IntArray

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = LazyModule("pandas")

REQUIRED = ("model_a", "model_b", "winner")
METADATA = "conv_metadata"
# FastChat's markdown counts of each answer (fastchat/serve/monitor/add_markdown_info.py)
MARKDOWN = ("header_count", "list_count", "bold_count")
MAX_NAMES = 1000  # field names remembered for a message; a file may not grow memory by them
NAMES_FROM = 100  # the records whose field names are remembered
OPTIONAL = ("question_id", "category")
FORMATS = ("csv", "tsv", "parquet", "jsonl", "json")
# A JSON array is read in chunks; one record longer than this is an error, not a blow-up.
MAX_RECORD_BYTES = 1 << 24
CHUNK_BYTES = 1 << 20
OUTCOMES = {
    "model_a": 1.0,
    "a": 1.0,
    "model_b": 0.0,
    "b": 0.0,
    "tie": 0.5,
    "tie (bothbad)": 0.5,
}


@dataclass(frozen=True)
class BattleTable:
    """Battles as integer codes (see the module docstring).

    Attributes
    ----------
    models : tuple of str
        Model names; codes index them.
    model_a, model_b : numpy.ndarray
        The two models of each battle.
    outcome : numpy.ndarray
        1 when model_a won, 0 when model_b won, 0.5 for a tie.
    question, category : numpy.ndarray or None
        The optional columns, as read.
    source : str
        What was read.
    notes : tuple of str
        What was left out and why.
    style : numpy.ndarray or None
        With ``style`` names: one column per name, each battle's difference between the
        two answers (a minus b; see :func:`read_battles`).
    """

    models: tuple[str, ...]
    model_a: IntArray
    model_b: IntArray
    outcome: FloatArray
    question: np.ndarray | None
    category: np.ndarray | None
    source: str
    notes: tuple[str, ...] = ()
    style: np.ndarray | None = None


def read_battles(
    data: PathArg | pd.DataFrame,
    *,
    name: str | None = None,
    fmt: str | None = None,
    prompt_column: str = "question_id",
    style: Sequence[str] = (),
) -> BattleTable:
    """Read a battle table from a file path or a DataFrame.

    ``prompt_column`` names the column whose values group battles fought on one prompt
    (``question`` of the table; ``"none"``: no grouping); a column named other than
    ``question_id`` must be there.

    ``style`` names covariates of style control: for a name ``S``, a numeric column ``S``
    holds the difference between the two answers itself (a minus b); otherwise columns
    ``S_a`` and ``S_b`` hold each answer's value (>= 0: a length, a count of headers) and the
    covariate is their normalized difference ``(S_a - S_b) / (S_a + S_b)`` (0 when both are
    0), as LMArena's style control takes it.

    ``fmt`` forces the file format (``csv``, ``tsv``, ``parquet``, ``jsonl`` or ``json``, a
    JSON array of records); by default it comes from the name, and a file that opens with
    ``[`` is read as a JSON array.

    Examples
    --------
    >>> import pandas as pd
    >>> t = read_battles(pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "x"],
    ...     "winner": ["model_a", "tie", "model_b"]}))
    >>> t.models, t.outcome.tolist(), t.notes
    (('x', 'y'), [1.0, 0.5], ('1 battle of a model with itself left out (position 2)',))
    """
    if fmt is not None and fmt not in FORMATS:
        raise InputError(
            "{fmt} does not apply to battles; give one of " + ", ".join(FORMATS),
            param="fmt",
            fmt=fmt,
        )
    from_file = isinstance(data, (str, Path))
    json_array = from_file and _is_json_array(Path(data), fmt)
    if from_file:
        source = str(data)
        if json_array:
            wanted = {n + side for n in style for side in ("", "_a", "_b")}
            frame = _read_json_array(Path(data), {*REQUIRED, *OPTIONAL, prompt_column}, wanted)
        else:
            frame = tables.read_frame(data, _table_format(Path(data), fmt), as_text=True)
            frame = _with_metadata(frame)
    elif isinstance(data, pd.DataFrame):
        source, frame = name or "DataFrame", _with_metadata(data)
    else:
        raise InputError(
            "{battles!b}"
            + escape(f" must be a file path or a DataFrame; got {type(data).__name__}"),
            param="battles",
        )
    if prompt_column not in ("question_id", "none") and prompt_column not in frame.columns:
        raise InputError(
            "{cluster_column}"
            + escape(f": the battles have no column {prompt_column!r}; name one of theirs")
            + " or none",
            param="cluster_column",
            cluster_column=prompt_column,
        )
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(
            f"{source}: missing column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} (found: {', '.join(map(str, frame.columns[:20]))}); a "
            "battle table needs model_a, model_b and winner"
        )

    def where(i: int) -> str:
        """A row as the user finds it: the line of a table (after its header), the record
        of a JSON array, the position in a DataFrame."""
        if not from_file:
            return f"position {i}"
        return f"record {i + 1}" if json_array else f"row {i + 2}"

    for column in ("model_a", "model_b", "winner"):
        blank = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if blank.any():
            row = int(np.flatnonzero(blank.to_numpy())[0])
            raise InputError(f"{source}, {where(row)}: {column} is empty; every battle needs it")
    winner = frame["winner"].astype(str).str.strip().str.lower()
    outcome = winner.map(OUTCOMES)
    unknown = outcome.isna().to_numpy()
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise InputError(
            f"{source}, {where(row)}: winner {frame['winner'].iloc[row]!r} is not one of "
            "model_a, model_b, tie, tie (bothbad)"
        )
    a = frame["model_a"].astype(str).to_numpy()
    b = frame["model_b"].astype(str).to_numpy()
    notes = []
    same = a == b
    if same.any():
        rows = np.flatnonzero(same)[:3]
        count = int(same.sum())
        notes.append(
            f"{count:,} battle{'s' if count != 1 else ''} of a model with itself left out "
            f"({', '.join(where(int(r)) for r in rows)}{', ...' if count > len(rows) else ''})"
        )
    keep = ~same
    if not keep.any():
        raise InputError(f"{source}: no battle between two different models")
    codes, models = pd.factorize(np.concatenate([a[keep], b[keep]]))
    n = int(keep.sum())
    optional = {
        column: frame[column].to_numpy()[keep] if column in frame.columns else None
        for column in (prompt_column, "category")
    }
    covariates = _style(frame, style, source, keep) if style else None
    return BattleTable(
        models=tuple(str(m) for m in models),
        model_a=codes[:n].astype(np.int64),
        model_b=codes[n:].astype(np.int64),
        outcome=outcome.to_numpy(dtype=float)[keep],
        question=None if prompt_column == "none" else optional[prompt_column],
        category=optional["category"],
        source=source,
        notes=tuple(notes),
        style=covariates,
    )


def _style(frame: pd.DataFrame, names: Sequence[str], source: str, keep: np.ndarray) -> np.ndarray:
    """The style covariates of the kept battles, one column per name (see read_battles)."""
    columns = []
    for name in names:
        if name in frame.columns:
            parts = [name]
        elif f"{name}_a" in frame.columns and f"{name}_b" in frame.columns:
            parts = [f"{name}_a", f"{name}_b"]
        else:
            offered = _style_names(frame.attrs.get("fields", frame.columns))
            raise InputError(
                "{style}"
                + escape(
                    f": {source} has no column {name!r}, nor {name + '_a'!r} and "
                    f"{name + '_b'!r}; name a column of the differences, or the pair of "
                    "columns of each answer's value"
                    + (f" (pairs in this file: {', '.join(offered)})" if offered else "")
                ),
                param="style",
                style=name,
            )
        values = []
        for column in parts:
            raw = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)[keep]
            bad = ~np.isfinite(raw) | (raw < 0 if len(parts) == 2 else False)
            if bad.any():
                raise InputError(
                    "{style}"
                    + escape(
                        f": {source}, column {column!r}: battle {int(np.flatnonzero(bad)[0]) + 1} "
                        f"has {frame[column].to_numpy()[keep][np.flatnonzero(bad)[0]]!r}, not "
                        + ("a number >= 0" if len(parts) == 2 else "a number")
                        + f" ({int(bad.sum()):,} such battles); fix or drop them"
                    ),
                    param="style",
                    style=name,
                )
            values.append(raw)
        if len(values) == 1:
            columns.append(values[0])
        else:
            total = values[0] + values[1]
            columns.append(np.divide(values[0] - values[1], total, out=np.zeros_like(total),
                                     where=total > 0))  # fmt: skip
    return np.column_stack(columns)


def _style_names(columns: Iterable[object]) -> list[str]:
    """The style names a table offers as pairs (``NAME`` for columns ``NAME_a`` and
    ``NAME_b``), at most 12."""
    names = {str(c) for c in columns}
    pairs = sorted(
        n[:-2] for n in names if n.endswith("_a") and n[:-2] + "_b" in names and n != "model_a"
    )
    return pairs[:12] + (["..."] if len(pairs) > 12 else [])


def _count(value: object) -> float | None:
    """A count as FastChat writes one: a number, or a mapping of numbers (their sum); None
    for anything else."""
    if type(value) is int or type(value) is float:  # the common case, first
        return float(value)
    if isinstance(value, dict):
        total = 0.0
        for part in value.values():
            if isinstance(part, bool) or not isinstance(part, (int, float)):
                return None
            total += part
        return total
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


@functools.lru_cache(maxsize=64)
def _keys_of(wanted: frozenset[str]) -> tuple[str, ...]:
    """The metadata keys a set of wanted columns is read from: each name as it is and with
    its side moved inside (``sum_assistant_tokens_a`` from ``sum_assistant_a_tokens``), and
    the sources of ``length_*`` and ``markdown_*``."""
    need = set(wanted)
    for side in ("_a", "_b"):
        if "length" + side in wanted:
            need.add("sum_assistant_tokens" + side)
        if "markdown" + side in wanted:
            need.update(name + side for name in MARKDOWN)
    keys = set(need)
    for name in need:
        stem, side = name[:-2], name[-2:]
        if side in ("_a", "_b"):
            words = stem.split("_")
            keys.update(
                "_".join(words[:i]) + side + "_" + "_".join(words[i:]) for i in range(1, len(words))
            )
    return tuple(sorted(keys))


@functools.lru_cache(maxsize=4096)  # the same few keys in every record
def _flat_name(key: str) -> str:
    """A metadata key with the answer's side moved to the end (``context_a_tokens`` ->
    ``context_tokens_a``), so ``NAME_a``/``NAME_b`` pair it for style control."""
    inside = re.fullmatch(r"(.+)_([ab])_(.+)", key)
    return f"{inside[1]}_{inside[3]}_{inside[2]}" if inside else key


def flatten_metadata(
    metadata: object, wanted: frozenset[str] | None = None
) -> dict[str, float | None]:
    """FastChat's ``conv_metadata`` of one battle as flat columns (see the module); with
    ``wanted``, those columns (and what they are computed from) only.

    Examples
    --------
    >>> flat = flatten_metadata({"sum_assistant_a_tokens": 120, "sum_assistant_b_tokens": 80,
    ...     "header_count_a": {"h1": 1, "h2": 2}, "header_count_b": {"h1": 0, "h2": 0},
    ...     "turns": 1})
    >>> flat["length_a"], flat["sum_assistant_tokens_b"], flat["header_count_a"], flat["turns"]
    (120.0, 80.0, 3.0, 1.0)
    """
    if not isinstance(metadata, dict):
        return {}
    flat: dict[str, float | None] = {}
    if wanted is None:
        pairs: Iterable[tuple[Any, Any]] = metadata.items()
    else:  # look the few wanted keys up rather than walk every key of every record
        pairs = ((k, metadata[k]) for k in _keys_of(wanted) if k in metadata)
    for key, value in pairs:
        if not isinstance(key, str) or isinstance(value, (str, list)) or value is None:
            continue
        flat[_flat_name(key)] = _count(value)
    for side in ("_a", "_b"):
        if "sum_assistant_tokens" + side in flat:
            flat["length" + side] = flat["sum_assistant_tokens" + side]
        counts = [flat.get(name + side, -1.0) for name in MARKDOWN]
        if all(c != -1.0 for c in counts):
            total = None if any(c is None for c in counts) else sum(c or 0.0 for c in counts)
            flat["markdown" + side] = total
    return flat


def _with_metadata(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``conv_metadata`` column (mappings, or JSON text in a CSV cell)
    flattened into columns beside it; a column of the frame's own keeps its place."""
    if METADATA not in frame.columns:
        return frame

    def parsed(value: object) -> object:
        if isinstance(value, str) and len(value) <= MAX_RECORD_BYTES:
            try:
                return json.loads(value)
            except (ValueError, RecursionError):
                return None
        return value

    flat = pd.DataFrame([flatten_metadata(parsed(v)) for v in frame[METADATA]], index=frame.index)
    extra = [c for c in flat.columns if c not in frame.columns]
    return pd.concat([frame, flat[extra]], axis=1) if extra else frame


def _kept(record: dict[str, Any], wanted: set[str] | None, flatten: bool) -> dict[str, Any]:
    """The fields of one JSON record kept as columns: its scalars and (``flatten``) its
    flattened ``conv_metadata`` (the record's own field first), only the ``wanted`` ones if
    given."""
    fields = {
        k: v
        for k, v in record.items()
        if (wanted is None or k in wanted) and (v is None or isinstance(v, (str, int, float, bool)))
    }
    if flatten and isinstance(record.get(METADATA), dict):
        some = None if wanted is None else frozenset(wanted)
        for k, v in flatten_metadata(record[METADATA], some).items():
            if k not in fields and (wanted is None or k in wanted):
                fields[k] = v
    return fields


def _collect(
    value: dict[str, Any],
    wanted: set[str] | None,
    flatten: bool,
    record: int,
    columns: dict[str, tuple[list[int], list[Any]]],
    seen: set[str],
    path: Path,
) -> None:
    """Add the kept fields of record number ``record`` (1-based) to ``columns``."""
    fields = _kept(value, wanted, flatten)
    if record <= NAMES_FROM and len(seen) < MAX_NAMES:  # the file's fields, for a message
        named = fields if wanted is None and flatten else _kept(value, None, True)
        seen.update(list(named)[: MAX_NAMES - len(seen)])
    for c, v in fields.items():
        if c not in columns:
            if len(columns) >= MAX_NAMES:
                raise InputError(
                    escape(
                        f"{path}, record {record:,}: more than {MAX_NAMES:,} different fields "
                        "in the records; not a battle file"
                    ),
                    param="battles",
                )
            columns[c] = ([], [])
        columns[c][0].append(record - 1)
        columns[c][1].append(v)


def _opened(path: Path) -> IO[bytes] | gzip.GzipFile:
    raw = open(path, "rb")
    head = raw.read(2)
    raw.seek(0)
    if head != b"\x1f\x8b":
        return raw
    unzipped = gzip.GzipFile(fileobj=raw)
    unzipped.myfileobj = raw  # type: ignore[assignment]  # closed with it
    return unzipped


def _is_json_array(path: Path, fmt: str | None) -> bool:
    """Whether to read ``path`` as a JSON array: forced, or (format not forced to a table)
    its first non-blank byte is ``[``."""
    if fmt == "json":
        return True
    if fmt not in (None, "jsonl") or not path.is_file():
        return False
    try:
        with _opened(path) as handle:
            for _ in range(4096):  # byte by byte: a cut gzip stream still shows its start
                byte = handle.read(1)
                if byte not in b" \t\r\n" or not byte:
                    return byte == b"["
    except (OSError, EOFError):
        return False
    return False


def _table_format(path: Path, fmt: str | None) -> str | None:
    """The table format to read: as forced, or JSON Lines for a ``.json`` file that is no
    array (one record per line, as many exports name it)."""
    if fmt is None and path.name.lower().removesuffix(".gz").endswith(".json"):
        return "jsonl"
    return fmt


def _read_json_array(
    path: Path, battle: set[str] | None = None, style: set[str] | None = None
) -> pd.DataFrame:
    """Read a JSON array of battle records a chunk at a time into a frame of their fields.

    Every scalar field and the flattened ``conv_metadata`` (:func:`flatten_metadata`) is a
    column, or only the ``battle`` fields and the ``style`` ones (looked for in
    ``conv_metadata`` too, which is flattened only for them): memory is then bounded by
    those fields and one
    record (at most ``MAX_RECORD_BYTES``); the file is never held whole. The names of the
    fields of the first ``NAMES_FROM`` records (at most ``MAX_NAMES``) are in
    ``frame.attrs["fields"]``. Errors name the
    record (1-based) and what is wrong.
    """
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a battle file")
    # per field: the records (0-based) that have it, and its values there
    columns: dict[str, tuple[list[int], list[Any]]] = {}
    seen: set[str] = set()
    wanted = None if battle is None else battle | (style or set())
    flatten = battle is None or bool(style)
    decoder = json.JSONDecoder()
    text_of = codecs.getincrementaldecoder("utf-8")()
    buffer, position, record, started, finished = "", 0, 0, False, False
    try:
        with _opened(path) as handle:
            at_end = False
            while not finished:
                chunk = handle.read(CHUNK_BYTES)
                at_end = not chunk
                buffer = buffer[position:] + text_of.decode(chunk, final=at_end)
                position = 0
                while True:
                    while position < len(buffer) and buffer[position] in " \t\r\n,":
                        if buffer[position] == "," and not started:
                            break
                        position += 1
                    if position >= len(buffer):
                        break
                    if not started:
                        if buffer[position] != "[":
                            raise InputError(
                                f"{path}: not a JSON array of battles (it starts with "
                                f"{buffer[position]!r}); give a JSON array, JSON Lines or a table"
                            )
                        started, position = True, position + 1
                        continue
                    if buffer[position] == "]":
                        finished = True
                        break
                    try:
                        value, end = decoder.raw_decode(buffer, position)
                    except json.JSONDecodeError as exc:
                        if at_end:
                            raise InputError(
                                f"{path}, record {record + 1:,}: not valid JSON ({exc.msg}); "
                                "the array is damaged or cut short"
                            ) from None
                        if len(buffer) - position > MAX_RECORD_BYTES:
                            raise InputError(
                                f"{path}, record {record + 1:,}: longer than "
                                f"{MAX_RECORD_BYTES:,} bytes; not a battle record"
                            ) from None
                        break  # the record continues in the next chunk
                    record += 1
                    if not isinstance(value, dict):
                        raise InputError(
                            f"{path}, record {record:,}: a {type(value).__name__}, not an "
                            "object with model_a, model_b and winner"
                        )
                    _collect(value, wanted, flatten, record, columns, seen, path)
                    position = end
                if at_end and not finished:
                    raise InputError(f"{path}: the JSON array is not closed (cut short?)")
    except InputError:
        raise
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as exc:
        raise InputError(f"{path}: cannot be read as JSON ({type(exc).__name__}: {exc})") from None
    if not record:
        raise InputError(f"{path}: the JSON array holds no battle")
    index = pd.RangeIndex(record)
    frame = pd.DataFrame(
        {
            c: pd.Series(columns[c][1], index=columns[c][0], dtype=object).reindex(index)
            if c in columns
            else pd.Series(None, index=index, dtype=object)
            for c in dict.fromkeys((*REQUIRED, *columns))
        }
    )
    frame.attrs["fields"] = sorted(seen)
    return frame
