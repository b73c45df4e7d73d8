"""The request's vocabulary as the tests expect it, written out rather than read from the package.

Tests compare the package's TypedDicts, its JSON Schema and its validator with these lists, so
they are literals: taking them from ``harnessbook`` would check the code against itself.
"""

from __future__ import annotations

CANDIDATE_KEYS = [
    "id",
    "kind",
    "source",
    "capturedAt",
    "relevance",
    "freshness",
    "sizeUnits",
    "content",
    "reference",
    "conflictsWith",
]
"""Every key a candidate may have, in the order of the ``Candidate`` TypedDict and the schema."""
