"""Nothing on a page can silently go unrun.

docs/conftest.py tells Sybil how to run each kind of fence, and makes every other fence that is
not prose a failing example of its own (so ``pytest docs`` alone reports it). This file checks
the other side: every fence that is not prose on every page (both editions) is covered by an
example Sybil collects and runs, no example can be skipped, and a request.json always comes with
the result (or the InvalidRequestError) it must produce.

Fences are found here by a scanner of our own, independent of the lexer docs/conftest.py uses,
so a fence that lexer cannot see (an odd indentation, a ``{.python}`` info string, tildes) is
reported instead of vanishing from both sides of the comparison.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from sybil import Sybil

from tests.loading import load_module

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load_docs_conftest():
    # Imported under its own name: pytest already imports it as a conftest module.
    return load_module("harnessbook_docs_conftest", DOCS / "conftest.py")


DOCS_CONFTEST = _load_docs_conftest()
PROSE_LANGUAGES = DOCS_CONFTEST.PROSE_LANGUAGES
# The same configuration as docs/conftest.py's ``pytest_collect_file``.
SYBIL = Sybil(parsers=DOCS_CONFTEST.PARSERS, patterns=["*.md"], excludes=["examples/*"], path=str(DOCS))

# Titles that only make sense as the second half of a request/result pair.
PAIR_FOLLOWERS = DOCS_CONFTEST.PAIR_FOLLOWERS

# Ways an example could be skipped instead of run. docs/conftest.py registers no Sybil skip
# parser, so a skip comment would not even work; it is reported all the same.
SKIP_MARKERS = [
    (re.compile(r"doctest:.*[+]SKIP"), "a doctest +SKIP directive"),
    (re.compile(r"\bpytest\s*\.\s*(skip|importorskip|xfail)\b"), "a pytest skip/xfail call"),
    (re.compile(r"\bSkipTest\b"), "unittest.SkipTest"),
]
SYBIL_COMMENT = re.compile(r"<!--+\s*(skip|invisible-code-block|clear-namespace)\b")

FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*(?:>[ \t]*)*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
LANGUAGE = re.compile(r"^\s*\{?\s*\.?(?P<language>[\w+-]*)")
TITLE = re.compile(r'title="(?P<title>[^"]*)"')


@dataclass(frozen=True)
class Fence:
    start: int  # offset of the opening fence line
    end: int  # offset just past the closing fence line
    line: int
    language: str
    title: str | None


def scan_fences(text: str) -> list[Fence]:
    """Every fenced block of a Markdown text, nested fences (inside a fence) not counted."""
    fences: list[Fence] = []
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    index = 0
    while index < len(lines):
        match = FENCE_OPEN.match(lines[index].rstrip("\n"))
        if match is None or (match.group("fence")[0] == "`" and "`" in match.group("info")):
            index += 1
            continue
        fence, indent = match.group("fence"), len(match.group("indent"))
        closing = re.compile(
            rf"^[ \t]{{0,{indent + 3}}}(?:>[ \t]*)*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$"
        )
        end_index = index + 1
        while end_index < len(lines) and not closing.match(lines[end_index].rstrip("\n")):
            end_index += 1
        info = match.group("info")
        title = TITLE.search(info)
        language = LANGUAGE.match(info)
        assert language is not None  # the pattern matches any string
        fences.append(
            Fence(
                start=offsets[index],
                end=offsets[min(end_index + 1, len(lines))],
                line=index + 1,
                language=language.group("language").lower(),
                title=title.group("title") if title else None,
            )
        )
        index = end_index + 1
    return fences


def fence_body(text: str, fence: Fence) -> str:
    """The content of a fence, between its opening and closing lines, dedented (a fence in an
    admonition is indented under it)."""
    import textwrap

    lines = text[fence.start : fence.end].split("\n")[1:]
    while lines and not lines[-1].strip():
        lines.pop()
    return textwrap.dedent("\n".join(lines[:-1]))


def fence_problems(path: Path) -> list[str]:
    """Everything wrong with one page's fences; an empty list when all is well."""
    text = path.read_text(encoding="utf-8")
    name = path.relative_to(DOCS) if path.is_relative_to(DOCS) else path.name
    try:
        document = SYBIL.parse(path)
    except Exception as error:  # a parser refusing the page (e.g. a lonely request.json)
        return [f"{name}: Sybil cannot parse the page: {error}"]
    # conftest's failing examples (a fence nothing runs...) are reported, and cover nothing.
    examples = list(document)
    regions = [example.region for example in examples if example.region.evaluator is not DOCS_CONFTEST._fail]
    problems: list[str] = [
        f"{name}, line {example.line}: pytest docs reports: {example.region.parsed}"
        for example in examples
        if example.region.evaluator is DOCS_CONFTEST._fail
    ]
    fences = scan_fences(text)

    for position, fence in enumerate(fences):
        where = f"{name}, line {fence.line}: ```{fence.language}" + (
            f' title="{fence.title}"' if fence.title else ""
        )
        covered = [r for r in regions if r.start < fence.end and fence.start < r.end]
        must_run = (
            fence.language not in PROSE_LANGUAGES
            or fence.title in PAIR_FOLLOWERS
            or (fence.title or "").endswith(".json")  # JSON by its title, whatever its language
        )
        if must_run and not covered:
            problems.append(
                f"{where}: not collected by Sybil, so never run (write ```python or ```console to run"
                " it, a request.json with its result.json or InvalidRequestError, or ```text for prose;"
                " docs/howto/run-examples.en.md lists them)"
            )
        if fence.language == "json" and fence.title == "request.json":
            following = fences[position + 1] if position + 1 < len(fences) else None
            if following is None or following.title not in PAIR_FOLLOWERS:
                problems.append(f"{where}: must be followed by a result.json or an InvalidRequestError fence")
        source = text[fence.start : fence.end]
        for pattern, what in SKIP_MARKERS:
            if must_run and pattern.search(source):
                problems.append(f"{where}: contains {what}; examples are never skipped")

    for match in SYBIL_COMMENT.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        problems.append(f"{name}, line {line}: a Sybil directive comment; examples are never skipped")

    # Every collected example sits on a fence we found: no region comes from elsewhere.
    for region in regions:
        if not any(f.start <= region.start and region.end <= f.end for f in fences) and not any(
            region.start <= f.start and f.end <= region.end for f in fences
        ):
            line = text.count("\n", 0, region.start) + 1
            problems.append(f"{name}, line {line}: Sybil collected an example outside any fence")
    return problems


def doc_pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if SYBIL.should_parse(p))


def test_sybil_collects_every_page():
    every_page = sorted(p for p in DOCS.rglob("*.md") if "examples" not in p.relative_to(DOCS).parts)
    assert every_page, "no pages under docs/"
    assert doc_pages() == every_page


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_runnable_fence_is_an_example(page: Path):
    problems = fence_problems(page)
    assert not problems, "\n".join(problems)


def test_the_scanner_agrees_with_the_docs_lexer_on_every_page():
    """Both sides see the same fences; otherwise the comparison above could hide one."""
    from sybil import Document

    for page in doc_pages():
        text = page.read_text(encoding="utf-8")
        ours = [(f.start, f.language) for f in scan_fences(text)]
        theirs = [(r.start, r.lexemes["language"]) for r in DOCS_CONFTEST.FENCES(Document(text, str(page)))]
        assert ours == theirs, f"{page.relative_to(DOCS)}: fence scanner {ours} vs docs lexer {theirs}"


# --- the check can fail -----------------------------------------------------------------------

GOOD_PAIR = """```json title="request.json"
{"taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "t"},
 "budgetUnits": 1, "candidates": []}
```

```json title="result.json"
{}
```
"""

EMPTY_REQUEST_PROBLEMS = (
    "$.taskAnchor: required key is missing\n$.budgetUnits: required key is missing\n"
    "$.candidates: required key is missing\n"
)
"""What the builder says of the request ``{}``, one problem a line."""

BROKEN_PAGES = {
    "py-fence": ("```py\nprint(1)\n```\n", "not collected by Sybil"),
    "pycon-fence": ("```pycon\n>>> 1\n1\n```\n", "not collected by Sybil"),
    "brace-info": ('```{.python title="x"}\nprint(1)\n```\n', "not collected by Sybil"),
    "bash-fence": ("```bash\n$ harnessbook demo\n```\n", "not collected by Sybil"),
    "other-json": ('```json title="notes.json"\n{}\n```\n', "not collected by Sybil"),
    "untitled-json": ("```json\n{}\n```\n", "not collected by Sybil"),
    "lonely-result": ('```json title="result.json"\n{}\n```\n', "not collected by Sybil"),
    "lonely-request": (
        '```json title="request.json"\n{}\n```\n\nText.\n\n```text\nnot a result\n```\n',
        "must be followed by a result.json or an InvalidRequestError fence",
    ),
    "request-at-end": (
        '```json title="request.json"\n{}\n```\n',
        "must be followed by a result.json or an InvalidRequestError fence",
    ),
    "single-quoted-title": ("```json title='request.json'\n{}\n```\n", "not collected by Sybil"),
    "other-case-title": ('```json title="Request.json"\n{}\n```\n', "not collected by Sybil"),
    "python3-fence": ("```python3\nprint(1)\n```\n", "not collected by Sybil"),
    "shell-session": ("```shell-session\n$ harnessbook demo\n```\n", "not collected by Sybil"),
    "doctest-skip": ("```python\n>>> 1 + 1  # doctest: +SKIP\n3\n```\n", "+SKIP"),
    "pytest-skip": ("```python\nimport pytest\npytest.skip('later')\n```\n", "pytest skip"),
    "skip-comment": ("<!-- skip: next -->\n\n```python\nprint(1)\n```\n", "Sybil directive comment"),
    "tilde-py": ("~~~py\nprint(1)\n~~~\n", "not collected by Sybil"),
    "text-request": (
        '```text title="request.json"\n{}\n```\n\n```text\nprose\n```\n',
        "not collected by Sybil",
    ),
    "yaml-json": ('```yaml title="config.json"\n{}\n```\n', "not collected by Sybil"),
    # Prose between a request and its answer: run here, but drawn as no figure (hooks/figures.py).
    # (The answers are right: only where they stand is wrong.)
    "prose-between": (
        f'```json title="request.json"\n{{}}\n```\n\nSome prose.\n\n```text title="InvalidRequestError"\n{EMPTY_REQUEST_PROBLEMS}```\n',
        "must be followed by a result.json or an InvalidRequestError fence (at once",
    ),
    "answer-indented": (
        '```json title="request.json"\n{}\n```\n\n    ```text title="InvalidRequestError"\n'
        + "".join(f"    {line}\n" for line in EMPTY_REQUEST_PROBLEMS.splitlines())
        + "    ```\n",
        "must be followed by a result.json or an InvalidRequestError fence (at once",
    ),
    # Beside examples that run: the check is about each fence, not about the page as a whole.
    "py-beside-python": ("```python\nx = 1\n```\n\n```py\nprint(x)\n```\n", "not collected by Sybil"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_PAGES))
def test_a_broken_page_is_caught(tmp_path: Path, case: str):
    body, expected = BROKEN_PAGES[case]
    page = tmp_path / "broken.md"
    page.write_text(f"# Broken {{#broken}}\n\n{body}", encoding="utf-8")
    problems = fence_problems(page)
    assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize("case", sorted(set(BROKEN_PAGES) - {"skip-comment"}))
def test_pytest_docs_alone_fails_a_broken_page(tmp_path: Path, case: str):
    """The same pages, as ``pytest docs`` runs them (docs/conftest.py alone): each has a failing
    example. (A Sybil directive comment does nothing, as no parser reads it: the block after it
    runs, and only the check above reports the comment.)"""
    body, expected = BROKEN_PAGES[case]
    failures = sybil_failures(tmp_path, body)
    assert failures, f"{case}: every example passed"
    if case in ("prose-between", "answer-indented"):  # failing for the place, not the answer
        assert any(expected in failure for failure in failures), failures


NEVER_SKIPPED = "the book's examples are never skipped"
SKIPPING_PAGES = {
    "skip-imported": ("```python\nfrom pytest import skip\nskip('later')\n```\n", NEVER_SKIPPED),
    "xfail-aliased": ("```python\nimport pytest as p\np.xfail('later')\n```\n", NEVER_SKIPPED),
    "importorskip": (
        "```python\nimport pytest as p\np.importorskip('no_such_module_here')\n```\n",
        NEVER_SKIPPED,
    ),
    # spelt so that no reading of the text finds SkipTest
    "unittest-skip": (
        "```python\nimport unittest as u\nraise getattr(u, 'Skip' + 'Test')('later')\n```\n",
        NEVER_SKIPPED,
    ),
    # doctest catches every exception itself: the skip is an output the block did not show
    "skip-in-doctest": ("```python\n>>> from pytest import skip\n>>> skip('later')\n```\n", "Skipped: later"),
}
"""Blocks that skip themselves in ways no reading of their text sees (an alias, an import):
the run itself must fail them."""


@pytest.mark.parametrize("case", sorted(SKIPPING_PAGES))
def test_a_block_that_skips_itself_at_run_time_fails(tmp_path: Path, case: str):
    body, expected = SKIPPING_PAGES[case]
    failures = sybil_failures(tmp_path, body)
    assert any(expected in failure for failure in failures), failures


def sybil_failures(tmp_path: Path, body: str) -> list[str]:
    """Every example of a page holding ``body``, evaluated as ``pytest docs`` does: the
    failures' messages. An example that skips or xfails itself fails this call (pytest's
    outcomes are BaseExceptions: an ``except Exception`` would let them skip the test instead)."""
    page = tmp_path / "broken.md"
    page.write_text(f"# Broken {{#broken}}\n\n{body}", encoding="utf-8")
    failures = []
    for example in SYBIL.parse(page):
        try:
            example.evaluate()
        except DOCS_CONFTEST.SKIPPED as error:
            pytest.fail(f"an example skipped itself instead of failing: {error!r}")
        except Exception as error:
            failures.append(str(error))
    return failures


def test_a_titled_python_fence_runs(tmp_path: Path):
    """A ```python fence may carry a title (docs/conftest.py): it is run all the same."""
    failures = sybil_failures(
        tmp_path, '```python title="check.py"\nassert False, "the titled fence ran"\n```\n'
    )
    assert any("the titled fence ran" in failure for failure in failures), failures


def test_an_error_fence_must_show_every_problem(tmp_path: Path):
    """An InvalidRequestError fence that shows the first problems only is refused: the page
    would hide the rest (the request below has three)."""
    request = '```json title="request.json"\n{}\n```\n\n'
    first = "$.taskAnchor: required key is missing"
    failures = sybil_failures(tmp_path, request + f'```text title="InvalidRequestError"\n{first}\n```\n')
    assert failures, "a fence showing one problem of three passed"


def test_a_schema_fence_of_a_stale_copy_fails(tmp_path: Path):
    """A snippet of a file with the schema's name that is not the schema the package ships (a
    copy left behind) is refused: the content is compared, not only the name."""
    stale = json.loads(
        (ROOT / "src/harnessbook/schemas/context-packet-request.schema.json").read_text("utf-8")
    )
    stale["description"] = "an older copy"
    copy = tmp_path / "copy" / "context-packet-request.schema.json"
    copy.parent.mkdir()
    copy.write_text(json.dumps(stale), encoding="utf-8")
    body = f'```json title="context-packet-request.schema.json"\n--8<-- "{copy}"\n```\n'
    failures = sybil_failures(tmp_path, body)
    assert any("is not the schema the package ships" in failure for failure in failures), failures


def test_a_good_page_passes(tmp_path: Path):
    page = tmp_path / "good.md"
    page.write_text(
        "# Good {#good}\n\n```python\nx = 1\n```\n\n```python\n>>> x + 1\n2\n```\n\n"
        + GOOD_PAIR
        + '\n!!! failure "Fails on purpose"\n\n    ```python\n    y = 2\n    ```\n\n'
        + "```console\n$ echo hi\nhi\n```\n\n```text\nprose only\n```\n",
        encoding="utf-8",
    )
    assert fence_problems(page) == []


# --- the evaluators can fail --------------------------------------------------------------------

BROKEN_PAGE = """# Every kind of example, each shown wrong

```console
$ echo hello
goodbye
```

```console
$ (exit 3)
$ echo $?
0
```

```console
$ exit 7
$ echo never
never
```

```console
$ false
$ echo "a failure without a word, and no echo $? after it"
a failure without a word, and no echo $? after it
```

```json title="request.json"
{"taskAnchor": {}, "budgetUnits": 8, "candidates": []}
```

```text title="InvalidRequestError"
$.taskAnchor.goal: not the builder's words
```

```json title="request.json"
{"taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "t"}, "budgetUnits": 8, "candidates": []}
```

```json title="result.json"
{"state": "ready", "phase": "assembled", "packet": {"taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "t"}, "selected": [], "pointers": [], "usedBudgetUnits": 0, "budgetUnits": 8}, "excluded": [], "unknowns": [], "refresh": [], "evidence": []}
```

```json title="context-packet-request.schema.json"
--8<-- "src/harnessbook/schemas/context-packet-result.schema.json"
```

```python
>>> 1 + 1
3
```

```python
import json
data = json.loads("{")
```

```python
print(data)
```

```json title="request.json"
{"taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "t"},
 "budgetUnits": 8 "candidates": []}
```

```json title="result.json"
{}
```

```json title="request.json"
{"taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "t"},
 "budgetUnits": 8, "budgetUnits": 9, "candidates": []}
```

```text title="InvalidRequestError"
$.budgetUnits: not the builder's words
```

```console
$harnessbook --help
```

```py
print("never run")
```

```json title="context-packet-request.schema.json"
--8<-- "schemas/context-packet-request.schema.json"
```

```console
$ printf 'trailing \\n'
trailing
```

```console
$ (exit 3)
$ echo $?
3
```
"""

BROKEN_PAGE_FAILURES = [
    "line 4: $ echo hello\n--- shown on the page (diff line 1 is line 5 of the page)\n+++ actual\n"
    "@@ -1 +1 @@\n-goodbye\n+hello",
    "line 10: $ echo $?\n--- shown on the page (diff line 1 is line 11 of the page)\n+++ actual\n"
    "@@ -1 +1 @@\n-0\n+3",
    "the session ended during `$ exit 7`",
    "line 21: $ false\nexited 1 with nothing shown",
    "problems differ from the InvalidRequestError fence (line 30):\n"
    "--- shown on the page (diff line 1 is line 31 of the page)\n+++ actual\n"
    "@@ -1 +1,3 @@\n-$.taskAnchor.goal: not the builder's words\n",
    "the result is equal to the result.json fence (line 38), but not laid out as the builder prints it",
    "context-packet-request.schema.json: snippet src/harnessbook/schemas/context-packet-result.schema.json "
    "is not that schema file",
    "Expected:\n    3\nGot:\n    2",
    'this block raised an exception:\n  line 53: data = json.loads("{")\n',
    "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes",
    "not run: the python block at line 51 of this page failed",
    "request.json is not JSON: Expecting ',' delimiter (line 62 of the page, column 19)",
    "request.json repeats the key $.budgetUnits: JSON readers disagree on which value counts",
    "this console fence cannot be read: line 79: console fence must start with a '$ ' command line",
    "```py is never run. Write ```python or ```console to run it",
    "context-packet-request.schema.json: snippet schemas/context-packet-request.schema.json names no file",
    "-trailing\n+trailing\u2420\n(\u2420 marks a space and \u2409 a tab at the end of a line)",
]
"""What the book's evaluators (docs/conftest.py) report for each example of BROKEN_PAGE, each
with its line on the page: the console evaluator (wrong output, a session that ends early, a
command that fails without a word), a wrong InvalidRequestError, a result equal but not printed
as the builder prints it, a schema fence of the wrong file, a doctest whose output is wrong, a
python block that raises (its page line, not the page reprinted) and the block after it (not
run), a request that is not JSON and one with a repeated key, a console fence that cannot be
read (one failure, not an error that stops the run), a ```py fence, a schema snippet that names
no file, and output that differs only by a trailing space (drawn). The page's last example, a command that fails and is followed by a
shown `echo $?`, is right and must pass."""


def test_every_evaluator_fails_an_example_shown_wrong(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "examples").mkdir(parents=True)  # where console commands run
    (docs / "conftest.py").write_text((DOCS / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "broken.md").write_text(BROKEN_PAGE, encoding="utf-8")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
            "broken.md",
        ],
        cwd=docs,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "16 failed, 1 passed" in completed.stdout, completed.stdout  # every example but the last
    for failure in BROKEN_PAGE_FAILURES:
        assert failure in completed.stdout, f"not reported: {failure!r}\n{completed.stdout}"


def test_a_console_command_goes_on_after_a_backslash():
    """A long command is shown on several lines, as bash shows it: a backslash, then ``> ``."""
    steps = DOCS_CONFTEST.ConsoleParser.steps
    source = "$ printf '%s\\n' one \\\n>   two \\\n>   three\none\ntwo\nthree\n$ echo $?\n0"
    assert steps(source) == [
        ("printf '%s\\n' one \\\n  two \\\n  three", "one\ntwo\nthree"),
        ("echo $?", "0"),
    ]
    # An output line that ends in a backslash is output, not a continued command.
    assert steps("$ echo 'a\\'\na\\\n$ true") == [("echo 'a\\'", "a\\"), ("true", "")]
    with pytest.raises(ValueError, match="must go on in a '> ' line"):
        steps("$ echo one \\\ntwo")
    with pytest.raises(ValueError, match="with no '> ' line after it"):
        steps("$ echo one \\")
    # Two backslashes are one escaped backslash: the command ends there.
    assert steps("$ echo one \\\\\none \\") == [("echo one \\\\", "one \\")]


# --- comments in code are English ---------------------------------------------------------------

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def code_comments(language: str, source: str) -> list[tuple[int, str]]:
    """(line within the fence, comment) of every comment in a python or console fence."""
    import io
    import tokenize

    if language == "console":
        return [
            (number, line[line.index(" #") + 1 :])
            for number, line in enumerate(source.splitlines(), start=1)
            if line.startswith(("$ ", "> ")) and " #" in line
        ]
    lines = source.splitlines()
    if source.lstrip().startswith(">>>"):  # a doctest: its code lines only, prompts removed
        lines = [line[4:] if line.startswith((">>> ", "... ")) else "" for line in lines]
    comments = []
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if token.type == tokenize.COMMENT:
                comments.append((token.start[0], token.string))
    except (tokenize.TokenError, SyntaxError):  # pragma: no cover - every page's code tokenizes
        raise AssertionError(f"cannot tokenize:\n{source}") from None
    return comments


def test_comments_in_the_pages_code_are_english():
    """Code, identifiers and comments are English in both editions (CONTRIBUTING); what a Chinese
    reader needs to know goes in the prose around the block."""
    problems = []
    for page in doc_pages():
        text = page.read_text(encoding="utf-8")
        for fence in scan_fences(text):
            if fence.language not in ("python", "console"):
                continue
            for number, comment in code_comments(fence.language, fence_body(text, fence)):
                if CJK.search(comment):
                    problems.append(f"{page.relative_to(DOCS)}, line {fence.line + number}: {comment}")
    assert not problems, "comments in code must be English:\n" + "\n".join(problems)


def test_the_comment_check_finds_a_chinese_comment():
    assert code_comments("python", ">>> x = 1  # 只读的映射\n>>> x\n1\n") == [(1, "# 只读的映射")]
    assert code_comments("python", "s = '# 不是注释'  # a comment\n") == [(1, "# a comment")]
    assert code_comments("console", "$ harnessbook demo  # 演示\noutput # 不是\n") == [(1, "# 演示")]


# --- a file a page says is the same request ---------------------------------------------------

SAME_REQUEST = {
    "chapters/06-context-packet/interface.md": "interface-zh-request.json",
    "chapters/06-context-packet/interface.en.md": "interface-en-request.json",
    "howto/run-examples.md": "run-examples-zh-empty.json",
    "howto/run-examples.en.md": "run-examples-en-empty.json",
}
"""Pages whose prose says their console block builds the very request of their first
request.json block ("the command line takes the same request"), and the file it builds."""


def request_blocks(text: str) -> list[object]:
    import json

    return [
        json.loads(fence_body(text, fence))
        for fence in scan_fences(text)
        if fence.language == "json" and fence.title == "request.json"
    ]


@pytest.mark.parametrize("page", sorted(SAME_REQUEST))
def test_a_request_file_said_to_be_the_pages_request_is_that_request(page: str):
    import json

    name = SAME_REQUEST[page]
    text = (DOCS / page).read_text(encoding="utf-8")
    assert f"harnessbook build {name}" in text, f"{page} no longer builds {name}"
    shown = request_blocks(text)[0]
    assert json.loads((DOCS / "examples" / name).read_text(encoding="utf-8")) == shown, (
        f"docs/examples/{name} is not the first request.json of {page}"
    )


def test_a_doctest_that_does_not_start_with_its_prompt_gets_a_hint(tmp_path: Path):
    page = tmp_path / "broken.md"
    page.write_text("# Broken {#broken}\n\n```python\n# add\n>>> 1 + 1\n2\n```\n", encoding="utf-8")
    (example,) = list(SYBIL.parse(page))
    with pytest.raises(Exception, match="a doctest block must start with its first >>> line") as failure:
        example.evaluate()
    assert "line 5" in str(failure.value), failure.value


# --- examples that fail on purpose say so --------------------------------------------------------

FAILURE_ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?) failure\b")


def enclosing_admonition(lines: list[str], line: int) -> str | None:
    """The admonition line (``!!! failure "..."``) a fence at ``line`` (1-based) is indented
    under, or None when it is not indented under one."""
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    if indent == 0:
        return None
    for above in reversed(lines[: line - 1]):
        if above.strip() and len(above) - len(above.lstrip()) < indent:
            return above if above.lstrip().startswith(("!!!", "???")) else None
    return None


def test_every_invalid_request_example_is_marked_as_failing_on_purpose():
    """run-examples: a request the builder must refuse goes inside a ``!!! failure "Fails on
    purpose"`` admonition, so the reader sees at once that it fails by design."""
    problems = []
    for page in doc_pages():
        text = page.read_text(encoding="utf-8")
        lines = text.split("\n")
        for fence in scan_fences(text):
            if fence.title == "InvalidRequestError":
                admonition = enclosing_admonition(lines, fence.line)
                if admonition is None or not FAILURE_ADMONITION.match(admonition):
                    problems.append(f"{page.relative_to(DOCS)}, line {fence.line}")
    assert not problems, "InvalidRequestError examples outside a failure admonition:\n" + "\n".join(problems)


def test_the_admonition_check_sees_the_block_a_fence_is_in():
    lines = ['!!! failure "Fails on purpose"', "", "    ```text", "    x", "    ```", "", "```text", "```"]
    assert enclosing_admonition(lines, 3) == lines[0]
    assert enclosing_admonition(lines, 7) is None
    nested = ['!!! note "n"', "", "    Text.", "", "    ```text"]
    assert enclosing_admonition(nested, 5) == nested[0]
    assert not FAILURE_ADMONITION.match(nested[0])
