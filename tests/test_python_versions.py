"""The package on the other CPython versions it supports (3.11 to 3.14, this process's left out),
where the machine has them: for every request of the book and a set of hostile texts, the same
outcome (the result as the command line prints it, or the same problems), the same figures, the
same ``harnessbook build -`` exit code and output; and the same ``demo``, ``schema`` and
``--version``. Nesting too deep for one interpreter's ``json`` is refused at the same depth by
all of them (``harnessbook.cli.MAX_DEPTH``): the hostile texts nest on both sides of it.

The test command runs on one interpreter (3.11 here). Pyodide's CPython 3.14 is compared with it
by the playground's browser tests; this compares the interpreters a harness author runs the
package on. Each is started with ``-I -S -B`` and this process's limit on integer digits: no
environment and no site-packages, so the package is also shown to need nothing outside the
standard library there.

One interpreter of each version is taken: those named in ``HARNESSBOOK_PYTHONS`` (paths,
separated as ``PATH`` is) first, each of which must run a supported version; then pyenv's
versions, then ``python3.N`` on ``PATH``. A machine with no other version skips the comparison
and says why. ``.ci/run`` names uv's downloads of 3.12, 3.13 and 3.14 where it can fetch
them (GitHub's runners, for the Pages workflow).
"""

from __future__ import annotations

import copy
import glob
import json
import os
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

import harnessbook
from harnessbook.cli import MAX_DEPTH, main
from tests.outcomes import observed, pages_with_examples, request_fences
from tests.strategies import seed_request, with_value

ROOT = Path(__file__).resolve().parents[1]
SOURCE = Path(harnessbook.__file__).resolve().parents[1]
"""The folder of the package this process imported: the other interpreters import the same."""

SUPPORTED = [(3, minor) for minor in range(11, 15)]
"""The versions ``requires-python`` and the classifiers promise (this process's is left out)."""

FLAGS = ["-I", "-S", "-B", "-X", f"int_max_str_digits={sys.get_int_max_str_digits()}"]
"""How another interpreter is started: no environment, no site-packages, no byte code written,
and this process's limit on the digits of an integer (the environment that could set it is
ignored, and the command-line page documents that the limit decides what is readable)."""

VERSION = "import sys; print('%d.%d' % sys.version_info[:2])"

CHILD = """
import json, sys
sys.path[:0] = sys.argv[1:3]
from tests.outcomes import observed
texts = json.load(sys.stdin)
json.dump([observed(text) for text in texts], sys.stdout)
"""
"""Run in the other interpreter: the package and the tests' :mod:`tests.outcomes` on its path,
the texts on standard input, what :func:`tests.outcomes.observed` makes of each on standard
output."""

CLI = "import sys; sys.path.insert(0, sys.argv.pop(1)); from harnessbook.cli import main; sys.exit(main())"

NAMED = "HARNESSBOOK_PYTHONS"


def named() -> list[str]:
    """The interpreters named in ``HARNESSBOOK_PYTHONS`` (paths, separated as in ``PATH``)."""
    return [path for path in os.environ.get(NAMED, "").split(os.pathsep) if path]


def found_on_machine(version: tuple[int, int]) -> list[str]:
    """The paths in pyenv's folder and on ``PATH`` that may run ``version``, in that order."""
    major, minor = version
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(
        glob.glob(str(pyenv / "versions" / f"{major}.{minor}.*" / "bin" / f"python{major}.{minor}"))
    )
    on_path = shutil.which(f"python{major}.{minor}")
    return found + [on_path] if on_path else found


def version_of(path: str) -> tuple[int, int] | None:
    """The version ``path`` runs, or None when it does not start (a pyenv shim for a version it
    does not have exits 127)."""
    try:
        ran = subprocess.run([path, *FLAGS, "-c", VERSION], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if ran.returncode != 0:
        return None
    major, minor = (int(part) for part in ran.stdout.strip().split("."))
    return major, minor


def other_pythons() -> dict[tuple[int, int], str]:
    """One interpreter per supported version other than this process's, by version: those named
    in ``HARNESSBOOK_PYTHONS`` first (each must run a supported version), then those found."""
    chosen: dict[tuple[int, int], str] = {}
    for path in named():
        version = version_of(path)
        assert version in SUPPORTED, f"{NAMED} names {path}, which is not a supported CPython that runs"
        if version != sys.version_info[:2]:
            chosen.setdefault(version, path)
    for wanted in SUPPORTED:
        if wanted == sys.version_info[:2] or wanted in chosen:
            continue
        for path in found_on_machine(wanted):
            if version_of(path) == wanted:
                chosen[wanted] = path
                break
    return chosen


def hostile_texts() -> list[str]:
    """Texts near the edges where interpreters could differ: JSON the reader refuses, numbers,
    timestamps (leap seconds, offsets, the calendar's ends), nesting, Unicode (lone surrogates,
    bidi controls, line separators, wide characters), and every kind of decision."""
    texts = ["", "   ", "\ufeff", "{", "[]", "null", '{"a": NaN}', '{"a": 1e999}', "1" * 5_000]
    texts += ["[" * 10_000 + "]" * 10_000, '{"a":' * 1_000 + "1" + "}" * 1_000, '"\\ud800"']
    texts += ['{"a": 1,}', "[1, ]", '{"a": [1,\n]}']  # json's words for these changed in 3.13
    for depth in (MAX_DEPTH, MAX_DEPTH + 1, 990, 3_000):  # 3.11 reads about 990 levels, 3.13 more
        texts += [
            "[" * depth + "]" * depth,
            "[" * depth + "x",
            '{"a": NaN, "b": ' + "[" * depth + "]" * depth + "}",
        ]
    texts.append("\ufeff" + json.dumps(seed_request()))
    changes: dict[tuple[str | int, ...], list[Any]] = {
        ("budgetUnits",): [0, 1, 2**53 - 1, 2**53, 8.0, 8.5, -0.0, True, "8", None, 10**400],
        ("candidates", 0, "capturedAt"): [
            "2016-12-31T23:59:60Z",
            "2016-12-31T23:59:60+00:00",
            "2017-01-01T07:59:60+08:00",
            "2016-12-31T23:59:60+08:00",
            "2024-02-29",
            "2026-02-29",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999-23:59",
            "2026-07-15t09:30:00z",
            "2026-07-15 09:30:00Z",
            "２０２６-07-15",
        ],
        ("candidates", 0, "id"): ["\u202eevil", "a\u2028b", "\ud800", "候选" * 40, "\x00", " "],
        ("candidates", 1, "content"): ["\u00e9\u0301" * 50, "\U0001f600" * 30, "\x85\x9b", "a" * 100_000],
        ("candidates", 3, "sizeUnits"): [0, 5, 60, 10**6, 2**63],
        ("taskAnchor", "goal"): ["\u3000", "\u200b", "目标", ""],
    }
    for path, values in changes.items():
        texts += [json.dumps(with_value(path, value), ensure_ascii=False) for value in values]
    wide = seed_request()
    wide["candidates"] = [copy.deepcopy(wide["candidates"][i % 4]) | {"id": f"c{i}"} for i in range(300)]
    wide["budgetUnits"] = 250
    texts.append(json.dumps(wide))
    return texts


def corpus() -> list[str]:
    """Every request.json of the book (both editions), the CLI pages' files and the hostile texts."""
    texts = [text for page in pages_with_examples() for text in request_fences(page)]
    texts += [
        path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs" / "examples").glob("*.json"))
    ]
    return list(dict.fromkeys(texts + hostile_texts()))


@pytest.fixture(scope="module")
def seen() -> list[tuple[str, dict]]:
    """Each text of the corpus, with what this process makes of it."""
    return [(text, observed(text)) for text in corpus()]


@pytest.fixture(scope="module")
def pythons() -> dict[tuple[int, int], str]:
    found = other_pythons()
    if not found:
        pytest.skip(
            "no other supported CPython on this machine (looked on PATH, in pyenv's versions and in "
            f"{NAMED}): only this one, {sys.version_info.major}.{sys.version_info.minor}, was checked"
        )
    return found


def test_the_corpus_reaches_every_kind_of_outcome(seen):
    """Guard: the texts compared below are not all alike."""
    outcomes = [one for _, one in seen]
    assert {one["kind"] for one in outcomes} == {"unreadable", "invalid-json", "invalid-request", "result"}
    assert {one.get("state") for one in outcomes} >= {"ready", "refresh_required", "blocked"}
    assert {one["command line"][0] for one in outcomes} == {0, 1, 2, 3, 4}


def test_every_other_python_gives_the_same_outcomes_figures_and_command_line_output(seen, pythons):
    texts = [text for text, _ in seen]
    expected = [one for _, one in seen]
    payload = json.dumps(texts)  # ASCII: lone surrogates travel as escapes
    for version, path in sorted(pythons.items()):
        ran = subprocess.run(
            [path, *FLAGS, "-c", CHILD, str(SOURCE), str(ROOT)],
            input=payload,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=300,
        )
        name = f"CPython {version[0]}.{version[1]} ({path})"
        assert ran.returncode == 0, f"{name} failed:\n{ran.stderr[-3000:]}"
        got = json.loads(ran.stdout)
        assert len(got) == len(texts), name
        for text, mine, theirs in zip(texts, expected, got, strict=True):
            if mine != theirs:
                keys = sorted(key for key in mine.keys() | theirs.keys() if mine.get(key) != theirs.get(key))
                pytest.fail(f"{name} differs on {text[:200]!r}: {keys}")


@pytest.mark.parametrize(
    "argv", [["demo"], ["schema", "request"], ["schema", "result"], ["schema", "error"], ["--version"]]
)
def test_every_other_python_prints_the_same_command_line_output(pythons, argv):
    out = StringIO()
    code = main(argv, stdout=out)
    for version, path in sorted(pythons.items()):
        ran = subprocess.run(
            [path, *FLAGS, "-c", CLI, str(SOURCE), *argv],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=60,
        )
        name = f"CPython {version[0]}.{version[1]} ({path})"
        assert (ran.returncode, ran.stdout, ran.stderr) == (code, out.getvalue(), ""), name
