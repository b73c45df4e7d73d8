"""Every page of every edition, opened in Chromium: clean load, the production
Content-Security-Policy, links and anchors, axe-core.

The pages are enumerated from the built site itself (every HTML file but 404.html and the
assets), so pages that writers add are covered without touching this file. Each page is
opened once, on one of two browsers that take turns through the list (see ``visits``); the
visit records what the tests below check. The pages
come from real nginx with ``deploy/nginx.conf`` and the headers the build wrote (the ``nginx``
fixture), so that the same visit also records every ``securitypolicyviolation``; locally
without nginx they come from the test server, and only the policy test skips.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tests.browser.conftest import attach_log, require
from tests.browser.serving import TEST_BROWSER_ARGS, launch_chromium, nginx_executable
from tests.browser.test_nginx import WATCH_VIOLATIONS
from tests.conftest import local_site_url

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


# Everything in the page that is a link a reader (or a crawler) can follow.
COLLECT_JS = """() => {
  const links = [];
  const add = (el, kind) => {
    const raw = el.getAttribute('href');
    if (raw !== null) links.push({kind, raw, url: el.href, text: (el.textContent || '').trim().slice(0, 60)});
  };
  document.querySelectorAll('a[href]').forEach(a => {
    let kind = 'content';
    if (a.closest('.md-select')) kind = 'language switcher';
    else if (a.closest('.md-footer__inner')) kind = 'previous/next';
    else if (a.closest('[data-md-component="toc"]')) kind = 'table of contents';
    else if (a.closest('.md-nav--primary')) kind = 'navigation';
    else if (a.closest('.md-header')) kind = 'header';
    add(a, kind);
  });
  document.querySelectorAll('link[rel="prev"], link[rel="next"]').forEach(l => add(l, 'head ' + l.rel));
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
  const names = [...document.querySelectorAll('a[name]')].map(e => e.getAttribute('name'));
  const meta = document.querySelector('meta[name="description"]');
  const h1 = document.querySelector('.md-content h1');
  return {links, ids: ids.concat(names), lang: document.documentElement.lang, title: document.title,
          description: meta ? meta.content : null, h1: h1 ? h1.textContent.trim() : null};
}"""

AXE_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + ' :: '
      + (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 300)),
  }));
}"""


@dataclass
class Visit:
    url: str
    status: int | None = None
    problems: list[str] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    lang: str = ""
    title: str = ""
    description: str | None = None
    h1: str | None = None
    violations: list[dict] = field(default_factory=list)
    policy_violations: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Host:
    """Where the pages were visited: ``url`` (ending in ``/``), and whether it is nginx with the
    production headers (``production``), whose policy the browser enforced."""

    url: str
    production: bool


def html_pages(root: Path) -> list[str]:
    """Site-relative URLs of every page: each HTML file except the 404 pages and the assets."""
    pages = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel.endswith("404.html") or rel.startswith("assets/"):  # one 404 page per edition
            continue
        if "data-moved-to=" in path.read_text(encoding="utf-8")[:500]:  # a redirect page (moved.yml)
            continue
        pages.append(rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    return pages


def target_file(root: Path, site_url: str, url: str) -> Path | None:
    """The file a local URL is served from, or None if the server would answer 404."""
    path = unquote(urlsplit(url).path)
    base = urlsplit(site_url).path
    rel = path[len(base) :] if path.startswith(base) else path.lstrip("/")
    candidate = root / rel
    if rel == "" or rel.endswith("/"):
        candidate = candidate / "index.html"
    elif candidate.is_dir():
        candidate = candidate / "index.html"  # the server redirects dir -> dir/
    return candidate if candidate.is_file() else None


def edition_of(rel: str) -> str:
    return "en" if rel == "en/" or rel.startswith("en/") else "zh"


@pytest.fixture(scope="module")
def pages(site_root: Path) -> list[str]:
    found = html_pages(site_root)
    assert "" in found and "en/" in found, f"no home page in each edition among {found[:10]}"
    return found


@pytest.fixture(scope="module")
def host(request: pytest.FixtureRequest, site_url: str) -> Host:
    """nginx with the production headers where it is installed (always under CI: the ``nginx``
    fixture fails there without it), else the test server."""
    if nginx_executable() is not None or os.environ.get("CI"):
        return Host(request.getfixturevalue("nginx").url, production=True)
    return Host(site_url, production=False)


def visit_all(browser, host: Host, pages: list[str], axe_source: str) -> dict[str, Visit]:
    """Open each of ``pages`` once, in one context and one tab of ``browser``: status, log,
    policy violations, links, ids, axe violations."""
    context = browser.new_context()
    # Recorded in every document before its own scripts run (init scripts are not subject to
    # the page's policy).
    context.add_init_script(WATCH_VIOLATIONS)
    # axe-core is added the same way, to every document before its own scripts: not an inline
    # <script>, which the production policy (rightly) refuses, and not evaluated afterwards,
    # which compiled its 550 KB again on every page (about 65 ms a page; as an init script,
    # about 30 ms). Defining it changes nothing on the page until the audit runs.
    context.add_init_script(axe_source)
    page = context.new_page()
    log = attach_log(page, host.url)
    out: dict[str, Visit] = {}
    try:
        for rel in pages:
            url = urljoin(host.url, rel)
            visit = Visit(url)
            log.clear()
            response = page.goto(url, wait_until="load")
            # The playground builds its controls when the browser is idle: audit them too.
            page.wait_for_selector("html[data-playground-ready]", state="attached", timeout=15_000)
            visit.status = response.status if response else None
            collected = page.evaluate(COLLECT_JS)
            visit.links = collected["links"]
            visit.ids = set(collected["ids"])
            visit.lang = collected["lang"]
            visit.title = collected["title"]
            visit.description = collected["description"]
            visit.h1 = collected["h1"]
            # Read before the audit runs: the page's own violations, nothing of the audit's.
            visit.policy_violations = page.evaluate("window.__cspViolations")
            visit.violations = page.evaluate(AXE_JS)
            # Whatever the page still fetches has finished before its log is read (by now this
            # rarely waits: axe-core takes longer than the 500 ms without traffic this needs).
            page.wait_for_load_state("networkidle")
            visit.problems = log.problems()
            out[rel] = visit
    finally:
        context.close()
    return out


def visit_all_on_a_browser_of_its_own(
    executable: str, host: Host, pages: list[str], axe_source: str
) -> dict[str, Visit]:
    """:func:`visit_all` on a browser launched by a Playwright driver of its own, for a thread
    other than the one that made the session's (Playwright's synchronous objects belong to the
    thread that made them)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = launch_chromium(driver, executable, TEST_BROWSER_ARGS)
        try:
            return visit_all(browser, host, pages, axe_source)
        finally:
            browser.close()


@pytest.fixture(scope="module")
def visits(
    browser, headless_shell_executable: str, host: Host, pages: list[str], axe_source: str
) -> dict[str, Visit]:
    """Every page visited once (:func:`visit_all`), on two browsers at the same time: every
    other page on a second browser, driven from a second thread, the rest on the session's.

    Each visit is a page load and an axe-core audit on that page's main thread (about 0.4 s of
    one core's time for the audit alone): one browser keeps one core busy. The second takes
    the other core while it is free, as it is when this file runs last (it took 73 to 95 s
    there on one browser, the longest unit of the run); beside other work it costs the start of
    a Playwright driver and a browser (0.6 s of CPU, measured on the two-core machine). Each page
    is still visited once, in a context of its own browser, and each browser visits pages of both
    editions in the same order as before.
    """
    with ThreadPoolExecutor(max_workers=1) as thread:
        elsewhere = thread.submit(
            visit_all_on_a_browser_of_its_own, headless_shell_executable, host, pages[1::2], axe_source
        )
        here = visit_all(browser, host, pages[0::2], axe_source)
        visited = {**here, **elsewhere.result()}
    return {rel: visited[rel] for rel in pages}


def test_both_editions_have_the_same_pages(pages: list[str]) -> None:
    zh = {rel for rel in pages if edition_of(rel) == "zh"}
    en = {rel[len("en/") :] for rel in pages if edition_of(rel) == "en"}
    assert sorted(zh - en) == [], "pages only in the Chinese edition"
    assert sorted(en - zh) == [], "pages only in the English edition"


def test_sitemap_lists_every_page_of_both_editions(site_root: Path, pages: list[str]) -> None:
    tree = ET.parse(site_root / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    locs = [loc.text or "" for loc in tree.findall("s:url/s:loc", ns)]
    site = local_site_url()
    assert all(loc.startswith(site) for loc in locs), locs
    listed = {loc[len(site) :] for loc in locs}
    assert sorted(listed - set(pages)) == [], "sitemap.xml lists pages that were not built"
    assert sorted(set(pages) - listed) == [], "pages missing from sitemap.xml"
    # hreflang alternates: each entry names its page in both editions, with absolute URLs.
    for url in tree.findall("s:url", ns):
        alternates = {a.get("hreflang"): a.get("href") or "" for a in url.findall("x:link", ns)}
        loc = url.findtext("s:loc", "", ns)
        assert set(alternates) == {"zh", "en"}, (loc, alternates)
        assert all(href.startswith(site) for href in alternates.values()), (loc, alternates)
        assert loc in alternates.values(), (loc, alternates)


def test_robots_txt_allows_crawling_and_names_the_sitemap(site_root: Path) -> None:
    text = (site_root / "robots.txt").read_text(encoding="utf-8")
    assert re.search(r"(?im)^user-agent:\s*\*\s*$", text)
    assert not re.search(r"(?im)^disallow:\s*/\s*$", text)
    assert re.search(rf"(?im)^sitemap:\s*{re.escape(local_site_url())}sitemap\.xml\s*$", text)


def test_every_page_loads_cleanly(visits: dict[str, Visit]) -> None:
    """HTTP 200, no console error, no failed request, no request to another host."""
    bad = {
        rel or "/": ([f"HTTP {v.status}"] if v.status != 200 else []) + v.problems
        for rel, v in visits.items()
        if v.status != 200 or v.problems
    }
    assert bad == {}, "\n".join(f"{rel}: {p}" for rel, ps in bad.items() for p in ps)


def test_every_page_loads_under_the_production_policy_without_a_violation(
    host: Host, visits: dict[str, Visit]
) -> None:
    """No ``securitypolicyviolation`` while a page loads from nginx, in either edition."""
    if not host.production:
        require(None, "nginx (apt-get install nginx), which serves the production policy,")
    assert len(visits) > 50
    bad = {rel or "/": v.policy_violations for rel, v in visits.items() if v.policy_violations}
    assert bad == {}, "\n".join(f"{rel}: {line}" for rel, lines in bad.items() for line in lines)


def test_every_page_declares_its_language_and_title(visits: dict[str, Visit]) -> None:
    wrong = {
        rel: (v.lang, v.title)
        for rel, v in visits.items()
        if v.lang != edition_of(rel) or not v.title.strip()
    }
    assert wrong == {}


def test_every_page_has_its_own_meta_description(visits: dict[str, Visit]) -> None:
    """The front matter's ``description`` becomes the meta description (Lighthouse SEO).

    A page whose front matter did not parse falls back to the site-wide description, and its
    ``description:`` line shows up as the first heading instead.
    """
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    site_wide = {
        m.strip().strip('"').strip("'") for m in re.findall(r"(?m)^\s*site_description:\s*(.+)$", config)
    }
    wrong = {}
    for rel, v in visits.items():
        if not v.description or not v.description.strip():
            wrong[rel or "/"] = "no meta description"
        elif v.description.strip() in site_wide:
            wrong[rel or "/"] = f"the site-wide description, not the page's: first heading {v.h1!r}"
        elif v.h1 and v.h1.lower().startswith("description:"):
            wrong[rel or "/"] = f"front matter rendered as a heading: {v.h1!r}"
    assert wrong == {}, "\n".join(f"{k}: {w}" for k, w in wrong.items())


def test_every_in_site_link_and_anchor_resolves(
    visits: dict[str, Visit], site_root: Path, host: Host, browser_report
) -> None:
    """Links of every kind (switcher, prev/next, toc, navigation, content) reach a page and an id."""
    broken: list[str] = []
    kinds_seen: dict[str, int] = {}
    origin = urlsplit(host.url)
    for rel, visit in visits.items():
        for link in visit.links:
            parts = urlsplit(link["url"])
            if parts.scheme not in ("http", "https") or (parts.scheme, parts.netloc) != (
                origin.scheme,
                origin.netloc,
            ):
                continue  # mailto:, javascript:, and links to other sites (not followed)
            kinds_seen[link["kind"]] = kinds_seen.get(link["kind"], 0) + 1
            where = f"{rel or '/'}: {link['kind']} link {link['raw']!r} ({link['text']!r})"
            file = target_file(site_root, host.url, link["url"])
            if file is None:
                broken.append(f"{where} -> no such page")
                continue
            if not parts.fragment:
                continue
            fragment = unquote(parts.fragment)
            target_rel = file.relative_to(site_root).as_posix()
            target_rel = target_rel[: -len("index.html")] if target_rel.endswith("index.html") else target_rel
            target = visits.get(target_rel)
            if target is None:
                broken.append(f"{where} -> anchor #{fragment} in a file that is not a page")
            elif fragment not in target.ids:
                broken.append(f"{where} -> {target_rel or '/'} has no id {fragment!r}")
    assert broken == [], f"{len(broken)} broken links:\n" + "\n".join(broken)
    for kind in ("language switcher", "navigation", "content", "previous/next", "table of contents"):
        assert kinds_seen.get(kind), f"no {kind} links found at all: {kinds_seen}"
    zh = sum(edition_of(r) == "zh" for r in visits)
    server = "nginx, production policy" if host.production else "the test server"
    browser_report(
        f"pages visited ({server}), each checked with axe-core: {len(visits)} "
        f"({zh} zh, {len(visits) - zh} en)"
    )
    browser_report(f"in-site links and anchors resolved, by kind: {kinds_seen}")


def test_language_switcher_leads_to_the_same_page_in_the_other_edition(
    visits: dict[str, Visit], host: Host
) -> None:
    wrong = []
    for rel, visit in visits.items():
        here = edition_of(rel)
        counterpart = rel[len("en/") :] if here == "en" else "en/" + rel
        switcher = {
            urlsplit(link["url"]).path: link for link in visit.links if link["kind"] == "language switcher"
        }
        expected = {urlsplit(urljoin(host.url, rel)).path, urlsplit(urljoin(host.url, counterpart)).path}
        if set(switcher) != expected:
            wrong.append(f"{rel or '/'}: switcher leads to {sorted(switcher)}, expected {sorted(expected)}")
    assert wrong == [], "\n".join(wrong)


def test_axe_core_finds_no_violation(visits: dict[str, Visit]) -> None:
    """axe-core's default rule set, every impact level, on every page."""
    lines = []
    for rel, visit in visits.items():
        for v in visit.violations:
            lines.append(f"{rel or '/'}: [{v['impact']}] {v['id']}: {v['help']}")
            lines.extend(f"    {node}" for node in v["nodes"][:5])
    assert lines == [], "\n".join(lines)
