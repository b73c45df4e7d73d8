"""The vendored Pyodide is the release npm's lock pins: same version, same integrity, same files.

tools/package.json names pyodide, so tools/package-lock.json records the npm tarball's sha512
integrity. docs/assets/playground/vendor.json must name the same version and integrity, and
tools/vendor-pyodide, run on the installed package, must write exactly the vendor.json and the
files in git. The runtime stays vendored: the site builds with no npm step.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
VENDOR_JSON = ROOT / "docs" / "assets" / "playground" / "vendor.json"


def load_script() -> ModuleType:
    path = TOOLS / "vendor-pyodide"
    loader = importlib.machinery.SourceFileLoader("vendor_pyodide", str(path))
    spec = importlib.util.spec_from_loader("vendor_pyodide", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def load_script_with_node_package() -> ModuleType:
    """The script, once npm has installed pyodide: skipped without it, failed under CI."""
    script = load_script()
    if not script.NODE_PACKAGE.is_dir():
        if os.environ.get("CI"):
            pytest.fail("tools/node_modules/pyodide is missing under CI: npm ci --prefix tools")
        pytest.skip("tools/node_modules/pyodide is not installed (npm ci --prefix tools)")
    return script


def manifest() -> dict:
    return json.loads(VENDOR_JSON.read_text(encoding="utf-8"))


def test_package_json_pins_the_vendored_version_exactly():
    package = json.loads((TOOLS / "package.json").read_text(encoding="utf-8"))
    assert package["devDependencies"]["pyodide"] == manifest()["version"]


def test_lock_records_the_vendored_version_and_integrity():
    locked = load_script().locked_package()
    vendored = manifest()
    assert locked["version"] == vendored["version"]
    assert locked["integrity"] == vendored["integrity"]
    assert locked["integrity"].startswith("sha512-")
    assert vendored["directory"] == f"pyodide-{vendored['version']}"


def test_a_lock_without_pyodide_is_reported(tmp_path):
    script = load_script()
    lock = tmp_path / "package-lock.json"
    lock.write_text(json.dumps({"packages": {"": {}}}), encoding="utf-8")
    with pytest.raises(script.VendorError, match="no node_modules/pyodide"):
        script.locked_package(lock)


def test_vendored_files_are_the_locked_npm_package():
    script = load_script_with_node_package()
    expected = script.expected_manifest()
    assert script.vendored_problems(expected) == []
    assert {key: value for key, value in manifest().items() if key != "compiled"} == expected


COMPILE_CACHE = ROOT / ".cache" / "compiled-stdlib"


def compile_inputs(script: ModuleType, package: Path) -> str:
    """A hash of everything a compile reads: Node (its version), the two tools, every file of
    the npm package, the harnessbook package as the site packs it, and the worker's package
    folder and modules. The same hash gives the same bytes ("The same inputs give the same
    bytes", tools/compile-stdlib.mjs)."""
    node = shutil.which("node")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout if node else ""
    digest = hashlib.sha256(version.encode())
    for file in [script.COMPILE_SCRIPT, TOOLS / "vendor-pyodide", *sorted(package.rglob("*"))]:
        if file.is_file():
            digest.update(file.as_posix().encode() + b"\0" + hashlib.sha256(file.read_bytes()).digest())
    digest.update(script._playground_hook().package_zip())
    digest.update(json.dumps([script.worker_constant("PACKAGE_DIR"), script.worker_modules()]).encode())
    return digest.hexdigest()[:20]


def cached_compile(script: ModuleType) -> Callable[[Path, Path], dict]:
    """``script.compile_stdlib``, whose output (the file and its vendor.json entry) is kept in
    ``.cache/compiled-stdlib/`` and reused while :func:`compile_inputs` is unchanged: a run that
    has changed none of its inputs does not start Pyodide in Node for it (about 4 to 6.5 s of one
    core). A fresh clone (CI) compiles; ``HARNESSBOOK_FRESH_SITE=1`` always does."""

    def compile(out: Path, package: Path) -> dict:
        kept = COMPILE_CACHE / compile_inputs(script, package)
        entry_file, compiled = kept / "entry.json", kept / "compiled.zip"
        if entry_file.is_file() and not os.environ.get("HARNESSBOOK_FRESH_SITE"):
            shutil.copyfile(compiled, out)
            return json.loads(entry_file.read_text(encoding="utf-8"))
        entry = script.compile_stdlib(out, package)
        shutil.rmtree(COMPILE_CACHE, ignore_errors=True)  # one compile is kept: the latest
        kept.mkdir(parents=True)
        shutil.copyfile(out, compiled)
        entry_file.write_text(json.dumps(entry), encoding="utf-8")  # written last: complete
        return entry

    return compile


def test_the_compiled_stdlib_is_what_the_tool_makes():
    """tools/compile-stdlib.mjs, run again with the npm package's Pyodide in Node, gives the
    very bytes in git and the same vendor.json entry (about 4 to 6.5 s: Pyodide starts in Node; a
    run whose inputs are all unchanged reuses the last compile, :func:`cached_compile`)."""
    script = load_script_with_node_package()
    assert script.compiled_problems(compile=cached_compile(script)) == []


def test_the_kept_compile_is_reused_only_while_every_input_is_the_same(tmp_path, monkeypatch):
    script = load_script_with_node_package()
    monkeypatch.setattr(sys.modules[__name__], "COMPILE_CACHE", tmp_path / "cache")
    monkeypatch.delenv("HARNESSBOOK_FRESH_SITE", raising=False)
    compiles = []

    def compile_stdlib(out: Path, package: Path) -> dict:
        compiles.append(package)
        out.write_bytes(b"compiled from " + bytes(package))
        return {"file": out.name}

    monkeypatch.setattr(script, "compile_stdlib", compile_stdlib)
    package = tmp_path / "pyodide"
    package.mkdir()
    (package / "python_stdlib.zip").write_bytes(b"one")
    compile = cached_compile(script)
    for _ in range(2):
        assert compile(tmp_path / "out.zip", package) == {"file": "out.zip"}
        assert (tmp_path / "out.zip").read_bytes() == b"compiled from " + bytes(package)
    assert len(compiles) == 1
    (package / "python_stdlib.zip").write_bytes(b"two")  # an input changed: compiled again
    compile(tmp_path / "out.zip", package)
    assert len(compiles) == 2
    monkeypatch.setenv("HARNESSBOOK_FRESH_SITE", "1")
    compile(tmp_path / "out.zip", package)
    assert len(compiles) == 3


def test_the_tool_reads_the_modules_the_worker_imports():
    modules = load_script().worker_modules()
    assert "harnessbook.cli" in modules and "json" in modules


def test_a_changed_file_is_reported(tmp_path, monkeypatch):
    script = load_script_with_node_package()
    expected = script.expected_manifest()
    playground = tmp_path / "playground"
    folder = playground / expected["directory"]
    folder.mkdir(parents=True)
    for name in expected["files"]:
        (folder / name).write_bytes(b"")
    (playground / "vendor.json").write_text(json.dumps(dict(expected, version="0.0.0")), encoding="utf-8")
    monkeypatch.setattr(script, "PLAYGROUND", playground)
    monkeypatch.setattr(script, "MANIFEST", playground / "vendor.json")
    monkeypatch.setattr(script, "ROOT", tmp_path)
    problems = script.vendored_problems(expected)
    assert any(problem.startswith("vendor.json version: '0.0.0'") for problem in problems)
    assert sum("is not the npm package's" in problem for problem in problems) == len(expected["files"])


def fake_compile(out: Path, package: Path) -> dict[str, Any]:
    out.write_bytes(b"compiled")
    return {"modules": []}


def upgrade_from_one_to_two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Path, Path]:
    """A vendored pyodide-1.0.0 (with its licence) in a scratch playground, and an npm package of
    2.0.0 beside it: the tool's module, the old folder and the package."""
    script = load_script()
    playground = tmp_path / "playground"
    old = playground / "pyodide-1.0.0"
    old.mkdir(parents=True)
    (old / "LICENSE").write_text("Mozilla Public License Version 2.0", encoding="utf-8")
    (old / "pyodide.mjs").write_text("old", encoding="utf-8")
    for name in ("playground.js", "worker.mjs"):
        (playground / name).write_text('"pyodide-1.0.0/"', encoding="utf-8")
    package = tmp_path / "package"
    package.mkdir()
    (package / "pyodide.mjs").write_text("new", encoding="utf-8")
    for name, value in {
        "ROOT": tmp_path,
        "PLAYGROUND": playground,
        "MANIFEST": playground / "vendor.json",
        "PLAYGROUND_SCRIPT": playground / "playground.js",
        "WORKER_SCRIPT": playground / "worker.mjs",
    }.items():
        monkeypatch.setattr(script, name, value)
    return script, old, package


def test_an_upgrade_whose_compile_fails_leaves_the_vendored_runtime_as_it_was(tmp_path, monkeypatch):
    """The standard library was compiled after the old version's folder had been deleted: a
    failed compile (no node, a runtime that does not start) left the book without a runtime."""
    script, old, package = upgrade_from_one_to_two(tmp_path, monkeypatch)

    def failing_compile(out: Path, package: Path) -> dict[str, Any]:
        raise script.VendorError("compile-stdlib.mjs failed (exit 1)")

    monkeypatch.setattr(script, "compile_stdlib", failing_compile)

    def files() -> list[tuple[str, bytes]]:
        return sorted(
            (p.relative_to(tmp_path).as_posix(), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()
        )

    before = files()
    with pytest.raises(script.VendorError):
        script.vendor({"directory": "pyodide-2.0.0", "files": {"pyodide.mjs": {}}}, package)
    assert files() == before
    assert not (old.parent / "pyodide-2.0.0").exists()


def test_an_upgrade_carries_pyodides_licence_to_the_new_folder(tmp_path, monkeypatch):
    """The npm package has no LICENSE: vendoring a new version once deleted the old folder, the
    licence with it, and the build then stopped for the missing licence."""
    script, old, package = upgrade_from_one_to_two(tmp_path, monkeypatch)
    monkeypatch.setattr(script, "compile_stdlib", fake_compile)
    monkeypatch.setattr(script, "_playground_hook", lambda: type("Hook", (), {"stdlib_address": str})())
    done = script.vendor({"directory": "pyodide-2.0.0", "files": {"pyodide.mjs": {}}}, package)
    new = old.parent / "pyodide-2.0.0"
    assert (new / "LICENSE").read_text(encoding="utf-8") == "Mozilla Public License Version 2.0"
    assert (new / "pyodide.mjs").read_text(encoding="utf-8") == "new"
    assert (new / script.COMPILED_FILE).read_bytes() == b"compiled"
    assert not old.exists()
    assert done[:2] == [
        "copied playground/pyodide-1.0.0/LICENSE to playground/pyodide-2.0.0/",
        "removed playground/pyodide-1.0.0/",
    ]
