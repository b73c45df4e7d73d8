"""Reading a page's pixels: whether a scroll box shows the shadows that say it scrolls sideways.

Used by tests/browser/test_figures.py (the pages' tables) and test_playground.py (the playground's).
"""

from __future__ import annotations

import struct
import zlib

# A table wider than the screen scrolls sideways in its box (Material's .md-typeset__scrollwrap);
# extra.css draws a shadow at each edge that has more to show. Read in the blank strip below the
# table (the table wrapper's bottom margin, inside the box), where only the shadows are drawn: a
# square at an edge is darker (lighter in the dark scheme) than the square in the middle exactly
# when that edge has a shadow. A shadow is tens of levels away; a hidden one is at most a level
# or two (a gradient's colour is rounded apart from a plain fill's).
PROBE = 4  # px
SHADOW_LEVELS = 16


def png_pixels(png: bytes) -> list[tuple[int, ...]]:
    """The pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what a Chromium screenshot is)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", png[16:29])
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    channels = 3 if colour == 2 else 4
    data, at = b"", 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        if png[at + 4 : at + 8] == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += length + 12
    raw, stride, rows = zlib.decompress(data), width * channels, []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                near = min(
                    (abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner)
                )
                line[i] = (line[i] + near[2]) & 0xFF
        rows.append(line)
        previous = line
    return [tuple(row[x * channels : x * channels + 3]) for row in rows for x in range(width)]


def edge_shadows(page, box) -> tuple[bool, bool]:
    """Whether the left and the right edge of the scroll box ``box`` show a shadow now."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    where = box.evaluate(
        """box => { const outer = box.getBoundingClientRect();
                    const table = box.querySelector('table').getBoundingClientRect();
                    return {left: outer.left, right: outer.right, top: table.bottom, bottom: outer.bottom}; }"""
    )
    assert where["bottom"] - where["top"] >= PROBE + 2, f"no blank strip under the table to read: {where}"
    y = (where["top"] + where["bottom"] - PROBE) / 2

    def square(x: float) -> list[float]:
        pixels = png_pixels(page.screenshot(clip={"x": x, "y": y, "width": PROBE, "height": PROBE}))
        return [sum(pixel[c] for pixel in pixels) / len(pixels) for c in range(3)]

    middle = square((where["left"] + where["right"] - PROBE) / 2)

    def shadow(x: float) -> bool:
        return max(abs(a - b) for a, b in zip(square(x), middle, strict=True)) > SHADOW_LEVELS

    return shadow(where["left"]), shadow(where["right"] - PROBE)
