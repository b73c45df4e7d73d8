"""The playground's files (issue 6), without a browser.

* The vendored Pyodide is exactly what ``vendor.json`` pins (SHA-256 and size of each file),
  it is a Pyodide whose Python the builder supports, and nothing else sits beside it.
* ``hooks/playground.py`` refuses a tampered runtime (the check can fail).
* The built site carries ``src/harnessbook`` exactly, packed at build time, and the runtime
  files unchanged, ``pyodide-lock.json`` included; no second copy of the package is committed.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from tests.loading import load_module

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
    return load_module("playground_hook", ROOT / "hooks" / "playground.py")


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
    # and the standard library with the modules the playground imports compiled (derived from
    # python_stdlib.zip by tools/vendor-pyodide)
    assert {p.name for p in VENDORED.iterdir()} == RUNTIME_FILES | {"LICENSE", MANIFEST["compiled"]["file"]}
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


def hook_on_copy(tmp_path, monkeypatch, source=PLAYGROUND):
    hook = load_hook()
    copy = tmp_path / "playground"
    shutil.copytree(source, copy)
    monkeypatch.setattr(hook, "ROOT", tmp_path)
    monkeypatch.setattr(hook, "PLAYGROUND", copy)
    monkeypatch.setattr(hook, "VENDOR_MANIFEST", copy / "vendor.json")
    monkeypatch.setattr(hook, "PLAYGROUND_SCRIPT", copy / "playground.js")
    monkeypatch.setattr(hook, "WORKER_SCRIPT", copy / "worker.mjs")
    return hook, copy


@pytest.fixture(scope="module")
def clean_copy(tmp_path_factory):
    """A copy of the playground that the hook, pointed at it, accepts: the tests that damage a
    copy of it know that what the hook then finds is the damage's."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        hook, copy = hook_on_copy(tmp_path_factory.mktemp("clean"), monkeypatch)
        assert hook.vendor_problems() == []
    return copy


def test_hook_accepts_the_vendored_runtime():
    assert load_hook().vendor_problems() == []


def test_hook_refuses_a_tampered_runtime(tmp_path, monkeypatch):
    hook, copy = hook_on_copy(tmp_path, monkeypatch)
    wasm = copy / MANIFEST["directory"] / "pyodide.asm.wasm"
    data = bytearray(wasm.read_bytes())
    data[-1] ^= 0xFF
    wasm.write_bytes(bytes(data))
    (copy / MANIFEST["directory"] / "pyodide.js").write_text("// not pinned\n", encoding="utf-8")
    (copy / MANIFEST["directory"] / "python_stdlib.zip").unlink()
    problems = hook.vendor_problems()
    assert any("pyodide.asm.wasm: sha256" in p for p in problems), problems
    assert any("python_stdlib.zip is missing" in p for p in problems), problems
    assert any("pyodide.js" in p and "does not list" in p for p in problems), problems


@functools.cache
def compiled_entries(archive: bytes) -> tuple[tuple[str, bytes], ...]:
    """The entries of a zip archive (name, bytes), read once per archive for the session."""
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return tuple((info.filename, opened.read(info)) for info in opened.infolist())


def rewrite_compiled(copy: Path, change) -> dict:
    """Rewrite the copy's compiled standard library entry by entry through ``change(name, data)``
    (None drops the entry), pin the result in the copy's vendor.json; return that manifest."""
    manifest = json.loads((copy / "vendor.json").read_text(encoding="utf-8"))
    path = copy / manifest["directory"] / manifest["compiled"]["file"]
    buffer = io.BytesIO()
    # Stored, not deflated: the hook reads the entries, whatever their compression, and
    # deflating the whole archive again took about 0.25 s a test.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as new:
        for name, original in compiled_entries(path.read_bytes()):
            data = change(name, original)
            if data is not None:
                new.writestr(name, data)
    path.write_bytes(buffer.getvalue())
    manifest["compiled"].update(sha256=sha256(path), bytes=path.stat().st_size)
    (copy / "vendor.json").write_text(json.dumps(manifest), encoding="utf-8")
    return manifest


def test_the_compiled_stdlib_is_the_vendored_one_with_its_imports_compiled():
    compiled = MANIFEST["compiled"]
    assert compiled["from"] == "python_stdlib.zip"
    with zipfile.ZipFile(VENDORED / compiled["file"]) as archive:
        names = set(archive.namelist())
    # The modules every start imports, as byte code, and no source beside them.
    for module in ("json/__init__.py", "traceback.py", "_pyodide/__init__.py", "argparse.py"):
        assert module in compiled["modules"]
        assert module + "c" in names and module not in names
    # Loaded at an address that changes with its content (the runtime's folder is cached for good).
    address = f"{compiled['file']}?sha256={compiled['sha256'][:16]}"
    assert f'"{address}"' in (PLAYGROUND / "worker.mjs").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        ("hash", "json/__init__.pyc is not byte code of python_stdlib.zip's json/__init__.py"),
        ("magic", "traceback.pyc is not byte code of python_stdlib.zip's traceback.py"),
        # checked-hash byte code: the runtime would read its source again at every import
        ("flags", "traceback.pyc is not byte code of python_stdlib.zip's traceback.py"),
        ("other entry", "this.py differs from python_stdlib.zip's"),
        ("dropped", "its entries are not python_stdlib.zip's"),
        ("unpinned", "python_stdlib.compiled.zip: sha256"),
    ],
)
def test_hook_refuses_a_compiled_stdlib_that_is_not_the_vendored_source(
    tmp_path, monkeypatch, clean_copy, damage, problem
):
    hook, copy = hook_on_copy(tmp_path, monkeypatch, clean_copy)

    def change(name: str, data: bytes) -> bytes | None:
        if damage == "hash" and name == "json/__init__.pyc":
            return data[:8] + bytes(8) + data[16:]
        if damage == "magic" and name == "traceback.pyc":
            return b"\x00\x00\r\n" + data[4:]
        if damage == "flags" and name == "traceback.pyc":
            return data[:4] + (3).to_bytes(4, "little") + data[8:]
        if damage == "other entry" and name == "this.py":
            return data + b"\n"
        if damage == "dropped" and name == "traceback.pyc":
            return None
        return data

    if damage == "unpinned":
        path = copy / MANIFEST["directory"] / MANIFEST["compiled"]["file"]
        path.write_bytes(path.read_bytes() + b"\0")
    else:
        rewrite_compiled(copy, change)
    problems = hook.vendor_problems()
    assert any(problem in p for p in problems), problems


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
    assert copies == [], (
        "git holds copies of the package, or files of a Pyodide version vendor.json does not name "
        "(after tools/vendor-pyodide: git add -A docs/assets/playground)"
    )


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
    compiled = MANIFEST["compiled"]
    # The runtime, with the compiled standard library in place of the source-only one it was
    # made from, Pyodide's licence, and the .gz copies the build writes for nginx.
    assert {p.name for p in served.iterdir() if p.suffix != ".gz"} == (RUNTIME_FILES - {compiled["from"]}) | {
        "LICENSE",
        compiled["file"],
    }
    assert (served / "LICENSE").read_text(encoding="utf-8").startswith("Mozilla Public License Version 2.0")
    assert (served / "pyodide-lock.json").is_file(), "pyodide-lock.json must be kept"
    for name, pinned in MANIFEST["files"].items():
        if name != compiled["from"]:
            assert sha256(served / name) == pinned["sha256"], name
    assert sha256(served / compiled["file"]) == compiled["sha256"]
    # worker.mjs as it is; playground.js without its comment lines (hooks/scripts.py).
    scripts = load_module("scripts_hook", ROOT / "hooks" / "scripts.py")
    served_scripts = built_site.path / "assets" / "playground"
    assert (served_scripts / "worker.mjs").read_bytes() == (PLAYGROUND / "worker.mjs").read_bytes()
    assert (served_scripts / "playground.js").read_text(encoding="utf-8") == scripts.served_script(
        (PLAYGROUND / "playground.js").read_text(encoding="utf-8")
    )
    # The playground's stylesheet reaches the site inside the book's one stylesheet
    # (hooks/stylesheets.py; tests/test_render_path.py checks it whole).
    stylesheets = load_module("stylesheets_hook", ROOT / "hooks" / "stylesheets.py")
    assert stylesheets.without_comments((PLAYGROUND / "playground.css").read_text(encoding="utf-8")) in (
        built_site.path / "assets" / "stylesheets" / "site.css"
    ).read_text(encoding="utf-8")


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
            r'<script defer src="(\.\./)*assets/playground/playground\.js\?v=[0-9a-f]{12}"',
            p.read_text(encoding="utf-8"),
        )
    ]
    assert missing == []


def test_no_page_refers_to_another_host_for_the_runtime(built_site):
    """The playground's scripts name no host at all, and no built page or script of the site
    names the runtime at another host (a CDN's pyodide.js): it is served from the site itself.
    Not read: Pyodide's own files (pyodide.mjs names its CDN as the default the worker
    overrides) and vendor.json (which names where the runtime was taken from)."""
    for name in ("playground.js", "worker.mjs"):
        text = (PLAYGROUND / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://", text), name
    elsewhere = re.compile(r"(?:https?:)?//[^\s\"'<>()]*pyodide", re.IGNORECASE)
    built = [
        p
        for p in built_site.path.rglob("*")
        if p.suffix in (".html", ".js", ".mjs", ".json")
        and not any(part.startswith("pyodide-") for part in p.parts)
        and p.name != "vendor.json"
    ]
    assert len([p for p in built if p.suffix == ".html"]) > 80
    found = {
        str(path.relative_to(built_site.path)): match.group()
        for path in built
        if "pyodide" in (text := path.read_text(encoding="utf-8", errors="replace")).lower()
        for match in [elsewhere.search(text)]
        if match
    }
    assert not found, found


# --------------------------------------------------------------------------- the hosting page's sizes

HOSTING_PAGES = ["howto/playground-hosting.md", "howto/playground-hosting.en.md"]
SIZE = re.compile(r"(?:约 |about )?(\d+(?:\.\d+)?) (KB|MB)")
UNIT = {"KB": 1024, "MB": 1024 * 1024}


def size_rows(page: Path) -> list[tuple[str, list[str]]]:
    """The rows of the page's tables that name a file in their first cell: its name and the
    other cells, for the rows whose second cell is a size."""
    rows = []
    for line in page.read_text(encoding="utf-8").splitlines():
        if match := re.fullmatch(r"\| `([^`]+)` \|(.*)\|", line):
            cells = [cell.strip() for cell in match[2].split("|")]
            if SIZE.fullmatch(cells[0]):
                rows.append((match[1], cells))
    return rows


def size_problem(stated: str, actual: int) -> str | None:
    """None if ``stated`` ("28 KB", "1.2 MB", "about 50 KB"; 1 KB = 1,024 bytes) is ``actual``
    bytes rounded to its last digit (or within 10% after "about"), else what is wrong."""
    match = SIZE.fullmatch(stated)
    assert match, stated
    number, unit = match[1], match[2]
    value = actual / UNIT[unit]
    decimals = len(number.partition(".")[2])
    allowed = float(number) * 0.1 if stated.startswith(("约", "about")) else 0.5 * 10**-decimals + 1e-9
    if abs(value - float(number)) <= allowed:
        return None
    return f"says {stated}, is {actual:,} bytes ({value:.{decimals + 1}f} {unit})"


@pytest.mark.parametrize("page", HOSTING_PAGES)
def test_the_hosting_page_gives_each_files_true_size(built_site, page):
    """The tables of files the playground serves, with their sizes and gzip sizes, say what the
    built site serves: a file that grows or shrinks must take its table row along."""
    served = built_site.path / "assets" / "playground"
    rows = size_rows(ROOT / "docs" / page)
    assert len(rows) >= 12, rows  # the files table and the compression table
    problems = []
    for name, cells in rows:
        path = next((p for p in (served / name, served / MANIFEST["directory"] / name) if p.is_file()), None)
        assert path is not None, f"{page}: {name} is not served"
        data = path.read_bytes()
        if problem := size_problem(cells[0], len(data)):
            problems.append(f"{name}: {problem}")
        if len(cells) > 1 and SIZE.fullmatch(cells[1]):  # the compression table: size after gzip -9
            gzipped = path.with_name(path.name + ".gz")
            size = gzipped.stat().st_size if gzipped.is_file() else len(gzip.compress(data, 9, mtime=0))
            if problem := size_problem(cells[1], size):
                problems.append(f"{name} after gzip: {problem}")
    assert problems == [], f"{page}: " + "; ".join(problems)


PYODIDE_VERSION = re.compile(r"(?<![\w.])(\d{3}\.\d+\.\d+)(?![\w.])")
PYTHON_VERSION = re.compile(r"Python (3\.\d+\.\d+)")


def named_versions(text: str) -> tuple[set[str], set[str]]:
    """The Pyodide versions (``314.0.8``) and Python versions (``Python 3.14.2``) ``text`` names."""
    return set(PYODIDE_VERSION.findall(text)), set(PYTHON_VERSION.findall(text))


@pytest.mark.parametrize("page", HOSTING_PAGES)
def test_the_hosting_page_names_only_the_vendored_versions(page):
    """An upgrade of Pyodide changes the folder's name, the tag and the Python version the guide
    quotes in a dozen places: none may keep the old one."""
    pyodide, python = named_versions((ROOT / "docs" / page).read_text(encoding="utf-8"))
    assert pyodide == {MANIFEST["version"]}, f"{page} names Pyodide {sorted(pyodide)}"
    assert python == {MANIFEST["python"]}, f"{page} names Python {sorted(python)}"


def test_the_version_check_can_fail():
    assert named_versions("`pyodide-314.0.8/` and pyodide@314.0.9 (Python 3.14.2), nginx 1.22.1") == (
        {"314.0.8", "314.0.9"},
        {"3.14.2"},
    )


def test_the_size_check_can_fail():
    assert size_problem("16 KB", 16_619) is None
    assert size_problem("12 KB", 16_619) == "says 12 KB, is 16,619 bytes (16.2 KB)"
    assert size_problem("1.2 MB", 1_250_259) is None
    assert size_problem("1.3 MB", 1_250_259) is not None
    assert size_problem("about 50 KB", 51_930) is None
    assert size_problem("约 50 KB", 60_000) is not None


# --------------------------------------------------------------------------- the interface strings


def test_both_editions_have_every_interface_string_with_the_same_placeholders():
    """playground.js's strings: the same keys in both editions, and the same ``{placeholders}``,
    except the English plural words (``{problems}``, ``{lines}``, ``{rows}``), which are empty
    strings in Chinese."""
    from tests.test_cjk_line_breaks import playground_labels

    zh, en = playground_labels("zh"), playground_labels("en")
    assert len(zh) > 30 and set(zh) == set(en), set(zh) ^ set(en)
    for key in zh:
        in_zh, in_en = set(re.findall(r"\{(\w+)\}", zh[key])), set(re.findall(r"\{(\w+)\}", en[key]))
        assert in_zh <= in_en, f"{key}: Chinese fills {in_zh - in_en}, English does not"
        assert all(zh.get(word) == "" and en.get(word) for word in in_en - in_zh), (key, in_en - in_zh)


NESTING_TEXTS = [
    "[]",
    "[" * 500 + "]" * 500,
    "[" * 500 + "]" * 500 + "[]",  # more than 500 brackets, 500 levels
    "[" * 501 + "]" * 501,
    "[" * 501 + "x",  # not JSON: the depth is still counted, as far as the text goes
    '{"a":' * 501 + "1" + "}" * 501,
    '["' + "[" * 600 + '"]',  # brackets in a string are not nesting
    '["' + "[" * 600,  # nor in a string left open to the end
    '["\\"' + "[" * 600 + '"]',  # an escaped quote does not end the string
    '"\\\\"' + "[" * 501 + "]" * 501,  # an escaped backslash does not escape the quote after it
    "]" * 600 + "[" * 501,
    '["' + "[" * 600 + "\\",  # a string left open, ending in a backslash
    '{"a": NaN, "b": ' + "[" * 501 + "]" * 501 + "}",
    '{"a": 1, "a": ' + "[" * 501 + "]" * 501 + "}",
]


def test_the_worker_refuses_the_nesting_the_command_line_refuses(tmp_path):
    """The worker refuses a text nested more than MAX_DEPTH levels before Python reads it: the
    same number as harnessbook.cli.MAX_DEPTH, counted the same way (its nestingDepth run in Node
    on texts at the edges: strings, escapes, a text that is not JSON)."""
    from harnessbook.cli import MAX_DEPTH, _text_too_deep

    worker = (PLAYGROUND / "worker.mjs").read_text(encoding="utf-8")
    assert re.search(r"^const MAX_DEPTH = (\d+);$", worker, re.MULTILINE)[1] == str(MAX_DEPTH)  # type: ignore[index]
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is required under CI")
        pytest.skip("node is missing")
    function = re.search(r"^function nestingDepth\(text\) \{\n.*?^\}$", worker, re.MULTILINE | re.DOTALL)
    assert function is not None, "worker.mjs has no nestingDepth function"
    script = tmp_path / "depth.cjs"
    script.write_text(
        function[0]
        + "\nconst texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        + "process.stdout.write(JSON.stringify(texts.map(nestingDepth)));\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [node, str(script)], input=json.dumps(NESTING_TEXTS), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    depths = json.loads(done.stdout)
    assert [depth > MAX_DEPTH for depth in depths] == [_text_too_deep(text) for text in NESTING_TEXTS]
    assert [depth > MAX_DEPTH for depth in depths] == [
        False, False, False, True, True, True, False, False, False, True, False, False, True, True
    ]  # fmt: skip


# --------------------------------------------------------------------------- the worker's Python


def worker_runner() -> dict[str, object]:
    """The namespace of the Python that worker.mjs runs in Pyodide (its RUNNER), run here in
    CPython: a JavaScript template literal, whose ``\\\\`` is one backslash in Python."""
    text = (PLAYGROUND / "worker.mjs").read_text(encoding="utf-8")
    source = text.split("const RUNNER = `", 1)[1].split("\n`;", 1)[0]
    assert "${" not in source and "\\`" not in source, (
        "RUNNER uses template features this reader does not undo"
    )
    namespace: dict[str, object] = {}
    exec(compile(source.replace("\\\\", "\\"), "worker.mjs RUNNER", "exec"), namespace)
    return namespace


def test_the_worker_keeps_the_result_when_a_renderer_fails():
    """A figure or table renderer that raises loses the figure, not the result: the outcome is
    still the result (the page says the figure is missing), and the runtime is not restarted."""
    from harnessbook import build_context_packet, demo_request

    namespace = worker_runner()
    run = namespace["_harnessbook_playground_run"]
    assert callable(run)
    text = json.dumps(demo_request())
    shown = json.dumps(build_context_packet(demo_request()), ensure_ascii=False, indent=2)
    outcome = json.loads(run(text, "en"))
    assert (outcome["kind"], outcome["text"]) == ("result", shown)
    assert outcome["svg"].startswith("<svg") and outcome["table"].startswith("<")

    def broken(*args: object) -> str:
        raise ValueError("a renderer bug")

    for name in ("render_svg", "render_table"):
        namespace[name] = broken
        outcome = json.loads(run(text, "zh"))
        assert (outcome["kind"], outcome["text"]) == ("result", shown), name
        assert outcome["svg" if name == "render_svg" else "table"] is None, name


# --------------------------------------------------------------------------- mkdocs serve


def _harnessbook_modules() -> dict[str, types.ModuleType]:
    return {name: module for name, module in sys.modules.items() if name.split(".")[0] == "harnessbook"}


def test_serve_forgets_the_package_before_each_rebuild_and_build_does_not(monkeypatch):
    """A build forgets nothing; once `mkdocs serve` has called on_serve (after its first build,
    with or without --clean), every rebuild does."""
    hook = load_module("playground_hook_serve", ROOT / "hooks" / "playground.py")
    forgotten: list[bool] = []
    monkeypatch.setattr(hook, "forget_package", lambda: forgotten.append(True))
    monkeypatch.setattr(hook, "vendor_problems", list)
    config = object()
    assert hook.on_config(config) is config and forgotten == []

    class Server:
        def __init__(self) -> None:
            self.watched: list[str] = []

        def watch(self, path: str) -> None:
            self.watched.append(path)

    server = Server()
    assert hook.on_serve(server, config, lambda: None) is server
    assert server.watched == [str(hook.PACKAGE)]
    hook.on_config(config)
    hook.on_config(config)
    assert forgotten == [True, True]


def test_after_forgetting_the_hooks_run_the_package_as_its_source_is_now():
    """The figure and typography hooks look the package up at each use: once it is forgotten,
    they import it again from its source (what `mkdocs serve` does when the source changed)."""
    hook = load_module("playground_hook_forget", ROOT / "hooks" / "playground.py")
    figures = load_module("figures_hook_forget", ROOT / "hooks" / "figures.py")
    saved = _harnessbook_modules()
    try:
        before = figures._package()
        hook.forget_package()
        assert _harnessbook_modules() == {}
        after = figures._package()
        assert after is not before
        assert after.build_context_packet(after.demo_request())["state"] == "ready"
    finally:
        for name in _harnessbook_modules():
            del sys.modules[name]
        sys.modules.update(saved)
