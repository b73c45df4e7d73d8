"""harnessbook: the code the agent-harness book teaches, chapter by chapter.

Chapter 6, the minimal context packet, lives in [`harnessbook.context_packet`][harnessbook.context_packet];
its most used names (`build_context_packet`, `validate_request`, `InvalidRequestError`,
`demo_request`) are re-exported here, with `load_schema` from
[`harnessbook.schemas`][harnessbook.schemas].
"""

from harnessbook.context_packet import (
    InvalidRequestError,
    build_context_packet,
    demo_request,
    validate_request,
)
from harnessbook.schemas import load_schema

__all__ = [
    "build_context_packet",
    "validate_request",
    "InvalidRequestError",
    "demo_request",
    "load_schema",
]

__version__ = "0.2.0.dev0"
"""The package's version, written only here: pyproject.toml reads it (hatch's dynamic version)
and ``harnessbook --version`` prints it."""
