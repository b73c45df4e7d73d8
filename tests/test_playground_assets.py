"""The playground's files (issue 6), without a browser.

* The vendored Pyodide is exactly what ``vendor.json`` pins (SHA-256 and size of each file),
  it is a Pyodide whose Python the builder supports, and nothing else sits beside it.
* ``hooks/playground.py`` refuses a tampered runtime (the check can fail).
* The built site carries ``src/harnessbook`` exactly, packed at build time, and the runtime
  files unchanged, ``pyodide-lock.json`` included; no second copy of the package is committed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAYGROUND = ROOT / "docs" / "assets" / "playground"
PACKAGE = ROOT / "src" / "harnessbook"
MANIFEST = json.loads((PLAYGROUND / "vendor.json").read_text(encoding="utf-8"))
VENDORED = PLAYGROUND / MANIFEST["directory"]

# The files Pyodide needs to run pure Python with the standard library, and no more.
RUNTIME_FILES = {
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
}
SIZE_LIMIT = 30 * 1024 * 1024


def load_hook():
    spec = importlib.util.spec_from_file_location("playground_hook", ROOT / "hooks" / "playground.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_files() -> dict[str, bytes]:
    """Every file of src/harnessbook but byte-code caches, by its path inside the package zip."""
    return {
        "harnessbook/" + path.relative_to(PACKAGE).as_posix(): path.read_bytes()
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


# --------------------------------------------------------------------------- the vendored runtime


@pytest.mark.parametrize("name", sorted(RUNTIME_FILES))
def test_vendored_file_matches_its_pinned_checksum(name):
    pinned = MANIFEST["files"][name]
    path = VENDORED / name
    assert path.is_file(), f"{path} is missing"
    assert path.stat().st_size == pinned["bytes"]
    assert sha256(path) == pinned["sha256"]


def test_vendored_runtime_is_the_minimal_set():
    assert set(MANIFEST["files"]) == RUNTIME_FILES
    # and Pyodide's licence, which must travel with it (hooks/playground.py checks it is there)
    assert {p.name for p in VENDORED.iterdir()} == RUNTIME_FILES | {"LICENSE"}
    total = sum(p.stat().st_size for p in PLAYGROUND.rglob("*") if p.is_file())
    assert total < SIZE_LIMIT, f"docs/assets/playground holds {total / 2**20:.1f} MiB"


def test_vendored_runtime_is_the_pinned_version_with_a_supported_python():
    assert MANIFEST["package"] == "pyodide"
    assert MANIFEST["directory"] == f"pyodide-{MANIFEST['version']}"
    lock = json.loads((VENDORED / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert lock["info"]["python"] == MANIFEST["python"]
    major, minor = (int(part) for part in lock["info"]["python"].split(".")[:2])
    assert (3, 11) <= (major, minor) <= (3, 14), "the builder supports Python 3.11 to 3.14"
    # The JavaScript says which version it is; it must be the one vendor.json names.
    assert f'"{MANIFEST["version"]}"' in (VENDORED / "pyodide.mjs").read_text(encoding="utf-8")
    # The page script loads this very directory.
    assert f'"{MANIFEST["directory"]}/"' in (PLAYGROUND / "playground.js").read_text(encoding="utf-8")
    assert MANIFEST["integrity"].startswith("sha512-")
    assert MANIFEST["tarball"] == f"https://registry.npmjs.org/pyodide/-/pyodide-{MANIFEST['version']}.tgz"


def test_hook_accepts_the_vendored_runtime():
    assert load_hook().vendor_problems() == []


def test_hook_refuses_a_tampered_runtime(tmp_path, monkeypatch):
    hook = load_hook()
    copy = tmp_path / "playground"
    shutil.copytree(PLAYGROUND, copy)
    wasm = copy / MANIFEST["directory"] / "pyodide.asm.wasm"
    data = bytearray(wasm.read_bytes())
    data[-1] ^= 0xFF
    wasm.write_bytes(bytes(data))
    (copy / MANIFEST["directory"] / "pyodide.js").write_text("// not pinned\n", encoding="utf-8")
    (copy / MANIFEST["directory"] / "python_stdlib.zip").unlink()
    monkeypatch.setattr(hook, "ROOT", tmp_path)
    monkeypatch.setattr(hook, "PLAYGROUND", copy)
    monkeypatch.setattr(hook, "VENDOR_MANIFEST", copy / "vendor.json")
    monkeypatch.setattr(hook, "PLAYGROUND_SCRIPT", copy / "playground.js")
    problems = hook.vendor_problems()
    assert any("pyodide.asm.wasm: sha256" in p for p in problems), problems
    assert any("python_stdlib.zip is missing" in p for p in problems), problems
    assert any("pyodide.js" in p and "does not list" in p for p in problems), problems


def test_no_second_copy_of_the_package_is_committed():
    """The browser's Python comes from src/ at build time, never from a file kept elsewhere."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    vendored = f"docs/assets/playground/{MANIFEST['directory']}/"
    copies = [
        name
        for name in tracked
        if ("/context_packet/" in name and name.endswith(".py") and not name.startswith("src/"))
        or (
            name.startswith("docs/assets/")
            and name.endswith((".py", ".zip"))
            and not name.startswith(vendored)
        )
    ]
    assert copies == []


# --------------------------------------------------------------------------- the built site


def test_package_zip_is_deterministic():
    hook = load_hook()
    assert hook.package_zip() == hook.package_zip()


def test_built_site_carries_exactly_the_package_sources(built_site):
    packed = built_site.path / "assets" / "playground" / "harnessbook.zip"
    assert packed.is_file(), "the hook did not write harnessbook.zip into the site"
    with zipfile.ZipFile(io.BytesIO(packed.read_bytes())) as archive:
        assert archive.testzip() is None
        shipped = {name: archive.read(name) for name in archive.namelist()}
    assert shipped == source_files()
    assert "harnessbook/context_packet/builder.py" in shipped
    assert "harnessbook/schemas/context-packet-request.schema.json" in shipped
    # Written once, for both editions.
    assert not list(built_site.path.glob("en/assets/playground/*"))


def test_built_site_carries_the_runtime_unchanged(built_site):
    served = built_site.path / "assets" / "playground" / MANIFEST["directory"]
    # The runtime, Pyodide's licence, and the .gz copies the build writes for nginx.
    assert {p.name for p in served.iterdir() if p.suffix != ".gz"} == RUNTIME_FILES | {"LICENSE"}
    assert (served / "LICENSE").read_text(encoding="utf-8").startswith("Mozilla Public License Version 2.0")
    assert (served / "pyodide-lock.json").is_file(), "pyodide-lock.json must be kept"
    for name, pinned in MANIFEST["files"].items():
        assert sha256(served / name) == pinned["sha256"], name
    for name in ("playground.js", "playground.css", "worker.mjs"):
        assert (built_site.path / "assets" / "playground" / name).read_bytes() == (
            PLAYGROUND / name
        ).read_bytes()


def test_every_page_loads_the_playground_script(built_site):
    pages = [
        p
        for p in built_site.path.rglob("*.html")
        if p.name != "404.html"
        and "data-moved-to=" not in p.read_text(encoding="utf-8")[:500]  # redirect pages
    ]
    assert pages
    missing = [
        str(p.relative_to(built_site.path))
        for p in pages
        if not re.search(
            r'<script src="(\.\./)*assets/playground/playground\.js"', p.read_text(encoding="utf-8")
        )
    ]
    assert missing == []


def test_no_page_refers_to_another_host_for_the_runtime(built_site):
    for name in ("playground.js", "worker.mjs"):
        text = (PLAYGROUND / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://", text), name
