"""MkDocs hook: one search index per edition, so search stays in the reader's language.

mkdocs-static-i18n builds every edition into one site and merges all their pages into the one
index Material's search loads (``<base>/search/search_index.json``, base = the site root), so a
reader of the English edition gets Chinese results and the other way round; its maintainer
confirms a single index is all the plugin can do (ultrabug/mkdocs-static-i18n#271). This hook
splits it once everything is built:

* ``search/search_index.json`` keeps the default (Chinese) edition: ``lang`` of that edition,
  the configured jieba segmentation, separator and ``pipeline: []``;
* ``<locale>/search/search_index.json`` (``en/...``) gets that edition's pages, their locations
  made relative to the edition's root, ``lang: [<locale>]``;
* each page of a non-default edition gets ``"base": "<site root>/<locale>/"`` in Material's
  ``__config``, so its search loads its own edition's index and resolves results inside it.
  ``base`` serves nothing else in this configuration (no versioning, no instant navigation); the
  language switcher still works, since for Material ``base`` is then the edition's root.

Every edition also renders ``404.html`` into the site root, the last build winning (so the root
404 page came out English); the default edition's page is put back at the root and each other
edition's goes to ``<locale>/404.html``. The 404 page belongs to no page, so its language
switcher kept the links of the last page the edition built (the English 404 page's 中文 led to
a field page): on every 404 page it leads to the editions' home pages.

mkdocstrings writes its inventory of the API (``objects.inv``, what Sphinx and mkdocstrings read
to link to these objects from other projects) into the site root in every edition, the last
build winning: the root inventory led to the English API page only. The default edition's is put
back at the root and each other edition's goes to ``<locale>/objects.inv``, its addresses
relative to that edition's root, as an inventory's addresses are to the inventory's folder.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocstrings import Inventory

CONFIG_SCRIPT = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)
SWITCHER_LINK = re.compile(r'(<a href=")[^"]*(" hreflang="([\w-]+)" [^>]*class="md-select__link"[^>]*>)')
"""A link of Material's language switcher (overrides/partials/alternate.html), and the
language it leads to."""


class _I18nPlugin(Protocol):
    """What this hook reads of mkdocs-static-i18n 1.3's plugin: attributes, not a public API
    (hence the `~=1.3.1` pin in pyproject.toml)."""

    current_language: str | None
    default_language: str
    building: bool
    build_languages: list[str]


def _i18n(config: MkDocsConfig) -> _I18nPlugin | None:
    return cast("_I18nPlugin | None", config.plugins.get("i18n"))


def _edition(config: MkDocsConfig) -> str | None:
    """The locale of the non-default edition being built, or None for the default edition."""
    i18n = _i18n(config)
    if i18n is None or i18n.current_language in (None, i18n.default_language):
        return None
    return i18n.current_language


EDITION_HOME = re.compile(r'<a href="[^"]*" data-edition-home>')
"""The 404 page's link to its edition's home page (overrides/404.html)."""


def _site_base(config: MkDocsConfig) -> str:
    """The path the site is served under, from site_url ("/" here): moved.py's ``_url_base``
    (MkDocs loads each hook as a module of its own; they import nothing of each other)."""
    path = urlsplit(config.site_url or "/").path or "/"
    return path if path.endswith("/") else path + "/"


def _switcher_to_edition_homes(output: str, config: MkDocsConfig) -> str:
    """``output`` with each language switcher link leading to its edition's home page."""
    i18n = _i18n(config)
    default = i18n.default_language if i18n is not None else None
    root = _site_base(config)

    def home(match: re.Match[str]) -> str:
        language = match.group(3)
        return match.group(1) + root + ("" if language == default else f"{language}/") + match.group(2)

    return SWITCHER_LINK.sub(home, output)


def _point_base_at_edition(output: str, locale: str) -> str:
    def rewrite(match: re.Match[str]) -> str:
        settings: dict[str, Any] = json.loads(match.group(2))
        base = settings["base"]
        settings["base"] = base + ("" if base.endswith("/") else "/") + f"{locale}/"
        # Escaped like Jinja's tojson, so the JSON can never close the script element.
        text = json.dumps(settings)
        for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027")):
            text = text.replace(char, escape)
        return match.group(1) + text + match.group(3)

    rewritten, count = CONFIG_SCRIPT.subn(rewrite, output, count=1)
    if count != 1:
        raise RuntimeError("search_per_edition: no Material __config script on the page")
    return rewritten


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    locale = _edition(config)
    return output if locale is None else _point_base_at_edition(output, locale)


_default_404: str | None = None


def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    """The 404 page: every edition renders it to the site root, the last one wins.

    The default edition's page is kept for the root (restored in ``on_post_build``); another
    edition's goes to its own folder, ``<locale>/404.html``, searching its own index.
    """
    global _default_404
    if template_name != "404.html":
        return output_content
    output_content = _switcher_to_edition_homes(output_content, config)
    locale = _edition(config)
    # overrides/404.html's way back: this edition's home page, from the site's root.
    home = _site_base(config) + ("" if locale is None else f"{locale}/")
    output_content = EDITION_HOME.sub(f'<a href="{home}" data-edition-home>', output_content)
    if locale is None:
        _default_404 = output_content
        return output_content
    page = _point_base_at_edition(output_content, locale)
    os.makedirs(os.path.join(config.site_dir, locale), exist_ok=True)
    with open(os.path.join(config.site_dir, locale, "404.html"), "w", encoding="utf-8") as file:
        file.write(page)
    return page


INVENTORY = "objects.inv"
_default_inventory: bytes | None = None


def edition_inventory(
    inventory: Inventory, locale: str | None, locales: list[str], project: str
) -> Inventory:
    """The items of ``inventory`` that lead into one edition (``locale``, or None for the default
    one), with addresses relative to that edition's root, named after that edition (``project``)."""
    prefix = "" if locale is None else f"{locale}/"
    others = tuple(f"{other}/" for other in locales if other != locale)
    return Inventory(
        [
            type(item)(
                item.name, item.domain, item.role, item.uri.removeprefix(prefix), item.priority, item.dispname
            )
            for item in inventory.values()
            if item.uri.startswith(prefix) and not (locale is None and item.uri.startswith(others))
        ],
        project=project,
        version=inventory.version,
    )


@event_priority(-30)  # after mkdocstrings (-20) has written this edition's inventory
def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    global _default_inventory
    path = os.path.join(config.site_dir, INVENTORY)
    i18n = _i18n(config)
    if i18n is None or not os.path.exists(path):
        return env
    locale = _edition(config)
    with open(path, "rb") as file:
        inventory = Inventory.parse_sphinx(file)
    others = [language for language in i18n.build_languages if language != i18n.default_language]
    written = edition_inventory(inventory, locale, others, config.site_name).format_sphinx()
    if locale is None:
        _default_inventory = written
    else:
        os.makedirs(os.path.join(config.site_dir, locale), exist_ok=True)
        with open(os.path.join(config.site_dir, locale, INVENTORY), "wb") as file:
            file.write(written)
    return env


@event_priority(-200)  # after the i18n plugin (-100) has written the merged index
def on_post_build(config: MkDocsConfig) -> None:
    i18n = _i18n(config)
    if i18n is None or i18n.building:
        return  # an edition's inner build: the merged index comes when all are built
    if _default_404 is not None:
        with open(os.path.join(config.site_dir, "404.html"), "w", encoding="utf-8") as file:
            file.write(_default_404)
    if _default_inventory is not None:
        with open(os.path.join(config.site_dir, INVENTORY), "wb") as file:
            file.write(_default_inventory)
    root_index = os.path.join(config.site_dir, "search", "search_index.json")
    if not os.path.exists(root_index):
        return
    with open(root_index, encoding="utf-8") as file:
        merged = json.load(file)

    locales = [locale for locale in i18n.build_languages if locale != i18n.default_language]
    editions: dict[str, list[dict[str, Any]]] = {locale: [] for locale in [i18n.default_language, *locales]}
    for entry in merged["docs"]:
        for locale in locales:
            if entry["location"].startswith(f"{locale}/"):
                editions[locale].append(dict(entry, location=entry["location"][len(locale) + 1 :]))
                break
        else:
            editions[i18n.default_language].append(entry)

    for locale, docs in editions.items():
        folder = config.site_dir if locale == i18n.default_language else os.path.join(config.site_dir, locale)
        index = {"config": dict(merged["config"], lang=[locale]), "docs": docs}
        os.makedirs(os.path.join(folder, "search"), exist_ok=True)
        with open(os.path.join(folder, "search", "search_index.json"), "w", encoding="utf-8") as file:
            json.dump(index, file, ensure_ascii=False, separators=(",", ":"))
