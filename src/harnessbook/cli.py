"""The ``harnessbook`` command line: build packets from JSON, print the demo and the schemas.

Exit codes (stable, for scripts and CI):

* 0: the packet is ``ready``
* 1: the input could not be read (no such file, not UTF-8, not JSON)
* 2: the request is invalid (one problem a line on stderr), or the command line is
* 3: ``refresh_required``
* 4: ``blocked``
* 141: the reader closed standard output early (``| head``), as a process killed by SIGPIPE
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from harnessbook import __version__
from harnessbook.context_packet import InvalidRequestError, build_context_packet, demo_request
from harnessbook.figure import render_svg
from harnessbook.schemas import SCHEMA_FILES, load_schema

__all__ = ["main", "EXIT_CODES"]

EXIT_CODES: dict[str, int] = {
    "ready": 0,
    "unreadable_input": 1,
    "invalid_request": 2,
    "refresh_required": 3,
    "blocked": 4,
    "output_closed": 141,
}
"""The exit code of each outcome."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _dump(value: Any, out: TextIO) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    # JSON input may escape a lone surrogate ("\\ud800"); UTF-8 cannot encode it, so it is
    # printed escaped again, which keeps the output valid JSON with the same value.
    text = _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    out.write(text)
    out.write("\n")


def _read_request(name: str, stdin: TextIO) -> Any:
    if name == "-":
        # Read bytes where possible so a non-UTF-8 pipe is reported, not mis-decoded.
        buffer = getattr(stdin, "buffer", None)
        data = buffer.read() if buffer is not None else stdin.read().encode("utf-8")
    else:
        with open(name, "rb") as handle:
            data = handle.read()
    return json.loads(data.decode("utf-8-sig"))


def _build(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    where = "standard input" if args.file == "-" else args.file
    try:
        request = _read_request(args.file, stdin)
    except OSError as error:
        stderr.write(f"harnessbook: cannot read {where}: {error.strerror or error}\n")
        return EXIT_CODES["unreadable_input"]
    except UnicodeDecodeError as error:
        stderr.write(f"harnessbook: {where} is not UTF-8: {error.reason} at byte {error.start}\n")
        return EXIT_CODES["unreadable_input"]
    except json.JSONDecodeError as error:
        stderr.write(
            f"harnessbook: {where} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})\n"
        )
        return EXIT_CODES["unreadable_input"]
    except RecursionError:
        stderr.write(f"harnessbook: {where} is nested too deeply to read\n")
        return EXIT_CODES["unreadable_input"]
    except ValueError as error:  # e.g. an integer with more digits than Python converts
        stderr.write(f"harnessbook: {where} cannot be read as JSON: {error}\n")
        return EXIT_CODES["unreadable_input"]
    return _emit(request, stdout, stderr, output=args.format, lang=args.lang)


def _emit(request: Any, stdout: TextIO, stderr: TextIO, *, output: str = "json", lang: str = "zh") -> int:
    try:
        result = build_context_packet(request)
    except InvalidRequestError as error:
        for problem in error.problems:
            stderr.write(f"{problem}\n")
        return EXIT_CODES["invalid_request"]
    if output == "svg":
        # The figure the book's pages show (harnessbook.figure); the exit code is the same.
        stdout.write(render_svg(result, lang))
    else:
        _dump(result, stdout)
    return EXIT_CODES[result["state"]]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harnessbook",
        description="Build chapter 6's minimal context packet from a JSON request.",
        epilog="exit codes: 0 ready, 1 unreadable input, 2 invalid request, 3 refresh_required, "
        "4 blocked, 141 output closed early",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("demo", help="print the packet of the chapter's demo request")
    build = commands.add_parser("build", help="read a request as JSON and print the result")
    build.add_argument("file", metavar="FILE", help="a JSON file, or - for standard input")
    build.add_argument(
        "--format",
        choices=("json", "svg"),
        default="json",
        help="print the result as JSON (the default) or draw it as an SVG figure",
    )
    build.add_argument("--lang", choices=("zh", "en"), default="zh", help="the figure's language (svg only)")
    schema = commands.add_parser("schema", help="print the JSON Schema of the request or the result")
    schema.add_argument("name", choices=sorted(SCHEMA_FILES), help="which schema")
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line and return its exit code (see [`EXIT_CODES`][harnessbook.cli.EXIT_CODES])."""
    if stdout is None:
        # The output is UTF-8 whatever the locale says: Chinese text is printed, not escaped.
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(encoding="utf-8")
        stdout = sys.stdout
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse reports usage errors itself, with exit code 2
        return int(exit_.code or 0)
    try:
        if args.command == "demo":
            code = _emit(demo_request(), stdout, stderr)
        elif args.command == "schema":
            _dump(load_schema(args.name), stdout)
            code = 0
        else:
            code = _build(args, stdin, stdout, stderr)
        stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (`harnessbook demo | head -3`): not a failure to report
        # with a traceback. Point stdout at /dev/null so the interpreter's final flush is quiet.
        if stdout is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_CODES["output_closed"]
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
