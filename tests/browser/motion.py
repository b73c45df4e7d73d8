"""Waiting for a page to come to rest after a key press or a click, instead of for a fixed time.

A key press can start CSS transitions (Material's drawer slides in 0.25 s, the skip link slides
into view, a focused link's colour fades): what a test reads in the middle of one is neither the
state before nor the state after. The keyboard tests waited a fixed 60 to 500 ms after each key
for them, with a core idle meanwhile. :func:`settle` waits as long as the page moves: it asks
the page how long its running transitions and finite animations have left, waits that long, and
asks again until none is left.

What a page's own script does after a timer (a11y.js moves the focus 50 ms after the drawer
opens, or 300 ms after a panel slides) is no animation: a test waits for its result by a
condition (``page.wait_for_function``). A test that checks that something does *not* happen
still waits a fixed time: no condition says when a wrong change would have come.
"""

from __future__ import annotations

LEFT = """colours => Math.max(0, ...document.getAnimations()
  .filter(a => a.playState === "running" && a.effect && a.effect.getComputedTiming().iterations !== Infinity
    && (colours || !/(color|shadow)$|^background/.test(a.transitionProperty || "")))
  .map(a => { const t = a.effect.getComputedTiming(); return t.endTime - (t.localTime || 0); })
  .filter(Number.isFinite))"""
"""Milliseconds until the last running finite animation or transition of the page ends (0 when
none runs; a time that is not a finite number is left out). Unless ``colours`` is true,
transitions of colour and shadow are left out: a focused link's colour fades in 125 ms on every
Tab press, and a test of the keyboard reads where the focus is and whether it is seen, never a
colour. ``getAnimations()`` brings the page's style up to date first, so a transition the last
input started is among them. Synchronous, so it also answers on a page whose own JavaScript is
off (there a promise it awaited would never settle)."""


def settle(page, colours: bool = False, rounds: int = 20) -> None:
    """Wait until ``page`` has come to rest: the transitions the last input started have ended
    (with ``colours``, those of colours and shadows too: for a test that reads colours)."""
    for _ in range(rounds):
        left = page.evaluate(LEFT, colours)
        if left <= 0:
            return
        page.wait_for_timeout(min(left, 1000) + 10)
    raise AssertionError(f"the page kept moving for {rounds} rounds of transitions")


def wait_until(page, condition: str, what: str, arg: object = None, timeout_ms: int = 10_000) -> None:
    """Wait until the JavaScript ``condition`` holds on ``page`` (for what the page's own script
    does after a timer); fail saying ``what`` did not happen when it does not within the time."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(condition, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeoutError:
        raise AssertionError(f"{what}: not within {timeout_ms / 1000:.0f} s") from None
