"""The leap-second rule as a regular expression: generates the request schema's leap-second branch.

A leap second is valid only at 23:59:60 UTC; local time is that plus the offset. The schema's
pattern is generated here and pinned by tests/test_hostile_input.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def minute_set_regex(minutes: Iterable[int]) -> str:
    ms = frozenset(minutes)
    if ms == frozenset(range(60)):
        return "[0-5][0-9]"
    if len(ms) == 1:
        return f"{next(iter(ms)):02d}"
    if ms == frozenset(range(1, 60)):
        return "(?!00)[0-5][0-9]"
    raise AssertionError(sorted(ms))


def offsets() -> Iterator[tuple[str, int, int]]:
    for sign in "+-":
        for h in range(24):
            for m in range(60):
                yield sign, h, m


def local(sign: str, h: int, m: int) -> tuple[int, int]:
    shift = (1 if sign == "+" else -1) * (h * 60 + m)
    return divmod((23 * 60 + 59 + shift) % 1440, 60)


FRACTION = "(\\.[0-9]+)?"


def leap_time_pattern() -> str:
    hours: list[str] = []
    for v in range(24):
        allowed: list[str] = []
        for sign in "+-":
            for h in range(24):
                ms = [m for m in range(60) if local(sign, h, m)[0] == v]
                if ms:
                    allowed.append(
                        f"\\{sign}{h:02d}:{minute_set_regex(ms)}"
                        if sign == "+"
                        else f"-{h:02d}:{minute_set_regex(ms)}"
                    )
        if v == 23:
            allowed.insert(0, "[Zz]")
        hours.append(f"{v:02d}(?=:[0-5][0-9]:60{FRACTION}({'|'.join(allowed)})$(?!\\n))")
    minutes: list[str] = []
    for w in range(60):
        allowed = []
        for sign in "+-":
            ms = sorted({m for (s, h, m) in offsets() if s == sign and local(s, h, m)[1] == w})
            for m in ms:
                allowed.append(f"\\{sign}" if sign == "+" else "-")
                allowed[-1] += f"[0-9]{{2}}:{m:02d}"
        if w == 59:
            allowed.insert(0, "[Zz]")
        minutes.append(f"{w:02d}(?=:60{FRACTION}({'|'.join(allowed)})$(?!\\n))")
    return f"({'|'.join(hours)}):({'|'.join(minutes)}):60"


CALENDAR_DATE = (
    "(?!0000)("
    "[0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))"
    "|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29"
    ")"
)
"""A real calendar date, leap years included, as a regular expression (years 0001 to 9999)."""

OFFSET = "([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
END = "$(?!\\n)"


def leap_second_date_time_pattern() -> str:
    """The request schema's pattern for a date-time with a leap second, in full.

    No format checker accepts a leap second (rfc3339-validator refuses them all), so this
    branch carries no ``format`` and checks the calendar date itself.
    """
    return f"^{CALENDAR_DATE}[Tt]{leap_time_pattern()}(\\.[0-9]+)?{OFFSET}{END}"
