"""AutoCorrect, the CJK copywriting linter, finds nothing in the book's Chinese text (issue 16).

It checks what a Chinese reader reads: the Chinese pages (``docs/**/*.md`` but ``*.en.md``), the
README's Chinese section, and the Chinese interface strings (the hooks, the playground, the
theme overrides, ``mkdocs.yml``; the package's docstrings and demo request too). Its settings
are in ``.autocorrectrc``, which says why each one differs from AutoCorrect's default. Where it
flags literal output, the fix is to mark that text as code, not to change it.
"""

from __future__ import annotations

from pathlib import Path

import autocorrect_py
import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".autocorrectrc"
README_SECTION = "## 中文说明"


def chinese_texts() -> list[tuple[str, str, int]]:
    """(file name for AutoCorrect's grammar, text, number of the text's first line) to lint."""
    texts = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if not page.name.endswith(".en.md"):
            texts.append((str(page.relative_to(ROOT)), page.read_text(encoding="utf-8"), 1))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(README_SECTION)
    end = readme.find("\n## ", start + 1)
    section = readme[start : end if end >= 0 else len(readme)]
    texts.append(("README.md", section, readme[:start].count("\n") + 1))
    interface = [
        *sorted((ROOT / "hooks").glob("*.py")),
        ROOT / "docs" / "assets" / "playground" / "playground.js",
        *sorted((ROOT / "overrides").rglob("*.html")),
        ROOT / "mkdocs.yml",
        *sorted((ROOT / "src" / "harnessbook").rglob("*.py")),
    ]
    for path in interface:
        texts.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"), 1))
    return texts


@pytest.fixture(scope="module", autouse=True)
def book_config() -> None:
    # The package's __init__.pyi (autocorrect-py) leaves out load_config, which the module has.
    autocorrect_py.load_config(CONFIG.read_text(encoding="utf-8"))  # type: ignore[attr-defined]


def lint(name: str, text: str, first_line: int = 1) -> list[str]:
    result = autocorrect_py.lint_for(text, name)
    return [
        f"{name}:{line.line + first_line - 1}:{line.col}: {line.old.strip()!r} -> {line.new.strip()!r}"
        for line in result.lines
    ]


def test_autocorrect_reports_no_issue():
    texts = chinese_texts()
    assert len(texts) > 50 and any(name == "README.md" for name, _, _ in texts)
    issues = [issue for name, text, first_line in texts for issue in lint(name, text, first_line)]
    assert issues == [], f"{len(issues)} AutoCorrect issues:\n" + "\n".join(issues)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("page.md", "构建器调用build_context_packet。\n"),  # no space between Chinese and Latin
        ("page.md", "每个问题以“JSON 路径: 问题”的形式占一行。\n"),  # half-width colon in Chinese
        ("page.md", "预算 ，单位\n"),  # space before full-width punctuation
        ("playground.js", 'var label = "运行build_context_packet";\n'),
        ("mkdocs.yml", "site_name: 第6章\n"),
        ("labels.py", 'TITLES = {"zh": "永久链接(固定)"}\n'),
    ],
)
def test_the_lint_catches_copywriting_errors(name: str, text: str):
    assert lint(name, text), f"AutoCorrect missed the error in {text!r}"


def test_literal_text_marked_as_code_is_left_alone():
    assert lint("page.md", "每个问题以 `JSON 路径: 问题` 的形式占一行。\n") == []
    block = "列出：\n\n```text\n*.mjs（worker 与 Pyodide）    Content-Type: text/javascript\n```\n"
    assert lint("page.md", block) == [], "code blocks are literal (.autocorrectrc: context.codeblock)"


TERMS = {
    "非空字符串": "非空白字符串 (the builder refuses a string of spaces too)",
    "取得时间": "捕获时间 (capturedAt)",
    "获取时间": "捕获时间 (capturedAt)",
    "重新获取": "重新取得 (refresh)",
    "重新取证": "重新取得证据 (refresh)",
    "Python 版本": "Python 实现 (this implementation, not a version of Python)",
}
"""Words the Chinese pages do not use, each with the one they use instead: one term for one
thing on every page. A line that quotes the original chapter (``**原文**``) keeps its words."""


def terminology_problems(name: str, text: str) -> list[str]:
    return [
        f"{name}:{number}: {word!r} -> {TERMS[word]}"
        for number, line in enumerate(text.splitlines(), 1)
        if not line.startswith("**原文**")
        for word in TERMS
        if word in line
    ]


def test_the_chinese_pages_use_one_term_for_one_thing():
    pages = [(name, text) for name, text, _ in chinese_texts() if name.startswith("docs/")]
    problems = [problem for name, text in pages for problem in terminology_problems(name, text)]
    assert problems == [], "\n".join(problems)


def test_the_terminology_check_finds_a_variant_and_spares_a_quotation():
    assert terminology_problems("page.md", "三项必须是非空字符串。\n") == [
        "page.md:1: '非空字符串' -> 非空白字符串 (the builder refuses a string of spaces too)"
    ]
    assert terminology_problems("page.md", "**原文**：三项均为非空字符串。\n") == []
