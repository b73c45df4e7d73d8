"""Behaviour that mutation testing found unpinned (issue 17).

Each test here was checked to fail on the small edit (the mutant) named in its docstring: a
changed constant, a ``<`` turned into ``<=``, a ``continue`` turned into ``break``. They go
through the public interface (``main``, ``validate_request``, ``build_context_packet``,
``demo_request``) so they pin what a caller sees, not how the code is written.
"""

from __future__ import annotations

import array
import collections
import enum
import errno
import io
import json
import os
import re
import types
from pathlib import Path
from typing import Any, ClassVar, cast

import pytest

from harnessbook import InvalidRequestError, build_context_packet, demo_request, validate_request
from harnessbook.cli import main
from harnessbook.context_packet.errors import _cut

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "docs" / "chapters" / "06-context-packet"


def problems_of(request: object) -> list[str]:
    with pytest.raises(InvalidRequestError) as caught:
        validate_request(request)
    return list(caught.value.problems)


def candidate(cid: str, **changes: object) -> dict:
    item = {
        "id": cid,
        "kind": "direct-evidence",
        "source": "injected:test-output",
        "capturedAt": "2026-07-15",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": 1,
        "content": "x",
    }
    item.update(changes)
    return item


def request_with(*candidates: object, **changes: object) -> dict:
    request = {**demo_request(), "candidates": list(candidates)}
    request.update(changes)
    return request


# ---------------------------------------------------------------------------
# 1. The CLI reads a request from a text stream that has no .buffer
# ---------------------------------------------------------------------------


def test_build_reads_a_text_stream_without_a_buffer():
    """Mutant: the encoding name in ``stdin.read().encode("utf-8")`` changed."""
    stdin = io.StringIO(json.dumps(demo_request(), ensure_ascii=False))
    assert not hasattr(stdin, "buffer")
    out, err = io.StringIO(), io.StringIO()
    code = main(["build", "-"], stdin=stdin, stdout=out, stderr=err)
    assert (code, err.getvalue()) == (0, "")
    assert json.loads(out.getvalue()) == build_context_packet(demo_request())
    assert "定位单一测试失败" in out.getvalue()


def test_build_reads_a_text_stream_that_starts_with_a_byte_order_mark():
    """Mutant: ``decode("utf-8-sig")`` turned into another codec name."""
    stdin = io.StringIO("\ufeff" + json.dumps(demo_request(), ensure_ascii=False))
    out, err = io.StringIO(), io.StringIO()
    assert main(["build", "-"], stdin=stdin, stdout=out, stderr=err) == 0
    assert json.loads(out.getvalue()) == build_context_packet(demo_request())


# ---------------------------------------------------------------------------
# 2. harnessbook build: its usage and its error text
# ---------------------------------------------------------------------------


@pytest.fixture
def wide_terminal(monkeypatch):
    # argparse wraps usage and help to $COLUMNS; fix it so the text is the same everywhere.
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")  # Python 3.14's argparse colours only a terminal anyway


def test_build_without_a_file_names_the_missing_argument(wide_terminal, capsys):
    """Mutants: the ``FILE`` metavar, the ``file`` destination or the ``prog`` name changed."""
    assert main(["build"]) == 64
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "usage: harnessbook build [-h] [--format {json,svg}] [--lang {zh,en}] [--max-bytes N]\n"
        "                         [--errors {text,json}]\n"
        "                         FILE\n"
        "harnessbook build: error: the following arguments are required: FILE\n"
    )


def test_build_help_explains_the_file_argument(wide_terminal, capsys):
    """Mutants: the help text of ``FILE`` or of an option, or an option's choices, changed."""
    assert main(["build", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "usage: harnessbook build [-h] [--format {json,svg}] [--lang {zh,en}] [--max-bytes N]\n"
        "                         [--errors {text,json}]\n"
        "                         FILE\n"
    )
    for argument, text in [
        ("FILE", "a JSON file, or - for standard input"),
        ("--format {json,svg}", "print the result as JSON (the default) or draw it as an SVG figure"),
        ("--lang {zh,en}", "the figure's language (svg only; zh by default)"),
        ("--max-bytes N", "refuse input larger than N bytes (default 67108864, 64 MiB)"),
        ("--errors {text,json}", "report errors as text (the default) or as one JSON object on one line"),
    ]:
        assert re.search(rf"^  {re.escape(argument)} +{re.escape(text)}$", out, re.M), (argument, out)


def test_top_level_help_lists_every_command_and_every_exit_code(wide_terminal, capsys):
    """Mutants: a command's help, the description or the epilog changed."""
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: harnessbook [-h] [--version] COMMAND ...\n")
    assert "\nBuild chapter 6's minimal context packet from a JSON request.\n" in out
    for command, text in [
        ("demo", "print the packet of the chapter's demo request"),
        ("build", "read a request as JSON and print the result"),
        ("schema", "print a JSON Schema: request, result or error"),
    ]:
        assert re.search(rf"^    {command} +{re.escape(text)}$", out, re.M), (command, out)
    assert " ".join(out.split()).endswith(
        "exit codes: 0 ready, 1 unreadable input, 2 invalid request, 3 refresh_required, "
        "4 blocked, 64 usage error, 74 output failed, 130 interrupted"
    )


def test_schema_usage_names_its_choices(wide_terminal, capsys):
    """Mutants: the schema choices or their order changed."""
    assert main(["schema"]) == 64
    assert capsys.readouterr().err == (
        "usage: harnessbook schema [-h] {error,request,result}\n"
        "harnessbook schema: error: the following arguments are required: name\n"
    )


def test_no_command_is_a_usage_error_naming_command(wide_terminal, capsys):
    """Mutant: ``required=True`` of the sub-commands dropped (then no command ran build)."""
    assert main([]) == 64
    assert capsys.readouterr().err == (
        "usage: harnessbook [-h] [--version] COMMAND ...\n"
        "harnessbook: error: the following arguments are required: COMMAND\n"
    )


# ---------------------------------------------------------------------------
# 3. A value is shown whole up to 60 characters, and cut from 61 on
# ---------------------------------------------------------------------------

SHOWN_WIDTH = 60
"""How many characters of a caller's value an error message shows before cutting it."""


def budget_problem(value: object) -> str:
    [problem] = problems_of({**demo_request(), "budgetUnits": value})
    return problem


def test_a_value_of_exactly_the_width_is_shown_whole():
    """Mutant: ``len(text) <= 60`` turned into ``< 60``."""
    value = "x" * (SHOWN_WIDTH - 2)  # shown as JSON: two quotes, so exactly 60 characters
    assert budget_problem(value) == (
        f'$.budgetUnits: must be an integer greater than 0, got "{value}" (string)'
    )


def test_a_value_one_over_the_width_is_cut_to_the_width():
    """Mutants: ``<= 60`` turned into ``<= 61``; the cut at 57 or the "..." changed."""
    value = "x" * (SHOWN_WIDTH - 1)  # 61 characters as JSON
    shown = '"' + "x" * (SHOWN_WIDTH - 4) + "..."
    assert len(shown) == SHOWN_WIDTH
    assert budget_problem(value) == (
        f"$.budgetUnits: must be an integer greater than 0, got {shown} (string)"
    )


def test_a_value_that_is_not_json_is_shown_by_repr_and_cut_the_same_way():
    """Mutant: the fallback to ``repr`` (a set is not JSON) changed."""
    assert budget_problem({1}) == "$.budgetUnits: must be an integer greater than 0, got {1} (Python set)"
    long = set(range(100))
    problem = budget_problem(long)
    shown = problem.split("got ", 1)[1].rsplit(" (", 1)[0]
    assert shown == repr(long)[: SHOWN_WIDTH - 3] + "..."


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        # 20 escapes of 6 characters and 20 letters: the 57 characters kept end inside an escape.
        ("X\x01" * 20, "X\\u0001" * 8 + "X..."),
        ("Y" * SHOWN_WIDTH, "Y" * SHOWN_WIDTH),
        ("Y" * (SHOWN_WIDTH + 1), "Y" * (SHOWN_WIDTH - 3) + "..."),
    ],
)
def test_a_long_class_name_is_cut_between_escapes_and_says_so(name, shown):
    """A class name was cut at 60 characters after escaping, without "...": the name of a class
    with control characters in it ended in the middle of an escape (``X\\u0``)."""
    value: object = object.__new__(type(name, (), {}))
    assert budget_problem(value).endswith(f" (Python {shown})")


@pytest.mark.parametrize("before", range(40, 58))
def test_an_escape_of_a_repr_is_never_cut_in_half(before):
    """A repr was read up to 61 characters before it was cut: a ``\\U000f0000`` of its own
    that started after the 52nd was cut there, and the cut could not see it whole."""
    value = Exception("a" * before + "\U000f0000" * 5)
    kept = budget_problem(value).split(", got ", 1)[1].rsplit(" (", 1)[0].removesuffix("...")
    assert not re.search(r"\\U[0-9a-f]{0,7}$", kept), kept


@pytest.mark.parametrize("key", ["\U000f0001x", "a\u0085b", "\ud800", "\uffff", "\U0001d173" * 3])
def test_the_key_in_a_path_reads_back_as_json(key):
    """A character beyond U+FFFF that is not printable was written ``\\U000f0001``, which no JSON
    reader takes: the key of the path is a JSON string that reads back as the key."""
    [problem] = [p for p in problems_of({**demo_request(), key: 1}) if "unknown key" in p]
    path = problem.split(": unknown key", 1)[0]
    assert path.startswith('$["') and path.endswith('"]'), path
    assert json.loads(path[2:-1]) == key


def test_an_escape_is_never_cut_in_half():
    """Mutant: the cut that backs up to the escape it would split removed."""
    text = "'" + "\\xff" * 30 + "'"
    for width in range(5, 30):
        kept = _cut(text, width).removesuffix("...")
        assert len(kept) <= width - 3
        assert re.fullmatch(r"'(\\xff)*", kept), (width, kept)
        assert width - 3 - len(kept) < 4  # no more than the escape in the way is left out
    assert _cut("\\" * 12, 9) == "\\" * 6 + "..."  # read from the first character: pairs from there
    backslashes = "'" + "\\" * 12 + "'"  # repr of six backslashes: six escapes of two characters
    assert _cut(backslashes, 9) == "'" + "\\" * 4 + "..."  # the sixth character would split a pair


# ---------------------------------------------------------------------------
# 4 and 5. The cross-field check reports every problem, not just the first
# ---------------------------------------------------------------------------


def summary(cid: str, conflicts: object) -> dict:
    return candidate(cid, kind="history-summary", relevance="background", conflictsWith=conflicts)


def test_conflicts_of_later_candidates_are_checked_after_one_of_the_wrong_type():
    """Mutant: ``continue`` turned into ``break`` after a ``conflictsWith`` of the wrong type."""
    request = request_with(
        candidate("failure-output"),
        summary("old-summary", 7),
        summary("older-summary", "ghost"),
        summary("oldest-summary", ["oldest-summary"]),
    )
    assert problems_of(request) == [
        "$.candidates[1].conflictsWith: must be a candidate id or a list of ids, got 7 (integer)",
        '$.candidates[2].conflictsWith: names "ghost", which is not a candidate id of this request',
        "$.candidates[3].conflictsWith[0]: a candidate cannot conflict with itself",
    ]


def test_conflicts_of_later_candidates_are_checked_after_one_without_conflicts():
    """Mutant: ``continue`` turned into ``break`` after a candidate that declares no conflicts."""
    request = request_with(summary("a", ["b"]), candidate("b"), summary("c", "ghost"))
    assert problems_of(request) == [
        '$.candidates[2].conflictsWith: names "ghost", which is not a candidate id of this request',
    ]


def test_every_target_is_checked_after_a_blank_one():
    """Mutant: ``continue`` turned into ``break`` after a blank target."""
    request = request_with(
        candidate("failure-output"),
        summary("old-summary", ["", "ghost", "  ", "failure-output", "old-summary"]),
    )
    assert problems_of(request) == [
        '$.candidates[1].conflictsWith[0]: must be a non-blank candidate id, got "" (string)',
        '$.candidates[1].conflictsWith[2]: must be a non-blank candidate id, got "  " (string)',
        '$.candidates[1].conflictsWith[1]: names "ghost", which is not a candidate id of this request',
        "$.candidates[1].conflictsWith[4]: a candidate cannot conflict with itself",
    ]


def test_a_target_that_is_not_a_string_does_not_stop_the_check():
    """Mutant: the same ``continue`` turned into ``break`` for a non-string target."""
    request = request_with(summary("old-summary", [3, "ghost"]))
    assert problems_of(request) == [
        "$.candidates[0].conflictsWith[0]: must be a non-blank candidate id, got 3 (integer)",
        '$.candidates[0].conflictsWith[1]: names "ghost", which is not a candidate id of this request',
    ]


# ---------------------------------------------------------------------------
# 6. demo_request() is the demo request the book prints in full
# ---------------------------------------------------------------------------


def book_demo_request(page: Path) -> dict:
    """The request.json fence of the section "The shape of a result" ({#result-shape})."""
    text = page.read_text(encoding="utf-8")
    section = text.split("{#result-shape}", 1)[1]
    fence = re.search(r'```json title="request\.json"\n(.*?)\n```', section, re.S)
    assert fence is not None, f"{page}: no request.json fence after {{#result-shape}}"
    return json.loads(fence.group(1))


@pytest.mark.parametrize("page", ["output.md", "output.en.md"])
def test_demo_request_is_the_request_the_book_prints(page):
    """Mutants: any value of ``demo_request()`` changed (a content, a source, a size, the budget)."""
    printed = book_demo_request(CHAPTER / page)
    assert demo_request() == printed
    # Key order too: it is the order the page shows and the CLI's demo prints.
    assert json.dumps(demo_request(), ensure_ascii=False) == json.dumps(printed, ensure_ascii=False)


def test_demo_request_is_a_fresh_dict_each_call():
    """Its docstring promises callers may change what they get."""
    first = demo_request()
    first["candidates"][0]["content"] = "changed"
    first["taskAnchor"]["goal"] = "changed"
    assert demo_request() == book_demo_request(CHAPTER / "output.md")


# ---------------------------------------------------------------------------
# The CLI in process: what the subprocess tests show, pinned where mutation testing sees it
# ---------------------------------------------------------------------------


def run_bytes(argv: list[str], data: bytes, encoding: str = "utf-8") -> tuple[int, str, str]:
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding=encoding)
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=stdin, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_standard_input_is_read_as_bytes_whatever_its_text_encoding():
    """Mutants: the ``.buffer`` lookup dropped, so a pipe is decoded by the locale's codec."""
    data = json.dumps(demo_request(), ensure_ascii=False).encode("utf-8")
    code, out, err = run_bytes(["build", "-"], data, encoding="ascii")
    assert (code, err) == (0, "")
    assert json.loads(out) == build_context_packet(demo_request())


def test_a_lone_surrogate_is_printed_escaped_in_process():
    """Mutants: the replacement of a lone surrogate by its ``\\uXXXX`` escape changed."""
    request = demo_request()
    request["candidates"][0]["content"] = "a\ud800b"
    data = json.dumps(request).encode("ascii")  # JSON escapes it: "a\\ud800b"
    code, out, err = run_bytes(["build", "-"], data)
    assert (code, err) == (0, "")
    assert '"content": "a\\ud800b"' in out
    assert json.loads(out) == build_context_packet(request)
    assert "定位单一测试失败" in out  # other text stays unescaped


def test_a_missing_file_is_reported_by_its_reason(tmp_path):
    """Mutant: ``error.strerror or error`` turned into ``and`` (the whole exception printed)."""
    path = tmp_path / "nope.json"
    out, err = io.StringIO(), io.StringIO()
    assert main(["build", str(path)], stdout=out, stderr=err) == 1
    assert (out.getvalue(), err.getvalue()) == (
        "",
        f"harnessbook: cannot read {path}: No such file or directory\n",
    )


def test_schema_help_explains_its_argument(wide_terminal, capsys):
    """Mutant: the help text of the schema name dropped."""
    assert main(["schema", "--help"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  \{error,request,result\}\n +which schema$", out, re.M), out


class AsciiTerminal(io.TextIOWrapper):
    """A standard output whose locale is ASCII, as under ``LANG=C``."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="ascii")


def test_without_a_stdout_argument_the_output_is_utf8(monkeypatch):
    """Mutants: the ``reconfigure(encoding="utf-8")`` of ``sys.stdout`` dropped or changed."""
    terminal = AsciiTerminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert main(["demo"], stderr=io.StringIO()) == 0
    terminal.flush()
    assert isinstance(terminal.buffer, io.BytesIO), "AsciiTerminal wraps a BytesIO"
    printed = terminal.buffer.getvalue().decode("utf-8")
    assert json.loads(printed) == build_context_packet(demo_request())
    assert "定位单一测试失败" in printed


class ClosedPipe(io.StringIO):
    """A standard output whose reader has gone away (no descriptor: it is written as a stream)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")  # 64 on emscripten, 32 on Linux


def blocked_request_file(tmp_path: Path) -> str:
    """A request whose verdict is ``blocked`` (exit 4): its first candidate has no source."""
    blocked = demo_request()
    del blocked["candidates"][0]["source"]
    path = tmp_path / "blocked.json"
    path.write_text(json.dumps(blocked), encoding="utf-8")
    return str(path)


def test_a_failing_stand_in_for_stdout_leaves_descriptor_1_alone(monkeypatch):
    """A ``sys.stdout`` a caller put in place of the interpreter's own (``redirect_stdout``)
    fails alone: the process's file descriptor 1 is not pointed at /dev/null (everything the
    caller printed afterwards was lost)."""
    before = os.fstat(1)
    for stand_in in (ClosedPipe(), FullDisk()):
        monkeypatch.setattr("sys.stdout", stand_in)
        main(["demo"], stderr=io.StringIO())
        assert os.path.samestat(os.fstat(1), before)
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr("sys.stdout", closed)
    assert main(["demo"], stderr=io.StringIO()) == 74
    assert os.path.samestat(os.fstat(1), before)


class ClosedPipeOnDescriptor1(ClosedPipe):
    """A stand-in for ``sys.stdout`` that writes to descriptor 1 (a wrapper of its buffer)."""

    def fileno(self) -> int:
        return 1


def test_a_failing_wrapper_of_descriptor_1_is_quieted_as_the_real_one(monkeypatch):
    """A ``sys.stdout`` that is not ``sys.__stdout__`` but writes to descriptor 1 broke the same
    pipe: descriptor 1 is pointed at /dev/null, as for the interpreter's own."""
    saved = os.dup(1)
    try:
        monkeypatch.setattr("sys.stdout", ClosedPipeOnDescriptor1())
        assert main(["demo"], stderr=io.StringIO()) == 0
        assert os.path.samestat(os.fstat(1), os.stat(os.devnull))
    finally:
        os.dup2(saved, 1)  # give pytest its standard output back
        os.close(saved)


@pytest.mark.parametrize(("command", "verdict"), [(["demo"], 0), (["build"], 4)], ids=["ready", "blocked"])
def test_a_reader_that_stops_early_keeps_the_verdict_and_stdout_points_at_devnull(
    monkeypatch, tmp_path, command, verdict
):
    """Mutants: the EPIPE case returning anything but the verdict, or the ``dup2`` onto /dev/null
    of the process's own standard output dropped."""
    argv = command + ([blocked_request_file(tmp_path)] if command == ["build"] else [])
    path = tmp_path / "stdout"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    saved = os.dup(1)
    try:
        pipe = ClosedPipe()
        monkeypatch.setattr("sys.stdout", pipe)
        monkeypatch.setattr("sys.__stdout__", pipe)  # as the interpreter's own standard output
        err = io.StringIO()
        assert main(argv, stderr=err) == verdict
        assert err.getvalue() == ""
        # The interpreter's final flush writes to file descriptor 1: it is /dev/null now.
        assert os.path.samestat(os.fstat(1), os.stat(os.devnull))
        os.write(fd, b"after")  # the caller's own descriptor is untouched
    finally:
        os.dup2(saved, 1)  # give pytest its standard output back
        os.close(saved)
        os.close(fd)
    assert path.read_bytes() == b"after"


def test_a_closed_output_given_as_an_argument_is_left_alone(tmp_path):
    """The caller's own stream is never redirected: only the process's standard output is."""
    before = os.fstat(1)
    err = io.StringIO()
    assert main(["build", blocked_request_file(tmp_path)], stdout=ClosedPipe(), stderr=err) == 4
    assert err.getvalue() == ""
    after = os.fstat(1)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)


class FullDisk(ClosedPipe):
    """A standard output on a disk that is full."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_an_output_that_cannot_be_written_exits_74_with_one_line():
    """Mutants: the EPIPE test widened to every OSError, or the stderr line changed."""
    err = io.StringIO()
    assert main(["demo"], stdout=FullDisk(), stderr=err) == 74
    assert err.getvalue() == "harnessbook: cannot write standard output: No space left on device\n"


# ---------------------------------------------------------------------------
# How a problem shows a value: JSON, unescaped, a float as Python writes it
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        pytest.param("八", '"八" (string)', id="chinese-unescaped"),
        pytest.param(float("nan"), "nan (number)", id="nan"),
        pytest.param(float("-inf"), "-inf (number)", id="minus-infinity"),
        pytest.param(1e300, "1e+300 (number)", id="large-float"),
        pytest.param(8.0, "8.0 (number)", id="float"),
        pytest.param(True, "true (boolean)", id="boolean"),
        pytest.param(None, "null (null)", id="null"),
        pytest.param([8], "[8] (array)", id="array"),
        pytest.param({"n": 8}, '{"n": 8} (object)', id="object"),
        pytest.param(b"8", "b'8' (Python bytes)", id="bytes"),
    ],
)
def test_a_value_is_shown_as_json_with_its_json_type(value, shown):
    """Mutants: ``ensure_ascii=False`` of a string, or ``repr`` of a float, changed."""
    assert budget_problem(value) == f"$.budgetUnits: must be an integer greater than 0, got {shown}"


# ---------------------------------------------------------------------------
# Why a capturedAt is refused, word for word
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "why"),
    [
        pytest.param(
            " 2026-07-15",
            "must be an RFC 3339 date or date-time without surrounding whitespace",
            id="valid-but-padded",
        ),
        pytest.param(
            "2026-07-15T09:30:00Z\n",
            "must be an RFC 3339 date or date-time without surrounding whitespace",
            id="valid-date-time-with-a-newline",
        ),
        pytest.param(
            "2026-02-30",
            "has the RFC 3339 shape but is not a real calendar date or time of day",
            id="not-a-real-date",
        ),
        pytest.param(
            "2026-07-15T24:00:00Z",
            "has the RFC 3339 shape but is not a real calendar date or time of day",
            id="not-a-real-time",
        ),
        pytest.param(
            "0000-02-29",
            "is in the year 0000: RFC 3339 allows it, but only the years 0001 to 9999 are accepted",
            id="the-year-0000",
        ),
        pytest.param(
            "0000-12-31T23:59:60Z",
            "is in the year 0000: RFC 3339 allows it, but only the years 0001 to 9999 are accepted",
            id="the-year-0000-at-a-leap-second",
        ),
        pytest.param(
            "0000-06-15T12:00:60Z",
            "has a leap second that is not 23:59:60 in UTC (RFC 3339 allows no other)",
            id="the-year-0000-and-a-wrong-leap-second",
        ),
        pytest.param(
            "0000-02-30",
            "has the RFC 3339 shape but is not a real calendar date or time of day",
            id="the-year-0000-and-no-such-day",
        ),
        pytest.param(
            " yesterday",
            "must be an RFC 3339 date (2026-07-15) or date-time with a time zone (2026-07-15T09:30:00Z)",
            id="padded-and-not-a-date",
        ),
        pytest.param(
            " 2026-02-30",
            "must be an RFC 3339 date (2026-07-15) or date-time with a time zone (2026-07-15T09:30:00Z)",
            id="padded-and-not-a-real-date",
        ),
    ],
)
def test_a_refused_capture_time_says_why(value, why):
    """Mutants: the wording, or the ``and`` and ``!=`` that choose between the three reasons."""
    request = request_with(candidate("failure-output", capturedAt=value))
    shown = json.dumps(value, ensure_ascii=False)
    assert problems_of(request) == [f"$.candidates[0].capturedAt: {why}, got {shown} (string)"]


# ---------------------------------------------------------------------------
# The shape of conflictsWith, word for word
# ---------------------------------------------------------------------------


def test_only_a_history_summary_may_declare_conflicts_and_the_problem_names_the_kind():
    """Mutants: the kind shown (or "missing") in the problem changed."""
    request = request_with(
        candidate("failure-output"), candidate("note", kind="reference", conflictsWith="failure-output")
    )
    assert problems_of(request) == [
        "$.candidates[1].conflictsWith: only a history-summary may have conflictsWith; "
        'this candidate\'s kind is "reference"',
    ]


@pytest.mark.parametrize("kind", [None, "note", ["history-summary"], "absent"])
def test_a_conflict_on_a_candidate_without_a_valid_kind_is_the_kinds_problem_alone(kind):
    """A missing or wrong kind was reported twice, the second time as "only a history-summary
    may declare conflicts; this candidate's kind is missing": one mistake, two lines."""
    request = request_with(candidate("failure-output"), candidate("note", conflictsWith="failure-output"))
    if kind == "absent":
        del request["candidates"][1]["kind"]
    else:
        request["candidates"][1]["kind"] = kind
    [problem] = problems_of(request)
    assert problem.startswith("$.candidates[1].kind: ")


def test_an_empty_conflicts_with_on_another_kind_is_named_as_the_key_it_is():
    """``[]`` declares no conflict: the problem names the key, not a declaration of conflicts."""
    request = request_with(candidate("failure-output", conflictsWith=[]))
    assert problems_of(request) == [
        "$.candidates[0].conflictsWith: only a history-summary may have conflictsWith; "
        'this candidate\'s kind is "direct-evidence"',
    ]


def test_a_repeated_conflict_target_is_named_with_where_it_was_first():
    """Mutant: the repeated id in the problem changed."""
    request = request_with(
        candidate("failure-output"), summary("old-summary", ["failure-output", "failure-output"])
    )
    assert problems_of(request) == [
        '$.candidates[1].conflictsWith[1]: repeats id "failure-output" of $.candidates[1].conflictsWith[0]'
    ]


def test_a_repeated_target_that_is_no_candidate_is_said_once_where_it_repeats_and_once_missing():
    """Each copy of a missing target was also reported as missing: five lines for two mistakes."""
    request = request_with(candidate("failure-output"), summary("old-summary", ["ghost", "ghost", "ghost"]))
    assert problems_of(request) == [
        '$.candidates[1].conflictsWith[1]: repeats id "ghost" of $.candidates[1].conflictsWith[0]',
        '$.candidates[1].conflictsWith[2]: repeats id "ghost" of $.candidates[1].conflictsWith[0]',
        '$.candidates[1].conflictsWith[0]: names "ghost", which is not a candidate id of this request',
    ]
    request = request_with(
        candidate("failure-output"), summary("old-summary", ["old-summary", "old-summary"])
    )
    assert problems_of(request) == [
        '$.candidates[1].conflictsWith[1]: repeats id "old-summary" of $.candidates[1].conflictsWith[0]',
        "$.candidates[1].conflictsWith[0]: a candidate cannot conflict with itself",
    ]


def test_a_summary_whose_id_is_not_a_string_still_gets_its_missing_target_named():
    """Mutant: the look-alike lookup of the summary's own id made for an id that is not a string
    (a list cannot be looked up: TypeError)."""
    request = request_with(candidate("failure-output"), summary("old-summary", "ghost"))
    request["candidates"][1]["id"] = ["old-summary"]
    assert problems_of(request)[-1] == (
        '$.candidates[1].conflictsWith: names "ghost", which is not a candidate id of this request'
    )


def test_a_summary_with_a_repeated_id_is_not_said_to_conflict_with_itself():
    """Its id is another candidate's: the repeated id is the mistake, and the conflict names
    that other candidate, not the summary itself."""
    request = request_with(candidate("failure-output"), summary("failure-output", "failure-output"))
    assert problems_of(request) == ['$.candidates[1].id: repeats id "failure-output" of $.candidates[0]']


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("sizeUnit", "; did you mean 'sizeUnits'?"),  # the key it resembles is missing
        ("ID", " (it resembles 'id', which this object already has)"),  # case alone: difflib sees nothing
        ("Content", " (it resembles 'content', which this object already has)"),
    ],
)
def test_an_unknown_key_is_told_which_key_it_resembles_and_whether_that_one_is_given(key, hint):
    item = candidate("failure-output")
    if key == "sizeUnit":
        item[key] = item.pop("sizeUnits")
    else:
        item[key] = 1
    problems = problems_of(request_with(item))
    assert problems[0] == f"$.candidates[0].{key}: unknown key{hint}"


def test_a_json_value_nested_deeply_is_shown_down_to_21_levels():
    """Mutants: the depth limit (``depth > 20``) or the "..." that stands for the rest changed."""
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    assert budget_problem(nested) == (
        "$.budgetUnits: must be an integer greater than 0, got " + "[" * 21 + "..." + "]" * 21 + " (array)"
    )


class Nest:
    """A caller's object whose ``__repr__`` shows the one inside it."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    def __repr__(self) -> str:
        return f"Nest({self.inner!r})"


def test_a_value_nested_too_deeply_to_show_is_named_by_its_type():
    """Mutant: the type named in ``<Python Nest nested too deeply to show>`` changed. (A tuple
    or a frozenset is shown item by item, like a list, and its nesting is cut the same way.)"""
    nest: object = None
    for _ in range(100_000):
        nest = Nest(nest)
    assert budget_problem(nest) == (
        "$.budgetUnits: must be an integer greater than 0, got <Python Nest nested too deeply to show> (Python Nest)"
    )
    nested: frozenset = frozenset()
    for _ in range(100_000):
        nested = frozenset([nested])
    assert budget_problem(nested) == (
        "$.budgetUnits: must be an integer greater than 0, "
        "got frozenset({frozenset({frozenset({frozenset({frozenset({fr... (Python frozenset)"
    )
    deep: tuple = ()
    for _ in range(100_000):
        deep = (deep,)
    assert budget_problem(deep) == (
        "$.budgetUnits: must be an integer greater than 0, "
        "got (((((((((((((((((((((...),),),),),),),),),),),),),),),),)... (Python tuple)"
    )


def test_a_one_item_tuple_is_shown_as_python_writes_it():
    """("a") would read as a parenthesised string, not a tuple."""
    assert (
        budget_problem(("a",))
        == '$.budgetUnits: must be an integer greater than 0, got ("a",) (Python tuple)'
    )
    assert budget_problem(("a", "b")).endswith('got ("a", "b") (Python tuple)')


def test_a_huge_tuple_is_shown_without_encoding_it():
    """A tuple's repr encodes every item: a million candidates took 10 s to refuse."""
    request = request_with(candidate("failure-output"))
    request["candidates"] = tuple(request["candidates"]) * 1_000_000
    [problem] = problems_of(request)
    assert problem.startswith('$.candidates: must be an array, got ({"id": "failure-output", ')
    assert problem.endswith("... (Python tuple)")


def test_an_integer_too_large_to_show_is_named_by_its_type():
    """Mutant: the type named in ``<integer too large to show>`` changed."""
    request = request_with(candidate("failure-output", sizeUnits=-(10**5000)))
    assert problems_of(request) == [
        "$.candidates[0].sizeUnits: must be an integer >= 0, got <integer too large to show> (integer)"
    ]


# ---------------------------------------------------------------------------
# The validator's fast path takes every common, clean shape (else it would save nothing)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({}, id="plain"),
        pytest.param({"sizeUnits": 0}, id="size-0"),
        pytest.param({"source": None, "capturedAt": None}, id="provenance-null"),
        pytest.param({"capturedAt": "2026-07-15T09:30:00+08:00"}, id="date-time"),
        pytest.param({"reference": "artifact://x"}, id="reference"),
        pytest.param({"kind": "history-summary", "conflictsWith": "failure-output"}, id="one-conflict"),
        pytest.param({"kind": "history-summary", "conflictsWith": ["a", "b"]}, id="conflict-list"),
    ],
)
def test_the_fast_path_takes_every_clean_shape(changes):
    """Mutants: ``size < 0`` turned into ``<= 0``; a string ``conflictsWith`` refused.

    Refusing would only cost time (the detailed walk accepts the same candidate), which is
    why only the fast path itself can show it.
    """
    from harnessbook.context_packet.errors import _Problems
    from harnessbook.context_packet.validation import _check_candidate, _is_clean_candidate

    item = candidate("failure-output", **changes)
    problems = _Problems()
    _check_candidate(item, "$.candidates[0]", problems)
    assert problems.items == [] and problems.total == 0
    assert _is_clean_candidate(item)


# ---------------------------------------------------------------------------
# Every problem shows the value it is about
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "problem"),
    [
        pytest.param([], "$: a request must be an object, got [] (array)", id="request"),
        pytest.param(
            {**demo_request(), "taskAnchor": "x"},
            '$.taskAnchor: must be an object, got "x" (string)',
            id="anchor",
        ),
        pytest.param(
            {**demo_request(), "candidates": {}},
            "$.candidates: must be an array, got {} (object)",
            id="candidates",
        ),
        pytest.param(
            {**dict[Any, Any](demo_request()), 1: 2},  # a key that is not a string, on purpose
            "$: key 1 is not a string; JSON object keys are strings",
            id="key",
        ),
        pytest.param(
            request_with(candidate("a", reference=5)),
            "$.candidates[0].reference: must be a string, got 5 (integer)",
            id="reference",
        ),
    ],
)
def test_a_problem_shows_the_value_it_is_about(request_, problem):
    """Mutants: the value passed to ``_got`` or ``_repr`` replaced by ``None``."""
    assert problems_of(request_) == [problem]


def test_repeated_ids_are_found_after_a_candidate_that_is_not_an_object_or_has_no_id():
    """Mutants: ``continue`` turned into ``break`` in the first pass over the candidates."""
    request = request_with(candidate("a"), 5, candidate(" "), candidate("a"))
    assert problems_of(request) == [
        "$.candidates[1]: a candidate must be an object, got 5 (integer)",
        '$.candidates[2].id: must not be blank, got " " (string)',
        '$.candidates[3].id: repeats id "a" of $.candidates[0]',
    ]


# ---------------------------------------------------------------------------
# How a value is shown: JSON, cut, bounded (the second mutation run, after the package split)
# ---------------------------------------------------------------------------


def shown_budget(value: object) -> str:
    prefix = "$.budgetUnits: must be an integer greater than 0, got "
    problem = budget_problem(value)
    assert problem.startswith(prefix)
    return problem[len(prefix) :]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        pytest.param(
            ["a", None, True, 1.5, {"k": [None]}, {}],
            '["a", null, true, 1.5, {"k": [null]}, {}] (array)',
            id="mixed",
        ),
        pytest.param(
            [None] * 30,
            "[null, null, null, null, null, null, null, null, null, nu... (array)",
            id="long-list",
        ),
        pytest.param(
            {"a b": None, "c": [True, "x" * 70]},
            '{"a b": null, "c": [true, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (object)',
            id="dict",
        ),
        pytest.param(
            {str(i): None for i in range(30)},
            '{"0": null, "1": null, "2": null, "3": null, "4": null, "... (object)',
            id="long-dict",
        ),
        pytest.param({None: 1, 5: True}, "{None: 1, 5: true} (object)", id="keys-not-strings"),
        pytest.param({"a": 2**230}, '{"a": <integer too large to show>} (object)', id="dict-int"),
        pytest.param([2**237], "[<integer too large to show>] (array)", id="list-int"),
        pytest.param(
            -(2**239),
            "-88342353238919216479164875037145925791374194843780947906... (integer)",
            id="240-bits-shown",
        ),
        pytest.param(-(2**240), "<integer too large to show> (integer)", id="241-bits-described"),
        pytest.param("\uffff\U000f0000", '"\\uffff\\U000f0000" (string)', id="unprintable"),
    ],
)
def test_a_container_is_shown_as_json_not_as_python(value, shown):
    """Mutants: any change to the JSON rendering of lists and dicts (``None`` parts, the joiner,
    the budget of an item, the depth passed down, ``_repr`` for a string key), which either
    shows Python's ``repr`` instead (``None``, ``True``, quotes) or changes the text; the
    bit-length limit of integers (``>`` to ``>=``, 4 to 5 bits a character); the ``\\u`` and
    ``\\U`` escapes of unprintable characters."""
    assert shown_budget(value) == shown


def test_the_depth_limit_counts_lists_and_dicts_alike():
    """Mutants: the depth passed to a dict's item changed by one either way."""
    value: object = {"": [[1]]}
    for _ in range(19):
        value = [value]
    assert shown_budget(value) == "[[[[[[[[[[[[[[[[[[[" + '{"": [...]}' + "]" * 19 + " (array)"


class Counted:
    """A caller's object that counts how often its ``__repr__`` runs."""

    calls = 0

    def __repr__(self) -> str:
        Counted.calls += 1
        return "c"

    def __hash__(self) -> int:
        return id(self)


@pytest.mark.parametrize(
    ("make", "calls"),
    [
        pytest.param(lambda: [Counted()] * 10_000, 20, id="list"),
        pytest.param(lambda: {str(i): Counted() for i in range(10_000)}, 8, id="dict-values"),
        pytest.param(lambda: {Counted(): 1 for _ in range(10_000)}, 10, id="dict-keys"),
        # Not JSON: shown once, for the plain copy's placeholder, whose text the problem shows
        # (the walk of the request as given stops before showing a value that is not JSON).
        pytest.param(lambda: {Counted() for _ in range(10_000)}, 20, id="set"),
        pytest.param(lambda: frozenset(Counted() for _ in range(10_000)), 20, id="frozenset"),
        pytest.param(lambda: collections.deque([Counted()] * 10_000), 20, id="deque"),
    ],
)
def test_a_long_container_runs_the_callers_repr_only_for_what_is_shown(make, calls):
    """Mutants: the running width ``used`` of a list or dict (start, ``+=``, ``+ 2``, ``>``):
    a container of 10,000 items shows its first few and stops; the caller's ``__repr__`` runs
    once for each item shown, not 10,000 times."""
    value = make()
    Counted.calls = 0
    shown_budget(value)
    assert Counted.calls == calls


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (set(), "set() (Python set)"),
        ({1}, "{1} (Python set)"),
        (frozenset(), "frozenset() (Python frozenset)"),
        (frozenset({"a"}), 'frozenset({"a"}) (Python frozenset)'),
        (collections.deque(), "deque([]) (Python deque)"),
        (collections.deque([1, "a"]), 'deque([1, "a"]) (Python deque)'),
        (collections.deque([1], maxlen=3), "deque([1], maxlen=3) (Python deque)"),
    ],
)
def test_sets_and_deques_are_shown_as_python_writes_them(value, shown):
    """Mutants: the brackets and names of the bounded rendering of ``set``, ``frozenset`` and
    ``deque`` (their repr renders every item first, however many there are)."""
    assert shown_budget(value) == shown


class QuietItems(list[object]):
    """A caller's list subclass whose ``__repr__`` must not run (it would render every item)."""

    def __repr__(self) -> str:
        raise AssertionError("the repr of a list subclass ran")


class Pair(tuple[object, ...]):
    pass


class Marks(set[object]):
    pass


class Line(collections.deque[object]):
    pass


class QuietText(str):
    def __repr__(self) -> str:
        raise AssertionError("the repr of a str subclass ran")


class Color(enum.IntEnum):
    RED = 1


class QuietOrderedDict(collections.OrderedDict[object, object]):
    """An ``OrderedDict`` subclass whose ``__repr__`` must not run (it may cost anything)."""

    def __repr__(self) -> str:
        return "the repr of an OrderedDict subclass ran"


class QuietNamespace(types.SimpleNamespace):
    def __repr__(self) -> str:
        raise AssertionError("the repr of a SimpleNamespace subclass ran")


class QuietComplex(complex):
    def __repr__(self) -> str:
        raise AssertionError("the repr of a complex subclass ran")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (QuietItems([1, "a"]), 'QuietItems([1, "a"]) (Python QuietItems)'),
        (QuietItems(), "QuietItems([]) (Python QuietItems)"),
        (Pair(("a",)), 'Pair(("a",)) (Python Pair)'),
        (Marks(), "Marks() (Python Marks)"),
        (Marks({1}), "Marks({1}) (Python Marks)"),
        (Line([1], maxlen=2), "Line([1], maxlen=2) (Python Line)"),
        (collections.OrderedDict(a=1), 'OrderedDict({"a": 1}) (Python OrderedDict)'),
        (collections.Counter("aab"), 'Counter({"a": 2, "b": 1}) (Python Counter)'),
        (
            collections.defaultdict(list, a=[]),
            "defaultdict(<class 'list'>, {\"a\": []}) (Python defaultdict)",
        ),
        (bytearray(b"a\n"), "bytearray(b'a\\n') (Python bytearray)"),
        (array.array("i", [1, 2]), "array('i', [1, 2]) (Python array)"),
        (array.array("i"), "array('i') (Python array)"),
        ({"a": 1}.items(), 'dict_items([("a", 1)]) (Python dict_items)'),
        ([QuietText("a"), Color.RED], '[QuietText("a"), Color(1)] (array)'),
        ({("a", 1): None, None: 1, b"k": 2}, "{(\"a\", 1): null, None: 1, b'k': 2} (object)"),
        (types.MappingProxyType({"a": [1]}), 'mappingproxy({"a": [1]}) (Python mappingproxy)'),
        (
            types.MappingProxyType(QuietOrderedDict(a=1)),
            'mappingproxy(QuietOrderedDict({"a": 1})) (Python mappingproxy)',
        ),
        (types.SimpleNamespace(a=1, b="x"), 'namespace(a=1, b="x") (Python SimpleNamespace)'),
        (QuietNamespace(a=None), "QuietNamespace(a=null) (Python QuietNamespace)"),
        (QuietNamespace(), "QuietNamespace() (Python QuietNamespace)"),
        (slice(1, "a"), 'slice(1, "a", null) (Python slice)'),
        (1 - 2j, "(1-2j) (Python complex)"),
        pytest.param(QuietComplex(2j), "QuietComplex(2j) (Python QuietComplex)", id="complex-subclass"),
    ],
)
def test_subclasses_of_built_in_types_are_shown_from_their_data(value, shown):
    """Mutants: the names and brackets of the bounded rendering of a value of a built-in type,
    or of a subclass of one (their repr renders every item first, however many there are, and
    a caller's subclass may define its own): the subclass's name around how its built-in type
    is written, or in place of the built-in type's name where Python writes one."""
    assert shown_budget(value) == shown


def grown_while_shown(value: dict[object, object]) -> dict[object, object]:
    """``value``, with an item whose ``__repr__`` adds keys to it while it is shown."""

    class Grows:
        def __repr__(self) -> str:
            value[len(value)] = 1
            return "m"

    value["a"] = Grows()
    value["b"] = 0  # an OrderedDict notices a change only when asked for a next item
    return value


def inconsistent(value: collections.OrderedDict[object, object]) -> object:
    """An ``OrderedDict`` whose order no longer matches its keys: iterating it raises."""
    value.update(a=1, b=2)
    dict.__delitem__(value, "a")
    return value


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        pytest.param(lambda: grown_while_shown({}), "<object that cannot be shown> (object)", id="dict"),
        pytest.param(
            lambda: grown_while_shown(QuietOrderedDict()),
            "<Python QuietOrderedDict that cannot be shown> (Python QuietOrderedDict)",
            id="ordered-dict-grown",
        ),
        pytest.param(
            lambda: inconsistent(QuietOrderedDict()),
            "<Python QuietOrderedDict that cannot be shown> (Python QuietOrderedDict)",
            id="ordered-dict-inconsistent",
        ),
        pytest.param(
            lambda: [1, inconsistent(collections.OrderedDict()), 2],
            "[1, <Python OrderedDict that cannot be shown>, 2] (array)",
            id="inside-a-list",
        ),
    ],
)
def test_a_value_that_breaks_while_shown_is_named_never_shown_by_its_repr(make, shown):
    """Mutants: the fallback of ``_render`` and ``_shown``. A container that breaks while shown
    (a caller's ``__repr__`` of an item changes it, an ``OrderedDict`` subclass's order is
    inconsistent) fell back to its repr, all of it however large, and a subclass's own
    ``__repr__`` ran: it is named by its type, and only it, not what holds it."""
    assert shown_budget(make()) == shown


class BadRepr:
    def __init__(self, error: type[Exception]) -> None:
        self.error = error

    def __repr__(self) -> str:
        raise self.error


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (ValueError, "<Python BadRepr too large to show> (Python BadRepr)"),
        (RuntimeError, "<Python BadRepr that cannot be shown> (Python BadRepr)"),
    ],
)
def test_a_value_whose_repr_raises_is_named_by_its_type(error, shown):
    """Mutants: the type named in ``<... too large to show>`` and ``<... that cannot be shown>``."""
    assert shown_budget(BadRepr(error)) == shown


@pytest.mark.parametrize(
    ("where", "value"),
    [
        pytest.param("budgetUnits", [Counted()], id="in-a-list"),
        pytest.param("budgetUnits", {"a": Counted()}, id="in-a-dict"),
        pytest.param("budgetUnits", {Counted(): 1}, id="a-key-of-a-dict"),
        pytest.param("content", [[Counted()]], id="in-a-candidate"),
    ],
)
def test_a_value_inside_a_list_or_dict_is_shown_once(where, value):
    """A ``list`` or ``dict`` is plain as far as the walk compares it, but what it holds is only
    shown: the walk of the request as given showed the caller's object in it, and the walk of
    the plain copy, made for a later value that is not JSON (bytes), showed it again. The walk of
    the request as given now stops before showing it."""
    request = request_with(candidate("a", sizeUnits=b"x"))
    if where == "content":
        request["candidates"].insert(0, candidate("b", content=value))
    else:
        request[where] = value
    Counted.calls = 0
    problems = problems_of(request)
    assert Counted.calls == 1, problems
    assert any(", got " in problem and "c" in problem for problem in problems)


class Unnamed(type):
    """A metaclass whose ``__name__`` raises: a class's name is read as Python holds it."""

    @property
    def __name__(cls) -> str:  # type: ignore[override]
        raise RuntimeError("__name__")


class Misnamed(type):
    @property
    def __name__(cls) -> int:  # type: ignore[override]
        return 5


class Hidden(metaclass=Unnamed):
    pass


class Odd(metaclass=Misnamed):
    pass


@pytest.mark.parametrize("kind", [pytest.param(Hidden, id="raises"), pytest.param(Odd, id="not-a-string")])
@pytest.mark.parametrize("where", ["budget", "in-a-list", "key", "subclass"])
def test_a_class_whose_metaclass_names_it_badly_is_named_as_python_holds_it(kind, where):
    """A metaclass's ``__name__`` property that raises (or returns an int) escaped
    ``validate_request`` as a traceback: the type name of a value, a key and a subclass is read
    with ``type``'s own getter."""
    name = kind.__qualname__
    if where == "subclass":
        value: object = type(kind)("Items", (list,), {})([1])
        name = "Items"
    else:
        value = kind()
    if where == "key":
        request = request_with({**candidate("a"), value: 1})
    else:
        request = request_with(candidate("a"), budgetUnits=[value] if where == "in-a-list" else value)
    problems = problems_of(request)
    assert any(f"{name}" in problem for problem in problems), problems


def test_a_set_of_strings_bytes_or_numbers_is_shown_sorted():
    """A set holds strings and bytes in an order that changes with ``PYTHONHASHSEED``: a
    message compared by a test changed from run to run. Such a set is shown sorted (numbers,
    then strings, then bytes; ``None`` first), only as far as the width shows it."""
    assert shown_budget({"beta", "gamma", "alpha"}) == '{"alpha", "beta", "gamma"} (Python set)'
    assert shown_budget(frozenset({b"b", "b", 2.5, None, b"a", "a", True})) == (
        "frozenset({null, true, 2.5, \"a\", \"b\", b'a', b'b'}) (Python frozenset)"
    )
    assert shown_budget({float("nan"), 1, float("nan")}) == "{1, nan, nan} (Python set)"
    assert shown_budget(Marks(str(n) for n in range(10_000))) == (
        'Marks({"0", "1", "10", "100", "1000", "1001", "1002", "10... (Python Marks)'
    )
    # The width holds 19 items of one character: the 20th is "...", whatever follows.
    assert (
        shown_budget(set(range(19)))
        == "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16... (Python set)"
    )
    assert shown_budget(set("abcdefghijklmnopqrstuvwxyz")) == (
        '{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "... (Python set)'
    )


def gen() -> Any:
    yield 1


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        pytest.param(object, "<object object> (Python object)", id="object"),
        pytest.param(lambda: memoryview(b"x"), "<memory> (Python memoryview)", id="memoryview"),
        pytest.param(gen, "<generator object gen> (Python generator)", id="generator"),
        pytest.param(
            lambda: [object()] * 3, "[<object object>, <object object>, <object object>] (array)", id="list"
        ),
        pytest.param(
            lambda: AtMany(),
            "<a><b><c><d><e><f><g><h><i><j><k><l><m><n><o><p><q><r><s>... (Python AtMany)",
            id="many-addresses",
        ),
        # Only an address as Python writes one, before the closing bracket: a caller's own text
        # stays, and a run of more hex digits than an address has is no address.
        pytest.param(lambda: Said("Point at 0x10"), "Point at 0x10 (Python Said)", id="not-an-address"),
        pytest.param(
            lambda: Said("<x at 0x" + "f" * 17 + ">"),
            "<x at 0x" + "f" * 17 + "> (Python Said)",
            id="too-long",
        ),
    ],
)
def test_a_repr_is_shown_without_memory_addresses(make, shown):
    """``<memory at 0x7fe3...>`` changed from run to run: memory addresses are left out of a
    repr shown in a problem, and what is cut is cut after they are."""
    assert shown_budget(make()) == shown


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        pytest.param(lambda: (1, "<y at 0xff>"), '(1, "<y at 0xff>") (Python tuple)', id="tuple"),
        pytest.param(
            lambda: collections.OrderedDict(a="<x at 0x10>"),
            'OrderedDict({"a": "<x at 0x10>"}) (Python OrderedDict)',
            id="ordered-dict",
        ),
        pytest.param(lambda: (object(),), "(<object object>,) (Python tuple)", id="a-repr-inside"),
    ],
)
def test_a_string_inside_a_value_shown_from_its_data_keeps_its_text(make, shown):
    """A value that is not plain is shown once, into the plain copy's placeholder, with the
    addresses of the reprs inside it left out; the copy's walk then shows the placeholder. It
    took addresses out of that text a second time, so a caller's string that only looks like a
    repr lost its end: ``(1, "<y at 0xff>")`` was shown as ``(1, "<y>")``."""
    assert shown_budget(make()) == shown


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        pytest.param(lambda: [Ratio(1.5)], "[Ratio(1.5)] (array)", id="float-subclass"),
        pytest.param(
            lambda: {"k": Ratio(-0.25)}, '{"k": Ratio(-0.25)} (object)', id="float-subclass-in-a-dict"
        ),
        pytest.param(lambda: [Size(1000)], "[Size(1000)] (array)", id="int-subclass"),
        pytest.param(
            lambda: [Size(2**80)], "[Size(1208925819614629174706176)] (array)", id="int-subclass-80-bits"
        ),
        pytest.param(
            lambda: array.array("u", "hello"), "array('u', \"hello\") (Python array)", id="characters"
        ),
    ],
)
def test_a_number_subclass_inside_a_kept_container_is_shown_by_its_value(make, shown):
    """The copy keeps a ``list`` or ``dict`` below the levels it converts, so a ``float`` or
    ``int`` subclass inside one is shown from its data, with its class's name; an array of
    characters shows its text from the first character. Mutants of ``_render_python``: the
    float's text ``None`` or ``null``, its budget ``None``, the number's place taken by the
    budget or the depth, the int's budget taken by the depth (a 10-bit number became too large
    to show), the array's text read from its second character."""
    assert shown_budget(make()) == shown


class Said:
    """An object whose repr is the text it is given."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class AtMany:
    def __repr__(self) -> str:
        return "".join(f"<{chr(97 + n % 26)} at 0x{id(self) + n:x}>" for n in range(100))


def test_a_repeated_key_of_a_conflict_object_is_shown_as_written():
    """A ``str`` subclass key that reads as another key of a ``conflictsWith`` object showed
    an internal name (``<harnessbook.context_packet.errors._RepeatedKey ...``)."""

    class Key(str):
        __hash__ = object.__hash__

    request = request_with(
        candidate("a", kind="history-summary", conflictsWith={"b": 1, Key("b"): 2}), candidate("b")
    )
    assert problems_of(request) == [
        '$.candidates[0].conflictsWith: must be a candidate id or a list of ids, got {"b": 1, "b": 2} (object)'
    ]


def test_a_key_of_exactly_the_key_width_is_shown_whole():
    """Mutant: ``len(key) > 40`` turned into ``>=``."""
    key = "k" * 40
    request = request_with(candidate("failure-output", **{key: 1}))
    [problem] = problems_of(request)
    assert problem.startswith(f"$.candidates[0].{key}: unknown key")


def test_a_leap_second_outside_23_59_60_utc_says_so():
    """Mutants: the group that holds the seconds, or the wording, changed."""
    request = request_with(candidate("failure-output", capturedAt="2026-07-15T12:00:60Z"))
    assert problems_of(request) == [
        "$.candidates[0].capturedAt: has a leap second that is not 23:59:60 in UTC "
        '(RFC 3339 allows no other), got "2026-07-15T12:00:60Z" (string)'
    ]


@pytest.mark.parametrize(
    "stamp",
    ["2026-02-30T23:59:60Z", "2026-07-15T24:59:60Z", "2026-07-15T23:59:60+25:00", "2026-07-15T23:60:60Z"],
)
def test_a_leap_second_on_an_impossible_date_time_or_offset_is_not_called_a_leap_second_problem(stamp):
    request = request_with(candidate("failure-output", capturedAt=stamp))
    assert problems_of(request) == [
        "$.candidates[0].capturedAt: has the RFC 3339 shape but is not a real calendar date or time "
        f'of day, got "{stamp}" (string)'
    ]


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"candidates": [candidate("failure-output", sizeUnits=2**53)]}, "$.candidates[0].sizeUnits"),
        ({"budgetUnits": 2**53}, "$.budgetUnits"),
    ],
    ids=["size", "budget"],
)
def test_a_size_or_budget_over_2_53_shows_the_value(changes, path):
    """Mutants: the value passed to ``_too_large`` (then to ``_got``) replaced by ``None``, for a
    candidate's size and for the budget."""
    request = {**request_with(candidate("failure-output")), **changes}
    assert problems_of(request) == [
        f"{path}: must be at most 9007199254740991 (2^53 - 1: JSON readers using doubles, "
        "JavaScript among them, hold every integer up to it exactly, and not every one above it), "
        "got 9007199254740992 (integer)"
    ]


# ---------------------------------------------------------------------------
# conflictsWith is copied into selected items and pointers, in the contract's key order
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("conflicts", ["old", ["old", "note"]], ids=["string", "list"])
def test_selected_items_and_pointers_keep_conflicts_with(conflicts):
    """Mutants: any key or value of a pointer that declares conflicts; a string
    ``conflictsWith`` copied as a list of its characters."""
    request = request_with(
        candidate("old", relevance="background"),
        candidate("note", kind="reference", relevance="background", sizeUnits=9),
        candidate(
            "s",
            kind="history-summary",
            relevance="background",
            sizeUnits=50,
            reference="artifact://s",
            conflictsWith=conflicts,
        ),
        candidate("t", kind="history-summary", relevance="background", conflictsWith=conflicts),
        budgetUnits=3,
    )
    packet = build_context_packet(cast(Any, request))["packet"]
    common = {
        "kind": "history-summary",
        "source": "injected:test-output",
        "capturedAt": "2026-07-15",
        "relevance": "background",
        "freshness": "fresh",
    }
    [pointer] = packet["pointers"]
    assert list(pointer.items()) == list(
        {
            "id": "s",
            **common,
            "sizeUnits": 50,
            "reference": "artifact://s",
            "conflictsWith": conflicts,
            "loadCondition": {"requiresUnits": 50, "availableUnits": 2},
        }.items()
    )
    selected = packet["selected"][-1]
    assert list(selected.items()) == list(
        {"id": "t", **common, "sizeUnits": 1, "content": "x", "conflictsWith": conflicts}.items()
    )
    if isinstance(conflicts, list):
        assert pointer["conflictsWith"] is not request["candidates"][2]["conflictsWith"]
        assert selected["conflictsWith"] is not request["candidates"][3]["conflictsWith"]


# ---------------------------------------------------------------------------
# The command line in process: every stream it may meet, and every line it may print
# ---------------------------------------------------------------------------


class Recorder(io.StringIO):
    """A standard output that remembers how the text was split into writes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[int] = []

    def write(self, text: str) -> int:
        self.writes.append(len(text))
        return super().write(text)


def test_a_large_result_is_written_in_chunks_and_whole():
    """Mutants: the chunked writes of ``_dump`` (the running size, the joiner, ``None`` written):
    a result of about 400 KB is written in pieces of about 64 KiB, escaped and complete."""
    request: Any = demo_request()
    request["budgetUnits"] = 10_000
    request["candidates"] = [
        candidate(f"c{i}", content="a\ud800" + "x" * 1_000, sizeUnits=1) for i in range(400)
    ]
    out, err = Recorder(), io.StringIO()
    assert main(["build", "-"], stdin=io.StringIO(json.dumps(request)), stdout=out, stderr=err) == 0
    expected = json.dumps(build_context_packet(request), ensure_ascii=False, indent=2) + "\n"
    assert out.getvalue() == expected.replace("\ud800", "\\ud800")
    assert len(out.writes) > 5 and max(out.writes) < 2 * 65_536


class FlushFails(io.StringIO):
    def flush(self) -> None:
        raise OSError(28, "No space left on device")


class WriteFails(io.StringIO):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise self.error


@pytest.mark.parametrize(
    ("stdout", "reason"),
    [
        pytest.param(FlushFails(), "No space left on device", id="flush"),
        pytest.param(
            WriteFails(ValueError("I/O operation on closed file.")),
            "I/O operation on closed file.",
            id="value-error",
        ),
        pytest.param(WriteFails(OSError()), "OSError", id="no-words"),
    ],
)
def test_an_output_failure_is_one_line_with_its_reason(stdout, reason):
    """Mutants: the error passed on from ``flush``; ``_reason``'s ``and``/``or`` and the
    fallback to the type's name."""
    err = io.StringIO()
    assert main(["demo"], stdout=stdout, stderr=err) == 74
    assert err.getvalue() == f"harnessbook: cannot write standard output: {reason}\n"


def test_a_closed_standard_output_exits_74(monkeypatch):
    """Mutants: the line and the code when ``sys.stdout`` is ``None`` (``>&-``)."""
    monkeypatch.setattr("sys.stdout", None)
    err = io.StringIO()
    assert main(["demo"], stderr=err) == 74
    assert err.getvalue() == "harnessbook: cannot write standard output: it is closed\n"


def test_a_closed_standard_input_is_reported(monkeypatch):
    """Mutants: the line when ``sys.stdin`` is ``None`` (``<&-``)."""
    monkeypatch.setattr("sys.stdin", None)
    out, err = io.StringIO(), io.StringIO()
    assert main(["build", "-"], stdout=out, stderr=err) == 1
    assert (out.getvalue(), err.getvalue()) == ("", "harnessbook: cannot read standard input: it is closed\n")


def test_without_stream_arguments_the_process_streams_are_used(monkeypatch):
    """Mutants: ``sys.stdin`` or ``sys.stderr`` not used when no stream is given."""
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    assert main(["build", "-"], stdout=io.StringIO()) == 2
    assert err.getvalue().startswith("$.taskAnchor: required key is missing\n")


class Interrupted(io.StringIO):
    def read(self, size: int | None = -1) -> str:
        raise KeyboardInterrupt


def test_ctrl_c_exits_130_without_a_word(monkeypatch):
    """Mutant: the key of the ``interrupted`` exit code changed. As the command (no ``stdout``
    given), which points file descriptor 1 at /dev/null: recorded here, not done."""
    import harnessbook.cli

    done: list[str] = []
    monkeypatch.setattr(harnessbook.cli, "_quiet_stdout", lambda: done.append("quiet"))
    # Ending the process by SIGINT (what the command does next) would end this test's worker.
    monkeypatch.setattr(harnessbook.cli, "_end_by_sigint", lambda: done.append("sigint"))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["build", "-"], stdin=Interrupted(), stderr=err) == 130
    assert (out.getvalue(), err.getvalue(), done) == ("", "", ["quiet", "sigint"])


def test_a_program_that_gives_the_streams_gets_its_ctrl_c_back(monkeypatch):
    """Run inside another program (its streams given), ``main`` leaves Ctrl-C to it and touches
    nothing outside the streams: it returned 130 and pointed the caller's fd 1 at /dev/null."""
    import harnessbook.cli

    monkeypatch.setattr(harnessbook.cli, "_quiet_stdout", lambda: pytest.fail("fd 1 was redirected"))
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        main(["build", "-"], stdin=Interrupted(), stdout=out, stderr=err)
    assert (out.getvalue(), err.getvalue()) == ("", "")


class Endless(io.RawIOBase):
    """An input that never ends (like /dev/zero) and refuses a read without a size."""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        assert size is not None and size >= 0, "read without a limit"
        return b" " * size


class EndlessText(io.StringIO):
    def read(self, size: int | None = -1) -> str:
        assert size is not None and size >= 0, "read without a limit"
        return " " * size


class WithBuffer:
    """A text stream reduced to its ``.buffer``, which is all ``build -`` reads from it."""

    def __init__(self, buffer: io.RawIOBase) -> None:
        self.buffer = buffer


@pytest.mark.parametrize("stdin", [Endless(), EndlessText()], ids=["bytes", "text"])
def test_an_endless_input_is_read_only_to_the_limit(stdin):
    """Mutants: ``read(max_bytes + 1)`` turned into ``read(None)``, ``max_bytes - 1`` or ``+ 2``."""
    if isinstance(stdin, io.RawIOBase):
        stdin = WithBuffer(stdin)
    err = io.StringIO()
    assert main(["build", "-", "--max-bytes", "100"], stdin=stdin, stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == (
        "harnessbook: standard input is larger than 100 bytes, the limit (raise it with --max-bytes)\n"
    )


@pytest.mark.parametrize("buffered", [True, False], ids=["bytes", "text"])
def test_input_of_exactly_the_limit_is_read_whole(buffered):
    """Mutants: the read one byte short of the limit (``max_bytes - 1``)."""
    data = b'{"x": 1}'
    stdin: io.StringIO | io.TextIOWrapper = (
        io.TextIOWrapper(io.BytesIO(data), encoding="utf-8") if buffered else io.StringIO(data.decode())
    )
    err = io.StringIO()
    code = main(["build", "-", "--max-bytes", str(len(data))], stdin=stdin, stdout=io.StringIO(), stderr=err)
    assert (code, err.getvalue().splitlines()[0]) == (
        2,
        "$.x: unknown key (allowed: taskAnchor, budgetUnits, candidates)",
    )


def test_a_lone_surrogate_from_a_text_stream_is_not_utf8():
    """Mutants: the lone surrogate's code point or place, read from a text stream without
    ``.buffer`` (no UTF-8 holds it: named as itself, not as a byte of a re-encoding)."""
    err = io.StringIO()
    assert main(["build", "-"], stdin=io.StringIO('"\udfff"'), stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == (
        "harnessbook: standard input is not UTF-8: a lone surrogate U+DFFF at character 1, which UTF-8 cannot hold\n"
    )


class BrokenInput(io.StringIO):
    def read(self, size: int | None = -1) -> str:
        raise OSError(5, "Input/output error")


def test_an_input_that_cannot_be_read_says_why():
    """Mutants: the reason or the ``cannot read`` of a failing standard input."""
    err = io.StringIO()
    assert main(["build", "-"], stdin=BrokenInput(), stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == "harnessbook: cannot read standard input: Input/output error\n"


def test_a_deeply_nested_input_is_refused_with_its_reason():
    """Mutants: the words for a JSON text nested more than MAX_DEPTH levels deep."""
    err = io.StringIO()
    text = "[" * 100_000 + "]" * 100_000
    assert main(["build", "-"], stdin=io.StringIO(text), stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == "harnessbook: standard input is nested more than 500 levels deep\n"


def test_a_stack_that_runs_out_before_the_limit_is_still_bad_input(monkeypatch):
    """Mutants: the words when Python's stack runs out on a text within MAX_DEPTH (the caller was
    already deep in it), and the check that the text is within it. json.loads raises as it would."""

    def out_of_stack(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(json, "loads", out_of_stack)
    for text, words in [
        ("[" * 50 + "]" * 50, "is nested too deeply to read"),
        ("[" * 501 + "]" * 501, "is nested more than 500 levels deep"),
    ]:
        err = io.StringIO()
        assert main(["build", "-"], stdin=io.StringIO(text), stdout=io.StringIO(), stderr=err) == 1
        assert err.getvalue() == f"harnessbook: standard input {words}\n"


def test_a_repeated_key_that_is_not_the_first_key_is_named():
    """Mutant: ``key in seen`` turned into ``not in`` (the first key named instead)."""
    err = io.StringIO()
    text = '{"a": 1, "b": 1, "b": 2}'
    assert main(["build", "-"], stdin=io.StringIO(text), stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue().startswith("harnessbook: standard input repeats the key $.b:")


def test_a_json_syntax_error_keeps_its_position_for_the_playground():
    """Mutants: the ``position`` the playground shows dropped (``_parse_text`` is its reader)."""
    from harnessbook.cli import _parse_text, _Unreadable

    with pytest.raises(_Unreadable) as caught:
        _parse_text('{\n  "a": }')
    assert caught.value.position == ("Expecting value", 2, 8)


@pytest.mark.parametrize(
    ("value", "error"),
    [("abc", "not a whole number of bytes: 'abc'"), ("0", "must be at least 1, got 0")],
)
def test_a_wrong_max_bytes_is_a_usage_error_that_says_why(wide_terminal, capsys, value, error):
    """Mutants: the words of ``--max-bytes``'s two errors."""
    assert main(["build", "-", "--max-bytes", value]) == 64
    assert (
        capsys.readouterr().err.splitlines()[-1] == f"harnessbook build: error: argument --max-bytes: {error}"
    )


def test_a_max_bytes_of_1_is_allowed():
    """Mutants: ``value < 1`` turned into ``<= 1`` or ``< 2``."""
    err = io.StringIO()
    assert (
        main(["build", "-", "--max-bytes", "1"], stdin=io.StringIO("1"), stdout=io.StringIO(), stderr=err)
        == 2
    )


def test_version(capsys):
    """Mutants: the ``--version`` text dropped."""
    from harnessbook import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"harnessbook {__version__}\n"


@pytest.mark.parametrize(("argv", "lang"), [([], "zh"), (["--lang", "en"], "en")])
def test_build_draws_the_svg_figure_in_process(tmp_path, argv, lang):
    """Mutants: the ``svg`` branch (``build``, ``svg``, the result or the language passed on),
    and the default language ``zh``."""
    from harnessbook.figure import render_svg

    path = tmp_path / "request.json"
    path.write_text(json.dumps(demo_request()), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["build", str(path), "--format", "svg", *argv], stdout=out, stderr=err) == 0
    assert out.getvalue() == render_svg(build_context_packet(demo_request()), lang)
    assert err.getvalue() == ""


# ---------------------------------------------------------------------------
# Which capture times are real, at every boundary
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-07-15", True),
        ("2024-02-29", True),  # a leap year: the year is read from the year's digits
        ("2026-02-30", False),
        ("2026-07-15T23:59:59Z", True),
        ("2026-07-15T24:00:00Z", False),
        ("2026-07-15T23:60:00Z", False),
        ("2026-07-15T23:59:60Z", True),
        ("2026-07-15T23:59:61Z", False),
    ],
)
def test_a_capture_time_is_valid_exactly_when_it_is_a_real_rfc_3339_time(text, valid):
    """Mutants: the year's group, the calendar check, ``hour > 23``, ``minute > 59``,
    ``second > 60`` and the ``or`` between them.

    The cache of short timestamps is emptied first: a result remembered by an earlier test
    would hide a change to the check (and hide from mutmut which tests reach it).
    """
    from harnessbook.context_packet.timestamps import _valid_short_timestamp

    _valid_short_timestamp.cache_clear()
    request = request_with(candidate("failure-output", capturedAt=text))
    if valid:
        validate_request(request)
    else:
        [problem] = problems_of(request)
        assert problem.startswith("$.candidates[0].capturedAt: ")


# ---------------------------------------------------------------------------
# A request of plain JSON values is used as it is; anything else is copied into plain values
# ---------------------------------------------------------------------------


class Text(str):
    pass


class Items(list[str]):
    pass


class Size(int):
    pass


def plain_requests() -> list[Any]:
    with_list = request_with(candidate("failure-output"), summary("s", ["failure-output"]))
    return [demo_request(), with_list]


def foreign_requests() -> list[Any]:
    return [
        request_with(candidate("failure-output", sizeUnits=Size(1))),
        request_with(candidate("failure-output"), summary("s", [Text("failure-output")])),
        request_with(candidate("failure-output"), summary("s", Items(["failure-output"]))),
        {**demo_request(), "taskAnchor": {**demo_request()["taskAnchor"], "goal": Text("g")}},
    ]


@pytest.mark.parametrize("index", range(2))
def test_a_plain_request_is_validated_without_a_copy(index):
    """Mutants: ``_is_plain`` answering ``False`` for plain values (a needless copy)."""
    from harnessbook.context_packet.validation import _validated

    request = plain_requests()[index]
    assert _validated(request) is request


def exact_types(value: object) -> bool:
    if type(value) is dict:
        return all(type(k) is str and exact_types(v) for k, v in value.items())
    if type(value) is list:
        return all(exact_types(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


@pytest.mark.parametrize("index", range(4))
def test_a_request_with_subclass_values_is_copied_into_plain_values(index):
    """Mutants: ``_is_plain`` or ``_plain`` letting a ``str``, ``int`` or ``list`` subclass
    through, in ``taskAnchor``, in a candidate or in ``conflictsWith``."""
    from harnessbook.context_packet.validation import _validated

    request = foreign_requests()[index]
    copy = _validated(request)
    assert copy is not request
    assert copy == request
    assert exact_types(copy)


# ---------------------------------------------------------------------------
# Counting without wording (once the report is full) agrees with the detailed walk
# ---------------------------------------------------------------------------


def without(key: str) -> dict:
    item = candidate("c")
    del item[key]
    return item


COUNTED = [
    5,
    {},
    candidate("c"),
    candidate("c", x=1, y=2),
    without("id"),
    candidate(" "),
    candidate(5),  # type: ignore[arg-type]
    candidate("c", kind="bad"),
    candidate("c", kind=3),
    without("relevance"),
    candidate("c", freshness="x"),
    candidate("c", source=5),
    candidate("c", source=None),
    candidate("c", capturedAt=None),
    candidate("c", capturedAt=5),
    candidate("c", capturedAt=" "),
    candidate("c", capturedAt="2026-02-30"),
    candidate("c", capturedAt="2026-07-15T09:30:00Z"),
    candidate("c", sizeUnits=-1),
    candidate("c", sizeUnits=2**53),
    candidate("c", sizeUnits=True),
    candidate("c", sizeUnits="1"),
    without("sizeUnits"),
    without("content"),
    candidate("c", content=5),
    candidate("c", reference=5),
    candidate("c", reference="r"),
    candidate("c", conflictsWith="a"),
    candidate("c", sizeUnits=-1, conflictsWith="a"),  # a kind without conflicts, after another problem
    candidate("c", kind="history-summary", conflictsWith=5),
    candidate("c", kind="history-summary", sizeUnits=-1, conflictsWith=5),  # counted after another
    candidate("c", kind="history-summary", conflictsWith=["a", "a", 1, " ", "b"]),
    candidate("c", kind="history-summary", conflictsWith="a"),
    candidate("c", kind="history-summary", conflictsWith="aa"),  # one target, not two letters
    candidate("c", sizeUnits=0),
    candidate("c", sizeUnits=2**53 - 1),
    {
        "id": 5,
        "kind": 3,
        "relevance": 3,
        "freshness": 3,
        "source": 5,
        "capturedAt": 5,
        "sizeUnits": -1,
        "content": 5,
        "reference": 5,
        "conflictsWith": [1, 2],
        "x": 1,
    },
    {"id": "c", "source": 5, "capturedAt": 5, "sizeUnits": -1, "content": 5, "reference": 5, "x": 1},
]


@pytest.mark.parametrize("index", range(len(COUNTED)))
def test_counting_a_candidates_problems_agrees_with_wording_them(index):
    """Mutants: any test in ``_candidate_problem_count`` (the count used once 100 problems are
    worded). A fixed set of shapes, one for each branch, instead of the hypothesis test that
    the default suite runs."""
    from harnessbook.context_packet.errors import _Problems
    from harnessbook.context_packet.timestamps import _valid_short_timestamp
    from harnessbook.context_packet.validation import _candidate_problem_count, _check_candidate

    _valid_short_timestamp.cache_clear()
    item = COUNTED[index]
    problems = _Problems()
    _check_candidate(item, "$.candidates[0]", problems)
    assert _candidate_problem_count(item) == problems.total, problems.items


def test_the_largest_exact_size_is_accepted():
    """Mutants: ``size > MAX_UNITS`` turned into ``>=`` in the detailed walk and the fast path."""
    validate_request(request_with(candidate("failure-output", sizeUnits=2**53 - 1)))
    validate_request(request_with(candidate("failure-output", sizeUnits=2**53 - 1), budgetUnits=2**53 - 1))
    # A clean candidate takes the fast path; the detailed walk (any other problem in the same
    # candidate sends it there) must accept the size too.
    from harnessbook.context_packet.errors import _Problems
    from harnessbook.context_packet.validation import _check_candidate

    problems = _Problems()
    _check_candidate(candidate("failure-output", sizeUnits=2**53 - 1), "$.candidates[0]", problems)
    assert problems.total == 0, problems.items


def test_an_error_made_by_hand_without_problems_has_a_total_of_0():
    """Mutant: ``total or 0`` turned into ``total or 1``."""
    assert InvalidRequestError([]).total == 0
    assert InvalidRequestError(["a"]).total == 1


def test_unknown_keys_beyond_the_kept_problems_are_counted_one_each():
    """Mutant: ``_Problems.count``'s default step of 1 (unknown keys counted once 100 are kept)."""
    request = dict(request_with(candidate("failure-output")), **{f"x{n}": n for n in range(150)})
    with pytest.raises(InvalidRequestError) as raised:
        validate_request(request)
    assert raised.value.total == 150
    assert len(raised.value.problems) == 101 and raised.value.problems[-1] == "… and 50 more problems"


class OwnHash(str):
    """A ``str`` subclass that hashes as its own: in a dict it is another key than the string it
    equals, though a plain copy reads it as that string."""

    def __hash__(self) -> int:
        return 7


@pytest.mark.parametrize(
    ("place", "path"),
    [
        ("request", "$.budgetUnits"),
        ("taskAnchor", "$.taskAnchor.goal"),
        ("candidate", "$.candidates[0].sizeUnits"),
    ],
)
@pytest.mark.parametrize("first", [True, False], ids=["subclass-first", "subclass-last"])
def test_a_key_that_reads_as_another_key_of_its_object_is_refused(place, path, first):
    """Two keys that the plain copy reads as the same string: one value would silently win
    (the copy kept the last; at the top, the request was not copied and the subclass's value
    was ignored). Mutants: the repetition test of the copy, the check's wording, the top-level
    key types in the plainness test."""
    request: Any = demo_request()
    target = {"request": request, "taskAnchor": request["taskAnchor"], "candidate": request["candidates"][0]}[
        place
    ]
    key = path.rsplit(".", 1)[1]
    value = target.pop(key)
    pairs = [(OwnHash(key), value), (key, value)]  # the same value: the repetition alone is wrong
    for name, item in pairs if first else reversed(pairs):
        target[name] = item
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(request)
    assert caught.value.problems == (
        f"{path}: repeated key: two keys of this object read as the same string, and only one value can count",
    )


def test_a_lone_str_subclass_key_is_read_as_its_string():
    """Without a repetition, a ``str`` subclass key is the contract's key (as a ``str`` subclass
    value is its string)."""
    request: Any = demo_request()
    request[OwnHash("budgetUnits")] = request.pop("budgetUnits")
    assert build_context_packet(request) == build_context_packet(demo_request())


class AnyCase(str):
    """A ``str`` subclass that equals, and hashes as, every string of the same letters in any
    case: ``AnyCase("ID") == "id"``, though its text is ``ID``."""

    def __hash__(self) -> int:
        return hash(self.lower())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and self.lower() == other.lower()


class ClaimsToBe:
    """An object that is not a string and claims to be one: it hashes and compares as ``text``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return other == self.text

    def __repr__(self) -> str:
        return "ClaimsToBe()"


@pytest.mark.parametrize("valid", [True, False], ids=["otherwise-valid", "with-another-problem"])
@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (AnyCase("ID"), "$.candidates[0].ID: unknown key; did you mean 'id'?"),
        (ClaimsToBe("id"), "$.candidates[0]: key ClaimsToBe() is not a string; JSON object keys are strings"),
    ],
    ids=["str-subclass", "not-a-string"],
)
def test_a_candidate_key_is_read_by_its_text_not_by_what_it_claims(key, problem, valid):
    """A candidate's key that equals and hashes as ``id`` without being the string ``id`` is
    refused, as it is at the top of the request and in ``taskAnchor``, whether or not the
    candidate has another problem. The fast path of a clean candidate tested only that its keys
    were among the contract's, by their own ``__eq__`` and ``__hash__``: a candidate otherwise
    valid was accepted with the key read as ``id``, and refused with it once it had a second
    problem."""
    request: Any = demo_request()
    first = request["candidates"][0]
    first[key] = first.pop("id")
    expected = [problem, "$.candidates[0].id: required key is missing"]
    if not valid:
        first["sizeUnits"] = -1
        expected.append("$.candidates[0].sizeUnits: must be an integer >= 0, got -1 (integer)")
    with pytest.raises(InvalidRequestError) as raised:
        build_context_packet(request)
    assert list(raised.value.problems) == expected


# ---------------------------------------------------------------------------
# A value that is not plain, at each container level the plain copy reaches
# ---------------------------------------------------------------------------
#
# The copy converts what the walk compares: the request's own values, ``taskAnchor`` and its
# values, each candidate and its fields, and the items of ``conflictsWith``. A ``str``, ``int``
# or ``float`` subclass there becomes its plain base, shown as JSON; a ``list`` or ``dict``
# below that is kept as it is when it is exactly a ``list`` or ``dict`` (what it holds is shown
# by its data, a subclass by its name), and a subclass of one is shown from its data with its
# name. Each request below holds one value that is not plain, so that it alone decides
# whether the request is copied.


class Ratio(float):
    pass


class Units(enum.IntEnum):
    EIGHT = 8


class Kind(str, enum.Enum):  # noqa: UP042 - the str-mixin Enum callers still write
    DIRECT = "direct-evidence"


def with_anchor(**changes: object) -> dict:
    return {**demo_request(), "taskAnchor": {**demo_request()["taskAnchor"], **changes}}


NOT_PLAIN_SHOWN = [
    pytest.param(
        lambda: request_with(candidate("a", sizeUnits=Ratio(1.5))),
        "$.candidates[0].sizeUnits: must be an integer >= 0, got 1.5 (number)",
        id="float-subclass-in-a-candidate",
    ),
    pytest.param(
        lambda: request_with(candidate("a"), budgetUnits=Ratio(8.0)),
        "$.budgetUnits: must be an integer greater than 0, got 8.0 (number)",
        id="float-subclass-budget",
    ),
    pytest.param(
        lambda: Items(["g"]),
        '$: a request must be an object, got Items(["g"]) (Python Items)',
        id="request-list-subclass",
    ),
    pytest.param(
        lambda: ["g", Text("h")],
        '$: a request must be an object, got ["g", Text("h")] (array)',
        id="request-list-holding-a-subclass",
    ),
    pytest.param(
        lambda: {**demo_request(), "taskAnchor": Items(["g", Text("h")])},
        '$.taskAnchor: must be an object, got ["g", "h"] (array)',
        id="anchor-list-subclass-copied",
    ),
    pytest.param(
        lambda: with_anchor(goal=Items(["g"])),
        '$.taskAnchor.goal: must be a non-blank string, got Items(["g"]) (Python Items)',
        id="anchor-value-list-subclass",
    ),
    pytest.param(
        lambda: with_anchor(goal=["g", Text("h")]),
        '$.taskAnchor.goal: must be a non-blank string, got ["g", Text("h")] (array)',
        id="anchor-value-list-holding-a-subclass",
    ),
    pytest.param(
        lambda: request_with(Items(["g"])),
        '$.candidates[0]: a candidate must be an object, got Items(["g"]) (Python Items)',
        id="candidate-list-subclass",
    ),
    pytest.param(
        lambda: request_with(["g", Text("h")]),
        '$.candidates[0]: a candidate must be an object, got ["g", Text("h")] (array)',
        id="candidate-list-holding-a-subclass",
    ),
    pytest.param(
        lambda: request_with(candidate("a", content=Items(["g"]))),
        '$.candidates[0].content: must be a string, got Items(["g"]) (Python Items)',
        id="field-list-subclass",
    ),
    pytest.param(
        lambda: request_with(candidate("a", content=["g", Text("h")])),
        '$.candidates[0].content: must be a string, got ["g", Text("h")] (array)',
        id="field-list-holding-a-subclass",
    ),
    pytest.param(
        lambda: request_with(candidate("a"), summary("s", [Items(["g"])])),
        '$.candidates[1].conflictsWith[0]: must be a non-blank candidate id, got Items(["g"]) (Python Items)',
        id="conflict-item-list-subclass",
    ),
    pytest.param(
        lambda: request_with(candidate("a"), summary("s", [["g", Text("h")]])),
        '$.candidates[1].conflictsWith[0]: must be a non-blank candidate id, got ["g", Text("h")] (array)',
        id="conflict-item-list-holding-a-subclass",
    ),
]


@pytest.mark.parametrize(("make", "problem"), NOT_PLAIN_SHOWN)
def test_a_value_that_is_not_plain_is_shown_as_deep_as_the_copy_converts(make, problem):
    """Mutants: ``_plain`` failing on a ``float`` subclass; ``_plain``, ``_plain_request`` and
    ``_plain_candidate`` copying one container level more (a subclass inside shown as its base),
    or failing on a container, at the request, ``taskAnchor``, a candidate, a candidate's field
    and an item of ``conflictsWith``."""
    assert problems_of(make()) == [problem]


ONE_SUBCLASS_VALUE = [
    pytest.param(lambda r: r.update(budgetUnits=Units.EIGHT), id="budget-int-enum"),
    pytest.param(
        lambda r: r["candidates"][0].update(sizeUnits=Size(r["candidates"][0]["sizeUnits"])),
        id="size-int-subclass",
    ),
    pytest.param(lambda r: r["candidates"][0].update(id=Text("failure-output")), id="id-str-subclass"),
    pytest.param(lambda r: r["candidates"][0].update(kind=Kind.DIRECT), id="kind-str-enum"),
    pytest.param(lambda r: r["taskAnchor"].update(goal=Text(r["taskAnchor"]["goal"])), id="anchor-value"),
    pytest.param(
        lambda r: r.update(taskAnchor=collections.OrderedDict(r["taskAnchor"])), id="anchor-ordered-dict"
    ),
    pytest.param(
        lambda r: r["candidates"].__setitem__(0, collections.OrderedDict(r["candidates"][0])),
        id="candidate-ordered-dict",
    ),
    pytest.param(lambda r: r.update(candidates=Items(r["candidates"])), id="candidates-list-subclass"),
]


@pytest.mark.parametrize("change", ONE_SUBCLASS_VALUE)
def test_one_subclass_value_alone_still_gives_a_plain_result(change):
    """Mutants: the plainness test of the budget (an ``IntEnum`` budget kept, and handed back in
    the packet), of a candidate that is not exactly a ``dict``, and the like for each place."""
    request: Any = demo_request()
    change(request)
    result = build_context_packet(request)
    assert exact_types(result)
    assert result == build_context_packet(demo_request())


class Watched(dict[str, object]):
    """A caller's ``dict`` subclass that records which of its own methods run."""

    ran: ClassVar[list[str]] = []

    def get(self, key: str, default: object = None) -> object:
        Watched.ran.append("get")
        return super().get(key, default)

    def __getitem__(self, key: str) -> object:
        Watched.ran.append("__getitem__")
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        Watched.ran.append("__contains__")
        return super().__contains__(key)

    def __iter__(self) -> Any:
        Watched.ran.append("__iter__")
        return super().__iter__()

    def keys(self) -> Any:
        Watched.ran.append("keys")
        return super().keys()

    def items(self) -> Any:
        Watched.ran.append("items")
        return super().items()


@pytest.mark.parametrize("place", ["candidate", "taskAnchor"])
def test_a_dict_subclass_is_read_from_its_data_without_running_its_methods(place):
    """Mutant: ``_is_plain_candidate`` calling a candidate that is not exactly a ``dict``
    plain (the walk then read it with the caller's ``get`` and ``__contains__``)."""
    request: Any = demo_request()
    if place == "candidate":
        request["candidates"][0] = Watched(request["candidates"][0])
    else:
        request["taskAnchor"] = Watched(request["taskAnchor"])
    Watched.ran = []
    result = build_context_packet(request)
    assert Watched.ran == []
    assert result == build_context_packet(demo_request())


@pytest.mark.parametrize("place", ["candidate", "taskAnchor"])
def test_keys_that_all_hash_as_their_own_are_read_as_their_strings(place):
    """Every key of the object a ``str`` subclass that hashes as its own (none of them found by
    a lookup of the plain key): the copy reads each as its string. Mutant: ``_is_plain_candidate``
    taking a ``str`` key, not one of another type, as the sign of an object that is not plain."""
    request: Any = demo_request()
    if place == "candidate":
        request["candidates"][0] = {OwnHash(key): value for key, value in request["candidates"][0].items()}
    else:
        request["taskAnchor"] = {OwnHash(key): value for key, value in request["taskAnchor"].items()}
    assert build_context_packet(request) == build_context_packet(demo_request())


@pytest.mark.parametrize("value", [[Counted()], {"a": Counted()}], ids=["list", "dict"])
def test_a_list_or_dict_kept_by_the_copy_is_shown_only_if_a_problem_shows_it(value):
    """The copy keeps a ``list`` or ``dict`` below the levels it converts as it is: a caller's
    object inside is shown, its ``__repr__`` run, only when a problem shows the value (an
    unknown key's value is never shown). Mutants: ``_plain`` replacing an exact ``list`` or
    ``dict`` with a placeholder that shows it at once."""
    request = {**demo_request(), "budgetUnits": Units.EIGHT, "notes": value}  # the IntEnum: a copy
    Counted.calls = 0
    [problem] = problems_of(request)
    assert problem.startswith("$.notes: unknown key")
    assert Counted.calls == 0


@pytest.mark.parametrize("place", ["taskAnchor", "taskAnchor-dict", "conflictsWith"])
def test_a_huge_shared_value_is_checked_only_as_deep_as_the_walk_compares(place):
    """A list holding one list of 10^6 numbers 1,000 times (10^9 items, by reference), or a dict
    holding one dict of 10^5 keys 10^4 times, as a value of ``taskAnchor`` or an item of
    ``conflictsWith``: the plainness test looks no deeper than the walk compares, and the value is
    refused at once. Mutants: ``_is_plain`` passing a level that never reaches 0 to the items of
    a ``list`` or ``dict`` (every item read: it never ends)."""
    huge: object = [list(range(10**6))] * 1000
    shown, kind = "[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1...", "array"
    path, what = "$.taskAnchor.goal", "must be a non-blank string"
    if place == "taskAnchor-dict":
        inner = {str(n): n for n in range(10**5)}
        huge = {str(n): inner for n in range(10**4)}
        kind = "object"
        shown = '{"0": {"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6...'
    if place == "conflictsWith":
        request: Any = request_with(candidate("a"), summary("s", [huge]))
        path, what = "$.candidates[1].conflictsWith[0]", "must be a non-blank candidate id"
    else:
        request = with_anchor(goal=huge)
    assert problems_of(request) == [f"{path}: {what}, got {shown} ({kind})"]
