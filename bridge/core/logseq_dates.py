"""Logseq's journal dates: the date-fns patterns of `:journal/page-title-format` and
`:journal/file-name-format`.

A journal page is named by its day in the title format (`MMM do, yyyy`: `Nov 2nd, 2026`) and
stored under the file format (`yyyy_MM_dd`: `2026_11_02.md`); a link `[[Nov 2nd, 2026]]` means
that file. Python's `strftime` knows neither the tokens nor `do`, and the patterns Logseq offers
are few and simple, so the tokens are read here (English names, as Logseq writes them).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

_TOKEN = re.compile(r"'[^']*'|yyyy|yy|MMMM|MMM|MM|M|do|dd|d|EEEE|EEE|EE|E")
_MONTHS = tuple(calendar.month_name)
_DAYS = tuple(calendar.day_name)


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def _render(token: str, day: dt.date) -> str:
    match token:
        case "yyyy":
            return f"{day.year:04d}"
        case "yy":
            return f"{day.year % 100:02d}"
        case "MMMM":
            return _MONTHS[day.month]
        case "MMM":
            return _MONTHS[day.month][:3]
        case "MM":
            return f"{day.month:02d}"
        case "M":
            return str(day.month)
        case "do":
            return _ordinal(day.day)
        case "dd":
            return f"{day.day:02d}"
        case "d":
            return str(day.day)
        case "EEEE":
            return _DAYS[day.weekday()]
        case "EEE" | "EE" | "E":
            return _DAYS[day.weekday()][:3]
    return token[1:-1]  # a quoted literal


def format_date(day: dt.date, pattern: str) -> str:
    """`day` written with a date-fns `pattern` (`MMM do, yyyy` -> `Nov 2nd, 2026`)."""
    out: list[str] = []
    done = 0
    for match in _TOKEN.finditer(pattern):
        out += (pattern[done : match.start()], _render(match.group(0), day))
        done = match.end()
    out.append(pattern[done:])
    return "".join(out)


_CAPTURE = {  # token -> (the part of the date, what it matches)
    "yyyy": ("year", r"\d{4}"),
    "MM": ("month", r"\d{2}"),
    "M": ("month", r"\d{1,2}"),
    "dd": ("day", r"\d{2}"),
    "d": ("day", r"\d{1,2}"),
}


def parse_date(text: str, pattern: str) -> dt.date | None:
    """The day `text` names in a numeric `pattern` such as `yyyy_MM_dd`; None when it names
    none (a file in `journals/` that is not a day, or a pattern with month names)."""
    regex: list[str] = []
    seen: set[str] = set()
    done = 0
    for match in _TOKEN.finditer(pattern):
        regex.append(re.escape(pattern[done : match.start()]))
        token = match.group(0)
        done = match.end()
        if token.startswith("'"):
            regex.append(re.escape(token[1:-1]))
            continue
        if token not in _CAPTURE or _CAPTURE[token][0] in seen:
            return None
        part, digits = _CAPTURE[token]
        seen.add(part)
        regex.append(f"(?P<{part}>{digits})")
    regex.append(re.escape(pattern[done:]))
    found = re.fullmatch("".join(regex), text)
    if found is None or seen != {"year", "month", "day"}:
        return None
    try:
        return dt.date(int(found["year"]), int(found["month"]), int(found["day"]))
    except ValueError:
        return None
