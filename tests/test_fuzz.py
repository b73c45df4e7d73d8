"""Fuzzing: no exception other than InvalidRequestError escapes, whatever JSON value arrives.

Two sources of input: arbitrary JSON values (``json_values`` in tests/strategies.py, up to four
levels deep), and near-valid requests, a valid request with one spot replaced, removed or added.
Whenever the builder accepts such an input, the result must also be well formed.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harnessbook import InvalidRequestError, build_context_packet
from harnessbook.context_packet import MAX_PROBLEMS
from tests.strategies import json_values, near_valid_requests, seed_request, with_value
from tests.support import REQUEST_VALIDATOR, RESULT_VALIDATOR, ci_settings

CI = ci_settings(200)


def build_or_invalid(value: Any) -> Any:
    """Run the builder; return the result, or None if it raised InvalidRequestError.

    Any other exception propagates and fails the test."""
    try:
        result = build_context_packet(value)
    except InvalidRequestError as error:  # any other exception fails the test
        assert error.problems, "an InvalidRequestError must carry at least one problem"  # noqa: PT017
        for problem in error.problems:
            assert isinstance(problem, str) and problem.startswith("$"), problem
        # A program reads the same problems split: every kept line has its path, however odd
        # its keys (a path may hold ": " itself), and the "… and K more" line is not one.
        details = error.details
        assert len(details) == min(error.total, MAX_PROBLEMS)  # noqa: PT017
        for detail, line in zip(details, error.problems, strict=False):
            assert detail.path is not None and f"{detail.path}: {detail.message}" == line, (detail, line)
        str(error)  # must not raise either
        return None
    RESULT_VALIDATOR.validate(result)
    return result


@CI
@given(json_values)
def test_any_json_value(value):
    build_or_invalid(value)


@CI
@given(st.dictionaries(st.sampled_from(["taskAnchor", "budgetUnits", "candidates", "extra"]), json_values))
def test_any_json_object_with_the_top_level_keys(value):
    build_or_invalid(value)


@CI
@given(near_valid_requests())
def test_near_valid_requests(request):
    result = build_or_invalid(request)
    if result is not None:
        # Whatever the builder accepts, the request schema accepts too.
        REQUEST_VALIDATOR.validate(request)


# ---------------------------------------------------------------------------
# Values hypothesis is unlikely to reach: huge integers, deep nesting, odd strings
# ---------------------------------------------------------------------------

HUGE = 10**5000  # more digits than int -> str conversion allows by default (sys.int_info)


def nested(depth: int, leaf: Any = None, kind: str = "list") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(-HUGE, id="huge-negative-request"),
        pytest.param(HUGE, id="huge-request"),
        pytest.param(with_value(("budgetUnits",), -HUGE), id="huge-negative-budget"),
        pytest.param(with_value(("budgetUnits",), [HUGE]), id="huge-in-budget-list"),
        pytest.param(with_value(("candidates", 0, "sizeUnits"), -HUGE), id="huge-negative-size"),
        pytest.param(with_value(("candidates", 0, "content"), HUGE), id="huge-content"),
        pytest.param(with_value(("candidates", 0, "kind"), HUGE), id="huge-kind"),
        pytest.param(with_value(("candidates", 1, "conflictsWith"), [HUGE]), id="huge-conflict"),
        pytest.param(with_value(("candidates", 0), HUGE), id="huge-candidate"),
        pytest.param({HUGE: 1, "budgetUnits": 1}, id="huge-key"),
        pytest.param(with_value(("taskAnchor",), {HUGE: "x", "goal": "g"}), id="huge-anchor-key"),
    ],
)
def test_huge_integers(value):
    build_or_invalid(value)


@pytest.mark.parametrize("kind", ["list", "dict"])
@pytest.mark.parametrize("depth", [sys.getrecursionlimit() // 2, sys.getrecursionlimit() * 3])
def test_deep_nesting(depth, kind):
    deep = nested(depth, kind=kind)
    build_or_invalid(deep)
    build_or_invalid(with_value(("candidates", 0, "content"), deep))
    build_or_invalid(with_value(("budgetUnits",), deep))
    build_or_invalid(with_value(("candidates", 1, "conflictsWith"), deep))
    build_or_invalid(with_value(("candidates", 0), deep))


@pytest.mark.parametrize(
    "text",
    # Two different lone surrogates, not a duplicate (ruff compares them as U+FFFD).
    ["\ud800", "\udfff", "a\x00b", "\u200b", "\ufeff", "\U0001f600", "\x1c", "x" * 100_000],  # noqa: PT014
)
@pytest.mark.parametrize(
    "path",
    [
        ("candidates", 0, "id"),
        ("candidates", 0, "kind"),
        ("candidates", 0, "capturedAt"),
        ("taskAnchor", "goal"),
        ("candidates", 0, "source"),
    ],
)
def test_odd_strings(path, text):
    request = with_value(path, text)
    if path[-1] == "id":
        request["candidates"][1]["conflictsWith"] = [text]
    build_or_invalid(request)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), -0.0, 1e308])
@pytest.mark.parametrize(
    "path", [("budgetUnits",), ("candidates", 0, "sizeUnits"), ("candidates", 0, "content")]
)
def test_odd_numbers(path, value):
    assert build_or_invalid(with_value(path, value)) is None


def test_a_huge_request_with_many_problems_stays_an_invalid_request_error():
    request = seed_request()
    request["candidates"] = [{"id": str(n % 7), "sizeUnit": -n, "kind": n} for n in range(3000)]
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(request)
    # Every problem is counted; the first 100 are kept, and one line sums up the rest.
    assert caught.value.total == 3000 * 7 - 7
    assert len(caught.value.problems) == 101
    assert caught.value.problems[-1] == f"… and {3000 * 7 - 7 - 100} more problems"
    assert len(caught.value.details) == 100 and caught.value.details[0] == (
        "$.candidates[0].sizeUnit",
        "unknown key; did you mean 'sizeUnits'?",
    )


def test_messages_for_values_too_large_or_deep_to_show():
    request = with_value(("budgetUnits",), -HUGE)
    request["candidates"][0]["content"] = nested(sys.getrecursionlimit() * 2)
    request[HUGE] = 1
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(request)
    assert caught.value.problems == (
        "$: key <integer too large to show> is not a string; JSON object keys are strings",
        "$.budgetUnits: must be an integer greater than 0, got <integer too large to show> (integer)",
        "$.candidates[0].content: must be a string, got [[[[[[[[[[[[[[[[[[[[[...]]]]]]]]]]]]]]]]]]]]] (array)",
    )
