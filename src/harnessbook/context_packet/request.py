"""The request of chapter 6: its vocabulary and its shape, one key at a time.

A request is a plain JSON-shaped dict: a [`TaskAnchor`][harnessbook.context_packet.request.TaskAnchor],
an abstract budget and a list of [`Candidate`][harnessbook.context_packet.request.Candidate] items.
Every key has its own docstring, and every key has its own page in the field reference.
[`validate_request`][harnessbook.context_packet.validation.validate_request] checks a request
against these types.
"""

import sys
from typing import TYPE_CHECKING, Literal, NotRequired, get_args

if TYPE_CHECKING or sys.version_info >= (3, 12):
    from typing import TypedDict
else:  # pragma: no cover - Python 3.11
    # Pydantic refuses typing.TypedDict before Python 3.12 and asks for typing_extensions':
    # used where it is installed, as it is wherever pydantic is. There, typing.is_typeddict()
    # says False for these types (typing_extensions.is_typeddict() says True, on every version).
    try:
        from typing_extensions import TypedDict
    except ImportError:
        from typing import TypedDict

__all__ = [
    "Kind",
    "Relevance",
    "Freshness",
    "KINDS",
    "RELEVANCES",
    "FRESHNESSES",
    "TaskAnchor",
    "Candidate",
    "ContextPacketRequest",
]

Kind = Literal["constraint", "direct-evidence", "history-summary", "reference"]
"""The type of a candidate's ``kind``, for annotating a caller's own code."""

Relevance = Literal["current", "background"]
"""The type of a candidate's ``relevance``."""

Freshness = Literal["fresh", "expired"]
"""The type of a candidate's ``freshness``."""

KINDS: tuple[Kind, ...] = get_args(Kind)
"""The allowed values of a candidate's ``kind``."""

RELEVANCES: tuple[Relevance, ...] = get_args(Relevance)
"""The allowed values of a candidate's ``relevance``."""

FRESHNESSES: tuple[Freshness, ...] = get_args(Freshness)
"""The allowed values of a candidate's ``freshness``."""


class TaskAnchor(TypedDict):
    """What the current call is for. All three keys are required, non-blank strings."""

    goal: str
    """The goal of the current call, e.g. "locate the single failing test"."""

    stopCondition: str
    """When the harness must stop instead of going on, e.g. "stop when no traceable direct
    evidence is left"."""

    verificationTarget: str
    """What a result is checked against, e.g. "the injected test name"."""


class Candidate(TypedDict):
    """One candidate context item, with the values the test (or the harness) injected."""

    id: str
    """Non-blank string, unique within the request. Every decision refers to it."""

    kind: Kind
    """The item's category. Decides its processing tier: constraint and direct-evidence
    first, then history-summary, then reference."""

    source: NotRequired[str | None]
    """Where the item came from (e.g. ``injected:test-output``). Absent, null or blank
    blocks the packet (``missing_provenance``); any other non-string is an input error."""

    capturedAt: NotRequired[str | None]
    """When the item was captured: an RFC 3339 full-date (``2026-07-15``) or date-time with
    a time zone (``2026-07-15T09:30:00Z``). Absent, null or blank blocks the packet."""

    relevance: Relevance
    """The item's relation to the current task. ``current`` together with
    ``kind: direct-evidence`` makes it current direct evidence."""

    freshness: Freshness
    """Whether the item may still be used. ``expired`` items never enter ``selected``."""

    sizeUnits: int
    """The item's size in abstract budget units (not tokens or characters): an integer >= 0 and at
    most [`MAX_UNITS`][harnessbook.context_packet.MAX_UNITS] (2^53 - 1); ``true`` and ``8.0`` are not
    integers here."""

    content: str
    """The item's full text. Copied only into ``selected``; never into pointers or evidence."""

    reference: NotRequired[str]
    """Where the full item can be loaded on demand. An item over budget with a non-blank
    reference becomes a pointer instead of being excluded. The builder checks that it is not
    blank and copies it; it never opens or loads what it names."""

    conflictsWith: NotRequired[str | list[str]]
    """History summaries only: the id (or ids) of candidates this summary contradicts.
    A conflict with fresh current direct evidence excludes the summary and asks for a refresh."""


class ContextPacketRequest(TypedDict):
    """The argument of [`build_context_packet`][harnessbook.context_packet.build_context_packet]."""

    taskAnchor: TaskAnchor
    """Fixes the current goal, stop condition and verification target."""

    budgetUnits: int
    """Capacity of the packet in abstract units: an integer > 0 and at most
    [`MAX_UNITS`][harnessbook.context_packet.MAX_UNITS] (2^53 - 1); ``true`` and ``8.0`` are not
    integers here."""

    candidates: list[Candidate]
    """Candidate items, in input order. An empty list is valid."""


# The keys of each object, in the contract's order. Read from the types above, so the
# validator and the builder's copies cannot disagree with the documented contract.
REQUEST_KEYS: tuple[str, ...] = tuple(ContextPacketRequest.__annotations__)
ANCHOR_KEYS: tuple[str, ...] = tuple(TaskAnchor.__annotations__)
CANDIDATE_KEYS: tuple[str, ...] = tuple(Candidate.__annotations__)
