"""Plain copies: whether a request holds only plain JSON values, and a copy of it that does,
made without running any of the caller's code (see [`validation`][harnessbook.context_packet.validation]).
"""

from __future__ import annotations

from harnessbook.context_packet.errors import (
    _Foreign,
    _repr,
    _shown,
    _type_name,
)

_PLAIN_LEAVES = frozenset({type(None), bool, int, float, str})


def _is_plain(value: object, levels: int) -> bool:
    """Whether ``value`` is plain JSON as deep as the walk looks into it: ``levels`` levels of
    containers whose items it compares (exact ``dict`` with ``str`` keys, exact ``list``);
    below that, items are only ever shown, which is safe whatever they are. Leaves must be
    exact ``str``, ``int``, ``float``, ``bool`` or ``None``. Runs no caller code."""
    kind = type(value)
    if kind in _PLAIN_LEAVES:
        return True
    if kind is list:
        return levels == 0 or all(_is_plain(item, levels - 1) for item in value)  # type: ignore[attr-defined]
    if kind is dict:
        return levels == 0 or all(
            type(key) is str and _is_plain(item, levels - 1)
            for key, item in value.items()  # type: ignore[attr-defined]
        )
    return False


def _is_plain_candidate(candidate: object) -> bool:
    if type(candidate) is not dict:
        return _is_plain(candidate, 0)
    for key, item in candidate.items():
        if type(key) is not str:
            return False
        if type(item) not in _PLAIN_LEAVES and not _is_plain(item, 1 if key == "conflictsWith" else 0):
            return False
    return True


def _plain(value: object, levels: int) -> object:
    """A copy of ``value`` in plain JSON types, ``levels`` levels of containers deep, running
    none of the caller's code.

    A subclass of ``str``, ``int`` or ``float`` becomes its plain base (``IntEnum.X`` becomes
    its ``int``); a ``dict`` or ``list`` (or a subclass) is copied while ``levels`` lasts, then
    kept as it is when it is exactly a ``dict`` or ``list`` (its items are only ever shown);
    anything else becomes a `_Foreign` placeholder that only shows what it stood for.
    """
    kind = type(value)
    if kind in _PLAIN_LEAVES:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):  # pragma: no cover - bool cannot be subclassed
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, dict):
        if levels > 0:
            return {_plain_key(key): _plain(item, levels - 1) for key, item in dict.items(value)}
        if kind is dict:
            return value
    if isinstance(value, list):
        if levels > 0:
            return [_plain(item, levels - 1) for item in list.__iter__(value)]
        if kind is list:
            return value
    # Shown as a problem shows a value: a tuple item by item, only as far as is shown (its repr
    # would encode every item first).
    return _Foreign(_shown(value), _type_name(value))


def _plain_request(request: object) -> object:
    """`_plain` for a request: as deep as the walk compares, and no deeper."""
    if not isinstance(request, dict):
        return _plain(request, 0)
    copy: dict[object, object] = {}
    for key, value in dict.items(request):
        name = _plain_key(key)
        if name == "taskAnchor":
            copy[name] = _plain(value, 1)
        elif name == "candidates" and isinstance(value, list):
            copy[name] = [_plain_candidate(candidate) for candidate in list.__iter__(value)]
        else:
            copy[name] = _plain(value, 0)
    return copy


def _plain_candidate(candidate: object) -> object:
    if not isinstance(candidate, dict):
        return _plain(candidate, 0)
    copy: dict[object, object] = {}
    for key, value in dict.items(candidate):
        name = _plain_key(key)
        copy[name] = _plain(value, 1 if name == "conflictsWith" else 0)
    return copy


def _plain_key(key: object) -> object:
    if type(key) is str:
        return key
    if isinstance(key, str):
        return str.__str__(key)
    return _Foreign(_repr(key), _type_name(key))
