"""Every ``json title="request.json"`` example on every page, in both editions, run in the
playground (Debian's Chromium, the built site): what the page shows must be exactly what
CPython's builder returns for the same request.

The pages are visited as one reader would, in one browser context (``reader_page``): the first
page starts the runtime cold and stores its snapshot, the others start from it, so the
snapshot's runtime is checked against CPython on every example too. The runtime starts once
per page and serves all of that page's examples. The reader's other paths are in
test_playground.py; the two files are apart so that pytest-xdist can give them to two workers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests import soup
from tests.browser.test_playground import (
    EXAMPLE_PAGES,
    LOAD_TIMEOUT_MS,
    OPEN,
    READ_PANEL,
    assert_same_as_cpython,
    goto,
    page_url,
    runtime_start,
)
from tests.outcomes import DOCS, request_fences


def test_examples_exist():
    """Guard: the parametrized test below must not silently run on nothing."""
    assert EXAMPLE_PAGES, "no page has a request.json example"


def rendered_requests(site_root: Path, url: str) -> list[str]:
    """The request.json code blocks of a built page, as text (what a reader sees and copies).

    Read as an lxml tree (soup.tree, about 5 ms a page) rather than Beautiful Soup's (about 60 ms):
    this file reads 70 pages and the rest of its process never needs them."""
    document = soup.tree((site_root / url / "index.html").read_text(encoding="utf-8"))
    blocks = []
    for title in document.xpath('//span[@class="filename"][string() = "request.json"]'):
        code = title.getnext()
        assert code is not None and code.tag == "pre", f"{url}: a request.json title without its code"
        blocks.append(code.text_content())
    return blocks


CLICK_AT = """index => {
  const button = document.querySelectorAll({OPEN})[index];
  const box = button.getBoundingClientRect();
  if (box.width === 0 || box.height === 0 || getComputedStyle(button).visibility === "hidden") {
    button.click();  // e.g. in a collapsed block: a reader would expand it first
    return {visible: false, covered: null};
  }
  button.scrollIntoView({block: "center", inline: "nearest", behavior: "instant"});
  const at = button.getBoundingClientRect();
  const hit = document.elementFromPoint(at.left + at.width / 2, at.top + at.height / 2);
  if (!button.contains(hit)) {
    return {visible: true, covered: hit ? hit.outerHTML.slice(0, 160) : "nothing: outside the window"};
  }
  button.click();
  return {visible: true, covered: null};
}""".replace("{OPEN}", repr(OPEN))
"""Click Run control ``index``, in one call to the page, after what Playwright's ``click()``
checks for a visible control: scrolled into view, and the element at its centre is the control
(nothing covers it). Playwright's own scroll and click take about 130 ms an example, in five
calls to the page, for the 302 examples here; the reader's clicks with the pointer and the
keyboard are test_playground.py's. A control that is not visible (in a collapsed block) is
clicked as it is: a reader would expand the block first."""

RUN_AT = f"""async ([index, timeout]) => {{
  const clicked = ({CLICK_AT})(index);
  if (clicked.covered !== null) return {{clicked}};
  const control = document.querySelectorAll({OPEN!r})[index];
  const panel = document.getElementById(control.getAttribute('aria-controls'));
  const done = () => Number(panel.getAttribute('data-playground-runs') || 0) > 0;
  const finished = await new Promise(resolve => {{
    if (done()) return resolve(true);
    const watch = new MutationObserver(() => {{
      if (done()) {{ watch.disconnect(); clearTimeout(timer); resolve(true); }}
    }});
    const timer = setTimeout(() => {{ watch.disconnect(); resolve(false); }}, timeout);
    watch.observe(panel, {{attributes: true, attributeFilter: ['data-playground-runs']}});
  }});
  return {{clicked, finished, shown: finished ? ({READ_PANEL})(panel) : null}};
}}"""
"""Run example ``index`` in one call to the page: :data:`CLICK_AT`, then wait until its panel
has finished a run (the ``data-playground-runs`` attribute, as ``wait_done``), then read it
(:data:`READ_PANEL`). Three calls to the page and Playwright's polling took about 40 ms an
example beside the run itself."""


@pytest.mark.parametrize(
    "markdown", EXAMPLE_PAGES, ids=[p.relative_to(DOCS).as_posix() for p in EXAMPLE_PAGES]
)
def test_every_example_gives_cpythons_result(reader_page, site_server, site_url, markdown: Path):
    url = page_url(markdown)
    rendered = rendered_requests(Path(site_server.root), url)
    fences = request_fences(markdown)
    assert len(rendered) == len(fences), f"{url}: {len(fences)} request.json fences, {len(rendered)} rendered"
    page, log = reader_page()
    goto(page, site_url + url)
    controls = page.locator(OPEN)
    assert controls.count() == len(rendered), (
        f"{url}: {len(rendered)} request.json blocks, {controls.count()} Run controls"
    )
    started = time.monotonic()
    for index, (code, fence) in enumerate(zip(rendered, fences, strict=True)):
        where = f"{url} example {index + 1}"
        ran = page.evaluate(RUN_AT, [index, LOAD_TIMEOUT_MS])
        assert ran["clicked"]["covered"] is None, (
            f"{where}: the Run control is covered by {ran['clicked']['covered']}"
        )
        assert ran["finished"], f"{where}: no result within {LOAD_TIMEOUT_MS / 1000:.0f} s"
        shown = ran["shown"]
        # The editor holds the page's request, exactly as shown.
        assert shown["editor"] == code.rstrip("\n"), f"{where}: the editor does not hold the shown request"
        assert json.loads(shown["editor"]) == json.loads(fence), (
            f"{where}: the shown request is not the page's"
        )
        assert_same_as_cpython(shown, shown["editor"], where)
        if index == 0:
            first_run = time.monotonic() - started
    # One runtime per page: the wasm was fetched once, whatever the number of examples.
    wasm = [u for u in log.requests if u.endswith("/pyodide.asm.wasm")]
    assert len(wasm) == 1, wasm
    assert log.problems() == [], log.problems()
    print(
        f"{url}: {len(rendered)} examples, runtime ({runtime_start(page)}) ready and first result "
        f"after {first_run:.1f} s"
    )


def test_a_covered_control_is_reported_and_not_clicked(reader_page, site_url):
    """CLICK_AT's check can fail: under a layer that covers the page, no run starts."""
    page, _ = reader_page()
    goto(page, site_url + page_url(EXAMPLE_PAGES[0]))
    page.evaluate(
        """() => {
          const layer = document.createElement('div');
          layer.id = 'cover';
          layer.style.cssText = 'position:fixed;inset:0;z-index:1000';
          document.body.append(layer);
        }"""
    )
    clicked = page.evaluate(CLICK_AT, 0)
    assert clicked["visible"] and clicked["covered"].startswith('<div id="cover"'), clicked
    assert page.locator(OPEN).first.get_attribute("aria-expanded") != "true"
