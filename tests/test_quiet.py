"""Quiet moments in a run (tests/quiet.py): a test that measures alone waits for the tests under
way and holds back the next ones, and only in a run of pytest-xdist workers."""

from __future__ import annotations

import fcntl
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import quiet


def gate_is_closed(folder: Path) -> bool:
    """Whether a quiet moment holds the gate (a shared lock on it cannot be had now)."""
    with open(folder / "gate", "a") as file:
        try:
            fcntl.flock(file, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(file, fcntl.LOCK_UN)
        return False


def test_a_quiet_moment_waits_for_the_test_under_way_and_holds_back_the_next(tmp_path: Path):
    events: list[str] = []
    started, first_may_end, quiet_may_end = threading.Event(), threading.Event(), threading.Event()

    def first_test() -> None:
        with quiet.running(tmp_path):
            started.set()
            first_may_end.wait(10)
            events.append("first test ends")

    def measure() -> None:
        with quiet.quiet(tmp_path):
            events.append("measured alone")
            quiet_may_end.wait(10)
            events.append("quiet moment ends")

    def next_test() -> None:
        with quiet.running(tmp_path):
            events.append("next test runs")

    threads = [threading.Thread(target=first_test)]
    threads[0].start()
    assert started.wait(10)
    threads.append(threading.Thread(target=measure))
    threads[1].start()
    deadline = time.monotonic() + 10
    while not gate_is_closed(tmp_path):
        assert time.monotonic() < deadline, "the quiet moment never took the gate"
        time.sleep(0.01)
    threads.append(threading.Thread(target=next_test))
    threads[2].start()
    time.sleep(0.2)  # time enough for either to go ahead if it could
    assert events == [], "the quiet moment began beside a test, or a test started once it was asked for"
    first_may_end.set()
    deadline = time.monotonic() + 10
    while events != ["first test ends", "measured alone"]:
        assert time.monotonic() < deadline, events
        time.sleep(0.01)
    time.sleep(0.2)
    assert events == ["first test ends", "measured alone"], "a test started in the quiet moment"
    quiet_may_end.set()
    for thread in threads:
        thread.join(10)
    assert events == ["first test ends", "measured alone", "quiet moment ends", "next test runs"]


def test_tests_run_side_by_side_outside_quiet_moments(tmp_path: Path):
    """The busy lock is shared: two workers' tests never wait for each other."""
    with quiet.running(tmp_path), quiet.running(tmp_path):
        pass


def test_without_workers_there_are_no_quiet_moments_to_wait_for():
    """A run without pytest-xdist workers (``-n 0``, a page's own pytest run) has no folder of
    locks: both are no-ops, and nothing is written."""
    assert quiet.folder_of(SimpleNamespace()) is None
    assert quiet.folder_of(SimpleNamespace(workerinput={})) is None
    with quiet.quiet(None), quiet.running(None):
        pass


def test_a_worker_of_this_run_has_its_folder_of_locks(request: pytest.FixtureRequest):
    """Under pytest-xdist, the controller named the run's folder to this worker."""
    if not hasattr(request.config, "workerinput"):
        pytest.skip("not a pytest-xdist worker: this run has no quiet moments (-n 0)")
    folder = quiet.folder_of(request.config)
    assert folder is not None and folder.is_dir()
    assert request.node.get_closest_marker(quiet.MARKER) is None
