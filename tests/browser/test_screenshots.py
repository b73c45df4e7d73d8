"""Screenshots for a person to look at, and a check that Chinese text renders as glyphs.

Home, a chapter page and a field page, in each edition, light and dark: PNG files in
artifacts/screenshots/, their paths printed (CI keeps its log; the folder is gitignored).
"""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

pytestmark = pytest.mark.browser

PAGES = {
    "home": "",
    "chapter": "chapters/06-context-packet/rules/",
    "field": "reference/request/candidates/kind/",
}
EDITIONS = {"zh": "", "en": "en/"}
SCHEMES = {"light": "default", "dark": "slate"}

# Draw characters on a canvas in the page's own text font and compare the pixels: a character
# that no installed font has comes out as the same "tofu" box as a noncharacter (U+10FFFD),
# and two different characters that both come out alike are boxes too.
GLYPHS_JS = """async (chars) => {
  await document.fonts.ready;
  const font = getComputedStyle(document.querySelector('.md-typeset')).fontFamily;
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const g = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (ch) => {
    g.clearRect(0, 0, 64, 64);
    g.fillStyle = '#000'; g.textBaseline = 'top'; g.font = `48px ${font}`;
    g.fillText(ch, 4, 4);
    const data = g.getImageData(0, 0, 64, 64).data;
    let ink = 0;
    for (let i = 3; i < data.length; i += 4) ink += data[i] > 0;
    return {key: Array.from(data).join(','), ink};
  };
  const tofu = draw(String.fromCodePoint(0x10FFFD)).key;
  const drawn = chars.map(ch => ({ch, ...draw(ch)}));
  return {font, glyphs: drawn.map(d => ({ch: d.ch, ink: d.ink, tofu: d.key === tofu,
    same_as_others: drawn.filter(o => o.key === d.key).length - 1}))};
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("page_name", PAGES)
def test_screenshot(new_page, site_url, artifacts_dir, browser_report, page_name, edition, scheme):
    page, log = new_page(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    url = urljoin(site_url, EDITIONS[edition] + PAGES[page_name])
    response = page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_selector("html[data-playground-ready]", state="attached", timeout=15_000)
    assert response is not None and response.status == 200, url
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == SCHEMES[scheme]
    page.evaluate("document.fonts.ready")

    folder = artifacts_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{edition}-{page_name}-{scheme}.png"
    page.screenshot(path=str(path))
    browser_report(f"screenshot: {path}  ({EDITIONS[edition] + PAGES[page_name] or '/'}, {scheme})")
    assert path.stat().st_size > 10_000, f"{path} is suspiciously small"
    assert log.problems() == []


@pytest.mark.usefixtures("cjk_font")
@pytest.mark.parametrize("page_name", PAGES)
def test_chinese_renders_without_tofu(new_page, site_url, page_name):
    page, log = new_page()
    page.goto(urljoin(site_url, PAGES[page_name]))
    page.wait_for_load_state("networkidle")
    # Characters from the page itself (its h1 and first paragraph), plus the search example.
    text = page.evaluate(
        "[...document.querySelectorAll('.md-content h1, .md-content p')].map(e => e.textContent).join('')"
    )
    chars = sorted({ch for ch in text if "\u4e00" <= ch <= "\u9fff"})[:12] + ["预", "算"]
    assert len(chars) > 4, f"no Chinese text found on {page_name}"
    result = page.evaluate(GLYPHS_JS, chars)
    bad = [g for g in result["glyphs"] if g["tofu"] or g["ink"] < 40 or g["same_as_others"]]
    print(f"\n{page_name}: {len(chars)} CJK characters drawn in {result['font']!r}")
    assert bad == [], f"characters drawn as boxes or not at all in {result['font']}: {bad}"
    assert log.problems() == []
