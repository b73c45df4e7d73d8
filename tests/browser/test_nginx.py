"""The built site behind real nginx, with the project's own deploy/nginx.conf (issue 12).

The ``nginx`` fixture (conftest.py, serving.py) starts Debian's nginx in the foreground on
127.0.0.1 with ``deploy/nginx.conf`` (only its address and site folder changed) and the headers
the build wrote into ``_deploy/``: exactly what a self-hosted site serves, and the same policy
as ``_headers`` for Netlify and Cloudflare Pages. Locally without nginx these tests skip with
the reason; under CI they fail instead.

Checked: every page of both editions answers 200 with the production headers (and loads in
Chromium without a single ``securitypolicyviolation``: test_pages.py visits every page from this
nginx once, for that and all its other checks); the playground runs under that policy in both
editions; each edition's 404 page; the caching headers; compressed transfer; the server
configuration in the site is not served; and nginx loads the configuration without a warning.
"""

from __future__ import annotations

import gzip
import http.client
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser.test_playground import (
    OPEN,
    assert_same_as_cpython,
    example_page,
    goto,
    open_and_run,
    page_url,
    runtime_start,
    stored_snapshots,
    wait_done,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from deploy import headers  # noqa: E402

# Recorded in every document before any of its own scripts runs (Playwright's init scripts are
# not subject to the page's policy).
WATCH_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(
  `${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} in ${e.sourceFile || document.URL}:${e.lineNumber} ${e.sample || ''}`));
"""
WATCH_WORKER_VIOLATIONS = """() => {
  self.__cspViolations = self.__cspViolations || [];
  self.addEventListener('securitypolicyviolation', e => self.__cspViolations.push(
    `${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} ${e.sample || ''}`));
}"""


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


def fetch(base: str, path: str, accept_encoding: str | None = None) -> Response:
    """One GET, as sent: no redirect followed, no body decompressed."""
    parts = urlsplit(base)
    assert parts.hostname is not None, f"no host in {base!r}"
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(
            "GET", "/" + path.lstrip("/"), headers={"Accept-Encoding": accept_encoding or "identity"}
        )
        response = connection.getresponse()
        return Response(response.status, response.headers, response.read())
    finally:
        connection.close()


def site_pages(site: Path) -> list[str]:
    """Every page of both editions, by its address relative to the site root."""
    pages = []
    for path in sorted(site.rglob("index.html")):
        relative = path.relative_to(site)
        if relative.parts[0] in ("assets", "search", headers.DEPLOY_DIR):
            continue
        pages.append(relative.as_posix()[: -len("index.html")])
    return pages


@pytest.fixture(scope="session")
def policy(site_root: Path) -> str:
    """The Content-Security-Policy as the build wrote it into _headers."""
    return headers.written_policy(site_root)


def assert_production_headers(response: Response, policy: str, where: str) -> None:
    assert response.header("Content-Security-Policy") == policy, f"{where}: not the policy of _headers"
    for name, value in headers.SECURITY_HEADERS.items():
        assert response.header(name) == value, f"{where}: {name}"


# --------------------------------------------------------------------------- every page


def test_every_page_returns_200_with_the_production_headers(nginx, site_root: Path, policy: str):
    pages = site_pages(site_root)
    assert len(pages) > 50 and "" in pages and "en/" in pages
    for rel in pages:
        response = fetch(nginx.url, rel)
        assert response.status == 200, rel
        assert response.header("Content-Type") == "text/html; charset=utf-8", rel
        assert_production_headers(response, policy, rel)
        assert response.header("Cache-Control") == headers.REVALIDATE, rel


# --------------------------------------------------------------------------- the playground


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_playground_runs_under_the_policy_of_headers_file(new_page, nginx, policy: str, edition: str):
    markdown = example_page()
    if edition == "en":
        markdown = markdown.with_name(markdown.name[: -len(".md")] + ".en.md")
    page, log = new_page()
    page.add_init_script(WATCH_VIOLATIONS)
    response = goto(page, nginx.url + page_url(markdown))
    assert response.headers["content-security-policy"] == policy
    control = page.locator(OPEN).first
    control.scroll_into_view_if_needed()
    with page.expect_worker() as started:
        control.click()
    worker = started.value
    worker.evaluate(WATCH_WORKER_VIOLATIONS)  # long before Pyodide has loaded and compiled
    shown = wait_done(page, 0)
    assert shown["kind"] == "result", shown["status"]
    assert_same_as_cpython(shown, shown["editor"], f"{edition}, under the production policy on nginx")
    assert worker.evaluate("self.__cspViolations") == []
    assert page.evaluate("window.__cspViolations") == []
    # The worker came from nginx with the same policy (a worker runs under the policy of its
    # own response, and the WebAssembly is compiled inside it).
    assert fetch(nginx.url, urlsplit(worker.url).path).header("Content-Security-Policy") == policy
    pyodide = [u for u in log.requests if "/pyodide-" in u]
    assert any(u.endswith(".wasm") for u in pyodide), "the runtime came from nginx"
    foreign = [u for u in log.requests if not u.startswith((nginx.url, "data:", "blob:"))]
    assert foreign == [] and log.console_errors == [] and log.failed == []


def test_a_second_page_reuses_the_cached_runtime(browser, nginx, page_logger):
    # One reader, two pages: the runtime that the first page loaded comes from the browser's
    # cache on the second (the versioned folder is cached for good), not from the server.
    zh = example_page()
    pages = [zh, zh.with_name(zh.name[: -len(".md")] + ".en.md")]
    context = browser.new_context()
    try:
        served = []
        starts = []
        for markdown in pages:
            before = len(nginx.served())
            page = context.new_page()
            log = page_logger(page)
            goto(page, nginx.url + page_url(markdown))
            assert open_and_run(page, 0)["kind"] == "result"
            served.append([line for line in nginx.served()[before:] if "/pyodide-" in line])
            assert log.console_errors == [] and log.failed == []
            starts.append(runtime_start(page))
            stored_snapshots(page)  # the first page stores the started runtime
            page.close()
    finally:
        context.close()
    assert any(line.endswith(".wasm") for line in served[0]), served[0]
    assert served[1] == [], f"fetched again on the second page: {served[1]}"
    # And under the production policy, the second page starts from the first one's snapshot.
    assert starts == ["cold", "snapshot"]


# --------------------------------------------------------------------------- 404, caching, compression


@pytest.mark.parametrize(("edition", "prefix"), [("zh", ""), ("en", "en/")])
def test_each_edition_has_its_own_404_page(browser, nginx, policy: str, edition: str, prefix: str):
    missing = f"{prefix}no-such-chapter/deeper/"
    response = fetch(nginx.url, missing)
    assert response.status == 404
    assert_production_headers(response, policy, missing)
    assert f'<html lang="{edition}"'.encode() in response.body
    assert response.body == (nginx.site / prefix / "404.html").read_bytes()
    # In the browser, the 404 page is whole: its style sheets and scripts load (absolute paths).
    context = browser.new_context()
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    failed = []
    page.on(
        "response",
        lambda r: (
            failed.append(f"{r.url} {r.status}") if r.status >= 400 and r.url != nginx.url + missing else None
        ),
    )
    page.goto(nginx.url + missing, wait_until="load")
    assert page.evaluate("document.documentElement.lang") == edition
    assert page.locator(".md-header").count() == 1
    assert failed == [] and page.evaluate("window.__cspViolations") == []
    context.close()


def test_fingerprinted_assets_and_the_versioned_runtime_are_cached_for_good(
    nginx, site_root: Path, policy: str
):
    immutable = [
        *(p.relative_to(site_root).as_posix() for p in site_root.glob("assets/javascripts/bundle.*.min.js")),
        *(p.relative_to(site_root).as_posix() for p in site_root.glob("assets/stylesheets/*.min.css")),
        *(
            p.relative_to(site_root).as_posix()
            for p in site_root.glob("assets/playground/pyodide-*/*")
            if p.suffix != ".gz"
        ),
    ]
    assert len(immutable) >= 9
    for rel in immutable:
        response = fetch(nginx.url, rel)
        assert response.status == 200, rel
        assert response.header("Cache-Control") == headers.IMMUTABLE, rel
        assert_production_headers(response, policy, rel)
    # A missing file or a folder under an immutable path: the security headers, but no year's
    # caching of the error.
    pyodide = next(site_root.glob("assets/playground/pyodide-*/")).relative_to(site_root).as_posix()
    for rel in (f"{pyodide}/", f"{pyodide}/no-such-file.wasm"):
        response = fetch(nginx.url, rel)
        assert response.status in (403, 404), rel
        assert response.header("Cache-Control") != headers.IMMUTABLE, rel
        assert_production_headers(response, policy, rel)
    for rel in (
        "assets/playground/playground.js",
        "assets/playground/worker.mjs",
        "assets/playground/harnessbook.zip",
        "assets/stylesheets/site.css",
        "sitemap.xml",
        "search/search_index.json",
    ):
        response = fetch(nginx.url, rel)
        assert response.status == 200, rel
        assert response.header("Cache-Control") == headers.REVALIDATE, rel
        assert response.header("Last-Modified") and response.header("ETag"), (
            f"{rel}: nothing to revalidate with"
        )


def test_text_and_wasm_are_sent_compressed_with_their_own_types(nginx, site_root: Path):
    css = next(site_root.glob("assets/stylesheets/main.*.min.css")).relative_to(site_root).as_posix()
    bundle = next(site_root.glob("assets/javascripts/bundle.*.min.js")).relative_to(site_root).as_posix()
    wasm = (
        next(site_root.glob("assets/playground/pyodide-*/pyodide.asm.wasm")).relative_to(site_root).as_posix()
    )
    cases = {
        "": "text/html; charset=utf-8",
        "en/reference/cli/": "text/html; charset=utf-8",
        css: "text/css; charset=utf-8",
        bundle: "application/javascript; charset=utf-8",
        "assets/playground/playground.js": "application/javascript; charset=utf-8",
        "assets/playground/worker.mjs": "text/javascript; charset=utf-8",
        wasm: "application/wasm",
    }
    for rel, content_type in cases.items():
        response = fetch(nginx.url, rel, accept_encoding="gzip, deflate, br")
        assert response.status == 200, rel
        assert response.header("Content-Type") == content_type, rel
        assert response.header("Content-Encoding") == "gzip", rel
        assert "Accept-Encoding" in (response.header("Vary") or ""), rel
        file = site_root / (rel + "index.html" if rel == "" or rel.endswith("/") else rel)
        assert gzip.decompress(response.body) == file.read_bytes(), rel
        plain = fetch(nginx.url, rel)
        assert plain.header("Content-Encoding") is None and plain.body == file.read_bytes(), rel


def test_the_server_configuration_in_the_site_is_not_served(nginx):
    for rel in (
        "_deploy/nginx-headers.conf",
        "_deploy/nginx-redirects.conf",
        "_deploy/",
        "_headers",
        "_redirects",
    ):
        response = fetch(nginx.url, rel)
        assert response.status == 404, rel
        assert b"add_header" not in response.body and b"Content-Security-Policy:" not in response.body, rel


def test_a_folder_without_its_slash_redirects_relatively(nginx):
    response = fetch(nginx.url, "en")
    assert response.status == 301 and response.header("Location") == "/en/"


def test_nginx_reads_the_configuration_without_a_warning(nginx):
    """nginx logs what it dislikes in a configuration it still loads (a duplicate MIME type, a
    header set where it is ignored, a hash table it cannot size) at ``warn`` and above: none."""
    fetch(nginx.url, "")  # the log is written once nginx has started serving
    levels = ("[warn]", "[emerg]", "[alert]", "[crit]")
    assert not [line for line in nginx.error_log().splitlines() if any(level in line for level in levels)]
