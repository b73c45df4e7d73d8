"""The two editions have the same structure, page by page.

For every Chinese page ``X.md`` there is an English page ``X.en.md`` (and the other way round),
and the pair has the same headings (level and explicit id, in order), the same fences (language
and title, in order), the same mkdocstrings directives the same admonition kinds and the same link
targets. Every heading carries an explicit, English, kebab-case ``{#id}``; every page has a
``description`` in its front matter. Any drift fails, naming the page and what differs.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests import soup
from tests.test_docs_fences import scan_fences

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

HEADING = re.compile(r"^[ \t]*(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)[ \t]*$")
ATTRIBUTES = re.compile(r"\{:?(?P<attrs>[^{}]*)\}[ \t]*$")
HEADING_ID = re.compile(r"(?:^|\s)#(?P<id>[^\s}]+)")
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SETEXT = re.compile(r"^[ \t]*(=+|-+)[ \t]*$")
DIRECTIVE = re.compile(r"^[ \t]*:::[ \t]+(?P<identifier>\S+)", re.MULTILINE)
ADMONITION = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)", re.MULTILINE)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
INLINE_LINK = re.compile(r"\]\(\s*<?(?P<target>[^)\s>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEFINITION = re.compile(
    r"^[ \t]{0,3}\[[^\]]+\]:[ \t]*<?(?P<target>\S+?)>?(?:[ \t].*)?$", re.MULTILINE
)
AUTOREF = re.compile(r"\]\[(?P<identifier>[^\]\s]+)\]")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
FRONT_MATTER = re.compile(r"\A---\n(?P<body>.*?)\n---\n", re.DOTALL)


@dataclass(frozen=True)
class Structure:
    headings: list[tuple[int, str | None]]  # (level, explicit id)
    fences: list[tuple[str, str | None]]  # (language, title)
    directives: list[str]  # ::: identifiers rendered by mkdocstrings
    admonitions: list[tuple[str, str]]  # (marker, kind) in order, e.g. ("!!!", "failure")
    links: Counter  # relative link targets (path#anchor) and autorefs identifiers
    problems: list[str]  # faults of the page on its own
    lines: dict[str, list[int]] = field(default_factory=dict)  # where each heading and fence is, for messages


_NOT_NEWLINE = re.compile(r"[^\n]")


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Blank out spans (fences) while keeping line numbers and offsets."""
    for start, end in spans:
        text = text[:start] + _NOT_NEWLINE.sub(" ", text[start:end]) + text[end:]
    return text


def structure(path: Path) -> Structure:
    text = path.read_text(encoding="utf-8")
    name = path.relative_to(DOCS) if path.is_relative_to(DOCS) else path.name
    problems: list[str] = []

    front = FRONT_MATTER.match(text)
    try:
        meta = yaml.safe_load(front.group("body")) if front else None
    except yaml.YAMLError as error:
        meta = None
        problems.append(f"{name}: front matter is not valid YAML: {str(error).splitlines()[0]}")
    description = meta.get("description") if isinstance(meta, dict) else None
    if not isinstance(description, str) or not description.strip():
        problems.append(f"{name}: no front matter with a one-sentence description:")
    body_start = front.end() if front else 0

    fences = scan_fences(text)
    prose = _mask(text, [(f.start, f.end) for f in fences] + [(0, body_start)])

    headings: list[tuple[int, str | None]] = []
    heading_lines: list[int] = []
    lines = prose.splitlines()
    for number, line in enumerate(lines, start=1):
        match = HEADING.match(line)
        if match is None:
            if (
                SETEXT.match(line)
                and number > 1
                and lines[number - 2].strip()
                and not lines[number - 2].lstrip().startswith(("|", "-", "*"))
            ):
                problems.append(
                    f"{name}, line {number - 1}: setext heading; use an ATX heading with an explicit {{#id}}"
                )
            continue
        level = len(match.group("hashes"))
        attrs = ATTRIBUTES.search(match.group("text"))
        heading_id = None
        if attrs and (found := HEADING_ID.search(attrs.group("attrs"))):
            heading_id = found.group("id")
        if heading_id is None:
            problems.append(f"{name}, line {number}: heading {match.group('text')!r} has no explicit {{#id}}")
        elif not KEBAB.match(heading_id):
            problems.append(f"{name}, line {number}: heading id {heading_id!r} is not English kebab-case")
        headings.append((level, heading_id))
        heading_lines.append(number)

    ids = [heading_id for _, heading_id in headings if heading_id]
    for duplicate in sorted(i for i, n in Counter(ids).items() if n > 1):
        problems.append(f"{name}: heading id {duplicate!r} is used more than once")

    prose_without_code = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), prose)
    links: Counter = Counter()
    targets = [
        match.group("target")
        for pattern in (INLINE_LINK, REFERENCE_DEFINITION)
        for match in pattern.finditer(prose_without_code)
    ]
    # Raw HTML links in the Markdown, read by an HTML parser.
    targets += [
        soup.attribute(a, "href") or "" for a in soup.parse(prose_without_code).find_all("a", href=True)
    ]
    for target in targets:
        if not target or EXTERNAL.match(target):
            continue
        links[target] += 1
        if ".en.md" in target:
            problems.append(f"{name}: link {target!r} names an .en.md file; link the .md file")
    for match in AUTOREF.finditer(prose_without_code):
        links[f"autoref:{match.group('identifier')}"] += 1

    return Structure(
        headings=headings,
        fences=[(f.language, f.title) for f in fences],
        directives=DIRECTIVE.findall(prose),
        admonitions=[(m.group("marker"), m.group("kind")) for m in ADMONITION.finditer(prose)],
        links=links,
        problems=problems,
        lines={"headings": heading_lines, "fences": [f.line for f in fences]},
    )


def _differences(what: str, zh: Structure, en: Structure) -> list[str]:
    """Where two editions' lists of ``what`` part, each item with its line in its own file:
    a fence's index alone (``@@ -13 +13,2 @@``) left the author counting fences."""
    left, right = getattr(zh, what), getattr(en, what)
    left_lines, right_lines = zh.lines.get(what, []), en.lines.get(what, [])

    def at(lines: list[int], index: int) -> str:
        return f"line {lines[index]}" if index < len(lines) else f"#{index + 1}"

    shown = []
    matcher = difflib.SequenceMatcher(a=_listing(left), b=_listing(right), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        shown += [f"  only zh, {at(left_lines, i)}: {left[i]!r}" for i in range(i1, i2)]
        shown += [f"  only en, {at(right_lines, j)}: {right[j]!r}" for j in range(j1, j2)]
    return shown


def _listing(items) -> list[str]:
    return [repr(item) for item in items]


def edition_drift(chinese: Path, english: Path) -> list[str]:
    """How the English page differs from the Chinese one, structurally; [] when it does not."""
    name = chinese.relative_to(DOCS) if chinese.is_relative_to(DOCS) else chinese.name
    if not english.exists():
        return [f"{name}: no English edition {english.name}"]
    if not chinese.exists():
        return [f"{english.name}: no Chinese edition {chinese.name}"]
    zh, en = structure(chinese), structure(english)
    drift = zh.problems + en.problems
    for what in ("headings", "fences", "directives", "admonitions"):
        left, right = getattr(zh, what), getattr(en, what)
        if left != right:
            drift.append(f"{name}: {what} differ between editions:\n" + "\n".join(_differences(what, zh, en)))
    if zh.links != en.links:
        only_zh = zh.links - en.links
        only_en = en.links - zh.links
        drift.append(
            f"{name}: link targets differ between editions; "
            f"only in zh: {dict(only_zh)}, only in en: {dict(only_en)}"
        )
    return drift


def _is_english(path: Path) -> bool:
    return path.name.endswith(".en.md")


def pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "examples" not in p.relative_to(DOCS).parts)


def pairs() -> list[tuple[Path, Path]]:
    found: dict[Path, tuple[Path, Path]] = {}
    for page in pages():
        if _is_english(page):
            chinese = page.with_name(page.name[: -len(".en.md")] + ".md")
            found[chinese] = (chinese, page)
        else:
            found[page] = (page, page.with_name(page.name[: -len(".md")] + ".en.md"))
    return [found[key] for key in sorted(found)]


def test_there_are_pages():
    assert pairs(), "no pages under docs/"


def test_no_other_language_suffixes():
    odd = [
        str(p.relative_to(DOCS))
        for p in pages()
        if re.search(r"\.(?!en\.md$)[a-z]{2}(?:_[A-Z]{2})?\.md$", p.name)
    ]
    assert not odd, f"only X.md (Chinese) and X.en.md (English) exist: {odd}"


@pytest.mark.parametrize("pair", pairs(), ids=lambda pair: str(pair[0].relative_to(DOCS)))
def test_editions_have_the_same_structure(pair: tuple[Path, Path]):
    drift = edition_drift(*pair)
    assert not drift, "\n".join(drift)


# --- the check can fail -----------------------------------------------------------------------

ZH = """---
description: 一句话。
---

# 字段 {#kind}

见 [规则](../rules.md#provenance-gate) 与 [`build_context_packet`][harnessbook.build_context_packet]。

## 规则 {#rules}

```python
x = 1
```

```json title="request.json"
{}
```

```json title="result.json"
{}
```

!!! failure "故意出错的例子"

    ```python
    y = 2
    ```

::: harnessbook.context_packet.Candidate.kind
"""

EN = """---
description: One sentence.
---

# Field {#kind}

See [the rules](../rules.md#provenance-gate) and [`build_context_packet`][harnessbook.build_context_packet].

## Rules {#rules}

```python
x = 1
```

```json title="request.json"
{}
```

```json title="result.json"
{}
```

!!! failure "Fails on purpose"

    ```python
    y = 2
    ```

::: harnessbook.context_packet.Candidate.kind
"""

DRIFTS = {
    "heading-id": (("{#rules}", "{#rule}"), "headings differ"),
    "heading-level": (("## Rules", "### Rules"), "headings differ"),
    "no-explicit-id": ((" {#rules}", ""), "has no explicit {#id}"),
    "non-english-id": (("{#rules}", "{#规则}"), "not English kebab-case"),
    "extra-heading": (("## Rules {#rules}", "## Rules {#rules}\n\n## More {#more}"), "headings differ"),
    "fence-language": (("```python\nx = 1", "```text\nx = 1"), "fences differ"),
    "fence-title": (('title="result.json"', 'title="InvalidRequestError"'), "fences differ"),
    "missing-fence": (("```python\nx = 1\n```\n", ""), "fences differ"),
    "link-anchor": (("rules.md#provenance-gate", "rules.md#expiry"), "link targets differ"),
    "link-page": (("../rules.md#", "../output.md#"), "link targets differ"),
    "en-md-link": (("../rules.md#", "../rules.en.md#"), ".en.md file"),
    "autoref": (
        ("][harnessbook.build_context_packet]", "][harnessbook.validate_request]"),
        "link targets differ",
    ),
    "directive": (("Candidate.kind", "Candidate.source"), "directives differ"),
    "admonition-kind": (('!!! failure "Fails', '!!! note "Fails'), "admonitions differ"),
    "admonition-missing": (
        ('!!! failure "Fails on purpose"\n\n    ```python', "```python"),
        "admonitions differ",
    ),
    "bad-yaml": (("description: One sentence.", "description: One: sentence."), "not valid YAML"),
    "no-description": (("description: One sentence.\n", "title: x\n"), "description"),
}


@pytest.mark.parametrize("case", sorted(DRIFTS))
def test_drift_is_caught(tmp_path: Path, case: str):
    (old, new), expected = DRIFTS[case]
    assert old in EN
    (tmp_path / "kind.md").write_text(ZH, encoding="utf-8")
    (tmp_path / "kind.en.md").write_text(EN.replace(old, new), encoding="utf-8")
    drift = edition_drift(tmp_path / "kind.md", tmp_path / "kind.en.md")
    assert any(expected in line for line in drift), drift


def test_identical_structure_passes(tmp_path: Path):
    (tmp_path / "kind.md").write_text(ZH, encoding="utf-8")
    (tmp_path / "kind.en.md").write_text(EN, encoding="utf-8")
    assert edition_drift(tmp_path / "kind.md", tmp_path / "kind.en.md") == []


def test_a_missing_edition_is_caught(tmp_path: Path):
    (tmp_path / "kind.md").write_text(ZH, encoding="utf-8")
    assert edition_drift(tmp_path / "kind.md", tmp_path / "kind.en.md") == [
        "kind.md: no English edition kind.en.md"
    ]
    (tmp_path / "only.en.md").write_text(EN, encoding="utf-8")
    assert edition_drift(tmp_path / "only.md", tmp_path / "only.en.md") == [
        "only.en.md: no Chinese edition only.md"
    ]


def test_a_drift_report_gives_each_differing_item_its_line(tmp_path):
    """A fence's index alone (``@@ -13 +13,2 @@``) left the author counting fences."""
    front = "---\ndescription: x\n---\n# T {#t}\n\n```python\nx = 1\n```\n"
    (tmp_path / "p.md").write_text(front + "\n## A {#a}\n", encoding="utf-8")
    (tmp_path / "p.en.md").write_text(front + "\n```python\ny = 2\n```\n\n## B {#b}\n", encoding="utf-8")
    drift = "\n".join(edition_drift(tmp_path / "p.md", tmp_path / "p.en.md"))
    assert "  only zh, line 10: (2, 'a')" in drift and "  only en, line 14: (2, 'b')" in drift, drift
    assert "  only en, line 10: ('python', None)" in drift, drift


def test_the_home_pages_list_every_chapter():
    """Each folder under docs/chapters/ is linked from the chapters section of both home pages
    (add-a-chapter's last step), to its index page."""
    docs = Path(__file__).resolve().parents[1] / "docs"
    chapters = sorted(
        p.name for p in (docs / "chapters").iterdir() if p.is_dir() and not p.name.startswith("_")
    )
    assert chapters, "no chapter folders"
    for home in ("index.md", "index.en.md"):
        text = (docs / home).read_text(encoding="utf-8")
        section = text[text.index("{#chapters}") :]
        missing = [name for name in chapters if f"](chapters/{name}/index.md" not in section]
        assert not missing, f"{home}: the chapters section does not link {missing}"
