"""Purity: a call opens no file, socket or subprocess, and needs no clock and no environment.

The audit hook is installed once for the whole test process (hooks cannot be removed), and
does nothing unless ``_Recorder.active`` is set around the call under test.
"""

from __future__ import annotations

import datetime
import importlib
import os
import pkgutil
import socket
import subprocess
import sys
import time
from collections.abc import MutableMapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import pytest

from harnessbook import InvalidRequestError, build_context_packet, demo_request, validate_request

FORBIDDEN_PREFIXES = (
    "open",  # builtins.open, io.open, os.open
    "os.listdir",
    "os.scandir",
    "os.remove",
    "os.rename",
    "os.mkdir",
    "os.chdir",
    "os.system",
    "os.exec",
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.kill",
    "os.putenv",
    "os.unsetenv",
    "subprocess.",
    "socket.",
    "urllib.",
    "http.",
    "ftplib.",
    "smtplib.",
    "ctypes.",
    "shutil.",
    "tempfile.",
    "import",  # a lazy import would read files on first use
    "glob.",
    "sqlite3.",
    "webbrowser.",
)


# One shared state for the process: the hook installed first keeps working even if this
# module is imported again, because every import finds the same state object.
_STATE: dict[str, Any] = getattr(sys, "_harnessbook_purity_state", None) or {"active": False, "events": []}


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _STATE["active"] and event.startswith(FORBIDDEN_PREFIXES):
        _STATE["events"].append(event)


if not hasattr(sys, "_harnessbook_purity_state"):
    sys._harnessbook_purity_state = _STATE  # type: ignore[attr-defined]
    sys.addaudithook(_hook)


@contextmanager
def recording():
    events: list[str] = []
    _STATE["events"] = events
    _STATE["active"] = True
    try:
        yield events
    finally:
        _STATE["active"] = False


def rich_requests() -> list[Any]:
    base = demo_request()
    blocked = demo_request()
    del blocked["candidates"][0]["source"]
    refresh = demo_request()
    refresh["candidates"][0]["freshness"] = "expired"
    refresh["candidates"].append(
        {
            "id": "memo",
            "kind": "history-summary",
            "source": "memory",
            "capturedAt": "2026-07-14T08:00:00+08:00",
            "relevance": "background",
            "freshness": "fresh",
            "sizeUnits": 1,
            "content": "old",
            "conflictsWith": "large-ci-log",
        }
    )
    return [base, blocked, refresh]


def invalid_requests() -> list[Any]:
    typo: Any = demo_request()
    typo["candidates"][0]["sizeUnit"] = typo["candidates"][0].pop("sizeUnits")  # difflib suggestion path
    typo["candidates"][1]["capturedAt"] = "2026-02-30T25:00:00"
    typo["budgetUnits"] = 10**5000
    typo["candidates"][1]["content"] = -(10**5000)
    return [None, [], {"x": 1}, typo]


def run_everything() -> list[object]:
    outcomes: list[object] = []
    for request in rich_requests():
        outcomes.append(build_context_packet(request))
    for request in invalid_requests():
        try:
            validate_request(request)
        except InvalidRequestError as error:
            outcomes.append(error.problems)
        try:
            build_context_packet(request)
        except InvalidRequestError as error:
            outcomes.append(str(error))
    return outcomes


def test_the_audit_hook_sees_files_sockets_and_subprocesses():
    # The hook must be able to fail the test below: show it records what it should.
    with recording() as events:
        with open(__file__, "rb"):
            pass
        sock = socket.socket()
        sock.close()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert "open" in events
    assert any(e.startswith("socket.") for e in events)
    assert "subprocess.Popen" in events
    # And nothing is recorded while the flag is off.
    seen = len(events)
    with open(__file__, "rb"):
        pass
    assert len(events) == seen
    assert _STATE["active"] is False


def test_a_call_opens_no_file_socket_or_subprocess():
    with recording() as events:
        outcomes = run_everything()
    assert events == []
    assert len(outcomes) == 3 + 2 * 4


# ---------------------------------------------------------------------------
# No clock, no environment
# ---------------------------------------------------------------------------


class ClockRead(AssertionError):
    pass


def _raise(*args, **kwargs):
    raise ClockRead("the builder read the clock")


class _RaisingDate(datetime.date):
    today = classmethod(_raise)


class _RaisingDateTime(datetime.datetime):
    now = classmethod(_raise)
    utcnow = classmethod(_raise)
    today = classmethod(_raise)


class RaisingEnviron(MutableMapping[str, str]):
    """Stands in for ``os.environ``: any access fails the test."""

    def _fail(self, *args, **kwargs):
        raise AssertionError("the builder read the environment")

    __getitem__ = __setitem__ = __delitem__ = __iter__ = __len__ = __contains__ = _fail
    get = keys = items = values = copy = _fail


CLOCKS = (
    "time",
    "time_ns",
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "process_time",
    "process_time_ns",
    "localtime",
    "gmtime",
    "ctime",
    "asctime",
    "strftime",
)


def _package_modules() -> list[ModuleType]:
    """Every module of the package, imported (a name bound at import time lives in them)."""
    import harnessbook

    names = [
        info.name
        for info in pkgutil.walk_packages(harnessbook.__path__, "harnessbook.")
        if not info.name.endswith(".__main__")  # runs the command line when imported
    ]
    return [harnessbook, *(importlib.import_module(name) for name in names)]


@contextmanager
def no_clock_no_environment(monkeypatch: pytest.MonkeyPatch):
    """Every clock and the environment raise: in their modules, and wherever the package bound
    them by name at import (``from time import monotonic``, ``from os import environ``), which
    patching the modules alone would not reach."""
    raising: dict[int, object] = {id(getattr(time, name)): _raise for name in CLOCKS}
    raising.update(
        {
            id(datetime.date): _RaisingDate,
            id(datetime.datetime): _RaisingDateTime,
            id(os.environ): RaisingEnviron(),
            id(os.getenv): _raise,
            id(os.environb): RaisingEnviron(),
        }
    )
    bound = [
        (module, name, raising[id(value)])
        for module in _package_modules()
        for name, value in vars(module).items()
        if id(value) in raising
    ]
    with monkeypatch.context() as patch:
        for name in CLOCKS:
            patch.setattr(time, name, _raise)
        patch.setattr(datetime, "date", _RaisingDate)
        patch.setattr(datetime, "datetime", _RaisingDateTime)
        patch.setattr(os, "environ", RaisingEnviron())
        patch.setattr(os, "getenv", _raise)
        patch.setattr(os, "environb", RaisingEnviron(), raising=False)
        for module, name, replacement in bound:
            patch.setattr(module, name, replacement)
        yield


def test_the_patches_do_raise(monkeypatch):
    with no_clock_no_environment(monkeypatch):
        for name in CLOCKS:
            with pytest.raises(ClockRead):
                getattr(time, name)()
        with pytest.raises(ClockRead):
            datetime.datetime.now()
        with pytest.raises(ClockRead):
            datetime.date.today()
        with pytest.raises(AssertionError):
            os.environ.get("HOME")
        with pytest.raises(AssertionError):
            os.environ["HOME"]
    assert callable(time.time) and time.time() > 0  # restored


def test_names_bound_from_the_clock_or_the_environment_raise_too(monkeypatch):
    """A module of the package that imported a clock or the environment by name (a review's
    mutant: ``from os import environ`` and ``from time import monotonic`` in the builder) keeps
    the real objects when only ``os`` and ``time`` are patched."""
    from harnessbook.context_packet import builder

    monkeypatch.setattr(builder, "environ", os.environ, raising=False)
    monkeypatch.setattr(builder, "monotonic", time.monotonic, raising=False)
    monkeypatch.setattr(builder, "now_class", datetime.datetime, raising=False)
    with no_clock_no_environment(monkeypatch):
        with pytest.raises(AssertionError):
            builder.environ.get("HOME")  # type: ignore[attr-defined]
        with pytest.raises(ClockRead):
            builder.monotonic()  # type: ignore[attr-defined]
        with pytest.raises(ClockRead):
            builder.now_class.now()  # type: ignore[attr-defined]


def test_a_call_needs_no_clock_and_no_environment(monkeypatch):
    expected = run_everything()
    with no_clock_no_environment(monkeypatch):
        outcomes = run_everything()
    assert outcomes == expected
