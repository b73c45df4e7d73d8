"""Validate, step 1 of chapter 6's rules: check a request against the contract, every problem at once.

The walk has two passes. The first checks the request and each candidate in turn (candidates
in list order), and repeated ids as it meets them; within one object, unknown keys come first,
then the contract's keys in the contract's order, whatever order the object has. The second checks what needs
every id first: each ``conflictsWith`` target must name another candidate of this request. A
fast path accepts the common, clean candidate without wording anything; anything unusual takes
the detailed walk.

The first walk reads the request as it is given, so the methods of a caller's ``dict`` or
``str`` subclass (``__eq__``, ``__hash__``, ``get``) may run. When a value is anything but a
plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None`` (an ``IntEnum``
budget, a ``str`` enum id), or when such a method raises, the request is copied into plain
values (module ``plain``), and the copy is what is checked and built: the first walk stops at
the first value that is not plain, before showing it, even inside a ``list`` or ``dict`` it
shows, so that such a value is shown once, for the copy (only plain JSON values shown before
it are worded again, which runs no caller code). Work and the report are bounded: see
[`errors`][harnessbook.context_packet.errors].
"""

from __future__ import annotations

import unicodedata
from typing import Any

from harnessbook.context_packet.checks import (
    _check_conflicts_shape,
    _check_enum,
    _check_non_blank_string,
    _check_unknown_keys,
    _is_int,
    _kind_without_conflicts,
)
from harnessbook.context_packet.errors import (
    _PLAIN_ONLY,
    _got,
    _NotPlain,
    _Problems,
    _shown,
)
from harnessbook.context_packet.plain import _is_plain, _is_plain_candidate, _plain_request
from harnessbook.context_packet.request import (
    ANCHOR_KEYS,
    CANDIDATE_KEYS,
    FRESHNESSES,
    KINDS,
    RELEVANCES,
    REQUEST_KEYS,
)
from harnessbook.context_packet.timestamps import _timestamp_problem, _valid_timestamp

__all__ = ["validate_request", "MAX_UNITS"]

MAX_UNITS = 2**53 - 1
"""The largest ``budgetUnits`` or ``sizeUnits``: 9007199254740991, JavaScript's
``Number.MAX_SAFE_INTEGER``. A JSON reader that holds numbers as doubles holds every integer up
to it exactly, and not every one above it (2^53 + 1 reads as 2^53)."""

_CANDIDATE_KEY_SET = frozenset(CANDIDATE_KEYS)
_KIND_SET = frozenset(KINDS)
_RELEVANCE_SET = frozenset(RELEVANCES)
_FRESHNESS_SET = frozenset(FRESHNESSES)


def _check_candidate(candidate: object, path: str, problems: _Problems) -> None:
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
            problems.append(f"{path}.{key}: must be a string or null, {_got(value)}")
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
        elif size > MAX_UNITS:
            problems.append(f"{path}.sizeUnits: {_too_large(size)}")
    if "content" not in candidate:
        problems.append(f"{path}.content: required key is missing")
    elif not isinstance(candidate["content"], str):
        problems.append(f"{path}.content: must be a string, {_got(candidate['content'])}")
    if "reference" in candidate and not isinstance(candidate["reference"], str):
        problems.append(f"{path}.reference: must be a string, {_got(candidate['reference'])}")
    if "conflictsWith" in candidate:
        _check_conflicts_shape(candidate, path, problems)


def _too_large(value: int) -> str:
    return (
        f"must be at most {MAX_UNITS} (2^53 - 1: JSON readers using doubles, JavaScript among "
        f"them, hold every integer up to it exactly, and not every one above it), {_got(value)}"
    )


_ENUM_FIELDS = (("kind", _KIND_SET), ("relevance", _RELEVANCE_SET), ("freshness", _FRESHNESS_SET))
_MISSING_EVERYTHING = 6  # an empty candidate: id, kind, relevance, freshness, sizeUnits, content


def _candidate_problem_count(candidate: object) -> int:
    """How many problems `_check_candidate` would word for ``candidate``, without wording them.

    Used once the report is full, so that a request with 10^5 bad candidates is counted in
    linear time. tests/test_hostile_input.py checks that the two always agree.
    """
    if not isinstance(candidate, dict):
        return 1
    if not candidate:
        return _MISSING_EVERYTHING
    get = candidate.get
    count = 0
    if not _CANDIDATE_KEY_SET.issuperset(candidate):
        count += sum(1 for key in candidate if key not in CANDIDATE_KEYS)
    cid = get("id")
    if not isinstance(cid, str) or not cid.strip():
        count += 1
    for key, allowed in _ENUM_FIELDS:
        value = get(key)
        if not (isinstance(value, str) and value in allowed):
            count += 1
    source = get("source")
    if source is not None and not isinstance(source, str):
        count += 1
    captured = get("capturedAt")
    if captured is not None and (
        not isinstance(captured, str) or (captured.strip() and not _valid_timestamp(captured))
    ):
        count += 1
    size = get("sizeUnits")
    if not _is_int(size) or size < 0 or size > MAX_UNITS:
        count += 1
    if not isinstance(get("content"), str):
        count += 1
    if "reference" in candidate and not isinstance(candidate["reference"], str):
        count += 1
    if "conflictsWith" in candidate:
        value = candidate["conflictsWith"]
        if _kind_without_conflicts(get("kind")):
            count += 1
        if isinstance(value, (str, list)):
            seen: set[str] = set()
            for target in [value] if isinstance(value, str) else value:
                if not isinstance(target, str) or not target.strip() or target in seen:
                    count += 1
                else:
                    seen.add(target)
        else:
            count += 1
    return count


def validate_request(request: object) -> None:
    """Validate: check a request against the contract, reporting every problem.

    Chapter: [validate][rule-validate], step 1 on the rules page; the field reference says what
    each key accepts.

    Args:
        request: The would-be request, any Python value.

    Raises:
        InvalidRequestError: If anything is wrong. ``problems`` lists the problems as
            ``"<json path>: <what is wrong>"``: first those of a top-down walk of the request
            (candidates in input order, repeated ids included), then the cross-field problems
            of ``conflictsWith`` targets; the first 100, then one line that counts the rest.
            ``total`` counts them all.
    """
    _validated(request)


def _validated(request: object) -> Any:
    """Validate ``request`` and return what to build from: the request itself when every value
    in it is a plain JSON value, else a plain copy of it (see `_plain`)."""
    plain_only = _PLAIN_ONLY.set(True)  # the walk stops before showing a value that is not plain
    try:
        problems: _Problems | None = _walk(request, plain_only=True)
    except Exception:  # a value is not plain, or a caller's __eq__ or __hash__ raised
        problems = None
    finally:
        _PLAIN_ONLY.reset(plain_only)
    if problems is None:
        request = _plain_request(request)
        problems = _walk(request, plain_only=False)
    if problems:
        raise problems.error()
    return request


_LOOK_ALIKE_LENGTH = 256
"""The longest id the look-alike hint normalizes: NFC sorts a run of combining marks with an
insertion sort, quadratic in the run (a 157 KB id took 12 s)."""

_LOOK_ALIKE_BUDGET = 2**20
"""How many characters of candidate ids that are not ASCII the look-alike hint reads in all,
counted in input order: an id past them gets no hint. 60,000 ids of 256 combining marks out of
canonical order took 5.5 s to normalize, against 0.16 s for building the valid request; and even
checking whether an id is in NFC form can cost a normalization (``unicodedata.is_normalized``
normalizes when its quick check cannot tell), so an id in NFC form counts too."""


def _nfc(text: str) -> str | None:
    """``text``'s NFC form, or None when it is longer than :data:`_LOOK_ALIKE_LENGTH` (an ASCII
    text is its own NFC form, and is not normalized)."""
    if len(text) > _LOOK_ALIKE_LENGTH:
        return None
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _look_alikes(first_use: dict[str, int]) -> tuple[dict[str, tuple[int, ...]], bool]:
    """The NFC form of each id (up to :data:`_LOOK_ALIKE_LENGTH` characters) and the indexes of
    the first two candidates whose ids have it (two: one of them may be the candidate whose
    conflict is looked up), and whether the table is complete: whether it holds every id.

    An ASCII id is its own form and costs nothing; any other id counts its characters against
    :data:`_LOOK_ALIKE_BUDGET` before it is checked or normalized, and is left out once the
    budget is spent, as is an id longer than :data:`_LOOK_ALIKE_LENGTH` (its NFC form may be
    shorter). Ids are taken in input order, so the table is the same for the same request."""
    table: dict[str, tuple[int, ...]] = {}
    spent = 0
    complete = True
    for cid, first in first_use.items():
        if len(cid) > _LOOK_ALIKE_LENGTH:
            complete = False
            continue
        if cid.isascii():
            form = cid
        else:
            spent += len(cid)
            if spent > _LOOK_ALIKE_BUDGET:
                complete = False
                continue
            # The check costs what normalizing does when its quick check cannot tell; when it
            # can, an id in NFC form is not copied.
            form = cid if unicodedata.is_normalized("NFC", cid) else unicodedata.normalize("NFC", cid)
        firsts = table.get(form, ())
        if len(firsts) < 2:
            table[form] = (*firsts, first)
    return table, complete


def _walk(request: object, plain_only: bool) -> _Problems:
    """Every problem of ``request``. With ``plain_only``, raises `_NotPlain` before it shows or
    checks a value that does not have a plain JSON type (or holds one, as deep as it is
    compared, or as far as it is shown: `_render` raises it while `_PLAIN_ONLY` is set): such a
    request is walked as its plain copy."""
    problems = _Problems()
    if not isinstance(request, dict):
        if plain_only and not _is_plain(request, 0):
            raise _NotPlain
        problems.append(f"$: a request must be an object, {_got(request)}")
        return problems
    if plain_only and not (
        type(request) is dict
        and all(
            # Its keys too: a str subclass reads as one of the contract's keys, and may stand beside it.
            type(key) is str and (key in REQUEST_KEYS or _is_plain(value, 0))
            for key, value in request.items()
        )
    ):
        raise _NotPlain
    _check_unknown_keys(request, REQUEST_KEYS, "$", problems)

    if "taskAnchor" not in request:
        problems.append("$.taskAnchor: required key is missing")
    else:
        anchor = request["taskAnchor"]
        if plain_only and not _is_plain(anchor, 1):
            raise _NotPlain
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
        if plain_only and not _is_plain(budget, 0):
            raise _NotPlain
        if not _is_int(budget) or budget <= 0:
            problems.append(f"$.budgetUnits: must be an integer greater than 0, {_got(budget)}")
        elif budget > MAX_UNITS:
            problems.append(f"$.budgetUnits: {_too_large(budget)}")

    if "candidates" not in request:
        problems.append("$.candidates: required key is missing")
    elif plain_only and not _is_plain(request["candidates"], 0):
        raise _NotPlain
    elif not isinstance(request["candidates"], list):
        problems.append(f"$.candidates: must be an array, {_got(request['candidates'])}")
    else:
        _check_candidates(request["candidates"], problems, plain_only)
    return problems


def _is_clean_candidate(candidate: object) -> bool:
    """The common case, checked fast: a candidate that is certainly valid on its own.

    Anything unusual (a subclass, a problem, an odd conflict list) returns False and takes
    the detailed walk of `_check_candidate`, which words the problems. This is only a
    shortcut: on every candidate it accepts, the detailed walk finds nothing either.
    """
    if type(candidate) is not dict:
        return False
    # A key is read by its text, never by what its ``__eq__`` and ``__hash__`` say: a key of
    # another type (a ``str`` subclass that equals "id" whatever its text, an object that claims
    # to be "id") would be found in the set of keys, and takes the detailed walk, which names it.
    for key in candidate:
        if type(key) is not str or key not in _CANDIDATE_KEY_SET:
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
        or size > MAX_UNITS
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


def _check_candidates(candidates: list[Any], problems: _Problems, plain_only: bool) -> None:
    """Check every candidate, then the cross-field rules (`_NotPlain` as `_walk` says)."""
    first_use: dict[str, int] = {}
    declares_conflicts = False
    for index, candidate in enumerate(candidates):
        if _is_clean_candidate(candidate):
            cid = candidate["id"]
            declares_conflicts = declares_conflicts or "conflictsWith" in candidate
        else:
            if plain_only and not _is_plain_candidate(candidate):
                raise _NotPlain
            if problems.full:  # nothing more will be worded: count, quickly
                problems.count(_candidate_problem_count(candidate))
            else:
                _check_candidate(candidate, f"$.candidates[{index}]", problems)
            if not isinstance(candidate, dict):
                continue
            declares_conflicts = declares_conflicts or "conflictsWith" in candidate
            cid = candidate.get("id")
            if not (isinstance(cid, str) and cid.strip()):
                continue
        if cid not in first_use:
            first_use[cid] = index
        elif problems.full:  # as for a candidate's own problems: counted, not worded
            problems.count()
        else:
            problems.append(
                f"$.candidates[{index}].id: repeats id {_shown(cid)} of $.candidates[{first_use[cid]}]"
            )
    if not declares_conflicts:
        return
    # Cross-field: a conflict must name another candidate of this request.
    look_alikes: tuple[dict[str, tuple[int, ...]], bool] | None = None  # made on the first miss
    for index, candidate in enumerate(candidates):
        if not (isinstance(candidate, dict) and "conflictsWith" in candidate):
            continue
        value = candidate["conflictsWith"]
        if not isinstance(value, (str, list)):
            continue
        own = candidate.get("id")
        named: set[str] = set()
        for position, target in enumerate([value] if isinstance(value, str) else value):
            if not isinstance(target, str) or not target.strip() or target in named:
                continue  # a blank or repeated target is reported already, where it is
            named.add(target)
            if target == own:
                # A repeated id is reported already: its candidate names the first one, not itself.
                if first_use.get(own) == index:
                    problems.append(
                        f"{_target_path(index, value, position)}: a candidate cannot conflict with itself"
                    )
            elif target not in first_use:
                if problems.full:  # as for a candidate's own problems: counted, not worded
                    problems.count()
                    continue
                hint = ""
                written = _nfc(target)
                if written is not None:
                    if look_alikes is None:
                        look_alikes = _look_alikes(first_use)
                    table, complete = look_alikes
                    twins = table.get(written, ())
                    # The first look-alike that is not this candidate's own id (which a repeated
                    # id shares with an earlier candidate), else its own id: only when the table
                    # holds every id, since another id left out of it may look the same.
                    mine = first_use.get(own) if isinstance(own, str) else None
                    twin = next((first for first in twins if first != mine), None)
                    if twin is not None:
                        hint = (
                            f" ($.candidates[{twin}].id looks the same but is written with other code points:"
                            " ids are compared code point by code point)"
                        )
                    elif twins and complete:
                        hint = (
                            " (this candidate's own id looks the same but is written with other code points:"
                            " ids are compared code point by code point, and a candidate cannot conflict with itself)"
                        )
                problems.append(
                    f"{_target_path(index, value, position)}: names {_shown(target)},"
                    f" which is not a candidate id of this request{hint}"
                )


def _target_path(index: int, value: str | list[Any], position: int) -> str:
    """The JSON path of a target of ``$.candidates[index].conflictsWith``: the key itself when it
    holds one id, else the item at ``position``. Written only for a problem."""
    at = f"$.candidates[{index}].conflictsWith"
    return at if isinstance(value, str) else f"{at}[{position}]"
