"""The shapes of the job results the renderers and sentences read.

The report layer sits below the jobs and never imports them, so its functions annotate
their arguments with these structural types: each lists the attributes the renderers read,
and the jobs' result classes of the same name satisfy it without naming it. A renderer that
reads a new attribute adds it here.
"""

from __future__ import annotations

from typing import Any, Protocol


class _Verdict(Protocol):
    """A result with a level and its sentence."""

    @property
    def alpha(self) -> Any: ...

    @property
    def verdict(self) -> Any: ...


class _Gap(_Verdict, Protocol):
    """A paired gap and the items that resolve it (measured or planned)."""

    @property
    def accuracy_a(self) -> Any: ...

    @property
    def accuracy_b(self) -> Any: ...

    @property
    def alternative(self) -> Any: ...

    @property
    def correlation(self) -> Any: ...

    @property
    def delta(self) -> Any: ...

    @property
    def mde(self) -> Any: ...

    @property
    def n_items(self) -> Any: ...

    @property
    def paired_efficiency(self) -> Any: ...

    @property
    def power(self) -> Any: ...

    @property
    def required_n(self) -> Any: ...

    @property
    def resolution_ratio(self) -> Any: ...

    @property
    def resolved(self) -> Any: ...

    @property
    def sd_diff(self) -> Any: ...

    @property
    def unpaired_required_n(self) -> Any: ...


class AuditResult(_Verdict, Protocol):
    """An audit (``audit``, ``audit --store``, ``store audit``): pairs, verdicts, chains, tiers."""

    def to_frame(self) -> Any: ...

    @property
    def alignment(self) -> Any: ...

    @property
    def binned_table(self) -> Any: ...

    @property
    def bonferroni_inflation(self) -> Any: ...

    @property
    def chain_procedure(self) -> Any: ...

    @property
    def chains(self) -> Any: ...

    @property
    def cluster_stress(self) -> Any: ...

    @property
    def correlation_sensitivity(self) -> Any: ...

    @property
    def family(self) -> Any: ...

    @property
    def family_size(self) -> Any: ...

    @property
    def flips(self) -> Any: ...

    @property
    def n_bootstrap(self) -> Any: ...

    @property
    def notes(self) -> Any: ...

    @property
    def pairs(self) -> Any: ...

    @property
    def power(self) -> Any: ...

    @property
    def procedures(self) -> Any: ...

    @property
    def rank_sets(self) -> Any: ...

    @property
    def rankings(self) -> Any: ...

    @property
    def sidak_inflation(self) -> Any: ...

    @property
    def tier_method(self) -> Any: ...

    @property
    def tiers(self) -> Any: ...

    @property
    def trajectories(self) -> Any: ...

    @property
    def unresolved(self) -> Any: ...


class CompareGroupsResult(_Verdict, Protocol):
    """A comparison per group (``compare --by``) and the pooled one."""

    @property
    def adjustment(self) -> Any: ...

    @property
    def by(self) -> Any: ...

    @property
    def groups(self) -> Any: ...

    @property
    def model_a(self) -> Any: ...

    @property
    def model_b(self) -> Any: ...

    @property
    def notes(self) -> Any: ...

    @property
    def pooled(self) -> Any: ...

    @property
    def significant_groups(self) -> Any: ...


class CompareResult(_Gap, Protocol):
    """One paired comparison (``evalgap.compare``)."""

    @property
    def a_only(self) -> Any: ...

    @property
    def alignment(self) -> Any: ...

    @property
    def b_only(self) -> Any: ...

    @property
    def binary(self) -> Any: ...

    @property
    def bootstrap(self) -> Any: ...

    @property
    def both_correct(self) -> Any: ...

    @property
    def both_wrong(self) -> Any: ...

    @property
    def correlation_sensitivity(self) -> Any: ...

    @property
    def fragility(self) -> Any: ...

    @property
    def intervals(self) -> Any: ...

    @property
    def model_a(self) -> Any: ...

    @property
    def model_b(self) -> Any: ...

    @property
    def notes(self) -> Any: ...

    @property
    def p_values(self) -> Any: ...

    @property
    def required_n_discordant(self) -> Any: ...

    @property
    def required_n_interval(self) -> Any: ...

    @property
    def se(self) -> Any: ...


class DataSummary(Protocol):
    """What ``inspect-data`` found in a set of result files."""

    @property
    def alignment(self) -> Any: ...

    @property
    def binary(self) -> Any: ...

    @property
    def clusters(self) -> Any: ...

    @property
    def models(self) -> Any: ...

    @property
    def notes(self) -> Any: ...

    @property
    def source(self) -> Any: ...

    @property
    def tasks(self) -> Any: ...


class DegradationPlan(_Verdict, Protocol):
    """The items ``plan --flip-rate`` prescribes to detect a drop."""

    @property
    def delta(self) -> Any: ...

    @property
    def detectable_drop(self) -> Any: ...

    @property
    def flip_rate(self) -> Any: ...

    @property
    def n_items(self) -> Any: ...

    @property
    def power(self) -> Any: ...

    @property
    def power_at_n(self) -> Any: ...

    @property
    def required_n(self) -> Any: ...


class DegradeResult(_Verdict, Protocol):
    """The degradation gate (``evalgap.degrade``)."""

    @property
    def fragility(self) -> Any: ...

    @property
    def baseline(self) -> Any: ...

    @property
    def candidate(self) -> Any: ...

    @property
    def degraded(self) -> Any: ...

    @property
    def detectable_drop(self) -> Any: ...

    @property
    def equivalence(self) -> Any: ...

    @property
    def max_drop_monte_carlo(self) -> Any: ...

    @property
    def max_drop_task(self) -> Any: ...

    @property
    def method(self) -> Any: ...

    @property
    def n_simulations(self) -> Any: ...

    @property
    def non_inferiority(self) -> Any: ...

    @property
    def notes(self) -> Any: ...

    @property
    def p_values(self) -> Any: ...

    @property
    def permutation(self) -> Any: ...

    @property
    def rules_of_thumb(self) -> Any: ...

    @property
    def tasks(self) -> Any: ...

    @property
    def total(self) -> Any: ...


class PlanResult(_Gap, Protocol):
    """The items ``plan`` prescribes to resolve a gap."""

    @property
    def conventions(self) -> Any: ...

    @property
    def correlation_bounds(self) -> Any: ...

    @property
    def lemma_constant(self) -> Any: ...

    @property
    def power_at_n(self) -> Any: ...

    @property
    def shortcut_ratio(self) -> Any: ...

    @property
    def shortcut_tolerance(self) -> Any: ...


class RanksResult(_Verdict, Protocol):
    """Simultaneous rank sets (``evalgap.ranks``)."""

    @property
    def over_tasks(self) -> Any: ...

    @property
    def fragility(self) -> Any: ...

    @property
    def method(self) -> Any: ...

    @property
    def ranks(self) -> Any: ...

    @property
    def gold(self) -> Any: ...


class TrimResult(Protocol):
    """The items ``trim`` keeps (those that flipped across reruns)."""

    @property
    def model(self) -> Any: ...

    @property
    def per_task(self) -> Any: ...

    @property
    def runs(self) -> Any: ...
