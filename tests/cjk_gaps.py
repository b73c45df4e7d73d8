"""Shared by the CJK line-break tests (issue 16): what a reader sees between two CJK characters.

``rendered_gaps(html)`` reads a page as a browser lays out its text: the text of inline
elements (``a``, ``strong``, ...) runs on into the text around it, every other element (a
block, ``br``, ``img``) separates, and ``pre``/``code`` are left out. It returns every place
where whitespace stands between two CJK characters: each one is a visible space in Chromium.

``write_fixture_project(folder, with_hook=...)`` writes a one-page MkDocs project whose page breaks
lines between CJK characters in a paragraph, a list item, a table cell and an admonition, with
or without ``hooks/cjk_line_breaks.py``: the tests run on it both ways, to show that they fail
without the fix. ``fixture_sites()`` gives both builds, made once and reused like the book's.

This module is an independent oracle for ``harnessbook.typography`` (which
``hooks/cjk_line_breaks.py`` applies): its CJK class and its inline and literal tag sets are
written out here on purpose, from issue 16 and the browser's layout, and are not imported from
the code under test. They differ from typography's where the two jobs differ (no kana or Han
extensions B to G here; ``font`` and ``template`` here, SVG's ``tspan`` there).
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from tests import soup

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "hooks" / "cjk_line_breaks.py"
FIXTURE_CACHE = ROOT / ".cache" / "cjk-fixture"

# The definition, written out here rather than imported from the code under test:
# Han characters, CJK punctuation and full-width forms.
CJK = "[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6]"
# Chinese quotes and ellipsis beside a CJK character: a line break there shows as a space too.
QUOTE = "[\u201c\u201d\u2018\u2019\u2026]"
GAP = re.compile(f"{CJK}\\s+{CJK}|{CJK}\\n\\s*{QUOTE}|{QUOTE}\\n\\s*{CJK}")

INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "ins",
        "mark",
        "q",
        "s",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "u",
    }
)
LITERAL = frozenset({"pre", "code", "kbd", "samp", "script", "style", "textarea", "template"})
WALL = "\x00"  # stands for anything that is not text running on: a block edge, code


ASCII_SPACES = " \n\t\f\r"


def _text(text: str) -> str:
    """A text node as the oracle reads it: one that is only ASCII whitespace stands as one
    newline if it holds one, else one space (as Beautiful Soup, which this oracle used first,
    keeps it); any other text as it is."""
    if text.strip(ASCII_SPACES):
        return text
    return "\n" if "\n" in text else " "


def _flow(node: Any, out: list[str]) -> None:
    """The text under lxml element ``node``: its own text, then each child and the text that
    follows it (its tail). Comments and processing instructions add nothing but their tails."""
    if node.text and isinstance(node.tag, str):
        out.append(_text(node.text))
    for child in node:
        if not isinstance(child.tag, str):
            pass  # a comment or a processing instruction
        elif child.tag in LITERAL:
            out.append(WALL)
        elif child.tag in INLINE:
            _flow(child, out)
        else:
            out.append(WALL)
            _flow(child, out)
            out.append(WALL)
        if child.tail:
            out.append(_text(child.tail))


def flow_text(html: str | Any, selector: str = "article") -> str:
    """The text of the page's first ``selector`` element (a tag name) as it runs on, with walls
    at block edges.

    ``html`` is the page's text, or the page already parsed (``tests.soup.page``, shared with
    the other tests of the session; only read here)."""
    document = soup.tree(html) if isinstance(html, str) else html
    found = document.xpath(f"//{selector}")
    assert found, f"no {selector} on the page"
    out: list[str] = []
    _flow(found[0], out)
    return "".join(out)


def rendered_gaps(html: str | Any, selector: str = "article") -> list[str]:
    """Every whitespace between two CJK characters in the page's text, with some context."""
    text = flow_text(html, selector)
    return [
        repr(text[max(match.start() - 8, 0) : match.end() + 8].replace(WALL, "|"))
        for match in GAP.finditer(text)
    ]


# --------------------------------------------------------------------------- the fixture site

FIXTURE_PAGE = textwrap.dedent(
    """\
    # 换行固定页

    按处理顺序逐个看候选，
    放得进剩余预算就选入，放不进就交给
    [指针](#fixture)或超预算规则。

    - 列表项里的句子在这里
      换行，在
      “引号”前也换行。

    <table><tr><td>表格单元格里的句子
    跨了两行</td></tr></table>

    !!! note "提示"

        提示框里的一句话
        分成两行。

    中文与
    English 混排时，换行仍是空格。

    ```text
    代码块里的
    换行保留
    ```
    """
)
FIXTURE_LINE = ("候选，", "放得进")
"""A line break of the fixture page: the characters before and after it."""


def write_fixture_project(folder: Path, *, with_hook: bool) -> None:
    """Write the fixture page's MkDocs project (with or without the hook) into ``folder``."""
    docs = folder / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text(FIXTURE_PAGE, encoding="utf-8")
    hooks = f"hooks: [{HOOK}]\n" if with_hook else ""
    (folder / "mkdocs.yml").write_text(
        textwrap.dedent(
            """\
            site_name: 换行固定页
            theme:
              name: material
              language: zh
              font: false
            extra_css: [extra.css]
            markdown_extensions: [admonition, md_in_html, pymdownx.superfences]
            plugins:
              - search:
                  lang: zh
            """
        )
        + hooks,
        encoding="utf-8",
    )
    # The book's own font stack, so the browser measures the gap in the book's fonts.
    css = (ROOT / "docs" / "assets" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    (docs / "extra.css").write_text(css, encoding="utf-8")


# Runs ``mkdocs build --strict`` for each project folder named in argv, one after another in
# one interpreter: MkDocs, Material and jieba's dictionary load once (about 1 s of CPU a build).
# Stops at the first build that fails, with MkDocs' own message. Not ``-q``: it hides warnings
# from the count ``--strict`` keeps, and the build passes whatever it warns.
BUILD_PROJECTS = """
import sys
from mkdocs.__main__ import cli
from mkdocs.exceptions import Abort
for folder in sys.argv[1:]:
    args = ["build", "--strict", "-f", folder + "/mkdocs.yml", "-d", folder + "/site"]
    try:
        cli.main(args, prog_name="mkdocs", standalone_mode=False)
    except Abort as error:
        sys.exit(f"{folder}: {error.format_message()}")
"""


def build_projects(folders: list[Path]) -> list[Path]:
    """``mkdocs build --strict`` of each project folder into its ``site``; the sites."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore::DeprecationWarning")
    completed = subprocess.run(
        [sys.executable, "-c", BUILD_PROJECTS, *map(str, folders)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return [folder / "site" for folder in folders]


def fixture_sites() -> dict[bool, Path]:
    """The fixture page built without (False) and with (True) the hook, in
    ``.cache/cjk-fixture/<key>/`` (gitignored), reused while unchanged.

    Like the book's build (tests/conftest.py), and keyed the same way: the key hashes
    everything the book's build reads (the hook, ``src/``, ``uv.lock``, the Python version...)
    and this module, which holds the page and its ``mkdocs.yml``. The two test files that use
    it run on two workers; a file lock lets one build while the other waits and reuses. Two
    builds fewer in every run, and none in a run that finds them (made in one process, about
    1.6 s of CPU for both).
    ``HARNESSBOOK_FRESH_SITE=1`` builds anew, as it does the book.
    """
    from tests.conftest import site_fingerprint

    inputs = site_fingerprint().encode() + hashlib.sha256(Path(__file__).read_bytes()).digest()
    key = hashlib.sha256(inputs).hexdigest()[:20]
    folder, done = FIXTURE_CACHE / key, FIXTURE_CACHE / f"{key}.done"
    FIXTURE_CACHE.mkdir(parents=True, exist_ok=True)
    with open(FIXTURE_CACHE / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.environ.get("HARNESSBOOK_FRESH_SITE") or not done.exists():
            done.unlink(missing_ok=True)
            shutil.rmtree(folder, ignore_errors=True)
            for with_hook in (False, True):
                write_fixture_project(folder / f"hook-{with_hook}", with_hook=with_hook)
            build_projects([folder / f"hook-{with_hook}" for with_hook in (False, True)])
            done.touch()  # last: both builds are complete
            for old in FIXTURE_CACHE.glob("*.done"):  # the builds of older sources
                if old != done:
                    old.unlink(missing_ok=True)
                    shutil.rmtree(FIXTURE_CACHE / old.stem, ignore_errors=True)
    return {with_hook: folder / f"hook-{with_hook}" / "site" for with_hook in (False, True)}


# --------------------------------------------------------------------------- in the browser

MEASURE_GAPS = r"""
(pairs) => {
  // For each [before, after]: the horizontal gap between the last character of `before` and the
  // first of `after`, at the first place where only whitespace (or nothing) stands between them
  // in the article's text; null where the pair is not found.
  const root = document.querySelector("article");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const chars = [];  // [node, offset] of every character, in document order
  let text = "";
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) chars.push([node, i]);
    text += node.data;
  }
  const rect = (index) => {
    const range = document.createRange();
    range.setStart(chars[index][0], chars[index][1]);
    range.setEnd(chars[index][0], chars[index][1] + 1);
    return range.getBoundingClientRect();
  };
  return pairs.map(([before, after]) => {
    for (let at = text.indexOf(before); at >= 0; at = text.indexOf(before, at + 1)) {
      let next = at + before.length;
      while (next < text.length && /\s/.test(text[next])) next++;
      if (!text.startsWith(after, next)) continue;
      const last = at + before.length - 1;
      const a = rect(last), b = rect(next);
      return {before, after, between: text.slice(last + 1, next), gap: b.left - a.right,
              sameLine: Math.abs(a.top - b.top) < 1 && a.width > 0 && b.width > 0};
    }
    return null;
  });
}
"""
"""``page.evaluate(MEASURE_GAPS, [[before, after], ...])``: ``[{gap, sameLine, between, ...} | None]``."""


# --------------------------------------------------------------------------- the search index

_FENCE = re.compile(r"^\s*(```|~~~)")
_STRICT = re.compile(CJK)


def source_breaks(markdown: str) -> list[str]:
    """Each source line break between CJK text outside code fences, as its joined 2+2 characters.

    ``逐个看候选，`` / ``放得进`` gives ``"选，放得"``: what a search index must contain, unspaced.
    Only breaks with two plain CJK characters on each side are taken (no markup in reach).
    """
    joined: list[str] = []
    fenced = False
    lines = markdown.split("\n")
    for line, following in itertools.pairwise(lines):
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or _FENCE.match(following):
            continue
        tail, head = line.rstrip()[-2:], following.strip()[:2]
        if len(tail) == len(head) == 2 and all(_STRICT.match(char) for char in tail + head):
            joined.append(tail + head)
    return joined


def index_text(index: dict) -> str:
    """All text of a search index as one string: jieba's separators removed, markup as walls."""
    text = "\n".join(doc.get("text", "") for doc in index["docs"]).replace("\u200b", "")
    return re.sub(r"<[^>]*>", WALL, text)
