"""A small two-edition MkDocs project whose moved.yml moves a page and anchors of every kind.

The book itself has moved nothing yet, so the redirects of ``hooks/moved.py`` are proven here:
the same theme and plugins as the book (Material, mkdocs-static-i18n with zh at ``/`` and en at
``/en/``, mkdocstrings on the real ``harnessbook.cli``), the same hook, and this ``moved.yml``:

* a page moved twice (``older/place/`` -> ``old/place/`` -> ``new/place/``);
* a heading renamed on its page (``renamed-old`` -> ``renamed-new``);
* a heading moved to another page (``gone-elsewhere`` -> ``other/#landing``);
* an anchor listed under the page's old path (``old/place/``: ``very-old`` -> ``kept``);
* mkdocstrings objects renamed on the API page, as the split of ``context_packet`` will.

``build(into)`` builds it (strict) and returns the site folder; ``OLD_ADDRESSES`` are the old
addresses with where each must land, per edition.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "moved-project"
INPUTS = ("hooks", "src", "pyproject.toml", "uv.lock", "tests/moved_project.py")
"""What the build reads besides the files written here: the hook, the package (mkdocstrings),
the locked theme and plugins, and this file (the project's pages and mkdocs.yml)."""

MOVED_YML = """\
pages:
  older/place/: old/place/
  old/place/: new/place/
anchors:
  old/place/:
    very-old: kept
  new/place/:
    renamed-old: renamed-new
    gone-elsewhere: other/#landing
  api/:
    harnessbook.old_cli.main: harnessbook.cli.main
    harnessbook.old_cli.EXIT_CODES: harnessbook.cli.EXIT_CODES
"""

# (old address in an edition, the page it must land on, the anchor it must land on)
OLD_ADDRESSES = [
    ("old/place/", "new/place/", ""),
    ("older/place/", "new/place/", ""),
    ("old/place/#kept", "new/place/", "kept"),
    ("old/place/#very-old", "new/place/", "kept"),
    ("old/place/#renamed-old", "new/place/", "renamed-new"),
    ("new/place/#renamed-old", "new/place/", "renamed-new"),
    ("new/place/#very-old", "new/place/", "kept"),
    ("new/place/#gone-elsewhere", "other/", "landing"),
    ("api/#harnessbook.old_cli.main", "api/", "harnessbook.cli.main"),
    ("api/#harnessbook.old_cli.EXIT_CODES", "api/", "harnessbook.cli.EXIT_CODES"),
]
EDITIONS = {"zh": "", "en": "en/"}

MANIFEST_KINDS = {"api/#harnessbook.old_cli.main": "object", "api/#harnessbook.old_cli.EXIT_CODES": "object"}


def manifest_lines() -> list[str]:
    """The fixture's old addresses, in the manifest's format, for every edition."""
    lines = []
    for prefix in EDITIONS.values():
        for old, _, _ in OLD_ADDRESSES:
            kind = "page" if "#" not in old else MANIFEST_KINDS.get(old, "heading")
            lines.append(f"{kind} /{prefix}{old}")
    return lines


def _filler(words: str, count: int = 30) -> str:
    return "\n\n".join(f"{words} {n}." for n in range(count))


def _pages(language: str) -> dict[str, str]:
    zh = language == "zh"
    text = "这一段只是为了让页面足够长" if zh else "This paragraph only makes the page long enough"
    return {
        "index": f"# {'首页' if zh else 'Home'} {{#home}}\n\n{text}.\n",
        "new/place": "\n\n".join(
            [
                f"# {'新位置' if zh else 'New place'} {{#place}}",
                _filler(text),
                f"## {'保留的标题' if zh else 'Kept heading'} {{#kept}}",
                _filler(text),
                f"## {'改名后的标题' if zh else 'Renamed heading'} {{#renamed-new}}",
                _filler(text),
            ]
        ),
        "other": "\n\n".join(
            [
                f"# {'另一页' if zh else 'Another page'} {{#other}}",
                _filler(text),
                f"## {'落点' if zh else 'Landing'} {{#landing}}",
                _filler(text),
            ]
        ),
        "api": f"# API {{#api}}\n\n{_filler(text, 10)}\n\n::: harnessbook.cli\n\n{_filler(text, 40)}\n",
    }


def write_project(into: Path, moved_yml: str = MOVED_YML, light: bool = False) -> Path:
    """Write the project's files into ``into`` and return ``into``.

    ``light``: one edition, MkDocs' own theme and no plugins, for the tests that only need the
    hook's errors (a build in about a second).
    """
    docs = into / "docs"
    for language, suffix in (("zh", ".md"), ("en", ".en.md")):
        for name, body in _pages(language).items():
            path = docs / f"{name}{suffix}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
    (into / "moved.yml").write_text(moved_yml, encoding="utf-8")
    if light:
        for page in docs.rglob("*.en.md"):
            page.unlink()
        hook = str(ROOT / "hooks" / "moved.py")
        (into / "mkdocs.yml").write_text(
            f"site_name: moved\ntheme: mkdocs\nmarkdown_extensions: [attr_list, toc]\nhooks: [{hook!r}]\n",
            encoding="utf-8",
        )
        return into
    (into / "mkdocs.yml").write_text(
        textwrap.dedent(
            f"""\
            site_name: moved
            site_url: https://moved.example/
            theme:
              name: material
              language: zh
              font: false
            markdown_extensions:
              - attr_list
              - toc:
                  permalink: true
            plugins:
              - autorefs:
                  resolve_closest: true
              - mkdocstrings:
                  default_handler: python
                  handlers:
                    python:
                      paths: [{str(ROOT / "src")!r}]
              - i18n:
                  docs_structure: suffix
                  reconfigure_material: true
                  languages:
                    - locale: zh
                      default: true
                      name: 中文
                      build: true
                    - locale: en
                      name: English
                      build: true
            hooks:
              - {str(ROOT / "hooks" / "moved.py")!r}
            """
        ),
        encoding="utf-8",
    )
    return into


def build(project: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of a project folder into ``project/site``."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore::DeprecationWarning")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(project / "site")],
        check=False,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def build_site(into: Path) -> Path:
    """Write and build the project; its site folder. A failed build raises with its output."""
    project = write_project(into)
    completed = build(project)
    if completed.returncode != 0:
        raise RuntimeError(
            f"the moved project's build failed:\n{(completed.stdout + completed.stderr)[-5000:]}"
        )
    return project / "site"


def fingerprint() -> str:
    """A hash of :data:`INPUTS` and the Python version: the same tree gives the same build."""
    from tests.conftest import files_fingerprint  # the book's build is keyed the same way

    return files_fingerprint(INPUTS, ROOT)


def cached_site(fresh: bool | None = None) -> Path:
    """:func:`build_site`, kept in ``.cache/moved-project/<fingerprint>/`` and reused while its
    inputs are unchanged (as the book's build, tests/conftest.py); a failed build is not kept.
    ``HARNESSBOOK_FRESH_SITE`` (or ``fresh``) builds it anew, as it does the book.

    It took 1.3 s of CPU a session, for ``tests/test_published.py`` and again for
    ``tests/browser/test_moved.py``."""
    if fresh is None:
        fresh = bool(os.environ.get("HARNESSBOOK_FRESH_SITE"))
    CACHE.mkdir(parents=True, exist_ok=True)
    name = fingerprint()
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if fresh or not (CACHE / f"{name}.done").exists():
            (CACHE / f"{name}.done").unlink(missing_ok=True)
            shutil.rmtree(CACHE / name, ignore_errors=True)
            build_site(CACHE / name)
            (CACHE / f"{name}.done").touch()  # last: the build is complete
            for old in CACHE.glob("*.done"):
                if old.stem != name:
                    shutil.rmtree(CACHE / old.stem, ignore_errors=True)
                    old.unlink(missing_ok=True)
    return CACHE / name / "site"
