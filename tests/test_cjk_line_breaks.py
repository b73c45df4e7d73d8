"""Issue 16: no stray space where a Chinese sentence's source line breaks.

The book's pages are wrapped at a readable width; the build removes a line break standing
between two CJK characters (``hooks/cjk_line_breaks.py``), so Chromium shows no space there and
search snippets show none either. Checked on the built book, and on a fixture page built with
and without the hook, which shows that these checks fail without the fix. The browser measures
the gap itself in ``tests/browser/test_cjk_gaps.py``.
"""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pytest

from harnessbook import typography
from harnessbook.typography import is_cjk, join_cjk_lines, join_cjk_lines_html, mark_cjk_runs_html
from tests import soup
from tests.cjk_gaps import (
    FIXTURE_PAGE,
    ROOT,
    build_projects,
    flow_text,
    index_text,
    rendered_gaps,
    source_breaks,
)
from tests.cjk_gaps import (
    fixture_sites as cached_fixture_sites,
)


def chinese_pages(site: Path) -> list[Path]:
    """Every page of the Chinese (default) edition: everything outside ``en/``."""
    return [page for page in sorted(site.rglob("*.html")) if page.relative_to(site).parts[0] != "en"]


def chinese_sources() -> list[Path]:
    return [page for page in sorted((ROOT / "docs").rglob("*.md")) if not page.name.endswith(".en.md")]


# --------------------------------------------------------------------------- the functions


def test_the_examples_in_the_docstrings_run():
    assert doctest.testmod(typography, raise_on_error=False).failed == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("逐个看候选，\n放得进", "逐个看候选，放得进"),
        ("列表项里的句子\n  换行", "列表项里的句子换行"),  # the indentation of a wrapped item goes too
        ("它们放在红色的\n“故意出错的例子”", "它们放在红色的“故意出错的例子”"),
        ("故意出错的例子”\n框里", "故意出错的例子”框里"),
        ("全角（括号）\n。", "全角（括号）。"),
        ("中文\nEnglish", "中文\nEnglish"),  # between CJK and Latin the space is intended
        ("English\n中文", "English\n中文"),
        ("预算 3\n个单位", "预算 3\n个单位"),
        ("中文 中文", "中文 中文"),  # only line breaks: a written space is the author's
        ("”\n“", "”\n“"),  # quotes alone are not Chinese
        ("", ""),
    ],
)
def test_join_cjk_lines(text: str, expected: str):
    assert join_cjk_lines(text) == expected


def test_what_counts_as_cjk():
    assert all(is_cjk(char) for char in "中文。，、：（）「」《》！？ｘ\u3000𠀀")
    assert not any(is_cjk(char) for char in "aZ09 ,.:()“”…—·한")


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>候选，\n放得进</p>", "<p>候选，放得进</p>"),
        ("<p>候选，\n<a href='#x'>放得进</a></p>", "<p>候选，<a href='#x'>放得进</a></p>"),
        ("<p><strong>决定</strong>\n<em>记录</em></p>", "<p><strong>决定</strong><em>记录</em></p>"),
        ("<li>句子在这里\n  换行</li>", "<li>句子在这里换行</li>"),
        ("<td>单元格\n换行</td>", "<td>单元格换行</td>"),
        # code is literal: kept inside, and never a CJK neighbour outside
        ("<pre><code>代码\n换行</code></pre>", "<pre><code>代码\n换行</code></pre>"),
        ("<p>以<code>路径</code>\n开头</p>", "<p>以<code>路径</code>\n开头</p>"),
        ("<p>字段\n<code>中文</code></p>", "<p>字段\n<code>中文</code></p>"),
        ("<script>a = '中\n文'</script>", "<script>a = '中\n文'</script>"),
        # other elements separate: nothing to join across them
        ("<p>上一段</p>\n<p>下一段</p>", "<p>上一段</p>\n<p>下一段</p>"),
        ("<p>一行<br>\n二行</p>", "<p>一行<br>\n二行</p>"),
        # markup is copied as it is, attributes included
        ('<p title="标题\n换行">中文\n中文</p>', '<p title="标题\n换行">中文中文</p>'),
        ("<!-- 注释\n换行 --><p>中\n文</p>", "<!-- 注释\n换行 --><p>中文</p>"),
        ("<p>中文\nEnglish</p>", "<p>中文\nEnglish</p>"),
    ],
)
def test_join_cjk_lines_html(html: str, expected: str):
    assert join_cjk_lines_html(html) == expected


# --------------------------------------------------------------------------- the fixture page


@pytest.fixture(scope="module")
def fixture_sites() -> dict[bool, Path]:
    """The fixture page built without (False) and with (True) the hook."""
    return cached_fixture_sites()


def test_the_fixture_builds_are_strict(tmp_path):
    """A warning fails a fixture build (they once ran ``mkdocs build --strict -q``, and ``-q``
    keeps warnings from the count ``--strict`` aborts on)."""
    project = tmp_path / "warns"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "index.md").write_text("[a link](missing.md)\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text("site_name: warns\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"(?s)missing\.md.*Aborted with 1 warnings in strict mode"):
        build_projects([project])


def test_the_page_check_fails_without_the_fix(fixture_sites):
    html = (fixture_sites[False] / "index.html").read_text(encoding="utf-8")
    gaps = rendered_gaps(html)
    # the paragraph (twice: a plain break, and one before a link), the list item (twice: once
    # before a quote), the table cell and the admonition
    assert len(gaps) == 6, gaps


def test_the_fix_leaves_no_gap_on_the_fixture_page(fixture_sites):
    html = (fixture_sites[True] / "index.html").read_text(encoding="utf-8")
    assert rendered_gaps(html) == []
    text = flow_text(html)
    assert "候选，放得进" in text and "交给指针或超预算" in text
    assert "换行，在“引号”前也换行" in text
    assert "表格单元格里的句子跨了两行" in text
    assert "提示框里的一句话分成两行" in text
    assert re.search(r"中文与\s+English", text), "between CJK and Latin the space stays"
    assert "代码块里的\n换行保留" in html, "code keeps its line breaks"


def test_the_search_check_fails_without_the_fix(fixture_sites):
    breaks = source_breaks(FIXTURE_PAGE)
    assert breaks == ["选，放得", "这里换行", "句子跨了", "句话分成"]  # paragraph, list, table, admonition
    for with_hook, site in fixture_sites.items():
        text = index_text(json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8")))
        missing = [joined for joined in breaks if joined not in text]
        if with_hook:
            assert missing == []
        else:
            assert missing == breaks, "without the hook the index keeps a space at every break"


# --------------------------------------------------------------------------- the book


def test_no_gap_between_cjk_characters_on_any_chinese_page(built_site):
    problems = []
    for page in chinese_pages(built_site.path):
        # The whole page: the article, and the interface around it (navigation, footer).
        for gap in rendered_gaps(soup.page(page), "body"):
            problems.append(f"{page.relative_to(built_site.path)}: {gap}")
    assert problems == [], "\n".join(problems)


def test_the_chinese_search_index_has_no_gap_at_a_line_break(built_site):
    index = json.loads((built_site.path / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = index_text(index)
    breaks = [
        (page, joined)
        for page in chinese_sources()
        for joined in source_breaks(page.read_text(encoding="utf-8"))
    ]
    assert len(breaks) > 100, "the book wraps its Chinese prose: there should be many such breaks"
    missing = [f"{page.relative_to(ROOT)}: {joined}" for page, joined in breaks if joined not in text]
    assert missing == [], "\n".join(missing)


def test_the_chinese_pages_are_still_wrapped():
    """The fix is in the build: the sources keep their line breaks between Chinese characters."""
    assert sum(len(source_breaks(page.read_text(encoding="utf-8"))) for page in chinese_sources()) > 100


# --------------------------------------------------------------------------- the playground

PLAYGROUND = ROOT / "docs" / "assets" / "playground" / "playground.js"


def playground_labels(edition: str) -> dict[str, str]:
    """The playground's interface strings of one edition (``LABELS.<edition>`` in playground.js)."""
    source = PLAYGROUND.read_text(encoding="utf-8")
    block = re.search(rf"^    {edition}: \{{\n(.*?)^    \}},", source, re.M | re.S)
    assert block, f"no LABELS.{edition} in {PLAYGROUND.name}"
    return {
        key: json.loads(value)
        for key, value in re.findall(r'^\s+(\w+): ("(?:[^"\\]|\\.)*"),$', block.group(1), re.M)
    }


def test_the_playground_strings_have_no_line_break_between_cjk():
    labels = playground_labels("zh")
    assert len(labels) > 20 and labels["run"] == "运行"
    assert {key: text for key, text in labels.items() if join_cjk_lines(text) != text} == {}


# --------------------------------------------------------------------------- language of parts


def test_cjk_runs_are_marked_outside_code_and_figures():
    html = (
        '<p title="中文">“必须是整数” (an <code>整数</code>), <a href="#x">指针</a>。</p>'
        "<pre><code>预算</code></pre><svg><text>预算</text><path d='M0 0'/></svg><p>after 预算</p><!-- 注释 -->"
    )
    assert mark_cjk_runs_html(html) == (
        '<p title="中文">“<span lang="zh">必须是整数</span>” (an <code>整数</code>), '
        '<a href="#x"><span lang="zh">指针</span></a><span lang="zh">。</span></p>'
        "<pre><code>预算</code></pre><svg><text>预算</text><path d='M0 0'/></svg>"
        '<p>after <span lang="zh">预算</span></p><!-- 注释 -->'
    )
    assert mark_cjk_runs_html("<p>English only</p>") == "<p>English only</p>"


SKIPPED_TAGS = frozenset({"code", "pre", "script", "style", "textarea", "kbd", "samp", "svg"})
"""Elements whose own text is not prose (their descendants are still read, but for ENCLOSING)."""
ENCLOSING_TAGS = frozenset({"code", "pre", "svg", "textarea"})
"""Elements nothing inside of which is prose."""


def test_every_chinese_passage_of_the_english_edition_is_marked(built_site):
    """A screen reader reads unmarked Chinese with the page's English voice (WCAG 3.1.2): the
    decisions page quotes the source in Chinese (hooks/language_of_parts.py)."""
    unmarked: list[str] = []
    marked = 0

    def walk(element, language: str, inside: bool, page: Path) -> None:
        """One pass down the tree, carrying the nearest ``lang`` and whether an enclosing element
        is above (each element's ancestors were walked again for each element: 0.3 s)."""
        nonlocal marked
        language = element.get("lang") or language
        if not inside and element.tag not in SKIPPED_TAGS:
            for text in (element.text, *(child.tail for child in element)):
                if text and is_cjk_text(text):
                    if language.startswith("zh"):
                        marked += 1
                    else:
                        unmarked.append(f"{page.relative_to(built_site.path)}: {text.strip()[:40]!r}")
        inside = inside or element.tag in ENCLOSING_TAGS
        for child in element:
            if isinstance(child.tag, str):
                walk(child, language, inside, page)

    for page in sorted((built_site.path / "en").rglob("*.html")):
        article = soup.page(page).find(".//article")
        if article is None:
            continue
        above = list(article.iterancestors())
        language = next((a.get("lang") for a in above if a.get("lang")), "en")
        walk(article, language, any(a.tag in ENCLOSING_TAGS for a in above), page)
    assert unmarked == []
    assert marked >= 20  # the decisions page's quotations


def is_cjk_text(text: str) -> bool:
    return any(is_cjk(char) for char in text)


def test_the_chinese_editions_docstrings_are_marked_english(built_site):
    """The docstrings are English: on a Chinese page a screen reader read them with a Chinese
    voice. Their blocks are lang="en", and the Chinese section labels inside are lang="zh"."""
    for path in ("reference/api/index.html", "reference/request/candidates/kind/index.html"):
        tree = soup.page(built_site.path / path)
        blocks = tree.xpath(
            f"//div[{soup.has_class('doc-contents')}][not(ancestor::div[{soup.has_class('doc-contents')}])]"
        )
        assert blocks, path
        assert all(block.get("lang") == "en" for block in blocks), path
        labels = tree.xpath(f"//span[{soup.has_class('doc-section-title')}]")
        assert labels or "api" not in path, path  # the API page has Args, Returns... sections
        assert all(is_cjk_text("".join(label.itertext())) for label in labels), path
        for label in labels:  # the label's words are in a span of their own language
            marked = "".join("".join(span.itertext()) for span in label.xpath(".//span[@lang='zh']"))
            assert marked == "".join(label.itertext()).strip(), (path, marked)
