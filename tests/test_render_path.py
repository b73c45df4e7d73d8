"""What every built page asks for before the reader sees it (issue 14), without a browser.

* No external script blocks the parser: every one is deferred, and they run in the order the
  book needs (palette-load.js and search-on-demand.js before Material's bundle, the playground
  and a11y.js after).
* Three stylesheets: Material's two and ``assets/stylesheets/site.css``, which is exactly the
  stylesheets ``extra_css`` lists (and mkdocstrings' handler CSS), in order, once each
  (``hooks/stylesheets.py``). Their sources are safe to concatenate.

tests/browser/test_lighthouse.py measures what this buys (first contentful paint); the
browser tests show that search, the palette, copy buttons, tabs and the playground still work.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load

from tests import soup
from tests.loading import load_module

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def load_hook():
    return load_module("stylesheets_hook", ROOT / "hooks" / "stylesheets.py")


HOOK = load_hook()


def configured_extra_css() -> list[str]:
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        return list(yaml_load(file)["extra_css"])


@dataclass
class Head:
    """The page's external scripts (with their attributes) and stylesheet links, in order."""

    scripts: list[dict[str, str]]
    stylesheets: list[str]


@cache
def heads(site: Path) -> dict[str, Head]:
    """The scripts and stylesheets of every HTML page a reader can open (not the redirect pages
    of moved addresses), by site-relative path; read once for the tests below, with lxml's HTML
    parser (3 ms a page; the standard library's HTMLParser takes 18 ms)."""
    found = {}
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        text = path.read_text(encoding="utf-8")
        if rel.startswith("assets/") or "data-moved-to=" in text[:500]:
            continue
        document = soup.tree(text)
        found[rel] = Head(
            scripts=[dict(script.attrib) for script in document.xpath("//script[@src != '']")],
            stylesheets=[link.get("href", "") for link in document.xpath('//link[@rel="stylesheet"]')],
        )
    assert len(found) > 80, "the site has fewer pages than the book"
    return found


def asset(url: str) -> str:
    """An asset URL as a site path: ``../../assets/x.js?v=…`` (a page) or ``/assets/x.js`` (the
    404 pages, which are served at any depth) -> ``assets/x.js``."""
    return re.sub(r"^(\.\./)*(\./)?/?", "", url.split("?", 1)[0])


# The book's own scripts, in the order they must run (Material's bundle has a hash in its name).
SCRIPT_ORDER = [
    r"assets/javascripts/palette-load\.js",
    r"assets/javascripts/search-on-demand\.js",
    r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js",
    r"assets/playground/playground\.js",
    r"assets/javascripts/a11y\.js",
]


def test_no_page_has_a_parser_blocking_script(built_site):
    blocking: dict[str, list[str | None]] = {}
    for rel, head in heads(built_site.path).items():
        for script in head.scripts:
            if "defer" not in script and "async" not in script and script.get("type") != "module":
                blocking.setdefault(rel, []).append(script["src"])
    assert blocking == {}, "scripts that hold the parser (and the first paint) until they have run"


def test_the_books_scripts_run_in_order_on_every_page(built_site):
    wrong: dict[str, list[str]] = {}
    for rel, head in heads(built_site.path).items():
        srcs = [asset(s["src"] or "") for s in head.scripts]
        ours = [s for s in srcs if any(re.fullmatch(p, s) for p in SCRIPT_ORDER)]
        matches = len(ours) == len(SCRIPT_ORDER) and all(
            re.fullmatch(p, s) for p, s in zip(SCRIPT_ORDER, ours, strict=True)
        )
        if not matches:
            wrong[rel] = ours
    assert wrong == {}


VERSIONS = load_module("asset_versions_hook", ROOT / "hooks" / "asset_versions.py")


def test_the_books_own_files_are_linked_with_the_version_of_what_was_published(built_site):
    """Every script and style sheet a page links: Material's (a hash in the name) as they are,
    the book's own with ``?v=`` and the version of the file the site holds (hooks/asset_versions.py)."""
    site = built_site.path
    wrong: dict[str, list[str]] = {}
    own: set[str] = set()
    for rel, head in heads(site).items():
        for url in [s["src"] for s in head.scripts] + head.stylesheets:
            path, _, query = url.partition("?")
            file = asset(path)
            if VERSIONS.FINGERPRINTED.match(file):
                expected = ""
            else:
                own.add(file)
                expected = f"v={VERSIONS.file_version(site, file)}"
            if query != expected:
                wrong.setdefault(rel, []).append(f"{url} (expected {expected or 'no query'})")
    assert wrong == {}
    assert own == {
        "assets/stylesheets/site.css",
        "assets/javascripts/palette-load.js",
        "assets/javascripts/search-on-demand.js",
        "assets/playground/playground.js",
        "assets/javascripts/a11y.js",
        "assets/javascripts/moved.js",  # on the pages with an anchor that moved (hooks/moved.py)
    }


def test_a_version_changes_with_its_file_and_with_what_the_script_loads(tmp_path: Path):
    playground = tmp_path / "assets" / "playground"
    playground.mkdir(parents=True)
    for name in ("playground.js", "worker.mjs", "harnessbook.zip", "other.css"):
        (playground / name).write_text(name, encoding="utf-8")
    before = {
        name: VERSIONS.file_version(tmp_path, f"assets/playground/{name}")
        for name in ("playground.js", "other.css")
    }
    assert all(re.fullmatch(r"[0-9a-f]{12}", v) for v in before.values()), before
    for name in ("worker.mjs", "harnessbook.zip", "playground.js"):
        (playground / name).write_text(name + " changed", encoding="utf-8")
        now = VERSIONS.file_version(tmp_path, "assets/playground/playground.js")
        assert now != before["playground.js"], f"playground.js's version did not change with {name}"
        before["playground.js"] = now
    assert VERSIONS.file_version(tmp_path, "assets/playground/other.css") == before["other.css"]


VERSIONED = {
    '<link rel="stylesheet" href="../assets/a.css">': '<link rel="stylesheet" href="../assets/a.css?v=aaa">',
    '<script defer src="/harness/assets/b.js"></script>': '<script defer src="/harness/assets/b.js?v=bbb"></script>',
    "<script src='../assets/c.js'></script>": "<script src='../assets/c.js?v=ccc'></script>",
    "<link rel=stylesheet href=../assets/a.css>": "<link rel=stylesheet href=../assets/a.css?v=aaa>",
    '<link rel="stylesheet" href="../assets/a.css"/>': '<link rel="stylesheet" href="../assets/a.css?v=aaa"/>',
    # A page `mkdocs build --dirty` did not write again: the version it has is written anew.
    '<script src="../assets/c.js?v=0123456789ab"></script>': '<script src="../assets/c.js?v=ccc"></script>',
}
"""Addresses of the site's own files (the page is ``en/index.html`` of a site at ``/harness/``)."""
LEFT_AS_THEY_ARE = [
    '<script src="/elsewhere/assets/b.js"></script>',  # not under the site's path
    '<script src="https://cdn.example/assets/b.js"></script>',
    '<script src="//cdn.example/assets/b.js"></script>',
    '<script src="../assets/a.css?x=1"></script>',  # a query of its own
    '<script src="../assets/a.css?v=abc"></script>',  # not a version this hook writes
    '<script src="../assets/d.js#top"></script>',  # a fragment
    '<a href="../assets/a.css">a link, not a script or style sheet</a>',
    '<link rel="stylesheet" href="../assets/missing.css">',  # no version: not a file of the site
]


def test_only_the_sites_own_addresses_get_a_version():
    versions = {"assets/a.css": "aaa", "assets/b.js": "bbb", "assets/c.js": "ccc", "assets/d.js": "ddd"}
    html = "".join([*VERSIONED, *LEFT_AS_THEY_ARE])
    assert VERSIONS.versioned(html, "en/index.html", "/harness/", versions.get) == "".join(
        [*VERSIONED.values(), *LEFT_AS_THEY_ARE]
    )


def test_every_page_links_materials_stylesheets_and_the_books_one(built_site):
    wrong: dict[str, list[str]] = {}
    for rel, head in heads(built_site.path).items():
        links = [asset(href) for href in head.stylesheets]
        expected = (
            len(links) == 3
            and re.fullmatch(r"assets/stylesheets/main\.[0-9a-f]+\.min\.css", links[0])
            and re.fullmatch(r"assets/stylesheets/palette\.[0-9a-f]+\.min\.css", links[1])
            and links[2] == HOOK.TARGET
        )
        if not expected:
            wrong[rel] = links
    assert wrong == {}


def test_site_css_is_every_listed_stylesheet_once_in_order(built_site):
    site = built_site.path
    text = (site / HOOK.TARGET).read_text(encoding="utf-8")
    sources = ["assets/_mkdocstrings.css", *configured_extra_css()]  # mkdocstrings puts its own first
    assert re.findall(r"^/\* (\S+\.css) \*/$", text, flags=re.MULTILINE) == sources
    position = 0
    for path in sources:
        source = DOCS / path if (DOCS / path).is_file() else site / path
        body = HOOK.without_comments(source.read_text(encoding="utf-8"))
        found = text.find(body, position)
        assert found >= position, f"{path} is not in {HOOK.TARGET} after the stylesheet before it"
        position = found + len(body)
    for path in configured_extra_css():
        assert not (site / path).exists(), f"{path} is in the site on its own as well as in {HOOK.TARGET}"


def test_comments_go_and_everything_else_stays():
    css = "a { content: \"/* kept */\"; } /* gone */\n\n/* gone\ntoo */\nb { x: '*/' }  \n"
    assert HOOK.without_comments(css) == "a { content: \"/* kept */\"; }\nb { x: '*/' }"
    site = (DOCS / "assets" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert "/*" in site and "/*" not in HOOK.without_comments(site)


@pytest.mark.parametrize("path", configured_extra_css())
def test_the_books_stylesheets_can_be_concatenated(path: str):
    """One file keeps the cascade only if no source needs to be first or to be where it was."""
    text = (DOCS / path).read_text(encoding="utf-8")
    assert not re.search(r"@(import|charset)\b", text), f"{path}: @import or @charset"
    for url in re.findall(r"url\(\s*['\"]?([^'\")\s]+)", text):
        assert url.startswith(("data:", "#")), f"{path}: url({url}) would point elsewhere from {HOOK.TARGET}"


def hook_config(tmp_path: Path, extra_css: list[str]) -> SimpleNamespace:
    return SimpleNamespace(
        extra_css=list(extra_css), docs_dir=str(tmp_path / "docs"), site_dir=str(tmp_path / "site")
    )


def test_the_hook_keeps_the_order_and_drops_repeats_across_editions(tmp_path: Path):
    hook = load_hook()
    (tmp_path / "docs" / "a").mkdir(parents=True)
    (tmp_path / "site" / "assets").mkdir(parents=True)
    (tmp_path / "docs" / "a" / "one.css").write_text("a { color: red }\n", encoding="utf-8")
    (tmp_path / "docs" / "a" / "two.css").write_text("b { color: blue }\n", encoding="utf-8")
    (tmp_path / "site" / "assets" / "gen.css").write_text("c { color: green }\n", encoding="utf-8")
    config = hook_config(tmp_path, ["assets/gen.css", "a/one.css", "a/two.css"])
    hook.on_config(config)
    assert config.extra_css == [hook.TARGET]
    # The next edition's build: the same config object, and the generated file added again.
    config.extra_css.insert(0, "assets/gen.css")
    hook.on_config(config)
    assert config.extra_css == [hook.TARGET]
    hook.on_post_build(config)
    written = (tmp_path / "site" / hook.TARGET).read_text(encoding="utf-8")
    assert re.findall(r"color: (\w+)", written) == ["green", "red", "blue"]
    # A fresh config (mkdocs serve after mkdocs.yml changed) starts the list again.
    fresh = hook_config(tmp_path, ["a/two.css"])
    hook.on_config(fresh)
    hook.on_post_build(fresh)
    assert re.findall(r"color: (\w+)", (tmp_path / "site" / hook.TARGET).read_text(encoding="utf-8")) == [
        "blue"
    ]


def test_the_hook_refuses_a_stylesheet_it_cannot_find(tmp_path: Path):
    hook = load_hook()
    config = hook_config(tmp_path, ["a/missing.css"])
    hook.on_config(config)
    with pytest.raises(PluginError, match=r"a/missing\.css"):
        hook.on_post_build(config)


# --------------------------------------------------------------------------- the book's scripts

SCRIPTS = load_module("scripts_hook", ROOT / "hooks" / "scripts.py")


def test_each_script_reaches_the_site_without_its_comments_and_indentation_only(built_site):
    saved = 0
    for path in SCRIPTS.SCRIPTS:
        source = (DOCS / path).read_text(encoding="utf-8")
        served = (built_site.path / path).read_text(encoding="utf-8")
        expected = []
        for line in source.splitlines(keepends=True):
            line = line.lstrip(" \t")
            if line.startswith("//"):
                continue
            code, mark, _ = line.partition(" //")
            if mark and not any(char in code for char in "'\"`/"):
                line = code.rstrip(" \t") + "\n"
            expected.append(line)
        assert served == "".join(expected), path
        saved += len(source) - len(served)
    assert saved > 12000, f"only {saved} characters of comment lines and indentation left out"


TOKENS = """
const acorn = require(process.argv[2]);
const fs = require("fs");
const tokens = (file) => [...acorn.tokenizer(fs.readFileSync(file, "utf8"), { ecmaVersion: "latest" })]
  .map((token) => [token.type.label, token.value === undefined ? null : String(token.value)]);
// argv: acorn, then (source, served) pairs: one process for every script
const files = process.argv.slice(3);
const pairs = [];
for (let i = 0; i < files.length; i += 2) pairs.push([tokens(files[i]), tokens(files[i + 1])]);
process.stdout.write(JSON.stringify(pairs));
"""


def test_the_scripts_without_their_comment_lines_are_the_same_javascript(built_site, tmp_path):
    """Checked by a JavaScript tokenizer (acorn, which Lighthouse brings into tools/node_modules),
    not by the hook's own rule: the served script has the source's tokens, every string and
    template literal included, and only comments are gone."""
    node = shutil.which("node")
    acorn = ROOT / "tools" / "node_modules" / "acorn"
    if node is None or not acorn.is_dir():
        if os.environ.get("CI"):
            pytest.fail("node and tools/node_modules/acorn are required under CI (npm ci --prefix tools)")
        pytest.skip("node or tools/node_modules/acorn is missing (npm ci --prefix tools)")
    script = tmp_path / "tokens.cjs"
    script.write_text(TOKENS, encoding="utf-8")
    files = [str(file) for path in SCRIPTS.SCRIPTS for file in (DOCS / path, built_site.path / path)]
    done = subprocess.run([node, str(script), str(acorn), *files], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    pairs = json.loads(done.stdout)
    assert len(pairs) == len(SCRIPTS.SCRIPTS)
    for path, (source, served) in zip(SCRIPTS.SCRIPTS, pairs, strict=True):
        assert len(source) > 100 and served == source, path


@pytest.mark.parametrize(
    ("script", "why"),
    [
        ("const a = `one\n// not a comment\ntwo`;\n", "a template literal over several lines"),
        ("const a = `x`; const b = `y`;\n", None),  # literals that close on their own line
        ("const a = '`'; const b = `x`;\n", "a backtick in a string"),  # refused, to be safe
        # Even backticks on each line, and yet a literal over three lines: its middle line, which
        # starts with //, would have gone.
        ("const a = '`' + `x\n  // y\n  z` + '`';\n", "a backtick beside a quote"),
        ("const a = 'one \\\n// still the string';\n", "a line ending in a backslash"),
    ],
)
def test_a_script_where_a_literal_could_span_lines_is_refused(script: str, why: str | None):
    if why is None:
        assert SCRIPTS.served_script(script) == script
        return
    with pytest.raises(ValueError, match=why):
        SCRIPTS.served_script(script, "x.js")


def test_comment_lines_go_and_a_comment_after_code_only_where_it_cannot_be_text():
    script = (
        "// gone\n  // gone too\nconst url = 'http://x'; // kept: a quote before it\n/* kept */\n"
        "\tx(); // gone: only code before it\nconst half = a / 2; // kept: a slash before it\ny(); //\n"
    )
    assert SCRIPTS.served_script(script) == (
        "const url = 'http://x'; // kept: a quote before it\n/* kept */\nx();\n"
        "const half = a / 2; // kept: a slash before it\ny();\n"
    )
