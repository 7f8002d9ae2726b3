"""A live table: the journal, the table service and its shoe, joined; what `run` and `demo` start."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from controller.config import TableConfig
from controller.errors import ControllerError
from controller.journal import JournalError, JournalUnavailable, SqliteJournal
from controller.table import TableService, utcnow
from drivers.errors import DeliveryRefused
from drivers.shoe import (
    CardDrawn,
    DrawGap,
    LinkDown,
    LinkUp,
    ShoeConfig,
    ShoeDriver,
    ShoeEvent,
    ShoeStatus,
    StatusCode,
)

JOURNAL = "journal.sqlite3"
log = logging.getLogger(__name__)

# Shoe conditions that stop play; their "cleared" counterparts leave the tilt for a supervisor.
_FAULTS = {StatusCode.JAM: "jam", StatusCode.LID_OPEN: "lid-open", StatusCode.EMPTY: "empty"}


@dataclass(frozen=True, kw_only=True)
class LiveConfig:
    """Where a live table keeps its data and where its shoe is.

    ``table`` may be None to run the table as its journal last configured it.
    """

    data: Path
    shoe: str | None
    table: TableConfig | None = None


class LiveTable:
    """One running table: shoe events go into the table service on the driver's thread.

    A card is journaled before the service acknowledges it; after a crash the driver asks the shoe
    to replay every draw after the last journaled one, so each card arrives exactly once.
    """

    def __init__(self, *, config: LiveConfig, clock: Callable[[], datetime] = utcnow) -> None:
        """Open the journal and replay it.

        Raises:
            JournalError: the journal cannot be opened or read.
            TableError: no configuration given and none journaled, or a change under an open round.
            DriverConfigError: the shoe path or URL has no transport.
        """
        try:
            config.data.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{config.data}: cannot use it as the table's data folder: {exc.strerror}") from None
        self.config = config
        self.store = SqliteJournal(path=config.data / JOURNAL)
        try:
            self.table = TableService(store=self.store, config=config.table, clock=clock)
            self.driver: ShoeDriver | None = None
            if config.shoe:
                shoe = ShoeConfig(url=config.shoe, resume_after=self.table.last_counter)
                self.driver = ShoeDriver(config=shoe, on_event=self._on_event)
        except BaseException:
            self.store.close()
            raise
        self.link_up = threading.Event()
        self._shoe_state = "connecting"  # until its first LinkUp; "ok" while linked, "lost" after a LinkDown
        if self.driver is not None:
            # The displays show the shoe's lamp from this (a table without a shoe attaches none).
            self.table.attach_device("shoe", lambda: {"state": self._shoe_state})

    def start(self) -> None:
        if self.driver is not None:
            self.driver.start()

    def stop(self) -> None:
        if self.driver is not None:
            self.driver.stop()
        self.store.close()

    def _on_event(self, event: ShoeEvent) -> None:
        """Runs on the shoe driver's thread. A journal that cannot store the event refuses it: the
        driver then acknowledges nothing, and the shoe sends it again once storage is back."""
        table = self.table
        try:
            match event:
                case CardDrawn():
                    table.on_card(event.card.code, counter=event.draw_counter, shoe=event.shoe_id)
                case ShoeStatus(code=StatusCode.UNREADABLE):
                    log.warning("shoe: draw %s unreadable", event.draw_counter)
                    table.on_shoe_status("unreadable", counter=event.draw_counter)
                case ShoeStatus(code=code) if code in _FAULTS:
                    log.warning("shoe reports %s", _FAULTS[code])
                    table.on_shoe_status(_FAULTS[code])
                case ShoeStatus(code=StatusCode.NEW_DECK):
                    log.info("shoe reports a new deck")
                    table.on_shoe_status("new-deck")
                case ShoeStatus():
                    # Lid closed, jam cleared: the open tilt waits for a supervisor.
                    log.info("shoe reports %s", event.code.name.lower().replace("_", " "))
                case DrawGap():
                    log.warning("shoe lost draws %s-%s", event.first, event.last)
                    table.on_draw_gap(event.first, event.last, shoe=event.shoe_id)
                case LinkDown():
                    self.link_up.clear()
                    self._shoe_state = "lost"
                    table.device_changed()
                    log.warning("shoe link down: %s", event.reason)
                    table.on_link(False, detail=event.reason)
                case LinkUp():
                    self.link_up.set()
                    self._shoe_state = "ok"
                    table.device_changed()
                    resumed = f", resuming after draw {table.last_counter}" if event.resumed else ""
                    log.info("shoe %s connected (firmware %s%s)", event.shoe_id, event.firmware, resumed)
                    table.on_link(True)
        except JournalUnavailable as exc:
            raise DeliveryRefused(str(exc)) from None
        except ControllerError as exc:
            log.error("shoe event %s refused: %s", type(event).__name__, exc)
