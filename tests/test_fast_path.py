"""The validator's fast path is only a shortcut: it never accepts what the detailed walk refuses.

``_is_clean_candidate`` checks the common case quickly (see benchmarks/); ``_check_candidate``
words every problem. If the two ever disagreed, a malformed candidate could slip through.
"""

from __future__ import annotations

from hypothesis import given

from harnessbook.context_packet.errors import _Problems
from harnessbook.context_packet.validation import _check_candidate, _is_clean_candidate
from tests.contract import CANDIDATE_KEYS
from tests.strategies import near_valid_requests, seed_request
from tests.support import ci_settings

CI = ci_settings(300)


def candidates_of(request):
    if isinstance(request, dict) and isinstance(request.get("candidates"), list):
        return request["candidates"]
    return []


@CI
@given(near_valid_requests())
def test_fast_path_accepts_nothing_the_detailed_walk_refuses(request):
    for candidate in candidates_of(request):
        if _is_clean_candidate(candidate):
            problems = _Problems()
            _check_candidate(candidate, "$.candidates[0]", problems)
            assert problems.total == 0, (candidate, problems.items)


def test_fast_path_takes_the_common_case():
    # Otherwise the shortcut would silently stop saving anything.
    assert all(_is_clean_candidate(candidate) for candidate in seed_request()["candidates"])


def test_fast_path_refuses_subclasses_and_odd_conflicts():
    base = dict(seed_request()["candidates"][1])

    class Text(str):
        pass

    assert not _is_clean_candidate({**base, "id": Text("h")})
    assert not _is_clean_candidate({**base, "conflictsWith": ["d", "d"]})
    assert not _is_clean_candidate({**base, "kind": "reference"})
    assert not _is_clean_candidate({**base, "capturedAt": "2026-02-30"})
    assert not _is_clean_candidate({**base, "sizeUnits": True})


class Text(str):
    pass


TRICKY = [
    None,
    True,
    False,
    0,
    1,
    -1,
    -3,
    2**70,
    3.0,
    0.5,
    "",
    " ",
    "\u3000",
    "x",
    Text("x"),
    "direct-evidence",
    "history-summary",
    "current",
    "fresh",
    "expired",
    "2026-07-15",
    "2026-02-30",
    "2026-07-15T09:30:00",
    "2026-07-15T25:00:00Z",
    " 2026-07-15",
    [],
    ["d"],
    ["d", "d"],
    [""],
    [1],
    {},
    {"a": 1},
]
KEYS = [*CANDIDATE_KEYS, "sise"]  # every key a candidate may have, and an unknown one


def test_fast_path_agrees_on_every_single_field_corruption():
    checked = 0
    for base in seed_request()["candidates"]:
        for key in KEYS:
            variants = [{**base, key: value} for value in TRICKY]
            variants.append({k: v for k, v in base.items() if k != key})
            for candidate in variants:
                if _is_clean_candidate(candidate):
                    problems = _Problems()
                    _check_candidate(candidate, "$.candidates[0]", problems)
                    assert problems.total == 0, (candidate, problems.items)
                    checked += 1
    assert checked > 50  # the fast path did accept many variants, so the comparison bit
