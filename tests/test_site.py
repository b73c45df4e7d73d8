"""The built book (``built_site``: one strict build for the session), checked as a reader gets it.

* the strict build passes (the fixture) and prints no WARNING;
* nothing is loaded from another host: every .html/.css/.js/.mjs/.json/.webmanifest file is
  scanned for src/href/url()/@import/import/fetch of another host (links in ``<a href>`` are
  prose and may point anywhere), and Material's Google Fonts are off;
* search: one index per edition, jieba-segmented Chinese, English words unstemmed, results that
  never leave the reader's edition;
* the Material features readers expect;
* interface labels (header, navigation, search, footer, admonition and API section titles) in
  the language of the edition.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import warnings
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse

import lxml.etree  # type: ignore[import-untyped]
import pytest

from tests import soup
from tests.conftest import book_config
from tests.loading import load_module

ROOT = Path(__file__).resolve().parents[1]


SITE_HOST = urlparse(book_config()["site_url"]).hostname
HAN = re.compile(r"[\u2e80-\u2fdf\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def is_redirect_page(page: Path) -> bool:
    """A page moved.yml redirects (hooks/moved.py): a bare <html data-moved-to>, not a book page."""
    return re.search(r"<html[^>]*\sdata-moved-to=", page.read_text(encoding="utf-8")[:500]) is not None


def edition_pages(site: Path, edition: str) -> list[Path]:
    """The pages of one edition: "en" lives under en/, "zh" is everything else (no redirect pages)."""
    pages = [
        p
        for p in html_pages(site)
        if not p.relative_to(site).parts[0].startswith("assets") and not is_redirect_page(p)
    ]
    if edition == "en":
        return [p for p in pages if p.relative_to(site).parts[0] == "en"]
    return [p for p in pages if p.relative_to(site).parts[0] != "en"]


def page_url(site: Path, page: Path) -> str:
    """The address a page is served at, on the site's own host."""
    relative = page.relative_to(site).as_posix()
    if relative.endswith("index.html"):
        relative = relative[: -len("index.html")]
    return f"https://{SITE_HOST}/{relative}"


# --- the strict build ---------------------------------------------------------------------------


def test_strict_build_has_no_warning(built_site):
    warnings = [line for line in built_site.log.splitlines() if "WARNING" in line]
    assert not warnings, "\n".join(warnings)


# --- nothing from another host ------------------------------------------------------------------

# Absolute URLs that appear in vendored JavaScript but are never fetched by this site, each with
# the reason; the reasons that depend on the site are checked by the tests below.
DORMANT_JS_URLS = {
    "https://unpkg.com/resize-observer-polyfill": "Material: only in browsers without ResizeObserver",
    "https://unpkg.com/mermaid@11/dist/mermaid.min.js": "Material: only for mermaid diagrams (none here)",
    "https://api.github.com/repos/": "Material: repository facts, only for data-md-component=source (never rendered)",
    "https://api.github.com/users/": "Material: repository facts, only for data-md-component=source (never rendered)",
    "https://${e}/api/v4/projects": "Material: GitLab facts, only for data-md-component=source (never rendered)",
    "https://${t}": "Pyodide: a URL-parsing helper, not a fetch",
    "https://cdn.jsdelivr.net/pyodide/": "Pyodide's default package CDN; the playground sets packageBaseUrl",
}
# XML namespaces and similar identifiers: never fetched.
NAMESPACE_HOSTS = {"www.w3.org"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)(?P<url>[^'")]+)\1\s*\)|@import\s+(['"])(?P<import>[^'"]+)\3""")
URL_KEY = re.compile(r"^(src|href|url|icons?|start_url|scope|.*[uU][rR][lL])$")
LOADING_ATTRIBUTES = {
    "src",
    "href",
    "srcset",
    "data",
    "poster",
    "action",
    "formaction",
    "xlink:href",
    "background",
}


def is_external(url: str) -> bool:
    url = url.strip()
    if url.startswith("//"):
        url = "https:" + url
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https"):
        return False  # relative, data:, mailto:, #anchor...
    return parsed.hostname != SITE_HOST


def html_urls(markup: str | Any) -> list[str]:
    """What an HTML document would load: every URL attribute except <a href>, inline CSS and JS.

    ``markup`` is the text, or a parsed document (a built page's, shared with the other tests)."""
    found: list[str] = []
    document = soup.tree(markup) if isinstance(markup, str) else markup
    for tag in soup.elements(document):
        for name, value in tag.attrib.items():
            if name == "style":
                found += css_urls(value)
            elif name in LOADING_ATTRIBUTES and not (tag.tag == "a" and name == "href"):
                candidates = (
                    [part.strip().split(" ")[0] for part in value.split(",")] if name == "srcset" else [value]
                )
                found += [f"<{tag.tag} {name}={url}>" for url in candidates if is_external(url)]
            elif tag.tag == "meta" and name == "content" and "url=" in value.lower():
                found += [f"<meta refresh {value}>"] if is_external(value.split("=", 1)[1]) else []
        if tag.tag in ("style", "script"):
            content = tag.text or ""
            found += css_urls(content) if tag.tag == "style" else js_urls(content)
    return found


def css_urls(text: str) -> list[str]:
    found = []
    for match in CSS_URL.finditer(text):
        url = match.group("url") or match.group("import")
        if is_external(url):
            found.append(f"css {url}")
    return found


JS_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
JS_LINE_COMMENT = re.compile(r"(?:^|(?<=[\s;{}]))//[^\n]*")
QUOTED_URL = re.compile(r"""(?<=["'`])(?:https?://|//(?=[\w-]+\.[\w.-]+/))[^\s"'`)<>\\]+""")


def js_urls(text: str) -> list[str]:
    """Absolute URLs in the string literals of a script (comments are documentation)."""
    code = JS_LINE_COMMENT.sub(" ", JS_BLOCK_COMMENT.sub(" ", text))
    found = []
    for match in QUOTED_URL.finditer(code):
        url = match.group(0)
        host = urlparse(url).hostname or ""
        if host in NAMESPACE_HOSTS or (not is_external(url) and "${" not in url):
            continue
        if any(url.startswith(dormant) for dormant in DORMANT_JS_URLS):
            continue
        found.append(f"js {url}")
    return found


def json_urls(value, key: str = "") -> list[str]:
    if isinstance(value, dict):
        return [url for k, v in value.items() for url in json_urls(v, str(k))]
    if isinstance(value, list):
        return [url for v in value for url in json_urls(v, key)]
    if isinstance(value, str):
        if URL_KEY.match(key) and is_external(value):
            return [f"json {key}: {value}"]
        if "<" in value:  # HTML kept in a search index
            return html_urls(value)
    return []


def external_references(path: Path) -> list[str]:
    suffix = path.suffix
    if suffix == ".html":
        return html_urls(soup.page(path))
    text = path.read_text(encoding="utf-8", errors="replace")
    if suffix == ".css":
        return css_urls(text)
    if suffix in (".js", ".mjs"):
        return js_urls(text)
    if suffix in (".json", ".webmanifest"):
        try:
            return json_urls(json.loads(text))
        except ValueError:  # e.g. the deliberately truncated inputs of docs/examples
            pairs = re.findall(r'"([^"\\]+)"\s*:\s*"([^"\\]*)"', text)
            return [
                f"json {key}: {value}" for key, value in pairs if URL_KEY.match(key) and is_external(value)
            ]
    return []


SCANNED = (".html", ".css", ".js", ".mjs", ".json", ".webmanifest")


def test_nothing_is_loaded_from_another_host(built_site):
    files = [p for p in built_site.path.rglob("*") if p.suffix in SCANNED]
    assert any(p.suffix == ".html" for p in files) and any(p.suffix == ".css" for p in files)
    problems = [f"{p.relative_to(built_site.path)}: {ref}" for p in files for ref in external_references(p)]
    assert not problems, "\n".join(problems[:50])


def test_google_fonts_are_off(built_site):
    assert book_config()["theme"].get("font") is False
    read = [path for path in built_site.path.rglob("*") if path.suffix in (".html", ".css")]
    assert len(read) > 40  # a check over no file would pass
    for path in read:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, path


def test_the_dormant_urls_stay_dormant(built_site):
    config = book_config()
    assert not config.get("repo_url"), "repo_url comes from REPO_URL only (hooks/publish.py)"
    source = (ROOT / "overrides" / "partials" / "source.html").read_text(encoding="utf-8")
    assert 'class="md-source"' in source and 'data-md-component="source"' not in source, (
        "data-md-component=source makes Material fetch repository facts from the host's API"
    )
    pages = html_pages(built_site.path)
    assert not any("mermaid" in soup.classes(p) for p in pages), "mermaid loads from unpkg"
    workers = list(built_site.path.rglob("worker.mjs"))
    assert workers, "no worker.mjs in the site: the check below would pass on nothing"
    for worker in workers:
        assert "packageBaseUrl" in worker.read_text(encoding="utf-8"), f"{worker}: Pyodide would use its CDN"


PAGES_THAT_LOAD = {
    "link": '<link rel="stylesheet" href="https://cdn.example.org/x.css">',
    "script": '<script src="//cdn.example.org/x.js"></script>',
    "img": '<img src="https://images.example.org/a.png" alt="">',
    "srcset": '<img src="a.png" srcset="a.png 1x, https://images.example.org/a2.png 2x" alt="">',
    "style-attribute": '<div style="background: url(https://images.example.org/a.png)"></div>',
    "style-element": "<style>@import 'https://fonts.googleapis.com/css?family=Roboto';</style>",
    "inline-script": '<script>fetch("https://api.example.org/data")</script>',
    "font-css": '<style>@font-face { src: url("https://fonts.gstatic.com/x.woff2") }</style>',
}


@pytest.mark.parametrize("case", sorted(PAGES_THAT_LOAD))
def test_the_scan_catches_external_assets(tmp_path: Path, case: str):
    page = tmp_path / "page.html"
    page.write_text(f"<html><body>{PAGES_THAT_LOAD[case]}</body></html>", encoding="utf-8")
    assert external_references(page)


def test_the_scan_allows_prose_links_and_the_site_itself(tmp_path: Path):
    page = tmp_path / "page.html"
    page.write_text(
        f'<a href="https://example.org/docs">prose</a><link rel="canonical" href="https://{SITE_HOST}/x/">'
        '<img src="../assets/a.png" alt=""><svg xmlns="http://www.w3.org/2000/svg"></svg>',
        encoding="utf-8",
    )
    assert external_references(page) == []
    script = tmp_path / "a.js"
    script.write_text('import("https://esm.example.org/x.js");', encoding="utf-8")
    assert external_references(script)
    manifest = tmp_path / "site.webmanifest"
    manifest.write_text('{"icons": [{"src": "https://cdn.example.org/i.png"}]}', encoding="utf-8")
    assert external_references(manifest)


# --- search -----------------------------------------------------------------------------------


def load_index(site: Path, edition: str) -> dict:
    path = site / ("" if edition == "zh" else edition) / "search" / "search_index.json"
    assert path.exists(), f"no search index for the {edition} edition at {path.relative_to(site)}"
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def plain_text(fragment: str) -> str:
    """The text of an HTML fragment of the search index, each tag counted as a space."""
    return soup.parse(fragment).get_text(" ") if "<" in fragment else html.unescape(fragment)


def tokens(index: dict, text: str) -> list[str]:
    """lunr's tokenizer with the index's separator (lowercased); pipeline [] changes nothing."""
    separator = re.compile(index["config"]["separator"])
    return [t.lower() for t in separator.split(plain_text(text)) if t and t.strip()]


def all_tokens(index: dict) -> set[str]:
    return {
        t for doc in index["docs"] for field in ("title", "text") for t in tokens(index, doc.get(field, ""))
    }


def find(index: dict, term: str) -> set[str]:
    """Locations (pages, without anchors) whose title or text holds the term as a whole token."""
    wanted = tokens(index, term)
    found = set()
    for doc in index["docs"]:
        words = tokens(index, doc.get("title", "")) + tokens(index, doc.get("text", ""))
        if all(w in words for w in wanted):
            found.add(doc["location"].split("#")[0])
    return found


def test_each_edition_has_its_own_index(built_site):
    zh, en = load_index(built_site.path, "zh"), load_index(built_site.path, "en")
    assert zh["config"]["lang"] == ["zh"], "the Chinese index is segmented and searched as Chinese"
    assert en["config"]["lang"] == ["en"]
    for index in (zh, en):
        assert index["config"]["pipeline"] == [], "no stemmer, no stop words: identifiers stay whole"
        assert "\\u200b" in index["config"]["separator"], "jieba's segment boundaries must separate tokens"
    assert zh["docs"] and en["docs"]
    assert not [d["location"] for d in zh["docs"] if d["location"].startswith("en/")]


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_search_results_stay_in_the_edition(built_site, edition: str):
    """Every location in an edition's index is a page of that edition, resolved as Material does."""
    site = built_site.path
    index = load_index(site, edition)
    root = f"https://{SITE_HOST}/" + ("" if edition == "zh" else f"{edition}/")
    wrong = []
    for doc in index["docs"]:
        url = urlparse(urljoin(root, doc["location"]))
        page = (
            site / url.path.lstrip("/") / "index.html"
            if url.path.endswith("/")
            else site / url.path.lstrip("/")
        )
        if not page.exists():
            wrong.append(f"{doc['location']}: no page at {url.path}")
            continue
        lang = soup.html_lang(soup.page(page))
        if lang != edition:
            wrong.append(f"{doc['location']}: {url.path} is a {lang} page")
    assert not wrong, "\n".join(wrong[:30])


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_every_page_searches_its_own_edition(built_site, edition: str):
    """Material loads ``<base>/search/search_index.json``; base must be the edition's root."""
    site = built_site.path
    expected_root = f"https://{SITE_HOST}/" + ("" if edition == "zh" else f"{edition}/")
    wrong = []
    for page in edition_pages(site, edition):
        config = soup.page_config(page)
        if config is None:
            wrong.append(f"{page.relative_to(site)}: no Material __config")
            continue
        base = config["base"]
        resolved = urljoin(page_url(site, page), base if base.endswith("/") else base + "/")
        if resolved != expected_root:
            wrong.append(
                f"{page.relative_to(site)}: base {base!r} resolves to {resolved}, not {expected_root}"
            )
    assert not wrong, "\n".join(wrong[:30])


def test_jieba_segmented_the_chinese_index(built_site):
    index = load_index(built_site.path, "zh")
    words = all_tokens(index)
    assert "预算" in words, "'预算' (budget) must be a token of its own"
    han_tokens = [w for w in words if HAN.search(w)]
    assert han_tokens
    # Unsegmented text would leave whole clauses as single tokens.
    long_runs = sorted(
        (w for w in han_tokens if len(re.findall(r"[\u4e00-\u9fff]", w)) > 8), key=len, reverse=True
    )
    assert not long_runs, f"Chinese runs left unsegmented: {long_runs[:10]}"
    # The segmentation is jieba's: re-segmenting a title's text gives the same words.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # jieba's own regular expressions
        import jieba

    titles = [d["title"] for d in index["docs"] if HAN.search(d["title"]) and "\u200b" in d["title"]]
    assert titles, "no Chinese title carries jieba's segment marks (U+200B)"
    for title in titles[:20]:
        plain = title.replace("\u200b", "")
        for run in re.findall(r"[\u4e00-\u9fff]+", plain):
            assert all(word in tokens(index, title) for word in jieba.cut(run)), (title, list(jieba.cut(run)))


def test_chinese_terms_find_chinese_pages(built_site):
    zh = load_index(built_site.path, "zh")
    for term in ("预算", "出处"):
        assert find(zh, term), f"searching {term!r} in the Chinese edition finds nothing"


def test_english_words_in_chinese_pages_are_found_unstemmed(built_site):
    zh = load_index(built_site.path, "zh")
    words = all_tokens(zh)
    for word in ("evidence", "budget", "budgetunits", "harnessbook", "provenance"):
        assert word in words, f"{word!r} is not a token of the Chinese index"
    # An English word right after Chinese text or punctuation is a token of its own.
    mixed = sorted(w for w in words if re.search(r"[a-z]", w) and HAN.search(w))
    assert not mixed, f"tokens mixing English and Chinese characters: {mixed[:20]}"
    # A field name is one word, in the index and in the query alike: "conflictsWith" is not
    # "conflicts" or "with" (which every page has).
    assert "conflictswith" in words and "budgetunits" in words
    assert find(zh, "budgetUnits") and find(zh, "build_context_packet")
    assert tokens(zh, "conflictsWith") == ["conflictswith"]


def test_english_terms_find_english_pages(built_site):
    en = load_index(built_site.path, "en")
    for term in ("budget", "provenance", "evidence", "budgetUnits"):
        assert find(en, term), f"searching {term!r} in the English edition finds nothing"


def test_the_editions_do_not_share_pages(built_site):
    zh, en = load_index(built_site.path, "zh"), load_index(built_site.path, "en")
    # (A Chinese word may still occur in the English index, inside an example's data.)
    english_pages_with_chinese_titles = [d["location"] for d in en["docs"] if HAN.search(d["title"])]
    assert not english_pages_with_chinese_titles, english_pages_with_chinese_titles
    chinese_pages_with_english_home_title = [
        d for d in zh["docs"] if d["location"] == "" and not HAN.search(d["title"])
    ]
    assert not chinese_pages_with_english_home_title


# Material's own search worker, run in Node on an edition's index: the browser's search, minus
# the browser. It prints, per query, the locations of the result groups.
SEARCH_WORKER_HARNESS = r"""
// Run Material's own search worker in Node on an edition's index; print the result locations.
const fs = require("fs"), vm = require("vm"), path = require("path");
const [workerPath, indexPath, ...queries] = process.argv.slice(2);
const lunrDir = path.join(path.dirname(workerPath), "..", "lunr");
const listeners = [];
const ctx = { console, setTimeout, clearTimeout, URL, TextEncoder, TextDecoder, Intl };
ctx.self = ctx;
ctx.globalThis = ctx;
ctx.addEventListener = (type, fn) => listeners.push(fn);
ctx.importScripts = (...urls) => {
  for (const url of urls) {
    const file = path.join(lunrDir, url.slice(url.indexOf("/lunr/") + "/lunr/".length));
    vm.runInContext(fs.readFileSync(file, "utf8"), ctx, { filename: file });
  }
};
const replies = [];
ctx.postMessage = (message) => replies.push(message);
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(workerPath, "utf8"), ctx, { filename: workerPath });
const send = async (data) => {
  const before = replies.length;
  listeners.forEach((fn) => fn({ data }));
  while (replies.length === before) await new Promise((r) => setTimeout(r, 5));
  return replies[replies.length - 1];
};
(async () => {
  const index = JSON.parse(fs.readFileSync(indexPath, "utf8"));
  await send({ type: 0, data: { config: index.config, docs: index.docs, options: { suggest: false } } });
  const out = {};
  for (const q of queries) {
    const reply = await send({ type: 2, data: q });
    out[q] = reply.data.items.map((group) => group.map((doc) => doc.location));
  }
  console.log(JSON.stringify(out));
})();
"""


def material_search(site: Path, edition: str, queries: list[str], tmp_path: Path) -> dict[str, list[str]]:
    """The page each result of each query opens, as Material's search worker finds them, run in
    Node on the edition's index.

    One Node process per site and edition: the first call searches every query of
    :data:`QUERIES` for the edition too, and later calls read its answers (Node and the index
    took about 0.4 s of CPU per call)."""
    known = _SEARCHED.setdefault((site, edition), {})
    missing = [query for query in queries if query not in known]
    if missing:
        missing += [
            query for query in QUERIES.get(edition, ()) if query not in known and query not in missing
        ]
        known.update(_run_search_worker(site, edition, missing, tmp_path))
    return {query: known[query] for query in queries}


_SEARCHED: dict[tuple[Path, str], dict[str, list[str]]] = {}


def _run_search_worker(site: Path, edition: str, queries: list[str], tmp_path: Path) -> dict[str, list[str]]:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is required in CI to run Material's search worker")
        pytest.skip("node is not installed: Material's search worker cannot run here")
    harness = tmp_path / "search.js"
    harness.write_text(SEARCH_WORKER_HARNESS, encoding="utf-8")
    (worker,) = (site / "assets" / "javascripts" / "workers").glob("search.*.min.js")
    index = site / ("" if edition == "zh" else edition) / "search" / "search_index.json"
    completed = subprocess.run(
        [node, str(harness), str(worker), str(index), *queries], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    groups = json.loads(completed.stdout)
    return {query: [group[0].split("#")[0] for group in groups[query]] for query in queries}


def edition_of(site: Path, edition: str, location: str) -> str:
    """The language of the page a search result opens, resolved against the edition's base."""
    url = urlparse(urljoin(f"https://{SITE_HOST}/" + ("" if edition == "zh" else f"{edition}/"), location))
    page = site / url.path.lstrip("/") / "index.html"
    if not page.exists():
        return f"missing page {url.path}"
    return soup.html_lang(soup.page(page)) or "no lang"


SEARCHES = {
    # edition: (terms that must find pages of that edition, terms that may find nothing)
    "zh": (
        ["预算", "预算单位", "出处", "budgetUnits", "evidence", "harnessbook"],
        ["budget", "Budget units"],
    ),
    "en": (["budget", "provenance", "evidence", "budgetUnits", "harnessbook"], ["预算", "出处"]),
}


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_material_search_stays_in_the_edition(built_site, edition: str, tmp_path: Path):
    must_find, may_find = SEARCHES[edition]
    results = material_search(built_site.path, edition, must_find + may_find, tmp_path)
    for term in must_find:
        assert results[term], f"searching {term!r} in the {edition} edition finds nothing"
    crossing = {
        term: lang
        for term, locations in results.items()
        for location in locations
        if (lang := edition_of(built_site.path, edition, location)) != edition
    }
    assert not crossing, f"results outside the {edition} edition: {crossing}"


# --- Material features ----------------------------------------------------------------------------


def material_config(page: Path) -> dict:
    config = soup.page_config(page)
    assert config is not None, f"{page}: no Material __config"
    return config


def content_pages(site: Path, edition: str) -> list[Path]:
    return [p for p in edition_pages(site, edition) if p.name != "404.html"]


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_material_features(built_site, edition: str):
    site = built_site.path
    pages = content_pages(site, edition)
    assert pages
    for page in pages:
        document = soup.page(page)
        name = page.relative_to(site)
        features = material_config(page)["features"]
        assert "content.code.copy" in features, f"{name}: no code copy button"
        # Code blocks set up when they first come into view (a11y.js gives the ones not yet set
        # up their keyboard access): see test_template_drift.py.
        assert "content.lazy" in features, f"{name}: every code block is set up at load"
        assert "navigation.footer" in features, f"{name}: no previous/next footer"
        palettes = document.xpath('//form[@data-md-component="palette"]')
        toggles = palettes[0].xpath(f".//input[{soup.has_class('md-option')}]") if palettes else []
        assert len(toggles) >= 2, f"{name}: no light/dark toggle"
        searches = document.xpath('//*[@data-md-component="search"]')
        assert searches and searches[0].xpath(f".//input[{soup.has_class('md-search__input')}]"), (
            f"{name}: no search box"
        )
        toc = document.xpath(f'//*[@data-md-component="toc"] | //nav[{soup.has_class("md-nav--secondary")}]')
        assert toc, f"{name}: no table of contents"
        if document.xpath("//*[self::h2 or self::h3 or self::h4 or self::h5 or self::h6][@id]"):
            assert document.xpath(f"//a[{soup.has_class('headerlink')}]"), (
                f"{name}: headings have no permalinks"
            )
    footers = [
        ("md-footer__link--prev" in soup.classes(p), "md-footer__link--next" in soup.classes(p))
        for p in pages
    ]
    assert sum(1 for prev, _ in footers if not prev) == 1, (
        "exactly one page (the first) has no 'previous' link"
    )
    assert sum(1 for _, nxt in footers if not nxt) == 1, "exactly one page (the last) has no 'next' link"


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_language_switcher_lands_on_the_same_page(built_site, edition: str):
    site = built_site.path
    other = "en" if edition == "zh" else "zh"
    wrong = []
    for page in content_pages(site, edition):
        here = page_url(site, page)
        path = urlparse(here).path
        expected = f"https://{SITE_HOST}" + (f"/en{path}" if other == "en" else path[len("/en") :])
        links = soup.page(page).xpath(f'//a[{soup.has_class("md-select__link")}][@hreflang="{other}"]')
        link = soup.attribute(links[0], "href") if links else None
        if link is None:
            wrong.append(f"{page.relative_to(site)}: no switcher link to the {other} edition")
        elif urljoin(here, link) != expected:
            wrong.append(f"{page.relative_to(site)}: switcher goes to {urljoin(here, link)}, not {expected}")
    assert not wrong, "\n".join(wrong[:30])


def test_palette_toggle_has_both_schemes():
    palette = book_config()["theme"]["palette"]
    assert {p["scheme"] for p in palette} == {"default", "slate"}
    assert all("toggle" in p for p in palette)


# --- interface labels per edition ---------------------------------------------------------------

ENGLISH_LABELS = {
    "Search",
    "Table of contents",
    "Previous",
    "Next",
    "Back to top",
    "Skip to content",
    "Switch to dark mode",
    "Switch to light mode",
    "Made with",
    "Initializing search",
    "Clear",
    "Share",
    "Permanent link",
    "Copy to clipboard",
    "Select language",
    "Navigation",
    "Header",
    "Footer",
    "Home",
    "Field reference",
    "Request fields",
    "Result fields",
    "Reference",
    "How-to guides",
    "Chapter 6: The Minimal Context Packet",
    "Parameters:",
    "Returns:",
    "Raises:",
    "Attributes:",
    "Name",
    "Type",
    "Description",
    "Default",
}
ADMONITION_DEFAULTS = {
    "Note",
    "Abstract",
    "Summary",
    "Tldr",
    "Info",
    "Todo",
    "Tip",
    "Hint",
    "Important",
    "Success",
    "Check",
    "Done",
    "Question",
    "Help",
    "Faq",
    "Warning",
    "Caution",
    "Attention",
    "Failure",
    "Fail",
    "Missing",
    "Danger",
    "Error",
    "Bug",
    "Example",
    "Quote",
    "Cite",
    "Seealso",
}
LABEL_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "content")


def _left_out_of_chrome(tag: Any) -> bool:
    # The content, scripts, styles and icons; and the language switcher, which names each
    # edition in its own language (中文 / English).
    return tag.tag in ("article", "script", "style", "svg") or (
        tag.tag in ("a", "link") and tag.get("hreflang") is not None
    )


def chrome_labels(markup: str | Any) -> list[str]:
    """The words of the page a reader or a screen reader meets outside its content (header,
    navigation, search, table of contents, footer): its text and its label attributes
    (:data:`LABEL_ATTRIBUTES`). A parsed page (an lxml tree) is read in place (it is shared,
    nothing is removed)."""
    document = soup.tree(markup) if isinstance(markup, str) else markup
    texts: list[str] = []
    attributes: list[str] = []

    def visit(tag: Any) -> None:  # one pass, in document order, skipping what is left out
        if _left_out_of_chrome(tag):
            return
        attributes.extend(
            value.strip() for name in LABEL_ATTRIBUTES if (value := soup.attribute(tag, name)) is not None
        )
        if tag.text:
            texts.append(tag.text.strip())
        for child in tag:
            if isinstance(child.tag, str):  # not a comment or a processing instruction
                visit(child)
            if child.tail:  # the text after a child, left out or not, is its parent's
                texts.append(child.tail.strip())

    visit(document)
    return [label for label in texts + attributes if label]


def content_labels(text: str | Any) -> list[str]:
    """Interface words inside the content: admonition, details and API section titles, permalinks,
    table headings (the API tables' Name...)."""
    document = soup.tree(text) if isinstance(text, str) else text
    found: list[str] = []
    for article in document.iter("article"):
        for tag in article.iterdescendants(lxml.etree.Element):  # one walk, in document order
            names = soup.class_names(tag)
            if (tag.tag == "p" and "admonition-title" in names) or tag.tag in ("summary", "th"):
                found.append(soup.text_of(tag))
            if "doc-section-title" in names:
                found.append(soup.text_of(tag))
            if tag.tag == "a" and "headerlink" in names:
                found.append(soup.attribute(tag, "title") or "")
    return [label.strip() for label in found if label.strip()]


def nav_section_titles(items) -> list[str]:
    titles = []
    for item in items:
        if isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, list):
                    titles.append(title)
                    titles += nav_section_titles(value)
                elif HAN.search(title):
                    titles.append(title)  # a page titled in the nav, e.g. 首页
    return titles


def test_every_chinese_nav_title_has_an_english_translation():
    config = book_config()
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    english = next(language for language in i18n["languages"] if language["locale"] == "en")
    translations = english.get("nav_translations", {})
    untranslated = [
        t for t in nav_section_titles(config.get("nav", [])) if HAN.search(t) and t not in translations
    ]
    assert not untranslated, (
        f"nav titles without an English translation: {untranslated} (add each to mkdocs.yml, under"
        " plugins > i18n > languages > en > nav_translations)"
    )
    assert all(not HAN.search(value) for value in translations.values())


def test_english_chrome_has_no_chinese(built_site):
    site = built_site.path
    problems = []
    for page in edition_pages(site, "en"):
        document = soup.page(page)
        name = page.relative_to(site)
        if soup.html_lang(document) != "en":
            problems.append(f'{name}: not <html lang="en">')
        for label in chrome_labels(document) + content_labels(document):
            if HAN.search(label):
                problems.append(f"{name}: {label!r}")
        # Labels the scripts write (copy button, search results) come from __config.
        for key, value in material_config(page)["translations"].items():
            if HAN.search(value):
                problems.append(f"{name}: script label {key} = {value!r}")
    assert not problems, "Chinese in the English edition's interface:\n" + "\n".join(
        sorted(set(problems))[:60]
    )


def test_chinese_chrome_is_chinese(built_site):
    site = built_site.path
    problems = []
    for page in edition_pages(site, "zh"):
        document = soup.page(page)
        name = page.relative_to(site)
        if soup.html_lang(document) != "zh":
            problems.append(f'{name}: not <html lang="zh">')
        for label in chrome_labels(document) + content_labels(document):
            if label in ENGLISH_LABELS or label in ADMONITION_DEFAULTS:
                problems.append(f"{name}: {label!r}")
        inputs = document.xpath(f"//input[{soup.has_class('md-search__input')}]")
        placeholder = soup.attribute(inputs[0], "placeholder") if inputs else None
        if placeholder is None or not HAN.search(placeholder):
            problems.append(f"{name}: search placeholder is not Chinese")
        for key in ("clipboard.copy", "clipboard.copied", "search.result.placeholder", "search.result.none"):
            value = material_config(page)["translations"].get(key, "")
            if not HAN.search(value):
                problems.append(f"{name}: script label {key} = {value!r} is not Chinese")
    assert not problems, "English interface words in the Chinese edition:\n" + "\n".join(
        sorted(set(problems))[:60]
    )


def test_english_chrome_speaks_english(built_site):
    """The English labels are there (not merely the Chinese ones gone)."""
    site = built_site.path
    found = set(chrome_labels(soup.page(site / "en" / "index.html")))
    for label in ("Search", "Switch to dark mode", "Switch to light mode", "Home"):
        assert label in found, f"en/index.html: no {label!r} in the interface"


def test_the_chrome_check_catches_a_chinese_label():
    page = (
        '<html lang="en"><header><input class="md-search__input" placeholder="搜索"></header>'
        "<article>中文正文</article></html>"
    )
    assert [label for label in chrome_labels(page) if HAN.search(label)] == ["搜索"]
    page = (
        '<article><p class="admonition-title">Note</p>'
        '<h2 id="x">X<a class="headerlink" href="#x" title="Permanent link">¶</a></h2></article>'
    )
    assert content_labels(page) == ["Note", "Permanent link"]


# --------------------------------------------------------------------------- code blocks


def test_no_page_keeps_pygments_whitespace_spans(built_site):
    """hooks/code_whitespace.py: the unstyled ``<span class="w">`` is gone from every page, the
    highlighting is still there."""
    pages = html_pages(built_site.path)
    assert [p for p in pages if "w" in soup.classes(p)] == []
    field = built_site.path / "reference" / "request" / "candidates" / "capturedAt" / "index.html"
    assert {"highlight", "nt", "s2", "p"} <= soup.classes(field)


def test_unwrapping_whitespace_keeps_every_character_and_colour():
    from pygments import highlight  # type: ignore[import-untyped]
    from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
    from pygments.lexers import JsonLexer  # type: ignore[import-untyped]

    hook = load_module("code_whitespace_hook", ROOT / "hooks" / "code_whitespace.py")
    source = '{\n  "budgetUnits": 8,\n\t"candidates": [ {"id": "a b"} ]\r\n}\n'
    marked = highlight(source, JsonLexer(), HtmlFormatter())
    assert '<span class="w">' in marked  # what Pygments writes, and the hook is for
    unwrapped = hook.unwrap_whitespace(marked)
    assert '<span class="w">' not in unwrapped
    assert soup.parse(unwrapped).get_text() == soup.parse(marked).get_text()
    coloured = soup.parse(marked).select("span[class]:not(.w)")
    assert [(s["class"], s.get_text()) for s in soup.parse(unwrapped).select("span[class]")] == [
        (s["class"], s.get_text()) for s in coloured
    ]


def test_each_404_page_speaks_its_edition_and_switches_to_the_edition_homes(built_site):
    """The 404 page belongs to no page: its heading is in the edition's language
    (overrides/404.html), and its language switcher leads to each edition's home page, not to
    the last page the edition built (hooks/search_per_edition.py)."""
    for path, heading in (("404.html", "404 - 页面不存在"), ("en/404.html", "404 - Not found")):
        html = (built_site.path / path).read_text(encoding="utf-8")
        assert f'<h1 id="not-found">{heading}</h1>' in html, path
        # A skip link to it: Material gives one only to a page with a table of contents.
        assert html.count('<a href="#not-found" class="md-skip">') == 1, path
        home = "/" if path == "404.html" else "/en/"
        assert html.count(f'<a href="{home}" data-edition-home>') == 1, path  # a way back home
        links = re.findall(
            r'<a href="([^"]*)" hreflang="([\w-]+)" lang="([\w-]+)" class="md-select__link"', html
        )
        assert links == [("/", "zh", "zh"), ("/en/", "en", "en")], (path, links)


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_the_language_switcher_names_each_edition_in_its_own_language(built_site, edition: str):
    """An English voice read 中文 on an English page (no lang on the link), and nothing said which
    edition is the one being read (overrides/partials/alternate.html)."""
    site = built_site.path
    for page in content_pages(site, edition)[:40]:
        links = soup.page(page).xpath(f"//a[{soup.has_class('md-select__link')}]")
        shown = [
            (soup.attribute(a, "hreflang"), soup.attribute(a, "lang"), soup.attribute(a, "aria-current"))
            for a in links
        ]
        assert shown == [
            ("zh", "zh", "true" if edition == "zh" else None),
            ("en", "en", "true" if edition == "en" else None),
        ], (page, shown)


def test_the_api_page_renders_every_module_of_the_package():
    """Each module or package right under ``harnessbook`` (a chapter's module, the command line,
    the schemas...) is rendered with ``::: harnessbook.<name>`` on both editions of the API page:
    a new chapter's module left off it would publish none of its objects, and nothing else fails."""
    import pkgutil

    import harnessbook

    modules = {
        f"harnessbook.{module.name}"
        for module in pkgutil.iter_modules(harnessbook.__path__)
        if not module.name.startswith("_")
    }
    assert "harnessbook.context_packet" in modules and "harnessbook.cli" in modules
    for page in ("api.md", "api.en.md"):
        rendered = set(
            re.findall(
                r"^::: (harnessbook\.\w+)\s*$",
                (ROOT / "docs" / "reference" / page).read_text(encoding="utf-8"),
                re.M,
            )
        )
        assert modules <= rendered, f"reference/{page} does not render {sorted(modules - rendered)}"


def test_each_edition_has_its_own_api_inventory(built_site):
    """``objects.inv`` is how other projects link to the API (mkdocstrings, Sphinx's intersphinx).
    Every edition wrote it into the site root, the last one winning: the root inventory led into
    the English edition only, and the English edition had none of its own."""
    from mkdocstrings import Inventory

    site = built_site.path
    folders = {"zh": site, "en": site / "en"}
    inventories = {}
    for edition, folder in folders.items():
        with open(folder / "objects.inv", "rb") as file:
            inventories[edition] = Inventory.parse_sphinx(file)
    assert len(inventories["zh"]) > 100
    assert set(inventories["zh"]) == set(inventories["en"])
    assert (inventories["zh"].project, inventories["en"].project) == (
        book_config()["site_name"],
        "The Harness Book · Chapter 6: The Minimal Context Packet",
    )
    for edition, folder in folders.items():
        pages: dict[Path, str] = {}
        for item in inventories[edition].values():
            path, _, anchor = item.uri.partition("#")
            assert not path.startswith(("/", "en/")), f"{edition}: {item.uri} is not inside the edition"
            page = folder / path / "index.html"
            assert page.is_file(), f"{edition}: {item.uri}: no page"
            if page not in pages:
                pages[page] = page.read_text(encoding="utf-8")
            assert f'id="{html.escape(anchor)}"' in pages[page], f"{edition}: {item.uri}: no such id"


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_every_page_of_an_edition_has_its_own_title(built_site, edition):
    """A browser tab, a search result and a shared link show a page's <title>: two field pages
    were both titled `budgetUnits` (the request's and packet's)."""
    titles: dict[str, list[str]] = {}
    for page in edition_pages(built_site.path, edition):
        match = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.S)
        assert match, page
        titles.setdefault(match[1].strip(), []).append(page_url(built_site.path, page))
    shared = {title: urls for title, urls in titles.items() if len(urls) > 1}
    assert len(titles) > 40 and not shared, shared


CHINESE_WORDS = ["指针", "出处", "预算"]
QUERIES = {
    edition: [*must_find, *may_find, *(CHINESE_WORDS if edition == "zh" else [])]
    for edition, (must_find, may_find) in SEARCHES.items()
}
"""Every query this module searches, by edition: searched together (:func:`material_search`)."""


@pytest.mark.parametrize("word", CHINESE_WORDS)
def test_a_chinese_word_finds_only_pages_that_hold_it(built_site, tmp_path, word):
    """Material's search worker cut a Chinese query before its last character: 指针 was searched
    as 指 and found every page with the character (hooks/material_patches.py fixes the worker)."""
    found = material_search(built_site.path, "zh", [word], tmp_path)[word]
    assert found, word
    lacking = [
        location
        for location in found
        if word not in (built_site.path / location / "index.html").read_text(encoding="utf-8")
    ]
    assert lacking == [], f"{word!r} found pages without it: {lacking}"


@pytest.mark.parametrize("which", ["WORKER", "BUNDLE"])
def test_every_page_loads_the_fixed_material_script(built_site, which):
    from hooks import material_patches

    script = getattr(material_patches, which)
    (patched,) = (built_site.path / script.folder).glob(f"{script.prefix}.*.min.js")
    text = patched.read_text(encoding="utf-8")
    assert all(new in text and old not in text for old, new in script.fixes)
    assert patched.name == f"{script.prefix}.{hashlib.sha256(text.encode()).hexdigest()[:8]}.min.js"
    # The theme's source map describes the unpatched script: the patched one must not name it.
    assert "sourceMappingURL" not in text
    folder = script.folder.removeprefix("assets/")
    pointing = re.compile(
        rf'(?:"search": "|<script defer src=")[^"]*?{folder}/({script.prefix}\.[0-9a-f]{{8}}\.min\.js)"'
    )
    pages = html_pages(built_site.path)
    named = {match[1] for page in pages for match in pointing.finditer(page.read_text(encoding="utf-8"))}
    assert named == {patched.name}


@pytest.mark.parametrize("which", ["WORKER", "BUNDLE"])
def test_a_material_fix_fails_the_build_when_material_changes(which):
    from hooks import material_patches
    from mkdocs.exceptions import PluginError

    script = getattr(material_patches, which)
    with pytest.raises(PluginError, match=f"Material's {script.prefix} script no longer holds"):
        material_patches.patch("function fe(t,e){}", script)
    # Twice is as wrong as never: the fix would land on the wrong one.
    old = script.fixes[0][0]
    with pytest.raises(PluginError, match="exactly once"):
        material_patches.patch(old + old, script)


def test_every_table_is_built_in_materials_scroll_box(built_site):
    """Material's bundle moves a table without a class into its scroll box once the page has
    loaded (laid out and painted twice); the pages carry that markup as built, so that the
    fixed bundle leaves them where they are (tests/browser/test_behaviour.py checks it does)."""
    opening, closing = (
        '<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table>',
        "</table></div></div>",
    )
    tables = 0
    unwrapped = []
    for page in html_pages(built_site.path):
        text = page.read_text(encoding="utf-8")
        here = len(re.findall(r"<table\b", text))
        tables += here
        if not here == text.count(opening) == text.count(closing):
            unwrapped.append(page.relative_to(built_site.path).as_posix())
        assert 'md-typeset__table"><div class="md-typeset__scrollwrap' not in text
    assert tables > 100, f"only {tables} tables in the book: the check reads nothing"
    assert unwrapped == [], f"pages with a table outside Material's scroll box: {unwrapped[:5]}"


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>a</p><table><tr><td>x</td></tr></table>", "<p>a</p>{o}<table><tr><td>x</td></tr></table>{c}"),
        ('<table class="hb-decisions"><tr></tr></table>', '<table class="hb-decisions"><tr></tr></table>'),
        (
            "<table class><tr></tr></table><table data-class=x></table>",
            "<table class><tr></tr></table>{o}<table data-class=x></table>{c}",
        ),
        (
            "<table id=t><tr></tr></table><TABLE></TABLE>",
            "{o}<table id=t><tr></tr></table>{c}{o}<TABLE></TABLE>{c}",
        ),
        # Only the outer table of a nest: Material's bundle still moves an inner one itself.
        (
            "<table><tr><td><table></table></td></tr></table>",
            "{o}<table><tr><td><table></table></td></tr></table>{c}",
        ),
        ("{o}<table></table>{c}", "{o}<table></table>{c}"),
        ("<tablet></tablet><p>no table</p>", "<tablet></tablet><p>no table</p>"),
    ],
)
def test_wrap_tables_wraps_what_materials_bundle_would(html, expected):
    from hooks import material_patches

    opening, closing = material_patches.SCROLL_BOX
    fill = {"o": opening, "c": closing}
    assert material_patches.wrap_tables(html.format(**fill)) == expected.format(**fill)


def test_the_default_editions_inventory_keeps_only_its_own_items():
    """Unit check of the split (the built site has no item that would tell): an item under
    ``en/`` belongs to the English edition's inventory only."""
    from hooks import search_per_edition
    from mkdocstrings import Inventory, InventoryItem

    items = [
        InventoryItem(name, "py:function", "function", uri)
        for name, uri in (("a", "ref/#a"), ("b", "en/ref/#b"))
    ]
    whole = Inventory(items, project="book")
    zh = search_per_edition.edition_inventory(whole, None, ["en"], "book")
    en = search_per_edition.edition_inventory(whole, "en", ["en"], "book (English)")
    assert [(item.name, item.uri) for item in zh.values()] == [("a", "ref/#a")]
    assert [(item.name, item.uri) for item in en.values()] == [("b", "ref/#b")]
    assert (zh.project, en.project) == ("book", "book (English)")


def test_search_leaves_out_the_figures_and_the_tab_labels(built_site):
    """A figure's drawn labels, its decision table and the tab labels (图示, request.json...)
    repeat an example in another form: indexed, they filled the results with "图示request.json
    result.json Context packet 图示：状态 ready 预算 8 单位 · 已用 3 ...". The request and result
    themselves stay indexed, and the pages keep no trace of the attribute that does it."""
    for edition, drawn, table_head in (
        ("zh", "每格 1 单位", "剩余预算：前 → 后"),
        ("en", "one cell = 1 unit", "budget left: before → after"),
    ):
        index = load_index(built_site.path, edition)
        text = "\n".join(plain_text(doc.get("text", "")) for doc in index["docs"])
        # (The API page's docstrings quote a table's heading and a figure's legend: prose there.)
        drawings = "\n".join(
            plain_text(doc.get("text", ""))
            for doc in index["docs"]
            if not doc["location"].startswith("reference/api")
        )
        assert drawn not in drawings and table_head not in drawings, edition
        # The tab labels: "图示 request.json result.json" (a code block's own title stays).
        assert not re.search(r"(图示|Figure|问题|Problems)\s+request\.json", text), edition
        assert '"usedBudgetUnits": 3' in text or '"usedBudgetUnits":3' in text, (
            edition
        )  # result.json still is
    for page in built_site.path.rglob("*.html"):
        assert "data-search-exclude" not in page.read_text(encoding="utf-8"), page
