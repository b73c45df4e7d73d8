"""A quiet moment in a run: one test measures with no other worker's test running beside it.

A Lighthouse audit scores the CPU time it sees, and beside the other pytest-xdist worker it sees
that worker's load as well as the page's. In a slow hour of the two-core machine the six pages'
best runs scored 81 to 91 beside it (a fresh clone under ``.ci/run``, 20:37 on 2026-12-07), and
95 to 99 alone minutes before, with the same code. An audit that misses its target beside the
other worker is run once more in a quiet moment (``tests/browser/test_lighthouse.py``), and the
page, not its neighbour, decides whether the test fails.

Two locks on files in the run's own folder, the same for every worker of one run (the controller
names the folder, :class:`Controller`; a page's own ``python -m pytest`` is a run of its own
and never waits on this one):

* every test of a worker runs holding the *busy* lock shared (:func:`running`), after passing
  the *gate*: it takes the gate shared and lets it go at once;
* :func:`quiet` takes the gate, then the busy lock, each exclusively: no test starts once it
  holds the gate, and it measures once the tests under way have ended. Then it lets both go.

The gate keeps the wait short: on the busy lock alone, a worker that ends a test and starts the
next takes its shared lock again at once, and an exclusive request may wait behind it for ever.
Outside pytest-xdist (``-n 0``) there is no other worker: both do nothing.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no file locks of this kind, no quiet moments
    fcntl = None  # type: ignore[assignment]

WORKER_INPUT = "harnessbook_quiet_folder"
"""The key of ``config.workerinput`` that names the run's folder of locks."""


def folder_of(config: Any) -> Path | None:
    """The run's folder of locks, in a worker of a run that has one; else None."""
    folder = getattr(config, "workerinput", {}).get(WORKER_INPUT)
    return Path(folder) if folder and fcntl is not None else None


@contextlib.contextmanager
def _locked(path: Path, mode: int) -> Iterator[None]:
    with open(path, "a") as file:  # a lock belongs to this open file: others conflict with it
        fcntl.flock(file, mode)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


@contextlib.contextmanager
def running(folder: Path | None) -> Iterator[None]:
    """Hold the busy lock shared while a test runs, once no quiet moment is asked for."""
    if folder is None:
        yield
        return
    with _locked(folder / "gate", fcntl.LOCK_SH):
        pass
    with _locked(folder / "busy", fcntl.LOCK_SH):
        yield


@contextlib.contextmanager
def quiet(folder: Path | None) -> Iterator[None]:
    """Wait until no other test runs, and let none start until the block ends."""
    if folder is None:
        yield
        return
    with _locked(folder / "gate", fcntl.LOCK_EX), _locked(folder / "busy", fcntl.LOCK_EX):
        yield


MARKER = "quiet_moments"
"""Marks a test that takes quiet moments itself: it runs without the busy lock (it would wait on
its own shared lock)."""


class Controller:
    """The controller's part (the root conftest.py registers it where pytest-xdist runs): one
    folder of locks for the run, named to each worker, removed at the end."""

    def __init__(self) -> None:
        self.folder: Path | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="harnessbook-quiet-"))
        node.workerinput[WORKER_INPUT] = str(self.folder)

    def pytest_unconfigure(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


class Worker:
    """A worker's part: each of its tests runs holding the busy lock (:func:`running`), but
    those marked :data:`MARKER`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        if item.get_closest_marker(MARKER):
            return (yield)
        with running(self.folder):
            return (yield)
