"""The ``harnessbook`` command line: build packets from JSON, print the demo and the schemas.

Exit codes (stable, for scripts and CI):

* 0: the packet is ``ready``
* 1: the input could not be read as one JSON request: a file that cannot be opened or read
  (no such file, a directory), closed standard input, larger than ``--max-bytes``, not UTF-8,
  not JSON, a repeated object key, ``NaN`` or ``Infinity``, nested more than
  [`MAX_DEPTH`][harnessbook.cli.MAX_DEPTH] (500) levels deep, an integer with
  more digits than Python converts, a number too large or too small for a float (``1e400``, ``1e-400``),
  or too large to hold in memory (the text, its JSON values or its packet)
* 2: the request is invalid (one problem a line on stderr, at most 101 lines; one line of JSON
  with ``build --errors json``)
* 3: ``refresh_required``
* 4: ``blocked``
* 64: the command line is wrong (a usage error, reported by argparse)
* 74: standard output could not be written: it is closed, the disk is full, or the output
  does not fit in memory
* 130: interrupted (Ctrl-C, SIGINT), without a message. The command ends the way Python ends
  on an uncaught Ctrl-C, by SIGINT itself: a shell reports 130, and a script or loop that runs
  it stops too (bash carries on after a child that merely exits 130)

A reader that stops early (``harnessbook demo | head -c1``) is not an error: the exit code
is still the verdict (0, 3 or 4), whether or not the reader left before the output ended.
No outcome prints a traceback.

With ``build --errors json``, what ends the build with 1, 2 or 74 is reported on stderr as one
JSON object on one line instead of text: ``{"error": "invalid_request", "exitCode": 2,
"problems": [{"path": ..., "message": ...}], "total": N}`` for an invalid request (the first
100 problems, and how many there are in all), ``{"error": "unreadable_input", "exitCode": 1,
"message": ...}`` and ``{"error": "output_failed", "exitCode": 74, "message": ...}`` otherwise.
Usage errors (64), and a ``--help`` that cannot be written (74), stay text: they are about the
command line itself, reported before it is read.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import errno
import functools
import io
import itertools
import json
import math
import os
import re
import selectors
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, BinaryIO, Final, NoReturn, TextIO, TypeVar, cast

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

from harnessbook import __version__
from harnessbook.context_packet import InvalidRequestError, build_context_packet, demo_request
from harnessbook.context_packet.errors import _child, _cut, _printable
from harnessbook.figure import render_svg
from harnessbook.schemas import SCHEMA_FILES, load_schema

__all__ = ["main", "EXIT_CODES", "MAX_BYTES", "MAX_DEPTH"]

EXIT_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        "ready": 0,
        "unreadable_input": 1,
        "invalid_request": 2,
        "refresh_required": 3,
        "blocked": 4,
        "usage": 64,
        "output_failed": 74,
        "interrupted": 130,
    }
)
"""The exit code of each outcome. ``interrupted``: the command ends by SIGINT itself, which a
shell reports as 130 (``subprocess`` sees -2); ``main()`` returns 130 only where there are no
POSIX signals. A read-only mapping (``types.MappingProxyType``), not a dict: ``json.dumps``, ``copy.deepcopy``
and ``pickle`` refuse it; ``dict(...)`` makes a copy."""

MAX_BYTES = 64 * 1024 * 1024
"""The largest input ``build`` reads by default: 64 MiB (change it with ``--max-bytes``)."""

_ESCAPED_IN_OUTPUT = re.compile(
    "[\u007f-\u009f\ud800-\udfff\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""Printed as ``\\uXXXX`` in the JSON output: lone surrogates (UTF-8 cannot encode them),
the characters that reorder the text around them (bidi marks, embeddings, overrides, isolates),
the line and paragraph separators, and DEL and the C1 controls (U+0085 NEXT LINE breaks a line,
U+009B starts a terminal escape sequence; JSON already escapes the C0 controls). The value is the same JSON; a reader's terminal or page
shows the line as it is, not reordered or broken."""
_CHUNK = 1 << 16

MAX_DEPTH: Final = 500
"""How deeply a JSON text may nest arrays and objects. Deeper, it is refused as unreadable input
(exit code 1) whatever else it holds, with the same words on every Python version; the book's
playground refuses the same texts before Python reads them. A valid request nests four levels.

Without this limit, how deep a text could be before Python's ``json`` failed to read it depended
on the interpreter: about 1,000 levels on 3.11, some thousands on 3.13. A text a few hundred
levels deep is never a request; it is refused here for what it is."""

_TOO_DEEP = f"is nested more than {MAX_DEPTH} levels deep"


class _Unreadable(Exception):
    """The input is not one readable JSON request: ``head + where + tail`` says why."""

    def __init__(self, tail: str, head: str = "", position: tuple[str, int, int] | None = None) -> None:
        super().__init__(tail)
        self.head = head
        self.position = position  # a JSON syntax error: (message, line, column)
        self.tail = tail if tail.startswith(":") else " " + tail


class _OutputFailed(Exception):
    """Standard output could not be written; ``error`` is why."""

    def __init__(self, error: OSError | ValueError) -> None:
        super().__init__()
        self.error = error


class _Output:
    """Standard output, with every failure to write turned into `_OutputFailed`.

    With ``descriptor`` (the process's own standard output), the text is written to that file
    descriptor as UTF-8, every byte of it: where a parent left it non-blocking, a write that
    would block waits until the descriptor takes more. Python's own stream cannot be trusted
    with that: unbuffered (``PYTHONUNBUFFERED``, ``python -u``) it drops whatever a full pipe
    does not take, without a word; buffered, it fails with "would block".
    """

    def __init__(self, stream: TextIO, descriptor: int | None = None) -> None:
        self.stream = stream
        self.descriptor = descriptor

    def write(self, text: str) -> None:
        try:
            if self.descriptor is None:
                self.stream.write(text)
            else:
                _write_all(self.descriptor, text.encode("utf-8"))
        except (OSError, ValueError) as error:  # ValueError: I/O operation on closed file
            raise _OutputFailed(error) from None

    def flush(self) -> None:
        if self.descriptor is not None:
            return  # written as it went
        try:
            self.stream.flush()
        except (OSError, ValueError) as error:
            raise _OutputFailed(error) from None


def _own_descriptor(stream: TextIO) -> int | None:
    """The file descriptor under the process's standard output, once what its stream holds is
    flushed; None where ``stream`` is not the interpreter's own standard output (a
    ``sys.stdout`` a caller or a test put in its place is written as it is, through its own
    encoding and line ends)."""
    if stream is not sys.__stdout__:
        return None
    try:
        stream.flush()
        return stream.fileno()
    except (OSError, ValueError):
        return None


def _write_all(descriptor: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``descriptor``, waiting whenever it would block."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(descriptor, view)
        except BlockingIOError:
            _wait_for(descriptor, selectors.EVENT_WRITE)
            continue
        view = view[written:]


def _wait_for(descriptor: int, event: int) -> None:
    """Wait until ``descriptor`` can be read (``selectors.EVENT_READ``) or written
    (``EVENT_WRITE``) again: the system's own selector (epoll here, with no limit on the
    descriptor's number); where it cannot watch the descriptor (a pipe on Windows), a short
    sleep."""
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(descriptor, event)
            selector.select()
    except (OSError, ValueError):
        time.sleep(0.01)


def _dump(value: Any, out: _Output) -> None:
    # Written in chunks, so a large result is never held twice as one string.
    encoder = json.JSONEncoder(ensure_ascii=False, indent=2)
    parts: list[str] = []
    size = 0
    for part in encoder.iterencode(value):
        parts.append(part)
        size += len(part)
        if size >= _CHUNK:
            out.write(_escape_in_output("".join(parts)))
            parts, size = [], 0
    parts.append("\n")
    out.write(_escape_in_output("".join(parts)))


def _escape_in_output(text: str) -> str:
    """JSON text with :data:`_ESCAPED_IN_OUTPUT` written as escapes (the in-browser playground
    shows its results this way too)."""
    return _ESCAPED_IN_OUTPUT.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class _Refused:
    """What json reads in place of a value the command refuses (``NaN``, a number no float
    holds, an integer too long to convert), so that the refusal can name where it is once the
    document is read. Only the first in the text is worded; the rest share one placeholder."""

    __slots__ = ("words",)

    def __init__(self, words: str) -> None:
        self.words = words


_MORE_REFUSED = _Refused("")
"""The placeholder of every refused value after the first: one object, however many there are."""


class _Refusals:
    """json's ``parse_constant`` and ``parse_float`` (and ``parse_int``, in the second reading of
    a text that has an integer too long to convert): each returns the value, or a
    :class:`_Refused` placeholder. ``first`` is the first refused value in the text."""

    def __init__(self) -> None:
        self.first: _Refused | None = None

    def _refuse(self, words: str) -> _Refused:
        if self.first is not None:
            return _MORE_REFUSED
        self.first = _Refused(words)
        return self.first

    def constant(self, name: str) -> _Refused:
        return self._refuse(f"is not JSON: {name}{{at}} is not a JSON value (JSON has no NaN or Infinity)")

    def float(self, text: str) -> float | _Refused:
        # json reads 1e400 as infinity, which JSON cannot hold either: refuse it as its own
        # words, not as an "inf" the reader never wrote.
        value = float(text)
        if value in (math.inf, -math.inf):
            return self._refuse(
                f"has the number {_cut(text, 40)}{{at}}, too large for a float (it would read as infinity)"
            )
        if value == 0 and re.search("[1-9]", text.lower().partition("e")[0]):
            # 1e-400 reads as 0.0: a value the reader never wrote, refused as its own words too.
            return self._refuse(
                f"has the number {_cut(text, 40)}{{at}}, too small for a float (it would read as 0)"
            )
        return value

    def int(self, text: str) -> int | _Refused:
        try:
            return int(text)
        except ValueError:  # more digits than Python converts (its own words name a setting)
            limit = sys.get_int_max_str_digits()
            return self._refuse(f"has an integer with more than {limit} digits{{at}}, too long to read")

    def error(self, root: Any = None) -> _Unreadable:
        """The refusal of the first refused value, with its JSON path when it is still in the
        document ``root`` (a repeated key can drop it)."""
        assert self.first is not None
        first = self.first
        where = next((_path(keys) for value, keys in _in_document_order(root) if value is first), None)
        return _Unreadable(first.words.format(at="" if where is None else f" at {where}"))


def _in_document_order(root: Any) -> Iterator[tuple[Any, list[str | int]]]:
    """Every value of ``root`` in document order, an object or array before what it holds,
    each with the keys that lead to it (one list, changed as the walk goes on: read it at once).
    Iterative, with one iterator a level: any depth, and no path is written until one is
    wanted (:func:`_path`)."""
    keys: list[str | int] = []
    yield root, keys
    first = _items(root)
    stack = [] if first is None else [first]
    while stack:
        for key, value in stack[-1]:
            keys.append(key)
            yield value, keys
            items = _items(value)
            if items is not None:
                stack.append(items)
                break
            keys.pop()
        else:
            stack.pop()
            if keys:
                keys.pop()


def _items(value: Any) -> Iterator[tuple[str | int, Any]] | None:
    """What an object or array holds, with its keys or indexes; None for any other value."""
    if type(value) is dict:
        return iter(value.items())
    if type(value) is list:
        return enumerate(value)
    return None


def _path(keys: list[str | int]) -> str:
    path = "$"
    for key in keys:
        path = f"{path}[{key}]" if type(key) is int else _child(path, key)  # type: ignore[arg-type]
    return path


class _Duplicates:
    """An ``object_pairs_hook`` that builds dicts and remembers each one with a repeated key
    (by ``id``, with its first repeated key). An object can be dropped later, when the key that
    holds it is itself repeated, so every one is kept until the document is read."""

    def __init__(self) -> None:
        self.found: dict[int, tuple[dict[str, Any], str]] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.found[id(obj)] = (obj, key)
                    break
                seen.add(key)
        return obj


def _first_repeat(root: Any, found: dict[int, tuple[dict[str, Any], str]]) -> str:
    """The JSON path of the first repeated key met walking ``root`` in document order, an object
    before what it holds. One is always met: an object that was dropped was held by a key
    repeated in an object that holds it, and the outermost of those is in the document."""
    for value, keys in _in_document_order(root):
        if type(value) is dict:
            entry = found.get(id(value))
            if entry is not None and entry[0] is value:
                return _child(_path(keys), entry[1])
    raise AssertionError("a repeated key was read but is not in the document")  # pragma: no cover


def _parse(held: list[bytes]) -> Any:
    """The one JSON request in the bytes ``held`` holds, which it empties: the caller keeps no
    reference to them, so they are freed as soon as they are decoded (up to --max-bytes of
    memory that json's objects can use instead)."""
    data = held.pop()
    for name, bom in (
        ("UTF-32", codecs.BOM_UTF32_LE),
        ("UTF-32", codecs.BOM_UTF32_BE),
        ("UTF-16", codecs.BOM_UTF16_LE),
        ("UTF-16", codecs.BOM_UTF16_BE),
    ):
        if data.startswith(bom):  # UTF-16 is what Windows PowerShell 5's `>` writes
            raise _Unreadable(f"is not UTF-8: it starts with a {name} byte-order mark (save it as UTF-8)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        # utf-8-sig counts from after a byte-order mark; the reader counts from the file's start.
        start = error.start + (len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0)
        raise _Unreadable(f"is not UTF-8: {error.reason} at byte {start}") from None
    del data
    return _parse_text(text)


def _parse_text(text: str) -> Any:
    """The one JSON request in ``text``, read as strictly as the command line reads it.

    Shared with the in-browser playground, so both refuse the same texts: a repeated key,
    ``NaN`` or ``Infinity``, nesting too deep or an integer too long to read.

    A text nested more than :data:`MAX_DEPTH` levels deep is refused as such, whatever else it
    holds. That is decided here for a text that is refused anyway (not JSON, a repeated key, a
    refused value), from the text itself; a text that reads as JSON is returned, and
    :func:`_build_read` asks :func:`_too_deep` of the value only if the builder refuses it (a
    valid request nests four levels), so a valid request pays nothing for the check.
    """
    if _BLANK.fullmatch(text):  # json's words would be "Expecting value (line 1, column 1)"
        raise _Unreadable("is empty" if not text else "holds only white space")
    duplicates = _Duplicates()
    refusals = _Refusals()
    try:
        try:
            request = json.loads(
                text,
                object_pairs_hook=duplicates,
                parse_constant=refusals.constant,
                parse_float=refusals.float,
            )
        except ValueError as error:
            if isinstance(error, json.JSONDecodeError):
                raise
            # An integer with more digits than Python converts. Read again, with integers read
            # one by one (json's own reading of them is about three times as fast): the first
            # refused value of the text may come before it.
            duplicates, refusals = _Duplicates(), _Refusals()
            request = json.loads(
                text,
                object_pairs_hook=duplicates,
                parse_constant=refusals.constant,
                parse_float=refusals.float,
                parse_int=refusals.int,
            )
    except json.JSONDecodeError as error:
        if _text_too_deep(text):
            raise _Unreadable(_TOO_DEEP) from None
        if refusals.first is not None:  # a refused value came first in the text: the first problem
            raise refusals.error() from None
        error = _trailing_comma(error)
        # json's words for a text that starts with U+FEFF advise a programmer which codec to use.
        message = (
            "a byte-order mark (U+FEFF) before the JSON text" if text.startswith("\ufeff") else error.msg
        )
        raise _Unreadable(
            f"is not JSON: {message} (line {error.lineno}, column {error.colno})",
            position=(message, error.lineno, error.colno),
        ) from None
    except RecursionError:
        if _text_too_deep(text):
            raise _Unreadable(_TOO_DEEP) from None
        # Python's stack ran out before MAX_DEPTH levels: the caller was already deep in it.
        if refusals.first is not None:
            raise refusals.error() from None
        raise _Unreadable("is nested too deeply to read") from None
    if (refusals.first is not None or duplicates.found) and _text_too_deep(text):
        raise _Unreadable(_TOO_DEEP)
    del text
    if refusals.first is not None:
        raise refusals.error(request)
    if duplicates.found:
        where = _first_repeat(request, duplicates.found)
        raise _Unreadable(
            f"repeats the key {where}: JSON readers disagree on which value counts, so it is refused"
        )
    return request


_BEFORE_TRAILING_COMMA: Final = MappingProxyType(
    {"}": ("Expecting property name enclosed in double quotes", "object"), "]": ("Expecting value", "array")}
)
"""What json before Python 3.13 says at the bracket that closes an object or array after a comma,
and what the bracket closes."""


def _trailing_comma(error: json.JSONDecodeError) -> json.JSONDecodeError:
    """``error``, or for a trailing comma (``[1,]``) the error Python 3.13's json gives, whatever
    the version: "Illegal trailing comma before end of array", on the comma. Before 3.13 json said
    a value (or a name) was expected, on the bracket after it; the same text gets the same words
    and position on every supported version, the playground's (3.14) too."""
    said = _BEFORE_TRAILING_COMMA.get(error.doc[error.pos : error.pos + 1])
    if said is None or error.msg != said[0]:
        return error
    comma = len(error.doc[: error.pos].rstrip(" \t\n\r")) - 1  # JSON's white space
    if comma < 0 or error.doc[comma] != ",":
        return error
    return json.JSONDecodeError(f"Illegal trailing comma before end of {said[1]}", error.doc, comma)


_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+(?:"|\\?\Z)')
"""A string of a JSON text, from its opening quote to its closing one or, left open, to the end
of the text: every match starts at a quote outside strings, so the text is scanned once (a
pattern that failed on an open string would try again at each escaped quote inside it). The
quantifiers are possessive: nothing is kept to backtrack into, so a string of millions of escapes
costs no memory beyond the match (about 60 bytes an escape otherwise)."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_NESTING_STEP: Final = MappingProxyType({"[": 1, "{": 1, "]": -1, "}": -1})


def _text_too_deep(text: str) -> bool:
    """Whether ``text`` nests arrays and objects more than :data:`MAX_DEPTH` levels deep, counting
    the brackets outside its strings up to the end of the text, whether or not it is JSON (a
    string left open runs to the end). The playground's worker counts the same way."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    # Stops at the first level past the limit: a text of nothing but "[" is answered at once.
    return any(map(MAX_DEPTH.__lt__, itertools.accumulate(map(_NESTING_STEP.__getitem__, brackets))))


def _too_deep(value: Any) -> bool:
    """Whether ``value``, read from a JSON text, nests lists and dicts more than :data:`MAX_DEPTH`
    levels deep: as :func:`_text_too_deep` says of its text (it has no repeated key). One iterator
    a level, so the walk holds no more than MAX_DEPTH + 1 of them, however large the value."""
    if type(value) is not dict and type(value) is not list:
        return False
    stack = [iter(value.values() if type(value) is dict else value)]
    while stack:
        for child in stack[-1]:
            if type(child) is dict or type(child) is list:
                if len(stack) == MAX_DEPTH:
                    return True
                stack.append(iter(child.values() if type(child) is dict else child))
                break
        else:
            stack.pop()
    return False


def _build_read(request: Any) -> Any:
    """``build_context_packet(request)`` for a request read by :func:`_parse_text`: one the
    builder refuses that nests more than :data:`MAX_DEPTH` levels deep raises
    :class:`_Unreadable` instead, as :func:`_parse_text` says of such a text it refuses itself."""
    try:
        return build_context_packet(request)
    except InvalidRequestError:
        if _too_deep(request):
            raise _Unreadable(_TOO_DEEP) from None
        raise


_BLANK = re.compile("[ \t\r\n]*")
"""A text with no JSON value at all: JSON's white space alone (a byte-order mark is none: a text
that still starts with one, a second one in a file or a text given to the playground, is named
as such by the JSON error)."""
_READ_CHUNK = 1 << 20
_TOO_LARGE = "is too large to hold in memory (lower --max-bytes to refuse it sooner)"
_Piece = TypeVar("_Piece", bytes, str)


def _read_at_most(
    read: Callable[[int], _Piece | None], limit: int, wait: Callable[[], object] | None = None
) -> list[_Piece]:
    """What ``read`` gives, up to ``limit`` bytes or characters, in pieces of at most
    :data:`_READ_CHUNK`: a limit far larger than the input (``--max-bytes`` has no upper bound)
    never reserves its own size in memory.

    ``read`` gives ``None`` where the stream is non-blocking and nothing has arrived yet (a
    parent process may set ``O_NONBLOCK`` on the pipe it shares): ``wait`` then waits for more,
    and the end of the input is only an empty piece."""
    pieces: list[_Piece] = []
    size = 0
    while size < limit:
        piece = read(min(_READ_CHUNK, limit - size))
        if piece is None and wait is not None:
            wait()
            continue
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return pieces


def _read(name: str, stdin: TextIO | None, max_bytes: int) -> Any:
    try:
        if name == "-":
            if stdin is None:
                raise _Unreadable(": it is closed", head="cannot read ")
            # Read bytes where possible so a non-UTF-8 pipe is reported, not mis-decoded.
            buffer = getattr(stdin, "buffer", None)
            try:
                if buffer is not None:
                    data = b"".join(_read_at_most(buffer.read, max_bytes + 1, _waiter(buffer)))
                else:
                    data = _utf8("".join(_read_at_most(stdin.read, max_bytes + 1)))
            except (OSError, ValueError) as error:
                raise _Unreadable(f": {_reason(error)}", head="cannot read ") from None
        else:
            try:
                with open(name, "rb") as handle:
                    data = b"".join(_read_at_most(handle.read, max_bytes + 1))
            except (OSError, ValueError) as error:  # ValueError: a NUL in a name given to main()
                raise _Unreadable(f": {_reason(error)}", head="cannot read ") from None
        if len(data) > max_bytes:
            raise _Unreadable(f"is larger than {max_bytes} bytes, the limit (raise it with --max-bytes)")
        held = [data]
        del data  # json's objects take several times the text's size: _parse frees the bytes
        return _parse(held)
    except MemoryError:
        raise _Unreadable(_TOO_LARGE) from None


def _utf8(text: str) -> bytes:
    """The UTF-8 of a text stream's ``text`` (given to :func:`main` in-process): a lone surrogate,
    which no UTF-8 can hold, is named as the character it is, where it is."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        raise _Unreadable(
            f"is not UTF-8: a lone surrogate U+{code:04X} at character {error.start}, which UTF-8 cannot hold"
        ) from None


def _waiter(stream: Any) -> Callable[[], object] | None:
    """A call that waits until ``stream`` can be read again (:func:`_wait_for`), or None where
    it cannot wait (no file descriptor: it never reads as non-blocking)."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return functools.partial(_wait_for, descriptor, selectors.EVENT_READ)


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _say(stderr: TextIO | None, line: str) -> None:
    """Write one line to standard error; a closed or broken stderr is not worth a traceback."""
    if stderr is None:
        return
    try:
        stderr.write(line + "\n")
        stderr.flush()
    except (OSError, ValueError):
        pass


def _report(stderr: TextIO | None, args: argparse.Namespace, code: str, message: str) -> None:
    """Report what ended the command with exit code ``code`` (an [`EXIT_CODES`][harnessbook.cli.EXIT_CODES]
    name): the line ``harnessbook: message``, or with ``build --errors json`` one JSON object on
    one line, ``{"error": code, "exitCode": N, "message": message}``."""
    if _json_errors(args):
        _say(stderr, _error_document(code, message=message))
    else:
        _say(stderr, f"harnessbook: {message}")


def _report_invalid(stderr: TextIO | None, args: argparse.Namespace, error: InvalidRequestError) -> None:
    """Report an invalid request: one problem a line (``JSON path: problem``), or with
    ``build --errors json`` one JSON object on one line, ``{"error": "invalid_request",
    "exitCode": 2, "problems": [{"path": ..., "message": ...}, ...], "total": N}``: the first
    100 problems, and how many there are in all."""
    if _json_errors(args):
        problems = [{"path": problem.path, "message": problem.message} for problem in error.details]
        _say(stderr, _error_document("invalid_request", problems=problems, total=error.total))
    else:
        for problem in error.problems:
            _say(stderr, problem)


def _json_errors(args: argparse.Namespace) -> bool:
    return getattr(args, "errors", "text") == "json"  # only `build` has --errors


def _error_document(code: str, **fields: Any) -> str:
    """``{"error": code, "exitCode": N, **fields}`` as JSON on one line, written as the result is
    (UTF-8, with :data:`_ESCAPED_IN_OUTPUT` as escapes)."""
    document = {"error": code, "exitCode": EXIT_CODES[code], **fields}
    return _escape_in_output(json.dumps(document, ensure_ascii=False))


def _where(args: argparse.Namespace) -> str:
    return "standard input" if args.file == "-" else _file_name(args.file)


def _build(args: argparse.Namespace, stdin: TextIO | None, stderr: TextIO | None) -> tuple[bool, Any]:
    """Whether the input was read, and the request it holds."""
    where = _where(args)
    try:
        return True, _read(args.file, stdin, args.max_bytes)
    except _Unreadable as error:
        _report(stderr, args, "unreadable_input", f"{error.head}{where}{error.tail}")
        return False, None


_SURROGATE_ESCAPES = re.compile("[\udc80-\udcff]")
"""How Python reads a byte of a POSIX file name or argument that the locale's encoding cannot
decode (``surrogateescape``): U+DC80 to U+DCFF stand for the bytes 0x80 to 0xFF."""
_REPR_SURROGATE_ESCAPES = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")
"""The same characters as ``repr`` writes them (``\\udcff``), not after an escaped backslash."""


def _as_byte(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()) - 0xDC00:02x}"


def _undecoded_bytes(text: str) -> str:
    """``text`` with each byte the locale could not decode shown as the byte it is (``\\xff``),
    where Python reads such bytes as lone surrogates (POSIX); elsewhere ``text`` itself."""
    return _SURROGATE_ESCAPES.sub(_as_byte, text) if os.name == "posix" else text


def _argument(text: str, width: int) -> str:
    """An argument as a usage error quotes it: its ``repr`` on one line, cut to ``width``, with
    the bytes that are not UTF-8 shown as bytes (``'\\xff'``, not ``'\\udcff'``) on POSIX."""
    shown = _printable(repr(text))
    if os.name == "posix":
        shown = _REPR_SURROGATE_ESCAPES.sub(lambda match: f"{match.group(1)}\\x{match.group(2)}", shown)
    return _cut(shown, width)


def _file_name(name: str) -> str:
    """A file name as a message shows it: on one line (control characters escaped), cut to a
    fixed width, and quoted when it is empty or has spaces or quotes at its ends. Bytes of the
    name that are not UTF-8 (which Python reads from the command line as lone surrogates) are
    shown as the bytes they are (``\\xff``), so that the name can be found."""
    shown = _cut(_printable(_undecoded_bytes(name)), 120)
    return f'"{shown}"' if not shown or shown != shown.strip(" '\"") else shown


def _max_bytes(text: str) -> int:
    if not re.fullmatch("[0-9]+", text):  # int() also takes "5_000", " 5000 " and other scripts' digits
        raise argparse.ArgumentTypeError(f"not a whole number of bytes: {_argument(text, 42)}")
    digits = text.lstrip("0") or "0"
    # More bytes than any file or pipe holds is no limit at all: such a number is read as the
    # largest size (and never converted whole, which Python refuses past 4,300 digits, a limit
    # its own settings move).
    value = int(digits) if len(digits) <= len(str(sys.maxsize)) else sys.maxsize
    value = min(value, sys.maxsize)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _schema_name(text: str) -> str:
    # argparse's `choices` words this differently from one Python release to the next (quoted
    # or not): the book's pages show the message, so it is the package's own.
    if text not in SCHEMA_FILES:
        names = ", ".join(sorted(SCHEMA_FILES))
        raise argparse.ArgumentTypeError(f"no schema is named {_argument(text, 60)} (choose from {names})")
    return text


class _ClosedOutput(OSError):
    """Standard output is closed (``>&-``): ``--help`` and ``--version`` have nowhere to go."""

    def __init__(self) -> None:
        super().__init__(errno.EBADF, "it is closed")


class _Parser(argparse.ArgumentParser):
    """argparse, writing to the streams ``main`` was given (:func:`_parser` sets them), not to
    ``sys.stdout`` and ``sys.stderr``."""

    out: TextIO | None = None
    err: TextIO | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Python 3.14's argparse colours help and usage when sys.stdout is a terminal, whatever
        # stream the text goes to: plain text on every version (no attribute before 3.14).
        self.color = False

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        # argparse exits 2 on a usage error; 2 means an invalid request here. A message that
        # cannot be written (standard error closed, or full) is dropped: the exit code says it.
        if message:
            _say(self.err, message.rstrip("\n"))
        sys.exit(EXIT_CODES["usage"] if status == 2 else status)

    def error(self, message: str) -> NoReturn:
        # argparse's own, but on standard error only: argparse prints the usage line on standard
        # output when standard error is closed.
        # argparse quotes a wrong argument as it is (``unrecognized arguments: ...``): its
        # control and bidi characters are escaped, so the message stays one line, in order.
        # Bytes that are not UTF-8 are shown as bytes (``unrecognized arguments: \\xff``).
        _say(self.err, self.format_usage().rstrip("\n"))
        self.exit(2, f"{self.prog}: error: {_printable(_undecoded_bytes(message))}\n")

    def print_help(self, file: SupportsWrite[str] | None = None) -> None:
        self._print_message(self.format_help())

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # argparse words a wrong choice differently from one Python release to the next (the
        # choices quoted or not): the command's own words, the same on every version, as for a
        # schema name (see _schema_name).
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {_argument(value, 60)} (choose from {choices})"
            )

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # Only --help and --version come here (usage errors go through error and exit): their
        # text goes to standard output, and a failed write raises, for _main to report (74).
        # argparse drops it silently.
        if not message:
            return
        if self.out is None:
            raise _ClosedOutput  # standard output closed
        try:
            self.out.write(message)
        except ValueError:  # an in-process caller's stream, closed: "I/O operation on closed file"
            raise _ClosedOutput from None


def _parser(stdout: TextIO | None = None, stderr: TextIO | None = None) -> argparse.ArgumentParser:
    """The command line's parser, writing help and version to ``stdout`` and usage errors to
    ``stderr`` (None: closed)."""

    class Parser(_Parser):
        out, err = stdout, stderr

    parser = Parser(
        prog="harnessbook",
        description="Build chapter 6's minimal context packet from a JSON request.",
        epilog=(
            "exit codes: 0 ready, 1 unreadable input, 2 invalid request, 3 refresh_required, "
            "4 blocked, 64 usage error, 74 output failed, 130 interrupted"
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    commands.add_parser("demo", help="print the packet of the chapter's demo request")
    build = commands.add_parser("build", help="read a request as JSON and print the result")
    build.add_argument("file", metavar="FILE", help="a JSON file, or - for standard input")
    build.add_argument(
        "--format",
        choices=("json", "svg"),
        default="json",
        help="print the result as JSON (the default) or draw it as an SVG figure",
    )
    build.add_argument("--lang", choices=("zh", "en"), help="the figure's language (svg only; zh by default)")
    build.add_argument(
        "--max-bytes",
        type=_max_bytes,
        default=MAX_BYTES,
        metavar="N",
        help=f"refuse input larger than N bytes (default {MAX_BYTES}, 64 MiB)",
    )
    build.add_argument(
        "--errors",
        choices=("text", "json"),
        default="text",
        help="report errors as text (the default) or as one JSON object on one line",
    )
    build.set_defaults(subparser=build)
    schema = commands.add_parser("schema", help="print a JSON Schema: request, result or error")
    # `choices` draws the usage line; `type` refuses a wrong name first, in the package's words.
    schema.add_argument("name", type=_schema_name, choices=sorted(SCHEMA_FILES), help="which schema")
    return parser


def _quiet_stdout() -> None:
    # Point file descriptor 1 at /dev/null so the interpreter's last flush of what is still
    # buffered cannot fail again, with an "Exception ignored" message, at exit. Only when the
    # stream that failed writes to descriptor 1 (the interpreter's own, or a wrapper of it): a
    # sys.stdout a caller put in its place (contextlib.redirect_stdout into a buffer) failed
    # alone, and descriptor 1 is still the process's.
    if sys.stdout is not sys.__stdout__:
        try:
            if sys.stdout.fileno() != 1:
                return
        except (AttributeError, OSError, ValueError):  # no descriptor (StringIO), or closed
            return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:  # pragma: no cover - /dev/null is always there
        pass


def main(
    argv: Sequence[str | bytes | os.PathLike[str] | os.PathLike[bytes]] | None = None,
    *,
    stdin: TextIO | BinaryIO | None = None,
    stdout: TextIO | BinaryIO | None = None,
    stderr: TextIO | BinaryIO | None = None,
) -> int:
    """Run the command line and return its exit code (see [`EXIT_CODES`][harnessbook.cli.EXIT_CODES]).

    Without ``stdout``, ``main`` is the command itself and acts on the process: it sets
    ``sys.stdout`` (and, without ``stderr``, ``sys.stderr``) to UTF-8; when standard output
    fails, it points file descriptor 1 at ``/dev/null`` (so nothing fails again at exit; only
    when ``sys.stdout`` writes to descriptor 1: the interpreter's own, ``sys.__stdout__``, or a
    wrapper of it) and returns its code; when Ctrl-C stops it, it does the same and then ends the process by SIGINT,
    as Python does on a Ctrl-C nobody caught (a shell reports 130; where there are no POSIX
    signals it returns 130).
    A program that calls it in-process passes the streams it reads (``stdin``, ``stdout``,
    ``stderr``): then nothing outside them changes, and Ctrl-C reaches the caller. Each may be
    a text stream or a binary one (``io.BytesIO``, a file opened ``"rb"`` or ``"wb"``), which is
    read or written as UTF-8 and left open.

    Args:
        argv: The arguments after the program's name; ``None`` reads ``sys.argv[1:]``. Each is
            a string, or bytes or a path-like object (``pathlib.Path``), read as the interpreter
            reads its own arguments (``os.fsdecode``).
        stdin: Where ``build -`` reads the request (``None``: ``sys.stdin``).
        stdout: Where the result, ``--help`` and ``--version`` go (``None``: the process's own).
        stderr: Where problems and usage errors go (``None``: ``sys.stderr``).

    Returns:
        The exit code, one of [`EXIT_CODES`][harnessbook.cli.EXIT_CODES]. Usage errors and
            ``--help`` are returned as codes too: ``main`` never raises ``SystemExit``.

    Raises:
        TypeError: If ``argv`` is not a sequence of arguments: one string (put it in a list), or
            an item that is neither a string, bytes nor a path-like object.

    Examples:
        >>> import io
        >>> out = io.StringIO()
        >>> main(["demo"], stdout=out)
        0
    """
    arguments = _arguments(argv)
    own_stdout = stdout is None
    if stdout is None:
        stdout = sys.stdout  # None when the shell closed it (`>&-`)
        if stdout is not None and hasattr(stdout, "reconfigure"):
            # The output is UTF-8 whatever the locale says: Chinese text is printed, not escaped.
            stdout.reconfigure(encoding="utf-8")
    if stdin is None:
        stdin = sys.stdin
    if stderr is None:
        stderr = sys.stderr
        if own_stdout and stderr is not None and hasattr(stderr, "reconfigure"):
            # Problems quote the request's text as it is. The error handler is given again:
            # reconfigure() would make it strict, and a usage error that quotes an argument
            # that is not UTF-8 (a lone surrogate) was then dropped.
            stderr.reconfigure(encoding="utf-8", errors="backslashreplace")
    if not own_stdout:
        return _main(
            arguments,
            _text(stdin, "strict"),
            _text(stdout, "strict"),
            _text(stderr, "backslashreplace"),
            False,
        )
    try:
        return _main(
            arguments,
            _text(stdin, "strict"),
            _text(stdout, "strict"),  # a text stream, unless a caller set another
            _text(stderr, "backslashreplace"),
            True,
        )
    except KeyboardInterrupt:
        _quiet_stdout()
        _end_by_sigint()
        return EXIT_CODES["interrupted"]  # where a process cannot end by a signal (Windows)


def _arguments(argv: object) -> list[str] | None:
    """``argv`` as the parser reads it, each argument a string: a file name given as bytes or a
    path reads as the interpreter reads its own arguments (undecodable bytes as lone surrogates,
    shown by their bytes). A caller's mistake is a ``TypeError`` that says which argument, not one
    from inside the parser."""
    if argv is None:
        return None
    if isinstance(argv, (str, bytes)):  # a sequence of one-character arguments otherwise
        raise TypeError(
            f"main: argv must be a sequence of arguments, not one {type(argv).__name__} (put it in a list)"
        )
    try:
        given = list(cast(Sequence[object], argv))
    except TypeError:
        raise TypeError(f"main: argv must be a sequence of arguments, not {type(argv).__name__}") from None
    arguments = []
    for index, argument in enumerate(given):
        try:
            arguments.append(os.fsdecode(os.fspath(cast(str, argument))))
        except TypeError:
            raise TypeError(
                f"main: argv[{index}] is of type {type(argument).__name__}; expected a string, bytes or a path"
            ) from None
    return arguments


class _Utf8Text:
    """A binary stream as the text stream the command reads and writes: text is written to it
    as UTF-8 (lines unchanged, every byte, however few a raw stream takes at a time) and read
    from it as bytes (``buffer``, as from a real text stream). It is never closed, flushed only
    when asked: the stream stays the caller's."""

    def __init__(self, stream: Any, errors: str) -> None:
        self.buffer = stream
        self.errors = errors

    def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8", self.errors))
        while data:
            written = self.buffer.write(data)
            if written is None:  # a raw stream that would block
                raise BlockingIOError(errno.EAGAIN, "it would block")
            data = data[written:]
        return len(text)

    def flush(self) -> None:
        self.buffer.flush()

    def read(self, size: int = -1) -> str:
        return cast(bytes, self.buffer.read(size)).decode("utf-8", self.errors)


def _is_binary(stream: object) -> bool:
    """Whether ``stream`` takes and gives bytes: io's binary classes, and a file object that
    says so in its mode (``tempfile.NamedTemporaryFile()``, ``SpooledTemporaryFile()``)."""
    if isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        return True
    if isinstance(stream, io.TextIOBase):
        return False
    try:
        mode = getattr(stream, "mode", "")
    except (OSError, ValueError):  # pragma: no cover - a mode that cannot be read
        return False
    return isinstance(mode, str) and "b" in mode


def _text(stream: TextIO | BinaryIO | None, errors: str) -> TextIO | None:
    """``stream`` as a text stream: a binary one (``io.BytesIO``, a file opened ``"rb"`` or
    ``"wb"``) is read and written as UTF-8 through :class:`_Utf8Text`, never closed."""
    if stream is None or not _is_binary(stream):
        return cast("TextIO | None", stream)
    return cast(TextIO, _Utf8Text(stream, errors))


def _end_by_sigint() -> None:
    """End the process by SIGINT, as Python ends on a Ctrl-C nobody caught: the shell reports
    130, and a script or loop running the command stops as well (bash goes on after a child
    that merely exits 130). Does nothing where there are no POSIX signals."""
    if os.name != "posix":  # pragma: no cover - Windows
        return
    with contextlib.suppress(AttributeError, OSError, ValueError):  # closed, or None
        sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


def _failed_output(error: OSError, code: int, stderr: TextIO | None, own_stdout: bool = True) -> int:
    """Standard output could not be written: ``code`` if the reader left early, else 74 (said
    on standard error). The process's own standard output is silenced first (``own_stdout``)."""
    if own_stdout:
        _quiet_stdout()
    if error.errno == errno.EPIPE:
        return code  # the reader stopped early (`| head`): not a failure
    _say(stderr, f"harnessbook: cannot write standard output: {_reason(error)}")
    return EXIT_CODES["output_failed"]


def _main(
    argv: list[str] | None,
    stdin: TextIO | None,
    stdout: TextIO | None,
    stderr: TextIO | None,
    own_stdout: bool,
) -> int:
    try:
        args = _parser(stdout, stderr).parse_args(argv)
        if args.command == "build" and args.lang is not None and args.format != "svg":
            args.subparser.error("--lang is the figure's language: it needs --format svg")
    except SystemExit as exit_:  # argparse reports usage errors (64) and --help (0) itself
        code = cast(int, exit_.code)  # _Parser.exit always exits with a number
        if code == 0 and stdout is not None:
            try:  # --help and --version: what they wrote must reach the reader, as a result must
                stdout.flush()
            except OSError as error:
                return _failed_output(error, code, stderr, own_stdout)
        return code
    except _ClosedOutput:  # --help or --version with standard output closed (`>&-`)
        _say(stderr, "harnessbook: cannot write standard output: it is closed")
        return EXIT_CODES["output_failed"]
    except OSError as error:  # --help or --version could not be written (a full disk)
        return _failed_output(error, 0, stderr, own_stdout)
    output: Any
    if args.command == "schema":
        code, output = EXIT_CODES["ready"], load_schema(args.name)
    else:
        read, request = (True, demo_request()) if args.command == "demo" else _build(args, stdin, stderr)
        if not read:
            return EXIT_CODES["unreadable_input"]  # already reported
        try:
            output = _build_read(request)
        except MemoryError:  # the request was read, but its packet does not fit as well
            where = _where(args) if args.command == "build" else "the demo request"
            _report(stderr, args, "unreadable_input", f"{where} {_TOO_LARGE}")
            return EXIT_CODES["unreadable_input"]
        except _Unreadable as error:  # only a request read from a file or standard input
            _report(stderr, args, "unreadable_input", f"{_where(args)}{error.tail}")
            return EXIT_CODES["unreadable_input"]
        except InvalidRequestError as error:
            _report_invalid(stderr, args, error)
            return EXIT_CODES["invalid_request"]
        del request
        code = EXIT_CODES[output["state"]]
    # The verdict is decided before anything is written, so it cannot depend on the reader; an
    # input that is refused writes nothing, so a closed standard output does not change its code.
    if stdout is None:
        _report(stderr, args, "output_failed", "cannot write standard output: it is closed")
        return EXIT_CODES["output_failed"]
    # The process's own standard output is written by its descriptor (see _Output); not on
    # Windows, whose console and text streams translate line ends.
    out = _Output(stdout, _own_descriptor(stdout) if own_stdout and os.name == "posix" else None)
    try:
        if args.command == "build" and args.format == "svg":
            # The figure the book's pages show (harnessbook.figure); the exit code is the same.
            out.write(render_svg(output, args.lang or "zh"))
        else:
            _dump(output, out)
        out.flush()
    except _OutputFailed as failed:
        if own_stdout:
            _quiet_stdout()
        if isinstance(failed.error, OSError) and failed.error.errno == errno.EPIPE:
            return code  # the reader stopped early (`| head`): not a failure, the verdict stands
        _report(
            stderr,
            args,
            "output_failed",
            f"cannot write standard output: {_reason(failed.error)}",
        )
        return EXIT_CODES["output_failed"]
    except MemoryError:  # a figure is drawn whole before it is written
        if own_stdout:
            _quiet_stdout()
        _report(
            stderr,
            args,
            "output_failed",
            "cannot write standard output: the output does not fit in memory",
        )
        return EXIT_CODES["output_failed"]
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
