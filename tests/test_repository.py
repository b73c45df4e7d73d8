"""The repository keeps its promises: the README's two commands, and CI runs the second one."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

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
    # CI adds --locked (it stops if uv.lock is not pyproject.toml's; --frozen would not look);
    # otherwise the very same command.
    assert last.replace(" --locked", "") == test_command
    assert "uv sync --locked " in ci and "--frozen" not in ci


def test_the_lock_file_is_current():
    """uv.lock resolves pyproject.toml as it is now (what CI's ``--locked`` requires): a
    dependency added to pyproject.toml without ``uv lock`` fails here, not only on CI."""
    uv = shutil.which("uv")
    if uv is None:
        if os.environ.get("CI"):
            pytest.fail("uv is not installed; .ci/run installs it", pytrace=False)
        pytest.skip("uv is not installed: the lock file cannot be checked (README: pip install uv)")
    done = subprocess.run([uv, "lock", "--check", "--offline"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


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
    assert _workers_started("tests/test_smoke.py") is None
    # Two workers where xdist would start two or more (none where it would start one); never one
    # per core beyond the two files. (Accepting "none" everywhere let "never parallel" pass.)
    from xdist.plugin import pytest_xdist_auto_num_workers as per_core  # type: ignore[import-untyped]

    cores = int(per_core(SimpleNamespace(option=SimpleNamespace(numprocesses="auto"))))
    two = _workers_started("tests/test_smoke.py", "tests/test_purity.py")
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


# --------------------------------------------------------------------------- mutation testing (pyproject.toml)

KEPT_FOR_MUTMUT = {
    "tests/test_purity.py::test_the_audit_hook_sees_files_sockets_and_subprocesses": (
        "it starts a process to show that the audit hook sees it, not to run the command line"
    ),
    "tests/test_fast_path.py::test_fast_path_accepts_nothing_the_detailed_walk_refuses": (
        "it catches a fast path that accepts too much, and takes under a second"
    ),
}
"""Tests of mutmut's files that start a process or use hypothesis and still run for each mutant."""
DESELECTED_FOR_ANOTHER_REASON = {
    "tests/test_purity.py::test_a_call_needs_no_clock_and_no_environment": (
        "mutmut's trampolines read os.environ, which this test forbids"
    ),
}
"""Tests left out of mutation testing that neither start a process nor use hypothesis."""


def _mutmut_settings() -> dict[str, Any]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]


def _mutmut_selection() -> tuple[list[str], set[str]]:
    args = _mutmut_settings()["pytest_add_cli_args_test_selection"]
    files = [arg for arg in args if arg.startswith("tests/") and "::" not in arg]
    deselected = {args[i + 1] for i, arg in enumerate(args) if arg == "--deselect"}
    return files, deselected


def _tests_that_start_a_process_or_search(path: str) -> tuple[set[str], set[str], set[str]]:
    """The test functions of ``path``; those that start a process (``subprocess``, directly or
    through a helper of the same file); those hypothesis drives (``@given``)."""
    import ast

    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def names(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    starting = {name for name, node in functions.items() if "subprocess" in names(node)}
    while grown := {
        name for name, node in functions.items() if name not in starting and names(node) & starting
    }:
        starting |= grown
    given = {
        name
        for name, node in functions.items()
        if any("given" in names(decorator) for decorator in node.decorator_list)
    }
    tests = {name for name in functions if name.startswith("test_")}
    return tests, starting & tests, given & tests


def test_mutation_testing_leaves_out_exactly_what_its_comment_says():
    """pyproject.toml's mutmut settings leave out the hypothesis tests and the tests that run the
    command line in a subprocess (which runs the installed package, not the mutant). pytest
    ignores a ``--deselect`` that names no test, so a renamed test would quietly come back."""
    files, deselected = _mutmut_selection()
    assert files, "no test file in [tool.mutmut]"
    missing, stale, unexplained = [], set(deselected), set(deselected) - set(DESELECTED_FOR_ANOTHER_REASON)
    for path in files:
        tests, starting, given = _tests_that_start_a_process_or_search(path)
        stale -= {f"{path}::{name}" for name in tests}
        unexplained -= {f"{path}::{name}" for name in starting | given}
        for name in sorted(starting | given):
            node_id = f"{path}::{name}"
            if node_id not in deselected and node_id not in KEPT_FOR_MUTMUT:
                missing.append(node_id)
    assert not stale, f"--deselect names no test: {sorted(stale)}"
    assert not missing, f"not deselected for mutmut, though they start a process or use hypothesis: {missing}"
    assert not unexplained - stale, (
        f"deselected, though they neither start a process nor use hypothesis: {sorted(unexplained - stale)}"
    )


def test_mutation_testing_copies_every_folder_of_the_book_its_tests_read():
    """mutmut runs the selected tests in a copy that holds src/ and tests/ and ``also_copy``: a
    test that read docs/examples failed there, and ``mutmut run`` stopped before its first
    mutant ("failed to collect stats")."""
    copied = _mutmut_settings()["also_copy"]
    files, _ = _mutmut_selection()
    named = set()
    for path in files:
        text = (ROOT / path).read_text(encoding="utf-8")
        named |= {f"docs/{folder}" for folder in re.findall(r'"docs" / "([^"]+)"', text)}
    assert named, "the selected tests read no folder of docs/: is the pattern still right?"
    assert named <= set(copied), (
        f"read by the mutmut tests but not in also_copy: {sorted(named - set(copied))}"
    )


def test_every_run_lists_its_skips_and_expected_failures_with_their_reasons():
    """A test skipped where a tool is missing says why (README, CONTRIBUTING): ``-ra`` in the
    default options prints each reason in the run's summary, whoever runs the command."""
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"
    ]
    assert "-ra" in options["addopts"].split()
