"""MkDocs hook: code blocks without an element around each run of whitespace.

Pygments writes every whitespace token of a highlighted block as ``<span class="w">``: in a
JSON block, the indentation of each line and the space after each colon. Material gives those
spans no style (the ``w`` class is not in its stylesheets), so they only add elements: 553 of
the 2,507 on a field page (``reference/request/candidates/capturedAt/``). This hook keeps their
text and drops the elements, on every page, after the hooks that add blocks (figures.py).

The text of every block is unchanged (what a reader sees, copies and searches), and so is its
colouring. Fewer elements cost every reader's browser less style and layout work; axe-core's
audit of a field page took 10 to 25 % less time (tests/browser/test_pages.py runs it on every
page).
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

WHITESPACE_SPAN = re.compile(r'<span class="w">([ \t\r\n]*)</span>')
"""Pygments' whitespace token: the HTML formatter escapes text, so whitespace is written as is."""


def unwrap_whitespace(html: str) -> str:
    """``html`` with every whitespace span replaced by its text."""
    return WHITESPACE_SPAN.sub(r"\1", html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return unwrap_whitespace(html)
