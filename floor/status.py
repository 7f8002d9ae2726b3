"""Each table's live status on the floor (phase, round, tilts, progressive, link) and the change signal.

Tables report their status every replication pass (``report_status``); the floor service reads every
table's at once (``statuses``). A report that changes nothing shown only refreshes ``updated_at`` (the
link's heartbeat); one that changes something also bumps the row's ``version`` and signals the change
(PostgreSQL: ``NOTIFY floor_changes``; SQLite: the poller compares versions, floor/changes.py).
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, get_args

from controller.tilts import TiltKind
from floor.errors import FloorConfigError

if TYPE_CHECKING:
    from controller.sql import Cursor

CHANNEL = "floor_changes"  # PostgreSQL NOTIFY channel: payload = a table id, or JACKPOT
JACKPOT = "jackpot"  # the payload of any change to the floor's hits (new, approved, confirmed) or meters' corrections
ROUND_ENDED = "round-settled"  # the journal kind that ends a played round (docs/journal.md): what "rounds" counts
TILT_KINDS: frozenset[str] = frozenset(get_args(TiltKind))
PROGRESSIVE = ("open", "closed", "none")
# Phases as tables report them (controller.table.TableService.phase, plus the floor's own words).
PHASES = ("idle", "betting", "dealing", "deciding", "decisions", "showdown", "tilt", "closed")
_PHASE = re.compile(r"^[a-z][a-z-]{0,23}$")
LINK_LOST_S = 10.0  # a table that has not reported for longer shows "link lost"


def _stamp(moment: datetime) -> str:
    # Fixed width (microseconds always present) so that ISO texts compare as the times they name.
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def link_state(updated_at: str | None, *, now: datetime, lost_after: float = LINK_LOST_S) -> str:
    """The link as its last report's age says: "ok", "lost" (none for more than ``lost_after`` seconds)
    or "none" (the table never reported)."""
    if updated_at is None:
        return "none"
    age = (now - datetime.fromisoformat(updated_at)).total_seconds()
    return "lost" if age > lost_after else "ok"


@dataclass(frozen=True, slots=True)
class TableStatus:
    """What the floor shows of one table: never a card (tilts are kinds, from a fixed list).

    ``updated_at`` is None for a table on the floor that never reported; ``version`` grows at each
    report that changed something shown."""

    table_id: str
    pit: str
    game: str
    phase: str
    round_no: int
    tilts: tuple[str, ...]
    progressive: str
    updated_at: str | None
    version: int
    last_seq: int
    rounds_last_hour: int
    pending_hits: int
    name: str = ""  # what staff call the table (its id is its journal's)

    def link(self, *, now: datetime, lost_after: float = LINK_LOST_S) -> str:
        return link_state(self.updated_at, now=now, lost_after=lost_after)

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table_id,
            "name": self.name,
            "pit": self.pit,
            "game": self.game,
            "phase": self.phase,
            "round": self.round_no,
            "tilts": list(self.tilts),
            "progressive": self.progressive,
            "updated_at": self.updated_at,
            "version": self.version,
            "last_seq": self.last_seq,
            "rounds_last_hour": self.rounds_last_hour,
            "pending_hits": self.pending_hits,
        }


_STATUS_SELECT = (
    "SELECT t.table_id, t.pit, t.game, s.phase, s.round_no, s.tilts, s.progressive, s.updated_at, s.version, "
    "(SELECT MAX(j.seq) FROM journal j WHERE j.table_id = t.table_id), "
    "(SELECT COUNT(*) FROM journal r WHERE r.table_id = t.table_id AND r.kind = %s AND r.at >= %s), "
    "(SELECT COUNT(*) FROM jackpot_hits h WHERE h.table_id = t.table_id AND h.status = 'pending'), t.name "
    "FROM floor_tables t LEFT JOIN table_status s ON s.table_id = t.table_id"
)


class StatusStore(ABC):
    """The status half of the floor store (``FloorStore`` inherits it): the same SQL on both backends."""

    @abstractmethod
    def _transaction(self, *, lock: bool) -> AbstractContextManager[Cursor]: ...

    def _notify(self, cur: Cursor, key: str) -> None:  # noqa: B027 - a hook: only PostgreSQL signals
        """Signal a change of ``key`` (a table id or JACKPOT) when this transaction commits."""

    def report_status(
        self, *, table_id: str, phase: str, round_no: int, tilts: Sequence[str], progressive: str
    ) -> None:
        """A table's status as of now (upsert): its phase, round number, open tilts (kinds) and whether its
        linked progressive is open, closed or not linked ("none"). Called every replication pass: it is
        also the link's heartbeat.

        Raises:
            FloorConfigError: the table is not on the floor, or a phase, tilt kind, progressive state or
                round number that is not one (a tilt is reported by kind only: never a card).
            FloorUnavailable: the database failed; nothing was recorded.
        """
        if not _PHASE.match(phase):
            raise FloorConfigError(f"phase {phase!r}: one of {', '.join(PHASES)}")
        unknown = sorted(set(tilts) - TILT_KINDS)
        if unknown:
            raise FloorConfigError(f"unknown tilt kind {unknown[0]!r} (one of {', '.join(sorted(TILT_KINDS))})")
        if progressive not in PROGRESSIVE:
            raise FloorConfigError(f"progressive {progressive!r}: one of {', '.join(PROGRESSIVE)}")
        if round_no < 0:
            raise FloorConfigError(f"round number must be >= 0, not {round_no}")
        shown = (phase, int(round_no), json.dumps(sorted(set(tilts))), progressive)
        with self._transaction(lock=True) as cur:
            cur.execute("SELECT 1 FROM floor_tables WHERE table_id = %s", (table_id,))
            if cur.fetchone() is None:
                raise FloorConfigError(f"table {table_id} is not on the floor")
            cur.execute(
                "SELECT phase, round_no, tilts, progressive, version FROM table_status WHERE table_id = %s",
                (table_id,),
            )
            row = cur.fetchone()
            now = _stamp(datetime.now(UTC))
            if row is None:
                cur.execute(
                    "INSERT INTO table_status (table_id, phase, round_no, tilts, progressive, updated_at, version) "
                    "VALUES (%s, %s, %s, %s, %s, %s, 1)",
                    (table_id, *shown, now),
                )
                self._notify(cur, table_id)
            elif (row[0], int(row[1]), row[2], row[3]) == shown:
                cur.execute("UPDATE table_status SET updated_at = %s WHERE table_id = %s", (now, table_id))
            else:
                cur.execute(
                    "UPDATE table_status SET phase = %s, round_no = %s, tilts = %s, progressive = %s, "
                    "updated_at = %s, version = version + 1 WHERE table_id = %s",
                    (*shown, now, table_id),
                )
                self._notify(cur, table_id)

    def statuses(self, *, tables: Collection[str] | None = None, now: datetime | None = None) -> list[TableStatus]:
        """Every table on the floor (or those named), by pit then id, with its rounds settled in the hour
        before ``now`` (from the replicated journal), its last replicated entry and its pending hits.

        Raises:
            FloorUnavailable: the database failed.
        """
        since = _stamp((now or datetime.now(UTC)) - timedelta(hours=1))
        sql, params = _STATUS_SELECT, [ROUND_ENDED, since]
        if tables is not None:
            if not tables:
                return []
            sql += f" WHERE t.table_id IN ({', '.join(['%s'] * len(tables))})"
            params.extend(tables)
        with self._transaction(lock=False) as cur:
            cur.execute(sql + " ORDER BY t.pit, t.name, t.table_id", params)
            rows = cur.fetchall()
        return [
            TableStatus(
                table_id=str(r[0]),
                pit=str(r[1]),
                game=str(r[2]),
                phase=str(r[3]) if r[3] is not None else "unknown",
                round_no=int(r[4] or 0),
                tilts=tuple(json.loads(r[5])) if r[5] else (),
                progressive=str(r[6]) if r[6] is not None else "none",
                updated_at=None if r[7] is None else str(r[7]),
                version=int(r[8] or 0),
                last_seq=int(r[9] or 0),
                rounds_last_hour=int(r[10]),
                pending_hits=int(r[11]),
                name=str(r[12] or r[0]),
            )
            for r in rows
        ]

    def heartbeats(self) -> dict[str, tuple[str, int]]:
        """Each reporting table's (updated_at, version): cheap enough to read every second.

        Raises:
            FloorUnavailable: the database failed.
        """
        with self._transaction(lock=False) as cur:
            cur.execute("SELECT table_id, updated_at, version FROM table_status")
            return {str(r[0]): (str(r[1]), int(r[2])) for r in cur.fetchall()}

    def change_marks(self) -> tuple[dict[str, int], tuple[int, ...]]:
        """What the SQLite poller compares: each table's status version (tables that never reported: 0) and
        a jackpot mark that changes with every hit, approval, confirmation and correction.

        Raises:
            FloorUnavailable: the database failed.
        """
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT t.table_id, COALESCE(s.version, 0) FROM floor_tables t "
                "LEFT JOIN table_status s ON s.table_id = t.table_id"
            )
            versions = {str(r[0]): int(r[1]) for r in cur.fetchall()}
            cur.execute(
                "SELECT COUNT(*), COUNT(approved_by), COUNT(confirmed_by), "
                "(SELECT COUNT(*) FROM jackpot_ops WHERE kind = 'correction') FROM jackpot_hits"
            )
            row = cur.fetchone()
            return versions, tuple(int(v) for v in row)
