"""MkDocs hook: the book's own scripts reach the reader without their comment lines and their
indentation.

The sources in ``docs/assets/`` keep their comments and indentation, for whoever maintains
them; the copies in the site, which every page loads, drop each line that is nothing but a
``//`` comment (a third of ``a11y.js`` and ``playground.js``) and the spaces and tabs that start
each line left (a tenth of the rest), and a ``//`` comment after code on a line whose code holds
no quote, backtick or slash. Nothing else changes: no line is joined, so an error's line
number in a reader's browser console is the source's line minus the comment lines above it.

Only whole lines are dropped, and only where no string or template literal can be open: a
script is refused where a line holds an odd number of backticks (a template literal over
several lines, or a backtick inside a string), a backtick beside a quote (a string holding a
backtick could hide a literal that goes on: ``'`' + `x`` then the next line), or ends in a
backslash (a string continued on the next line), so that a line starting with ``//`` inside a
literal is never taken for a comment, and no literal's text starts a line. tests/test_render_path.py
compares each served script with its source token by token (acorn).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

SCRIPTS = (
    "assets/javascripts/a11y.js",
    "assets/javascripts/palette-load.js",
    "assets/javascripts/search-on-demand.js",
    "assets/playground/playground.js",
)
"""The book's scripts that pages load, by their path in the site."""

_COMMENT_LINE = re.compile(r"[ \t]*//")
_TRAILING_COMMENT = re.compile(r"([^'\"`/\r\n]*?)[ \t]+//[^\r\n]*")
"""A line's code and the ``//`` comment after it, where the code holds no quote, backtick or
slash: then the ``//`` cannot be inside a string, a template, a regular expression or a URL."""


def served_script(script: str, name: str = "script") -> str:
    """``script`` without the lines that hold only a ``//`` comment, and without the spaces and
    tabs that start the other lines. Raises ``ValueError`` when a literal could span lines (see
    the module's docstring)."""
    lines = script.splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        if line.count("`") % 2:
            raise ValueError(
                f"{name}:{number}: a template literal over several lines, or a backtick in a string"
            )
        if "`" in line and ("'" in line or '"' in line):
            raise ValueError(f"{name}:{number}: a backtick beside a quote (a backtick in a string)")
        if line.rstrip("\r\n").endswith("\\"):
            raise ValueError(f"{name}:{number}: a line ending in a backslash")
    kept = []
    for line in lines:
        if _COMMENT_LINE.match(line):
            continue
        body = line.rstrip("\r\n")
        trailing = _TRAILING_COMMENT.fullmatch(body)
        if trailing is not None:
            line = trailing.group(1) + line[len(body) :]
        kept.append(line.lstrip(" \t"))
    return "".join(kept)


@event_priority(-500)  # once every edition is built (i18n, -100), before publish (-1000) compresses it
def on_post_build(config: MkDocsConfig) -> None:
    for path in SCRIPTS:
        target = Path(config.site_dir) / path
        if not target.is_file():
            raise PluginError(f"scripts: {path} is not in the built site")
        try:
            text = served_script(target.read_text(encoding="utf-8"), path)
        except ValueError as error:
            raise PluginError(f"scripts: {error}") from None
        target.write_text(text, encoding="utf-8")
