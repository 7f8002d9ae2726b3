"""A table on a floor: replicates its journal, feeds the linked progressive and opens or closes it with the link."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.table import TableError, TableService
from controller.telemetry import observe_appends
from floor.base import FloorStore
from floor.errors import FloorConfigError, FloorError, FloorUnavailable
from floor.link_jackpot import LinkedJackpot
from floor.replicator import Replicator
from floor.units import account_unit_refusal

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class LinkSettings:
    """How a table joins its floor.

    ``pit``: the pit the table stands in. ``account``: the linked progressive it plays when it feeds
    several (default: the only one it feeds). A pass follows each journal entry (at most one every
    ``min_gap`` seconds, so a burst of cards goes in one batch), and every ``interval`` seconds anyway. ``timeout``: a
    link that has not completed a pass for this long closes the progressive (the issue's 1 s).
    ``refresh``: seconds between reads of the meter, the table's pending hits and the parameters when
    nothing was shipped. ``heartbeat``: seconds between status reports when nothing shown changed.
    A pass with nothing new and no refresh or heartbeat due asks nothing of the floor: the database's
    load grows with what the tables do, not with how many sit idle.
    """

    pit: str
    account: str | None = None
    interval: float = 0.2
    min_gap: float = 0.05
    timeout: float = 1.0
    refresh: float = 1.0
    heartbeat: float = 2.0


def floor_camera(report: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The compact camera health the status heartbeat carries, from the table's camera report
    (vision.link.CameraLink.report): state, fps, the last frame's age now, zones watched and covered."""
    if report is None:
        return None
    return {
        "state": report.get("state"),
        "fps": report.get("fps", 0.0),
        "age_s": report.get("last_frame_age_s"),
        "zones": report.get("zones", 0),
        "covered": len(report.get("covered") or ()),
    }


class FloorLink:
    """Joins one table to the floor store and keeps it there.

    Each pass ships the journal entries the floor lacks (in order, each once by (table, seq)); before a
    batch is stored, every settled round in it sends its contribution and hit to the linked account,
    keyed by the same (table, seq), so an outage at any point neither loses nor doubles one. The floor's
    amount for a hit (its meter when the hit's transaction took it) is journaled back at the table (both by its
    :class:`~floor.link_jackpot.LinkedJackpot`).

    The progressive opens only when a pass has caught up with the journal (a pass that began with it closed
    put everything journaled before it began on the floor; a table in play journals on meanwhile), and
    closes at once when a pass fails, or when no pass has completed for ``timeout`` seconds (a hung
    connection). The base game plays on throughout: the journal stays the table's source of truth and is
    backfilled on reconnection.
    """

    def __init__(self, *, table: TableService, store: FloorStore, settings: LinkSettings) -> None:
        """Link the table's progressive (closed until the first pass catches up) and try to join the floor;
        a floor that cannot be reached now is joined by a later pass (the base game plays meanwhile).

        Raises:
            FloorConfigError: as :meth:`join`.
        """
        self.table = table
        self.store = store
        self.settings = settings
        self.journal = table.journal_store
        self.table_id = self.journal.table_id
        self.jackpot = LinkedJackpot(table=table, store=store)
        self.joined = False
        self._floor_seq = -1  # the floor's newest entry of this table as the last pass left it (-1: unknown)
        self._refreshed = float("-inf")
        self._reported: tuple[object, ...] | None = None
        self._reported_at = float("-inf")
        self.replicator = Replicator(journal=self.journal, store=store, before_batch=self.jackpot.feed)
        self.link_up = False
        self.last_ok = 0.0  # time.monotonic() of the last completed pass
        self.failure = ""
        self._stop = threading.Event()
        self._wake = threading.Event()  # set by every journal entry: ship it now, not at the next interval
        observe_appends(self.journal, lambda entry, seconds: self._wake.set())
        self._threads: list[threading.Thread] = []
        if table.config.jackpot.enabled:
            table.link_progressive(self.jackpot.view)
        try:
            self.join()
        except FloorUnavailable as exc:
            self.failure = str(exc)
            log.warning("floor not reachable yet (the table plays on, progressive closed): %s", exc)

    @property
    def account(self) -> str | None:
        """The linked account the table plays (None: its jackpot is off, or the floor not joined yet)."""
        return self.jackpot.account

    def join(self) -> None:
        """Register the table on the floor (idempotent) and find the linked account it plays.

        Raises:
            FloorConfigError: the table's jackpot is on but it feeds no account, or several and none is named,
                or ``settings.account`` is not one it feeds; the table is on the floor with another pit or game,
                or with another currency or minor units than its configuration's; the linked account's
                currency or decimals are not the table's, or it has none set yet.
            FloorUnavailable: the floor cannot be reached.
        """
        config, settings, store = self.table.config, self.settings, self.store
        store.migrate()  # a table started while the floor was down meets its schema here first
        store.add_table(
            table_id=self.table_id,
            pit=settings.pit,
            game=config.game,
            name=config.name,
            currency=config.currency,
            minor_units=config.minor_units,
        )
        if config.jackpot.enabled:
            feeds = store.feeds(self.table_id)
            if settings.account is not None:
                if settings.account not in feeds:
                    raise FloorConfigError(
                        f"table {config.name} (pit {settings.pit}, {config.game}) does not feed account "
                        f"{settings.account!r}; it feeds {', '.join(feeds) or 'none'}"
                    )
                chosen = settings.account
            elif len(feeds) == 1:
                chosen = feeds[0]
            else:
                raise FloorConfigError(
                    f"table {config.name} plays a jackpot but feeds "
                    + (f"several linked accounts ({', '.join(feeds)}): name one" if feeds else "no linked account")
                )
            account = store.account(chosen)
            if (account.currency, account.minor_units) != (config.currency, config.minor_units):
                # Refused before anything is shipped: its contributions would add another money into the meter.
                raise FloorConfigError(
                    account_unit_refusal(
                        account,
                        table=f"{config.name} ({self.table_id})",
                        currency=config.currency,
                        minor_units=config.minor_units,
                    )
                )
            self.jackpot.attach(account=chosen, meter=account.meter)
        self.joined = True

    # -- one pass -----------------------------------------------------------------------------------

    def pass_once(self) -> None:
        """Ship what the floor lacks, journal the floor's hits, refresh the meter and the status, and
        take the account's new parameters between rounds.

        Raises:
            FloorUnavailable: the floor failed (what was stored stays; the rest waits for the next pass).
            FloorIntegrityError, FloorConfigError: the floor disagrees with this table (the link stops).
        """
        now = time.monotonic()
        # Whether the progressive was closed as this pass began, then what the table had journaled by then.
        was_closed = self.table.progressive == "closed"
        backlog = self.journal.last_seq
        if not self.joined:
            self.join()
        shipped = False
        if self.journal.last_seq != self._floor_seq:
            self._floor_seq = -1  # unknown until this ship completes (it may stop half-way)
            self._floor_seq = self.replicator.ship().floor_seq
            shipped = True
        if self.account is not None and (
            shipped or self.jackpot.fresh or now - self._refreshed >= self.settings.refresh
        ):
            self.jackpot.refresh()
            self._refreshed = now
        self._report(now)
        # Caught up: a pass that began with the progressive closed put on the floor everything journaled
        # before it began (a pass that began before the close, as one that hung through an outage, does not
        # count: the next one backfills first). What was journaled during it (the next cards of a table in
        # play, the floor's hit entries just journaled) goes next pass, as it does while the progressive is
        # open. Waiting instead for a pass that ends with nothing new would keep a busy table's progressive
        # closed for good: its next card comes before the pass's last query.
        closed = self.account is not None and was_closed and self.table.progressive == "closed"
        if closed and self.store.last_seq(self.table_id) >= backlog:
            self.table.set_progressive(open=True)

    def _report(self, now: float) -> None:
        """The table's status for the floor display: when something shown changed, else as a heartbeat."""
        report = getattr(self.store, "report_status", None)
        if report is None:
            return
        status, camera = self.table.inspect(
            lambda t: (
                (t.phase(), t.round_no, tuple(tilt.kind for tilt in t.tilts.values()), t.progressive),
                floor_camera(t.device_report("camera")),
            )
        )
        # The camera's state, zones and covered count are reported at once when they change; its rate and
        # the last frame's age go with the heartbeat (the floor ages the last frame from the write's time).
        shown = (*status, None if camera is None else (camera["state"], camera["zones"], camera["covered"]))
        if shown == self._reported and now - self._reported_at < self.settings.heartbeat:
            return
        phase, round_no, tilts, progressive = status
        report(
            table_id=self.table_id,
            phase=phase,
            round_no=round_no,
            tilts=list(tilts),
            progressive=progressive,
            camera=camera,
        )
        self._reported, self._reported_at = shown, now

    # -- running ------------------------------------------------------------------------------------

    def start(self) -> None:
        """Pass every ``interval`` seconds and watch the link, on two daemon threads."""
        self.last_ok = time.monotonic()
        for target, name in ((self._run, "floor-link"), (self._watch, "floor-watch")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Stop passing; one last pass ships what was journaled meanwhile (a floor that cannot take it
        gets it from the next start's backfill)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        if self._threads:
            try:
                # A pass may journal the floor's answer to a hit: the next one ships it.
                for _ in range(3):
                    self.pass_once()
                    if self.journal.last_seq == self._floor_seq:
                        break
            except (FloorError, TableError) as exc:
                log.warning("floor link: the last pass did not complete (the next start backfills): %s", exc)

    def _close(self, detail: str) -> None:
        if self.table.config.jackpot.enabled:
            self.table.set_progressive(open=False, detail=detail)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()  # an entry journaled from here on wakes the next pass
            try:
                self.pass_once()
                self.link_up, self.failure = True, ""
                self.last_ok = time.monotonic()
            except FloorUnavailable as exc:
                if self.link_up or not self.failure:
                    log.warning("floor link lost: %s", exc)
                self.link_up, self.failure = False, str(exc)
                self._close("floor link lost")
            except (FloorError, TableError) as exc:
                # The floor disagrees with this table: never paper over it. The base game plays on.
                log.error("floor link stopped: %s", exc)
                self.link_up, self.failure = False, str(exc)
                self._close(f"floor link stopped: {exc}")
                return
            if self._stop.wait(self.settings.min_gap):
                return
            self._wake.wait(self.settings.interval)

    def _watch(self) -> None:
        """A pass stuck on a hung connection does not hold the progressive open."""
        step = self.settings.timeout / 4
        while not self._stop.wait(step):
            if time.monotonic() - self.last_ok > self.settings.timeout:
                if self.link_up:
                    log.warning("floor link: no pass completed for %.1f s", self.settings.timeout)
                self.link_up = False
                self._close("floor link lost")
