"""The repository keeps its promises: the README's two commands, and CI runs the second one."""

import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]

# For the pytest runs the tests below start: no cache, and no hypothesis plugin (they run no
# property test, and loading it costs about 0.13 s a process, workers included).
QUIET_PYTEST = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    assert match, "no ```bash block"
    block = match.group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_quick_start_is_exactly_two_commands():
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    assert "mkdocs serve" in commands[0]
    assert commands[1].endswith("pytest")


def test_ci_runs_the_readme_test_command():
    test_command = quick_start_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    last = [line for line in ci.splitlines() if line.strip() and not line.startswith("#")][-1]
    # CI adds --frozen (the lock must already be current); otherwise the very same command.
    assert last.replace(" --frozen", "") == test_command


def test_chinese_section_gives_the_same_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## 中文说明", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    assert match, "no ```bash block"
    block = match.group(1)
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == quick_start_commands()


# --------------------------------------------------------------------------- workers (conftest.py)


def _workers_started(*args: str) -> str | None:
    """The line in which pytest-xdist says how many workers it started, or None (no workers)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", *QUIET_PYTEST, *args, "-k", "no_such_test_name"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 5, done.stdout[-2000:] + done.stderr[-2000:]  # 5: no test selected
    return next((line for line in done.stdout.splitlines() if line.startswith("created: ")), None)


def test_auto_workers_never_outnumber_the_named_files():
    """``-n auto --dist loadfile`` keeps each file on one worker, so a command that names one
    file runs it in pytest's own process, and one that names two starts at most two workers."""
    assert _workers_started("tests/test_figure.py") is None
    # Two workers where xdist would start two or more (none where it would start one); never one
    # per core beyond the two files. (Accepting "none" everywhere let "never parallel" pass.)
    from xdist.plugin import pytest_xdist_auto_num_workers as per_core  # type: ignore[import-untyped]

    cores = int(per_core(SimpleNamespace(option=SimpleNamespace(numprocesses="auto"))))
    two = _workers_started("tests/test_figure.py", "tests/test_cli.py")
    assert two == ("created: 2/2 workers" if cores >= 2 else None), cores


# --------------------------------------------------------------------------- worker exit (conftest.py)

FAILING_FILE = "def test_fails():\n    assert False\n\n\ndef test_passes():\n    pass\n"


def test_a_worker_that_exits_at_once_still_reports_a_failure(tmp_path):
    """conftest.py ends each pytest-xdist worker with ``os._exit(0)``: a failure in a worker
    still fails the run, and a pytest that a test starts, which inherits the worker's
    environment (``PYTEST_XDIST_WORKER``), still exits with its own status."""
    (tmp_path / "test_one.py").write_text(FAILING_FILE, encoding="utf-8")
    # The file is outside the repository, so the root conftest.py is loaded as a plugin (-p).
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "conftest",
        *QUIET_PYTEST,
        "test_one.py",
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for workers, extra in (("2", {}), ("0", {"PYTEST_XDIST_WORKER": "gw0"})):
        done = subprocess.run(
            [*command, "-n", workers],
            cwd=tmp_path,
            env=dict(env, **extra),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, (
            f"-n {workers}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
        assert "1 failed, 1 passed" in done.stdout, done.stdout[-2000:]
