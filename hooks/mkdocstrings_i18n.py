"""MkDocs hook: render mkdocstrings' section labels in the language of the edition being built.

mkdocs-static-i18n builds the Chinese edition, then rebuilds the whole site for English,
re-running every plugin's ``on_config``. mkdocstrings reads its locale there (its ``locale``
option, else ``theme.language``), but it runs before the i18n plugin switches the theme
language (``on_config`` priority -100), so without this hook the English API pages would
say "参数" and "返回" instead of "Parameters" and "Returns". Running first, this hook hands
mkdocstrings the locale of the edition about to be built.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority


@event_priority(100)  # before mkdocstrings (0) and the i18n plugin (-100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    i18n = config.plugins.get("i18n")
    mkdocstrings = config.plugins.get("mkdocstrings")
    if i18n is not None and mkdocstrings is not None:
        # current_language is None until the i18n plugin's first on_config: the default edition.
        mkdocstrings.config["locale"] = i18n.current_language or i18n.default_language
    return config
