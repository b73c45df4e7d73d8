"""How the test files of a run are shared between pytest-xdist's workers (the root conftest.py
installs :class:`LongestFirstFileScheduling` for ``--dist loadfile``).

Two changes to pytest-xdist's ``loadfile``, which keeps a file's tests on one worker, in order,
and hands out the files with the most tests first:

* **Longest first.** The next file a worker gets is the one expected to take longest: by the
  seconds its tests took in the last run that ran them (pytest's cache, ``.pytest_cache``), else
  by :data:`RECORDED` (``tests/file_seconds.json``, for a fresh clone, as CI runs), else by its
  number of tests (:data:`GUESS_SECONDS` each). The test count is a poor guess: the six
  Lighthouse audits take longer than the 1,260 examples of the pages, and a long file handed
  out last keeps one worker busy while the other has finished.
* **The built pages parsed once.** The files that read the built pages through
  :func:`tests.soup.page` (:data:`SHARED_PARSE`) go to one worker as one unit: each process
  parses every page once (about 6.5 s of Beautiful Soup), and this way only one process does.

Which worker runs a test changes nothing in its outcome (each file's tests still run in order
on one worker); only the run's length does. ``uv run python -m tests.scheduling`` writes the
cached seconds of the last full run to ``tests/file_seconds.json``.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
RECORDED_FILE = Path(__file__).with_name("file_seconds.json")
CACHE_KEY = "harnessbook/file-seconds"
GUESS_SECONDS = {"tests/browser/": 2.0, "": 0.02}
"""Seconds a test of a file never timed is guessed to take, by the first matching path prefix."""

SHARED_PARSE = frozenset({"tests/test_site.py", "tests/test_cjk_line_breaks.py", "tests/test_field_pages.py"})
"""The test files that call ``soup.page`` (tests/test_repository.py keeps this list true)."""
SHARED_SCOPE = "built pages parsed once: " + " ".join(sorted(SHARED_PARSE))


def recorded_seconds() -> dict[str, float]:
    try:
        data = json.loads(RECORDED_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def guess(file: str, tests: int) -> float:
    per_test = next(seconds for prefix, seconds in GUESS_SECONDS.items() if file.startswith(prefix))
    return tests * per_test


class LongestFirstFileScheduling(LoadFileScheduling):  # type: ignore[misc]
    """``--dist loadfile``, with the longest file handed out first and :data:`SHARED_PARSE` as one unit."""

    def __init__(
        self, config: pytest.Config, log: Any = None, seconds: dict[str, float] | None = None
    ) -> None:
        super().__init__(config, log)
        self.seconds = seconds if seconds is not None else {}

    def _split_scope(self, nodeid: str) -> str:
        file = nodeid.split("::", 1)[0]
        return SHARED_SCOPE if file in SHARED_PARSE else file

    def expected_seconds(self, scope: str, nodeids: dict[str, bool]) -> float:
        per_file: dict[str, int] = defaultdict(int)
        for nodeid in nodeids:
            per_file[nodeid.split("::", 1)[0]] += 1
        return sum(self.seconds.get(file, guess(file, count)) for file, count in per_file.items())

    def _assign_work_unit(self, node: Any) -> None:
        longest = max(self.workqueue, key=lambda scope: self.expected_seconds(scope, self.workqueue[scope]))
        self.workqueue.move_to_end(longest, last=False)  # the unit the base class hands out next
        super()._assign_work_unit(node)


class FileSeconds:
    """Sums the seconds of each file's tests (every phase) in the controlling process, and keeps
    them in pytest's cache at the end of the session for the next run's order."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid.split("::", 1)[0]] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.seconds:
            return
        kept = cache.get(CACHE_KEY, {})
        kept.update({file: round(seconds, 2) for file, seconds in self.seconds.items()})
        cache.set(CACHE_KEY, kept)

    def expected(self) -> dict[str, float]:
        """The seconds to schedule by: the recorded ones, overridden by the cached ones."""
        cache = getattr(self.config, "cache", None)
        return {**recorded_seconds(), **(cache.get(CACHE_KEY, {}) if cache is not None else {})}


def main() -> int:
    """Write the cached seconds (``.pytest_cache``) to tests/file_seconds.json, sorted."""
    cached = ROOT / ".pytest_cache" / "v" / CACHE_KEY
    try:
        seconds = json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        print(f"no seconds in {cached.relative_to(ROOT)}: run `uv run pytest` first", file=sys.stderr)
        return 1
    existing = {f for f in seconds if (ROOT / f).is_file()}
    RECORDED_FILE.write_text(
        json.dumps({f: round(seconds[f], 1) for f in sorted(existing)}, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{RECORDED_FILE.relative_to(ROOT)}: {len(existing)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
