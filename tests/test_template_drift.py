"""The templates copied from Material for MkDocs cannot drift silently from the installed theme.

Each file in overrides/ that copies one of Material's templates (or, for main.html, one of
base.html's blocks) must equal the installed original with only its intended edits applied.
When a Material upgrade changes one of those originals, this test fails and shows the new
upstream text: merge the upstream change into the override (or drop the override if upstream
now does the same), then update the edit below. pyproject.toml pins Material to the minor line
the overrides were copied from, so such an upgrade is always a deliberate change.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import material
import pytest

ROOT = Path(__file__).resolve().parents[1]
OVERRIDES = ROOT / "overrides"
MATERIAL = Path(material.__file__).parent / "templates"

COMMENT = re.compile(r"\A\s*\{#-.*?-#\}\n", re.S)

NAV_LABEL = (
    '              <label class="md-nav__link {{ class }}" for="{{ path }}" id="{{ path }}_label"'
    ' tabindex="{{ tabindex }}">\n'
)

# Each override: the original it copies, and its intended edits as (upstream text, our text).
PARTIALS: dict[str, list[tuple[str, str]]] = {
    # The 404 page's heading in the edition's language (Material writes it in English only), and
    # a line that leads back to the edition's home page (hooks/search_per_edition.py sets it).
    "404.html": [
        (
            "{% block content %}\n",
            "{#- Added: its own title (it had the home page's, the site's name alone). -#}\n"
            + "{% block htmltitle %}\n"
            + '  <title>{{ "404 - 页面不存在" if config.theme.language == "zh" else "404 - Not found" }} - {{ config.site_name }}</title>\n'
            + "{% endblock %}\n"
            + "{#- Added: a skip link (Material gives one only to a page with a table of contents: it took 28\n"
            + "    presses of Tab to reach the way on). -#}\n"
            + "{% block header %}\n"
            + '  <a href="#not-found" class="md-skip">{{ lang.t("action.skip") }}</a>\n'
            + "  {{ super() }}\n"
            + "{% endblock %}\n"
            + "{% block content %}\n",
        ),
        (
            "<h1>404 - Not found</h1>\n",
            '<h1 id="not-found">{{ "404 - 页面不存在" if config.theme.language == "zh" else "404 - Not found" }}</h1>\n'
            + "  {#- Added: a way on. The page answers at any depth: hooks/search_per_edition.py points the link\n"
            + "      at the edition's home page from the site's root. -#}\n"
            + '  {% if config.theme.language == "zh" %}\n'
            + '    <p>这个地址没有页面。可以<a href="{{ base_url }}" data-edition-home>回到本版首页</a>，或者用页面上方的搜索。</p>\n'
            + "  {% else %}\n"
            + '    <p>There is no page at this address. Go <a href="{{ base_url }}" data-edition-home>back to the home page</a> of this edition, or use the search above.</p>\n'
            + "  {% endif %}\n",
        ),
    ],
    # The section toggle next to an index page names its <nav> (axe: landmark-unique).
    "partials/nav-item.html": [
        (
            NAV_LABEL,
            NAV_LABEL
            + '                <span class="hb-visually-hidden">{{ nav_item.title | striptags }}</span>\n',
        ),
    ],
    # The search dialog gets an accessible name (axe: aria-dialog-name), and its count of
    # results is announced as it changes.
    "partials/search.html": [
        (
            '<div class="md-search" data-md-component="search" role="dialog">',
            '<div class="md-search" data-md-component="search" role="dialog"'
            " aria-label=\"{{ lang.t('search') }}\">",
        ),
        ('<div class="md-search-result__meta">', '<div class="md-search-result__meta" role="status">'),
    ],
    # The language switcher: each edition's name in its own language (lang), and the edition
    # being read marked as the current one.
    "partials/alternate.html": [
        (
            '<a href="{{ alt.link | url }}" hreflang="{{ alt.lang }}" class="md-select__link">',
            '<a href="{{ alt.link | url }}" hreflang="{{ alt.lang }}" lang="{{ alt.lang }}" class="md-select__link"'
            '{% if alt.lang == config.theme.language %} aria-current="true"{% endif %}>',
        ),
    ],
    # A nested table of contents says it is one (axe: landmark-unique on section index pages).
    "partials/source.html": [
        (
            'class="md-source" data-md-component="source">',
            'class="md-source">',
        ),
    ],
    "partials/toc-item.html": [
        (
            '<nav class="md-nav" aria-label="{{ toc_item.title | striptags | e }}">',
            '<nav class="md-nav" aria-label="{{ lang.t(\'toc\') }}: {{ toc_item.title | striptags | e }}">',
        ),
    ],
}

# main.html copies base.html's site_meta block and drops three parts of it (see main.html).
SITE_META_DROPPED = [
    # hreflang alternates in the head: the sitemap carries them (Material fetched a missing
    # sitemap.xml next to every head alternate).
    """{% if config.extra.alternate is iterable %}
{% for alt in config.extra.alternate %}
<link rel="alternate" href="{{ alt.link | url }}" hreflang="{{ alt.lang | d(lang.t('language')) }}">
{% endfor %}
{% endif %}
""",
    # The RSS plugin is not used.
    """{% if "rss" in config.plugins %}
<link rel="alternate" type="application/rss+xml" title="{{ lang.t('rss.created') }}" href="{{ 'feed_rss_created.xml' | url }}">
<link rel="alternate" type="application/rss+xml" title="{{ lang.t('rss.updated') }}" href="{{ 'feed_rss_updated.xml' | url }}">
{% endif %}
""",
    # No generator meta tag.
    '<meta name="generator" content="mkdocs-{{ mkdocs_version }}, mkdocs-material-',
]


def without_comment(text: str) -> str:
    return COMMENT.sub("", text, count=1)


def apply(original: str, edits: list[tuple[str, str]], name: str) -> str:
    for upstream, ours in edits:
        assert original.count(upstream) == 1, (
            f"{name}: Material's template no longer holds exactly one {upstream.strip()!r}; "
            "merge the upstream change into the override and update this edit"
        )
        assert ours not in original, f"{name}: Material now does this itself; drop the override's edit"
        original = original.replace(upstream, ours)
    return original


def diff(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        f"Material {name} with the intended edits",
        f"overrides/{name}",
    )
    return "".join(lines)


@pytest.mark.parametrize("name", sorted(PARTIALS))
def test_override_is_the_installed_original_plus_its_edit(name):
    original = without_comment((MATERIAL / name).read_text(encoding="utf-8"))
    expected = apply(original, PARTIALS[name], name)
    actual = without_comment((OVERRIDES / name).read_text(encoding="utf-8"))
    assert actual == expected, diff(expected, actual, name)


def site_meta(template: str) -> str:
    match = re.search(r"\{% block site_meta %\}\n(.*?)\{% endblock %\}", template, re.S)
    assert match, "no site_meta block"
    # Indentation differs (a block in base.html, top level in main.html): compare stripped lines.
    return "".join(line.strip() + "\n" for line in match.group(1).splitlines() if line.strip())


SITE_META_ESCAPED = (
    "page.meta.description",
    "config.site_description",
    "page.meta.author",
    "config.site_author",
)
"""The values main.html's site_meta escapes (``| e``) where Material's writes them as they are."""


def test_main_site_meta_is_materials_block_minus_the_dropped_parts():
    original = site_meta((MATERIAL / "base.html").read_text(encoding="utf-8"))
    expected = original
    for dropped in SITE_META_DROPPED:
        if dropped.endswith("\n"):
            assert expected.count(dropped) == 1, f"base.html's site_meta changed around:\n{dropped}"
            expected = expected.replace(dropped, "")
        else:  # one line, known by its start (it names the installed version)
            lines = [line for line in expected.splitlines(keepends=True) if line.startswith(dropped)]
            assert len(lines) == 1, f"base.html's site_meta changed around:\n{dropped}"
            expected = expected.replace(lines[0], "")
    for value in SITE_META_ESCAPED:  # Material writes these into an attribute unescaped
        assert expected.count(f'content="{{{{ {value} }}}}"') == 1, (
            f"base.html's site_meta changed around {value}"
        )
        expected = expected.replace(f'content="{{{{ {value} }}}}"', f'content="{{{{ {value} | e }}}}"')
    actual = site_meta((OVERRIDES / "main.html").read_text(encoding="utf-8"))
    # The one addition: the Open Graph and Twitter card block, between its two markers.
    added = re.search(r"\{#- open-graph: begin -#\}\n.*?\{#- open-graph: end -#\}\n", actual, re.S)
    assert added, "main.html: the Open Graph block lost its markers"
    actual = actual.replace(added.group(), "")
    assert actual == expected, diff(expected, actual, "main.html (block site_meta)")


HOME_TEST = (
    "{% elif page.title and not page.is_homepage %}",
    '{% elif page.title and not (page.is_homepage or (page.file and page.file.src_uri in ["index.md", "index.en.md"])) %}',
)
"""main.html's htmltitle block: Material's, with the home page test of its Open Graph block."""

JSON_PATH_TITLE = (
    "{% if page.meta and page.meta.title %}\n",
    "{% if page.meta and page.meta.json_path %}\n"
    "<title>{{ page.meta.json_path }} - {{ config.site_name }}</title>\n"
    "{% elif page.meta and page.meta.title %}\n",
)
"""main.html's htmltitle block: a field page is titled by its JSON path (front matter json_path)."""


def test_main_htmltitle_is_materials_block_with_the_home_page_test():
    def block(template: str) -> str:
        match = re.search(r"\{% block htmltitle %\}\n(.*?)\{% endblock %\}", template, re.S)
        assert match, "no htmltitle block"
        return "".join(line.strip() + "\n" for line in match.group(1).splitlines() if line.strip())

    original = block((MATERIAL / "base.html").read_text(encoding="utf-8"))
    expected = apply(original, [JSON_PATH_TITLE, HOME_TEST], "base.html (block htmltitle)")
    actual = block((OVERRIDES / "main.html").read_text(encoding="utf-8"))
    assert actual == expected, diff(expected, actual, "main.html (block htmltitle)")


def test_every_override_is_checked_here():
    overridden = {path.relative_to(OVERRIDES).as_posix() for path in OVERRIDES.rglob("*.html")}
    assert overridden == {*PARTIALS, "main.html"}


def test_the_check_sees_an_upstream_change(tmp_path):
    name = "partials/search.html"
    original = without_comment((MATERIAL / name).read_text(encoding="utf-8"))
    changed = original.replace('autocapitalize="off"', 'autocapitalize="none"')
    assert changed != original
    ours = without_comment((OVERRIDES / name).read_text(encoding="utf-8"))
    assert ours != apply(changed, PARTIALS[name], name)


def test_material_is_pinned_to_the_minor_line_the_overrides_came_from():
    import tomllib
    from importlib.metadata import version

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (pin,) = [r for r in pyproject["dependency-groups"]["dev"] if r.startswith("mkdocs-material")]
    bounds = re.fullmatch(r"mkdocs-material>=(\d+\.\d+)\.\d+,<(\d+\.\d+)", pin)
    assert bounds, f"pin Material to one minor line: {pin}"
    low, high = bounds.groups()
    installed = ".".join(version("mkdocs-material").split(".")[:2])
    assert installed == low, f"installed Material {installed}, the overrides were copied from {low}"
    major, minor = low.split(".")
    assert high == f"{major}.{int(minor) + 1}"
    for path in OVERRIDES.rglob("*.html"):
        named = re.findall(r"mkdocs-material (\d+\.\d+)\.\d+", path.read_text(encoding="utf-8"))
        # A copy of one of Material's partials says which release it was copied from.
        assert named or path.parent.name != "partials", f"{path.name} does not name the Material it copies"
        assert all(line == low for line in named), f"{path.name} names Material {named}"


def test_material_still_has_the_lazy_code_blocks_the_site_turns_on():
    """mkdocs.yml turns on ``content.lazy``, a feature Material's bundle reads but its
    documentation does not list: code blocks are set up when they first come into view, not all
    at load (issue 14: on a field page that halved the blocking time). An upgrade that drops it
    would turn it off without a word, so the installed bundle must still read it."""
    (bundle,) = (MATERIAL / "assets" / "javascripts").glob("bundle.*.min.js")
    assert '"content.lazy"' in bundle.read_text(encoding="utf-8"), "Material no longer reads content.lazy"
