"""The packet figure: [`render_svg`][harnessbook.figure.render_svg]."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from harnessbook.context_packet.errors import _shown
from harnessbook.context_packet.validation import MAX_UNITS
from harnessbook.figure._svg import (
    _STATE_CLASS,
    CELLS,
    INNER,
    MAX_ROWS,
    PAD,
    ROW,
    WIDTH,
    Lang,
    _isolate,
    _lines,
    _root,
    _Svg,
    _units,
    _width,
    _words,
    _wrap,
)


def _step(budget: int) -> int:
    """Units per drawn cell: 1 up to ``CELLS`` units, else the smallest 1-2-5 step that fits."""
    if budget <= CELLS:
        return 1
    magnitude: int = 10 ** max(0, math.floor(math.log10(budget / CELLS)))
    while True:
        for factor in (1, 2, 5):
            if math.ceil(budget / (factor * magnitude)) <= CELLS:
                return factor * magnitude
        magnitude *= 10


MIN_SEGMENT = 2.0
"""The narrowest segment drawn, in viewBox units. Selected items narrower than this are drawn
together, as one unnumbered segment, so that a packet of thousands of small items is a figure
of a few hundred shapes, not thousands."""
DETAIL_LINES = 3
"""A row's detail that does not fit beside its id goes below it, on at most this many lines;
the rest is cut with an ellipsis (and the whole detail is the text's tooltip)."""


def _runs(sizes: list[int], scale: float) -> list[tuple[int, int, int, int]]:
    """Group consecutive selected items into drawn segments: ``(start, units, first, count)``.

    An item at least [`MIN_SEGMENT`][harnessbook.figure.packet.MIN_SEGMENT] wide is a segment of
    its own; narrower neighbours are gathered until the segment is that wide (or the next item
    is wide enough to stand alone).
    """
    runs: list[tuple[int, int, int, int]] = []
    pending: tuple[int, int, int, int] | None = None
    cursor = 0
    for index, size in enumerate(sizes):
        if size * scale >= MIN_SEGMENT:
            if pending is not None:
                runs.append(pending)
                pending = None
            runs.append((cursor, size, index, 1))
        else:
            start, units, first, count = pending or (cursor, 0, index, 0)
            pending = (start, units + size, first, count + 1)
            if pending[1] * scale >= MIN_SEGMENT:
                runs.append(pending)
                pending = None
        cursor += size
    if pending is not None:
        runs.append(pending)
    return runs


def render_svg(result: Mapping[str, Any], lang: Lang = "zh") -> str:
    """Draw a result of ``build_context_packet`` as an inline SVG figure.

    From the top: the state and the phase; the budget as a bar of ``budgetUnits`` cells (one
    cell stands for several units when the budget is larger than 40, and the figure says how
    many), the selected items as numbered segments in processing order (items too narrow to
    see are drawn together, unnumbered), then the unused
    remainder; below it one list each of the selected items (id and units), the pointers (the
    units they require and the units that were available), the excluded items with their
    reason, the refresh records and the unknowns. Lists longer than [`MAX_ROWS`][harnessbook.figure.MAX_ROWS]
    end with a count of the rest.

    Args:
        result: A result of [`build_context_packet`][harnessbook.context_packet.build_context_packet].
        lang: The edition's language, ``"zh"`` or ``"en"``: the title, description and labels.

    Returns:
        The SVG text, one element a line. The same result always gives the same text on the
            same Python version (a character's width comes from its Unicode tables, which a
            new version may change).

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
    except (
        KeyError,
        TypeError,
        AttributeError,
        ValueError,
        OverflowError,
        ZeroDivisionError,
        RecursionError,  # str() of a value nested too deeply
    ) as error:
        raise ValueError(
            f"render_svg: not a build_context_packet result ({type(error).__name__}: {error})"
        ) from None


_PHASE_OF = {"ready": "assembled", "blocked": "missing_provenance", "refresh_required": "refresh_context"}
"""Each state and the phase a builder result gives it."""


def _whole(value: object, name: str, least: int, most: int) -> int:
    """``value`` if it is an integer from ``least`` to ``most``; else the reason it is not a result.

    The figure draws what it is given: a budget of 2.5 was drawn as 2, a negative one as nothing.
    """
    if type(value) is not int or not least <= value <= most:
        raise ValueError(f"{name} must be a whole number from {least} to {most}, got {_shown(value)}")
    return value


def _draw_packet(result: Mapping[str, Any], lang: str, words: dict[str, str]) -> str:
    state, phase = result["state"], result["phase"]
    if type(state) is not str or _PHASE_OF.get(state) != phase or type(phase) is not str:
        raise ValueError(
            f"state and phase must be one of the builder's pairs, got {_shown(state)} and {_shown(phase)}"
        )
    packet = result["packet"]
    budget = _whole(packet["budgetUnits"], "packet.budgetUnits", 1, MAX_UNITS)
    used = _whole(packet["usedBudgetUnits"], "packet.usedBudgetUnits", 0, budget)
    selected, pointers = list(packet["selected"]), list(packet["pointers"])
    sizes = [_whole(item["sizeUnits"], "packet.selected[].sizeUnits", 0, budget) for item in selected]
    if sum(sizes) != used:
        raise ValueError(
            f"packet.usedBudgetUnits is {used}, but the selected items' sizes add up to {sum(sizes)}"
        )
    excluded, refresh, unknowns = list(result["excluded"]), list(result["refresh"]), list(result["unknowns"])
    svg = _Svg()

    # State and phase.
    fill, ink = _STATE_CLASS[state]
    badge = words["state"].format(state=state)
    badge_w = _width(badge) + 16
    svg.rect(PAD, 6, badge_w, 22, fill, rx=11)
    svg.text(PAD + 8, 21.5, badge, cls=ink, bold=True)
    svg.text(PAD + badge_w + 10, 21.5, words["phase"].format(phase=phase), cls="muted")

    # The budget line and the bar.
    y = 48
    line = words["budget"].format(budget=_units(budget, words), used=used, unused=budget - used)
    if _width(line) > INNER:  # large numbers: the budget on one line, the use on the next,
        # and if that is still too wide (budgets near 2^53), each part of the use on its own
        first, rest = line.split(" · ", 1)
        parts = [first, rest] if _width(rest) <= INNER else [first, *rest.split(" · ")]
        for part in parts[:-1]:
            svg.text(PAD, y, part)
            y += 18
        line = parts[-1]
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
    numbers = []
    runs = _runs(sizes, scale)
    for index, (start, units, head, count) in enumerate(runs):
        x0 = PAD + start * scale
        w = max(units * scale, MIN_SEGMENT)
        fill = "s1" if index % 2 == 0 else "s2"
        svg.rect(x0, top, w, height, fill)
        number = str(head + 1)
        if count == 1 and w >= _width(number, 12) + 8:
            numbers.append((x0 + w / 2, number, fill))
    for tick in range(step, budget, step):  # cell boundaries
        svg.line(PAD + tick * scale, top, PAD + tick * scale, top + height)
    for start, units, _first, _count in runs:  # segment boundaries, drawn over the cells
        end = start + units
        if 0 < end < budget:
            svg.line(PAD + end * scale, top, PAD + end * scale, top + height, "line")
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
    def section(heading: str, rows: list[tuple[str, str]], swatch: Callable[[int, float], None]) -> None:
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
            detail_w = _width(detail, 12, limit=room)
            if _width(ident, limit=room) + 12 + detail_w <= room:
                svg.label(x, y, ident, room, mono=True)
                svg.text(WIDTH - PAD, y, _wrap(detail), cls="muted", size=12, anchor="end")
            else:  # no room beside the id: the detail goes below it, on up to three lines
                svg.label(x, y, ident, room, mono=True)
                lines, cut = _lines(detail, room, 12, DETAIL_LINES)
                for number, line in enumerate(lines, 1):
                    y += ROW - 3
                    whole = detail if cut and number == len(lines) else None  # the cut line's tooltip
                    svg.text(x, y, _wrap(line), cls="muted", size=12, full=whole)
        if len(rows) > MAX_ROWS:
            y += ROW
            svg.text(PAD + 26, y, words["more"].format(n=len(rows) - MAX_ROWS), cls="muted", size=12)

    def numbered(index: int, row_y: float) -> None:
        svg.rect(PAD, row_y - 13, 20, 17, "s1" if index % 2 == 0 else "s2")
        svg.text(PAD + 10, row_y, str(index + 1), anchor="middle", size=12, bold=True)

    def outlined(index: int, row_y: float) -> None:
        svg.rect(PAD, row_y - 13, 20, 17, "bg", dashed=True)
        svg.text(PAD + 10, row_y, "↗", anchor="middle", size=12)

    def mark(symbol: str) -> Callable[[int, float], None]:
        def draw(index: int, row_y: float) -> None:
            svg.text(PAD + 10, row_y, symbol, anchor="middle", bold=True)

        return draw

    sep = words["list_sep"]

    def isolated_list(values: Any) -> str:
        # Each caller text in a detail is isolated on its own, as the ids are: a U+202E in one
        # conflicting id reverses that id only, not the words and ids after it.
        return sep.join(_isolate(str(value)) for value in values)

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
            return words["conflict"].format(ids=isolated_list(item["conflictsWith"]))
        return words.get(str(item["reason"]), str(item["reason"]))

    section(words["excluded"], [(str(item["id"]), reason(item)) for item in excluded], mark("×"))

    def refresh_detail(item: Mapping[str, Any]) -> str:
        if item["reason"] == "expired":
            return words["refresh_expired"].format(
                source=_isolate(str(item["source"])), captured=_isolate(str(item["capturedAt"]))
            )
        # Both sides' sources, as the record carries them: each other party's after its id, the
        # summary's own at the end.
        sources = item["sources"]
        parties = sep.join(
            words["party"].format(id=_isolate(str(other)), source=_isolate(str(sources[other])))
            for other in item["conflictsWith"]
        )
        return words["refresh_conflict"].format(ids=parties, source=_isolate(str(sources[item["id"]])))

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
