"""Lighthouse (npm lighthouse@12.8.2, pinned in tools/) on Debian's Chromium, mobile preset,
run by its own command line through tools/lighthouse.mjs (``--serve``: one Node process for the
module's audits, each run as the command line runs it).

Home, the first chapter page and one field page, in both editions: accessibility, best
practices and SEO must score 100; performance must reach 95 beside the rest of the suite (issue
14's target under load), in the best of up to three runs. An audit that misses it is run once
more alone, in a quiet moment of the run (tests/quiet.py: no other test runs meanwhile), and the
test fails when the best run, that one included, is below 90. Otherwise a miss is an expected
failure with its score, its losses and the run alone in the reason, since these machines are
shared and a neighbour's load costs points. The JSON and HTML reports are kept in
artifacts/lighthouse/ (their paths are printed).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest

from tests import quiet

pytestmark = [pytest.mark.browser, pytest.mark.quiet_moments]

PAGES = {
    "home": "",
    "chapter": "chapters/06-context-packet/",
    "field": "reference/request/candidates/kind/",
}
EDITIONS = {"zh": "", "en": "en/"}
REQUIRED = {"accessibility": 1.0, "best-practices": 1.0, "seo": 1.0, "performance": 0.95}
# Performance is measured (Lighthouse's simulated mobile throttling scales the CPU time it
# observes), and these machines are shared and noisy: when only performance misses, the audit
# is repeated, up to this many runs in all, and the best run counts, which is Lighthouse CI's
# default way of asserting over several runs ("optimistic" aggregation). Every run is printed.
PERFORMANCE_RUNS = 3
PERFORMANCE_FLOOR = 0.90
"""Below this, the best of the runs fails the test, the quiet run included."""


class LighthouseProcess:
    """``tools/lighthouse.mjs --serve``: one Node process that runs audit after audit, each
    exactly as the command line runs it (its flags, its own Chrome), so that Lighthouse is
    loaded once (about 1.3 s of CPU an audit otherwise). An audit that fails ends the process,
    as it ends the command line; the next audit starts another."""

    def __init__(self, lh: dict) -> None:
        self._command = [lh["node"], str(lh["cli"]), "--serve"]
        self._env = lighthouse_env(lh)
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - closed by close()

    def _start(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self._stderr.seek(0)
            self._stderr.truncate()
            self._lines = queue.Queue()
            self._process = subprocess.Popen(
                self._command,
                env=self._env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
            )
            lines, stdout = self._lines, self._process.stdout
            assert stdout is not None

            def read() -> None:
                for line in stdout:
                    lines.put(line)
                lines.put(None)  # the process ended

            threading.Thread(target=read, daemon=True).start()
        return self._process

    def run(self, args: list[str], timeout: float) -> tuple[int, str]:
        """Run one audit: its exit code, and what the process printed besides."""
        process = self._start()
        assert process.stdin is not None
        process.stdin.write(json.dumps(args) + "\n")
        process.stdin.flush()
        deadline = time.monotonic() + timeout
        printed: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._stop()  # the next audit starts another process
                return -1, "".join(printed) + f"\n(no answer in {timeout} s)"
            if line is None:  # Lighthouse ended the process, as it ends the command line on an error
                code = process.wait()
                self._stderr.seek(0)
                return code, "".join(printed) + self._stderr.read()
            if line.startswith('{"lighthouse-exit":'):
                return int(json.loads(line)["lighthouse-exit"]), "".join(printed)
            printed.append(line)

    def _stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def close(self) -> None:
        self._stop()
        self._stderr.close()


def run_lighthouse(lh: dict, url: str, out_base: Path) -> dict:
    """One audit of ``url``, its reports at ``out_base``: through ``lh["process"]`` (a
    :class:`LighthouseProcess`) when there is one, else by a command line of its own."""
    out_base.parent.mkdir(parents=True, exist_ok=True)
    report = out_base.with_name(out_base.name + ".report.json")
    report.unlink(missing_ok=True)  # a report left by an earlier run never stands for this one
    flags = " ".join(["--headless", *lh["flags"]])
    args = [
        url,
        "--quiet",
        "--form-factor=mobile",  # Lighthouse's default mobile preset, said explicitly
        "--only-categories=performance,accessibility,best-practices,seo",
        # The picture of the whole page only illustrates the HTML report (no score reads it),
        # and taking it costs about 1.3 s of every run.
        "--disable-full-page-screenshot",
        "--output=json",
        "--output=html",
        f"--output-path={out_base}",
        f"--chrome-flags={flags}",
    ]
    if lh.get("process") is not None:
        code, printed = lh["process"].run(args, timeout=240)
    else:
        # The pinned command line, ended as soon as it is done (see the file); npx would add a
        # process and 0.4 s to every run.
        done = subprocess.run(
            [lh["node"], str(lh["cli"]), *args],
            env=lighthouse_env(lh),
            capture_output=True,
            text=True,
            timeout=240,
        )
        code, printed = done.returncode, done.stdout[-3000:] + "\n" + done.stderr[-3000:]
    assert code == 0 and report.exists(), f"lighthouse failed (exit {code}):\n{printed[-6000:]}"
    return json.loads(report.read_text(encoding="utf-8"))


def lighthouse_env(lh: dict) -> dict[str, str]:
    return dict(os.environ, CHROME_PATH=lh["chromium"])


def losses(report: dict, category: str) -> list[str]:
    """The audits that cost the category points, with what Lighthouse says about them."""
    out = []
    for ref in report["categories"][category]["auditRefs"]:
        audit = report["audits"][ref["id"]]
        if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
            items = (audit.get("details") or {}).get("items") or []
            where = [
                (item.get("node") or {}).get("snippet") or item.get("url") or item.get("source")
                for item in items[:3]
            ]
            out.append(f"  {ref['id']} = {audit['score']} {audit.get('displayValue', '')} {where}")
    return out


def lighthouse_tool(tools_dir: Path, node: str, chromium: str, flags: list[str]) -> dict | None:
    """What :func:`run_lighthouse` runs (also used by benchmarks/run.py), or None when the npm
    tools are not installed."""
    if not (tools_dir / "node_modules" / "lighthouse" / "cli" / "bin.js").is_file():
        return None
    return {"node": node, "cli": tools_dir / "lighthouse.mjs", "chromium": chromium, "flags": flags}


@pytest.fixture(scope="module")
def lh(node, chromium_executable, chromium_flags, tools_dir) -> Iterator[dict]:
    """The pinned Lighthouse, with one Node process for this module's audits (``process``)."""
    tool = lighthouse_tool(tools_dir, node, chromium_executable, chromium_flags)
    if tool is None:
        if os.environ.get("CI"):
            pytest.fail("lighthouse is not installed (npm ci --prefix tools)")
        pytest.skip("lighthouse is not installed: run npm ci --prefix tools")
    process = LighthouseProcess(tool)
    yield dict(tool, process=process)
    process.close()


@pytest.fixture(scope="module")
def axe_rule_ids(lh, tools_dir) -> frozenset[str]:
    """The rules of the axe-core that Lighthouse runs (npm gives it the pinned one in tools/)."""
    done = subprocess.run(
        [lh["node"], "-e", "console.log(JSON.stringify(require('axe-core').getRules().map(r => r.ruleId)))"],
        cwd=tools_dir,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return frozenset(json.loads(done.stdout))


def unchecked(run: dict, axe_rules: frozenset[str]) -> list[str]:
    """Lighthouse's automatic accessibility audits that no axe-core rule runs. Lighthouse scores
    such an audit as passed, so an axe-core upgrade that renames or drops a rule would leave the
    score at 100 without the check."""
    audits = run["audits"]
    return [
        ref["id"]
        for ref in run["categories"]["accessibility"]["auditRefs"]
        if audits[ref["id"]]["scoreDisplayMode"] != "manual" and ref["id"] not in axe_rules
    ]


def timing(runs: list[dict], audit: str) -> str:
    """An audit's figure from the run with the best performance score, as Lighthouse shows it."""
    best = max(runs, key=lambda run: run["categories"]["performance"]["score"] or 0)
    return str(best["audits"][audit].get("displayValue", "?")).replace("\xa0", " ")


def broken(run: dict) -> list[str]:
    """What kept Lighthouse from measuring: its runtime error, and every audit that errored (a
    metric that errors leaves its category's score null, and a Chromium that Lighthouse no longer
    understands shows here first)."""
    problems = []
    if run.get("runtimeError"):
        problems.append(
            f"runtime error {run['runtimeError'].get('code')}: {run['runtimeError'].get('message')}"
        )
    problems += [
        f"audit {audit_id} errored: {audit.get('errorMessage', '?')}"
        for audit_id, audit in run["audits"].items()
        if audit.get("scoreDisplayMode") == "error"
    ]
    problems += [f"{c} has no score" for c in REQUIRED if run["categories"][c]["score"] is None]
    return problems


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("page", PAGES)
def test_lighthouse_mobile(
    page, edition, site_url, site_root, lh, axe_rule_ids, artifacts_dir, browser_report, request
):
    rel = EDITIONS[edition] + PAGES[page]
    if not (site_root / rel / "index.html").is_file():
        pytest.fail(f"the page {rel or '/'} was not built")
    url = urljoin(site_url, rel)
    out_base = artifacts_dir / "lighthouse" / f"{edition}-{page}"

    runs = [run_lighthouse(lh, url, out_base)]
    assert not broken(runs[0]), f"{url}\n" + "\n".join(broken(runs[0]))
    assert unchecked(runs[0], axe_rule_ids) == [], "Lighthouse audits that no axe-core rule runs"
    scores = {c: runs[0]["categories"][c]["score"] for c in REQUIRED}
    perf = [scores["performance"]]
    others_pass = all(scores[c] >= REQUIRED[c] for c in REQUIRED if c != "performance")
    while others_pass and perf[-1] < REQUIRED["performance"] and len(perf) < PERFORMANCE_RUNS:
        runs.append(run_lighthouse(lh, url, out_base))
        assert not broken(runs[-1]), f"{url}\n" + "\n".join(broken(runs[-1]))
        perf.append(runs[-1]["categories"]["performance"]["score"])
    beside = max(perf)
    quiet_score = None
    folder = quiet.folder_of(request.config)
    if others_pass and beside < REQUIRED["performance"] and folder is not None:
        # Missed beside the other worker: once more with no other test running (tests/quiet.py),
        # so that the page, not its neighbour's load, decides whether the test fails.
        with quiet.quiet(folder):
            runs.append(run_lighthouse(lh, url, out_base))
        assert not broken(runs[-1]), f"{url}\n" + "\n".join(broken(runs[-1]))
        quiet_score = runs[-1]["categories"]["performance"]["score"]
    scores["performance"] = beside

    browser_report(
        f"lighthouse {edition} {page} (/{rel}): "
        + ", ".join(f"{c} {round(s * 100)}" for c, s in scores.items())
        + (f" (performance runs: {[round(p * 100) for p in perf]})" if len(perf) > 1 else "")
        + (f", {round(quiet_score * 100)} alone" if quiet_score is not None else "")
        + f"; first contentful paint {timing(runs[: len(perf)], 'first-contentful-paint')}, "
        + f"total blocking time {timing(runs[: len(perf)], 'total-blocking-time')}"
        + f"  report: {out_base}.report.html"
    )
    failed = {c: s for c, s in scores.items() if s is None or s < REQUIRED[c]}
    detail = []
    for category in failed:
        detail.append(f"{category}: {failed[category]}")
        detail.extend(losses(runs[-1], category))
    if "performance" in failed:
        audits = runs[-1]["audits"]
        # Lighthouse names a task after the first script that ran in it. On the field pages the
        # one it calls a11y.js is mostly Material's DOMContentLoaded handler, which runs in the
        # same task right after the last deferred script (a11y.js itself took 5 of 209 ms in a
        # trace at 4x CPU slowdown).
        detail.append(
            "  long tasks, each named after its first script: "
            + ", ".join(
                f"{t['url'].rsplit('/', 1)[-1] or t['url']} {round(t['duration'])} ms"
                for t in (audits["long-tasks"].get("details") or {}).get("items", [])[:6]
            )
        )
        detail.append(f"  benchmark index of this machine: {runs[-1]['environment'].get('benchmarkIndex')}")
        if quiet_score is not None:
            detail.append(f"  alone (no other test running): performance {round(quiet_score * 100)}")
    best = max(beside, quiet_score or 0)
    hard = {c for c in failed if c != "performance" or scores[c] is None or best < PERFORMANCE_FLOOR}
    assert not hard, f"{url}\n" + "\n".join(detail)
    if failed:
        # Accessibility, best practices and SEO are held at 100 above, and performance at 90:
        # the best run, the one alone included, fails below it. Below the target of 95 beside
        # the other worker the best of those runs is reported, with its score, its losses and
        # the run alone, as an expected failure: Lighthouse scales the CPU time it sees, and a
        # neighbour on this shared 2-core machine can cost points (every quiet run since issue
        # 14's work scored 98 or more in the benchmarks; benchmarks/RESULTS.md).
        pytest.xfail(f"performance below 0.95 (issue 14's target): {url}\n" + "\n".join(detail))


def test_broken_names_what_kept_lighthouse_from_measuring():
    scored = {c: {"score": 1} for c in REQUIRED}
    fine = {"categories": scored, "audits": {"first-contentful-paint": {"scoreDisplayMode": "numeric"}}}
    assert broken(fine) == []
    errored = {
        "runtimeError": {"code": "NO_FCP", "message": "The page did not paint any content."},
        "categories": {**scored, "performance": {"score": None}},
        "audits": {"layout-shifts": {"scoreDisplayMode": "error", "errorMessage": "frame_sequence"}},
    }
    assert broken(errored) == [
        "runtime error NO_FCP: The page did not paint any content.",
        "audit layout-shifts errored: frame_sequence",
        "performance has no score",
    ]


def test_unchecked_names_automatic_audits_axe_does_not_run():
    run = {
        "categories": {
            "accessibility": {
                "auditRefs": [{"id": "image-alt"}, {"id": "renamed"}, {"id": "logical-tab-order"}]
            }
        },
        "audits": {
            "image-alt": {"scoreDisplayMode": "binary"},
            "renamed": {"scoreDisplayMode": "binary"},
            "logical-tab-order": {"scoreDisplayMode": "manual"},
        },
    }
    assert unchecked(run, frozenset({"image-alt"})) == ["renamed"]


def test_a_failed_audit_ends_its_process_and_the_next_starts_another(lh):
    """LighthouseProcess reports an audit that Lighthouse ends with an error (its exit code and
    message), and starts a new process for what comes next. Neither call launches Chrome."""
    process = LighthouseProcess(lh)
    try:
        code, printed = process.run(["http://127.0.0.1:9/", "--form-factor=banana"], timeout=60)
        assert code != 0 and "form-factor" in printed, (code, printed)
        code, printed = process.run(["--list-locales"], timeout=60)
        assert code == 0 and '"en-US"' in printed, (code, printed[-500:])
    finally:
        process.close()
