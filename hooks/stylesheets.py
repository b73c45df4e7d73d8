"""MkDocs hook: the book's own stylesheets reach the reader as one file (issue 14).

Every page linked Material's two stylesheets and five more: mkdocstrings' handler CSS (twice,
because the i18n plugin runs the plugins' ``on_config`` once per edition) and the book's
``extra_css`` (``extra.css``, the playground's and the figures'). Each is render-blocking, and
on Lighthouse's simulated mobile connection each extra request costs time before the first
paint: with the same CSS in one file, the first contentful paint of a field page went from
1.35 s to 1.05 s.

So ``extra_css`` becomes one entry, :data:`TARGET`, written once every edition is built: the
listed stylesheets, without their comments, concatenated in their ``extra_css`` order, which keeps the cascade they had
as separate files (none of them uses ``@import``, ``@charset`` or a relative ``url()``; a test
checks). The book's own files stay where they are in ``docs/`` and are not copied to the site
on their own; mkdocstrings' generated file is read from the site, where it writes it (and
stays there, unlinked: the next edition's build writes it again).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

TARGET = "assets/stylesheets/site.css"
"""The one stylesheet every page links after Material's own."""

_COMMENT_OR_STRING = re.compile(r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|/\*.*?\*/""", re.DOTALL)


def without_comments(css: str) -> str:
    """``css`` without its comments (strings are left whole, a ``/*`` in one included) and the
    blank lines they leave. The sources keep their comments; the reader's copy, loaded before
    the first paint of every page, does not need them (about 6 KB of the 22)."""
    text = _COMMENT_OR_STRING.sub(lambda match: match.group(1) or "", css)
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


_sources: list[str] = []
"""The stylesheets ``extra_css`` listed, in order, without repeats (filled by ``on_config``)."""


@event_priority(-150)  # after mkdocstrings (0) added its handler CSS and the i18n plugin (-100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # The i18n plugin builds the next edition with the same config object, so this runs again on
    # a list that already holds TARGET (and mkdocstrings' file once more). A list without it is
    # a fresh config: the first build, or any rebuild under `mkdocs serve` (each loads the config
    # again).
    if TARGET not in config.extra_css:
        _sources.clear()
    for path in config.extra_css:
        if path != TARGET and path not in _sources:
            _sources.append(path)
    config.extra_css[:] = [TARGET]
    return config


@event_priority(-300)  # after the i18n plugin (-100) has chosen this edition's files
def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path in _sources:
        file = files.get_file_from_path(path)
        if file is not None:
            files.remove(file)  # only inside site.css
    return files


def combined(config: MkDocsConfig) -> str:
    """The listed stylesheets, in order: the book's from ``docs/``, generated ones from the site."""
    parts = []
    for path in _sources:
        for folder in (Path(config.docs_dir), Path(config.site_dir)):
            source = folder / path
            if source.is_file():
                text = without_comments(source.read_text(encoding="utf-8"))
                parts.append(f"/* {path} */\n{text}\n")
                break
        else:
            raise PluginError(
                f"stylesheets: {path} (listed in extra_css) is neither in docs/ nor in the site"
            )
    return "\n".join(parts)


@event_priority(-500)  # once every edition is built (i18n, -100), before publish (-1000) compresses it
def on_post_build(config: MkDocsConfig) -> None:
    target = Path(config.site_dir) / TARGET
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(combined(config), encoding="utf-8")
