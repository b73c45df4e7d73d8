"""Benchmarks: the builder's cost and scaling, and the book's build time and page weight.

Run with ``uv run python benchmarks/run.py`` (``--quick`` skips the book and the browser;
``--suite`` also times the test suite, by marker, and reports its Lighthouse scores).
Every figure is taken in one run and reported as a ratio where it matters: these machines
are shared and noisy, so absolute times only describe this run. The table is printed and
written, with the machine and the command, to ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import math
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from harnessbook import build_context_packet, load_schema, validate_request  # noqa: E402
from harnessbook.context_packet import Candidate, ContextPacketRequest  # noqa: E402

Kind = Literal["constraint", "direct-evidence", "history-summary", "reference"]

SIZES = (1_000, 10_000, 100_000)
BASELINE_SIZE = 10_000
KINDS: tuple[Kind, ...] = ("constraint", "direct-evidence", "history-summary", "reference")

TARGETS = {
    "slope": 1.1,
    "floor_ratio": 10.0,
    "pydantic_ratio": 5.0,
    "memory_ratio": 2.0,
    "page_kb": 400.0,
}
# Wall time of the test commands (issue 14), in seconds; "whole" is `uv run pytest`.
SUITE_TARGETS_S = {"not browser": 30.0, "docs": 10.0, "whole": 300.0}


# --- the workload ------------------------------------------------------------------------


def make_request(n: int, seed: int = 6) -> ContextPacketRequest:
    """A request of n candidates: mixed kinds, some expired, some over budget with references,
    some history summaries that conflict with fresh current direct evidence."""
    rng = random.Random(seed)
    candidates: list[Candidate] = []
    for i in range(n):
        kind = KINDS[i % 4]
        candidate: Candidate = {
            "id": f"item-{i}",
            "kind": kind,
            "source": f"injected:{kind}",
            "capturedAt": "2026-07-15T09:30:00Z" if i % 2 else "2026-07-15",
            "relevance": "current" if i % 3 else "background",
            "freshness": "expired" if i % 10 == 0 else "fresh",
            "sizeUnits": rng.randint(0, 60),
            "content": "x" * rng.randint(20, 400),
        }
        if i % 5 == 0:
            candidate["reference"] = f"artifact://items/{i}.txt"
        if kind == "history-summary" and i >= 3:
            # i - 1 is a direct-evidence candidate: a conflict whenever that one is fresh and current.
            candidate["conflictsWith"] = [f"item-{i - 1}"]
        candidates.append(candidate)
    return {
        "taskAnchor": {
            "goal": "locate the single failing test",
            "stopCondition": "stop when no traceable direct evidence is left",
            "verificationTarget": "the injected test name",
        },
        # Roughly a third of the total size fits: every rule gets exercised.
        "budgetUnits": n * 10,
        "candidates": candidates,
    }


def floor(request: ContextPacketRequest) -> int:
    """The floor: read each required field of each candidate once, and nothing else."""
    total = 0
    anchor = request["taskAnchor"]
    total += len(anchor["goal"]) + len(anchor["stopCondition"]) + len(anchor["verificationTarget"])
    for candidate in request["candidates"]:
        candidate["id"]
        candidate["kind"]
        candidate["relevance"]
        candidate["freshness"]
        candidate["content"]
        total += candidate["sizeUnits"]
    return total


def pydantic_validator() -> Callable[[object], Any]:
    """Pydantic's strict validation of TypedDicts equivalent to the request's contract."""
    from typing import Annotated, NotRequired

    from pydantic import ConfigDict, Field, TypeAdapter, with_config
    from typing_extensions import TypedDict

    NonBlank = Annotated[str, Field(pattern=r"\S")]
    config = ConfigDict(extra="forbid", strict=True)

    @with_config(config)
    class TaskAnchor(TypedDict):
        goal: NonBlank
        stopCondition: NonBlank
        verificationTarget: NonBlank

    @with_config(config)
    class Candidate(TypedDict):
        id: NonBlank
        kind: Literal["constraint", "direct-evidence", "history-summary", "reference"]
        source: NotRequired[str | None]
        capturedAt: NotRequired[str | None]
        relevance: Literal["current", "background"]
        freshness: Literal["fresh", "expired"]
        sizeUnits: Annotated[int, Field(ge=0)]
        content: str
        reference: NotRequired[str]
        conflictsWith: NotRequired[NonBlank | list[NonBlank]]

    @with_config(config)
    class Request(TypedDict):
        taskAnchor: TaskAnchor
        budgetUnits: Annotated[int, Field(gt=0)]
        candidates: list[Candidate]

    return TypeAdapter(Request).validate_python


def jsonschema_validator() -> Callable[[object], Any]:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema("request")).validate


# --- measuring ---------------------------------------------------------------------------


def best_time(function: Callable[[], Any], repeat: int) -> float:
    """The best of ``repeat`` runs (the least disturbed by the machine's other work)."""
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


ROUNDS = 5
"""The builder's figures are taken this many times; the report gives each round's median and spread."""
HEADLINES = ("slope", "slope_without_gc", "floor_ratio", "pydantic_ratio", "jsonschema_ratio")


def _median_of(values: list[Any]) -> Any:
    """The median of equal-shaped figures: numbers by value, dicts key by key, the rest as the first."""
    first = values[0]
    if isinstance(first, dict):
        return {key: _median_of([v[key] for v in values]) for key in first}
    if isinstance(first, int | float) and not isinstance(first, bool):
        return statistics.median(values)
    return first


def _spread(rounds: list[dict[str, Any]], keys: Iterable[str]) -> dict[str, tuple[float, float]]:
    """The lowest and highest value of each figure over the rounds."""
    return {key: (min(r[key] for r in rounds), max(r[key] for r in rounds)) for key in keys}


def builder_figures(rounds: int = ROUNDS) -> dict[str, Any]:
    """The builder's figures, measured ``rounds`` times: the median of every figure, and the
    spread (lowest, highest) of the headline ratios, so that one disturbed round cannot turn a
    target from met to missed."""
    taken = [builder_round() for _ in range(rounds)]
    figures: dict[str, Any] = _median_of(taken)
    figures["rounds"] = rounds
    figures["spread"] = _spread(taken, HEADLINES)
    return figures


def builder_round() -> dict[str, Any]:
    figures: dict[str, Any] = {"sizes": {}, "breakdown": {}}
    for n in SIZES:
        request = make_request(n)
        repeat = 7 if n < 100_000 else 3
        build = functools.partial(build_context_packet, request)
        seconds = best_time(build, repeat)
        # Where the time goes, measured right beside it: validation alone, and the same build
        # with the cyclic garbage collector paused (its full passes walk the whole heap).
        validate_s = best_time(functools.partial(validate_request, request), repeat)
        gc.disable()
        try:
            no_gc_s = best_time(build, repeat)
        finally:
            gc.enable()
        result = build_context_packet(request)
        figures["sizes"][n] = {
            "seconds": seconds,
            "us_per_candidate": seconds / n * 1e6,
            "selected": len(result["packet"]["selected"]),
            "pointers": len(result["packet"]["pointers"]),
            "excluded": len(result["excluded"]),
            "refresh": len(result["refresh"]),
        }
        figures["breakdown"][n] = {
            "validate_share": validate_s / seconds,
            "gc_share": max(0.0, 1 - no_gc_s / seconds),
            "no_gc_seconds": no_gc_s,
            "no_gc_us_per_candidate": no_gc_s / n * 1e6,
        }

    def slope(low: float, high: float) -> float:
        return math.log(high / low) / math.log(SIZES[-1] / SIZES[0])

    figures["slope"] = slope(figures["sizes"][SIZES[0]]["seconds"], figures["sizes"][SIZES[-1]]["seconds"])
    figures["slope_without_gc"] = slope(
        figures["breakdown"][SIZES[0]]["no_gc_seconds"], figures["breakdown"][SIZES[-1]]["no_gc_seconds"]
    )

    request = make_request(BASELINE_SIZE)
    builder = best_time(lambda: build_context_packet(request), 9)
    floor_s = best_time(lambda: floor(request), 9)
    validate_pydantic = pydantic_validator()
    validate_pydantic(request)  # warm up, and prove the request is valid for it too
    pydantic_s = best_time(lambda: validate_pydantic(request), 9)
    validate_schema = jsonschema_validator()
    jsonschema_s = best_time(lambda: validate_schema(request), 3)
    figures["baselines"] = {
        "builder": builder,
        "floor": floor_s,
        "pydantic": pydantic_s,
        "jsonschema": jsonschema_s,
    }
    figures["floor_ratio"] = builder / floor_s
    figures["pydantic_ratio"] = builder / pydantic_s
    figures["jsonschema_ratio"] = builder / jsonschema_s
    return figures


def memory_figures() -> dict[str, Any]:
    n = SIZES[-1]
    gc.collect()
    tracemalloc.start()
    request = make_request(n)
    request_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    result = build_context_packet(request)
    peak = tracemalloc.get_traced_memory()[1] - before
    retained = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del result
    return {
        "candidates": n,
        "request_bytes": request_bytes,
        "peak_bytes": peak,
        "result_bytes": retained,
        "memory_ratio": peak / request_bytes,
    }


def _peak_rss_bytes(command: list[str]) -> tuple[int, int]:
    """Peak resident memory of ``command`` (a fresh process), and its exit code."""
    probe = (
        "import resource, subprocess, sys\n"
        "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, code)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, check=True)
    peak, code = out.stdout.split()
    return int(peak), int(code)


def hostile_figures() -> dict[str, Any]:
    """Issue 11: bad input is reported in bounded time, and build's memory is bounded."""
    from harnessbook import InvalidRequestError

    def refused(request: Any) -> int:
        """How many problems the builder finds in ``request`` (it keeps the first 100)."""
        try:
            validate_request(request)
        except InvalidRequestError as error:
            return error.total
        raise AssertionError("the request was accepted")

    empty: dict[str, list[dict[str, Any]]] = {"candidates": [{} for _ in range(100_000)]}
    long_key = {**make_request(10), "k" * 10_000_000: 1}
    figures: dict[str, Any] = {
        "bad_candidates": 100_000,
        "bad_candidates_problems": refused(empty),
        "bad_candidates_seconds": best_time(lambda: refused(empty), 3),
        "long_key_seconds": best_time(lambda: refused(long_key), 3),
        "target_seconds": 1.0,
        "inputs": [],
    }
    script = str(Path(sys.executable).with_name("harnessbook"))
    with tempfile.TemporaryDirectory() as tmp:
        for name, request in (
            ("100,000 candidates (the workload above)", make_request(100_000)),
            (
                "20,000 candidates with 2 KB of content each",
                {
                    **make_request(20_000),
                    "candidates": [{**c, "content": "x" * 2048} for c in make_request(20_000)["candidates"]],
                },
            ),
        ):
            path = Path(tmp) / "request.json"
            path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
            size = path.stat().st_size
            del request
            peak, code = _peak_rss_bytes([script, "build", str(path)])
            figures["inputs"].append(
                {
                    "input": name,
                    "bytes": size,
                    "peak_rss_bytes": peak,
                    "ratio": peak / size,
                    "exit_code": code,
                }
            )
    return figures


def hostile_report(h: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "## Hostile input (issue 11)",
        "",
        f"Validating {h['bad_candidates']:,} empty candidates ({h['bad_candidates_problems']:,} problems, "
        "the first 100 kept and one line for the rest): "
        f"**{h['bad_candidates_seconds']:.2f} s** (target < {h['target_seconds']:.0f} s: "
        f"{verdict(h['bad_candidates_seconds'], h['target_seconds'])}). A request with one unknown key "
        f"of 10^7 characters: {h['long_key_seconds'] * 1e3:.0f} ms.",
        "",
        "Peak resident memory of `harnessbook build FILE` (the whole process, interpreter included; "
        "target ≤ 6× the input):",
        "",
        "| input | size | peak RSS | peak ÷ input | exit code |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in h["inputs"]:
        lines.append(
            f"| {row['input']} | {row['bytes'] / 2**20:.1f} MiB | {row['peak_rss_bytes'] / 2**20:.0f} MiB | "
            f"**{row['ratio']:.1f}×** ({verdict(row['ratio'], 6.0)}) | {row['exit_code']} |"
        )
    lines += [
        "",
        "Many small candidates cost the most per byte: each becomes a dict of eight Python objects, "
        "and the result adds an evidence record and an entry per candidate. Large contents cost "
        "little beyond their text, which the result shares with the request.",
    ]
    return lines


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if completed.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}"
        )
    return seconds, completed.stdout + completed.stderr


def book_figures(site_dir: Path) -> dict[str, Any]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore::DeprecationWarning")
    build_s, _ = _timed(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)], env
    )
    pages = sum(1 for _ in site_dir.rglob("index.html"))
    docs_s, docs_out = _timed([sys.executable, "-m", "pytest", "docs", "-q", "-p", "no:cacheprovider"], env)
    # The run without a browser is timed by --suite alone (three runs, on the caches of the run
    # before): a single run here, right after this build and the builder's figures, gave a figure
    # that disagreed with the suite's and was read as the command's time.
    return {
        "mkdocs_build_seconds": build_s,
        "pages_built": pages,
        "seconds_per_page": build_s / max(pages, 1),
        "pytest_docs_seconds": docs_s,
        "pytest_docs_summary": docs_out.strip().splitlines()[-1],
    }


# The test commands timed by --suite, one after another on an otherwise idle tree. Each row:
# (name, pytest arguments, times run, caches emptied first). "Fresh" empties every cache a fresh
# clone lacks (the two site builds, mypy's cache, the compiled standard library's, the CJK
# fixture), as on CI; the other rows run on the caches the run before them left, as a developer's
# next run does. A row run more than once gives the median and the spread.
SUITE_RUNS: tuple[tuple[str, tuple[str, ...], int, bool], ...] = (
    ("whole", (), 1, True),
    ("not browser, first run", ("-m", "not browser"), 1, True),
    ("not browser", ("-m", "not browser"), 3, False),
    ("browser", ("-m", "browser"), 1, False),
    ("docs", ("docs",), 3, False),
)
FRESH_CACHES = (".cache", ".mypy_cache")
"""What a fresh clone lacks that the test run keeps (relative to the repository; git ignores both)."""


def suite_figures() -> dict[str, Any]:
    """Each of :data:`SUITE_RUNS` timed as ``pytest -q``, with the Lighthouse lines of the
    whole run's closing summary."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore::DeprecationWarning")
    env.pop("HARNESSBOOK_FRESH_SITE", None)
    runs: dict[str, Any] = {}
    for name, args, times, fresh in SUITE_RUNS:
        seconds, lines, exit_codes, failed = [], [], [], []
        for _ in range(times):
            if fresh:
                for cache in FRESH_CACHES:
                    shutil.rmtree(ROOT / cache, ignore_errors=True)
            start = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            seconds.append(time.perf_counter() - start)
            lines = completed.stdout.splitlines()
            exit_codes.append(completed.returncode)
            failed += [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
        runs[name] = {
            "command": " ".join(["uv run pytest", *(f'"{a}"' if " " in a else a for a in args)]),
            "fresh": fresh,
            "seconds": statistics.median(seconds),
            "all_seconds": seconds,
            "summary": lines[-1].strip("= ") if lines else "",
            "exit_code": max(exit_codes, key=abs),
            "failed": failed,
        }
        if name == "whole":
            runs[name]["lighthouse"] = [
                line.split("  report:")[0] for line in lines if line.startswith("lighthouse ")
            ]
    return runs


def page_weight_figures(site_dir: Path) -> dict[str, Any]:
    # The browser tests' own server and Chromium settings (tests/browser/serving.py).
    sys.path.insert(0, str(ROOT))
    from tests.browser.serving import CHROMIUM, launch_chromium, serve

    if not CHROMIUM.exists():
        return {"skipped": f"Chromium is not installed at {CHROMIUM}"}
    from playwright.sync_api import sync_playwright

    server = serve(site_dir)
    base = server.url
    pages = {
        "home (zh)": "",
        "chapter (zh)": "chapters/06-context-packet/",
        "field page (zh)": "reference/request/candidates/kind/",
        "home (en)": "en/",
        "chapter (en)": "en/chapters/06-context-packet/",
        "field page (en)": "en/reference/request/candidates/kind/",
    }
    figures: dict[str, Any] = {}
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            for name, path in pages.items():
                context = browser.new_context()
                page = context.new_page()
                sizes: dict[str, int] = {}

                def on_finished(request: Any, sizes: dict[str, int] = sizes) -> None:
                    response = request.response()
                    body = response.body() if response is not None else b""
                    sizes[request.url.replace(base, "/")] = len(body)

                page.on("requestfinished", on_finished)
                page.goto(base + path, wait_until="networkidle")
                context.close()
                total = sum(sizes.values())
                largest = sorted(sizes.items(), key=lambda item: -item[1])[:4]
                figures[name] = {"bytes": total, "requests": len(sizes), "largest": largest}
            browser.close()
    finally:
        server.close()
    return figures


PLAYGROUND_ROUNDS = 3


# A repeat run timed inside the page, from the click on Run to the panel's run count going up
# (the result drawn): Playwright's own round trips and polling are not part of it.
TIMED_REPEAT = """() => new Promise(resolve => {
  const panel = document.querySelector('[data-playground-runs]');
  const before = panel.getAttribute('data-playground-runs');
  const start = performance.now();
  new MutationObserver((_, observer) => {
    if (panel.getAttribute('data-playground-runs') !== before) {
      observer.disconnect();
      resolve(performance.now() - start);
    }
  }).observe(panel, {attributes: true, attributeFilter: ['data-playground-runs']});
  panel.querySelector('[data-playground-run]').click();
})"""


def playground_figures(site_dir: Path) -> dict[str, Any]:
    """The in-browser playground on the browser tests' server (gzip, as a static host sends it).

    Per round, in a fresh browser profile: the first run timed from the click on "Run in
    browser" (the pointer arrives with the click, so loading starts then); the first run
    when the pointer rests on the control for one second before the click (loading starts on
    that intent); five repeat runs, timed in the page; and a second page in the same profile: its first run,
    whether its runtime started from the snapshot the first page stored, and the runtime files
    it asked the server for (the browser's cache should serve them all).
    """
    sys.path.insert(0, str(ROOT))
    from tests.browser.serving import CHROMIUM, launch_chromium, serve
    from tests.browser.test_playground import OPEN, example_page, page_url, wait_done

    if not CHROMIUM.exists():
        return {"skipped": f"Chromium is not installed at {CHROMIUM}"}
    from playwright.sync_api import sync_playwright

    server = serve(site_dir)
    zh = example_page()
    first, second = page_url(zh), page_url(zh.with_name(zh.name[: -len(".md")] + ".en.md"))
    rounds: list[dict[str, Any]] = []

    def timed_first_run(page: Any, rest: float) -> float:
        control = page.locator(OPEN).first
        control.scroll_into_view_if_needed()
        if rest:
            control.hover()
            page.wait_for_timeout(rest * 1000)
        start = time.perf_counter()
        control.click()
        wait_done(page, 0, timeout=120_000)
        return time.perf_counter() - start

    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            for _ in range(PLAYGROUND_ROUNDS):
                figures: dict[str, Any] = {}
                context = browser.new_context()
                page = context.new_page()
                page.goto(server.url + first, wait_until="networkidle")
                figures["cold_click_s"] = timed_first_run(page, 0)
                repeats = [page.evaluate(TIMED_REPEAT) / 1000 for _ in range(5)]
                figures["repeat_s"] = statistics.median(repeats)
                before = len(server.hits)
                page = context.new_page()
                page.goto(server.url + second, wait_until="networkidle")
                figures["second_page_s"] = timed_first_run(page, 0)
                figures["second_page_runtime_fetches"] = len(
                    [p for p in server.hits[before:] if "/pyodide-" in p]
                )
                figures["second_page_snapshots"] = int(
                    page.evaluate("document.documentElement.dataset.playgroundRuntime") == "snapshot"
                )
                context.close()
                context = browser.new_context()
                page = context.new_page()
                page.goto(server.url + first, wait_until="networkidle")
                figures["cold_intent_s"] = timed_first_run(page, 1.0)
                context.close()
                rounds.append(figures)
            browser.close()
    finally:
        server.close()
    result: dict[str, Any] = _median_of(rounds)
    result["rounds"] = len(rounds)
    result["spread"] = _spread(rounds, rounds[0])
    result["second_page_snapshot_rounds"] = sum(r["second_page_snapshots"] for r in rounds)
    return result


LIGHTHOUSE_RUNS = 3
QUIET_PERFORMANCE_TARGET = 98  # issue 14: mobile performance in a quiet run


def lighthouse_figures(site_dir: Path) -> dict[str, Any]:
    """Lighthouse (mobile) on the pages the browser tests audit, in a quiet run: one audit at a
    time, nothing else running, on the tests' server (gzip). Each page is audited
    :data:`LIGHTHOUSE_RUNS` times; its figures are the median run's, with the spread.
    """
    sys.path.insert(0, str(ROOT))
    from tests.browser.serving import CHROMIUM, CHROMIUM_ARGS, serve
    from tests.browser.test_lighthouse import EDITIONS, PAGES, broken, lighthouse_tool, run_lighthouse

    if not CHROMIUM.exists():
        return {"skipped": f"Chromium is not installed at {CHROMIUM}"}
    node = shutil.which("node")
    lh = lighthouse_tool(ROOT / "tools", node, str(CHROMIUM), list(CHROMIUM_ARGS)) if node else None
    if lh is None:
        return {"skipped": "Node.js or Lighthouse is not installed (npm ci --prefix tools)"}
    server = serve(site_dir)
    pages: dict[str, Any] = {}
    versions = set()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for edition, prefix in EDITIONS.items():
                for name, rel in PAGES.items():
                    runs = []
                    for n in range(LIGHTHOUSE_RUNS):
                        report = run_lighthouse(
                            lh, server.url + prefix + rel, Path(tmp) / f"{edition}-{name}-{n}"
                        )
                        audits = report["audits"]
                        versions.add(report["lighthouseVersion"])
                        runs.append(
                            {
                                "performance": round(report["categories"]["performance"]["score"] * 100),
                                "others": min(
                                    round(report["categories"][c]["score"] * 100)
                                    for c in ("accessibility", "best-practices", "seo")
                                ),
                                "fcp_s": audits["first-contentful-paint"]["numericValue"] / 1000,
                                "tbt_ms": audits["total-blocking-time"]["numericValue"],
                                "benchmark_index": report["environment"].get("benchmarkIndex"),
                                "broken": broken(report),
                            }
                        )
                    median = sorted(runs, key=lambda run: run["performance"])[len(runs) // 2]
                    pages[f"{edition} {name}"] = {
                        "url": "/" + prefix + rel,
                        **median,
                        "performance_runs": [run["performance"] for run in runs],
                        "others_min": min(run["others"] for run in runs),
                        "broken": sorted({problem for run in runs for problem in run["broken"]}),
                    }
    finally:
        server.close()
    return {"runs": LIGHTHOUSE_RUNS, "pages": pages, "version": ", ".join(sorted(versions))}


def lighthouse_report(quiet: dict[str, Any]) -> list[str]:
    """The section of RESULTS.md on the quiet Lighthouse run."""
    lines = ["", "## Lighthouse, quiet", ""]
    if "skipped" in quiet:
        return [*lines, f"Not measured: {quiet['skipped']}."]
    lines += [
        f"Lighthouse {quiet.get('version', '12')}, mobile preset (simulated throttling), on the tests' server with gzip. One "
        f"audit at a time with nothing else running; each page audited {quiet['runs']} times, and "
        "its row is the median run (by performance score). Target: performance ≥ "
        f"{QUIET_PERFORMANCE_TARGET} on every page; accessibility, best practices and SEO 100.",
        "",
        "| page | performance (median) | every run | target | FCP | TBT | lowest other score | benchmark index |",
        "|---|---:|---|---|---:|---:|---:|---:|",
    ]
    for name, row in quiet["pages"].items():
        lines.append(
            f"| {name} (`{row['url']}`) | {row['performance']} | {row['performance_runs']} | "
            f"≥ {QUIET_PERFORMANCE_TARGET}: {verdict(row['performance'], QUIET_PERFORMANCE_TARGET, lower_is_better=False)} | "
            f"{row['fcp_s']:.2f} s | {row['tbt_ms']:.0f} ms | {row['others_min']} | {row['benchmark_index']} |"
        )
    unmeasured = [
        f"- {name}: {problem}" for name, row in quiet["pages"].items() for problem in row.get("broken", [])
    ]
    if unmeasured:
        lines += ["", "What Lighthouse could not measure (the test suite fails on these):", "", *unmeasured]
    return lines


# --- reporting ---------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), "
        f"Python {platform.python_version()}"
    )


def verdict(value: float, target: float, lower_is_better: bool = True) -> str:
    ok = value <= target if lower_is_better else value >= target
    return "met" if ok else "MISSED"


def spread(b: dict[str, Any], key: str, fmt: str) -> str:
    low, high = b["spread"][key]
    return f"{low:{fmt}} to {high:{fmt}} over {b['rounds']} rounds"


def suite_report(suite: dict[str, Any]) -> list[str]:
    """The section of RESULTS.md on the test commands of --suite and their Lighthouse lines."""
    lines = [
        "",
        "## The test suite and Lighthouse",
        "",
        f"Each command run as `python -m pytest -q -p no:cacheprovider` (so the workers' files are "
        f"ordered by `tests/file_seconds.json` alone), one after another, on {os.cpu_count()} cores "
        "with one pytest-xdist worker each. A fresh run starts with the caches a fresh clone lacks "
        f"emptied ({', '.join(f'`{c}`' for c in FRESH_CACHES)}: both strict site builds, mypy's "
        "cache, the compiled standard library's check), as on CI; the others reuse what the run "
        "before them left, as a developer's next run does. A command run more than once gives the "
        "median and the range.",
        "",
        "| command | caches | wall time | outcome | target |",
        "|---|---|---:|---|---|",
    ]
    for name, run in suite.items():
        target = SUITE_TARGETS_S.get(name.split(",")[0])  # a first run has its command's target
        times = run.get("all_seconds", [run["seconds"]])
        wall = (
            f"{run['seconds']:.1f} s ({min(times):.1f} to {max(times):.1f} over {len(times)} runs)"
            if len(times) > 1
            else f"{run['seconds']:.0f} s"
        )
        lines.append(
            f"| `{run['command']}` | {'emptied' if run.get('fresh') else 'kept'} | {wall} | "
            f"{run['summary']} (exit {run['exit_code']}) | "
            + (f"≤ {target:.0f} s: {verdict(run['seconds'], target)}" if target else "")
            + " |"
        )
    failed = [line for run in suite.values() for line in run.get("failed", [])]
    if failed:
        lines += ["", "Failed in these runs:", "", *(f"- `{line}`" for line in failed)]
    lines += [
        "",
        "Lighthouse 12 (mobile, simulated throttling) in the whole run, while the other test "
        "worker ran the rest of the suite (target: performance ≥ 95 in parallel, ≥ 98 quiet):",
        "",
        *(f"- {line}" for line in suite.get("whole", {}).get("lighthouse", [])),
    ]
    return lines


SECTION_NAMES = {
    "book": "the book's build",
    "page_weight": "page weight",
    "playground": "the playground",
    "lighthouse_quiet": "Lighthouse on a quiet machine",
    "suite": "the test suite (`--suite`)",
}
"""The sections only a full run measures (``--quick`` skips them; the suite needs ``--suite``)."""


def report(figures: dict[str, Any], command: str) -> str:
    b = figures["builder"]
    lines = [
        "# Benchmark results",
        "",
        f"Taken {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine()}.",
        f"Command: `{command}`. The builder's figures are the median of {b['rounds']} rounds, each "
        "taking the best of several runs; a ratio compares figures of the same round, and the range "
        "after a headline figure is its spread (lowest to highest round).",
        *(
            [
                "",
                "Not measured by this command, kept from the last run that measured them: "
                + ", ".join(SECTION_NAMES[key] for key in figures["kept"])
                + ".",
            ]
            if figures.get("kept")
            else []
        ),
        "",
        "## Builder throughput and scaling",
        "",
        "| candidates | time (median) | per candidate | selected | pointers | excluded | refresh |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, row in b["sizes"].items():
        lines.append(
            f"| {n:,} | {row['seconds'] * 1e3:.1f} ms | {row['us_per_candidate']:.2f} µs | "
            f"{row['selected']:,} | {row['pointers']:,} | {row['excluded']:,} | {row['refresh']:,} |"
        )
    base = b["baselines"]
    lines += [
        "",
        f"Scaling exponent (log-log slope, {SIZES[0]:,} → {SIZES[-1]:,}): **{b['slope']:.3f}** "
        f"({spread(b, 'slope', '.3f')}; target ≤ {TARGETS['slope']}: {verdict(b['slope'], TARGETS['slope'])}).",
        "",
        "Where the time goes (same run):",
        "",
        "| candidates | validation | garbage collector | per candidate with the collector paused |",
        "|---:|---:|---:|---:|",
        *(
            f"| {n:,} | {row['validate_share']:.0%} | {row['gc_share']:.0%} "
            f"| {row['no_gc_us_per_candidate']:.2f} µs |"
            for n, row in b["breakdown"].items()
        ),
        "",
        f"With the collector paused the slope is {b['slope_without_gc']:.3f} "
        f"({spread(b, 'slope_without_gc', '.3f')}). The builder allocates "
        "a few small dicts per candidate (its evidence record and its selected, pointer or excluded "
        "entry), and CPython's cyclic collector makes full passes over a heap that grows with the "
        "request: that is the first part of the rise per candidate. The rest is most likely the "
        "working set: the largest request alone is tens of MiB, far beyond the CPU caches, while the "
        "smallest fits in them. The work itself is linear (tests/test_scaling.py counts calls: 4× the "
        "candidates, 4× the calls). The builder does not pause the collector: that would be a "
        "process-wide side effect of a pure function.",
        "",
        f"### Baselines on the same {BASELINE_SIZE:,}-candidate request",
        "",
        "| what | time (median) | builder ÷ this | target |",
        "|---|---:|---:|---|",
        f"| the whole builder, timed once more before the baselines (every ratio's numerator) | {base['builder'] * 1e3:.2f} ms | 1.00 | |",
        f"| floor: read each required field once | {base['floor'] * 1e3:.2f} ms | {b['floor_ratio']:.2f} "
        f"({spread(b, 'floor_ratio', '.2f')}) | "
        f"≤ {TARGETS['floor_ratio']:.0f}: {verdict(b['floor_ratio'], TARGETS['floor_ratio'])} |",
        f"| pydantic strict validation (TypedDicts) | {base['pydantic'] * 1e3:.2f} ms "
        f"| {b['pydantic_ratio']:.2f} ({spread(b, 'pydantic_ratio', '.2f')}) | "
        f"≤ {TARGETS['pydantic_ratio']:.0f}: {verdict(b['pydantic_ratio'], TARGETS['pydantic_ratio'])} |",
        f"| jsonschema, the package's request schema | {base['jsonschema'] * 1e3:.2f} ms "
        f"| {b['jsonschema_ratio']:.3f} ({spread(b, 'jsonschema_ratio', '.3f')}) | |",
        "",
        "The floor only reads six keys per candidate. The builder also checks about a dozen "
        "conditions per candidate (types, enums, blanks, timestamps, duplicate ids), sorts by tier "
        "and writes two new dicts per candidate; in pure Python that cannot come within 10× of "
        "six dict reads. Against what a user would otherwise run merely to validate (pydantic's "
        "compiled validator), the whole builder costs the ratio above.",
    ]
    m = figures["memory"]
    lines += [
        "",
        "## Memory",
        "",
        f"{m['candidates']:,} candidates: the request takes {m['request_bytes'] / 2**20:.1f} MiB; "
        f"building the packet peaks at {m['peak_bytes'] / 2**20:.1f} MiB above it "
        f"(**{m['memory_ratio']:.2f}×** the request; target ≤ {TARGETS['memory_ratio']:.0f}×: "
        f"{verdict(m['memory_ratio'], TARGETS['memory_ratio'])}); the result keeps "
        f"{m['result_bytes'] / 2**20:.1f} MiB (tracemalloc; strings are shared, not copied).",
    ]
    if "hostile" in figures:
        lines += hostile_report(figures["hostile"])
    book = figures.get("book")
    if book:
        lines += [
            "",
            "## The book",
            "",
            "One run each: a build, then `pytest docs` on the site the tests keep. Every test command's"
            " time, with repeats, is in [The test suite and Lighthouse](#the-test-suite-and-lighthouse)"
            " (measured by `--suite`).",
            "",
            "| what | wall time |",
            "|---|---:|",
            f"| `mkdocs build --strict` ({book['pages_built']} pages, both editions) | "
            f"{book['mkdocs_build_seconds']:.1f} s ({book['seconds_per_page'] * 1e3:.0f} ms a page) |",
            f"| `pytest docs` ({book['pytest_docs_summary']}) | {book['pytest_docs_seconds']:.1f} s |",
        ]
    weight = figures.get("page_weight")
    if weight:
        lines += ["", "## Page weight (first load, no playground click, uncompressed bytes)", ""]
        if "skipped" in weight:
            lines.append(f"Not measured: {weight['skipped']}.")
        else:
            lines += ["| page | requests | bytes | target | largest items |", "|---|---:|---:|---|---|"]
            for name, row in weight.items():
                largest = ", ".join(f"`{url}` {size / 1024:.0f} KB" for url, size in row["largest"])
                kb = row["bytes"] / 1024
                lines.append(
                    f"| {name} | {row['requests']} | {kb:.0f} KB | ≤ {TARGETS['page_kb']:.0f} KB: "
                    f"{verdict(kb, TARGETS['page_kb'])} | {largest} |"
                )
    quiet = figures.get("lighthouse_quiet")
    if quiet:
        lines += lighthouse_report(quiet)
    suite = figures.get("suite")
    if suite:
        lines += suite_report(suite)
    play = figures.get("playground")
    if play:
        lines += ["", "## The in-browser playground", ""]
        if "skipped" in play:
            lines.append(f"Not measured: {play['skipped']}.")
        else:

            def seconds(key: str) -> str:
                low, high = play["spread"][key]
                return f"{play[key]:.2f} s ({low:.2f} to {high:.2f})"

            lines += [
                f"Median of {play['rounds']} rounds, each in a fresh browser profile, on the test "
                "server with gzip; the range is the spread over the rounds.",
                "",
                "| what | time | target |",
                "|---|---:|---|",
                f"| first run, timed from the click | {seconds('cold_click_s')} | ≤ 2.5 s: "
                f"{verdict(play['cold_click_s'], 2.5)} |",
                f"| first run, pointer on the control 1 s before the click | {seconds('cold_intent_s')} | |",
                f"| a repeat run, click to drawn result, timed in the page (median of 5) | {seconds('repeat_s')} | ≤ 0.1 s: "
                f"{verdict(play['repeat_s'], 0.1)} |",
                f"| first run on a second page, same browser | {seconds('second_page_s')} | ≤ 2.5 s: "
                f"{verdict(play['second_page_s'], 2.5)} |",
                "",
                f"Runtime files the second page fetched from the server: "
                f"{play['second_page_runtime_fetches']:.0f} (the browser's cache served the rest). "
                f"Its runtime started from the snapshot the first page stored in "
                f"{play['second_page_snapshot_rounds']} of {play['rounds']} rounds.",
            ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="the builder only: skip the book and the browser"
    )
    parser.add_argument("--no-write", action="store_true", help="print the table, leave RESULTS.md alone")
    parser.add_argument(
        "--hostile-only",
        action="store_true",
        help="measure only the hostile-input section and replace just that section of RESULTS.md",
    )
    parser.add_argument(
        "--suite",
        action="store_true",
        help="also time the test suite by marker and the pages' examples, and report Lighthouse",
    )
    args = parser.parse_args(argv)
    if args.hostile_only:
        hostile = hostile_figures()
        section = "\n".join(hostile_report(hostile)) + "\n"
        print(section)
        if not args.no_write:
            results = ROOT / "benchmarks" / "RESULTS.md"
            text = results.read_text(encoding="utf-8")
            start = text.find("\n## Hostile input")
            if start != -1:
                end = text.find("\n## ", start + 1)
                text = text[:start] + (text[end:] if end != -1 else "\n")
            at = text.find("\n## The book")
            text = text[:at] + section.rstrip("\n") + "\n" + text[at:] if at != -1 else text + section
            results.write_text(text, encoding="utf-8")
            data = ROOT / "benchmarks" / "results.json"
            stored = json.loads(data.read_text(encoding="utf-8"))
            stored["hostile"] = hostile
            data.write_text(json.dumps(stored, indent=2, default=str) + "\n", encoding="utf-8")
        return 0
    command = (
        "uv run python benchmarks/run.py"
        + (" --quick" if args.quick else "")
        + (" --suite" if args.suite else "")
    )

    figures: dict[str, Any] = {
        "builder": builder_figures(),
        "memory": memory_figures(),
        "hostile": hostile_figures(),
    }
    if not args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            site_dir = Path(tmp) / "site"
            figures["book"] = book_figures(site_dir)
            figures["page_weight"] = page_weight_figures(site_dir)
            figures["playground"] = playground_figures(site_dir)
            figures["lighthouse_quiet"] = lighthouse_figures(site_dir)
            if args.suite:
                figures["suite"] = suite_figures()
    if not args.no_write:
        # What this command did not measure (the book with --quick, the suite without --suite)
        # stays as the last run that measured it left it, and the report says so: a quick run
        # wiped the sections README and CONTRIBUTING cite.
        try:
            stored = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        kept = [key for key in SECTION_NAMES if key not in figures and key in stored]
        figures.update({key: stored[key] for key in kept})
        figures["kept"] = kept
    text = report(figures, command)
    print(text)
    if not args.no_write:
        (ROOT / "benchmarks" / "RESULTS.md").write_text(text, encoding="utf-8")
        (ROOT / "benchmarks" / "results.json").write_text(
            json.dumps(figures, indent=2, default=str) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
