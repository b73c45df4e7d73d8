"""The figures (harnessbook.figure), the figure hook (hooks/figures.py) and ``build --format svg``.

Escaping of caller text, well-formed and self-contained SVG, the text alternative, size,
determinism, every id of a result shown, colours and their contrast in every scheme, and the
build step that refuses a page whose result.json is not the builder's.
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from mkdocs.exceptions import PluginError

from harnessbook import build_context_packet, demo_request
from harnessbook.cli import main
from harnessbook.context_packet import RULES, InvalidRequestError
from harnessbook.figure import (
    LIGHT_COLOURS,
    MAX_ROWS,
    _svg,
    packet,
    render_problems,
    render_rules_flow,
    render_svg,
    render_table,
)
from harnessbook.figure._svg import CELLS, FONT, INNER, PAD, TITLE_WIDTH, _width
from harnessbook.figure.packet import _step
from tests.loading import load_module

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CSS = DOCS / "assets" / "stylesheets" / "figure.css"
SVG_NS = "{http://www.w3.org/2000/svg}"
HAN = re.compile(r"[\u4e00-\u9fff]")
ISOLATES = str.maketrans("", "", "\u2068\u2069")


def load_hook():
    return load_module("figures_hook", ROOT / "hooks" / "figures.py")


hook = load_hook()


def candidate(id, kind="direct-evidence", size=1, **extra):
    item = {
        "id": id,
        "kind": kind,
        "source": "injected:test-output",
        "capturedAt": "2026-07-15",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": size,
        "content": "...",
    }
    item.update(extra)
    return item


def request(candidates, budget=8):
    return {
        "taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "t"},
        "budgetUnits": budget,
        "candidates": candidates,
    }


SVG = "{http://www.w3.org/2000/svg}"
"""The SVG namespace, as ElementTree names its elements."""


def parse(svg: str) -> ET.Element:
    """The SVG as XML: it must be well-formed on its own (the CLI writes it to files)."""
    return ET.fromstring(svg)


def number(element: ET.Element, name: str) -> float:
    value = element.get(name)
    assert value is not None, f"{element.tag} has no {name}"
    return float(value)


def shown_text(root: ET.Element) -> str:
    """Every text the figure shows or keeps in a <title>, without the bidi isolates."""
    return "\n".join("".join(element.itertext()) for element in root.iter(f"{SVG_NS}text")).translate(
        ISOLATES
    )


def result_ids(result: dict) -> set[str]:
    packet = result["packet"]
    lists = [
        packet["selected"],
        packet["pointers"],
        result["excluded"],
        result["refresh"],
        result["unknowns"],
    ]
    return {item["id"] for items in lists for item in items}


def page_results() -> list[tuple[str, dict]]:
    """Every result.json shown on the book's pages (each is the builder's result: Sybil checks)."""
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        if "examples" in path.relative_to(DOCS).parts:
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        for fence in hook.fences(lines):
            if fence.language == "json" and fence.title == "result.json":
                found.append((f"{path.relative_to(DOCS)}:{fence.start + 1}", json.loads(fence.body)))
    return found


PAGE_RESULTS = page_results()
HOSTILE_IDS = [
    "<script>alert(1)</script>",
    "\"quoted\" & 'single'",
    "a&amp;b&lt;c",
    "שלום-עולם",
    "\u202eevil\u202c-id",
    "مرحبا <b>bold</b>",
    "]]><x/><!--",
]


# --------------------------------------------------------------------------- escaping


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hostile_ids_and_sources_stay_text(lang):
    candidates = [candidate(ident, size=1) for ident in HOSTILE_IDS[:3]]
    candidates += [candidate(HOSTILE_IDS[3], size=20, reference="artifact://<img src=x onerror=alert(1)>")]
    candidates += [candidate(HOSTILE_IDS[4], freshness="expired", source="<script>src</script>")]
    candidates += [
        candidate(
            HOSTILE_IDS[5], kind="history-summary", relevance="background", conflictsWith=HOSTILE_IDS[0]
        )
    ]
    candidates += [candidate(HOSTILE_IDS[6], size=30)]
    result = build_context_packet(request(candidates))
    svg = render_svg(result, lang)
    root = parse(svg)
    # No element came out of the caller's text: only the renderer's own vocabulary.
    assert {element.tag for element in root.iter()} <= {
        f"{SVG_NS}{name}" for name in ("svg", "title", "desc", "rect", "text", "path")
    }
    assert "<script" not in svg and "<b>" not in svg and "<img" not in svg
    text = shown_text(root)
    for ident in HOSTILE_IDS:
        assert ident in text, ident
    assert "<script>src</script>" in text  # the expired item's source, in the refresh list
    table = render_table(result, lang)
    assert "<script>" not in table and "<b>" not in table
    for ident in HOSTILE_IDS:
        assert (
            f"<bdi><code>{ident.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace(chr(34), '&quot;').replace(chr(39), '&#x27;')}</code></bdi>"
            in table
        )


def test_right_to_left_ids_are_isolated():
    result = build_context_packet(request([candidate("\u202eevil"), candidate("שלום")]))
    svg = render_svg(result, "en")
    assert "\u2068\u202eevil\u2069" in svg and "\u2068שלום\u2069" in svg
    assert "<bdi>" in render_table(result, "en")


def test_a_detail_with_a_callers_source_is_isolated_too():
    """A refresh row's detail names the candidate's source: a stray U+202E in it cannot reorder
    the figure's words around it."""
    result = build_context_packet(request([candidate("o", freshness="expired", source="s:\u202ee")]))
    assert result["refresh"], result
    svg = render_svg(result, "en")
    assert re.search("\u2068[^\u2069]*s:\u202ee[^\u2069]*\u2069", svg), svg
    assert "\u2068s:\u202ee\u2069" in svg  # on its own: it cannot reverse the words after it


def test_an_id_cannot_close_its_own_isolate():
    """An id's own pop (U+2069) closed the isolate around it, and an override after it reversed
    the rest of the row: the id's isolate controls are shown as escapes."""
    result = build_context_packet(
        request(
            [
                candidate("ev\u2069\u2069\u202e", kind="direct-evidence"),
                candidate(
                    "old",
                    kind="history-summary",
                    relevance="background",
                    conflictsWith=["ev\u2069\u2069\u202e"],
                ),
            ]
        )
    )
    svg = render_svg(result, "en")
    assert "\u2068ev\\u2069\\u2069\u202e\u2069" in svg, svg
    for text in re.findall(r">([^<]*)<", svg):  # every isolate a row's text opens, it closes
        depth = 0
        for char in text:
            depth += {"\u2066": 1, "\u2067": 1, "\u2068": 1, "\u2069": -1}.get(char, 0)
            assert depth >= 0, text


def test_each_conflicting_id_in_a_detail_is_isolated_on_its_own():
    """An override in one conflicting id reverses that id only: not the other ids of the
    list, nor the source the refresh row names after them."""
    result = build_context_packet(
        request(
            [
                candidate("ev\u202e", kind="direct-evidence"),
                candidate("ev2", kind="direct-evidence"),
                candidate(
                    "old", kind="history-summary", relevance="background", conflictsWith=["ev\u202e", "ev2"]
                ),
            ]
        )
    )
    assert result["excluded"][0]["reason"] == "conflict", result
    svg = render_svg(result, "en")
    # The excluded row; then the refresh row, each id with its source (its detail on three lines
    # below the id, nothing cut).
    assert svg.count("\u2068ev\u202e\u2069, \u2068ev2\u2069") == 1, svg
    assert "\u2068ev\u202e\u2069 (\u2068injected:test-output\u2069)," in svg, svg
    assert "\u2068ev2\u2069 (\u2068injected:test-output\u2069); summary" in svg, svg


def test_characters_xml_forbids_are_shown_as_escapes():
    """Each as its JSON escape, as the command line prints it (U+FFFD hid which it was)."""
    result = build_context_packet(request([candidate("nul\x00bell\x07"), candidate("lone\ud800")]))
    text = shown_text(parse(render_svg(result, "en")))
    assert "nul\\u0000bell\\u0007" in text and "lone\\ud800" in text
    table = render_table(result, "en")
    assert "nul\\u0000bell\\u0007" in table and "lone\\ud800" in table


def test_long_ids_are_cut_with_the_whole_id_in_a_title():
    long_id = "a-very-long-candidate-identifier-" * 4
    root = parse(render_svg(build_context_packet(request([candidate(long_id)])), "en"))
    texts = [element for element in root.iter(f"{SVG_NS}text") if element.find(f"{SVG_NS}title") is not None]
    assert texts, "the cut id keeps its full value in a <title>"
    title = texts[0].find(f"{SVG_NS}title")
    assert title is not None
    shown = (title.tail or "").translate(ISOLATES)
    assert shown.endswith("…") and long_id.startswith(shown[:-1])
    assert title.text == long_id


def test_a_title_keeps_at_most_title_width_characters():
    """An id of megabytes: the figure stays small, and its <title> keeps the id's beginning."""
    huge_id = "x" * 1_000_000
    svg = render_svg(build_context_packet(request([candidate(huge_id)])), "en")
    assert len(svg) < 20_000
    titles = [e.text for e in parse(svg).iter(f"{SVG_NS}title") if e.text and e.text.startswith("x")]
    assert titles == ["x" * TITLE_WIDTH + "…"]
    exact = "y" * TITLE_WIDTH  # cut on screen, whole in its title
    exact_svg = render_svg(build_context_packet(request([candidate(exact)])), "en")
    assert exact in [e.text for e in parse(exact_svg).iter(f"{SVG_NS}title")]


# --------------------------------------------------------------------------- text alternative


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_role_title_and_one_sentence_description(lang):
    svg = render_svg(build_context_packet(demo_request()), lang)
    root = parse(svg)
    assert root.get("role") == "img" and root.get("lang") == lang
    title, desc = list(root)[:2]
    assert title.tag == f"{SVG_NS}title" and desc.tag == f"{SVG_NS}desc"
    sentence = desc.text
    assert sentence is not None, "the <desc> has no text"
    end = "。" if lang == "zh" else "."
    assert sentence.endswith(end) and sentence.count(end) == 1, sentence
    assert "8" in sentence and "ready" in sentence and "assembled" in sentence
    if lang == "zh":
        assert title.text is not None, "the <title> has no text"
        assert HAN.search(title.text) and HAN.search(sentence)
    else:
        assert not HAN.search(svg), "Chinese words in the English figure"


RICH = [
    candidate("a", size=2),
    candidate("b", size=3),
    candidate("big", size=10, reference="ref://big"),
    candidate("huge", size=20),
    candidate("gone", freshness="expired"),
    candidate(
        "old", kind="history-summary", relevance="background", source="injected:memory", conflictsWith=["a"]
    ),
    candidate("huge2", size=30),
]
"""A result whose counts all differ (2 selected, 1 pointer, 4 excluded, 2 to refresh) and whose
units do too (needs 10 with 1 available), so that a swapped number shows."""

RICH_SHOWN = {
    "en": (
        "A context packet with a budget of 6 units: 2 selected using 5 units, 1 pointer, 4 excluded, "
        "2 to refresh, 0 missing provenance; state refresh_required, phase refresh_context.",
        [
            "needs 10 · 1 available",
            "over budget: needs 20 · 1 available",
            "over budget: needs 30 · 1 available",
            "conflicts with a",
            "expired, from injected:test-output",
            "conflicts with a (injected:test-output); summary's source injected:memory",
        ],
    ),
    "zh": (
        "预算 6 单位的上下文包：选入 2 项共 5 单位，1 个指针，排除 4 项，2 项待刷新，0 项缺少出处；"
        "状态 refresh_required，阶段 refresh_context。",
        [
            "需要 10 · 可用 1",
            "超预算：需要 20 · 可用 1",
            "超预算：需要 30 · 可用 1",
            "与 a 冲突",
            "过期，来源 injected:test-output（2026-07-15）",
            "与 a（来源 injected:test-output）冲突；摘要来源 injected:memory",
        ],
    ),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_description_and_the_details_give_each_number_in_its_place(lang):
    """Each count of the one-sentence description, and the units of each detail, in its place:
    the demo's figure (1 excluded, 1 to refresh...) could not tell a swap. A refresh row for a
    conflict names both sides' sources, each in its place: the evidence's after its id, the
    summary's own at the end."""
    root = parse(render_svg(build_context_packet(request(RICH, budget=6)), lang))
    sentence, details = RICH_SHOWN[lang]
    assert root[1].text == sentence
    texts = ["".join(element.itertext()).translate(ISOLATES) for element in root.iter(f"{SVG_NS}text")]
    # A long detail goes on below its id, on lines that break where a space is.
    shown = " ".join(texts)
    for detail in details:
        assert detail in shown, (detail, texts)


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        (
            "en",
            "A context packet with a budget of 1 unit: 1 selected using 1 unit, 0 pointers, 0 excluded, "
            "0 to refresh, 0 missing provenance; state ready, phase assembled.",
        ),
        (
            "zh",
            "预算 1 单位的上下文包：选入 1 项共 1 单位，0 个指针，排除 0 项，0 项待刷新，0 项缺少出处；"
            "状态 ready，阶段 assembled。",
        ),
    ],
)
def test_the_description_says_one_unit_and_no_pointers_in_the_singular_and_plural(lang, sentence):
    root = parse(render_svg(build_context_packet(request([candidate("one")], budget=1)), lang))
    assert root[1].text == sentence


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_rules_flow_is_accessible_and_follows_rules(lang):
    svg = render_rules_flow(lang)
    root = parse(svg)
    assert root.get("role") == "img" and root.get("lang") == lang
    assert [child.tag for child in list(root)[:2]] == [f"{SVG_NS}title", f"{SVG_NS}desc"]
    text = shown_text(root)
    positions = [text.index(rule) for rule in ("validate_request", *RULES)]
    assert positions == sorted(positions), "the figure's order is not the order of RULES"
    for word in (
        "InvalidRequestError",
        "blocked",
        "refresh_required",
        "ready",
        "selected",
        "pointer",
        "excluded",
    ):
        assert word in text
    assert len(svg.encode()) <= 8192
    if lang == "en":
        assert not HAN.search(svg)


# --------------------------------------------------------------------------- content, size, determinism


@pytest.mark.parametrize(("where", "result"), PAGE_RESULTS, ids=[where for where, _ in PAGE_RESULTS])
def test_every_page_example_figure_shows_every_id_within_8_kb(where, result):
    lang: Literal["zh", "en"] = "en" if ".en.md" in where else "zh"
    svg = render_svg(result, lang)
    assert len(svg.encode("utf-8")) <= 8192, f"{where}: {len(svg.encode())} bytes"
    text = shown_text(parse(svg))
    for ident in result_ids(result):
        assert ident in text, f"{where}: {ident} is not in the figure"
    table = render_table(result, lang)
    for record in result["evidence"]:
        assert f"<code>{record['id']}</code>" in table
        assert f"{record['remainingBefore']} → {record['remainingAfter']}" in table


def test_there_are_page_examples():
    assert len(PAGE_RESULTS) > 20


def test_same_result_same_figure():
    result = build_context_packet(demo_request())
    again = build_context_packet(demo_request())
    reordered = {key: copy.deepcopy(value) for key, value in reversed(list(result.items()))}
    assert render_svg(result) == render_svg(again) == render_svg(reordered)
    assert render_table(result, "en") == render_table(reordered, "en")
    assert render_rules_flow("zh") == render_rules_flow("zh")


def test_the_renderer_does_not_change_the_result():
    result = build_context_packet(demo_request())
    before = copy.deepcopy(result)
    render_svg(result), render_table(result), render_table(result, format="markdown")
    assert result == before


def test_segments_follow_processing_order_then_the_remainder():
    # The direct evidence is processed first (tier 1) although it comes second in the input.
    summary = candidate("summary-b", kind="history-summary", relevance="background", size=2)
    result = build_context_packet(request([summary, candidate("evidence-a", size=3)], budget=10))
    root = parse(render_svg(result, "en"))
    segments = [
        r for r in root.iter(f"{SVG_NS}rect") if r.get("class") in ("s1", "s2") and number(r, "height") == 28
    ]
    assert [number(s, "width") for s in segments] == pytest.approx([3 * 34.4, 2 * 34.4])
    assert number(segments[0], "x") < number(segments[1], "x")
    text = shown_text(root)
    assert text.index("evidence-a") < text.index("summary-b")
    assert "unused 5" in text
    grid = [p for p in root.iter(f"{SVG_NS}path") if p.get("class") == "k-grid"]
    assert len(grid) == 9  # one line between each two of the 10 cells


def _smallest_125_step(budget: int) -> int:
    """Brute force: the smallest 1, 2 or 5 times a power of ten that draws the budget in 40 cells."""
    steps = sorted(factor * 10**power for power in range(20) for factor in (1, 2, 5))
    return next(step for step in steps if -(-budget // step) <= CELLS)


@pytest.mark.parametrize("budget", [1, 39, 40, 41, 80, 81, 100, 101, 199, 200, 201, 5000, 10**9, 2**53 - 1])
def test_the_cell_step_is_the_smallest_1_2_5_step_that_fits(budget):
    assert _step(budget) == (1 if budget <= CELLS else _smallest_125_step(budget))


def test_huge_budget_is_scaled_and_says_so():
    result = build_context_packet(
        request([candidate("big", size=400_000_000), candidate("small", size=1)], budget=1_000_000_000)
    )
    root = parse(render_svg(result, "en"))
    text = shown_text(root)
    assert "scaled: one cell = 50000000 units" in text
    grid = [p for p in root.iter(f"{SVG_NS}path") if p.get("class") == "k-grid"]
    assert len(grid) == 19
    assert "big" in text and "small" in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_budget_lines_fit_the_figure_at_the_largest_budget(lang):
    """At 2^53 - 1 the English "used ... · unused ..." line alone was wider than the figure."""
    result = build_context_packet(request([candidate("a", size=6004799503160660)], budget=2**53 - 1))
    texts = [
        "".join(element.itertext()).translate(ISOLATES)
        for element in parse(render_svg(result, lang)).iter(f"{SVG_NS}text")
        if element.get("font-size") is None and element.get("x") == str(PAD)
    ]
    numbers = [text for text in texts if "9007199254740991" in text or "3002399751580331" in text]
    assert len(numbers) >= 2, texts
    assert all(_width(text) <= INNER for text in texts), [(text, _width(text)) for text in texts]


def test_thousands_of_small_items_are_a_few_hundred_shapes_covering_the_used_budget():
    # 5,000 one-unit items in a budget of 5,000: each is 0.07 units wide. They are drawn as
    # segments of at least 2 units (MIN_SEGMENT), unnumbered, that together cover the use.
    items = [candidate(f"c{n}", size=1) for n in range(5_000)]
    result = build_context_packet(request(items, budget=5_000))
    root = parse(render_svg(result, "en"))
    segments = [
        r for r in root.iter(f"{SVG_NS}rect") if r.get("class") in ("s1", "s2") and number(r, "height") == 28
    ]
    assert 100 <= len(segments) <= INNER // 2
    assert all(number(s, "width") >= 2.0 - 1e-9 for s in segments)
    edges = [(number(s, "x"), number(s, "x") + number(s, "width")) for s in segments]
    assert edges[0][0] == pytest.approx(8)  # PAD: from the start of the bar,
    assert all(b[0] == pytest.approx(a[1], abs=0.15) for a, b in itertools.pairwise(edges))  # gapless,
    assert edges[-1][1] == pytest.approx(8 + INNER, abs=2.0)  # to the end of the use
    assert len(list(root.iter())) < 1_000
    # A wide item keeps its own numbered segment among narrow ones.
    mixed = build_context_packet(
        request([*items[:300], candidate("wide", size=2_000), *items[300:600]], budget=5_000)
    )
    wide = [r for r in parse(render_svg(mixed, "en")).iter(f"{SVG_NS}rect") if number(r, "height") == 28]
    assert any(number(r, "width") == pytest.approx(2_000 * INNER / 5_000) for r in wide)


@pytest.mark.parametrize("rows", [MAX_ROWS - 1, MAX_ROWS, MAX_ROWS + 1])
def test_a_list_is_cut_only_past_max_rows(rows):
    many = [candidate(f"item-{n:03}", size=1) for n in range(rows)]
    text = shown_text(parse(render_svg(build_context_packet(request(many, budget=rows)), "en")))
    shown = min(rows, MAX_ROWS)
    assert f"item-{shown - 1:03}" in text and f"item-{shown:03}" not in text
    assert ("and 1 more" in text) == (rows > MAX_ROWS), text
    assert "more" in text if rows > MAX_ROWS else "more" not in text


def test_long_lists_are_cut_and_counted():
    many = [candidate(f"item-{n:03}", size=1) for n in range(MAX_ROWS + 30)]
    result = build_context_packet(request(many, budget=len(many)))
    svg = render_svg(result, "en")
    text = shown_text(parse(svg))
    assert f"item-{MAX_ROWS - 1:03}" in text and f"item-{MAX_ROWS:03}" not in text
    assert "and 30 more" in text
    assert "42 selected" in (parse(svg)[1].text or "")
    assert len(svg.encode()) <= 16384
    assert render_table(result, "en").count("<tr>") == len(many) + 1  # the table has them all


def test_blocked_and_empty_results():
    blocked = build_context_packet(request([candidate("no-source", source=None), candidate("fine")]))
    text = shown_text(parse(render_svg(blocked, "en")))
    assert "state blocked" in text and "missing source" in text and "nothing was selected" in text
    empty = build_context_packet(request([]))
    assert "状态 ready" in shown_text(parse(render_svg(empty, "zh")))
    assert render_table(empty, "en") == "<p>No candidates: evidence is empty.</p>"


def test_not_a_result_is_a_clear_error():
    with pytest.raises(ValueError, match="not a build_context_packet result"):
        render_svg({"state": "ready"})
    with pytest.raises(ValueError, match="lang must be one of zh, en"):
        render_svg(build_context_packet(demo_request()), lang="fr")  # type: ignore[arg-type]  # on purpose
    with pytest.raises(ValueError, match="format must be"):
        render_table(build_context_packet(demo_request()), format="csv")  # type: ignore[arg-type]  # on purpose


def test_self_contained():
    for svg in (render_svg(build_context_packet(demo_request())), render_rules_flow("en")):
        lowered = svg.lower()
        for bad in ("<script", "href", "url(", "<image", "<foreignobject", "<style", "style=", "@import"):
            assert bad not in lowered, bad
        assert re.findall(r"https?://[^\"' ]+", svg) == ["http://www.w3.org/2000/svg"]


MARKDOWN_IDS = [
    "plain-id",
    "a|b`c",
    "*em*|_u_ [l](x)",
    "<&>",
    "``x``",
    "`edge`",
    "x`",  # a backtick at one end only: the span needs its padding space at either end
    "`y",
    " sp ace ",
    "&amp;",
    "x\n# Injected heading",
    "y\r\nz",
]


def test_markdown_table_cells_read_as_the_ids_themselves():
    """Rendered as Markdown (Python-Markdown's tables, as MkDocs does), each id cell reads as
    the id, whatever it holds: pipes, backticks, markup, entities, spaces, line breaks."""
    import markdown  # type: ignore[import-untyped]

    result = build_context_packet(request([candidate(ident) for ident in MARKDOWN_IDS]))
    table = render_table(result, "zh", "markdown")
    lines = table.splitlines()
    assert lines[0] == "| id | 类别 | 决定 | 规则 | 剩余预算：前 → 后 |"
    assert len(lines) == 2 + len(MARKDOWN_IDS)  # a line break never ends a row
    html = markdown.markdown(table, extensions=["tables"])
    cells = [row.find("td/code") for row in ET.fromstring(f"<div>{html}</div>").iter("tr")][1:]
    assert [cell.text if cell is not None else None for cell in cells] == MARKDOWN_IDS
    assert "`plain-id`" in lines[2]  # ids without a pipe or a line break stay code spans


def test_markdown_table_replaces_what_no_text_file_can_hold():
    result = build_context_packet(request([candidate("lone\ud800nul\x00")]))
    table = render_table(result, "en", "markdown")
    table.encode("utf-8")  # a lone surrogate cannot be encoded
    assert "`lone\\ud800nul\\u0000`" in table


UNHASHABLE: Any = []  # a lang of the wrong type, from a caller that ignores the annotations


def _deep() -> list:
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    return deep


def _changed_packet(**changes: Any) -> Any:
    result: Any = copy.deepcopy(build_context_packet(demo_request()))
    result["packet"].update(changes)
    return result


def _changed(**changes: Any) -> Any:
    result: Any = copy.deepcopy(build_context_packet(demo_request()))
    for where, value in changes.items():
        if where == "state":
            result["state"] = value
        else:
            result["evidence"][0][where] = value
    return result


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda: render_svg(build_context_packet(demo_request()), UNHASHABLE), id="svg-unhashable-lang"
        ),
        pytest.param(
            lambda: render_table(build_context_packet(demo_request()), UNHASHABLE), id="table-unhashable-lang"
        ),
        pytest.param(lambda: render_problems(["x"], UNHASHABLE), id="problems-unhashable-lang"),
        pytest.param(lambda: render_rules_flow(UNHASHABLE), id="flow-unhashable-lang"),
        pytest.param(lambda: render_problems(cast(Any, None)), id="problems-none"),
        pytest.param(lambda: render_problems(["x"], "en", cast(Any, float("inf"))), id="problems-total-inf"),
        pytest.param(lambda: render_problems(["x"], "en", -1), id="problems-total-negative"),
        pytest.param(
            lambda: render_problems(["$.a: x", "$.b: y"], "en", 1), id="problems-total-below-the-list"
        ),
        pytest.param(
            lambda: render_problems(["$.a: x", "… and 5 more problems"], "en", 5),
            id="problems-total-below-the-more",
        ),
        pytest.param(lambda: render_problems(cast(Any, [_deep()])), id="problems-nested"),
        pytest.param(lambda: render_problems("$.budgetUnits: bad", "en"), id="problems-one-string"),
        pytest.param(lambda: render_problems(cast(Any, ["$: a", 1])), id="problems-not-strings"),
        pytest.param(lambda: render_svg(_changed_packet(budgetUnits=2.5)), id="svg-fractional-budget"),
        pytest.param(lambda: render_svg(_changed_packet(budgetUnits=-3)), id="svg-negative-budget"),
        pytest.param(lambda: render_svg(_changed_packet(budgetUnits=True)), id="svg-boolean-budget"),
        pytest.param(lambda: render_svg(_changed_packet(budgetUnits=2**53)), id="svg-budget-too-large"),
        pytest.param(lambda: render_svg(_changed_packet(usedBudgetUnits=99)), id="svg-used-over-budget"),
        pytest.param(lambda: render_svg(_changed_packet(usedBudgetUnits=0)), id="svg-used-not-the-sum"),
        pytest.param(lambda: render_svg(_changed(state="weird")), id="svg-unknown-state"),
        pytest.param(lambda: render_svg(_changed(state="blocked")), id="svg-state-without-its-phase"),
        pytest.param(lambda: render_table(_changed(remainingBefore=float("inf"))), id="table-infinite"),
        pytest.param(lambda: render_table(_changed(id=_deep())), id="table-nested"),
        pytest.param(lambda: render_svg(_changed(state=_deep())), id="svg-nested"),
    ],
)
def test_what_cannot_be_drawn_is_a_value_error(call):
    """As documented: ValueError, never TypeError, OverflowError or RecursionError."""
    with pytest.raises(ValueError, match=r"^(lang must be one of|render_\w+: (not a|total must be))"):
        call()


@pytest.mark.parametrize("invisible", ["\u200b", "\u0301", "\u200d", "\U000e0041"])
def test_characters_of_no_width_are_bounded_too(invisible):
    """A million characters that take no room: the figure still draws at most SHOWN_CHARS of
    them, in an id and in a detail (the source of a refresh row)."""
    many = invisible * 1_000_000
    for req in (
        request([candidate("a" + many)]),
        request([candidate("o", freshness="expired", source="s:" + many)]),
    ):
        assert len(render_svg(build_context_packet(req), "en")) < 10_000


@pytest.mark.parametrize(
    "text",
    [
        "x" * 255,
        "x" * 257,
        "中" * 5000,
        "\u200b" * 70_000 + "x" * 100,
        "\u0301" * 300 + "中" * 40,
        "a" * 100_000,
    ],
    ids=["under-256", "over-256", "wide", "invisible-first", "marks-then-wide", "long"],
)
def test_a_width_limit_changes_no_answer(text):
    """``_width(text, limit=room)`` may stop early on a long text: it still answers "wider than
    the room?" as the whole sum does, and gives the whole sum's number whenever it does not stop."""
    whole = _width(text)
    for limit in (0.0, 10.0, 600.0, 5_000.0, 10.0**9):
        bounded = _width(text, limit=limit)
        assert (bounded > limit) == (whole > limit), (limit, bounded, whole)
        assert bounded == whole or (limit + FONT < bounded <= whole), (limit, bounded, whole)


@pytest.mark.parametrize("char", ["x", "é", "预"])
def test_a_megabyte_text_is_measured_by_its_beginning(monkeypatch, char):
    from harnessbook.figure import _svg

    summed: list[int] = []
    em = _svg._em
    monkeypatch.setattr(_svg, "_em", lambda text: summed.append(len(text)) or em(text))
    assert _svg._width(char * 1_000_000, limit=INNER) > INNER
    assert summed == [256]
    summed.clear()
    _svg._width(char * 1_000_000)  # no limit: every character
    assert summed == [1_000_000]


def test_each_distinct_character_is_measured_once(monkeypatch):
    from harnessbook.figure import _svg

    measured: list[str] = []
    width = _svg._char_width
    monkeypatch.setattr(_svg, "_char_width", lambda char: measured.append(char) or width(char))
    assert _svg._em("预算é" * 1000) == sum(map(width, "预算é" * 1000))
    assert sorted(measured) == sorted("预算é")
    measured.clear()
    _svg._em("ascii only" * 1000)
    assert measured == []


def test_every_ascii_character_has_the_width_the_ascii_sum_adds():
    from harnessbook.figure import _svg

    assert all(_svg._char_width(chr(code)) == _svg._ASCII_WIDTH for code in range(128))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "x",
        "".join(map(chr, range(128))),
        "kind: direct-evidence · 3 of 10",
        "x" * 4_097,
        "预算单位",
        "mixed 预算 text",
        "e\u0301\u200b\u2068id\u2069",
        "".join(map(chr, range(128))) * 37,
        "".join(map(chr, range(0x3000, 0x3400))) + "é\u0301" * 300,
    ],
    ids=lambda text: f"{len(text)}-chars-{'ascii' if text.isascii() else 'unicode'}",
)
def test_the_ascii_sum_is_the_same_float_as_every_characters_width(text):
    """``_em`` adds an ASCII text's widths in C: it must give the very float that adding each
    character's ``_char_width`` gives, so that no figure changes by a last bit."""
    from harnessbook.figure import _svg

    fast, slow = _svg._em(text), sum(map(_svg._char_width, text))
    assert (type(fast), float(fast).hex()) == (type(slow), float(slow).hex())  # 0, an int, when empty


def test_a_cut_key_keeps_its_path():
    """A key longer than KEY_WIDTH is written ``["kkk..." (61 characters)]``: still a path."""
    problems = refused_problems({**demo_request(), "k" * 61: 1})
    html = render_problems(problems, "en")
    assert f"<li><code>$[&quot;{'k' * 40}...&quot; (61 characters)]</code> unknown key" in html
    assert "the whole request" not in html


def refused_problems(request) -> list[str]:
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(request)
    return list(caught.value.problems)


def test_problems_keep_their_path():
    html = render_problems(
        [
            "$.budgetUnits: must be an integer greater than 0, got 0 (integer)",
            '$.candidates[0]["we: ird"]: unknown key (allowed: id)',
            "$: must be an object, got <script> (string)",
            "something without a path",
        ],
        "en",
    )
    assert "<li><code>$.budgetUnits</code> must be an integer greater than 0, got 0 (integer)</li>" in html
    assert "<li><code>$.candidates[0][&quot;we: ird&quot;]</code> unknown key (allowed: id)</li>" in html
    assert "<li><code>$</code> must be an object, got &lt;script&gt; (string)</li>" in html
    assert "<li><em>the whole request</em> something without a path</li>" in html
    assert "4 problems" in html


def test_problems_cut_at_the_bound_count_them_all():
    refused = request([{} for _ in range(30)])
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(refused)
    error = caught.value
    assert error.total == 180 and len(error.problems) == 101
    for html in (render_problems(error.problems, "en"), render_problems(error.problems, "en", error.total)):
        assert "with 180 problems" in html
        assert html.count("<li>") == 100  # the last line is not a problem of its own
        assert html.endswith("</ol>\n<p>… and 80 more problems</p>\n</div>")
        assert "the whole request" not in html
    assert "共 180 个问题" in render_problems(error.problems, "zh")


def test_one_problem_over_the_bound_is_counted_in_the_singular_line():
    """Exactly 101 problems end with "… and 1 more problem" (singular): read as the summary line,
    not shown as a 101st problem of "the whole request"."""
    error = InvalidRequestError([f"$.candidates[{n}]: must be an object" for n in range(101)])
    assert error.problems[-1] == "… and 1 more problem"
    html = render_problems(error.problems, "en")
    assert "with 101 problems" in html and html.count("<li>") == 100
    assert html.endswith("</ol>\n<p>… and 1 more problem</p>\n</div>")


@pytest.mark.parametrize("budget", [float("inf"), float("nan"), 10**400])
def test_a_figure_of_a_result_with_an_impossible_budget_is_a_value_error(budget):
    result = build_context_packet(demo_request())
    broken = dict(result, packet=dict(result["packet"], budgetUnits=budget))
    with pytest.raises(ValueError, match="not a build_context_packet result"):
        render_svg(broken)


# --------------------------------------------------------------------------- colours


def css_blocks() -> dict[str, dict[str, str]]:
    text = re.sub(r"/\*.*?\*/", "", CSS.read_text(encoding="utf-8"), flags=re.S)
    blocks = {}
    for name, selector in (
        ("light", r":root"),
        ("dark", r'\[data-md-color-scheme="slate"\]'),
        ("print", r"@media print\s*\{\s*\.hbf"),
    ):
        match = re.search(selector + r"\s*\{([^}]*)\}", text)
        assert match, f"figure.css has no {name} block"
        blocks[name] = dict(re.findall(r"--hbf-([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;", match.group(1)))
    return blocks


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


TEXT_ON = [
    ("fg", "bg"),
    ("muted", "bg"),
    ("fg", "s1"),
    ("fg", "s2"),
    ("okt", "ok"),
    ("rft", "rf"),
    ("bkt", "bk"),
]


def test_light_colours_of_the_stylesheet_are_the_svgs_own():
    assert css_blocks()["light"] == LIGHT_COLOURS


@pytest.mark.parametrize("scheme", ["light", "dark", "print"])
def test_every_text_colour_has_contrast_of_4_5(scheme):
    colours = css_blocks()[scheme]
    assert set(colours) == set(LIGHT_COLOURS), "every scheme defines every colour"
    low = {f"{text} on {fill}": round(contrast(colours[text], colours[fill]), 2) for text, fill in TEXT_ON}
    assert all(value >= 4.5 for value in low.values()), low
    assert contrast(colours["line"], colours["bg"]) >= 3, "lines and borders need 3:1 (WCAG 1.4.11)"


def test_every_class_the_svg_uses_has_a_colour_rule():
    css = CSS.read_text(encoding="utf-8")
    svg = (
        render_svg(
            build_context_packet(
                request([candidate("x", size=9, reference="r"), candidate("y", freshness="expired")])
            )
        )
        + render_rules_flow()
    )
    classes = {name for value in re.findall(r'class="([^"]+)"', svg) for name in value.split()} - {
        "hbf",
        "hbf-packet",
        "hbf-flow",
    }
    missing = [name for name in classes if f".hbf .{name} {{" not in css]
    assert not missing, missing


# --------------------------------------------------------------------------- the command line


def run_cli(argv, stdin_text=""):
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(stdin_text.encode("utf-8")), encoding="utf-8")
    code = main(argv, stdin=stdin, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_svg_prints_the_figure_and_keeps_the_exit_code():
    text = json.dumps(demo_request())
    code, out, err = run_cli(["build", "--format", "svg", "-"], text)
    assert (code, err) == (0, "")
    assert out == render_svg(build_context_packet(demo_request()), "zh")
    code, out, _ = run_cli(["build", "--format", "svg", "--lang", "en", "-"], text)
    assert out == render_svg(build_context_packet(demo_request()), "en")
    refresh = request([candidate("old", freshness="expired")])
    assert run_cli(["build", "--format", "svg", "-"], json.dumps(refresh))[0] == 3


def test_cli_json_stays_the_default():
    code, out, _ = run_cli(["build", "-"], json.dumps(demo_request()))
    assert code == 0 and json.loads(out) == build_context_packet(demo_request())


def test_cli_svg_of_an_invalid_request_prints_only_the_problems():
    code, out, err = run_cli(["build", "--format", "svg", "-"], json.dumps(request([], budget=0)))
    assert (code, out) == (2, "")
    assert err == "$.budgetUnits: must be an integer greater than 0, got 0 (integer)\n"
    assert (
        run_cli(["build", "--format", "png", "-"], "{}")[0] == 64
    )  # a usage error (argparse), not an invalid request


# --------------------------------------------------------------------------- the build step


def fenced(title: str, body: str, lang: str = "json", indent: str = "") -> str:
    lines = [f'```{lang} title="{title}"', *body.split("\n"), "```"]
    return "\n".join(indent + line if line else "" for line in lines)


def pair_page(result_text: str, indent: str = "") -> str:
    req = json.dumps(demo_request(), ensure_ascii=False, indent=2)
    return "\n".join(
        [
            "Intro.",
            "",
            fenced("request.json", req, indent=indent),
            "",
            fenced("result.json", result_text, indent=indent),
            "",
            "After.",
        ]
    )


def test_a_pair_becomes_tabs_with_the_figure_first():
    result = json.dumps(build_context_packet(demo_request()), ensure_ascii=False, indent=2)
    for indent in ("", "    "):
        out = hook.rewrite(pair_page(result, indent), "en", "page.md")
        tabs = [line.strip() for line in out.markdown.splitlines() if line.strip().startswith("===")]
        assert tabs == ['=== "Figure"', '=== "request.json"', '=== "result.json"']
        assert out.markdown.count('```json title="request.json"') == 1
        assert f'{indent}    ```json title="result.json"' in out.markdown
        ((key, html),) = out.figures.items()
        assert f"{indent}    {key}" in out.markdown
        assert html.startswith(
            '<figure class="hb-figure" data-hb-figure="packet" data-search-exclude="figure">\n<svg'
        )
        assert "<table>" in html
        assert hook.fill(f"<p>x</p><p>{key}</p>", out.figures, "page.md") == f"<p>x</p>{html}"


def test_only_a_request_followed_at_once_by_its_answer_becomes_a_figure():
    """Prose between the two fences, or an answer at another indent, is no pair: the page is
    left as written (and docs/conftest.py fails the request: its answer must follow at once)."""
    req = fenced("request.json", json.dumps(demo_request()))
    result = json.dumps(build_context_packet(demo_request()), ensure_ascii=False, indent=2)
    for page in (
        "\n".join([req, "", "Some prose.", "", fenced("result.json", result)]),
        "\n".join([req, "", fenced("result.json", result, indent="    ")]),
    ):
        out = hook.rewrite(page, "en", "page.md")
        assert (out.markdown, out.figures) == (page, {})


def test_a_wrong_result_stops_the_build():
    result = build_context_packet(demo_request())
    result["packet"]["usedBudgetUnits"] = 4
    with pytest.raises(PluginError, match=r"page.md, line 3: the page's result.json differs"):
        hook.rewrite(pair_page(json.dumps(result, indent=2)), "zh", "page.md")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda text: text.replace('"remainingBefore": 8', '"remainingBefore": 8.0', 1), "8.0 equals 8"),
        (
            lambda text: text.replace(
                '"state": "ready",\n  "phase": "assembled"', '"phase": "assembled",\n  "state": "ready"'
            ),
            "key order",
        ),
        (lambda text: text.replace("\n", "\n ", 3), "layout"),
    ],
    ids=["a float for an integer", "keys reordered", "another layout"],
)
def test_a_result_equal_in_value_but_not_as_printed_stops_the_build(change, why):
    """The page's result.json is the text the command line prints: a value that Python finds
    equal (8.0 == 8), another key order or layout is not that text (``pytest docs`` says the
    same; ``mkdocs build`` alone must not publish it)."""
    printed = json.dumps(build_context_packet(demo_request()), ensure_ascii=False, indent=2)
    changed = change(printed)
    assert changed != printed and json.loads(changed) == json.loads(printed), why
    with pytest.raises(PluginError, match=r"page.md, line 3: the page's result.json differs"):
        hook.rewrite(pair_page(changed), "zh", "page.md")


def test_a_request_the_command_line_cannot_read_stops_the_build():
    """Read as `harnessbook build` reads it: a repeated key is refused, not taken as the last."""
    text = json.dumps(demo_request()).replace('"budgetUnits": 8', '"budgetUnits": 8, "budgetUnits": 8', 1)
    page = "\n".join([fenced("request.json", text), "", fenced("result.json", "{}")])
    with pytest.raises(PluginError, match=r"page.md, line 1: request.json repeats the key \$.budgetUnits"):
        hook.rewrite(page, "zh", "page.md")


def test_a_build_error_names_the_line_of_the_page_front_matter_included():
    """MkDocs takes the front matter off before the hook reads the page: the line an error
    names counts it again (it was off by the front matter's lines)."""
    result = build_context_packet(demo_request())
    result["packet"]["usedBudgetUnits"] = 4
    body = pair_page(json.dumps(result, indent=2))
    source = '---\ndescription: "A page."\n---\n\n' + body
    first_line = hook.markdown_first_line(source)
    assert first_line == 5
    with pytest.raises(PluginError, match=r"page.md, line 7: the page's result.json differs"):
        hook.rewrite(body, "zh", "page.md", first_line)
    assert hook.markdown_first_line(body) == 1


def test_a_wrong_error_stops_the_build():
    req = json.dumps(request([], budget=0))
    page = "\n".join(
        [
            fenced("request.json", req),
            "",
            fenced("InvalidRequestError", "$.budgetUnits: some other words", "text"),
        ]
    )
    with pytest.raises(PluginError, match="differs from the builder's problems"):
        hook.rewrite(page, "zh", "page.md")
    # The first problems only, of three: refused too (the page would hide the rest).
    first_only = "\n".join(
        [
            fenced("request.json", "{}"),
            "",
            fenced("InvalidRequestError", "$.taskAnchor: required key is missing", "text"),
        ]
    )
    with pytest.raises(PluginError, match="differs from the builder's problems"):
        hook.rewrite(first_only, "zh", "page.md")
    accepted = "\n".join(
        [fenced("request.json", json.dumps(demo_request())), "", fenced("InvalidRequestError", "x", "text")]
    )
    with pytest.raises(PluginError, match="accepted the request"):
        hook.rewrite(accepted, "zh", "page.md")


def test_a_refused_request_shows_its_problems():
    req = json.dumps(request([], budget=0))
    page = "\n".join(
        [
            fenced("request.json", req),
            "",
            fenced(
                "InvalidRequestError",
                "$.budgetUnits: must be an integer greater than 0, got 0 (integer)",
                "text",
            ),
        ]
    )
    out = hook.rewrite(page, "zh", "page.md")
    assert '=== "问题"' in out.markdown and '=== "InvalidRequestError"' in out.markdown
    (html,) = out.figures.values()
    assert "<li><code>$.budgetUnits</code> must be an integer greater than 0, got 0 (integer)</li>" in html


def test_markers():
    out = hook.rewrite(
        "Text.\n\n<!-- hb-figure: rules-flow -->\n\n<!-- hb-figure: packet cli-ready.json -->\n", "en", "p.md"
    )
    flow, packet = out.figures.values()
    assert 'data-hb-figure="rules-flow"' in flow and render_rules_flow("en") in flow
    assert 'data-hb-figure="packet"' in packet
    with pytest.raises(PluginError, match="unknown figure 'pie'"):
        hook.rewrite("<!-- hb-figure: pie -->", "en", "p.md")
    with pytest.raises(PluginError, match="needs a request file"):
        hook.rewrite("<!-- hb-figure: packet ../../pyproject.toml -->", "en", "p.md")
    # A marker inside a fence is text, not a figure.
    assert hook.rewrite("```text\n<!-- hb-figure: rules-flow -->\n```", "en", "p.md").figures == {}


def test_a_placeholder_that_did_not_render_stops_the_build():
    with pytest.raises(PluginError, match="was not rendered"):
        hook.fill("<p>nothing</p>", {"HBFIGUREPLACEHOLDER1Z": "<figure></figure>"}, "p.md")


def test_every_pair_on_every_built_page_shows_a_figure(built_site):
    missing = []
    for path in sorted(DOCS.rglob("*.md")):
        relative = path.relative_to(DOCS)
        if "examples" in relative.parts:
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        found = hook.fences(lines)
        pairs = sum(
            1
            for a, b in itertools.pairwise(found)
            if a.title == "request.json" and b.title in ("result.json", "InvalidRequestError")
        )
        if not pairs:
            continue
        name = relative.as_posix()
        prefix = "en/" if name.endswith(".en.md") else ""
        stem = name.removesuffix(".en.md").removesuffix(".md")
        url = prefix + ("" if stem == "index" else stem.removesuffix("/index").removesuffix("index") + "/")
        built = (built_site.path / url / "index.html").read_text(encoding="utf-8")
        shown = built.count('data-hb-figure="packet"') + built.count('data-hb-problems=""')
        if shown != pairs:
            missing.append(f"{name}: {pairs} pairs, {shown} figures")
        # In the page's own language: the tab labels, and each figure's text.
        lang, other = ("en", "zh") if prefix else ("zh", "en")
        labels = {
            edition: sum(built.count(f">{label}</label>") for label in hook.LABELS[edition].values())
            for edition in (lang, other)
        }
        if labels != {lang: pairs, other: 0}:
            missing.append(f"{name}: tab labels by edition {labels}, {pairs} pairs")
        figures = built.count('data-hb-figure="packet"')
        if built.count(f'class="hbf hbf-packet" role="img" lang="{lang}"') != figures:
            missing.append(f"{name}: a figure not drawn in {lang}")
    assert not missing, missing


def test_the_docstring_examples_run():
    import doctest

    from harnessbook.figure import flow, packet, table

    attempted = 0
    for module in (packet, table, flow):
        outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        attempted += outcome.attempted
        assert outcome.failed == 0
    assert attempted >= 4


def test_a_problem_without_a_path_and_colon_belongs_to_the_whole_request():
    """A path is read only when ": " follows it (a review's mutant that dropped the check passed)."""
    html = render_problems(["$.budgetUnits is wrong", "$.budgetUnits: must be an integer"], "en")
    assert "<li><em>the whole request</em> $.budgetUnits is wrong</li>" in html
    assert "<li><code>$.budgetUnits</code> must be an integer</li>" in html


def test_no_problems_are_counted_in_the_plural():
    assert "with 0 problems," in render_problems([], "en")
    assert "with 1 problem," in render_problems(["$: x"], "en")


def _texts(svg: str) -> list[tuple[str, bool]]:
    """Each <text>'s drawn characters (its <title>, the whole text of a cut one, left out) and
    whether it has a <title>."""
    out = []
    for text in parse(svg).iter(f"{SVG}text"):
        title = text.find(f"{SVG}title")
        drawn = (text.text or "") + ((title.tail or "") if title is not None else "")
        out.append((drawn, title is not None))
    return out


def test_a_detail_too_long_for_its_row_goes_on_below_the_id_whole():
    """The source and capture time of an expired item are why it must be fetched again: cut at
    one line ("expired, from injected:test-output (2026-07…"), the figure hid them."""
    result = build_context_packet(
        request([candidate("failure-log", freshness="expired", capturedAt="2026-07-15T09:30:00+08:00")])
    )
    assert result["refresh"], result
    cases: tuple[tuple[Literal["zh", "en"], tuple[str, ...]], ...] = (
        ("en", ("expired", "injected:test-output", "2026-07-15T09:30:00+08:00")),
        ("zh", ("过期", "injected:test-output", "2026-07-15T09:30:00+08:00")),
    )
    for lang, words in cases:
        texts = _texts(render_svg(result, lang))
        rows = [i for i, (text, _) in enumerate(texts) if "failure-log" in text]
        below = texts[rows[-1] + 1 : rows[-1] + 1 + packet.DETAIL_LINES]
        joined = " ".join(text for text, _ in below)
        assert all(word in joined for word in words), (lang, below)
        assert "…" not in joined and not any(titled for _, titled in below), (lang, below)


def test_a_detail_longer_than_three_lines_is_cut_and_kept_whole_in_its_title():
    many = [f"evidence-number-{n}" for n in range(12)]
    result = build_context_packet(
        request(
            [
                *(candidate(ident) for ident in many),
                candidate("summary", kind="history-summary", relevance="background", conflictsWith=many),
            ],
            budget=100,
        )
    )
    svg = render_svg(result, "en")
    root = parse(svg)
    titled = [t for t in root.iter(f"{SVG}text") if t.find(f"{SVG}title") is not None]
    # The excluded row and the refresh row each end in a cut third line, whose title (its
    # tooltip) is the whole detail; the lines above it are drawn whole and carry none.
    cut = [t for t in titled if "evidence-number-11" in (t.findtext(f"{SVG}title") or "")]
    assert len(cut) == 2, [t.findtext(f"{SVG}title") for t in titled]
    assert all(text.strip("\u2068\u2069 ") for text, _ in _texts(svg)), "an empty line is drawn"


def test_a_line_that_starts_inside_an_isolate_opens_it_again():
    """A detail is broken between any two characters when it has no space to break at: a line
    that starts inside a caller's isolate opens it again, so an override in it stays inside."""
    long_id = "x" * 50 + "\u202e" + "y" * 10  # no space: broken inside its isolate
    lines, cut = _svg._lines(f"conflicts with {_svg._isolate(long_id)}, from here", 300, 12, 3)
    assert not cut and len(lines) == 3, lines
    assert lines[0] == "conflicts with" and "\u2069" not in lines[1], lines
    assert lines[2].startswith("\u2068x") and lines[2].endswith("\u2069, from here"), lines
    for line in lines:
        depth = 0
        for char in line:
            depth += {"\u2068": 1, "\u2069": -1}.get(char, 0)
            assert depth >= 0, line


def test_the_chinese_problem_list_says_the_messages_are_the_builders_english():
    """The builder's messages are English in both editions: the Chinese lead-in says so, or a
    reader met English lines under a Chinese sentence with no word about it."""
    html = render_problems(["$.budgetUnits: must be an integer greater than 0, got 0 (integer)"], "zh")
    assert "构建器的英文原文" in html and "must be an integer greater than 0" in html


@pytest.mark.parametrize(
    "detail",
    [
        # The isolate's closing and the words after it made a line of their own ("⁩ 冲突；摘要来源").
        "与 \u2068" + "数" * 24 + "\u2069 冲突；摘要来源 \u2068https://example.org/" + "a" * 20 + "\u2069",
        "与 \u2068" + "数" * 18 + "\u2069、\u2068" + "据" * 5 + "\u2069 冲突",
        # Closing punctuation after a caller's isolate began the next line ("⁩、⁨据据据据据⁩ 冲突").
        "与 \u2068" + "数" * 24 + "\u2069、\u2068" + "据" * 5 + "\u2069 冲突",
    ],
)
def test_detail_lines_are_never_empty_and_never_start_with_a_space_or_closing_punctuation(detail):
    lines, _ = _svg._lines(detail, 310, 12, 3)
    for line in lines:
        visible = line.strip("\u2068\u2069")
        assert visible and not visible.startswith((" ", "、", "，", "。", "）")), lines


def test_problems_are_introduced_in_chinese_by_default():
    assert render_problems(["$.budgetUnits: x"]) == render_problems(["$.budgetUnits: x"], "zh")


@pytest.mark.parametrize(
    ("problems", "total", "count"),
    [
        pytest.param([], 0, "0 problems", id="none-of-none"),
        pytest.param(["$.a: x"], 3, "3 problems", id="more-than-listed"),
    ],
)
def test_the_total_given_is_the_count_introduced(problems, total, count):
    """A total of 0 is a whole number of at least the problems given; a total above the problems
    listed is the count the introduction says (the error's total, from past its first 100)."""
    items = ["<li><code>$.a</code> x</li>"] if problems else []
    assert render_problems(problems, "en", total) == "\n".join(
        [
            '<div class="hb-problems">',
            f"<p>The builder refused this request (InvalidRequestError) with {count}, each after its JSON path:</p>",
            "<ol>",
            *items,
            "</ol>",
            "</div>",
        ]
    )


@pytest.mark.parametrize(
    ("problems", "message"),
    [
        pytest.param(None, "(TypeError: 'NoneType' object is not iterable)", id="none"),
        pytest.param(["$: a", 1], "(item 1 is of type int)", id="an-int"),
    ],
)
def test_what_is_not_a_list_of_problems_is_said_exactly(problems, message):
    with pytest.raises(ValueError, match=r"^render_problems: not a list of problems") as raised:
        render_problems(cast(Any, problems), "en")
    assert str(raised.value) == f"render_problems: not a list of problems {message}"
