"""Built pages read with a real HTML parser (Beautiful Soup on Python's html.parser), not patterns."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, Tag
from bs4.element import NavigableString


def parse(text: str) -> BeautifulSoup:
    return BeautifulSoup(text, "html.parser")


@cache
def _page(path: Path, mtime_ns: int) -> BeautifulSoup:
    return parse(path.read_text(encoding="utf-8"))


def page(path: Path) -> BeautifulSoup:
    """A built page, parsed once per test session (read-only: do not modify the tree)."""
    return _page(path, path.stat().st_mtime_ns)


def html_lang(document: BeautifulSoup) -> str | None:
    root = document.find("html")
    lang = root.get("lang") if isinstance(root, Tag) else None
    return lang if isinstance(lang, str) else None


def attribute(tag: Tag | None, name: str) -> str | None:
    """A single-valued attribute as a string (None when the tag or the attribute is missing)."""
    if tag is None:
        return None
    value = tag.get(name)
    if isinstance(value, list):
        return " ".join(value)
    return value


def material_config(document: BeautifulSoup) -> dict[str, Any] | None:
    """Material's ``<script id="__config">`` settings of a page (None if the page has none)."""
    script = document.find("script", id="__config")
    if not isinstance(script, Tag) or script.string is None:
        return None
    config: dict[str, Any] = json.loads(script.string)
    return config


def texts(node: Tag) -> list[NavigableString]:
    """The text nodes under ``node`` (no comments, doctype or other markup declarations), in
    document order; each is a ``str`` that still knows its place in the tree."""
    return [s for s in node.find_all(string=True) if type(s) is NavigableString]
