"""MkDocs hook: two of Material's minified scripts, each with a fix of its own, and the pages'
tables in the markup Material's script would otherwise move them into.

* **The search worker finds a Chinese word typed whole.** Material's search worker splits a
  Chinese query into the words of the index (``search.<hash>.min.js``, function ``fe`` in
  Material 9.8): for each start it tries every slice up to, but never including, the query's
  last character, so 指针 was searched as 指 and 出处 as 出 (every page with the character), and
  预算单位 as 预算 alone. :data:`WORKER` corrects the two bounds.
* **A table is laid out once.** When a page has loaded, Material's bundle takes every table
  without a class out of the page and puts it back inside its scroll box
  (``<div class="md-typeset__scrollwrap"><div class="md-typeset__table">``). The tables were
  laid out and painted twice, and a reader's browser counted the second paint as the page's
  largest one: where a table cell is the largest text (the Chinese field pages), the largest
  contentful paint came after the bundle. The pages now carry that markup as built
  (:func:`wrap_tables`), and :data:`BUNDLE` leaves a table alone when Material's scroll box
  already holds it. Measured on the 2-core machine (Chromium, CPU slowed 4x, the Chinese kind
  page, six loads each): largest contentful paint 1,096 ms -> 664 ms (medians), long tasks'
  time over 50 ms 208 -> 158 ms.

Each patched script is written under a name of its own content (the fingerprinted name keeps the
site's year-long caching true: a browser that kept Material's file never runs it with these
pages), and every page points at it. Each fix must match Material's file exactly once, or the
build fails and says so: a Material upgrade that changes these scripts is checked again, by
hand, against the tests named in CONTRIBUTING.md ("Material's minified scripts").
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page


@dataclass(frozen=True)
class Script:
    """One of Material's minified scripts, and the fixes applied to it."""

    folder: str  # site-relative
    prefix: str  # the name before its hash: "search" for search.<hash>.min.js
    fixes: tuple[tuple[str, str], ...]  # (Material's text, the text written instead)


WORKER = Script(
    "assets/javascripts/workers",
    "search",
    (
        # Every slice from each start, up to and including the query's end.
        (
            "for(let o=s+1;o<t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)",
            "for(let o=s+1;o<=t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)",
        ),
        # A word may start at the query's last character.
        ("n[a]&&a<t.length-1&&(i[s++]=a)", "n[a]&&a<t.length&&(i[s++]=a)"),
    ),
)
BUNDLE = Script(
    "assets/javascripts",
    "bundle",
    (
        # mountDataTable: a table already inside Material's scroll box (wrap_tables) stays where
        # it is; any other is wrapped as before.
        (
            "function ti(e){return e.replaceWith(ei),ei.replaceWith(Un(e)),$({ref:e})}",
            'function ti(e){return e.parentElement.classList.contains("md-typeset__table")'
            "||(e.replaceWith(ei),ei.replaceWith(Un(e))),$({ref:e})}",
        ),
    ),
)
SCRIPTS = (WORKER, BUNDLE)

SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")
"""The last line of a minified script that names its source map."""

_patched: dict[Script, tuple[str, str, str]] = {}  # Material's name, the patched name, its text


def patch(text: str, script: Script) -> str:
    """Material's ``script`` with its fixes applied; each must match exactly once."""
    for old, new in script.fixes:
        if text.count(old) != 1:
            raise PluginError(
                f"material_patches: Material's {script.prefix} script no longer holds {old!r} "
                "exactly once; see hooks/material_patches.py"
            )
        text = text.replace(old, new)
    return text


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if len(_patched) == len(SCRIPTS):
        return config  # an edition's inner build (mkdocs-static-i18n): done once
    for script in SCRIPTS:
        found = [
            path
            for folder in config.theme.dirs
            for path in sorted(Path(folder, script.folder).glob(f"{script.prefix}.*.min.js"))
        ]
        if not found:
            raise PluginError(f"material_patches: no {script.folder}/{script.prefix}.*.min.js in the theme")
        original = found[0]
        # The theme's source map is the unpatched script's: the patched one names none.
        text = SOURCE_MAP.sub("", patch(original.read_text(encoding="utf-8"), script))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        _patched[script] = (original.name, f"{script.prefix}.{digest}.min.js", text)
    return config


def _pointed(html: str) -> str:
    for script, (original, patched, _text) in _patched.items():
        html = html.replace(f"{script.folder}/{original}", f"{script.folder}/{patched}")
    return html


_TABLE_TAG = re.compile(r"<(/?)table\b([^>]*)>", re.IGNORECASE)
_CLASS = re.compile(r"""\sclass(?![\w-])""", re.IGNORECASE)
"""A class attribute, with a value or without (``[class]`` matches both)."""
SCROLL_BOX = ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table">', "</div></div>")
"""Material's markup around a table (its ``renderTable``), opened and closed."""


def wrap_tables(html: str) -> str:
    """Every table without a class (Material's ``table:not([class])``) in Material's scroll box,
    as its bundle would put it once the page has loaded; a table inside another table, or one a
    scroll box already holds, is left as it is."""
    out: list[str] = []
    at = 0
    wrapped_at: list[bool] = []  # for each table open at this point, outermost first
    for tag in _TABLE_TAG.finditer(html):
        closing, attributes = tag.group(1), tag.group(2)
        if closing:
            if wrapped_at and wrapped_at.pop():
                out.append(html[at : tag.end()] + SCROLL_BOX[1])
                at = tag.end()
            continue
        held = html[max(0, tag.start() - len(SCROLL_BOX[0])) : tag.start()] == SCROLL_BOX[0]
        wrap = not wrapped_at and not held and not _CLASS.search(attributes)
        wrapped_at.append(wrap)
        if wrap:
            out.append(html[at : tag.start()] + SCROLL_BOX[0])
            at = tag.start()
    out.append(html[at:])
    return "".join(out)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    return wrap_tables(_pointed(output))


@event_priority(50)  # before hooks/search_per_edition.py keeps and writes each edition's 404 page
def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    return _pointed(output_content)  # the 404 page


def on_post_build(config: MkDocsConfig) -> None:
    for script, (original, patched, text) in _patched.items():
        folder = os.path.join(config.site_dir, script.folder)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, patched), "w", encoding="utf-8") as file:
            file.write(text)
        # Nothing points at Material's own any more; its source map is left as it is.
        if os.path.exists(os.path.join(folder, original)):
            os.remove(os.path.join(folder, original))
