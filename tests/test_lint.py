"""The code's health, checked by the README's test command: ruff's lint and format, mypy --strict.

The rules live in pyproject.toml ([tool.ruff], [tool.mypy]); these tests only run the tools on
the whole repository, so a lint error, an unformatted file or a type error fails ``pytest``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "command",
    [
        ("ruff", "check", "--no-fix", "--output-format", "concise", "."),
        ("ruff", "format", "--check", "--diff", "."),
    ],
    ids=["ruff-check", "ruff-format"],
)
def test_ruff(command: tuple[str, ...]):
    completed = run(*command)
    assert completed.returncode == 0, completed.stdout[-8000:] + completed.stderr[-2000:]


def test_mypy_strict():
    # The files and the strictness are pyproject.toml's: strict for every file it lists but tests/,
    # whose bodies are checked.
    completed = run("mypy")
    assert completed.returncode == 0, completed.stdout[-8000:] + completed.stderr[-2000:]
    assert completed.stdout.startswith("Success: no issues found")


def test_mypy_is_strict_for_the_package():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert {"src", "hooks", "docs/conftest.py", "tests", "benchmarks"} <= set(config["files"])
    relaxed = [o for o in config.get("overrides", []) if o.get("disallow_untyped_defs") is False]
    assert all(o["module"] == ["tests.*"] for o in relaxed), "only the tests may skip annotations"
