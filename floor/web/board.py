"""The floor service's one in-memory picture of the floor: a tile per table, the pending hits, the meters.

Refreshed from the store (only what changed, on a signal; link states from the heartbeats every second;
everything now and then), it says which tiles changed so the live feed sends only those. A tile carries
no card at all: table id, pit, game, phase, round, rounds in the last hour, tilt kinds, pending hits,
link state, progressive state, the camera's health (``camera``) and its lamp's state (``camera_state``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from floor.jackpots import Account, Hit
from floor.status import LINK_LOST_S, TableStatus, link_state

# The filter's checkboxes: has a tilt, has a pending hit, link lost, camera not working (CAMERA_TROUBLE).
FLAGS = ("tilt", "jackpot", "lost", "camera")
CAMERA_TROUBLE = ("stale", "stopped", "lost", "disagrees")


def camera_state(camera: dict[str, Any] | None, tilts: Iterable[str]) -> str:
    """The camera's lamp on a tile: its tilts first (``lost``: failed for good, ``disagrees``: it read
    another card than the shoe), then its own report (starting, ok, stale, stopped, lost); ``none``: no camera."""
    kinds = set(tilts)
    if "camera-link-lost" in kinds:
        return "lost"
    if "camera-mismatch" in kinds:
        return "disagrees"
    return "none" if camera is None else str(camera["state"])


MAX_QUERY = 64


@dataclass(frozen=True, slots=True)
class TileFilter:
    """What one display shows: a pit, a game, text in the table id / pit / game, and flags (all must hold)."""

    pit: str = ""
    game: str = ""
    q: str = ""
    flags: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, *, pit: str = "", game: str = "", q: str = "", flags: Iterable[str] = ()) -> TileFilter:
        """Raises ValueError: an unknown flag or an over-long query."""
        wanted = frozenset(f for f in flags if f)
        unknown = sorted(wanted - set(FLAGS))
        if unknown:
            raise ValueError(f"unknown filter {unknown[0]!r} (one of {', '.join(FLAGS)})")
        if max(len(pit), len(game), len(q)) > MAX_QUERY:
            raise ValueError(f"a filter value is at most {MAX_QUERY} characters")
        return cls(pit=pit.strip(), game=game.strip(), q=q.strip().lower(), flags=wanted)

    def matches(self, tile: dict[str, Any]) -> bool:
        if self.pit and tile["pit"] != self.pit:
            return False
        if self.game and tile["game"] != self.game:
            return False
        if self.q and not any(self.q in str(tile[k]).lower() for k in ("table", "name", "pit", "game")):
            return False
        if "tilt" in self.flags and not tile["tilts"]:
            return False
        if "jackpot" in self.flags and not tile["pending_hits"]:
            return False
        if "camera" in self.flags and tile["camera_state"] not in CAMERA_TROUBLE:
            return False
        return "lost" not in self.flags or tile["link"] in ("lost", "none")


@dataclass(slots=True)
class Board:
    """Tiles by table id (in pit, id order), the jackpot panel, and the database's reachability."""

    link_lost_after: float = LINK_LOST_S
    second_approval_above: int | None = None
    tiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    jackpots: dict[str, Any] = field(default_factory=lambda: {"hits": [], "accounts": []})
    database: str = "connecting"  # "ok", or why the floor database is not answering

    def _tile(self, status: TableStatus, now: datetime) -> dict[str, Any]:
        tile = status.to_json()
        tile["link"] = status.link(now=now, lost_after=self.link_lost_after)
        tile["camera_state"] = camera_state(status.camera, status.tilts)
        return tile

    def _put(self, tiles: Iterable[dict[str, Any]]) -> set[str]:
        """Store the tiles; a tile whose report time alone moved (a heartbeat) is not a change to send."""
        changed = set()
        for tile in tiles:
            old = self.tiles.get(tile["table"])
            if old is None or {**old, "updated_at": None} != {**tile, "updated_at": None}:
                changed.add(tile["table"])
            self.tiles[tile["table"]] = tile
        return changed

    def apply_statuses(
        self, statuses: Iterable[TableStatus], *, now: datetime | None = None, complete: bool = False
    ) -> set[str]:
        """Take these tables' statuses as read (``complete``: every table on the floor, so a table missing is
        gone); returns the ids whose tile changed."""
        now = now or datetime.now(UTC)
        statuses = list(statuses)
        changed = self._put(self._tile(s, now) for s in statuses)
        if complete:
            gone = set(self.tiles) - {s.table_id for s in statuses}
            for table in gone:
                del self.tiles[table]
            changed |= gone
        if changed:  # keep the grid's order: by pit, then id
            self.tiles = dict(sorted(self.tiles.items(), key=lambda kv: (kv[1]["pit"], kv[1]["name"], kv[0])))
        return changed

    def apply_heartbeats(
        self, beats: dict[str, tuple[str, int]], *, now: datetime | None = None
    ) -> tuple[set[str], set[str]]:
        """Take every table's last report (time, version): returns (tiles whose link state changed, tables
        whose version differs from their tile's: a change whose signal was missed, to re-read)."""
        now = now or datetime.now(UTC)
        stale = {t for t, (_, version) in beats.items() if t in self.tiles and self.tiles[t]["version"] != version}
        changed = set()
        for table, tile in self.tiles.items():
            at = beats[table][0] if table in beats else tile["updated_at"]
            tile["updated_at"] = at
            link = link_state(at, now=now, lost_after=self.link_lost_after)
            if tile["link"] != link:
                tile["link"] = link
                changed.add(table)
        return changed, stale

    def apply_jackpots(self, pending: Iterable[tuple[Hit, str]], accounts: Iterable[Account]) -> set[str] | None:
        """Take the pending hits (with their pits) and the accounts: None when the panel did not change,
        else the tables whose pending hits may have changed (theirs before and after). Each meter and hit carries
        its account's currency and minor units: the display writes every amount in them."""
        floor_above = self.second_approval_above
        accounts = list(accounts)
        units = {a.name: (a.currency, a.minor_units) for a in accounts}
        # Each jackpot's own amount where it has one, else the floor's.
        above = {a.name: a.approval_above(floor_above) for a in accounts}
        hits = [
            {
                "account": hit.account,
                "hit_no": hit.hit_no,
                "table": hit.table_id,
                "name": self.tiles.get(hit.table_id, {}).get("name") or hit.table_id,
                "pit": pit,
                "at": hit.at,
                "amount": hit.amount,
                "currency": units.get(hit.account, ("", 0))[0],
                "minor_units": units.get(hit.account, ("", 0))[1],
                "share_bp": hit.share_bp,
                "needs_second": _above(hit.amount, above.get(hit.account, floor_above)),
                "approved_by": hit.approved_by,
                "approved_at": hit.approved_at,
            }
            for hit, pit in pending
        ]
        panel = {
            "hits": hits,
            "accounts": [
                {
                    "name": a.name,
                    "meter": a.meter,
                    "hits": a.hits,
                    "currency": a.currency,
                    "minor_units": a.minor_units,
                    "second_approval_above": above[a.name],
                    "own_approval": a.second_approval_above is not None,
                }
                for a in accounts
            ],
            "second_approval_above": floor_above,
        }
        if panel == self.jackpots:
            return None
        touched = {str(h["table"]) for h in self.jackpots["hits"]} | {str(h["table"]) for h in hits}
        self.jackpots = panel
        return touched

    def shown(self, flt: TileFilter) -> list[dict[str, Any]]:
        return [tile for tile in self.tiles.values() if flt.matches(tile)]

    def summary(self) -> dict[str, Any]:
        tiles = list(self.tiles.values())
        return {
            "tables": len(tiles),
            "tilts": sum(1 for t in tiles if t["tilts"]),
            "pending": len(self.jackpots["hits"]),
            "lost": sum(1 for t in tiles if t["link"] in ("lost", "none")),
            "cameras": sum(1 for t in tiles if t["camera_state"] in CAMERA_TROUBLE),
            "pits": sorted({t["pit"] for t in tiles}),
            "games": sorted({t["game"] for t in tiles}),
            "database": self.database,
        }


def _above(amount: int, above: int | None) -> bool:
    return above is not None and amount > above
