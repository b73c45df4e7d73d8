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

Any other fence language (``text``, ``mermaid``...) is prose. tests/test_docs_fences.py fails if
a fence of a runnable language is not collected here, so nothing can silently go unrun.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from harnessbook import InvalidRequestError, build_context_packet, load_schema
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

RUNNABLE_LANGUAGES = frozenset({"python", "pycon", "py", "json", "console", "shell", "bash", "sh"})
"""Fence languages that must be collected as examples (tests/test_docs_fences.py)."""


def fence_title(region: Region) -> str | None:
    match = TITLE.search(region.lexemes["attributes"])
    return match.group("title") if match else None


# --- python --------------------------------------------------------------------------------


class PythonFenceParser:
    """```python fences, with or without a title: code, or a doctest when it starts with >>>."""

    def __init__(self) -> None:
        self.code = PythonEvaluator()
        self.doctest = DocTestStringParser(DocTestEvaluator())

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in FENCES(document):
            if region.lexemes["language"] != "python":
                continue
            source = region.lexemes["source"]
            if source.lstrip().startswith(">>>"):
                for doctest_region in self.doctest(source, document.path):
                    doctest_region.adjust(region, source)
                    yield doctest_region
            else:
                region.parsed = source
                region.evaluator = self.code
                yield region


# --- json request / result pairs ------------------------------------------------------------


def _diff(shown: str, actual: str) -> str:
    """The lines that differ, as a unified diff from what the page shows to what ran."""
    lines = difflib.unified_diff(
        shown.splitlines(), actual.splitlines(), "shown on the page", "actual", n=2, lineterm=""
    )
    return "\n".join(lines)


def _show_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


class RequestResultParser:
    """A request.json fence and the fence right after it (result.json or InvalidRequestError)."""

    def __call__(self, document: Document) -> Iterator[Region]:
        regions = list(FENCES(document))
        for index, region in enumerate(regions):
            if region.lexemes["language"] != "json" or fence_title(region) != "request.json":
                continue
            follower = regions[index + 1] if index + 1 < len(regions) else None
            kind = fence_title(follower) if follower is not None else None
            if follower is None or kind not in ("result.json", "InvalidRequestError"):
                raise ValueError(
                    f"{document.path}, line {document.text.count(chr(10), 0, region.start) + 1}: "
                    "a request.json fence must be followed by a result.json or an "
                    "InvalidRequestError fence"
                )
            yield Region(
                region.start,
                follower.end,
                parsed=(
                    str(region.lexemes["source"]),
                    kind,
                    str(follower.lexemes["source"]),
                    document.text.count("\n", 0, follower.start) + 1,
                ),
                evaluator=self.evaluate,
            )

    @staticmethod
    def evaluate(example: Example) -> str | None:
        request_text, kind, expected_text, line = example.parsed
        where = f"the {kind} fence (line {line})"
        request = json.loads(request_text)
        try:
            result = build_context_packet(request)
        except InvalidRequestError as error:
            if kind != "InvalidRequestError":
                return f"the builder refused the request:\n{error}"
            actual = "\n".join(error.problems)
            expected = expected_text.rstrip("\n")
            if actual != expected:
                return f"problems differ from {where}:\n{_diff(expected, actual)}"
            return None
        if kind != "result.json":
            return f"the request was accepted, but {where} shows an error. Result:\n{_show_json(result)}"
        expected = json.loads(expected_text)
        shown, actual = expected_text.rstrip("\n"), _show_json(result)
        if result != expected:
            return f"result differs from {where}:\n{_diff(shown, actual)}\nThe whole result:\n{actual}"
        # The shown text must also be exactly what the CLI prints, key order included.
        if shown != actual:
            return f"the result is equal to {where}, but not laid out as the builder prints it:\n{_diff(shown, actual)}"
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
            region.parsed = self.steps(str(region.lexemes["source"]))
            region.evaluator = self.evaluate
            yield region

    @staticmethod
    def steps(source: str) -> list[tuple[str, str]]:
        """(command, shown output) pairs. A command line that ends in a backslash goes on in the
        next line, shown after bash's secondary prompt ``> `` (so a long command fits the page)."""
        steps: list[tuple[str, list[str]]] = []
        continued = False
        for line in source.splitlines():
            if continued:
                if not line.startswith("> "):
                    raise ValueError(f"a command line ending in '\\' must go on in a '> ' line, got {line!r}")
                steps[-1] = (steps[-1][0] + "\n" + line[2:], steps[-1][1])
            elif line.startswith("$ "):
                steps.append((line[2:], []))
            elif not steps:
                raise ValueError(f"console fence must start with a '$ ' command line, got {line!r}")
            else:
                steps[-1][1].append(line)
            # An odd number of backslashes: the last one escapes the newline (as bash reads it).
            continued = not steps[-1][1] and (len(line) - len(line.rstrip("\\"))) % 2 == 1
        if continued:
            raise ValueError(
                f"the last command line ends in '\\' with no '> ' line after it: {steps[-1][0]!r}"
            )
        return [(command, "\n".join(lines)) for command, lines in steps]

    @staticmethod
    def evaluate(example: Example) -> str | None:
        # One bash session per fence, so `cd`, variables and `echo $?` carry over between
        # commands; a marker line, which carries the exit status of the command before it,
        # separates each command's output. The marker's printf must not clobber $?, or a shown
        # `echo $?` would always print 0: save it and restore it.
        marker = "__harnessbook_step__"
        script = "\n".join(
            f"__status=$?; printf '%s %s\\n' {shlex.quote(marker)} $__status; (exit $__status)\n{command}"
            for command, _ in example.parsed
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
        for index, ((command, expected), actual) in enumerate(zip(example.parsed, outputs, strict=False)):
            shown, ran = expected.rstrip("\n"), actual.rstrip("\n")
            if ran != shown:
                failures.append(f"$ {command}\n{_diff(shown, ran)}")
            # A command that fails without a word would pass unseen: it must show its output or
            # be followed by a shown `echo $?`.
            following = example.parsed[index + 1][0].strip() if index + 1 < len(example.parsed) else ""
            status = statuses[index] if index < len(statuses) else 0
            if status != 0 and not expected.strip() and following != "echo $?":
                failures.append(
                    f"$ {command}\nexited {status} with nothing shown (show its output or `echo $?`)"
                )
        if len(markers) != len(example.parsed) + 1:
            ended = example.parsed[len(markers) - 1][0] if markers else "(before the first command)"
            failures.append(f"the session ended during `$ {ended}`: the commands after it did not run")
        return "\n\n".join(failures) or None


PARSERS: list[Callable[[Document], Iterable[Region]]] = [
    PythonFenceParser(),
    RequestResultParser(),
    SchemaFenceParser(),
    ConsoleParser(),
]

pytest_collect_file = Sybil(
    parsers=PARSERS,
    patterns=["*.md"],
    excludes=["examples/*"],
).pytest()
