"""MkDocs hook: text in the other edition's language is marked with it (WCAG 3.1.2).

- The English edition quotes chapter 6's Chinese source word for word (the decisions page gives
  each "Source" in the original). Without a ``lang`` attribute a screen reader reads those
  characters with the page's English voice, which spells them out or skips them. Every run of
  CJK characters in the content of an English page is wrapped in ``<span lang="zh">``, outside
  code, preformatted text and figures (:func:`harnessbook.typography.mark_cjk_runs_html`).
- The Chinese edition shows the package's docstrings, which are English (the API page, and the
  "docstring" section of each field page). mkdocstrings' blocks of docstring text
  (``div.doc-contents``) are marked ``lang="en"``, and the Chinese section labels inside them
  (参数 and 返回) ``lang="zh"`` again. The rest of a Chinese page is ``lang="zh"`` already.
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


DOCSTRING = '<div class="doc doc-contents'
"""How mkdocstrings' Python handler opens a block of docstring text."""


def mark_docstrings_english(html: str) -> str:
    """``html`` with each of mkdocstrings' docstring blocks marked ``lang="en"``, and the CJK
    runs inside them (the edition's section labels) marked ``lang="zh"``."""
    if DOCSTRING not in html:
        return html
    parts: list[str] = []
    open_divs: list[bool] = []  # for each open div: whether it starts a docstring block
    inside = 0
    typography = _typography()
    for piece, name, depth in typography._pieces(html, typography._UNMARKED):
        if name == "div":
            if piece.startswith("</"):
                if open_divs and open_divs.pop():
                    inside -= 1
            else:
                starts = piece.startswith(DOCSTRING) and not inside
                open_divs.append(starts)
                if starts:
                    inside += 1
                    piece = piece[:-1] + ' lang="en">'
        elif name is None and inside and not depth:
            piece = typography.mark_cjk_runs_html(piece)
        parts.append(piece)
    return "".join(parts)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    i18n = config.plugins.get("i18n")
    language = (
        (getattr(i18n, "current_language", None) or getattr(i18n, "default_language", None)) if i18n else None
    )
    if (language or config.theme["language"]) == "zh":
        return mark_docstrings_english(html)
    marked: str = _typography().mark_cjk_runs_html(html)
    return marked
