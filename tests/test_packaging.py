"""Python packaging conventions: one version, a typed wheel with its licence, dev tools in a group."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import harnessbook
from harnessbook.cli import main
from harnessbook.schemas import SCHEMA_FILES, load_schema

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_written_once_and_read_by_the_build():
    project = PYPROJECT["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/harnessbook/__init__.py"
    assert re.fullmatch(
        r"\d+\.\d+\.\d+(\.dev\d+)?", harnessbook.__version__
    )  # PEP 440; .devN before a release


def test_cli_prints_the_version():
    out = io.StringIO()
    with redirect_stdout(out):  # argparse prints the version to sys.stdout
        code = main(["--version"])
    assert code == 0
    assert out.getvalue() == f"harnessbook {harnessbook.__version__}\n"


def test_dev_tools_are_a_dependency_group_not_a_public_extra():
    assert "optional-dependencies" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dependencies"] == []
    dev = PYPROJECT["dependency-groups"]["dev"]
    for tool in ("pytest", "ruff", "mypy", "beautifulsoup4", "mkdocs-material", "mkdocs-static-i18n"):
        assert any(re.match(rf"{tool}\b", requirement) for requirement in dev), tool
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -e . --group dev" in readme
    assert ".[dev]" not in readme


def test_licence_and_classifiers():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    classifiers = set(project["classifiers"])
    assert "Typing :: Typed" in classifiers
    for minor in (11, 12, 13, 14):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    # PEP 639: a licence expression replaces the licence classifiers.
    assert not any(c.startswith("License ::") for c in classifiers)
    assert project["urls"]


def test_wheel_carries_py_typed_and_the_licence(tmp_path):
    """``uv build`` makes the source distribution, then the wheel from it (so the source
    distribution is checked to build too)."""
    if shutil.which("uv") is None:
        if os.environ.get("CI"):
            pytest.fail("uv is required in CI (.ci/run installs it)")
        pytest.skip("uv builds the wheel (the README's tool)")
    subprocess.run(["uv", "build", "--out-dir", str(tmp_path), "--quiet"], cwd=ROOT, check=True, timeout=300)
    (sdist,) = tmp_path.glob("harnessbook-*.tar.gz")
    top = f"harnessbook-{harnessbook.__version__}/"
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
        pkg_info = archive.extractfile(top + "PKG-INFO").read().decode()  # type: ignore[union-attr]
    # The package's source, its metadata, licence and changelog: not the book, not the vendored
    # Pyodide (MPL-2.0 files the MIT licence does not cover; 10 MB of them).
    assert {name for name in members if not name.startswith(top + "src/harnessbook/")} == {
        top + name
        for name in ("PKG-INFO", "pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", ".gitignore")
    }
    assert top + "src/harnessbook/py.typed" in members
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in members)
    assert "License-Expression: MIT" in pkg_info
    assert sdist.stat().st_size < 200_000
    (wheel,) = tmp_path.glob("harnessbook-*.whl")
    assert wheel.name == f"harnessbook-{harnessbook.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"harnessbook-{harnessbook.__version__}.dist-info/METADATA").decode()
    assert "harnessbook/py.typed" in names
    # The schemas ship inside the package and load_schema reads them from a wheel too (its
    # docstring says so): imported from the wheel itself, a zip, with nothing else on the path.
    assert {f"harnessbook/schemas/{name}" for name in SCHEMA_FILES.values()} <= names
    from_wheel = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); import harnessbook;"
            " print(harnessbook.__file__.startswith(sys.argv[1]),"
            " *(harnessbook.load_schema(name)['title'] for name in ('request', 'result', 'error')), sep='|')",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert from_wheel.stdout.strip().split("|") == [
        "True",
        *(load_schema(name)["title"] for name in SCHEMA_FILES),
    ]
    assert f"harnessbook-{harnessbook.__version__}.dist-info/licenses/LICENSE" in names
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    assert not any(name.startswith(("tests/", "docs/", "hooks/")) for name in names)
    # The test run writes byte code next to the sources (conftest.py): none of it ships.
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)


def test_python_dash_m_prints_the_version():
    completed = subprocess.run(
        [sys.executable, "-m", "harnessbook", "--version"], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0
    assert completed.stdout == f"harnessbook {harnessbook.__version__}\n"
