"""Shared by the property and fuzz tests: reproducible hypothesis settings and the request schema."""

from __future__ import annotations

import re

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


FORMAT_CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER
# jsonschema skips a format silently when the package that checks it is missing ("date-time"
# needs rfc3339-validator, a dev dependency). A skipped format would make every comparison
# with the builder meaningless, so a missing checker stops the tests here.
_MISSING = {"date", "date-time"} - set(FORMAT_CHECKER.checkers)
if _MISSING:  # pragma: no cover - only on a broken environment
    raise RuntimeError(
        f"jsonschema cannot check the formats {sorted(_MISSING)}: install the dev dependencies "
        "(uv sync, or pip install -e '.[dev]'; date-time needs rfc3339-validator)"
    )

REQUEST_VALIDATOR = jsonschema.Draft202012Validator(load_schema("request"), format_checker=FORMAT_CHECKER)
"""The package's request schema, with format checking on (date and date-time)."""

RESULT_VALIDATOR = jsonschema.Draft202012Validator(load_schema("result"), format_checker=FORMAT_CHECKER)
"""The package's result schema, with format checking on."""

BUILDER_ONLY = re.compile(
    r"^\$\.(budgetUnits|candidates\[\d+\]\.sizeUnits): must be an integer (greater than 0|>= 0), got -?\d+\.0 \(number\)$"
    r"|: repeats id .* of \$\.candidates\[\d+\]$"
    r"|: names .*, which is not a candidate id of this request$"
    r"|: a candidate cannot conflict with itself$"
)
"""The builder's problems no JSON Schema can state: a whole-number float given for an integer
(the schema's ``integer`` takes 8.0), and the rules across candidates (ids unique, conflicts
naming other candidates of the request)."""
