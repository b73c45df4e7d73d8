"""Browser fixtures (the server and Chromium settings live in ``serving.py``, shared with the
benchmark): the built book served on 127.0.0.1 and driven by Debian's Chromium.

Fixtures for every test under ``tests/browser`` (all of them are marked ``browser``):

``site_root``    the built site's folder (the session's strict build, ``built_site``).
``site_server``  the local HTTP server (session): ``.url``, ``.root``, ``.hits`` (paths served).
                 Correct MIME types (``.wasm`` is application/wasm); text is gzip-compressed
                 when the browser accepts it, as a real static host does; binaries go as-is.
``site_url``     its base URL, ending in ``/`` (``http://127.0.0.1:PORT/``).
``nginx``        the same site behind real nginx with ``deploy/nginx.conf`` (session): ``.url``.
``browser``      a Playwright ``Browser`` running Debian's ``chromium-headless-shell`` (session),
                 without V8's optimizing compilers (``serving.TEST_BROWSER_ARGS``); Lighthouse
                 runs the full ``/usr/bin/chromium`` (``chromium_executable``).
``reader_page``  factory: ``page, log = reader_page(viewport=None)``, a page in one context shared
                 by the module's tests (``reader``), as one reader goes from page to page.
``reader_engine_page`` the same on ``default_engine_browser``, V8 with its default compilers:
                 for the tests that time the page's own main thread.
``page_logger``  ``log = page_logger(page)`` for a page opened in a context of your own.
``new_page``     factory: ``page, log = new_page(**context_options)`` opens a page in a fresh
                 browser context (closed after the test) and a :class:`PageLog` that records every
                 request, console error, page error and failed request of that page.
``browser_report`` ``browser_report(line)``: listed in the run's closing summary (and printed).
``axe_source``   axe-core's browser bundle (tools/node_modules), to inject into a page.
``chromium_flags``, ``tools_dir``, ``node``, ``artifacts_dir`` (gitignored ``artifacts/``).

Where ``/usr/bin/chromium`` is absent the tests are skipped with a plain reason, except under
CI (the ``CI`` environment variable is set), where they fail: CI never skips them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest

from tests.browser.serving import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HEADLESS_SHELL,
    TEST_BROWSER_ARGS,
    Nginx,
    SiteServer,
    launch_chromium,
    nginx_executable,
    serve,
)
from tests.conftest import REPORT_PROPERTY

BROWSER_DIR = Path(__file__).resolve().parent
ROOT = BROWSER_DIR.parents[1]
TOOLS = ROOT / "tools"
ARTIFACTS = ROOT / "artifacts"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test in this folder drives the browser: mark it, so `-m browser` / `-m 'not browser'` work."""
    # Resolved once per file, not once per test: 3,000 resolve() calls cost 0.2 s a process.
    in_this_folder: dict[Path, bool] = {}
    for item in items:
        path = Path(item.path)
        if path not in in_this_folder:
            in_this_folder[path] = BROWSER_DIR in path.resolve().parents
        if in_this_folder[path]:
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def browser_report(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """``browser_report(line)``: a line for the run's summary (screenshots, Lighthouse scores).

    pytest shows a passing test's prints only with ``-s``; these lines are printed at the end of
    every run (tests/conftest.py), so CI's log lists the screenshots and the measured scores.
    They travel in the test's report, so test workers (pytest-xdist) hand them on too.
    """

    def add(line: str) -> None:
        request.node.user_properties.append((REPORT_PROPERTY, line))
        print(line)

    return add


_Found = TypeVar("_Found", Path, str)


def require(path: _Found | None, what: str) -> _Found:
    """Skip (locally) or fail (under CI) when a tool the browser tests need is missing; else ``path``."""
    if path is not None and Path(path).exists():
        return path
    reason = f"{what} is not installed ({path or 'not found'}); .ci/run installs it"
    if os.environ.get("CI"):
        pytest.fail(f"CI never skips browser tests: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def site_root(request: pytest.FixtureRequest) -> Path:
    """The built site's folder: the session's strict build (``built_site``).

    For local development only, ``HARNESSBOOK_PREBUILT_SITE=/path`` tests a site built
    beforehand instead; under CI that variable is ignored and the strict build is always used.
    """
    prebuilt = os.environ.get("HARNESSBOOK_PREBUILT_SITE")
    if prebuilt and not os.environ.get("CI"):
        return Path(prebuilt).resolve()
    return Path(request.getfixturevalue("built_site").path)


@pytest.fixture(scope="session")
def site_server(site_root: Path) -> Iterator[SiteServer]:
    server = serve(site_root)
    yield server
    server.close()


@pytest.fixture(scope="session")
def site_url(site_server: SiteServer) -> str:
    """Base URL of the served built site, with a trailing slash."""
    return site_server.url


@pytest.fixture(scope="session")
def nginx(site_root: Path) -> Iterator[Nginx]:
    """The built site behind real nginx, with deploy/nginx.conf and the headers the build wrote.

    ``.url`` (``http://127.0.0.1:PORT/``), ``.site``, ``.error_log()``. Where nginx is not
    installed the tests that use it skip (locally) or fail (under CI).
    """
    executable = require(nginx_executable(), "nginx (apt-get install nginx)")
    server = Nginx(site_root, executable)
    yield server
    server.close()


# --------------------------------------------------------------------------- the browser


def cjk_font_file() -> str | None:
    """A font file that fontconfig offers for Chinese, which Chromium draws Chinese text with
    (``fc-list :lang=zh``); None without one, or without fontconfig."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    listed = subprocess.run([fc_list, ":lang=zh", "file"], capture_output=True, text=True, timeout=60).stdout
    return next((line.split(":")[0].strip() for line in listed.splitlines() if line.strip()), None)


@pytest.fixture(scope="session")
def cjk_font() -> str:
    """The CJK font's file: the tests that look at drawn Chinese text skip (locally) or fail
    (under CI) without one."""
    return require(cjk_font_file(), "a CJK font (apt-get install fonts-noto-cjk)")


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    require(CHROMIUM, "Debian's Chromium (apt-get install chromium)")
    return str(CHROMIUM)


@pytest.fixture(scope="session")
def headless_shell_executable() -> str:
    """The Playwright tests' browser: Debian's headless shell (serving.HEADLESS_SHELL). Where it
    is missing, locally, they run on the full Chromium, only slower; CI installs and needs it."""
    if HEADLESS_SHELL.exists() or os.environ.get("CI"):
        return str(
            require(
                HEADLESS_SHELL, "Debian's Chromium headless shell (apt-get install chromium-headless-shell)"
            )
        )
    return str(require(CHROMIUM, "Debian's Chromium (apt-get install chromium)"))


@pytest.fixture(scope="session")
def chromium_flags() -> list[str]:
    """The command-line flags every Chromium here is started with (Lighthouse's too)."""
    return list(CHROMIUM_ARGS)


@pytest.fixture(scope="session")
def tools_dir() -> Path:
    """``tools/``: the npm tools (``npm ci --prefix tools``)."""
    return TOOLS


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_driver, headless_shell_executable: str):
    """Debian's Chromium headless shell, launched by Playwright's bundled driver with
    serving.TEST_BROWSER_ARGS (V8 without its optimizing compilers)."""
    browser = launch_chromium(playwright_driver, headless_shell_executable, TEST_BROWSER_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def default_engine_browser(playwright_driver, headless_shell_executable: str):
    """The headless shell without serving.TEST_BROWSER_ARGS: V8 with all its compilers, as a
    reader's Chromium runs the page. For the checks that time the page's own main thread
    (issue 11's 200 ms limit), whose figures must be a reader's: unoptimized, the task that
    draws a huge result took 31 to 40 ms of thread time, and once 204 ms."""
    browser = launch_chromium(playwright_driver, headless_shell_executable)
    yield browser
    browser.close()


@dataclass
class PageLog:
    """What one page did: every request, console error, page error and failed request."""

    site_url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def clear(self) -> None:
        self.requests.clear()
        self.console_errors.clear()
        self.failed.clear()

    @property
    def foreign(self) -> list[str]:
        """Requests to any host other than the local server (data: and blob: URLs are local)."""
        origin = urlsplit(self.site_url)
        out = []
        for url in self.requests:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            if (parts.scheme, parts.netloc) != (origin.scheme, origin.netloc):
                out.append(url)
        return out

    def problems(self) -> list[str]:
        """Everything that makes a page load unclean, one line each (empty when clean)."""
        return (
            [f"console error: {e}" for e in self.console_errors]
            + [f"failed request: {f}" for f in self.failed]
            + [f"request to another host: {u}" for u in self.foreign]
        )


def on_failed_request(page, record: Callable[[Any], object]) -> None:
    """Call ``record(request)`` for each request of ``page`` that fails, except one aborted
    because its page moved on.

    Chromium aborts what an old document still had in flight (often the favicon it asks for
    after ``load``) when the page navigates to the next one. Those ``net::ERR_ABORTED`` failures
    belong to no page and are not a fault; every other failure, and a request aborted within
    its own document, still counts. A favicon that is really missing shows as an HTTP 404.
    """
    navigations = 0
    born: dict[object, int] = {}

    def on_request(request) -> None:
        nonlocal navigations
        if request.is_navigation_request() and request.frame == page.main_frame:
            navigations += 1
        born[request] = navigations

    def on_failed(request) -> None:
        left_behind = request.failure == "net::ERR_ABORTED" and born.get(request, navigations) < navigations
        if not left_behind:
            record(request)

    page.on("request", on_request)
    page.on("requestfailed", on_failed)


def attach_log(page, site_url: str) -> PageLog:
    """Record what ``page`` does into a new :class:`PageLog` (listeners stay for the page's life)."""
    log = PageLog(site_url)

    def on_console(msg) -> None:
        if msg.type == "error":
            loc = msg.location or {}
            where = f" ({loc.get('url')}:{loc.get('lineNumber')})" if loc.get("url") else ""
            log.console_errors.append(f"{msg.text}{where}")

    def on_response(response) -> None:
        if response.status >= 400:
            log.failed.append(f"{response.url} (HTTP {response.status})")

    page.on("request", lambda request: log.requests.append(request.url))
    page.on("console", on_console)
    page.on("pageerror", lambda error: log.console_errors.append(f"uncaught: {error}"))
    on_failed_request(page, lambda request: log.failed.append(f"{request.url} ({request.failure})"))
    page.on("response", on_response)
    return log


@pytest.fixture(scope="session")
def page_logger(site_url: str) -> Callable[[object], PageLog]:
    """``log = page_logger(page)``: attach a :class:`PageLog` to a page you opened yourself."""
    return lambda page: attach_log(page, site_url)


@pytest.fixture
def new_page(browser, site_url: str) -> Iterator[Callable[..., tuple[object, PageLog]]]:
    """Factory: ``page, log = new_page(**context_options)``; each page gets a fresh context."""
    contexts = []

    def make(**context_options):
        context = browser.new_context(**context_options)
        contexts.append(context)
        page = context.new_page()
        return page, attach_log(page, site_url)

    yield make
    for context in contexts:
        # A route handler may still be answering a request that a page made after its test
        # ended (often the favicon Chromium asks for after load). Closing the context under it
        # makes its route.fetch() fail, and Playwright raises that in whatever test runs next.
        # Stop routing first, and let such a late handler's error go (Playwright's own way).
        for page in context.pages:
            page.unroute_all(behavior="ignoreErrors")
        context.unroute_all(behavior="ignoreErrors")
        context.close()


# --------------------------------------------------------------------------- npm tools


AXE_STRICT_RUN = """
;(() => {
  const run = axe.run.bind(axe);
  axe.run = async (...args) => {
    const result = await run(...args);
    const failed = result.incomplete.filter(rule => rule.error);
    if (failed.length) {
      throw new Error('axe-core could not run ' + failed.map(
        rule => rule.id + ' (' + ((rule.error && rule.error.message) || rule.error) + ')').join(', '));
    }
    return result;
  };
})();
"""
"""Appended to axe-core's bundle: ``axe.run`` rejects when a rule could not run. axe-core reports
a rule that threw as "incomplete" with an ``error``, not as a violation, so a rule broken by a
browser or axe-core upgrade would otherwise leave every page passing without being checked."""


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's browser bundle, installed by ``npm ci --prefix tools``, with
    :data:`AXE_STRICT_RUN` appended."""
    path = TOOLS / "node_modules" / "axe-core" / "axe.min.js"
    require(path, "axe-core (npm ci --prefix tools)")
    return path.read_text(encoding="utf-8") + AXE_STRICT_RUN


@pytest.fixture(scope="session")
def node() -> str:
    return require(shutil.which("node"), "Node.js")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """``artifacts/`` at the repository root (gitignored): screenshots and Lighthouse reports."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _context(browser) -> Iterator[Any]:
    context = browser.new_context()
    yield context
    context.close()


def _pages(context, page_logger) -> Iterator[Callable[..., tuple[Any, PageLog]]]:
    """``make(viewport=None)`` opens a page in ``context`` with its log; the pages are closed after."""
    pages = []

    def make(viewport: dict[str, int] | None = None):
        page = context.new_page()
        pages.append(page)
        if viewport:
            page.set_viewport_size(viewport)
        return page, page_logger(page)

    yield make
    for page in pages:
        page.close()


@pytest.fixture(scope="module")
def reader(browser) -> Iterator[Any]:
    """One browser context for a test module's pages, like one reader going from page to page:
    the first page starts the playground's runtime cold and stores its snapshot; the others
    start from it."""
    yield from _context(browser)


@pytest.fixture
def reader_page(reader, page_logger) -> Iterator[Any]:
    """``page, log = reader_page(viewport=None)``: a page in the shared reader context, whose
    runtime starts from the stored snapshot once one page has stored it (closed after the test).

    For tests whose runtime may start either way; a test that needs a browser with nothing
    stored, or that leaves state behind (the colour scheme), uses ``new_page`` instead.
    """
    yield from _pages(reader, page_logger)


@pytest.fixture(scope="module")
def default_engine_reader(default_engine_browser) -> Iterator[Any]:
    """:func:`reader` on :func:`default_engine_browser`."""
    yield from _context(default_engine_browser)


@pytest.fixture
def reader_engine_page(default_engine_reader, page_logger) -> Iterator[Any]:
    """:func:`reader_page` on the browser with V8's default compilers (``default_engine_browser``),
    for the tests that time the page's main thread."""
    yield from _pages(default_engine_reader, page_logger)
