"""Turn what a job is given (a DataFrame, LongScores, a ScoreSet, result paths, a store)
into the long layout or an aligned ScoreSet.

Every job's front door (in the job's own module) reads its data through these helpers, so
they live beneath all jobs and import none.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar, cast

from evalgap.errors import InputError, escape

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import LongScores, ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions

_T = TypeVar("_T")  # a renamed keyword's value, of the type its new name takes
_F = TypeVar("_F", bound=Callable[..., Any])  # a function whose keywords were renamed


def scores_of(
    data: ScoresInput | None,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    complete_case: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> ScoreSet:
    """Return ``data`` (DataFrame, LongScores, ScoreSet or result paths) as an aligned ScoreSet."""
    from evalgap._scores import ScoreSet
    from evalgap._scores import align as align_frame

    _check_columns(columns)
    if isinstance(data, ScoreSet):
        if models is not None:
            for m in models:
                data.model_index(m)  # raises naming the model and the ones there are
        return data
    wide = _wide_board(data, models, tasks, strict, complete_case, options, columns)
    if wide is not None:
        return wide
    long = long_scores(data, options=options, **columns)
    return align_frame(
        long.table,  # a small table's codes align without pandas
        models=list(models) if models is not None else None,
        tasks=list(tasks) if tasks is not None else None,
        strict=strict,
        source=long.source,
        complete_case=complete_case,
        notes=long.notes,
    )


def _wide_board(
    data: ScoresInput | None,
    models: Sequence[str] | None,
    tasks: Sequence[str] | None,
    strict: bool,
    complete_case: bool,
    options: LoadOptions | None,
    columns: dict[str, Any],
) -> ScoreSet | None:
    """One wide table file of numeric model columns, read into its matrix and aligned there
    (no long layout between; the same board); None for every other input."""
    if isinstance(data, (list, tuple)) and len(data) == 1:
        data = data[0]  # the command line's one --scores FILE
    if not isinstance(data, (str, Path)) or tasks is not None or options is None or strict:
        return None  # strict: the long path says what it refuses
    if options.layout != "wide" or options.store or not Path(data).is_file():
        return None
    import dataclasses

    from evalgap.io.tables import wide_score_set

    chosen = list(models) if models is not None else None
    return wide_score_set(
        data, dataclasses.replace(options, **columns), models=chosen, complete_case=complete_case
    )


def long_scores(
    data: ScoresInput | None, *, options: LoadOptions | None = None, **columns: Any
) -> LongScores:
    """Return ``data`` (DataFrame, LongScores or result paths) in the long interchange layout."""
    from evalgap._scores import LongScores

    _check_columns(columns)
    if isinstance(data, LongScores):
        return data
    if _stored(options) and data is not None:  # a job's scores are its `scores`, not `paths`
        raise InputError(
            "give either score files ({scores}) or a results store ({store}), not both",
            param="scores",
        )
    if data is None and options is not None and getattr(options, "store", None):
        import dataclasses

        from evalgap.io.sources import load_scores

        return load_scores([], dataclasses.replace(options, **columns))
    if _is_table(data):
        from evalgap.io.tables import long_from_frame

        configured = tuple(getattr(options, "config_columns", ()) or ())
        return long_from_frame(data, config_columns=configured, **columns)
    if isinstance(data, (str, Path)) or (
        isinstance(data, (list, tuple)) and data and all(isinstance(p, (str, Path)) for p in data)
    ):
        import dataclasses

        from evalgap.io.options import LoadOptions
        from evalgap.io.sources import load_scores

        return load_scores(data, dataclasses.replace(options or LoadOptions(), **columns))
    raise InputError(
        "{scores!b}"
        + escape(
            " must be a pandas DataFrame (long layout), a ScoreSet, or paths to result "
            f"files; got {type(data).__name__}"
        ),
        param="scores",
    )


def _is_source(value: object) -> bool:
    """True for what holds the scores of several models: a table, a ScoreSet or paths."""
    from evalgap._scores import LongScores, ScoreSet

    if _is_table(value) or isinstance(value, (str, Path, LongScores, ScoreSet)):
        return True
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(p, (str, Path)) for p in value)
    )


def _is_table(value: object) -> TypeGuard[pd.DataFrame]:
    """True for a pandas DataFrame (without importing pandas when it is not loaded)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, pd.DataFrame)


COLUMN_OPTIONS = (
    "model_column",
    "item_column",
    "score_column",
    "task_column",
    "run_column",
    "cluster_column",
)

def _renamed(columns: dict, old: str, new: str, value: _T) -> _T:
    """Return the value given for a keyword renamed in this release (``old=`` still works,
    with a DeprecationWarning; both spellings at once are refused)."""
    if old not in columns:
        return value
    if value is not None:
        raise InputError(
            "{" + old + "} is the old name of {" + new + "}; give {" + new + "} alone", param=old
        )
    warnings.warn(
        f"{old}= is now called {new}=; the old name will be removed in a later release",
        DeprecationWarning,
        stacklevel=3,
    )
    return columns.pop(old)


def renamed_keywords(**old_to_new: str) -> Callable[[_F], _F]:
    """Keep the keywords a function had in an earlier release (``old=new``) working for one
    release: the old name is read as the new one, with a DeprecationWarning; both at once are
    refused. The signature shown is the new one."""

    def decorate(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    kwargs[new] = _renamed(kwargs, old, new, kwargs.pop(new, None))
            return func(*args, **kwargs)

        return cast("_F", wrapper)

    return decorate


def _check_columns(columns: dict, job: str | None = None) -> None:
    """Refuse keywords that are not column options, as Python refuses an unexpected keyword
    (a TypeError), naming the job when known and the option a misspelling meant: a wrong
    keyword reached ``LoadOptions`` or the table reader and was reported from there."""
    import difflib

    unknown = sorted(set(columns) - set(COLUMN_OPTIONS))
    if unknown:
        meant = difflib.get_close_matches(unknown[0], COLUMN_OPTIONS, n=1)
        hint = f"; did you mean {meant[0]!r}?" if meant else ""
        where = f"evalgap.{job}() got an" if job else "got an"
        raise TypeError(
            f"{where} unexpected keyword argument{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))} (column options: {', '.join(COLUMN_OPTIONS)}"
            f"){hint}"
        )


def _stored(options: LoadOptions | None) -> bool:
    """True when the reading options name a results store (the scores need no paths)."""
    return bool(getattr(options, "store", None))


def _models(
    models: Sequence[str] | None, options: LoadOptions | None
) -> Sequence[str] | None:
    """The models to keep: ``models``, else the reading options' ``model_columns``."""
    if models is None and options is not None and options.model_columns:
        return list(options.model_columns)
    return models


def _unless_default(options: LoadOptions) -> LoadOptions | None:
    """``options``, or None when every reading option is at its default."""
    return None if options == type(options)() else options
