"""Each table's live status on the floor (phase, round, tilts, progressive, camera, link) and the change signal.

Tables report their status every replication pass (``report_status``); the floor service reads every
table's at once (``statuses``). A report that changes nothing shown only refreshes ``updated_at`` (the
link's heartbeat); one that changes something also bumps the row's ``version`` and signals the change
(PostgreSQL: ``NOTIFY floor_changes``; SQLite: the poller compares versions, floor/changes.py).
"""

from __future__ import annotations

import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
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
# A camera's states as the table reports them (vision.link_health.LinkHealth.lamp).
CAMERA_STATES = ("starting", "ok", "stale", "stopped", "lost")


def _stamp(moment: datetime) -> str:
    # Fixed width (microseconds always present) so that ISO texts compare as the times they name.
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def check_camera(camera: Mapping[str, Any]) -> dict[str, Any]:
    """A table's camera report as the floor keeps it: ``state`` (one of :data:`CAMERA_STATES`), ``fps``,
    ``age_s`` (the last frame's age when the table wrote it; None before the first frame), ``zones``
    (watched) and ``covered`` (zones covered now, a count).

    Raises:
        FloorConfigError: a missing or unknown field, a state that is not one, a negative number.
    """
    unknown = sorted(set(camera) - {"state", "fps", "age_s", "zones", "covered"})
    if unknown:
        raise FloorConfigError(f"camera: unknown field {unknown[0]!r}")
    state = camera.get("state")
    if state not in CAMERA_STATES:
        raise FloorConfigError(f"camera state {state!r}: one of {', '.join(CAMERA_STATES)}")
    try:
        fps = float(camera.get("fps", 0.0))
        age = camera.get("age_s")
        age = None if age is None else float(age)
        zones, covered = int(camera.get("zones", 0)), int(camera.get("covered", 0))
    except (TypeError, ValueError):
        raise FloorConfigError("camera: fps and age_s are numbers, zones and covered whole numbers") from None
    if not math.isfinite(fps) or (age is not None and not math.isfinite(age)):
        raise FloorConfigError("camera: fps and age_s are finite numbers")
    if fps < 0 or (age is not None and age < 0) or zones < 0 or covered < 0:
        raise FloorConfigError("camera: fps, age_s, zones and covered are never negative")
    if covered > zones:
        raise FloorConfigError(f"camera: {covered} zones covered of {zones}")
    return {
        "state": state,
        "fps": round(fps, 1),
        "age_s": None if age is None else round(age, 2),
        "zones": zones,
        "covered": covered,
    }


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
    # The camera as last reported (check_camera's fields and ``at``, the write's time: the floor ages the
    # last frame from it); None: no camera.
    camera: dict[str, Any] | None = None

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
            "camera": self.camera,
        }


_STATUS_SELECT = (
    "SELECT t.table_id, t.pit, t.game, s.phase, s.round_no, s.tilts, s.progressive, s.updated_at, s.version, "
    "(SELECT MAX(j.seq) FROM journal j WHERE j.table_id = t.table_id), "
    "(SELECT COUNT(*) FROM journal r WHERE r.table_id = t.table_id AND r.kind = %s AND r.at >= %s), "
    "(SELECT COUNT(*) FROM jackpot_hits h WHERE h.table_id = t.table_id AND h.status = 'pending'), t.name, "
    "s.camera "
    "FROM floor_tables t LEFT JOIN table_status s ON s.table_id = t.table_id"
)


def _camera_from(text: str | None) -> dict[str, Any] | None:
    return None if not text else dict(json.loads(text))


def _camera_shown(camera: Mapping[str, Any] | None) -> str:
    """What of a camera report is shown enough to bump the version: its state, zones and covered count."""
    return "" if camera is None else f"{camera['state']}:{camera['zones']}:{camera['covered']}"


class StatusStore(ABC):
    """The status half of the floor store (``FloorStore`` inherits it): the same SQL on both backends."""

    @abstractmethod
    def _transaction(self, *, lock: bool) -> AbstractContextManager[Cursor]: ...

    def _notify(self, cur: Cursor, key: str) -> None:  # noqa: B027 - a hook: only PostgreSQL signals
        """Signal a change of ``key`` (a table id or JACKPOT) when this transaction commits."""

    def report_status(
        self,
        *,
        table_id: str,
        phase: str,
        round_no: int,
        tilts: Sequence[str],
        progressive: str,
        camera: Mapping[str, Any] | None = None,
    ) -> None:
        """A table's status as of now (upsert): its phase, round number, open tilts (kinds), whether its
        linked progressive is open, closed or not linked ("none"), and its camera's health (None: no
        camera; see :func:`check_camera`). Called every replication pass: it is also the link's heartbeat.
        The camera's state, zones and covered count are shown (a change bumps the version); its rate
        and age are refreshed at every report without one (the floor reads them at its next read).

        Raises:
            FloorConfigError: the table is not on the floor, or a phase, tilt kind, progressive state,
                round number or camera report that is not one (a tilt is reported by kind only: never a card).
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
        cam = None if camera is None else check_camera(camera)
        shown = (phase, int(round_no), json.dumps(sorted(set(tilts))), progressive, _camera_shown(cam))
        with self._transaction(lock=True) as cur:
            cur.execute("SELECT 1 FROM floor_tables WHERE table_id = %s", (table_id,))
            if cur.fetchone() is None:
                raise FloorConfigError(f"table {table_id} is not on the floor")
            cur.execute(
                "SELECT phase, round_no, tilts, progressive, camera, version FROM table_status WHERE table_id = %s",
                (table_id,),
            )
            row = cur.fetchone()
            now = _stamp(datetime.now(UTC))
            camera_json = None if cam is None else json.dumps({**cam, "at": now}, separators=(",", ":"))
            columns = (*shown[:4], camera_json)
            if row is None:
                cur.execute(
                    "INSERT INTO table_status (table_id, phase, round_no, tilts, progressive, camera, updated_at, "
                    "version) VALUES (%s, %s, %s, %s, %s, %s, %s, 1)",
                    (table_id, *columns, now),
                )
                self._notify(cur, table_id)
            elif (row[0], int(row[1]), row[2], row[3], _camera_shown(_camera_from(row[4]))) == shown:
                cur.execute(
                    "UPDATE table_status SET camera = %s, updated_at = %s WHERE table_id = %s",
                    (camera_json, now, table_id),
                )
            else:
                cur.execute(
                    "UPDATE table_status SET phase = %s, round_no = %s, tilts = %s, progressive = %s, camera = %s, "
                    "updated_at = %s, version = version + 1 WHERE table_id = %s",
                    (*columns, now, table_id),
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
                camera=_camera_from(r[13]),
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
