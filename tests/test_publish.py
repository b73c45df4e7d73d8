"""Publishing the book (issue 12): the site's address, the deploy workflow, the production headers,
sharing meta and licences, checked on the built site.

* ``SITE_URL`` moves every absolute address (canonical links, ``og:url``, the sitemap and its
  hreflang alternates, ``robots.txt``, the ``_headers`` paths); ``REPO_URL`` adds the
  repository link and edit buttons, and no request to the repository host's API;
* ``.github/workflows/pages.yml`` passes actionlint and keeps its promises (triggers, pinned
  actions, least privilege, the same install and test steps as ``.ci/run``);
* ``_headers`` and ``_deploy/nginx-headers.conf`` carry one policy, with a hash for every
  inline script of every page and nothing unsafe; the build fails when a page would break;
* every page has Open Graph and Twitter card meta, in its edition's locale;
* the project's LICENSE, and Pyodide's beside the runtime.

The nginx-served checks (every page, the playground under the policy, 404s, caching,
compression) are browser tests: tests/browser/test_nginx.py.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from mkdocs.exceptions import PluginError

from tests import soup
from tests.conftest import PUBLISHED_ENV, cached_build, local_site_url
from tests.loading import load_module

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deploy import headers  # noqa: E402

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
PUBLISHED = PUBLISHED_ENV["SITE_URL"]
REPO = PUBLISHED_ENV["REPO_URL"]


# --------------------------------------------------------------------------- reading pages


@dataclass
class Head:
    """What a page's head says about itself (and its links), read with lxml's HTML parser."""

    lang: str | None = None
    canonical: str | None = None
    meta: dict[str, list[str]] = field(default_factory=dict)
    links: list[dict[str, str]] = field(default_factory=list)
    data_components: list[str] = field(default_factory=list)


@functools.cache
def _read_head(path: Path, mtime_ns: int) -> Head:
    # lxml (libxml2), not the standard library's HTMLParser: 3 ms a page instead of 18 ms, and
    # this reads every page of two builds.
    document = soup.page(path)  # parsed once a session, shared with the checks below
    head = Head(lang=document.get("lang"))
    canonical = document.xpath('//link[@rel="canonical"]/@href')
    head.canonical = str(canonical[-1]) if canonical else None
    for meta in document.xpath("//meta[@property or @name]"):
        head.meta.setdefault(meta.get("property") or meta.get("name"), []).append(meta.get("content", ""))
    head.links = [dict(a.attrib) for a in document.iter("a")]
    head.data_components = [str(v) for v in document.xpath("//@data-md-component")]
    return head


def read_head(path: Path) -> Head:
    """A built page's language, canonical address, meta tags, links and Material components,
    read once per test session (read-only: do not modify it)."""
    return _read_head(path, path.stat().st_mtime_ns)


def content_pages(site: Path) -> list[Path]:
    """Every page of both editions but the 404 pages and the assets."""
    return [
        p
        for p in sorted(site.rglob("index.html"))
        if p.relative_to(site).parts[0] not in ("assets", "search", headers.DEPLOY_DIR)
    ]


def address(site: Path, page: Path, base: str) -> str:
    return base + page.relative_to(site).as_posix()[: -len("index.html")]


# --------------------------------------------------------------------------- a published build


@pytest.fixture(scope="session")
def published_site() -> Path:
    """The book built as the deploy workflow builds it: SITE_URL and REPO_URL set."""
    return cached_build(PUBLISHED_ENV).path


def test_site_url_is_read_from_the_environment_with_a_local_default():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^site_url: !ENV \[SITE_URL, \"http://127\.0\.0\.1:8000/\"\]$", text, re.M)
    assert not re.search(r"^repo_url:", text, re.M), "repo_url comes from REPO_URL (hooks/publish.py)"
    assert not (ROOT / "docs" / "robots.txt").exists(), "robots.txt is generated from SITE_URL"


def test_published_build_puts_canonical_and_og_url_under_site_url(published_site: Path):
    pages = content_pages(published_site)
    assert len(pages) > 50
    for page in pages:
        head = read_head(page)
        expected = address(published_site, page, PUBLISHED)
        assert head.canonical == expected, page
        assert head.meta["og:url"] == [expected], page


def test_published_sitemap_and_hreflang_alternates_are_under_site_url(published_site: Path):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    tree = ET.parse(published_site / "sitemap.xml")
    urls = tree.findall("s:url", ns)
    assert {u.findtext("s:loc", default="", namespaces=ns) for u in urls} == {
        address(published_site, p, PUBLISHED) for p in content_pages(published_site)
    }
    for url in urls:
        alternates = {a.get("hreflang"): a.get("href", "") for a in url.findall("x:link", ns)}
        assert set(alternates) == {"zh", "en"}
        assert alternates["en"].startswith(PUBLISHED + "en/"), alternates
        assert alternates["zh"].startswith(PUBLISHED) and not alternates["zh"].startswith(PUBLISHED + "en/")


def test_published_robots_txt_names_the_published_sitemap(published_site: Path):
    text = (published_site / "robots.txt").read_text(encoding="utf-8")
    assert text == f"User-agent: *\nAllow: /\n\nSitemap: {PUBLISHED}sitemap.xml\n"


def test_published_headers_are_under_the_site_path_in_nginx_and_the_folders_root_in_headers(
    published_site: Path,
):
    """nginx serves the site at its path (``/harness/``). Netlify and Cloudflare Pages serve the
    uploaded folder at their own root and match ``_headers`` against the folder's paths: rules
    under ``/harness/`` matched nothing there, and the site got no security header at all."""
    text = (published_site / "_headers").read_text(encoding="utf-8")
    rules = [line for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    assert rules[0] == "/*"
    assert not any(rule.startswith("/harness/") for rule in rules), rules
    immutable = [rule for rule in rules[1:] if rule.startswith("/assets/")]
    assert immutable and all(
        (published_site / rule.removeprefix("/").removesuffix("*")).exists() for rule in immutable
    )
    nginx = (published_site / headers.NGINX_HEADERS).read_text(encoding="utf-8")
    assert "error_page 404 /harness/en/404.html;" in nginx
    assert "location ^~ /harness/" in nginx or "location /harness/" in nginx, nginx[:500]


def test_repo_url_adds_the_source_link_and_edit_buttons_but_no_api_request(published_site: Path):
    for page in (published_site / "index.html", published_site / "en" / "reference" / "cli" / "index.html"):
        head = read_head(page)
        hrefs = [link.get("href", "") for link in head.links]
        assert REPO + "/" in hrefs, page
        edits = [link["href"] for link in head.links if link.get("rel") == "edit"]
        assert len(edits) == 1 and edits[0].startswith(REPO + "/edit/main/docs/"), edits
        assert edits[0].endswith(".en.md") == ("/en/" in page.as_posix()), edits
        # data-md-component="source" is what makes Material fetch the repository's facts.
        assert "source" not in head.data_components, page


def test_without_repo_url_no_repository_is_named(built_site):
    for page in (built_site.path / "index.html", built_site.path / "en" / "index.html"):
        head = read_head(page)
        assert not [link for link in head.links if link.get("rel") == "edit"]
        assert not [link for link in head.links if "md-source" in link.get("class", "")]


def test_default_build_follows_the_default_site_url(built_site):
    site_url = local_site_url()
    robots = (built_site.path / "robots.txt").read_text(encoding="utf-8")
    assert f"Sitemap: {site_url}sitemap.xml" in robots
    assert read_head(built_site.path / "en" / "index.html").canonical == site_url + "en/"


def test_a_build_for_this_machine_says_it_is_not_one_to_publish(built_site):
    """A build left at the local default names 127.0.0.1 in its canonical links and sitemap:
    the build says so once (a line, not a warning: the tests and previews build this way)."""
    line = "publish: SITE_URL is not set, so canonical links, the sitemap and robots.txt name http"
    assert built_site.log.count(line) == 1, built_site.log[-3000:]
    assert line not in cached_build(PUBLISHED_ENV).log


# --------------------------------------------------------------------------- the deploy workflow


def actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "actionlint is a dev dependency (uv sync installs it)"
    return found


def test_workflow_passes_actionlint():
    completed = subprocess.run(
        [actionlint(), "-no-color", str(WORKFLOW.relative_to(ROOT))], cwd=ROOT, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_actionlint_does_fail_on_a_broken_workflow(tmp_path: Path):
    broken = WORKFLOW.read_text(encoding="utf-8").replace("workflow_dispatch:", "workflow_dispatch_typo:")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "pages.yml").write_text(broken, encoding="utf-8")
    completed = subprocess.run(
        [actionlint(), "-no-color", ".github/workflows/pages.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 1 and "workflow_dispatch_typo" in completed.stdout


def test_workflow_deploys_from_main_and_by_hand_tests_pull_requests_with_least_privilege():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    on = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert on == {"push": {"branches": ["main"]}, "pull_request": None, "workflow_dispatch": None}
    assert workflow["permissions"] == {}
    # Deployments wait, never cut short; a pull request's older run is cancelled.
    assert workflow["concurrency"] == {
        "group": "${{ github.event_name == 'pull_request' && format('test-{0}', github.ref) || 'pages' }}",
        "cancel-in-progress": "${{ github.event_name == 'pull_request' }}",
    }
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    # .ci/run in the Debian of the project's CI machines (the hosting guide says so).
    assert build["container"]["image"] == "debian:12"
    # A pull request runs .ci/run and nothing after it; the deploy job never runs for one.
    not_for_pull_requests = "github.event_name != 'pull_request'"
    assert deploy["if"] == not_for_pull_requests and "if" not in build
    after_ci = build["steps"][
        [step.get("run", "").strip() for step in build["steps"]].index("bash .ci/run") + 1 :
    ]
    assert after_ci and all(step["if"] == not_for_pull_requests for step in after_ci)
    assert all("if" not in step for step in build["steps"][: len(build["steps"]) - len(after_ci)])
    assert build["permissions"] == {"contents": "read", "pages": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    runs = [step.get("run", "") for step in build["steps"]]
    assert any(run.strip() == "bash .ci/run" for run in runs), "the same install and test steps as CI"
    build_step = next(step for step in build["steps"] if "mkdocs build --strict" in step.get("run", ""))
    assert build_step["env"]["SITE_URL"] == "${{ steps.pages.outputs.base_url }}"
    assert build_step["env"]["REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    # The other hosts' files stay out of what Pages publishes.
    assert "rm -r site/_headers site/_redirects site/_deploy" in build_step["run"]
    assert "find site -name '*.gz' -delete" in build_step["run"]
    assert build["env"]["CI"] == "true"
    # The build job uploads the site; the deploy job, a separate one, only deploys it.
    assert any(step.get("uses", "").startswith("actions/upload-pages-artifact@") for step in after_ci)
    assert [step["uses"].split("@")[0] for step in deploy["steps"]] == ["actions/deploy-pages"]


def test_every_action_is_pinned_to_a_full_commit_with_its_release_named():
    uses = re.findall(r"uses: (\S+)(.*)$", WORKFLOW.read_text(encoding="utf-8"), re.M)
    names = {ref.split("@")[0] for ref, _ in uses}
    assert {
        "actions/checkout",
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    } <= names
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), f"{ref}: name the release in a comment"


def test_ci_installs_nginx_for_the_browser_tests():
    assert "need+=(nginx)" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- production headers


def test_headers_policy_is_strict_and_allows_exactly_the_inline_scripts(built_site):
    site = built_site.path
    policy = headers.written_policy(site)
    directives = headers.parse_policy(policy)
    script_src = directives["script-src"]
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    assert "'wasm-unsafe-eval'" in script_src and "'self'" in script_src
    for name, value in {
        "default-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "worker-src": ["'self'"],
        "connect-src": ["'self'"],
        "style-src": ["'self'"],
    }.items():
        assert directives[name] == value, name
    hashes = {source for source in script_src if source.startswith("'sha256-")}
    scanned = headers.scan(site)  # every page's inline code, read once for both checks
    assert hashes == headers.site_script_hashes(site, scanned), (
        "one hash per distinct inline script, no stale one"
    )
    assert headers.check_site(site, policy, scanned) == []
    # The same hashes, found by a reader of its own (lxml, every page of every edition): a scan
    # that missed pages would shrink the policy and the expected set above together.
    found = set()
    for page in site.rglob("*.html"):
        for script in soup.page(page).xpath("//script[not(@src)]"):
            if (script.get("type") or "").lower() in headers.JS_TYPES and script.text:
                found.add(headers.script_hash(script.text))
    assert found == hashes
    assert len(found) >= 9, found


def test_headers_file_and_nginx_include_carry_the_same_headers(built_site):
    site = built_site.path
    text = (site / "_headers").read_text(encoding="utf-8")
    nginx = (site / headers.NGINX_HEADERS).read_text(encoding="utf-8")
    for name, value in {
        "Content-Security-Policy": headers.written_policy(site),
        **headers.SECURITY_HEADERS,
    }.items():
        assert f"\n  {name}: {value}\n" in text, name
        quoted = value.replace('"', '\\"')
        # every location of the nginx include repeats it (add_header is not inherited)
        assert nginx.count(f'add_header {name} "{quoted}" always;') == nginx.count("location "), name


@pytest.mark.parametrize(
    ("site_url", "sent"),
    [
        ("https://books.example.org/", True),
        ("HTTPS://books.example.org", True),
        ("https://books.example.org/harness/", False),  # HSTS binds the whole host: its owner's call
        ("http://books.example.org/", False),
        ("/", False),
    ],
)
def test_strict_transport_security_goes_with_an_https_address_at_the_hosts_root(tmp_path, site_url, sent):
    """On every path, in ``_headers`` and in every location of the nginx include."""
    site = _fake_site(tmp_path, "")
    assert headers.write_all(site, site_url) == []
    text = (site / "_headers").read_text(encoding="utf-8")
    nginx = (site / headers.NGINX_HEADERS).read_text(encoding="utf-8")
    line = f"Strict-Transport-Security: {headers.HSTS}"
    assert text.count(f"\n  {line}\n") == int(sent), text
    hsts = f'add_header Strict-Transport-Security "{headers.HSTS}" always;'
    assert nginx.count(hsts) == (nginx.count("location ") if sent else 0), nginx


def test_the_book_builds_send_no_strict_transport_security(built_site, published_site):
    """The local build has no address, the published one a sub-path."""
    for site in (built_site.path, published_site):
        assert "Strict-Transport-Security" not in (site / "_headers").read_text(encoding="utf-8")


def test_fingerprinted_assets_and_the_pyodide_folder_are_immutable(built_site):
    site = built_site.path
    text = (site / "_headers").read_text(encoding="utf-8")
    nginx = (site / headers.NGINX_HEADERS).read_text(encoding="utf-8")
    bundles = sorted(p.relative_to(site).as_posix() for p in site.glob("assets/javascripts/bundle.*.min.js"))
    assert len(bundles) == 1
    pyodide = next(site.glob("assets/playground/pyodide-*/")).relative_to(site).as_posix()
    for path in (bundles[0], pyodide + "/*"):
        assert f"\n/{path}\n  Cache-Control: {headers.IMMUTABLE}\n" in text, path
    assert f"location = /{bundles[0]} {{" in nginx
    assert f"location ^~ /{pyodide}/ {{" in nginx
    # A year's caching on successes only: a 403 or 404 there is never kept (no `always`).
    immutable_lines = [line.strip() for line in nginx.splitlines() if headers.IMMUTABLE in line]
    assert immutable_lines and set(immutable_lines) == {f'add_header Cache-Control "{headers.IMMUTABLE}";'}
    # HTML and everything else revalidate.
    assert (
        nginx.split("location / {", 1)[1].split("}", 1)[0].count(f'Cache-Control "{headers.REVALIDATE}"') == 1
    )


def test_gzip_copies_are_written_for_text_and_wasm(built_site):
    site = built_site.path
    for relative in (
        "index.html",
        "en/index.html",
        "assets/playground/playground.js",
        "assets/playground/worker.mjs",
    ):
        original = (site / relative).read_bytes()
        assert gzip.decompress((site / (relative + ".gz")).read_bytes()) == original, relative
    css = next(site.glob("assets/stylesheets/main.*.min.css"))
    assert (css.parent / (css.name + ".gz")).exists()
    wasm = next(site.glob("assets/playground/pyodide-*/pyodide.asm.wasm"))
    assert (wasm.parent / (wasm.name + ".gz")).stat().st_size < wasm.stat().st_size / 2
    assert not list(site.glob("assets/playground/*.zip.gz")), "zips are compressed already"
    for relative in ("search/search_index.json", "sitemap.xml", "assets/images/favicon.png"):
        compressed = (site / (relative + ".gz")).exists()
        assert compressed is relative.endswith((".json", ".xml")), relative  # text yes, images no


def _site_with(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def _counting_gzip(monkeypatch: pytest.MonkeyPatch, delay: float = 0.0) -> list[bytes]:
    compressed: list[bytes] = []
    real = headers._gzip

    def counted(data: bytes) -> bytes:
        compressed.append(data)
        time.sleep(delay)
        return real(data)

    monkeypatch.setattr(headers, "_gzip", counted)
    return compressed


def test_a_kept_gzip_is_reused_and_a_damaged_one_never_served(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    files = {"index.html": b"<p>one</p>" * 100, "app.js": b"let two = 2;" * 100}
    compressed = _counting_gzip(monkeypatch)
    for n, expected in ((1, 2), (2, 2)):  # the second site's files are all found
        site = _site_with(tmp_path / f"site{n}", files)
        assert headers.write_gzip(site, cache) == 2
        assert len(compressed) == expected
        for name, data in files.items():
            assert gzip.decompress((site / f"{name}.gz").read_bytes()) == data
            assert (site / f"{name}.gz").read_bytes() == gzip.compress(data, 9, mtime=0)  # as without
    compressed.clear()
    entries = sorted(cache.glob("*.gz9"))
    assert len(entries) == 2
    entries[0].write_bytes(entries[0].read_bytes()[:-9])  # cut short
    entries[1].write_bytes(gzip.compress(b"something else"))  # whole, but of other bytes
    compressed.clear()
    site = _site_with(tmp_path / "site3", files)
    headers.write_gzip(site, cache)
    assert sorted(compressed) == sorted(files.values()), "a damaged entry was used"
    for name, data in files.items():
        assert gzip.decompress((site / f"{name}.gz").read_bytes()) == data


def test_two_builds_at_once_compress_each_file_once(tmp_path, monkeypatch):
    files = {f"page{i}.html": f"<p>{i}</p>".encode() * 200 for i in range(6)}
    compressed = _counting_gzip(monkeypatch, delay=0.05)
    sites = [_site_with(tmp_path / f"site{n}", files) for n in (1, 2)]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda site: headers.write_gzip(site, tmp_path / "cache"), sites))
    assert sorted(compressed) == sorted(files.values())
    for site in sites:
        for name, data in files.items():
            assert gzip.decompress((site / f"{name}.gz").read_bytes()) == data


def test_gzip_entries_unused_for_days_are_removed(tmp_path):
    cache = tmp_path / "cache"
    site = _site_with(tmp_path / "site", {"old.html": b"old " * 100, "new.html": b"new " * 100})
    headers.write_gzip(site, cache)
    old = cache / f"{hashlib.sha256(b'old ' * 100).hexdigest()}.gz9"
    (cache / "left-by-a-killed-build.partial").write_bytes(b"")
    stale = time.time() - (headers.CACHE_DAYS + 1) * 86400
    for path in (old, cache / "left-by-a-killed-build.partial"):
        os.utime(path, (stale, stale))
    assert headers.prune_gzip_cache(cache) == 1
    assert (
        sorted(p.name.split(".")[0] for p in cache.iterdir())
        == [hashlib.sha256(b"new " * 100).hexdigest()] * 2
    )  # the kept entry and its lock


def test_a_used_entry_is_kept_and_a_partial_one_being_written_is_left_alone(tmp_path):
    cache = tmp_path / "cache"
    data = b"kept " * 100
    headers.write_gzip(_site_with(tmp_path / "one", {"a.html": data}), cache)
    (entry,) = cache.glob("*.gz9")
    stale = time.time() - (headers.CACHE_DAYS + 1) * 86400
    os.utime(entry, (stale, stale))
    writing = cache / f"{entry.name}.1234.5678.partial"  # another build's, being written now
    writing.write_bytes(b"")
    headers.write_gzip(_site_with(tmp_path / "two", {"a.html": data}), cache)  # uses the entry
    assert entry.is_file() and writing.is_file()
    assert headers.prune_gzip_cache(cache) == 0


def test_a_changed_file_gets_a_new_gzip_copy(tmp_path):
    site = _site_with(tmp_path / "site", {"a.html": b"first " * 100})
    assert headers.write_gzip(site) == 1
    assert headers.write_gzip(site) == 0  # the copy is as new as its file
    (site / "a.html").write_bytes(b"second " * 100)
    later = (site / "a.html.gz").stat().st_mtime + 10
    os.utime(site / "a.html", (later, later))
    assert headers.write_gzip(site) == 1
    assert gzip.decompress((site / "a.html.gz").read_bytes()) == b"second " * 100


def test_the_build_keeps_its_gzip_copies_in_the_projects_cache():
    publish_hook = load_module("publish_hook", ROOT / "hooks" / "publish.py")
    assert publish_hook.GZIP_CACHE == ".cache/gzip"
    assert "/.cache/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_redirects_include_exists_even_when_nothing_moved(built_site):
    assert (built_site.path / headers.NGINX_REDIRECTS).is_file()


def test_nginx_conf_includes_the_generated_files_and_hides_them():
    conf = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    directives = [
        line.split("#", 1)[0].strip() for line in conf.splitlines() if line.split("#", 1)[0].strip()
    ]
    # The includes come from root's configuration folder, never from the site folder the build
    # writes (whoever writes an included file configures the server).
    assert "include /etc/nginx/harnessbook/nginx-headers.conf;" in directives
    assert "include /etc/nginx/harnessbook/nginx-redirects.conf;" in directives
    assert not any(d.startswith("include /srv/") for d in directives)
    # Both address families; a named host, so Debian's default site keeps the other names.
    assert {"listen 80;", "listen [::]:80;"} <= set(directives)
    assert "server_name books.example.org;" in directives
    assert "root /srv/harnessbook/current;" in directives
    hiding = "location ~ /_(?:deploy/|headers$|redirects$) {"
    assert hiding in directives
    # The same expression (PCRE and Python's re agree on it) hides the files under a sub-path
    # too, and nothing of the book.
    pattern = re.compile(hiding.split(" ", 2)[2].removesuffix(" {"))
    for path in (
        "/_deploy/nginx-headers.conf",
        "/_headers",
        "/_redirects",
        "/book/_deploy/x.conf",
        "/book/_headers",
    ):
        assert pattern.search(path), path
    for path in (
        "/",
        "/en/",
        "/reference/request/budgetUnits/",
        "/book/_headers.html",
        "/assets/_deployment.js",
    ):
        assert not pattern.search(path), path
    assert "gzip_static on;" in directives
    assert "text/javascript  mjs;" in directives


def _fake_site(tmp_path: Path, body: str) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        f"<!doctype html><html><head><script>var a=1</script></head><body>{body}</body></html>"
    )
    return site


def test_check_site_names_an_inline_script_the_policy_lacks(tmp_path: Path):
    site = _fake_site(tmp_path, "<script>alert('new')</script>")
    allowed = headers.content_security_policy([headers.script_hash("var a=1")])
    problems = headers.check_site(site, allowed)
    assert len(problems) == 1 and headers.script_hash("alert('new')") in problems[0]
    complete = headers.content_security_policy(headers.site_script_hashes(site))
    assert headers.check_site(site, complete) == []


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ('<button onclick="go()">x</button>', "handler"),
        ('<a href="javascript:go()">x</a>', "javascript-url"),
        ('<iframe src="JavaScript:go()"></iframe>', "javascript-url"),
        ('<form action="javascript:go()"></form>', "javascript-url"),
        ('<button formaction=" javascript:go()">x</button>', "javascript-url"),
        ('<p style="color: red">x</p>', "inline style"),
        ("<style>p { color: red }</style>", "inline style"),
    ],
)
def test_check_site_refuses_what_no_hash_can_allow(tmp_path: Path, body: str, kind: str):
    site = _fake_site(tmp_path, body)
    problems = headers.check_site(site, headers.content_security_policy(headers.site_script_hashes(site)))
    assert len(problems) == 1 and kind in problems[0], problems


def test_json_data_blocks_are_not_scripts(tmp_path: Path):
    site = _fake_site(tmp_path, '<script id="__config" type="application/json">{"a": 1}</script>')
    assert headers.site_script_hashes(site) == {headers.script_hash("var a=1")}


def stand_in_config(site: Path, plugins: dict | None = None) -> Any:
    """What hooks/publish.py's on_post_build reads of MkDocs' config."""
    return SimpleNamespace(
        site_dir=str(site),
        site_url="https://example.org/",
        config_file_path=str(site.parent / "mkdocs.yml"),
        plugins=plugins or {},
    )


def test_the_build_fails_when_a_page_would_break(tmp_path: Path):
    """The hook's last step: a page the policy cannot allow stops the build."""
    hook = load_module("publish_hook", ROOT / "hooks" / "publish.py")
    site = _fake_site(tmp_path, '<button onclick="go()">x</button>')
    with pytest.raises(PluginError, match="onclick"):
        hook.on_post_build(stand_in_config(site))
    (site / "index.html").write_text("<html><script>ok()</script></html>")
    hook.on_post_build(stand_in_config(site))  # a plain inline script is hashed, and the build goes on
    assert headers.script_hash("ok()") in headers.written_policy(site)


# --------------------------------------------------------------------------- sharing and licences


@pytest.mark.parametrize(
    ("edition", "locale", "alternate"), [("zh", "zh_CN", "en_US"), ("en", "en_US", "zh_CN")]
)
def test_every_page_has_open_graph_and_twitter_card_meta(
    built_site, edition: str, locale: str, alternate: str
):
    site = built_site.path
    pages = [p for p in content_pages(site) if (p.relative_to(site).parts[0] == "en") == (edition == "en")]
    assert len(pages) > 25
    site_names = set()
    for page in pages:
        head = read_head(page)
        meta = head.meta
        where = page.relative_to(site).as_posix()
        assert meta["og:locale"] == [locale], where
        assert meta["og:locale:alternate"] == [alternate], where
        assert meta["og:url"] == [head.canonical], where
        assert meta["og:title"][0].strip() and meta["twitter:title"] == meta["og:title"], where
        assert meta["og:description"] == meta["description"] == meta["twitter:description"], where
        assert meta["twitter:card"] == ["summary"], where
        assert not any(key in meta for key in ("og:image", "twitter:image")), (
            "no image: nothing from another host"
        )
        site_names.update(meta["og:site_name"])
    assert len(site_names) == 1
    site_name = site_names.pop()
    assert ("Harness Book" in site_name) == (edition == "en")
    home = read_head(site / ("en/index.html" if edition == "en" else "index.html")).meta
    assert home["og:type"] == ["website"] and home["og:title"] == [site_name], (
        "a home page is titled by the site"
    )
    # The whole front matter description, not cut at a quote (Material writes it unescaped).
    source = (ROOT / "docs" / ("index.en.md" if edition == "en" else "index.md")).read_text(encoding="utf-8")
    description = re.search(r"^description: (.+)$", source, re.M)
    assert description and home["description"] == [description.group(1)]
    # A home page's tab is titled by the site alone, in both editions (overrides/main.html).
    home_html = (site / ("en/index.html" if edition == "en" else "index.html")).read_text(encoding="utf-8")
    assert re.findall(r"<title>(.*?)</title>", home_html) == [site_name]


def test_project_licence_is_mit():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text


def test_pyodides_licence_ships_beside_the_runtime(built_site):
    licence = next(built_site.path.glob("assets/playground/pyodide-*/LICENSE"))
    text = licence.read_text(encoding="utf-8")
    assert text.startswith("Mozilla Public License Version 2.0") and "Exhibit B" in text


def test_script_text_is_hashed_as_written_with_its_character_references(tmp_path: Path):
    """The browser hashes a script's source text: `&amp;` inside a script is five characters."""
    site = _fake_site(tmp_path, "<script>if (a &amp;&amp; b) go('&lt;')</script>")
    assert headers.script_hash("if (a &amp;&amp; b) go('&lt;')") in headers.site_script_hashes(site)


def test_an_editions_inner_build_writes_no_headers(tmp_path: Path):
    """The i18n plugin builds each edition inside the whole build: the headers, the policy and
    the .gz copies come once, when every edition is there (they took seconds a time)."""
    hook = load_module("publish_hook", ROOT / "hooks" / "publish.py")
    site = _fake_site(tmp_path, "<html><script>ok()</script></html>")
    hook.on_post_build(stand_in_config(site, {"i18n": SimpleNamespace(building=True)}))
    assert not (site / headers.HEADERS_FILE).exists() and not (site / "robots.txt").exists()
