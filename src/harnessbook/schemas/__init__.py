"""The JSON Schemas (draft 2020-12) of the context packet request and result, and of the command
line's error report (``harnessbook build --errors json``).

The files ship inside the package; [`load_schema`][harnessbook.schemas.load_schema] reads them with
`importlib.resources`, so they work from a wheel, a source tree or Pyodide.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal

__all__ = ["load_schema", "SCHEMA_FILES"]

SCHEMA_FILES: Final[Mapping[Literal["request", "result", "error"], str]] = MappingProxyType(
    {
        "request": "context-packet-request.schema.json",
        "result": "context-packet-result.schema.json",
        "error": "harnessbook-cli-error.schema.json",
    }
)
"""The schema file of each name. A read-only mapping (``types.MappingProxyType``), not a dict: ``json.dumps``, ``copy.deepcopy``
and ``pickle`` refuse it; ``dict(...)`` makes a copy."""


def load_schema(name: Literal["request", "result", "error"]) -> dict[str, Any]:
    """Return the JSON Schema of the request, the result or the command line's error report, as a
    fresh dict.

    Args:
        name: ``"request"``, ``"result"`` or ``"error"`` (what ``harnessbook build --errors json``
            writes to standard error).

    Returns:
        The schema (JSON Schema draft 2020-12), read afresh: changing it changes nothing else.

    Raises:
        ValueError: If ``name`` is none of these.

    Examples:
        >>> load_schema("request")["$schema"]
        'https://json-schema.org/draft/2020-12/schema'
    """
    try:
        known = name in SCHEMA_FILES
    except TypeError:  # an unhashable name ([], {}) from a caller that ignores the type
        known = False
    if not known:
        # Shown as a problem of a request shows a caller's value: cut, on one line, and a repr
        # that raises is caught (the ValueError is what a caller catches).
        from harnessbook.context_packet.errors import _repr

        raise ValueError(f"unknown schema {_repr(name)}; expected one of: {', '.join(sorted(SCHEMA_FILES))}")
    # Imported here: importlib.resources (with tempfile, shutil and pathlib) is a third of the
    # package's import time, and only this function needs it.
    from importlib import resources

    text = resources.files(__name__).joinpath(SCHEMA_FILES[name]).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
