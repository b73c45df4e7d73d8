"""The minimal context packet of chapter 6: ``build_context_packet``.

A harness has a failing test, a related diff, an old history summary and a huge
log in hand at once. [`build_context_packet`][harnessbook.context_packet.build_context_packet] turns a task anchor, an
abstract budget and those candidate items into an inspectable packet: what is
selected in full, what becomes a pointer, what is excluded and why, what is
unknown, what needs refreshing, and one evidence record per decision.

The function is pure and deterministic: it reads nothing but its argument (no
file, clock, environment, network or model), never mutates it, and returns
plain JSON-shaped dicts that share no mutable object with the request. Budget
units are the book's abstract capacity units, not tokens, characters or cost.

Every rule is a small function named after it, in the order the chapter gives:
[`validate_request`][harnessbook.context_packet.validate_request], [`provenance_gate`][harnessbook.context_packet.provenance_gate], [`processing_order`][harnessbook.context_packet.processing_order],
[`expiry`][harnessbook.context_packet.expiry], [`conflict`][harnessbook.context_packet.conflict], [`budget_fit`][harnessbook.context_packet.budget_fit], [`pointer`][harnessbook.context_packet.pointer] and
[`over_budget`][harnessbook.context_packet.over_budget].
"""

from __future__ import annotations

import datetime as _dt
import difflib
import functools
import json
import re
from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "build_context_packet",
    "validate_request",
    "InvalidRequestError",
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
]

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

KINDS: tuple[str, ...] = ("constraint", "direct-evidence", "history-summary", "reference")
"""The allowed values of a candidate's ``kind``."""

RELEVANCES: tuple[str, ...] = ("current", "background")
"""The allowed values of a candidate's ``relevance``."""

FRESHNESSES: tuple[str, ...] = ("fresh", "expired")
"""The allowed values of a candidate's ``freshness``."""

TIERS: dict[str, int] = {
    "constraint": 1,
    "direct-evidence": 1,
    "history-summary": 2,
    "reference": 3,
}
"""Processing tier of each kind: lower tiers are processed first (the book's convention)."""

RULES: tuple[str, ...] = (
    "provenance_gate",
    "expiry",
    "conflict",
    "budget_fit",
    "pointer",
    "over_budget",
)
"""The stable rule codes that appear in ``evidence[].rule``, in the order they apply."""


# ---------------------------------------------------------------------------
# The request
# ---------------------------------------------------------------------------


class TaskAnchor(TypedDict):
    """What the current call is for. All three keys are required, non-blank strings."""

    goal: str
    """The goal of the current call, e.g. "locate the single failing test"."""

    stopCondition: str
    """When the harness must stop instead of going on, e.g. "stop when no traceable direct evidence is left"."""

    verificationTarget: str
    """What a result is checked against, e.g. "the injected test name"."""


class Candidate(TypedDict):
    """One candidate context item, with the values the test (or the harness) injected."""

    id: str
    """Non-blank string, unique within the request. Every decision refers to it."""

    kind: Literal["constraint", "direct-evidence", "history-summary", "reference"]
    """The item's category. Decides its processing tier: constraint and direct-evidence
    first, then history-summary, then reference."""

    source: NotRequired[str | None]
    """Where the item came from (e.g. ``injected:test-output``). Absent, null or blank
    blocks the packet (``missing_provenance``); any other non-string is an input error."""

    capturedAt: NotRequired[str | None]
    """When the item was captured: an RFC 3339 full-date (``2026-07-15``) or date-time with
    a time zone (``2026-07-15T09:30:00Z``). Absent, null or blank blocks the packet."""

    relevance: Literal["current", "background"]
    """The item's relation to the current task. ``current`` together with
    ``kind: direct-evidence`` makes it current direct evidence."""

    freshness: Literal["fresh", "expired"]
    """Whether the item may still be used. ``expired`` items never enter ``selected``."""

    sizeUnits: int
    """The item's size in abstract budget units: an integer >= 0 (not tokens or characters)."""

    content: str
    """The item's full text. Copied only into ``selected``; never into pointers or evidence."""

    reference: NotRequired[str]
    """Where the full item can be loaded on demand. An item over budget with a non-blank
    reference becomes a pointer instead of being excluded. Never read by the builder."""

    conflictsWith: NotRequired[str | list[str]]
    """History summaries only: the id (or ids) of candidates this summary contradicts.
    A conflict with fresh current direct evidence excludes the summary and asks for a refresh."""


class ContextPacketRequest(TypedDict):
    """The argument of [`build_context_packet`][harnessbook.context_packet.build_context_packet]."""

    taskAnchor: TaskAnchor
    """Fixes the current goal, stop condition and verification target."""

    budgetUnits: int
    """Capacity of the packet in abstract units: an integer > 0."""

    candidates: list[Candidate]
    """Candidate items, in input order. An empty list is valid."""


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


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
    kind: str
    """The candidate's kind."""
    source: str
    """The candidate's source."""
    capturedAt: str
    """The candidate's capture time."""
    relevance: str
    """The candidate's relevance."""
    freshness: str
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
    kind: str
    """The candidate's kind."""
    source: str
    """The candidate's source."""
    capturedAt: str
    """The candidate's capture time."""
    relevance: str
    """The candidate's relevance."""
    freshness: str
    """Always ``fresh``."""
    sizeUnits: int
    """The candidate's size."""
    reference: str
    """Where to load the item from. The builder never reads it."""
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
    """Items over budget that carry a reference, in processing order."""

    usedBudgetUnits: int
    """Sum of the selected items' ``sizeUnits``; never more than ``budgetUnits``."""

    budgetUnits: int
    """The request's budget, repeated so the packet can be read on its own."""


class ExcludedItem(TypedDict):
    """A candidate left out of the packet, and why."""

    id: str
    """The candidate's id."""
    kind: str
    """The candidate's kind."""
    reason: Literal["expired", "conflict", "over_budget"]
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
    missing: list[Literal["source", "capturedAt"]]
    """The provenance keys that are absent, null or blank, in this order."""


class RefreshItem(TypedDict):
    """A request to obtain evidence again before going on."""

    id: str
    """The candidate that needs refreshing: expired evidence or the conflicting summary."""
    reason: Literal["expired", "conflict"]
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
    kind: str
    """The candidate's kind."""
    decision: Literal["selected", "pointer", "excluded", "blocked", "not_assessed"]
    """What happened to the candidate."""
    rule: Literal["provenance_gate", "expiry", "conflict", "budget_fit", "pointer", "over_budget"]
    """The stable code of the rule that decided (see [`RULES`][harnessbook.context_packet.RULES])."""
    sizeUnits: int
    """The candidate's size."""
    remainingBefore: int
    """Budget left before this decision."""
    remainingAfter: int
    """Budget left after it."""


class ContextPacketResult(TypedDict):
    """What [`build_context_packet`][harnessbook.context_packet.build_context_packet] returns. Every key is always present."""

    state: Literal["ready", "blocked", "refresh_required"]
    """``blocked`` when provenance is missing; ``refresh_required`` when anything needs
    refreshing; otherwise ``ready`` (the explicit rules hold, nothing more)."""

    phase: Literal["assembled", "missing_provenance", "refresh_context"]
    """The phase that goes with the state: ``assembled``, ``missing_provenance`` or
    ``refresh_context``."""

    packet: Packet
    """The packet itself. Empty (and ``usedBudgetUnits: 0``) when blocked."""

    excluded: list[ExcludedItem]
    """Items left out, in processing order, each with its reason."""

    unknowns: list[UnknownItem]
    """Items whose provenance is missing, in input order. Non-empty only when blocked."""

    refresh: list[RefreshItem]
    """Evidence to obtain again: expired current direct evidence and conflicting summaries."""

    evidence: list[EvidenceItem]
    """One decision record per candidate, in processing order (input order when blocked)."""


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class InvalidRequestError(ValueError):
    """The request breaks the contract. Carries every problem found, not just the first.

    Attributes:
        problems: One ``"<json path>: <what is wrong>"`` string per problem: first those of
            a top-down walk of the request (candidates in input order), then the cross-field
            problems of ``conflictsWith`` targets.
    """

    def __init__(self, problems: list[str] | tuple[str, ...]) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        count = len(self.problems)
        heading = f"invalid context packet request ({count} problem{'s' if count != 1 else ''}):"
        super().__init__("\n".join([heading, *(f"  {p}" for p in self.problems)]))


# ---------------------------------------------------------------------------
# Rule 0: validate
# ---------------------------------------------------------------------------

_REQUEST_KEYS = ("taskAnchor", "budgetUnits", "candidates")
_ANCHOR_KEYS = ("goal", "stopCondition", "verificationTarget")
_CANDIDATE_KEYS = (
    "id",
    "kind",
    "source",
    "capturedAt",
    "relevance",
    "freshness",
    "sizeUnits",
    "content",
    "reference",
    "conflictsWith",
)
_CANDIDATE_KEY_SET = frozenset(_CANDIDATE_KEYS)
_KIND_SET = frozenset(KINDS)
_RELEVANCE_SET = frozenset(RELEVANCES)
_FRESHNESS_SET = frozenset(FRESHNESSES)

_FULL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z", re.ASCII)
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))\Z",
    re.ASCII,
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_JSON_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _type_name(value: object) -> str:
    name = _JSON_TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    for base, base_name in _JSON_TYPE_NAMES.items():
        if isinstance(value, base):
            return base_name
    return f"Python {type(value).__name__}"


def _shown(value: object) -> str:
    """A short, readable rendering of a value for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = _repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _repr(value: object) -> str:
    # repr() itself fails on integers with more digits than Python converts (ValueError)
    # and on values nested deeper than the recursion limit (RecursionError).
    try:
        return repr(value)
    except RecursionError:
        return f"<{_type_name(value)} nested too deeply to show>"
    except ValueError:
        return f"<{_type_name(value)} too large to show>"


def _got(value: object) -> str:
    return f"got {_shown(value)} ({_type_name(value)})"


def _child(path: str, key: object) -> str:
    if isinstance(key, str) and _IDENTIFIER.match(key):
        return f"{path}.{key}"
    if isinstance(key, str):
        return f"{path}[{json.dumps(key, ensure_ascii=False)}]"
    return f"{path}[{key!r}]"


def _is_int(value: object) -> bool:
    # Integers are strict: True and 8.0 are not integers (the chapter's budget is a count).
    return isinstance(value, int) and not isinstance(value, bool)


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _check_unknown_keys(obj: dict, allowed: tuple[str, ...], path: str, problems: list[str]) -> None:
    # A typo ("sizeUnit") must not be silently ignored: every unknown key is a problem.
    for key in obj:
        if key in allowed:
            continue
        if isinstance(key, str):
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f" (allowed: {', '.join(allowed)})"
            problems.append(f"{_child(path, key)}: unknown key{hint}")
        else:
            problems.append(f"{path}: key {_repr(key)} is not a string; JSON object keys are strings")


def _check_non_blank_string(obj: dict, key: str, path: str, problems: list[str]) -> None:
    where = _child(path, key)
    if key not in obj:
        problems.append(f"{where}: required key is missing")
        return
    value = obj[key]
    if not isinstance(value, str):
        problems.append(f"{where}: must be a non-blank string, {_got(value)}")
    elif not value.strip():
        problems.append(f"{where}: must not be blank")


def _check_enum(obj: dict, key: str, allowed: frozenset[str], names: tuple[str, ...], path: str, problems: list[str]) -> None:
    where = _child(path, key)
    if key not in obj:
        problems.append(f"{where}: required key is missing")
        return
    value = obj[key]
    if not (isinstance(value, str) and value in allowed):
        problems.append(f"{where}: must be one of {', '.join(names)}; {_got(value)}")


@functools.lru_cache(maxsize=4096)
def _valid_timestamp(text: str) -> bool:
    """RFC 3339 full-date or date-time with a time zone (JSON Schema's date / date-time)."""
    match = _DATE_TIME.match(text) or _FULL_DATE.match(text)
    if match is None:
        return False
    year, month, day = (int(g) for g in match.group(1, 2, 3))
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    if match.re is _FULL_DATE:
        return True
    hour, minute, second = (int(g) for g in match.group(4, 5, 6))
    if hour > 23 or minute > 59 or second > 60:  # 60: RFC 3339 allows a leap second
        return False
    if match.group(7) is not None and (int(match.group(7)) > 23 or int(match.group(8)) > 59):
        return False
    return True


def _timestamp_problem(text: str) -> str:
    """Why a non-blank capturedAt is refused, in words a reader can act on."""
    if text != text.strip() and _valid_timestamp(text.strip()):
        return "must be an RFC 3339 date or date-time without surrounding whitespace"
    if _DATE_TIME.match(text) or _FULL_DATE.match(text):
        return "has the RFC 3339 shape but is not a real calendar date or time of day"
    return (
        "must be an RFC 3339 date (2026-07-15) or date-time with a time zone "
        "(2026-07-15T09:30:00Z)"
    )


def _check_candidate(candidate: object, path: str, problems: list[str]) -> None:
    if not isinstance(candidate, dict):
        problems.append(f"{path}: a candidate must be an object, {_got(candidate)}")
        return
    if not _CANDIDATE_KEY_SET.issuperset(candidate):
        _check_unknown_keys(candidate, _CANDIDATE_KEYS, path, problems)
    _check_non_blank_string(candidate, "id", path, problems)
    _check_enum(candidate, "kind", _KIND_SET, KINDS, path, problems)
    for key in ("source", "capturedAt"):
        # Absent, null or blank is the provenance gate's business, not an input error.
        value = candidate.get(key)
        if value is not None and not isinstance(value, str):
            problems.append(f"{_child(path, key)}: must be a string or null, {_got(value)}")
    captured = candidate.get("capturedAt")
    if isinstance(captured, str) and captured.strip() and not _valid_timestamp(captured):
        problems.append(f"{path}.capturedAt: {_timestamp_problem(captured)}, {_got(captured)}")
    _check_enum(candidate, "relevance", _RELEVANCE_SET, RELEVANCES, path, problems)
    _check_enum(candidate, "freshness", _FRESHNESS_SET, FRESHNESSES, path, problems)
    if "sizeUnits" not in candidate:
        problems.append(f"{path}.sizeUnits: required key is missing")
    else:
        size = candidate["sizeUnits"]
        if not _is_int(size) or size < 0:
            problems.append(f"{path}.sizeUnits: must be an integer >= 0, {_got(size)}")
    if "content" not in candidate:
        problems.append(f"{path}.content: required key is missing")
    elif not isinstance(candidate["content"], str):
        problems.append(f"{path}.content: must be a string, {_got(candidate['content'])}")
    if "reference" in candidate and not isinstance(candidate["reference"], str):
        problems.append(f"{path}.reference: must be a string, {_got(candidate['reference'])}")
    if "conflictsWith" in candidate:
        _check_conflicts_shape(candidate, path, problems)


def _check_conflicts_shape(candidate: dict, path: str, problems: list[str]) -> None:
    where = f"{path}.conflictsWith"
    value = candidate["conflictsWith"]
    if candidate.get("kind") != "history-summary":
        problems.append(
            f"{where}: only a history-summary may declare conflicts; this candidate's kind is "
            + (_shown(candidate["kind"]) if "kind" in candidate else "missing")
        )
    if isinstance(value, str):
        targets = [value]
    elif isinstance(value, list):
        targets = value
    else:
        problems.append(f"{where}: must be a candidate id or a list of ids, {_got(value)}")
        return
    seen: set[str] = set()
    for index, target in enumerate(targets):
        at = where if isinstance(value, str) else f"{where}[{index}]"
        if not isinstance(target, str) or not target.strip():
            problems.append(f"{at}: must be a non-blank candidate id, {_got(target)}")
        elif target in seen:
            problems.append(f"{at}: repeats id {_shown(target)}")
        else:
            seen.add(target)


def _conflict_targets(candidate: dict) -> list[str]:
    value = candidate.get("conflictsWith", ())
    return [value] if isinstance(value, str) else list(value)


def validate_request(request: object) -> None:
    """Rule 0, validate: check a request against the contract, reporting every problem.

    Chapter: [rule 0, validate][validate] on the rules page.

    See the chapter section "Deterministic selection rules", rule 1, and the field
    reference for what each key accepts.

    Args:
        request: The would-be request, any Python value.

    Raises:
        InvalidRequestError: If anything is wrong. ``problems`` lists every problem as
            ``"<json path>: <what is wrong>"``: first those of a top-down walk of the
            request (candidates in input order, repeated ids included), then the cross-field
            problems of ``conflictsWith`` targets.
    """
    problems: list[str] = []
    if not isinstance(request, dict):
        raise InvalidRequestError([f"$: a request must be an object, {_got(request)}"])
    _check_unknown_keys(request, _REQUEST_KEYS, "$", problems)

    if "taskAnchor" not in request:
        problems.append("$.taskAnchor: required key is missing")
    else:
        anchor = request["taskAnchor"]
        if not isinstance(anchor, dict):
            problems.append(f"$.taskAnchor: must be an object, {_got(anchor)}")
        else:
            _check_unknown_keys(anchor, _ANCHOR_KEYS, "$.taskAnchor", problems)
            for key in _ANCHOR_KEYS:
                _check_non_blank_string(anchor, key, "$.taskAnchor", problems)

    if "budgetUnits" not in request:
        problems.append("$.budgetUnits: required key is missing")
    else:
        budget = request["budgetUnits"]
        if not _is_int(budget) or budget <= 0:
            problems.append(f"$.budgetUnits: must be an integer greater than 0, {_got(budget)}")

    if "candidates" not in request:
        problems.append("$.candidates: required key is missing")
    elif not isinstance(request["candidates"], list):
        problems.append(f"$.candidates: must be an array, {_got(request['candidates'])}")
    else:
        _check_candidates(request["candidates"], problems)

    if problems:
        raise InvalidRequestError(problems)


def _is_clean_candidate(candidate: object) -> bool:
    """The common case, checked fast: a candidate that is certainly valid on its own.

    Anything unusual (a subclass, a problem, an odd conflict list) returns False and takes
    the detailed walk of `_check_candidate`, which words the problems. This is only a
    shortcut: on every candidate it accepts, the detailed walk finds nothing either.
    """
    if type(candidate) is not dict or not candidate.keys() <= _CANDIDATE_KEY_SET:
        return False
    get = candidate.get
    cid = get("id")
    kind = get("kind")
    relevance = get("relevance")
    freshness = get("freshness")
    size = get("sizeUnits")
    if (
        type(cid) is not str
        or not cid.strip()
        or type(kind) is not str
        or kind not in _KIND_SET
        or type(relevance) is not str
        or relevance not in _RELEVANCE_SET
        or type(freshness) is not str
        or freshness not in _FRESHNESS_SET
        or type(size) is not int
        or size < 0
        or type(get("content")) is not str
    ):
        return False
    source = get("source")
    if source is not None and type(source) is not str:
        return False
    captured = get("capturedAt")
    if captured is not None and (
        type(captured) is not str or (captured.strip() and not _valid_timestamp(captured))
    ):
        return False
    if "reference" in candidate and type(candidate["reference"]) is not str:
        return False
    if "conflictsWith" in candidate:
        targets = candidate["conflictsWith"]
        if kind != "history-summary":
            return False
        if type(targets) is str:
            return bool(targets.strip())
        if type(targets) is not list:
            return False
        for target in targets:
            if type(target) is not str or not target.strip():
                return False
        return len(set(targets)) == len(targets)
    return True


def _check_candidates(candidates: list, problems: list[str]) -> None:
    first_use: dict[str, int] = {}
    declares_conflicts = False
    for index, candidate in enumerate(candidates):
        if _is_clean_candidate(candidate):
            cid = candidate["id"]
            declares_conflicts = declares_conflicts or "conflictsWith" in candidate
        else:
            path = f"$.candidates[{index}]"
            _check_candidate(candidate, path, problems)
            if not isinstance(candidate, dict):
                continue
            declares_conflicts = declares_conflicts or "conflictsWith" in candidate
            cid = candidate.get("id")
            if not (isinstance(cid, str) and cid.strip()):
                continue
        if cid in first_use:
            problems.append(
                f"$.candidates[{index}].id: repeats id {_shown(cid)} of $.candidates[{first_use[cid]}]"
            )
        else:
            first_use[cid] = index
    if not declares_conflicts:
        return
    # Cross-field: a conflict must name another candidate of this request.
    for index, candidate in enumerate(candidates):
        if not (isinstance(candidate, dict) and "conflictsWith" in candidate):
            continue
        value = candidate["conflictsWith"]
        if not isinstance(value, (str, list)):
            continue
        for position, target in enumerate([value] if isinstance(value, str) else value):
            if not isinstance(target, str) or not target.strip():
                continue
            at = f"$.candidates[{index}].conflictsWith" + ("" if isinstance(value, str) else f"[{position}]")
            if target == candidate.get("id"):
                problems.append(f"{at}: a candidate cannot conflict with itself")
            elif target not in first_use:
                problems.append(f"{at}: names {_shown(target)}, which is not a candidate id of this request")


# ---------------------------------------------------------------------------
# Rule 1: the provenance gate
# ---------------------------------------------------------------------------


def provenance_gate(candidates: list[Candidate]) -> list[UnknownItem]:
    """Rule 1, provenance gate: list every candidate whose ``source`` or ``capturedAt`` is missing.

    Chapter: [rule 1, provenance gate][provenance-gate] on the rules page.

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
        missing = [key for key in ("source", "capturedAt") if _is_blank(candidate.get(key))]
        unknowns.append({"id": candidate["id"], "missing": missing})
    return unknowns


# ---------------------------------------------------------------------------
# Rule 2: processing order
# ---------------------------------------------------------------------------


def processing_order(candidates: list[Candidate]) -> list[Candidate]:
    """Rule 2, order: constraint and direct-evidence first, then history-summary, then reference.

    Chapter: [rule 2, processing order][processing-order] on the rules page.

    The sort is stable, so candidates of one tier keep their input order. The priority is
    the book's teaching convention, not a claim about what models need.
    """
    return sorted(candidates, key=lambda candidate: TIERS[candidate["kind"]])


# ---------------------------------------------------------------------------
# Rules 3 to 7: one decision per candidate
# ---------------------------------------------------------------------------


def _is_current_direct_evidence(candidate: Candidate) -> bool:
    return candidate["kind"] == "direct-evidence" and candidate["relevance"] == "current"


def expiry(candidate: Candidate) -> tuple[ExcludedItem, RefreshItem | None] | None:
    """Rule 3, expiry: an expired candidate is excluded; expired current direct evidence also
    asks for a refresh, so an old log is never written down as the current fact.

    Chapter: [rule 3, expiry][expiry] on the rules page.

    Returns:
        ``None`` if the candidate is fresh, else its ``excluded`` entry and its ``refresh``
        entry (``None`` unless it is current direct evidence).
    """
    if candidate["freshness"] != "expired":
        return None
    excluded: ExcludedItem = {"id": candidate["id"], "kind": candidate["kind"], "reason": "expired"}
    if not _is_current_direct_evidence(candidate):
        return excluded, None
    refresh: RefreshItem = {
        "id": candidate["id"],
        "reason": "expired",
        "source": candidate["source"],
        "capturedAt": candidate["capturedAt"],
    }
    return excluded, refresh


def conflict(
    candidate: Candidate, fresh_evidence: dict[str, Candidate]
) -> tuple[ExcludedItem, RefreshItem] | None:
    """Rule 4, conflict: a history summary that contradicts fresh current direct evidence is
    excluded and a refresh is requested, recording both sides' sources.

    Chapter: [rule 4, conflict][conflict] on the rules page.

    The builder does not decide which side is true; it only refuses to let the old summary
    displace the new evidence.

    Args:
        candidate: The candidate being processed.
        fresh_evidence: Fresh current direct evidence of this request, by id.

    Returns:
        ``None`` if there is no such conflict, else the ``excluded`` and ``refresh`` entries.
    """
    if candidate["kind"] != "history-summary" or "conflictsWith" not in candidate:
        return None
    ids = [target for target in _conflict_targets(candidate) if target in fresh_evidence]
    if not ids:
        return None
    sources = {candidate["id"]: candidate["source"]}
    for target in ids:
        sources[target] = fresh_evidence[target]["source"]
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


_POINTER_KEYS = tuple(key for key in _CANDIDATE_KEYS if key != "content")


def _copy(candidate: Candidate, *, with_content: bool) -> dict[str, Any]:
    # Canonical key order, so the output does not depend on the request's key order;
    # a conflict list is copied so the result shares no mutable object with the request.
    keys = _CANDIDATE_KEYS if with_content else _POINTER_KEYS
    item: dict[str, Any] = {key: candidate[key] for key in keys if key in candidate}
    targets = item.get("conflictsWith")
    if isinstance(targets, list):
        item["conflictsWith"] = list(targets)
    return item


def budget_fit(candidate: Candidate, remaining: int) -> SelectedItem | None:
    """Rule 5, budget fit: a candidate that fits the remaining budget is selected in full.

    Chapter: [rule 5, budget fit][budget-fit] on the rules page.

    First fit: a later, smaller candidate can still fit after a larger one did not.

    Returns:
        A copy of the candidate, content included, or ``None`` if it does not fit.
    """
    if candidate["sizeUnits"] > remaining:
        return None
    return _copy(candidate, with_content=True)  # type: ignore[return-value]


def pointer(candidate: Candidate, remaining: int) -> PointerItem | None:
    """Rule 6, pointer: a candidate over budget with a non-blank ``reference`` becomes a pointer.

    Chapter: [rule 6, pointer][pointer] on the rules page.

    The pointer records where the item lives and what loading it would take; the builder
    never reads the reference.

    Returns:
        The candidate without its content, plus ``loadCondition``, or ``None`` if it has no
        usable reference.
    """
    if not candidate.get("reference", "").strip():
        return None
    item = _copy(candidate, with_content=False)
    item["loadCondition"] = {"requiresUnits": candidate["sizeUnits"], "availableUnits": remaining}
    return item  # type: ignore[return-value]


def over_budget(candidate: Candidate, remaining: int) -> ExcludedItem:
    """Rule 7, over budget: a candidate that neither fits nor can be pointed to is excluded,
    with the units it required and the units that were available.

    Chapter: [rule 7, over budget][over-budget] on the rules page.
    """
    return {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "reason": "over_budget",
        "requiresUnits": candidate["sizeUnits"],
        "availableUnits": remaining,
    }


# ---------------------------------------------------------------------------
# The builder
# ---------------------------------------------------------------------------


def _evidence(candidate: Candidate, decision: str, rule: str, before: int, after: int) -> EvidenceItem:
    return {
        "id": candidate["id"],
        "kind": candidate["kind"],
        "decision": decision,  # type: ignore[typeddict-item]
        "rule": rule,  # type: ignore[typeddict-item]
        "sizeUnits": candidate["sizeUnits"],
        "remainingBefore": before,
        "remainingAfter": after,
    }


def _result(state: str, phase: str, anchor: dict, budget: int, used: int, **lists: list) -> ContextPacketResult:
    return {
        "state": state,  # type: ignore[typeddict-item]
        "phase": phase,  # type: ignore[typeddict-item]
        "packet": {
            "taskAnchor": {key: anchor[key] for key in _ANCHOR_KEYS},  # type: ignore[typeddict-item]
            "selected": lists["selected"],
            "pointers": lists["pointers"],
            "usedBudgetUnits": used,
            "budgetUnits": budget,
        },
        "excluded": lists["excluded"],
        "unknowns": lists["unknowns"],
        "refresh": lists["refresh"],
        "evidence": lists["evidence"],
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
    result.

    Chapter: [the output contract][output-contract], and [a walkthrough][walkthrough] of
    every rule on one request.

    Args:
        request: A JSON-shaped dict with ``taskAnchor``, ``budgetUnits`` and
            ``candidates`` (see [`ContextPacketRequest`][harnessbook.context_packet.ContextPacketRequest]).

    Returns:
        A [`ContextPacketResult`][harnessbook.context_packet.ContextPacketResult]: ``state``, ``phase``, ``packet``, ``excluded``,
        ``unknowns``, ``refresh`` and ``evidence``, always all present. Never a
        concatenated string.

    Raises:
        InvalidRequestError: If the request breaks the contract; ``problems`` lists every
            problem with its JSON path.

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
    validate_request(request)
    anchor = request["taskAnchor"]
    budget = request["budgetUnits"]
    candidates = request["candidates"]

    unknowns = provenance_gate(candidates)
    if unknowns:
        blocked_ids = {item["id"] for item in unknowns}
        evidence = [
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
            "blocked", "missing_provenance", anchor, budget, 0,
            selected=[], pointers=[], excluded=[], unknowns=unknowns, refresh=[], evidence=evidence,
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

    state, phase = ("refresh_required", "refresh_context") if refresh else ("ready", "assembled")
    return _result(
        state, phase, anchor, budget, budget - remaining,
        selected=selected, pointers=pointers, excluded=excluded, unknowns=[], refresh=refresh,
        evidence=evidence,
    )


def demo_request() -> ContextPacketRequest:
    """The chapter's demo request: a failing assertion and a CI log too large for the budget.

    Building it gives ``ready`` / ``assembled`` with ``failure-output`` selected, ``large-ci-log``
    as a pointer and 3 of 8 units used. A fresh dict each call, so callers may change it.
    """
    return {
        "taskAnchor": {
            "goal": "定位单一测试失败",
            "stopCondition": "缺少可追溯的直接证据时停止",
            "verificationTarget": "注入的测试名称",
        },
        "budgetUnits": 8,
        "candidates": [
            {
                "id": "failure-output",
                "kind": "direct-evidence",
                "source": "injected:test-output",
                "capturedAt": "2026-07-15",
                "relevance": "current",
                "freshness": "fresh",
                "sizeUnits": 3,
                "content": "断言失败摘要",
            },
            {
                "id": "large-ci-log",
                "kind": "direct-evidence",
                "source": "injected:ci-log",
                "capturedAt": "2026-07-15",
                "relevance": "background",
                "freshness": "fresh",
                "sizeUnits": 40,
                "content": "完整 CI 日志（很长）",
                "reference": "artifact://ci/large-ci-log.txt",
            },
        ],
    }
