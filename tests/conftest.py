"""Shared fixtures: the book built once per test session, with ``mkdocs build --strict``."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BuiltSite:
    """The strict build's output folder and everything it printed."""

    path: Path
    log: str


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """Build the whole book (every edition) once, strictly, into a temporary folder.

    A failed build fails every test that needs the site, with the build's own output.
    """
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore::DeprecationWarning")
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = completed.stdout + completed.stderr
    if completed.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed (exit {completed.returncode}):\n{log[-6000:]}")
    return BuiltSite(out, log)
