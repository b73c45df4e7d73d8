"""The input error of chapter 6, and how a problem shows the value it is about.

Every problem is one ``"<json path>: <what is wrong>"`` string. Values from the request are
caller data: they are shown short, as JSON where possible, and never raise while being shown.
"""

from __future__ import annotations

import json
import re

__all__ = ["InvalidRequestError"]


class InvalidRequestError(ValueError):
    """The request breaks the contract. Carries every problem found, not just the first.

    Attributes:
        problems: One ``"<json path>: <what is wrong>"`` string per problem: first those of
            a top-down walk of the request (candidates in input order), then the cross-field
            problems of ``conflictsWith`` targets.
    """

    def __init__(self, problems: list[str] | tuple[str, ...]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        count = len(self.problems)
        heading = f"invalid context packet request ({count} problem{'s' if count != 1 else ''}):"
        super().__init__("\n".join([heading, *(f"  {p}" for p in self.problems)]))


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_JSON_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _type_name(value: object) -> str:
    name = _JSON_TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    for base, base_name in _JSON_TYPE_NAMES.items():
        if isinstance(value, base):
            return base_name
    return f"Python {type(value).__name__}"


def _shown(value: object) -> str:
    """A short, readable rendering of a value for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = _repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _repr(value: object) -> str:
    # repr() itself fails on integers with more digits than Python converts (ValueError)
    # and on values nested deeper than the recursion limit (RecursionError).
    try:
        return repr(value)
    except RecursionError:
        return f"<{_type_name(value)} nested too deeply to show>"
    except ValueError:
        return f"<{_type_name(value)} too large to show>"


def _got(value: object) -> str:
    return f"got {_shown(value)} ({_type_name(value)})"


def _child(path: str, key: str) -> str:
    """The JSON path of ``key`` under ``path``: ``$.a.b``, or ``$.a["odd key"]``."""
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"
