"""The cache of site builds (tests/conftest.py's ``cached_build``), with a stand-in for mkdocs:
a build asked for is reused while unchanged, and the builds named ``along`` are made beside a
missing one, at the same time, only when they are missing and nobody else is making them."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests import conftest

# Writes "<marks>/started-<NAME>", waits until every name in WAIT has started (so a build
# made after another, not beside it, times out), then makes the site folder; exits with FAIL.
FAKE_MKDOCS = """
import os, sys, time
out, marks = sys.argv[1], sys.argv[2]
name = os.environ.get("NAME", "book")
open(os.path.join(marks, "started-" + name), "w").close()
deadline = time.monotonic() + 20
while not all(os.path.exists(os.path.join(marks, "started-" + n)) for n in os.environ.get("WAIT", "").split()):
    if time.monotonic() > deadline:
        print("the other build never started beside this one")
        sys.exit(3)
    time.sleep(0.01)
os.makedirs(out)
print("built", name)
sys.exit(int(os.environ.get("FAIL", "0")))
"""

PUBLISHED = {"NAME": "published"}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """conftest's cache in ``tmp_path / "cache"``, builds by :data:`FAKE_MKDOCS`; each build's
    environment may set ``NAME``, ``WAIT`` and ``FAIL``."""
    marks = tmp_path / "marks"
    marks.mkdir()

    def start(out: Path, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", FAKE_MKDOCS, str(out), str(marks)],
            env={**(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    monkeypatch.setattr(conftest, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(conftest, "site_fingerprint", lambda: "same tree")
    monkeypatch.setattr(conftest, "_start_build", start)
    monkeypatch.delenv("HARNESSBOOK_FRESH_SITE", raising=False)
    return marks


def started(marks: Path) -> set[str]:
    return {p.name.removeprefix("started-") for p in marks.iterdir()}


def test_a_missing_build_is_made_with_the_missing_along_builds_beside_it(cache: Path) -> None:
    book = conftest.cached_build({"WAIT": "book published"}, along=[dict(PUBLISHED, WAIT="book published")])
    assert book.path.is_dir() and "built book" in book.log
    assert started(cache) == {"book", "published"}
    # The published one is complete and cached: asking for it builds nothing.
    for mark in cache.iterdir():
        mark.unlink()
    published = conftest.cached_build(dict(PUBLISHED, WAIT="book published"))
    assert "built published" in published.log and started(cache) == set()


def test_along_builds_are_made_only_beside_a_missing_build(cache: Path) -> None:
    conftest.cached_build()
    assert started(cache) == {"book"}
    conftest.cached_build(along=[PUBLISHED])  # the book is there: nothing is built
    assert started(cache) == {"book"}


def test_an_along_build_that_another_process_is_making_is_left_to_it(cache: Path) -> None:
    conftest.CACHE.mkdir(parents=True)
    with open(conftest.CACHE / f"{conftest._build_name(PUBLISHED)}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a build in another worker holds it
        conftest.cached_build(along=[PUBLISHED])
    assert started(cache) == {"book"}


def test_a_failed_along_build_is_not_cached_and_the_build_asked_for_still_is(cache: Path) -> None:
    book = conftest.cached_build(along=[dict(PUBLISHED, FAIL="1")])
    assert book.path.is_dir()
    assert not (conftest.CACHE / f"{conftest._build_name(dict(PUBLISHED, FAIL='1'))}.log").exists()


def test_a_failed_build_fails_the_test_with_its_output_and_keeps_the_along_build(cache: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"(?s)exit 1.*built book"):
        conftest.cached_build({"FAIL": "1"}, along=[PUBLISHED])
    assert not (conftest.CACHE / f"{conftest._build_name({'FAIL': '1'})}.log").exists()
    assert (conftest.CACHE / f"{conftest._build_name(PUBLISHED)}.log").exists()


def test_an_along_build_finished_while_its_lock_was_taken_is_not_made_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another worker can finish the along build between the look for its log and the lock."""
    published_log = conftest.CACHE / f"{conftest._build_name(PUBLISHED)}.log"
    real_flock = fcntl.flock

    def flock(file: Any, operation: int) -> None:
        if operation & fcntl.LOCK_NB and Path(file.name).stem == published_log.stem:
            published_log.write_text("built published by another worker", encoding="utf-8")
        return real_flock(file, operation)

    conftest.CACHE.mkdir(parents=True)
    monkeypatch.setattr(fcntl, "flock", flock)  # the module conftest locks with
    conftest.cached_build(along=[PUBLISHED])
    assert started(cache) == {"book"}


def test_old_builds_are_removed_beyond_the_kept_number(cache: Path) -> None:
    for n in range(conftest.KEEP + 2):
        conftest.cached_build({"NAME": f"build{n}"})
    kept = [p for p in conftest.CACHE.iterdir() if p.is_dir()]
    assert len(kept) == conftest.KEEP
    assert {p.name for p in kept} == {f.stem for f in conftest.CACHE.glob("*.log")}
    assert conftest._build_name({"NAME": f"build{conftest.KEEP + 1}"}) in {p.name for p in kept}
