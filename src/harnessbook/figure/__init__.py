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

from harnessbook.figure._svg import LIGHT_COLOURS, MAX_ROWS
from harnessbook.figure.flow import render_rules_flow
from harnessbook.figure.packet import render_svg
from harnessbook.figure.table import render_problems, render_table

__all__ = [
    "render_svg",
    "render_table",
    "render_problems",
    "render_rules_flow",
    "LIGHT_COLOURS",
    "MAX_ROWS",
]
