"""Shared by the property and fuzz tests: reproducible hypothesis settings and the request schema."""

from __future__ import annotations

import jsonschema
from hypothesis import HealthCheck, settings

from harnessbook import load_schema


def ci_settings(max_examples: int) -> settings:
    """Fixed for CI: no deadline (shared machines are noisy), derandomized, no example database."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


REQUEST_VALIDATOR = jsonschema.Draft202012Validator(
    load_schema("request"), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)
"""The package's request schema, with format checking on (date and date-time)."""
