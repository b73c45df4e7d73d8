"""Sybil: every runnable fence on every page, in every edition, is executed by ``pytest docs``.

The conventions a page author uses (see docs/howto/run-examples.md):

* ```` ```python ```` (a ``title="..."`` is allowed): plain code is executed; a block that
  starts with ``>>>`` is a doctest, its shown output checked. A page's blocks share one
  namespace, in page order.
* ```` ```json title="request.json" ```` followed by ```` ```json title="result.json" ````:
  the builder runs on the request and must return exactly the result. A request followed by
  ```` ```text title="InvalidRequestError" ```` must be refused with exactly those problems,
  one a line.
* ```` ```json title="<name>.schema.json" ```` holding a ``--8<--`` snippet of the package's
  schema file: checked to be the very schema :func:`harnessbook.load_schema` returns.
* ```` ```console ````: each ``$ `` line runs in bash (in ``docs/examples``, with the
  project's ``harnessbook`` on ``PATH``); the lines up to the next ``$`` are its exact output
  (stdout and stderr together).

``text`` and ``yaml`` fences are prose (:data:`PROSE_LANGUAGES`). Any other fence that none of
the forms above runs (```` ```py ````, ```` ```json ```` without a known title, a ``result.json``
with no request before it...) is a failing example of its own, so ``pytest docs`` alone shows
every fence that would otherwise go unrun; tests/test_docs_fences.py checks the same from a
scanner of its own.

A failure names the page and the line: a python block that raises shows the page's lines in its
traceback (and the blocks after it on the page say they were not run, rather than fail on names
it never defined); a request or result that is not JSON, or that the command line would refuse
(a repeated key, ``NaN``), says so, with its line on the page.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import traceback
import unittest
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from harnessbook import InvalidRequestError, build_context_packet, load_schema
from harnessbook.cli import _parse_text as parse_request_text
from harnessbook.cli import _Unreadable as UnreadableText
from harnessbook.schemas import SCHEMA_FILES

DOCS = Path(__file__).parent
EXAMPLES = DOCS / "examples"
NO_HYPOTHESIS = "-p no:hypothesispytest"
"""Added to ``PYTEST_ADDOPTS`` for the console fences' commands (see ``_environment``)."""
ROOT = DOCS.parent

FENCES = RawFencedCodeBlockLexer(
    info_pattern=re.compile(r"(?P<language>[\w+-]*)[ \t]*(?P<attributes>[^\n]*)$\n", re.MULTILINE),
)
TITLE = re.compile(r'title="(?P<title>[^"]*)"')

PROSE_LANGUAGES = frozenset({"text", "yaml"})
"""Fence languages that are prose, never run. Every other fence must be one of the runnable forms
in this module's docstring (:class:`UnrunFenceParser` fails it otherwise)."""
PAIR_FOLLOWERS = frozenset({"result.json", "InvalidRequestError"})
"""Titles of the fence that follows a request.json: what the builder must return for it."""


def fence_title(region: Region) -> str | None:
    match = TITLE.search(region.lexemes["attributes"])
    return match.group("title") if match else None


def page_line(document: Document, offset: int) -> int:
    """The 1-based line of the page at character ``offset``."""
    return document.text.count("\n", 0, offset) + 1


def _fail(example: Example) -> str:
    """The evaluator of a region that is a failure found while parsing (its message)."""
    return str(example.parsed)


def failing_region(region: Region, message: str) -> Region:
    return Region(region.start, region.end, parsed=message, evaluator=_fail)


# --- python --------------------------------------------------------------------------------


FAILED_AT = "__page_block_failed_at__"
"""The namespace key that holds the line of the first python block of a page that raised."""


def _page_traceback(error: BaseException, path: str) -> str:
    """What went wrong in a block, in the page's words: the page's lines the exception passed
    through, where it was raised when that is not the page, and the exception."""
    frames = traceback.extract_tb(error.__traceback__)
    shown = [
        f"  line {frame.lineno}: {(frame.line or '').strip()}" for frame in frames if frame.filename == path
    ]
    if frames and frames[-1].filename != path:
        last = frames[-1]
        where = Path(last.filename)
        where_shown = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
        shown.append(f"  (raised in {where_shown}, line {last.lineno}, in {last.name})")
    exception = "".join(traceback.format_exception_only(type(error), error)).rstrip()
    return "\n".join(["this block raised an exception:", *shown, exception])


SKIPPED = (pytest.skip.Exception, pytest.xfail.Exception, unittest.SkipTest)
"""What a block raises to skip or xfail itself (pytest's are BaseExceptions): a failure here."""


class PageBlock:
    """Runs one python block or doctest of a page. A plain block that raises is reported in the
    page's words (not as the page reprinted up to that line), and marks the page: its later
    blocks report that they were not run instead of each failing on a name it never defined."""

    def __init__(self, evaluate: Callable[[Example], str | None], marks: bool) -> None:
        self.evaluate = evaluate
        self.marks = marks

    def __call__(self, example: Example) -> str | None:
        failed_at = example.namespace.get(FAILED_AT)
        if failed_at is not None:
            return (
                f"not run: the python block at line {failed_at} of this page failed, and the page's "
                "blocks share one namespace (fix that one first)"
            )
        try:
            return self.evaluate(example)
        except SKIPPED as error:  # however it was spelt (an alias, an import): SKIPS only reads text
            if self.marks:
                example.namespace[FAILED_AT] = example.line
            return f"{type(error).__name__}: {error}: the book's examples are never skipped"
        except Exception as error:
            if not self.marks:
                raise
            example.namespace[FAILED_AT] = example.line
            report = _page_traceback(error, example.path)
            if isinstance(error, SyntaxError) and ">>> " in str(example.parsed):
                report += "\n(a doctest block must start with its first >>> line, a comment included)"
            return report


class PythonFenceParser:
    """```python fences, with or without a title: code, or a doctest when it starts with >>>."""

    def __init__(self) -> None:
        self.code = PageBlock(PythonEvaluator(), marks=True)
        self.doctest = DocTestStringParser(DocTestEvaluator())

    SKIPS = re.compile(r"doctest:.*[+]SKIP|\bpytest\s*\.\s*(?:skip|importorskip|xfail)\b|\bSkipTest\b")
    """Ways a block could skip itself instead of running: each is a failure."""

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in FENCES(document):
            if region.lexemes["language"] != "python":
                continue
            source = region.lexemes["source"]
            skip = self.SKIPS.search(source)
            if skip is not None:
                yield failing_region(region, f"{skip.group(0)!r}: the book's examples are never skipped")
                continue
            if source.lstrip().startswith(">>>"):
                for doctest_region in self.doctest(source, document.path):
                    doctest_region.adjust(region, source)
                    assert doctest_region.evaluator is not None
                    doctest_region.evaluator = PageBlock(doctest_region.evaluator, marks=False)
                    yield doctest_region
            else:
                region.parsed = source
                region.evaluator = self.code
                yield region


# --- json request / result pairs ------------------------------------------------------------


TRAILING = re.compile(r"[ \t]+$")
VISIBLE = str.maketrans({" ": "\u2420", "\t": "\u2409"})  # SYMBOL FOR SPACE, SYMBOL FOR HORIZONTAL TABULATION


def _diff(shown: str, actual: str, first_line: int | None = None) -> str:
    """The lines that differ, as a unified diff from what the page shows to what ran.

    ``first_line`` is the page's line of the shown text's first line: the diff's line numbers
    count from there. White space at the end of a changed line is drawn (␠ a space, ␉ a tab),
    or two lines that differ only there would look the same."""
    source = "shown on the page" + (f" (diff line 1 is line {first_line} of the page)" if first_line else "")
    lines = list(
        difflib.unified_diff(shown.splitlines(), actual.splitlines(), source, "actual", n=2, lineterm="")
    )
    marked = False
    for index, line in enumerate(lines):
        if index > 1 and line[:1] in "+-" and TRAILING.search(line):
            body = TRAILING.sub("", line)
            lines[index] = body + line[len(body) :].translate(VISIBLE)
            marked = True
    if marked:
        lines.append("(␠ marks a space and ␉ a tab at the end of a line)")
    return "\n".join(lines)


def _show_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _indent(document: Document, position: int) -> str:
    """The white space that starts the line holding ``position``."""
    start = document.text.rfind("\n", 0, position) + 1
    line = document.text[start : document.text.find("\n", start) % (len(document.text) + 1)]
    return line[: len(line) - len(line.lstrip(" \t"))]


class RequestResultParser:
    """A request.json fence and the fence right after it (result.json or InvalidRequestError)."""

    def __call__(self, document: Document) -> Iterator[Region]:
        regions = list(FENCES(document))
        for index, region in enumerate(regions):
            if region.lexemes["language"] != "json" or fence_title(region) != "request.json":
                continue
            follower = regions[index + 1] if index + 1 < len(regions) else None
            kind = fence_title(follower) if follower is not None else None
            if (
                follower is None
                or kind not in PAIR_FOLLOWERS
                # As hooks/figures.py pairs them: only blank lines between, at the same indent
                # (prose between would leave the pair run here but drawn as no figure).
                or document.text[region.end : follower.start].strip()
                or _indent(document, region.start) != _indent(document, follower.start)
            ):
                yield failing_region(
                    region,
                    "a request.json fence must be followed by a result.json or an InvalidRequestError "
                    "fence (at once: only blank lines between, at the same indent): what the builder "
                    "must return for it",
                )
                continue
            yield Region(
                region.start,
                follower.end,
                parsed=(
                    str(region.lexemes["source"]),
                    page_line(document, region.start) + 1,
                    kind,
                    str(follower.lexemes["source"]),
                    page_line(document, follower.start) + 1,
                ),
                evaluator=self.evaluate,
            )

    @staticmethod
    def read(text: str, title: str, first_line: int) -> Any:
        """The JSON of a fence, read as strictly as ``harnessbook build`` reads a file: a page's
        request must be one a reader can save and run (no repeated key, no ``NaN``)."""
        try:
            return parse_request_text(text)
        except UnreadableText as error:
            message = str(error.args[0])
            position = error.position
            if position is not None:  # "is not JSON: <reason> (line L, column C)" within the fence
                reason, line, column = position
                message = f"is not JSON: {reason} (line {first_line + line - 1} of the page, column {column})"
            raise ValueError(f"{title} {message}") from None

    @classmethod
    def evaluate(cls, example: Example) -> str | None:
        request_text, request_line, kind, expected_text, line = example.parsed
        where = f"the {kind} fence (line {line - 1})"
        try:
            request = cls.read(request_text, "request.json", request_line)
            if kind == "result.json":
                expected = cls.read(expected_text, "result.json", line)
        except ValueError as error:
            return str(error)
        try:
            result = build_context_packet(request)
        except InvalidRequestError as error:
            if kind != "InvalidRequestError":
                return f"the builder refused the request:\n{error}"
            actual = "\n".join(error.problems)
            shown = expected_text.rstrip("\n")
            if actual != shown:
                return f"problems differ from {where}:\n{_diff(shown, actual, line)}"
            return None
        if kind != "result.json":
            return f"the request was accepted, but {where} shows an error. Result:\n{_show_json(result)}"
        shown, actual = expected_text.rstrip("\n"), _show_json(result)
        if result != expected:
            return f"result differs from {where}:\n{_diff(shown, actual, line)}\nThe whole result:\n{actual}"
        # The shown text must also be exactly what the CLI prints, key order included.
        if shown != actual:
            return (
                f"the result is equal to {where}, but not laid out as the builder prints it:\n"
                f"{_diff(shown, actual, line)}"
            )
        return None


class SchemaFenceParser:
    """A ```json title="<file>.schema.json" fence that includes the package's schema file."""

    SNIPPET = re.compile(r'^--8<--\s+"(?P<path>[^"]+)"\s*$')

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in FENCES(document):
            title = fence_title(region)
            if region.lexemes["language"] != "json" or not (title or "").endswith(".schema.json"):
                continue
            region.parsed = (title, str(region.lexemes["source"]).strip())
            region.evaluator = self.evaluate
            yield region

    def evaluate(self, example: Example) -> str | None:
        title, source = example.parsed
        match = self.SNIPPET.match(source)
        if match is None:
            return f"{title}: the fence must hold one --8<-- snippet of the package's schema file"
        path = ROOT / match.group("path")
        names = {file: name for name, file in SCHEMA_FILES.items()}
        if path.name != title or title not in names:
            return f"{title}: snippet {match.group('path')} is not that schema file"
        if not path.is_file():
            return (
                f"{title}: snippet {match.group('path')} names no file (paths start at the repository root)"
            )
        if json.loads(path.read_text(encoding="utf-8")) != load_schema(names[title]):
            return f"{title}: {path} is not the schema the package ships"
        return None


# --- console -------------------------------------------------------------------------------


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["PYTHONIOENCODING"] = "utf-8"
    env["LC_ALL"] = "C.UTF-8"
    env["COLUMNS"] = "100"
    # The pages' own pytest runs never use hypothesis, and its plugin imports all of hypothesis
    # at start-up: 0.65 s of each run's 1.4 s. Leaving it out changes no output they show.
    env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} {NO_HYPOTHESIS}".strip()
    return env


class ConsoleParser:
    """```console fences: run each $ command, compare the output shown under it."""

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in FENCES(document):
            if region.lexemes["language"] != "console":
                continue
            first_line = page_line(document, region.start) + 1
            try:
                steps = self.numbered_steps(str(region.lexemes["source"]), first_line)
            except ValueError as error:  # one failed example, not an error that stops the run
                yield failing_region(region, f"this console fence cannot be read: {error}")
                continue
            region.parsed = steps
            region.evaluator = self.evaluate
            yield region

    @classmethod
    def steps(cls, source: str) -> list[tuple[str, str]]:
        """(command, shown output) pairs. A command line that ends in a backslash goes on in the
        next line, shown after bash's secondary prompt ``> `` (so a long command fits the page)."""
        return [(command, shown) for command, shown, _ in cls.numbered_steps(source, 1)]

    @staticmethod
    def numbered_steps(source: str, first_line: int) -> list[tuple[str, str, int]]:
        """:meth:`steps`, each with the page's line of its ``$`` (``first_line`` is the fence's
        first line of content)."""
        steps: list[tuple[str, list[str], int]] = []
        continued = False
        for number, line in enumerate(source.splitlines(), start=first_line):
            if continued:
                if not line.startswith("> "):
                    raise ValueError(
                        f"line {number}: a command line ending in '\\' must go on in a '> ' line, got {line!r}"
                    )
                steps[-1] = (steps[-1][0] + "\n" + line[2:], steps[-1][1], steps[-1][2])
            elif line.startswith("$ "):
                steps.append((line[2:], [], number))
            elif not steps:
                raise ValueError(
                    f"line {number}: console fence must start with a '$ ' command line, got {line!r}"
                )
            else:
                steps[-1][1].append(line)
            # An odd number of backslashes: the last one escapes the newline (as bash reads it).
            continued = not steps[-1][1] and (len(line) - len(line.rstrip("\\"))) % 2 == 1
        if continued:
            raise ValueError(
                f"line {steps[-1][2]}: the last command line ends in '\\' with no '> ' line after it:"
                f" {steps[-1][0]!r}"
            )
        return [(command, "\n".join(lines), number) for command, lines, number in steps]

    @staticmethod
    def evaluate(example: Example) -> str | None:
        # One bash session per fence, so `cd`, variables and `echo $?` carry over between
        # commands; a marker line, which carries the exit status of the command before it,
        # separates each command's output. The marker's printf must not clobber $?, or a shown
        # `echo $?` would always print 0: save it and restore it.
        marker = "__harnessbook_step__"
        script = "\n".join(
            f"__status=$?; printf '%s %s\\n' {shlex.quote(marker)} $__status; (exit $__status)\n{command}"
            for command, _, _ in example.parsed
        )
        script += f"\n__status=$?; printf '%s %s\\n' {shlex.quote(marker)} $__status"
        completed = subprocess.run(
            ["bash", "-c", script],
            cwd=EXAMPLES,
            env=_environment(),
            capture_output=False,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=120,
        )
        # ["", status before command 1, output 1, status of 1, output 2, ..., status of n, ""]; a
        # command that ended the session leaves no marker after it, nor any output later.
        parts = re.split(rf"^{marker} (\d+)\n", completed.stdout.decode("utf-8"), flags=re.MULTILINE)
        markers, outputs = parts[1::2], parts[2::2][: len(example.parsed)]
        statuses = [int(status) for status in markers[1:]]
        failures = []
        for index, ((command, expected, line), actual) in enumerate(
            zip(example.parsed, outputs, strict=False)
        ):
            shown, ran = expected.rstrip("\n"), actual.rstrip("\n")
            if ran != shown:
                output_line = line + command.count("\n") + 1
                failures.append(f"line {line}: $ {command}\n{_diff(shown, ran, output_line)}")
            # A command that fails without a word would pass unseen: it must show its output or
            # be followed by a shown `echo $?`.
            following = example.parsed[index + 1][0].strip() if index + 1 < len(example.parsed) else ""
            status = statuses[index] if index < len(statuses) else 0
            if status != 0 and not expected.strip() and following != "echo $?":
                failures.append(
                    f"line {line}: $ {command}\nexited {status} with nothing shown (show its output or `echo $?`)"
                )
        if len(markers) != len(example.parsed) + 1:
            ended = example.parsed[len(markers) - 1][0] if markers else "(before the first command)"
            failures.append(f"the session ended during `$ {ended}`: the commands after it did not run")
        return "\n\n".join(failures) or None


# --- fences nothing runs --------------------------------------------------------------------


class UnrunFenceParser:
    """Every fence that none of the parsers above runs and that is not prose: one failing
    example each, so that ``pytest docs`` alone shows a fence that would otherwise go unrun
    (```` ```py ````, ```` ```pycon ````, ```` ```bash ````, a ``json`` fence without a title the
    book knows, ``title='request.json'`` in single quotes, a ``result.json`` with no request
    before it). It mirrors the other parsers' choices; tests/test_docs_fences.py checks the same
    with a scanner of its own."""

    def __call__(self, document: Document) -> Iterator[Region]:
        regions = list(FENCES(document))
        for index, region in enumerate(regions):
            language, title = region.lexemes["language"], fence_title(region)
            previous = regions[index - 1] if index else None
            follows_request = (
                previous is not None
                and previous.lexemes["language"] == "json"
                and fence_title(previous) == "request.json"
            )
            if language in ("python", "console"):
                continue
            if language == "json" and (title == "request.json" or (title or "").endswith(".schema.json")):
                continue
            if title in PAIR_FOLLOWERS and follows_request:
                continue
            if (
                language in PROSE_LANGUAGES
                and title not in PAIR_FOLLOWERS
                and not (title or "").endswith(".json")
            ):
                continue  # prose; a ```text titled request.json is a request that would never run
            info = f"```{language}" + (
                f" {region.lexemes['attributes']}" if region.lexemes["attributes"] else ""
            )
            yield failing_region(
                region,
                f"{info} is never run. Write ```python or ```console to run it, a "
                '```json title="request.json" followed by its result.json or InvalidRequestError '
                f"fence, or ```text for prose (prose languages: {', '.join(sorted(PROSE_LANGUAGES))}); "
                "docs/howto/run-examples.en.md lists the forms",
            )


PARSERS: list[Callable[[Document], Iterable[Region]]] = [
    PythonFenceParser(),
    RequestResultParser(),
    SchemaFenceParser(),
    ConsoleParser(),
    UnrunFenceParser(),
]

pytest_collect_file = Sybil(
    parsers=PARSERS,
    patterns=["*.md"],
    excludes=["examples/*"],
).pytest()
