"""MkDocs hook: interface words that Markdown extensions write, in the edition's language.

The ``toc`` extension gives every heading's permalink the tooltip ``permalink_title``
("Permanent link" unless configured). Markdown extensions are shared by all editions (the i18n
plugin refuses per-language ``markdown_extensions``), but it re-runs ``on_config`` for each
edition, so this hook sets the tooltip for the edition about to be built.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

PERMALINK_TITLES = {"zh": "永久链接", "en": "Permanent link"}


@event_priority(100)  # like hooks/mkdocstrings_i18n.py: before any plugin reads the config
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return config
    # current_language is None until the i18n plugin's first on_config: the default edition.
    language = i18n.current_language or i18n.default_language
    toc = config.mdx_configs.setdefault("toc", {})
    toc["permalink_title"] = PERMALINK_TITLES.get(language, PERMALINK_TITLES["en"])
    return config
