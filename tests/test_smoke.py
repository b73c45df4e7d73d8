"""The chapter's demo, end to end: the smallest check that the builder works at all."""

from harnessbook import build_context_packet, demo_request


def test_demo_packet_matches_the_chapter():
    result = build_context_packet(demo_request())
    assert (result["state"], result["phase"]) == ("ready", "assembled")
    assert [item["id"] for item in result["packet"]["selected"]] == ["failure-output"]
    assert [item["id"] for item in result["packet"]["pointers"]] == ["large-ci-log"]
    assert (result["packet"]["usedBudgetUnits"], result["packet"]["budgetUnits"]) == (3, 8)
