"""What a reader meets across pages: one home per scenario, and links named after their targets.

* A request shown in full (a ``request.json`` fence) appears on at most two pages of an edition.
  Requests are compared as normalized JSON, so re-indenting or reordering keys does not make a
  copy new.
* A link's label names what it points to. A link to a page (no anchor, or the id of its h1) is
  labelled with the page's title, or with one side of the title's colon (a field page also by a
  path through the field, such as packet.taskAnchor.goal); a label of the
  form "Page · Section" gives the target page's title and the target section's heading; a link to
  one of the five test paths is labelled with that test path's heading.
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from tests.test_docs_fences import scan_fences
from tests.test_editions import DOCS, FRONT_MATTER, _mask, pages

MAX_PAGES_PER_REQUEST = 2

HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)[ \t]*\{#(?P<id>[\w-]+)\}[ \t]*$", re.MULTILINE)
LINK = re.compile(r"(?<![!\]])\[(?P<label>[^\]\n]+)\]\((?P<target>[^)\s#]*\.md)(?:#(?P<anchor>[\w-]+))?\)")
MARKUP = re.compile(r"[`*_]")
TEST_PATHS = "chapters/06-context-packet/test-paths.md"


def _edition(path: Path) -> str:
    return "en" if path.name.endswith(".en.md") else "zh"


def _fence_body(text: str, start: int, end: int) -> str:
    return textwrap.dedent("".join(text[start:end].splitlines(keepends=True)[1:-1]))


def normalized_request(source: str) -> str:
    """The request as canonical JSON: the same request however it is indented or ordered."""
    return json.dumps(json.loads(source), sort_keys=True, ensure_ascii=False)


def request_homes(paths: list[Path]) -> dict[str, list[str]]:
    """Each normalized request -> the pages that show it in full, one entry per page."""
    homes: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for fence in scan_fences(text):
            if fence.language == "json" and fence.title == "request.json":
                key = normalized_request(_fence_body(text, fence.start, fence.end))
                homes[key].add(str(path.relative_to(DOCS)) if path.is_relative_to(DOCS) else path.name)
    return {key: sorted(found) for key, found in homes.items()}


def request_problems(paths: list[Path]) -> list[str]:
    return [
        f"a request is shown in full on {len(found)} pages (at most {MAX_PAGES_PER_REQUEST}): "
        f"{', '.join(found)}; keep it on its home page and link to it from the others\n  {key[:160]}"
        for key, found in request_homes(paths).items()
        if len(found) > MAX_PAGES_PER_REQUEST
    ]


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_each_request_has_one_home(edition: str):
    problems = request_problems([p for p in pages() if _edition(p) == edition])
    assert not problems, "\n".join(problems)


# --- link labels ----------------------------------------------------------------------------


def _plain(text: str) -> str:
    return " ".join(MARKUP.sub("", text).split())


def titles(path: Path) -> tuple[tuple[str, str] | tuple[None, None], dict[str, str]]:
    """((h1 id, h1 text), {heading id: heading text}) of a page, markup removed; (None, None) without an h1."""
    text = path.read_text(encoding="utf-8")
    headings = {m.group("id"): _plain(m.group("text")) for m in HEADING.finditer(_prose(text))}
    h1 = next((m for m in HEADING.finditer(_prose(text)) if len(m.group("hashes")) == 1), None)
    return (h1.group("id"), _plain(h1.group("text"))) if h1 else (None, None), headings


@functools.lru_cache(maxsize=256)
def _prose(text: str) -> str:
    """The page's text with its front matter and fences blanked out (the same offsets and lines).
    Kept per text: the link checks read each linked page's headings again for every link to it."""
    front = FRONT_MATTER.match(text)
    masked = _mask(
        text, [(f.start, f.end) for f in scan_fences(text)] + ([(0, front.end())] if front else [])
    )
    return masked


def _same(label: str, title: str) -> bool:
    def fold(text: str) -> str:
        text = text.casefold()
        return text[4:] if text.startswith("the ") else text

    return fold(label) == fold(title)


def _short_titles(title: str) -> list[str]:
    forms = [title]
    for colon in ("：", ": "):
        if colon in title:
            forms.extend(title.split(colon, 1))
    return forms


def _is_field_page(path: Path) -> bool:
    return path.is_relative_to(DOCS / "reference" / "request") or path.is_relative_to(
        DOCS / "reference" / "result"
    )


def _is_test_paths(path: Path) -> bool:
    return path.is_relative_to(DOCS) and str(path.relative_to(DOCS)).replace(".en.md", ".md") == TEST_PATHS


def label_problems(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    prose = _prose(text)
    name = path.relative_to(DOCS) if path.is_relative_to(DOCS) else path.name
    problems = []
    for match in LINK.finditer(prose):
        label, target, anchor = _plain(match.group("label")), match.group("target"), match.group("anchor")
        if target.startswith(("http:", "https:")):
            continue
        resolved = (path.parent / target).resolve()
        if _edition(path) == "en":
            resolved = resolved.with_name(resolved.name[: -len(".md")] + ".en.md")
        if not resolved.exists():
            continue
        (h1_id, h1), headings = titles(resolved)
        if h1 is None:
            continue
        where = f"{name}: [{match.group('label')}]({target}{'#' + anchor if anchor else ''})"
        if " · " in label:
            page_part, section_part = label.split(" · ", 1)
            if not any(_same(page_part, form) for form in _short_titles(h1)):
                problems.append(f"{where}: {page_part!r} is not the title of the page, {h1!r}")
            if (
                anchor
                and anchor != h1_id
                and anchor in headings
                and not _same(section_part, headings[anchor])
            ):
                problems.append(
                    f"{where}: {section_part!r} is not the heading of #{anchor}, {headings[anchor]!r}"
                )
        elif anchor is None or anchor == h1_id:
            # A field page may be named by a path through the field: packet.taskAnchor.goal.
            qualified = _is_field_page(resolved) and h1 in re.split(r"[^\w]+", label)
            if not qualified and not any(_same(label, form) for form in _short_titles(h1)):
                problems.append(f"{where}: the label is not the title of the page, {h1!r}")
        elif _is_test_paths(resolved) and anchor in headings and not _same(label, headings[anchor]):
            problems.append(f"{where}: a test path is named by its heading, {headings[anchor]!r}")
    return problems


@pytest.mark.parametrize("path", pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_link_labels_name_their_targets(path: Path):
    problems = label_problems(path)
    assert not problems, "\n".join(problems)


# --- the checks can fail --------------------------------------------------------------------

REQUEST = """```json title="request.json"
{"taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "v"},
%s "budgetUnits": 8, "candidates": []}
```
"""


def test_a_request_on_three_pages_is_reported(tmp_path: Path):
    paths = []
    for number, indent in enumerate(["", "  ", "\t"]):
        page = tmp_path / f"page{number}.md"
        page.write_text("# Page {#page}\n\n" + REQUEST % indent, encoding="utf-8")
        paths.append(page)
    assert request_problems(paths[:2]) == []
    assert len(request_problems(paths)) == 1


def test_a_wrong_label_is_reported(tmp_path: Path):
    (tmp_path / "rules.md").write_text("# 确定性规则 {#rules}\n\n## 冲突 {#conflict}\n", encoding="utf-8")
    good = tmp_path / "good.md"
    good.write_text(
        "# 好 {#good}\n\n[确定性规则](rules.md#rules)、[确定性规则 · 冲突](rules.md#conflict)、[冲突规则](rules.md#conflict)\n",
        encoding="utf-8",
    )
    bad = tmp_path / "bad.md"
    bad.write_text(
        "# 坏 {#bad}\n\n[选择规则](rules.md#rules)、[选择规则 · 冲突](rules.md#conflict)\n", encoding="utf-8"
    )
    assert label_problems(good) == []
    assert len(label_problems(bad)) == 2


# --------------------------------------------------------------------------- one numbering of the rules


def rule_functions() -> list[str]:
    """validate_request, then every rule function of the rules module, in its order."""
    from harnessbook.context_packet import rules

    return ["validate_request", *(name for name in rules.__all__ if callable(getattr(rules, name)))]


def test_each_rule_function_names_its_section_of_the_rules_page():
    """The rules page numbers its steps 1 to 5; the code names the rules instead of numbering
    them a second way. Each function's docstring begins with its section's English heading and
    links that section, through the alias ``rule-<id>`` right above the heading in both editions:
    the section ids alone (``#conflict``) are also ids of field pages, and from the API page
    autorefs would pick the closest, a field page."""
    from harnessbook import context_packet

    headings = dict(
        re.findall(
            r"^## (.+?) \{#([a-z-]+)\}$",
            (DOCS / "chapters/06-context-packet/rules.en.md").read_text(encoding="utf-8"),
            re.M,
        )
    )
    names = rule_functions()
    assert len(names) == 8, names
    pages = {
        path.relative_to(DOCS).as_posix(): path.read_text(encoding="utf-8") for path in DOCS.rglob("*.md")
    }
    rules_pages = ("chapters/06-context-packet/rules.md", "chapters/06-context-packet/rules.en.md")
    for name in names:
        doc = getattr(context_packet, name).__doc__
        title = doc.split(":", 1)[0]
        assert title in headings, f"{name}: {title!r} is not a heading of the rules page"
        alias = f"rule-{headings[title]}"
        assert f"[{title.lower()}][{alias}]" in doc, f"{name}: does not link its section (via {alias})"
        for page in rules_pages:
            assert f"[](){{#{alias}}}\n\n## " in pages[page], f"{page}: no alias {alias} above its heading"
        elsewhere = [
            page for page, text in pages.items() if page not in rules_pages and f"{{#{alias}}}" in text
        ]
        assert elsewhere == [], f"{alias} is also an id of {elsewhere}"
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((DOCS.parent / "src" / "harnessbook").rglob("*.py"))
    )
    assert not re.search(r"\b[Rr]ules? [0-9]", source), "a rule numbered apart from the rules page's steps"


def test_the_api_page_links_each_rule_to_its_section_of_the_rules_page(built_site):
    """The docstrings link ``rule-<id>``; on both API pages the links reach the rules page's
    headings (``#conflict``), not a field page with the same id (hooks/anchor_aliases.py)."""
    rules = "../../chapters/06-context-packet/rules/"
    for api in ("reference/api/index.html", "en/reference/api/index.html"):
        html = (built_site.path / api).read_text(encoding="utf-8")
        sections = ("validate", "provenance-gate", "processing-order", "expiry", "conflict")
        for section in (*sections, "budget-fit", "pointer", "over-budget"):
            assert f'href="{rules}#{section}"' in html, f"{api}: no link to the rules page's #{section}"


def test_heading_aliases_leave_no_empty_link(built_site):
    """A Markdown anchor is written as ``<a href="" id=...>``, a link without text; the hook
    drops it once autorefs has read it, on every page."""
    from tests.loading import load_module

    hook = load_module("anchor_aliases_hook", DOCS.parent / "hooks" / "anchor_aliases.py")
    assert hook.drop_aliases('<p>a</p>\n<p><a href="" id="rule-x"></a></p>\n<h2 id="x">X</h2>') == (
        '<p>a</p>\n<h2 id="x">X</h2>'
    )
    two = '<p><a href="" id="rule-y"></a></p>\n<p><a href="" id="rule-x"></a></p>\n<h3 id="x">X</h3>'
    assert hook.drop_aliases(two) == '<h3 id="x">X</h3>'
    # Not above a heading: autorefs registers the anchor's own id, and links go to it.
    lone = '<p><a href="" id="note"></a></p>\n<p>Text</p>'
    assert hook.drop_aliases(lone) == lone
    site = built_site.path
    empty = [
        str(p.relative_to(site)) for p in site.rglob("*.html") if 'href=""' in p.read_text(encoding="utf-8")
    ]
    assert empty == []
