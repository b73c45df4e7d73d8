"""The chapter's five test paths and its demo, as plain pytest tests.

docs/chapters/06-context-packet/verification.md runs this file twice: once against the
package before the module existed (red: ModuleNotFoundError), once against the real
package (green). The expected values come from the chapter's rules, not from a model.
"""

from harnessbook.context_packet import build_context_packet, demo_request

ANCHOR = {
    "goal": "Locate the single failing test",
    "stopCondition": "Stop when no traceable direct evidence is left",
    "verificationTarget": "the injected test name",
}


def candidate(id, kind="direct-evidence", size=3, **overrides):
    item = {
        "id": id,
        "kind": kind,
        "source": "injected:test-output",
        "capturedAt": "2026-07-15",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": size,
        "content": "...",
    }
    item.update(overrides)
    return {key: value for key, value in item.items() if value is not None}


def build(budget, *candidates):
    return build_context_packet({"taskAnchor": ANCHOR, "budgetUnits": budget, "candidates": list(candidates)})


def ids(items):
    return [item["id"] for item in items]


def test_direct_evidence_first():
    result = build(
        5,
        candidate("module-summary", "history-summary", relevance="background"),
        candidate("edit-scope", "constraint", size=2),
        candidate("failure-output"),
    )
    assert ids(result["packet"]["selected"]) == ["edit-scope", "failure-output"]
    assert [(e["id"], e["reason"]) for e in result["excluded"]] == [("module-summary", "over_budget")]


def test_expired_evidence_is_excluded_with_a_refresh():
    result = build(8, candidate("failure-log", freshness="expired"))
    assert (result["state"], result["phase"]) == ("refresh_required", "refresh_context")
    assert result["packet"]["selected"] == []
    assert [(r["id"], r["reason"]) for r in result["refresh"]] == [("failure-log", "expired")]


def test_over_budget_becomes_a_pointer():
    result = build(8, candidate("large-ci-log", size=40, reference="artifact://ci/large-ci-log.txt"))
    (pointer,) = result["packet"]["pointers"]
    assert pointer["reference"] == "artifact://ci/large-ci-log.txt"
    assert pointer["loadCondition"] == {"requiresUnits": 40, "availableUnits": 8}
    assert "content" not in pointer
    assert result["packet"]["usedBudgetUnits"] <= result["packet"]["budgetUnits"]


def test_missing_provenance_blocks():
    result = build(8, candidate("failure-output"), candidate("pasted-trace", source=None, capturedAt=None))
    assert (result["state"], result["phase"]) == ("blocked", "missing_provenance")
    assert result["unknowns"] == [{"id": "pasted-trace", "missing": ["source", "capturedAt"]}]
    assert result["packet"]["selected"] == []


def test_conflicting_summary_asks_for_a_refresh():
    result = build(
        8,
        candidate(
            "last-session",
            "history-summary",
            relevance="background",
            source="injected:session-notes",
            conflictsWith="failure-output",
        ),
        candidate("failure-output"),
    )
    assert (result["state"], result["phase"]) == ("refresh_required", "refresh_context")
    assert ids(result["packet"]["selected"]) == ["failure-output"]
    assert result["refresh"][0]["sources"] == {
        "last-session": "injected:session-notes",
        "failure-output": "injected:test-output",
    }


def test_demo():
    result = build_context_packet(demo_request())
    assert (result["state"], result["phase"]) == ("ready", "assembled")
    assert ids(result["packet"]["selected"]) == ["failure-output"]
    assert ids(result["packet"]["pointers"]) == ["large-ci-log"]
    assert (result["packet"]["usedBudgetUnits"], result["packet"]["budgetUnits"]) == (3, 8)
