"""The rules of steps 2 to 4 of chapter 6, one function per rule, in the order they apply.

[`provenance_gate`][harnessbook.context_packet.rules.provenance_gate] runs on the whole request
first; [`processing_order`][harnessbook.context_packet.rules.processing_order] then fixes the
order, and each candidate is decided by the first of
[`expiry`][harnessbook.context_packet.rules.expiry],
[`conflict`][harnessbook.context_packet.rules.conflict],
[`budget_fit`][harnessbook.context_packet.rules.budget_fit],
[`pointer`][harnessbook.context_packet.rules.pointer] and
[`over_budget`][harnessbook.context_packet.rules.over_budget] that applies. Each rule takes
validated candidates and returns the entries the result will hold
([`processing_order`][harnessbook.context_packet.rules.processing_order] returns the candidates
in order); none of them mutates anything.

A rule of step 4 checks only its own condition. It assumes what the builder has settled before
calling it: the candidate passed the provenance gate, and no earlier rule of step 4 decided it.
Called on its own, out of that order, a rule can return an entry the builder never would (an
expired candidate selected in full, say); each rule's docstring says what it assumes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, TypedDict, cast, get_args

from harnessbook.context_packet.checks import _conflict_targets, _is_blank
from harnessbook.context_packet.request import Candidate
from harnessbook.context_packet.result import (
    ExcludedItem,
    LoadCondition,
    PointerItem,
    ProvenanceKey,
    RefreshItem,
    Rule,
    SelectedItem,
    UnknownItem,
)

__all__ = [
    "TIERS",
    "RULES",
    "provenance_gate",
    "processing_order",
    "expiry",
    "conflict",
    "budget_fit",
    "pointer",
    "over_budget",
]

TIERS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "constraint": 1,
        "direct-evidence": 1,
        "history-summary": 2,
        "reference": 3,
    }
)
"""Processing tier of each kind: lower tiers are processed first (the book's convention).
Every build reads it; read-only, so that no caller can change another call's order.
A read-only mapping (``types.MappingProxyType``), not a dict: ``json.dumps``, ``copy.deepcopy``
and ``pickle`` refuse it; ``dict(...)`` makes a copy."""

RULES: tuple[Rule, ...] = (
    "provenance_gate",
    "expiry",
    "conflict",
    "budget_fit",
    "pointer",
    "over_budget",
)
"""The stable rule codes that appear in ``evidence[].rule``, in the order they apply."""


# ---------------------------------------------------------------------------
# Step 2: the provenance gate
# ---------------------------------------------------------------------------

_PROVENANCE_KEYS: tuple[ProvenanceKey, ...] = get_args(ProvenanceKey)


def provenance_gate(candidates: list[Candidate]) -> list[UnknownItem]:
    """Provenance gate: list every candidate whose ``source`` or ``capturedAt`` is missing.

    Chapter: [provenance gate][rule-provenance-gate], step 2 on the rules page.

    A claim without provenance must not slip silently into the packet, so any entry here
    blocks assembly (``blocked`` / ``missing_provenance``).

    Args:
        candidates: Validated candidates, in input order.

    Returns:
        One ``{"id", "missing"}`` entry per such candidate, in input order; ``missing``
            names ``source`` and/or ``capturedAt``, in that order, when absent, null or blank.
    """
    unknowns: list[UnknownItem] = []
    for candidate in candidates:
        source = candidate.get("source")
        captured = candidate.get("capturedAt")
        # Validated values are str or None; a str is blank when empty or all whitespace.
        if source and captured and not source.isspace() and not captured.isspace():
            continue
        missing = [key for key in _PROVENANCE_KEYS if _is_blank(candidate.get(key))]
        unknowns.append({"id": candidate["id"], "missing": missing})
    return unknowns


# ---------------------------------------------------------------------------
# Step 3: processing order
# ---------------------------------------------------------------------------


def processing_order(candidates: list[Candidate]) -> list[Candidate]:
    """Processing order: constraint and direct-evidence first, then history-summary, then reference.

    Chapter: [processing order][rule-processing-order], step 3 on the rules page.

    The sort is stable, so candidates of one tier keep their input order. The priority is
    the book's teaching convention, not a claim about what models need.

    Args:
        candidates: Validated candidates, in input order.

    Returns:
        A new list of the same candidates, sorted by [`TIERS`][harnessbook.context_packet.TIERS];
            ``candidates`` is left as it was.
    """
    return sorted(candidates, key=lambda candidate: TIERS[candidate["kind"]])


# ---------------------------------------------------------------------------
# Step 4: one decision per candidate, by the first of five rules that applies
# ---------------------------------------------------------------------------


def _is_current_direct_evidence(candidate: Candidate) -> bool:
    return candidate["kind"] == "direct-evidence" and candidate["relevance"] == "current"


def _provenance(candidate: Candidate) -> tuple[str, str]:
    # The rules of step 4 only see candidates that passed the provenance gate, so both keys hold
    # non-blank strings; the request type allows them to be absent or null before the gate.
    return cast(str, candidate.get("source")), cast(str, candidate.get("capturedAt"))


def expiry(candidate: Candidate) -> tuple[ExcludedItem, RefreshItem | None] | None:
    """Expiry: an expired candidate is excluded; expired current direct evidence also
    asks for a refresh, so an old log is never written down as the current fact.

    Chapter: [expiry][rule-expiry], the first rule of step 4 on the rules page.

    As the first rule of step 4 it assumes only that the candidate passed the provenance gate,
    which it does not check: a refresh record copies ``source`` and ``capturedAt`` as they are.

    Args:
        candidate: A validated candidate that passed the provenance gate.

    Returns:
        ``None`` if the candidate is fresh, else its ``excluded`` entry and its ``refresh``
            entry (``None`` unless it is current direct evidence).
    """
    if candidate["freshness"] != "expired":
        return None
    excluded: ExcludedItem = {"id": candidate["id"], "kind": candidate["kind"], "reason": "expired"}
    if not _is_current_direct_evidence(candidate):
        return excluded, None
    source, captured_at = _provenance(candidate)
    refresh: RefreshItem = {
        "id": candidate["id"],
        "reason": "expired",
        "source": source,
        "capturedAt": captured_at,
    }
    return excluded, refresh


def conflict(
    candidate: Candidate, fresh_evidence: dict[str, Candidate]
) -> tuple[ExcludedItem, RefreshItem] | None:
    """Conflict: a history summary that contradicts fresh current direct evidence is
    excluded and a refresh is requested, recording both sides' sources.

    Chapter: [conflict][rule-conflict], the second rule of step 4 on the rules page.

    The builder does not decide which side is true; it only refuses to let the old summary
    displace the new evidence.

    It assumes what the builder has settled: the candidate passed the provenance gate and
    [`expiry`][harnessbook.context_packet.rules.expiry] did not decide it (so it is fresh), and ``fresh_evidence`` holds only
    the request's fresh current direct evidence. It checks none of this: it reads the
    candidate's ``kind`` and ``conflictsWith`` and looks each target up in ``fresh_evidence``.
    Given an expired summary, it can still report a conflict; given one without provenance, the
    ``sources`` entry of the summary is ``None``; any candidate put in ``fresh_evidence`` counts
    as evidence to conflict with.

    Args:
        candidate: A validated candidate that passed the provenance gate and that
            [`expiry`][harnessbook.context_packet.rules.expiry] did not decide.
        fresh_evidence: The request's fresh current direct evidence, by id, as the builder
            collects it; not checked here.

    Returns:
        ``None`` if there is no such conflict, else the ``excluded`` and ``refresh`` entries.
    """
    if candidate["kind"] != "history-summary" or "conflictsWith" not in candidate:
        return None
    ids = [target for target in _conflict_targets(candidate) if target in fresh_evidence]
    if not ids:
        return None
    sources = {candidate["id"]: _provenance(candidate)[0]}
    for target in ids:
        sources[target] = _provenance(fresh_evidence[target])[0]
    excluded: ExcludedItem = {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "reason": "conflict",
        "conflictsWith": ids,
    }
    refresh: RefreshItem = {
        "id": candidate["id"],
        "reason": "conflict",
        "conflictsWith": list(ids),
        "sources": sources,
    }
    return excluded, refresh


def _conflicts_copy(candidate: Candidate) -> str | list[str]:
    # A conflict list is copied so the result shares no mutable object with the request.
    targets = candidate["conflictsWith"]
    return list(targets) if isinstance(targets, list) else targets


def budget_fit(candidate: Candidate, remaining: int) -> SelectedItem | None:
    """Budget fit: a candidate that fits the remaining budget is selected in full.

    Chapter: [budget fit][rule-budget-fit], the third rule of step 4 on the rules page.

    First fit: a later, smaller candidate can still fit after a larger one did not.

    It assumes the rules before it did not decide the candidate: it passed the provenance gate,
    and neither [`expiry`][harnessbook.context_packet.rules.expiry] nor [`conflict`][harnessbook.context_packet.rules.conflict] applied (so it is fresh, and not a summary that
    contradicts fresh current direct evidence). It checks only the size against ``remaining``:
    given an expired candidate that fits, it selects it.

    Args:
        candidate: A validated candidate that passed the provenance gate and that neither
            [`expiry`][harnessbook.context_packet.rules.expiry] nor [`conflict`][harnessbook.context_packet.rules.conflict] decided.
        remaining: The budget units left before this decision.

    Returns:
        A copy of the candidate, content included, or ``None`` if it does not fit.
    """
    if candidate["sizeUnits"] > remaining:
        return None
    source, captured_at = _provenance(candidate)
    # The contract's key order, so the output does not depend on the request's key order.
    item: SelectedItem = {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "source": source,
        "capturedAt": captured_at,
        "relevance": candidate["relevance"],
        "freshness": candidate["freshness"],
        "sizeUnits": candidate["sizeUnits"],
        "content": candidate["content"],
    }
    if "reference" in candidate:
        item["reference"] = candidate["reference"]
    if "conflictsWith" in candidate:
        item["conflictsWith"] = _conflicts_copy(candidate)
    return item


class _Conflicts(TypedDict, total=False):
    conflictsWith: str | list[str]


def pointer(candidate: Candidate, remaining: int) -> PointerItem | None:
    """Pointer: a candidate over budget with a non-blank ``reference`` becomes a pointer.

    Chapter: [pointer][rule-pointer], the fourth rule of step 4 on the rules page.

    The pointer records where the item lives and what loading it would take; the builder
    never reads the reference.

    It assumes the rules before it did not decide the candidate: it passed the provenance gate,
    neither [`expiry`][harnessbook.context_packet.rules.expiry] nor [`conflict`][harnessbook.context_packet.rules.conflict] applied, and [`budget_fit`][harnessbook.context_packet.rules.budget_fit] did not select it
    (so it is fresh and larger than ``remaining``). It checks only the reference: given an
    expired candidate it returns a pointer whose ``freshness`` is ``expired``, and given one that
    fits, a pointer whose ``requiresUnits`` is not above its ``availableUnits``.

    Args:
        candidate: A validated candidate that passed the provenance gate and that none of
            [`expiry`][harnessbook.context_packet.rules.expiry], [`conflict`][harnessbook.context_packet.rules.conflict] and [`budget_fit`][harnessbook.context_packet.rules.budget_fit] decided.
        remaining: The budget units left before this decision.

    Returns:
        The candidate without its content, plus ``loadCondition``, or ``None`` if it has no
            usable reference.
    """
    reference = candidate.get("reference", "")
    if not reference.strip():
        return None
    source, captured_at = _provenance(candidate)
    load: LoadCondition = {"requiresUnits": candidate["sizeUnits"], "availableUnits": remaining}
    # The candidate's keys in the contract's order, without its content, then the condition.
    conflicts: _Conflicts = {}
    if "conflictsWith" in candidate:
        conflicts["conflictsWith"] = _conflicts_copy(candidate)
    return {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "source": source,
        "capturedAt": captured_at,
        "relevance": candidate["relevance"],
        "freshness": candidate["freshness"],
        "sizeUnits": candidate["sizeUnits"],
        "reference": reference,
        **conflicts,
        "loadCondition": load,
    }


def over_budget(candidate: Candidate, remaining: int) -> ExcludedItem:
    """Over budget: a candidate that neither fits nor can be pointed to is excluded,
    with the units it required and the units that were available.

    Chapter: [over budget][rule-over-budget], the last rule of step 4 on the rules page.

    It assumes no earlier rule decided the candidate: it passed the provenance gate, neither
    [`expiry`][harnessbook.context_packet.rules.expiry] nor [`conflict`][harnessbook.context_packet.rules.conflict] applied, it does not fit ``remaining`` and it has no non-blank
    ``reference`` ([`budget_fit`][harnessbook.context_packet.rules.budget_fit] and [`pointer`][harnessbook.context_packet.rules.pointer] returned ``None``). It checks none of
    this: whatever candidate it is given, it returns an ``over_budget`` entry.

    Args:
        candidate: A validated candidate that passed the provenance gate and that none of
            [`expiry`][harnessbook.context_packet.rules.expiry], [`conflict`][harnessbook.context_packet.rules.conflict], [`budget_fit`][harnessbook.context_packet.rules.budget_fit] and [`pointer`][harnessbook.context_packet.rules.pointer] decided.
        remaining: The budget units left before this decision.

    Returns:
        The candidate's ``excluded`` entry: ``reason`` ``over_budget``, with ``requiresUnits``
            (its size) and ``availableUnits`` (``remaining``).
    """
    return {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "reason": "over_budget",
        "requiresUnits": candidate["sizeUnits"],
        "availableUnits": remaining,
    }
