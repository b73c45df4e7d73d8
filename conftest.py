"""pytest settings for every run in this repository, whichever paths it is given (tests/, docs/).

pyproject.toml runs pytest with ``-n auto --dist loadfile``: one pytest-xdist worker per CPU
core, and all the tests of a file on one worker. When the command names only files, no file can
use more than one worker, so more workers than files only cost their start-up (about two
seconds for two workers here, before the first test runs). :func:`pytest_xdist_auto_num_workers`
gives ``-n auto`` at most one worker per named file, and none at all (the tests run in pytest's
own process) for a single file, such as ``pytest docs/chapters/06-context-packet/rules.md``.
The tests and their outcomes are the same either way; ``-n N`` on the command line still wins.
Which worker gets which file, and in what order, is :mod:`tests.scheduling`'s: the longest
file first, and the files that parse the built pages together.

Byte code is cached, even where ``PYTHONDONTWRITEBYTECODE`` is set (these machines set it): see
:func:`keep_byte_code`. A worker skips the interpreter's clean-up when it exits: see
:func:`pytest_configure`. What collection built is kept out of the garbage collector's passes:
see :func:`pytest_collection_finish`.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import sys
from pathlib import Path

import pytest


def keep_byte_code() -> None:
    """Let this process and every process it starts write ``.pyc`` files (``__pycache__``
    folders, which git ignores), whatever ``PYTHONDONTWRITEBYTECODE`` says.

    A test run starts many Python processes: two workers, the site builds, the pages' own
    ``python -m pytest`` and ``harnessbook`` commands. Without byte code on disk each of them
    compiles the project's modules again, and pytest rewrites the asserts of every test module,
    conftest and plugin package it imports (all of hypothesis: about 80 modules), since pytest
    only caches a rewritten module where byte code may be written. The installed packages'
    byte code comes from ``uv sync --compile-bytecode``; this covers the rest. Measured on the
    two-core machine: a page's nested pytest run took 0.52 s instead of 0.60 s, and
    ``pytest docs`` used about 7 % less CPU time.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


keep_byte_code()


def exit_at_once() -> None:
    """End this process with ``os._exit`` once its other exit handlers have run."""
    logging.shutdown()  # its exit handler was registered before this one, so it would run after
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_configure(config: pytest.Config) -> None:
    """A pytest-xdist worker skips the interpreter's clean-up when it exits.

    By then the worker has run its tests, torn down its fixtures and sent every report, with
    the session's exit status, to the controller, which is waiting for it to exit. What is left
    is Python's own clean-up: freeing, one by one, what the tests kept for the session (every
    built page parsed, by Beautiful Soup when this was measured: hundreds of thousands of objects) and collecting the
    cycles among them. That took 3.5 s of the 5 s between the last test and the end of
    ``pytest -m "not browser"``. mypy ends its processes the same way. Exit handlers registered
    later (the tests' nginx, for one) still run first.

    Only a worker (``config.workerinput``): the processes its tests start inherit its
    environment, ``PYTEST_XDIST_WORKER`` included, and a page's own ``python -m pytest`` must
    still exit with its own status.

    Each worker's tests hold a lock that a test measuring alone can wait on (:mod:`tests.quiet`),
    and the controller names the run's locks to its workers.
    """
    if hasattr(config, "workerinput"):
        atexit.register(exit_at_once)
        from tests import quiet

        folder = quiet.folder_of(config)
        if folder is not None:
            config.pluginmanager.register(quiet.Worker(folder), "harnessbook-quiet-worker")
    elif config.pluginmanager.hasplugin("xdist"):
        from tests import quiet
        from tests.scheduling import RunSeconds

        config.pluginmanager.register(RunSeconds(config), "harnessbook-test-seconds")
        config.pluginmanager.register(quiet.Controller(), "harnessbook-quiet-controller")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built out of the cyclic garbage collector's reach (``gc.freeze``).

    Each process that runs tests has by then imported every test module and plugin and holds
    every collected item, the pages' parsed Sybil documents included: a large heap that lives
    until the process ends, and that each full pass of the collector walked again while the
    property tests allocated their millions of short-lived objects. Frozen, it is left alone;
    nothing a test creates is frozen, so a test's own garbage is collected as before. Measured
    on the two-core machine (``-m "not browser"``, three runs each, alternating): the two
    workers used 32.7 s of CPU time instead of 34.7 s.
    """
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` hands out the longest file first (:mod:`tests.scheduling`)."""
    if config.option.dist != "loadfile":
        return None
    from tests.scheduling import LongestFirstFileScheduling, RunSeconds

    timer = config.pluginmanager.get_plugin("harnessbook-test-seconds")
    return timer.scheduler(log) if isinstance(timer, RunSeconds) else LongestFirstFileScheduling(config, log)


def named_files(config: pytest.Config) -> set[Path] | None:
    """The files the command line names (``path::test`` ids count as their file), or None when
    it names a directory, names nothing (pytest then runs ``testpaths``) or a path that is not a file."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return None
    files = set()
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::", 1)[0])
        if not path.is_file():
            return None
        files.add(path.resolve())
    return files


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    files = named_files(config)
    if files is None or config.option.dist != "loadfile":
        return None  # xdist's own answer: one worker per core
    # Only pytest-xdist calls this hook, so it is installed here.
    from xdist.plugin import pytest_xdist_auto_num_workers as per_core  # type: ignore[import-untyped]

    workers = min(len(files), int(per_core(config)))
    return 0 if workers <= 1 else workers
