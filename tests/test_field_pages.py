"""Every request and result field has its page, at the address its JSON path predicts.

The fields come from the builder's TypedDicts (harnessbook.context_packet), not from a list
typed here: a key added to ``Candidate`` without a page fails this test. The address rule
(docs/reference/index.md): ``reference/<request|result>/`` + the field's JSON path with ``/``
between keys; a field whose value has keys of its own (``taskAnchor``, ``candidates``,
``packet``) is a folder with an ``index.md``. Both editions, same ids.
"""

from __future__ import annotations

import functools
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lxml.etree  # type: ignore[import-untyped]
import pytest

from harnessbook import context_packet
from tests import soup
from tests.test_docs_fences import scan_fences

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# TypedDict -> the folder of its keys' pages, and the page of the field holding it.
FOLDERS = {
    context_packet.ContextPacketRequest: "reference/request",
    context_packet.TaskAnchor: "reference/request/taskAnchor",
    context_packet.Candidate: "reference/request/candidates",
    context_packet.ContextPacketResult: "reference/result",
    context_packet.Packet: "reference/result/packet",
}
# Keys with no page of their own, each with the reason.
NO_PAGE = {
    (context_packet.Packet, "taskAnchor"): "a copy of the request's taskAnchor, documented there",
}

# The brief's site map, written out: the derived list must be exactly this.
SITE_MAP = """
reference/request/taskAnchor/index.md reference/request/taskAnchor/goal.md
reference/request/taskAnchor/stopCondition.md reference/request/taskAnchor/verificationTarget.md
reference/request/budgetUnits.md reference/request/candidates/index.md
reference/request/candidates/id.md reference/request/candidates/kind.md
reference/request/candidates/source.md reference/request/candidates/capturedAt.md
reference/request/candidates/relevance.md reference/request/candidates/freshness.md
reference/request/candidates/sizeUnits.md reference/request/candidates/content.md
reference/request/candidates/reference.md reference/request/candidates/conflictsWith.md
reference/result/state.md reference/result/phase.md reference/result/excluded.md
reference/result/unknowns.md reference/result/refresh.md reference/result/evidence.md
reference/result/packet/index.md reference/result/packet/selected.md
reference/result/packet/pointers.md reference/result/packet/usedBudgetUnits.md
reference/result/packet/budgetUnits.md
""".split()

SECTIONS = ["rules", "errors", "example", "used-in", "docstring"]
HEADING = re.compile(r"^[ \t]*(?P<hashes>#{1,6})[ \t]+.*?\{[^}]*#(?P<id>[^\s}]+)[^}]*\}[ \t]*$", re.MULTILINE)
TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
CHAPTER_LINK = re.compile(r"\]\((?:\.\./)+chapters/06-context-packet/[\w-]+\.md#[\w-]+\)")


@dataclass(frozen=True)
class Field:
    owner: type  # the TypedDict that declares the key
    key: str
    page: str  # path under docs/, Chinese edition

    @property
    def kind(self) -> str:
        return "request" if self.page.startswith("reference/request/") else "result"

    @property
    def english(self) -> str:
        return self.page[: -len(".md")] + ".en.md"

    @property
    def url(self) -> str:
        """The built page's folder (use_directory_urls), relative to an edition's root."""
        return (
            self.page[: -len("index.md")]
            if self.page.endswith("/index.md")
            else self.page[: -len(".md")] + "/"
        )

    @property
    def docstring_target(self) -> str:
        return f"harnessbook.context_packet.{self.owner.__name__}.{self.key}"


def _keys(typed_dict: type) -> list[str]:
    declared = typing.get_type_hints(typed_dict).keys()
    return [key for key in typed_dict.__annotations__ if key in declared]


def fields() -> list[Field]:
    holders = {folder: owner for owner, folder in FOLDERS.items()}
    found = []
    for owner, folder in FOLDERS.items():
        for key in _keys(owner):
            if (owner, key) in NO_PAGE:
                continue
            own_folder = f"{folder}/{key}"
            page = f"{own_folder}/index.md" if own_folder in holders else f"{own_folder}.md"
            found.append(Field(owner, key, page))
    return found


FIELDS = fields()


def headings(text: str) -> list[tuple[int, str]]:
    """(level, id) of the headings outside fences."""
    fences = scan_fences(text)
    result = []
    for match in HEADING.finditer(text):
        if not any(f.start <= match.start() < f.end for f in fences):
            result.append((len(match.group("hashes")), match.group("id")))
    return result


def section(text: str, section_id: str) -> str:
    """The Markdown of an h2 section, up to the next h2."""
    match = re.search(
        rf"^##[ \t][^\n]*\{{[^}}]*#{re.escape(section_id)}\b[^}}]*\}}[ \t]*$", text, re.MULTILINE
    )
    if match is None:
        return ""
    following = re.search(r"^##[ \t]", text[match.end() :], re.MULTILINE)
    return text[match.end() : match.end() + following.start()] if following else text[match.end() :]


def field_page_problems(path: Path, field: Field) -> list[str]:
    """What a field page lacks; [] when it has everything the layout asks for."""
    name = path.relative_to(DOCS) if path.is_relative_to(DOCS) else path.name
    if not path.exists():
        return [f"{name}: missing (field {field.key} of {field.owner.__name__})"]
    text = path.read_text(encoding="utf-8")
    problems = []
    found = headings(text)
    expected_h1 = field.key.lower()
    if not found or found[0] != (1, expected_h1):
        problems.append(f"{name}: must open with an h1 {{#{expected_h1}}}, found {found[:1]}")
    h2 = [heading_id for level, heading_id in found if level == 2]
    present = [s for s in h2 if s in SECTIONS]
    missing = [s for s in SECTIONS if s not in h2]
    if missing:
        problems.append(f"{name}: missing h2 sections {missing}")
    elif present != SECTIONS:
        problems.append(f"{name}: sections out of order {present}, expected {SECTIONS}")
    before_rules = text.split("{#rules}", 1)[0]
    table = TABLE_ROW.findall(before_rules)
    if len(table) < 3:
        problems.append(f"{name}: no facts table before the {{#rules}} section")
    elif field.key not in "".join(table):
        problems.append(f"{name}: the facts table does not give the JSON path of {field.key}")
    # The page's <title> and og:title (overrides/main.html): its JSON path, as its table gives it.
    path_row = re.search(
        r"^\|[ \t]*(?:JSON path|JSON 路径)[ \t]*\|[ \t]*`(?:\$\.)?([^`]+)`", before_rules, re.M
    )
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
    titled = re.search(r"^json_path:[ \t]*(\S+)[ \t]*$", front[1], re.M) if front else None
    if path_row is not None and (titled is None or titled[1] != path_row[1]):
        problems.append(
            f"{name}: front matter json_path must be the table's JSON path {path_row[1]!r} "
            f"(the page's title), found {titled[1] if titled else None!r}"
        )
    errors = section(text, "errors")
    errors_fences = scan_fences(errors)
    if field.kind == "request":
        if not any(
            f.title == "InvalidRequestError" for f in errors_fences
        ) and "InvalidRequestError" not in "".join(
            errors[f.start : f.end] for f in errors_fences if f.language == "python"
        ):
            problems.append(f"{name}: {{#errors}} shows no executed InvalidRequestError example")
    elif not any(f.language in ("python", "json") for f in errors_fences):
        problems.append(f"{name}: {{#errors}} shows no executed example of the guarantees")
    example_text = section(text, "example")
    example = [(f.language, f.title) for f in scan_fences(example_text)]
    has_pair = ("json", "request.json") in example and bool(
        {("json", "result.json"), ("text", "InvalidRequestError")} & set(example)
    )
    # A scenario shown in full on its home page may be linked instead, with a short executed
    # example of this field (one home per scenario, issue 10).
    links_home = CHAPTER_LINK.search(example_text) is not None and ("python", None) in example
    if not (has_pair or links_home):
        problems.append(
            f"{name}: {{#example}} has no executed request.json/result.json pair, nor a link to the "
            "scenario's home in the chapter with an executed python example"
        )
    if not CHAPTER_LINK.search(section(text, "used-in")):
        problems.append(
            f"{name}: {{#used-in}} links to no chapter section (../chapters/06-context-packet/X.md#id)"
        )
    directive = re.search(r"^:::[ \t]+(\S+)", section(text, "docstring"), re.MULTILINE)
    if directive is None or directive.group(1) != field.docstring_target:
        problems.append(f"{name}: {{#docstring}} must render ::: {field.docstring_target}")
    return problems


def test_the_fields_are_the_site_map():
    derived = {f.page for f in FIELDS}
    assert derived == set(SITE_MAP), (
        f"fields without a line in SITE_MAP: {sorted(derived - set(SITE_MAP))}; lines of SITE_MAP "
        f"without a field: {sorted(set(SITE_MAP) - derived)}. A new field needs its page in both "
        "editions, its line in SITE_MAP (this file), its link in both editions of reference/index, "
        "its nav entry, and its address in tests/data/published.txt (tools/published.py --update)"
    )


@pytest.mark.parametrize("edition", ["zh", "en"])
@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.page[len("reference/") : -len(".md")])
def test_field_page(field: Field, edition: str):
    path = DOCS / (field.page if edition == "zh" else field.english)
    problems = field_page_problems(path, field)
    assert not problems, "\n".join(problems)


def test_the_index_lists_every_field_page():
    for index in (DOCS / "reference/index.md", DOCS / "reference/index.en.md"):
        assert index.exists(), f"{index.relative_to(DOCS)} is missing"
        text = index.read_text(encoding="utf-8")
        missing = [f.page for f in FIELDS if f"({f.page[len('reference/') :]}" not in text]
        assert not missing, f"{index.relative_to(DOCS)} does not link {missing}"


# --- the check can fail -----------------------------------------------------------------------

GOOD_FIELD_PAGE = """---
description: x
json_path: candidates[].kind
---

# `kind` {#kind}

| | |
|---|---|
| JSON path | `candidates[].kind` |

## Rules {#rules}

## Errors {#errors}

```json title="request.json"
{}
```

```text title="InvalidRequestError"
candidates[0].kind: required key is missing
```

## Example {#example}

```json title="request.json"
{}
```

```json title="result.json"
{}
```

## Used in {#used-in}

- [Candidates](../../../chapters/06-context-packet/interface.md#candidates)

## Docstring {#docstring}

::: harnessbook.context_packet.Candidate.kind
    options:
      heading_level: 3
"""

KIND = next(f for f in FIELDS if f.key == "kind")

BROKEN_FIELD_PAGES = {
    "h1-id": (("{#kind}", "{#candidate-kind}"), "must open with an h1 {#kind}"),
    "section": (("## Used in {#used-in}", "## Used in {#uses}"), "missing h2 sections ['used-in']"),
    "no-rules": (("## Rules {#rules}\n", ""), "missing h2 sections ['rules']"),
    "order": (("## Errors {#errors}", "## Errors {#errors}\n\n## Docstring {#docstring}"), "out of order"),
    "errors": (
        ('```text title="InvalidRequestError"', '```text title="Note"'),
        "no executed InvalidRequestError",
    ),
    "example": (
        ('```json title="result.json"', '```text title="result.json"'),
        "no executed request.json/result.json",
    ),
    "used-in": (("interface.md#candidates", "interface.md"), "links to no chapter section"),
    "docstring": (
        ("Candidate.kind\n", "Candidate.source\n"),
        "must render ::: harnessbook.context_packet.Candidate.kind",
    ),
    "table": (("| JSON path | `candidates[].kind` |\n", ""), "no facts table"),
    "json-path": (("`candidates[].kind`", "`candidates[]`"), "does not give the JSON path"),
    "title": (("json_path: candidates[].kind\n", "json_path: kind\n"), "front matter json_path must be"),
    "no-title": (("json_path: candidates[].kind\n", ""), "front matter json_path must be"),
}


def test_a_complete_field_page_passes(tmp_path: Path):
    page = tmp_path / "kind.md"
    page.write_text(GOOD_FIELD_PAGE, encoding="utf-8")
    assert field_page_problems(page, KIND) == []


@pytest.mark.parametrize("case", sorted(BROKEN_FIELD_PAGES))
def test_an_incomplete_field_page_is_caught(tmp_path: Path, case: str):
    (old, new), expected = BROKEN_FIELD_PAGES[case]
    assert old in GOOD_FIELD_PAGE
    page = tmp_path / "kind.md"
    page.write_text(GOOD_FIELD_PAGE.replace(old, new), encoding="utf-8")
    problems = field_page_problems(page, KIND)
    assert any(expected in p for p in problems), problems


def test_an_example_may_link_to_its_scenarios_home(tmp_path: Path):
    start = GOOD_FIELD_PAGE.index("## Example {#example}")
    end = GOOD_FIELD_PAGE.index("## Used in {#used-in}")
    linked = (
        "## Example {#example}\n\n"
        "The full request and result are in [Interface](../../../chapters/06-context-packet/interface.md#candidates).\n\n"
        "```python\n>>> 1 + 1\n2\n```\n\n"
    )
    page = tmp_path / "kind.md"
    page.write_text(GOOD_FIELD_PAGE[:start] + linked + GOOD_FIELD_PAGE[end:], encoding="utf-8")
    assert field_page_problems(page, KIND) == []
    unlinked = linked.replace("(../../../chapters/06-context-packet/interface.md#candidates)", "")
    page.write_text(GOOD_FIELD_PAGE[:start] + unlinked + GOOD_FIELD_PAGE[end:], encoding="utf-8")
    assert any("no executed request.json/result.json" in p for p in field_page_problems(page, KIND))


def test_a_field_without_a_page_is_caught(tmp_path: Path):
    assert field_page_problems(tmp_path / "kind.md", KIND) == ["kind.md: missing (field kind of Candidate)"]


def test_a_new_builder_key_needs_a_page():
    class Candidate(context_packet.Candidate):  # the builder grows a key
        priority: int

    folders = dict(FOLDERS)
    folders[Candidate] = folders.pop(context_packet.Candidate)
    keys = {f"{folder}/{key}.md" for owner, folder in folders.items() for key in _keys(owner)}
    assert "reference/request/candidates/priority.md" in keys - set(SITE_MAP)


# --- the built site -----------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+", text)


@functools.cache
def _griffe_module() -> Any:
    """The package's ``context_packet`` as griffe reads it (as mkdocstrings does): loaded once,
    not once per field page (54 loads took 3 s)."""
    import griffe

    return griffe.load("harnessbook.context_packet", search_paths=[str(ROOT / "src")])


def _docstring_words(field: Field) -> list[str]:
    docstring = _griffe_module()[f"{field.owner.__name__}.{field.key}"].docstring.value
    first_sentence = re.sub(r":\w+:|`", "", docstring).split(". ")[0]
    return _words(first_sentence)[:8]


@pytest.mark.parametrize("edition", ["", "en/"], ids=["zh", "en"])
@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.page[len("reference/") : -len(".md")])
def test_built_field_page(built_site, field: Field, edition: str):
    """The page is served at its predictable address with its ids and its rendered docstring."""
    page = built_site.path / edition / field.url / "index.html"
    assert page.exists(), f"/{edition}{field.url} was not built"
    document = soup.page(page)
    ids = set(document.xpath("//@id"))
    missing = [i for i in [field.key.lower(), *SECTIONS] if i not in ids]
    assert not missing, f"/{edition}{field.url}: no element with id {missing}"
    # Titled by its JSON path (front matter json_path, checked against its table above).
    source = (DOCS / (field.page if edition == "" else field.english)).read_text(encoding="utf-8")
    json_path = re.search(r"^json_path:[ \t]*(\S+)", source, re.M)
    assert json_path is not None
    title = document.xpath("string(//title)")
    og_title = document.xpath('string(//meta[@property="og:title"]/@content)')
    assert (title.split(" - ")[0], og_title) == (json_path[1], json_path[1]), (
        f"/{edition}{field.url}: {title!r}"
    )
    headings = document.xpath('//h2[@id="docstring"]')
    assert headings
    # The docstring section: everything after its heading, up to the next h2 (or the article's end).
    section = []
    for sibling in headings[0].itersiblings(lxml.etree.Element):
        if sibling.tag == "h2":
            break
        section.append(soup.text_of(sibling, " "))
    rendered = " ".join(section)
    expected = _docstring_words(field)
    assert expected and " ".join(expected) in " ".join(_words(rendered)), (
        f"/{edition}{field.url}: the docstring of {field.docstring_target} is not rendered "
        f"(expected the words {' '.join(expected)!r})"
    )


# --- field names in the prose --------------------------------------------------------------------

CAMEL_CASE = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?:[A-Z][a-z0-9]*)+(?![A-Za-z0-9_])")
NOT_A_FIELD = {
    "sizeUnit": "the misspelling the interface and candidates pages show being refused",
    "budgetUnit": "the misspelling the budgetUnits page shows being refused",
    "getElementById": "JavaScript, in the hosting guide",
    "includeSubDomains": "a Strict-Transport-Security directive, in the hosting guide",
    "sI": "curl's options (-sI), in the hosting guide",
    "uniqueItems": "a JSON Schema keyword, on the schemas page",
    "uXXXX": "a JSON escape (\\uXXXX), on the command-line page",
    "exitCode": "a key of the command line's error report (--errors json), on the command-line page",
}
"""camelCase words in the prose's inline code that are not keys of the contract, and why."""


def contract_keys() -> set[str]:
    return {
        key
        for name in context_packet.__all__
        if hasattr(typed_dict := getattr(context_packet, name), "__required_keys__")  # a TypedDict
        for key in typed_dict.__annotations__
    }


def test_every_field_name_in_the_prose_is_a_field():
    """A field renamed in the prose only (``requiredUnits`` for ``requiresUnits``,
    ``packet.usedUnits``) is no example, so pytest docs cannot see it: every camelCase word in
    the inline code of every page, outside its code blocks, is a key of the contract's types."""
    keys = contract_keys()
    assert {"requiresUnits", "usedBudgetUnits", "conflictsWith", "taskAnchor"} <= keys
    problems = []
    for page in sorted(DOCS.rglob("*.md")):
        if "examples" in page.relative_to(DOCS).parts:
            continue
        text = page.read_text(encoding="utf-8")
        for fence in reversed(scan_fences(text)):
            text = text[: fence.start] + "\n" * text.count("\n", fence.start, fence.end) + text[fence.end :]
        for match in re.finditer(r"`([^`\n]+)`", text):
            for word in CAMEL_CASE.findall(match.group(1)):
                if word not in keys and word not in NOT_A_FIELD:
                    line = text.count("\n", 0, match.start()) + 1
                    problems.append(f"{page.relative_to(DOCS)}, line {line}: {word} in `{match.group(1)}`")
    assert not problems, (
        "camelCase names in the prose that no field has (a typo, or add it to NOT_A_FIELD with why):\n"
        + "\n".join(problems)
    )
