"""The input error of chapter 6, and how a problem shows the value it is about.

Every problem is one ``"<json path>: <what is wrong>"`` line. Values from the request are
caller data: they are shown short (cut to a fixed width), as JSON where possible, on one line
whatever characters they hold, and never raise while being shown. However large or broken a
request is, the report stays bounded: the first [`MAX_PROBLEMS`][harnessbook.context_packet.errors.MAX_PROBLEMS]
problems are kept and the rest are counted.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["InvalidRequestError", "Problem", "MAX_PROBLEMS", "SHOWN_WIDTH", "KEY_WIDTH"]

MAX_PROBLEMS = 100
"""How many problems an [`InvalidRequestError`][harnessbook.context_packet.errors.InvalidRequestError]
keeps; any more are counted in ``total`` and summed up in one last line."""

SHOWN_WIDTH = 60
"""The widest a value from the request is shown inside a problem, in characters."""

KEY_WIDTH = 40
"""How many characters of an object key from the request are shown inside a JSON path (before
unprintable characters are escaped, which can make them longer)."""


class Problem(NamedTuple):
    """One problem of an [`InvalidRequestError`][harnessbook.context_packet.errors.InvalidRequestError],
    split into its JSON path and what is wrong there. A program reads these; a person reads the
    lines of ``problems``."""

    path: str | None
    """The JSON path, such as ``$.candidates[1].sizeUnits`` or ``$["odd key"]``; ``None`` for a
    problem that does not start with one (an error made by hand from free text)."""
    message: str
    """What is wrong, without the path."""


_PATH = re.compile(
    r'\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:-?\d+|"(?:[^"\\]|\\.)*"(?: \(\d+ characters\))?|\'(?:[^\'\\]|\\.)*\')\])*'
)
"""A problem's JSON path, as ``_child`` writes it: a key
longer than ``KEY_WIDTH`` is cut and followed by its length, ``$["kkk..." (61 characters)]``."""


def _split_problem(problem: str) -> Problem:
    """A problem line split into its JSON path and its message: a path can itself hold ``": "``
    (``$["a: b"]``), so splitting at the first one is not enough."""
    match = _PATH.match(problem)
    if match is None or not problem.startswith(": ", match.end()):
        return Problem(None, problem)
    return Problem(match.group(), problem[match.end() + 2 :])


def _more_line(more: int) -> str:
    return f"… and {more} more problem{'s' if more != 1 else ''}"


class InvalidRequestError(ValueError):
    """The request breaks the contract. Carries every problem found, up to a bound.

    Attributes:
        problems: One ``"<json path>: <what is wrong>"`` line per problem: first those of a
            top-down walk of the request (candidates in input order), then the cross-field
            problems of ``conflictsWith`` targets. The first
            [`MAX_PROBLEMS`][harnessbook.context_packet.errors.MAX_PROBLEMS] are kept, then, if
            there were more, one line ``"… and K more problems"``.
        total: How many problems were found in all, including those not kept.
        details: The kept problems as [`Problem`][harnessbook.context_packet.errors.Problem]s
            (path and message apart), without the closing ``"… and K more problems"`` line:
            ``total - len(details)`` problems were not kept.

    The builder raises it; a program may raise one too, from ``problems`` (an iterable of
    lines, or one string as one problem) and ``total`` (how many problems there were in all,
    when more were found than are given).

    Examples:
        >>> error = InvalidRequestError(['$["a: b"]: unknown key'])
        >>> error.details
        (Problem(path='$["a: b"]', message='unknown key'),)
    """

    def __init__(self, problems: Iterable[str], total: int | None = None) -> None:
        listed = (problems,) if isinstance(problems, str) else tuple(problems)  # a str is one problem
        kept = listed[:MAX_PROBLEMS]
        self._kept = kept
        self.total: int = max(len(listed), total or 0)
        more = self.total - len(kept)
        self.problems: tuple[str, ...] = kept + ((_more_line(more),) if more > 0 else ())
        count = self.total
        heading = f"invalid context packet request ({count} problem{'s' if count != 1 else ''}):"
        super().__init__("\n".join([heading, *(f"  {p}" for p in self.problems)]))

    @property
    def details(self) -> tuple[Problem, ...]:
        """The kept problems, each split into its JSON path and its message (see ``problems``)."""
        return tuple(_split_problem(problem) for problem in self._kept)

    def __reduce__(self) -> tuple[type[InvalidRequestError], tuple[tuple[str, ...], int], dict[str, object]]:
        # Rebuilt from what it was given (pickle, copy, a process pool), its notes kept: by
        # default an exception is rebuilt from its message, which this constructor would read as
        # its problems, one per character.
        return type(self), (self._kept, self.total), self.__dict__


class _Problems:
    """Collects problems: keeps the first ``MAX_PROBLEMS`` lines and counts the rest."""

    __slots__ = ("items", "total")

    def __init__(self) -> None:
        self.items: list[str] = []
        self.total = 0

    @property
    def full(self) -> bool:
        """True once no further line would be kept: callers may count without wording."""
        return self.total >= MAX_PROBLEMS

    def append(self, line: str) -> None:
        self.total += 1
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(line)

    def count(self, more: int = 1) -> None:
        self.total += more

    def __bool__(self) -> bool:
        return self.total > 0

    def error(self) -> InvalidRequestError:
        return InvalidRequestError(self.items, total=self.total)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Characters that would break a line or hide text: everything str.isprintable() refuses
# (controls, line and paragraph separators, format characters such as bidi overrides,
# lone surrogates), apart from the plain space.
_UNPRINTABLE = re.compile(r"[^ -~]")

_JSON_TYPE_NAMES: dict[type, str] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


class _Foreign:
    """Stands in for a value that is not JSON-shaped, in a plain copy of a request.

    Compares by identity and shows the text and type name taken, safely, from the original.
    """

    __slots__ = ("text", "type_name")

    def __init__(self, text: str, type_name: str) -> None:
        self.text = text
        self.type_name = type_name

    def __repr__(self) -> str:
        return self.text


class _RepeatedKey:
    """Stands in, in a plain copy of an object, for a key that reads as the same string as
    another key of that object (a ``str`` subclass that hashes and compares as its own): the
    copy cannot hold both, and neither value may silently win."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _type_name(value: object) -> str:
    kind = type(value)
    if kind is _Foreign:
        return value.type_name  # type: ignore[attr-defined,no-any-return]
    name = _JSON_TYPE_NAMES.get(kind)
    if name is not None:
        return name
    return f"Python {_printable(kind.__name__)[:SHOWN_WIDTH]}"


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _printable(text: str) -> str:
    """``text`` with every unprintable character escaped, so it stays on one line."""
    return _UNPRINTABLE.sub(_escape, text)


def _cut(text: str, width: int = SHOWN_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _render(value: object, budget: int, depth: int = 0) -> str:
    """JSON for ``value``, but never much longer than ``budget`` characters and never slow.

    Work is bounded by the budget, not by the size of the value: long strings are cut before
    they are encoded, containers stop after the items that fit, huge integers are described.
    A budget used up (a long key leaves its value none) counts as nothing left, not as a slice
    from the end of the string.
    """
    budget = max(budget, 0)
    kind = type(value)
    if value is None or kind is bool:
        return json.dumps(value)
    if kind is str:
        return json.dumps(value[: budget + 1], ensure_ascii=False)  # type: ignore[index]
    if kind is int:
        if value.bit_length() > 4 * budget:  # type: ignore[attr-defined]
            return "<integer too large to show>"
        return str(value)
    if kind is float:
        return repr(value)
    if depth > 20:
        return "..."
    if kind is list or kind is tuple:  # a tuple is not JSON, but its repr is not bounded
        parts = _render_items(value, budget, depth)  # type: ignore[arg-type]
        if kind is tuple and len(parts) == 1 and parts[0] != "...":
            return f"({parts[0]},)"  # as Python writes a one-item tuple
        return ("[" if kind is list else "(") + ", ".join(parts) + ("]" if kind is list else ")")
    if kind is set or kind is frozenset or kind is deque:
        # Not JSON either, and their repr renders every item first: shown as Python writes
        # them, as far as the budget goes. Iterating these built-in types runs no caller code.
        parts = _render_items(value, budget, depth)  # type: ignore[arg-type]
        if kind is deque:
            bound = value.maxlen  # type: ignore[attr-defined]
            return "deque([" + ", ".join(parts) + "]" + ("" if bound is None else f", maxlen={bound}") + ")"
        inner = "{" + ", ".join(parts) + "}" if parts else ""
        return inner if kind is set and parts else f"{kind.__name__}({inner})"
    if kind is dict:
        parts = []
        used = 1
        for key, item in value.items():  # type: ignore[attr-defined]
            if used > budget:
                parts.append("...")
                break
            shown_key = _render(key, budget - used, depth + 1) if type(key) is str else _repr(key)
            part = f"{shown_key}: {_render(item, budget - used - len(shown_key), depth + 1)}"
            parts.append(part)
            used += len(part) + 2
        return "{" + ", ".join(parts) + "}"
    return _repr(value)


def _render_items(items: Iterable[object], budget: int, depth: int) -> list[str]:
    """The items of a container, each rendered, until ``budget`` is used up (then ``...``)."""
    parts: list[str] = []
    used = 1
    for item in items:
        if used > budget:
            parts.append("...")
            break
        part = _render(item, budget - used, depth + 1)
        parts.append(part)
        used += len(part) + 2
    return parts


def _shown(value: object) -> str:
    """A short, one-line, readable rendering of a value for an error message."""
    try:
        text = _render(value, SHOWN_WIDTH)
    except Exception:  # a value from the caller may break in any way while shown
        text = _repr(value)
    return _cut(_printable(text))


def _repr(value: object) -> str:
    # repr() fails on integers with more digits than Python converts (ValueError), on values
    # nested deeper than the recursion limit (RecursionError), and in any way at all when a
    # caller's class defines __repr__. The result is cut and kept on one line.
    try:
        text = repr(value)
        if type(text) is not str:
            raise TypeError
    except RecursionError:
        return f"<{_type_name(value)} nested too deeply to show>"
    except ValueError:
        return f"<{_type_name(value)} too large to show>"
    except Exception:
        return f"<{_type_name(value)} that cannot be shown>"
    # Escaping only lengthens a text, so what is cut after it is all in the first width + 1
    # characters: the rest of a long repr is never scanned.
    return _cut(_printable(text[: SHOWN_WIDTH + 1]))


def _got(value: object) -> str:
    return f"got {_shown(value)} ({_type_name(value)})"


def _child(path: str, key: str) -> str:
    """The JSON path of ``key`` under ``path``: ``$.a.b``, or ``$.a["odd key"]``.

    A key longer than [`KEY_WIDTH`][harnessbook.context_packet.errors.KEY_WIDTH] is cut and
    marked with ``...`` and its length; unprintable characters are escaped.
    """
    if len(key) > KEY_WIDTH:
        shown = json.dumps(key[:KEY_WIDTH], ensure_ascii=False)[:-1]
        return f'{path}[{_printable(shown)}..." ({len(key)} characters)]'
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{_printable(json.dumps(key, ensure_ascii=False))}]"
