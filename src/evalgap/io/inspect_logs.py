"""Read inspect_ai evaluation logs: JSON logs, ``.eval`` archives and eval-set folders.

A log holds one task run for one model: ``eval.task``, ``eval.model`` and ``samples``, each
with an ``id``, an ``epoch`` and ``scores`` keyed by scorer name. In a ``.eval`` archive (zip,
members compressed with zstd) the header is ``header.json`` (``_journal/start.json`` while a
run is in progress), each sample is ``samples/<id>_epoch_<n>.json`` and the epoch reductions
are ``reductions.json``. An eval-set folder also holds ``logs.json`` (an index of the logs
beside it) and ``eval-set.json``: both are read as indexes, never as logs.

* **Values** are mapped to numbers as inspect's own metrics map them: ``C``/``P``/``I``/``N``
  to 1/0.5/0/0, ``yes``/``true`` to 1 and ``no``/``false`` to 0 (any case), numeric strings
  to their number. A dict-valued scorer needs ``score_key`` naming the entry to compare.
* **Scorer**: ``scorer`` names it (a log without it is left out, and said); by default the
  only one, else the first, said in the notes.
* **Epochs** are repeated runs of an item. With inspect's default reducer (``mean``) they
  are averaged per item, never counted as items. With another reducer recorded in the log
  (``max``, ``mode``, ``at_least_2`` ...) the per-item values inspect reduced and stored in
  the log's reductions are used; a log with such a reducer and no reductions is refused.
  A log recording several reducers needs ``reducer`` to name one (``mean`` is always
  possible: evalgap averages the epochs itself).
* **Errored samples** (``fail_on_error=False``, interrupted runs) are left out and counted in
  the notes; ``on_error="fail"`` makes them an error.
* **Identity**: items are keyed on the sample ``id``. A dataset without ids is numbered by
  position; when it was shuffled (``eval.dataset.shuffled``) those numbers name different
  questions in different logs, so such logs are keyed by a hash of the sample input instead
  (said in the notes), or refused when two samples share an input.
* **Tasks**: a task run under several ``-T`` argument sets becomes one task per set,
  labelled ``task(arg=value,...)``.
* The same model and task in several logs of one folder: the latest log is used (said);
  in different folders, the model is named ``model (folder)`` in each.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape, first_line
from evalgap.io import configurations
from evalgap.io._files import PathArg, PathsArg, as_paths, expand
from evalgap.io._limits import parse_json, read_json
from evalgap.io._zip import Archive, ZipReadError

if TYPE_CHECKING:
    import pandas as pd

    from evalgap.io.options import LoadOptions
else:
    pd = LazyModule("pandas")

INDEX_FILES = ("logs.json", "eval-set.json")
MEMBER = "__evalgap_member__"  # the archive member a sample of an .eval log came from
ON_ERROR = ("skip", "fail")


def value_to_float(value: object) -> float | None:
    """Map a score value to a float as inspect_ai's metrics do, or None when it cannot."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value == "C":
            return 1.0
        if value == "P":
            return 0.5
        if value in ("I", "N"):
            return 0.0
        low = value.strip().lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        try:
            number = float(low)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def is_inspect_path(path: Path) -> bool:
    """True for a ``.eval`` archive or a JSON file that looks like an inspect_ai log."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json" or not path.is_file() or path.name in INDEX_FILES:
        return False
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return b'"eval"' in head and (b'"samples"' in head or b'"version"' in head)


# One score row: item id, run (the epoch, or "reduced") and the value (text: not a number).
_Row: TypeAlias = tuple[str, str, float | str | None]


@dataclass
class _Log:
    path: Path
    model: str
    task: str
    task_args: dict[str, Any]
    created: str
    shuffled: bool
    n_dataset: int | None
    # the epoch reducers the run recorded, in its order (empty: none said)
    reducers: tuple[str, ...]
    samples: list[dict[str, Any]]
    reductions: list[Any]
    status: str
    rows: list[_Row] = field(default_factory=list)
    epochs: int = 1
    # the run's metadata fields (model, model_args, generate config, ...: see run_metadata)
    metadata: dict[str, object] = field(default_factory=dict)


def read_inspect(
    paths: PathsArg,
    *,
    scorer: str | None = None,
    score_key: str | None = None,
    value_map: dict[str, float] | None = None,
    on_error: str = "skip",
    reducer: str | None = None,
    config_columns: Sequence[str] = (),
) -> LongScores:
    """Read inspect_ai logs (``.json``, ``.eval``, folders, eval sets) into the long layout.

    ``value_map`` maps extra string values to numbers (checked before inspect's mapping).
    ``reducer`` chooses the epoch reducer of logs that record several (see the module).
    ``config_columns`` names run-metadata fields (:func:`run_metadata`: ``seed``,
    ``provider``, ``model_args.<key>``, ``generate_config.<key>``...) whose values label
    each log's configuration (column ``configuration``); the latest log is then kept per
    configuration, and errored samples are kept as rows without a score, flagged
    ``errored``, so that they can be counted per configuration (alignment leaves them out).
    """
    if on_error not in ON_ERROR:
        raise InputError(
            "{on_error} must be one of " + escape(", ".join(ON_ERROR)) + "; got {got!r}",
            param="on_error",
            got=on_error,
        )
    paths = as_paths(paths)
    config_columns = configurations.names(config_columns)
    extra = dict(value_map or {})
    notes: list[str] = []
    logs = [_read_log(p) for p in _log_files(paths)]
    configuration_of = {
        id(log): configurations.label(configurations.pick(log.metadata, config_columns, log.path))
        for log in logs
        if config_columns
    }
    logs = _one_log_per_run(logs, notes, configuration_of)
    labels = _task_labels(logs)
    hashed = _tasks_keyed_by_input(logs, labels, notes)
    frames, skipped_scorer = [], []
    for log in logs:
        label = labels[id(log)]
        chosen = _choose_scorer(log, scorer, notes)
        if chosen is None:
            skipped_scorer.append(log)
            continue
        errored: list[tuple[str, str]] = []
        rows = _rows(
            log, chosen, score_key, extra, on_error, label in hashed, notes, reducer, errored
        )
        frame = pd.DataFrame(rows, columns=["item_id", "run", "score"])
        if config_columns:
            frame[configurations.ERRORED] = False
            failed = pd.DataFrame(errored, columns=["item_id", "run"])
            frame = pd.concat(
                [frame, failed.assign(score=None, **{configurations.ERRORED: True})],
                ignore_index=True,
            )
            frame[configurations.COLUMN] = configuration_of[id(log)]
        frame.insert(0, "task", label)
        frame.insert(0, "model", log.model)
        frames.append(frame)
    if not frames:
        found = sorted({s for log in logs for s in _scorers(log)})
        raise InputError(
            f"no log has a scorer {scorer!r}; scorers found: {', '.join(found) or 'none'}"
        )
    for log in skipped_scorer:
        notes.append(
            f"{log.path.name}: {log.model} / {labels[id(log)]} has no scorer {scorer!r} "
            f"(scorers: {', '.join(_scorers(log)) or 'none'}); this log is left out"
        )
    frame = pd.concat(frames, ignore_index=True)
    columns: dict[str, str | None] = {
        "item_id": "samples[].id",
        "run": "samples[].epoch",
        "score": "samples[].scores.<scorer>.value",
    }
    if config_columns:
        columns[configurations.COLUMN] = ",".join(config_columns)
    return LongScores(
        frame=frame,
        source=", ".join(map(str, paths)),
        columns=columns,
        notes=tuple(dict.fromkeys(notes)),
    )


def run_metadata(info: dict[str, Any]) -> dict[str, object]:
    """Return the run-metadata fields of a log's ``eval`` header, as ``config_columns`` names them.

    ``model``, ``provider`` (the model's prefix before ``/``), ``model_base_url``,
    ``model_args`` and each of its entries as ``model_args.<key>``, ``generate_config`` (the
    model's generate config) and ``generate_config.<key>``, ``seed`` (the generate config's
    seed), ``task_args.<key>``, ``epochs``, ``revision`` (the task's source commit),
    ``packages.<name>`` (package versions, ``packages.inspect_ai`` among them) and
    ``inspect_version``.

    Examples
    --------
    >>> fields = run_metadata({"model": "mockllm/m", "model_generate_config": {"seed": 7},
    ...     "packages": {"inspect_ai": "0.3.1"}})
    >>> fields["provider"], fields["seed"], fields["inspect_version"]
    ('mockllm', 7, '0.3.1')
    """
    fields: dict[str, object] = {}
    model = info.get("model")
    if isinstance(model, str):
        fields["model"] = model
        fields["provider"] = model.split("/", 1)[0]
    if info.get("model_base_url") is not None:
        fields["model_base_url"] = info["model_base_url"]
    for name, key in (
        ("model_args", "model_args"),
        ("generate_config", "model_generate_config"),
        ("task_args", "task_args"),
    ):
        value = info.get(key)
        if isinstance(value, dict):
            fields[name] = value
            fields.update({f"{name}.{k}": v for k, v in value.items()})
    generate = info.get("model_generate_config")
    if isinstance(generate, dict) and generate.get("seed") is not None:
        fields["seed"] = generate["seed"]
    config = info.get("config")
    if isinstance(config, dict) and config.get("epochs") is not None:
        fields["epochs"] = config["epochs"]
    revision = info.get("revision")
    if isinstance(revision, dict) and revision.get("commit"):
        fields["revision"] = revision["commit"]
    packages = info.get("packages")
    if isinstance(packages, dict):
        fields.update({f"packages.{k}": v for k, v in packages.items()})
        if "inspect_ai" in packages:
            fields["inspect_version"] = packages["inspect_ai"]
    return fields


def _log_files(paths: Iterable[Path]) -> list[Path]:
    """Every log file under ``paths``; an eval-set index names the logs beside it."""
    out = []
    for path in paths:
        if path.is_file() and path.name in INDEX_FILES:
            out.extend(_indexed(path))
            continue
        out.extend(
            expand(
                [path],
                globs=("*.eval", "*.json"),
                what="inspect_ai logs (.eval or .json)",
                accept=is_inspect_path,
            )
        )
    return list(dict.fromkeys(out))


def _indexed(index: Path) -> list[Path]:
    data = read_json(index)
    if index.name == "logs.json" and isinstance(data, dict):
        names = list(data)
    else:
        found = [p for p in sorted(index.parent.iterdir()) if is_inspect_path(p)]
        names = [p.name for p in found]
    files = [index.parent / n for n in names]
    missing = [f for f in files if not f.exists()]
    if missing:
        raise InputError(f"{index}: lists {missing[0].name}, which is not beside it")
    if not files:
        raise InputError(f"{index}: lists no logs")
    return files


def _sample(raw: bytes, where: object) -> dict[str, Any]:
    """A sample member of an ``.eval`` archive: a JSON object, else an error naming it."""
    data = parse_json(raw, where)
    if not isinstance(data, dict):
        raise InputError(f"{where}: a sample is a JSON object; got a {type(data).__name__}")
    return data


def _read_log(
    path: Path, skip: Collection[str] = frozenset(), *, allow_empty: bool = False
) -> _Log:
    if path.suffix == ".eval":
        header, samples, reductions = _read_eval(path, skip)
    else:
        header = read_json(path)
        if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
            raise InputError(f"{path}: not an inspect_ai log (no 'eval' header object)")
        listed = header.get("samples")
        samples = [] if listed is None else listed
        reductions = header.get("reductions")
        reductions = [] if reductions is None else reductions
    info = header.get("eval")
    if not isinstance(info, dict):
        raise InputError(f"{path}: not an inspect_ai log (no 'eval' header object)")
    model, task = info.get("model"), info.get("task")
    if not isinstance(model, str) or not isinstance(task, str) or not model or not task:
        raise InputError(f"{path}: no eval.model / eval.task in the log header")
    if not isinstance(samples, list) or not all(isinstance(s, dict) for s in samples):
        raise InputError(f"{path}: 'samples' is not a list of sample objects")
    if not samples and not allow_empty:
        raise InputError(
            f"{path}: the log has no samples (was it written with samples "
            "excluded, or is the run still starting?)"
        )
    if not isinstance(reductions, list):
        raise InputError(f"{path}: 'reductions' is not a list")
    dataset = info["dataset"] if isinstance(info.get("dataset"), dict) else {}
    config = info["config"] if isinstance(info.get("config"), dict) else {}
    reducers = config.get("epochs_reducer")
    reducers = [reducers] if isinstance(reducers, str) else reducers
    reducers = tuple(
        dict.fromkeys(r for r in reducers if isinstance(r, str) and r)
        if isinstance(reducers, list)
        else ()
    )
    task_args = info["task_args"] if isinstance(info.get("task_args"), dict) else {}
    return _Log(
        path=path,
        model=model,
        task=task,
        task_args=task_args,
        created=str(info.get("created", "")),
        shuffled=bool(dataset.get("shuffled")),
        n_dataset=dataset.get("samples") if isinstance(dataset.get("samples"), int) else None,
        reducers=reducers,
        samples=samples,
        reductions=reductions,
        status=str(header.get("status", "")),
        epochs=config["epochs"]
        if isinstance(config.get("epochs"), int) and config["epochs"] > 0
        else 1,
        metadata=run_metadata(info),
    )


def _read_eval(
    path: Path, skip: Collection[str] = frozenset()
) -> tuple[Any, list[dict[str, Any]], Any]:
    try:
        with Archive(path) as archive:
            names = archive.namelist()
            header_name = next(
                (n for n in ("header.json", "_journal/start.json") if n in names), None
            )
            if header_name is None:
                raise InputError(f"{path}: no header.json in the .eval archive")
            header = parse_json(archive.read(header_name), f"{path}: {header_name}")
            if not isinstance(header, dict):
                raise InputError(f"{path}: {header_name} is not a JSON object")
            samples = [
                {**_sample(archive.read(n), f"{path}: {n}"), MEMBER: n}
                for n in sorted(names)
                if n.startswith("samples/") and n.endswith(".json") and n not in skip
            ]
            reductions = (
                parse_json(archive.read("reductions.json"), f"{path}: reductions.json")
                if "reductions.json" in names
                else []
            )
    except InputError:
        raise
    except (ZipReadError, Exception) as exc:  # zipfile raises several types when damaged
        raise InputError(f"{path}: not a valid .eval archive (zip): {first_line(exc)}") from None
    return header, samples, reductions


def _one_log_per_run(
    logs: list[_Log], notes: list[str], configuration_of: dict[int, str] | None = None
) -> list[_Log]:
    """Latest log per (model, task, args[, configuration]) in a folder; models in two folders
    renamed."""
    configuration_of = configuration_of or {}
    by_key: dict[tuple, list[_Log]] = defaultdict(list)
    for log in logs:
        configured = configuration_of.get(id(log), "")
        by_key[(log.model, log.task, _args_text(log.task_args), configured)].append(log)
    kept = []
    for (model, task, _, configured), group in by_key.items():
        task = f"{task} ({configured})" if configured else task
        folders: dict[Path, list[_Log]] = defaultdict(list)
        for log in group:
            folders[log.path.parent].append(log)
        for folder, runs in folders.items():
            runs.sort(key=lambda g: (g.created, g.path.name))
            if len(runs) > 1:
                notes.append(
                    f"{model} / {task}: {len(runs)} logs in {folder.name or folder}, "
                    f"using the latest ({runs[-1].path.name})"
                )
            latest = runs[-1]
            if len(folders) > 1:
                latest.model = f"{model} ({folder.name})"
            kept.append(latest)
        if len(folders) > 1:
            notes.append(
                f"{model} / {task}: logs in {len(folders)} folders; the model is named "
                "after each folder, e.g. " + repr(kept[-1].model)
            )
    return kept


def _args_text(args: dict) -> str:
    return ",".join(f"{k}={args[k]}" for k in sorted(args))


def _task_labels(logs: list[_Log]) -> dict[int, str]:
    variants = defaultdict(set)
    for log in logs:
        variants[log.task].add(_args_text(log.task_args))
    return {
        id(log): log.task
        if len(variants[log.task]) == 1
        else f"{log.task}({_args_text(log.task_args)})"
        for log in logs
    }


def _auto_numbered(log: _Log) -> bool:
    """Ids 1..n: what inspect gives a dataset without ids (by position)."""
    ids = {s.get("id") for s in log.samples}
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return False
    top = log.n_dataset or max(cast(set[int], ids))  # every id an int (checked above)
    return ids <= set(range(1, top + 1))


def _tasks_keyed_by_input(logs: list[_Log], labels: dict[int, str], notes: list[str]) -> set[str]:
    """Tasks whose logs number a shuffled id-less dataset by position: key those by input."""
    hashed = {labels[id(g)] for g in logs if g.shuffled and _auto_numbered(g)}
    for label in sorted(hashed):
        notes.append(
            f"task {label}: a shuffled dataset without sample ids (ids are positions after "
            "shuffling); items are keyed by a hash of each sample's input instead"
        )
    return hashed


def _input_key(sample: dict[str, Any], log: _Log) -> str:
    value = sample.get("input")
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return "input:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _scorers(log: _Log) -> list[str]:
    names = {}
    for s in log.samples:
        if isinstance(s.get("scores"), dict):
            names.update(dict.fromkeys(s["scores"]))
    return list(names)


def _choose_scorer(log: _Log, wanted: str | None, notes: list[str]) -> str | None:
    available = _scorers(log)
    if wanted is not None:
        return wanted if wanted in available else None
    if not available:
        raise InputError(
            f"{log.path}: no sample has scores (was the log written before scoring, "
            "or did every sample fail?)"
        )
    if len(available) > 1:
        notes.append(
            f"task {log.task}: scorers {', '.join(available)}; using {available[0]!r} "
            "(choose with --scorer)"
        )
    return available[0]


def _number(
    value: object, extra: dict[str, float], score_key: str | None, log: _Log, sample_id: object
) -> float | str | None:
    if isinstance(value, dict):
        if score_key is None:
            raise InputError(
                escape(
                    f"{log.path}: sample {sample_id!r} scores a dict of values "
                    f"({', '.join(map(str, value))}); choose one with "
                )
                + "{score_key}",
                param="score_key",
            )
        if score_key not in value:
            raise InputError(
                f"{log.path}: sample {sample_id!r} has no score key {score_key!r}; "
                f"keys: {', '.join(map(str, value))}"
            )
        value = value[score_key]
    if isinstance(value, str) and value in extra:
        return extra[value]
    if value is None:
        return None
    number = value_to_float(value)
    return str(value) if number is None else number  # text: counted as non-numeric later


def _rows(
    log: _Log,
    chosen: str,
    score_key: str | None,
    extra: dict[str, float],
    on_error: str,
    by_input: bool,
    notes: list[str],
    reducer: str | None = None,
    errored_rows: list[tuple[str, str]] | None = None,
) -> list[_Row]:
    """The log's score rows; the errored samples' (item, epoch) appended to ``errored_rows``."""
    errored, unscored, rows = [], 0, []
    key_of: dict[str, object] = {}
    for sample in log.samples:
        sid = sample.get("id")
        key = _input_key(sample, log) if by_input else str(sid)
        if by_input:
            other = key_of.setdefault(key, sid)
            if other != sid:
                raise InputError(
                    f"{log.path}: the dataset was shuffled and has no sample ids, and samples "
                    f"{other!r} and {sid!r} have the same input, so items cannot be told "
                    "apart; give the dataset ids and rerun"
                )
        if sample.get("error"):
            errored.append(sid)
            if errored_rows is not None:
                errored_rows.append((key, str(sample.get("epoch", 1))))
            continue
        scores = sample["scores"] if isinstance(sample.get("scores"), dict) else {}
        if chosen not in scores:
            unscored += 1
            continue
        entry = scores[chosen]
        value = entry.get("value") if isinstance(entry, dict) else None
        rows.append((key, str(sample.get("epoch", 1)), _number(value, extra, score_key, log, sid)))
    if errored:
        message = (
            f"{log.path.name}: {len(errored)} errored sample"
            f"{'s' if len(errored) > 1 else ''} ({', '.join(map(str, errored[:5]))}"
            f"{', ...' if len(errored) > 5 else ''})"
        )
        if on_error == "fail":
            raise InputError(
                escape(f"{message}; rerun them (inspect eval-retry) or pass ") + "{on_error=skip}",
                param="on_error",
            )
        notes.append(f"{message} left out (--on-error fail to stop instead)")
    if unscored:
        notes.append(f"{log.path.name}: {unscored} samples without a {chosen!r} score left out")
    epochs = {r[1] for r in rows}
    if len(epochs) > 1:
        used = choose_reducer(log, reducer)
        if used != "mean":
            rows = _reduced(log, chosen, score_key, extra, rows, by_input, notes, used)
    return rows


def choose_reducer(log: _Log, wanted: str | None) -> str:
    """The epoch reducer to use for ``log``: ``wanted``, else the one the log recorded.

    ``mean`` is always available (evalgap averages the epochs itself); another reducer must
    be one the log recorded (its values are read from the log's reductions). A log recording
    several reducers needs ``wanted``: no reducer is preferred over another.
    """
    recorded = log.reducers or ("mean",)
    if wanted is not None:
        if wanted == "mean" or wanted in recorded:
            return wanted
        raise InputError(
            escape(
                f"{log.path}: no epoch reducer {wanted!r} in the log (it reduces epochs with "
                f"{', '.join(map(repr, recorded))}); "
            )
            + "give one of those, or 'mean' to average the epochs, with {reducer}",
            param="reducer",
        )
    if len(recorded) > 1:
        raise InputError(
            escape(f"{log.path}: epochs are reduced with {' and '.join(map(repr, recorded))}; ")
            + "choose one with {reducer} (e.g. {reducer="
            + escape(recorded[0])
            + "})",
            param="reducer",
        )
    return recorded[0]


def _reduced(
    log: _Log,
    chosen: str,
    score_key: str | None,
    extra: dict[str, float],
    rows: list[_Row],
    by_input: bool,
    notes: list[str],
    reducer: str | None,
) -> list[_Row]:
    """Per-item values as inspect reduced them (the log's reductions for ``chosen``)."""
    match = [
        r
        for r in log.reductions
        if isinstance(r, dict)
        and r.get("scorer") == chosen
        and (r.get("reducer") == reducer or (r.get("reducer") is None and len(log.reducers) < 2))
    ]
    if not match:
        raise InputError(
            escape(
                f"{log.path}: epochs are reduced with {reducer!r} and the log holds no "
                f"reductions for scorer {chosen!r}; "
            )
            + "evalgap will not guess another reducer: average the epochs with "
            "{reducer=mean}, or rerun with the mean reducer",
            param="reducer",
        )
    kept = {r[0] for r in rows}
    inputs = {str(s.get("id")): s for s in log.samples if s.get("epoch", 1) == 1}
    out = []
    for item in match[0].get("samples") or []:
        sid = item.get("sample_id")
        key = _input_key(inputs[str(sid)], log) if by_input else str(sid)
        if key not in kept:
            continue  # errored or unscored: already counted
        out.append((key, "reduced", _number(item.get("value"), extra, score_key, log, sid)))
    notes.append(
        f"{log.path.name}: epochs reduced with {reducer!r} as recorded in the log "
        "(one value per item)"
    )
    return out


class IncompleteLog(InputError):
    """A growing log that cannot be read yet (a file still being copied or written)."""


@dataclass
class NewSamples:
    """What one look at a growing log found (:func:`read_new_samples`).

    ``frame`` has ``item_id, run, score`` of the new samples (one row per epoch; with a
    reducer other than ``mean``, one ``run="reduced"`` row per item of the finished log), or
    is None when there is nothing to pass on yet.
    """

    model: str
    task: str
    frame: pd.DataFrame | None
    epochs: int
    tokens: dict[str, float]
    members: set[str]
    finished: bool
    reducer: str
    n_dataset: int | None
    notes: list[str]


def read_new_samples(
    path: PathArg,
    seen: Collection[str] = frozenset(),
    *,
    scorer: str | None = None,
    score_key: str | None = None,
    reducer: str | None = None,
) -> NewSamples:
    """Read the samples of one log not read before (a :class:`NewSamples`).

    For an ``.eval`` archive only the sample members not in ``seen`` are decompressed and
    parsed (``members`` names them, to add to ``seen``); a ``.json`` log, which inspect
    rewrites whole, is parsed whole (``members`` is empty). ``epochs`` is the run's
    configured epochs, ``tokens`` each new sample's tokens by sample id and ``finished``
    whether the run has ended (its header has a final status). Epochs reduced with anything
    but ``mean`` are passed on only once the run has ended and inspect has written its
    reductions: the whole log is then read again, once, for the reduced value of every item.
    """
    path = Path(path)
    log = _growing_log(path, seen)
    finished = log.status not in ("", "started")
    used = choose_reducer(log, reducer) if log.epochs > 1 else "mean"
    if used != "mean" and finished and seen:
        log = _growing_log(path)  # the reductions cover every item
    notes: list[str] = []
    members = {s[MEMBER] for s in log.samples if s.get(MEMBER)}
    # one log at a time: a task run under -T arguments is labelled with them, since another
    # argument set of it (another task to the loaders) may be the next log found
    label = f"{log.task}({_args_text(log.task_args)})" if log.task_args else log.task
    out = NewSamples(
        log.model, label, None, log.epochs, {}, members, finished, used, log.n_dataset, notes
    )
    if not log.samples:
        return out
    chosen = _choose_scorer(log, scorer, notes)
    if chosen is None:
        notes.append(
            f"{path.name}: {log.model} / {label} has no scorer {scorer!r} (scorers: "
            f"{', '.join(_scorers(log)) or 'none'}); this log is left out"
        )
        return out
    out.tokens = _usage(log.samples)
    if used != "mean" and not finished:
        return out  # inspect writes the reductions when the run ends
    hashed = _tasks_keyed_by_input([log], {id(log): label}, notes)
    rows = _rows(log, chosen, score_key, {}, "skip", label in hashed, notes, used)
    out.frame = pd.DataFrame(rows, columns=["item_id", "run", "score"])
    return out


def _growing_log(path: Path, seen: Collection[str] = frozenset()) -> _Log:
    """Read a log that may still be written or copied: what it lacks is :class:`IncompleteLog`."""
    try:
        return _read_log(path, frozenset(seen), allow_empty=True)
    except InputError as exc:
        raise IncompleteLog(str(exc).removeprefix(f"{path}: ")) from None


def mean_sample_tokens(paths: PathsArg) -> float | None:
    """Mean tokens of one sample (one model, one item, one epoch) over inspect logs' model
    usage; None when no sample records its usage."""
    paths = as_paths(paths)
    total, count = 0.0, 0
    for log in (_read_log(p) for p in _log_files(paths)):
        usage = _usage(log.samples)  # summed over epochs, by sample id
        epochs: dict[str, int] = {}
        for sample in log.samples:
            if str(sample.get("id")) in usage:
                epochs[str(sample.get("id"))] = epochs.get(str(sample.get("id")), 0) + 1
        total += sum(usage.values())
        count += sum(epochs.values())
    return total / count if count else None


def _usage(samples: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for sample in samples:
        usage = sample.get("model_usage")
        if not isinstance(usage, dict) or "id" not in sample:
            continue
        total = 0.0
        for entry in usage.values():
            if isinstance(entry, dict):
                value = entry.get("total_tokens")
                if value is None:
                    value = (entry.get("input_tokens") or 0) + (entry.get("output_tokens") or 0)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    total += float(value)
        key = str(sample["id"])
        out[key] = out.get(key, 0.0) + total
    return out


# The inspect_ai row of the registry (evalgap.io.registry).


def detect(path: Path, options: LoadOptions) -> bool:
    """Whether ``path`` is an inspect_ai log, or a directory holding one."""
    if path.is_dir():
        return any(True for _ in path.rglob("*.eval")) or any(
            is_inspect_path(p) for p in path.rglob("*.json")
        )
    return is_inspect_path(path)


def read(paths: list[Path], options: LoadOptions) -> LongScores:
    """Read inspect_ai logs as ``options`` say (:func:`read_inspect`)."""
    return read_inspect(
        paths,
        scorer=options.scorer,
        score_key=options.score_key,
        on_error=options.on_error,
        reducer=options.reducer,
        config_columns=options.config_columns,
    )
