"""The builder of chapter 6: [`build_context_packet`][harnessbook.context_packet.builder.build_context_packet]
applies the rules in order and records one decision per candidate.
"""

from __future__ import annotations

from typing import Literal

from harnessbook.context_packet.request import Candidate, ContextPacketRequest, TaskAnchor
from harnessbook.context_packet.result import (
    ContextPacketResult,
    EvidenceItem,
    ExcludedItem,
    PointerItem,
    RefreshItem,
    SelectedItem,
    UnknownItem,
)
from harnessbook.context_packet.rules import (
    _is_current_direct_evidence,
    budget_fit,
    conflict,
    expiry,
    over_budget,
    pointer,
    processing_order,
    provenance_gate,
)
from harnessbook.context_packet.validation import _validated

__all__ = ["build_context_packet"]


_Decision = Literal["selected", "pointer", "excluded", "blocked", "not_assessed"]
_Rule = Literal["provenance_gate", "expiry", "conflict", "budget_fit", "pointer", "over_budget"]
_State = Literal["ready", "blocked", "refresh_required"]
_Phase = Literal["assembled", "missing_provenance", "refresh_context"]


def _evidence(
    candidate: Candidate, decision: _Decision, rule: _Rule, before: int, after: int
) -> EvidenceItem:
    return {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "decision": decision,
        "rule": rule,
        "sizeUnits": candidate["sizeUnits"],
        "remainingBefore": before,
        "remainingAfter": after,
    }


def _result(
    state: _State,
    phase: _Phase,
    anchor: TaskAnchor,
    budget: int,
    used: int,
    *,
    selected: list[SelectedItem],
    pointers: list[PointerItem],
    excluded: list[ExcludedItem],
    unknowns: list[UnknownItem],
    refresh: list[RefreshItem],
    evidence: list[EvidenceItem],
) -> ContextPacketResult:
    return {
        "state": state,
        "phase": phase,
        "packet": {
            # A fresh copy in the contract's key order, whatever the request's order was.
            "taskAnchor": {
                "goal": anchor["goal"],
                "stopCondition": anchor["stopCondition"],
                "verificationTarget": anchor["verificationTarget"],
            },
            "selected": selected,
            "pointers": pointers,
            "usedBudgetUnits": used,
            "budgetUnits": budget,
        },
        "excluded": excluded,
        "unknowns": unknowns,
        "refresh": refresh,
        "evidence": evidence,
    }


def build_context_packet(request: ContextPacketRequest) -> ContextPacketResult:
    """Assemble the minimal context packet for one call: select, point, exclude, record.

    The rules apply in the chapter's order: validate the request; stop at the provenance
    gate if any candidate lacks ``source`` or ``capturedAt``; otherwise process candidates
    tier by tier (constraint and direct-evidence, then history-summary, then reference;
    input order within a tier), and let the first rule that applies decide each one:
    expiry, conflict, budget fit, pointer, over budget.

    The function is pure: no I/O, no clock, no environment; the request is not mutated and
    the result shares no mutable object with it. The same request always gives an equal
    result. The request must not change while the call reads it (another thread that changes
    it may make the call fail with another error than ``InvalidRequestError``, as changing a
    dict while Python iterates over it does); a caller that shares it passes a copy.

    Chapter: [the output contract][output-contract], and [a walkthrough][walkthrough] that
    follows one request through the rules.

    Args:
        request: A JSON-shaped dict with ``taskAnchor``, ``budgetUnits`` and ``candidates``
            (see [`ContextPacketRequest`][harnessbook.context_packet.ContextPacketRequest]).

    Returns:
        A [`ContextPacketResult`][harnessbook.context_packet.ContextPacketResult]: ``state``,
            ``phase``, ``packet``, ``excluded``, ``unknowns``, ``refresh`` and ``evidence``, always
            all present. Never a concatenated string.

    Raises:
        InvalidRequestError: If the request breaks the contract; ``problems`` lists the
            problems with their JSON paths (the first
            [`MAX_PROBLEMS`][harnessbook.context_packet.errors.MAX_PROBLEMS], then one line
            that counts the rest).

    Examples:
        >>> from harnessbook import build_context_packet, demo_request
        >>> result = build_context_packet(demo_request())
        >>> result["state"], result["phase"]
        ('ready', 'assembled')
        >>> [item["id"] for item in result["packet"]["selected"]]
        ['failure-output']
        >>> [item["id"] for item in result["packet"]["pointers"]]
        ['large-ci-log']
        >>> result["packet"]["usedBudgetUnits"], result["packet"]["budgetUnits"]
        (3, 8)
    """
    # Validation hands back a plain copy when the request holds subclasses (an IntEnum
    # budget, a str enum id), so the result is plain JSON whatever the caller passed.
    request = _validated(request)
    anchor = request["taskAnchor"]
    budget = request["budgetUnits"]
    candidates = request["candidates"]

    unknowns = provenance_gate(candidates)
    if unknowns:
        blocked_ids = {item["id"] for item in unknowns}
        blocked_evidence = [
            _evidence(
                candidate,
                "blocked" if candidate["id"] in blocked_ids else "not_assessed",
                "provenance_gate",
                budget,
                budget,
            )
            for candidate in candidates
        ]
        return _result(
            "blocked",
            "missing_provenance",
            anchor,
            budget,
            0,
            selected=[],
            pointers=[],
            excluded=[],
            unknowns=unknowns,
            refresh=[],
            evidence=blocked_evidence,
        )

    # Conflicts are looked up by id (linear in the number of candidates, never pairwise).
    fresh_evidence = {
        candidate["id"]: candidate
        for candidate in candidates
        if _is_current_direct_evidence(candidate) and candidate["freshness"] == "fresh"
    }
    selected: list[SelectedItem] = []
    pointers: list[PointerItem] = []
    excluded: list[ExcludedItem] = []
    refresh: list[RefreshItem] = []
    evidence: list[EvidenceItem] = []
    remaining = budget

    for candidate in processing_order(candidates):
        before = remaining
        if (expired := expiry(candidate)) is not None:
            excluded.append(expired[0])
            if expired[1] is not None:
                refresh.append(expired[1])
            evidence.append(_evidence(candidate, "excluded", "expiry", before, remaining))
        elif (conflicting := conflict(candidate, fresh_evidence)) is not None:
            excluded.append(conflicting[0])
            refresh.append(conflicting[1])
            evidence.append(_evidence(candidate, "excluded", "conflict", before, remaining))
        elif (item := budget_fit(candidate, remaining)) is not None:
            selected.append(item)
            remaining -= candidate["sizeUnits"]
            evidence.append(_evidence(candidate, "selected", "budget_fit", before, remaining))
        elif (ref := pointer(candidate, remaining)) is not None:
            pointers.append(ref)
            evidence.append(_evidence(candidate, "pointer", "pointer", before, remaining))
        else:
            excluded.append(over_budget(candidate, remaining))
            evidence.append(_evidence(candidate, "excluded", "over_budget", before, remaining))

    state: _State
    phase: _Phase
    state, phase = ("refresh_required", "refresh_context") if refresh else ("ready", "assembled")
    return _result(
        state,
        phase,
        anchor,
        budget,
        budget - remaining,
        selected=selected,
        pointers=pointers,
        excluded=excluded,
        unknowns=[],
        refresh=refresh,
        evidence=evidence,
    )
