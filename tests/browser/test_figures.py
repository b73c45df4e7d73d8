"""The packet figures and the rules-flow figure in Chromium (issue 10).

At a phone's width (360 px), in the light and the dark scheme, in both editions: the figure tab
is what a reader sees first, the figure fits the screen, it takes the scheme's colours, its
text alternative reaches the accessibility tree, the request and the result are one click
away, and axe-core finds nothing. Screenshots of a figure in both schemes go to
artifacts/figures/ for a person to look at.
"""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

from tests.browser.motion import settle
from tests.browser.pixels import edge_shadows

pytestmark = pytest.mark.browser

EDITIONS = {"zh": "", "en": "en/"}
SCHEMES = {"light": "default", "dark": "slate"}
# A chapter page with several figures (ready, refresh_required, blocked) and a field page with
# refused requests (the problem lists).
FIGURE_PAGE = "chapters/06-context-packet/test-paths/"
PROBLEM_PAGE = "reference/request/budgetUnits/"
RULES_PAGE = "chapters/06-context-packet/rules/"
TITLES = {"zh": "上下文包图示", "en": "Context packet figure"}
FLOW_TITLES = {"zh": "确定性规则的顺序", "en": "The order of the deterministic rules"}
TAB = {"zh": "图示", "en": "Figure"}
# The colours figure.css gives the background and the text in each scheme.
COLOURS = {
    "light": {"bg": "rgb(255, 255, 255)", "fg": "rgb(31, 35, 41)"},
    "dark": {"bg": "rgb(30, 33, 41)", "fg": "rgb(227, 230, 238)"},
}

AXE = """async (selector) => {
  const results = await axe.run({include: [[selector]]}, {resultTypes: ['violations']});
  return results.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
}"""


def open_page(new_page, site_url: str, path: str, scheme: str, width: int = 360):
    page, log = new_page(color_scheme=scheme, viewport={"width": width, "height": 800})
    response = page.goto(urljoin(site_url, path))
    assert response is not None and response.status == 200, path
    page.wait_for_selector("html[data-playground-ready]", state="attached", timeout=15_000)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == SCHEMES[scheme]
    settle(page, colours=True)  # Material's colour transitions
    # a11y.js makes tables that scroll sideways focusable when the browser is idle.
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('.md-typeset__scrollwrap'))
              .every(box => box.scrollWidth <= box.clientWidth + 1 || box.hasAttribute('tabindex'))""",
        timeout=10_000,
    )
    return page, log


def axe_violations(page, axe_source: str, selector: str) -> list[str]:
    """axe-core's violations inside ``selector`` (each one line), on the page as it is now."""
    page.add_script_tag(content=axe_source)
    return page.evaluate(AXE, selector)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("edition", EDITIONS)
def test_figures_at_phone_width(
    new_page, site_url, artifacts_dir, axe_source, browser_report, edition, scheme
):
    page, log = open_page(new_page, site_url, EDITIONS[edition] + FIGURE_PAGE, scheme)
    figures = page.locator('[data-hb-figure="packet"] svg')
    count = figures.count()
    assert count >= 3
    # The page does not scroll sideways, and every figure fits the content column.
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    for index in range(count):
        svg = figures.nth(index)
        svg.scroll_into_view_if_needed()
        assert svg.is_visible(), f"figure {index + 1} is not shown first"
        box = svg.bounding_box()
        assert 300 <= box["width"] <= 340, box
    # The figure tab is the selected one, labelled in the edition's language.
    first_set = page.locator(".tabbed-set").filter(has=page.locator('[data-hb-figure="packet"]')).first
    assert first_set.locator(".tabbed-labels label").first.text_content() == TAB[edition]
    assert first_set.locator("input").first.is_checked()
    # The scheme's colours, from figure.css (not the SVG's light fallbacks).
    colours = figures.first.evaluate(
        """svg => ({bg: getComputedStyle(svg.querySelector('rect.bg')).fill,
                    fg: getComputedStyle(svg).fill,
                    font: parseFloat(getComputedStyle(svg.querySelector('text')).fontSize),
                    scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width})"""
    )
    assert {"bg": colours["bg"], "fg": colours["fg"]} == COLOURS[scheme]
    assert colours["font"] * colours["scale"] >= 11.5, "the figure's text is too small at phone width"
    # Screenshot of the first figure and its table, for a person to look at.
    out = artifacts_dir / "figures" / f"{edition}-{scheme}-360.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    first_set.scroll_into_view_if_needed()
    first_set.screenshot(path=str(out))
    browser_report(f"figure screenshot ({edition}, {scheme}, 360 px): {out}")
    assert axe_violations(page, axe_source, ".tabbed-set") == []
    assert log.problems() == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_text_alternative_reaches_the_accessibility_tree(new_page, site_url, edition):
    page, _ = open_page(new_page, site_url, EDITIONS[edition] + FIGURE_PAGE, "light", width=1280)
    images = page.get_by_role("img", name=TITLES[edition])
    assert images.count() == page.locator('[data-hb-figure="packet"] svg').count()
    description = images.first.evaluate("svg => svg.querySelector('desc').textContent")
    assert "ready" in description or "refresh_required" in description or "blocked" in description
    # What assistive technology gets: the name from <title>, the description from <desc>.
    snapshot = page.locator('[data-hb-figure="packet"]').first.aria_snapshot()
    assert TITLES[edition] in snapshot
    # The decision table is a real table with a caption and column headers.
    table = page.locator(".hb-decisions table").first
    assert table.locator("caption").count() == 1
    assert table.locator('th[scope="col"]').count() == 5


@pytest.mark.parametrize("edition", EDITIONS)
def test_request_and_result_are_one_click_away(new_page, site_url, edition):
    page, log = open_page(new_page, site_url, EDITIONS[edition] + FIGURE_PAGE, "light", width=1280)
    tabs = page.locator(".tabbed-set").filter(has=page.locator('[data-hb-figure="packet"]')).first
    request_block = tabs.locator(".highlight").filter(has=page.locator(".filename", has_text="request.json"))
    result_block = tabs.locator(".highlight").filter(has=page.locator(".filename", has_text="result.json"))
    assert not request_block.is_visible() and not result_block.is_visible()
    tabs.locator(".tabbed-labels label", has_text="request.json").click()
    assert request_block.is_visible() and not tabs.locator("[data-hb-figure]").is_visible()
    tabs.locator(".tabbed-labels label", has_text="result.json").click()
    assert result_block.is_visible()
    tabs.locator(".tabbed-labels label").first.click()
    assert tabs.locator("[data-hb-figure]").is_visible()
    # The in-browser run stays under the example, visible without opening a tab.
    control = page.locator("[data-playground-open]").first
    assert control.is_visible()
    assert control.evaluate("b => b.parentElement.previousElementSibling.classList.contains('tabbed-set')")
    assert log.problems() == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_refused_requests_show_their_problems_with_paths(new_page, site_url, edition):
    page, _ = open_page(new_page, site_url, EDITIONS[edition] + PROBLEM_PAGE, "light", width=1280)
    lists = page.locator("[data-hb-problems] ol")
    assert lists.count() >= 5
    first = lists.first.locator("li").first
    assert first.is_visible()
    assert first.locator("code").text_content().startswith("$.")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("edition", EDITIONS)
def test_rules_flow_figure(new_page, site_url, artifacts_dir, axe_source, browser_report, edition, scheme):
    page, log = open_page(new_page, site_url, EDITIONS[edition] + RULES_PAGE, scheme)
    flow = page.get_by_role("img", name=FLOW_TITLES[edition])
    assert flow.count() == 1
    flow.scroll_into_view_if_needed()
    assert flow.is_visible()
    assert flow.bounding_box()["width"] <= 340
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 360
    out = artifacts_dir / "figures" / f"rules-flow-{edition}-{scheme}-360.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    flow.screenshot(path=str(out))
    browser_report(f"rules-flow screenshot ({edition}, {scheme}, 360 px): {out}")
    assert axe_violations(page, axe_source, ".hb-figure") == []
    assert log.problems() == []


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("edition", EDITIONS)
def test_problem_lists_are_axe_clean(new_page, site_url, axe_source, edition, scheme):
    """The refused requests' tabs at phone width (the packet figures and the rules flow are
    audited by the tests above, on the page each of them opens)."""
    page, _ = open_page(new_page, site_url, EDITIONS[edition] + PROBLEM_PAGE, scheme)
    assert axe_violations(page, axe_source, ".tabbed-set") == []


def test_figures_print_black_on_white_even_from_the_dark_scheme(new_page, site_url):
    page, _ = open_page(new_page, site_url, FIGURE_PAGE, "dark")
    page.emulate_media(media="print")
    colours = page.locator('[data-hb-figure="packet"] svg').first.evaluate(
        "svg => [getComputedStyle(svg.querySelector('rect.bg')).fill, getComputedStyle(svg).fill]"
    )
    assert colours == ["rgb(255, 255, 255)", "rgb(0, 0, 0)"]


# Wide tables at 360 px, in a tab set and in the column; tests/browser/pixels.py reads their shadows.
WIDE_TABLES = {
    "in a tab set": (FIGURE_PAGE, ".hb-decisions .md-typeset__scrollwrap"),
    "in the column": ("reference/cli/", ".md-typeset__scrollwrap:not(.tabbed-set *)"),
}


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("place", WIDE_TABLES)
def test_a_table_that_scrolls_sideways_shows_it(new_page, site_url, place, scheme):
    path, selector = WIDE_TABLES[place]
    page, log = open_page(new_page, site_url, path, scheme)
    box = page.locator(selector).first
    box.scroll_into_view_if_needed()
    size = box.evaluate("box => ({scroll: box.scrollWidth, client: box.clientWidth})")
    assert size["scroll"] > size["client"] + 40, f"the table fits the screen now; pick a wider one: {size}"
    # The box lies within the screen, so that both of its edges can be seen.
    edges = box.evaluate("box => [box.getBoundingClientRect().left, box.getBoundingClientRect().right]")
    assert edges[0] >= 0 and edges[1] <= 360, edges
    assert edge_shadows(page, box) == (False, True), "at the start: a shadow on the right alone"
    box.evaluate("box => { box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2; }")
    assert edge_shadows(page, box) == (True, True), "in the middle: a shadow on both sides"
    box.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    assert edge_shadows(page, box) == (True, False), "at the end: a shadow on the left alone"
    assert log.problems() == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_printed_decision_tables_fit_the_page(new_page, site_url, edition):
    """On paper nothing scrolls: lazily laid-out tab sets clipped the decision table's last
    column and the code boxes' right edge, and the headers kept to one line."""
    page, _ = open_page(new_page, site_url, EDITIONS[edition] + FIGURE_PAGE, "light", width=1024)
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 560, "height": 800})  # about an A4 page's column
    overflow = page.evaluate(
        """() => Array.from(document.querySelectorAll('.tabbed-set')).map(set => {
             const style = getComputedStyle(set);
             const table = set.querySelector('.hb-decisions table');
             return {visibility: style.contentVisibility,
                     overflow: table ? table.getBoundingClientRect().right - set.getBoundingClientRect().right : 0};
           })"""
    )
    assert overflow, "no tab set"
    assert {item["visibility"] for item in overflow} == {"visible"}
    assert max(item["overflow"] for item in overflow) <= 1, overflow
    shadows = page.evaluate(
        "getComputedStyle(document.querySelector('.md-typeset__scrollwrap')).backgroundImage"
    )
    assert shadows == "none"
    # Each example printed "request.json" twice (its tab label, then its title): its labels
    # are left out. Material's own print styles wrap long code lines and hide the code
    # buttons: checked too.
    printed = page.evaluate(
        """() => ({
          overflowing: Array.from(document.querySelectorAll('.md-typeset pre > code'))
            .filter(code => code.scrollWidth > code.clientWidth + 1).length,
          buttons: Array.from(document.querySelectorAll('.md-code__nav'))
            .filter(nav => getComputedStyle(nav).display !== 'none').length,
          exampleLabels: Array.from(document.querySelectorAll('.tabbed-set'))
            .filter(set => set.querySelector('.hb-figure, [data-hb-problems]'))
            .flatMap(set => Array.from(set.querySelectorAll(':scope > .tabbed-labels > label')))
            .filter(label => label.getBoundingClientRect().height > 0).length,
        })"""
    )
    assert printed == {"overflowing": 0, "buttons": 0, "exampleLabels": 0}, printed


@pytest.mark.parametrize(("path", "rem"), [(FIGURE_PAGE, 22), (RULES_PAGE, 24)])
def test_figures_grow_with_the_readers_text_size(new_page, site_url, path, rem):
    """Material's figure shrank to the SVG's own 360 px: figures stayed that size on a desktop
    and at twice the text size. They now take 22 rem (24 for the flow figure), or the whole
    column where it is narrower."""
    page, _ = open_page(new_page, site_url, path, "light", width=1280)
    measure = """() => {
      const svg = document.querySelector('.hb-figure svg');
      svg.scrollIntoView();
      const column = svg.closest('.md-typeset').getBoundingClientRect().width;
      const root = parseFloat(getComputedStyle(document.documentElement).fontSize);
      return {width: svg.getBoundingClientRect().width, column, root};
    }"""
    before = page.evaluate(measure)
    assert abs(before["width"] - min(rem * before["root"], before["column"])) <= 1, before
    page.evaluate("document.documentElement.style.fontSize = '200%'")  # the reader's text size
    after = page.evaluate(measure)
    assert after["root"] > before["root"]
    assert abs(after["width"] - min(rem * after["root"], after["column"])) <= 1, after
