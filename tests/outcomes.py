"""What the builder makes of a request's text: one function shared by the playground's browser
tests (Pyodide's CPython 3.14 against this process's) and test_python_versions.py (every other
CPython found on the machine against this process's).

It imports nothing but the standard library and the package, so that another interpreter can
run it with ``-I -S`` (no site-packages, no environment), the package's folder on its path.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any, Literal

from harnessbook import InvalidRequestError
from harnessbook.cli import _build_read, _escape_in_output, _parse_text, _Unreadable, main
from harnessbook.figure import render_problems, render_svg, render_table

DOCS = Path(__file__).resolve().parents[1] / "docs"

REQUEST_FENCE = re.compile(
    r'^(?P<indent>[ \t]*)```json[ \t]+title="request\.json"[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$',
    re.MULTILINE | re.DOTALL,
)


def request_fences(markdown: Path) -> list[str]:
    """The request.json fences of a page, in order, dedented (admonitions indent them)."""
    text = markdown.read_text(encoding="utf-8")
    fences = []
    for match in REQUEST_FENCE.finditer(text):
        indent = len(match.group("indent"))
        body = "".join(line[indent:] for line in match.group("body").splitlines(keepends=True))
        fences.append(body)
    return fences


def pages_with_examples() -> list[Path]:
    return sorted(
        path
        for path in DOCS.rglob("*.md")
        if "examples" not in path.relative_to(DOCS).parts and request_fences(path)
    )


def outcome(text: str) -> dict[str, Any]:
    """What the playground must show for ``text``: read as strictly as the command line and the
    page read it, then built. One of four kinds: ``unreadable`` or ``invalid-json`` (with the
    message and, for JSON, the line and column), ``invalid-request`` (the problems and their
    total), or ``result`` (the state, the phase, and the result as the command line prints it)."""
    return _built(text)[0]


def _built(text: str) -> tuple[dict[str, Any], Any]:
    """:func:`outcome`, and the result itself (None for the other kinds)."""
    try:
        request = _parse_text(text)
    except _Unreadable as error:
        if error.position is None:
            return {"kind": "unreadable", "message": "input" + error.tail}, None
        message, line, column = error.position
        return {"kind": "invalid-json", "line": line, "column": column, "message": message}, None
    try:
        result = _build_read(request)
    except _Unreadable as error:  # nested too deeply: the playground refuses it before Python reads it
        return {"kind": "unreadable", "message": "input" + error.tail}, None
    except InvalidRequestError as error:
        return {"kind": "invalid-request", "problems": list(error.problems), "total": error.total}, None
    shown = {
        "kind": "result",
        "state": result["state"],
        "phase": result["phase"],
        "text": _escape_in_output(json.dumps(result, ensure_ascii=False, indent=2)),
    }
    return shown, result


def observed(text: str) -> dict[str, Any]:
    """:func:`outcome`; what the figure module draws of it in both languages (the SVG figure and
    the decision table of a result, the problem list of an invalid request); and what
    ``harnessbook build -`` does with the text as its standard input (exit code, standard output,
    standard error)."""
    seen, result = _built(text)
    langs: tuple[Literal["zh", "en"], ...] = ("zh", "en")
    if result is not None:
        for lang in langs:
            seen[f"svg-{lang}"] = render_svg(result, lang)
            seen[f"table-{lang}"] = render_table(result, lang)
    elif seen["kind"] == "invalid-request":
        for lang in langs:
            seen[f"problems-{lang}"] = render_problems(seen["problems"], lang, seen["total"])
    stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")), encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["build", "-"], stdin=stdin, stdout=stdout, stderr=stderr)
    seen["command line"] = [code, stdout.getvalue(), stderr.getvalue()]
    return seen
