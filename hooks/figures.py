"""MkDocs hook: every request/result example is shown as a figure first, computed by the builder.

Page sources keep their plain fences, which Sybil executes (``docs/conftest.py``). For every
```` ```json title="request.json" ```` fence followed by a ```` ```json title="result.json" ````
fence, this hook

* runs the real :func:`harnessbook.build_context_packet` on the request, and **stops the
  build** if the result differs from the page's ``result.json``;
* shows, as Material content tabs, the packet figure (:func:`harnessbook.figure.render_svg`)
  and the decision table (:func:`harnessbook.figure.render_table`) first, and the two fences,
  unchanged, one click away: 图示 / Figure, request.json, result.json.

A request followed by ```` ```text title="InvalidRequestError" ```` is checked the same way
(the problems must be exactly the builder's) and shows its problems as a list, each led by its
JSON path (:func:`harnessbook.figure.render_problems`).

A line ``<!-- hb-figure: rules-flow -->`` on a page is replaced by the rules-flow figure
(:func:`harnessbook.figure.render_rules_flow`), and ``<!-- hb-figure: packet FILE -->`` by the
figure and decision table of the request ``docs/examples/FILE`` (the file a ``console``
example on the same page runs).

The figures are inserted after Markdown has run: the Markdown gets a placeholder paragraph
(tabs and admonitions indent their content, where raw HTML would not be recognised), which
``on_page_content`` swaps for the figure's HTML.

Search leaves out what only repeats an example in another form (``data-search-exclude``, which
Material's search plugin reads and then removes): the figures' drawn labels and the decision
tables (the request and result they draw stay indexed, with the prose), and every tab set's
labels ("Figure", "request.json", "Python"...), which ran into one word with the text that followed
in the search results.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

if TYPE_CHECKING:
    from harnessbook.context_packet import ContextPacketResult


def _package(name: str = "harnessbook") -> Any:
    """The package's module ``name`` as it is loaded now, looked up at each use rather than bound
    at import: `mkdocs serve` reloads the package when its source changes (hooks/playground.py's
    ``forget_package``), and a name bound at import would keep the code the server started with."""
    return importlib.import_module(name)


Lang = Literal["zh", "en"]
"""The editions: the languages the figures are drawn in."""

LABELS: dict[Lang, dict[str, str]] = {
    "zh": {"figure": "图示", "problems": "问题"},
    "en": {"figure": "Figure", "problems": "Problems"},
}

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
_NOT_SEARCHED = 'data-search-exclude="figure"'
"""Left out of the search index by Material's search plugin, which then removes the attribute."""
_TAB_LABELS = '<div class="tabbed-labels">'


def _rules_flow(argument: str | None, lang: Lang, where: str) -> str:
    if argument is not None:
        raise PluginError(f"{where}: the rules-flow figure takes no argument, got {argument!r}")
    return (
        f'<figure class="hb-figure hb-figure--flow" data-hb-figure="rules-flow" {_NOT_SEARCHED}>\n'
        f"{_package('harnessbook.figure').render_rules_flow(lang)}</figure>"
    )


def _packet(argument: str | None, lang: Lang, where: str) -> str:
    path = EXAMPLES / (argument or "")
    if not argument or path.parent != EXAMPLES or not path.is_file():
        raise PluginError(
            f"{where}: the packet figure needs a request file in docs/examples, got {argument!r}"
        )
    builder, cli = _package(), _package("harnessbook.cli")
    try:  # read as `harnessbook build` reads the file (the page's console examples run it)
        result = builder.build_context_packet(cli._parse_text(path.read_text(encoding="utf-8")))
    except cli._Unreadable as error:
        raise PluginError(f"{where}: docs/examples/{argument} {error.args[0]}") from None
    except builder.InvalidRequestError as error:
        raise PluginError(f"{where}: docs/examples/{argument} does not build: {error}") from None
    return _packet_html(result, lang)


MARKERS = {"rules-flow": _rules_flow, "packet": _packet}
"""``<!-- hb-figure: NAME [ARGUMENT] -->`` markers and the function that draws each."""

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")
_TITLE = re.compile(r'title="(?P<title>[^"]*)"')
_MARKER = re.compile(
    r"^(?P<indent>[ \t]*)<!--\s*hb-figure:\s*(?P<name>[\w-]+)(?:\s+(?P<argument>\S+?))?\s*-->[ \t]*$"
)
_PLACEHOLDER = "HBFIGUREPLACEHOLDER{}Z"


@dataclass
class Fence:
    start: int  # index of the opening line
    end: int  # index of the closing line
    indent: str
    language: str
    title: str | None
    body: str  # dedented


@dataclass
class Rewritten:
    markdown: str
    figures: dict[str, str] = field(default_factory=dict)  # placeholder -> HTML


def fences(lines: list[str]) -> list[Fence]:
    """The fenced code blocks of a page, in order (opening and closing at the same indent)."""
    found, index = [], 0
    while index < len(lines):
        match = _FENCE_OPEN.match(lines[index])
        if match is None:
            index += 1
            continue
        indent, fence = match.group("indent"), match.group("fence")
        closing = re.compile(rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        info = match.group("info").strip()
        language = info.split(None, 1)[0] if info and not info.startswith("title=") else ""
        title = _TITLE.search(info)
        body = "\n".join(line[len(indent) :] for line in lines[index + 1 : end])
        found.append(Fence(index, end, indent, language, title.group("title") if title else None, body))
        index = end + 1
    return found


def _line(fence: Fence, first_line: int = 1) -> int:
    """The page's line of a fence's opening line; ``first_line`` is the page's line of the
    Markdown's first line (after the front matter MkDocs takes off)."""
    return fence.start + first_line


def check_and_draw(request_fence: Fence, answer: Fence, lang: Lang, where: str, first_line: int = 1) -> str:
    """Run the builder on the request; the HTML of the figure, or PluginError if the page is wrong."""
    at = f"{where}, line {_line(request_fence, first_line)}"
    # Read as strictly as `harnessbook build` reads a file (docs/conftest.py does the same): no
    # repeated key, no NaN, the same limits. What `mkdocs build` alone publishes is checked as
    # `pytest docs` checks it.
    builder, cli = _package(), _package("harnessbook.cli")
    try:
        request = cli._parse_text(request_fence.body)
    except cli._Unreadable as error:
        raise PluginError(f"{at}: request.json {error.args[0]}") from None
    try:
        result = builder.build_context_packet(request)
    except builder.InvalidRequestError as error:
        if answer.title != "InvalidRequestError":
            raise PluginError(
                f"{at}: the builder refused the request, but the page shows a result:\n{error}"
            ) from None
        shown = answer.body.rstrip("\n").split("\n")
        if list(error.problems) != shown:
            raise PluginError(
                f"{at}: the page's InvalidRequestError differs from the builder's problems.\n"
                "shown:\n  " + "\n  ".join(shown) + "\nbuilder:\n  " + "\n  ".join(error.problems)
            ) from None
        return f'<div data-hb-problems="">\n{_package("harnessbook.figure").render_problems(error.problems, lang, error.total)}\n</div>'
    if answer.title != "result.json":
        raise PluginError(
            f"{at}: the builder accepted the request, but the page shows an InvalidRequestError"
        )
    # The text itself, as the command line prints it: equal values are not enough (8 == 8.0 ==
    # true in Python), nor is another key order.
    actual = json.dumps(result, ensure_ascii=False, indent=2)
    if answer.body.rstrip("\n") != actual:
        raise PluginError(
            f"{at}: the page's result.json differs from what build_context_packet returns for its "
            f"request.json (as `harnessbook build` prints it). The builder returns:\n{actual}"
        )
    return _packet_html(result, lang)


def _packet_html(result: ContextPacketResult, lang: Lang) -> str:
    figure = _package("harnessbook.figure")
    return (
        f'<figure class="hb-figure" data-hb-figure="packet" {_NOT_SEARCHED}>\n{figure.render_svg(result, lang)}</figure>\n'
        f'<div class="hb-decisions" {_NOT_SEARCHED}>\n{figure.render_table(result, lang)}\n</div>'
    )


def _indented(lines: list[str], indent: str) -> list[str]:
    """Fence lines moved 4 spaces deeper (into a tab), their own indent kept."""
    return [indent + "    " + line[len(indent) :] if line.strip() else "" for line in lines]


def rewrite(markdown: str, lang: Lang, where: str, first_line: int = 1) -> Rewritten:
    """The page's Markdown with each example as tabs (figure first) and each marker as a figure.
    ``first_line`` is the page's line of ``markdown``'s first line, for the lines errors name."""
    labels = LABELS[lang]
    lines = markdown.split("\n")
    out = Rewritten("")
    replacements: list[tuple[int, int, list[str]]] = []  # [start, end] line ranges, inclusive

    def placeholder(html: str) -> str:
        key = _PLACEHOLDER.format(len(out.figures) + 1)
        out.figures[key] = html
        return key

    found = fences(lines)
    for index, fence in enumerate(found):
        if fence.language != "json" or fence.title != "request.json" or index + 1 >= len(found):
            continue
        answer = found[index + 1]
        between = lines[fence.end + 1 : answer.start]
        if (
            answer.title not in ("result.json", "InvalidRequestError")
            or answer.indent != fence.indent
            or any(line.strip() for line in between)
        ):
            continue  # docs/conftest.py fails such a request: its answer must follow at once
        html = check_and_draw(fence, answer, lang, where, first_line)
        indent = fence.indent
        first = labels["figure"] if answer.title == "result.json" else labels["problems"]
        block = [
            f'{indent}=== "{first}"',
            "",
            f"{indent}    {placeholder(html)}",
            "",
            f'{indent}=== "request.json"',
            "",
            *_indented(lines[fence.start : fence.end + 1], indent),
            "",
            f'{indent}=== "{answer.title}"',
            "",
            *_indented(lines[answer.start : answer.end + 1], indent),
        ]
        replacements.append((fence.start, answer.end, block))

    inside = [False] * len(lines)
    for fence in found:
        for number in range(fence.start, min(fence.end, len(lines) - 1) + 1):
            inside[number] = True
    for number, line in enumerate(lines):
        match = _MARKER.match(line)
        if match is None or inside[number]:
            continue
        name = match.group("name")
        if name not in MARKERS:
            raise PluginError(
                f"{where}, line {number + 1}: unknown figure {name!r} (known: {', '.join(MARKERS)})"
            )
        html = MARKERS[name](match.group("argument"), lang, f"{where}, line {number + 1}")
        replacements.append((number, number, ["", f"{match.group('indent')}{placeholder(html)}", ""]))

    for start, end, block in sorted(replacements, reverse=True):
        lines[start : end + 1] = block
    out.markdown = "\n".join(lines)
    return out


def fill(html: str, figures: dict[str, str], where: str) -> str:
    """Swap each placeholder paragraph for its figure; every one must be found exactly once."""
    for key, figure in figures.items():
        paragraph = f"<p>{key}</p>"
        if html.count(paragraph) != 1:
            raise PluginError(f"{where}: the figure placeholder {key} was not rendered as one paragraph")
        html = html.replace(paragraph, figure)
    return html


# --------------------------------------------------------------------------- MkDocs events

_pending: dict[str, dict[str, str]] = {}


def _language(config: MkDocsConfig) -> Lang:
    i18n = config.plugins.get("i18n")
    # Theme is a mapping: `config.theme.language` would raise AttributeError.
    language = (
        (i18n.current_language or i18n.default_language) if i18n is not None else config.theme["language"]
    )
    return "zh" if language == "zh" else "en"  # the editions are LABELS' keys, zh and en


def markdown_first_line(source: str) -> int:
    """The line of the page's source where the Markdown that hooks read starts: MkDocs takes the
    front matter (and the blank lines after it) off first, so a line counted in the Markdown is
    off by those lines. MkDocs' own reader says how much it takes off."""
    markdown, _ = get_data(source)
    skipped = len(source) - len(markdown)
    return source.count("\n", 0, skipped) + 1 if source.endswith(markdown) else 1


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    where = page.file.src_uri
    first_line = markdown_first_line(page.file.content_string)
    rewritten = rewrite(markdown, _language(config), where, first_line)
    _pending[where] = rewritten.figures
    return rewritten.markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    where = page.file.src_uri
    html = fill(html, _pending.pop(where, {}), where)
    return html.replace(_TAB_LABELS, f'<div class="tabbed-labels" {_NOT_SEARCHED}>')
