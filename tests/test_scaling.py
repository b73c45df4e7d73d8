"""Cost grows linearly with the number of candidates: counted work, not timing.

The builder runs on n and 4n candidates full of conflict declarations while
``sys.setprofile`` counts every Python and C function call. Candidate ids are a ``str``
subclass whose ``__eq__`` and ``__hash__`` are Python functions, so a hidden quadratic scan
(``target in some_list`` over ids, which runs in C without a call event) is counted too.
Linear work gives a ratio near 4; a pairwise lookup would give about 16.

Validation hands the rules a plain copy of a request that holds subclasses, so the rules
would never see a counted id: the tests below let the rules build from the request as given,
once the real validation has accepted it (``counted_ids_reach_the_rules``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from harnessbook import InvalidRequestError, build_context_packet, validate_request
from harnessbook.context_packet import builder


class CountedId(str):
    """A candidate id whose comparisons and hashing are visible to the profiler."""

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return str.__ne__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)


def counted_calls(function: Callable[[], object]) -> int:
    calls = 0

    def profiler(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(profiler)
    try:
        function()
    except InvalidRequestError:
        pass
    finally:
        sys.setprofile(None)
    return calls


def candidate(cid: str, kind: str, **extra) -> Any:
    item = {
        "id": CountedId(cid),
        "kind": kind,
        "source": f"injected:{cid}",
        "capturedAt": "2026-07-15T09:30:00Z",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": 3,
        "content": "text",
    }
    item.update(extra)
    return item


def conflict_heavy(n: int, *, blocked: bool = False, invalid: bool = False) -> Any:
    """n candidates, a quarter each of the four kinds; every summary declares three conflicts."""
    quarter = n // 4
    evidence = [
        candidate(f"d{i}", "direct-evidence", freshness="expired" if i % 5 == 0 else "fresh")
        for i in range(quarter)
    ]
    constraints = [candidate(f"c{i}", "constraint") for i in range(quarter)]
    summaries = []
    for i in range(quarter):
        targets = [CountedId(f"d{(i + k) % quarter}") for k in (0, 1, 2)]
        if invalid:
            targets = [CountedId(f"ghost{i}"), CountedId(f"s{i}"), targets[0]]  # unknown, itself, real
        summaries.append(candidate(f"s{i}", "history-summary", conflictsWith=targets))
    references = [
        candidate(f"r{i}", "reference", sizeUnits=50, reference=f"ref://{i}") for i in range(quarter)
    ]
    candidates: list[Any] = []
    for group in zip(
        references, summaries, evidence, constraints, strict=True
    ):  # interleaved: the sort has work
        candidates.extend(group)
    if blocked:
        for item in candidates[::2]:
            del item["source"]
    if invalid:
        for item in candidates[::3]:
            item["sizeUnit"] = item.pop("sizeUnits")  # a typo, with a suggestion to compute
    return {
        "taskAnchor": {"goal": "g", "stopCondition": "s", "verificationTarget": "v"},
        "budgetUnits": n,  # roughly a quarter of the small items fit
        "candidates": candidates,
    }


def ratio(make: Callable[[int], Any], function: Callable[[Any], object], n: int = 200) -> float:
    small, large = make(n), make(4 * n)
    return counted_calls(lambda: function(large)) / counted_calls(lambda: function(small))


def test_the_counter_can_see_quadratic_work():
    # Guard against a counter that would report 4 for anything: a pairwise id scan is caught.
    def pairwise(request: Any) -> int:
        ids = [c["id"] for c in request["candidates"]]
        return sum(1 for target in ids if target in ids)

    assert ratio(conflict_heavy, pairwise, n=100) > 12


def test_the_workload_exercises_every_rule():
    result = build_context_packet(conflict_heavy(40))
    rules = {record["rule"] for record in result["evidence"]}
    assert rules == {"expiry", "conflict", "budget_fit", "pointer", "over_budget"}
    assert result["state"] == "refresh_required"
    assert sum(1 for r in result["refresh"] if r["reason"] == "conflict") > 0
    assert build_context_packet(conflict_heavy(40, blocked=True))["state"] == "blocked"
    with pytest.raises(InvalidRequestError) as caught:
        validate_request(conflict_heavy(40, invalid=True))
    assert len(caught.value.problems) > 40


@pytest.fixture
def counted_ids_reach_the_rules(monkeypatch: pytest.MonkeyPatch) -> list[type]:
    """The builder validates with the real validation, then builds from the request as given
    (its counted ids), not from the plain copy validation makes; returns the types of the ids
    the provenance gate was given."""
    real_validated, real_gate = vars(builder)["_validated"], vars(builder)["provenance_gate"]
    seen: list[type] = []

    def validated_as_given(request: Any) -> Any:
        real_validated(request)  # raises for an invalid request, as the builder does
        return request

    def gate(candidates: Any) -> Any:
        seen.extend(type(candidate["id"]) for candidate in candidates[:1])
        return real_gate(candidates)

    monkeypatch.setattr(builder, "_validated", validated_as_given)
    monkeypatch.setattr(builder, "provenance_gate", gate)
    return seen


def test_the_rules_see_the_counted_ids(counted_ids_reach_the_rules):
    build_context_packet(conflict_heavy(40))
    assert counted_ids_reach_the_rules == [CountedId]


@pytest.mark.usefixtures("counted_ids_reach_the_rules")
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(conflict_heavy, id="assembled"),
        pytest.param(lambda n: conflict_heavy(n, blocked=True), id="blocked"),
        pytest.param(lambda n: conflict_heavy(n, invalid=True), id="invalid"),
    ],
)
def test_cost_grows_linearly(make, request):
    observed = ratio(make, build_context_packet)
    # An invalid request words its first 100 problems and only counts the rest, so it grows
    # a little less than linearly; it must never grow faster.
    low = 1.5 if request.node.callspec.id == "invalid" else 3.5
    assert low < observed < 4.6, (
        f"4x the candidates cost {observed:.2f}x the calls (linear is 4, quadratic 16)"
    )
