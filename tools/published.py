"""The site's published addresses, which must never break: ``tests/data/published.txt`` and their check.

People link to the pages, to the headings of every page and to the API's objects. The manifest
lists every such address the site has ever published, one a line::

    page /en/reference/api/
    heading /chapters/06-context-packet/rules/#expiry
    object /reference/api/#harnessbook.context_packet.build_context_packet

``page`` is every page of every edition (zh at ``/``, en at ``/en/``); ``heading`` is the id of
every heading of every page (the home pages, the chapter, the reference and the how-to pages);
``object`` is every object mkdocstrings documents (its ``doc-heading`` id).

Commands (run from the repository root)::

    uv run python tools/published.py --update            # build the site, append new addresses
    uv run python tools/published.py --check             # build the site, list what no longer resolves
    uv run python tools/published.py --update --site DIR # use a site built beforehand

``--update`` only ever appends: an address that is gone stays in the manifest, and the test
(``tests/test_published.py``) asks for it to exist or to be redirected in ``moved.yml``.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Protocol
from urllib.parse import urljoin, urlsplit

import lxml.html  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "data" / "published.txt"
KINDS = ("page", "heading", "object")
# The elements whose ids are published addresses: headings (and the API's objects among them).
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

HEADER = """\
# Published addresses of the harnessbook site (issue 15). People link to them: each must keep
# resolving, either still there or redirected by moved.yml (tests/test_published.py checks).
# One address a line: <kind> <address>. page: a page of an edition (zh at /, en at /en/);
# heading: the id of a heading on any page; object: an API object's id.
# Never delete or edit a line. New addresses: uv run python tools/published.py --update
"""

FIXES = """\
People link to these addresses. For each one, either:
  1. keep it: restore the page, or keep the old id on its page (the heading's {#old-id}, or
     an empty <span id="old-id"></span> where the content now is); or
  2. redirect it in moved.yml at the repository root (hooks/moved.py does the rest):
       pages:
         old/page/: new/page/          # a redirect page at the old path, in every edition
       anchors:
         page/path/:
           old-id: new-id              # an alias at the old id, on the same page
           other-id: other/page/#id    # or to the page that now holds it
Never delete lines from tests/data/published.txt (CONTRIBUTING.md, "Moving or renaming")."""


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("harnessbook_moved_hook", ROOT / "hooks" / "moved.py")
    assert spec is not None and spec.loader is not None, "hooks/moved.py cannot be loaded"
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


moved = _load_hook()


@dataclass(frozen=True, order=True)
class Address:
    kind: str
    url: str  # "/en/reference/api/#harnessbook.cli.main": the path from the site root, and a fragment

    @property
    def path(self) -> str:
        return self.url.split("#", 1)[0]

    @property
    def fragment(self) -> str | None:
        return self.url.split("#", 1)[1] if "#" in self.url else None

    def __str__(self) -> str:
        return f"{self.kind} {self.url}"


class ManifestError(ValueError):
    pass


# --------------------------------------------------------------------------- the manifest file


def read_manifest(path: Path = MANIFEST) -> list[Address]:
    """Every address in the manifest, in file order. A malformed line raises with its number."""
    addresses = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or parts[0] not in KINDS or not parts[1].startswith("/"):
            raise ManifestError(
                f"{path.name}:{number}: expected '<{'|'.join(KINDS)}> /address', got {line!r}"
            )
        kind, url = parts
        if (kind == "page") == ("#" in url):
            raise ManifestError(f"{path.name}:{number}: a page has no #fragment, an anchor has one: {line!r}")
        addresses.append(Address(kind, url))
    return addresses


def append_new(path: Path, found: Iterable[Address], note: str) -> list[Address]:
    """Append the addresses of ``found`` that the manifest lacks; never removes one. Returns them."""
    known = set(read_manifest(path)) if path.exists() else set()
    new = sorted(set(found) - known, key=sort_key)
    if not new:
        return []
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    if not text.endswith("\n"):
        text += "\n"
    text += f"\n# {note}\n" + "".join(f"{address}\n" for address in new)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return new


def sort_key(address: Address) -> tuple[str, int, str]:
    return (address.path, KINDS.index(address.kind) if address.kind == "page" else 1, address.url)


# --------------------------------------------------------------------------- the built site


@dataclass(frozen=True)
class BuiltPage:
    """What the check needs of one HTML file."""

    ids: frozenset[str]
    moved_to: str | None  # a redirect page: its <html data-moved-to>
    aliases: dict[str, str]  # id -> data-moved-to, for the aliases hooks/moved.py put on the page
    headings: tuple[str, ...]  # ids of headings in the article (not mkdocstrings objects)
    objects: tuple[str, ...]  # ids of mkdocstrings objects (class doc-heading)


HTML_PARSER = lxml.html.HTMLParser(encoding="utf-8")


@cache
def parse_page(file: Path) -> BuiltPage:
    """One built page, parsed by libxml2's HTML parser (lxml): its ids, aliases and anchors."""
    root = lxml.html.document_fromstring(file.read_bytes(), parser=HTML_PARSER)
    ids = frozenset(element.get("id") for element in root.iter() if element.get("id") is not None)
    aliases = {
        element.get("id"): element.get("data-moved-to")
        for element in root.iterfind(".//*[@data-moved-to]")
        if element.get("id") is not None
    }
    article = next(iter(root.find_class("md-content__inner")), root)
    headings: list[str] = []
    objects: list[str] = []
    for element in article.iter(*HEADINGS):
        if element.get("id") is not None:
            kind = objects if "doc-heading" in (element.get("class") or "").split() else headings
            kind.append(element.get("id"))
    return BuiltPage(ids, root.get("data-moved-to"), aliases, tuple(headings), tuple(objects))


def page_file(site: Path, path: str) -> Path:
    """The file a page path ("/en/reference/api/") is served from."""
    return site / path.lstrip("/") / "index.html"


def edition_prefixes() -> list[str]:
    """ "" for the default edition and "en/" for every edition built into a folder of its own
    (mkdocs.yml's i18n languages; one with ``build: false`` is not built)."""
    config = _mkdocs_languages()
    return ["" if default else f"{locale}/" for locale, default in config]


@cache
def _mkdocs_languages() -> tuple[tuple[str, bool], ...]:
    from mkdocs.utils.yaml import yaml_load

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        config = yaml_load(file)
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "i18n" in plugin:
            languages = plugin["i18n"]["languages"]
            return tuple(
                (lang["locale"], bool(lang.get("default"))) for lang in languages if lang.get("build", True)
            )
    return (("", True),)


def split_edition(path: str, prefixes: list[str]) -> tuple[str, str]:
    """("en/", "reference/api/") for "/en/reference/api/": the edition's prefix and the page path."""
    relative = path.lstrip("/")
    for prefix in sorted((p for p in prefixes if p), key=len, reverse=True):
        if relative.startswith(prefix):
            return prefix, relative[len(prefix) :]
    return "", relative


def collect(site: Path) -> list[Address]:
    """Every address the built site publishes: pages (not redirect pages), headings, objects."""
    found = []
    for file in sorted(site.rglob("index.html")):
        relative = file.parent.relative_to(site).as_posix()
        if relative.startswith(("assets", "_")):
            continue
        path = "/" if relative == "." else f"/{relative}/"
        page = parse_page(file)
        if page.moved_to is not None:
            continue
        found.append(Address("page", path))
        found += [Address("heading", f"{path}#{i}") for i in page.headings]
        found += [Address("object", f"{path}#{i}") for i in page.objects]
    return found


# --------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class Problem:
    address: Address
    why: str

    def __str__(self) -> str:
        return f"  {self.address}: {self.why}"


def _page_at(site: Path, path: str) -> BuiltPage | None:
    file = page_file(site, path)
    return parse_page(file) if file.is_file() else None


class _Target(Protocol):
    """Where an anchor now is (``hooks/moved.py``'s ``Target``)."""

    @property
    def page(self) -> str: ...
    @property
    def id(self) -> str: ...


class _Moves(Protocol):
    """``moved.yml`` as ``hooks/moved.py`` reads it (its ``Moves``): what the check follows."""

    @property
    def anchors(self) -> Mapping[str, Mapping[str, _Target]]: ...
    def final_page(self, path: str) -> str: ...


def check(site: Path, addresses: Iterable[Address], moves: _Moves) -> list[Problem]:
    """Each address that neither exists in the built site nor is redirected as moves says."""
    prefixes = edition_prefixes()
    problems = []
    for address in addresses:
        prefix, old_page = split_edition(address.path, prefixes)
        new_page = moves.final_page(old_page)
        current = f"/{prefix}{new_page}"
        if new_page != old_page:
            redirect = _page_at(site, address.path)
            if redirect is None or redirect.moved_to is None:
                problems.append(
                    Problem(
                        address,
                        f"moved.yml moves it to {current}, but no redirect page is built at {address.path}",
                    )
                )
                continue
            lands = urlsplit(urljoin(f"https://site{address.path}", redirect.moved_to)).path
            if lands != current:
                problems.append(
                    Problem(address, f"the redirect page at {address.path} goes to {lands}, not {current}")
                )
                continue
        page = _page_at(site, current)
        if page is None or page.moved_to is not None:
            where = "" if new_page == old_page else f" (moved.yml moves it to {current})"
            problems.append(Problem(address, f"no page at {current}{where}"))
            continue
        fragment = address.fragment
        if fragment is None:
            continue
        target = moves.anchors.get(new_page, {}).get(fragment)
        if target is not None:
            target_page = _page_at(site, f"/{prefix}{target.page}")
            expected = f"/{prefix}{target.page}#{target.id}"
            goes_to = urljoin(f"https://site{current}", page.aliases.get(fragment, "")).removeprefix(
                "https://site"
            )
            if fragment not in page.aliases:
                problems.append(
                    Problem(address, f"moved.yml moves #{fragment}, but {current} has no alias at that id")
                )
            elif goes_to != expected:
                problems.append(
                    Problem(address, f"the alias at #{fragment} goes to {goes_to}, not {expected}")
                )
            elif target_page is None or target.id not in target_page.ids:
                problems.append(
                    Problem(
                        address,
                        f"moved.yml moves it to /{prefix}{target.page}#{target.id}, which does not exist",
                    )
                )
            continue
        if fragment not in page.ids:
            where = current if new_page == old_page else f"{current} (where moved.yml moves its page)"
            problems.append(Problem(address, f"{where} has no element with id {fragment!r}"))
    return problems


def report(problems: list[Problem]) -> str:
    """The failure message: each missing address, then the two ways to fix it."""
    lines = [f"{len(problems)} published address(es) no longer resolve:"]
    lines += [str(problem) for problem in problems]
    return "\n".join(lines) + "\n\n" + FIXES


def counts(addresses: Iterable[Address]) -> dict[str, int]:
    out = dict.fromkeys(KINDS, 0)
    for address in addresses:
        out[address.kind] += 1
    return out


# --------------------------------------------------------------------------- command line


def build_site(into: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(into)],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if completed.returncode != 0:
        sys.exit(f"mkdocs build --strict failed:\n{(completed.stdout + completed.stderr)[-4000:]}")


def git_commit() -> str:
    completed = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], check=False, cwd=ROOT, capture_output=True, text=True
    )
    return completed.stdout.strip() or "unknown commit"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--update", action="store_true", help="append the site's new addresses to the manifest"
    )
    action.add_argument("--check", action="store_true", help="list manifest addresses that no longer resolve")
    parser.add_argument("--site", type=Path, help="a site built beforehand (default: build one now)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--note", help="the comment above the appended block (default: date and commit)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="published-") as temporary:
        site = args.site
        if site is None:
            site = Path(temporary) / "site"
            build_site(site)
        if args.update:
            note = args.note or f"added {datetime.date.today().isoformat()}, site at commit {git_commit()}"
            new = append_new(args.manifest, collect(site), note)
            total = counts(read_manifest(args.manifest))
            print(
                f"{len(new)} new address(es) appended; the manifest holds "
                + ", ".join(f"{n} {k}" for k, n in total.items())
            )
            return 0
        problems = check(site, read_manifest(args.manifest), moved.load_moves(ROOT))
        if problems:
            print(report(problems))
            return 1
        print(f"every address in {args.manifest.name} resolves")
        return 0


if __name__ == "__main__":
    sys.exit(main())
