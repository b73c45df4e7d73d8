"""The minimal context packet of chapter 6: ``build_context_packet``.

A harness has a failing test, a related diff, an old history summary and a huge
log in hand at once. [`build_context_packet`][harnessbook.context_packet.build_context_packet]
turns a task anchor, an abstract budget and those candidate items into an inspectable packet:
what is selected in full, what becomes a pointer, what is excluded and why, what is
unknown, what needs refreshing, and one decision record per candidate (``evidence``).

The function is pure and deterministic: it reads nothing but its argument (no
file, clock, environment, network or model), never mutates it, and returns
plain JSON-shaped dicts that share no mutable object with the request. Budget
units are the book's abstract capacity units, not tokens, characters or cost.

The package reads top to bottom as the chapter does, one module per role:
[`request`][harnessbook.context_packet.request] (the request and its vocabulary),
[`errors`][harnessbook.context_packet.errors] (the error and how it words problems),
[`validation`][harnessbook.context_packet.validation] (step 1 of the rules page, validate),
[`rules`][harnessbook.context_packet.rules] (the rules of steps 2 to 4),
[`result`][harnessbook.context_packet.result] (the result),
[`builder`][harnessbook.context_packet.builder] (the function that applies the rules) and
[`demo`][harnessbook.context_packet.demo] (the chapter's demo request). Every public name of the modules is
re-exported here, so ``from harnessbook.context_packet import build_context_packet`` works.

Every rule is a small function named after it, in the order the chapter gives:
[`validate_request`][harnessbook.context_packet.validate_request],
[`provenance_gate`][harnessbook.context_packet.provenance_gate],
[`processing_order`][harnessbook.context_packet.processing_order],
[`expiry`][harnessbook.context_packet.expiry],
[`conflict`][harnessbook.context_packet.conflict],
[`budget_fit`][harnessbook.context_packet.budget_fit],
[`pointer`][harnessbook.context_packet.pointer] and
[`over_budget`][harnessbook.context_packet.over_budget].
"""

from harnessbook.context_packet.builder import build_context_packet
from harnessbook.context_packet.demo import demo_request
from harnessbook.context_packet.errors import (
    KEY_WIDTH,
    MAX_PROBLEMS,
    SHOWN_WIDTH,
    InvalidRequestError,
    Problem,
)
from harnessbook.context_packet.request import (
    FRESHNESSES,
    KINDS,
    RELEVANCES,
    Candidate,
    ContextPacketRequest,
    Freshness,
    Kind,
    Relevance,
    TaskAnchor,
)
from harnessbook.context_packet.result import (
    ContextPacketResult,
    Decision,
    EvidenceItem,
    ExcludedItem,
    ExclusionReason,
    LoadCondition,
    Packet,
    Phase,
    PointerItem,
    ProvenanceKey,
    RefreshItem,
    RefreshReason,
    Rule,
    SelectedItem,
    State,
    UnknownItem,
)
from harnessbook.context_packet.rules import (
    RULES,
    TIERS,
    budget_fit,
    conflict,
    expiry,
    over_budget,
    pointer,
    processing_order,
    provenance_gate,
)
from harnessbook.context_packet.validation import MAX_UNITS, validate_request

__all__ = [
    "build_context_packet",
    "validate_request",
    "InvalidRequestError",
    "Problem",
    "demo_request",
    "KINDS",
    "RELEVANCES",
    "FRESHNESSES",
    "TIERS",
    "RULES",
    "ContextPacketRequest",
    "TaskAnchor",
    "Candidate",
    "ContextPacketResult",
    "Packet",
    "SelectedItem",
    "PointerItem",
    "LoadCondition",
    "ExcludedItem",
    "UnknownItem",
    "RefreshItem",
    "EvidenceItem",
    "Kind",
    "Relevance",
    "Freshness",
    "State",
    "Phase",
    "Decision",
    "Rule",
    "ExclusionReason",
    "RefreshReason",
    "ProvenanceKey",
    "provenance_gate",
    "processing_order",
    "expiry",
    "conflict",
    "budget_fit",
    "pointer",
    "over_budget",
    "MAX_UNITS",
    "MAX_PROBLEMS",
    "SHOWN_WIDTH",
    "KEY_WIDTH",
]
