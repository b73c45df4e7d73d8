"""The input error of chapter 6, and how a problem shows the value it is about.

Every problem is one ``"<json path>: <what is wrong>"`` line. Values from the request are
caller data: they are shown short (cut to a fixed width), as JSON where possible, on one line
whatever characters they hold, and never raise while being shown. However large or broken a
request is, the report stays bounded: the first [`MAX_PROBLEMS`][harnessbook.context_packet.errors.MAX_PROBLEMS]
problems are kept and the rest are counted.

Showing a value takes work and memory bounded by the shown width, not by the value: a string
or a container is cut before it is encoded (a set shown sorted is read through once, in memory
bounded by the width). A value of a built-in data type that is not JSON (``bytes``,
``bytearray``, a tuple, a set, a ``deque``, an ``array``, a dict view, a ``complex``, a
``SimpleNamespace``, a ``mappingproxy``, a ``slice``) or of a subclass of one or of a JSON type
(``OrderedDict``, ``Counter``, a ``str`` or ``list`` subclass, an ``IntEnum`` member) is shown
from its data, its items as JSON, the way Python writes the built-in type, with the subclass's
name: ``b'\\x00'``, ``("a", 1)``, ``Items([1, 2])``, ``OrderedDict({"a": 1})``, ``Color(1)``;
its ``__repr__`` never runs, and one that breaks while shown (changed by the ``__repr__`` of an
item) is shown as ``<Python OrderedDict that cannot be shown>``. A field's own value of a
subclass of a JSON type is read as the plain value it holds, and shown as one (an ``IntEnum``
budget of 0: ``got 0 (integer)``); inside another value it keeps its name (``got [Color(1)]
(array)``). Any other value, of a class of
the caller's as of a subclass of another built-in type (an ``Exception``), is shown by its
``__repr__``, cut: it runs once, and a repr that is itself huge costs what it costs to make (a
``range``, a ``memoryview`` or an ``object()`` have short ones). Memory addresses are left out
(``<object object>``), and a set of strings, bytes or numbers (of those exact types: comparing a
subclass's values could run its code) is shown sorted: a message is the
same from run to run.
"""

from __future__ import annotations

import gc
import heapq
import json
import re
from array import array
from collections import OrderedDict, defaultdict, deque
from collections.abc import Iterable
from contextvars import ContextVar
from types import MappingProxyType, SimpleNamespace
from typing import Any, NamedTuple

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


class _NotPlain(Exception):
    """Stops the walk of a request as it was given at the first value that is not plain JSON,
    before anything of it is shown: the plain copy is checked instead, and shows that value once.
    Raised by `_render` while `_PLAIN_ONLY` is set."""


_PLAIN_ONLY: ContextVar[bool] = ContextVar("_PLAIN_ONLY", default=False)
"""Set while the request as given is walked: then `_render` raises `_NotPlain` on meeting a value
that is not plain JSON (a ``dict`` or ``list`` holding one among them, as far as it is shown),
instead of showing it, so that no caller code runs twice."""


_TYPE_NAME = vars(type)["__name__"]  # type's own getter: a metaclass cannot change what it reads
_UNNAMED = "unnamed type"


def _class_name(kind: type) -> str:
    """The name of a class, as its type object holds it: never a metaclass's ``__name__``
    property, which may raise or return anything."""
    try:
        name = _TYPE_NAME.__get__(kind, type)
    except Exception:  # pragma: no cover - type's getter reads the name a class was made with
        return _UNNAMED
    return name if type(name) is str else _UNNAMED


def _type_name(value: object) -> str:
    kind = type(value)
    if kind is _Foreign:
        return value.type_name  # type: ignore[attr-defined,no-any-return]
    name = _JSON_TYPE_NAMES.get(kind)
    if name is not None:
        return name
    # Escaping only lengthens a text: the first characters of the name are enough.
    return f"Python {_cut(_printable(_class_name(kind)[: SHOWN_WIDTH + 1]))}"


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _printable(text: str) -> str:
    """``text`` with every unprintable character escaped, so it stays on one line."""
    return _UNPRINTABLE.sub(_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code <= 0xFFFF or char.isprintable():
        return _escape(match)
    code -= 0x10000  # JSON has no \U: a character beyond U+FFFF is written as its surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _json_printable(text: str) -> str:
    """Like `_printable`, for a JSON string literal: what it escapes, JSON reads back."""
    return _UNPRINTABLE.sub(_json_escape, text)


_ESCAPES = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
"""The escapes of an escaped text (``\\xff``, ``\\u00e9``, ``\\U0001f600``, ``\\n``, ``\\\\``)."""


def _cut(text: str, width: int = SHOWN_WIDTH) -> str:
    """``text``, or its first ``width - 3`` characters and ``...`` when it is longer, never cut
    inside an escape: ``'\\xff...`` or ``'...``, not ``'\\xf...``, which reads as another byte."""
    if len(text) <= width:
        return text
    end = width - 3
    if "\\" in text[:end]:
        for escape in _ESCAPES.finditer(text, 0, end + 9):  # an escape is at most 10 characters
            if escape.start() < end < escape.end():
                end = escape.start()
                break
    return text[:end] + "..."


def _render(value: object, budget: int, depth: int = 0) -> str:
    """JSON for ``value``, but never much longer than ``budget`` characters and never slow.

    Work is bounded by the budget, not by the size of the value: long strings are cut before
    they are encoded, containers stop after the items that fit, huge integers are described.
    A budget used up (a long key leaves its value none) counts as nothing left, not as a slice
    from the end of the string. A value that is not JSON is shown as `_render_python` says, or
    not at all while `_PLAIN_ONLY` is set. A container that breaks while shown (a ``dict``
    changed by the ``__repr__`` of one of its items) is shown as ``<object that cannot be
    shown>``, never by its repr, which would be as large as the container.
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
    if kind is not list and kind is not dict and _PLAIN_ONLY.get():
        raise _NotPlain
    try:
        if kind is list:
            return "[" + ", ".join(_render_items(value, budget, depth)) + "]"  # type: ignore[arg-type]
        if kind is dict:
            return _render_dict(dict.items(value), budget, depth)  # type: ignore[arg-type]
        return _render_python(value, kind, budget, depth)
    except _NotPlain:
        raise
    except Exception:  # changed while shown, or a subclass's data inconsistent: never its repr
        return f"<{_type_name(value)} that cannot be shown>"


_ARRAY_TEXT_CODES = frozenset("uw")  # an array of characters: Python writes it as its text
_DICT_VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))
_SHOWN_BY_DATA: tuple[type, ...] = (
    str,
    int,
    float,
    bytes,
    bytearray,
    list,
    tuple,
    dict,
    set,
    frozenset,
    deque,
    array,
    complex,
    SimpleNamespace,
    *_DICT_VIEWS,
)
"""The built-in types that a value is shown from the data of, never by its ``__repr__``, with
their subclasses: a type derives from at most one of them (their layouts cannot be combined).
``mappingproxy`` and ``slice``, which cannot be subclassed, are shown from their data too."""

_NAMESPACE_DICT = vars(SimpleNamespace)["__dict__"]  # the attributes of a SimpleNamespace


def _render_python(value: object, kind: type, budget: int, depth: int) -> str:
    """A value that is not JSON, shown as Python writes it, bounded like `_render`.

    A value of a built-in data type, or of a subclass of one (``OrderedDict``, ``Counter``,
    ``defaultdict``, an ``IntEnum`` member, a ``str`` or ``list`` subclass), is shown from its
    data, read with the built-in type's own methods, as far as the budget goes: its
    ``__repr__`` never runs, since it would render all of the value first, and no caller code
    runs but the ``__repr__`` of the items shown. Its items are rendered like any value (a
    string in JSON quotes); ``tuple``, ``set``, ``frozenset``, ``deque``, ``bytes``,
    ``bytearray``, ``array`` and dict views are written as Python writes them. A subclass is
    written as its type's name around how its built-in type is written, ``L([1, 2])``,
    ``OrderedDict({"a": 1})``, ``Color(1)``, or with its name in place of the built-in type's,
    as Python does for ``S({1})``, ``S()``, ``defaultdict(<class 'list'>, {})``,
    ``D([1], maxlen=3)``. A ``Counter`` shows its items in the order it holds them, not by count;
    a set or frozenset of strings, bytes, numbers and ``None`` shows them sorted (``None``,
    numbers, strings, then bytes), since the order it holds strings and bytes in changes from
    run to run with ``PYTHONHASHSEED``; a set of anything else shows them in the order it holds
    them. A
    ``mappingproxy`` is written around the mapping it shows, a ``slice`` with its three values,
    a ``SimpleNamespace`` as ``namespace(a=1)``.

    Anything else is shown by its ``__repr__``, which is all that can show it: it runs once, and
    what it returns is cut (a repr that is itself huge costs what it costs to make).
    """
    if kind is _Foreign:
        # A plain copy's placeholder holds the value as it was shown once: cut, printable, its
        # addresses out. Taking addresses out again would change a caller's string inside it
        # (a tuple holding "<x at 0x10>" was shown holding "<x>").
        return value.text  # type: ignore[attr-defined,no-any-return]
    if kind is MappingProxyType:
        # A mappingproxy's methods call the mapping's own, which may be a caller's: the mapping
        # is read as the garbage collector sees it, its one referent.
        referents = gc.get_referents(value)
        if len(referents) != 1:  # pragma: no cover - CPython's mappingproxy has exactly one
            return _repr(value)
        return f"mappingproxy({_render(referents[0], budget - 14, depth + 1)})"
    if kind is slice:
        ends: Any = value
        parts = _render_items((ends.start, ends.stop, ends.step), budget - 7, depth)
        return f"slice({', '.join(parts)})"
    base = next((data for data in _SHOWN_BY_DATA if issubclass(kind, data)), None)
    if base is None:
        return _repr(value)
    data: Any = value  # read below only with the methods of ``base``, which it derives from
    own = kind is base  # a built-in type, not a subclass: no name around it
    name = _class_name(kind)[: SHOWN_WIDTH + 1]  # a caller's class may have any name
    inner = budget if own else max(budget - len(name) - 2, 0)
    text: str
    if base is str:
        text = _render(str.__getitem__(data, slice(0, inner + 1)), inner, depth)
    elif base is int:
        text = _render(int.__int__(data), inner, depth)
    elif base is float:
        text = _render(float.__float__(data), inner, depth)
    elif base is complex:
        text = complex.__repr__(data)
    elif base is bytes:
        text = bytes.__repr__(bytes.__getitem__(data, slice(0, inner + 1)))
    elif base is bytearray:
        head = bytes(bytearray.__getitem__(data, slice(0, budget + 1)))
        return f"{name}({bytes.__repr__(head)})"
    elif base is list:
        text = "[" + ", ".join(_render_items(list.__iter__(data), inner, depth)) + "]"
    elif base is tuple:
        parts = _render_items(tuple.__iter__(data), inner, depth)
        one = len(parts) == 1 and parts[0] != "..."
        text = f"({parts[0]},)" if one else "(" + ", ".join(parts) + ")"  # as Python writes a one-item tuple
    elif base is dict:
        items = OrderedDict.items(data) if issubclass(kind, OrderedDict) else dict.items(data)
        if issubclass(kind, defaultdict):  # Python writes its default factory first
            factory = _repr(vars(defaultdict)["default_factory"].__get__(data))
            return f"{name}({factory}, {_render_dict(items, budget - len(name) - len(factory) - 4, depth)})"
        text = _render_dict(items, inner, depth)
    elif base is set or base is frozenset:
        parts = _render_items(_set_items(data, base, budget), budget, depth)
        if kind is set and parts:
            return "{" + ", ".join(parts) + "}"
        return f"{name}({{{', '.join(parts)}}})" if parts else f"{name}()"
    elif base is deque:
        parts = _render_items(deque.__iter__(data), budget, depth)
        bound = deque.maxlen.__get__(data)
        return f"{name}([{', '.join(parts)}]" + ("" if bound is None else f", maxlen={bound}") + ")"
    elif base is array:
        code = array.typecode.__get__(data)
        if not array.__len__(data):
            return f"{name}({code!r})"
        if code in _ARRAY_TEXT_CODES:
            chars = array.tounicode(array.__getitem__(data, slice(0, budget + 1)))
            return f"{name}({code!r}, {_render(chars, budget, depth)})"
        return f"{name}({code!r}, [{', '.join(_render_items(array.__iter__(data), budget, depth))}])"
    elif base is SimpleNamespace:
        return _render_namespace(_NAMESPACE_DICT.__get__(data), "namespace" if own else name, budget, depth)
    else:  # a view of a dict: keys, values or items (no caller code runs while iterating one)
        return f"{name}([{', '.join(_render_items(iter(data), budget, depth))}])"
    return text if own else f"{name}({text})"


class _Unordered(Exception):
    """A set holds an item that `_set_order` does not sort."""


_NUMBER_TYPES = frozenset({int, float, bool})


def _set_order(item: object) -> tuple[int, Any]:
    """Where ``item`` goes in a set shown sorted: ``None``, numbers, ``NaN``, strings, then
    bytes, each by value; only exact types, so that comparing runs no caller code."""
    kind = type(item)
    if kind is str:
        return (3, item)
    if kind in _NUMBER_TYPES:
        return (1, item) if item == item else (2, 0)  # NaN equals no number: all NaNs tie, shown alike
    if kind is bytes:
        return (4, item)
    if item is None:
        return (0, 0)
    raise _Unordered


def _set_items(data: Any, base: Any, budget: int) -> Iterable[object]:
    """The items of a set or frozenset to show: sorted when `_set_order` sorts them all, else in
    the order the set holds them. Only the smallest items that fit in ``budget`` are kept
    (each takes at least 3 characters, ``1, ``), in one pass over the set."""
    try:
        return heapq.nsmallest(budget // 3 + 2, base.__iter__(data), key=_set_order)
    except _Unordered:
        return base.__iter__(data)  # type: ignore[no-any-return]


def _render_namespace(attributes: dict[object, object], name: str, budget: int, depth: int) -> str:
    """A ``SimpleNamespace``'s attributes as Python writes them, ``namespace(a=1, b="x")``, until
    ``budget`` is used up (then ``...``); like Python, only non-empty string names are shown."""
    parts = []
    used = len(name) + 2
    key: Any  # read below only with the methods of ``str``, which it derives from
    for key, item in dict.items(attributes):
        if used > budget:
            parts.append("...")
            break
        if not (issubclass(type(key), str) and str.__len__(key)):
            used += 1  # not shown, but read: a namespace of such keys still stops at the width
            continue
        attribute = str.__getitem__(key, slice(0, budget + 1))
        part = f"{attribute}={_render(item, budget - used - len(attribute) - 1, depth + 1)}"
        parts.append(part)
        used += len(part) + 2
    return f"{name}({', '.join(parts)})"


def _render_dict(items: Iterable[tuple[object, object]], budget: int, depth: int) -> str:
    """The items of a dict, as JSON, until ``budget`` is used up (then ``...``)."""
    parts = []
    used = 1
    for key, item in items:
        if used > budget:
            parts.append("...")
            break
        shown_key = _render_key(key, budget - used, depth + 1)
        part = f"{shown_key}: {_render(item, budget - used - len(shown_key), depth + 1)}"
        parts.append(part)
        used += len(part) + 2
    return "{" + ", ".join(parts) + "}"


def _render_key(key: object, budget: int, depth: int) -> str:
    """A key of a dict: a ``str`` as JSON; ``None``, ``True`` and ``False`` as Python writes them
    (JSON has no such key, and ``null`` would read as a string key); anything else as a value.
    A `_RepeatedKey` of a plain copy is shown as the string it reads as, as the caller wrote it."""
    if key is None or type(key) is bool:
        return repr(key)
    if type(key) is _RepeatedKey:
        return _render(key.name, budget, depth)
    return _render(key, budget, depth)


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
    except _NotPlain:
        raise
    except Exception:  # pragma: no cover - `_render` catches what a value breaks with
        text = f"<{_type_name(value)} that cannot be shown>"  # never the repr: it is unbounded
    return _cut(_printable(text))


def _shown_key(key: object) -> str:
    """A key of the request that is not a string, shown as `_render_key` shows a dict's key."""
    try:
        text = _render_key(key, SHOWN_WIDTH, 0)
    except _NotPlain:
        raise
    except Exception:  # pragma: no cover - as in `_shown`
        text = f"<{_type_name(key)} that cannot be shown>"
    return _cut(_printable(text))


_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]{1,16}(?=>)")
"""A memory address in a repr, ``<object object at 0x7f...>``: it changes from run to run. Only
as Python writes one, at the end of an angle-bracketed repr (a caller's ``Point at 0x10`` stays)."""


def _without_addresses(text: str, width: int) -> str:
    """The first ``width`` characters of ``text`` once its memory addresses are taken out
    (``<memory at 0x7f...>`` becomes ``<memory>``), reading only as far as they go."""
    parts = []
    at = 0
    need = width
    while need > 0:
        # An address is at most 16 hex digits: one starting within what is needed ends well
        # inside the part searched.
        match = _ADDRESS.search(text, at, at + need + 40)
        if match is None or match.start() >= at + need:
            parts.append(text[at : at + need])
            break
        parts.append(text[at : match.start()])
        need -= match.start() - at
        at = match.end()
    return "".join(parts)


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
    # characters (once addresses are out), and an escape of the repr's own (``\U000f0000``, at
    # most ten characters) that starts there ends within nine more: the rest of a long repr is
    # never scanned.
    return _cut(_printable(_without_addresses(text, SHOWN_WIDTH + 9)))


def _got(value: object) -> str:
    return f"got {_shown(value)} ({_type_name(value)})"


def _child(path: str, key: str) -> str:
    """The JSON path of ``key`` under ``path``: ``$.a.b``, or ``$.a["odd key"]``.

    A key longer than [`KEY_WIDTH`][harnessbook.context_packet.errors.KEY_WIDTH] is cut and
    marked with ``...`` and its length; unprintable characters are escaped as JSON escapes them
    (a character beyond U+FFFF as its surrogate pair), so that the key of a path not cut reads
    back as the key it names.
    """
    if len(key) > KEY_WIDTH:
        shown = json.dumps(key[:KEY_WIDTH], ensure_ascii=False)[:-1]
        return f'{path}[{_json_printable(shown)}..." ({len(key)} characters)]'
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{_json_printable(json.dumps(key, ensure_ascii=False))}]"
