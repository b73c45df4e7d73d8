"""How the files of a run are shared between pytest-xdist's workers (tests/scheduling.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path
from types import SimpleNamespace

from tests import scheduling
from tests.scheduling import SHARED_PARSE, SHARED_SCOPE, LongestFirstFileScheduling

ROOT = Path(__file__).resolve().parents[1]


class FakeNode:
    """A worker as the scheduler sees it: it is sent the indexes of the tests to run."""

    def __init__(self) -> None:
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)


def scheduler(
    collection: list[str],
    files: dict[str, float],
    tests: dict[str, float] | None = None,
    cold: frozenset[str] = frozenset(),
) -> tuple[LongestFirstFileScheduling, FakeNode]:
    """A scheduler given ``files`` (as tests/file_seconds.json), ``tests`` (as the cache) and
    the files whose cache is ``cold`` (none unless given)."""
    config = SimpleNamespace(option=SimpleNamespace(loadscopereorder=True), getvalue={"tx": ["popen"]}.get)
    sched = LongestFirstFileScheduling(config, log=None, tests=tests, files=files, cold=cold)  # type: ignore[arg-type]
    node = FakeNode()
    sched.registered_collections[node] = collection
    sched.assigned_work[node] = {}
    for nodeid in collection:
        sched.workqueue.setdefault(sched._split_scope(nodeid), OrderedDict())[nodeid] = False
    return sched, node


def handed_out(sched: LongestFirstFileScheduling, node: FakeNode, collection: list[str]) -> list[str]:
    """The files in the order the scheduler hands them to one worker."""
    order: list[str] = []
    while sched.workqueue:
        sched._assign_work_unit(node)
        files = dict.fromkeys(collection[i].split("::", 1)[0] for i in node.sent[-1])
        order.append(" + ".join(files))
    return order


def test_the_longest_file_goes_first_not_the_one_with_most_tests():
    collection = [f"docs/page.md::line:{n}" for n in range(50)] + [
        "tests/browser/test_lighthouse.py::test_a",
        "tests/browser/test_lighthouse.py::test_b",
        "tests/test_cli.py::test_a",
    ]
    sched, node = scheduler(collection, {"docs/page.md": 3.0, "tests/browser/test_lighthouse.py": 70.0})
    # test_cli.py was never timed: 1 test at GUESS_SECONDS[""], after the 3 s page.
    assert handed_out(sched, node, collection) == [
        "tests/browser/test_lighthouse.py",
        "docs/page.md",
        "tests/test_cli.py",
    ]


def test_a_file_whose_cache_is_cold_goes_first_beside_lighthouse():
    collection = [
        "tests/browser/test_lighthouse.py::test_a",
        "tests/test_properties.py::test_a",
        "tests/test_lint.py::test_a",
        "tests/test_pyodide_pin.py::test_a",
    ]
    files = {
        "tests/browser/test_lighthouse.py": 60.0,
        "tests/test_properties.py": 12.0,
        "tests/test_lint.py": 0.5,
        "tests/test_pyodide_pin.py": 0.2,
    }
    cold = frozenset({"tests/test_lint.py", "tests/test_pyodide_pin.py"})
    sched, node = scheduler(collection, files, cold=cold)
    assert handed_out(sched, node, collection) == [
        "tests/browser/test_lighthouse.py",
        "tests/test_lint.py",
        "tests/test_pyodide_pin.py",
        "tests/test_properties.py",
    ]
    # Warm, they are short files like any other.
    sched, node = scheduler(collection, files)
    assert handed_out(sched, node, collection)[1:] == [
        "tests/test_properties.py",
        "tests/test_lint.py",
        "tests/test_pyodide_pin.py",
    ]


def test_a_cache_is_cold_when_its_folder_is_missing_or_empty(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("HARNESSBOOK_FRESH_SITE", raising=False)
    assert all((ROOT / file).is_file() for file in scheduling.COLD_CACHES)
    assert scheduling.cold_files(tmp_path) == set(scheduling.COLD_CACHES)
    for folder in scheduling.COLD_CACHES.values():
        (tmp_path / folder).mkdir(parents=True)
    assert scheduling.cold_files(tmp_path) == set(scheduling.COLD_CACHES)
    for folder in scheduling.COLD_CACHES.values():
        (tmp_path / folder / "entry").write_text("", encoding="utf-8")
    assert scheduling.cold_files(tmp_path) == frozenset()
    monkeypatch.setenv("HARNESSBOOK_FRESH_SITE", "1")  # the compile is made anew
    assert scheduling.cold_files(tmp_path) == {"tests/test_pyodide_pin.py"}


def test_lighthouse_goes_first_with_files_without_a_browser_beside_it():
    assert {"tests/browser/test_lighthouse.py"} == scheduling.MEASURED
    assert all((ROOT / file).is_file() for file in scheduling.MEASURED)
    collection = [
        "tests/browser/test_pages.py::test_a",
        "tests/browser/test_lighthouse.py::test_a",
        "tests/test_properties.py::test_a",
        "tests/test_site.py::test_a",
        "tests/browser/test_figures.py::test_a",
    ]
    files = {
        "tests/browser/test_pages.py": 110.0,
        "tests/browser/test_lighthouse.py": 60.0,
        "tests/test_properties.py": 12.0,
        "tests/test_site.py": 8.0,
        "tests/browser/test_figures.py": 35.0,
    }
    sched, first = scheduler(collection, files)
    second = FakeNode()
    sched.registered_collections[second] = collection
    sched.assigned_work[second] = {}

    def given(node: FakeNode) -> str:
        sched._assign_work_unit(node)
        return collection[node.sent[-1][0]].split("::", 1)[0]

    # Measured first, though test_pages.py is longer.
    assert given(first) == "tests/browser/test_lighthouse.py"
    # While it runs, the other worker is given the files without a browser, longest first.
    assert given(second) == "tests/test_properties.py"
    assert given(second) == "tests/test_site.py"
    # None is left: a browser file rather than nothing.
    assert given(second) == "tests/browser/test_pages.py"
    # The worker running Lighthouse gets the longest file, whatever it is.
    sched.workqueue["tests/test_cli.py"] = OrderedDict({"tests/test_cli.py::test_a": False})
    assert sched.next_unit(first) == "tests/browser/test_figures.py"
    # Once the audits are done, the other worker is back to the longest file too.
    assert sched.next_unit(second) == "tests/test_cli.py"
    sched.assigned_work[first]["tests/browser/test_lighthouse.py"][
        "tests/browser/test_lighthouse.py::test_a"
    ] = True
    assert sched.next_unit(second) == "tests/browser/test_figures.py"


def test_files_never_timed_are_guessed_by_their_tests():
    collection = [f"tests/test_many.py::test_{n}" for n in range(10)] + [
        "tests/browser/test_pages.py::test_a",
        "tests/browser/test_pages.py::test_b",
    ]
    sched, node = scheduler(collection, {})
    # A browser test is guessed at 2 s, any other at 0.02 s: 4 s against 0.2 s.
    assert handed_out(sched, node, collection) == ["tests/browser/test_pages.py", "tests/test_many.py"]


def test_the_files_that_parse_the_built_pages_go_to_one_worker_together():
    collection = [f"{file}::test_x" for file in sorted(SHARED_PARSE)] + ["tests/test_cli.py::test_a"]
    sched, node = scheduler(collection, {"tests/test_cli.py": 100.0})
    assert set(sched.workqueue) == {SHARED_SCOPE, "tests/test_cli.py"}
    assert handed_out(sched, node, collection) == ["tests/test_cli.py", " + ".join(sorted(SHARED_PARSE))]
    # Their expected time is the sum of theirs.
    sched, _ = scheduler(collection, dict.fromkeys(SHARED_PARSE, 2.0))
    assert sched.expected_seconds(sched.workqueue[SHARED_SCOPE]) == 2.0 * len(SHARED_PARSE)


def test_a_test_timed_in_an_earlier_run_counts_for_its_own_seconds():
    """A run of a few tests of a long file does not make the file look short: each test counts
    for its own last time, and the others for their share of the file's recorded seconds."""
    collection = [f"tests/test_long.py::test_{n}" for n in range(4)] + ["tests/test_other.py::test_a"]
    files = {"tests/test_long.py": 40.0, "tests/test_other.py": 25.0}
    sched, node = scheduler(collection, files, tests={"tests/test_long.py::test_0": 0.1})
    assert sched.expected_seconds(sched.workqueue["tests/test_long.py"]) == 0.1 + 3 * 10.0
    assert handed_out(sched, node, collection) == ["tests/test_long.py", "tests/test_other.py"]
    sched, node = scheduler(collection, files, tests=dict.fromkeys(collection[:4], 0.1))
    assert handed_out(sched, node, collection) == ["tests/test_other.py", "tests/test_long.py"]


def test_shared_parse_names_exactly_the_files_that_read_built_pages():
    calls = re.compile(r"\bsoup\.page\(")
    readers = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").glob("test_*.py")
        if calls.search(path.read_text(encoding="utf-8"))
    }
    assert readers == SHARED_PARSE


def test_the_recorded_seconds_name_files_that_exist():
    recorded = json.loads(scheduling.RECORDED_FILE.read_text(encoding="utf-8"))
    assert recorded, "tests/file_seconds.json is empty"
    missing = sorted(file for file in recorded if not (ROOT / file).is_file())
    assert not missing, f"refresh it: uv run python -m tests.scheduling ({missing})"
    assert all(isinstance(seconds, int | float) and seconds >= 0 for seconds in recorded.values())


# The runs below start no property test: without hypothesis's plugin each process (the workers
# too) starts about 0.13 s sooner.
NO_HYPOTHESIS = ("-p", "no:hypothesispytest")


def test_the_seconds_of_a_run_are_kept_for_the_next(tmp_path: Path):
    """The controlling process keeps each test's seconds in pytest's cache; a later run of some
    of them updates theirs and keeps the others'."""
    (tmp_path / "test_one.py").write_text(
        "import time\n\ndef test_a():\n    time.sleep(0.2)\n", encoding="utf-8"
    )
    (tmp_path / "test_two.py").write_text("def test_b():\n    pass\n", encoding="utf-8")
    # The files are outside the repository, so the root conftest.py is loaded as a plugin (-p).

    def run(*files: str) -> dict[str, float]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "conftest", *NO_HYPOTHESIS, "-n", "2", *files],
            cwd=tmp_path,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        cache = tmp_path / ".pytest_cache" / "v" / scheduling.CACHE_KEY
        return json.loads(cache.read_text(encoding="utf-8"))

    cached = run("test_one.py", "test_two.py")
    assert set(cached) == {"test_one.py::test_a", "test_two.py::test_b"}
    assert cached["test_one.py::test_a"] >= 0.2 > cached["test_two.py::test_b"]
    (tmp_path / "test_two.py").write_text(
        "def test_b():\n    pass\n\n\ndef test_c():\n    pass\n", encoding="utf-8"
    )
    again = run("test_two.py", "-n", "0")
    assert set(again) == {"test_one.py::test_a", "test_two.py::test_b", "test_two.py::test_c"}
    assert again["test_one.py::test_a"] == cached["test_one.py::test_a"]


def test_the_recorded_seconds_are_never_shrunk_by_a_partial_cache(tmp_path: Path, capsys):
    """``python -m tests.scheduling`` after a few single-file runs of a fresh clone wrote just
    those files: it now refuses while a recorded file that exists has no seconds in the cache."""
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / name).write_text("def test_x():\n    pass\n", encoding="utf-8")
    recorded = tmp_path / "file_seconds.json"
    recorded.write_text('{"gone.py": 9.0, "test_a.py": 1.0, "test_b.py": 2.0}\n', encoding="utf-8")
    cache = tmp_path / ".pytest_cache" / "v" / scheduling.CACHE_KEY
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"test_a.py::test_x": 0.5}), encoding="utf-8")
    assert scheduling.main(tmp_path, recorded) == 1
    assert "no seconds for 1 of the files" in capsys.readouterr().err
    assert json.loads(recorded.read_text(encoding="utf-8"))["test_b.py"] == 2.0  # unchanged
    # With every recorded file that exists in the cache, the file is written anew (gone.py goes).
    cache.write_text(json.dumps({"test_a.py::test_x": 0.5, "test_b.py::test_x": 0.25}), encoding="utf-8")
    assert scheduling.main(tmp_path, recorded) == 0
    assert json.loads(recorded.read_text(encoding="utf-8")) == {"test_a.py": 0.5, "test_b.py": 0.2}
