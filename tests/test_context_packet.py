"""The builder's rules, one behaviour at a time, with exact results for small requests.

The chapter's five test paths and its demo come first; then the edge cases of every rule
(tiers, first fit, pointers, conflicts, expiry, the provenance gate's blocked shape) and
the promise that evidence never copies a candidate's content.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import pytest

from harnessbook import build_context_packet, demo_request
from harnessbook.context_packet import (
    RULES,
    TIERS,
    ContextPacketResult,
    budget_fit,
    conflict,
    expiry,
    over_budget,
    pointer,
    processing_order,
    provenance_gate,
)
from tests.contract import CANDIDATE_KEYS

ANCHOR = {
    "goal": "locate the single failing test",
    "stopCondition": "stop when no traceable direct evidence is left",
    "verificationTarget": "the injected test name",
}


def cand(cid: str, kind: str = "direct-evidence", size: int = 1, **overrides) -> Any:
    """A valid candidate with provenance; keyword overrides replace or add keys
    (pass ``source=...``/``capturedAt=...`` as ``DROP`` to remove them)."""
    item = {
        "id": cid,
        "kind": kind,
        "source": f"injected:{cid}",
        "capturedAt": "2026-07-15",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": size,
        "content": f"content of {cid}",
    }
    for key, value in overrides.items():
        if value is DROP:
            item.pop(key, None)
        else:
            item[key] = value
    return item


DROP = object()


def request(budget: int, *candidates: Any) -> Any:
    return {"taskAnchor": dict(ANCHOR), "budgetUnits": budget, "candidates": list(candidates)}


def build(budget: int, *candidates: Any) -> Any:
    return build_context_packet(request(budget, *candidates))


def ev(cid: str, kind: str, decision: str, rule: str, size: int, before: int, after: int) -> Any:
    return {
        "id": cid,
        "kind": kind,
        "decision": decision,
        "rule": rule,
        "sizeUnits": size,
        "remainingBefore": before,
        "remainingAfter": after,
    }


def ids(items: Iterable[Any]) -> list[str]:
    return [item["id"] for item in items]


def decisions(result: Any) -> list[tuple[str, str, str]]:
    return [(e["id"], e["decision"], e["rule"]) for e in result["evidence"]]


# ---------------------------------------------------------------------------
# The chapter's demo
# ---------------------------------------------------------------------------

DEMO_RESULT: ContextPacketResult = {
    "state": "ready",
    "phase": "assembled",
    "packet": {
        "taskAnchor": {
            "goal": "定位单一测试失败",
            "stopCondition": "缺少可追溯的直接证据时停止",
            "verificationTarget": "注入的测试名称",
        },
        "selected": [
            {
                "id": "failure-output",
                "kind": "direct-evidence",
                "source": "injected:test-output",
                "capturedAt": "2026-07-15",
                "relevance": "current",
                "freshness": "fresh",
                "sizeUnits": 3,
                "content": "断言失败摘要",
            }
        ],
        "pointers": [
            {
                "id": "large-ci-log",
                "kind": "direct-evidence",
                "source": "injected:ci-log",
                "capturedAt": "2026-07-15",
                "relevance": "background",
                "freshness": "fresh",
                "sizeUnits": 40,
                "reference": "artifact://ci/large-ci-log.txt",
                "loadCondition": {"requiresUnits": 40, "availableUnits": 5},
            }
        ],
        "usedBudgetUnits": 3,
        "budgetUnits": 8,
    },
    "excluded": [],
    "unknowns": [],
    "refresh": [],
    "evidence": [
        ev("failure-output", "direct-evidence", "selected", "budget_fit", 3, 8, 5),
        ev("large-ci-log", "direct-evidence", "pointer", "pointer", 40, 5, 5),
    ],
}


def test_demo_gives_exactly_the_chapters_packet():
    assert build_context_packet(demo_request()) == DEMO_RESULT


def test_demo_request_is_a_fresh_dict_each_call():
    first = demo_request()
    first["candidates"].clear()
    first["taskAnchor"]["goal"] = "changed"
    assert build_context_packet(demo_request()) == DEMO_RESULT


# ---------------------------------------------------------------------------
# The chapter's five test paths
# ---------------------------------------------------------------------------


def test_path_direct_evidence_first():
    # A fresh constraint, the failing assertion and a background summary, with a budget
    # too small for all three: the summary comes first in the input but must not crowd
    # out the current failing assertion.
    summary = cand("old-summary", "history-summary", 4, relevance="background")
    rule = cand("style-rule", "constraint", 2)
    failure = cand("failing-assertion", "direct-evidence", 3)
    result = build(6, summary, rule, failure)
    assert result == {
        "state": "ready",
        "phase": "assembled",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [rule, failure],
            "pointers": [],
            "usedBudgetUnits": 5,
            "budgetUnits": 6,
        },
        "excluded": [
            {
                "id": "old-summary",
                "kind": "history-summary",
                "reason": "over_budget",
                "requiresUnits": 4,
                "availableUnits": 1,
            }
        ],
        "unknowns": [],
        "refresh": [],
        "evidence": [
            ev("style-rule", "constraint", "selected", "budget_fit", 2, 6, 4),
            ev("failing-assertion", "direct-evidence", "selected", "budget_fit", 3, 4, 1),
            ev("old-summary", "history-summary", "excluded", "over_budget", 4, 1, 1),
        ],
    }


def test_path_expired_evidence_is_excluded_and_asks_for_refresh():
    log = cand("failure-log", size=2, freshness="expired", capturedAt="2026-07-01T08:00:00Z")
    result = build(10, log)
    assert result == {
        "state": "refresh_required",
        "phase": "refresh_context",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [],
            "pointers": [],
            "usedBudgetUnits": 0,
            "budgetUnits": 10,
        },
        "excluded": [{"id": "failure-log", "kind": "direct-evidence", "reason": "expired"}],
        "unknowns": [],
        "refresh": [
            {
                "id": "failure-log",
                "reason": "expired",
                "source": "injected:failure-log",
                "capturedAt": "2026-07-01T08:00:00Z",
            }
        ],
        "evidence": [ev("failure-log", "direct-evidence", "excluded", "expiry", 2, 10, 10)],
    }


def test_path_over_budget_with_reference_becomes_a_pointer():
    big = cand("big-log", size=50, relevance="background", reference="artifact://ci/big.log")
    result = build(8, big)
    assert result == {
        "state": "ready",
        "phase": "assembled",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [],
            "pointers": [
                {
                    "id": "big-log",
                    "kind": "direct-evidence",
                    "source": "injected:big-log",
                    "capturedAt": "2026-07-15",
                    "relevance": "background",
                    "freshness": "fresh",
                    "sizeUnits": 50,
                    "reference": "artifact://ci/big.log",
                    "loadCondition": {"requiresUnits": 50, "availableUnits": 8},
                }
            ],
            "usedBudgetUnits": 0,
            "budgetUnits": 8,
        },
        "excluded": [],
        "unknowns": [],
        "refresh": [],
        "evidence": [ev("big-log", "direct-evidence", "pointer", "pointer", 50, 8, 8)],
    }
    assert result["packet"]["usedBudgetUnits"] <= result["packet"]["budgetUnits"]


def test_path_missing_provenance_blocks():
    result = build(8, cand("no-source", source=DROP), cand("fine"))
    assert result == {
        "state": "blocked",
        "phase": "missing_provenance",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [],
            "pointers": [],
            "usedBudgetUnits": 0,
            "budgetUnits": 8,
        },
        "excluded": [],
        "unknowns": [{"id": "no-source", "missing": ["source"]}],
        "refresh": [],
        "evidence": [
            ev("no-source", "direct-evidence", "blocked", "provenance_gate", 1, 8, 8),
            ev("fine", "direct-evidence", "not_assessed", "provenance_gate", 1, 8, 8),
        ],
    }


def test_path_conflicting_summary_asks_for_refresh():
    failure = cand("failure-output", size=3)
    summary = cand(
        "old-summary",
        "history-summary",
        2,
        relevance="background",
        source="injected:memory",
        conflictsWith="failure-output",
    )
    result = build(8, summary, failure)
    assert result == {
        "state": "refresh_required",
        "phase": "refresh_context",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [failure],
            "pointers": [],
            "usedBudgetUnits": 3,
            "budgetUnits": 8,
        },
        "excluded": [
            {
                "id": "old-summary",
                "kind": "history-summary",
                "reason": "conflict",
                "conflictsWith": ["failure-output"],
            }
        ],
        "unknowns": [],
        "refresh": [
            {
                "id": "old-summary",
                "reason": "conflict",
                "conflictsWith": ["failure-output"],
                "sources": {
                    "old-summary": "injected:memory",
                    "failure-output": "injected:failure-output",
                },
            }
        ],
        "evidence": [
            ev("failure-output", "direct-evidence", "selected", "budget_fit", 3, 8, 5),
            ev("old-summary", "history-summary", "excluded", "conflict", 2, 5, 5),
        ],
    }


# ---------------------------------------------------------------------------
# Small exact cases
# ---------------------------------------------------------------------------


def test_no_candidates_is_ready_and_empty():
    assert build(1) == {
        "state": "ready",
        "phase": "assembled",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [],
            "pointers": [],
            "usedBudgetUnits": 0,
            "budgetUnits": 1,
        },
        "excluded": [],
        "unknowns": [],
        "refresh": [],
        "evidence": [],
    }


def test_result_always_has_every_key_and_never_a_string_packet():
    for result in (build(3), build(3, cand("a", source=None)), build_context_packet(demo_request())):
        assert list(result) == ["state", "phase", "packet", "excluded", "unknowns", "refresh", "evidence"]
        assert list(result["packet"]) == [
            "taskAnchor",
            "selected",
            "pointers",
            "usedBudgetUnits",
            "budgetUnits",
        ]
        assert isinstance(result["packet"], dict)
        for key in ("excluded", "unknowns", "refresh", "evidence"):
            assert isinstance(result[key], list)


def test_task_anchor_is_copied_into_the_packet():
    req = request(3)
    result = build_context_packet(req)
    assert result["packet"]["taskAnchor"] == ANCHOR
    assert result["packet"]["taskAnchor"] is not req["taskAnchor"]


# ---------------------------------------------------------------------------
# Processing order: tiers, stable within a tier
# ---------------------------------------------------------------------------


def test_tiers_then_input_order():
    order = [
        cand("r1", "reference"),
        cand("h1", "history-summary"),
        cand("d1", "direct-evidence"),
        cand("c1", "constraint"),
        cand("r2", "reference"),
        cand("h2", "history-summary"),
        cand("d2", "direct-evidence"),
        cand("c2", "constraint"),
    ]
    result = build(100, *order)
    assert ids(result["evidence"]) == ["d1", "c1", "d2", "c2", "h1", "h2", "r1", "r2"]
    assert ids(result["packet"]["selected"]) == ["d1", "c1", "d2", "c2", "h1", "h2", "r1", "r2"]
    assert ids(processing_order(order)) == ["d1", "c1", "d2", "c2", "h1", "h2", "r1", "r2"]


def test_tier_order_decides_who_gets_the_budget():
    # A reference listed first cannot take the budget from a constraint listed last.
    result = build(
        3, cand("ref", "reference", 3), cand("sum", "history-summary", 3), cand("rule", "constraint", 3)
    )
    assert ids(result["packet"]["selected"]) == ["rule"]
    assert [(e["id"], e["reason"]) for e in result["excluded"]] == [
        ("sum", "over_budget"),
        ("ref", "over_budget"),
    ]


def test_tiers_constant_matches_the_contract():
    assert TIERS == {"constraint": 1, "direct-evidence": 1, "history-summary": 2, "reference": 3}
    assert RULES == ("provenance_gate", "expiry", "conflict", "budget_fit", "pointer", "over_budget")


# ---------------------------------------------------------------------------
# Budget fit: first fit, exact fit, zero size
# ---------------------------------------------------------------------------


def test_first_fit_lets_a_later_smaller_item_in():
    result = build(5, cand("a", size=3), cand("b", size=4), cand("c", size=2))
    assert ids(result["packet"]["selected"]) == ["a", "c"]
    assert result["packet"]["usedBudgetUnits"] == 5
    assert result["excluded"] == [
        {
            "id": "b",
            "kind": "direct-evidence",
            "reason": "over_budget",
            "requiresUnits": 4,
            "availableUnits": 2,
        }
    ]
    assert result["evidence"] == [
        ev("a", "direct-evidence", "selected", "budget_fit", 3, 5, 2),
        ev("b", "direct-evidence", "excluded", "over_budget", 4, 2, 2),
        ev("c", "direct-evidence", "selected", "budget_fit", 2, 2, 0),
    ]


def test_exact_fit_is_selected_and_one_more_unit_is_not():
    assert ids(build(4, cand("a", size=4))["packet"]["selected"]) == ["a"]
    assert ids(build(4, cand("a", size=5))["packet"]["selected"]) == []


def test_zero_size_fits_an_exhausted_budget():
    result = build(2, cand("a", size=2), cand("b", size=0))
    assert ids(result["packet"]["selected"]) == ["a", "b"]
    assert result["evidence"][1] == ev("b", "direct-evidence", "selected", "budget_fit", 0, 0, 0)


def test_selected_is_a_full_copy_with_optional_keys():
    summary = cand("s", "history-summary", 1, reference="ref://s", conflictsWith=["d"])
    evidence = cand("d", relevance="background")
    req = request(10, evidence, summary)
    result = build_context_packet(req)
    assert result["packet"]["selected"] == [evidence, summary]
    copied = result["packet"]["selected"][1]
    assert copied["conflictsWith"] == ["d"]
    assert copied["conflictsWith"] is not req["candidates"][1]["conflictsWith"]


def test_budget_fit_rule_function():
    item = cand("a", size=3)
    assert budget_fit(item, 3) == item
    assert budget_fit(item, 3) is not item
    assert budget_fit(item, 2) is None


# ---------------------------------------------------------------------------
# Pointer: needs a non-blank reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("reference", ["", " ", "\t\n", "\u3000"])
def test_blank_reference_is_not_a_pointer(reference):
    result = build(2, cand("a", size=5, reference=reference))
    assert result["packet"]["pointers"] == []
    assert result["excluded"] == [
        {
            "id": "a",
            "kind": "direct-evidence",
            "reason": "over_budget",
            "requiresUnits": 5,
            "availableUnits": 2,
        }
    ]
    assert decisions(result) == [("a", "excluded", "over_budget")]


def test_no_reference_is_not_a_pointer():
    result = build(2, cand("a", size=5))
    assert result["packet"]["pointers"] == []
    assert [e["reason"] for e in result["excluded"]] == ["over_budget"]


def test_pointer_keeps_no_content_and_takes_no_budget():
    result = build(4, cand("big", size=9, reference="ref://big"), cand("small", size=4))
    (ptr,) = result["packet"]["pointers"]
    assert "content" not in ptr
    assert ptr["reference"] == "ref://big"
    assert ptr["loadCondition"] == {"requiresUnits": 9, "availableUnits": 4}
    assert ids(result["packet"]["selected"]) == ["small"]
    assert result["packet"]["usedBudgetUnits"] == 4


def test_item_that_fits_is_selected_even_with_a_reference():
    result = build(4, cand("a", size=4, reference="ref://a"))
    assert ids(result["packet"]["selected"]) == ["a"]
    assert result["packet"]["selected"][0]["reference"] == "ref://a"
    assert result["packet"]["pointers"] == []


def test_pointer_and_over_budget_rule_functions():
    with_ref = cand("a", size=5, reference="ref://a")
    assert pointer(with_ref, 1) == {key: value for key, value in with_ref.items() if key != "content"} | {
        "loadCondition": {"requiresUnits": 5, "availableUnits": 1}
    }
    assert pointer(cand("a", size=5, reference="  "), 1) is None
    assert pointer(cand("a", size=5), 1) is None
    assert over_budget(cand("a", "reference", 5), 1) == {
        "id": "a",
        "kind": "reference",
        "reason": "over_budget",
        "requiresUnits": 5,
        "availableUnits": 1,
    }


# ---------------------------------------------------------------------------
# Conflict: only against fresh current direct evidence, wherever it landed
# ---------------------------------------------------------------------------


def summary_against(target, **overrides) -> Any:
    return cand("sum", "history-summary", 1, source="injected:memory", conflictsWith=target, **overrides)


def conflict_refresh(targets: list[str], sources: dict[str, str]) -> Any:
    return {"id": "sum", "reason": "conflict", "conflictsWith": targets, "sources": sources}


def test_conflict_with_selected_evidence():
    result = build(10, cand("d", size=2), summary_against("d"))
    assert result["state"] == "refresh_required"
    assert result["refresh"] == [conflict_refresh(["d"], {"sum": "injected:memory", "d": "injected:d"})]
    assert ids(result["packet"]["selected"]) == ["d"]


def test_conflict_with_evidence_that_became_a_pointer():
    result = build(2, cand("d", size=9, reference="ref://d"), summary_against("d"))
    assert ids(result["packet"]["pointers"]) == ["d"]
    assert [(e["id"], e["reason"]) for e in result["excluded"]] == [("sum", "conflict")]
    assert result["state"] == "refresh_required"


def test_conflict_with_evidence_that_was_excluded_over_budget():
    result = build(2, cand("d", size=9), summary_against("d"))
    assert [(e["id"], e["reason"]) for e in result["excluded"]] == [("d", "over_budget"), ("sum", "conflict")]
    assert result["refresh"] == [conflict_refresh(["d"], {"sum": "injected:memory", "d": "injected:d"})]


def test_the_summary_never_displaces_the_evidence():
    # The summary would have fitted; the evidence is processed first and keeps its place.
    result = build(3, summary_against("d"), cand("d", size=3))
    assert ids(result["packet"]["selected"]) == ["d"]
    assert result["packet"]["usedBudgetUnits"] == 3


@pytest.mark.parametrize(
    "target",
    [
        pytest.param(cand("t", freshness="expired"), id="expired-current-evidence"),
        pytest.param(cand("t", relevance="background"), id="fresh-background-evidence"),
        pytest.param(cand("t", "constraint"), id="constraint"),
        pytest.param(cand("t", "history-summary"), id="other-summary"),
        pytest.param(cand("t", "reference"), id="reference"),
    ],
)
def test_no_conflict_with_anything_but_fresh_current_direct_evidence(target):
    result = build(10, target, summary_against("t"))
    assert "sum" in ids(result["packet"]["selected"])
    assert all(item["reason"] != "conflict" for item in result["excluded"])
    assert all(item["reason"] != "conflict" for item in result["refresh"])
    decision = [e for e in result["evidence"] if e["id"] == "sum"]
    assert decision == [
        ev(
            "sum",
            "history-summary",
            "selected",
            "budget_fit",
            1,
            decision[0]["remainingBefore"],
            decision[0]["remainingBefore"] - 1,
        )
    ]


def test_conflict_lists_only_the_fresh_current_evidence_it_names():
    result = build(
        20,
        cand("old", freshness="expired"),
        cand("bg", relevance="background"),
        cand("d1"),
        cand("rule", "constraint"),
        cand("d2", source="injected:second"),
        summary_against(["old", "d2", "bg", "rule", "d1"]),
    )
    expected_ids = ["d2", "d1"]  # the summary's own order, filtered
    assert [e for e in result["excluded"] if e["reason"] == "conflict"] == [
        {"id": "sum", "kind": "history-summary", "reason": "conflict", "conflictsWith": expected_ids}
    ]
    assert result["refresh"] == [
        {"id": "old", "reason": "expired", "source": "injected:old", "capturedAt": "2026-07-15"},
        conflict_refresh(
            expected_ids, {"sum": "injected:memory", "d2": "injected:second", "d1": "injected:d1"}
        ),
    ]


def test_excluded_and_refresh_conflict_lists_are_separate_objects():
    result = build(10, cand("d"), summary_against(["d"]))
    excluded = result["excluded"][0]["conflictsWith"]
    refreshed = result["refresh"][0]["conflictsWith"]
    assert excluded == refreshed == ["d"]
    assert excluded is not refreshed


def test_expired_summary_is_expired_not_conflicting():
    result = build(10, cand("d"), summary_against("d", freshness="expired"))
    assert [(e["id"], e["reason"]) for e in result["excluded"]] == [("sum", "expired")]
    assert result["refresh"] == []
    assert result["state"] == "ready"
    assert decisions(result)[-1] == ("sum", "excluded", "expiry")


def test_empty_conflict_list_is_no_conflict():
    result = build(10, cand("d"), summary_against([]))
    assert ids(result["packet"]["selected"]) == ["d", "sum"]
    assert result["state"] == "ready"


def test_two_summaries_against_one_evidence_each_ask_for_refresh():
    first = cand("s1", "history-summary", conflictsWith="d")
    second = cand("s2", "history-summary", conflictsWith=["d"])
    result = build(10, first, cand("d"), second)
    assert [(r["id"], r["reason"], r["conflictsWith"]) for r in result["refresh"]] == [
        ("s1", "conflict", ["d"]),
        ("s2", "conflict", ["d"]),
    ]


def test_conflict_rule_function():
    evidence = cand("d")
    summary = summary_against(["d"])
    assert conflict(summary, {"d": evidence}) == (
        {"id": "sum", "kind": "history-summary", "reason": "conflict", "conflictsWith": ["d"]},
        conflict_refresh(["d"], {"sum": "injected:memory", "d": "injected:d"}),
    )
    assert conflict(summary, {}) is None
    assert conflict(cand("x"), {"d": evidence}) is None


# ---------------------------------------------------------------------------
# Expiry: refresh only for current direct evidence
# ---------------------------------------------------------------------------


def test_expired_current_direct_evidence_asks_for_refresh():
    result = build(5, cand("d", freshness="expired", capturedAt="2026-07-01T00:00:00+08:00"))
    assert result["refresh"] == [
        {"id": "d", "reason": "expired", "source": "injected:d", "capturedAt": "2026-07-01T00:00:00+08:00"}
    ]
    assert (result["state"], result["phase"]) == ("refresh_required", "refresh_context")


def test_each_expired_current_direct_evidence_gets_its_own_refresh_entry():
    """Not only the first: every one, in processing order, whatever its size (0 included)."""
    result = build(
        5,
        cand("a", freshness="expired"),
        cand("b", sizeUnits=0, freshness="expired"),
        cand("c", freshness="expired", capturedAt="2026-06-30"),
    )
    assert [(entry["id"], entry["reason"], entry["capturedAt"]) for entry in result["refresh"]] == [
        ("a", "expired", "2026-07-15"),
        ("b", "expired", "2026-07-15"),
        ("c", "expired", "2026-06-30"),
    ]


def test_references_are_copied_as_given_into_selected_items_and_pointers():
    """A blank reference stays on a selected item; a padded one stays padded on a pointer: the
    builder never reads, trims or drops a reference."""
    result = build(
        2,
        cand("fits", reference=" "),
        cand("empty", reference="", sizeUnits=1),
        cand("large", reference="  artifact://ci/log.txt\t", sizeUnits=9),
    )
    assert [item.get("reference") for item in result["packet"]["selected"]] == [" ", ""]
    assert [item["reference"] for item in result["packet"]["pointers"]] == ["  artifact://ci/log.txt\t"]


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(
            cand("x", "direct-evidence", relevance="background", freshness="expired"),
            id="background-evidence",
        ),
        pytest.param(cand("x", "constraint", freshness="expired"), id="constraint"),
        pytest.param(cand("x", "history-summary", freshness="expired"), id="history-summary"),
        pytest.param(cand("x", "reference", freshness="expired"), id="reference"),
        pytest.param(
            cand("x", "constraint", relevance="background", freshness="expired"), id="background-constraint"
        ),
    ],
)
def test_other_expired_items_are_excluded_without_refresh(item):
    result = build(5, item)
    assert result["excluded"] == [{"id": "x", "kind": item["kind"], "reason": "expired"}]
    assert result["refresh"] == []
    assert (result["state"], result["phase"]) == ("ready", "assembled")
    assert result["packet"]["selected"] == []
    assert decisions(result) == [("x", "excluded", "expiry")]


def test_expired_item_never_enters_selected_or_pointers_even_if_it_fits():
    result = build(100, cand("a", freshness="expired", reference="ref://a", size=1))
    assert result["packet"]["selected"] == result["packet"]["pointers"] == []
    assert result["packet"]["usedBudgetUnits"] == 0


def test_expiry_rule_function():
    assert expiry(cand("a")) is None
    assert expiry(cand("a", "reference", freshness="expired")) == (
        {"id": "a", "kind": "reference", "reason": "expired"},
        None,
    )


# ---------------------------------------------------------------------------
# The provenance gate: the blocked shape
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "missing"),
    [
        pytest.param({"source": DROP}, ["source"], id="source-absent"),
        pytest.param({"source": None}, ["source"], id="source-null"),
        pytest.param({"source": ""}, ["source"], id="source-empty"),
        pytest.param({"source": " \t"}, ["source"], id="source-blank"),
        pytest.param({"capturedAt": DROP}, ["capturedAt"], id="capturedAt-absent"),
        pytest.param({"capturedAt": None}, ["capturedAt"], id="capturedAt-null"),
        pytest.param({"capturedAt": "  "}, ["capturedAt"], id="capturedAt-blank"),
        pytest.param({"source": None, "capturedAt": DROP}, ["source", "capturedAt"], id="both"),
        pytest.param({"capturedAt": "", "source": ""}, ["source", "capturedAt"], id="both-blank"),
    ],
)
def test_missing_provenance_blocks(overrides, missing):
    result = build(5, cand("x", **overrides))
    assert result["unknowns"] == [{"id": "x", "missing": missing}]
    assert (result["state"], result["phase"]) == ("blocked", "missing_provenance")


def test_blocked_shape_lists_unknowns_in_input_order_and_assesses_nothing():
    candidates = [
        cand("ref", "reference", 2, source=None),  # tier 3, but first in the input
        cand("expired", freshness="expired"),  # would ask for refresh if not blocked
        cand("sum", "history-summary", 1, conflictsWith="d"),  # would conflict
        cand("d", size=3, capturedAt=DROP, source=""),
        cand("rule", "constraint", 7),
    ]
    result = build(9, *candidates)
    assert result == {
        "state": "blocked",
        "phase": "missing_provenance",
        "packet": {
            "taskAnchor": ANCHOR,
            "selected": [],
            "pointers": [],
            "usedBudgetUnits": 0,
            "budgetUnits": 9,
        },
        "excluded": [],
        "unknowns": [
            {"id": "ref", "missing": ["source"]},
            {"id": "d", "missing": ["source", "capturedAt"]},
        ],
        "refresh": [],
        "evidence": [
            ev("ref", "reference", "blocked", "provenance_gate", 2, 9, 9),
            ev("expired", "direct-evidence", "not_assessed", "provenance_gate", 1, 9, 9),
            ev("sum", "history-summary", "not_assessed", "provenance_gate", 1, 9, 9),
            ev("d", "direct-evidence", "blocked", "provenance_gate", 3, 9, 9),
            ev("rule", "constraint", "not_assessed", "provenance_gate", 7, 9, 9),
        ],
    }


def test_provenance_gate_rule_function():
    assert provenance_gate([cand("a"), cand("b", capturedAt=None, source=" ")]) == [
        {"id": "b", "missing": ["source", "capturedAt"]}
    ]
    assert provenance_gate([]) == []


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


def test_over_budget_and_pointers_alone_stay_ready():
    result = build(1, cand("a", size=3), cand("b", size=3, reference="ref://b"))
    assert (result["state"], result["phase"]) == ("ready", "assembled")


def test_refresh_of_both_kinds_in_processing_order():
    result = build(
        10,
        cand("sum", "history-summary", conflictsWith="d"),
        cand("d"),
        cand("old", freshness="expired"),
    )
    assert [(r["id"], r["reason"]) for r in result["refresh"]] == [("old", "expired"), ("sum", "conflict")]
    assert result["state"] == "refresh_required"


# ---------------------------------------------------------------------------
# Evidence: one record per candidate, never the content
# ---------------------------------------------------------------------------

MARKER = "SECRET-CONTENT-§-不应出现"


def content_everywhere_but_selected(result: Any) -> str:
    rest = {key: value for key, value in result.items() if key != "packet"}
    rest["pointers"] = result["packet"]["pointers"]
    return json.dumps(rest, ensure_ascii=False)


@pytest.mark.parametrize("blocked", [False, True])
def test_evidence_never_contains_content(blocked):
    candidates = [
        cand("sel", size=1, content=MARKER + "1"),
        cand("ptr", size=50, reference="ref://ptr", content=MARKER + "2"),
        cand("over", size=50, content=MARKER + "3"),
        cand("exp", freshness="expired", content=MARKER + "4"),
        cand("sum", "history-summary", conflictsWith="sel", content=MARKER + "5"),
        cand("nosrc", source=None if blocked else "s", content=MARKER + "6"),
    ]
    result = build(3, *candidates)
    assert len(result["evidence"]) == len(candidates)
    for record in result["evidence"]:
        assert set(record) == {
            "id",
            "kind",
            "decision",
            "rule",
            "sizeUnits",
            "remainingBefore",
            "remainingAfter",
        }
    assert MARKER not in content_everywhere_but_selected(result)
    selected_text = json.dumps(result["packet"]["selected"], ensure_ascii=False)
    assert selected_text.count(MARKER) == (0 if blocked else 2)  # "sel" and "nosrc"


def test_evidence_records_every_rule_with_its_budget():
    result = build(
        4,
        cand("sel", size=3),
        cand("ptr", size=9, reference="ref://p"),
        cand("over", size=9),
        cand("exp", freshness="expired"),
        cand("sum", "history-summary", conflictsWith="sel"),
    )
    assert result["evidence"] == [
        ev("sel", "direct-evidence", "selected", "budget_fit", 3, 4, 1),
        ev("ptr", "direct-evidence", "pointer", "pointer", 9, 1, 1),
        ev("over", "direct-evidence", "excluded", "over_budget", 9, 1, 1),
        ev("exp", "direct-evidence", "excluded", "expiry", 1, 1, 1),
        ev("sum", "history-summary", "excluded", "conflict", 1, 1, 1),
    ]


def test_building_does_not_change_the_request():
    req = request(
        3,
        cand("a", size=2),
        cand("s", "history-summary", conflictsWith=["a"]),
        cand("b", size=9, reference="r"),
    )
    before = copy.deepcopy(req)
    build_context_packet(req)
    assert req == before


# ---------------------------------------------------------------------------
# The public API and its documentation
# ---------------------------------------------------------------------------


def test_public_names_are_re_exported():
    import harnessbook
    from harnessbook import context_packet

    assert harnessbook.build_context_packet is context_packet.build_context_packet
    assert harnessbook.InvalidRequestError is context_packet.InvalidRequestError
    assert issubclass(harnessbook.InvalidRequestError, ValueError)
    for name in ("build_context_packet", "InvalidRequestError"):
        assert name in harnessbook.__all__


def test_the_docstring_example_runs():
    import doctest

    from harnessbook.context_packet import builder

    outcome = doctest.testmod(builder, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_every_docstring_example_of_the_package_runs():
    """The API page shows the docstrings' examples: each one is executed, in every module."""
    import doctest
    import importlib
    import pkgutil

    import harnessbook

    attempted, failed = 0, []
    for info in pkgutil.walk_packages(harnessbook.__path__, "harnessbook."):
        if info.name.endswith("__main__"):
            continue  # running it is the command line itself
        module = importlib.import_module(info.name)
        outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False, report=False)
        attempted += outcome.attempted
        if outcome.failed:
            failed.append(info.name)
    assert failed == []
    assert attempted >= 8  # builder, errors, cli, schemas, typography, figures...


TYPED_DICTS = {
    "ContextPacketRequest": ["taskAnchor", "budgetUnits", "candidates"],
    "TaskAnchor": ["goal", "stopCondition", "verificationTarget"],
    "Candidate": CANDIDATE_KEYS,
    "ContextPacketResult": ["state", "phase", "packet", "excluded", "unknowns", "refresh", "evidence"],
    "Packet": ["taskAnchor", "selected", "pointers", "usedBudgetUnits", "budgetUnits"],
    "SelectedItem": CANDIDATE_KEYS,
    # Everything a candidate has but its content, then the load condition.
    "PointerItem": [*(key for key in CANDIDATE_KEYS if key != "content"), "loadCondition"],
    "LoadCondition": ["requiresUnits", "availableUnits"],
    "ExcludedItem": ["id", "kind", "reason", "conflictsWith", "requiresUnits", "availableUnits"],
    "UnknownItem": ["id", "missing"],
    "RefreshItem": ["id", "reason", "source", "capturedAt", "conflictsWith", "sources"],
    "EvidenceItem": ["id", "kind", "decision", "rule", "sizeUnits", "remainingBefore", "remainingAfter"],
}


def test_every_typed_dict_key_has_its_own_docstring():
    import ast
    import inspect

    from harnessbook import context_packet
    from harnessbook.context_packet import request, result

    classes = {
        node.name: node
        for module in (request, result)
        for node in ast.parse(inspect.getsource(module)).body
        if isinstance(node, ast.ClassDef)
    }
    for name, keys in TYPED_DICTS.items():
        body = classes[name].body
        documented = []
        for statement, following in zip(body, [*body[1:], None], strict=True):
            if isinstance(statement, ast.AnnAssign):
                assert isinstance(statement.target, ast.Name)
                assert (
                    isinstance(following, ast.Expr)
                    and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)
                    and following.value.value.strip()
                ), f"{name}.{statement.target.id} has no docstring"
                documented.append(statement.target.id)
        assert documented == keys, name
        assert list(getattr(context_packet, name).__annotations__) == keys


# Each TypedDict and the part of the JSON Schema that describes the same object.
SCHEMA_OBJECTS: dict[str, tuple[Literal["request", "result"], str | None]] = {
    "ContextPacketRequest": ("request", None),
    "TaskAnchor": ("request", "taskAnchor"),
    "Candidate": ("request", "candidate"),
    "ContextPacketResult": ("result", None),
    "Packet": ("result", "packet"),
    "SelectedItem": ("result", "selectedItem"),
    "PointerItem": ("result", "pointerItem"),
    "ExcludedItem": ("result", "excludedItem"),
    "UnknownItem": ("result", "unknownItem"),
    "RefreshItem": ("result", "refreshItem"),
    "EvidenceItem": ("result", "evidenceItem"),
}


def test_typed_dicts_require_at_run_time_what_the_schemas_require():
    """``__required_keys__`` is what a caller's tools read (typeguard, pydantic's TypedDict
    support...); postponed annotations (``from __future__ import annotations``) hid every
    ``NotRequired`` from it, so each key counted as required."""
    from harnessbook import context_packet, load_schema

    assert set(SCHEMA_OBJECTS) == set(TYPED_DICTS) - {"LoadCondition"}  # LoadCondition: inside pointerItem
    for name, (schema_name, definition) in SCHEMA_OBJECTS.items():
        schema = load_schema(schema_name)
        part = schema if definition is None else schema["$defs"][definition]
        typed_dict = getattr(context_packet, name)
        assert typed_dict.__required_keys__ == frozenset(part["required"]), name
        assert typed_dict.__required_keys__ | typed_dict.__optional_keys__ == frozenset(part["properties"]), (
            name
        )
    load_condition = load_schema("result")["$defs"]["pointerItem"]["properties"]["loadCondition"]
    assert context_packet.LoadCondition.__required_keys__ == frozenset(load_condition["required"])


def _enum_of(part: dict) -> list[str] | None:
    """The values a schema property allows, when it names them (``enum``, ``const``), in order."""
    if "items" in part:
        part = part["items"]
    if "enum" in part:
        return part["enum"]
    return None


def test_every_literal_type_is_the_schemas_enum():
    """Each key typed with one of the exported ``Literal`` aliases allows exactly the values, in
    the same order, that the JSON Schema's ``enum`` names for it; ``KINDS``, ``RELEVANCES``,
    ``FRESHNESSES`` and ``RULES`` are those values too. A result's ``freshness`` is typed
    ``Freshness`` (``budget_fit`` and ``pointer``, called directly, copy what they are given),
    where the result schema says ``const: "fresh"`` (the builder never selects expired items)."""
    import typing

    from harnessbook import context_packet, load_schema

    aliases = {
        value: name
        for name in context_packet.__all__
        if typing.get_origin(value := getattr(context_packet, name)) is typing.Literal
    }
    assert len(aliases) == 10, sorted(aliases.values())
    seen = set()
    for name, (schema_name, definition) in SCHEMA_OBJECTS.items():
        schema = load_schema(schema_name)
        part = schema if definition is None else schema["$defs"][definition]
        for key, hint in typing.get_type_hints(getattr(context_packet, name)).items():
            literal = typing.get_args(hint)[0] if typing.get_origin(hint) is list else hint
            if typing.get_origin(literal) is not typing.Literal:
                continue
            assert literal in aliases, f"{name}.{key} is typed with a Literal that has no exported name"
            seen.add(aliases[literal])
            expected = _enum_of(part["properties"][key])
            if expected is None:  # a result's freshness: const "fresh"
                assert (name, key) in {("SelectedItem", "freshness"), ("PointerItem", "freshness")}, (
                    name,
                    key,
                )
                assert part["properties"][key] == {"const": "fresh"}
                assert "fresh" in typing.get_args(literal)
                continue
            assert list(typing.get_args(literal)) == expected, f"{name}.{key}"
    assert seen == set(aliases.values())
    assert typing.get_args(context_packet.Kind) == context_packet.KINDS
    assert typing.get_args(context_packet.Relevance) == context_packet.RELEVANCES
    assert typing.get_args(context_packet.Freshness) == context_packet.FRESHNESSES
    assert typing.get_args(context_packet.Rule) == context_packet.RULES


def test_pydantic_reads_every_typed_dict_and_accepts_what_the_builder_makes():
    """Pydantic refuses ``typing.TypedDict`` before Python 3.12; the package's types come from
    ``typing_extensions`` there (pydantic depends on it), so a harness that validates with
    pydantic can use them on every supported version."""
    from pydantic import TypeAdapter

    from harnessbook import context_packet

    examples = Path(__file__).resolve().parents[1] / "docs" / "examples"
    requests = [
        json.loads((examples / f"cli-{name}.json").read_text(encoding="utf-8"))
        for name in ("ready", "refresh", "blocked")
    ]
    adapters = {name: TypeAdapter(getattr(context_packet, name)) for name in TYPED_DICTS}
    assert {build_context_packet(request)["state"] for request in requests} == {
        "ready",
        "refresh_required",
        "blocked",
    }
    for request in (demo_request(), *requests):
        adapters["ContextPacketRequest"].validate_python(request)
        adapters["ContextPacketResult"].validate_python(context_packet.build_context_packet(request))
