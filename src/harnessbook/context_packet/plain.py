"""Plain copies: whether a request holds only plain JSON values, and a copy of it that does,
made without running the caller's code, apart from the ``__repr__`` of a value it can only show,
whose failure is caught (see [`validation`][harnessbook.context_packet.validation]).
"""

from __future__ import annotations

from typing import cast

from harnessbook.context_packet.errors import (
    _Foreign,
    _RepeatedKey,
    _shown,
    _shown_key,
    _type_name,
)

_PLAIN_LEAVES = frozenset({type(None), bool, int, float, str})


def _is_plain(value: object, levels: int) -> bool:
    """Whether ``value`` is plain JSON as deep as the walk looks into it: ``levels`` levels of
    containers whose items it compares (exact ``dict`` with ``str`` keys, exact ``list``);
    below that, items are only ever shown, and showing one that is not plain stops the walk
    before it runs any of its code (`_PLAIN_ONLY`). Leaves must be exact ``str``, ``int``,
    ``float``, ``bool`` or ``None``. Runs no caller code."""
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
    none of the caller's code but the ``__repr__`` of what becomes a `_Foreign` (caught if it
    fails). Types are read from ``type(value)``, never from the ``__class__`` a value claims.

    A subclass of ``str``, ``int`` or ``float`` becomes its plain base (``IntEnum.X`` becomes
    its ``int``); a ``dict`` or ``list`` (or a subclass) is copied while ``levels`` lasts, then
    kept as it is when it is exactly a ``dict`` or ``list`` (its items are only ever shown);
    anything else becomes a `_Foreign` placeholder that only shows what it stood for.
    """
    kind = type(value)
    if kind in _PLAIN_LEAVES:
        return value
    # issubclass of the real type, not isinstance: an object can claim a class it does not have
    # (a mock's ``__class__``, a lazy proxy), and the base class's methods would refuse it.
    if issubclass(kind, str):
        return str.__str__(cast(str, value))
    if issubclass(kind, int):  # bool cannot be subclassed: an int subclass here
        return int.__int__(cast(int, value))
    if issubclass(kind, float):
        return float.__float__(cast(float, value))
    # A container is read whole before its items are copied: the ``__repr__`` of an item that
    # becomes a `_Foreign` may change it (a dict would raise for it, a list could grow forever).
    if issubclass(kind, dict):
        if levels > 0:
            copy: dict[object, object] = {}
            for key, item in tuple(dict.items(cast(dict[object, object], value))):
                copy[_copy_key(copy, key)] = _plain(item, levels - 1)
            return copy
        if kind is dict:
            return value
    if issubclass(kind, list):
        if levels > 0:
            return [_plain(item, levels - 1) for item in list.copy(cast(list[object], value))]
        if kind is list:
            return value
    # Shown as a problem shows a value, once: a value of a built-in data type or a subclass of
    # one (bytes, a tuple, an OrderedDict, a list subclass too deep to copy) only as far as is
    # shown, from its data (its repr would render all of it first); the walk of the copy shows
    # this text again, and the walk of the original stopped before showing the value at all.
    return _Foreign(_shown(value), _type_name(value))


def _plain_request(request: object) -> object:
    """`_plain` for a request: as deep as the walk compares, and no deeper."""
    if not issubclass(type(request), dict):
        return _plain(request, 0)
    copy: dict[object, object] = {}
    for key, value in tuple(dict.items(cast(dict[object, object], request))):  # read whole, as in `_plain`
        name = _copy_key(copy, key)
        if name == "taskAnchor":
            copy[name] = _plain(value, 1)
        elif name == "candidates" and issubclass(type(value), list):
            copy[name] = [_plain_candidate(candidate) for candidate in list.copy(cast(list[object], value))]
        else:
            copy[name] = _plain(value, 0)
    return copy


def _plain_candidate(candidate: object) -> object:
    if not issubclass(type(candidate), dict):
        return _plain(candidate, 0)
    copy: dict[object, object] = {}
    for key, value in tuple(dict.items(cast(dict[object, object], candidate))):
        name = _copy_key(copy, key)
        copy[name] = _plain(value, 1 if name == "conflictsWith" else 0)
    return copy


def _copy_key(copy: dict[object, object], key: object) -> object:
    """``key`` in the plain copy being made: `_plain_key`, or a `_RepeatedKey` when ``copy``
    already holds a key that reads as the same string (a ``str`` subclass with a hash of its
    own is another key of the original dict, but the same one of the copy)."""
    name = _plain_key(key)
    return _RepeatedKey(name) if name in copy else name  # type: ignore[arg-type]


def _plain_key(key: object) -> object:
    if type(key) is str:
        return key
    if issubclass(type(key), str):
        return str.__str__(cast(str, key))
    return _Foreign(_shown_key(key), _type_name(key))
