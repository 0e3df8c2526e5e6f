"""Follow evaluation logs while they grow: lm-evaluation-harness samples and inspect_ai logs.

``LogFollower(paths).poll()`` returns the records appended since the last poll, as
``(model, task, item, score, tokens)`` tuples (``tokens``: what the item cost the model, from
inspect's per-sample ``model_usage``; None when the log does not say). ``notes`` says what
the follower waits for and what it left out; ``models`` names every model a log names (with
or without a record yet); ``task_items`` the items of each task when a log says.

Each lm-eval ``samples_<task>_<stamp>.jsonl`` file is read from the byte offset where the
previous poll stopped, in chunks of at most ``CHUNK`` bytes, and only up to its last complete
line (a line being written stays for the next poll; a line longer than ``MAX_LINE`` is an
error), so a poll costs the new bytes, not the log, and holds at most a chunk and a line in
memory. New files (a new task, a new model's folder) are picked up at each poll. A model
run again in the same folder writes a file with a newer stamp: as the loaders do
(:func:`evalgap.io.lm_eval.run_time`), the latest run of each model and task is followed
(said). When a newer run appears after an earlier one was followed, the earlier run's
records are withdrawn (``replaced`` lists them for the monitor, and a note names the newer
file) and the newer run's are passed on as it writes them. A file truncated or rewritten in
place (a restarted run: smaller than the place reached, a new file identity, or other first
bytes) is read again from the start. An item is passed on once per model and task: records
of items already passed (a rewritten log) are not counted twice, and the notes say how
many. The model and task of a file, its metric (``metric=`` or lm-eval's default for
the task) and the filter labelling (``task:filter`` when records name a filter other than
``none``) follow :mod:`evalgap.io.lm_eval`.

inspect_ai logs change in place. When a log's size or modification time changed, an ``.eval``
archive has only its new sample members decompressed and parsed; a ``.json`` log, which
inspect rewrites whole, is parsed again (:func:`evalgap.io.inspect_logs.read_new_samples`). A
log still starting, with no sample yet, or one that cannot be read yet (a file still being
copied) is waited for, and said. With inspect's default reducer (``mean``) an item is passed
on once it has all the epochs the run was configured for (their mean), and only once; when
the run has ended, an item missing epochs (errored or never run) is passed with the mean of
the epochs it has, as the loaders score it, and counted in the notes. With another reducer
the items are passed when the run ends, with the values inspect reduced (``reducer=``
chooses among several, as ``--reducer`` does for the loaders).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, cast

import numpy as np

from evalgap.errors import InputError, escape
from evalgap.io import inspect_logs, lm_eval
from evalgap.io._files import PathArg

MAX_LINE = 64 * 2**20  # a longer line is a broken file, not a record still being written
CHUNK = 8 * 2**20  # bytes read at a time from a growing file
HEAD = 4096  # bytes of a file's start that tell a rewritten file from a grown one

# An item passed on: (model, task, item id).
_ItemKey: TypeAlias = tuple[str, str, str]


@dataclass
class _Cursor:
    """The place reached in one lm-eval samples file."""

    path: str
    model: str
    task: str
    stamp: str
    offset: int = 0
    line: int = 0
    metric: str | None = None
    identity: tuple | None = None  # (device, inode) when last read
    head: str = ""  # sha256 of the first ``head_length`` bytes
    head_length: int = 0


class LogFollower:
    """Read the records evaluation logs under ``paths`` gain between polls (see the module).

    Parameters
    ----------
    paths : list of path
        Directories (or files) to follow; one that does not exist yet is waited for.
    metric : str, optional
        lm-eval: the per-item metric (default: lm-eval's default for each task).
    scorer, score_key, reducer : str, optional
        inspect_ai: the scorer, the entry of a dict-valued score and the epoch reducer, as
        the loaders take them.

    Attributes
    ----------
    bytes_read : int
        Bytes of lm-eval logs read over all polls (each byte once).
    models : set of str
        Every model a followed log names, with or without a record yet.
    task_items : dict
        Items of each task, when a log says (inspect's dataset size; lm-eval's results).
    """

    def __init__(
        self,
        paths: Iterable[PathArg],
        *,
        metric: str | None = None,
        scorer: str | None = None,
        score_key: str | None = None,
        reducer: str | None = None,
    ) -> None:
        self.paths = [str(p) for p in paths]
        self.metric, self.scorer, self.score_key, self.reducer = metric, scorer, score_key, reducer
        self.bytes_read = 0
        self.models: set[str] = set()
        self.task_items: dict[str, int] = {}
        self._cursors: dict[str, _Cursor] = {}  # path -> _Cursor
        self._following: dict[str, str] = {}  # "folder|task" -> path of the latest run's file
        self._fed: set[_ItemKey] = set()  # (model, task, item) passed on
        self._repeated: dict = {}  # path -> records of items already passed
        self._origin: dict = {}  # (model, task, item) of inspect logs -> the log that passed it
        self._inspect_seen: dict = {}  # path -> [size, mtime_ns]
        self._inspect_members: dict = {}  # .eval path -> members read
        self._inspect_notes: dict = {}  # path -> the notes of its reads
        self._inspect_runs: dict = {}  # (model, task, item) -> {run: score}
        self._inspect_tokens: dict = {}  # (model, task, item) -> tokens
        self._short_epochs: dict = {}  # path -> [items passed with fewer epochs, epochs]
        self._non_numeric: dict = {}  # path -> samples with a value that is no number
        self._events: dict = {}  # key -> a note that stays (a switch of run, a rewrite)
        self._waiting: dict = {}  # path -> what is waited for (cleared when it comes)
        self._failure: str | None = None  # the error that stopped a poll half way
        # runs withdrawn by the last poll (a newer run of the model and task appeared):
        # (model, the task labels its items were passed under)
        self.replaced: list[tuple[str, frozenset[str]]] = []

    @property
    def notes(self) -> list[str]:
        """What the follower waits for, what it left out or read again (one line each)."""
        out = list(self._events.values())
        for notes in self._inspect_notes.values():
            out += notes
        for path, count in self._repeated.items():
            if count:
                out.append(
                    f"{Path(path).name}: {count:,} record{'s' if count != 1 else ''} of items "
                    "already counted (a rewritten log or a re-run) not counted again"
                )
        for path, (count, epochs) in self._short_epochs.items():
            out.append(
                f"{Path(path).name}: {count:,} item{'s' if count != 1 else ''} with fewer than "
                f"the run's {epochs} epochs (the run ended without them) scored by the mean of "
                "the epochs each has, as the loaders score them"
            )
        for path, count in self._non_numeric.items():
            out.append(
                f"{Path(path).name}: {count:,} sample{'s' if count != 1 else ''} whose score "
                "is not a number left out"
            )
        return list(dict.fromkeys(out + list(self._waiting.values())))

    @property
    def unread(self) -> list[str]:
        """Followed paths not there yet and logs not readable yet (they may name models)."""
        return [k for k in self._waiting if "|" not in k]

    def poll(self) -> list[tuple]:
        """Return the new records since the last poll, in file order.

        A log that cannot be read (a broken line, a score out of range) raises; the follower
        then stops there for good (each later poll raises the same), since what it had read
        in that poll is not returned: follow the logs anew, or from the last saved state.
        """
        if self._failure is not None:
            raise InputError(
                f"{self._failure} (this follower stopped there: follow the logs anew, or "
                "from the last saved state, once that is fixed)"
            )
        try:
            return self._poll()
        except InputError as exc:
            self._failure = str(exc)
            raise

    def _poll(self) -> list[tuple]:
        out = []
        self.replaced = []
        cursors = self._discover()
        for cursor in cursors:
            out.extend(self._read_new(cursor))
        logs = self._inspect_logs()
        for path in logs:
            out.extend(self._read_inspect(path))
        found = [c.path for c in cursors] + [str(p) for p in logs]
        for text in self.paths:
            key = f"empty|{text}"
            inside = text.rstrip(os.sep) + os.sep
            if not Path(text).exists() or any(f == text or f.startswith(inside) for f in found):
                self._waiting.pop(key, None)
            elif Path(text).is_dir():
                self._waiting[key] = (
                    f"waiting for logs in {text}: no lm-eval samples_<task>_<stamp>.jsonl file "
                    "or inspect_ai log there yet"
                )
            else:
                self._waiting[key] = (
                    f"{text}: not an lm-eval samples_<task>_<stamp>.jsonl file or an inspect_ai "
                    "log (yet); not read"
                )
        return out

    # --- lm-eval ------------------------------------------------------------------------

    def _existing(self) -> list[Path]:
        found = []
        for text in self.paths:
            path = Path(text)
            if path.exists():
                self._waiting.pop(text, None)
                found.append(path)
            else:
                self._waiting[text] = f"waiting for {text}: it does not exist yet"
        return found

    def _discover(self) -> list:
        latest: dict = {}
        runs: dict = {}
        for path in self._existing():
            files = [path] if path.is_file() else sorted(path.rglob("samples_*.jsonl"))
            for f in files:
                match = lm_eval.SAMPLE_FILE.match(f.name)
                if match is None or not f.is_file():
                    continue
                key = f"{f.parent}|{match['task']}"
                runs[key] = runs.get(key, 0) + 1
                stamp = lm_eval.run_time(match["stamp"])
                if key not in latest or stamp > lm_eval.run_time(latest[key][1]):
                    latest[key] = (f, match["stamp"], match["task"])
        folders: dict = {}  # model named by its folder -> the folders naming it
        for f, _, _ in latest.values():
            folders.setdefault(lm_eval.folder_model(f.parent.name), set()).add(f.parent)
        for c in self._cursors.values():
            folders.setdefault(lm_eval.folder_model(Path(c.path).parent.name), set()).add(
                Path(c.path).parent
            )
        out = []
        for key, (f, stamp, task) in latest.items():
            if runs[key] > 1:
                self._events[f"run|{key}"] = (
                    f"{lm_eval.folder_model(f.parent.name)} / {task}: {runs[key]} runs in "
                    f"{f.parent.name}; following the newer run ({stamp}), as the loaders "
                    "read the latest"
                )
            if self._following.get(key, str(f)) != str(f):
                self._replace(key, self._following[key], f)
            self._following[key] = str(f)
            cursor = self._cursors.get(str(f))
            if cursor is None:
                model = lm_eval.folder_model(f.parent.name)
                if len(folders[model]) > 1:  # bf16/<model> and fp8/<model>: as the loaders
                    plain = model
                    model = f"{plain} ({lm_eval._distinct_name(f.parent, folders[plain])})"
                    self._events[f"folders|{plain}"] = (
                        f"model {plain} has logs in {len(folders[plain])} folders; their runs "
                        f"are told apart by folder, e.g. {model!r}"
                    )
                cursor = _Cursor(str(f), model, task, stamp)
                self._cursors[str(f)] = cursor
            self.models.add(cursor.model)
            out.append(cursor)
        return out

    def _replace(self, key: str, earlier: str, newer: Path) -> None:
        """Withdraw the run followed so far (``earlier``) for ``newer``, another run of the
        model and task in the same folder: its items are passed on again from the newer
        file, and ``replaced`` tells the monitor which records to drop."""
        cursor = self._cursors.pop(earlier, None)
        if cursor is None:
            return
        labels = frozenset(
            k[1]
            for k in self._fed
            if k[0] == cursor.model and (k[1] == cursor.task or k[1].startswith(cursor.task + ":"))
        )
        self._fed = {k for k in self._fed if not (k[0] == cursor.model and k[1] in labels)}
        self.replaced.append((cursor.model, labels))
        self._events[f"rerun|{key}"] = (
            f"{cursor.model} / {cursor.task}: run again in {newer.parent.name}; following the "
            f"newer run's file {newer.name}, whose records replace those of "
            f"{Path(earlier).name} (as the loaders read the latest run): the pairs of "
            f"{cursor.model} start again from the newer run's items"
        )

    def _rewritten(self, cursor: _Cursor, stat: os.stat_result) -> bool:
        """Whether the file is no longer the one read up to ``cursor.offset``."""
        if not cursor.offset:
            return False
        if cursor.identity != (stat.st_dev, stat.st_ino) or stat.st_size < cursor.offset:
            return True
        with open(cursor.path, "rb") as handle:
            head = handle.read(cursor.head_length)
            handle.seek(cursor.offset - 1)
            last = handle.read(1)
        return hashlib.sha256(head).hexdigest() != cursor.head or last != b"\n"

    def _read_new(self, cursor: _Cursor) -> list:
        try:
            stat = os.stat(cursor.path)
        except FileNotFoundError:
            return []  # removed between discovery and reading: the next poll tells
        if self._rewritten(cursor, stat):
            self._events[f"rewrite|{cursor.path}"] = (
                f"{Path(cursor.path).name}: rewritten (a restarted run?); read again from the start"
            )
            cursor.offset = cursor.line = 0
            cursor.head, cursor.head_length = "", 0
        cursor.identity = (stat.st_dev, stat.st_ino)
        if stat.st_size == cursor.offset:
            return []
        out: list = []
        pending = b""
        with open(cursor.path, "rb") as handle:
            handle.seek(cursor.offset)
            while True:
                chunk = handle.read(CHUNK)
                if not chunk:
                    break
                data = pending + chunk
                end = data.rfind(b"\n")
                pending = data[end + 1 :]
                if len(pending) > MAX_LINE:
                    raise InputError(
                        f"{cursor.path}: line {cursor.line + 1} is longer than "
                        f"{MAX_LINE >> 20} MiB; not an lm-eval samples file"
                    )
                if end < 0:
                    continue
                complete = data[: end + 1]
                self._parse(cursor, complete, out)
                cursor.offset += len(complete)
                self.bytes_read += len(complete)
        if cursor.head_length < min(HEAD, cursor.offset):
            with open(cursor.path, "rb") as handle:
                head = handle.read(min(HEAD, cursor.offset))
            cursor.head, cursor.head_length = hashlib.sha256(head).hexdigest(), len(head)
        self._task_size(cursor)
        return out

    def _parse(self, cursor: _Cursor, complete: bytes, out: list) -> None:
        path = cursor.path
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
                    cursor.task,
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
                    escape(f"{path}: line {cursor.line} has no numeric {cursor.metric!r} ")
                    + "(name the per-item metric with {metric})",
                    param="metric",
                )
            if not 0 <= value <= 1:
                raise InputError(
                    escape(f"{path}: line {cursor.line}: {cursor.metric!r} is {value!r}, ")
                    + "not a score in [0, 1] (name a per-item metric in [0, 1] with {metric})",
                    param="metric",
                )
            task = cursor.task
            flt = record.get("filter")
            if flt not in (None, "none"):
                task = f"{task}:{flt}"
            key = (cursor.model, task, str(record["doc_id"]))
            if key in self._fed:
                self._repeated[path] = self._repeated.get(path, 0) + 1
                continue
            self._fed.add(key)
            out.append((*key, float(value), None))

    def _task_size(self, cursor: _Cursor) -> None:
        """Take the task's size from the run's results file, once lm-eval has written it."""
        if cursor.task in self.task_items:
            return
        results = lm_eval._results_for(Path(cursor.path).parent, cursor.stamp)
        sizes = (results or {}).get("n-samples")
        entry = sizes.get(cursor.task) if isinstance(sizes, dict) else None
        size = entry.get("effective") if isinstance(entry, dict) else None
        if isinstance(size, int) and not isinstance(size, bool) and size > 0:
            self.task_items[cursor.task] = size

    # --- inspect_ai ---------------------------------------------------------------------

    def _inspect_logs(self) -> list:
        found = []
        for path in self._existing():
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
        mark = [stat.st_size, stat.st_mtime_ns]
        where = str(path)
        if self._inspect_seen.get(where) == mark:
            return []
        seen = self._inspect_members.setdefault(where, set())
        try:
            new = inspect_logs.read_new_samples(
                path, seen, scorer=self.scorer, score_key=self.score_key, reducer=self.reducer
            )
        except inspect_logs.IncompleteLog as exc:
            # a log being copied (or written) is read again once it changes
            self._inspect_seen[where] = mark
            self._waiting[where] = f"waiting for {path.name}: not readable yet ({exc})"
            return []
        self._waiting.pop(where, None)
        self._inspect_seen[where] = mark
        seen |= new.members
        self.bytes_read += stat.st_size if path.suffix != ".eval" else 0
        self.models.add(new.model)
        if new.n_dataset:
            self.task_items[new.task] = new.n_dataset
        if path.suffix == ".eval":
            self._inspect_notes.setdefault(where, []).extend(
                n for n in new.notes if n not in self._inspect_notes.get(where, [])
            )
        else:
            self._inspect_notes[where] = list(new.notes)  # parsed whole: its notes, anew
        self._waiting.pop(f"reducer|{where}", None)
        if new.frame is None:
            if new.reducer != "mean" and not new.finished:
                self._waiting[f"reducer|{where}"] = (
                    f"waiting for the end of {path.name}: its epochs are reduced with "
                    f"{new.reducer!r}, whose values inspect writes when the run ends"
                )
            return []
        out, repeats = [], 0
        # the samples by item, in order of first appearance, as plain lists: a pandas group
        # per item cost ~0.1 ms each, most of a look at a few thousand samples
        frame = new.frame
        groups: dict[Any, list[tuple[str, Any]]] = {}
        for item, run, score in zip(
            frame["item_id"].tolist(),
            frame["run"].astype(str).tolist(),
            frame["score"].tolist(),
            strict=True,
        ):
            groups.setdefault(item, []).append((run, score))
        for item, samples in groups.items():
            key = (new.model, new.task, str(item))
            if key in self._fed:
                repeats += self._origin.get(key, where) != where  # another log of the run
                continue
            runs = self._inspect_runs.setdefault(key, {})
            for run, score in samples:
                if isinstance(score, bool) or not isinstance(score, (int, float)):
                    self._non_numeric[where] = self._non_numeric.get(where, 0) + 1
                    continue
                if not 0 <= score <= 1:
                    raise InputError(
                        escape(f"{path}: sample {item!r} of {new.model} scores {score!r}, ")
                        + "not a score in [0, 1] (choose another scorer with {scorer})",
                        param="scorer",
                    )
                runs[run] = float(score)
            if str(item) in new.tokens:  # a .json log is read whole: its tokens, anew
                before = self._inspect_tokens.get(key, 0.0) if path.suffix == ".eval" else 0.0
                self._inspect_tokens[key] = before + new.tokens[str(item)]
            if not runs or (new.reducer == "mean" and len(runs) < new.epochs):
                continue  # an item passes once, with all its epochs
            out.append(self._pass(key, where))
        before = self._repeated.get(where, 0) if path.suffix == ".eval" else 0
        if before + repeats:  # a .json log is parsed whole: its count, anew
            self._repeated[where] = before + repeats
        if new.finished and new.reducer == "mean":
            short = [
                k
                for k in self._inspect_runs
                if k[:2] == (new.model, new.task) and k not in self._fed and self._inspect_runs[k]
            ]
            if short:
                count = self._short_epochs.get(where, [0, new.epochs])[0]
                self._short_epochs[where] = [count + len(short), new.epochs]
                out.extend(self._pass(k, where) for k in short)
        return out

    def _pass(self, key: _ItemKey, where: str) -> tuple[str, str, str, float, float | None]:
        self._fed.add(key)
        self._origin[key] = where
        values = list(self._inspect_runs.pop(key).values())
        score = float(values[0]) if len(values) == 1 else float(np.mean(values))  # one epoch: as is
        return (*key, score, self._inspect_tokens.pop(key, None))

    # --- state --------------------------------------------------------------------------

    def to_state(self) -> dict:
        """The follower's place in every log, as plain JSON data."""
        return {
            "paths": self.paths,
            "options": [self.metric, self.scorer, self.score_key, self.reducer],
            "bytes_read": self.bytes_read,
            "models": sorted(self.models),
            "task_items": self.task_items,
            "cursors": [
                [
                    c.path,
                    c.model,
                    c.task,
                    c.stamp,
                    c.offset,
                    c.line,
                    c.metric,
                    list(c.identity) if c.identity else None,
                    c.head,
                    c.head_length,
                ]
                for c in self._cursors.values()
            ],
            "following": self._following,
            "fed": sorted(list(k) for k in self._fed),
            "repeated": self._repeated,
            "inspect_seen": self._inspect_seen,
            "inspect_members": {k: sorted(v) for k, v in self._inspect_members.items()},
            "inspect_notes": self._inspect_notes,
            "inspect_runs": [[*k, v] for k, v in self._inspect_runs.items()],
            "origin": [[*k, v] for k, v in self._origin.items()],
            "inspect_tokens": [[*k, v] for k, v in self._inspect_tokens.items()],
            "short_epochs": self._short_epochs,
            "non_numeric": self._non_numeric,
            "events": self._events,
        }

    @classmethod
    def from_state(cls, data: object) -> LogFollower:
        """Rebuild a follower from :meth:`to_state`'s data; ValueError when it is not that."""
        d = _fields(
            data,
            "follower",
            paths=list,
            options=list,
            bytes_read=int,
            models=list,
            task_items=dict,
            cursors=list,
            following=dict,
            fed=list,
            repeated=dict,
            inspect_seen=dict,
            inspect_members=dict,
            inspect_notes=dict,
            inspect_runs=list,
            origin=list,
            inspect_tokens=list,
            short_epochs=dict,
            non_numeric=dict,
            events=dict,
        )
        options = d["options"]
        if len(options) != 4 or not all(o is None or isinstance(o, str) for o in options):
            raise ValueError("follower.options")
        follower = cls(
            _texts(d["paths"], "follower.paths"),
            **dict(zip(("metric", "scorer", "score_key", "reducer"), options, strict=True)),
        )
        follower.bytes_read = _count(d["bytes_read"], "follower.bytes_read")
        follower.models = set(_texts(d["models"], "follower.models"))
        follower.task_items = {
            _text(k, "follower.task_items"): _count(v, "follower.task_items")
            for k, v in d["task_items"].items()
        }
        for row in d["cursors"]:
            if not isinstance(row, list) or len(row) != 10:
                raise ValueError("follower.cursors")
            path, model, task, stamp = (_text(v, "follower.cursors") for v in row[:4])
            cursor = _Cursor(path, model, task, stamp)
            cursor.offset = _count(row[4], "follower.cursors")
            cursor.line = _count(row[5], "follower.cursors")
            cursor.metric = None if row[6] is None else _text(row[6], "follower.cursors")
            if row[7] is not None:
                if not isinstance(row[7], list) or len(row[7]) != 2:
                    raise ValueError("follower.cursors")
                cursor.identity = tuple(_count(v, "follower.cursors") for v in row[7])
            cursor.head = _text(row[8], "follower.cursors", empty=True)
            cursor.head_length = _count(row[9], "follower.cursors")
            follower._cursors[path] = cursor
        follower._following = _text_map(d["following"], _text, "follower.following")
        follower._fed = {
            cast(_ItemKey, tuple(_texts(k, "follower.fed", length=3))) for k in d["fed"]
        }
        follower._repeated = _text_map(d["repeated"], _count, "follower.repeated")
        follower._inspect_seen = {
            _text(k, "follower.inspect_seen"): [_count(x, "follower.inspect_seen") for x in v]
            for k, v in _text_map(d["inspect_seen"], list, "follower.inspect_seen").items()
        }
        follower._inspect_members = {
            k: set(_texts(v, "follower.inspect_members"))
            for k, v in _text_map(d["inspect_members"], list, "follower.inspect_members").items()
        }
        follower._inspect_notes = {
            k: _texts(v, "follower.inspect_notes")
            for k, v in _text_map(d["inspect_notes"], list, "follower.inspect_notes").items()
        }
        for row in d["inspect_runs"]:
            if not isinstance(row, list) or len(row) != 4 or not isinstance(row[3], dict):
                raise ValueError("follower.inspect_runs")
            key = tuple(_texts(row[:3], "follower.inspect_runs"))
            follower._inspect_runs[key] = {
                _text(r, "follower.inspect_runs"): _number(s, "follower.inspect_runs")
                for r, s in row[3].items()
            }
        for row in d["origin"]:
            values = _texts(row, "follower.origin", length=4)
            follower._origin[tuple(values[:3])] = values[3]
        for row in d["inspect_tokens"]:
            if not isinstance(row, list) or len(row) != 4:
                raise ValueError("follower.inspect_tokens")
            key = tuple(_texts(row[:3], "follower.inspect_tokens"))
            follower._inspect_tokens[key] = _number(row[3], "follower.inspect_tokens")
        follower._short_epochs = {
            k: [_count(x, "follower.short_epochs") for x in v]
            for k, v in _text_map(d["short_epochs"], list, "follower.short_epochs").items()
        }
        follower._non_numeric = _text_map(d["non_numeric"], _count, "follower.non_numeric")
        follower._events = _text_map(d["events"], _text, "follower.events")
        return follower


# --- validation of saved data (plain JSON; any mismatch is a ValueError naming the field) ---


def _fields(data: object, what: str, **types: type | tuple[type, ...]) -> dict[str, Any]:
    if not isinstance(data, dict) or set(data) != set(types):
        raise ValueError(what)
    for name, kind in types.items():
        value = data[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{what}.{name}")
    return data


def _text(value: object, what: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty):
        raise ValueError(what)
    return value


def _texts(values: object, what: str, *, length: int | None = None) -> list[str]:
    if not isinstance(values, list) or (length is not None and len(values) != length):
        raise ValueError(what)
    return [_text(v, what) for v in values]


def _count(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(what)
    return value


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(what)
    return float(value)


def _text_map(
    mapping: dict[Any, Any], check: type | Callable[[object, str], Any], what: str
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if check in (list, dict):
            if not isinstance(value, check):
                raise ValueError(what)
            out[_text(key, what)] = value
        else:
            out[_text(key, what)] = check(value, what)
    return out
