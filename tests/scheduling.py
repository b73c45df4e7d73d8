"""How the test files of a run are shared between pytest-xdist's workers (the root conftest.py
installs :class:`LongestFirstFileScheduling` for ``--dist loadfile``).

Four changes to pytest-xdist's ``loadfile``, which keeps a file's tests on one worker, in order,
and hands out the files with the most tests first:

* **Longest first.** The next file a worker gets is the one expected to take longest. A test
  counts for the seconds it took the last time it ran (pytest's cache, ``.pytest_cache``, so a
  run of a few tests changes nothing for the others); a test never timed here, for the share of
  its file in ``tests/file_seconds.json`` (what a fresh clone, as CI, goes by); a test of a file
  not in it either, :data:`GUESS_SECONDS`. The test count is a poor guess: the six
  Lighthouse audits take longer than the 1,272 examples of the pages, and a long file handed
  out last keeps one worker busy while the other has finished.
* **The built pages parsed once.** The files that read the built pages through
  :func:`tests.soup.page` (:data:`SHARED_PARSE`) go to one worker as one unit: each process
  parses every page once, and this way only one process does. With lxml that is about 0.2 s
  (with Beautiful Soup, before, 4.6 s), so the unit matters less than it did.
* **Cold caches first.** A file whose work is kept in a cache (:data:`COLD_CACHES`: mypy's
  cache, the compiled standard library's) costs seconds of CPU where the cache is missing, as on
  a fresh clone, and a fraction of a second otherwise. Where it is missing, the file goes first
  on a worker that is not measuring: on a fresh clone that is while the first Lighthouse audit
  waits for the site's two builds, and no longer beside the audits.
* **Lighthouse beside light work.** The Lighthouse audits (:data:`MEASURED`) are handed out
  first, and while they run the other workers are given the files without a browser, longest
  first, as long as there are any. Lighthouse scores the CPU time it sees: beside a worker
  driving Chromium (the renderer, its compositor and Pyodide's worker: more than a core), a
  field page scored 84 to 91 and was audited up to three times; beside one Python process
  it keeps a core of its own.

Which worker runs a test changes nothing in its outcome (each file's tests still run in order
on one worker); only the run's length does. ``uv run python -m tests.scheduling`` writes the
cached seconds, summed by file, to ``tests/file_seconds.json``.
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
RECORDED_FILE = Path(__file__).with_name("file_seconds.json")
CACHE_KEY = "harnessbook/test-seconds"
GUESS_SECONDS = {"tests/browser/": 2.0, "": 0.02}
"""Seconds a test of a file never timed is guessed to take, by the first matching path prefix."""

SHARED_PARSE = frozenset(
    {
        "tests/test_site.py",
        "tests/test_cjk_line_breaks.py",
        "tests/test_field_pages.py",
        "tests/test_publish.py",
    }
)
"""The test files that call ``soup.page`` (tests/test_scheduling.py keeps this list true)."""
SHARED_SCOPE = "built pages parsed once: " + " ".join(sorted(SHARED_PARSE))
MEASURED = frozenset({"tests/browser/test_lighthouse.py"})
"""Files that measure speed: handed out first, with light work beside them."""
BROWSER = "tests/browser/"
COLD_CACHES = {
    "tests/test_lint.py": ".mypy_cache",  # mypy --strict: about 5 to 9.5 s cold, under 0.5 s warm
    "tests/test_pyodide_pin.py": ".cache/compiled-stdlib",  # Pyodide in Node: about 4 to 6.5 s cold
}
"""Files whose work a cache keeps, by the cache folder (relative to the repository)."""


def cold_files(root: Path = ROOT) -> frozenset[str]:
    """The files of :data:`COLD_CACHES` whose cache folder is missing or empty under ``root``,
    and the compile's file when ``HARNESSBOOK_FRESH_SITE`` is set (it then compiles anew)."""
    cold = {
        file
        for file, folder in COLD_CACHES.items()
        if not (root / folder).is_dir() or not any((root / folder).iterdir())
    }
    if os.environ.get("HARNESSBOOK_FRESH_SITE"):
        cold.add("tests/test_pyodide_pin.py")
    return frozenset(cold)


def recorded_seconds(path: Path = RECORDED_FILE) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def guess(file: str) -> float:
    return next(seconds for prefix, seconds in GUESS_SECONDS.items() if file.startswith(prefix))


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class LongestFirstFileScheduling(LoadFileScheduling):  # type: ignore[misc]
    """``--dist loadfile``, with the longest file handed out first and :data:`SHARED_PARSE` as one unit.

    ``tests``: the seconds each test took when it last ran; ``files``: the seconds of each file
    (``tests/file_seconds.json``), for the tests not in ``tests``."""

    def __init__(
        self,
        config: pytest.Config,
        log: Any = None,
        tests: dict[str, float] | None = None,
        files: dict[str, float] | None = None,
        cold: frozenset[str] | None = None,
    ) -> None:
        super().__init__(config, log)
        self.tests = tests or {}
        self.files = files or {}
        self.cold = cold_files() if cold is None else cold

    def _split_scope(self, nodeid: str) -> str:
        file = file_of(nodeid)
        return SHARED_SCOPE if file in SHARED_PARSE else file

    def expected_seconds(self, nodeids: dict[str, bool]) -> float:
        per_file: dict[str, list[str]] = defaultdict(list)
        for nodeid in nodeids:
            per_file[file_of(nodeid)].append(nodeid)
        total = 0.0
        for file, ids in per_file.items():
            share = self.files[file] / len(ids) if file in self.files else guess(file)
            total += sum(self.tests.get(nodeid, share) for nodeid in ids)
        return total

    def measuring_elsewhere(self, node: Any) -> bool:
        """Whether another worker is running (or has yet to run) tests of a :data:`MEASURED` file."""
        return any(
            scope in MEASURED and not all(tests.values())
            for other, work in self.assigned_work.items()
            if other is not node
            for scope, tests in work.items()
        )

    def next_unit(self, node: Any) -> str:
        """The unit to hand ``node`` next: a :data:`MEASURED` file, else a file whose cache is
        cold (:attr:`cold`), else the longest file, of the files without a browser while a
        measured file runs on another worker."""
        measured = [scope for scope in self.workqueue if scope in MEASURED]
        if measured:
            return measured[0]
        cold = [scope for scope in self.workqueue if scope in self.cold]
        if cold:
            return max(cold, key=lambda scope: self.expected_seconds(self.workqueue[scope]))
        units = list(self.workqueue)
        if self.measuring_elsewhere(node):
            units = [scope for scope in units if not scope.startswith(BROWSER)] or units
        return max(units, key=lambda scope: self.expected_seconds(self.workqueue[scope]))

    def _assign_work_unit(self, node: Any) -> None:
        self.workqueue.move_to_end(self.next_unit(node), last=False)  # the base class hands it out
        super()._assign_work_unit(node)


class RunSeconds:
    """Sums the seconds of each test (every phase) in the controlling process, and keeps them in
    pytest's cache at the end of the session, for the next run's order."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration

    def cached(self) -> dict[str, float]:
        cache = getattr(self.config, "cache", None)
        kept = cache.get(CACHE_KEY, {}) if cache is not None else {}
        return kept if isinstance(kept, dict) else {}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.seconds:
            return
        root = self.config.rootpath  # what nodeids are relative to; a deleted file's tests go
        kept = {nodeid: s for nodeid, s in self.cached().items() if (root / file_of(nodeid)).is_file()}
        kept.update({nodeid: round(seconds, 3) for nodeid, seconds in self.seconds.items()})
        cache.set(CACHE_KEY, kept)

    def scheduler(self, log: Any) -> LongestFirstFileScheduling:
        return LongestFirstFileScheduling(self.config, log, tests=self.cached(), files=recorded_seconds())


def main(root: Path = ROOT, recorded_file: Path = RECORDED_FILE) -> int:
    """Write the cached seconds (``.pytest_cache``), summed by file, to tests/file_seconds.json.

    Refused, the file unchanged, when the cache lacks a file the file records that still exists:
    the cache of a fresh clone after a few single-file runs would have shrunk the schedule to
    those files.
    """
    cached = root / ".pytest_cache" / "v" / CACHE_KEY
    try:
        seconds = json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        print(f"no seconds in {cached.relative_to(root)}: run `uv run pytest` first", file=sys.stderr)
        return 1
    files: dict[str, float] = defaultdict(float)
    for nodeid, value in seconds.items():
        if (root / file_of(nodeid)).is_file():
            files[file_of(nodeid)] += value
    missing = sorted(f for f in recorded_seconds(recorded_file) if (root / f).is_file() and f not in files)
    if missing:
        print(
            f"{cached.relative_to(root)} has no seconds for {len(missing)} of the files "
            f"{recorded_file.name} records ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}): "
            f"run the whole `uv run pytest` first; {recorded_file.name} is unchanged",
            file=sys.stderr,
        )
        return 1
    recorded_file.write_text(
        json.dumps({f: round(files[f], 1) for f in sorted(files)}, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{recorded_file.relative_to(root)}: {len(files)} files")
    return 0


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(
        prog="python -m tests.scheduling",
        description="Write the seconds the last whole `uv run pytest` took, summed by test file, to "
        "tests/file_seconds.json (what a fresh clone schedules by).",
    ).parse_args()
    raise SystemExit(main())
