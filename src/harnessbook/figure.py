"""Figures of a packet: what [`build_context_packet`][harnessbook.context_packet.build_context_packet] decided, at a glance.

Pure functions from a result (or a list of problems) to text, the same on the book's pages,
in the in-browser playground and on the command line (``harnessbook build --format svg``):

* [`render_svg`][harnessbook.figure.render_svg]: the packet as an inline SVG figure;
* [`render_table`][harnessbook.figure.render_table]: the decision table of ``evidence``;
* [`render_problems`][harnessbook.figure.render_problems]: an ``InvalidRequestError``'s problems as a list;
* [`render_rules_flow`][harnessbook.figure.render_rules_flow]: the order in which the rules apply.

Every text that comes from the caller (ids, sources, problems) is escaped, so it stays text.
The SVG has ``role="img"``, a ``<title>`` and a ``<desc>`` in the edition's language, no
script and no external resource. Its colours are classes that the site's stylesheet
(``docs/assets/stylesheets/figure.css``) maps to CSS custom properties for the light, dark
and print schemes; each element also carries the light colour as a presentation attribute,
so the SVG reads well on its own, without any stylesheet.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from harnessbook.context_packet import RULES

__all__ = [
    "render_svg",
    "render_table",
    "render_problems",
    "render_rules_flow",
    "LIGHT_COLOURS",
    "MAX_ROWS",
]

Lang = Literal["zh", "en"]

LIGHT_COLOURS: dict[str, str] = {
    "fg": "#1f2329",
    "muted": "#4a5260",
    "bg": "#ffffff",
    "line": "#5c6370",
    "grid": "#8a909c",
    "s1": "#c5cae9",
    "s2": "#e3e6f5",
    "ok": "#d3f9d8",
    "okt": "#0b4d1a",
    "rf": "#ffe8a3",
    "rft": "#5c3900",
    "bk": "#ffdede",
    "bkt": "#7a1111",
}
"""The light scheme's colour of each class (the presentation-attribute fallback).

``docs/assets/stylesheets/figure.css`` defines the same classes for the light, dark and print
schemes as CSS custom properties; a test keeps the light ones equal to these.
"""

MAX_ROWS = 12
"""At most this many rows per list in a figure; the rest are counted ("and 30 more")."""

WIDTH = 360  # viewBox units, about CSS pixels: the figure is drawn for a phone's width
PAD = 8
INNER = WIDTH - 2 * PAD
ROW = 20
FONT = 13
CELLS = 40  # at most this many budget cells are drawn; beyond that a cell stands for more units

_WORDS: dict[str, dict[str, str]] = {
    "zh": {
        "title": "Context packet 图示：状态 {state}",
        "state": "状态 {state}",
        "phase": "阶段 {phase}",
        "budget": "预算 {budget} · 已用 {used} · 未用 {unused}",
        "scaled": "按比例缩放：每格 {step}",
        "cells": "每格 1 单位",
        "unused": "未用 {unused}",
        "blocked_bar": "被阻塞：没有选择任何条目",
        "unit": "{n} 单位",
        "pointer": "{n} 个指针",
        "pointers_n": "{n} 个指针",
        "units": "{n} 单位",
        "selected": "选入（按处理顺序）",
        "pointers": "指针（没有载入全文）",
        "excluded": "排除",
        "refresh": "待刷新",
        "unknowns": "缺少出处",
        "needs": "需要 {requires} · 可用 {available}",
        "expired": "过期",
        "conflict": "与 {ids} 冲突",
        "over_budget": "超预算：需要 {requires} · 可用 {available}",
        "refresh_expired": "过期，来源 {source}（{captured}）",
        "refresh_conflict": "与 {ids} 冲突，来源 {source}",
        "missing": "缺少 {keys}",
        "list_sep": "、",
        "more": "…… 另有 {n} 项（完整列表在 evidence 中）",
        "desc": (
            "预算 {budget}的 context packet：选入 {selected} 项共 {used}，{pointers}，"
            "排除 {excluded} 项，{refresh} 项待刷新，{unknowns} 项缺少出处；状态 {state}，阶段 {phase}。"
        ),
        "caption": "evidence：每个候选一条决定记录",
        "col_id": "id",
        "col_kind": "种类",
        "col_decision": "决定",
        "col_rule": "规则",
        "col_budget": "剩余预算：前 → 后",
        "no_candidates": "没有候选，evidence 为空。",
        "problems_intro": "构建器拒绝了这个请求（InvalidRequestError），共 {n} 个问题，每个问题前是它的 JSON 路径：",
        "whole_request": "整个请求",
    },
    "en": {
        "title": "Context packet figure: state {state}",
        "state": "state {state}",
        "phase": "phase {phase}",
        "budget": "budget {budget} · used {used} · unused {unused}",
        "scaled": "scaled: one cell = {step}",
        "cells": "one cell = 1 unit",
        "unused": "unused {unused}",
        "blocked_bar": "blocked: nothing was selected",
        "unit": "{n} unit",
        "pointer": "{n} pointer",
        "pointers_n": "{n} pointers",
        "units": "{n} units",
        "selected": "Selected, in processing order",
        "pointers": "Pointers (not loaded in full)",
        "excluded": "Excluded",
        "refresh": "To refresh",
        "unknowns": "Missing provenance",
        "needs": "needs {requires} · {available} available",
        "expired": "expired",
        "conflict": "conflicts with {ids}",
        "over_budget": "over budget: needs {requires} · {available} available",
        "refresh_expired": "expired, from {source} ({captured})",
        "refresh_conflict": "conflicts with {ids}, from {source}",
        "missing": "missing {keys}",
        "list_sep": ", ",
        "more": "… and {n} more (all of them are in evidence)",
        "desc": (
            "A context packet with a budget of {budget}: {selected} selected using {used}, "
            "{pointers}, {excluded} excluded, {refresh} to refresh, {unknowns} missing provenance; "
            "state {state}, phase {phase}."
        ),
        "caption": "evidence: one decision record per candidate",
        "col_id": "id",
        "col_kind": "kind",
        "col_decision": "decision",
        "col_rule": "rule",
        "col_budget": "budget left: before → after",
        "no_candidates": "No candidates: evidence is empty.",
        "problems_intro": "The builder refused this request (InvalidRequestError) with {n} {problems}, each after its JSON path:",
        "whole_request": "the whole request",
    },
}

_STATE_CLASS = {"ready": ("ok", "okt"), "refresh_required": ("rf", "rft"), "blocked": ("bk", "bkt")}


def _words(lang: str) -> dict[str, str]:
    if lang not in _WORDS:
        raise ValueError(f"lang must be one of {', '.join(_WORDS)}, got {lang!r}")
    return _WORDS[lang]


# --------------------------------------------------------------------------- text


# Characters XML 1.0 does not allow (C0 controls but tab and newline, lone surrogates,
# U+FFFE/U+FFFF). JSON can carry them; the figure shows U+FFFD in their place.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: object) -> str:
    return _NOT_XML.sub("\ufffd", str(text))


def _esc(text: object) -> str:
    """Caller text as XML/HTML character data or attribute value: nothing in it is markup."""
    return html.escape(_clean(text), quote=True)


def _isolate(text: str) -> str:
    # First-strong isolate ... pop: right-to-left text (or a stray U+202E) in an id cannot
    # reorder the words around it.
    return f"\u2068{text}\u2069"


def _char_width(char: str) -> float:
    """Width of one character, in em, for the monospaced ids and the figure's labels."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0.0
    return 1.0 if unicodedata.east_asian_width(char) in ("W", "F") else 0.6


def _width(text: str, size: float = FONT) -> float:
    return sum(_char_width(char) for char in text) * size


def _fit(text: str, room: float, size: float = FONT) -> tuple[str, bool]:
    """``text`` cut to ``room`` units with an ellipsis, and whether it was cut."""
    text = _clean(text)
    if _width(text, size) <= room:
        return text, False
    out, used = [], _width("…", size)
    for char in text:
        used += _char_width(char) * size
        if used > room:
            break
        out.append(char)
    return "".join(out) + "…", True


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class _Svg:
    """A list of SVG lines with helpers that escape every text they are given."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def rect(
        self, x: float, y: float, w: float, h: float, cls: str, *, rx: float = 0, dashed: bool = False
    ) -> None:
        colour = LIGHT_COLOURS[cls]
        extra = f' rx="{_num(rx)}"' if rx else ""
        classes = cls
        if dashed:
            classes += " k-line"
            extra += f' stroke="{LIGHT_COLOURS["line"]}" stroke-dasharray="3 2"'
        self.lines.append(
            f'<rect class="{classes}" x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" fill="{colour}"{extra}/>'
        )

    def frame(self, x: float, y: float, w: float, h: float, cls: str = "line", *, rx: float = 0) -> None:
        extra = f' rx="{_num(rx)}"' if rx else ""
        self.lines.append(
            f'<rect class="k-{cls}" x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
            f'fill="none" stroke="{LIGHT_COLOURS[cls]}"{extra}/>'
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, cls: str = "grid") -> None:
        self.lines.append(
            f'<path class="k-{cls}" d="M{_num(x1)} {_num(y1)}L{_num(x2)} {_num(y2)}" stroke="{LIGHT_COLOURS[cls]}"/>'
        )

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        cls: str = "",
        anchor: str = "",
        bold: bool = False,
        mono: bool = False,
        size: float = FONT,
        full: str | None = None,
        isolate: bool = False,
    ) -> None:
        attributes = f' x="{_num(x)}" y="{_num(y)}"'
        if cls:
            attributes = f' class="{cls}" fill="{LIGHT_COLOURS[cls]}"' + attributes
        if anchor:
            attributes += f' text-anchor="{anchor}"'
        if bold:
            attributes += ' font-weight="700"'
        if mono:
            attributes += ' font-family="ui-monospace, Menlo, Consolas, monospace" data-mono=""'
        if size != FONT:
            attributes += f' font-size="{_num(size)}"'
        body = _esc(_isolate(text) if isolate else text)
        # A cut text keeps its whole value in a <title>: shown as a tooltip, and searchable.
        tip = f"<title>{_esc(full)}</title>" if full is not None else ""
        self.lines.append(f"<text{attributes}>{tip}{body}</text>")

    def label(self, x: float, y: float, value: str, room: float, **options: Any) -> None:
        """Caller text (an id, a source), cut to ``room`` with the full text kept in a <title>."""
        size = options.get("size", FONT)
        shown, cut = _fit(value, room, size)
        self.text(x, y, shown, full=value if cut else None, isolate=True, **options)


def _units(n: object, words: dict[str, str]) -> str:
    return words["unit" if n == 1 else "units"].format(n=n)


def _root(height: float, lang: str, title: str, desc: str, body: list[str], *, kind: str) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="hbf hbf-{kind}" role="img" lang="{lang}" '
        f'viewBox="0 0 {WIDTH} {_num(height)}" width="{WIDTH}" height="{_num(height)}" '
        f'font-family="system-ui, sans-serif" font-size="{FONT}" fill="{LIGHT_COLOURS["fg"]}">'
    )
    background = f'<rect class="bg" width="{WIDTH}" height="{_num(height)}" fill="{LIGHT_COLOURS["bg"]}"/>'
    return (
        "\n".join(
            [head, f"<title>{_esc(title)}</title>", f"<desc>{_esc(desc)}</desc>", background, *body, "</svg>"]
        )
        + "\n"
    )


# --------------------------------------------------------------------------- the packet figure


def _step(budget: int) -> int:
    """Units per drawn cell: 1 up to ``CELLS`` units, else the smallest 1-2-5 step that fits."""
    if budget <= CELLS:
        return 1
    magnitude = 10 ** max(0, math.floor(math.log10(budget / CELLS)))
    while True:
        for factor in (1, 2, 5):
            if math.ceil(budget / (factor * magnitude)) <= CELLS:
                return factor * magnitude
        magnitude *= 10


def render_svg(result: Mapping[str, Any], lang: Lang = "zh") -> str:
    """Draw a result of ``build_context_packet`` as an inline SVG figure.

    From the top: the state and the phase; the budget as a bar of ``budgetUnits`` cells (one
    cell stands for several units when the budget is larger than 40, and the figure says how
    many), the selected items as numbered segments in processing order, then the unused
    remainder; below it one list each of the selected items (id and units), the pointers (the
    units they require and the units that were available), the excluded items with their
    reason, the refresh entries and the unknowns. Lists longer than [`MAX_ROWS`][harnessbook.figure.MAX_ROWS]
    end with a count of the rest.

    Args:
        result: A result of [`build_context_packet`][harnessbook.context_packet.build_context_packet].
        lang: The edition's language, ``"zh"`` or ``"en"``: the title, description and labels.

    Returns:
        The SVG text, one element a line. The same result always gives the same text.

    Raises:
        ValueError: If ``lang`` is unknown or ``result`` is not a builder result.

    Examples:
        >>> from harnessbook import build_context_packet, demo_request
        >>> from harnessbook.figure import render_svg
        >>> svg = render_svg(build_context_packet(demo_request()), lang="en")
        >>> svg.splitlines()[1]
        '<title>Context packet figure: state ready</title>'
    """
    words = _words(lang)
    try:
        return _draw_packet(result, lang, words)
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(
            f"render_svg: not a build_context_packet result ({type(error).__name__}: {error})"
        ) from None


def _draw_packet(result: Mapping[str, Any], lang: str, words: dict[str, str]) -> str:
    state, phase = str(result["state"]), str(result["phase"])
    packet = result["packet"]
    budget, used = int(packet["budgetUnits"]), int(packet["usedBudgetUnits"])
    selected, pointers = list(packet["selected"]), list(packet["pointers"])
    excluded, refresh, unknowns = list(result["excluded"]), list(result["refresh"]), list(result["unknowns"])
    svg = _Svg()

    # State and phase.
    fill, ink = _STATE_CLASS.get(state, ("s2", "fg"))
    badge = words["state"].format(state=state)
    badge_w = _width(badge) + 16
    svg.rect(PAD, 6, badge_w, 22, fill, rx=11)
    svg.text(PAD + 8, 21.5, badge, cls=ink, bold=True)
    svg.text(PAD + badge_w + 10, 21.5, words["phase"].format(phase=phase), cls="muted")

    # The budget line and the bar.
    y = 48
    line = words["budget"].format(budget=_units(budget, words), used=used, unused=budget - used)
    if _width(line) > INNER:  # large numbers: the budget on one line, the use on the next
        first, rest = line.split(" · ", 1)
        svg.text(PAD, y, first)
        y += 18
        line = rest
    svg.text(PAD, y, line)
    step = _step(budget)
    y += 18
    svg.text(
        PAD,
        y,
        words["scaled"].format(step=_units(step, words)) if step > 1 else words["cells"],
        cls="muted",
        size=12,
    )
    top, height = y + 8, 28
    scale = INNER / budget if budget > 0 else 0.0
    cursor = 0
    numbers = []
    for index, item in enumerate(selected):
        size = int(item["sizeUnits"])
        x0 = PAD + cursor * scale
        w = max(size * scale, 2.0)
        fill = "s1" if index % 2 == 0 else "s2"
        svg.rect(x0, top, w, height, fill)
        number = str(index + 1)
        if w >= _width(number, 12) + 8:
            numbers.append((x0 + w / 2, number, fill))
        cursor += size
    for tick in range(step, budget, step):  # cell boundaries
        svg.line(PAD + tick * scale, top, PAD + tick * scale, top + height)
    cursor = 0
    for item in selected:  # segment boundaries, drawn over the cells
        cursor += int(item["sizeUnits"])
        if 0 < cursor < budget:
            svg.line(PAD + cursor * scale, top, PAD + cursor * scale, top + height, "line")
    for centre, number, fill in numbers:  # each segment's number, on a patch of its own colour
        patch = _width(number, 12) + 4
        svg.rect(centre - patch / 2, top + 6, patch, height - 12, fill)
        svg.text(centre, top + height / 2 + 4.5, number, anchor="middle", size=12, bold=True)
    svg.frame(PAD, top, INNER, height)
    free_x, free_w = PAD + used * scale, (budget - used) * scale
    note = words["blocked_bar"] if state == "blocked" else words["unused"].format(unused=budget - used)
    if budget > used and free_w >= _width(note, 12) + 8:  # on a patch of background, over the cells
        note_w = _width(note, 12) + 6
        svg.rect(free_x + (free_w - note_w) / 2, top + 6, note_w, height - 12, "bg")
        svg.text(free_x + free_w / 2, top + height / 2 + 4.5, note, anchor="middle", cls="muted", size=12)
    y = top + height + 14
    svg.text(PAD, y, "0", cls="muted", size=12)
    svg.text(WIDTH - PAD, y, str(budget), cls="muted", size=12, anchor="end")
    y += 8

    # The lists.
    def section(heading: str, rows: list[tuple[str, str]], swatch) -> None:
        nonlocal y
        if not rows:
            return
        y += 20
        svg.text(PAD, y, heading, bold=True)
        for index, (ident, detail) in enumerate(rows[:MAX_ROWS]):
            y += ROW
            swatch(index, y)
            x = PAD + 26
            room = WIDTH - PAD - x
            detail_w = _width(detail, 12)
            if _width(ident) + 12 + detail_w <= room:
                svg.label(x, y, ident, room, mono=True)
                svg.text(WIDTH - PAD, y, detail, cls="muted", size=12, anchor="end")
            else:  # a long id: the detail goes on a line of its own
                svg.label(x, y, ident, room, mono=True)
                y += ROW - 3
                shown, cut = _fit(detail, room, 12)
                svg.text(x, y, shown, cls="muted", size=12, full=detail if cut else None, isolate=True)
        if len(rows) > MAX_ROWS:
            y += ROW
            svg.text(PAD + 26, y, words["more"].format(n=len(rows) - MAX_ROWS), cls="muted", size=12)

    def numbered(index: int, row_y: float) -> None:
        svg.rect(PAD, row_y - 13, 20, 17, "s1" if index % 2 == 0 else "s2")
        svg.text(PAD + 10, row_y, str(index + 1), anchor="middle", size=12, bold=True)

    def outlined(index: int, row_y: float) -> None:
        svg.rect(PAD, row_y - 13, 20, 17, "bg", dashed=True)
        svg.text(PAD + 10, row_y, "↗", anchor="middle", size=12)

    def mark(symbol: str):
        def draw(index: int, row_y: float) -> None:
            svg.text(PAD + 10, row_y, symbol, anchor="middle", bold=True)

        return draw

    sep = words["list_sep"]
    section(
        words["selected"],
        [(str(item["id"]), _units(item["sizeUnits"], words)) for item in selected],
        numbered,
    )
    section(
        words["pointers"],
        [
            (
                str(item["id"]),
                words["needs"].format(
                    requires=item["loadCondition"]["requiresUnits"],
                    available=item["loadCondition"]["availableUnits"],
                ),
            )
            for item in pointers
        ],
        outlined,
    )

    def reason(item: Mapping[str, Any]) -> str:
        if item["reason"] == "over_budget":
            return words["over_budget"].format(
                requires=item["requiresUnits"], available=item["availableUnits"]
            )
        if item["reason"] == "conflict":
            return words["conflict"].format(ids=sep.join(map(str, item["conflictsWith"])))
        return words.get(str(item["reason"]), str(item["reason"]))

    section(words["excluded"], [(str(item["id"]), reason(item)) for item in excluded], mark("×"))

    def refresh_detail(item: Mapping[str, Any]) -> str:
        if item["reason"] == "expired":
            return words["refresh_expired"].format(source=item["source"], captured=item["capturedAt"])
        return words["refresh_conflict"].format(
            ids=sep.join(map(str, item["conflictsWith"])), source=item["sources"][item["id"]]
        )

    section(words["refresh"], [(str(item["id"]), refresh_detail(item)) for item in refresh], mark("↻"))
    section(
        words["unknowns"],
        [(str(item["id"]), words["missing"].format(keys=sep.join(item["missing"]))) for item in unknowns],
        mark("?"),
    )

    title = words["title"].format(state=state)
    desc = words["desc"].format(
        budget=_units(budget, words),
        used=_units(used, words),
        selected=len(selected),
        pointers=words["pointer" if len(pointers) == 1 else "pointers_n"].format(n=len(pointers)),
        excluded=len(excluded),
        refresh=len(refresh),
        unknowns=len(unknowns),
        state=state,
        phase=phase,
    )
    return _root(y + 12, lang, title, desc, svg.lines, kind="packet")


# --------------------------------------------------------------------------- the decision table


def render_table(
    result: Mapping[str, Any], lang: Lang = "zh", format: Literal["html", "markdown"] = "html"
) -> str:
    """The decision table of a result's ``evidence``: id, kind, decision, rule, budget before → after.

    One row per evidence record, in the result's order. Codes (kinds, decisions, rules) are
    shown as the result spells them; the caption and the column headings are in ``lang``.

    Args:
        result: A result of [`build_context_packet`][harnessbook.context_packet.build_context_packet].
        lang: ``"zh"`` or ``"en"``.
        format: ``"html"`` (a ``<table>`` with a ``<caption>``) or ``"markdown"`` (a pipe table).

    Examples:
        >>> from harnessbook import build_context_packet, demo_request
        >>> from harnessbook.figure import render_table
        >>> print(render_table(build_context_packet(demo_request()), "en", "markdown"))
        | id | kind | decision | rule | budget left: before → after |
        |---|---|---|---|---|
        | `failure-output` | `direct-evidence` | `selected` | `budget_fit` | 8 → 5 |
        | `large-ci-log` | `direct-evidence` | `pointer` | `pointer` | 5 → 5 |
    """
    words = _words(lang)
    if format not in ("html", "markdown"):
        raise ValueError(f"format must be 'html' or 'markdown', got {format!r}")
    try:
        evidence = [
            (
                str(e["id"]),
                str(e["kind"]),
                str(e["decision"]),
                str(e["rule"]),
                int(e["remainingBefore"]),
                int(e["remainingAfter"]),
            )
            for e in result["evidence"]
        ]
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(
            f"render_table: not a build_context_packet result ({type(error).__name__}: {error})"
        ) from None
    headings = [words[key] for key in ("col_id", "col_kind", "col_decision", "col_rule", "col_budget")]
    if format == "markdown":
        if not evidence:
            return words["no_candidates"]

        def cell(text: str) -> str:
            text = _esc(text).replace("|", "&#124;").replace("`", "&#96;")
            return f"`{text}`"

        lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
        for ident, kind, decision, rule, before, after in evidence:
            lines.append(
                f"| {cell(ident)} | {cell(kind)} | {cell(decision)} | {cell(rule)} | {before} → {after} |"
            )
        return "\n".join(lines)
    if not evidence:
        return f"<p>{_esc(words['no_candidates'])}</p>"
    out = [
        "<table>",
        f"<caption>{_esc(words['caption'])}</caption>",
        "<thead><tr>" + "".join(f'<th scope="col">{_esc(h)}</th>' for h in headings) + "</tr></thead>",
        "<tbody>",
    ]
    for ident, kind, decision, rule, before, after in evidence:
        out.append(
            f"<tr><td><bdi><code>{_esc(ident)}</code></bdi></td><td><code>{_esc(kind)}</code></td>"
            f"<td><code>{_esc(decision)}</code></td><td><code>{_esc(rule)}</code></td><td>{before} → {after}</td></tr>"
        )
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


# --------------------------------------------------------------------------- problems

_PATH = re.compile(r'\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:-?\d+|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')\])*')


def _split_problem(problem: str) -> tuple[str | None, str]:
    match = _PATH.match(problem)
    if match is None or not problem.startswith(": ", match.end()):
        return None, problem
    return match.group(), problem[match.end() + 2 :]


def render_problems(problems: Sequence[str], lang: Lang = "zh") -> str:
    """An ``InvalidRequestError``'s problems as an HTML list, each led by its JSON path.

    Examples:
        >>> from harnessbook.figure import render_problems
        >>> print(render_problems(["$.budgetUnits: must be an integer greater than 0, got 0 (integer)"], "en"))
        <div class="hb-problems">
        <p>The builder refused this request (InvalidRequestError) with 1 problem, each after its JSON path:</p>
        <ol>
        <li><code>$.budgetUnits</code> must be an integer greater than 0, got 0 (integer)</li>
        </ol>
        </div>
    """
    words = _words(lang)
    count = len(problems)
    intro = words["problems_intro"].format(n=count, problems="problem" if count == 1 else "problems")
    out = ['<div class="hb-problems">', f"<p>{_esc(intro)}</p>", "<ol>"]
    for problem in problems:
        path, message = _split_problem(str(problem))
        where = (
            f"<code>{_esc(path)}</code>" if path is not None else f"<em>{_esc(words['whole_request'])}</em>"
        )
        out.append(f"<li>{where} {_esc(message)}</li>")
    out += ["</ol>", "</div>"]
    return "\n".join(out)


# --------------------------------------------------------------------------- the rules flow

_FLOW: dict[str, dict[str, Any]] = {
    "zh": {
        "title": "确定性规则的顺序",
        "desc": (
            "规则按这个顺序应用：先校验请求，不合约定就抛出 InvalidRequestError；再过出处闸门，有候选缺出处就得到 blocked；"
            "然后按层级排序，对每个候选依次尝试过期、冲突、预算适配、指针、超预算，第一条适用的规则决定它的去向；"
            "最后有待刷新的条目就是 refresh_required，否则是 ready。"
        ),
        "steps": [
            ("1 校验", "validate_request", ["不合约定：", "InvalidRequestError"]),
            ("2 出处闸门", "provenance_gate", ["有候选缺出处：", "blocked"]),
        ],
        "order": (
            "3 处理顺序（同层保持输入顺序）",
            "constraint、direct-evidence",
            "→ history-summary → reference",
        ),
        "each": "4 对每个候选：第一条适用的规则决定它",
        "rules": {
            "expiry": ("已过期", ["excluded", "当前直接证据加 refresh"]),
            "conflict": ("与新鲜直接证据冲突", ["excluded + refresh"]),
            "budget_fit": ("放得进剩余预算", ["selected"]),
            "pointer": ("有非空 reference", ["pointer"]),
            "over_budget": ("以上都不适用", ["excluded"]),
        },
        "next": "下一个候选",
        "state": "5 状态",
        "state_lines": ["refresh 不为空：refresh_required / refresh_context", "否则：ready / assembled"],
    },
    "en": {
        "title": "The order of the deterministic rules",
        "desc": (
            "The rules apply in this order: validate the request, and raise InvalidRequestError if it breaks the "
            "contract; pass the provenance gate, and stop as blocked if a candidate lacks provenance; sort by tier, "
            "then for each candidate try expiry, conflict, budget fit, pointer and over budget, and the first rule "
            "that applies decides it; finally the state is refresh_required if anything needs refreshing, else ready."
        ),
        "steps": [
            ("1 Validate", "validate_request", ["breaks the contract:", "InvalidRequestError"]),
            ("2 Provenance gate", "provenance_gate", ["provenance missing:", "blocked"]),
        ],
        "order": (
            "3 Processing order (input order within a tier)",
            "constraint, direct-evidence",
            "→ history-summary → reference",
        ),
        "each": "4 Each candidate: the first rule that applies",
        "rules": {
            "expiry": ("expired", ["excluded", "+ refresh if it is current", "direct evidence"]),
            "conflict": ("contradicts evidence", ["excluded + refresh"]),
            "budget_fit": ("fits what is left", ["selected"]),
            "pointer": ("has a reference", ["pointer"]),
            "over_budget": ("none of the above", ["excluded"]),
        },
        "next": "next candidate",
        "state": "5 State",
        "state_lines": [
            "refresh not empty: refresh_required / refresh_context",
            "otherwise: ready / assembled",
        ],
    },
}

_OUTCOME_CLASS = {
    "expiry": ("rf", "rft"),
    "conflict": ("rf", "rft"),
    "budget_fit": ("ok", "okt"),
    "pointer": ("s1", "fg"),
    "over_budget": ("bk", "bkt"),
}


def render_rules_flow(lang: Lang = "zh") -> str:
    """The order in which ``build_context_packet`` applies its rules, as an SVG flow figure.

    Validate; the provenance gate; tier order; for each candidate the first rule that applies
    (in the order of [`RULES`][harnessbook.context_packet.RULES]) and what it decides; the state.
    Accessible like [`render_svg`][harnessbook.figure.render_svg]'s figures, in ``lang``.
    """
    _words(lang)
    flow = _FLOW[lang]
    svg = _Svg()
    full = WIDTH - 2 * PAD
    y = 8.0

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        """A line from (x0, y0) to (x1, y1), vertical or horizontal, with its head at the end."""
        dx, dy = (x1 > x0) - (x1 < x0), (y1 > y0) - (y1 < y0)
        svg.line(x0, y0, x1 - 5 * dx, y1 - 5 * dy, "line")
        bx, by = x1 - 6 * dx, y1 - 6 * dy
        svg.lines.append(
            f'<path class="k-fg" d="M{_num(bx - 4 * dy)} {_num(by - 4 * dx)}L{_num(bx + 4 * dy)} {_num(by + 4 * dx)}'
            f'L{_num(x1)} {_num(y1)}Z" fill="{LIGHT_COLOURS["fg"]}"/>'
        )

    def box(x: float, top: float, w: float, h: float, fill: str, rx: float = 4) -> None:
        svg.rect(x, top, w, h, fill, rx=rx)
        svg.frame(x, top, w, h, rx=rx)

    left_w, gap = 164, 16
    right_x = PAD + left_w + gap
    right_w = WIDTH - PAD - right_x
    centre = PAD + left_w / 2
    for name, code, outcome in flow["steps"]:
        box(PAD, y, left_w, 40, "s2")
        svg.text(PAD + 8, y + 17, name, bold=True)
        svg.text(PAD + 8, y + 33, code, size=12, mono=True)
        svg.rect(right_x, y + 2, right_w, 36, "bk", rx=4)
        svg.text(right_x + 6, y + 17, outcome[0], cls="bkt", size=12)
        svg.text(right_x + 6, y + 32, outcome[1], cls="bkt", size=12, bold=True)
        arrow(PAD + left_w, y + 20, right_x, y + 20)
        arrow(centre, y + 40, centre, y + 56)
        y += 56

    heading, first, second = flow["order"]
    box(PAD, y, full, 58, "s2")
    svg.text(PAD + 8, y + 17, heading, bold=True)
    svg.text(PAD + 8, y + 34, first, size=12)
    svg.text(PAD + 8, y + 50, second, size=12)
    arrow(centre, y + 58, centre, y + 74)
    y += 74

    # Step 4: one row per rule, in the order of RULES (the provenance gate was step 2).
    top = y
    svg.text(PAD + 8, y + 17, flow["each"], bold=True)
    y += 26
    rule_x, rule_w = PAD + 8, 136
    out_x = rule_x + rule_w + 16
    out_w = WIDTH - PAD - 8 - out_x
    for rule in (rule for rule in RULES if rule != "provenance_gate"):
        condition, outcome = flow["rules"][rule]
        h = max(36, 8 + 15 * len(outcome))
        box(rule_x, y, rule_w, 36, "bg", rx=3)
        svg.text(rule_x + 6, y + 15, rule, size=12, mono=True, bold=True)
        svg.text(rule_x + 6, y + 30, condition, size=12, cls="muted")
        fill, ink = _OUTCOME_CLASS[rule]
        svg.rect(out_x, y, out_w, h, fill, rx=3)
        first_line = y + (h - 15 * len(outcome)) / 2 + 11.5
        for index, line in enumerate(outcome):
            svg.text(out_x + 6, first_line + 15 * index, line, cls=ink, size=12, bold=index == 0)
        arrow(rule_x + rule_w, y + 18, out_x, y + 18)
        y += h + 8
    svg.text(rule_x, y + 8, "↻ " + flow["next"], size=12, cls="muted")
    y += 16
    svg.frame(PAD, top, full, y - top, rx=4)
    arrow(centre, y, centre, y + 16)
    y += 16

    box(PAD, y, full, 58, "s2")
    svg.text(PAD + 8, y + 17, flow["state"], bold=True)
    svg.text(PAD + 8, y + 34, flow["state_lines"][0], size=12)
    svg.text(PAD + 8, y + 50, flow["state_lines"][1], size=12)
    y += 66
    return _root(y, lang, flow["title"], flow["desc"], svg.lines, kind="flow")
