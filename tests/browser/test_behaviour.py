"""What a reader does across the site: search, the dark-mode toggle, the code copy button.

Each test drives the page the way a reader would (click, type, read), in a fresh context.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest

from tests.browser.motion import settle, wait_until

pytestmark = pytest.mark.browser

BUDGET_PAGE = "reference/request/budgetUnits/"
BUDGET_PAGES = [BUDGET_PAGE, "reference/result/packet/budgetUnits/"]  # the request's and the result's
POINTERS_PAGE = "reference/result/packet/pointers/"


def goto(page, url: str) -> None:
    """Open ``url`` and let it settle (search worker, index), so that nothing is cut off."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_selector("html[data-playground-ready]", state="attached", timeout=15_000)


def type_like_a_reader(page, box, term: str) -> None:
    """Type ``term`` into ``box``: Latin text key by key; Chinese through an input method.

    A reader types 预算 with an IME: the pinyin is composed, then committed with the space
    key, whose release (keyup) is what Material's search box listens for. Chromium's
    DevTools protocol drives the same composition here.
    """
    if term.isascii():
        box.press_sequentially(term, delay=60)
        return
    cdp = page.context.new_cdp_session(page)
    for char in term:
        cdp.send("Input.imeSetComposition", {"text": "pinyin", "selectionStart": 6, "selectionEnd": 6})
        page.wait_for_timeout(40)
        cdp.send("Input.insertText", {"text": char})  # the IME commits the character
        page.keyboard.up("Space")
        page.wait_for_timeout(60)
    cdp.detach()


def search(page, site_url: str, edition_root: str, term: str) -> list[str]:
    """Open the edition's home, click into the search box, type ``term``, read the hits."""
    goto(page, urljoin(site_url, edition_root))
    box = page.locator("input.md-search__input")
    box.click()
    type_like_a_reader(page, box, term)
    assert box.input_value() == term
    hits = page.locator(".md-search-result__list a.md-search-result__link")
    hits.first.wait_for(state="visible", timeout=15_000)
    # The list is re-rendered while the last keys arrive, and a list for a shorter prefix can
    # hold the expected pages too: read it until two reads 200 ms apart agree (at most 10 s).
    shown, before = hits.evaluate_all("links => links.map(a => a.href)"), None
    for _ in range(50):
        if shown == before:
            break
        page.wait_for_timeout(200)
        shown, before = hits.evaluate_all("links => links.map(a => a.href)"), shown
    assert shown == before, "the search results never settled"
    paths: list[str] = []  # each page once, in the order of the hits
    for href in shown:
        if urlsplit(href).path not in paths:
            paths.append(urlsplit(href).path)
    return paths


@pytest.mark.parametrize(
    ("edition_root", "term", "expected"),
    [
        ("", "预算", BUDGET_PAGES),
        ("en/", "budget", ["en/" + p for p in BUDGET_PAGES]),
        ("", "指针", [POINTERS_PAGE]),  # searched as 指 alone before hooks/material_patches.py
    ],
    ids=["zh-预算", "en-budget", "zh-指针"],
)
def test_search_finds_the_budget_pages_in_the_readers_edition(
    new_page, site_url: str, browser_report, edition_root: str, term: str, expected: list[str]
) -> None:
    page, log = new_page()
    paths = search(page, site_url, edition_root, term)
    browser_report(f"search {term!r} typed on /{edition_root}: {len(paths)} pages, first {paths[:4]}")
    base = urlsplit(site_url).path
    missing = [p for p in expected if base + p not in paths]
    assert missing == [], f"{missing} not among the hits for {term!r}: {paths}"
    if edition_root:
        wrong = [p for p in paths if not p.startswith(base + edition_root)]
    else:
        wrong = [p for p in paths if p.startswith(base + "en/")]
    assert wrong == [], f"hits from the other edition: {wrong}"
    assert log.problems() == []


def test_a_field_name_is_searched_whole(new_page, site_url: str) -> None:
    """Split at its capital letter, conflictsWith was searched as "conflicts" or "with": every
    English page was a hit, and the page it opened marked each "with". Whole, its field page
    comes first and only pages that name the field are hits. (Both editions share the
    separator; tests/test_site.py checks the Chinese index's tokens.)"""
    edition_root = "en/"
    page, log = new_page()
    paths = search(page, site_url, edition_root, "conflictsWith")
    base = urlsplit(site_url).path
    assert paths and paths[0] == f"{base}{edition_root}reference/request/candidates/conflictsWith/", paths
    meta = page.locator(".md-search-result__meta").inner_text()
    found = re.search(r"\d+", meta)
    assert found, meta
    matching = int(found.group())  # "17 matching documents", "找到 17 个符合条件的结果"
    assert matching < 40, meta
    assert log.problems() == []


def scheme(page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def toggle_palette(page) -> None:
    page.locator('form[data-md-component="palette"] label:not([hidden])').click()


def test_dark_mode_toggle_works_and_persists_across_pages_and_editions(new_page, site_url: str) -> None:
    page, log = new_page(color_scheme="light")
    goto(page, site_url)
    assert scheme(page) == "default"
    light_bg = background(page)

    toggle_palette(page)
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    dark_bg = background(page)
    assert dark_bg != light_bg, "the toggle changed the attribute but not the page's colours"

    # A reader follows the "next" link and then opens the field reference: still dark.
    page.locator("a.md-footer__link--next").click()
    page.wait_for_load_state("networkidle")
    assert urlsplit(page.url).path != urlsplit(site_url).path
    assert scheme(page) == "slate"
    assert background(page) == dark_bg
    goto(page, urljoin(site_url, BUDGET_PAGE))
    assert scheme(page) == "slate"
    # The language switcher (a menu that opens on hover) leads to the English page: still dark.
    page.locator(".md-header .md-select").first.hover()
    with page.expect_navigation():
        page.locator('.md-header .md-select a[hreflang="en"]').first.click()
    page.wait_for_load_state("networkidle")
    assert urlsplit(page.url).path == urlsplit(urljoin(site_url, "en/" + BUDGET_PAGE)).path
    assert scheme(page) == "slate"

    # And back to light, which sticks as well.
    toggle_palette(page)
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    goto(page, site_url)
    assert scheme(page) == "default"
    assert background(page) == light_bg
    assert log.problems() == []


# Every change of data-md-color-switching on <body>, from the first script on.
WATCH_SWITCHING = """
window.__switching = [];
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target === document.body) window.__switching.push(r.oldValue === null ? 'set' : 'removed');
  }
}).observe(document, {attributes: true, attributeOldValue: true, subtree: true,
                      attributeFilter: ['data-md-color-switching']});
"""


@pytest.mark.parametrize("root", ["", "en/"])
def test_loading_a_page_is_not_a_colour_switch_but_the_toggle_is(new_page, site_url: str, root: str) -> None:
    """palette-load.js: at load Material's palette does not mark <body> as switching (which
    restyles every element twice); the reader's toggle still does, transitions off meanwhile."""
    page, log = new_page(color_scheme="light")
    page.add_init_script(WATCH_SWITCHING)
    goto(page, urljoin(site_url, root + BUDGET_PAGE))
    page.wait_for_function("document.readyState === 'complete'")
    assert page.evaluate("window.__switching") == []
    assert page.evaluate("document.querySelector('meta[name=theme-color]')?.content"), (
        "Material's palette did not run at load (it sets the theme-color meta)"
    )
    toggle_palette(page)
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.wait_for_function("window.__switching.includes('removed')")
    assert page.evaluate("window.__switching") == ["set", "removed"]
    assert log.problems() == []


def test_dark_mode_follows_the_system_preference(new_page, site_url: str) -> None:
    page, log = new_page(color_scheme="dark")
    for root in ("", "en/"):
        goto(page, urljoin(site_url, root))
        assert scheme(page) == "slate", root
    assert log.problems() == []


@pytest.mark.parametrize("edition_root", ["", "en/"], ids=["zh", "en"])
def test_code_copy_button_copies_the_block(new_page, site_url: str, edition_root: str) -> None:
    page, log = new_page(permissions=["clipboard-read", "clipboard-write"])
    goto(page, urljoin(site_url, edition_root))
    # Material adds a block's copy button when the block first comes into view (content.lazy),
    # so the reader scrolls to the first code block before the button is there to click.
    block = page.locator("div.highlight:visible").first
    block.scroll_into_view_if_needed()
    block.locator("button.md-code__button[data-md-type=copy]").wait_for(state="attached")
    expected = block.locator("pre > code").inner_text()
    assert expected.strip(), "the first code block is empty"
    page.evaluate("navigator.clipboard.writeText('clipboard before the click')")

    block.hover()  # the button shows on hover, as for a reader with a mouse
    block.locator("button.md-code__button[data-md-type=copy]").click()
    page.wait_for_function("navigator.clipboard.readText().then(t => t !== 'clipboard before the click')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.rstrip("\n") == expected.rstrip("\n")
    # Material confirms the copy in its dialog, in the page's language.
    dialog = page.locator(".md-dialog__inner")
    dialog.wait_for(state="visible")
    print(f"\ncopied {len(copied)} characters on /{edition_root}; the page said {dialog.inner_text()!r}")
    assert log.problems() == []


@pytest.mark.parametrize("edition_root", ["", "en/"], ids=["zh", "en"])
def test_dark_mode_pages_pass_axe_too(new_page, site_url: str, axe_source: str, edition_root: str) -> None:
    """Contrast in the dark scheme: the home, a chapter and a field page, with axe-core."""
    page, log = new_page(color_scheme="dark")
    found = []
    for rel in ("", "chapters/06-context-packet/", "reference/request/candidates/kind/"):
        goto(page, urljoin(site_url, edition_root + rel))
        assert scheme(page) == "slate"
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                 .map(v => `${v.id} (${v.impact}): ` + v.nodes.slice(0, 5).map(n => n.target.join(' ')
                 + ' ' + (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 200)).join(' | '))"""
        )
        found += [f"/{edition_root}{rel}: {v}" for v in violations]
    assert found == [], "\n".join(found)
    assert log.problems() == []


@pytest.mark.parametrize("edition_root", ["", "en/"], ids=["zh", "en"])
def test_search_index_loads_only_when_the_reader_searches(new_page, site_url: str, edition_root: str) -> None:
    # search-on-demand.js: a page view that never searches does not download the index.
    page, log = new_page()
    goto(page, urljoin(site_url, edition_root))
    page.wait_for_timeout(500)
    index_requests = [url for url in log.requests if url.endswith("search/search_index.json")]
    assert index_requests == [], index_requests
    assert not [url for url in log.requests if "/workers/search." in url]
    page.locator("input.md-search__input").click()
    page.wait_for_load_state("networkidle")
    index_requests = [url for url in log.requests if url.endswith("search/search_index.json")]
    assert index_requests == [urljoin(site_url, edition_root + "search/search_index.json")]
    assert [url for url in log.requests if "/workers/search." in url]
    assert log.problems() == []


FRAGMENT_ADDRESSES = [
    "en/reference/request/candidates/kind/#example",
    "reference/request/candidates/kind/#example",
    "chapters/06-context-packet/test-paths/#conflict-refresh",
]


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("address", FRAGMENT_ADDRESSES)
def test_an_address_with_a_fragment_lands_on_its_heading(new_page, site_url: str, address: str, width: int):
    """Below examples laid out after the first scroll (content-visibility did that once), the
    heading of #example ended 331 px above the screen on a phone (a11y.js scrolls again)."""
    page, log = new_page(viewport={"width": width, "height": 740})
    page.goto(urljoin(site_url, address))
    page.wait_for_load_state("load")
    ident = address.split("#", 1)[1]
    seen = settled_top(page, ident)
    header = page.evaluate("() => document.querySelector('.md-header').getBoundingClientRect().bottom")
    assert header <= seen <= header + 60, f"#{ident} at {seen:.0f} px, the header ends at {header:.0f} px"
    assert log.problems() == []


def settled_top(page, ident: str) -> float:
    """Where the element ``ident`` stops: read until two reads 200 ms apart agree (at most 5 s)."""

    def top() -> float:
        return page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", ident)

    seen, before = top(), None
    for _ in range(25):
        if before is not None and abs(seen - before) < 1:
            break
        page.wait_for_timeout(200)
        seen, before = top(), seen
    return seen


def test_a_fragment_followed_at_once_wins_over_the_one_before(new_page, site_url: str):
    """The page scrolls to its #fragment again for a few frames; a link followed meanwhile
    (a moved address's alias is replaced this way) must not be scrolled back to the first one:
    under load, CI saw API anchors left 400 to 2,000 px down."""
    page, log = new_page(viewport={"width": 360, "height": 740})
    page.goto(urljoin(site_url, "reference/request/candidates/kind/#example"), wait_until="load")
    page.evaluate("() => { location.hash = '#rules'; }")
    header = page.evaluate("() => document.querySelector('.md-header').getBoundingClientRect().bottom")
    top = settled_top(page, "rules")
    assert header <= top <= header + 60, f"#rules at {top:.0f} px, the header ends at {header:.0f} px"
    page.goto(urljoin(site_url, "reference/request/candidates/kind/#%E0%A4"), wait_until="load")
    assert log.problems() == []  # a fragment that is not UTF-8 is no error


@pytest.mark.parametrize("path", ["", "chapters/06-context-packet/rules/", "en/", "en/reference/cli/"])
def test_without_javascript_no_page_scrolls_sideways(new_page, site_url: str, path: str) -> None:
    """Without JavaScript the language button stands at the header's right edge, and its hidden
    menu, centred under it, reached past a 320 px screen: the whole page scrolled sideways."""
    page, _ = new_page(java_script_enabled=False, viewport={"width": 320, "height": 700})
    response = page.goto(urljoin(site_url, path))
    assert response is not None and response.status == 200
    assert page.evaluate("document.documentElement.classList.contains('no-js')")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 320
    button = page.locator(".md-header .md-select").first
    button.hover()
    menu = page.locator(".md-header .md-select__inner").first
    menu.wait_for(state="visible")
    settle(page)  # Material's opening transition
    box = menu.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320, box


@pytest.mark.parametrize(
    ("edition_root", "words"), [("", "网络可能断了"), ("en/", "the connection may be down")]
)
def test_search_without_a_connection_says_so(new_page, site_url: str, edition_root: str, words: str) -> None:
    """The index is fetched when the reader first searches: if the connection has gone since the
    page loaded, the box said "Initializing search" for ever."""
    page, _ = new_page(viewport={"width": 1280, "height": 800})
    goto(page, urljoin(site_url, edition_root))
    page.route("**/search/search_index.json", lambda route: route.abort("internetdisconnected"))
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially("budget", delay=30)
    meta = page.locator(".md-search-result__meta")
    meta.filter(has_text=words).wait_for(state="visible", timeout=10_000)


@pytest.mark.parametrize("path", ["", "en/reference/cli/"])
def test_without_javascript_the_tab_key_stops_only_on_what_is_shown(
    new_page, site_url: str, path: str
) -> None:
    """Without JavaScript the palette's radio buttons were focusable with no label shown."""
    page, _ = new_page(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    page.goto(urljoin(site_url, path))
    hidden = []
    for _ in range(12):
        page.keyboard.press("Tab")
        settle(page)  # Material's focus transitions (the skip link slides in)
        focused = page.evaluate(
            """() => { const e = document.activeElement; const r = e.getBoundingClientRect();
                       return {what: e.outerHTML.slice(0, 120), shown: r.width > 1 && r.height > 1
                               && getComputedStyle(e).visibility !== 'hidden' && getComputedStyle(e).opacity !== '0'}; }"""
        )
        if not focused["shown"]:
            hidden.append(focused["what"])
    assert hidden == []


@pytest.mark.parametrize(("path", "word"), [("chapters/06-context-packet/rules/", "预算"), ("en/", "budget")])
def test_a_followed_search_result_marks_the_words_on_its_page(
    new_page, site_url: str, path: str, word: str
) -> None:
    """A search result opens its page with ?h=: the index, loaded only on intent, was never
    loaded there, and nothing was marked."""
    page, _ = new_page(viewport={"width": 1280, "height": 800})
    goto(page, urljoin(site_url, path) + "?h=" + word)
    marks = page.locator(".md-content mark[data-md-highlight]")
    marks.first.wait_for(state="attached", timeout=15_000)
    assert word.lower() in marks.first.text_content().lower()


def test_tab_labels_are_not_underlined_like_links(new_page, site_url: str) -> None:
    page, _ = new_page(viewport={"width": 1280, "height": 800})
    goto(page, urljoin(site_url, "chapters/06-context-packet/test-paths/"))
    decorations = page.evaluate(
        """() => ({tab: getComputedStyle(document.querySelector('.tabbed-labels a')).textDecorationLine,
                   link: getComputedStyle(document.querySelector('.md-content a[href^="../"]')).textDecorationLine})"""
    )
    assert decorations == {"tab": "none", "link": "underline"}


@pytest.mark.parametrize("edition_root", ["", "en/"])
def test_on_a_phone_names_stay_whole_and_section_arrows_fit_a_finger(
    new_page, site_url: str, edition_root: str
) -> None:
    """At 360 px the reference index broke JSON paths mid-word (`$.candidat|es[i].kind`), and the
    arrows that open a section of the navigation were 20 px wide (WCAG 2.5.8 asks 24)."""
    page, _ = new_page(viewport={"width": 360, "height": 740})
    goto(page, urljoin(site_url, edition_root + "reference/"))
    measured = page.evaluate(
        """() => ({
          broken: Array.from(document.querySelectorAll('.md-typeset table td:first-child > code:only-child'))
            .filter(code => code.getClientRects().length > 1).map(code => code.textContent),
          names: document.querySelectorAll('.md-typeset table td:first-child > code:only-child').length,
          arrows: Array.from(document.querySelectorAll('.md-nav__container > label.md-nav__link'))
            .map(label => { const r = label.getBoundingClientRect(); return [label.id, r.width, r.height]; }),
        })"""
    )
    assert measured["names"] > 20 and measured["broken"] == []
    assert measured["arrows"] and all(w >= 24 and h >= 24 for _, w, h in measured["arrows"]), measured[
        "arrows"
    ]


@pytest.mark.parametrize(
    "address",
    [
        "reference/request/candidates/kind/",
        "en/reference/request/candidates/kind/",
        "chapters/06-context-packet/test-paths/",
    ],
)
def test_every_example_is_in_the_accessibility_tree_before_the_reader_scrolls(
    new_page, site_url: str, address: str
):
    """A screen reader reads the page from Chromium's accessibility tree. With the tab sets laid
    out only near the screen (content-visibility: auto), Chromium left every example below the
    first screen out of it: 9 of the kind page's 18 tabs, and its decision tables, were not there
    for browse mode to reach."""
    page, log = new_page(viewport={"width": 1280, "height": 800})
    page.goto(urljoin(site_url, address))
    page.wait_for_load_state("load")
    cdp = page.context.new_cdp_session(page)
    document = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    article = cdp.send("DOM.querySelector", {"nodeId": document, "selector": "article"})["nodeId"]
    backend = cdp.send("DOM.describeNode", {"nodeId": article})["node"]["backendNodeId"]

    def exposed(role: str) -> int:
        found = cdp.send("Accessibility.queryAXTree", {"backendNodeId": backend, "role": role})["nodes"]
        return sum(1 for node in found if not node.get("ignored"))

    tabs = page.evaluate("() => document.querySelectorAll('article .tabbed-set > input').length")
    tables = page.evaluate(
        "() => document.querySelectorAll('article .tabbed-block:first-child table').length"
    )
    assert tabs >= 9 and tables >= 1, (tabs, tables)
    assert exposed("radio") == tabs, "tabs of examples missing from the accessibility tree"
    assert exposed("table") >= tables, (
        "tables of the examples' first tabs missing from the accessibility tree"
    )
    assert log.problems() == []


def test_search_results_are_named_links_and_add_no_headings(new_page, site_url: str) -> None:
    """Chromium names no link from its content through an <article>: a screen reader said only
    "link" for each of Material's results, and each result added an h1 or h2 to the page."""
    page, log = new_page(viewport={"width": 1280, "height": 800})
    search(page, site_url, "en/", "budget")
    page.wait_for_timeout(300)  # a11y.js names the results the list's last change added
    cdp = page.context.new_cdp_session(page)
    document = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    results = cdp.send("DOM.querySelector", {"nodeId": document, "selector": ".md-search-result"})["nodeId"]
    backend = cdp.send("DOM.describeNode", {"nodeId": results})["node"]["backendNodeId"]

    def exposed(role: str) -> list[dict]:
        found = cdp.send("Accessibility.queryAXTree", {"backendNodeId": backend, "role": role})["nodes"]
        return [node for node in found if not node.get("ignored")]

    links = exposed("link")
    assert len(links) >= 3, links
    unnamed = [link for link in links if not link.get("name", {}).get("value", "").strip()]
    assert unnamed == [], f"{len(unnamed)} of {len(links)} results have no name"
    assert exposed("heading") == []
    assert page.locator(".md-search-result__meta").get_attribute("role") == "status"
    assert log.problems() == []


@pytest.mark.parametrize("from_a_result", [False, True], ids=["from the box", "from a result"])
def test_escape_from_the_search_gives_the_focus_back(new_page, site_url: str, from_a_result: bool) -> None:
    """Escape closed the search and left the focus on the page's body: the next Tab started
    over from the top of the page. From a result (reached with the arrow keys) Chromium moves
    the focus off the hidden link only when it next renders."""
    page, log = new_page(viewport={"width": 1280, "height": 800})
    goto(page, urljoin(site_url, "en/chapters/06-context-packet/"))
    link = page.locator("article a[href]").first
    link.focus()
    page.keyboard.press("/")  # Material's shortcut to the search box
    page.wait_for_function("() => document.activeElement.matches('input.md-search__input')")
    page.keyboard.type("budget")
    if from_a_result:
        page.locator(".md-search-result__link").first.wait_for(state="visible", timeout=15_000)
        page.keyboard.press("ArrowDown")
        page.wait_for_function("() => document.activeElement.matches('.md-search-result__link')")
    page.keyboard.press("Escape")
    # a11y.js gives the focus back a frame and a task after the key.
    wait_until(
        page, "el => document.activeElement === el", "the focus is back on the link", link.element_handle()
    )
    settle(page)
    assert page.evaluate("el => document.activeElement === el", link.element_handle())
    assert log.problems() == []


def test_an_escape_before_the_search_has_opened_still_closes_it(new_page, site_url: str) -> None:
    """Material opens the search 1 ms after its box gets the focus and handles Escape only once
    it is open: an Escape that came first (a busy page, or a run of this file's test above beside
    other work) was ignored, the search opened after it, and the focus stayed in the box. Both
    keys are sent here in one task, before that timer can run."""
    page, log = new_page(viewport={"width": 1280, "height": 800})
    goto(page, urljoin(site_url, "en/chapters/06-context-packet/"))
    link = page.locator("article a[href]").first
    link.focus()
    order = page.evaluate(
        """() => {
          const key = k => document.activeElement.dispatchEvent(
            new KeyboardEvent('keydown', {key: k, bubbles: true, cancelable: true}));
          key('/');
          const inBox = document.activeElement.matches('input.md-search__input');
          const openAtEscape = document.getElementById('__search').checked;
          key('Escape');
          return {inBox, openAtEscape};
        }"""
    )
    assert order == {"inBox": True, "openAtEscape": False}, f"the race was not set up: {order}"
    wait_until(
        page, "el => document.activeElement === el", "the focus is back on the link", link.element_handle()
    )
    settle(page)
    assert not page.evaluate("document.getElementById('__search').checked"), "the search opened after Escape"
    assert page.evaluate("el => document.activeElement === el", link.element_handle())
    assert log.problems() == []


WATCH_TABLES = """
window.hbTablesTakenOut = 0;
new MutationObserver(records => {
  for (const record of records) {
    for (const node of record.removedNodes) if (node.nodeName === 'TABLE') window.hbTablesTakenOut++;
  }
}).observe(document, {childList: true, subtree: true});
"""
"""Counts the tables taken out of the page, from before its first byte is parsed."""


@pytest.mark.parametrize(
    "rel", ["reference/request/candidates/kind/", "en/reference/request/candidates/kind/"]
)
def test_no_table_is_taken_out_and_put_back_when_the_page_loads(new_page, site_url: str, rel: str) -> None:
    """Material's bundle took every table out of the page and put it back in its scroll box:
    laid out and painted twice, the table cell was the Chinese field page's largest paint, after
    the bundle (hooks/material_patches.py). Built in the scroll box, it stays where it is."""
    page, log = new_page(viewport={"width": 412, "height": 823})
    page.add_init_script(WATCH_TABLES)
    goto(page, urljoin(site_url, rel))
    settle(page)
    shape = page.evaluate(
        """() => ({
          tables: document.querySelectorAll('article table').length,
          boxed: document.querySelectorAll(
            'article .md-typeset__scrollwrap > .md-typeset__table > table:not([class])').length,
          nested: document.querySelectorAll('.md-typeset__table .md-typeset__scrollwrap').length,
          // Material's mount of the page's content has run: it adds these to the tab sets in
          // the same pass as it goes over the tables.
          mounted: document.querySelectorAll('.tabbed-control').length > 0,
          takenOut: window.hbTablesTakenOut,
        })"""
    )
    assert shape["mounted"], shape
    assert shape["tables"] >= 3 and shape["boxed"] == shape["tables"], shape
    assert shape["nested"] == 0 and shape["takenOut"] == 0, shape
    assert log.problems() == []


def test_with_javascript_the_tab_key_stops_only_on_what_is_shown(new_page, site_url: str) -> None:
    """The search results' scroll box was a Tab stop while the search was closed: focus went to
    an invisible element with no name, on every page."""
    page, log = new_page(viewport={"width": 1280, "height": 800})
    goto(page, urljoin(site_url, "en/chapters/06-context-packet/"))
    hidden = []
    for _ in range(14):
        page.keyboard.press("Tab")
        settle(page)
        focused = page.evaluate(
            """() => { const e = document.activeElement;
                       // The palette's radio buttons show their focus on the label that follows
                       // them (Material's stylesheet), which switches to the other scheme.
                       const shown = (el) => { if (!el) return false; const r = el.getBoundingClientRect();
                         const s = getComputedStyle(el);
                         return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' && s.opacity !== '0'; };
                       const next = e.matches('input.md-option') ? e.nextElementSibling : null;
                       return {what: e.outerHTML.slice(0, 120), shown: shown(e) || shown(next)}; }"""
        )
        if not focused["shown"]:
            hidden.append(focused["what"])
    assert hidden == []
    assert log.problems() == []


@pytest.mark.parametrize("width", [1200, 360])
def test_the_keyboard_opens_the_navigation_drawer_and_reaches_only_what_is_shown(
    new_page, site_url: str, width: int
) -> None:
    """At 1220 px and narrower the navigation is a drawer. Its menu control was a <label> the Tab
    key never reached, while the closed drawer's links, off the screen, took the focus."""
    page, log = new_page(viewport={"width": width, "height": 700})
    goto(page, urljoin(site_url, "chapters/06-context-packet/"))
    stops = []
    for _ in range(10):
        page.keyboard.press("Tab")
        settle(page)
        stops.append(
            page.evaluate(
                """() => { const e = document.activeElement; const r = e.getBoundingClientRect();
                           const shown = (el) => { if (!el) return false; const b = el.getBoundingClientRect();
                             return b.width > 1 && b.height > 1 && b.right > 0 && b.left < innerWidth
                               && getComputedStyle(el).visibility !== 'hidden'; };
                           const next = e.matches('input.md-option') ? e.nextElementSibling : null;
                           return {what: e.outerHTML.slice(0, 100), drawer: e.matches('.hb-drawer-button'),
                                   shown: shown(e) || shown(next)}; }"""
            )
        )
    assert [s["what"] for s in stops if not s["shown"]] == []
    assert any(s["drawer"] for s in stops), [s["what"] for s in stops]
    button = page.locator(".hb-drawer-button")
    assert button.get_attribute("aria-label") == "导航"
    assert button.get_attribute("aria-expanded") == "false"
    button.focus()
    page.keyboard.press("Enter")
    wait_until(page, FOCUS_IN_DRAWER, "the focus goes into the open drawer")  # 50 ms after the slide starts
    settle(page)
    assert button.get_attribute("aria-expanded") == "true"
    assert page.evaluate("() => document.getElementById('__drawer').checked")
    assert page.evaluate("() => !!document.activeElement.closest('.md-sidebar--primary')")
    page.keyboard.press("Escape")
    settle(page)
    assert button.get_attribute("aria-expanded") == "false"
    assert page.evaluate("() => document.activeElement.matches('.hb-drawer-button')")
    assert (
        page.evaluate("() => getComputedStyle(document.querySelector('.md-sidebar--primary')).visibility")
        == "hidden"
    )
    assert log.problems() == []


FOCUS_IN_DRAWER = "() => !!document.activeElement.closest('.md-sidebar--primary')"

SEEN_FOCUS = """() => { const e = document.activeElement; const r = e.getBoundingClientRect();
    const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
    const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    return {what: (e.textContent || e.getAttribute('aria-label') || e.tagName).trim().slice(0, 30),
            inDrawer: !!e.closest('.md-sidebar--primary'),
            seen: r.width > 1 && r.height > 1 && !!hit && (hit === e || e.contains(hit) || hit.contains(e))}; }"""


@pytest.mark.parametrize("width", [375, 768])
def test_the_open_drawer_takes_the_tab_key_round_what_it_shows(new_page, site_url: str, width: int) -> None:
    """The open drawer shows one panel, the deepest section opened. The parent's links under it,
    the closed sections beside it and the page's contents list (transparent until opened) took
    the focus unseen, and a Tab press could leave a blank drawer; after the last link the focus
    went on to the page behind the overlay. Now every stop is a control the reader sees, the Tab
    key goes round the panel, a panel's title goes back up, and a tap on the overlay, like
    Escape, gives the focus back to the menu button."""
    page, log = new_page(viewport={"width": width, "height": 812})
    goto(page, urljoin(site_url, "chapters/06-context-packet/rules/"))
    button = page.locator(".hb-drawer-button")
    button.focus()
    page.keyboard.press("Enter")
    wait_until(page, FOCUS_IN_DRAWER, "the focus goes into the open drawer")
    settle(page)
    stops = []
    for _ in range(25):
        stops.append(page.evaluate(SEEN_FOCUS))
        page.keyboard.press("Tab")
        settle(page)
    assert [s for s in stops if not (s["seen"] and s["inDrawer"])] == [], stops
    names = [s["what"] for s in stops]
    assert "确定性规则" in names  # this page's own item, which opens its contents
    assert "首页" not in names  # the top level, under the chapter's panel
    assert names[0] in names[1:]  # round the panel: it came back to the start
    # The panel's title goes back up to the top level, where every section can be opened.
    page.evaluate(
        "() => document.querySelector('.md-sidebar--primary label.md-nav__title[for=\"__nav_2\"]').focus()"
    )
    page.keyboard.press("Enter")
    # a11y.js moves the focus once the panel has slid (300 ms).
    wait_until(
        page,
        "() => document.activeElement.matches('label.md-nav__link[for=\"__nav_2\"]')",
        "back up, the focus is on the label that opens the panel just left",
    )
    settle(page)
    # Back up, the focus is on the label that opens the panel just left.
    assert page.evaluate("() => document.activeElement.matches('label.md-nav__link[for=\"__nav_2\"]')")
    stops = []
    for _ in range(12):
        page.keyboard.press("Tab")
        settle(page)
        stops.append(page.evaluate(SEEN_FOCUS))
    assert [s for s in stops if not (s["seen"] and s["inDrawer"])] == [], stops
    assert {"首页", "字段参考", "参考", "操作指南"} <= {s["what"] for s in stops}, stops
    # The drawer's title closes it, and says so to a screen reader (only while it is open); the
    # overlay says it too, and the panel shown is a landmark named by its title, the others inert.
    title = page.locator("label.md-nav__title[for='__drawer']")
    assert title.inner_text().startswith("关闭导航："), title.inner_text()
    assert page.locator("label.md-overlay").text_content() == "关闭导航"
    landmarks = page.evaluate(
        """() => [...document.querySelectorAll('.md-sidebar--primary nav.md-nav')]
             .filter(nav => !nav.closest('[inert]')).map(nav => nav.getAttribute('aria-label') || '')"""
    )
    assert landmarks and all(landmarks), landmarks
    page.keyboard.press("Escape")
    settle(page)
    assert page.evaluate("() => document.activeElement.matches('.hb-drawer-button')")
    assert page.evaluate("() => document.querySelectorAll('[inert]').length") == 0
    assert not page.evaluate(  # closed: the titles say nothing more than they show
        "() => [...document.querySelectorAll('.md-nav__title .hb-visually-hidden')].some(s => !s.hidden)"
    )
    button.click()
    wait_until(page, FOCUS_IN_DRAWER, "the focus goes into the open drawer")
    settle(page)
    page.mouse.click(width - 10, 400)  # the dimmed page beside the drawer
    settle(page)
    assert not page.evaluate("() => document.getElementById('__drawer').checked")
    assert page.evaluate("() => document.activeElement.matches('.hb-drawer-button')")
    assert page.evaluate("() => document.querySelectorAll('[inert]').length") == 0
    # The drawer's own title closes it, by Enter or Space, and the drawer stays closed (Enter
    # pressed the menu button too, once the focus had moved to it, and opened it again).
    for key in ("Enter", " "):
        button.focus()
        page.keyboard.press("Enter")
        wait_until(page, FOCUS_IN_DRAWER, "the focus goes into the open drawer")
        settle(page)
        # At the top level, where the drawer's title is shown (a11y.js makes it reachable again
        # once the panel has slid back, 300 ms after the change).
        page.evaluate("() => { const up = document.getElementById('__nav_2'); if (up.checked) up.click(); }")
        wait_until(
            page,
            "() => !document.querySelector('label.md-nav__title[for=\"__drawer\"]').closest('[inert]')",
            "the drawer's title is reachable at the top level",
        )
        settle(page)
        page.evaluate("() => document.querySelector('label.md-nav__title[for=\"__drawer\"]').focus()")
        page.keyboard.press(key)
        page.wait_for_timeout(500)
        assert not page.evaluate("() => document.getElementById('__drawer').checked"), key
        assert page.evaluate("() => document.activeElement.matches('.hb-drawer-button')"), key
    assert log.problems() == []


def test_on_a_wide_screen_the_navigation_takes_no_drawer_stops(new_page, site_url: str) -> None:
    """The drawer's labels are Tab stops only while the drawer is open on a narrow screen: on a
    wide one the navigation's title opened the hidden drawer from the keyboard."""
    page, log = new_page(viewport={"width": 1300, "height": 800})
    goto(page, urljoin(site_url, "chapters/06-context-packet/rules/"))
    for _ in range(30):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement.matches('label.md-nav__title, label[for=\"__toc\"]')"
        )
        assert not focused
    assert not page.evaluate("() => document.getElementById('__drawer').checked")
    assert page.evaluate("() => document.querySelectorAll('[inert]').length") == 0
    # Material's own rule was more specific than the one hiding the menu button: it showed here.
    assert not page.locator(".hb-drawer-button").is_visible()
    assert log.problems() == []


def test_a_tap_on_a_tab_label_under_a_hidden_scroll_arrow_changes_the_tab(new_page, site_url: str) -> None:
    """Material keeps a tab set's hidden scroll arrows in the layout, transparent, and their
    buttons took the taps meant for the first tab's label under them: on a phone the tab did not
    change. On a touch screen the copy buttons, shown on hover elsewhere, are not 7 % grey."""
    page, log = new_page(viewport={"width": 375, "height": 812}, has_touch=True, is_mobile=True)
    goto(page, urljoin(site_url, "reference/result/state/"))
    where = page.evaluate(
        """() => { for (const set of document.querySelectorAll('.tabbed-set')) {
             const hidden = set.querySelector('.tabbed-control--prev[hidden] .tabbed-button');
             const first = set.querySelector('.tabbed-labels > label');
             if (!hidden || !first) continue;
             const b = hidden.getBoundingClientRect(), l = first.getBoundingClientRect();
             if (b.width < 1 || b.right <= l.left || b.left >= l.right) continue;
             set.scrollIntoView({block: 'center'});
             // Another tab selected, without the events that would scroll the labels.
             const inputs = set.querySelectorAll(':scope > input');
             inputs[inputs.length - 1].checked = true;
             const r = hidden.getBoundingClientRect();
             return {x: r.left + r.width / 2, y: r.top + r.height / 2,
                     input: document.getElementById(first.htmlFor).id}; }
           return null; }"""
    )
    assert where, "no tab set whose hidden scroll arrow lies over its first label"
    assert not page.evaluate("id => document.getElementById(id).checked", where["input"])
    page.touchscreen.tap(where["x"], where["y"])
    page.wait_for_timeout(300)
    assert page.evaluate("id => document.getElementById(id).checked", where["input"])
    colours = page.evaluate(
        """() => { const probe = document.createElement('span');
             probe.style.color = 'var(--md-default-fg-color--lightest)';
             document.querySelector('.md-typeset').append(probe);
             const lightest = getComputedStyle(probe).color; probe.remove();
             return [getComputedStyle(document.querySelector('.md-code__button')).color, lightest]; }"""
    )
    assert colours[0] != colours[1], colours
    assert log.problems() == []


def test_the_language_switcher_keeps_the_section(new_page, site_url: str) -> None:
    """From a section of a long page the other edition opened at its top; both give each heading
    the same id, so the section goes along."""
    page, log = new_page(viewport={"width": 375, "height": 812})
    goto(page, urljoin(site_url, "chapters/06-context-packet/rules/#budget-fit"))
    page.locator(".md-select > button").click()
    page.locator("a.md-select__link[hreflang='en']").click()
    page.wait_for_url("**/en/chapters/06-context-packet/rules/#budget-fit")
    page.wait_for_timeout(300)
    top = page.evaluate("() => document.getElementById('budget-fit').getBoundingClientRect().top")
    assert 0 <= top < 200, top
    assert log.problems() == []


@pytest.mark.parametrize(("root", "name"), [("", "搜索"), ("en/", "Search")])
def test_tables_on_a_phone_keep_readable_columns_and_the_search_icon_has_a_name(
    new_page, site_url: str, root: str, name: str
) -> None:
    """At 375 px Material fitted every table to the screen: the boundaries page's checklist came
    out in columns of two or three words, and a file path broke at any letter. A column keeps
    room for a few words now, and a wider table scrolls in its box, never the page. The header's
    search icon was an unnamed image to a screen reader."""
    page, log = new_page(viewport={"width": 375, "height": 812})
    goto(page, urljoin(site_url, root + "chapters/06-context-packet/boundaries/"))
    seen = page.evaluate(
        """() => { const table = document.querySelector('#checklist ~ .md-typeset__scrollwrap table');
             const widths = [...table.rows[1].cells].map(c => c.getBoundingClientRect().width);
             const paths = [...table.querySelectorAll('td code')].map(c => c.getClientRects().length);
             return {narrowest: Math.min(...widths), broken: paths.filter(n => n > 1).length,
                     page: document.scrollingElement.scrollWidth - innerWidth}; }"""
    )
    assert seen["narrowest"] >= 90 and seen["broken"] == 0 and seen["page"] == 0, seen
    label = page.locator(".md-header label.md-header__button[for='__search']")
    assert (
        label.text_content().strip() == name and label.locator("svg").get_attribute("aria-hidden") == "true"
    )
    assert log.problems() == []


def test_space_opens_and_closes_a_navigation_section(new_page, site_url: str) -> None:
    """Enter toggled a section of the navigation from its focused label; Space did nothing."""
    page, log = new_page(viewport={"width": 1280, "height": 800})
    # The navigation is pruned: a section is a toggle only on the path of the page being read
    # (elsewhere it is a link to its index page), so the page is one two sections deep.
    goto(page, urljoin(site_url, "reference/request/candidates/kind/"))
    label = page.locator("label.md-nav__link[for][tabindex='0']").first
    toggle_id = label.get_attribute("for")
    before = page.evaluate("id => document.getElementById(id).checked", toggle_id)
    label.focus()
    scroll = page.evaluate("() => scrollY")
    page.keyboard.press(" ")
    assert page.evaluate("id => document.getElementById(id).checked", toggle_id) is (not before)
    page.keyboard.press(" ")
    assert page.evaluate("id => document.getElementById(id).checked", toggle_id) is before
    assert page.evaluate("() => scrollY") == scroll
    assert log.problems() == []
