"""``compare --weights``: the gap of items sampled with unequal probabilities.

A stratified item sample (``plan --reference``) runs the items most likely to separate two
models more often than their share of the benchmark; each item then carries a weight
``1 / pi_i`` and the full benchmark's gap is the weighted (Horvitz-Thompson / Hajek) mean,
with a design-based SE (:mod:`evalgap.stats.weighted`). The weights (and strata) come from
a column of the scores table, from the design table the plan wrote (``item_id``, ``weight``,
``stratum``, ``stratum_size`` and optionally ``task``), or as an array beside two score
arrays. Only the weights' ratios matter; the finite-population correction needs each
stratum's size in the benchmark (the design's ``stratum_size``) and is left out without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evalgap.errors import InputError, escape
from evalgap.jobs._scale_parts import DesignScale
from evalgap.stats import _validate
from evalgap.stats import pair_estimate as pe
from evalgap.stats.power import mde

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import AlignmentReport, ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.compare_pair import CompareResult
    from evalgap.stats._types import Alternative, ArrayLike

DESIGN_COLUMNS = ("item_id", "weight")
DESIGN_SUFFIXES = (".csv", ".tsv", ".parquet", ".gz", ".txt")


def weighted_result(
    a: ArrayLike,
    b: ArrayLike,
    weights: ArrayLike,
    strata: ArrayLike | None = None,
    *,
    stratum_sizes: ArrayLike | None = None,
    model_a: str = "A",
    model_b: str = "B",
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    notes: Sequence[str] = (),
    alignment: AlignmentReport | None = None,
) -> CompareResult:
    """The weighted comparison of aligned score arrays with a weight (and stratum) per item:
    compare's result on the design scale (:func:`evalgap.stats.pair_estimate.design`)."""
    from evalgap.jobs.compare_pair import _numeric, _too_few_items

    a, b = _numeric(a, "scores_a"), _numeric(b, "scores_b")
    try:
        w = np.asarray(weights)
    except (TypeError, ValueError):  # ragged nesting
        w = np.asarray([object()])
    if w.dtype.kind not in "iuf":
        raise InputError(
            "{weights} must be an array of positive numbers; got {got!s} values",
            param="weights",
            got=w.dtype,
        )
    if not (a.shape == b.shape == w.shape) or a.ndim != 1:
        raise InputError(
            "{weights} must give one weight per item: "
            + f"{w.size:,} weights for {a.size:,} items",
            param="weights",
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError("the scores must be finite numbers (no NaN or inf): one per item")
    if strata is not None and np.asarray(strata).shape != a.shape:
        raise InputError(
            "{strata} must give one label per item: "
            + f"{np.asarray(strata).size:,} labels for {a.size:,} items",
            param="strata",
        )
    labels = np.asarray(strata, dtype=object)  # the labels as given (NaN stays NaN)
    if strata is not None and any(label != label or label is None for label in labels):
        raise InputError(
            "{strata} holds missing labels (NaN or None): give every item its stratum",
            param="strata",
        )
    with np.errstate(over="ignore", invalid="ignore"):
        d = a - b
    if not np.abs(d).max(initial=0.0) <= _validate.MAX_SCORE:
        raise InputError(
            "scores differ by more than 1e150: beyond it the variance of the differences "
            "overflows; rescale the scores"
        )
    g = pe.design(
        d, weights=w, strata=strata, stratum_sizes=stratum_sizes, alpha=alpha, power=power,
        alternative=alternative,
    )  # fmt: skip
    # The minimum-items rule and a zero design-based SE leave the design's N* unestimable
    # (the estimate's NaN), as they leave compare's: the notes say why.
    too_few = _too_few_items(int(np.count_nonzero(d)), alpha, alternative)
    if too_few:
        notes = (*notes, too_few)
    elif g.se == 0 and g.delta != 0:
        notes = (
            *notes,
            "every item differs from the models' gap by nothing within its stratum, so the "
            "design-based SE is 0 and the items a design needs cannot be estimated from these data",
        )
    if strata is not None and stratum_sizes is None:
        notes = (
            *notes,
            "the design gives no stratum sizes (stratum_size, its items in the benchmark), so "
            "the SE has no finite-population correction (conservative when a stratum was "
            "sampled heavily)",
        )
    return _on_design(
        a, b, g, model_a=model_a, model_b=model_b, notes=notes, alignment=alignment,
        settings={"alpha": alpha, "power": power, "alternative": alternative},
        n_strata=None if strata is None else int(np.unique(np.asarray(strata)).size),
        model_score=lambda x: float(
            pe.design(x, weights=w, strata=strata, stratum_sizes=stratum_sizes).delta
        ),
    )  # fmt: skip


def _on_design(
    a: np.ndarray, b: np.ndarray, g: pe.PairEstimate, *, model_a: str, model_b: str,
    notes: Sequence[str], alignment: AlignmentReport | None, n_strata: int | None,
    model_score: Callable[[np.ndarray], float], settings: dict[str, Any],
) -> CompareResult:  # fmt: skip
    """compare's one result with the weighted gap ``g`` as its headline: the sample's
    counts beside it (compare's, unweighted), each model's weighted score (``model_score``)
    and the design's part."""
    from evalgap.jobs.compare_pair import compare_scores, scaled

    s = settings
    sample = compare_scores(
        a, b, alpha=s["alpha"], power=s["power"], alternative=s["alternative"],
        n_bootstrap=0, n_bootstrap_required_n=0, n_permutations=0, model_a=model_a,
        model_b=model_b, alignment=alignment,
    )  # fmt: skip
    part = DesignScale(
        n_strata=n_strata,
        unweighted_delta=float(np.mean(a - b)),
        statistic=float(g.parts["statistic"]),
        weight_sum=float(g.parts["weight_sum"]),
        population_size=g.parts["population_size"],
        effective_n=float(g.effective_n),
    )
    estimable = g.se > 0 and not any(n.startswith("too few items") for n in notes)
    return scaled(
        sample, g, accuracy=(model_score(a), model_score(b)),
        mde=float(mde(1, g.se, **s)) if estimable else None, notes=notes, design=part,
    )  # fmt: skip


def compare_weighted(
    score_set: ScoreSet,
    model_a: str,
    model_b: str,
    design: pd.DataFrame,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> CompareResult:
    """Weighted comparison of two models of ``score_set``; ``design`` is a DataFrame with
    ``item_id``, ``weight``, optionally ``stratum``, ``stratum_size`` and ``task`` (see
    :func:`design_table`)."""
    import pandas as pd

    i, j = score_set.model_index(model_a), score_set.model_index(model_b)
    by_task = "task" in design.columns
    keyed = design.set_index(["task", "item_id"] if by_task else ["item_id"])
    parts, notes, unweighted = [], [], 0
    for t in score_set.tasks:
        rows = t.pair_rows(i, j)
        ids = pd.Index(t.item_ids[rows].astype(str))
        key = pd.MultiIndex.from_arrays([np.full(ids.size, t.task), ids]) if by_task else ids
        found = keyed.reindex(key)
        missing = found["weight"].isna().to_numpy()
        unweighted += int(missing.sum())
        parts.append((t.scores[rows, i], t.scores[rows, j], found, missing))
    if unweighted:
        raise InputError(
            f"{unweighted:,} item(s) both models scored have no weight in the design; give "
            "every item run its weight (the design's item list), or drop the items"
        )
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    found = pd.concat([p[2] for p in parts])
    scored = len(found)
    if scored < len(keyed):
        notes.append(
            f"{len(keyed) - scored:,} of the design's {len(keyed):,} items were not scored by "
            "both models and are left out (the estimate stays unbiased only if they are "
            "missing at random within their stratum)"
        )
    strata = found["stratum"].astype(str).to_numpy() if "stratum" in found.columns else None
    sizes = found["stratum_size"].to_numpy(dtype=float) if "stratum_size" in found else None
    return weighted_result(
        a,
        b,
        found["weight"].to_numpy(dtype=float),
        strata,
        stratum_sizes=sizes,
        model_a=model_a,
        model_b=model_b,
        alpha=alpha,
        power=power,
        alternative=alternative,
        notes=notes,
        alignment=score_set.report,
    )


def design_table(
    weights: str | Path | pd.DataFrame,
    strata: str | None = None,
    *,
    data: ScoresInput | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> pd.DataFrame:
    """The design as a DataFrame (``item_id``, ``weight``[, ``stratum``, ``stratum_size``]
    [, ``task``]).

    ``weights`` is a DataFrame or a file (CSV or Parquet) with those columns (``strata``
    then names its stratum column, default ``stratum`` when present), or the name of a
    column of the scores ``data`` holding each item's weight (``strata`` a column of
    stratum labels); a weight must be the same for both models' rows of an item.
    """
    import pandas as pd

    if strata is not None and not isinstance(strata, str):
        raise InputError(
            "{strata} with a table or design names its stratum column; got "
            + escape(type(strata).__name__)
            + " (an array of labels goes with two score arrays)",
            param="strata",
        )
    if isinstance(weights, (str, Path)) and Path(weights).is_file():
        from evalgap.io._write import unescape_cell
        from evalgap.io.tables import read_frame

        # The project's reader: a damaged, non-UTF-8 or compressed file is one line naming it;
        # cells are read as written ("0001" stays an id), numbers converted by _check_design.
        path = Path(weights)
        table = read_frame(path, as_text=True)
        if ".parquet" not in path.suffixes:  # evalgap's design CSVs escape formula-like ids
            for column in ("item_id", "task", "stratum"):
                if column in table.columns:
                    table[column] = table[column].map(unescape_cell, na_action="ignore")
        return _check_design(table, strata, str(path))
    if isinstance(weights, pd.DataFrame):
        return _check_design(weights, strata, "the design table")
    if isinstance(weights, Path) or (
        isinstance(weights, str) and Path(weights).suffix.lower() in DESIGN_SUFFIXES
    ):
        raise InputError(
            "{weights}: no such design file (a design file holds item_id, weight[, stratum, "
            "stratum_size]; a name without a file suffix is a column)",
            param="weights",
            weights=str(weights),
        )
    if not isinstance(weights, str):
        raise InputError(
            "{weights} is a column of the scores table, a design file (item_id, weight"
            "[, stratum]) or a DataFrame; got " + escape(type(weights).__name__),
            param="weights",
        )
    from evalgap._scores import ScoreSet
    from evalgap.jobs._inputs import long_scores

    if isinstance(data, ScoreSet):
        raise InputError(
            "{weights} names a column of a scores table, and a ScoreSet keeps no such column: "
            "give the design (item_id, weight[, stratum]) as a DataFrame or file",
            param="weights",
            weights=weights,
        )
    given = {k: v for k, v in columns.items() if k not in ("score_column", "cluster_column")}
    long = long_scores(data, options=options, score_column=weights, cluster_column=strata, **given)
    if long.columns.get("score") != weights or (strata and long.columns.get("cluster") != strata):
        raise InputError(
            escape(f"{long.source}: ")
            + "{weights} names a column of a scores table, and this source is not one; give "
            "the design file (item_id, weight[, stratum]) instead",
            param="weights",
            weights=weights,
        )
    frame = long.frame.rename(columns={"score": "weight", "cluster": "stratum"})
    keys = ["task", "item_id"]
    spread = frame.groupby(keys)["weight"].nunique(dropna=False)
    if (spread > 1).any():
        task, item = spread[spread > 1].index[0]
        raise InputError(
            f"{long.source}: item {item!r} (task {task!r}) has different weights in column "
            f"{weights!r} on different rows; an item's weight is one number, the same for "
            "both models"
        )
    table = frame.drop_duplicates(keys)[[*keys, "weight", *(["stratum"] if strata else [])]]
    return _check_design(table, "stratum" if strata else None, long.source)


def _check_design(table: pd.DataFrame, strata: str | None, source: str) -> pd.DataFrame:
    missing = [c for c in DESIGN_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(
            f"{source}: a design needs columns {', '.join(DESIGN_COLUMNS)} (and optionally "
            f"stratum, task); missing {', '.join(missing)} (found: "
            f"{', '.join(map(str, table.columns[:8]))})"
        )
    import pandas as pd

    keep = [c for c in ("task", "item_id", "weight") if c in table.columns]
    out = table[keep].copy()
    out["item_id"] = out["item_id"].astype(str)
    if "task" in out.columns:
        out["task"] = out["task"].astype(str)
    stratum = strata or ("stratum" if "stratum" in table.columns else None)
    if stratum is not None:
        if stratum not in table.columns:
            raise InputError(f"{source}: no stratum column {stratum!r}")
        missing = table[stratum].isna().to_numpy()
        if missing.any():
            raise InputError(
                f"{source}: {int(missing.sum()):,} item(s) have no stratum (first: item "
                f"{out['item_id'].iloc[int(np.flatnonzero(missing)[0])]!r}); give every item "
                "its stratum label"
            )
        out["stratum"] = table[stratum].astype(str).to_numpy()
    if "stratum_size" in table.columns:
        size = pd.to_numeric(table["stratum_size"], errors="coerce").to_numpy(dtype=float)
        bad = ~(np.isfinite(size) & (size >= 1) & (size == np.floor(size)))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{source}: {int(bad.sum()):,} stratum_size value(s) are not whole numbers of "
                f"items (first: item {out['item_id'].iloc[row]!r}, "
                f"{_validate.show(table['stratum_size'].iloc[row])}); a stratum's size is its "
                "items in the benchmark"
            )
        out["stratum_size"] = size
    weight = pd.to_numeric(out["weight"], errors="coerce")
    bad = ~(np.isfinite(weight) & (weight > 0))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{source}: {int(bad.sum()):,} weight(s) are not positive numbers (first: item "
            f"{out['item_id'].iloc[row]!r}, {_validate.show(table['weight'].iloc[row])}); a "
            "weight is 1/pi"
        )
    out["weight"] = weight.to_numpy(dtype=float)
    key = ["task", "item_id"] if "task" in out.columns else ["item_id"]
    if out.duplicated(key).any():
        item = out.loc[out.duplicated(key), "item_id"].iloc[0]
        raise InputError(f"{source}: item {item!r} appears twice in the design")
    return out.reset_index(drop=True)
