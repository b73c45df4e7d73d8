"""The timestamp rule of ``capturedAt``: an RFC 3339 full-date, or a date-time with a time zone
(JSON Schema's ``date`` / ``date-time``), and the words for why a string is refused.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re

_CACHE_WIDTH = 64  # only capturedAt strings this short are remembered between calls

_FULL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z", re.ASCII)
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))\Z",
    re.ASCII,
)


def _valid_timestamp(text: str) -> bool:
    """RFC 3339 full-date or date-time with a time zone (JSON Schema's date / date-time).

    Only short, exact ``str`` values are remembered between calls: no caller's large value, and
    no object of a caller's ``str`` subclass (which could carry anything), is kept alive by the
    cache, and the cache never hashes or compares one.
    """
    if type(text) is str and len(text) <= _CACHE_WIDTH:
        return _valid_short_timestamp(text)
    return _is_timestamp(text)


@functools.lru_cache(maxsize=4096)
def _valid_short_timestamp(text: str) -> bool:
    return _is_timestamp(text)


def _is_timestamp(text: str) -> bool:
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
    if hour > 23 or minute > 59 or second > 60:
        return False
    offset = 0
    if match.group(8) is not None:
        offset_hour, offset_minute = int(match.group(8)), int(match.group(9))
        if offset_hour > 23 or offset_minute > 59:
            return False
        offset = (offset_hour * 60 + offset_minute) * (-1 if match.group(7) == "-" else 1)
    if second == 60:
        # RFC 3339: a leap second is 23:59:60 in UTC; local time is UTC plus the offset.
        return (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59
    return True


def _timestamp_problem(text: str) -> str:
    """Why a non-blank capturedAt is refused, in words a reader can act on."""
    if text != text.strip() and _valid_timestamp(text.strip()):
        return "must be an RFC 3339 date or date-time without surrounding whitespace"
    match = _DATE_TIME.match(text)
    date = match or _FULL_DATE.match(text)
    # The year 0000 is judged as 2000 (a leap year too), then named if nothing else is wrong.
    judged = "2000" + text[4:] if date is not None and date.group(1) == "0000" else text
    # Only the leap second is wrong when the same text one second earlier is valid; an
    # impossible date, hour or offset is worded as such below.
    if (
        match is not None
        and match.group(6) == "60"
        and _is_timestamp(judged[: match.start(6)] + "59" + judged[match.end(6) :])
        and not _is_timestamp(judged)
    ):
        return "has a leap second that is not 23:59:60 in UTC (RFC 3339 allows no other)"
    if judged is not text and _is_timestamp(judged):
        return "is in the year 0000: RFC 3339 allows it, but only the years 0001 to 9999 are accepted"
    if date is not None:
        return "has the RFC 3339 shape but is not a real calendar date or time of day"
    return "must be an RFC 3339 date (2026-07-15) or date-time with a time zone (2026-07-15T09:30:00Z)"
