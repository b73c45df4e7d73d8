"""MkDocs hook: no stray space where a Chinese sentence's source line breaks (issue 16).

The pages are wrapped at a readable width, and the HTML keeps each line break, for example
``逐个看候选，\\n放得进``. Chromium renders that newline as a space between two Chinese
characters (CSS Text 3 says it should vanish; Chromium does not implement the rule). This hook
removes such line breaks from every page's rendered content with
:func:`harnessbook.typography.join_cjk_lines_html`: paragraphs, list items, table cells and
admonitions alike, never inside ``pre`` or ``code``, never between a CJK character and a Latin
word. The page sources stay wrapped.

It runs on ``on_page_content``, so ``page.content`` is already clean when the search plugin
indexes it (``on_page_context``) and search snippets show no stray space either;
``hooks/search_per_edition.py`` only splits that index afterwards (``on_post_build``).
"""

from __future__ import annotations

import importlib
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page


def _typography() -> Any:
    """harnessbook.typography as it is loaded now, looked up at each use: `mkdocs serve` reloads
    the package when its source changes (hooks/playground.py's ``forget_package``)."""
    return importlib.import_module("harnessbook.typography")


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    joined: str = _typography().join_cjk_lines_html(html)
    return joined
