"""MkDocs hook: Chinese quoted on an English page is marked as Chinese (WCAG 3.1.2).

The English edition quotes chapter 6's Chinese source word for word (the decisions page gives
each "Source" in the original). Without a ``lang`` attribute a screen reader reads those
characters with the page's English voice, which spells them out or skips them. Every run of CJK
characters in the content of an English page is wrapped in ``<span lang="zh">``, outside code,
preformatted text and figures (:func:`harnessbook.typography.mark_cjk_runs_html`). The Chinese
edition is left alone: its pages are ``lang="zh"`` already.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from harnessbook.typography import mark_cjk_runs_html


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    i18n = config.plugins.get("i18n")
    language = (
        (getattr(i18n, "current_language", None) or getattr(i18n, "default_language", None)) if i18n else None
    )
    if (language or config.theme["language"]) == "zh":
        return html
    return mark_cjk_runs_html(html)
