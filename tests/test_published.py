"""Addresses that people link to never break (issue 15).

* every address in ``tests/data/published.txt`` (pages of both editions, every page's headings,
  the API's objects) resolves in the strict build: it is still
  there, or ``moved.yml`` redirects it and the build carries the redirect page or the alias;
* the check fails, naming each address and the two fixes, when an address disappears;
* ``tools/published.py --update`` appends and never drops, and no commit ever dropped a line;
* ``hooks/moved.py``, on a small two-edition project that moves a page and anchors of every kind
  (``tests/moved_project.py``): redirect pages without inline script, aliases, ``_redirects``
  and nginx rules (served by a real nginx where one is installed), and a clear error for every
  kind of mistake in ``moved.yml``.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from deploy import headers

from tests import moved_project
from tests.browser import serving
from tests.loading import load_module

ROOT = Path(__file__).resolve().parents[1]


published = load_module("harnessbook_published", ROOT / "tools" / "published.py")
moved = published.moved
MANIFEST_PATH = published.MANIFEST.relative_to(ROOT).as_posix()

# The floor, per edition: what the site published on 2026-12-07 (commit 2a3c4fe). The manifest
# only grows; test_no_address_ever_left_the_manifest holds every line ever committed.
BASELINE = {"page": 45, "heading": 342, "object": 239}


@pytest.fixture(scope="module")
def manifest() -> list:
    return published.read_manifest()


@pytest.fixture(scope="session")
def moved_site() -> Path:
    """The small project of tests/moved_project.py, built strictly once and reused while its
    inputs are unchanged."""
    return moved_project.cached_site()


# --------------------------------------------------------------------------- the book


def test_every_published_address_resolves(built_site, manifest):
    problems = published.check(built_site.path, manifest, moved.load_moves(ROOT))
    assert not problems, published.report(problems)


def test_the_manifest_holds_the_baseline_in_both_editions(manifest):
    assert len(manifest) == len(set(manifest)), "an address is listed twice"
    for edition, _prefix in (("zh", "/"), ("en", "/en/")):
        mine = [a for a in manifest if (a.url.startswith("/en/") or a.url == "/en/") == (edition == "en")]
        counted = published.counts(mine)
        for kind, baseline in BASELINE.items():
            assert counted[kind] >= baseline, (
                f"{edition}: {counted[kind]} {kind} addresses, the baseline had {baseline}"
            )
    paths = {a.path for a in manifest}
    for page in ("/", "/en/", "/reference/api/", "/en/reference/api/", "/chapters/06-context-packet/rules/"):
        assert page in paths
    assert (
        published.Address("object", "/en/reference/api/#harnessbook.context_packet.build_context_packet")
        in manifest
    )


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_no_address_ever_left_the_manifest(manifest):
    """``--update`` only appends, and a line removed by hand is an address people may link to:
    every address of every committed version of the manifest (its whole history, merges
    included) is in the manifest now. Putting a removed line back mends it."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the manifest's history cannot be read")
    shallow = git("rev-parse", "--is-shallow-repository")
    assert shallow.returncode == 0, f"git cannot read this checkout: {shallow.stderr}"
    if shallow.stdout.strip() == "true":
        if os.environ.get("GITHUB_ACTIONS"):  # pages.yml checks out with fetch-depth: 0
            pytest.fail("a shallow clone: the Pages workflow needs fetch-depth: 0", pytrace=False)
        pytest.skip("a shallow clone: the manifest's history is not here (git fetch --unshallow)")
    commits = git("rev-list", "--full-history", "HEAD", "--", MANIFEST_PATH)
    assert commits.returncode == 0, commits.stderr
    versions = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=ROOT,
        input="".join(f"{commit}:{MANIFEST_PATH}\n" for commit in commits.stdout.split()),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ever = {
        published.Address(*line.split())
        for line in versions.splitlines()
        if re.fullmatch(r"(page|heading|object) /\S*", line)
    }
    assert len(ever) >= sum(BASELINE.values()), "the history was not read"
    gone = sorted(ever - set(manifest), key=published.sort_key)
    assert not gone, f"{len(gone)} published addresses left the manifest, first {gone[:5]}"


def test_the_build_publishes_every_address_that_did_not_move(built_site, manifest):
    """The other direction: every address of the manifest that moved.yml does not move is found
    again by ``collect`` in the build. A ``collect`` that found less (an edition left out, a
    page's later headings) passed the test below, and ``--update`` would stop adding them."""
    moves = moved.load_moves(ROOT)
    prefixes = published.edition_prefixes()

    def stayed(address: Any) -> bool:  # a tools/published.py Address
        _, page = published.split_edition(address.path, prefixes)
        if moves.final_page(page) != page:
            return False
        return address.fragment is None or address.fragment not in moves.anchors.get(page, {})

    expected = {address for address in manifest if stayed(address)}
    assert len(expected) > len(manifest) / 2
    assert set(published.collect(built_site.path)) == expected


def test_the_build_publishes_nothing_the_manifest_lacks(built_site, manifest):
    """New pages, headings and objects are added with `tools/published.py --update`."""
    missing = sorted(set(published.collect(built_site.path)) - set(manifest), key=published.sort_key)
    assert not missing, (
        "published but not in tests/data/published.txt (run: uv run python tools/published.py --update "
        f"--site {os.path.relpath(built_site.path, ROOT)}, the build this test read):\n"
        + "\n".join(f"  {a}" for a in missing[:40])
    )


def _copy_pages(site: Path, into: Path) -> Path:
    """The built site's HTML files only: enough for the check, and cheap to change."""
    for file in site.rglob("*.html"):
        if "assets" in file.relative_to(site).parts:
            continue
        target = into / file.relative_to(site)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, target)
    return into


def test_the_check_fails_when_an_address_disappears(built_site, manifest, tmp_path):
    site = _copy_pages(built_site.path, tmp_path / "site")
    rules = site / "chapters" / "06-context-packet" / "rules" / "index.html"
    api = site / "en" / "reference" / "api" / "index.html"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace('id="expiry"', 'id="renamed-expiry"'), encoding="utf-8"
    )
    api.write_text(
        api.read_text(encoding="utf-8").replace(
            'id="harnessbook.context_packet.expiry"', 'id="harnessbook.context_packet.rules.expiry"'
        ),
        encoding="utf-8",
    )
    shutil.rmtree(site / "en" / "reference" / "cli")
    published.parse_page.cache_clear()
    try:
        problems = published.check(site, manifest, moved.Moves())
    finally:
        published.parse_page.cache_clear()
    named = {str(p.address) for p in problems}
    assert "heading /chapters/06-context-packet/rules/#expiry" in named
    assert "object /en/reference/api/#harnessbook.context_packet.expiry" in named
    assert "page /en/reference/cli/" in named
    assert {p.address.path for p in problems} <= {
        "/chapters/06-context-packet/rules/",
        "/en/reference/api/",
        "/en/reference/cli/",
    }
    assert (
        len([p for p in problems if p.address.path == "/en/reference/cli/"])
        == 1
        + published.counts(a for a in manifest if a.path == "/en/reference/cli/" and a.fragment)["heading"]
    )
    message = published.report(problems)
    assert (
        "heading /chapters/06-context-packet/rules/#expiry: /chapters/06-context-packet/rules/ has no element with id 'expiry'"
        in message
    )
    assert "1. keep it" in message and "2. redirect it in moved.yml" in message


def test_update_appends_and_never_drops(tmp_path):
    path = tmp_path / "published.txt"
    kept = published.Address("heading", "/reference/gone/#retired")
    path.write_text(published.HEADER + f"\n# earlier\n{kept}\npage /\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    found = [
        published.Address("page", "/"),
        published.Address("page", "/en/"),
        published.Address("heading", "/en/x/#y"),
    ]
    new = published.append_new(path, found, "added in a test")
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before), "the existing lines must stay as they were"
    assert new == [published.Address("page", "/en/"), published.Address("heading", "/en/x/#y")]
    assert kept in published.read_manifest(path)
    assert published.append_new(path, found, "again") == [] and path.read_text(encoding="utf-8") == after


@pytest.mark.parametrize(
    "line", ["page /x/#y", "heading /x/", "anchor /x/#y", "page x/", "page / extra", "object"]
)
def test_a_malformed_manifest_line_is_named(tmp_path, line):
    path = tmp_path / "published.txt"
    path.write_text(f"page /\n{line}\n", encoding="utf-8")
    with pytest.raises(published.ManifestError, match=r"published\.txt:2: "):
        published.read_manifest(path)


# --------------------------------------------------------------------------- hooks/moved.py


def test_the_moved_projects_cached_build_follows_what_it_reads(tmp_path, monkeypatch):
    """The moved project's build is reused only while every file it reads is unchanged: a
    change to any of them, and to nothing else, gives another fingerprint (another build)."""
    for name in moved_project.INPUTS:
        source = moved_project.ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tmp_path / name)
    monkeypatch.setattr(moved_project, "ROOT", tmp_path)
    first = moved_project.fingerprint()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# not read by the moved project\n", encoding="utf-8")
    assert moved_project.fingerprint() == first
    for name in (
        "hooks/moved.js",
        "src/harnessbook/__init__.py",
        "uv.lock",
        "pyproject.toml",
        "tests/moved_project.py",
    ):
        path = tmp_path / name
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert moved_project.fingerprint() != first, name
        path.write_bytes(original)
    assert moved_project.fingerprint() == first


def test_moved_project_resolves_every_old_address(moved_site):
    addresses = [published.Address(*line.split()) for line in moved_project.manifest_lines()]
    addresses += published.collect(moved_site)
    moves = moved.parse_moves(moved_project.MOVED_YML)
    published.parse_page.cache_clear()
    assert published.check(moved_site, addresses, moves) == []
    # Without moved.yml's page entries the old pages fail: a redirect page is not a page.
    failing = {str(p.address) for p in published.check(moved_site, addresses, moved.Moves())}
    old_pages = {
        line for line in moved_project.manifest_lines() if re.search(r" /(en/)?old(er)?/place/", line)
    }
    assert len(old_pages) == 10 and failing == old_pages
    # An alias that leads elsewhere than moved.yml says is caught too.
    wrong = moved.parse_moves(
        moved_project.MOVED_YML.replace("renamed-old: renamed-new", "renamed-old: kept")
    )
    why = {
        p.why
        for p in published.check(moved_site, addresses, wrong)
        if p.address.url == "/en/new/place/#renamed-old"
    }
    assert why == {"the alias at #renamed-old goes to /en/new/place/#renamed-new, not /en/new/place/#kept"}
    # A redirect page that lands elsewhere than moved.yml says is caught.
    elsewhere = moved.parse_moves(
        moved_project.MOVED_YML.replace("older/place/: old/place/", "older/place/: other/")
    )
    why = {
        p.why for p in published.check(moved_site, addresses, elsewhere) if p.address.url == "/older/place/"
    }
    assert why == {"the redirect page at /older/place/ goes to /new/place/, not /other/"}


def test_an_alias_whose_target_is_gone_is_caught(moved_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(moved_site, site)
    page = site / "en" / "new" / "place" / "index.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace('id="renamed-new"', 'id="renamed-newer"'), encoding="utf-8"
    )
    addresses = [published.Address(*line.split()) for line in moved_project.manifest_lines()]
    published.parse_page.cache_clear()
    try:
        problems = published.check(site, addresses, moved.parse_moves(moved_project.MOVED_YML))
    finally:
        published.parse_page.cache_clear()
    gone = "moved.yml moves it to /en/new/place/#renamed-new, which does not exist"
    assert {(p.address.url, p.why) for p in problems} == {  # the old page's address too: it moved there
        ("/en/new/place/#renamed-old", gone),
        ("/en/old/place/#renamed-old", gone),
    }


def test_redirect_pages_have_no_inline_script(moved_site):
    for prefix, language, text in (("", "zh", "本页已移至"), ("en/", "en", "This page has moved to")):
        for old in ("old/place/", "older/place/"):
            page = (moved_site / prefix / old / "index.html").read_text(encoding="utf-8")
            assert f'<html lang="{language}" data-moved-to="../../new/place/">' in page
            assert text in page
            assert re.findall(r"<script\b[^>]*>", page) == [
                f'<script src="{"../" * (old.count("/") + (1 if prefix else 0))}assets/javascripts/moved.js">'
            ], "a redirect page loads moved.js and has no inline script (the site's CSP)"
            assert (
                '<noscript><meta http-equiv="refresh" content="0; url=../../new/place/"></noscript>' in page
            )
            assert f'<link rel="canonical" href="https://moved.example/{prefix}new/place/">' in page
    assert (moved_site / "assets" / "javascripts" / "moved.js").read_bytes() == (
        ROOT / "hooks" / "moved.js"
    ).read_bytes()


def test_aliases_sit_where_the_anchor_now_is(moved_site):
    for prefix in ("", "en/"):
        place = (moved_site / prefix / "new" / "place" / "index.html").read_text(encoding="utf-8")
        assert re.search(
            r'<span id="renamed-old" class="hb-moved" data-moved-to="#renamed-new"></span><h2 id="renamed-new"',
            place,
        )
        assert re.search(
            r'<span id="very-old" class="hb-moved" data-moved-to="#kept"></span><h2 id="kept"', place
        )
        assert (
            '<span id="gone-elsewhere" class="hb-moved" data-moved-to="../../other/#landing"></span>' in place
        )
        assert len(re.findall(r"assets/javascripts/moved\.js", place)) == 1
        api = (moved_site / prefix / "api" / "index.html").read_text(encoding="utf-8")
        assert re.search(
            r'<span id="harnessbook\.old_cli\.main" class="hb-moved" data-moved-to="#harnessbook\.cli\.main"></span>'
            r'<h2 id="harnessbook\.cli\.main" class="doc doc-heading"',
            api,
        )
        other = (moved_site / prefix / "other" / "index.html").read_text(encoding="utf-8")
        assert "moved.js" not in other, "pages without aliases do not load the script"


def test_host_redirect_files(moved_site):
    netlify = (moved_site / "_redirects").read_text(encoding="utf-8")
    rules = [line for line in netlify.splitlines() if line and not line.startswith("#")]
    assert rules == [
        "/old/place/ /new/place/ 301",
        "/older/place/ /new/place/ 301",
        "/en/old/place/ /en/new/place/ 301",
        "/en/older/place/ /en/new/place/ 301",
    ]
    nginx = (moved_site / "_deploy" / "nginx-redirects.conf").read_text(encoding="utf-8")
    assert "location = /en/older/place/ { return 301 /en/new/place/$is_args$args; }" in nginx


def test_host_redirects_under_a_sub_path():
    """nginx serves the site under its address's path, so its rules carry it; Netlify and
    Cloudflare Pages serve the uploaded folder at their own root, so ``_redirects`` matches
    paths without it (as ``_headers`` does) and sends the reader to the whole new address."""
    moves = moved.Moves(pages={"old/place/": "new/place/"})
    netlify, nginx = moved.host_redirects(moves, ["", "en/"], "https://books.example.org/harness/")
    rules = [line for line in netlify.splitlines() if line and not line.startswith("#")]
    assert rules == [
        "/old/place/ https://books.example.org/harness/new/place/ 301",
        "/en/old/place/ https://books.example.org/harness/en/new/place/ 301",
    ]
    assert "location = /harness/en/old/place/ { return 301 /harness/en/new/place/$is_args$args; }" in nginx
    assert (
        "location = /harness/old/place/index.html { return 301 /harness/new/place/$is_args$args; }" in nginx
    )


def test_the_book_writes_its_host_files(built_site):
    """Written even when nothing moved, so an nginx include always finds its file."""
    assert (built_site.path / "_redirects").is_file()
    conf = (built_site.path / "_deploy" / "nginx-redirects.conf").read_text(encoding="utf-8")
    assert conf.startswith("# Generated from moved.yml")


def test_nginx_answers_301_for_a_moved_page(moved_site, tmp_path):
    """Served as a host serves it: deploy/nginx.conf with the build's two includes. The 301 of a
    moved page carries the production headers too (deploy/headers.py writes them into each
    redirect location: one without an ``add_header`` of its own would send none)."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is required in CI (.ci/run installs it)")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    site = tmp_path / "site"
    shutil.copytree(moved_site, site)
    editions = [prefix for prefix in moved_project.EDITIONS.values() if prefix]
    assert headers.write_all(site, "/", editions, compress=False) == []
    policy = headers.written_policy(site)
    server = serving.Nginx(site, nginx)
    try:

        def get(path: str) -> tuple[int, str | None, dict[str, str]]:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            connection.close()
            return response.status, response.getheader("Location"), dict(response.getheaders())

        sent = {
            "Content-Security-Policy": policy,
            **headers.SECURITY_HEADERS,
            "Cache-Control": headers.REVALIDATE,
        }
        for path, status, location in [
            ("/old/place/", 301, "/new/place/"),
            ("/en/older/place/index.html?x=1", 301, "/en/new/place/?x=1"),
            ("/en/new/place/", 200, None),
        ]:
            got_status, got_location, got_headers = get(path)
            assert (got_status, got_location) == (status, location), path
            missing = {name: value for name, value in sent.items() if got_headers.get(name) != value}
            assert not missing, f"{path} ({got_status}) lacks or changes {sorted(missing)}: {got_headers}"
    finally:
        server.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n", "expected a mapping"),
        ("pages: {old: new/}\n", "'old' is not a page path"),
        ("pages: {/old/: new/}\n", "'/old/' is not a page path"),
        ("pages: {a/: b/, b/: a/}\n", "form a cycle"),
        ("pages: {a/: a/}\n", "moves to itself"),
        ("page: {a/: b/}\n", "unknown key(s) ['page']"),
        ("anchors: {a/: {old id: new}}\n", "'old id' is not an anchor id"),
        ("anchors: {a/: {old: other/page#x}}\n", "'other/page' is not a page path"),
        ("anchors: {a/: {old: 3}}\n", "the target must be a new id"),
        ("anchors: {a/: [old]}\n", "expected {old id: new id"),
        ("pages: [\n", "not valid YAML"),
        ("anchors: {a/: {x: y, y: x}}\n", "the moves a/#x -> a/#y -> a/#x form a cycle"),
        # a/ became b/: an anchor of a/ and one of b/ are then the same old anchor
        (
            "pages: {a/: b/}\nanchors: {a/: {x: y}, b/: {x: z}}\n",
            "listed twice for page 'b/' with different targets",
        ),
    ],
)
def test_a_mistake_in_moved_yml_is_named(text, message):
    with pytest.raises(moved.MovedError) as raised:
        moved.parse_moves(text)
    assert message in str(raised.value)


@pytest.mark.parametrize("text", ["anchors: {a/: {x: y, y: z}}\n", "anchors: {a/: {y: z, x: y}}\n"])
def test_an_anchor_moved_twice_leads_to_its_last_place_in_either_order(text):
    assert moved.parse_moves(text).anchors == {
        "a/": {"x": moved.Target("a/", "z"), "y": moved.Target("a/", "z")}
    }


def test_an_id_shown_in_code_is_not_an_element_id():
    assert not moved._has_id('<p><code>&lt;span id="x"&gt;</code></p>', "x")
    assert moved._has_id('<h2 class="a" id="x">X</h2>', "x")
    assert not moved._has_id('<a data-id="x" href="#">X</a>', "x")  # another attribute ending in id
    assert moved._has_id("<h2 id='x'>X</h2>", "x")
    assert not moved._has_id("""<h2 id="x'>X</h2>""", "x")  # the id is x'>X</h2>..., not x
    assert not moved._has_id('<h2 id="xy">X</h2>', "x")


def test_an_anchor_that_moves_to_a_moved_page_lands_on_its_new_address():
    moves = moved.parse_moves("pages: {a/: b/}\nanchors: {c/: {x: a/#y}}\n")
    assert moves.anchors == {"c/": {"x": moved.Target("b/", "y")}}


@pytest.mark.parametrize(
    ("moved_yml", "message"),
    [
        (
            "pages: {other/: new/place/}\n",
            "'other/' moves to 'new/place/', but the site still has a page at /other/",
        ),
        ("pages: {gone/: nowhere/}\n", "'gone/' moves to 'nowhere/', which is not a page of the site"),
        ("anchors: {other/: {x: missing}}\n", "moves to #missing, but /other/ has no element with that id"),
        ("anchors: {other/: {landing: other-id}}\n", "still has an element with id 'landing'"),
        ("anchors: {other/: {x: new/place/#missing}}\n", "but /new/place/ has no element with id 'missing'"),
    ],
)
def test_the_build_stops_on_a_moved_yml_that_contradicts_the_site(tmp_path, moved_yml, message):
    project = moved_project.write_project(tmp_path, moved_yml, light=True)
    completed = moved_project.build(project)
    assert completed.returncode != 0
    assert message in completed.stdout + completed.stderr


def test_a_redirect_page_shows_the_new_address_with_the_sites_path():
    assert ">/harness/en/new/</a>" in moved.redirect_page(
        "en", "en/old/", "en/new/", "https://h.example/harness/"
    )
    assert ">/en/new/</a>" in moved.redirect_page("en", "en/old/", "en/new/", "https://h.example/")
    assert ">/en/new/</a>" in moved.redirect_page("en", "en/old/", "en/new/", None)


def test_a_heading_outside_the_article_is_no_address(tmp_path):
    """Only the article's headings are addresses a reader links to: not the navigation's, not
    a heading Material or a hook puts elsewhere on the page."""
    page = tmp_path / "index.html"
    page.write_text(
        '<html><body><nav><h2 id="outside">Nav</h2></nav><div class="md-content__inner">'
        '<h2 id="inside">In</h2></div></body></html>',
        encoding="utf-8",
    )
    published.parse_page.cache_clear()
    try:
        assert published.parse_page(page).headings == ("inside",)
    finally:
        published.parse_page.cache_clear()
