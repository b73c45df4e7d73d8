"""MkDocs hook: addresses that moved keep working (issue 15), from ``moved.yml`` at the repo root.

``moved.yml`` lists what moved; paths are relative to an edition's root and the same in every
edition (zh at ``/``, en at ``/en/``)::

    pages:            # old page path -> new page path
      some/old/page/: some/new/page/
    anchors:          # page path -> {old id: new id on the same page, or "other/page/#id"}
      reference/api/:
        harnessbook.context_packet.expiry: harnessbook.context_packet.rules.expiry

For each edition this hook:

* writes a redirect page at every old page path: a ``<noscript>`` meta refresh and a link for
  readers without JavaScript, and ``assets/javascripts/moved.js`` (external, so a strict
  Content-Security-Policy with ``script-src 'self'`` allows it) that carries the ``#fragment``
  over, which a meta refresh drops;
* puts an alias at every old anchor: an empty ``<span id="old" data-moved-to="...">`` just before
  the element that now carries the id (same page), or at the top of the page (another page).
  Without JavaScript the browser scrolls to the alias, which sits where the content now is;
  ``moved.js`` then replaces the address with the new one (``#new`` or ``other/page/#id``);
* anchors listed under an old page path apply to the page it moved to.

Once every edition is built it writes the same page redirects for static hosts: ``_redirects``
(Netlify, Cloudflare Pages) in the site root and nginx ``location = ... { return 301 ...; }``
rules in ``_deploy/nginx-redirects.conf`` (for an ``include`` inside the site's ``server``
block). A fragment never reaches a server, so anchors have no host rules: the aliases handle
them.

Every mistake in ``moved.yml`` stops the build with a message naming the entry: a malformed
path or id, an old page that still exists, a target page or id that does not, an old id that is
still on its page, a cycle of page moves.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

MOVED_FILE = "moved.yml"
SCRIPT_PATH = "assets/javascripts/moved.js"
SCRIPT_SOURCE = Path(__file__).with_name("moved.js")
NGINX_FILE = "_deploy/nginx-redirects.conf"
NETLIFY_FILE = "_redirects"

PAGE_PATH = re.compile(r"^(?:[A-Za-z0-9._~-]+/)*$")  # "", "a/", "a/b/": no leading slash, ends with "/"
ANCHOR_ID = re.compile(r"^[^\s#\"'<>&/]+$")

REDIRECT_TEXT = {
    "zh": ("页面已移动", "本页已移至", "正在跳转……"),
    "en": ("Page moved", "This page has moved to", "Redirecting…"),
}


class MovedError(ValueError):
    """``moved.yml`` is malformed or contradicts the site; the message names the entry."""


@dataclass(frozen=True)
class Target:
    """Where an anchor now is: ``id`` on ``page`` (an edition-relative page path)."""

    page: str
    id: str


@dataclass
class Moves:
    """``moved.yml``, checked and resolved: page chains followed, anchors keyed by current page."""

    pages: dict[str, str] = field(default_factory=dict)
    anchors: dict[str, dict[str, Target]] = field(default_factory=dict)

    def final_page(self, path: str) -> str:
        """The page path an address now lives at (the path itself when it did not move)."""
        return self.pages.get(path, path)


def _page_path(value: object, where: str) -> str:
    if (
        not isinstance(value, str)
        or not PAGE_PATH.match(value)
        or "/../" in f"/{value}"
        or "/./" in f"/{value}"
    ):
        raise MovedError(
            f"{where}: {value!r} is not a page path. Write it relative to the edition's root, "
            'ending with "/", like "reference/api/" ("" is the home page).'
        )
    return value


def _anchor_id(value: object, where: str) -> str:
    if not isinstance(value, str) or not ANCHOR_ID.match(value):
        raise MovedError(f"{where}: {value!r} is not an anchor id (no spaces, #, /, quotes or <>&).")
    return value


def parse_moves(text: str, source: str = MOVED_FILE) -> Moves:
    """Read and check ``moved.yml``'s text. Raises :class:`MovedError` naming the bad entry."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise MovedError(f"{source}: not valid YAML: {error}") from None
    if data is None:
        return Moves()
    if not isinstance(data, dict):
        raise MovedError(
            f"{source}: expected a mapping with the keys pages and anchors, got {type(data).__name__}"
        )
    unknown = sorted(set(data) - {"pages", "anchors"})
    if unknown:
        raise MovedError(f"{source}: unknown key(s) {unknown}; only pages and anchors are read")

    raw_pages = data.get("pages") or {}
    if not isinstance(raw_pages, dict):
        raise MovedError(f"{source}: pages must map an old page path to a new one")
    pages: dict[str, str] = {}
    for old, new in raw_pages.items():
        where = f"{source}: pages: {old!r}"
        old = _page_path(old, f"{source}: pages")
        new = _page_path(new, where)
        if old == new:
            raise MovedError(f"{where}: moves to itself")
        pages[old] = new
    resolved: dict[str, str] = {}
    for old, first in pages.items():
        seen, path = [old], first
        while path in pages:
            if path in seen:
                raise MovedError(f"{source}: pages: the moves {' -> '.join([*seen, path])} form a cycle")
            seen.append(path)
            path = pages[path]
        resolved[old] = path

    raw_anchors = data.get("anchors") or {}
    if not isinstance(raw_anchors, dict):
        raise MovedError(f"{source}: anchors must map a page path to {{old id: new id or page/#id}}")
    anchors: dict[str, dict[str, Target]] = {}
    for page, ids in raw_anchors.items():
        page = _page_path(page, f"{source}: anchors")
        where = f"{source}: anchors: {page!r}"
        if not isinstance(ids, dict) or not ids:
            raise MovedError(f"{where}: expected {{old id: new id, or other/page/#id}}")
        current = resolved.get(page, page)
        for old, new in ids.items():
            old = _anchor_id(old, where)
            entry = f"{where}: {old!r}"
            if not isinstance(new, str):
                raise MovedError(f"{entry}: the target must be a new id or other/page/#id, got {new!r}")
            if "#" in new:
                target_page, _, target_id = new.partition("#")
                target = Target(_page_path(target_page, entry), _anchor_id(target_id, entry))
                target = Target(resolved.get(target.page, target.page), target.id)
            else:
                target = Target(current, _anchor_id(new, entry))
            if target == Target(current, old):
                raise MovedError(f"{entry}: moves to itself")
            known = anchors.setdefault(current, {})
            if old in known and known[old] != target:
                raise MovedError(f"{entry}: listed twice for page {current!r} with different targets")
            known[old] = target
    return Moves(resolved, _follow_anchor_chains(anchors, source))


def _follow_anchor_chains(anchors: dict[str, dict[str, Target]], source: str) -> dict[str, dict[str, Target]]:
    """Each old anchor's last target: where ``a`` moved to ``b`` and ``b`` later to ``c``, ``a``
    leads to ``c`` (``b`` is no longer on its page), whatever order the file lists them in."""
    followed: dict[str, dict[str, Target]] = {}
    for page, ids in anchors.items():
        for old, target in ids.items():
            seen = [Target(page, old)]
            while target.id in anchors.get(target.page, {}):
                if target in seen:
                    chain = " -> ".join(f"{t.page}#{t.id}" for t in [*seen, target])
                    raise MovedError(f"{source}: anchors: the moves {chain} form a cycle")
                seen.append(target)
                target = anchors[target.page][target.id]
            followed.setdefault(page, {})[old] = target
    return followed


def load_moves(config_dir: str | os.PathLike[str]) -> Moves:
    """``moved.yml`` beside ``mkdocs.yml``; no file means nothing moved."""
    path = Path(config_dir) / MOVED_FILE
    if not path.exists():
        return Moves()
    return parse_moves(path.read_text(encoding="utf-8"), str(path.name))


# --------------------------------------------------------------------------- editions


def _i18n(config: MkDocsConfig) -> Any:
    # mkdocs-static-i18n ships no types, and PluginCollection.get gives Any for a plugin.
    return config.plugins.get("i18n")


def edition(config: MkDocsConfig) -> tuple[str, str]:
    """(language, URL prefix) of the edition being built: ("zh", "") or ("en", "en/")."""
    i18n = _i18n(config)
    if i18n is None:
        return (config.theme.get("language") or "en", "")
    language = i18n.current_language or i18n.default_language
    return (language, "" if language == i18n.default_language else f"{language}/")


def edition_prefixes(config: MkDocsConfig) -> list[str]:
    """The URL prefix of every edition the site has: ["", "en/"]."""
    i18n = _i18n(config)
    if i18n is None:
        return [""]
    return ["" if lang == i18n.default_language else f"{lang}/" for lang in i18n.build_languages]


def _url_base(site_url: str) -> str:
    """The path a site is served under, from its address: "/" for none."""
    path = urlsplit(site_url or "/").path or "/"
    return path if path.endswith("/") else path + "/"


# --------------------------------------------------------------------------- build events

_moves: Moves | None = None
_pages_with_aliases: set[str] = set()


@event_priority(50)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _moves
    try:
        _moves = load_moves(Path(config.config_file_path).parent)
    except MovedError as error:
        raise PluginError(str(error)) from None
    _pages_with_aliases.clear()
    return config


@event_priority(-200)  # after the i18n plugin (-100) has chosen this edition's files and URLs
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """An old page path must be free (the redirect goes there); a new one must be a page."""
    assert _moves is not None
    _, prefix = edition(config)
    urls = {f.url for f in files.documentation_pages()}
    for old, new in _moves.pages.items():
        if prefix + old in urls:
            raise PluginError(
                f"{MOVED_FILE}: pages: {old!r} moves to {new!r}, but the site still has a page at "
                f"/{prefix}{old}. Remove that page, or remove the entry."
            )
        if prefix + new not in urls:
            raise PluginError(
                f"{MOVED_FILE}: pages: {old!r} moves to {new!r}, which is not a page of the site."
            )
    for page in _moves.anchors:
        if prefix + page not in urls:
            raise PluginError(f"{MOVED_FILE}: anchors: {page!r} is not a page of the site.")
    return files


def _id_attr(value: str) -> str:
    return f'id="{html.escape(value, quote=True)}"'


def _alias(old: str, href: str) -> str:
    return f'<span {_id_attr(old)} class="hb-moved" data-moved-to="{html.escape(href, quote=True)}"></span>'


def _relative(target: str, page_url: str) -> str:
    """A link from the page at ``page_url`` to the page path ``target`` (both site-relative)."""
    link = get_relative_url(target, page_url)
    return link if link.endswith("/") or not target.endswith("/") else link + "/"


def _id_tag(text: str, value: str) -> re.Match[str] | None:
    """The start tag in ``text`` whose ``id`` is ``value`` (not text that merely reads like one,
    as ``<code>&lt;span id="x"&gt;</code>`` does: code spans leave quotes unescaped)."""
    escaped = html.escape(value, quote=True)
    if f'id="{escaped}"' not in text and f"id='{escaped}'" not in text:
        return None  # most ids asked about are absent: the tag search below is the slow part
    return re.search(rf"""<[A-Za-z][A-Za-z0-9]*\s[^>]*?(?<=\s)id=(["']){re.escape(escaped)}\1""", text)


def _has_id(text: str, value: str) -> bool:
    return _id_tag(text, value) is not None


def on_page_content(content: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    assert _moves is not None
    _, prefix = edition(config)
    path = page.url.removeprefix(prefix)
    aliases = _moves.anchors.get(path)
    if not aliases:
        return content
    top = []
    for old, target in aliases.items():
        entry = f"{MOVED_FILE}: anchors: {path!r}: {old!r}"
        if _has_id(content, old):
            raise PluginError(
                f"{entry}: the page /{prefix}{path} still has an element with id {old!r}. "
                "An id that is still on its page has not moved: remove the entry."
            )
        if target.page == path:
            tag = _id_tag(content, target.id)
            if tag is None:
                raise PluginError(
                    f"{entry}: moves to #{target.id}, but /{prefix}{path} has no element with that id."
                )
            content = content[: tag.start()] + _alias(old, f"#{target.id}") + content[tag.start() :]
        else:
            href = _relative(prefix + target.page, page.url) + f"#{target.id}"
            top.append(_alias(old, href))
    _pages_with_aliases.add(page.url)
    return "".join(top) + content


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    if page.url not in _pages_with_aliases:
        return output
    script = f'<script src="{html.escape(get_relative_url(SCRIPT_PATH, page.url))}" defer></script>'
    head_end = output.find("</head>")
    if head_end < 0:
        raise PluginError(f"moved: no </head> on /{page.url} to load {SCRIPT_PATH} from")
    return output[:head_end] + script + output[head_end:]


def redirect_page(language: str, page_url: str, target_url: str, site_url: str | None) -> str:
    """The HTML written at an old page path: no inline script, so a strict CSP allows it."""
    title, moved_to, redirecting = REDIRECT_TEXT.get(language, REDIRECT_TEXT["en"])
    href = html.escape(_relative(target_url, page_url), quote=True)
    script = html.escape(get_relative_url(SCRIPT_PATH, page_url), quote=True)
    # The new address as a reader would type it: with the site's path (/harness/en/...).
    shown = (urlsplit(site_url).path.rstrip("/") if site_url else "") + "/" + target_url
    canonical = (
        f'<link rel="canonical" href="{html.escape(site_url.rstrip("/") + "/" + target_url, quote=True)}">\n'
        if site_url
        else ""
    )
    return (
        "<!doctype html>\n"
        f'<html lang="{html.escape(language)}" data-moved-to="{href}">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f"<title>{title}</title>\n"
        '<meta name="robots" content="noindex">\n'
        f"{canonical}"
        f'<script src="{script}"></script>\n'
        f'<noscript><meta http-equiv="refresh" content="0; url={href}"></noscript>\n'
        "</head>\n"
        f'<body><p>{moved_to} <a href="{href}">{html.escape(shown)}</a>. {redirecting}</p></body>\n'
        "</html>\n"
    )


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)


def host_redirects(moves: Moves, prefixes: list[str], site_url: str) -> tuple[str, str]:
    """(``_redirects``, nginx rules): every edition's page moves as permanent redirects.

    nginx serves the site under the path of its address ``site_url`` (``/harness/``), and its
    rules carry that path.
    Netlify and Cloudflare Pages serve the uploaded folder at their own root, so the paths of
    ``_redirects`` do not carry it (``_headers`` neither, deploy/headers.py): with it no rule
    matched. Under a sub-path their targets are whole addresses, since a target relative to the
    host's root would leave the site's path behind.
    """
    base = _url_base(site_url)
    target_base = "/" if base == "/" else site_url.rstrip("/") + "/"
    header = f"# Generated from {MOVED_FILE} by hooks/moved.py: the site's moved pages, every edition.\n"
    netlify = [
        header,
        "# Netlify serves the redirect page that sits at the old path (add ! to force a 301);\n",
        "# Cloudflare Pages always applies these rules.\n",
    ]
    nginx = [header, "# Include inside the site's server block.\n"]
    for prefix in prefixes:
        for old, new in sorted(moves.pages.items()):
            netlify.append(f"/{prefix}{old} {target_base}{prefix}{new} 301\n")
            source, target = f"{base}{prefix}{old}", f"{base}{prefix}{new}"
            nginx.append(f"location = {source} {{ return 301 {target}$is_args$args; }}\n")
            nginx.append(f"location = {source}index.html {{ return 301 {target}$is_args$args; }}\n")
    return "".join(netlify), "".join(nginx)


@event_priority(50)  # before the i18n plugin (-100) builds the next edition: this one is current
def on_post_build(config: MkDocsConfig) -> None:
    assert _moves is not None
    language, prefix = edition(config)
    site = config.site_dir
    # Aliases to another page: the target page (built now) must carry the id.
    for page, aliases in _moves.anchors.items():
        for old, target in aliases.items():
            if target.page == page:
                continue
            built = os.path.join(site, prefix + target.page, "index.html")
            text = Path(built).read_text(encoding="utf-8") if os.path.exists(built) else None
            if text is None or not _has_id(text, target.id):
                raise PluginError(
                    f"{MOVED_FILE}: anchors: {page!r}: {old!r} moves to {target.page}#{target.id}, "
                    f"but /{prefix}{target.page} has no element with id {target.id!r}."
                )
    for old, new in _moves.pages.items():
        path = os.path.join(site, prefix + old, "index.html")
        if os.path.exists(path):
            raise PluginError(
                f"{MOVED_FILE}: pages: {old!r}: a file is already built at /{prefix}{old}index.html"
            )
        _write(path, redirect_page(language, prefix + old, prefix + new, config.site_url))
    _write(os.path.join(site, SCRIPT_PATH), SCRIPT_SOURCE.read_text(encoding="utf-8"))
    # The same for every edition: rewritten by each edition's build, identically.
    netlify, nginx = host_redirects(_moves, edition_prefixes(config), config.site_url or "")
    _write(os.path.join(site, NETLIFY_FILE), netlify)
    _write(os.path.join(site, NGINX_FILE), nginx)
