"""Serving the built site and starting Chromium: shared by the browser tests and the benchmark.

``tests/browser/conftest.py`` builds its fixtures on this module, and ``benchmarks/run.py``
measures page weight with the same server and the same Chromium settings, so the two cannot
drift apart.

* :func:`serve`: the fast local server (Python's, in a thread): the right MIME types, text
  gzip-compressed on the fly, every path asked for recorded.
* :class:`Nginx`: the built site behind the real web server, with the project's own
  ``deploy/nginx.conf`` (only its address and site folder changed) and the headers the build
  wrote into ``_deploy/``.
* :data:`CHROMIUM`, :data:`HEADLESS_SHELL`, :data:`CHROMIUM_ARGS`, :func:`launch_chromium`:
  Debian's Chromium, headless, with the flags this closed network needs.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gzip
import http.server
import io
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = Path("/usr/bin/chromium")
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
"""Debian's ``chromium-headless-shell``: the same version of Blink and V8 as :data:`CHROMIUM`,
without the browser's user interface, as Playwright drives by default. The Playwright tests run
on it: visiting twenty playground pages took 55 s of CPU instead of 77 s (measured on this
2-core machine), and the browser tests are CPU-bound. Lighthouse and the benchmark keep the full
browser, whose figures are what a reader's Chromium does."""
# Without the background-networking flags Chromium keeps trying to reach Google's hosts, which
# this closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TEST_BROWSER_ARGS = ["--js-flags=--liftoff-only --no-maglev --no-turbofan"]
"""Added to :data:`CHROMIUM_ARGS` for the Playwright tests' browser, and only there: V8 runs
WebAssembly on its baseline compiler (Liftoff) and JavaScript on its interpreter and baseline
compiler (Ignition, Sparkplug), without the optimizing compilers that recompile hot code on
background threads.

Each page the tests open is a new JavaScript context and, for the playground, a new instance of
Pyodide's 10 MB module, so that recompilation starts over on every page and rarely pays off
before the page is closed. Measured on this 2-core machine, by trace and by ``/proc/stat``:

* WebAssembly: the optimizing ("top-tier") compilation of Pyodide took 0.85 s of CPU a page in
  a trace of six field pages and their 38 examples, more than the worker's own start and runs;
  ``test_playground_examples.py`` went from 198 to 144 s of CPU without it.
  (``--no-wasm-tier-up`` and ``--no-wasm-dynamic-tiering`` do not stop it in this V8.)
* JavaScript: Maglev and Turbofan took 0.25 s of CPU a page while axe-core audited six pages.
  Without them, sixteen field pages with axe-core took 18 s of CPU instead of 21 s, and eight
  pages with their examples 16 to 19 s instead of 21 s, in about the same time.

The results cannot differ: every tier implements the same semantics, and every example is
still compared with CPython's result. Lighthouse, the benchmarks and the three tests that time
the page's main thread (no task may take 200 ms, on ``default_engine_browser``) run without
these flags: their figures are a reader's. Unoptimized, the task that draws a huge result took
31 to 40 ms of thread time instead of 22 to 35 ms, and once 204 ms in a run with three workers."""


def launch_chromium(playwright, executable: Path | str = CHROMIUM, extra_args: Sequence[str] = ()):
    """Debian's Chromium, headless, launched by Playwright's driver with :data:`CHROMIUM_ARGS`
    and ``extra_args``."""
    return playwright.chromium.launch(
        executable_path=str(executable), headless=True, args=[*CHROMIUM_ARGS, *extra_args]
    )


# --------------------------------------------------------------------------- the fast local server


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types a browser needs (``.wasm`` must be application/wasm)."""

    # typeshed declares extensions_map an instance attribute, so no ClassVar here.
    extensions_map = {  # noqa: RUF012
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
        ".mjs": "text/javascript; charset=utf-8",
        ".json": "application/json",
        ".map": "application/json",
        ".xml": "application/xml",
        ".txt": "text/plain; charset=utf-8",
        ".svg": "image/svg+xml",
        ".png": "image/png",
        ".ico": "image/x-icon",
        ".woff": "font/woff",
        ".woff2": "font/woff2",
        ".wasm": "application/wasm",
        ".zip": "application/zip",
        ".whl": "application/zip",
        ".tar": "application/x-tar",
        ".gz": "application/gzip",
        ".py": "text/x-python; charset=utf-8",
        "": "application/octet-stream",
    }

    # Text and WebAssembly are sent gzip-compressed when the browser accepts it, as real static
    # hosts and deploy/nginx.conf do (Lighthouse measures transfer sizes). Files that are
    # compressed already (.zip, images) go as they are. The .wasm matters twice: 9.6 MB sent as
    # it is is too large for the in-memory cache of a Chromium profile without a disk, and a
    # second page would fetch it again; gzip-compressed (3.5 MB) it is cached, as on nginx.
    COMPRESSIBLE = ("text/", "application/json", "application/xml", "image/svg+xml", "application/wasm")
    _gzip_cache: ClassVar[dict[tuple[str, float], bytes]] = {}
    _gzip_lock = threading.Lock()

    def __init__(self, *args, hits: list[str], cache_rules: list[tuple[str, str]], **kwargs) -> None:
        self._hits = hits
        self._cache_rules = cache_rules
        super().__init__(*args, **kwargs)

    def end_headers(self) -> None:
        # The Cache-Control that the build wrote for static hosts (_headers), as they send it.
        path = urlsplit(self.path).path
        control = None
        for pattern, value in self._cache_rules:
            if path == pattern or (pattern.endswith("*") and path.startswith(pattern[:-1])):
                control = value
        if control is not None:
            self.send_header("Cache-Control", control)
        super().end_headers()

    def send_head(self):
        self._hits.append(self.path)
        if "gzip" in self.headers.get("Accept-Encoding", ""):
            compressed = self._send_gzip_head()
            if compressed is not None:
                return compressed
        return super().send_head()

    def _send_gzip_head(self):
        """Headers for a compressed copy of a text file, or None to serve it the usual way."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not urlsplit(self.path).path.endswith("/"):
                return None  # the parent class sends the redirect to "dir/"
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path):
            return None
        ctype = self.guess_type(path)
        if not ctype.startswith(self.COMPRESSIBLE):
            return None
        key = (path, os.path.getmtime(path))
        with self._gzip_lock:
            body = self._gzip_cache.get(key)
            if body is None:
                with open(path, "rb") as f:
                    body = gzip.compress(f.read(), compresslevel=6, mtime=0)
                self._gzip_cache[key] = body
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(int(key[1])))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args) -> None:
        pass

    def handle(self) -> None:
        # The browser may close a connection early.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()


def cache_rules(headers_file: Path) -> list[tuple[str, str]]:
    """``(path pattern, Cache-Control)`` pairs of a Netlify-style ``_headers`` file, in order."""
    rules: list[tuple[str, str]] = []
    pattern = None
    if not headers_file.exists():
        return rules
    for line in headers_file.read_text(encoding="utf-8").splitlines():
        if line.startswith("/"):
            pattern = line.strip()
        elif pattern and line.strip().lower().startswith("cache-control:"):
            rules.append((pattern, line.split(":", 1)[1].strip()))
    return rules


@dataclass
class SiteServer:
    """The built site on http://127.0.0.1:PORT/, served from ``root`` in a background thread."""

    root: Path
    url: str
    hits: list[str]
    httpd: http.server.ThreadingHTTPServer

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve(root: Path) -> SiteServer:
    hits: list[str] = []
    handler = functools.partial(
        SiteHandler, directory=str(root), hits=hits, cache_rules=cache_rules(root / "_headers")
    )
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # port 0: a free port
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, name="site-server", daemon=True).start()
    return SiteServer(root=root, url=f"http://127.0.0.1:{httpd.server_port}/", hits=hits, httpd=httpd)


# --------------------------------------------------------------------------- nginx

NGINX_CONF = ROOT / "deploy" / "nginx.conf"
SITE_PLACEHOLDER = "/srv/harnessbook/current"
"""The site folder deploy/nginx.conf names; :class:`Nginx` puts the built site's folder there."""
INCLUDES_PLACEHOLDER = "/etc/nginx/harnessbook/"
"""The folder of the generated includes deploy/nginx.conf names; the built site's ``_deploy/``
goes there."""


def nginx_executable() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_block(site: Path, port: int) -> str:
    """deploy/nginx.conf with its marked lines changed: listen (the IPv6 one dropped), the site
    folder, and the includes' folder (twice), which becomes the built site's ``_deploy/``."""
    lines, listens, ipv6, folders, includes = [], 0, 0, 0, 0
    for line in NGINX_CONF.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("#"):
            if re.match(r"^\s*listen\s+\[::\]:80;", line):
                ipv6 += 1
                continue
            line, n = re.subn(r"^(\s*)listen\s+80;", rf"\g<1>listen 127.0.0.1:{port};", line)
            listens += n
            folders += line.count(SITE_PLACEHOLDER)
            includes += line.count(INCLUDES_PLACEHOLDER)
            line = line.replace(SITE_PLACEHOLDER, str(site)).replace(INCLUDES_PLACEHOLDER, f"{site}/_deploy/")
        lines.append(line)
    if (listens, ipv6, folders, includes) != (1, 1, 1, 2):
        raise ValueError(
            f"{NGINX_CONF}: expected one `listen 80;`, one `listen [::]:80;`, one {SITE_PLACEHOLDER} and"
            f" two {INCLUDES_PLACEHOLDER}, found {listens}, {ipv6}, {folders} and {includes}"
        )
    return "\n".join(lines)


def main_config(site: Path, port: int, prefix: Path) -> str:
    """A whole nginx.conf around the server block: one foreground process, files under prefix.

    ``master_process off`` keeps nginx in one process as the current user, so it reads the
    test's temporary folders (a root master would hand requests to a ``nobody`` worker).
    """
    return f"""daemon off;
master_process off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{
    worker_connections 256;
}}
http {{
    log_format paths '$status $request_uri';
    access_log {prefix}/access.log paths;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    default_type application/octet-stream;
    sendfile on;
{server_block(site, port)}
}}
"""


class Nginx:
    """``nginx -p <prefix> -c <generated conf>`` in the foreground, serving ``site`` on 127.0.0.1."""

    def __init__(self, site: Path, executable: str, port: int | None = None) -> None:
        self.site = site
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self._dir = tempfile.TemporaryDirectory(prefix="harnessbook-nginx-")
        self.prefix = Path(self._dir.name)
        self.conf = self.prefix / "nginx.conf"
        self.conf.write_text(main_config(site, self.port, self.prefix), encoding="utf-8")
        command = [
            executable,
            "-p",
            str(self.prefix),
            "-e",
            str(self.prefix / "error.log"),
            "-c",
            str(self.conf),
        ]
        check = subprocess.run([*command, "-t"], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused the configuration:\n{check.stderr}")
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        atexit.register(self.close)  # never leave an nginx behind, even when the caller dies
        deadline = time.monotonic() + 15
        while True:
            if self.process.poll() is not None:
                assert self.process.stderr is not None, "nginx runs with stderr=PIPE"
                raise RuntimeError(f"nginx exited ({self.process.returncode}):\n{self.process.stderr.read()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError("nginx did not start listening within 15 s") from None
                time.sleep(0.1)

    def served(self) -> list[str]:
        """Every request nginx has answered so far, as ``"STATUS PATH"`` lines, oldest first."""
        path = self.prefix / "access.log"
        return path.read_text(encoding="utf-8", errors="replace").splitlines() if path.exists() else []

    def error_log(self) -> str:
        path = self.prefix / "error.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def close(self) -> None:
        atexit.unregister(self.close)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._dir.cleanup()
