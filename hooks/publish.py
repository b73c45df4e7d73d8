"""MkDocs hook: what publishing the book needs from the build (issue 12).

* **The site's address** is ``SITE_URL`` (``site_url: !ENV [SITE_URL, ...]`` in mkdocs.yml);
  the canonical links, ``og:url``, the sitemap and its hreflang alternates follow it, and
  this hook writes ``robots.txt`` naming ``<SITE_URL>sitemap.xml`` (crawlers read it only at
  the host's root: under a sub-path its line belongs in the host's own ``/robots.txt``).
* **The repository** is ``REPO_URL`` (for example ``https://github.com/owner/harnessbook``):
  when it is given, ``repo_url``, ``repo_name`` and ``edit_uri`` are set, so every page links
  its source and gets an edit button; without it the site names no repository.
  ``overrides/partials/source.html`` keeps Material from fetching the repository's facts from
  the host's API, which the Content-Security-Policy (``connect-src 'self'``) would refuse.
* **Production headers**: once every edition is built, :mod:`deploy.headers` writes
  ``_headers``, ``_deploy/nginx-headers.conf`` and the ``.gz`` copies, with a
  Content-Security-Policy that allows each inline script by its hash, and the build fails if
  any page would break under the policy as written. The ``.gz`` copies are kept in
  ``.cache/gzip/`` by their content's hash, and a later build (or one at the same time) reuses
  them: most of the site's bytes, Pyodide's among them, are the same in every build.

This hook runs last (priority -1000): after the i18n plugin has built every edition and the
other hooks have finished the pages (hooks/search_per_edition.py puts the 404 pages in place),
and after any hook that writes redirect pages, so that their inline scripts are hashed too.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deploy import headers  # noqa: E402

GZIP_CACHE = ".cache/gzip"
"""Where the ``.gz`` copies are kept between builds, beside mkdocs.yml (git ignores ``.cache/``):
most of the site's bytes are the same in every build (:func:`deploy.headers.write_gzip`)."""
EDIT_URI = "edit/main/docs/"
"""Where a page's source is edited on GitHub, relative to ``REPO_URL`` (the main branch)."""

_command: list[str] = []
_told: list[str] = []  # the loopback address was named once (each edition's inner build configures again)
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
log = logging.getLogger("mkdocs.hooks.publish")


def on_startup(command: str, dirty: bool) -> None:
    _command[:] = [command]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    site_url = config.site_url or ""
    parts = urlsplit(site_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PluginError(f"publish: SITE_URL must be an absolute http(s) address, got {site_url!r}")
    if _command and _command[0] in ("build", "gh-deploy") and parts.hostname in LOOPBACK and not _told:
        # Said, not refused: the tests and a local preview build this way on purpose. A build
        # meant for publishing would name this machine in its canonical links and sitemap.
        _told.append(site_url)
        log.info(
            "publish: %s, so canonical links, the sitemap and robots.txt name %s, this machine; "
            "set SITE_URL to the site's address to build it for publishing (README: Publishing)",
            "SITE_URL names this machine" if os.environ.get("SITE_URL") else "SITE_URL is not set",
            site_url,
        )
    repo_url = os.environ.get("REPO_URL", "").strip()
    if repo_url:
        repo = urlsplit(repo_url)
        if repo.scheme != "https" or not repo.netloc or repo.path.strip("/").count("/") != 1:
            raise PluginError(f"publish: REPO_URL must look like https://host/owner/name, got {repo_url!r}")
        config.repo_url = repo_url.rstrip("/").removesuffix(".git") + "/"
        config.repo_name = repo.path.strip("/").removesuffix(".git")
        config.edit_uri = EDIT_URI
    return config


def _editions(config: MkDocsConfig) -> list[str]:
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return []
    return [locale for locale in i18n.build_languages if locale != i18n.default_language]


@event_priority(-1000)
def on_post_build(config: MkDocsConfig) -> None:
    i18n = config.plugins.get("i18n")
    if i18n is not None and i18n.building:
        return  # an edition's inner build: the headers come when every edition is built
    site_url = config.site_url
    assert site_url, "publish: on_config lets no build through without an absolute SITE_URL"
    site = Path(config.site_dir)
    (site / "robots.txt").write_text(
        f"User-agent: *\nAllow: /\n\nSitemap: {site_url}sitemap.xml\n", encoding="utf-8"
    )
    # `mkdocs serve` rebuilds on every save: the .gz copies (seconds of CPU) only matter when
    # the site is deployed, so serve skips them; the policy is still written and checked.
    problems = headers.write_all(
        site,
        site_url,
        _editions(config),
        compress=_command != ["serve"],
        gzip_cache=(Path(config.config_file_path).parent if config.config_file_path else Path.cwd())
        / GZIP_CACHE,
    )
    if problems:
        raise PluginError(
            "publish: pages would break under the Content-Security-Policy as written:\n  "
            + "\n  ".join(problems[:20])
        )
