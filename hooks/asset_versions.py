"""MkDocs hook: every page links the book's own scripts and style sheets with their version in
the address (``a11y.js?v=<hash>``).

Material's bundles carry a hash of their content in their name; the book's own files do not
(``site.css``, ``a11y.js``, ``palette-load.js``, ``search-on-demand.js``, ``playground.js``, and
``moved.js`` on a page whose anchors moved). A host that lets a browser keep a file for a while without
asking again (GitHub Pages sends ``Cache-Control: max-age=600``) would, for up to ten minutes
after a deploy, serve a new page with the old script or style sheet the browser kept. With the
version in the address, a changed file has a new address, which no browser has kept.

The version is the start of the SHA-256 of the file as it is published (this runs after
hooks/scripts.py and hooks/stylesheets.py wrote their files, before hooks/publish.py compresses
the pages). ``playground.js``'s version also covers the files it loads, ``worker.mjs`` and
``harnessbook.zip``, and it passes its version on to them, so that a new page never runs an old
worker or an old package either. Pyodide's files need none: their folder's name holds the
release, and the worker loads the one archive made here by its own hash.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deploy.headers import FINGERPRINTED  # noqa: E402  (the repository root is on sys.path now)

LOADED_BY = {
    "assets/playground/playground.js": (
        "assets/playground/worker.mjs",
        "assets/playground/harnessbook.zip",
    ),
}
"""Files a script loads with its own version (site-relative paths): its version covers them too."""

VERSION_DIGITS = 12

_LINKED = re.compile(
    r"""(<(?:script|link)\b[^>]*?\s(?:src|href)=)(["']?)([^"'\s>?#]+\.(?:js|mjs|css))"""
    rf"""(?:\?v=[0-9a-f]{{{VERSION_DIGITS}}})?\2(?=[\s/>])"""
)
"""A ``<script src>`` or ``<link href>`` naming a script or style sheet with no query or fragment
but a version this hook wrote (a page that ``build --dirty`` did not write again): its version is
written anew."""


def file_version(site: Path, relative: str) -> str:
    """The first :data:`VERSION_DIGITS` hex digits of the SHA-256 of the published file, and of
    the files it loads (:data:`LOADED_BY`)."""
    digest = hashlib.sha256()
    for path in (relative, *LOADED_BY.get(relative, ())):
        digest.update(path.encode() + b"\0" + hashlib.sha256((site / path).read_bytes()).digest())
    return digest.hexdigest()[:VERSION_DIGITS]


def versioned(html: str, page: str, site_path: str, version: Callable[[str], str | None]) -> str:
    """``html`` (the page at site-relative ``page``) with ``?v=`` added to every address of a
    script or style sheet for which ``version`` (given its site-relative path) has one.

    ``site_path`` is the path of the site's address (``/`` or ``/harness/``): addresses that start
    with it are the site's; other absolute addresses and those with a scheme are left alone."""

    def add(match: re.Match[str]) -> str:
        address = match.group(3)
        if urlsplit(address).scheme or address.startswith("//"):
            return match.group(0)
        if address.startswith("/"):
            if not address.startswith(site_path):
                return match.group(0)
            relative = address[len(site_path) :]
        else:
            relative = posixpath.normpath(posixpath.join(posixpath.dirname(page), address))
        found = version(relative)
        if found is None:
            return match.group(0)
        quote = match.group(2)
        return f"{match.group(1)}{quote}{address}?v={found}{quote}"

    return _LINKED.sub(add, html)


@event_priority(-700)  # after hooks/scripts.py and stylesheets.py (-500), before publish (-1000)
def on_post_build(config: MkDocsConfig) -> None:
    i18n = config.plugins.get("i18n")
    if i18n is not None and getattr(i18n, "building", False):
        return  # an edition's inner build: the addresses are versioned once every edition is built
    site = Path(config.site_dir)

    @cache
    def version(relative: str) -> str | None:
        if relative.startswith("../") or FINGERPRINTED.match(relative) or not (site / relative).is_file():
            return None
        return file_version(site, relative)

    site_path = urlsplit(config.site_url or "/").path or "/"
    for page in sorted(site.rglob("*.html")):
        relative = page.relative_to(site).as_posix()
        if relative.startswith(("assets/", "_deploy/")):
            continue
        html = page.read_text(encoding="utf-8")
        changed = versioned(html, relative, site_path, version)
        if changed != html:
            page.write_text(changed, encoding="utf-8")
