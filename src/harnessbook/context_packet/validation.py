"""Rule 0 of chapter 6, validate: check a request against the contract, every problem at once.

The walk has two passes. The first checks each key of the request and of each candidate on
its own, in request order. The second checks what only the whole request can tell: repeated
ids and ``conflictsWith`` targets that name no candidate. A fast path accepts the common,
clean candidate without wording anything; anything unusual takes the detailed walk.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import functools
import re
from typing import Any, TypeGuard

from harnessbook.context_packet.errors import InvalidRequestError, _child, _got, _repr, _shown
from harnessbook.context_packet.request import (
    ANCHOR_KEYS,
    CANDIDATE_KEYS,
    FRESHNESSES,
    KINDS,
    RELEVANCES,
    REQUEST_KEYS,
    Candidate,
)

__all__ = ["validate_request"]

_CANDIDATE_KEY_SET = frozenset(CANDIDATE_KEYS)
_KIND_SET = frozenset(KINDS)
_RELEVANCE_SET = frozenset(RELEVANCES)
_FRESHNESS_SET = frozenset(FRESHNESSES)

_FULL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z", re.ASCII)
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))\Z",
    re.ASCII,
)


def _is_int(value: object) -> TypeGuard[int]:
    # Integers are strict: True and 8.0 are not integers (the chapter's budget is a count).
    return isinstance(value, int) and not isinstance(value, bool)


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _check_unknown_keys(
    obj: dict[Any, Any], allowed: tuple[str, ...], path: str, problems: list[str]
) -> None:
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


def _check_non_blank_string(obj: dict[Any, Any], key: str, path: str, problems: list[str]) -> None:
    where = _child(path, key)
    if key not in obj:
        problems.append(f"{where}: required key is missing")
        return
    value = obj[key]
    if not isinstance(value, str):
        problems.append(f"{where}: must be a non-blank string, {_got(value)}")
    elif not value.strip():
        problems.append(f"{where}: must not be blank")


def _check_enum(
    obj: dict[Any, Any],
    key: str,
    allowed: frozenset[str],
    names: tuple[str, ...],
    path: str,
    problems: list[str],
) -> None:
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
    # The offset, when there is one, is a real one too.
    return match.group(7) is None or (int(match.group(7)) <= 23 and int(match.group(8)) <= 59)


def _timestamp_problem(text: str) -> str:
    """Why a non-blank capturedAt is refused, in words a reader can act on."""
    if text != text.strip() and _valid_timestamp(text.strip()):
        return "must be an RFC 3339 date or date-time without surrounding whitespace"
    if _DATE_TIME.match(text) or _FULL_DATE.match(text):
        return "has the RFC 3339 shape but is not a real calendar date or time of day"
    return "must be an RFC 3339 date (2026-07-15) or date-time with a time zone (2026-07-15T09:30:00Z)"


def _check_candidate(candidate: object, path: str, problems: list[str]) -> None:
    if not isinstance(candidate, dict):
        problems.append(f"{path}: a candidate must be an object, {_got(candidate)}")
        return
    if not _CANDIDATE_KEY_SET.issuperset(candidate):
        _check_unknown_keys(candidate, CANDIDATE_KEYS, path, problems)
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


def _check_conflicts_shape(candidate: dict[Any, Any], path: str, problems: list[str]) -> None:
    where = f"{path}.conflictsWith"
    value = candidate["conflictsWith"]
    if candidate.get("kind") != "history-summary":
        problems.append(
            f"{where}: only a history-summary may declare conflicts; this candidate's kind is "
            + (_shown(candidate["kind"]) if "kind" in candidate else "missing")
        )
    targets: list[object]
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


def _conflict_targets(candidate: Candidate) -> list[str]:
    value = candidate["conflictsWith"]
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
    _check_unknown_keys(request, REQUEST_KEYS, "$", problems)

    if "taskAnchor" not in request:
        problems.append("$.taskAnchor: required key is missing")
    else:
        anchor = request["taskAnchor"]
        if not isinstance(anchor, dict):
            problems.append(f"$.taskAnchor: must be an object, {_got(anchor)}")
        else:
            _check_unknown_keys(anchor, ANCHOR_KEYS, "$.taskAnchor", problems)
            for key in ANCHOR_KEYS:
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


def _check_candidates(candidates: list[Any], problems: list[str]) -> None:
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
