"""The decision table and the problem list: [`render_table`][harnessbook.figure.render_table]
and [`render_problems`][harnessbook.figure.render_problems].
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from harnessbook.context_packet.errors import _split_problem
from harnessbook.figure._svg import (
    Lang,
    _clean,
    _esc,
    _words,
)

_NOT_IN_A_CODE_SPAN = re.compile(r"[|\r\n]|\A\s|\s\Z")
"""What a Markdown code span in a table cell cannot hold as written."""
_MARKUP = re.compile(r"[\r\n!-/:-@\[-`{-~]")
"""Line breaks and every ASCII punctuation character: written as character references in the
Markdown table's inline HTML, so that no Markdown reader takes them for markup."""


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

    Returns:
        The table; when ``evidence`` is empty, one sentence that says so instead (in a ``<p>``
            for ``"html"``).

    Raises:
        ValueError: If ``lang`` or ``format`` is unknown, or ``result`` is not a builder result.

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
    except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as error:
        raise ValueError(
            f"render_table: not a build_context_packet result ({type(error).__name__}: {error})"
        ) from None
    headings = [words[key] for key in ("col_id", "col_kind", "col_decision", "col_rule", "col_budget")]
    if format == "markdown":
        if not evidence:
            return words["no_candidates"]

        def cell(text: str) -> str:
            text = _clean(text)  # as in the HTML table: an escape for what no text file can hold
            if _NOT_IN_A_CODE_SPAN.search(text):
                # A pipe ends a cell (in GitHub's tables, even inside a code span), a line break
                # ends the row, and a code span strips surrounding spaces: inline HTML, with
                # every character Markdown could read as markup written as a reference, which
                # the reader's browser decodes. A code span would show references as written.
                return "<code>" + _MARKUP.sub(lambda m: f"&#{ord(m.group())};", text) + "</code>"
            # A code span shows its text as written: only its fence must be longer than any run
            # of backticks inside, and a space pads a text that starts or ends with a backtick.
            fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
            pad = " " if text[:1] == "`" or text[-1:] == "`" else ""
            return f"{fence}{pad}{text}{pad}{fence}"

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

_MORE = re.compile(r"… and (\d+) more problems?")
"""The line an ``InvalidRequestError`` ends its kept problems with when there were more."""


def render_problems(problems: Sequence[str], lang: Lang = "zh", total: int | None = None) -> str:
    """An ``InvalidRequestError``'s problems as an HTML list, each led by its JSON path.

    The error keeps its first 100 problems and ends them with a line ``"… and K more problems"``:
    that line follows the list as a paragraph, and the count in the introduction includes the K.

    Args:
        problems: The error's ``problems``.
        lang: ``"zh"`` or ``"en"``, the language of the introduction.
        total: The error's ``total``; without it, the problems shown plus the K of the last line.

    Returns:
        A ``<div class="hb-problems">`` with the introduction, the list and any last line.

    Raises:
        ValueError: If ``lang`` is unknown, ``problems`` is not a list of problems, or ``total``
            is not a whole number of at least the problems given (those listed and the K of the
            last line).

    Examples:
        >>> from harnessbook.figure import render_problems
        >>> print(render_problems(["$.budgetUnits: must be an integer greater than 0, got 0 (integer)"], "en"))
        <div class="hb-problems">
        <p>The builder refused this request (InvalidRequestError) with 1 problem, shown after its JSON path:</p>
        <ol>
        <li><code>$.budgetUnits</code> must be an integer greater than 0, got 0 (integer)</li>
        </ol>
        </div>
    """
    words = _words(lang)
    if total is not None and (type(total) is not int or total < 0):
        raise ValueError(f"render_problems: total must be a whole number of at least 0, got {total!r}")
    if isinstance(problems, str):  # a str is a sequence of str: each character became a problem
        raise ValueError("render_problems: not a list of problems (one string: put it in a list)")
    try:
        shown = list(problems)
    except (TypeError, RecursionError) as error:
        raise ValueError(
            f"render_problems: not a list of problems ({type(error).__name__}: {error})"
        ) from None
    for index, problem in enumerate(shown):
        if not isinstance(problem, str):
            raise ValueError(
                f"render_problems: not a list of problems (item {index} is of type {type(problem).__name__})"
            )
    shown = [str(problem) for problem in shown]  # plain str, from a subclass too
    more = _MORE.fullmatch(shown[-1]) if shown else None
    if more:
        shown.pop()
    given = len(shown) + (int(more[1]) if more else 0)
    if total is not None and total < given:
        raise ValueError(f"render_problems: total must be at least the {given} problems given, got {total}")
    count = total if total is not None else given
    intro = words["problems_intro_one"] if count == 1 else words["problems_intro"].format(n=count)
    out = ['<div class="hb-problems">', f"<p>{_esc(intro)}</p>", "<ol>"]
    for problem in shown:
        path, message = _split_problem(str(problem))
        where = (
            f"<code>{_esc(path)}</code>" if path is not None else f"<em>{_esc(words['whole_request'])}</em>"
        )
        out.append(f"<li>{where} {_esc(message)}</li>")
    out.append("</ol>")
    if more:
        out.append(f"<p>{_esc(more[0])}</p>")
    out.append("</div>")
    return "\n".join(out)
