"""MkDocs hook: the in-browser playground ("在浏览器中运行" / "Run in browser").

Every ``json title="request.json"`` example on the site gets a control that runs the request
through the real :func:`harnessbook.build_context_packet`, under Pyodide, in a Web Worker
(``docs/assets/playground/playground.js`` and ``worker.mjs``). This hook supplies the two
things those scripts need from the build:

* The Python package itself. At every build the files of ``src/harnessbook`` (its modules
  and the JSON Schemas it ships; no byte-code caches) are packed, as they are then, into
  ``assets/playground/harnessbook.zip`` in the built site. There is no second copy of the
  package in the repository that could drift from the one pytest tests.
* The Pyodide runtime, vendored unchanged from the npm package under
  ``docs/assets/playground/pyodide-<version>/``. ``vendor.json`` beside it pins the version
  and the SHA-256 of each file; the build stops if a file is missing or differs, so a site
  is never published with a runtime nobody checked. One file there is derived:
  ``python_stdlib.compiled.zip``, the standard library with the modules a start imports as
  byte code (tools/vendor-pyodide makes it); the build checks it against the vendored
  ``python_stdlib.zip``, which it then leaves out of the site.

Why vendored and not fetched at build time: the README's two commands (``uv run mkdocs
serve``, ``uv run pytest``) must do all the set-up, offline too, with no npm step, and a
vendored file is reviewed once in git instead of trusted at every build. The five files are
the minimum that runs pure Python with the standard library (about 13 MB).
"""

from __future__ import annotations

import _imp
import hashlib
import io
import json
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "harnessbook"
PLAYGROUND = ROOT / "docs" / "assets" / "playground"
VENDOR_MANIFEST = PLAYGROUND / "vendor.json"
PLAYGROUND_SCRIPT = PLAYGROUND / "playground.js"
WORKER_SCRIPT = PLAYGROUND / "worker.mjs"

LICENCE_FILE = "LICENSE"
"""Pyodide's licence (MPL-2.0) beside the runtime, so it ships with the site. Pyodide's npm
package carries no licence file, so this one is not in vendor.json: it is the MPL 2.0 text of
Pyodide's repository, and the build only checks that it is there and is that licence."""

PACKAGE_ZIP_URI = "assets/playground/harnessbook.zip"
"""Where the packed package lands in the built site (the worker fetches it from there)."""


_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so the same sources always give the same bytes


def package_sources() -> dict[str, Path]:
    """The files of ``src/harnessbook`` the browser runs, by their path inside the zip."""
    found = {}
    for path in sorted(PACKAGE.rglob("*")):
        relative = path.relative_to(PACKAGE)
        if not path.is_file() or path.suffix in (".pyc", ".pyo"):
            continue
        if any(part == "__pycache__" or part.startswith(".") for part in relative.parts):
            continue
        found[f"harnessbook/{relative.as_posix()}"] = path
    return found


def package_zip() -> bytes:
    """``src/harnessbook`` packed as a zip whose top folder is ``harnessbook/``; deterministic."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, path in package_sources().items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def vendor_manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(VENDOR_MANIFEST.read_text(encoding="utf-8"))
    return manifest


def pin_problem(path: Path, pinned: dict[str, Any]) -> str | None:
    """How a vendored file differs from its vendor.json entry (``sha256``, ``bytes``), or None."""
    if not path.is_file():
        return f"{path.relative_to(ROOT)} is missing"
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != pinned["sha256"] or len(data) != pinned["bytes"]:
        return (
            f"{path.relative_to(ROOT)}: sha256 {digest} ({len(data)} bytes), "
            f"vendor.json pins {pinned['sha256']} ({pinned['bytes']} bytes)"
        )
    return None


HASH_BASED_UNCHECKED = 0b01
"""The flags word of a hash-based ``.pyc`` whose source is not checked at import (PEP 552)."""


def stdlib_address(entry: dict[str, Any]) -> str:
    """Where the worker loads the compiled standard library from, relative to the runtime's folder:
    the file, with the start of its SHA-256 as a query. The folder is cached for good (its name
    changes with Pyodide's version); the archive is made here and can change within a version."""
    return f"{entry['file']}?sha256={entry['sha256'][:16]}"


def compiled_stdlib_problems(manifest: dict[str, Any], directory: Path) -> list[str]:
    """How the compiled standard library (vendor.json ``compiled``) fails to be Pyodide's
    ``python_stdlib.zip`` with exactly the listed modules as byte code of their own source.

    tools/compile-stdlib.mjs makes it with Pyodide's CPython, which this Python cannot run: the
    check is that every other entry is the same bytes, and that each ``.pyc`` carries the
    listed magic number and the hash of the source it replaces (PEP 552 hash-based byte code).
    ``tests/test_pyodide_pin.py`` compiles it again and compares the bytes.
    """
    entry = manifest["compiled"]
    path, source_path = directory / entry["file"], directory / entry["from"]
    where = path.relative_to(ROOT)
    problem = pin_problem(path, entry)
    if problem:
        return [problem]
    if not source_path.is_file():
        return []  # reported as a missing runtime file
    magic = bytes.fromhex(entry["magic"])
    key = int.from_bytes(magic, "little")
    modules = set(entry["modules"])
    problems = []
    with zipfile.ZipFile(source_path) as source, zipfile.ZipFile(path) as compiled:
        names = set(compiled.namelist())
        expected_names = {name + "c" if name in modules else name for name in source.namelist()}
        if names != expected_names or not modules <= set(source.namelist()):
            problems.append(
                f"{where}: its entries are not {entry['from']}'s with the {len(modules)} listed modules "
                f"compiled (extra: {sorted(names - expected_names)[:5]}, missing: {sorted(expected_names - names)[:5]})"
            )
            return problems
        for name in source.namelist():
            original = source.read(name)
            if name not in modules:
                if compiled.read(name) != original:
                    problems.append(f"{where}: {name} differs from {entry['from']}'s")
                continue
            header = compiled.read(name + "c")[:16]
            flags = int.from_bytes(header[4:8], "little")
            if (
                header[:4] != magic
                or flags != HASH_BASED_UNCHECKED
                or header[8:16] != _imp.source_hash(key, original)
            ):
                problems.append(f"{where}: {name}c is not byte code of {entry['from']}'s {name}")
    if f'"{stdlib_address(entry)}"' not in WORKER_SCRIPT.read_text(encoding="utf-8"):
        problems.append(
            f"{WORKER_SCRIPT.relative_to(ROOT)} does not load {stdlib_address(entry)} (its STDLIB must "
            "name the archive vendor.json pins: tools/vendor-pyodide writes it)"
        )
    return problems


def vendor_problems() -> list[str]:
    """Every way the vendored Pyodide differs from ``vendor.json`` (empty when it matches)."""
    manifest = vendor_manifest()
    directory = PLAYGROUND / manifest["directory"]
    problems = []
    if manifest["directory"] != f"pyodide-{manifest['version']}":
        problems.append(
            f"vendor.json: directory {manifest['directory']!r} does not name version {manifest['version']}"
        )
    for name, expected in manifest["files"].items():
        problem = pin_problem(directory / name, expected)
        if problem:
            problems.append(problem)
    licence = directory / LICENCE_FILE
    if not licence.is_file() or not licence.read_text(encoding="utf-8").startswith(
        "Mozilla Public License Version 2.0"
    ):
        problems.append(
            f"{licence.relative_to(ROOT)}: Pyodide's licence (the MPL 2.0 text) must be beside the runtime"
        )
    problems += compiled_stdlib_problems(manifest, directory)
    known = {*manifest["files"], LICENCE_FILE, manifest["compiled"]["file"]}
    extra = sorted(p.name for p in directory.iterdir() if p.name not in known) if directory.is_dir() else []
    if extra:
        problems.append(
            f"{directory.relative_to(ROOT)} holds files vendor.json does not list: {', '.join(extra)}"
        )
    script = PLAYGROUND_SCRIPT.read_text(encoding="utf-8")
    if f'"{manifest["directory"]}/"' not in script:
        problems.append(
            f"{PLAYGROUND_SCRIPT.relative_to(ROOT)} does not load the vendored {manifest['directory']}/"
        )
    return problems


# --------------------------------------------------------------------------- MkDocs events


_serving: list[bool] = [False]
"""Whether the builds of this process are the rebuilds of `mkdocs serve` (set by :func:`on_serve`,
which `serve --clean` calls too, though it tells ``on_startup`` that the command is a build)."""


def forget_package() -> None:
    """Drop the loaded ``harnessbook`` modules, so that the next import reads the source as it is
    now. `mkdocs serve` rebuilds when the package's source changes (:func:`on_serve`), and the
    hooks that run it (figures.py, the two typography hooks) import it when they use it: a
    rebuild then checks and draws the pages with the new code, the code the repacked playground
    runs, not with the code the server started with."""
    for name in [name for name in sys.modules if name == "harnessbook" or name.startswith("harnessbook.")]:
        del sys.modules[name]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if _serving[0]:
        forget_package()
    problems = vendor_problems()
    if problems:
        raise PluginError(
            "playground: the vendored Pyodide does not match vendor.json:\n  " + "\n  ".join(problems)
        )
    return config


_packed: list[tempfile.TemporaryDirectory[str]] = []


def on_files(files: Files, config: MkDocsConfig) -> Files:
    # A generated file backed by a real file: mkdocs-static-i18n needs an abs_src_path.
    if not _packed:
        _packed.append(tempfile.TemporaryDirectory(prefix="harnessbook-playground-"))
    path = Path(_packed[0].name) / "harnessbook.zip"
    path.write_bytes(package_zip())
    existing = files.get_file_from_path(PACKAGE_ZIP_URI)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, PACKAGE_ZIP_URI, abs_src_path=str(path)))
    # The worker loads the compiled standard library (vendor.json "compiled"); the source-only
    # archive it was made from stays in git, to check it against, and is not published.
    manifest = vendor_manifest()
    unused = files.get_file_from_path(
        f"assets/playground/{manifest['directory']}/{manifest['compiled']['from']}"
    )
    if unused is not None:
        files.remove(unused)
    return files


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder: Callable[[], None]) -> LiveReloadServer:
    # `mkdocs serve` rebuilds (and so repacks the package) when the builder's source changes;
    # every build from now on is such a rebuild, which first forgets the loaded package.
    server.watch(str(PACKAGE))
    _serving[0] = True
    return server
