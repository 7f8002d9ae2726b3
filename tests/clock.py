"""A table service's clock in tests: starts at noon and moves a millisecond per reading."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class Clock:
    """A test clock: starts at ``start`` (noon on 2026-11-22 unless given) and moves a millisecond per
    reading."""

    def __init__(self, *, start: datetime = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now
