"""MkDocs hook: autorefs' heading aliases leave no empty link behind.

A Markdown anchor right above a heading, ``[](){#rule-conflict}``, gives that heading a second
name for cross-references (mkdocs-autorefs registers it as an alias of the heading's own id).
The rules page needs them: ``#conflict``, ``#over-budget`` and ``#validate`` are also ids of
field pages, and a docstring's ``[conflict][conflict]`` on the API page would go to the closest
one, a field page. ``[conflict][rule-conflict]`` goes to the rules page's heading, ``#conflict``.

Python-Markdown writes such an anchor as an empty link in a paragraph of its own,
``<p><a href="" id="rule-conflict"></a></p>``: a link with no text, which a keyboard stops on
and a screen reader announces. autorefs has read it by the time this hook runs, and every
reference to the alias already names the heading's id, so the hook drops it. Only an anchor
right above a heading (or above another such anchor) is an alias: anywhere else autorefs
registers the anchor's own id, which links reach, so it stays.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

ANCHOR = r'<p><a href="" id="[^"<>]+"></a></p>\n?'
"""A Markdown anchor alone in its paragraph, as Python-Markdown writes it."""
ALIAS = re.compile(rf"{ANCHOR}(?=(?:{ANCHOR})*<h[1-6][\s>])")
"""Such an anchor right above a heading: an alias of the heading's id."""


def drop_aliases(html: str) -> str:
    """``html`` without the empty links of Markdown anchors."""
    return ALIAS.sub("", html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return drop_aliases(html)
