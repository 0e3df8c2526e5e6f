"""The public job functions (placeholder filled in below)."""

from __future__ import annotations

from evalgap._audit import audit_scores as audit  # noqa: F401
from evalgap._compare import compare_counts as compare  # noqa: F401
from evalgap._degrade import degrade_scores as degrade  # noqa: F401
from evalgap._degrade import trim_items as trim  # noqa: F401
from evalgap._scores import align  # noqa: F401
