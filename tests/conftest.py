"""Shared fixtures: the book built once, with ``mkdocs build --strict``, and reused while its
sources are unchanged.

The build goes to ``.cache/site/<fingerprint>/`` (gitignored). The fingerprint is a hash of
every file the build reads (``docs/``, ``src/``, ``hooks/``, ``overrides/``, ``deploy/``,
``mkdocs.yml``, ``moved.yml``, ``pyproject.toml``, ``uv.lock``) and of the Python version, so a
change to any of them builds anew; an unchanged tree reuses the last strict build, its log
included. Test workers (pytest-xdist) take a file lock per build, so one builds and the others
wait and reuse it, while a different build (the published one) can go on at the same time; the
first to find the book missing builds the published one beside it (see ``built_site``).
``HARNESSBOOK_FRESH_SITE=1`` always builds anew.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "site"
SITE_INPUTS = (
    "docs",
    "src",
    "hooks",
    "overrides",
    "deploy",
    "mkdocs.yml",
    "moved.yml",
    "pyproject.toml",
    "uv.lock",
)
PUBLISHED_ENV = {
    "SITE_URL": "https://books.example.org/harness/",
    "REPO_URL": "https://github.com/example/harnessbook",
}
"""The environment of the book built as the deploy workflow builds it (tests/test_publish.py)."""
BUILD_VARIABLES = ("SITE_URL", "REPO_URL")
"""The variables the build reads (mkdocs.yml, hooks/publish.py): a build gets them from its ``env``
alone, never from the environment the tests run in, so that a cached build is the build its name
says (a ``SITE_URL`` exported in the shell would otherwise be baked into the local build and
reused by every later run)."""
KEEP = 4  # cached builds kept (the local and the published build, twice); older ones are removed
REPORT_PROPERTY = "browser_report"
"""A test's ``user_properties`` entry that the run's closing summary lists (tests/browser)."""


@dataclass(frozen=True)
class BuiltSite:
    """The strict build's output folder and everything it printed."""

    path: Path
    log: str


@functools.cache
def book_config() -> dict[str, Any]:
    """mkdocs.yml as the tests' local build reads it: without :data:`BUILD_VARIABLES`, whatever
    the shell exports (its ``!ENV`` tags take their defaults, as in that build)."""
    from mkdocs.utils.yaml import yaml_load

    saved = {name: os.environ.pop(name) for name in BUILD_VARIABLES if name in os.environ}
    try:
        with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
            return yaml_load(file)
    finally:
        os.environ.update(saved)


def local_site_url() -> str:
    """The site_url of the tests' local build (mkdocs.yml's default, never the shell's)."""
    return str(book_config()["site_url"])


def _input_files(names: Iterable[str], root: Path) -> Iterator[Path]:
    for name in names:
        path = root / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc":
                    yield file


def files_fingerprint(names: Iterable[str], root: Path = ROOT) -> str:
    """A hash of the Python version and of every file of ``names`` (files or folders under
    ``root``), path and content: the same tree gives the same fingerprint."""
    digest = hashlib.sha256(sys.version.encode())
    for file in _input_files(names, root):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()[:20]


def site_fingerprint() -> str:
    """A hash of everything the build reads (:data:`SITE_INPUTS`)."""
    return files_fingerprint(SITE_INPUTS)


def _start_build(out: Path, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``mkdocs build --strict`` into ``out``, with :data:`BUILD_VARIABLES` as ``env`` sets
    them (and only so); its output (stdout and stderr) goes to a pipe."""
    environment = {name: value for name, value in os.environ.items() if name not in BUILD_VARIABLES}
    return subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=dict(
            environment, NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore::DeprecationWarning", **(env or {})
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finish_build(build: subprocess.Popen[str]) -> tuple[int, str]:
    log, _ = build.communicate(timeout=600)
    return build.returncode, log


def build_site(out: Path, env: Mapping[str, str] | None = None) -> tuple[int, str]:
    """``mkdocs build --strict`` into ``out``: the exit code and everything it printed."""
    return _finish_build(_start_build(out, env))


def _prune(keep: str) -> None:
    builds = sorted(
        (p for p in CACHE.iterdir() if p.is_dir() and p.name != keep), key=lambda p: p.stat().st_mtime
    )
    for old in builds[: max(0, len(builds) - (KEEP - 1))]:
        shutil.rmtree(old, ignore_errors=True)
        (CACHE / f"{old.name}.log").unlink(missing_ok=True)
        (CACHE / f"{old.name}.lock").unlink(missing_ok=True)


def _build_name(env: Mapping[str, str] | None) -> str:
    key = site_fingerprint() + "".join(f"\0{k}={v}" for k, v in sorted((env or {}).items()))
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def _claim_missing(envs: Sequence[Mapping[str, str]], locks: ExitStack) -> dict[str, Mapping[str, str]]:
    """The builds of ``envs`` that are missing and that no other process is building, by name,
    each with its lock now held (until ``locks`` closes)."""
    claimed: dict[str, Mapping[str, str]] = {}
    for env in envs:
        name = _build_name(env)
        if name in claimed or (CACHE / f"{name}.log").exists():
            continue
        lock = locks.enter_context(open(CACHE / f"{name}.lock", "w"))  # noqa: SIM115 - closed by ``locks``
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # another process is building it
        if not (CACHE / f"{name}.log").exists():  # not finished while we looked
            claimed[name] = env
    return claimed


def cached_build(env: Mapping[str, str] | None = None, along: Sequence[Mapping[str, str]] = ()) -> BuiltSite:
    """The book built strictly with ``env`` added to the environment, reused while unchanged.

    A failed build fails the calling test with the build's own output and is never cached.

    ``along``: other builds the run will read (each an ``env``). When this build is missing,
    those of them that are missing too, and that no other process is building, are built at the
    same time, a core each, and whoever asks for one later finds it ready. Only what is missing
    is built: ``HARNESSBOOK_FRESH_SITE`` renews ``env``'s build alone.
    """
    CACHE.mkdir(parents=True, exist_ok=True)
    name = _build_name(env)
    site, log_file = CACHE / name, CACHE / f"{name}.log"
    # One lock per build: one worker builds it while the others wait, then reuse it, and two
    # different builds (the local and the published one) go on at the same time, a core each.
    with ExitStack() as locks:
        lock = locks.enter_context(open(CACHE / f"{name}.lock", "w"))
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.environ.get("HARNESSBOOK_FRESH_SITE") or not log_file.exists():
            builds = {name: env, **_claim_missing(along, locks)}
            started = {}
            for build_name, build_env in builds.items():
                shutil.rmtree(CACHE / build_name, ignore_errors=True)
                (CACHE / f"{build_name}.log").unlink(missing_ok=True)
                started[build_name] = _start_build(CACHE / build_name, build_env)
            failure = None
            for build_name, build in started.items():
                code, log = _finish_build(build)
                if code == 0:
                    (CACHE / f"{build_name}.log").write_text(log, encoding="utf-8")  # last: complete
                    _prune(build_name)
                    continue
                # Never cached: whoever asks for an ``along`` build again builds it and sees why.
                shutil.rmtree(CACHE / build_name, ignore_errors=True)
                if build_name == name:
                    failure = f"mkdocs build --strict failed (exit {code}):\n{log[-6000:]}"
            if failure:
                pytest.fail(failure)
        os.utime(site)
        return BuiltSite(site, log_file.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def built_site() -> BuiltSite:
    """The whole book (every edition), built strictly once and reused while its sources are unchanged.

    When it is missing, the published build (:data:`PUBLISHED_ENV`) is built beside it if it is
    missing too. In a run on a fresh clone the first test to ask is a Lighthouse audit (handed
    out first, tests/scheduling.py): this way both builds are done before the audits start, and
    none of them runs beside an audit (Lighthouse scores the CPU time it sees).
    """
    return cached_build(along=[PUBLISHED_ENV])


_REPORTED: list[tuple[str, str]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Gather the lines tests asked for (``browser_report``), from this process or a worker."""
    if report.when == "teardown":  # by then the report carries every line the test recorded
        _REPORTED.extend(
            (report.nodeid, str(value)) for name, value in report.user_properties if name == REPORT_PROPERTY
        )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _REPORTED:
        terminalreporter.section("browser tests: screenshots and audits")
        for _nodeid, line in sorted(_REPORTED):
            terminalreporter.write_line(line)
