"""The result of chapter 6: the packet, and an account of every candidate.

[`build_context_packet`][harnessbook.context_packet.builder.build_context_packet] returns a
[`ContextPacketResult`][harnessbook.context_packet.result.ContextPacketResult]: plain JSON-shaped
dicts whose every key is documented here; the top-level keys and those of ``packet`` each have
their own page in the field reference.
"""

from typing import TYPE_CHECKING, Literal, NotRequired

from harnessbook.context_packet.request import Freshness, Kind, Relevance, TaskAnchor

if TYPE_CHECKING:
    from typing import TypedDict
else:  # the request's: typing_extensions' on Python 3.11 where it is installed (see request.py)
    from harnessbook.context_packet.request import TypedDict

__all__ = [
    "State",
    "Phase",
    "Decision",
    "Rule",
    "ExclusionReason",
    "RefreshReason",
    "ProvenanceKey",
    "ContextPacketResult",
    "Packet",
    "SelectedItem",
    "PointerItem",
    "LoadCondition",
    "ExcludedItem",
    "UnknownItem",
    "RefreshItem",
    "EvidenceItem",
]

State = Literal["ready", "blocked", "refresh_required"]
"""The type of the result's ``state``."""

Phase = Literal["assembled", "missing_provenance", "refresh_context"]
"""The type of the result's ``phase``."""

Decision = Literal["selected", "pointer", "excluded", "blocked", "not_assessed"]
"""The type of an evidence record's ``decision``."""

Rule = Literal["provenance_gate", "expiry", "conflict", "budget_fit", "pointer", "over_budget"]
"""The type of an evidence record's ``rule``: the values of
[`RULES`][harnessbook.context_packet.RULES], in the same order."""

ExclusionReason = Literal["expired", "conflict", "over_budget"]
"""The type of an excluded item's ``reason``."""

RefreshReason = Literal["expired", "conflict"]
"""The type of a refresh item's ``reason``."""

ProvenanceKey = Literal["source", "capturedAt"]
"""The type of each entry of an unknown item's ``missing``."""


class LoadCondition(TypedDict):
    """Why a pointer was not loaded in full, and what loading it would take."""

    requiresUnits: int
    """The item's ``sizeUnits``."""

    availableUnits: int
    """The budget that was left when the item was processed."""


class SelectedItem(TypedDict):
    """A copy of a candidate, content included, that fitted the remaining budget."""

    id: str
    """The candidate's id."""
    kind: Kind
    """The candidate's kind."""
    source: str
    """The candidate's source."""
    capturedAt: str
    """The candidate's capture time."""
    relevance: Relevance
    """The candidate's relevance."""
    freshness: Freshness
    """Always ``fresh``: expired items are never selected."""
    sizeUnits: int
    """The units this item takes from the budget."""
    content: str
    """The candidate's full text."""
    reference: NotRequired[str]
    """Copied when the candidate had one."""
    conflictsWith: NotRequired[str | list[str]]
    """Copied when the candidate had one."""


class PointerItem(TypedDict):
    """A candidate over budget that can be loaded on demand: everything but its content."""

    id: str
    """The candidate's id."""
    kind: Kind
    """The candidate's kind."""
    source: str
    """The candidate's source."""
    capturedAt: str
    """The candidate's capture time."""
    relevance: Relevance
    """The candidate's relevance."""
    freshness: Freshness
    """Always ``fresh``."""
    sizeUnits: int
    """The candidate's size."""
    reference: str
    """Where to load the item from, as the request gave it. The builder never opens or loads it."""
    conflictsWith: NotRequired[str | list[str]]
    """Copied when the candidate had one."""
    loadCondition: LoadCondition
    """The units loading the item requires and the units that were available."""


class Packet(TypedDict):
    """The assembled packet: the anchor, what was selected, what was pointed to, the budget."""

    taskAnchor: TaskAnchor
    """A copy of the request's task anchor."""

    selected: list[SelectedItem]
    """Items included in full, in processing order."""

    pointers: list[PointerItem]
    """Items over budget that carry a non-blank reference, in processing order."""

    usedBudgetUnits: int
    """Sum of the selected items' ``sizeUnits``; never more than ``budgetUnits``."""

    budgetUnits: int
    """The request's budget, repeated so the packet can be read on its own."""


class ExcludedItem(TypedDict):
    """A candidate left out of the packet, and why."""

    id: str
    """The candidate's id."""
    kind: Kind
    """The candidate's kind."""
    reason: ExclusionReason
    """Why it was left out."""
    conflictsWith: NotRequired[list[str]]
    """``conflict`` only: the fresh current direct evidence ids this summary contradicts."""
    requiresUnits: NotRequired[int]
    """``over_budget`` only: the item's size."""
    availableUnits: NotRequired[int]
    """``over_budget`` only: the budget that was left."""


class UnknownItem(TypedDict):
    """A candidate that stopped assembly because its provenance is missing."""

    id: str
    """The candidate's id."""
    missing: list[ProvenanceKey]
    """The provenance keys that are absent, null or blank, in this order."""


class RefreshItem(TypedDict):
    """A request to obtain evidence again before going on."""

    id: str
    """The candidate that needs refreshing: expired evidence or the conflicting summary."""
    reason: RefreshReason
    """Why."""
    source: NotRequired[str]
    """``expired`` only: where the expired evidence came from."""
    capturedAt: NotRequired[str]
    """``expired`` only: when it was captured."""
    conflictsWith: NotRequired[list[str]]
    """``conflict`` only: the evidence ids the summary contradicts."""
    sources: NotRequired[dict[str, str]]
    """``conflict`` only: the source of the summary and of each conflicting evidence, by id."""


class EvidenceItem(TypedDict):
    """The record of one decision: which rule decided what, and the budget around it."""

    id: str
    """The candidate's id."""
    kind: Kind
    """The candidate's kind."""
    decision: Decision
    """What happened to the candidate. A blocked result records ``blocked`` for each candidate
    that lacks provenance and ``not_assessed`` for every other one, all with the rule
    ``provenance_gate``."""
    rule: Rule
    """The stable code of the rule that decided (see [`RULES`][harnessbook.context_packet.RULES])."""
    sizeUnits: int
    """The candidate's size."""
    remainingBefore: int
    """Budget left before this decision."""
    remainingAfter: int
    """Budget left after it."""


class ContextPacketResult(TypedDict):
    """What [`build_context_packet`][harnessbook.context_packet.build_context_packet] returns.
    Every key is always present."""

    state: State
    """``blocked`` when provenance is missing; ``refresh_required`` when anything needs
    refreshing; otherwise ``ready`` (the explicit rules hold, nothing more)."""

    phase: Phase
    """The phase that goes with the state: ``assembled``, ``missing_provenance`` or
    ``refresh_context``."""

    packet: Packet
    """The packet itself. When blocked, ``selected`` and ``pointers`` are empty and
    ``usedBudgetUnits`` is 0; ``taskAnchor`` and ``budgetUnits`` are still there."""

    excluded: list[ExcludedItem]
    """Items left out, in processing order, each with its reason."""

    unknowns: list[UnknownItem]
    """Items whose provenance is missing, in input order. Non-empty only when blocked."""

    refresh: list[RefreshItem]
    """Evidence to obtain again: expired current direct evidence and conflicting summaries."""

    evidence: list[EvidenceItem]
    """One decision record per candidate, in processing order (input order when blocked)."""
