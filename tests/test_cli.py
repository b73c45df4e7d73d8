"""The ``harnessbook`` command line: demo, build FILE|-, schema, and its exit codes.

Most tests call ``harnessbook.cli.main`` in process with explicit streams; a few run the
real console script and ``python -m harnessbook`` in a subprocess.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import gc
import io
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harnessbook import build_context_packet, demo_request, load_schema
from harnessbook.cli import EXIT_CODES, main

DEMO_OUTPUT = """\
{
  "state": "ready",
  "phase": "assembled",
  "packet": {
    "taskAnchor": {
      "goal": "定位单一测试失败",
      "stopCondition": "缺少可追溯的直接证据时停止",
      "verificationTarget": "注入的测试名称"
    },
    "selected": [
      {
        "id": "failure-output",
        "kind": "direct-evidence",
        "source": "injected:test-output",
        "capturedAt": "2026-07-15",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": 3,
        "content": "断言失败摘要"
      }
    ],
    "pointers": [
      {
        "id": "large-ci-log",
        "kind": "direct-evidence",
        "source": "injected:ci-log",
        "capturedAt": "2026-07-15",
        "relevance": "background",
        "freshness": "fresh",
        "sizeUnits": 40,
        "reference": "artifact://ci/large-ci-log.txt",
        "loadCondition": {
          "requiresUnits": 40,
          "availableUnits": 5
        }
      }
    ],
    "usedBudgetUnits": 3,
    "budgetUnits": 8
  },
  "excluded": [],
  "unknowns": [],
  "refresh": [],
  "evidence": [
    {
      "id": "failure-output",
      "kind": "direct-evidence",
      "decision": "selected",
      "rule": "budget_fit",
      "sizeUnits": 3,
      "remainingBefore": 8,
      "remainingAfter": 5
    },
    {
      "id": "large-ci-log",
      "kind": "direct-evidence",
      "decision": "pointer",
      "rule": "pointer",
      "sizeUnits": 40,
      "remainingBefore": 5,
      "remainingAfter": 5
    }
  ]
}
"""


def run(argv: list[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run the CLI in process; stdin is given as bytes, like a real pipe."""
    out, err = io.StringIO(), io.StringIO()
    inp = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    code = main(argv, stdin=inp, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def pretty(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def refresh_request() -> Any:
    request: Any = demo_request()
    request["candidates"][0]["freshness"] = "expired"
    return request


def blocked_request() -> Any:
    request: Any = demo_request()
    request["candidates"][1]["capturedAt"] = None
    return request


def invalid_request() -> Any:
    request: Any = demo_request()
    request["budgetUnits"] = 0
    request["candidates"][0]["kind"] = "evidence"
    request["candidates"][1]["sizeUnit"] = 1
    return request


# ---------------------------------------------------------------------------
# demo and schema
# ---------------------------------------------------------------------------


def test_demo_prints_exactly_the_demo_packet():
    assert run(["demo"]) == (0, DEMO_OUTPUT, "")
    assert json.loads(DEMO_OUTPUT) == build_context_packet(demo_request())


@pytest.mark.parametrize("name", ["request", "result"])
def test_schema_prints_the_packaged_schema(name):
    code, out, err = run(["schema", name])
    assert (code, err) == (0, "")
    assert out == pretty(load_schema(name))
    assert json.loads(out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# main() writes to the streams it is given, argparse's messages too; capsys (the real
# sys.stdout and sys.stderr) must see nothing.


def test_unknown_schema_name_is_a_usage_error(capsys):
    code, out, err = run(["schema", "packet"])
    assert code == EXIT_CODES["usage"] == 64
    assert out == ""
    assert "no schema is named 'packet'" in err
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("argv", [[], ["bogus"], ["build"], ["build", "a", "b"], ["demo", "extra"]])
def test_bad_command_lines_exit_64(argv, capsys):
    # A usage error is not an invalid request (2): argparse's 2 becomes 64, EX_USAGE.
    code, out, err = run(argv)
    assert (code, out) == (64, "")
    assert err.startswith("usage: harnessbook") and "\nharnessbook" in err and err.endswith("\n"), err
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("argv", [["--help"], ["build", "--help"], ["--version"]])
def test_help_and_version_go_to_the_given_standard_output(argv, capsys):
    code, out, err = run(argv)
    assert (code, err) == (0, "")
    assert (
        ("exit codes" in out)
        if argv == ["--help"]
        else out.startswith(("usage: harnessbook build", "harnessbook "))
    )
    assert capsys.readouterr() == ("", "")


def test_help_is_never_coloured():
    """Python 3.14's argparse colours help and usage when ``sys.stdout`` is a terminal, even for
    text written to another stream (``main(stdout=...)``, a file): every parser of the command
    line turns it off. (The attribute exists from 3.14; this checks the parsers set it.)"""
    from harnessbook.cli import _parser

    parser = _parser(io.StringIO(), io.StringIO())
    subparsers = next(action for action in parser._actions if action.choices and action.dest == "command")
    assert isinstance(subparsers.choices, dict)
    for each in (parser, *subparsers.choices.values()):
        assert each.color is False


class _Full(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_a_usage_error_exits_64_even_when_standard_error_cannot_be_written():
    """A failed write of the usage message is not a failed standard output (74), nor a reader
    that left early (0): the exit code still says usage error."""
    for error in (_Full(), io.StringIO()):
        if not isinstance(error, _Full):
            error.close()  # ValueError: I/O operation on closed file
        assert main(["bogus"], stdin=io.StringIO(), stdout=io.StringIO(), stderr=error) == 64
        assert main(["schema", "packet"], stdin=io.StringIO(), stdout=io.StringIO(), stderr=error) == 64


def test_a_refused_input_keeps_its_code_with_standard_output_closed(tmp_path, monkeypatch):
    """Nothing would be written for it, so a closed standard output changes nothing: the
    missing file is still reported (1), and the invalid request (2)."""
    monkeypatch.setattr(sys, "stdout", None)
    err = io.StringIO()
    assert main(["build", str(tmp_path / "missing.json")], stderr=err) == 1
    assert err.getvalue().startswith("harnessbook: cannot read ")
    (tmp_path / "invalid.json").write_text("{}", encoding="utf-8")
    assert main(["build", str(tmp_path / "invalid.json")], stderr=io.StringIO()) == 2
    err = io.StringIO()
    assert main(["demo"], stderr=err) == 74
    assert err.getvalue() == "harnessbook: cannot write standard output: it is closed\n"


# ---------------------------------------------------------------------------
# build FILE and build -
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_factory", "code", "state"),
    [
        (demo_request, 0, "ready"),
        (refresh_request, 3, "refresh_required"),
        (blocked_request, 4, "blocked"),
    ],
)
def test_build_file_prints_the_result_and_exits_by_state(tmp_path, request_factory, code, state):
    request = request_factory()
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    result = build_context_packet(request)
    assert result["state"] == state
    assert run(["build", str(path)]) == (code, pretty(result), "")
    assert EXIT_CODES[state] == code


def test_build_from_stdin(tmp_path):
    data = json.dumps(refresh_request(), ensure_ascii=False).encode("utf-8")
    assert run(["build", "-"], stdin=data) == (3, pretty(build_context_packet(refresh_request())), "")


def test_build_output_is_utf8_not_escaped(tmp_path):
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(demo_request(), ensure_ascii=True), encoding="utf-8")  # escaped input
    code, out, _ = run(["build", str(path)])
    assert code == 0
    assert "定位单一测试失败" in out
    assert "\\u" not in out
    assert out == DEMO_OUTPUT


def test_build_accepts_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(demo_request()).encode("utf-8"))
    assert run(["build", str(path)]) == (0, DEMO_OUTPUT, "")


def test_invalid_request_exits_2_with_one_problem_a_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(invalid_request()), encoding="utf-8")
    code, out, err = run(["build", str(path)])
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "$.budgetUnits: must be an integer greater than 0, got 0 (integer)",
        "$.candidates[0].kind: must be one of constraint, direct-evidence, history-summary, reference; "
        'got "evidence" (string)',
        "$.candidates[1].sizeUnit: unknown key (it resembles 'sizeUnits', which this object already has)",
    ]
    assert err.endswith("\n")


@pytest.mark.parametrize("text", ["[]", "null", "3", '"request"', "{}"])
def test_valid_json_that_is_not_a_request_exits_2(text):
    code, out, err = run(["build", "-"], stdin=text.encode())
    assert (code, out) == (2, "")
    assert err.startswith("$")


# ---------------------------------------------------------------------------
# Unreadable input: exit 1
# ---------------------------------------------------------------------------


def test_missing_file_exits_1(tmp_path):
    code, out, err = run(["build", str(tmp_path / "nope.json")])
    assert (code, out) == (1, "")
    assert err.startswith("harnessbook: cannot read")
    assert "nope.json" in err


def test_directory_exits_1(tmp_path):
    code, out, err = run(["build", str(tmp_path)])
    assert (code, out) == (1, "")
    assert "cannot read" in err


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"{", id="truncated"),
        pytest.param(b"{'a': 1}", id="single-quotes"),
        pytest.param(b'{"a": 1,}', id="trailing-comma"),
        pytest.param(b"{} {}", id="two-values"),
        pytest.param(b"undefined", id="not-json"),
    ],
)
def test_bad_json_exits_1(tmp_path, data):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    for argv, stdin in ((["build", str(path)], None), (["build", "-"], data)):
        code, out, err = run(argv, stdin)
        assert (code, out) == (1, "")
        assert "is not JSON" in err
        assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'{"a": 1,}', "object (line 1, column 8)"),
        (b'{"a": 1 ,\n\t}', "object (line 1, column 9)"),
        (b"[1, ]", "array (line 1, column 3)"),
        (b'{"a": [[1,], 2]}', "array (line 1, column 10)"),
    ],
)
def test_a_trailing_comma_is_named_alike_on_every_python_version(data, said):
    """Python 3.13's json names a trailing comma, on the comma; 3.11 and 3.12 said a name or a
    value was expected, on the bracket after it. The command says it as 3.13 does everywhere:
    the same input gets the same words on every supported version, the playground's too."""
    assert run(["build", "-"], data) == (
        1,
        "",
        f"harnessbook: standard input is not JSON: Illegal trailing comma before end of {said}\n",
    )


@pytest.mark.parametrize(
    ("data", "said"),
    [
        pytest.param(b'{"a":]', "line 1, column 6", id="after-a-colon"),
        pytest.param(b"],", "line 1, column 1", id="first-with-a-comma-last"),
        pytest.param(b" \n]", "line 2, column 1", id="after-white-space-only"),
    ],
)
def test_a_bracket_after_no_comma_keeps_the_words_of_json(data, said):
    """Only a comma before the bracket is a trailing comma: a bracket after anything else, or
    after nothing but white space, is reported as json reports it (a mutant that tested
    ``and`` for ``or`` called ``{"a":]`` a trailing comma)."""
    assert run(["build", "-"], data) == (
        1,
        "",
        f"harnessbook: standard input is not JSON: Expecting value ({said})\n",
    )


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b'{"goal": "\xff"}', id="invalid-byte"),
        pytest.param('{"goal": "定位"}'.encode("gbk"), id="gbk"),
        pytest.param('{"goal": "x"}'.encode("utf-16"), id="utf-16"),
    ],
)
def test_non_utf8_input_exits_1(tmp_path, data):
    path = tmp_path / "latin.json"
    path.write_bytes(data)
    for argv, stdin in ((["build", str(path)], None), (["build", "-"], data)):
        code, out, err = run(argv, stdin)
        assert (code, out) == (1, "")
        assert "is not UTF-8" in err


@pytest.mark.parametrize(
    ("data", "where"),
    [
        # The object with the repeat was itself dropped, by a repeat of the key that held it.
        pytest.param(
            b'{"candidates": [{"x": {"y": 1, "y": 2}}], "candidates": []}', "$.candidates", id="dropped"
        ),
        pytest.param(b'{"a": 1, "a": 2, "b": {"c": 1, "c": 2}}', "$.a", id="outer-first"),
        pytest.param(b'{"b": {"c": 1, "c": 2}, "a": 1}', "$.b.c", id="inner"),
        pytest.param(b'[{"k": [{"z": 1, "z": 1}]}]', "$[0].k[0].z", id="in-lists"),
    ],
)
def test_a_repeated_key_is_named_by_its_path_wherever_it_is(data, where):
    code, out, err = run(["build", "-"], stdin=data)
    assert (code, out) == (1, "")
    assert err == (
        f"harnessbook: standard input repeats the key {where}: JSON readers disagree on which "
        "value counts, so it is refused\n"
    )


def test_a_max_bytes_far_above_the_input_reserves_nothing(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(demo_request()), encoding="utf-8")
    expected = run(["build", str(path)])
    for limit in ("9223372036854775807", str(10**30), "100000000000"):
        for argv, stdin in (
            (["build", "--max-bytes", limit, str(path)], None),
            (["build", "--max-bytes", limit, "-"], path.read_bytes()),
        ):
            assert run(argv, stdin) == expected, limit


def test_read_at_most_stops_at_its_limit_in_pieces():
    from harnessbook.cli import _READ_CHUNK, _read_at_most

    sizes = []

    def read(n: int) -> bytes:
        sizes.append(n)
        return b"x" * n

    assert b"".join(_read_at_most(read, 2 * _READ_CHUNK + 5)) == b"x" * (2 * _READ_CHUNK + 5)
    assert sizes == [_READ_CHUNK, _READ_CHUNK, 5]
    assert _read_at_most(io.BytesIO(b"abc").read, 10**30) == [b"abc"]


def test_a_byte_order_mark_counts_in_the_byte_position():
    code, _, err = run(["build", "-"], stdin=b'\xef\xbb\xbf{"a":"\xff"}')
    assert (code, err) == (1, "harnessbook: standard input is not UTF-8: invalid start byte at byte 9\n")
    code, _, err = run(["build", "-"], stdin=b'{"a":"\xff"}')
    assert (code, err) == (1, "harnessbook: standard input is not UTF-8: invalid start byte at byte 6\n")
    code, _, err = run(["build", "-"], stdin=b"\xef\xbb\xbf\xef\xbb\xbf{}")
    assert (code, err) == (
        1,
        "harnessbook: standard input is not JSON: a byte-order mark (U+FEFF) before the JSON text (line 1, column 1)\n",
    )


def test_deeply_nested_json_is_an_invalid_request_or_unreadable_input():
    # Up to MAX_DEPTH (500) levels it is read, and is a request of the wrong type (2); deeper, it
    # is refused as unreadable input (1), whether or not Python could read it, and whatever else
    # the text holds. Either way one line, and nothing on standard output.
    code, out, err = run(["build", "-"], stdin=b"[" * 500 + b"]" * 500)
    assert (code, out) == (2, "")
    assert err.startswith("$: a request must be an object, got [[[[") and err.count("\n") == 1
    too_deep = "harnessbook: standard input is nested more than 500 levels deep\n"
    for text in (
        b"[" * 501 + b"]" * 501,  # read by Python, refused by the builder: the depth is the reason
        b"[" * 100_000 + b"]" * 100_000,  # too deep for Python's json
        b"[" * 501 + b"x",  # not JSON either
        b'{"a": NaN, "b": ' + b"[" * 501 + b"]" * 501 + b"}",  # a refused value before it
        b'{"a": 1, "a": ' + b"[" * 501 + b"]" * 501 + b"}",  # a repeated key
        b'{"candidates": [{"id": "x"}], "z": ' + b"[" * 600 + b"]" * 600 + b"}",
    ):
        assert run(["build", "-"], stdin=text) == (1, "", too_deep), text[:40]
    # Brackets inside strings are not nesting.
    code, _, err = run(["build", "-"], stdin=b'{"a": "' + b"[" * 600 + b'"}')
    assert code == 2 and err.startswith("$.a: unknown key") and "nested" not in err


def test_integer_too_long_to_read_exits_1():
    # Python refuses to convert integers with more than 4300 digits (a ValueError that is
    # not a JSONDecodeError); the CLI must still report unreadable input, not crash.
    data = b'{"budgetUnits": ' + b"1" * 5000 + b"}"
    code, out, err = run(["build", "-"], stdin=data)
    assert (code, out) == (1, "")
    # In the reader's terms: no Python setting to raise (the playground has none either).
    assert (
        err
        == "harnessbook: standard input has an integer with more than 4300 digits at $.budgetUnits, too long to read\n"
    )


# ---------------------------------------------------------------------------
# The real console script and python -m harnessbook
# ---------------------------------------------------------------------------

SCRIPT = Path(sys.executable).with_name("harnessbook")


def subprocess_env() -> dict[str, str]:
    # An ASCII-only locale: the CLI must still print UTF-8, not escapes and not an error.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LC_", "PYTHON"))}
    env.update(LANG="C", LC_ALL="C", PYTHONIOENCODING="ascii")
    return env


def test_console_script_demo():
    assert SCRIPT.exists(), f"console script not installed at {SCRIPT}"
    completed = subprocess.run([str(SCRIPT), "demo"], capture_output=True, env=subprocess_env(), timeout=60)
    assert completed.returncode == 0, completed.stderr.decode(errors="replace")
    assert completed.stdout.decode("utf-8") == DEMO_OUTPUT
    assert completed.stderr == b""


def test_python_dash_m_build_stdin_and_exit_codes(tmp_path):
    def python_m(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "harnessbook", *args],
            input=stdin,
            capture_output=True,
            env=subprocess_env(),
            timeout=60,
        )

    blocked = python_m("build", "-", stdin=json.dumps(blocked_request(), ensure_ascii=False).encode("utf-8"))
    assert blocked.returncode == 4
    assert blocked.stdout.decode("utf-8") == pretty(build_context_packet(blocked_request()))

    invalid = python_m("build", "-", stdin=json.dumps(invalid_request()).encode())
    assert invalid.returncode == 2
    assert invalid.stdout == b""
    assert len(invalid.stderr.decode().splitlines()) == 3

    unreadable = python_m("build", "-", stdin=b"\xff\xfe{")
    assert unreadable.returncode == 1
    assert b"Traceback" not in unreadable.stderr

    too_long = python_m("build", "-", stdin=b"1" * 5000)
    assert too_long.returncode == 1
    assert b"Traceback" not in too_long.stderr

    # JSON may escape a lone surrogate; the result still prints, as valid JSON, not a crash.
    request = demo_request()
    request["candidates"][0]["content"] = "\ud800"
    lone = python_m("build", "-", stdin=json.dumps(request).encode("ascii"))
    assert lone.returncode == 0, lone.stderr.decode(errors="replace")
    assert json.loads(lone.stdout.decode("utf-8")) == build_context_packet(request)
    assert "断言失败摘要" not in lone.stdout.decode("utf-8")  # that content was replaced
    assert "定位单一测试失败" in lone.stdout.decode("utf-8")  # other text stays unescaped

    schema = python_m("schema", "result")
    assert schema.returncode == 0
    assert json.loads(schema.stdout) == load_schema("result")


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    # `harnessbook build big.json | head -1`: the output is far larger than a pipe's buffer, so
    # the writer is certainly still writing when the reader closes its end.
    candidates = [
        {
            "id": f"c{i}",
            "kind": "reference",
            "source": "s",
            "capturedAt": "2026-07-15",
            "relevance": "background",
            "freshness": "fresh",
            "sizeUnits": 1,
            "content": "x" * 200,
        }
        for i in range(2000)
    ]
    request = {**demo_request(), "candidates": candidates, "budgetUnits": 5000}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "harnessbook", "build", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(16)
    process.stdout.close()
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert stderr == b""
    # Not a failure: the exit code is still the verdict (ready), whoever stopped reading.
    assert process.returncode == EXIT_CODES["ready"] == 0


@pytest.mark.parametrize("option", ["--help", "--version"])
def test_help_with_standard_output_closed_in_process(monkeypatch, option):
    # As `harnessbook --help >&-`, in this process (the subprocess tests do not run mutants).
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", None)
    assert main([option], stderr=err) == 74
    assert err.getvalue() == "harnessbook: cannot write standard output: it is closed\n"


def test_a_usage_error_with_standard_error_closed_in_process(monkeypatch):
    # As `harnessbook schema packet 2>&-`: 64, and nothing moved to standard output.
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", None)
    assert main(["schema", "packet"], stdout=out) == 64
    assert out.getvalue() == ""


def test_the_process_standard_error_is_made_utf8_that_escapes_what_it_cannot_encode(monkeypatch):
    """With the process's own standard output (no ``stdout`` given), its standard error is set to
    UTF-8 with ``backslashreplace``: a strict one would drop a message quoting a lone surrogate."""
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))
    assert main(["demo"]) == 0
    assert out.getvalue() == run(["demo"])[1]
    assert (codecs.lookup(sys.stderr.encoding).name, sys.stderr.errors) == ("utf-8", "backslashreplace")


def test_a_caller_that_gives_standard_output_keeps_its_standard_error_as_it_is(monkeypatch):
    """``main(argv, stdout=...)`` from a program: the process's standard error is the program's,
    and is left as it is (a mutant that reconfigured it whenever it could passed)."""
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))
    assert main(["demo"], stdout=io.StringIO()) == 0
    assert (sys.stderr.encoding, sys.stderr.errors) == ("latin-1", "strict")


def test_the_process_output_with_standard_error_closed_in_process(monkeypatch):
    # As `harnessbook demo 2>&-`: the packet is written all the same, and nothing is raised.
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", None)
    assert main(["demo"]) == 0
    assert out.getvalue() == run(["demo"])[1]


@pytest.mark.parametrize("name", ["packet", "", [], None, 3, ("request",)])
def test_load_schema_refuses_anything_but_a_schema_name_with_a_value_error(name):
    with pytest.raises(ValueError, match=r"unknown schema .*expected one of: error, request, result$"):
        load_schema(name)


@pytest.mark.parametrize("name", ["request", "result", "error"])
def test_load_schema_gives_a_fresh_dict_that_a_caller_may_change(name):
    """Its docstring: a fresh dict, read afresh, so changing it changes nothing else."""
    first = load_schema(name)
    title = first["title"]
    first["title"] = "changed"
    first["$defs"].clear()
    again = load_schema(name)
    assert again is not first and again["title"] == title and again["$defs"]


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("__repr__")


@pytest.mark.parametrize(
    ("name", "shown"),
    [(_BadRepr(), "<Python _BadRepr that cannot be shown>"), ("x" * 10**6, "'" + "x" * 56 + "...")],
)
def test_load_schema_shows_a_wrong_name_short_and_never_raises_anything_else(name, shown):
    # The name is a caller's value: shown as the builder shows one, cut, and never by a repr
    # that raises in place of the ValueError.
    with pytest.raises(ValueError, match=r"^unknown schema ") as caught:
        load_schema(name)
    assert str(caught.value) == f"unknown schema {shown}; expected one of: error, request, result"


def test_a_number_too_small_to_read_is_refused_as_written():
    """1e-400 would read as 0.0, a value the reader never wrote (as 1e400 would read as inf)."""
    code, out, err = run(["build", "-"], stdin=b'{"budgetUnits": 1e-400}')
    assert (code, out) == (1, "")
    assert (
        err
        == "harnessbook: standard input has the number 1e-400 at $.budgetUnits, too small for a float (it would read as 0)\n"
    )
    code, _, err = run(["build", "-"], stdin=b'{"budgetUnits": 0.0e-400}')  # written as zero: read
    assert code == 2 and "got 0.0 (number)" in err


def test_a_max_bytes_of_any_number_of_digits_is_no_upper_bound():
    """--max-bytes has no upper bound: a number past what Python converts (4,300 digits, or
    what PYTHONINTMAXSTRDIGITS says) is as good as no limit, not a usage error."""
    request = json.dumps(demo_request()).encode()
    for limit in ("9" * 5000, "0" * 4999 + "9" * 300, str(2**64)):
        code, out, err = run(["build", "--max-bytes", limit, "-"], stdin=request)
        assert (code, err) == (0, ""), limit
        assert json.loads(out) == build_context_packet(demo_request())


def test_characters_that_reorder_or_break_a_line_are_printed_escaped():
    """A bidi override in an id would reorder the rest of its line in a terminal, and U+2028 would
    break it: printed as escapes, the same JSON value."""
    request = demo_request()
    request["candidates"][0]["id"] = "\u202eevil\u2066x\u2069"
    request["candidates"][0]["content"] = "a\u2028b"  # selected: its content is copied
    code, out, err = run(["build", "-"], json.dumps(request).encode())
    assert (code, err) == (0, "")
    assert json.loads(out) == build_context_packet(request)
    assert "\\u202eevil\\u2066x\\u2069" in out and "a\\u2028b" in out
    assert not any(char in out for char in "\u202e\u2066\u2069\u2028")
    assert "定位单一测试失败" in out  # other text stays unescaped


# --------------------------------------------------------------------------- a user's second look


def test_c1_controls_and_del_are_escaped_in_the_output():
    """U+0085 NEXT LINE breaks a line (str.splitlines, many terminals) and U+009B starts a
    terminal escape sequence: written raw, an id split the output's line in two."""
    request: Any = demo_request()
    request["candidates"][0]["id"] = "scope\u0085rule\u009b31m\u007f"
    code, out, _ = run(["build", "-"], json.dumps(request).encode())
    assert code == 0
    assert '"id": "scope\\u0085rule\\u009b31m\\u007f"' in out
    assert len(out.splitlines()) == out.count("\n")
    assert json.loads(out) == build_context_packet(request)  # the same JSON value


@pytest.mark.parametrize(
    ("stdin", "said"),
    [
        (b"", "is empty"),
        (b"\xef\xbb\xbf", "is empty"),  # a byte-order mark alone
        (b" \r\n\t\n", "holds only white space"),
        # A second byte-order mark is no white space: named as in front of a JSON text.
        (
            b"\xef\xbb\xbf\xef\xbb\xbf",
            "is not JSON: a byte-order mark (U+FEFF) before the JSON text (line 1, column 1)",
        ),
        (
            b"\xef\xbb\xbf\xef\xbb\xbf \n",
            "is not JSON: a byte-order mark (U+FEFF) before the JSON text (line 1, column 1)",
        ),
    ],
)
def test_an_empty_input_is_called_empty(stdin, said):
    assert run(["build", "-"], stdin) == (1, "", f"harnessbook: standard input {said}\n")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_utf16_and_utf32_input_is_named(codec):
    """The UTF-16 little-endian mark is how the UTF-32 one starts: UTF-32 was called UTF-16."""
    data = '{"budgetUnits": 8}'.encode(codec)
    if codec.endswith("-be"):
        data = ("\ufeff" + '{"budgetUnits": 8}').encode(codec)
    name = "UTF-32" if "32" in codec else "UTF-16"
    assert run(["build", "-"], data) == (
        1,
        "",
        f"harnessbook: standard input is not UTF-8: it starts with a {name} byte-order mark (save it as UTF-8)\n",
    )


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("no\nsuch\x1b[31m.json", "no\\u000asuch\\u001b[31m.json"),
        ("", '""'),
        (" padded.json ", '" padded.json "'),
        (" a\nb\\c", '" a\\u000ab\\c"'),  # quoted, and escaped once
        ("x" * 200, "x" * 117 + "..."),
    ],
)
def test_a_file_name_is_shown_on_one_line(tmp_path, monkeypatch, name, shown):
    monkeypatch.chdir(tmp_path)
    assert run(["build", name]) == (1, "", f"harnessbook: cannot read {shown}: No such file or directory\n")


def test_lang_without_svg_is_a_usage_error():
    code, out, err = run(["build", "--lang", "en", "-"], json.dumps(demo_request()).encode())
    assert (code, out) == (64, "")
    assert err.endswith("harnessbook build: error: --lang is the figure's language: it needs --format svg\n")
    code, out, _ = run(["build", "--format", "svg", "--lang", "en", "-"], json.dumps(demo_request()).encode())
    assert code == 0 and 'lang="en"' in out
    code, out, _ = run(["build", "--format", "svg", "-"], json.dumps(demo_request()).encode())
    assert code == 0 and 'lang="zh"' in out  # the default language


@pytest.mark.parametrize("text", ["5_000", " 5000", "5000 ", "\u0665\u0660\u0660\u0660", "+5000", "5e3"])
def test_max_bytes_takes_ascii_digits_only(text):
    code, out, err = run(["build", "--max-bytes", text, "-"], b"{}")
    assert (code, out) == (64, "")
    assert err.endswith(f"argument --max-bytes: not a whole number of bytes: {text!r}\n")


def test_a_wrong_schema_name_is_refused_in_the_package_s_words():
    """argparse's own words for a wrong choice change between Python releases (quoted or not);
    the CLI page shows this message, so it must not."""
    code, out, err = run(["schema", "packet"])
    assert (code, out) == (64, "")
    assert err == (
        "usage: harnessbook schema [-h] {error,request,result}\n"
        "harnessbook schema: error: argument name: no schema is named 'packet' "
        "(choose from error, request, result)\n"
    )


def test_the_command_writes_standard_error_as_utf8(monkeypatch):
    """As the command (no streams given), problems quote the request's text as written, not as
    Python's backslash escapes that look like JSON's."""
    import harnessbook.cli

    raw_err = io.BytesIO()
    err = io.TextIOWrapper(raw_err, encoding="ascii", errors="backslashreplace")
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    monkeypatch.setattr(
        "sys.stdin", io.TextIOWrapper(io.BytesIO('{"taskAnchor": "八"}'.encode()), encoding="utf-8")
    )
    monkeypatch.setattr(harnessbook.cli, "_quiet_stdout", lambda: None)
    assert main(["build", "-"]) == 2
    err.flush()
    assert '$.taskAnchor: must be an object, got "八" (string)' in raw_err.getvalue().decode("utf-8")


def test_the_tables_the_package_reads_are_read_only():
    """The builder is pure: no caller can change what a later call does through a module table."""
    from harnessbook.context_packet import TIERS
    from harnessbook.figure import LIGHT_COLOURS
    from harnessbook.schemas import SCHEMA_FILES

    for table in (TIERS, EXIT_CODES, SCHEMA_FILES, LIGHT_COLOURS):
        with pytest.raises(TypeError):
            table["constraint"] = 5  # type: ignore[index]
    assert TIERS == {"constraint": 1, "direct-evidence": 1, "history-summary": 2, "reference": 3}


def test_the_read_only_tables_are_refused_by_json_deepcopy_and_pickle():
    """What their docstrings on the API page warn a caller of: ``json.dumps``, ``copy.deepcopy``
    and ``pickle`` refuse a read-only mapping, and ``dict(...)`` makes a copy that they take."""
    import copy
    import pickle

    from harnessbook.context_packet import TIERS
    from harnessbook.figure import LIGHT_COLOURS
    from harnessbook.schemas import SCHEMA_FILES

    for table in (TIERS, EXIT_CODES, SCHEMA_FILES, LIGHT_COLOURS):
        for refuses in (json.dumps, copy.deepcopy, pickle.dumps):
            with pytest.raises(TypeError):
                refuses(table)
        plain = dict(table)
        assert type(plain) is dict and plain == table
        assert json.loads(json.dumps(plain)) == plain == copy.deepcopy(plain)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["demo", b"\xff"], "harnessbook: error: unrecognized arguments: \\xff"),
        (
            ["schema", b"\xff"],
            "argument name: no schema is named '\\xff' (choose from error, request, result)",
        ),
        (
            ["schema", b"a\\\xff"],
            "argument name: no schema is named 'a\\\\\\xff' (choose from error, request, result)",
        ),
        (
            ["schema", b"\\udcff"],
            "argument name: no schema is named '\\\\udcff' (choose from error, request, result)",
        ),
        (
            ["build", "--max-bytes", b"\xff", "-"],
            "argument --max-bytes: not a whole number of bytes: '\\xff'",
        ),
        (
            ["build", "--format", b"\xfe", "-"],
            "argument --format: invalid choice: '\\xfe' (choose from json, svg)",
        ),
        (  # cut to its width between two bytes, not inside one (it ended in '\xf...)
            ["build", "--max-bytes", b"\xff" * 30, "-"],
            "argument --max-bytes: not a whole number of bytes: '" + "\\xff" * 9 + "...",
        ),
    ],
)
def test_a_usage_error_shows_an_argument_that_is_not_utf8_by_its_bytes(argv, said):
    """An argument of bytes that are not UTF-8 reaches Python as lone surrogates (POSIX): a usage
    error quoting one is still said (reconfigure() made standard error strict, and argparse's
    message was dropped), and shows the bytes as they are (\\xff), as a file name's are, not
    as the surrogate no one typed (\\udcff). A typed backslash stays a backslash."""
    args = [os.fsdecode(a) if isinstance(a, bytes) else a for a in argv]
    done = subprocess.run([sys.executable, "-m", "harnessbook", *args], capture_output=True, check=False)
    assert done.returncode == 64
    assert done.stderr.decode("utf-8").splitlines()[-1].endswith(said)


# --------------------------------------------------------------------------- found by an adversarial review


def test_an_unrecognized_argument_is_quoted_on_one_line_in_order():
    """argparse quotes a wrong argument as it is: an escape sequence, a line break or a bidi
    override in it would colour the terminal, split the message or reverse what follows."""
    code, out, err = run(["demo", "\x1b[31mRED\nsecond\u202eX"])
    assert code == EXIT_CODES["usage"] and out == ""
    usage, message = err.splitlines()
    assert usage.startswith("usage: harnessbook")
    assert message == "harnessbook: error: unrecognized arguments: \\u001b[31mRED\\u000asecond\\u202eX", (
        message
    )


@pytest.mark.parametrize("where", ["parse", "build"])
def test_running_out_of_memory_is_said_in_one_line(monkeypatch, where):
    """An input far below --max-bytes can still not fit in memory once parsed (about 3 million
    empty arrays under ``ulimit -v 200000``) or built: one line and exit 1, not a traceback."""
    import harnessbook.cli as cli

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    if where == "parse":
        monkeypatch.setattr(json, "loads", out_of_memory)  # the module cli.py reads with
    else:
        monkeypatch.setattr(cli, "build_context_packet", out_of_memory)
    code, out, err = run(["build", "-"], json.dumps(demo_request()).encode())
    assert (code, out) == (EXIT_CODES["unreadable_input"], "")
    assert (
        err
        == "harnessbook: standard input is too large to hold in memory (lower --max-bytes to refuse it sooner)\n"
    )


def test_a_figure_that_does_not_fit_in_memory_is_a_failed_output(monkeypatch):
    import harnessbook.cli as cli

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(cli, "render_svg", out_of_memory)
    code, out, err = run(["build", "-", "--format", "svg"], json.dumps(demo_request()).encode())
    assert (code, out) == (EXIT_CODES["output_failed"], "")
    assert err == "harnessbook: cannot write standard output: the output does not fit in memory\n"


@pytest.mark.skipif(os.name != "posix", reason="O_NONBLOCK is POSIX")
def test_a_non_blocking_standard_input_is_waited_for():
    """A parent may set O_NONBLOCK on the pipe it shares: "nothing yet" is then not the end of
    the input. The request arrives in two parts, the second after a pause."""
    import fcntl
    import threading
    import time

    read_end, write_end = os.pipe()
    fcntl.fcntl(read_end, fcntl.F_SETFL, fcntl.fcntl(read_end, fcntl.F_GETFL) | os.O_NONBLOCK)
    text = json.dumps(demo_request()).encode()

    def write() -> None:
        time.sleep(0.2)
        os.write(write_end, text[:100])
        time.sleep(0.2)
        os.write(write_end, text[100:])
        os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    out, err = io.StringIO(), io.StringIO()
    with open(read_end, encoding="utf-8") as stdin:
        code = main(["build", "-"], stdin=stdin, stdout=out, stderr=err)
    writer.join()
    assert (code, err.getvalue()) == (EXIT_CODES["ready"], "")
    assert json.loads(out.getvalue()) == build_context_packet(demo_request())


@pytest.mark.parametrize("unbuffered", [True, False], ids=["PYTHONUNBUFFERED", "buffered"])
def test_a_non_blocking_standard_output_gets_every_byte(tmp_path, unbuffered):
    """A parent may set O_NONBLOCK on the pipe the command writes to. A full pipe is then not a
    failure: the command waits until the reader takes more. (Python's own unbuffered stdout
    dropped what did not fit, silently, and exited 0; its buffered one failed with 74.)"""
    import time

    request: Any = demo_request()
    first = request["candidates"][0]
    request["candidates"] = [dict(first, id=f"evidence-{n}") for n in range(1_000)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    process = subprocess.Popen(
        [sys.executable, "-m", "harnessbook", "build", str(path)],
        stdout=write_end,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(write_end)
    time.sleep(0.5)  # the pipe (64 KiB) fills long before anything is read
    with open(read_end, "rb") as reader:
        data = reader.read()
    assert process.stderr is not None
    err = process.stderr.read().decode()
    assert (process.wait(), err) == (EXIT_CODES["ready"], "")
    assert len(data) > 4 * 65536
    assert json.loads(data) == build_context_packet(request)


def test_the_own_output_writes_every_byte_to_a_descriptor_that_would_block():
    """In process, for mutation testing (the test above runs the installed command): a write of
    more than the pipe holds, on a non-blocking pipe read slowly, waits and loses nothing."""
    import threading
    import time

    from harnessbook.cli import _Output

    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    text = "上下文" * 100_000  # 900,000 bytes of UTF-8
    received: list[bytes] = []

    def read() -> None:
        time.sleep(0.2)
        with open(read_end, "rb") as reader:
            received.append(reader.read())

    reader = threading.Thread(target=read)
    reader.start()
    try:
        output = _Output(io.StringIO(), write_end)
        output.write(text)
        output.flush()
    finally:
        os.close(write_end)
    reader.join()
    assert received == [text.encode("utf-8")]


@pytest.mark.skipif(os.name != "posix", reason="file names are bytes on POSIX only")
def test_a_name_that_is_not_utf8_is_shown_by_its_bytes_and_a_lone_surrogate_as_itself():
    from harnessbook.cli import _file_name

    assert _file_name(os.fsdecode(b"\xff3.json")) == "\\xff3.json"
    assert _file_name("\ud800.json") == "\\ud800.json"  # no byte stands for it: escaped as it is
    assert _file_name("plain 文件.json") == "plain 文件.json"


class _FailingStream(io.StringIO):
    """A caller's stream whose every write fails with ``errno``."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number

    def write(self, text: str) -> int:
        raise OSError(self.number, os.strerror(self.number))


class _FailingFlush(io.StringIO):
    """A caller's stream that takes every write, and fails when flushed (a full disk found late)."""

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "argv", [["--help"], ["--version"], ["build", "--help"], ["demo"], ["schema", "request"]]
)
def test_in_process_output_failures_are_reported_alike_for_every_command(argv):
    """A caller's closed stream: 74 and one line (``--help`` raised a traceback); a reader that
    left (broken pipe): the command's own code, silently; a full disk: 74 and one line
    (``--help`` and ``--version`` said nothing)."""
    closed, err = io.StringIO(), io.StringIO()
    closed.close()
    assert main(argv, stdout=closed, stderr=err) == EXIT_CODES["output_failed"]
    assert (
        err.getvalue().startswith("harnessbook: cannot write standard output: ")
        and err.getvalue().count("\n") == 1
    )
    err = io.StringIO()
    assert (main(argv, stdout=_FailingStream(errno.EPIPE), stderr=err), err.getvalue()) == (0, "")
    err = io.StringIO()
    assert main(argv, stdout=_FailingStream(errno.ENOSPC), stderr=err) == EXIT_CODES["output_failed"]
    assert err.getvalue() == f"harnessbook: cannot write standard output: {os.strerror(errno.ENOSPC)}\n"
    # Flushed as a result is: --help and --version returned 0 and said nothing.
    err = io.StringIO()
    assert main(argv, stdout=_FailingFlush(), stderr=err) == EXIT_CODES["output_failed"]
    assert err.getvalue() == f"harnessbook: cannot write standard output: {os.strerror(errno.ENOSPC)}\n"


@pytest.mark.skipif(os.name != "posix", reason="file names are bytes on POSIX only")
def test_a_file_name_that_is_not_utf8_is_shown_as_its_bytes(tmp_path):
    """Python reads the byte 0xff of a name as a lone surrogate: the message shows ``\\xff``, the
    byte a reader can find the file by, not ``\\udcff``, which names no file."""
    name = os.fsencode(tmp_path) + b"/\xff.json"
    with open(name, "wb") as file:
        file.write(b'{"a": 1, "a": 2}')
    completed = subprocess.run(
        [sys.executable, "-m", "harnessbook", "build", name],
        capture_output=True,
        env=dict(os.environ, LC_ALL="C.UTF-8"),
    )
    assert completed.returncode == EXIT_CODES["unreadable_input"]
    assert (
        completed.stderr.decode()
        == f"harnessbook: {tmp_path}/\\xff.json repeats the key $.a: JSON readers"
        + (" disagree on which value counts, so it is refused\n")
    )


def test_in_process_callers_get_a_line_not_a_traceback_for_what_argv_cannot_hold():
    """main() is also called in-process, with strings no command line can carry: a NUL in a
    file name (open() raises ValueError, not OSError) and a text stream holding a lone
    surrogate (named as such, not as a byte of the command's own re-encoding)."""
    out, err = io.StringIO(), io.StringIO()
    assert main(["build", "a\x00b.json"], stdout=out, stderr=err) == 1
    assert (out.getvalue(), err.getvalue()) == (
        "",
        "harnessbook: cannot read a\\u0000b.json: embedded null byte\n",
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["build", "-"], stdin=io.StringIO('{"a": "x\ud800"}'), stdout=out, stderr=err) == 1
    assert (out.getvalue(), err.getvalue()) == (
        "",
        "harnessbook: standard input is not UTF-8: a lone surrogate U+D800 at character 8, which UTF-8 cannot hold\n",
    )


# ---------------------------------------------------------------------------
# build --errors json: what ends the command, as one JSON object on one line of standard error
# ---------------------------------------------------------------------------


ERROR_VALIDATOR = jsonschema.Draft202012Validator(load_schema("error"))


def json_error(err: str) -> Any:
    """Standard error as ``--errors json`` writes it: exactly one line, one JSON object, valid
    against the package's schema of it (``harnessbook schema error``)."""
    assert err.endswith("\n") and err.count("\n") == 1, err
    report = json.loads(err)
    ERROR_VALIDATOR.validate(report)
    if report["error"] == "invalid_request":  # what the schema cannot say
        assert len(report["problems"]) == min(report["total"], 100), report
    return report


def test_the_error_schema_says_how_long_keys_are_cut_in_a_path(tmp_path):
    """A path with a long key cannot be followed by a program: the schema's description says so,
    with the width the builder cuts keys at."""
    from harnessbook.context_packet.errors import KEY_WIDTH

    schema = load_schema("error")
    problem = next(
        definition for definition in schema["$defs"].values() if "path" in definition.get("properties", {})
    )
    said = problem["properties"]["path"]["description"]
    assert f"A key longer than {KEY_WIDTH} characters is cut" in said
    path = tmp_path / "long.json"
    path.write_text(json.dumps({**demo_request(), "note" * 1250: 1}), encoding="utf-8")
    code, _, err = run(["build", "--errors", "json", str(path)])
    shown = json_error(err)["problems"][0]["path"]
    assert code == 2 and shown.startswith('$["note') and shown.endswith('..." (5000 characters)]'), shown
    assert f'$["<its first {KEY_WIDTH} characters>..." (5000 characters)]' in said


def test_the_error_schema_names_each_code_as_the_command_line_does():
    """Each kind of report in the schema has the exit code EXIT_CODES gives its name, and the
    schema has one for each code that --errors json reports (1, 2, 74)."""
    schema = load_schema("error")
    kinds = {}
    for branch in schema["oneOf"]:
        properties = schema["$defs"][branch["$ref"].rsplit("/", 1)[1]]["properties"]
        kinds[properties["error"]["const"]] = properties["exitCode"]["const"]
    assert kinds == {
        name: EXIT_CODES[name] for name in ("unreadable_input", "invalid_request", "output_failed")
    }
    problem = {"path": "$.budgetUnits", "message": "must be an integer greater than 0, got 0 (integer)"}
    invalid = {"error": "invalid_request", "exitCode": 2, "problems": [problem], "total": 1}
    unreadable = {"error": "unreadable_input", "exitCode": 1, "message": "standard input is empty"}
    assert ERROR_VALIDATOR.is_valid(invalid) and ERROR_VALIDATOR.is_valid(unreadable)
    for wrong in [
        invalid | {"exitCode": 1},
        invalid | {"problems": []},
        invalid | {"problems": [problem] * 101, "total": 101},
        invalid | {"total": 0},
        invalid | {"problems": [problem | {"path": "budgetUnits"}]},
        invalid | {"problems": [problem | {"message": ""}]},
        invalid | {"problems": [problem | {"line": 1}]},
        unreadable | {"message": ""},
        unreadable | {"more": 1},
        unreadable | {"exitCode": 74},
        {"error": "output_failed", "exitCode": 1, "message": "cannot write standard output: it is closed"},
    ]:
        assert not ERROR_VALIDATOR.is_valid(wrong), wrong


def test_an_invalid_request_is_one_json_object_with_every_problem_apart(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(invalid_request()), encoding="utf-8")
    code, out, err = run(["build", "--errors", "json", str(path)])
    assert (code, out) == (2, "")
    assert json_error(err) == {
        "error": "invalid_request",
        "exitCode": 2,
        "problems": [
            {"path": "$.budgetUnits", "message": "must be an integer greater than 0, got 0 (integer)"},
            {
                "path": "$.candidates[0].kind",
                "message": "must be one of constraint, direct-evidence, history-summary, reference; "
                'got "evidence" (string)',
            },
            {
                "path": "$.candidates[1].sizeUnit",
                "message": "unknown key (it resembles 'sizeUnits', which this object already has)",
            },
        ],
        "total": 3,
    }


def test_json_errors_keep_the_first_hundred_problems_and_count_them_all():
    request: Any = demo_request()
    request["candidates"] = [{"id": f"c{i}"} for i in range(40)]  # five missing keys each
    code, _, text = run(["build", "-"], json.dumps(request).encode())
    code_json, _, err = run(["build", "-", "--errors", "json"], json.dumps(request).encode())
    document = json_error(err)
    assert code == code_json == 2
    assert document["total"] == 200 and len(document["problems"]) == 100
    # The same problems as the text's first hundred lines, path and message apart.
    assert [f"{p['path']}: {p['message']}" for p in document["problems"]] == text.splitlines()[:100]
    assert text.splitlines()[100] == "… and 100 more problems"


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["build", "missing.json"], b""),
        (["build", "-"], b'{"budgetUnits": 1, "budgetUnits": 2}'),
        (["build", "-"], b'{"budgetUnits": NaN}'),
        (["build", "-"], b"\xff"),
        (["build", "-", "--max-bytes", "3"], b"{}    "),
    ],
)
def test_unreadable_input_is_one_json_object_with_the_texts_message(tmp_path, monkeypatch, argv, stdin):
    monkeypatch.chdir(tmp_path)
    code, out, text = run(argv, stdin)
    code_json, out_json, err = run([*argv, "--errors", "json"], stdin)
    assert code == code_json == 1 and out == out_json == ""
    assert json_error(err) == {
        "error": "unreadable_input",
        "exitCode": 1,
        "message": text.removeprefix("harnessbook: ").rstrip("\n"),
    }


def test_a_json_error_is_written_escaped_as_the_result_is(monkeypatch):
    """What could break the line or reorder it on a terminal (U+2028, U+202E), or is no UTF-8 (a
    lone surrogate), is written as a ``\\u`` escape: the line stays one line of JSON."""
    import harnessbook.cli as cli

    said = "a\u2028b\u202ec\ud800d"

    def unreadable(*args, **kwargs):
        raise OSError(5, said)

    monkeypatch.setattr(cli, "open", unreadable, raising=False)  # the module's name shadows the builtin
    code, _, err = run(["build", "--errors", "json", "in.json"])
    assert code == 1
    assert "\\u2028" in err and "\\u202e" in err and "\\ud800" in err, err
    assert not {"\u2028", "\u202e", "\ud800"} & set(err)
    assert json_error(err)["message"] == f"cannot read in.json: {said}"


def test_a_failed_output_is_one_json_object(monkeypatch):
    import harnessbook.cli as cli

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(cli, "render_svg", out_of_memory)
    code, out, err = run(
        ["build", "-", "--format", "svg", "--errors", "json"], json.dumps(demo_request()).encode()
    )
    assert (code, out) == (74, "")
    assert json_error(err) == {
        "error": "output_failed",
        "exitCode": 74,
        "message": "cannot write standard output: the output does not fit in memory",
    }
    monkeypatch.setattr(sys, "stdout", None)
    err_stream = io.StringIO()
    assert main(["build", "--errors", "json", "-"], stdin=io.StringIO("{}"), stderr=err_stream) == 2
    assert json_error(err_stream.getvalue())["error"] == "invalid_request"
    err_stream = io.StringIO()
    demo = io.StringIO(json.dumps(demo_request()))
    assert main(["build", "--errors", "json", "-"], stdin=demo, stderr=err_stream) == 74
    assert json_error(err_stream.getvalue()) == {
        "error": "output_failed",
        "exitCode": 74,
        "message": "cannot write standard output: it is closed",
    }


@pytest.mark.parametrize("factory", [demo_request, refresh_request, blocked_request])
def test_json_errors_change_nothing_of_a_result(factory):
    data = json.dumps(factory(), ensure_ascii=False).encode("utf-8")
    assert run(["build", "-", "--errors", "json"], data) == run(["build", "-"], data)
    assert run(["build", "-", "--errors", "json"], data)[2] == ""


def test_a_usage_error_stays_text_with_json_errors():
    code, out, err = run(["build", "-", "--errors", "json", "--lang", "en"])
    assert (code, out) == (64, "")
    assert err.startswith("usage: harnessbook build") and "--lang is the figure's language" in err
    code, _, err = run(["build", "-", "--errors", "xml"])
    assert code == 64 and "invalid choice: 'xml'" in err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["nope"],
            "harnessbook: error: argument COMMAND: invalid choice: 'nope' (choose from demo, build, schema)",
        ),
        (
            ["build", "--format", "xml", "-"],
            "harnessbook build: error: argument --format: invalid choice: 'xml' (choose from json, svg)",
        ),
        (
            ["build", "--errors", "xml", "-"],
            "harnessbook build: error: argument --errors: invalid choice: 'xml' (choose from text, json)",
        ),
        (
            ["build", "--format", "svg", "--lang", "fr", "-"],
            "harnessbook build: error: argument --lang: invalid choice: 'fr' (choose from zh, en)",
        ),
    ],
)
def test_a_wrong_choice_is_worded_by_the_command(argv, line):
    """The same words on every Python (argparse quotes the choices on some releases only)."""
    code, out, err = run(argv)
    assert (code, out) == (64, "")
    assert err.splitlines()[-1] == line


def test_a_standard_output_put_in_place_of_the_interpreters_is_written_through(monkeypatch, tmp_path):
    """Only the interpreter's own standard output is written by its descriptor: a file stream a
    caller put in its place (it has a descriptor too) keeps its own line ends."""
    path = tmp_path / "out.json"
    with open(path, "w", encoding="utf-8", newline="\r\n") as stream:
        monkeypatch.setattr("sys.stdout", stream)
        assert main(["schema", "error"]) == 0
    data = path.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") > 10
    assert json.loads(data) == load_schema("error")


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_the_input_bytes_are_freed_once_decoded(tmp_path: Path, source: str):
    """While json reads the request, the bytes it was decoded from are not held as well: at the
    peak there are the text and the value read from it, two sizes of the input, not three (up to
    --max-bytes, 64 MiB, more)."""
    size = 4_000_000
    path = tmp_path / "padded.json"
    path.write_text(json.dumps({"padding": "x" * size}), encoding="utf-8")
    stdin = io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding="utf-8")
    tracemalloc.start()
    try:
        if source == "file":
            code = main(["build", str(path)], stdout=io.StringIO(), stderr=io.StringIO())
        else:
            code = main(["build", "-"], stdin=stdin, stdout=io.StringIO(), stderr=io.StringIO())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == EXIT_CODES["invalid_request"]  # read, then refused: padding is no key
    assert peak < 2.5 * size, f"{peak / size:.2f} times the input at the peak"


def test_binary_streams_are_read_and_written_as_utf8_and_left_open(tmp_path: Path):
    """``main`` in-process with binary streams (``io.BytesIO``, files opened "rb"/"wb") reads
    and writes UTF-8, as the command does: it raised ``TypeError`` from deep inside."""
    request = demo_request()
    request["taskAnchor"]["goal"] = "修复失败的断言"
    stdin, stdout = io.BytesIO(json.dumps(request, ensure_ascii=False).encode()), io.BytesIO()
    assert main(["build", "-"], stdin=stdin, stdout=stdout, stderr=io.StringIO()) == 0
    assert json.loads(stdout.getvalue().decode("utf-8")) == build_context_packet(request)
    assert "修复失败的断言".encode() in stdout.getvalue()  # UTF-8, not escaped
    assert not stdin.closed and not stdout.closed
    stderr = io.BytesIO()
    assert main(["build", "-"], stdin=io.BytesIO(b"{}"), stdout=io.BytesIO(), stderr=stderr) == 2
    assert stderr.getvalue().decode("utf-8").startswith("$.taskAnchor: required key is missing\n")
    with open(tmp_path / "out.json", "wb") as file:
        assert main(["demo"], stdout=file, stderr=io.StringIO()) == 0
        assert not file.closed
    assert json.loads((tmp_path / "out.json").read_bytes()) == build_context_packet(demo_request())
    usage = io.BytesIO()
    assert main(["--help"], stdout=usage) == 0 and usage.getvalue().startswith(b"usage: harnessbook")


def test_a_binary_stream_that_fails_or_is_closed_gets_the_exit_code_and_stays_open():
    """A binary stream that cannot be written (a full disk) or read (closed) ends as a text one
    does, with its exit code and one line: it raised OSError or ValueError, and the caller's file
    was closed once the wrapper around it was collected."""
    if Path("/dev/full").exists():
        full = open("/dev/full", "wb")  # noqa: SIM115 - closed below, where its buffer fails again
        err = io.StringIO()
        code = main(["demo"], stdout=full, stderr=err)
        gc.collect()
        assert (code, err.getvalue()) == (
            74,
            "harnessbook: cannot write standard output: No space left on device\n",
        )
        assert not full.closed
        with contextlib.suppress(OSError):  # what the caller's buffer still holds cannot go either
            full.close()
    closed = io.BytesIO()
    closed.close()
    assert main(["demo"], stdout=closed, stderr=io.StringIO()) == 74
    assert main(["build", "-"], stdin=closed, stdout=io.StringIO(), stderr=io.StringIO()) == 1
    files: list[Any] = [tempfile.NamedTemporaryFile(), tempfile.SpooledTemporaryFile()]  # noqa: SIM115
    for file in files:
        with file:
            assert main(["demo"], stdout=file, stderr=io.StringIO()) == 0
            file.seek(0)
            assert json.loads(file.read()) == build_context_packet(demo_request())


def test_main_takes_file_names_as_paths_and_bytes_as_the_interpreter_takes_its_arguments(tmp_path):
    """``main(["build", Path(...)])`` raised a TypeError from inside argparse. A path or bytes
    reads as ``sys.argv`` would hold the same name (``os.fsdecode``)."""
    file = tmp_path / "request.json"
    file.write_text(json.dumps(demo_request()), encoding="utf-8")
    for argument in (file, os.fsencode(file), str(file)):
        out = io.StringIO()
        assert main(["build", argument], stdout=out, stderr=io.StringIO()) == EXIT_CODES["ready"]
        assert json.loads(out.getvalue()) == build_context_packet(demo_request())
    # A name that is not UTF-8 is shown by its bytes, as when the shell gives it.
    err = io.StringIO()
    missing = main([b"build", os.fsencode(tmp_path) + b"/\xff.json"], stdout=io.StringIO(), stderr=err)
    assert missing == EXIT_CODES["unreadable_input"]
    assert err.getvalue().endswith("/\\xff.json: No such file or directory\n"), err.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ("build", "main: argv must be a sequence of arguments, not one str (put it in a list)"),
        (b"demo", "main: argv must be a sequence of arguments, not one bytes (put it in a list)"),
        (3, "main: argv must be a sequence of arguments, not int"),
        (["build", 3], "main: argv[1] is of type int; expected a string, bytes or a path"),
        (["demo", None], "main: argv[1] is of type NoneType; expected a string, bytes or a path"),
    ],
)
def test_main_refuses_what_is_not_a_sequence_of_arguments_with_a_type_error(argv, message):
    """A caller's mistake in ``argv`` is a TypeError that says which argument (a string was read as
    one argument a character, and other items failed inside argparse)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(TypeError) as caught:
        main(argv, stdout=out, stderr=err)
    assert str(caught.value) == message
    assert (out.getvalue(), err.getvalue()) == ("", "")
