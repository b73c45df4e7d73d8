"""The book's production headers: one source of truth, written in every host's format.

The hook ``hooks/publish.py`` calls :func:`write_all` once every edition is built. From the
built site it writes:

* ``_headers`` in the site root, the format Netlify and Cloudflare Pages read;
* ``_deploy/nginx-headers.conf``, an nginx include that ``deploy/nginx.conf`` includes in its
  ``server`` block (and ``_deploy/nginx-redirects.conf``, left empty when nothing else wrote
  it, so that the ``include`` always finds a file);
* a ``.gz`` copy beside every compressible file, for nginx's ``gzip_static``.

The Content-Security-Policy allows no inline script by ``'unsafe-inline'``: every inline
``<script>`` of every built page (redirect pages too) is hashed (SHA-256), and the policy lists
exactly those hashes. :func:`check_site` fails the build when a page has an inline script that
the written policy does not allow, or an inline event handler or ``javascript:`` URL, which no
hash can allow.

Only the standard library: the hook runs inside ``mkdocs build``, and the tests import it too.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import hashlib
import os
import re
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

DEPLOY_DIR = "_deploy"
"""Folder of the built site for server configuration; never served (deploy/nginx.conf denies it)."""
HEADERS_FILE = "_headers"
NGINX_HEADERS = f"{DEPLOY_DIR}/nginx-headers.conf"
NGINX_REDIRECTS = f"{DEPLOY_DIR}/nginx-redirects.conf"

# --------------------------------------------------------------------------- the policy

CSP_DIRECTIVES: dict[str, tuple[str, ...]] = {
    # Everything not named below: this site only.
    "default-src": ("'self'",),
    # Scripts: files from this site, plus the inline scripts of the built pages by their hashes
    # (added at build time); 'wasm-unsafe-eval' lets Pyodide compile its WebAssembly. No
    # 'unsafe-inline', no 'unsafe-eval'.
    "script-src": ("'self'", "'wasm-unsafe-eval'"),
    # Style sheets from this site only. The built pages have no inline style attribute or
    # <style> element (check_site fails the build if one appears); Material and the playground
    # set styles through the CSSOM (element.style), which a policy does not restrict.
    "style-src": ("'self'",),
    # Material's icons are data: SVG images in its style sheets.
    "img-src": ("'self'", "data:"),
    "font-src": ("'self'",),
    # The playground's Web Worker, and everything it fetches (Pyodide, harnessbook.zip).
    "worker-src": ("'self'",),
    "connect-src": ("'self'",),
    "manifest-src": ("'self'",),
    "object-src": ("'none'",),
    "base-uri": ("'self'",),
    "form-action": ("'self'",),
    "frame-ancestors": ("'none'",),
}

SECURITY_HEADERS: dict[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    # Features this book never uses, turned off for the page and anything it might embed.
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), "
    "accelerometer=(), gyroscope=(), magnetometer=()",
}

HSTS = "max-age=31536000"
"""Strict-Transport-Security, sent when the site's address is https at its host's root: a
browser that has seen it goes on asking for https for a year, even when a link or a typed
address says http. It binds the whole host, so a book under a sub-path (``/harness/``) leaves
that to the host's owner. Without ``includeSubDomains``: the book's host says nothing for its
subdomains. Browsers ignore it on a plain http answer (the tests' nginx)."""

IMMUTABLE = "public, max-age=31536000, immutable"
"""Files whose name changes whenever their content does."""
REVALIDATE = "no-cache"
"""Everything else, HTML included: keep a copy, but ask the server (ETag/Last-Modified) first."""

FINGERPRINTED = re.compile(
    r"^assets/(?:javascripts|stylesheets)/(?:.+/)?[\w-]+\.[0-9a-f]{8}\.min\.(?:js|css)$"
)
"""Material's bundles carry a content hash in their name (bundle.79ae519e.min.js)."""
PYODIDE_DIR = re.compile(r"^assets/playground/pyodide-[0-9][\w.]*/")
"""The vendored runtime's folder carries its version in its name."""

COMPRESSIBLE = frozenset({".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".txt", ".wasm", ".map"})
"""Written as .gz beside the file for nginx's gzip_static (zips and images are compressed already)."""
MIN_COMPRESS_BYTES = 256

JS_TYPES = frozenset({"", "text/javascript", "application/javascript", "module", "text/ecmascript"})


def script_hash(source: str) -> str:
    """The CSP source expression for one inline script: ``'sha256-<base64>'`` of its UTF-8 text."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(hashes: Iterable[str]) -> str:
    directives = dict(CSP_DIRECTIVES)
    directives["script-src"] = directives["script-src"] + tuple(sorted(set(hashes)))
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


def parse_policy(policy: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0].lower()] = words[1:]
    return out


# --------------------------------------------------------------------------- reading pages


@dataclass(frozen=True)
class InlineCode:
    """Something in a page that the policy must allow: an inline script, or a problem."""

    kind: str  # "script", "handler", "javascript-url", "style"
    text: str


class _PageScanner(HTMLParser):
    """Inline scripts (their exact text), inline event handlers, javascript: URLs, inline styles."""

    def __init__(self) -> None:
        # Character references are decoded in text and attributes, never inside <script>, whose
        # text reaches handle_data exactly as written: what the browser hashes.
        super().__init__(convert_charrefs=True)
        self.found: list[InlineCode] = []
        self._script: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name, value in values.items():
            if name.startswith("on"):
                self.found.append(InlineCode("handler", f"<{tag} {name}={value!r}>"))
            elif name in ("href", "src", "action", "formaction") and value.strip().lower().startswith(
                "javascript:"
            ):
                self.found.append(InlineCode("javascript-url", f"<{tag} {name}={value!r}>"))
            elif name == "style":
                self.found.append(InlineCode("style", f"<{tag} style={value!r}>"))
        if tag == "style":
            self.found.append(InlineCode("style", "<style> element"))
        if tag == "script" and "src" not in values and values.get("type", "").strip().lower() in JS_TYPES:
            self._script = []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.found.append(InlineCode("script", "".join(self._script)))
            self._script = None


def inline_code(html: str) -> list[InlineCode]:
    scanner = _PageScanner()
    scanner.feed(html)
    scanner.close()
    return scanner.found


def html_files(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if DEPLOY_DIR not in p.relative_to(site).parts)


Scan = dict[str, list[InlineCode]]
"""What :func:`scan` found: each page's inline code, by its path relative to the site."""


def scan(site: Path) -> Scan:
    """Every built page (redirect pages included), parsed once."""
    return {
        page.relative_to(site).as_posix(): inline_code(page.read_text(encoding="utf-8"))
        for page in html_files(site)
    }


def site_script_hashes(site: Path, scanned: Scan | None = None) -> set[str]:
    """The hash of every inline script of every built page (redirect pages included)."""
    scanned = scan(site) if scanned is None else scanned
    return {script_hash(item.text) for items in scanned.values() for item in items if item.kind == "script"}


def check_site(site: Path, policy: str, scanned: Scan | None = None) -> list[str]:
    """Every way a built page would break under ``policy`` (empty when none)."""
    allowed = set(parse_policy(policy).get("script-src", []))
    problems = []
    scanned = scan(site) if scanned is None else scanned
    for where, items in scanned.items():
        for item in items:
            if item.kind == "script":
                if script_hash(item.text) not in allowed:
                    problems.append(
                        f"{where}: inline script {script_hash(item.text)} is not in script-src: {item.text[:80]!r}"
                    )
            elif item.kind == "style":
                problems.append(f"{where}: inline style is not allowed by style-src 'self': {item.text[:80]}")
            else:
                problems.append(f"{where}: {item.kind} cannot be allowed by a hash: {item.text[:80]}")
    return problems


# --------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Rules:
    """What every response gets, and the Cache-Control of each group of paths."""

    base_path: str  # "/" or "/harness/": the path of SITE_URL
    headers: dict[str, str]  # every response
    immutable_files: tuple[str, ...]  # site-relative paths of fingerprinted files
    immutable_dirs: tuple[str, ...]  # site-relative folders (ending in /)
    editions: tuple[str, ...]  # site-relative roots of the non-default editions ("en/")


def rules_for(site: Path, site_url: str, editions: Iterable[str] = (), scanned: Scan | None = None) -> Rules:
    hashes = site_script_hashes(site, scanned)
    headers = {"Content-Security-Policy": content_security_policy(hashes), **SECURITY_HEADERS}
    files, dirs = [], set()
    for path in sorted(site.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(site).as_posix()
        if FINGERPRINTED.match(relative):
            files.append(relative)
        match = PYODIDE_DIR.match(relative)
        if match:
            dirs.add(match.group(0))
    base_path = urlsplit(site_url).path or "/"
    if not base_path.endswith("/"):
        base_path += "/"
    if urlsplit(site_url).scheme.lower() == "https" and base_path == "/":
        headers["Strict-Transport-Security"] = HSTS
    return Rules(
        base_path, headers, tuple(files), tuple(sorted(dirs)), tuple(f"{e.strip('/')}/" for e in editions)
    )


def netlify_headers(rules: Rules) -> str:
    """``_headers`` (Netlify, Cloudflare Pages): every path gets the security headers.

    Its paths are those of the uploaded folder, which both hosts serve at their own root, so
    the site's path (``/harness/`` of its address) is not in them: with it no rule matched, and
    a site under a sub-path got no header at all. Cache-Control is set only on the immutable
    files: both hosts already answer everything else with ``max-age=0, must-revalidate``
    (revalidation), and a second Cache-Control rule matching the same path would be joined to
    the first, not replace it.
    """
    base = "/"
    lines = ["# Generated at build time by deploy/headers.py (hooks/publish.py). Do not edit.", f"{base}*"]
    lines += [f"  {name}: {value}" for name, value in rules.headers.items()]
    for directory in rules.immutable_dirs:
        lines += [f"{base}{directory}*", f"  Cache-Control: {IMMUTABLE}"]
    for file in rules.immutable_files:
        lines += [f"{base}{file}", f"  Cache-Control: {IMMUTABLE}"]
    return "\n".join(lines) + "\n"


def _nginx_quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def nginx_headers(rules: Rules) -> str:
    """The ``server``-level include: one ``location`` per caching group, each with all headers.

    nginx drops every inherited ``add_header`` in a block that has one of its own, so each
    location repeats the full set (this file is generated; the repetition costs nothing). The
    security headers go on every answer (``always``); a year's caching only on a success or a
    redirect (no ``always``), so that a 403 or 404 under the immutable paths is never kept.

    A moved page's ``return 301`` (``nginx-redirects.conf``) gets the same headers, revalidated,
    inside its own location (:func:`nginx_redirects_with_headers`): not on the ``server``, where
    every other location of a host's server block would inherit the book's policy.
    """
    base = rules.base_path

    block = functools.partial(_nginx_location, rules)
    out = ["# Generated at build time by deploy/headers.py (hooks/publish.py). Do not edit.", ""]
    out += block(base, REVALIDATE, [f"error_page 404 {base}404.html;"])
    for edition in rules.editions:
        out += block(f"{base}{edition}", REVALIDATE, [f"error_page 404 {base}{edition}404.html;"])
    for directory in rules.immutable_dirs:
        out += block(f"^~ {base}{directory}", IMMUTABLE)
    for file in rules.immutable_files:
        out += block(f"= {base}{file}", IMMUTABLE)
    return "\n".join(out) + "\n"


def _nginx_location(rules: Rules, match: str, cache_control: str, extra: Iterable[str] = ()) -> list[str]:
    """The lines of one ``location`` with every header of ``rules`` and ``cache_control`` (with
    ``always`` unless it is the year's caching), then ``extra``."""
    lines = [f"location {match} {{"]
    lines += [f"    add_header {name} {_nginx_quote(value)} always;" for name, value in rules.headers.items()]
    always = "" if cache_control == IMMUTABLE else " always"
    lines.append(f"    add_header Cache-Control {_nginx_quote(cache_control)}{always};")
    lines += [f"    {line}" for line in extra]
    lines.append("}")
    return lines


_REDIRECT = re.compile(r"^location (?P<match>[^{]+) \{ (?P<return>return 301 [^;]+;) \}$", re.MULTILINE)


def nginx_redirects_with_headers(text: str, rules: Rules) -> str:
    """``nginx-redirects.conf`` (written by hooks/moved.py, one ``location = ... { return 301
    ...; }`` a line) with the production headers in each of its locations, revalidated: a
    location without an ``add_header`` of its own would send none of them."""
    return _REDIRECT.sub(
        lambda match: "\n".join(_nginx_location(rules, match["match"], REVALIDATE, [match["return"]])), text
    )


# --------------------------------------------------------------------------- compression


def compressible(site: Path) -> Iterator[Path]:
    for path in sorted(site.rglob("*")):
        relative = path.relative_to(site)
        if (
            path.suffix in COMPRESSIBLE
            and path.is_file()
            and DEPLOY_DIR not in relative.parts
            and path.stat().st_size >= MIN_COMPRESS_BYTES
        ):
            yield path


GZIP_LEVEL = 9
CACHE_DAYS = 14
"""A cached ``.gz`` (see :func:`write_gzip`) not used by any build for this many days is removed."""


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


def _cached_gzip(data: bytes, cache: Path) -> bytes:
    """``_gzip(data)``, kept in ``cache`` under the hash of ``data``.

    A build that finds the entry another build is writing waits for it (one lock per entry),
    so two builds at the same time compress each file once. An entry is written whole or not
    at all (written beside, then renamed), and is used only when it decompresses to ``data``:
    a damaged entry is written again, never served.
    """
    key = hashlib.sha256(data).hexdigest()
    entry = cache / f"{key}.gz{GZIP_LEVEL}"
    with open(cache / f"{key}.lock", "w") as lock:
        if fcntl is not None:  # elsewhere (Windows) two builds at once may both compress a file
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            kept = entry.read_bytes()
            if gzip.decompress(kept) == data:
                os.utime(entry)  # used: kept from pruning
                return kept
        except (OSError, EOFError, zlib.error, gzip.BadGzipFile):
            pass  # missing or damaged: written below
        compressed = _gzip(data)
        partial = entry.with_name(f"{entry.name}.{os.getpid()}.{threading.get_ident()}.partial")
        partial.write_bytes(compressed)
        os.replace(partial, entry)
        return compressed


def prune_gzip_cache(cache: Path, days: float = CACHE_DAYS) -> int:
    """Remove the entries of ``cache`` (and their locks) no build has used for ``days``;
    how many entries went."""
    cutoff = time.time() - days * 86400
    removed = 0
    for entry in cache.glob(f"*.gz{GZIP_LEVEL}"):
        try:
            if entry.stat().st_mtime < cutoff:
                entry.unlink()
                removed += 1
        except FileNotFoundError:
            continue  # another build pruned it first
    for lock in cache.glob("*.lock"):
        if not lock.with_suffix(f".gz{GZIP_LEVEL}").exists():
            lock.unlink(missing_ok=True)
    for partial in cache.glob("*.partial"):  # left by a build that was killed while writing
        with contextlib.suppress(FileNotFoundError):
            if partial.stat().st_mtime < time.time() - 3600:
                partial.unlink()
    return removed


def _write_gzip_of(path: Path, cache: Path | None = None) -> None:
    data = path.read_bytes()
    target = path.with_name(path.name + ".gz")
    target.write_bytes(_gzip(data) if cache is None else _cached_gzip(data, cache))
    os.utime(target, (path.stat().st_atime, path.stat().st_mtime))  # gzip_static serves the file's date


def write_gzip(site: Path, cache: Path | None = None) -> int:
    """Write ``<file>.gz`` (level 9, no timestamp: the same bytes every build) beside each file.

    The files are compressed on one thread per core (zlib releases the GIL): the 9 MB wasm
    alone takes about a second at level 9. With ``cache`` (a folder), each compressed file is
    also kept there under the hash of its content, and a build that finds a file's entry uses
    it: most of the site's bytes (Pyodide, Material's assets) are the same in every build, and
    in the two builds the tests make at the same time (:func:`_cached_gzip`). Entries unused
    for :data:`CACHE_DAYS` are then removed.
    """
    todo = []
    for path in compressible(site):
        target = path.with_name(path.name + ".gz")
        if target.exists() and target.stat().st_mtime >= path.stat().st_mtime:
            continue  # written for this very file (same date) by an earlier run
        todo.append(path)
    todo.sort(key=lambda path: -path.stat().st_size)  # the largest first, so no thread finishes last alone
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(lambda path: _write_gzip_of(path, cache), todo))
    if cache is not None:
        prune_gzip_cache(cache)
    return len(todo)


# --------------------------------------------------------------------------- the entry point


def write_all(
    site: Path,
    site_url: str,
    editions: Iterable[str] = (),
    compress: bool = True,
    gzip_cache: Path | None = None,
) -> list[str]:
    """Write ``_headers`` and the nginx includes, then check every page against the policy.

    ``compress``: write the ``.gz`` copies too (:func:`write_gzip`, with ``gzip_cache``).

    Returns the problems :func:`check_site` found in the policy as written (empty when none).
    """
    scanned = scan(site)
    rules = rules_for(site, site_url, editions, scanned)
    (site / HEADERS_FILE).write_text(netlify_headers(rules), encoding="utf-8")
    (site / DEPLOY_DIR).mkdir(exist_ok=True)
    (site / NGINX_HEADERS).write_text(nginx_headers(rules), encoding="utf-8")
    redirects = site / NGINX_REDIRECTS
    if redirects.exists():
        text = redirects.read_text(encoding="utf-8")
        redirects.write_text(nginx_redirects_with_headers(text, rules), encoding="utf-8")
    else:
        redirects.write_text("# No redirects.\n", encoding="utf-8")
    if compress:
        write_gzip(site, gzip_cache)
    return check_site(site, written_policy(site), scanned)


def written_policy(site: Path) -> str:
    """The Content-Security-Policy as ``_headers`` states it (what a host will really send)."""
    for line in (site / HEADERS_FILE).read_text(encoding="utf-8").splitlines():
        name, _, value = line.strip().partition(": ")
        if name == "Content-Security-Policy":
            return value
    raise ValueError(f"{site / HEADERS_FILE} has no Content-Security-Policy")


# --------------------------------------------------------------------------- command line


def explain(site: Path) -> list[str]:
    """One line per hash of the policy: the hash, how many pages have that script, its start."""
    pages: dict[str, set[str]] = {}
    starts: dict[str, str] = {}
    for page in html_files(site):
        for item in inline_code(page.read_text(encoding="utf-8")):
            if item.kind == "script":
                digest = script_hash(item.text)
                pages.setdefault(digest, set()).add(page.relative_to(site).as_posix())
                starts[digest] = item.text.strip()[:24]
    return [f"{digest}\t{len(pages[digest])}\t{starts[digest]}" for digest in sorted(pages)]


def main(argv: list[str] | None = None) -> int:
    """``python deploy/headers.py write|check|explain SITE_DIR [SITE_URL]``.

    ``write`` does what the build does last (headers files, .gz copies, check); ``check``
    checks every page against the policy in ``_headers``; ``explain`` lists the policy's hashes.
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="deploy/headers.py", description="The production headers of a built site."
    )
    parser.add_argument("command", choices=["write", "check", "explain"])
    parser.add_argument("site", type=Path)
    parser.add_argument("site_url", nargs="?", default="/")
    args = parser.parse_args(argv)
    if args.command == "explain":
        print("\n".join(explain(args.site)))
        return 0
    if args.command == "write":
        editions = [p.parent.name for p in args.site.glob("*/404.html")]
        problems = write_all(args.site, args.site_url, editions)
    else:
        problems = check_site(args.site, written_policy(args.site))
    for problem in problems:
        print(problem)
    if not problems:
        print(
            f"checked {len(html_files(args.site))} HTML files: every inline script is allowed by the policy in _headers"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
