"""Follow evaluation logs while they grow: lm-evaluation-harness samples and inspect_ai logs.

``LogFollower(paths).poll()`` returns the records appended since the last poll, as
``(model, task, item, score, tokens)`` tuples (``tokens``: what the item cost the model, from
inspect's per-sample ``model_usage``; None when the log does not say).

Each lm-eval ``samples_<task>_<stamp>.jsonl`` file is read from the byte offset where the
previous poll stopped, and only up to its last complete line (a line being written stays for
the next poll), so a poll costs the new bytes, not the log. New files (a new task, a new
model's folder) are picked up at each poll. The model and task of a file, its metric
(``metric=`` or lm-eval's default for the task) and the filter labelling (``task:filter``
when records name a filter other than ``none``) follow :mod:`evalgap.io.lm_eval`.

inspect_ai logs change in place. When a log's size or modification time changed, an ``.eval``
archive has only its new sample members decompressed and parsed; a ``.json`` log, which
inspect rewrites whole, is parsed again (:func:`evalgap.io.inspect_logs.read_new_samples`). A
log still starting, with no sample yet, waits for the next look. An item is passed on once
it has all the epochs the run was configured for (their mean, inspect's default reducer), and
only once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evalgap.errors import InputError
from evalgap.io import inspect_logs, lm_eval

MAX_LINE = 64 * 2**20  # a longer line is a broken file, not a record still being written


@dataclass
class _Cursor:
    sample: lm_eval.SampleFile
    offset: int = 0
    metric: str | None = None
    line: int = 0


@dataclass
class LogFollower:
    """Read the records lm-eval appends to sample files under ``paths`` (see the module).

    Attributes
    ----------
    paths : list of Path
        Directories (or files) to follow.
    metric : str, optional
        The per-item metric (default: lm-eval's default for each task).
    bytes_read : int
        Bytes read over all polls (each byte once).
    """

    paths: list
    metric: str | None = None
    bytes_read: int = 0
    _cursors: dict = field(default_factory=dict)
    _inspect_seen: dict = field(default_factory=dict)  # path -> (size, mtime)
    _inspect_members: dict = field(default_factory=dict)  # .eval path -> members read
    _inspect_runs: dict = field(default_factory=dict)  # (model, task, item) -> run scores
    _inspect_tokens: dict = field(default_factory=dict)  # (model, task, item) -> tokens
    _inspect_fed: set = field(default_factory=set)  # (model, task, item) passed on

    def poll(self) -> list[tuple]:
        """Return the new records since the last poll, in file order."""
        out = []
        for sample in self._discover():
            cursor = self._cursors.setdefault(sample.path, _Cursor(sample))
            out.extend(self._read_new(cursor))
        for path in self._inspect_logs():
            out.extend(self._read_inspect(path))
        return out

    def _inspect_logs(self) -> list:
        found = []
        for path in map(Path, self.paths):
            files = (
                [path]
                if path.is_file()
                else sorted(p for pattern in ("*.eval", "*.json") for p in path.rglob(pattern))
            )
            found += [
                f
                for f in files
                if f.name not in inspect_logs.INDEX_FILES and inspect_logs.is_inspect_path(f)
            ]
        return found

    def _read_inspect(self, path: Path) -> list:
        stat = path.stat()
        mark = (stat.st_size, stat.st_mtime_ns)
        if self._inspect_seen.get(path) == mark:
            return []
        seen = self._inspect_members.setdefault(path, set())
        frame, epochs, tokens, members = inspect_logs.read_new_samples(path, seen)
        self._inspect_seen[path] = mark
        seen |= members
        self.bytes_read += stat.st_size if path.suffix != ".eval" else 0
        if frame is None:
            return []
        out = []
        for (model, task, item), group in frame.groupby(["model", "task", "item_id"], sort=False):
            key = (str(model), str(task), str(item))
            if key in self._inspect_fed:
                continue
            runs = self._inspect_runs.setdefault(key, {})
            runs.update(zip(group["run"].astype(str), group["score"].astype(float), strict=True))
            if str(item) in tokens:
                self._inspect_tokens[key] = self._inspect_tokens.get(key, 0.0) + tokens[str(item)]
            if len(runs) < epochs:
                continue  # an item passes once, with all its epochs
            self._inspect_fed.add(key)
            out.append((*key, float(np.mean(list(runs.values()))), self._inspect_tokens.get(key)))
        return out

    def _discover(self) -> list:
        found = []
        for path in map(Path, self.paths):
            if not path.exists():
                raise InputError(f"{path}: no such file or directory")
            files = [path] if path.is_file() else sorted(path.rglob("samples_*.jsonl"))
            for f in files:
                if f in self._cursors:
                    found.append(self._cursors[f].sample)
                    continue
                match = lm_eval.SAMPLE_FILE.match(f.name)
                if match is None:
                    continue
                found.append(
                    lm_eval.SampleFile(
                        f, lm_eval.folder_model(f.parent.name), match["task"], match["stamp"]
                    )
                )
        return found

    def _read_new(self, cursor: _Cursor) -> list:
        path = cursor.sample.path
        with open(path, "rb") as handle:
            handle.seek(cursor.offset)
            chunk = handle.read()
        end = chunk.rfind(b"\n")
        if end < 0:
            if len(chunk) > MAX_LINE:
                raise InputError(f"{path}: a line longer than {MAX_LINE >> 20} MiB")
            return []
        complete = chunk[: end + 1]
        cursor.offset += len(complete)
        self.bytes_read += len(complete)
        out = []
        for raw in complete.splitlines():
            cursor.line += 1
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError as exc:
                raise InputError(f"{path}: line {cursor.line} is not valid JSON ({exc})") from None
            if not isinstance(record, dict) or "doc_id" not in record:
                raise InputError(f"{path}: line {cursor.line} has no doc_id; not an lm-eval record")
            if cursor.metric is None:
                cursor.metric = self.metric or lm_eval.default_metric(
                    cursor.sample.task,
                    [m for m in record.get("metrics", []) if m in record and m != "bypass"]
                    or [
                        k
                        for k, v in record.items()
                        if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "doc_id"
                    ],
                )
            value = record.get(cursor.metric)
            if isinstance(value, bool):
                value = float(value)
            if not isinstance(value, (int, float)):
                raise InputError(
                    f"{path}: line {cursor.line} has no numeric {cursor.metric!r} (name the "
                    "per-item metric with metric=)"
                )
            task = cursor.sample.task
            flt = record.get("filter")
            if flt not in (None, "none"):
                task = f"{task}:{flt}"
            out.append((cursor.sample.model, task, str(record["doc_id"]), float(value), None))
        return out
