"""Built pages read with a real HTML parser (lxml's libxml2), not patterns; small markup
fragments read with Beautiful Soup.

A built page is parsed once per test session into an lxml tree (:func:`page`): about 3 ms a
page. Beautiful Soup, on the same parser, took 50 ms a page to build its own tree (4.5 to 4.7 s
for the site's 92 pages, measured on the 2-core machine), and walking it was slower too. Both
read the markup with libxml2's HTML parser, so the trees have the same elements and text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import lxml.etree  # type: ignore[import-untyped]
import lxml.html  # type: ignore[import-untyped]
from bs4 import BeautifulSoup, Tag


def parse(text: str) -> BeautifulSoup:
    """A fragment of markup as a Beautiful Soup tree (for small pieces; pages: :func:`page`)."""
    return BeautifulSoup(text, "lxml")


def tree(text: str) -> Any:
    """A document as an lxml tree: its ``<html>`` element (libxml2 adds what is missing)."""
    return lxml.html.document_fromstring(text)


@cache
def _page(path: Path, mtime_ns: int) -> Any:
    return tree(path.read_text(encoding="utf-8"))


def page(path: Path) -> Any:
    """A built page as an lxml tree (its ``<html>`` element), parsed once per test session
    (read-only: do not modify the tree)."""
    return _page(path, path.stat().st_mtime_ns)


def elements(root: Any) -> Iterator[Any]:
    """``root`` and every element under it, in document order (no comments or processing
    instructions)."""
    return root.iter(lxml.etree.Element)


def class_names(element: Any) -> list[str]:
    """The element's class names (``class`` split on whitespace)."""
    return (element.get("class") or "").split()


def has_class(name: str) -> str:
    """An XPath predicate: the element has the class ``name`` (as CSS's ``.name``)."""
    return f'contains(concat(" ", normalize-space(@class), " "), " {name} ")'


def text_of(element: Any, separator: str = "") -> str:
    """The text under ``element`` (comments left out), its pieces joined by ``separator``, as
    Beautiful Soup's ``get_text(separator)`` joins them (which also shortens a piece of
    whitespace alone to one newline or space: the tests that read this split it into words)."""
    pieces: list[str] = []

    def walk(node: Any) -> None:
        if node.text and isinstance(node.tag, str):
            pieces.append(node.text)
        for child in node:
            if isinstance(child.tag, str):
                walk(child)
            if child.tail:
                pieces.append(child.tail)

    walk(element)
    return separator.join(pieces)


@cache
def _classes(path: Path, mtime_ns: int) -> frozenset[str]:
    return frozenset(name for value in _page(path, mtime_ns).xpath("//@class") for name in value.split())


def classes(path: Path) -> frozenset[str]:
    """Every class name on a built page: ``"x" in classes(path)`` is ``select_one(".x")``, with
    one walk of the page for the session instead of one a question."""
    return _classes(path, path.stat().st_mtime_ns)


@cache
def _config(path: Path, mtime_ns: int) -> dict[str, Any] | None:
    scripts = _page(path, mtime_ns).xpath('//script[@id="__config"]')
    if not scripts or not scripts[0].text:
        return None
    config: dict[str, Any] = json.loads(scripts[0].text)
    return config


def page_config(path: Path) -> dict[str, Any] | None:
    """Material's ``<script id="__config">`` settings of a built page (None if the page has
    none), read once per session (read-only)."""
    return _config(path, path.stat().st_mtime_ns)


def html_lang(document: Any) -> str | None:
    """The ``lang`` of a page's ``<html>`` element (:func:`page`)."""
    lang = document.get("lang")
    return lang if isinstance(lang, str) else None


def attribute(tag: Tag | Any | None, name: str) -> str | None:
    """A single-valued attribute as a string (None when the tag or the attribute is missing), of
    a Beautiful Soup tag or an lxml element."""
    if tag is None:
        return None
    value = tag.get(name)
    if isinstance(value, list):
        return " ".join(value)
    return value
