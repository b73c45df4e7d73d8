"""Checks of one key of an object, each appending what is wrong to the report, and the small
predicates that the validation and the rules share.
"""

from __future__ import annotations

import difflib
from typing import Any, TypeGuard

from harnessbook.context_packet.errors import (
    _child,
    _got,
    _Problems,
    _RepeatedKey,
    _shown,
    _shown_key,
)
from harnessbook.context_packet.request import KINDS, Candidate

_SUGGEST_WIDTH = 64  # unknown keys longer than this get no "did you mean" (difflib is quadratic)


def _is_int(value: object) -> TypeGuard[int]:
    # Integers are strict: True and 8.0 are not integers (the chapter's budget is a count).
    return isinstance(value, int) and not isinstance(value, bool)


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _closest_key(key: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed key ``key`` most likely stands for: the same but for case (``ID``), else the
    closest spelling (``sizeUnit``); None for a key far from all of them or longer than
    ``_SUGGEST_WIDTH``."""
    if len(key) > _SUGGEST_WIDTH:
        return None
    folded = key.casefold()
    same = next((name for name in allowed if name.casefold() == folded), None)
    if same is not None:
        return same
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    return close[0] if close else None


def _check_unknown_keys(
    obj: dict[Any, Any], allowed: tuple[str, ...], path: str, problems: _Problems
) -> None:
    # A typo ("sizeUnit") must not be silently ignored: every unknown key is a problem.
    for key in obj:
        if key in allowed:
            continue
        if problems.full:
            problems.count()
        elif type(key) is _RepeatedKey:
            problems.append(
                f"{_child(path, key.name)}: repeated key: two keys of this object read as the same string,"
                " and only one value can count"
            )
        elif isinstance(key, str):
            close = _closest_key(key, allowed)
            if close is None:
                hint = f" (allowed: {', '.join(allowed)})"
            elif close in obj:  # "did you mean" would advise a second copy of a key already given
                hint = f" (it resembles '{close}', which this object already has)"
            else:
                hint = f"; did you mean '{close}'?"
            problems.append(f"{_child(path, key)}: unknown key{hint}")
        else:
            problems.append(f"{path}: key {_shown_key(key)} is not a string; JSON object keys are strings")


def _check_non_blank_string(obj: dict[str, Any], key: str, path: str, problems: _Problems) -> None:
    where = f"{path}.{key}"  # the contract's keys are identifiers
    if key not in obj:
        problems.append(f"{where}: required key is missing")
        return
    value = obj[key]
    if not isinstance(value, str):
        problems.append(f"{where}: must be a non-blank string, {_got(value)}")
    elif not value.strip():
        problems.append(f"{where}: must not be blank, {_got(value)}")


def _check_enum(
    obj: dict[str, Any],
    key: str,
    allowed: frozenset[str],
    names: tuple[str, ...],
    path: str,
    problems: _Problems,
) -> None:
    where = f"{path}.{key}"
    if key not in obj:
        problems.append(f"{where}: required key is missing")
        return
    value = obj[key]
    if not (isinstance(value, str) and value in allowed):
        problems.append(f"{where}: must be one of {', '.join(names)}; {_got(value)}")


def _check_conflicts_shape(candidate: dict[str, Any], path: str, problems: _Problems) -> None:
    where = f"{path}.conflictsWith"
    value = candidate["conflictsWith"]
    if _kind_without_conflicts(candidate.get("kind")):
        problems.append(
            f"{where}: only a history-summary may have conflictsWith; this candidate's kind is "
            + _shown(candidate["kind"])
        )
    targets: list[object]
    if isinstance(value, str):
        targets = [value]
    elif isinstance(value, list):
        targets = value
    else:
        problems.append(f"{where}: must be a candidate id or a list of ids, {_got(value)}")
        return
    first_at: dict[str, int] = {}
    for index, target in enumerate(targets):
        at = where if isinstance(value, str) else f"{where}[{index}]"
        if not isinstance(target, str) or not target.strip():
            problems.append(f"{at}: must be a non-blank candidate id, {_got(target)}")
        elif target in first_at:
            problems.append(f"{at}: repeats id {_shown(target)} of {where}[{first_at[target]}]")
        else:
            first_at[target] = index


def _kind_without_conflicts(kind: object) -> bool:
    """Whether a candidate of this ``kind`` may not have ``conflictsWith``: a kind of the contract
    other than ``history-summary``. A missing or wrong kind is a problem of its own, and the
    candidate's ``conflictsWith`` is not blamed for it as well."""
    return isinstance(kind, str) and kind in KINDS and kind != "history-summary"


def _conflict_targets(candidate: Candidate) -> list[str]:
    value = candidate["conflictsWith"]
    return [value] if isinstance(value, str) else list(value)
