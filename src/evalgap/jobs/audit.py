"""The ``audit`` job: which displayed rankings of a leaderboard can the benchmark resolve?

Resolution Diagnostics, Sections 6.1-6.5, Tables 3-5 and 8-9, Appendices C, E-G. For K
models on one or more tasks:

* **Families.** Per task, models are listed in the board's one order, as ``ranks`` lists
  them (:func:`evalgap.stats.board.board_scores`: the paired rank, then the score); the
  family is the K-1 rank-adjacent pairs (``family="adjacent"``) or all K(K-1)/2
  pairs (``"all"``), A being the higher-ranked model. The family size m is the number of
  pairs over all tasks unless ``family_size`` declares another. An adjacent pair whose
  order reverses on the items both models share is flagged.
* **Procedures.** Each gives every pair a resolved/unresolved verdict by putting its level
  in place of ``z_{1-alpha/2}`` in N* (Equation 3): ``fixed_n``, ``bonferroni``, ``sidak``,
  ``holm`` (step-down on the Wald statistic), ``bh`` (step-up), ``anytime_valid`` (the
  mixture e-process boundary u(n) at the pair's discordant count, binary scores only) and,
  with cluster labels, ``clustered`` (N* times the design effect of the pair's ICC).
* **Stress tests.** Correlation -/+ 0.1 (clamped); bootstrap intervals of N* per pair;
  with clusters: a cluster bootstrap of the clustered verdict (B = 1000, seeded),
  leave-one-cluster-out, and alternative cluster definitions (random clusters of the same
  sizes as the null check, difficulty quartiles, each cluster split in half).
* **Tables.** Per pair; ``|delta|``-binned (Table 3); unresolved count per procedure
  (Table 5); unresolved chains: runs of models whose every rank-adjacent gap is unresolved
  under ``chain_procedure``.
* **Tiers** are the rank-set tiers of :mod:`evalgap.jobs.ranks` (the same as ``evalgap ranks``),
  never the chains: a new tier starts where every model above is shown better than every
  model below, with simultaneous confidence.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

import numpy as np
import pandas as pd

from evalgap._results import Result, plain
from evalgap._scores import AlignmentReport, ScoreSet, TaskScores
from evalgap.errors import InputError, escape, fields
from evalgap.io import counts as count_columns
from evalgap.jobs._board import per_item_options_given, refuse_gold_clusters
from evalgap.jobs._inputs import _check_columns, _is_table, _renamed, _stored
from evalgap.jobs._pages import HtmlPage, MarkdownPage
from evalgap.jobs.pair_tests import pair_tests
from evalgap.stats import _validate, multiplicity, resample, sequential
from evalgap.stats import clusters as cl
from evalgap.stats import power as pw
from evalgap.stats.board import BoardScores, board_notes, board_scores
from evalgap.stats.multiplicity import family_verdicts
from evalgap.stats.paired import summarize_counts, summarize_pairs

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap.engine import BoardSums

if TYPE_CHECKING:  # the audit imports the rank job and the gold scale only when it runs them
    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.fragility import FragilityResult
    from evalgap.jobs.gold import GoldAudit
    from evalgap.jobs.ranks import RanksResult

    class _AuditSettings(TypedDict):
        """The settings ``audit`` hands to the audit of counts or of scores."""

        family_size: int | None
        alpha: float
        power: float
        n_bootstrap: int
        n_bootstrap_required_n: int
        seed: int | None
        chain_procedure: str
        mixture: str


PROCEDURES = ("fixed_n", "bonferroni", "sidak", "holm", "bh", "anytime_valid", "clustered")
FAMILIES = ("adjacent", "all")
BUCKETS = (
    (0.0, 0.01, "<= 1%"),
    (0.01, 0.02, "1%-2%"),
    (0.02, 0.05, "2%-5%"),
    (0.05, 0.15, "5%-15%"),
    (0.15, math.inf, "> 15%"),
)
# Above these many pairs the per-pair resampling steps are skipped (and the notes say so).
MAX_PAIRS_BINARY_BOOTSTRAP = 20_000
MAX_PAIRS_GRADED_BOOTSTRAP = 500
# Items to flip, per test and procedure, for families up to these sizes (evalgap fragility
# computes them for any family): about 0.5 s per 10,000 binary pairs.
MAX_PAIRS_FRAGILITY = 20_000
MAX_PAIRS_GRADED_FRAGILITY = 500
TRAJECTORY_POINTS = 400
LARGE_PAIR_TABLE = 100_000  # above, the per-pair JSON runs to hundreds of megabytes
FEWER_PAIRS = "; audit fewer pairs (the adjacent family, or a selection of models) to get them"
# The phases an audit reports to ``progress(done, total, phase)``, in order.
PHASES = (
    "pairs",
    "statistics",
    "clusters",
    "cluster bootstrap",
    "leave one cluster out",
    "alternative clusters",
    "trajectories",
    "rank sets",
)
# Rank sets join an audit up to this many models per task (above, evalgap ranks computes
# them on their own: 1,000 models take about half a minute).
MAX_AUDIT_RANK_MODELS = 200


@dataclass(frozen=True, repr=False)
class ClusterStress(Result):
    """How the clustered verdict holds up (Section 6.4, Appendices F-G).

    Attributes
    ----------
    column : str
        The clustering (the cluster column's name).
    n_resamples : int
        Cluster-bootstrap draws.
    seed : int or None
        Their seed.
    unresolved_distribution : dict
        Unresolved count -> share of the cluster-bootstrap draws.
    intervals : pandas.DataFrame
        Per pair: ICC, design effect and clustered N* (5-95%), and Pr(unresolved).
    leave_one_out : pandas.DataFrame
        Per task and dropped cluster: the unresolved count.
    alternatives : dict
        Alternative cluster definition -> unresolved count (random clusters are the null
        check).
    """

    column: str
    n_resamples: int
    seed: int | None
    unresolved_distribution: dict[int, float]
    intervals: pd.DataFrame
    leave_one_out: pd.DataFrame
    alternatives: dict[str, int]
    _json_names: ClassVar[dict] = {
        "column": "cluster_column",
        "intervals": "pairs",
        "alternatives": "alternative_definitions",
    }
    _headline = ("column", "n_resamples", "alternatives")

    def to_frame(self) -> pd.DataFrame:
        """Return the per-pair cluster intervals."""
        return self.intervals


# The per-pair columns of the audit, in order, and what each holds (PairTable's fields).
PAIR_FIELDS = {
    "task": "the task the pair is ranked in",
    "model_a": "the higher-ranked model (the board's order, as ranks lists it)",
    "model_b": "the lower-ranked model",
    "rank_a": "A's rank in the task (the board's rank, as ranks gives it)",
    "rank_b": "B's displayed rank in the task",
    "binary": "True when both models' scores are 0/1",
    "n_items": "items both models scored (N)",
    "accuracy_a": "A's mean score on those items",
    "accuracy_b": "B's mean score on those items",
    "delta": "accuracy_a - accuracy_b",
    "delta_low": "lower end of the (1 - alpha) paired interval of delta (Newcombe for binary "
    "pairs, paired t for graded)",
    "delta_high": "upper end of that interval",
    "correlation": "per-item correlation of the two models' scores (NaN when one is constant)",
    "a_only": "items A got right and B wrong (graded: A scored higher)",
    "b_only": "items B got right and A wrong (graded: B scored higher)",
    "sd_diff": "sigma_D, the SD of the per-item differences (Eq. 2)",
    "se": "standard error of delta, sigma_D / sqrt(N)",
    "order_reversed": "an adjacent pair whose order reverses on the shared items",
    "statistic": "the Wald statistic delta / SE",
    "p_mcnemar": "McNemar chi-square p-value (binary)",
    "p_exact": "exact McNemar p-value (binary)",
    "p_mid_p": "mid-p McNemar p-value (binary)",
    "p_paired_t": "paired t p-value (graded)",
    "p_bootstrap": "paired bootstrap p-value (exact for binary pairs)",
    "required_n": "N*, items needed to resolve the gap at (alpha, power) (Eq. 3)",
    "required_n_low": "5th percentile of bootstrap N*",
    "required_n_high": "95th percentile of bootstrap N*",
    "resolution_ratio": "q = N / N*",
    "unpaired_required_n": "N* if the items were not paired",
    "paired_efficiency": "unpaired N* / paired N*",
    "anytime_boundary": "the anytime-valid boundary u(n) at the pair's discordant count",
    "required_n_anytime": "N* under the anytime-valid boundary",
    "icc": "intraclass correlation of the differences within clusters",
    "design_effect": "1 + (mean cluster size - 1) ICC",
    "required_n_clustered": "N* times the design effect",
    "resolved_correlation_minus": "resolved at the correlation - 0.1 (clamped)",
    "resolved_correlation_plus": "resolved at the correlation + 0.1 (clamped)",
}


# The pair table of an audit on the gold scale (``audit --gold-column``): compare's PPI++ gap
# of each pair, its verdicts, and the judge beside it.
GOLD_PAIR_FIELDS = {
    "task": "the task the pair is ranked in",
    "model_a": "the model ahead on the pair's own gold-scale gap",
    "model_b": "the other model",
    "n_items": "items the judge scored for both models",
    "n_gold": "of them, items with a gold label for both (the labels the gap uses)",
    "delta": "the PPI++ gap A minus B on the gold scale, as compare --gold-column gives it",
    "se": "its standard error",
    "statistic": "its t statistic (n_gold - 1 degrees of freedom)",
    "z": "the t statistic's normal equivalent, which q and the verdicts use",
    "p_ppi_t": "the t test's p-value",
    "delta_low": "lower end of the (1 - alpha) t interval of delta",
    "delta_high": "upper end of that interval",
    "resolution_ratio": "q, the precision there is over the precision the gap needs",
    "required_n": "gold labels that resolve the gap with the judged items there are",
    "judge_delta": "the judge's own gap on the same items",
    "judge_p_value": "the judge's own test (exact McNemar for binary judges, else paired t)",
    "bias_difference": "the judge's bias for A minus its bias for B",
    "bias_p_value": "its paired t p-value",
    "judge_flips": "the judge's bias reverses the pair (significant gold-scale gap, judge's "
    "gap the other way, bias difference significant)",
}


# The per-pair resampling columns: a bootstrap per pair, most of a small board's audit, and
# read by no verdict, count or sentence; they are computed the first time one is read.
RESAMPLED_COLUMNS = ("p_bootstrap", "required_n_low", "required_n_high")


class PairColumns(Mapping[str, np.ndarray]):
    """A pair table's columns by name, some of them computed the first time one is read.

    ``deferred`` names columns and a function returning them all (by name); until a column
    of it is read, nothing of it is computed. The numbers are those the function gives
    whenever it runs: an audit's deferred columns depend on its inputs and seed only.
    Pickled or copied, the table is a plain dict with every column computed.

    ``labels`` keeps, for text columns built from a few distinct labels (task and model
    names), each row's code and the labels: :meth:`PairTable.to_arrow` takes the labels by
    code rather than converting half a million strings one by one.
    """

    def __init__(
        self,
        ready: dict[str, np.ndarray],
        order: tuple[str, ...] | None = None,
        deferred: Callable[[], dict[str, np.ndarray]] | None = None,
        labels: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        self._ready = ready
        self._order = tuple(order) if order is not None else tuple(ready)
        self._deferred = deferred
        self.labels = labels or {}

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._ready and self._deferred is not None and name in self._order:
            computed = self._deferred()
            self._ready.update(computed)
            self._deferred = None
        return self._ready[name]

    def __contains__(self, name: object) -> bool:
        return name in self._order

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    @property
    def pending(self) -> tuple[str, ...]:
        """The columns not computed yet."""
        return tuple(k for k in self._order if k not in self._ready)

    def lengths(self) -> set[int]:
        """The lengths of the computed columns."""
        return {len(v) for v in self._ready.values()}

    def __reduce__(self) -> tuple[type[dict], tuple[dict]]:
        return (dict, (dict(self.items()),))


class Verdicts(Mapping[str, np.ndarray]):
    """Per procedure, the pairs' verdicts, read as an object array of True, False or None
    (None: the procedure gives the pair no verdict); held as booleans and a mask of the
    pairs without one, the object array built when first read.

    :meth:`column` gives a procedure's verdicts typed (booleans, or pandas' nullable
    ``boolean`` with missing entries) without the objects between. Pickled or copied, the
    verdicts are a plain dict of object arrays.
    """

    def __init__(self, typed: dict[str, tuple[np.ndarray, np.ndarray | None]]) -> None:
        self._typed = typed  # procedure -> (verdicts, missing or None)
        self._objects: dict[str, np.ndarray] = {}

    def __getitem__(self, proc: str) -> np.ndarray:
        if proc not in self._objects:
            values, missing = self._typed[proc]
            out = values.astype(object)
            if missing is not None:
                out[missing] = None
            self._objects[proc] = out
        return self._objects[proc]

    def __iter__(self) -> Iterator[str]:
        return iter(self._typed)

    def __len__(self) -> int:
        return len(self._typed)

    def column(self, proc: str) -> np.ndarray | pd.api.extensions.ExtensionArray:
        """The procedure's verdicts as :func:`verdict_column` types them."""
        values, missing = self._typed[proc]
        if missing is None or not missing.any():
            return values
        return pd.arrays.BooleanArray(values, missing)

    def lengths(self) -> set[int]:
        """The verdict arrays' lengths."""
        return {len(values) for values, _ in self._typed.values()}

    def __reduce__(self) -> tuple[type[dict], tuple[dict]]:
        return (dict, (dict(self.items()),))


@dataclass(frozen=True, repr=False)
class PairTable:
    """The audit's per-pair results: one NumPy array per column, row k is pair k.

    Attributes
    ----------
    task, model_a, model_b, ... : numpy.ndarray
        One array per column of :data:`PAIR_FIELDS` (e.g. ``delta``, ``required_n``,
        ``resolution_ratio``, ``p_exact``), all of the same length; NaN where a statistic
        does not apply (``icc`` without clusters, ``p_exact`` for graded pairs).
    resolved : dict of str to numpy.ndarray
        Per procedure (``fixed_n``, ``bonferroni``, ``sidak``, ``holm``, ``bh``,
        ``anytime_valid``, ``clustered``): the verdicts, an object array of True, False or
        None (None where the procedure does not apply, e.g. anytime-valid for graded pairs).

    The resampled columns (:data:`RESAMPLED_COLUMNS`: bootstrap p-values and N* intervals)
    of an audit are computed when one of them is first read (see :class:`PairColumns`).
    """

    columns: Mapping[str, np.ndarray]
    resolved: Mapping[str, np.ndarray]

    def __post_init__(self) -> None:
        computed = (
            self.columns.lengths()
            if isinstance(self.columns, PairColumns)
            else {len(v) for v in self.columns.values()}
        )
        verdicts = (
            self.resolved.lengths()
            if isinstance(self.resolved, Verdicts)
            else {len(v) for v in self.resolved.values()}
        )
        lengths = computed | verdicts
        if len(lengths) > 1:  # pragma: no cover - an internal invariant
            raise ValueError("PairTable columns differ in length")

    def __getattr__(self, name: str) -> Any:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(f"PairTable has no column {name!r}")

    def __len__(self) -> int:
        return len(self.columns["task"])

    def __repr__(self) -> str:
        tasks = len(set(self.columns["task"].tolist()))
        return (
            f"PairTable({len(self)} pairs, {tasks} task{'s' if tasks != 1 else ''}, "
            f"procedures: {', '.join(self.resolved)})"
        )

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        deferred: Callable[[], dict[str, np.ndarray]] | None = None,
        fields: Mapping[str, str] = PAIR_FIELDS,
    ) -> PairTable:
        """Build the table from the audit's working frame (its internal columns dropped).

        ``deferred`` computes the :data:`RESAMPLED_COLUMNS` the frame does not have, when
        one of them is first read; ``fields`` are the columns (:data:`GOLD_PAIR_FIELDS` on
        the gold scale).
        """
        n = len(frame)
        columns = {}
        labels = {}
        for name in fields:
            if deferred is not None and name in RESAMPLED_COLUMNS:
                continue
            if name in frame.columns:
                values = frame[name]
                if str(values.dtype) == "boolean":
                    values = values.astype(object).where(values.notna(), None)
                columns[name] = _column_values(values)
                if isinstance(values.dtype, pd.CategoricalDtype):
                    codes = values.cat.codes.to_numpy()
                    if not (codes < 0).any():  # a missing label: converted as written
                        labels[name] = (codes, np.asarray(values.cat.categories, dtype=object))
            else:
                columns[name] = np.full(n, np.nan)
        typed = {}
        for proc in PROCEDURES:
            column = f"resolved_{proc}"
            if column in frame.columns:
                values = frame[column]
                missing = values.isna().to_numpy() if values.dtype != bool else None
                typed[proc] = (values.to_numpy(dtype=bool, na_value=False), missing)
        resolved = Verdicts(typed)
        return cls(PairColumns(columns, tuple(columns if deferred is None else fields),
                               deferred, labels), resolved)  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """Return the table as a DataFrame: the columns, then ``resolved_<procedure>``.

        Verdict columns with a missing entry have pandas' nullable ``boolean`` dtype.
        """
        out = pd.DataFrame(dict(self.columns))
        for proc in self.resolved:
            out[f"resolved_{proc}"] = self.verdicts(proc)
        return out

    def verdicts(self, proc: str) -> np.ndarray | pd.api.extensions.ExtensionArray:
        """The procedure's verdicts typed as :func:`verdict_column` types them."""
        if isinstance(self.resolved, Verdicts):
            return self.resolved.column(proc)
        return verdict_column(self.resolved[proc])

    def unresolved(self, proc: str) -> np.ndarray:
        """Which pairs the procedure leaves unresolved: a verdict of False (a pair without a
        verdict is not one of them)."""
        values = self.verdicts(proc)
        if isinstance(values, np.ndarray):
            return ~values
        return ~values.to_numpy(dtype=bool, na_value=True)

    def to_arrow(self, extra: Mapping[str, np.ndarray] | None = None) -> Any:
        """Return the table as a ``pyarrow.Table``: the columns of :meth:`to_frame`, with its
        types and its pandas metadata (read back, it is :meth:`to_frame`), built from the
        column arrays without a DataFrame between (``--output FILE.parquet``); ``extra``
        columns are appended after the verdicts."""
        import pyarrow as pa

        columns: dict[str, Any] = dict(self.columns)
        for proc in self.resolved:
            columns[f"resolved_{proc}"] = self.verdicts(proc)
        columns.update(extra or {})
        head = pd.DataFrame({name: values[:1] for name, values in columns.items()})
        schema = pa.Schema.from_pandas(head, preserve_index=False)
        labels = self.columns.labels if isinstance(self.columns, PairColumns) else {}

        def array(field: Any) -> Any:
            if field.name in labels:  # each row's label taken by its code
                codes, names = labels[field.name]
                return pa.array(names, type=field.type).take(pa.array(codes))
            return pa.array(columns[field.name], type=field.type, from_pandas=True)

        return pa.Table.from_arrays([array(field) for field in schema], schema=schema)

    def to_records(self) -> list[dict]:
        """Return one JSON-ready dict per pair (the ``pairs`` of ``audit --json``).

        Built from whole columns (each converted to Python values once, NaN and infinities
        to None), not row by row: half a million pairs take about a second. On the gold
        scale, each record is the row's columns and its verdicts as ``resolved``.
        """
        if "a_only" not in self.columns:  # the gold scale's table
            records: list[dict] = plain(pd.DataFrame(dict(self.columns)))
            for record, row in zip(records, zip(*self.resolved.values(), strict=True),
                                   strict=False):  # fmt: skip
                record["resolved"] = dict(zip(self.resolved, map(bool, row), strict=True))
            return records
        fields = self._record_fields()
        return [dict(zip(fields, row, strict=True)) for row in zip(*fields.values(), strict=True)]

    def _record_fields(self) -> dict[str, list]:
        """Each key of a pair's JSON record, in the record's order, with its values over the
        pairs (Python values, NaN and infinities as None)."""
        c = self.columns
        number = {k: _json_floats(c[k]) for k in _RECORD_FLOATS}
        whole = {k: _json_ints(c[k]) for k in ("n_items", "a_only", "b_only")}
        sizes = {
            k: _json_ints(pw.round_up_all(c[k]))
            for k in ("required_n", "required_n_clustered", "unpaired_required_n")
        }
        verdicts = [
            {proc: bool(v) for proc, v in zip(self.resolved, row, strict=True) if v is not None}
            for row in zip(*self.resolved.values(), strict=True)
        ] or [{} for _ in range(len(self))]
        p_values = [
            dict(zip(_P_KEYS, row, strict=True))
            for row in zip(*(number[f"p_{k}"] for k in _P_KEYS), strict=True)
        ]
        return {
            "task": c["task"].tolist(),
            "model_a": c["model_a"].tolist(),
            "model_b": c["model_b"].tolist(),
            "n_items": whole["n_items"],
            "accuracy_a": number["accuracy_a"],
            "accuracy_b": number["accuracy_b"],
            "delta": number["delta"],
            "delta_interval": _bounds(number["delta_low"], number["delta_high"]),
            "delta_interval_method": _interval_methods(c["binary"]),
            "correlation": number["correlation"],
            "a_only": whole["a_only"],
            "b_only": whole["b_only"],
            "sd_diff": number["sd_diff"],
            "statistic": number["statistic"],
            "required_n": sizes["required_n"],
            "resolution_ratio": number["resolution_ratio"],
            "required_n_interval": _bounds(number["required_n_low"], number["required_n_high"]),
            "p_values": p_values,
            "verdicts": verdicts,
            "anytime_boundary": number["anytime_boundary"],
            "icc": number["icc"],
            "design_effect": number["design_effect"],
            "required_n_clustered": sizes["required_n_clustered"],
            "unpaired_required_n": sizes["unpaired_required_n"],
            "paired_efficiency": number["paired_efficiency"],
            "order_reversed": [bool(x) for x in c["order_reversed"]],
        }


def _column_values(values: pd.Series) -> np.ndarray:
    """A frame's column as the NumPy array ``to_numpy`` gives; a categorical's labels taken
    from its categories by code (half a million model names: no per-row conversion)."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        return values.to_numpy()
    codes = values.cat.codes.to_numpy()
    labels = np.asarray(values.cat.categories, dtype=object)
    if codes.size and codes.min() < 0:  # a missing label reads as NaN
        return np.where(codes >= 0, labels[np.maximum(codes, 0)], np.nan)
    return labels[codes]


def verdict_column(values: np.ndarray) -> np.ndarray | pd.api.extensions.ExtensionArray:
    """A verdict column (an object array of True, False or None) as booleans: a NumPy array
    when every pair has a verdict, else pandas' nullable ``boolean`` (None missing)."""
    missing = pd.isna(values)
    verdicts = np.zeros(len(values), dtype=bool)
    verdicts[~missing] = values[~missing].astype(bool)
    if not missing.any():
        return verdicts
    return pd.arrays.BooleanArray(verdicts, np.asarray(missing, dtype=bool))


def _bounds(low: list, high: list) -> list[list]:
    """Per pair, its interval as ``[low, high]``."""
    return [[lo, hi] for lo, hi in zip(low, high, strict=True)]


_P_KEYS = ("mcnemar", "exact", "mid_p", "bootstrap", "paired_t")
_RECORD_FLOATS = (
    "accuracy_a",
    "accuracy_b",
    "delta",
    "delta_low",
    "delta_high",
    "correlation",
    "sd_diff",
    "statistic",
    "resolution_ratio",
    "required_n_low",
    "required_n_high",
    "anytime_boundary",
    "icc",
    "design_effect",
    "paired_efficiency",
    *(f"p_{k}" for k in _P_KEYS),
)


def _interval_methods(binary: np.ndarray) -> list:
    """Per pair, the method of its gap interval: ``newcombe`` (binary) or ``paired_t``."""
    return np.where(np.asarray(binary, dtype=bool), "newcombe", "paired_t").tolist()


def _json_floats(values: Any) -> list:
    """A column as Python floats, with None where a value is NaN or infinite."""
    x = np.asarray(values, dtype=float)
    out = x.astype(object)
    out[~np.isfinite(x)] = None
    return out.tolist()


def _json_ints(values: Any) -> list:
    """A column of whole numbers as Python ints, with None where a value is missing."""
    x = np.asarray(values, dtype=float)
    finite = np.isfinite(x)
    out = np.empty(x.shape, dtype=object)
    out[finite] = x[finite].astype(np.int64).tolist() if finite.any() else []
    out[~finite] = None
    return out.tolist()


@dataclass(frozen=True, repr=False)
class AuditResult(HtmlPage, MarkdownPage, Result):
    """Everything ``evalgap audit`` reports (the documented ``--json`` contract).

    Attributes
    ----------
    alpha, power : float
        The settings.
    family : str
        ``"adjacent"`` or ``"all"`` pairs per task.
    family_size : int
        The family size m of the multiplicity corrections.
    chain_procedure : str
        The procedure whose rank-adjacent verdicts make the unresolved chains.
    rankings : pandas.DataFrame
        Per task and model, best first: ``task, rank, model, score, score_low, score_high,
        own_items_mean, n_items, items_missing``, the same rows, order and numbers as
        ``evalgap ranks`` gives (:func:`evalgap.stats.board.board_scores`).
    pairs : PairTable
        The per-pair results (``.to_frame()`` for a DataFrame).
    unresolved : dict
        Unresolved pairs per procedure (Table 5).
    bonferroni_inflation, sidak_inflation : float
        The factor by which each correction inflates N*.
    chains : dict
        Per task: the unresolved chains, best first. A chain is a run of models, consecutive
        in the displayed ranking, each unresolved against the next under ``chain_procedure``
        (a model resolved from both neighbours is a chain of one). Not tiers: see ``tiers``.
    correlation_sensitivity : dict
        Unresolved pairs at rho -/+ 0.1.
    cluster_stress : ClusterStress or None
        Cluster bootstrap, leave-one-cluster-out and alternative clusterings.
    trajectories : dict
        Sample anytime-valid trajectories, for the report's figure.
    notes : tuple of str
        Everything the result needs said beside the numbers.
    alignment : AlignmentReport or None
        What the alignment kept and left out.
    n_bootstrap : int or None
        Monte Carlo resamples behind the graded pairs' bootstrap p-values (their resolution
        is 1/B; binary pairs get the exact bootstrap).
    rank_sets : RanksResult or None
        Every model's simultaneous rank set and tier (as ``evalgap ranks``), for audits of
        per-item scores of up to ``MAX_AUDIT_RANK_MODELS`` models.
    fragility : FragilityResult or None
        Items to flip of every pair, per test and procedure (as ``evalgap fragility``, with
        counts by kind but no item ids), for families of up to ``MAX_PAIRS_FRAGILITY``
        binary pairs (``MAX_PAIRS_GRADED_FRAGILITY`` graded ones). In ``--json`` each pair
        row carries its entries as ``fragility``; ``to_frame()`` has a column
        ``items_to_flip_<test>`` per test.
    gold : pandas.DataFrame or None
        On the gold scale (``gold_column=``/``gold=``), per task and model the judge against
        the gold labels (as ``RanksResult.gold``); None on the paired scale. There, the
        models are ranked by their PPI++ scores (``rankings``: ``task, rank, model, score,
        score_low, score_high, n_items, n_gold``), each pair is compared as ``compare
        --gold-column`` compares it (``pairs``: the columns of :data:`GOLD_PAIR_FIELDS`),
        and the verdicts are those at fixed n and under the family procedures, with no
        anytime-valid, cluster, correlation-sensitivity, rank-set or items-to-flip parts.
    scale : str
        (property) ``"gold"`` with gold labels, else ``"paired"``.
    tiers : dict or None
        (property) Per task: the rank-set tiers, best first, the same as ``evalgap ranks``
        gives; None when the audit has no rank sets (see ``tier_method``).
    tier_method : str
        (property) Which procedure made the tiers, e.g. "95% simultaneous rank sets
        (max-t stepdown bootstrap, B=1,000)", or why there are none.
    """

    alpha: float
    power: float
    family: str
    family_size: int
    chain_procedure: str
    rankings: pd.DataFrame
    pairs: PairTable
    unresolved: dict[str, int]
    bonferroni_inflation: float
    sidak_inflation: float
    chains: dict[str, list[list[str]]]
    correlation_sensitivity: dict[str, int]
    cluster_stress: ClusterStress | None
    trajectories: dict[str, dict[str, Any]]
    notes: tuple[str, ...] = field(default=())
    alignment: AlignmentReport | None = None
    n_bootstrap: int | None = None  # Monte Carlo resamples of the graded pairs' bootstrap p
    rank_sets: RanksResult | None = None
    fragility: FragilityResult | None = None
    gold: pd.DataFrame | None = None

    def __repr__(self) -> str:
        counts = ", ".join(f"{p}={k}" for p, k in self.unresolved.items())
        return (
            f"AuditResult(family={self.family!r}, pairs={len(self.pairs)}, "
            f"m={self.family_size}, unresolved: {counts})"
        )

    def to_frame(self) -> pd.DataFrame:
        """Return the per-pair table as a DataFrame (see :class:`PairTable`), with the
        ``items_to_flip_<test>`` columns when the audit has its items to flip."""
        frame = self.pairs.to_frame()
        for name, counts in self._flip_columns().items():
            frame[name] = counts
        return frame

    def to_arrow(self) -> Any:
        """Return the per-pair table as a ``pyarrow.Table`` (:meth:`PairTable.to_arrow`):
        :meth:`to_frame`'s columns and types, without building the DataFrame."""
        return self.pairs.to_arrow(self._flip_columns())

    def _flip_columns(self) -> dict[str, np.ndarray]:
        if self.fragility is None:
            return {}
        # each list of counts (None: cannot flip) as pandas types it: float with NaN, or int
        return {
            f"items_to_flip_{test}": pd.Series(c).to_numpy()
            for test, c in self.fragility.counts().items()
        }

    @property
    def verdict(self) -> str:
        """One plain sentence: how many displayed pairs this benchmark leaves unresolved."""
        from evalgap.report.sentences import audit_verdict

        return audit_verdict(self)

    @property
    def scale(self) -> str:
        """``"gold"`` for an audit on the gold scale, else ``"paired"``."""
        return "paired" if self.gold is None else "gold"

    @property
    def tiers(self) -> dict | None:
        """Per task, the rank-set tiers best first (as ``evalgap ranks``); None without rank
        sets."""
        return self.rank_sets.tiers() if self.rank_sets is not None else None

    @property
    def tier_method(self) -> str:
        """Which procedure made the tiers (the rank sets' level, method and replicates)."""
        from evalgap.report.sentences import tier_method

        return tier_method(self, MAX_AUDIT_RANK_MODELS)

    @property
    def procedures(self) -> tuple[str, ...]:
        """The procedures that produced verdicts (``clustered`` needs cluster labels)."""
        return tuple(p for p in PROCEDURES if p in self.pairs.resolved)

    def verdict_table(self) -> pd.DataFrame:
        """Unresolved pairs per procedure (Table 5 layout)."""
        rows = [
            {
                "procedure": p,
                "unresolved": self.unresolved[p],
                "pairs": len(self.pairs),
                "family_size": self.family_size,
            }
            for p in self.procedures
        ]
        return pd.DataFrame(rows)

    def binned_table(self) -> pd.DataFrame:
        """Pairs, unresolved (fixed n) and q = N/N* by |delta| bucket (Table 3 layout; the
        paper's r = N*/N is 1/q): ``q_median`` and ``q_smallest`` (the worst pair)."""
        columns = self.pairs.columns  # three columns, not the whole table
        gap = np.abs(np.asarray(columns["delta"], dtype=float))
        q = np.asarray(columns["resolution_ratio"], dtype=float)
        unresolved = self.pairs.unresolved("fixed_n")
        rows = []
        for low, high, label in BUCKETS:
            inside = (gap > low) & (gap <= high) if low > 0 else gap <= high
            rows.append(_bucket(label, inside, unresolved, q))
        rows.append(_bucket("total", gap >= 0, unresolved, q))
        return pd.DataFrame(rows)

    def flips(self) -> pd.DataFrame:
        """Pairs resolved at fixed n but unresolved once clustering is accounted for."""
        frame = self.pairs.to_frame()
        if "clustered" not in self.pairs.resolved:
            return frame.iloc[0:0]
        mask = frame["resolved_fixed_n"] & ~frame["resolved_clustered"].fillna(True)
        return frame[mask.astype(bool)]

    def to_dict(self, *, pairs: bool = True) -> dict:
        """Return the JSON-ready dict (the ``audit --json`` contract).

        ``pairs=False`` leaves out the per-pair records (``audit --output FILE`` writes them
        as a table instead, which half a million pairs call for).
        """
        out = {
            "alpha": self.alpha,
            "power": self.power,
            "family": self.family,
            "family_size": self.family_size,
            "bonferroni_inflation": self.bonferroni_inflation,
            "sidak_inflation": self.sidak_inflation,
            "unresolved": dict(self.unresolved),
            "chain_procedure": self.chain_procedure,
            "chains": self.chains,
            "tiers": self.tiers,
            "tier_method": self.tier_method,
            "rankings": plain(self.rankings),
            "pairs": self._pair_records() if pairs else None,
            "binned": plain(self.binned_table()),
            "correlation_sensitivity": dict(self.correlation_sensitivity),
            "cluster_stress": self.cluster_stress.to_dict() if self.cluster_stress else None,
            "notes": list(self.notes),
            "alignment": self.alignment.to_dict() if self.alignment else None,
            "rank_sets": self.rank_sets.to_dict() if self.rank_sets else None,
            "scale": self.scale,
            "gold": plain(self.gold) if self.gold is not None else None,
            "verdict": self.verdict,
        }
        if not pairs:
            del out["pairs"]
        return out

    def _pair_records(self) -> list[dict]:
        records = self.pairs.to_records()
        if self.fragility is not None:
            for record, pair in zip(records, self.fragility.pairs, strict=True):
                record["fragility"] = pair.fragility.to_dict()
        return records

    _heading: ClassVar[str] = "evalgap audit"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_audit

        render_audit(self, console)

    def _page(self, title: str | None, provenance: dict[str, Any] | None) -> str:
        from evalgap.report.html import audit_report

        return audit_report(self, title=title or "evalgap audit", provenance=provenance)


def audit(
    scores: ScoresInput | None = None,
    *,
    pairs: pd.DataFrame | None = None,
    family: str = "adjacent",
    family_size: int | None = None,
    procedure: str = "fixed_n",
    mixture: str = "grid",
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
    n_cluster_bootstrap: int = 1000,
    n_bootstrap: int = 2000,
    n_bootstrap_required_n: int = 500,
    n_rank_bootstrap: int = 1000,
    seed: int | None = 0,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    gold_column: str | None = None,
    gold: ScoresInput | None = None,
    progress: Callable[..., object] | None = None,
    options: LoadOptions | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    **columns: Any,
) -> AuditResult:
    """Audit a leaderboard: which displayed rankings can the benchmark resolve?

    Per task, models are ranked by their mean score; every rank-adjacent pair
    (``family="adjacent"``) or every pair (``"all"``) is compared on the items both models
    scored and gets a resolved/unresolved verdict under fixed n, Bonferroni, Sidak, Holm,
    BH, anytime-valid testing and, with cluster labels, clustering (*Resolution
    Diagnostics*, Sections 6.1-6.5; the procedures put their level in place of
    ``z_{1-alpha/2}`` in Eq. 3).

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item scores of K models: a long DataFrame (name its columns with
        ``model_column=``, ``item_column=``, ``score_column=``, ``task_column=``,
        ``cluster_column=``...; unnamed ones are detected), a ScoreSet, or result files.
    pairs : DataFrame, optional
        Instead of ``scores``: one row per displayed pair with columns ``model_a, model_b,
        both_correct, a_only, b_only, both_wrong`` (and optionally ``task``), A above B.
    family : {"adjacent", "all"}
        Rank-adjacent pairs or all pairs, per task.
    family_size : int, optional
        Declared family size m (default: the number of pairs audited).
    procedure : str
        The procedure whose rank-adjacent verdicts make the unresolved chains (``fixed_n``,
        ``bonferroni``, ``sidak``, ``holm``, ``bh``, ``anytime_valid``, ``clustered``);
        the tiers come from the rank sets.
    mixture : {"grid", "beta"}
        The e-process mixture of the anytime-valid boundary.
    alpha, power : float
        Significance level and target power.
    alternative : {"two-sided"}
        The audit tests two-sided gaps (any other value is refused).
    n_cluster_bootstrap, n_bootstrap, n_bootstrap_required_n : int
        Resamples of the cluster bootstrap, of each pair's bootstrap p-value and of each
        pair's N* interval (0 skips a step).
    n_rank_bootstrap : int
        Bootstrap replicates of the rank sets (see :func:`evalgap.ranks`; 0 skips them).
    seed : int or None
        Seed of every resampling step.
    models, tasks : list of str, optional
        Select and order models and tasks (all, in order of appearance, by default).
    complete_case, strict : bool
        Keep only items every model scored; treat any left-out row as an error.
    gold_column, gold : optional
        The scores are a judge's, with gold scores on some items (as for
        :func:`evalgap.compare`): every pair is audited on the gold scale instead
        (the one :class:`AuditResult`, its ``scale`` ``"gold"``: paired PPI++ gaps, q, and
        the verdicts at fixed n and under the family procedures, the judge's own figures
        beside them and the judge against the gold per model in ``gold``). The resampling
        settings, ``procedure`` and ``mixture`` do not apply and are refused.
    progress : callable, optional
        Called with the name of each phase as it starts.
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    engine : {"local", "dask"}
        Where a binary board in Parquet shards (``scores`` a folder written by
        ``store_export(..., shard_items=)``) has its pairs' counts summed: in this process,
        or on a dask.distributed cluster (:func:`audit_shards`; the
        counts, hence every row, equal the single machine's). Other sources: ``local``.
    scheduler : str, optional
        The Dask scheduler's address, with ``engine="dask"`` (default
        ``$EVALGAP_SCHEDULER``).
    **columns
        Column names of a DataFrame or table file (see ``scores``).

    Returns
    -------
    AuditResult
        Rankings, the per-pair table (``result.pairs``, a :class:`PairTable`), unresolved
        counts per procedure, unresolved chains, rank-set tiers, stress tests and notes
        (on the gold scale, the part ``gold`` and the gold-scale pair table).

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> pairs = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "z"],
    ...     "both_correct": [7986, 7000], "a_only": [295, 900],
    ...     "b_only": [249, 300], "both_wrong": [1512, 1842]})
    >>> r = evalgap.audit(pairs=pairs, n_bootstrap=0, n_bootstrap_required_n=0)
    >>> r.unresolved["fixed_n"], r.unresolved["bonferroni"]
    (1, 1)
    """
    scores = _renamed(columns, "data", "scores", scores)
    _check_columns(columns, "audit")
    _validate.arguments(
        family=family, family_size=family_size, procedure=procedure, mixture=mixture,
        alpha=alpha, power=power, n_cluster_bootstrap=n_cluster_bootstrap,
        n_bootstrap=n_bootstrap, n_bootstrap_required_n=n_bootstrap_required_n,
        n_rank_bootstrap=n_rank_bootstrap, seed=seed, models=models, tasks=tasks,
        complete_case=complete_case, strict=strict,
    )  # fmt: skip
    _check_audit_sources(scores, pairs, alternative, gold_column, gold, options)
    settings: _AuditSettings = {
        "family_size": family_size, "alpha": alpha, "power": power, "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n, "seed": seed,
        "chain_procedure": procedure, "mixture": mixture,
    }  # fmt: skip
    from evalgap.engine.inputs import refuse_off_engine, shards_folder

    folder = shards_folder(scores)
    if folder is not None or engine != "local" or scheduler is not None:
        ignored = per_item_options_given(
            models, None, complete_case, strict, options, columns, pairs=pairs is not None,
            gold_column=gold_column is not None, gold=gold is not None,
            n_cluster_bootstrap=n_cluster_bootstrap != 1000,
        )  # fmt: skip
        refuse_off_engine(folder, engine, scheduler, [n for n in ignored if n != "tasks"])
        assert folder is not None  # refused above otherwise
        return audit_shards(
            folder, family=family, engine=engine, scheduler=scheduler, tasks=tasks,
            n_rank_bootstrap=n_rank_bootstrap, progress=progress, **settings,
        )  # fmt: skip
    if pairs is not None:
        return _audit_pairs(
            pairs, family, models, tasks, complete_case, strict, options, columns,
            n_cluster_bootstrap, n_rank_bootstrap, settings,
        )  # fmt: skip
    if gold_column is not None or gold is not None:
        _refuse_for_gold_audit(
            columns, options, procedure=(procedure, "fixed_n"), mixture=(mixture, "grid"),
            n_cluster_bootstrap=(n_cluster_bootstrap, 1000), n_bootstrap=(n_bootstrap, 2000),
            n_bootstrap_required_n=(n_bootstrap_required_n, 500),
            n_rank_bootstrap=(n_rank_bootstrap, 1000), seed=(seed, 0),
        )  # fmt: skip
    from evalgap.jobs._resolve import resolve
    from evalgap.jobs.gold import audit_gold

    board = resolve(
        scores, gold_column=gold_column, gold=gold, models=models, tasks=tasks,
        complete_case=complete_case, strict=strict, options=options, columns=columns,
    )  # fmt: skip
    if board.scale == "gold":
        assert board.gold is not None  # the gold scale carries its labels
        done = audit_gold(
            board.scores, board.gold, gold_notes=board.gold_notes, family=family,
            family_size=family_size, alpha=alpha, power=power, strict=strict, progress=progress,
        )  # fmt: skip
        return _gold_audit_result(done, alpha=float(alpha), power=float(power), family=family)
    cluster = columns.get("cluster_column") or (options.cluster_column if options else None)
    return audit_scores(
        board.scores, family=family, n_cluster_bootstrap=n_cluster_bootstrap,
        n_rank_bootstrap=n_rank_bootstrap, cluster_label=cluster or "cluster",
        progress=progress, **settings,
    )  # fmt: skip


def sums_order(sums: BoardSums) -> np.ndarray:
    """A board's ranked models best first from its sums, as ``audit`` lists them
    (:meth:`evalgap.engine.BoardSums.board`: by paired rank, then score, then name)."""
    kept, board = sums.board()
    return kept[board.order]


def sums_ranking(sums: BoardSums) -> tuple[np.ndarray, np.ndarray]:
    """A board's ranked models' names best first from its sums and their ranks (equal
    where tied), as ``audit`` lists them."""
    kept, board = sums.board()
    names = np.asarray(sums.models, dtype=object)[kept[board.order]]
    return names, np.asarray(board.listed().rank, dtype=np.int64)


def shard_counts(sums: Sequence[BoardSums], family: str) -> pd.DataFrame:
    """The family's pairs of every task from its sums, in the board's order (by mean, ties
    by name, as ``audit`` lists a complete board), A the upper model: ``task, model_a,
    model_b, both_correct, a_only, b_only, both_wrong``."""
    parts = []
    for s in sums:
        names = np.array(s.models, dtype=object)
        first, second = family_pairs(sums_order(s), family)
        parts.append(
            pd.DataFrame(
                {
                    "task": s.task, "model_a": names[first], "model_b": names[second],
                    **s.counts(first, second),
                }
            )
        )  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def audit_shards(
    folder: str | Path,
    *,
    family: str = "adjacent",
    engine: str = "local",
    scheduler: str | None = None,
    tasks: Sequence[str] | None = None,
    n_rank_bootstrap: int = 1000,
    progress: Callable[[int, int, str], object] | None = None,
    **settings: Any,
) -> AuditResult:
    """Audit a binary board in Parquet shards from its pairs' counts, computed on ``engine``.

    Each pair's counts are integer sums over the item blocks, equal on every engine, so
    every row (statistics, p-values, N*, verdicts) equals the single-machine audit of the
    same scores, and so do the rank sets, from the same sums
    (:func:`evalgap.jobs.ranks.ranks_from_sums`). Cluster statistics read the items and
    are left out, said in the notes.

    Parameters
    ----------
    folder : str or Path
        The shards folder (``store_export(..., shard_items=)``).
    family : {"adjacent", "all"}
        Rank-adjacent pairs or all pairs, per task.
    engine : {"local", "dask"}
        Where the sums are computed (:func:`evalgap.engine.board_sums`).
    scheduler : str, optional
        The Dask scheduler's address (default ``$EVALGAP_SCHEDULER``).
    tasks : list of str, optional
        Only these tasks.
    n_rank_bootstrap : int
        Bootstrap replicates of the rank sets (0 skips them), as :func:`evalgap.audit`.
    progress : callable, optional
        Called as ``progress(done, total, phase)`` as each block task finishes.
    **settings
        ``alpha, power, family_size, n_bootstrap, n_bootstrap_required_n, seed,
        chain_procedure, mixture`` as :func:`evalgap.audit` takes them.

    Returns
    -------
    AuditResult
    """
    from evalgap.engine import board_sums
    from evalgap.stats.ranks import MAX_MODELS_PER_UNIT, MIN_UNITS

    if family not in FAMILIES:
        raise InputError(
            "{family}: must be one of " + escape(", ".join(FAMILIES)), family=family
        )
    sums = board_sums(
        folder, engine=engine, scheduler=scheduler, tasks=tasks,
        projection=n_rank_bootstrap > 0, progress=progress,
    )  # fmt: skip
    from evalgap.jobs._shards import shard_rankings

    rankings, notes = shard_rankings(sums, settings.get("alpha", 0.05))
    counts = shard_counts(sums, family)
    cells = counts[["both_correct", "a_only", "b_only", "both_wrong"]].sum(axis=1)
    counts = _drop_pairs_without_items(counts.assign(n_items=cells), notes)
    if counts.empty:
        raise InputError(escape(f"{folder}: no pairs to audit (one model per task)"))
    ranks = rankings[["task", "model", "rank"]]
    result = audit_counts(counts, source=str(folder), ranks=ranks, **settings)
    notes.append(
        f"pair counts from {sum(s.blocks for s in sums):,} block tasks over the shards in "
        f"{folder} on the {engine} engine; cluster statistics read the items and are left "
        "out of an audit from shards"
    )
    rank_sets = None
    largest = max(len(s.models) for s in sums)
    if n_rank_bootstrap and not all(s.complete for s in sums):
        notes.append(
            "rank sets are left out: with missing scores they bootstrap each pair on the "
            "items both scored, which sums over blocks of items do not give; evalgap ranks "
            "on one machine computes them"
        )
    elif n_rank_bootstrap and largest > MAX_AUDIT_RANK_MODELS:
        notes.append(
            f"rank sets are left out of audits of more than {MAX_AUDIT_RANK_MODELS} "
            f"models ({largest:,} here); evalgap ranks computes them"
        )
    elif n_rank_bootstrap and any(
        len(s.models) >= MAX_MODELS_PER_UNIT * s.n_items or s.n_items < MIN_UNITS for s in sums
    ):
        notes.append(
            "rank sets are left out: too many models for the items, where they come from "
            "Holm-adjusted pairwise tests on the items (evalgap ranks on one machine)"
        )
    elif n_rank_bootstrap:
        from evalgap.jobs.ranks import ranks_from_sums

        rank_sets = ranks_from_sums(
            sums, alpha=settings.get("alpha", 0.05), n_bootstrap=n_rank_bootstrap,
            seed=settings.get("seed", 0), replicates_name="n_rank_bootstrap",
        )  # fmt: skip
    return dataclasses.replace(
        result, family=family, rankings=rankings, rank_sets=rank_sets,
        notes=(*result.notes, *notes),
    )  # fmt: skip


def _gold_audit_result(done: GoldAudit, *, alpha: float, power: float, family: str) -> AuditResult:
    """The audit's one result on the gold scale: the pairs and verdicts, the chains under
    Holm, the inflations of N* over the family, and the judge against the gold."""
    return _finish(
        done.pairs, done.rankings, alpha, power, family, done.family_size, "holm", None, {},
        done.notes, gold=done.gold,
    )  # fmt: skip


def _check_audit_sources(
    scores: Any, pairs: Any, alternative: str, gold_column: str | None, gold: Any,
    options: LoadOptions | None,
) -> None:  # fmt: skip
    """Refuse a one-sided audit, both or neither of ``pairs`` and ``scores``, and gold labels
    beside a table of pair counts."""
    if alternative != "two-sided":
        raise InputError(
            "{alternative}: the audit tests two-sided gaps; leave it at two-sided",
            param="alternative",
            alternative=alternative,
        )
    if (pairs is None) == (scores is None and not _stored(options)):
        raise InputError(
            "give either {pairs=FILE} (per-pair 2x2 counts) or {scores=FILE} (per-item scores)",
            param="pairs",
        )
    if pairs is not None and (gold_column is not None or gold is not None):
        raise InputError(
            "gold labels ({gold_column} or {gold}) go with per-item {scores}, not {pairs}",
            param="gold_column" if gold_column is not None else "gold",
        )


def _refuse_for_gold_audit(
    columns: dict[str, Any], options: LoadOptions | None, **given: tuple[object, object]
) -> None:
    """Clusters, and the audit's settings the gold scale does not use, refused when set."""
    refuse_gold_clusters(columns, options)
    for name, (value, default) in given.items():
        if value != default:
            raise InputError(
                fields(name) + ": the gold-scale audit resamples nothing and tests each pair at "
                "fixed n and under the family procedures; leave it at its default with "
                "{gold_column} or {gold}",
                param=name,
            )


def _audit_pairs(
    pairs: Any, family: str, models: Sequence[str] | None, tasks: Sequence[str] | None,
    complete_case: bool, strict: bool, options: LoadOptions | None, columns: dict[str, Any],
    n_cluster_bootstrap: int, n_rank_bootstrap: int, settings: _AuditSettings,
) -> AuditResult:  # fmt: skip
    """The audit of a table of per-pair 2x2 counts, the per-item options refused."""
    if family != "adjacent":
        raise InputError(
            "{family=all} needs per-item {scores}; a {pairs} file lists its pairs itself",
            param="family",
        )
    ignored = per_item_options_given(
        models,
        tasks,
        complete_case,
        strict,
        options,
        columns,
        n_cluster_bootstrap=n_cluster_bootstrap != 1000,
        n_rank_bootstrap=n_rank_bootstrap != 1000,
    )
    if ignored:
        raise InputError(
            f"{fields(*ignored)}: not for a {{pairs}} file of 2x2 counts (it has no "
            "per-item scores to read, cluster or rank); leave it out, or audit {scores}",
            param=ignored[0],
        )
    if isinstance(pairs, (str, Path)):
        from evalgap.io.tables import read_frame

        return audit_counts(read_frame(pairs), source=str(pairs), **settings)
    if not _is_table(pairs):
        raise InputError(
            "{pairs} must be a DataFrame or a CSV path; got " + type(pairs).__name__,
            param="pairs",
        )
    return audit_counts(pairs, **settings)


def fragility(
    scores: ScoresInput | None = None,
    *,
    pairs: pd.DataFrame | None = None,
    family: str = "adjacent",
    family_size: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    progress: Callable[..., object] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> FragilityResult:
    """How few items would reverse each verdict of a leaderboard's pairs?

    For every pair the audit judges (rank-adjacent per task, or all pairs), and for every
    test and procedure behind its verdicts -- the exact and chi-square McNemar tests (binary
    scores), the paired t and sign tests (graded), resolution at alpha and under Bonferroni,
    Sidak and Holm -- the fewest items whose removal from the pair reverses the verdict, and
    which (see :mod:`evalgap.stats.fragility`: exact for binary pairs, bounds for graded).

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item scores, as :func:`audit` takes them.
    pairs : DataFrame, optional
        Instead: per-pair 2x2 counts (``model_a, model_b, both_correct, a_only, b_only,
        both_wrong``); removal sets are then counts, not item ids.
    family, family_size, alpha, power, models, tasks, complete_case, strict, options
        As in :func:`audit`.
    progress : callable, optional
        Called with the name of each phase as it starts.
    **columns
        Column names of a DataFrame or table file.

    Returns
    -------
    FragilityResult
        One row per pair with its entries per test (``result.pairs``; ``to_frame()`` one
        row per pair and test), and the sentence.

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> pairs = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "both_correct": [7986],
    ...     "a_only": [295], "b_only": [249], "both_wrong": [1512]})
    >>> r = evalgap.fragility(pairs=pairs)
    >>> r.pairs[0].fragility["mcnemar"].items_to_flip
    1
    """
    from evalgap.jobs._inputs import _check_columns

    _check_columns(columns, "fragility")
    from evalgap.jobs.fragility import board_fragility

    quiet: dict[str, Any] = {
        "n_bootstrap": 0, "n_bootstrap_required_n": 0, "alpha": alpha, "power": power
    }  # fmt: skip
    _check_fragility_sources(scores, pairs, options)
    if pairs is not None:  # the audit refuses the per-item options a counts file cannot use
        result = audit(
            pairs=pairs, family=family, family_size=family_size, models=models, tasks=tasks,
            complete_case=complete_case, strict=strict, options=options, **quiet, **columns,
        )  # fmt: skip
        return board_fragility(result)
    from evalgap.jobs._resolve import resolve

    board = resolve(
        scores, models=models, tasks=tasks, complete_case=complete_case, strict=strict,
        options=options, columns=columns,
    )  # fmt: skip
    score_set = board.scores
    result = audit(
        score_set,
        family=family,
        family_size=family_size,
        n_cluster_bootstrap=0,
        n_rank_bootstrap=0,
        progress=progress,
        **quiet,
    )
    return board_fragility(result, score_set)


def _check_fragility_sources(scores: Any, pairs: Any, options: LoadOptions | None) -> None:
    """Refuse both, or neither, of ``pairs`` and ``scores`` (or a store)."""
    if pairs is not None and (scores is not None or _stored(options)):
        raise InputError(
            "give either {pairs=FILE} (per-pair 2x2 counts) or {scores=FILE} (per-item scores), "
            "not both",
            param="pairs",
        )
    if pairs is None and scores is None and not _stored(options):
        raise InputError(
            "give either {pairs=FILE} (per-pair 2x2 counts) or {scores=FILE} (per-item scores)",
            param="pairs",
        )


def audit_scores(
    score_set: ScoreSet,
    *,
    family: str = "adjacent",
    family_size: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    use_clusters: bool = True,
    n_cluster_bootstrap: int = 1000,
    n_bootstrap_required_n: int = 500,
    n_bootstrap: int = 2000,
    seed: int | None = 0,
    chain_procedure: str = "fixed_n",
    mixture: str = "grid",
    cluster_label: str = "cluster",
    n_rank_bootstrap: int = 1000,
    progress: Callable[[int, int, str], object] | None = None,
) -> AuditResult:
    """Audit every task of ``score_set`` (aligned per-item scores of K models).

    ``cluster_label`` names the clustering (the cluster column) in the report; cluster
    verdicts and stress tests run when the scores carry cluster labels and ``use_clusters``.
    ``progress(done, total, phase)`` is called as each phase (:data:`PHASES`) starts.
    """
    _check(
        family,
        alpha,
        power,
        chain_procedure,
        n_cluster_bootstrap=n_cluster_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
        n_bootstrap=n_bootstrap,
        n_rank_bootstrap=n_rank_bootstrap,
    )

    def step(phase: str) -> None:
        if progress is not None:
            progress(PHASES.index(phase), len(PHASES), phase)

    step("pairs")
    notes: list[str] = []
    parts, rankings = _board_pairs(score_set, family, alpha, use_clusters, notes)
    if not parts:
        raise InputError("nothing to audit: every task has fewer than 2 models")
    pairs = pd.concat(parts, ignore_index=True)
    if family == "all":
        pairs["order_reversed"] = False  # only adjacent displayed ranks make an order claim
    pairs = _drop_pairs_without_items(pairs, notes)
    notes[:0] = _alignment_notes(score_set)
    m = _family_size(family_size, len(pairs))
    step("statistics")
    pairs, deferred = _evaluate(
        pairs,
        alpha=alpha,
        power=power,
        family_size=m,
        mixture=mixture,
        n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
        seed=seed,
        score_set=score_set,
        notes=notes,
    )
    stress = None
    has_clusters = any(t.clusters is not None for t in score_set.tasks)
    if use_clusters and has_clusters:
        step("clusters")
        pairs, stress = _clustered(
            pairs,
            score_set,
            alpha=alpha,
            power=power,
            n_resamples=n_cluster_bootstrap,
            seed=seed,
            progress=step,
            label=cluster_label,
        )
    if len(pairs) > LARGE_PAIR_TABLE:
        notes.append(
            f"{len(pairs):,} pairs: their table is best written as Parquet (audit --output "
            "FILE.parquet, or result.to_frame().to_parquet(...)), with the JSON kept to the "
            "summary"
        )
    step("trajectories")
    trajectories = _trajectories(pairs, score_set, alpha, power, mixture, seed)
    if n_rank_bootstrap:
        step("rank sets")
    rank_sets = _rank_sets(score_set, alpha, n_rank_bootstrap, seed, use_clusters, notes)
    result = _finish(
        pairs,
        pd.DataFrame(rankings),
        alpha,
        power,
        family,
        m,
        chain_procedure,
        stress,
        trajectories,
        notes,
        deferred,
    )
    result = dataclasses.replace(
        result, alignment=score_set.report, n_bootstrap=n_bootstrap, rank_sets=rank_sets
    )
    return _with_fragility(result, score_set)


def _board_pairs(
    score_set: ScoreSet, family: str, alpha: float, use_clusters: bool, notes: list[str]
) -> tuple[list[pd.DataFrame], list[dict[str, Any]]]:
    """Per task: the family's pairs (with their paired summaries) and the ranking rows, both
    in the board's order (:func:`board_order`, as ``ranks`` lists the models)."""
    parts: list[pd.DataFrame] = []
    rankings: list[dict[str, Any]] = []
    models = pd.Index(score_set.models)
    task_names = pd.Index([t.task for t in score_set.tasks])
    for t_index, task in enumerate(score_set.tasks):
        order, board = board_order(task, np.array(score_set.models), alpha, use_clusters, notes)
        for position, m in enumerate(order):
            rankings.append(
                {
                    "task": task.task,
                    "rank": int(board.rank[position]),
                    "model": score_set.models[m],
                    "score": float(board.score[position]),
                    "score_low": float(board.score_low[position]),
                    "score_high": float(board.score_high[position]),
                    "own_items_mean": float(board.own_items_mean[position]),
                    "n_items": int(board.n[position]),
                    "items_missing": int(task.scores.shape[0] - board.n[position]),
                }
            )
        first, second = family_pairs(order, family)
        rank_of = np.zeros(len(score_set.models), dtype=np.int64)
        rank_of[order] = board.rank
        if first.size == 0:
            notes.append(f"task {task.task}: fewer than 2 models, no pairs")
            continue
        s = summarize_pairs(task.scores, first, second)
        parts.append(
            pd.DataFrame(
                {
                    "task": pd.Categorical.from_codes(
                        np.full(first.size, t_index), categories=task_names
                    ),
                    "task_index": t_index,
                    # model names as codes into the model list: half a million pairs
                    # cost no string building here
                    "model_a": pd.Categorical.from_codes(first, categories=models),
                    "model_b": pd.Categorical.from_codes(second, categories=models),
                    "index_a": first,
                    "index_b": second,
                    "rank_a": rank_of[first],
                    "rank_b": rank_of[second],
                    **_summary_columns(s),
                },
                copy=False,  # fresh arrays: not stacked into 2D blocks (a copy of them all)
            )
        )
    return parts, rankings


def _rank_sets(
    score_set: ScoreSet,
    alpha: float,
    n_rank_bootstrap: int,
    seed: int | None,
    use_clusters: bool,
    notes: list[str],
) -> RanksResult | None:
    """Every model's rank set and tier as ``ranks`` gives them, or None (and why)."""
    if not n_rank_bootstrap:
        return None
    largest = max(len(score_set.models), 0)
    if largest > MAX_AUDIT_RANK_MODELS:
        notes.append(
            f"rank sets are left out of audits of more than {MAX_AUDIT_RANK_MODELS} "
            f"models ({largest:,} here); evalgap ranks computes them"
        )
        return None
    from evalgap.jobs.ranks import ranks_scores

    return ranks_scores(
        score_set,
        alpha=alpha,
        n_bootstrap=n_rank_bootstrap,
        seed=seed,
        use_clusters=use_clusters,
        replicates_name="n_rank_bootstrap",
        claims=False,
        over_tasks=False,
    )


def _with_fragility(result: AuditResult, score_set: ScoreSet | None) -> AuditResult:
    """The audit with its items to flip, or a note saying why a large family has none."""
    binary = np.asarray(result.pairs.binary, dtype=bool)
    graded = int((~binary).sum())
    if binary.sum() > MAX_PAIRS_FRAGILITY or graded > MAX_PAIRS_GRADED_FRAGILITY:
        note = (
            f"items to flip are left out for {len(binary):,} pairs (more than "
            f"{MAX_PAIRS_FRAGILITY:,} binary or {MAX_PAIRS_GRADED_FRAGILITY:,} graded ones); "
            "evalgap fragility computes them"
        )
        return dataclasses.replace(result, notes=(*result.notes, note))
    from evalgap.jobs.fragility import board_fragility  # imported only when used

    flips = board_fragility(result, score_set, name_items=False)
    return dataclasses.replace(result, fragility=flips)


def audit_counts(
    table: pd.DataFrame,
    *,
    family_size: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_bootstrap: int = 2000,
    n_bootstrap_required_n: int = 500,
    seed: int | None = 0,
    chain_procedure: str = "fixed_n",
    mixture: str = "grid",
    source: str = "the pairs table",
    ranks: pd.DataFrame | None = None,
) -> AuditResult:
    """Audit a family given as per-pair 2x2 counts (one row per displayed comparison).

    ``table`` has columns ``model_a, model_b, both_correct, a_only, b_only, both_wrong`` and
    optionally ``task``; rows are the family, in display order (A above B). ``ranks``
    (``task, model, rank``) gives the models' ranks where they are not their positions
    (a board's paired ranks: equal where tied).
    """
    _check(
        "adjacent",
        alpha,
        power,
        chain_procedure,
        n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
    )
    count_columns.require_columns(table, count_columns.PAIR_COLUMNS, source)
    _refuse_unnamed_and_self_pairs(table, source)
    _refuse_repeated_pairs(table, source)
    counts = {
        c: count_columns.whole_numbers(table, c, source) for c in count_columns.PAIR_COLUMNS[2:]
    }
    s = summarize_counts(
        counts["both_correct"], counts["a_only"], counts["b_only"], counts["both_wrong"]
    )
    tasks = (
        table["task"].astype(str)
        if "task" in table.columns
        else pd.Series("all", index=table.index)
    )
    pairs = pd.DataFrame(
        {
            "task": tasks.to_numpy(),
            "task_index": pd.factorize(tasks)[0],
            "model_a": table["model_a"].astype(str).to_numpy(),
            "model_b": table["model_b"].astype(str).to_numpy(),
            "index_a": -1,
            "index_b": -1,
            "rank_a": 0,
            "rank_b": 0,
            **_summary_columns(s),
        }
    )
    listed = _listed_order(pairs)
    if ranks is not None:
        listed = listed.drop(columns="rank").merge(ranks, on=["task", "model"], how="left")
    else:
        listed["rank"] = _tied_places(listed, pairs, counts["a_only"] == counts["b_only"])
    pairs["rank_a"] = pairs[["task", "model_a"]].merge(
        listed, left_on=["task", "model_a"], right_on=["task", "model"], how="left"
    )["rank"].to_numpy()
    pairs["rank_b"] = pairs[["task", "model_b"]].merge(
        listed, left_on=["task", "model_b"], right_on=["task", "model"], how="left"
    )["rank"].to_numpy()
    family = _listed_family(pairs, listed)
    m = _family_size(family_size, len(pairs))
    notes: list[str] = []
    pairs, deferred = _evaluate(
        pairs,
        alpha=alpha,
        power=power,
        family_size=m,
        mixture=mixture,
        n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
        seed=seed,
        score_set=None,
        notes=notes,
    )
    rankings = listed.drop(columns="model_b_side").rename(
        columns={"accuracy": "score"}
    )[["task", "rank", "model", "score", "n_items"]]
    result = _finish(
        pairs, rankings, alpha, power, family, m, chain_procedure, None, {}, notes, deferred
    )
    return _with_fragility(dataclasses.replace(result, n_bootstrap=n_bootstrap), None)


def _summary_columns(s: Any) -> dict:
    """The pair table's statistics columns from a paired summary (one entry per pair); a
    binary summary of counts has the Bernoulli variances ``p (1 - p)``."""
    accuracy_a, accuracy_b = np.atleast_1d(s.accuracy_a), np.atleast_1d(s.accuracy_b)
    delta = np.atleast_1d(s.delta)
    binary = s.variance_a is None  # summarize_counts: binary counts, no score variances
    return {
        "binary": s.binary,
        "n_items": np.atleast_1d(s.n_items),
        "accuracy_a": accuracy_a,
        "accuracy_b": accuracy_b,
        "delta": delta,
        "correlation": np.atleast_1d(s.correlation),
        "a_only": np.atleast_1d(s.a_only),
        "b_only": np.atleast_1d(s.b_only),
        "sd_diff": np.atleast_1d(s.sd_diff),
        "se": np.atleast_1d(s.se),
        "variance_a": accuracy_a * (1 - accuracy_a) if binary else s.variance_a,
        "variance_b": accuracy_b * (1 - accuracy_b) if binary else s.variance_b,
        "order_reversed": delta < 0,
    }


# --- the vectorized evaluation of every pair ------------------------------------------------


def _evaluate(
    pairs: pd.DataFrame,
    *,
    alpha: float,
    power: float,
    family_size: int,
    mixture: Any,  # validated by _check; a sequential.Mixture
    n_bootstrap: int,
    n_bootstrap_required_n: int,
    seed: int | None,
    score_set: ScoreSet | None,
    notes: list[str],
) -> tuple[pd.DataFrame, Callable[[], dict[str, np.ndarray]]]:
    """Every pair's statistics and verdicts; and the function computing its resampled
    columns (see :func:`_resampled`)."""
    p = pairs.copy(deep=False)  # columns are added, none written: the caller's frame stays
    n = p["n_items"].to_numpy(dtype=float)
    delta = p["delta"].to_numpy()
    sd = p["sd_diff"].to_numpy()
    binary = p["binary"].to_numpy(dtype=bool)
    b = p["a_only"].to_numpy()
    c = p["b_only"].to_numpy()
    # the 2x2 cells a binary pair's interval needs, from its accuracy (pair statistics keep no
    # both_correct)
    both_correct = np.maximum(np.round(p["accuracy_a"].to_numpy(dtype=float) * n) - b, 0.0)
    both_wrong = np.maximum(n - both_correct - b - c, 0.0)
    pt = pair_tests(
        binary=binary, n_items=n, delta=delta, sd_diff=sd, a_only=b, b_only=c,
        both_correct=both_correct, both_wrong=both_wrong, alpha=alpha, power=power,
    )  # fmt: skip
    t = pt.statistic
    p["statistic"] = t
    p["p_mcnemar"] = pt.p_mcnemar
    p["p_exact"] = pt.p_exact
    p["p_mid_p"] = pt.p_mid_p
    p["p_paired_t"] = pt.p_paired_t
    p["delta_low"], p["delta_high"] = pt.delta_low, pt.delta_high
    kw: dict[str, Any] = {"alpha": alpha, "power": power}
    testable = pt.testable
    required = pt.required_n
    p["required_n"] = required
    p["resolution_ratio"] = pt.resolution_ratio
    p["unpaired_required_n"] = pw.unpaired_required_n(delta, p["variance_a"], p["variance_b"], **kw)
    with np.errstate(divide="ignore", invalid="ignore"):
        p["paired_efficiency"] = p["unpaired_required_n"] / p["required_n"]
    # Procedures: replace z_{1-alpha/2} by each procedure's level (Definition 1, Section 6.3).
    p["resolved_fixed_n"] = multiplicity.resolved_single_step(t, alpha, power, 1) & pt.resolved
    for proc, verdict in family_verdicts(t, testable, alpha, power, family_size).items():
        p[f"resolved_{proc}"] = verdict
    u = np.where(binary, sequential.boundary(b + c, alpha, mixture=mixture), np.nan)
    p["anytime_boundary"] = u
    p["required_n_anytime"] = sequential.required_n_anytime(required, u, alpha, power)
    anytime = np.asarray(sequential.resolved_anytime(t, u, power), dtype=bool) & binary
    p["resolved_anytime_valid"] = pd.arrays.BooleanArray(anytime, ~binary)  # graded: none
    if not binary.all():
        notes.append("anytime-valid verdicts need binary scores; graded pairs have none")
    # Correlation -/+ 0.1, clamped to the admissible interval (Section 6.2).
    for name, shift in (("minus", -pw.CORRELATION_SHIFT), ("plus", pw.CORRELATION_SHIFT)):
        _, _, q = pw.correlation_sensitivity(
            delta,
            p["variance_a"].to_numpy(),
            p["variance_b"].to_numpy(),
            p["correlation"].to_numpy(),
            n,
            shift,
            binary=binary,
            accuracy_a=p["accuracy_a"].to_numpy(),
            accuracy_b=p["accuracy_b"].to_numpy(),
            sd_diff=sd,
            **kw,
        )
        p[f"resolved_correlation_{name}"] = (np.asarray(q) >= 1) & testable
    deferred = _resampled(
        p, n_bootstrap_required_n, n_bootstrap, seed, score_set, alpha, power, notes
    )
    return p, deferred


def _resampled(
    p: pd.DataFrame,
    n_required_n: int,
    n_bootstrap: int,
    seed: int | None,
    score_set: ScoreSet | None,
    alpha: float,
    power: float,
    notes: list[str],
) -> Callable:
    """Say now which pairs get no resampled columns (notes); return the function that
    computes them (:data:`RESAMPLED_COLUMNS`), run when one of them is first read.

    The function keeps the pairs' counts and indices (and ``score_set`` when graded pairs are
    to be resampled) and gives the numbers an eager computation gives: each pair's draws
    depend on its own data and ``seed`` only.
    """
    binary = p["binary"].to_numpy(dtype=bool)
    graded = np.flatnonzero(~binary)
    a_only, b_only = p["a_only"].to_numpy(), p["b_only"].to_numpy()
    n_items = p["n_items"].to_numpy()
    task_index, index_a, index_b = (p[c].to_numpy() for c in ("task_index", "index_a", "index_b"))
    # N* intervals (the same numbers compare gives for each pair)
    interval_binary = bool(n_required_n and binary.any())
    if interval_binary and binary.sum() > MAX_PAIRS_BINARY_BOOTSTRAP:
        notes.append(
            f"N* intervals skipped for {binary.sum():,} binary pairs (more than "
            f"{MAX_PAIRS_BINARY_BOOTSTRAP:,}){FEWER_PAIRS}"
        )
        interval_binary = False
    interval_graded = bool(n_required_n and graded.size and score_set is not None)
    if interval_graded and graded.size > MAX_PAIRS_GRADED_BOOTSTRAP:
        notes.append(
            f"N* intervals skipped for {graded.size:,} graded pairs (more than "
            f"{MAX_PAIRS_GRADED_BOOTSTRAP:,}){FEWER_PAIRS}"
        )
        interval_graded = False
    # the fourth arbiter of Table 11: the paired percentile bootstrap p-value
    p_binary = bool(n_bootstrap and binary.any())
    if p_binary and binary.sum() > MAX_PAIRS_BINARY_BOOTSTRAP:
        notes.append(
            f"bootstrap p-values skipped: {binary.sum():,} pairs (more than "
            f"{MAX_PAIRS_BINARY_BOOTSTRAP:,}); the exact, mid-p and chi-square p-values "
            "are given for every pair"
        )
        p_binary = False
    p_graded = bool(n_bootstrap and graded.size and score_set is not None)
    if p_graded and graded.size > MAX_PAIRS_GRADED_BOOTSTRAP:
        notes.append(
            f"bootstrap p-values skipped for {graded.size:,} graded pairs (more than "
            f"{MAX_PAIRS_GRADED_BOOTSTRAP:,}); the paired t p-value is given for every pair"
            f"{FEWER_PAIRS}"
        )
        p_graded = False

    # the scores stay referenced by the result only when graded pairs will be resampled
    source = score_set if interval_graded or p_graded else None

    def differences() -> list[np.ndarray]:
        assert source is not None  # only called when graded pairs are resampled
        return [_pair_differences(task_index[k], index_a[k], index_b[k], source) for k in graded]

    def compute() -> dict[str, np.ndarray]:
        low = np.full(binary.size, np.nan)
        high = np.full(binary.size, np.nan)
        p_value = np.full(binary.size, np.nan)
        idx = np.flatnonzero(binary)
        kw: dict[str, Any] = {"alpha": alpha, "power": power}
        if interval_binary:
            low[idx], high[idx] = pw.required_n_bootstrap_interval(
                a_only[idx], b_only[idx], n_items[idx], n_required_n, seed, **kw
            )
        d = differences() if interval_graded or p_graded else []
        if interval_graded:
            low[graded], high[graded] = pw.required_n_bootstrap_interval(
                n_resamples=n_required_n, seed=seed, differences=d, **kw
            )
        # Binary pairs: the exact bootstrap p-value (the resampling law is a multinomial on
        # the 2x2 cells, so no Monte Carlo is needed and the seed does not matter); graded
        # pairs: a seeded Monte Carlo bootstrap of n_bootstrap draws, the one compare runs.
        if p_binary:
            p_value[idx] = resample.binary_bootstrap_p_value(a_only[idx], b_only[idx], n_items[idx])
        if p_graded:
            p_value[graded] = resample.paired_bootstrap(d, n_bootstrap, seed, alpha=alpha).p_value
        return {"p_bootstrap": p_value, "required_n_low": low, "required_n_high": high}

    return compute


# --- clusters ------------------------------------------------------------------------------


def _clustered(
    pairs: pd.DataFrame,
    score_set: ScoreSet,
    *,
    alpha: float,
    power: float,
    n_resamples: int,
    seed: int | None,
    progress: Callable[..., object],
    label: str,
) -> tuple[pd.DataFrame, ClusterStress]:
    p = pairs.copy()
    icc = np.full(len(p), np.nan)
    mbar_all = np.full(len(p), np.nan)
    boot_unresolved = np.zeros(n_resamples, dtype=np.int64) if n_resamples else None
    interval_rows, loo_rows = [], []
    alternatives = {"random": 0, "difficulty_quartiles": 0, "split_halves": 0}
    for t_index, task in enumerate(score_set.tasks):
        rows = np.flatnonzero(p["task_index"].to_numpy() == t_index)
        if rows.size == 0 or task.clusters is None:
            continue
        d = (
            task.scores[:, p["index_a"].to_numpy()[rows]]
            - task.scores[:, p["index_b"].to_numpy()[rows]]
        )
        stats_ = cl.cluster_stats(d, task.clusters)
        value, mbar = cl.icc_from_stats(stats_.sizes, stats_.sums, stats_.sumsq)
        icc[rows], mbar_all[rows] = value, mbar
        required = p["required_n"].to_numpy()[rows]
        n = p["n_items"].to_numpy()[rows]  # each pair on the items both models scored
        if n_resamples:
            progress("cluster bootstrap")
            weights = cl.bootstrap_weights(
                stats_.labels.size,
                n_resamples,
                resample.child_seed(seed, "cluster_bootstrap", (t_index,)),
            )
            b_icc, b_mbar = cl.icc_from_stats(stats_.sizes, stats_.sums, stats_.sumsq, weights)
            b_de = cl.design_effect(b_icc, b_mbar)
            b_required = b_de * required
            b_unresolved = ~(b_required <= n)
            boot_unresolved += b_unresolved.sum(axis=1)
            icc_q, de_q, required_q = (
                resample.quantile(b, [0.05, 0.95], axis=0) for b in (b_icc, b_de, b_required)
            )
            interval_rows.append(
                pd.DataFrame(
                    {
                        "task": np.full(rows.size, task.task, dtype=object),
                        "model_a": p["model_a"].to_numpy(dtype=object)[rows],
                        "model_b": p["model_b"].to_numpy(dtype=object)[rows],
                        "icc": np.asarray(value, dtype=float),
                        "icc_low": icc_q[0],
                        "icc_high": icc_q[1],
                        "design_effect_low": de_q[0],
                        "design_effect_high": de_q[1],
                        "required_n_clustered_low": required_q[0],
                        "required_n_clustered_high": required_q[1],
                        # sums of 0/1: exact, whatever the order of summation
                        "unresolved_share": b_unresolved.mean(axis=0),
                    }
                )
            )
        progress("leave one cluster out")
        l_n, l_clustered = cl.leave_one_out_required_n(stats_, alpha, power)
        task_sizes = pd.Series(task.clusters).value_counts()
        for k, name in enumerate(stats_.labels):
            loo_rows.append(
                {
                    "task": task.task,
                    "dropped": str(name),
                    "items": int(task.scores.shape[0] - task_sizes.get(name, 0)),
                    "unresolved": int(np.sum(~(l_clustered[k] <= l_n[k]))),
                }
            )
        progress("alternative clusters")
        for name, labels in _alternative_clusterings(task, p.iloc[rows], seed, t_index).items():
            a_stats = cl.cluster_stats(d, labels)
            a_icc, a_mbar = cl.icc_from_stats(a_stats.sizes, a_stats.sums, a_stats.sumsq)
            alternatives[name] += int(np.sum(~(cl.design_effect(a_icc, a_mbar) * required <= n)))
    clustered_verdicts(p, icc, mbar_all)
    distribution = {}
    if boot_unresolved is not None:
        counts = pd.Series(boot_unresolved).value_counts(normalize=True).sort_index()
        distribution = {int(k): float(v) for k, v in counts.items()}
    stress = ClusterStress(
        column=label,
        n_resamples=int(n_resamples),
        seed=seed,
        unresolved_distribution=distribution,
        intervals=(
            pd.concat(interval_rows, ignore_index=True) if interval_rows else pd.DataFrame()
        ),
        leave_one_out=pd.DataFrame(loo_rows),
        alternatives=alternatives,
    )
    return p, stress


def _alternative_clusterings(
    task: Any, pairs: pd.DataFrame, seed: int | None, t_index: int
) -> dict:
    """Random clusters of the real sizes (null check), difficulty quartiles, split halves."""
    labels = np.asarray(task.clusters)
    stream = resample.child_seed(seed, "alternative_clusters", (t_index,))
    rng = np.random.Generator(np.random.PCG64(stream))
    difficulty = np.nanmean(task.scores, axis=1)
    edges = np.quantile(difficulty, [0.25, 0.5, 0.75])
    quartiles = np.asarray(np.searchsorted(edges, difficulty, side="right"))
    if np.unique(quartiles).size < 2:
        quartiles = np.arange(difficulty.size) % 4
    position = pd.Series(np.arange(labels.size)).groupby(labels).cumcount().to_numpy()
    halves = np.char.add(labels.astype(str), np.where(position % 2 == 0, "|even", "|odd"))
    return {
        "random": rng.permutation(labels),
        "difficulty_quartiles": quartiles,
        "split_halves": halves,
    }


# --- e-process trajectories (Figure 4) -------------------------------------------------------


def _trajectories(
    p: pd.DataFrame,
    score_set: ScoreSet | None,
    alpha: float,
    power: float,
    mixture: Any,  # validated by _check; a sequential.Mixture
    seed: int | None,
) -> dict:
    """log e_n along the items of the (up to) four binary pairs nearest the anytime boundary.

    Each pair's items are taken in a seeded random order (the order an evaluation that
    samples items at random would see them in).
    """
    if score_set is None or not p["binary"].any():
        return {}
    # the two columns of the candidate pairs, not a copy of every column of them
    boundary = p["anytime_boundary"].to_numpy(dtype=float)
    rows = np.flatnonzero(p["binary"].to_numpy(dtype=bool) & np.isfinite(boundary))
    if rows.size == 0:
        return {}
    z_beta = float(pw.critical_values(alpha, power)[1])
    statistic = p["statistic"].to_numpy(dtype=float)[rows]
    closeness = pd.Series(
        np.abs(np.log(np.abs(statistic) + 1e-12) - np.log(boundary[rows] + z_beta)),
        index=p.index[rows],
    )
    out = {}
    for k in closeness.sort_values().index[:4]:
        row = p.loc[k]
        d = _pair_differences(row["task_index"], row["index_a"], row["index_b"], score_set)
        # Items arrive in a seeded random order: file order (category blocks) would make a
        # curve reflect the file's layout, not what monitoring the evaluation would see.
        rng = np.random.Generator(np.random.PCG64(resample.child_seed(seed, "trajectory")))
        d = d[rng.permutation(d.size)]
        step = max(1, d.size // TRAJECTORY_POINTS)
        positions = np.arange(step - 1, d.size, step)
        log_e = sequential.log_e_trajectory(d, at=positions, mixture=mixture)
        out[f"{row['model_a']} vs {row['model_b']} ({row['task']})"] = {
            "items": (positions + 1).tolist(),
            "log_e": np.atleast_1d(log_e).tolist(),
            "threshold": float(np.log(1 / alpha)),
            "required_n": _finite(row["required_n"]),
        }
    return out


# --- assembly ------------------------------------------------------------------------------


def _finish(
    pairs: pd.DataFrame,
    rankings: pd.DataFrame,
    alpha: float,
    power: float,
    family: str,
    m: int,
    chain_procedure: str,
    stress: ClusterStress | None,
    trajectories: dict,
    notes: list[str],
    deferred: Callable[[], dict[str, np.ndarray]] | None = None,
    gold: pd.DataFrame | None = None,
) -> AuditResult:
    """The audit's result from its pair rows and rankings; ``gold`` (the judge against the
    gold per model) makes it the audit on the gold scale, whose pairs have the columns of
    :data:`GOLD_PAIR_FIELDS` and no correlation sensitivity."""
    unresolved = count_unresolved(pairs)
    if chain_procedure not in unresolved:
        raise InputError(
            "{procedure} gave no verdicts for these data (choose one of "
            + ", ".join(unresolved)
            + ")",
            param="procedure",
            procedure=chain_procedure,
        )
    sensitivity = sensitivity_counts(pairs) if gold is None else {}
    chains = unresolved_chains(pairs, rankings, chain_procedure)
    return AuditResult(
        alpha=float(alpha),
        power=float(power),
        family=family,
        family_size=int(m),
        chain_procedure=chain_procedure,
        rankings=rankings,
        pairs=PairTable.from_frame(
            pairs, deferred, fields=PAIR_FIELDS if gold is None else GOLD_PAIR_FIELDS
        ),
        unresolved=unresolved,
        bonferroni_inflation=float(multiplicity.inflation(alpha, power, m, "bonferroni")),
        sidak_inflation=float(multiplicity.inflation(alpha, power, m, "sidak")),
        chains=chains,
        correlation_sensitivity=sensitivity,
        cluster_stress=stress,
        trajectories=trajectories,
        notes=tuple(notes),
        gold=gold,
    )


def board_order(
    task: TaskScores, names: np.ndarray, alpha: float, use_clusters: bool, notes: list[str]
) -> tuple[np.ndarray, BoardScores]:
    """The task's models best first and their board scores in that order (the order of
    ``evalgap ranks``: the same models, scores and intervals), saying who is left out."""
    from evalgap.report.sentences import ranking_exclusions

    # the missing scores are counted only in the columns they make sum to NaN
    counts = np.full(task.scores.shape[1], task.scores.shape[0])
    holed = np.flatnonzero(np.isnan(task.scores.sum(axis=0)))
    counts[holed] -= np.isnan(task.scores[:, holed]).sum(axis=0)
    notes.extend(ranking_exclusions(task.task, names.tolist(), counts.tolist()))
    scored = np.flatnonzero(counts >= 2)
    # a copy of the (N, K) scores only when a model is left out
    x = task.scores if scored.size == counts.size else task.scores[:, scored]
    codes = task.cluster_codes(use_clusters)
    # the gaps on the items both scored (pair_gaps needs two models); on complete data the
    # board takes the means' differences itself
    gap = None
    if (counts[scored] < x.shape[0]).any():
        from evalgap.stats.ranks import pair_gaps  # a board with missing scores only

        gap = pair_gaps(x)[0] if scored.size >= 2 else np.zeros((scored.size, scored.size))
    board = board_scores(x, names[scored], gap=gap, clusters=codes, alpha=alpha)
    notes.extend(f"task {task.task}: {note}" for note in board_notes(board))
    return scored[board.order], board.listed()


def rank_order(names: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Return the models' indices best first: by mean score, ties by name.

    Parameters
    ----------
    names : numpy.ndarray
        The models' names.
    means : numpy.ndarray
        Their displayed (mean) scores.

    Returns
    -------
    numpy.ndarray
        Indices into ``names``, rank 1 first.
    """
    return np.lexsort((np.asarray(names).astype(str), -np.asarray(means, dtype=float)))


def clustered_verdicts(pairs: pd.DataFrame, icc: np.ndarray, mean_size: np.ndarray) -> None:
    """Add each pair's cluster design effect, clustered N* and clustered verdict to ``pairs``.

    ``design_effect = 1 + (m - 1) ICC`` (Section 6.4) from the pair's ICC and mean cluster
    size; pairs without an ICC (no clusters) get NaN and no verdict.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The pair table (``required_n``, ``n_items``); ``icc``, ``design_effect``,
        ``required_n_clustered`` and ``resolved_clustered`` are set on it.
    icc, mean_size : numpy.ndarray
        Each pair's ICC of the differences and mean cluster size (NaN without clusters).
    """
    has = ~np.isnan(icc)
    design = cl.design_effect(np.nan_to_num(icc), np.nan_to_num(mean_size, nan=1.0))
    pairs["icc"] = icc
    pairs["design_effect"] = np.where(has, design, np.nan)
    pairs["required_n_clustered"] = pairs["required_n"] * pairs["design_effect"]
    verdict = np.where(
        has, pairs["required_n_clustered"].to_numpy() <= pairs["n_items"].to_numpy(), None
    )
    pairs["resolved_clustered"] = pd.array(verdict, dtype="boolean")


def count_unresolved(pairs: pd.DataFrame) -> dict[str, int]:
    """Return the pairs left unresolved, per procedure that gave verdicts.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Pair rows with ``resolved_<procedure>`` columns (a missing verdict counts as none).

    Returns
    -------
    dict
        Procedure (in :data:`PROCEDURES` order) -> unresolved pairs; a procedure whose
        verdicts are all missing is left out.
    """
    out = {}
    for proc in PROCEDURES:
        column = pairs.get(f"resolved_{proc}")
        if column is None or column.isna().all():
            continue
        out[proc] = int((~column.fillna(True).astype(bool)).sum())
    return out


def sensitivity_counts(pairs: pd.DataFrame) -> dict[str, int]:
    """Return the unresolved pairs at fixed n with the correlation moved by -0.1, as
    estimated, and +0.1 (Section 6.2).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Pair rows with ``resolved_fixed_n`` and ``resolved_correlation_minus/plus``.

    Returns
    -------
    dict
        ``correlation_minus_0.1``, ``correlation``, ``correlation_plus_0.1`` -> counts.
    """
    return {
        "correlation_minus_0.1": int((~pairs["resolved_correlation_minus"]).sum()),
        "correlation": int((~pairs["resolved_fixed_n"].fillna(True).astype(bool)).sum()),
        "correlation_plus_0.1": int((~pairs["resolved_correlation_plus"]).sum()),
    }


def unresolved_chains(
    pairs: pd.DataFrame, rankings: pd.DataFrame, procedure: str
) -> dict[str, list[list[str]]]:
    """Per task, the unresolved chains: runs of models chained by unresolved rank-adjacent
    gaps, best first (a model resolved from both neighbours is a chain of one).

    A gap missing from the pairs (or without a verdict) chains its two models."""
    ordered = rankings.sort_values(["task", "rank"], kind="stable")
    task = ordered["task"].to_numpy()
    model = ordered["model"].to_numpy()
    same = task[1:] == task[:-1]
    chain = pd.DataFrame({"task": task[1:][same], "upper": model[:-1][same],
                          "lower": model[1:][same]})
    resolved = _adjacent_verdicts(pairs, chain, f"resolved_{procedure}")
    out = {}
    position = 0
    for name, sub in ordered.groupby("task", sort=False):
        models = sub["model"].tolist()
        groups = [[models[0]]]
        for k, lower in enumerate(models[1:]):
            if resolved[position + k]:
                groups.append([lower])
            else:
                groups[-1].append(lower)
        position += len(models) - 1
        out[name] = groups
    return out


def _adjacent_verdicts(pairs: pd.DataFrame, chain: pd.DataFrame, column: str) -> np.ndarray:
    """Each rank-adjacent gap's verdict (``chain``: task, upper, lower) from the pair rows,
    as A-B or B-A; False (chained) where the pair is missing or has no verdict.

    The pairs are looked up by integer keys of (task, model, model), not joined: an audit of
    all pairs has half a million rows for the K - 1 adjacent gaps of each task."""
    tasks = pd.Index(pd.unique(chain["task"].to_numpy()))
    models = pd.Index(pd.unique(np.concatenate([chain["upper"], chain["lower"]])))
    k = max(len(models), 1)

    def position(index: pd.Index, values: pd.Series) -> np.ndarray:
        if isinstance(values.dtype, pd.CategoricalDtype):  # the categories looked up once
            lookup = np.append(index.get_indexer(values.cat.categories), -1)
            return np.asarray(lookup[values.cat.codes.to_numpy()], dtype=np.int64)
        return np.asarray(index.get_indexer(values.to_numpy()), dtype=np.int64)

    def keys(task: pd.Series, first: pd.Series, second: pd.Series) -> np.ndarray:
        codes = [position(tasks, task), position(models, first), position(models, second)]
        known = (codes[0] >= 0) & (codes[1] >= 0) & (codes[2] >= 0)
        return np.where(known, (codes[0] * k + codes[1]) * k + codes[2], -1)

    pair_keys = pd.Index(keys(pairs["task"], pairs["model_a"], pairs["model_b"]))
    # each verdict and whether there is one, as arrays (no Python object per pair)
    missing = pairs[column].isna().to_numpy()
    verdicts = pairs[column].to_numpy(dtype=bool, na_value=False)
    out = np.zeros(len(chain), dtype=bool)
    if not len(verdicts):  # no pair: every gap chains its models
        return out
    found = np.zeros(len(chain), dtype=bool)
    for first, second in (("upper", "lower"), ("lower", "upper")):  # A-B, else B-A
        wanted = keys(chain["task"], chain[first], chain[second])
        row = pair_keys.get_indexer(wanted) if pair_keys.is_unique else None
        if row is None:  # repeated pairs: the first row of each
            row = pd.Series(np.arange(len(pair_keys)), index=pair_keys).groupby(level=0).first()
            row = row.reindex(wanted).fillna(-1).to_numpy(dtype=np.int64)
        has = (row >= 0) & (wanted >= 0) & ~found
        at = np.where(has, row, 0)
        decided = has & ~missing[at]
        out[decided] = verdicts[at][decided]
        found |= decided
    return out


def _listed_order(pairs: pd.DataFrame) -> pd.DataFrame:
    """Display order of a pairs table: each task's models by first appearance (A before B).

    One row per (task, model): ``rank`` (1 = first listed), and the accuracy and items of
    the row where the model first appears."""
    n = len(pairs)
    side_b = np.tile([False, True], n)
    stacked = pd.DataFrame(
        {
            "task": np.repeat(pairs["task"].to_numpy(), 2),
            "model": np.column_stack([pairs["model_a"], pairs["model_b"]]).ravel(),
            "accuracy": np.column_stack([pairs["accuracy_a"], pairs["accuracy_b"]]).ravel(),
            "n_items": np.repeat(pairs["n_items"].to_numpy(), 2).astype(np.int64),
            "model_b_side": side_b,
        }
    )
    first = stacked.drop_duplicates(["task", "model"], keep="first").reset_index(drop=True)
    first["rank"] = first.groupby("task", sort=False).cumcount() + 1
    return first


def _tied_places(listed: pd.DataFrame, pairs: pd.DataFrame, even: np.ndarray) -> np.ndarray:
    """The listed models' ranks: their places, except that a model the table pairs with the
    one listed just above it at a gap of exactly 0 (``even``: as many items only A as only
    B got right) shares that model's rank, as a board gives tied models one rank."""
    zero = {
        (t, *sorted((a, b)))
        for t, a, b in zip(
            pairs["task"].to_numpy()[even], pairs["model_a"].to_numpy()[even],
            pairs["model_b"].to_numpy()[even], strict=True,
        )
    }  # fmt: skip
    rank = listed["rank"].to_numpy().copy()
    if not zero:
        return rank
    task, model = listed["task"].to_numpy(), listed["model"].to_numpy()
    for r in range(1, rank.size):
        if task[r] == task[r - 1] and (task[r], *sorted((model[r - 1], model[r]))) in zero:
            rank[r] = rank[r - 1]
    return rank


def _listed_family(pairs: pd.DataFrame, listed: pd.DataFrame) -> str:
    """``adjacent`` when every task's rows chain its models in order (A_r+1 = B_r), ``all``
    when they list every pair of its models, else ``listed`` (the pairs as given)."""
    k = listed.groupby("task", sort=False).size()
    rows = pairs.groupby("task", sort=False).size().reindex(k.index)
    same_task = pairs["task"].to_numpy()[1:] == pairs["task"].to_numpy()[:-1]
    linked = pairs["model_a"].to_numpy()[1:] == pairs["model_b"].to_numpy()[:-1]
    if (rows == k - 1).all() and linked[same_task].all():
        return "adjacent"
    if (rows == k * (k - 1) // 2).all():
        return "all"
    return "listed"


def family_pairs(order: np.ndarray, family: str) -> tuple[np.ndarray, np.ndarray]:
    """Return the family's pairs of models ranked ``order`` (best first): the upper and the
    lower model of each, rank-adjacent pairs or all pairs in row-major order."""
    if family == "adjacent":
        return order[:-1], order[1:]
    upper, lower = np.triu_indices(order.size, k=1)
    return order[upper], order[lower]


def _pair_differences(
    task_index: int, index_a: int, index_b: int, score_set: ScoreSet
) -> np.ndarray:
    """Per-item differences of one pair on the items both models scored."""
    task = score_set.tasks[int(task_index)]
    i, j = int(index_a), int(index_b)
    rows = task.pair_rows(i, j)
    return task.scores[rows, i] - task.scores[rows, j]


def _drop_pairs_without_items(pairs: pd.DataFrame, notes: list) -> pd.DataFrame:
    """Leave out (and say so) pairs whose two models share no item."""
    empty = pairs["n_items"].to_numpy() == 0
    if not empty.any():
        return pairs
    first = pairs[empty].iloc[0]
    count = int(empty.sum())
    if empty.all():
        raise InputError(
            f"nothing to audit: no pair of models shares a scored item ({count:,} "
            f"pair{'s' if count != 1 else ''}, e.g. {first['model_a']} vs {first['model_b']} "
            f"on task {first['task']}); a pair is compared on the items both models scored"
        )
    notes.append(
        f"{count:,} pair{'s have' if count != 1 else ' has'} no item both models scored and "
        f"{'are' if count != 1 else 'is'} left out "
        f"(e.g. {first['model_a']} vs {first['model_b']} on task {first['task']})"
    )
    return pairs[~empty].reset_index(drop=True)


def _alignment_notes(score_set: ScoreSet) -> list[str]:
    """One line on missing items (per model, summed over tasks), then the loader's notes."""
    report = score_set.report
    out = list(report.loader_notes)
    missing: dict[str, int] = {}
    for e in report.entries:
        if e.items_missing:
            missing[e.model] = missing.get(e.model, 0) + e.items_missing
    if missing:
        total = sum(report.items_union.values())
        listed = ", ".join(f"{m} {n:,}" for m, n in list(missing.items())[:5])
        more = f", and {len(missing) - 5} more" if len(missing) > 5 else ""
        rule = (
            "--complete-case: only the items every model scored are used"
            if report.complete_case
            else "each pair uses the items both of its models scored"
        )
        out.append(
            f"{len(missing)} of {len(score_set.models)} models lack items (of {total:,}): "
            f"{listed}{more}; {rule}"
        )
    if report.complete_case and report.items_left_out:
        out.append(
            f"--complete-case left out {report.items_left_out:,} items not scored by every model"
        )
    return out + report.row_messages()


def _family_size(declared: int | None, n_pairs: int) -> int:
    """The family size m: the pairs audited, or a declared m that is at least that many."""
    if declared is None:
        return n_pairs
    declared = _validate.whole_number(declared, "family_size", 1)
    if int(declared) < n_pairs:
        raise InputError(
            "{family_size}"
            + f" is smaller than the {n_pairs} pairs audited; declare at least {n_pairs} (a "
            "family contains every pair it tests)",
            param="family_size",
            family_size=int(declared),
        )
    return int(declared)


def _refuse_unnamed_and_self_pairs(table: pd.DataFrame, source: str) -> None:
    """A row needs two named, different models, and a task when the table has a task
    column (rows counted with the header as row 1)."""
    for column in ("task", "model_a", "model_b"):
        if column not in table.columns:
            continue
        names = table[column]
        empty = names.isna().to_numpy() | (names.astype(str).str.strip() == "").to_numpy()
        if empty.any():
            row = int(np.flatnonzero(empty)[0]) + 2
            what = "the task of every pair" if column == "task" else "both models of every pair"
            raise InputError(
                f"{source}: row {row} (counting the header as row 1): {column} is empty; "
                f"name {what}"
            )
    same = (table["model_a"].astype(str) == table["model_b"].astype(str)).to_numpy()
    if same.any():
        row = int(np.flatnonzero(same)[0]) + 2
        raise InputError(
            f"{source}: row {row} (counting the header as row 1) pairs "
            f"{table['model_a'].iloc[row - 2]} with itself; a pair needs two different models"
        )


def _refuse_repeated_pairs(table: pd.DataFrame, source: str) -> None:
    task = table["task"].astype(str) if "task" in table.columns else ""
    a, b = table["model_a"].astype(str), table["model_b"].astype(str)
    key = pd.DataFrame({"task": task, "a": a, "b": b}, index=table.index)
    unordered = pd.DataFrame(
        {"task": task, "low": np.minimum(a, b), "high": np.maximum(a, b)}, index=table.index
    )
    repeated = unordered.duplicated(keep=False)
    if repeated.any():
        rows = [int(r) + 2 for r in np.flatnonzero(repeated.to_numpy())[:4]]
        first = key[repeated].iloc[0]
        raise InputError(
            f"{source}: the pair {first['a']} vs {first['b']} is listed more than once "
            f"(rows {', '.join(map(str, rows))}, counting the header as row 1); "
            "list each pair once, in one order"
        )


def _bucket(label: str, inside: np.ndarray, unresolved: np.ndarray, q: np.ndarray) -> dict:
    """A row of :meth:`AuditResult.binned_table`: the pairs ``inside`` the bucket, how many
    are unresolved, and the median and smallest q among them (NaN left out)."""
    values = q[inside]
    values = values[~np.isnan(values)]
    return {
        "bucket": label,
        "pairs": int(inside.sum()),
        "unresolved": int((unresolved & inside).sum()),
        "q_median": float(np.median(values)) if len(values) else None,
        "q_smallest": float(values.min()) if len(values) else None,
    }


def _check(family: str, alpha: float, power: float, chain_procedure: str, **resamples: int) -> None:
    """Refuse bad settings with one line naming the keyword (``resamples``: counts >= 0)."""
    if family not in FAMILIES:
        raise InputError(
            "{family!b}" + escape(f" must be one of {', '.join(FAMILIES)}; got {family!r}"),
            param="family",
        )
    for name, value in (("alpha", alpha), ("power", power)):
        if np.ndim(value) != 0:  # an audit has one level: a list would broadcast silently
            raise InputError(f"{name} must be one number; got {_validate.show(value)}")
    _validate.levels(alpha, power)
    pw.critical_values(alpha, power)
    for name, value in resamples.items():
        _validate.whole_number(value, name, 0)
    if chain_procedure not in PROCEDURES:
        raise InputError(
            "{procedure} must be one of " + ", ".join(PROCEDURES) + "; got {got!r}",
            param="procedure",
            got=chain_procedure,
        )


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None
