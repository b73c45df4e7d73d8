"""Chinese text on the page: no stray space where a source line breaks between two CJK characters.

Markdown sources are wrapped at a readable width, and the HTML keeps each line break, for
example ``逐个看候选，\\n放得进``. CSS Text 3 says such a segment break between two East Asian
wide characters vanishes, but Chromium renders it as a space. The functions here remove that
line break, and only that whitespace, wherever a Chinese string is built for the reader: the
book's pages (``hooks/cjk_line_breaks.py``), and the strings of figures or the playground.
[`mark_cjk_runs_html`][harnessbook.typography.mark_cjk_runs_html] marks Chinese quoted in a page of
another language with its language, for screen readers.

A break is removed when the characters on both sides are CJK (Han characters, CJK
punctuation, kana, full-width forms), or when one side is CJK and the other is a typographic
quote, ellipsis or dash (“”‘’…—·, which Chinese text uses as its own punctuation). Between a
CJK character and a Latin word the line break stays a space, as intended (``中文 English 混排``).

Pure and standard library only: strings in, strings out.
"""

from __future__ import annotations

import html as html_module
import re
from collections.abc import Iterator

__all__ = ["is_cjk", "join_cjk_lines", "join_cjk_lines_html", "mark_cjk_runs_html"]

_CJK = re.compile(
    "["
    "\u3000-\u303f"  # CJK symbols and punctuation: 。、「」《》…
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # Han, extension A
    "\u4e00-\u9fff"  # Han, unified ideographs
    "\uf900-\ufaff"  # Han, compatibility ideographs
    "\uff01-\uff60"  # full-width forms: ，：；（）！？
    "\uffe0-\uffe6"  # full-width signs: ￥￡
    "\U00020000-\U0003134f"  # Han, extensions B to G
    "]"
)
# Punctuation Chinese text shares with Western text. It joins only next to a CJK character, so
# "”\n“" in English prose keeps its space.
_SHARED = frozenset("“”‘’…—·")

# A line break with the spaces and tabs around it (the indentation of a wrapped list item).
_BREAK = re.compile(r"[ \t\r]*\n[ \t\r\n]*")


def is_cjk(char: str) -> bool:
    """Whether ``char`` (one character) is a Han character, kana, CJK punctuation or a full-width form."""
    return bool(_CJK.fullmatch(char))


def _joins(before: str | None, after: str | None) -> bool:
    """Whether a line break between ``before`` and ``after`` should vanish."""
    if not before or not after:
        return False
    if is_cjk(before):
        return is_cjk(after) or after in _SHARED
    return before in _SHARED and is_cjk(after)


def join_cjk_lines(text: str) -> str:
    """``text`` without the line breaks that stand between two CJK characters.

    Only the line breaks (one or more in a row) and the spaces around them go; every other character stays, and a break
    next to a Latin letter, a digit or markup stays as it is.

    Examples:
        >>> join_cjk_lines("逐个看候选，\\n放得进剩余预算就选入")
        '逐个看候选，放得进剩余预算就选入'
        >>> join_cjk_lines("中文\\nEnglish 混排")
        '中文\\nEnglish 混排'
    """
    return _join(text, None, None)


def _join(text: str, outside_before: str | None, outside_after: str | None) -> str:
    """:func:`join_cjk_lines`, given the visible characters just outside ``text`` (or None)."""

    def replace(match: re.Match[str]) -> str:
        start, end = match.span()
        before = text[start - 1] if start else outside_before
        after = text[end] if end < len(text) else outside_after
        return "" if _joins(before, after) else match.group()

    return _BREAK.sub(replace, text)


# ----------------------------------------------------------------------------- HTML

# Text inside these is literal (code) or not text at all: never touched, and never a neighbour.
_LITERAL = frozenset({"pre", "code", "kbd", "samp", "script", "style", "textarea"})
# Inline elements whose text flows on from the text around them: a break just outside one
# still sits between the characters on either side ("候选，\n<a>放得进</a>").
_INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "data",
        "del",
        "dfn",
        "em",
        "i",
        "ins",
        "mark",
        "q",
        "s",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "u",
        "tspan",
    }
)
_TOKEN = re.compile(
    r"<!--.*?-->"
    r"|<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9:-]*)(?:[^>\"']|\"[^\"]*\"|'[^']*')*>"
    r"|<![^>]*>|<\?.*?>",
    re.DOTALL,
)


def _pieces(html: str, literal: frozenset[str]) -> Iterator[tuple[str, str | None, int]]:
    """``html`` split into its text and its markup, in order: each piece, its tag's name (``""``
    for a comment or a declaration, ``None`` for text), and how many ``literal`` elements are
    open once it is read. Tags, attributes and comments come out unchanged."""
    depth = 0
    position = 0
    for match in _TOKEN.finditer(html):
        if match.start() > position:
            yield html[position : match.start()], None, depth
        position = match.end()
        name = (match.group("name") or "").lower()
        if name in literal and not match.group(0).endswith("/>"):
            depth = max(depth - 1, 0) if match.group("close") else depth + 1
        yield match.group(0), name, depth
    if position < len(html):
        yield html[position:], None, depth


def join_cjk_lines_html(html: str) -> str:
    """``html`` with [`join_cjk_lines`][harnessbook.typography.join_cjk_lines] applied to its text, across inline markup.

    A line break is removed when the nearest visible characters on both sides are CJK, looking
    through inline elements such as ``a``, ``strong`` and ``em``. Nothing inside ``pre``,
    ``code``, ``kbd``, ``samp``, ``script``, ``style`` or ``textarea`` changes, and such an
    element, like any other tag (``br``, ``img``, a block), counts as a non-CJK neighbour.
    Tags, attributes and comments are copied unchanged.

    Examples:
        >>> join_cjk_lines_html("<p>交给<a href='#p'>指针</a>\\n或<code>超\\n预算</code></p>")
        "<p>交给<a href='#p'>指针</a>或<code>超\\n预算</code></p>"
    """
    # The page split into markup and text pieces; ``texts`` indexes the pieces to process.
    parts: list[str] = []
    texts: list[int] = []
    # For each part: the visible neighbour it offers at its start and at its end. A text
    # piece offers its first and last characters; an inline tag is transparent (None); any
    # other tag, and literal text, is a wall ("").
    heads: list[str | None] = []
    tails: list[str | None] = []

    def add_text(text: str, depth: int) -> None:
        parts.append(text)
        if depth:
            heads.append("")
            tails.append("")
        else:
            texts.append(len(parts) - 1)
            heads.append(text[0])
            tails.append(text[-1])

    for piece, name, depth in _pieces(html, _LITERAL):
        if name is None:
            add_text(piece, depth)
            continue
        parts.append(piece)
        transparent = name in _INLINE and not depth
        heads.append(None if transparent else "")
        tails.append(None if transparent else "")

    def neighbour(index: int, step: int) -> str | None:
        """The first visible character from part ``index`` on, walking by ``step``."""
        offered = heads if step > 0 else tails
        while 0 <= index < len(parts):
            if offered[index] is not None:
                char = offered[index]
                return None if not char or char.isspace() else char
            index += step
        return None

    for index in texts:
        parts[index] = _join(parts[index], neighbour(index - 1, -1), neighbour(index + 1, +1))
    return "".join(parts)


_CJK_RUN = re.compile(_CJK.pattern + "+")
_UNMARKED = _LITERAL | {"svg"}
"""Elements whose text :func:`mark_cjk_runs_html` leaves as it is: literal text, and figures."""


def mark_cjk_runs_html(html: str, lang: str = "zh") -> str:
    """``html`` with each run of CJK characters in its text wrapped in ``<span lang="...">``.

    For a page in another language that quotes Chinese: a screen reader reads a passage marked
    with its language in a voice for that language (WCAG 3.1.2, language of parts). Text inside
    ``pre``, ``code``, ``kbd``, ``samp``, ``script``, ``style``, ``textarea`` and ``svg`` is left
    as it is. Tags, attributes and comments are copied unchanged. Text already inside an element
    with a ``lang`` attribute is still marked (a span is harmless there).

    Args:
        html: A fragment of HTML, such as a page's rendered content.
        lang: The language tag to mark the runs with (BCP 47), escaped for the attribute.

    Returns:
        The same HTML with the runs wrapped.

    Examples:
        >>> mark_cjk_runs_html('<p>“必须是整数” (an <code>整数</code>)</p>')
        '<p>“<span lang="zh">必须是整数</span>” (an <code>整数</code>)</p>'
    """
    attribute = html_module.escape(lang, quote=True)
    return "".join(
        piece
        if name is not None or depth
        else _CJK_RUN.sub(lambda run: f'<span lang="{attribute}">{run.group()}</span>', piece)
        for piece, name, depth in _pieces(html, _UNMARKED)
    )
