"""Read inspect_ai evaluation logs: JSON logs and the ``.eval`` (zip) format.

A log holds one task run for one model: ``eval.task``, ``eval.model`` and ``samples``, each
with an ``id``, an ``epoch`` and ``scores`` keyed by scorer name. In a ``.eval`` archive the
header is ``header.json`` (``_journal/start.json`` while a run is in progress) and each sample
is ``samples/<id>_epoch_<n>.json``.

Score values: ``C``/``I``/``P``/``N`` (correct, incorrect, partial, no answer) map to
1/0/0.5/0 by default (``value_map`` changes that); numbers and booleans are used as they are.
With several scorers, ``scorer`` names the one to use (default: the only one, else the first,
said in the notes). Epochs are runs of the same item: they are averaged per item, never
counted as items.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd

from evalgap.errors import InputError, first_line
from evalgap.io._files import expand
from evalgap.scores import LongScores

DEFAULT_VALUE_MAP = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def is_inspect_path(path: Path) -> bool:
    """True for a ``.eval`` archive or a JSON file that looks like an inspect_ai log."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json" or not path.is_file():
        return False
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return b'"eval"' in head and (b'"samples"' in head or b'"version"' in head)


def read_inspect(paths, *, scorer: str | None = None, value_map: dict | None = None) -> LongScores:
    """Read one or more inspect_ai logs (``.json`` or ``.eval``) into the long layout."""
    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    mapping = dict(DEFAULT_VALUE_MAP if value_map is None else value_map)
    frames, notes = [], []
    logs = expand(
        paths,
        globs=("*.eval", "*.json"),
        what="inspect_ai logs (.eval or .json)",
        accept=is_inspect_path,
    )
    for path in logs:
        header, samples = _read_eval(path) if path.suffix == ".eval" else _read_json(path)
        info = header.get("eval") or {}
        model, task = info.get("model"), info.get("task")
        if not model or not task:
            raise InputError(f"{path}: no eval.model / eval.task in the log header")
        if not samples:
            raise InputError(
                f"{path}: the log has no samples (was it written with samples "
                "excluded, or is the run still starting?)"
            )
        rows, chosen = [], scorer
        for sample in samples:
            scores = sample.get("scores") or {}
            if chosen is None:
                if not scores:
                    raise InputError(f"{path}: sample {sample.get('id')!r} has no scores")
                chosen = next(iter(scores))
                if len(scores) > 1:
                    notes.append(
                        f"{path.name}: scorers {', '.join(scores)}; using {chosen!r} "
                        "(choose with --scorer)"
                    )
            if chosen not in scores:
                raise InputError(
                    f"{path}: sample {sample.get('id')!r} has no scorer {chosen!r}; "
                    f"scorers: {', '.join(scores) or 'none'}"
                )
            value = scores[chosen].get("value") if isinstance(scores[chosen], dict) else None
            rows.append(
                (
                    str(sample.get("id")),
                    str(sample.get("epoch", 1)),
                    _score(value, mapping, path, sample.get("id")),
                )
            )
        frame = pd.DataFrame(rows, columns=["item_id", "run", "score"])
        frame.insert(0, "task", str(task))
        frame.insert(0, "model", str(model))
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    return LongScores(
        frame=frame,
        source=", ".join(map(str, paths)),
        columns={
            "item_id": "samples[].id",
            "run": "samples[].epoch",
            "score": "samples[].scores.<scorer>.value",
        },
        notes=tuple(notes),
    )


def _score(value, mapping, path, sample_id):
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value in mapping:
        return mapping[value]
    if value is None:
        return None
    if isinstance(value, dict):
        raise InputError(
            f"{path}: sample {sample_id!r} scores a dict of values "
            f"({', '.join(value)}); evalgap needs one number per item"
        )
    return str(value)  # left for the alignment report to count as non-numeric


def _read_json(path: Path):
    try:
        data = json.loads(path.read_bytes())
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except ValueError as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or "eval" not in data:
        raise InputError(f"{path}: not an inspect_ai log (no 'eval' header)")
    return data, data.get("samples") or []


def _read_eval(path: Path):
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            header_name = next(
                (n for n in ("header.json", "_journal/start.json") if n in names), None
            )
            if header_name is None:
                raise InputError(f"{path}: no header.json in the .eval archive")
            header = json.loads(archive.read(header_name))
            samples = [
                json.loads(archive.read(n))
                for n in sorted(names)
                if n.startswith("samples/") and n.endswith(".json")
            ]
    except ValueError as exc:
        raise InputError(f"{path}: an archive member is not valid JSON ({exc})") from None
    except InputError:
        raise
    except Exception as exc:  # zipfile raises several types for a damaged archive
        raise InputError(f"{path}: not a valid .eval archive (zip): {first_line(exc)}") from None
    return header, samples
