"""A report's range and its periods: --from/--to, --day, --shift, in a time zone, cut into shifts or days."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from floor.reports import Period, ReportError

DEFAULT_SHIFTS = "06:00,14:00,22:00"
GROUPS = ("range", "day", "shift")


class PeriodError(ReportError):
    """A bad date, time, time zone or shift boundary; the message names the option and shows a good one."""


def zone(name: str | None) -> tzinfo:
    """The named IANA time zone; without a name the machine's (``TZ``, then /etc/localtime), else UTC.

    Raises:
        PeriodError: an unknown zone name.
    """
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise PeriodError(f"--tz {name!r}: not a time zone name (e.g. Europe/Prague or UTC)") from None
    env = os.environ.get("TZ", "").lstrip(":")
    if env:
        try:
            return ZoneInfo(env)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    link = Path("/etc/localtime")
    if link.is_symlink():
        parts = link.resolve().parts
        if "zoneinfo" in parts:
            try:
                return ZoneInfo("/".join(parts[parts.index("zoneinfo") + 1 :]))
            except (ZoneInfoNotFoundError, ValueError):
                pass
    return UTC


def zone_name(tz: tzinfo) -> str:
    return str(getattr(tz, "key", None) or tz.tzname(None) or "UTC")


def shift_starts(text: str) -> tuple[time, ...]:
    """Shift boundaries ``HH:MM,HH:MM,…`` (local), sorted; the first is when the gaming day starts.

    Raises:
        PeriodError: not a list of distinct HH:MM times.
    """
    try:
        starts = tuple(sorted(time.fromisoformat(part.strip()) for part in text.split(",")))
    except ValueError:
        raise PeriodError(f"--shifts {text!r}: give local start times, e.g. {DEFAULT_SHIFTS}") from None
    if not starts or len(set(starts)) != len(starts):
        raise PeriodError(f"--shifts {text!r}: give distinct local start times, e.g. {DEFAULT_SHIFTS}")
    return starts


def moment(text: str, option: str, tz: tzinfo) -> datetime:
    """An ISO date (its midnight) or date and time; without an offset it is local time in ``tz``.

    Raises:
        PeriodError: not a date or time.
    """
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise PeriodError(f"{option} {text!r}: give a date or time, e.g. 2026-11-24 or 2026-11-24T06:00") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=tz)


def utc_text(when: datetime) -> str:
    """As the journal writes times: UTC ISO 8601, so that comparing the text compares the times."""
    return when.astimezone(UTC).isoformat()


@dataclass(frozen=True, slots=True)
class Range:
    """``[start, end)``, aware datetimes."""

    start: datetime
    end: datetime


def _local(day: date, at: time, tz: tzinfo) -> datetime:
    return datetime.combine(day, at, tzinfo=tz)


def day_range(text: str, *, tz: tzinfo, starts: tuple[time, ...]) -> Range:
    """The gaming day ``text`` (a date): from its first shift's start to the next day's.

    Raises:
        PeriodError: not a date.
    """
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise PeriodError(f"--day {text!r}: give a date, e.g. 2026-11-24") from None
    return Range(_local(day, starts[0], tz), _local(day + timedelta(days=1), starts[0], tz))


def shift_range(text: str, *, tz: tzinfo, starts: tuple[time, ...]) -> Range:
    """The shift that contains the local time ``text`` (a date alone: its first shift).

    Raises:
        PeriodError: not a date or time.
    """
    when = moment(text, "--shift", tz)
    if len(text.strip()) == 10:  # a date alone: the day's first shift
        when = _local(when.date(), starts[0], tz)
    bounds = _boundaries(when - timedelta(days=2), when + timedelta(days=2), tz=tz, starts=starts)
    for a, b in itertools.pairwise(bounds):
        if a <= when < b:
            return Range(a, b)
    raise PeriodError(f"--shift {text!r}: no shift contains it")  # unreachable with boundaries every day


def _boundaries(start: datetime, end: datetime, *, tz: tzinfo, starts: tuple[time, ...]) -> list[datetime]:
    """Every local shift start from the day before ``start`` to the day after ``end``, in time order."""
    first = start.astimezone(tz).date() - timedelta(days=1)
    last = end.astimezone(tz).date() + timedelta(days=1)
    out: list[datetime] = []
    day = first
    while day <= last:
        out.extend(_local(day, at, tz) for at in starts)
        day += timedelta(days=1)
    return sorted(set(out), key=lambda d: d.astimezone(UTC))


def periods(rng: Range, *, grouping: str, tz: tzinfo, starts: tuple[time, ...]) -> list[Period]:
    """``rng`` whole (``range``), or cut at every gaming day's start (``day``) or every shift start (``shift``).

    Raises:
        PeriodError: an unknown grouping.
    """
    if grouping not in GROUPS:
        raise PeriodError(f"--group {grouping!r}: one of {', '.join(GROUPS)}")
    if grouping == "range":
        return [Period(utc_text(rng.start), utc_text(rng.end), _label(rng.start, rng.end, tz))]
    cuts = _boundaries(rng.start, rng.end, tz=tz, starts=starts if grouping == "shift" else starts[:1])
    inside = [c for c in cuts if rng.start < c < rng.end]
    edges = [rng.start, *inside, rng.end]
    return [Period(utc_text(a), utc_text(b), _label(a, b, tz)) for a, b in itertools.pairwise(edges)]


def _label(start: datetime, end: datetime, tz: tzinfo) -> str:
    a, b = start.astimezone(tz), end.astimezone(tz)
    until = f"{b:%H:%M}" if b.date() == a.date() or (b - a) <= timedelta(days=1) else f"{b:%Y-%m-%d %H:%M}"
    return f"{a:%Y-%m-%d %H:%M}–{until} {zone_name(tz)}"
