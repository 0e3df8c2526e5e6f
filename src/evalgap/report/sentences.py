"""Every job's closing sentence (its ``verdict``), built from the job's result.

The jobs' ``verdict`` properties call these builders, so the sentence a user reads in the
terminal, the HTML page and ``--json`` is written once, with the one p-value and N*
formatters of :mod:`evalgap.report.text`. Nothing here computes a statistic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from evalgap.report.text import (
    format_count,
    format_gap,
    format_level,
    format_n,
    format_p,
    format_percent,
    format_points,
    format_q,
    format_score,
    gap_interval,
    number,
    pairs_noun,
    plural,
    points_interval,
    score_interval,
)

if TYPE_CHECKING:  # structural types: the jobs import this module, it imports no job
    import pandas as pd



def compare_verdict(r: Any) -> str:
    """Return compare's sentence on its scale: what the tests say, and whether the benchmark
    resolves it."""
    if r.gold is not None:
        return _gold_compare_verdict(r)
    if r.design is not None:
        return _weighted_compare_verdict(r)
    if r.estimate.scale == "configuration":
        return configuration_compare_verdict(r)
    if r.binary:
        first = _test_clause(
            r, ("chi-square", r.p_values.mcnemar), ("the exact test", r.p_values.exact)
        )
    else:
        first = _test_clause(
            r,
            ("the paired t test", r.p_values.paired_t),
            ("the bootstrap", r.p_values.bootstrap),
            floor=r.bootstrap.p_floor if r.bootstrap else 0.0,
        )
    too_few = any(note.startswith("too few items") for note in r.notes)
    if too_few:
        first = f"too few items differ between the models to test at alpha={r.alpha:g}"
    setting = f"at alpha={r.alpha:g}{_one_sided(r)}, power {r.power:g}"
    if too_few:
        second = (
            "so few cannot estimate the spread of the differences either: the items needed "
            "to resolve the gap are not estimated"
        )
    elif r.delta == 0:
        second = "the gap is exactly zero, so no benchmark size resolves it"
    elif _against(r):
        second = _against_clause(r)
    elif r.resolution_ratio is None:
        second = (
            "every item differs the same way, so these data cannot estimate the items "
            "needed to resolve the gap"
        )
    elif r.resolved:
        second = (
            f"q={format_q(r.resolution_ratio)}: the {_items(r.n_items)} resolve a gap this "
            f"size {setting} (N*={format_count(r.required_n)})"
        )
    else:
        second = (
            f"q={format_q(r.resolution_ratio)}: resolving a gap this size {setting} needs "
            f"{_items(r.required_n)} (this benchmark has {format_count(r.n_items)})"
        )
    sentence = f"{first}; {second}"
    ci = r.required_n_interval
    if ci is not None and ci.straddles_n and r.required_n is not None:
        low, high = (format_n(x, infinite="infinity") for x in (ci.low, ci.high))
        sentence += (
            f"; the 90% bootstrap interval of N* ({low} to {high}) "
            "straddles N, so the verdict is not robust"
        )
    return sentence + _next_step(r, r.n_items, "collect")


def _next_step(r: Any, have: int, verb: str, what: str = "items") -> str:
    """What to do next after a comparison that is not decided (empty when it is): collect
    the items N* asks for beyond those there are, or report the two models as not told apart
    (a gap not shown is not shown to be zero, so never "tied").

    ``have`` counts what N* counts (items, or gold labels), ``verb`` says how to get more.
    """
    if r.significant:
        return ""
    if r.too_few_items:
        return (
            f"; next: {verb} more {what} (too few differ to say how many), or report the "
            "two as not told apart"
        )
    if _against(r):
        better = r.model_a if r.alternative == "greater" else r.model_b
        return f"; next: report {better} as not shown better"
    apart = "report the two as not told apart"
    more = 0 if r.delta == 0 or r.required_n is None else r.required_n - have
    if more <= 0:
        return f"; next: {apart}"
    return f"; next: {verb} about {_about(more)} more {what}, or {apart}"


def _about(count: float) -> str:
    """A count to collect, rounded up to two significant digits: ``7,710`` -> ``7,800``."""
    count = math.ceil(count)
    if count < 100:
        return format_count(count)
    step = 10 ** (len(str(count)) - 2)
    return format_count(math.ceil(count / step) * step)


def flip_removal(entry: Any, binary: bool, model_a: str, model_b: str) -> str:
    """Return what an items-to-flip entry removes: "2 items only model-x got right"."""
    if entry.items_to_flip is None:
        return "no removal changes it"
    a_kind, b_kind, same = (
        (f"only {model_a} got right", f"only {model_b} got right", "both agree on")
        if binary
        else (f"{model_a} scored higher", f"{model_b} scored higher", "tied")
    )
    kinds = (
        (entry.remove_a_only, a_kind),
        (entry.remove_b_only, b_kind),
        (entry.remove_concordant, same),
    )
    text = " and ".join(
        f"{format_count(count)} {_noun(count)} {what}" for count, what in kinds if count
    )
    if entry.exact:
        return text
    if entry.lower_bound is not None:
        return f"{text} (at most; at least {format_count(entry.lower_bound)})"
    return f"{text} (found greedily; fewer may do)"


# A verdict that this many removals or fewer reverse is called fragile in the sentence.
FRAGILE_ITEMS = 10


def fragility_verdict(r: Any) -> str:
    """Return ``evalgap fragility``'s sentence: how many pairs have a verdict that a few
    removals reverse, and the closest call."""
    pairs = pairs_noun(r.family, len(r.pairs))
    fragile = int(np.sum(r.fewest() <= FRAGILE_ITEMS))  # NaN (no removal can) is not
    closest = r.closest()
    if closest is None:
        return f"no removal of items reverses any verdict of the {pairs}"
    pair, entry = closest
    bound = "" if entry.exact else "at most "
    where = "" if pair.task in ("", "all") else f" on {pair.task}"
    return (
        f"{fragile} of {pairs} have a verdict that removing {FRAGILE_ITEMS} items or fewer "
        f"reverses; the closest call is {pair.model_a} vs {pair.model_b}{where}: removing "
        f"{bound}{format_count(entry.items_to_flip)} {_noun(entry.items_to_flip)} reverses its "
        f"{FLIP_TEST_NAMES[entry.test]} verdict ({flip_claim(entry.claim, entry.test)})"
    )


# The items-to-flip entries whose verdict is resolution (q >= 1 at a procedure's level).
RESOLUTION_ENTRIES = ("resolution", "bonferroni", "sidak", "holm")
def card_verdict(r: Any) -> str:
    """Return the card's sentence: what share of the ranking the benchmark can claim."""
    pairs = sum(len(t.pairs) for t in r.tasks)
    models = sum(len(t.models) for t in r.tasks)
    separated = sum(t.separated for t in r.tasks)
    resolved = sum(t.resolved for t in r.tasks)
    single = sum(t.single_rank for t in r.tasks)
    level = format_level(r.settings["alpha"])
    if len(r.tasks) > 1:
        where = f" over {len(r.tasks)} tasks"
        claim = (
            f"{single} of the {format_count(models)} rankings of a model on a task are a "
            "single rank"
        )
    else:
        where, claim = "", f"{single} of {plural(models, 'model')} can claim a single rank"
    verb = "is" if pairs == 1 else "are"
    return (
        f"{separated} of {plural(pairs, 'adjacent pair')}{where} {verb} separated by the "
        f"{level} simultaneous rank sets ({resolved} resolved, q >= 1), and {claim}"
    )


# How a sentence names the test behind an items-to-flip entry.
FLIP_TEST_NAMES = {
    "exact": "exact-test",
    "mcnemar": "chi-square",
    "paired_t": "paired t",
    "sign": "sign-test",
    "resolution": "resolution",
    "bonferroni": "Bonferroni resolution",
    "sidak": "Sidak resolution",
    "holm": "Holm resolution",
}


def _noun(count: int) -> str:
    return "item" if count == 1 else "items"


def flip_rank_claim(entry: Any) -> str:
    """Return a rank claim as the table names it: "A alone at rank 1", "A shown above B"."""
    if entry.claim == "top":
        return "alone at rank 1" if entry.holds else "not alone at rank 1"
    if entry.task == "battles":
        return "scores above"
    return "shown better" if entry.holds else "not shown better"


def flip_claim(model: str | None, test: str) -> str:
    """Return a verdict as the items-to-flip table names it: "model-x better", "unresolved"."""
    if test in RESOLUTION_ENTRIES:
        return f"resolved, {model} better" if model else "unresolved"
    return f"{model} better" if model else "no difference shown"


def _one_sided(r: Any) -> str:
    """The tested side, for the resolution clause: "" two-sided."""
    if r.alternative == "two-sided":
        return ""
    return f" one-sided (H1: {r.model_a if r.alternative == 'greater' else r.model_b} better)"


def _against(r: Any) -> bool:
    """Whether the gap lies on the side a one-sided alternative does not test."""
    from evalgap.stats.power import opposes_alternative

    return bool(opposes_alternative(r.delta, r.alternative))


def _against_clause(r: Any) -> str:
    better, other = (r.model_a, r.model_b) if r.alternative == "greater" else (r.model_b, r.model_a)
    return (
        f"the observed gap ({format_points(r.delta)} points, {r.model_a} minus {r.model_b}) "
        "favours "
        f"{other}, the side the one-sided test (H1: {better} better) does not look at: it is "
        f"no evidence that {better} is better, and no number of items resolves a gap in that "
        "direction from this estimate"
    )


def _test_clause(
    r: Any,
    first: tuple[str, float],
    second: tuple[str, float | None],
    floor: float = 0.0,
) -> str:
    (name1, p1), (name2, p2) = first, second
    if p2 is None:
        verdict = "significant" if p1 <= r.alpha else "not significant"
        return f"{verdict} by {name1} ({format_p(p1)})"
    s1, s2 = p1 <= r.alpha, p2 <= r.alpha
    f1, f2 = format_p(p1), format_p(p2, floor)
    if s1 and s2:
        return f"significant by {name1} ({f1}) and by {name2} ({f2})"
    if not s1 and not s2:
        return f"not significant by {name1} ({f1}) nor by {name2} ({f2})"
    (yes, fy), (no, fn) = ((name1, f1), (name2, f2)) if s1 else ((name2, f2), (name1, f1))
    return f"significant by {yes} ({fy}) but not by {no} ({fn})"


def _items(n: int) -> str:
    return f"{format_count(n)} item{'' if n == 1 else 's'}"


def compare_groups_verdict(r: Any) -> str:
    """Return compare --by's sentence: in how many groups the gap is significant after the
    correction."""
    k, m = len(r.significant_groups), len(r.groups)
    test = "exact McNemar" if r.pooled.binary else "paired t"
    listed = f" ({', '.join(r.significant_groups[:5])}" + (", ...)" if k > 5 else ")")
    return (
        f"{r.model_a} and {r.model_b} differ significantly in {k} of {m} "
        f"{r.by} group{'s' if m != 1 else ''}{listed if k else ''} "
        f"({test} p-values, {r.adjustment}-adjusted over {m} groups, alpha={r.alpha:g})"
    )


def audit_verdict(r: Any) -> str:
    """Return the audit's sentence: how many pairs the benchmark resolves, the chains, the tiers.

    The one summary of an audit: the terminal, the HTML page and ``--json`` (``verdict``)
    print this string. Fixed n first (Definition 1), then the chain procedure when it is
    another one (else Bonferroni), anytime-valid testing and clustering when they gave
    verdicts, the correlation -/+ 0.1 range (Section 6.2), the unresolved chains and the
    rank-set tiers with the procedure that made them.
    """
    if r.gold is not None:
        return _gold_audit_verdict(r)
    pairs = len(r.pairs)
    fixed = r.unresolved["fixed_n"]
    setting = f"at alpha={r.alpha:g}, power {r.power:g}"
    sentence = (
        f"{format_count(fixed)} of {pairs_noun(r.family, pairs)} {'is' if fixed == 1 else 'are'} "
        f"unresolved {setting} (q < 1 at fixed n)"
    )
    extra = []
    if r.chain_procedure != "fixed_n" and r.chain_procedure in r.unresolved:
        extra.append(
            f"{format_count(r.unresolved[r.chain_procedure])} with {_procedure(r.chain_procedure)} "
            f"over a family of {format_count(r.family_size)}"
        )
    elif "bonferroni" in r.unresolved:
        extra.append(
            f"{format_count(r.unresolved['bonferroni'])} with Bonferroni over a family of "
            f"{format_count(r.family_size)}"
        )
    for proc, words in (("anytime_valid", "with anytime-valid testing"),
                        ("clustered", "once clustering is accounted for")):  # fmt: skip
        if proc in r.unresolved and proc != r.chain_procedure:
            extra.append(f"{format_count(r.unresolved[proc])} {words}")
    if extra:
        sentence += "; " + ", ".join(extra)
    sens = r.correlation_sensitivity
    low = min(sens["correlation_minus_0.1"], sens["correlation_plus_0.1"])
    high = max(sens["correlation_minus_0.1"], sens["correlation_plus_0.1"])
    if low != high or low != fixed:
        sentence += (
            f"; moving the correlation by -/+ 0.1 gives {format_count(low)} to "
            f"{format_count(high)} unresolved"
        )
    chains = [c for task_chains in r.chains.values() for c in task_chains if len(c) > 1]
    under = "fixed n" if r.chain_procedure == "fixed_n" else _procedure(r.chain_procedure)
    if chains:
        models = sum(len(c) for c in chains)
        sentence += (
            f"; {_count(len(chains), 'unresolved chain')} ({under}) "
            f"{'joins' if len(chains) == 1 else 'join'} {_count(models, 'model')} whose "
            "rank-adjacent gaps this benchmark cannot resolve"
        )
    else:
        sentence += f"; every rank-adjacent gap is resolved ({under}), so no unresolved chain"
    tiers = r.tiers
    if tiers is not None:
        n_tiers = sum(len(t) for t in tiers.values())
        n_models = sum(len(m) for t in tiers.values() for m in t)
        where = f" of {_count(len(tiers), 'task')}" if len(tiers) > 1 else ""
        sentence += (
            f"; the tiers, from {r.tier_method}, put the {_count(n_models, 'model')}{where} "
            f"in {_count(n_tiers, 'tier')}"
        )
    return sentence + _audit_next_step(r, r.pairs.n_items, "collect", "items") + "."


def _audit_next_step(r: Any, have: Any, verb: str, what: str) -> str:
    """What to do next about an audit's pairs unresolved at fixed n (empty when none is):
    the most further items (or labels) any of them needs by its N*, or report them as not
    told apart (which does not mean equal).
    ``have`` counts per pair what N* counts."""
    unresolved = r.pairs.unresolved("fixed_n")
    k = int(unresolved.sum())
    if not k:
        return ""
    pairs = "the unresolved pair" if k == 1 else f"the {format_count(k)} unresolved pairs"
    more = np.asarray(r.pairs.required_n, dtype=float) - np.asarray(have, dtype=float)
    more = more[unresolved & np.isfinite(more) & (more > 0)]
    if not len(more):
        return f"; next: report {pairs} as not told apart"
    most = "" if k == 1 else " (the most any of them needs)"
    them = "it" if k == 1 else "them"
    return (
        f"; next: for {pairs}, {verb} about {_about(float(more.max()))} more {what}{most}, "
        f"or report {them} as not told apart"
    )


def tier_method(r: Any, max_rank_models: int) -> str:
    """Return which procedure made an audit's tiers (or why it has none).

    Parameters
    ----------
    r : AuditResult
        The audit.
    max_rank_models : int
        The most models an audit computes rank sets for (the job's limit).

    Returns
    -------
    str
        The procedure and its replicates, or the reason there are no tiers.
    """
    ranks = r.rank_sets
    if ranks is None:
        if r.gold is not None:
            return (
                "no tiers: the audit on the gold scale computes no rank sets (evalgap ranks "
                "with the gold labels does)"
            )
        if r.alignment is None:
            return "no tiers: rank sets need per-item scores, and pair counts have none"
        largest = int(r.rankings.groupby("task").size().max()) if len(r.rankings) else 0
        if largest > max_rank_models:
            return (
                f"no tiers: rank sets are left out of audits of more than "
                f"{max_rank_models} models (evalgap ranks computes them)"
            )
        return "no tiers: the rank sets were skipped (0 rank-set bootstrap replicates)"
    level = format_level(ranks.alpha)
    described = []
    for method in dict.fromkeys(ranks.methods.values()):
        if "bootstrap" in method:
            described.append(f"{method}, B={format_count(ranks.n_bootstrap)}")
        else:
            described.append(
                f"{method} tests, the fallback where the models are too many for the items "
                "or clusters"
            )
    per_task = " per task" if len(described) > 1 else ""
    return f"{level} simultaneous rank sets ({'; '.join(described)}{per_task})"


def _count(count: int, noun: str) -> str:
    return f"{format_count(count)} {noun}{'' if count == 1 else 's'}"


_PROCEDURE_NAMES = {
    "bonferroni": "Bonferroni",
    "sidak": "Sidak",
    "holm": "Holm",
    "bh": "Benjamini-Hochberg",
    "anytime_valid": "anytime-valid testing",
    "clustered": "clustering",
}


def _procedure(name: str) -> str:
    return _PROCEDURE_NAMES.get(name, name)


def degrade_verdict(r: Any) -> str:
    """Return degrade's paragraph, one a release manager can paste into a pull request.

    With a margin the gate decides on non-inferiority, so that decision opens the paragraph
    (the exit code of ``--fail-on-degradation`` follows it); the degradation tests follow,
    without their capitalised label.
    """
    p = r.p_values
    tests = (
        f"pooled p = {_p(p['pooled'])}, max-drop p = {_p(p['max_drop'])}, "
        f"Fisher p = {_p(p['fisher'])}"
    )
    t = r.total
    size = (
        f" over {format_count(t.n_items)} items in {len(r.tasks)} task(s)"
        if t.n_items is not None
        else f" over {len(r.tasks)} task(s)"
    )
    gap = ""
    if t.delta is not None and t.n_items:
        change = (
            f"a drop of {format_points(t.delta, signed=False)} points"
            if t.delta >= 0
            else f"a gain of {format_points(-t.delta, signed=False)} points"
        )
        gap = (
            f" The candidate's accuracy is {format_percent(t.accuracy_candidate, 2)} against "
            f"{format_percent(t.accuracy_baseline, 2)} ({change}, SE "
            f"{format_points(t.se, signed=False)}); "
            f"{format_percent(t.flip_rate, 2)} of items flipped"
            + (
                f" and {format_percent(t.degradation_rate)} of the flips went against the "
                "candidate."
                if t.a_only + t.b_only
                else "."
            )
        )
    # the clearest drops: tasks where the candidate lost more items than it won
    worst = sorted((x for x in r.tasks if x.a_only > x.b_only), key=lambda x: x.p_value)[:3]
    pooled_fires = p["pooled"] <= r.alpha
    gated = r.non_inferiority is not None
    label = "The degradation tests (no margin): " if gated else ""
    if r.degraded and pooled_fires:
        head = (
            f"{label or 'DEGRADED: '}{r.candidate} is significantly worse than {r.baseline} "
            f"at alpha = {r.alpha:g}{size} ({tests})."
        )
    elif r.degraded:
        # only max-drop or Fisher rejects: a drop on some task, not a drop overall
        if p["max_drop"] <= r.alpha and r.max_drop_task is not None:
            where = f"task {r.max_drop_task}, the largest standardized drop"
        else:
            where = "tasks " + ", ".join(w.task for w in worst)
        head = (
            f"{label or 'DEGRADED: '}{r.candidate} is worse than {r.baseline} on at least one "
            f"task ({where}) at alpha = {r.alpha:g}{size}; the pooled test does not find it "
            f"worse over all tasks ({tests})."
        )
        gap = gap.replace(" The candidate's", " Over all tasks the candidate's", 1)
    else:
        head = (
            f"{label or 'NOT DEGRADED: '}no significant degradation of {r.candidate} against "
            f"{r.baseline} at alpha = {r.alpha:g}{size} ({tests})."
        )
    detail = ""
    if r.degraded and worst:
        detail = (
            " Most affected: " + ", ".join(f"{w.task} (p = {_p(w.p_value)})" for w in worst) + "."
        )
    elif not r.degraded and r.detectable_drop is not None:
        detail = (
            " At this size and flip rate, drops of "
            f"{format_points(r.detectable_drop, signed=False)} "
            "points or more would be detected with 80% power."
        )
    bound = (
        f" The decision flags a degradation when any of the three tests rejects; its "
        f"false-alarm rate is at most {3 * r.alpha:g} (3 alpha)."
    )
    degradation = head + gap + detail + bound
    if gated:
        return _noninferiority_sentences(r) + " " + degradation + _equivalence_sentence(r)
    return degradation + _equivalence_sentence(r)


def _noninferiority_sentences(r: Any) -> str:
    """The gate's decision with a margin: per-task upper bounds of the drop, worst first."""
    level = format_level(r.alpha)
    ni = r.non_inferiority
    margin = 100 * ni["margin"]
    ranked = sorted(ni["tasks"], key=_worst_first)
    bounds = ", ".join(f"{t['task']} {_points(t['upper_bound'])}" for t in ranked[:6]) + (
        f" and {len(ranked) - 6} more" if len(ranked) > 6 else ""
    )
    failing = [t["task"] for t in ranked if not t["non_inferior"]]
    if ni["non_inferior"]:
        head = (
            f"NON-INFERIOR: on every task {r.candidate} is shown to lose less than "
            f"{margin:g} points against {r.baseline}"
        )
    else:
        head = (
            f"NON-INFERIORITY NOT SHOWN at a margin of {margin:g} points on "
            f"{len(failing)} of {len(ni['tasks'])} task(s) ({', '.join(failing[:5])}"
            + (f" and {len(failing) - 5} more" if len(failing) > 5 else "")
            + ")"
        )
    graded = [t.both_correct is None for t in r.tasks]
    test = (
        "the paired t test"
        if all(graded)
        else "Tango's score test, exact below 100 items"
        + ("; the paired t test on graded tasks" if any(graded) else "")
    )
    return (
        f"{head} ({test}, one-sided alpha = {r.alpha:g}); "
        f"the {level} upper bounds of the drop, in points, worst first: {bounds}; pooled over "
        f"all items {_points(ni['pooled']['upper_bound'])}. With a margin the gate fails "
        "exactly when non-inferiority is not shown on every task."
    )


def _worst_first(row: dict) -> float:
    """Sort key: the largest upper bound of the drop first (an undefined one before all)."""
    bound = row["upper_bound"]
    return -math.inf if math.isnan(bound) else -bound


def _points(share: float) -> str:
    return format_points(share)


def _equivalence_sentence(r: Any) -> str:
    eq = r.equivalence
    if eq is None:
        return ""
    margin = 100 * eq["margin"]
    verdict = "EQUIVALENT" if eq["equivalent"] else "EQUIVALENCE NOT SHOWN"
    return (
        f" {verdict} within +/- {margin:g} points (two one-sided tests at alpha = "
        f"{r.alpha:g}; {sum(t['equivalent'] for t in eq['tasks'])} of "
        f"{len(eq['tasks'])} task(s) inside)."
    )


def _p(p: float | None) -> str:
    return format_p(p, digits=3, bare=True)


def degradation_plan_verdict(r: Any) -> str:
    """Return plan --flip-rate's sentence: the items needed to detect the drop."""
    out = (
        f"detecting a drop of {format_points(r.delta, signed=False)} points at a flip rate of "
        f"{format_percent(r.flip_rate)} (one-sided, alpha={r.alpha:g}, power "
        f"{r.power:g}) needs {format_n(r.required_n, infinite='infinitely many')} items"
    )
    if r.n_items is not None:
        out += (
            f"; with {format_count(r.n_items)} items the power is {r.power_at_n:.2f} and drops "
            f"of {format_points(r.detectable_drop, signed=False)} points are detected with power "
            f"{r.power:g}"
        )
    return out


def plan_verdict(r: Any) -> str:
    """Return plan's sentence: the paired items a gap needs, and what a given N resolves."""
    setting = f"at alpha={r.alpha:g}, power {r.power:g}"
    if r.required_n is None:
        out = "a zero gap cannot be resolved by any number of items"
        if r.delta != 0:  # pragma: no cover - plan() refuses an overflowing N*
            out = "no finite number of items resolves this gap"
        if r.mde is not None:
            out += (
                f"; with {format_count(r.n_items)} items the smallest resolvable gap {setting} "
                f"is {format_gap(r.mde, signed=False)} ({format_points(r.mde, signed=False)} "
                "points)"
            )
        return out
    gap = f"a gap of {abs(r.delta):.4g} ({format_points(abs(r.delta), signed=False)} points)"
    out = (
        f"resolving {gap} {setting} needs {format_count(r.required_n)} paired "
        f"item{'' if r.required_n == 1 else 's'}"
    )
    if r.conventions and r.conventions.one_sample_shortcut is not None:
        out += (
            f"; the unpaired Cohen-h shortcut (1-rho) K/h^2 would say "
            f"{format_count(r.conventions.one_sample_shortcut)}, about half"
        )
    if r.n_items is not None:
        status = "resolve it" if r.resolved else "do not resolve it"
        out += (
            f"; {format_count(r.n_items)} items {status} (q={format_q(r.resolution_ratio)}, "
            f"power {r.power_at_n:.2f}, MDE {format_gap(r.mde, signed=False)})"
        )
    return out


def ranks_verdict(r: Any) -> str:
    """Return the rank job's sentence: tiers, models with a rank of their own, the method.

    Per task when there are several (the first three, then how many more).
    """
    frame = r.ranks
    parts = []
    for task, sub in frame.groupby("task", sort=False):
        k = len(sub)
        tiers = int(sub["tier"].max()) if k else 0
        alone = int((sub["rank_low"] == sub["rank_high"]).sum())
        width = float((sub["rank_high"] - sub["rank_low"] + 1).mean()) if k else 0.0
        where = f"on {task}, " if frame["task"].nunique() > 1 else ""
        parts.append(
            f"{where}{format_count(k)} model{'s' if k != 1 else ''} fall into "
            f"{format_count(tiers)} "
            f"tier{'s' if tiers != 1 else ''}; {format_count(alone)} can claim a single rank, and "
            "a rank "
            f"set holds {width:.1f} ranks on average"
        )
    shown = "; ".join(parts[:3])
    if len(parts) > 3:
        shown += f"; and {len(parts) - 3} more tasks"
    level = format_level(r.alpha)
    out = f"{shown} ({level} simultaneous rank sets, {r.method})"
    gold = getattr(r, "gold", None)
    if gold is not None:
        out += "; " + judge_bias_clause(gold)
    return out + "."


def _gold_audit_verdict(r: Any) -> str:
    """The gold-scale audit in one sentence: unresolved pairs at fixed n and under Holm, the
    pairs the judge's bias flips, and the models the judge is biased for."""
    n = len(r.pairs)
    noun = "rank-adjacent pair" if r.family == "adjacent" else "pair"
    fixed = r.unresolved["fixed_n"]
    out = (
        f"on the gold scale (PPI++), {format_count(fixed)} of {format_count(n)} "
        f"{noun}{'s' if n != 1 else ''} "
        f"{'is' if fixed == 1 else 'are'} unresolved at fixed n (q < 1 at alpha={r.alpha:g}, "
        f"power {r.power:g}) and {format_count(r.unresolved['holm'])} under Holm over "
        f"m={format_count(r.family_size)}"
    )
    frame = r.to_frame()
    flips = frame[frame["judge_flips"]]
    several = frame["task"].nunique() > 1
    if len(flips):
        named = [
            f"{row.model_b} over {row.model_a}{f' ({row.task})' if several else ''}"
            for row in flips.itertuples()
        ]
        shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
        out += (
            f"; the judge's bias reverses {format_count(len(flips))} "
            f"pair{'s' if len(flips) != 1 else ''} "
            f"(the judge puts {shown})"
        )
    next_step = _audit_next_step(r, r.pairs.n_gold, "label", "items")
    return out + "; " + judge_bias_clause(r.gold) + next_step


def judge_bias_clause(gold: pd.DataFrame) -> str:
    """Which models the judge is biased for (judge minus gold): the tests significant under
    Holm over every model of the table (``bias_flagged``), said as such."""
    family = f"Holm over the {format_count(len(gold))} models' bias tests"
    biased = gold[gold["bias_flagged"].astype(bool)]
    several = gold["task"].nunique() > 1
    if several:
        family = f"Holm over the {format_count(len(gold))} models and tasks' bias tests"
    if biased.empty:
        return f"no model's judge bias against the gold labels is significant ({family})"
    named = [
        f"{row.model}{f' ({row.task})' if several else ''} {format_gap(row.bias)}"
        for row in biased.sort_values("bias", key=abs, ascending=False).itertuples()
    ]
    shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
    return (
        f"the judge scores differently from the gold labels for {shown} (judge minus gold; "
        f"{family})"
    )


def judge_table(frame: pd.DataFrame, alpha: float) -> tuple[list[str], list[list[str]]]:
    """The judge against the gold per model (compare's and ranks' table): headers and cells."""
    level = format_level(alpha)
    headers = ["model", "gold-scale score", level, "judge", "gold labels", "judge bias",
               "biased (Holm)", "agreement (r: graded)"]  # fmt: skip
    rows = []
    for row in frame.itertuples():
        agreement = row.agreement if row.agreement == row.agreement else None  # NaN: graded
        if agreement is None and row.correlation == row.correlation and row.correlation is not None:
            shown = f"{number(row.correlation, '.3f')} (r)"
        else:
            shown = "-" if agreement is None else number(agreement, ".3f")
        rows.append(
            [
                str(row.model),
                format_score(row.score),
                score_interval(row.score_low, row.score_high),
                format_score(row.judge_score),
                format_count(row.n_gold),
                f"{format_gap(row.bias)} {gap_interval(row.bias_low, row.bias_high)}",
                "yes" if getattr(row, "bias_flagged", False) else "",
                shown,
            ]
        )
    return headers, rows


def rank_coverage_verdict(r: Any) -> str:
    """Return the rank-coverage study's sentence: where coverage reaches 1 - alpha - 2 SE."""
    rows = r.rows
    short = rows[rows["coverage"] < 1 - r.alpha - 2 * rows["coverage_se"]]
    level = format_level(r.alpha)
    if short.empty:
        return (
            f"simultaneous coverage of the true ranks is at least {level} (within 2 Monte Carlo "
            f"SE) in all {len(rows)} configurations ({format_count(r.n_trials)} replicates "
            "each)."
        )
    names = "; ".join(
        f"{row.configuration} ({row.coverage:.3f}, {row.method})" for row in short.itertuples()
    )
    return (
        f"coverage falls below {level} by more than 2 Monte Carlo SE in {len(short)} of "
        f"{len(rows)} configurations: {names}."
    )


def estimate_verdict(r: Any) -> str:
    """Return estimate's sentence: each model's score and interval beside the plain mean of
    the same items, and what it rests on."""
    level = format_level(r.alpha)
    if not r.estimates:
        return "no model to estimate"
    model_based = r.estimator == "model"
    parts = [
        f"{e.model}: {format_score(e.score)} {score_interval(e.ci.low, e.ci.high)} from "
        f"{_items(e.n_items)} (their mean {format_score(e.plain_score)} "
        f"{score_interval(e.plain_ci.low, e.plain_ci.high)}, width ratio "
        f"{number(e.width_ratio, '.2f')})"
        + (" (extrapolated)" if model_based and e.extrapolated else "")
        for e in r.estimates[:5]
    ]
    more = f", and {len(r.estimates) - 5} more" if len(r.estimates) > 5 else ""
    basis = (
        f"model-based 2PL, {level} conformal intervals calibrated on "
        f"{plural(r.reference_models, 'reference model')}" if model_based
        else f"design-based{', weighted by the design' if r.weighted else ''}"
        f", {level} t intervals, the 2PL of "
        f"{plural(r.reference_models, 'reference model')} as control variate"
    )  # fmt: skip
    return "; ".join(parts) + more + f" of {format_count(r.n_benchmark_items)} ({basis})"


def task_rank_coverage_verdict(r: Any) -> str:
    """Return the task-rank-coverage study's sentence: which sets reach 1 - alpha - 2 SE."""
    level = format_level(r.alpha)
    parts = []
    for name, rows in r.rows.groupby("sets", sort=False):
        short = rows[rows["coverage"] < 1 - r.alpha - 2 * rows["coverage_se"]]
        worst = rows["coverage"].min()
        parts.append(
            f"{name} sets fall short of {level} (by more than 2 Monte Carlo SE) in "
            f"{len(short)} of {len(rows)} configurations (lowest {worst:.3f})"
        )
    return "; ".join(parts) + f" ({format_count(r.n_trials)} replicates each)."


def noninferiority_plan_verdict(r: Any) -> str:
    """Return plan --margin's sentence: the items per task that show non-inferiority."""
    return (
        f"showing the candidate no worse than {100 * r.margin:g} points, with "
        f"{format_percent(r.flip_rate)} of items flipping and an expected drop of "
        f"{format_points(r.delta, signed=False)} points (one-sided alpha={r.alpha:g}, power "
        f"{r.power:g}), needs "
        f"{format_count(r.required_n)} items per task"
    )


def watch_verdict(r: Any) -> str:
    """Return the monitor's sentence: decided targets, what the others need, whether to stop."""
    frame = r.pairs
    if frame.empty:
        return "no target pair has an item both models scored yet"
    decided = int(frame["decided"].sum())
    out = (
        f"{decided} of {len(frame)} target pair{'s' if len(frame) != 1 else ''} decided "
        f"({r.procedure}, alpha={r.alpha:g})"
    )
    open_ = frame[~frame["decided"]]
    if len(open_):
        further = open_["further_items"].astype(float)
        projected = np.isfinite(further)
        reachable = projected & ~open_["exceeds_task"].astype(bool)
        if reachable.any():
            out += (
                f"; the nearest of the others needs about {format_n(further[reachable].min())} "
                "more items at the current estimates (anytime-valid)"
            )
        elif projected.any():
            out += (
                "; none of the others can be decided with its task's items at the current "
                f"estimates (the nearest would need about {format_n(further[projected].min())} "
                "more, anytime-valid)"
            )
        else:
            out += "; the others show no gap to project yet (none, or too few items differ)"
    if r.done:
        out += f"; stop: {r.reason}"
    return out


def pilot_plan_verdict(r: Any) -> str:
    """The (N, K) plan in one sentence: items at one run, the cheapest design, and whether
    reruns can help at all."""
    gap = f"a gap of {abs(r.delta):.4g} ({format_points(abs(r.delta), signed=False)} points"
    gap += ", the pilot's)" if r.delta_from_pilot else ")"
    one = r.frontier[0]
    out = (
        f"resolving {gap} at alpha={r.alpha:g}, power {r.power:g} takes "
        f"{format_count(one.n_items)} "
        f"items run once by each model"
    )
    if r.cheapest is not None:
        c = r.cheapest
        out += (
            f"; the cheapest design is {format_count(c.n_items)} items x {c.n_runs} run"
            f"{'s' if c.n_runs != 1 else ''} (cost {c.cost:,.4g})"
        )
    if not r.reruns_help:
        out += (
            "; reruns cannot help much: even unlimited reruns leave "
            f"{format_count(r.items_floor)} of the "
            f"{format_count(one.n_items)} items needed, because the items, not the runs, carry "
            "the noise"
        )
    if r.n_items is not None:
        if r.runs_needed is not None and math.isfinite(r.runs_needed):
            k = int(r.runs_needed)
            out += (
                f"; on a fixed set of {format_count(r.n_items)} items (a closed benchmark, where "
                "reruns "
                f"are the only lever) {k} run{'s' if k != 1 else ''} per model resolve it"
            )
        else:
            out += (
                f"; on a fixed set of {format_count(r.n_items)} items no number of reruns "
                "resolves it: "
                f"the smallest gap even unlimited reruns resolve there is "
                f"{r.mde_unlimited_runs:.4g}"
            )
    if r.configurations is not None:
        out += "; " + _configurations_clause(r.configurations)
    return out


def _configurations_clause(c: Any) -> str:
    """How many configurations the claim needs (configurations random), and the cheapest
    items x configurations x runs."""
    factors = ", ".join(c.factors)
    if math.isfinite(c.configurations_needed):
        out = (
            f"with the configurations ({factors}) random, {format_count(c.n_items)} items x "
            f"{c.n_runs} run{'s' if c.n_runs != 1 else ''} need "
            f"{int(c.configurations_needed)} configurations"
        )
    else:
        out = (
            f"with the configurations ({factors}) random, {format_count(c.n_items)} items "
            "cannot resolve it under any number of configurations"
        )
    if c.cheapest is not None:
        d = c.cheapest
        out += (
            f" (the cheapest: {format_count(d.n_items)} items x {d.n_configurations} "
            f"configurations x {d.n_runs} run{'s' if d.n_runs != 1 else ''}, cost "
            f"{d.cost:,.4g})"
        )
    return out


def _named_test(r: Any, name: str) -> str:
    """A test's name, with the side of a one-sided alternative."""
    if r.alternative == "two-sided":
        return name
    better = r.model_a if r.alternative == "greater" else r.model_b
    return f"one-sided {name} of H1: {better} better,"


def _weighted_compare_verdict(r: Any) -> str:
    """The weighted gap in one sentence: the estimate, its test and the design's N*."""
    d = r.design
    standing = (
        f" standing for {format_count(d.population_size)}"
        if d.population_size is not None
        else ""
    )
    test = _named_test(r, "design-based z-test")
    out = (
        f"the weighted gap {format_gap(r.delta)} ({format_points(r.delta)} points; the sample's "
        "plain "
        f"mean difference is {format_gap(d.unweighted_delta)}) estimates the full benchmark's gap "
        f"from {format_count(r.n_items)} items{standing}; "
    )
    if r.too_few_items:
        out += (
            f"too few items differ between the models to test at alpha={r.alpha:g}, or to "
            "estimate the items a design needs"
        )
        return out + _next_step(r, r.n_items, "sample", "items with this design")
    out += f"it is {'' if r.significant else 'not '}significant ({test} {format_p(r.p_value)})"
    if _against(r):
        out += "; " + _against_clause(r)
    elif r.required_n is not None:
        out += (
            f"; a design like this one needs {format_n(r.required_n)} items at alpha="
            f"{r.alpha:g}{_one_sided(r)}, power {r.power:g} (q={format_q(r.resolution_ratio)})"
        )
    return out + _next_step(r, r.n_items, "sample", "items with this design")


def _gold_compare_verdict(r: Any) -> str:
    """The gold-scale gap in one sentence: the PPI++ estimate, its test, the judge's own
    figure beside it, whether the judge's bias moves the pair, and the gold labels needed."""
    level, g = format_level(r.alpha), r.gold
    test = _named_test(r, "t test")
    out = (
        f"on the gold scale (PPI++ from {format_count(g.n_gold)} gold-labelled of "
        f"{format_count(r.n_items)} judged "
        f"items), {r.model_a} minus {r.model_b} is {format_gap(r.delta)} ({format_points(r.delta)} "
        f"points, {level} interval {gap_interval(r.ci.low, r.ci.high)}), "
        f"{'' if r.significant else 'not '}significant ({test} {format_p(r.p_value)}); "
        f"the judge alone says {format_gap(g.judge.delta)} ({g.judge.test} "
        f"{format_p(g.judge.p_value)})"
    )
    favoured = r.model_a if g.bias_difference > 0 else r.model_b
    opposite = np.sign(g.judge.delta) * np.sign(r.delta) < 0
    if g.judge_flips:
        out += (
            f"; the judge favours {favoured} by "
            f"{format_gap(abs(g.bias_difference), signed=False)} more than the other "
            f"({format_p(g.bias_difference_p)}), enough to reverse the comparison"
        )
    elif g.bias_difference_p < r.alpha:
        out += (
            f"; the judge favours {favoured} by "
            f"{format_gap(abs(g.bias_difference), signed=False)} more than the other "
            f"({format_p(g.bias_difference_p)})"
            + (
                ", and its gap points the other way, but the gold-scale gap is not significant: "
                "which model is better is not established"
                if opposite
                else ""
            )
        )
    if _against(r):
        return out + "; " + _against_clause(r)
    setting = f"at alpha={r.alpha:g}{_one_sided(r)}, power {r.power:g}"
    if r.resolution_ratio is not None and r.resolution_ratio >= 1:
        out += (
            f"; q={format_q(r.resolution_ratio)}: these gold labels and judged items resolve a "
            f"gap this size {setting}"
        )
    elif r.required_n is not None:
        out += (
            f"; resolving a gap this size {setting} takes {format_n(r.required_n)} gold "
            f"label{'' if r.required_n == 1 else 's'} with these judged items "
            f"(q={format_q(r.resolution_ratio)})"
        )
    elif r.delta != 0 and r.resolution_ratio is not None:
        out += (
            f"; these {format_count(r.n_items)} judged items cannot resolve a gap this size "
            f"{setting} "
            f"however many are labelled (q={format_q(r.resolution_ratio)})"
        )
    if g.design_gold is not None and (r.resolution_ratio is None or r.resolution_ratio < 1):
        out += (
            f"; the cheapest design that does: {format_n(g.design_gold)} gold labels and "
            f"{format_n(g.design_judged)} judged items (cost {g.design_cost:,.4g})"
        )
    if r.required_n is None and g.design_gold is not None and not r.significant:
        return out + "; next: follow that design, or report the two as not told apart"
    return out + _next_step(r, g.n_gold, "label", "items")


def sampling_design_verdict(r: Any) -> str:
    """The stratified design in one sentence: what to run, what it predicts, how to read it."""
    gap = f"{abs(r.delta):.4g} ({format_points(abs(r.delta), signed=False)} points"
    gap += ", the predicted gap)" if r.delta_predicted else ")"
    out = (
        f"run these {format_count(r.n_items)} of the {format_count(r.n_population)} items on "
        f"{r.model_a} and "
        f"{r.model_b}: resolving a gap of {gap} at alpha={r.alpha:g}, power {r.power:g} is "
        f"predicted to take {format_count(r.required_n_design)} items with this design against "
        f"{format_count(r.required_n_srs)} drawn at random (ratio {r.items_ratio:.2f})"
    )
    if r.items_ratio > 0.95:
        out += "; the reference barely predicts where these two disagree, so expect little saving"
    return (
        out + "; the weighted gap is unbiased for the full benchmark whatever the prediction: "
        "read it with compare --weights on the design file"
    )


def adaptive_verdict(r: Any) -> str:
    """Return adaptive's sentence: decided or not, on how many items, and the estimated gap."""
    counts = f"{format_count(r.a_only)} vs {format_count(r.b_only)} of the items where they differ"
    if r.decided:
        other = r.model_b if r.better == r.model_a else r.model_a
        head = (
            f"decided after {_items(r.n_items)}: {r.better} is better than {other} on the items "
            f"run (e-value {number(r.e_value, '.3g')} >= {number(1 / r.alpha, 'g')}, "
            f"anytime-valid; {counts})"
        )
    else:
        head = (
            f"not decided after {_items(r.n_items)}: {r.model_a} vs {r.model_b}, e-value "
            f"{number(r.e_value, '.3g')} < {number(1 / r.alpha, 'g')} ({counts})"
        )
    return head + "; " + _audit_gap(r)


def _audit_gap(a: Any) -> str:
    """The full-benchmark gap from an adaptive evaluation's audit draws, or what it needs."""
    if a.n_audit < 2:
        return "the full-benchmark gap needs at least 2 audit draws run"
    level = format_level(a.alpha)
    return (
        f"full-benchmark gap {format_gap(a.gap)} {gap_interval(*a.gap_interval)} ({level}, "
        f"from {format_count(a.n_audit)} random audit draws; a fixed-n interval, not kept valid "
        "across looks as the decision is)"
    )


def adaptive_study_verdict(r: Any) -> str:
    """Return the adaptive study's sentence: null rejections against alpha + 2 SE, and the
    items adaptive choice saves."""
    rows = r.rows
    null = rows[rows["null"]]
    over = null[null["adaptive_rejected"] > r.alpha + 2 * null["adaptive_rejected_se"]]
    parts = []
    if len(null):
        parts.append(
            f"under the null the adaptive design rejected in at most "
            f"{null['adaptive_rejected'].max():.3f} of runs looked at after every item "
            f"({len(over)} of {len(null)} null configurations above alpha + 2 Monte Carlo SE)"
        )
    alt = rows[~rows["null"] & rows["ratio"].notna()]
    if len(alt):
        parts.append(
            f"it needed {alt['ratio'].min():.2f}-{alt['ratio'].max():.2f}x the items of random "
            "sampling to a decision (medians)"
        )
    return "; ".join(parts) + (
        f" ({format_count(r.n_trials)} replicates each, horizon {format_count(r.horizon)})."
    )


def estimate_study_verdict(r: Any) -> str:
    """Return the estimate study's sentence: the design-based estimate's and the 2PL's error
    against the random items' mean and how their intervals covered, the first design to
    reach the target error, and the floors' items."""
    rows = r.rows[r.rows["cases"] > 0]
    level = format_level(r.alpha)

    def span(design: str, column: str, spec: str) -> str:
        values = rows.loc[rows["design"] == design, column]
        low, high = number(values.min(), spec), number(values.max(), spec)
        return low if low == high else f"{low}-{high}"

    first = (
        "the design-based estimate's mean absolute error was "
        f"{span('estimate', 'mae_ratio', '.2f')} times the random items' mean's on the same "
        f"draws, and its {level} intervals covered "
        f"{span('estimate', 'coverage', '.3f')}; the model-based 2PL's was "
        f"{span('model', 'mae_ratio', '.2f')} times"
    )
    model = rows[rows["design"] == "model"]
    if not np.isfinite(model["median_half_width"]).all():
        first += (
            f" (its conformal intervals unbounded: {r.reference_models} reference models are "
            f"too few, at least {math.ceil(1 / r.alpha) - 1} are needed)"
        )
    else:
        first += f", covering {span('model', 'coverage', '.3f')}"
    parts = [first]
    reached = rows[rows["mae"] <= r.target].sort_values(["budget", "mae"])
    if len(reached):
        best = reached.iloc[0]
        parts.append(
            f"the first design to reach a mean absolute error of {r.target:g} was "
            f"{best['label']} at {format_count(int(best['budget']))} items ({best['mae']:.4f})"
        )
    else:
        best = rows.sort_values("mae").iloc[0]
        parts.append(
            f"no design reached a mean absolute error of {r.target:g} (the smallest: "
            f"{best['mae']:.4f}, {best['label']} at {format_count(int(best['budget']))} items)"
        )
    need = {k: "all" if v is None else format_count(v) for k, v in r.items_for_target.items()}
    parts.append(
        f"even knowing each model's own 2PL ability, a design-unbiased estimate needs "
        f"{need['floor_difference']} random items for {r.target:g} "
        f"({need['floor_neyman']} drawn by Neyman allocation; the items' mean "
        f"{need['random_mean']})"
    )
    parts.append(
        f"and the 2PL at that ability misses a model's score by {r.misfit:.4f} on average: an "
        "error more items for the ability do not remove"
    )
    return "; ".join(parts) + "."


def watch_adaptive_line(a: Any) -> str:
    """Return the adaptive watch's line: the next batch and the full-benchmark gap so far."""
    batch = f"next batch: {_items(len(a.next_items))} chosen for {a.model_a} vs {a.model_b}"
    if a.pending_audit:
        batch += f" ({format_count(a.pending_audit)} audit draw(s) pending)"
    return batch + "; " + _audit_gap(a)


def style_line(rows: Iterable[Mapping[str, Any]], alpha: float) -> str:
    """Return the style coefficients' line: each covariate's coefficient and interval."""
    level = format_level(alpha)
    parts = [
        f"{row['covariate']} {number(row['coefficient'], '+.3f')} "
        f"[{number(row['low'], '+.3f')}, {number(row['high'], '+.3f')}]"
        for row in rows
    ]
    return (
        f"style coefficients ({level}, on the log-odds of A winning per unit of the "
        "difference a - b): " + "; ".join(parts)
    )


def gold_study_verdict(r: Any) -> str:
    """Return the gold study's sentence: coverage against its floor, the width saved, flips."""
    floor = 1 - r.alpha - 2 * r.monte_carlo_se
    runs = r.n_trials * len(r.pairs)
    reached = "reaching" if r.coverage >= floor else "below"
    flipped = sum(p.flipped for p in r.pairs)
    return (
        f"PPI++ intervals of the gold-scale gap cover the true gap in "
        f"{number(r.coverage, '.3f')} of {format_count(runs)} runs, {reached} the floor "
        f"{number(floor, '.3f')} (1 - alpha - 2 Monte Carlo SE), the gold labels alone in "
        f"{number(r.gold_only_coverage, '.3f')}; they are {number(r.width_ratio, '.2f')} the "
        f"gold-only width (median over pairs), and the gold reverses the judge's order in "
        f"{flipped} of {plural(len(r.pairs), 'pair')}"
    ) + ("" if r.bias_flags is None else "; " + _bias_flags_clause(r.bias_flags, r.alpha))


def _bias_flags_clause(f: Any, alpha: float) -> str:
    """How often the judge-bias flags name an unbiased model, under Holm and unadjusted."""
    return (
        f"with the judge unbiased for {format_count(f.n_unbiased)} of "
        f"{plural(f.n_models, 'model')}, the judge-bias flags (Holm over the models) name one "
        f"of them in {number(f.family_wise_holm, '.3f')} of {format_count(f.n_trials)} label "
        f"sets (alpha {alpha:g}, Monte Carlo SE {number(f.monte_carlo_se, '.3f')}), each "
        f"model's own test unadjusted in {number(f.family_wise_unadjusted, '.3f')}"
    )


def ranking_exclusions(task: str, names: Sequence[str], counts: Sequence[int]) -> list[str]:
    """The notes of the models a task's ranking leaves out (no score, or a score on one item,
    which has no standard error): one sentence for ranks, audit and the card alike."""
    notes = []
    reasons = (("no score", 0), ("a score on 1 item only (a standard error needs 2)", 1))
    for label, least in reasons:
        absent = [str(n) for n, c in zip(names, counts, strict=True) if int(c) == least]
        if absent:
            more = f", and {len(absent) - 5} more" if len(absent) > 5 else ""
            shown = ", ".join(absent[:5]) + more
            many = len(absent) != 1
            notes.append(
                f"task {task}: {plural(len(absent), 'model')} {'have' if many else 'has'} "
                f"{label} and {'are' if many else 'is'} left out of its ranking ({shown})"
            )
    return notes


# The configurations job, and compare with the configuration a random factor (issue 42)


def score_or_points(value: float, pair: bool) -> str:
    """A score or gap as every job shows one: a gap in points (``+6.15 points``, as compare's
    delta), a score on its own scale (``0.7165``)."""
    if not math.isfinite(value):
        return "n/a"
    return f"{format_points(value)} points" if pair else format_score(value)


def se_text(se: float, pair: bool) -> str:
    """A standard error in the unit of its mean: points for a gap, the score's scale else."""
    return f"{format_points(se, signed=False)} points" if pair else number(se)


def mean_interval_text(m: Any, pair: bool) -> str:
    """A mean's interval (``m.lower``, ``m.upper``): in points for a gap, as a score else."""
    return points_interval(m.lower, m.upper) if pair else score_interval(m.lower, m.upper)


def configurations_sentence(r: Any) -> str:
    """What the configuration does to the score (or gap), and what can be claimed."""
    c = r.components
    factors = ", ".join(r.factors)
    what = "this gap" if r.pair else f"{r.models[0]}'s score"
    spread = math.sqrt(max(float(c.estimate[1]), 0.0))
    means = [m for m in r.configuration_means if math.isfinite(m)]
    low, high = (min(means), max(means)) if means else (math.nan, math.nan)
    test = c.configuration_test
    by = score_or_points(spread, r.pair).lstrip("+")
    moved = (
        f"The configuration ({factors}) moves {what} by {by} "
        f"(SD across configurations; its configurations' means run from "
        f"{score_or_points(low, r.pair)} to {score_or_points(high, r.pair)}; "
        f"{'model x configuration' if r.pair else 'configuration'} test "
        f"{format_p(test.p_value)})."
    )
    level = f"{100 * c.confidence:g}%"
    fixed, random = c.mean_fixed, c.mean_random
    n = r.n_configurations
    where = (
        f"Over these {n} configurations the {'gap' if r.pair else 'score'} is "
        f"{score_or_points(c.mean, r.pair)}, {level} CI {mean_interval_text(fixed, r.pair)}; over "
        f"configurations like these, {mean_interval_text(random, r.pair)}."
    )
    if not r.pair:
        return f"{moved} {where}"
    fixed_shown = fixed.lower > 0 or fixed.upper < 0
    random_shown = random.lower > 0 or random.upper < 0
    if fixed_shown and not random_shown:
        advice = (
            f"Claim the gap for these configurations only, or run more configurations: "
            f"{n} leave the configurations' share of its uncertainty large."
        )
    elif random_shown:
        advice = "The gap holds over configurations like these, not only the ones run."
    else:
        advice = "No gap is shown, under these configurations or configurations like them."
    return f"{moved} {where} {advice}"


def configuration_compare_verdict(r: Any) -> str:
    """compare's sentence with the configurations a random factor: the test of the gap over
    configurations like these, and what more items or configurations would do."""
    part = r.configuration
    level = f"alpha={r.alpha:g}"
    shown = r.p_value < r.alpha
    first = (
        f"over configurations like these the gap is {score_or_points(r.delta, True)} "
        f"({format_p(r.p_value)}, the test of its interval; SE on "
        f"{number(r.estimate.df, '.3g')} df): "
        + ("significant" if shown else "not significant")
        + f" at {level}"
    )
    if r.required_n is None:
        second = (
            f"no number of items resolves it with {part.n_configurations} configurations: "
            "the model x configuration term shrinks only with more configurations"
        )
    else:
        second = (
            f"with {part.n_configurations} configurations it needs "
            f"{format_count(r.required_n)} items (this run has {format_count(r.n_items)})"
        )
    return f"{first}; {second}"
