"""Issue 16 in Chromium: no visible space where a Chinese sentence's source line breaks.

Chromium renders a newline between two Chinese characters as a space (it does not implement
CSS Text 3's rule that drops it), so the build removes those line breaks
(``hooks/cjk_line_breaks.py``). Here the browser measures the gap between the characters on
either side of a source line break: on the first-fit page's known line, at every such break
of every Chinese page, and on a fixture page built without the hook, where it must be a space.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cjk_gaps import FIXTURE_LINE, MEASURE_GAPS, ROOT, source_breaks
from tests.cjk_gaps import fixture_sites as cached_fixture_sites

pytestmark = pytest.mark.browser

# Wide enough that the known line does not wrap at the break (a wrap would hide any gap).
VIEWPORT = {"width": 1280, "height": 900}
# A space in the book's body font is about a quarter of an em (3 to 5 px); without one, the two
# glyph boxes touch. Sub-pixel positioning can leave a few hundredths of a pixel.
NO_GAP = 0.5
A_SPACE = 2.0

KNOWN_PAGE = "chapters/06-context-packet/first-fit/"
KNOWN_LINE = ("逐个看候选，", "放得进剩余预算就选入")


def page_url(source: Path) -> str:
    """The built address of a Chinese page, relative to the site root."""
    relative = source.relative_to(ROOT / "docs").with_suffix("")
    parts = relative.parts[:-1] if relative.name == "index" else relative.parts
    return "".join(f"{part}/" for part in parts)


def measure(page, pairs: list[tuple[str, str]]) -> list[dict | None]:
    return page.evaluate(MEASURE_GAPS, [list(pair) for pair in pairs])


def test_no_gap_on_the_first_fit_line(new_page, site_url: str):
    page, log = new_page(viewport=VIEWPORT)
    page.goto(site_url + KNOWN_PAGE, wait_until="load")
    page.evaluate("document.fonts.ready")
    [found] = measure(page, [KNOWN_LINE])
    assert found is not None, f"{KNOWN_PAGE}: the line {''.join(KNOWN_LINE)!r} is not on the page"
    assert found["sameLine"], f"the line wraps at the break at this width: {found}"
    assert found["between"] == "", f"the page still has {found['between']!r} at the break"
    assert abs(found["gap"]) < NO_GAP, f"{found['gap']:.2f} px between “，” and “放”"
    assert log.problems() == []


def test_no_gap_at_any_line_break_of_the_chinese_pages(new_page, site_url: str, browser_report):
    sources = [
        source
        for source in sorted((ROOT / "docs").rglob("*.md"))
        if not source.name.endswith(".en.md") and source_breaks(source.read_text(encoding="utf-8"))
    ]
    assert len(sources) >= 10, "the book wraps its Chinese prose on most pages"
    page, _ = new_page(viewport=VIEWPORT)
    problems, measured = [], 0
    for source in sources:
        page.goto(site_url + page_url(source), wait_until="load")
        page.evaluate("document.fonts.ready")
        pairs = [(joined[:2], joined[2:]) for joined in source_breaks(source.read_text(encoding="utf-8"))]
        for pair, found in zip(pairs, measure(page, pairs), strict=False):
            if found is None:
                problems.append(f"{page_url(source)}: {''.join(pair)!r} not found on the page")
            elif found["sameLine"]:  # where the line wraps right there, nothing shows either way
                measured += 1
                if found["between"] or abs(found["gap"]) >= NO_GAP:
                    problems.append(f"{page_url(source)}: {found}")
    browser_report(
        f"CJK line breaks: {measured} measured on {len(sources)} Chinese pages, {len(problems)} with a gap"
    )
    assert problems == [], "\n".join(problems)
    assert measured > 100, f"only {measured} line breaks measured"


@pytest.fixture(scope="module")
def fixture_sites() -> dict[bool, Path]:
    return cached_fixture_sites()


def test_the_measure_sees_the_space_without_the_fix(new_page, fixture_sites, browser_report):
    """On the fixture page the same measurement finds a space without the hook, none with it."""
    gaps = {}
    for with_hook, site in fixture_sites.items():
        page, _ = new_page(viewport=VIEWPORT)
        page.goto((site / "index.html").as_uri(), wait_until="load")
        page.evaluate("document.fonts.ready")
        [found] = measure(page, [FIXTURE_LINE])
        assert found is not None and found["sameLine"], found
        gaps[with_hook] = found["gap"]
    browser_report(
        f"CJK line break on the fixture page: {gaps[False]:.2f} px without the hook, {gaps[True]:.2f} px with it"
    )
    assert gaps[False] > A_SPACE, f"without the hook: {gaps[False]:.2f} px, expected a space"
    assert abs(gaps[True]) < NO_GAP, f"with the hook: {gaps[True]:.2f} px, expected none"
