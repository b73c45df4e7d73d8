"""The browser tests' own tools: that they check what they claim to check.

Debian's Chromium and the npm tools (axe-core, Lighthouse) are whatever version the day's
install gives, so a change in one of them must fail a test, not leave the others passing
without checking.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.browser.serving import CHROMIUM_ARGS, TEST_BROWSER_ARGS

pytestmark = pytest.mark.browser


def test_an_axe_rule_that_cannot_run_fails_the_check(new_page, axe_source: str) -> None:
    """A rule that throws is "incomplete" in axe-core's result, not a violation: the axe the
    tests inject (conftest's ``axe_source``) rejects instead of passing the page unchecked."""
    page, _ = new_page()
    page.set_content("<!doctype html><html lang='en'><title>t</title><main><p>text</p></main></html>")
    page.add_script_tag(content=axe_source)
    assert page.evaluate("async () => (await axe.run(document)).incomplete.filter(r => r.error)") == []
    page.evaluate(
        """() => axe.configure({
          checks: [{id: 'hb-throws', evaluate: () => { throw new Error('boom'); }}],
          rules: [{id: 'hb-broken', selector: 'p', any: ['hb-throws']}],
        })"""
    )
    with pytest.raises(Exception, match=r"axe-core could not run hb-broken \(boom\b"):
        page.evaluate("async () => (await axe.run(document)).violations.length")


def v8_complaints(executable: str, js_flags: str) -> list[str]:
    """What V8 says of ``js_flags`` when the browser starts with them (it ignores, and goes on
    without, every flag from the first it does not know)."""
    done = subprocess.run(
        [executable, *CHROMIUM_ARGS, f"--js-flags={js_flags}", "--dump-dom", "about:blank"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [
        line for line in done.stderr.splitlines() if "unrecognized flag" in line or "were ignored" in line
    ]


def test_the_test_browsers_v8_flags_are_all_understood(headless_shell_executable: str) -> None:
    """A V8 that drops one of TEST_BROWSER_ARGS' flags would quietly run the tests slower."""
    (js_flags,) = [
        arg.removeprefix("--js-flags=") for arg in TEST_BROWSER_ARGS if arg.startswith("--js-flags=")
    ]
    assert v8_complaints(headless_shell_executable, js_flags) == []
    assert v8_complaints(headless_shell_executable, js_flags + " --no-such-flag") != []  # it would say so
