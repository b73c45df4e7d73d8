"""MkDocs hook: Material's search finds a Chinese word typed whole.

Material's search worker splits a Chinese query into the words of the index
(``search.<hash>.min.js``, function ``fe`` in Material 9.8): for each start it tries every
slice up to, but never including, the query's last character, so 指针 was searched as 指 and
出处 as 出 (every page with the character), and 预算单位 as 预算 alone. This hook writes the
worker with the two bounds corrected, under a name of its own content (the fingerprinted name
keeps the site's year-long caching true), and points every page at it.

Each fix must match Material's file exactly once, or the build fails and says so: a Material
upgrade that changes the worker is checked again, by hand, against the test that searches
for 指针 (tests/browser/test_behaviour.py) and the one that runs the function in Node
(tests/test_site.py).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

WORKERS = "assets/javascripts/workers"
FIXES = (
    # Every slice from each start, up to and including the query's end.
    (
        "for(let o=s+1;o<t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)",
        "for(let o=s+1;o<=t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)",
    ),
    # A word may start at the query's last character.
    ("n[a]&&a<t.length-1&&(i[s++]=a)", "n[a]&&a<t.length&&(i[s++]=a)"),
)

SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")
"""The last line of a minified script that names its source map."""

_worker: dict[str, str] = {}  # "original" and "patched" file names, "text" the patched worker


def patch(text: str) -> str:
    """Material's worker with :data:`FIXES` applied; each must match exactly once."""
    for old, new in FIXES:
        if text.count(old) != 1:
            raise PluginError(
                f"cjk_search: Material's search worker no longer holds {old!r} exactly once; "
                "see hooks/cjk_search.py"
            )
        text = text.replace(old, new)
    return text


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if _worker:
        return config  # an edition's inner build (mkdocs-static-i18n): done once
    for folder in config.theme.dirs:
        found = sorted(Path(folder, WORKERS).glob("search.*.min.js"))
        if found:
            original = found[0]
            # The theme's source map is the unpatched worker's: the patched one names none.
            text = SOURCE_MAP.sub("", patch(original.read_text(encoding="utf-8")))
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
            _worker.update(original=original.name, patched=f"search.{digest}.min.js", text=text)
            return config
    raise PluginError(f"cjk_search: no {WORKERS}/search.*.min.js in the theme")


def _pointed(html: str) -> str:
    return html.replace(f"{WORKERS}/{_worker['original']}", f"{WORKERS}/{_worker['patched']}")


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    return _pointed(output)


@event_priority(50)  # before hooks/search_per_edition.py keeps and writes each edition's 404 page
def on_post_template(output_content: str, template_name: str, config: MkDocsConfig) -> str:
    return _pointed(output_content)  # the 404 page


def on_post_build(config: MkDocsConfig) -> None:
    folder = os.path.join(config.site_dir, WORKERS)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, _worker["patched"]), "w", encoding="utf-8") as file:
        file.write(_worker["text"])
    # Nothing points at Material's own any more; its source map is left as it is.
    original = os.path.join(folder, _worker["original"])
    if os.path.exists(original):
        os.remove(original)
