"""What the figures share: the colours and sizes, the words of both editions, text
measuring and escaping, and the SVG writer.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping
from itertools import repeat
from types import MappingProxyType
from typing import Any, Final, Literal

Lang = Literal["zh", "en"]

LIGHT_COLOURS: Final[Mapping[str, str]] = MappingProxyType(
    {
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
)
"""The light scheme's colour of each class (the presentation-attribute fallback).

``docs/assets/stylesheets/figure.css`` defines the same classes for the light, dark and print
schemes as CSS custom properties; a test keeps the light ones equal to these.

A read-only mapping (``types.MappingProxyType``), not a dict: ``json.dumps``, ``copy.deepcopy``
and ``pickle`` refuse it; ``dict(...)`` makes a copy.
"""

MAX_ROWS = 12
"""At most this many rows per list in a figure; the rest are counted ("and 30 more")."""

WIDTH = 360  # viewBox units, about CSS pixels: the figure is drawn for a phone's width
PAD = 8
INNER = WIDTH - 2 * PAD
ROW = 20
FONT = 13
CELLS = 40  # at most this many budget cells are drawn; beyond that a cell stands for more units
SHOWN_CHARS = 200  # a text drawn in a figure shows at most this many characters, then "…"
TITLE_WIDTH = 1000  # a cut text's <title> keeps this many characters of it, then "…"

_WORDS: dict[str, dict[str, str]] = {
    "zh": {
        "title": "上下文包图示：状态 {state}",
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
        "refresh_conflict": "与 {ids}冲突；摘要来源 {source}",
        "party": "{id}（来源 {source}）",
        "missing": "缺少 {keys}",
        "list_sep": "、",
        "more": "…… 另有 {n} 项（完整列表在 evidence 中）",
        "desc": (
            "预算 {budget}的上下文包：选入 {selected} 项共 {used}，{pointers}，"
            "排除 {excluded} 项，{refresh} 项待刷新，{unknowns} 项缺少出处；状态 {state}，阶段 {phase}。"
        ),
        "caption": "evidence：每个候选一条决定记录",
        "col_id": "id",
        "col_kind": "类别",
        "col_decision": "决定",
        "col_rule": "规则",
        "col_budget": "剩余预算：前 → 后",
        "no_candidates": "没有候选，evidence 为空。",
        "problems_intro_one": "构建器拒绝了这个请求（InvalidRequestError），有 1 个问题。它以 JSON 路径开头，后面是构建器的英文原文：",
        "problems_intro": "构建器拒绝了这个请求（InvalidRequestError），共 {n} 个问题。每个问题以 JSON 路径开头，后面是构建器的英文原文：",
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
        "refresh_conflict": "conflicts with {ids}; summary's source {source}",
        "party": "{id} ({source})",
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
        "problems_intro_one": "The builder refused this request (InvalidRequestError) with 1 problem, shown after its JSON path:",
        "problems_intro": "The builder refused this request (InvalidRequestError) with {n} problems, each after its JSON path:",
        "whole_request": "the whole request",
    },
}

_STATE_CLASS = {"ready": ("ok", "okt"), "refresh_required": ("rf", "rft"), "blocked": ("bk", "bkt")}


def _words(lang: str) -> dict[str, str]:
    try:
        known = lang in _WORDS
    except TypeError:  # an unhashable lang ([], {}) from a caller that ignores the type
        known = False
    if not known:
        raise ValueError(f"lang must be one of {', '.join(_WORDS)}, got {lang!r}")
    return _WORDS[lang]


# --------------------------------------------------------------------------- text


# Characters XML 1.0 does not allow (C0 controls but tab and newline, lone surrogates,
# U+FFFE/U+FFFF). JSON can carry them; the figure shows each as its \uXXXX escape, as the CLI's
# JSON and the builder's problems do (U+FFFD said only that something was there).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: object) -> str:
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", str(text))


def _esc(text: object) -> str:
    """Caller text as XML/HTML character data or attribute value: nothing in it is markup."""
    return html.escape(_clean(text), quote=True)


_ISOLATE_CONTROLS = re.compile("[\u2066-\u2069]")


def _wrap(text: str) -> str:
    """``text`` in a first-strong isolate: a text the figure composed, whose caller parts are
    isolated already (:func:`_isolate`)."""
    return f"\u2068{text}\u2069"


def _isolate(text: str) -> str:
    # First-strong isolate ... pop: right-to-left text (or a stray U+202E) in an id cannot
    # reorder the words around it; the pop ends every embedding and override opened inside.
    # The caller's own isolate controls are shown as escapes: its own pop (U+2069) closed the
    # isolate early, and an override after it reversed the words that follow.
    return _wrap(_ISOLATE_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", text))


def _char_width(char: str) -> float:
    """Width of one character, in em, for the monospaced ids and the figure's labels."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0.0
    return 1.0 if unicodedata.east_asian_width(char) in ("W", "F") else 0.6


_ASCII_WIDTH: Final = 0.6
""":func:`_char_width` of every ASCII character (tests/test_figure.py checks all 128)."""


def _em(text: str) -> float:
    """``sum(map(_char_width, text))``, the very same float (the same addends, in the same
    order), with :func:`_char_width` called once per distinct character, or not at all for an
    ASCII text (most ids and all the figure's English words): the sum runs in C."""
    if text.isascii():
        return sum(repeat(_ASCII_WIDTH, len(text)))
    widths = {char: _char_width(char) for char in set(text)}
    return sum(map(widths.__getitem__, text))


def _width(text: str, size: float = FONT, limit: float | None = None) -> float:
    """Width of ``text`` at ``size``. With a ``limit``, a long text is measured by its first
    characters while they already take more than ``limit`` and a character more: the whole text
    is wider still (no width is negative), so a megabyte id costs what its first 256 characters
    cost. Any other text gets the sum of all its characters, the same number as without a limit."""
    if limit is not None:
        for prefix in (256, 4096, 65536):
            if len(text) <= prefix:
                break
            width = _em(text[:prefix]) * size
            if width > limit + size:
                return width
    return _em(text) * size


_OPENING = frozenset("（「『《〈【")
_CLOSING = frozenset("，。、；：！？）」』》〉】")


def _visible(text: str, start: int, step: int) -> str:
    """The first character of ``text`` from ``start`` on (``step`` 1) or back (-1) that is not
    a format character (an isolate, a zero-width space): "" when there is none."""
    while 0 <= start < len(text):
        if unicodedata.category(text[start]) != "Cf":
            return text[start]
        start += step
    return ""


def _may_break(before: str, after: str) -> bool:
    """Whether a line may end between the visible characters ``before`` and ``after``: after a
    space, or beside a Chinese character, but never just inside an opening bracket, before
    closing punctuation, or before a space."""
    if not before or not after or after == " ":
        return False
    if before == " ":
        return True
    if before in _OPENING or after in _CLOSING:
        return False
    return any(unicodedata.east_asian_width(char) in ("W", "F") for char in (before, after))


def _lines(text: str, room: float, size: float, most: int) -> tuple[list[str], bool]:
    """``text`` on at most ``most`` lines of ``room`` units each, broken where a line may end
    (:func:`_may_break`, judged on the visible characters on either side; between any two
    characters when the line has no such place), the last line cut with an ellipsis if the text
    still does not fit; and whether it was cut. No line is empty or starts with a space. Each
    line is a paragraph of its own, so a line that starts inside a caller's isolate
    (:func:`_isolate`) opens it again."""
    lines: list[str] = []
    rest, depth = _clean(text), 0
    while len(lines) < most - 1 and (len(rest) > SHOWN_CHARS or _width(rest, size) > room):
        used, end, good, shown = 0.0, 0, 0, False
        for index, char in enumerate(rest[:SHOWN_CHARS]):
            used += _char_width(char) * size
            if used > room:
                break
            end = index + 1
            shown = shown or (char != " " and unicodedata.category(char) != "Cf")
            # An isolate's opening goes to the next line with what it opens; its closing stays.
            inside = char in "\u2066\u2067\u2068" or rest[index + 1 : index + 2] == "\u2069"
            if shown and not inside and _may_break(_visible(rest, index, -1), _visible(rest, index + 1, 1)):
                good = index + 1
        cut = good or max(end, 1)
        line = rest[:cut].rstrip(" ")
        lines.append("\u2068" * depth + line)
        depth = max(0, depth + line.count("\u2068") - line.count("\u2069"))
        rest = rest[cut:].lstrip(" ")
    last, cut = _fit("\u2068" * depth + rest, room, size)
    return [*lines, last], cut


def _fit(text: str, room: float, size: float = FONT) -> tuple[str, bool]:
    """``text`` cut to ``room`` units with an ellipsis, and whether it was cut."""
    text = _clean(text)
    if len(text) <= SHOWN_CHARS and _width(text, size) <= room:
        return text, False
    # Characters of no width (U+200B, combining marks, tags) fit any room: the count of
    # characters is bounded too, or a million of them would all be drawn.
    out: list[str] = []
    used = _width("…", size)
    for char in text:
        used += _char_width(char) * size
        if used > room or len(out) == SHOWN_CHARS:
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
        if len(text) > SHOWN_CHARS:  # caller text drawn without _fit (a detail that looks narrow)
            full = text if full is None else full
            text = text[:SHOWN_CHARS] + "…"
        body = _esc(_isolate(text) if isolate else text)
        # A cut text keeps its value in a <title>, shown as a tooltip and searchable: whole up to
        # TITLE_WIDTH characters, so that one id of megabytes cannot make the figure megabytes.
        if full is not None and len(full) > TITLE_WIDTH:
            full = full[:TITLE_WIDTH] + "…"
        tip = f"<title>{_esc(full)}</title>" if full is not None else ""
        self.lines.append(f"<text{attributes}>{tip}{body}</text>")

    def label(self, x: float, y: float, value: str, room: float, **options: Any) -> None:
        """Caller text (an id, a source), cut to ``room`` with the full text (up to
        :data:`TITLE_WIDTH` characters) kept in a <title>."""
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
