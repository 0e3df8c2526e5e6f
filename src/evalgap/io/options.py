"""How to read scores: the options every loader takes (no heavy imports, so the CLI can
build its flags from these fields without loading pandas)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LoadOptions:
    """Every option a user can give about how to read scores (CLI flags of the same names)."""

    fmt: str | None = None
    layout: str = "long"
    models_in: str = "columns"
    item_column: str | None = None
    score_column: str | None = None
    model_column: str | None = None
    task_column: str | None = None
    run_column: str | None = None
    cluster_column: str | None = None
    items: str | None = None
    model_columns: tuple = field(default=())
    metric: tuple = field(default=())
    filter_name: str | None = None
    all_runs: bool = False
    scorer: str | None = None
    score_key: str | None = None
    on_error: str = "skip"
    stat: str = "exact_match"
    model_name: str | None = None
    tasks: tuple = field(default=())
