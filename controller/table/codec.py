"""Who acts at a table, and how the table writes bets, tilts, settings and finished rounds as JSON."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from controller.config import TableConfig
from controller.engine import (
    Bettor,
    BoxBet,
)
from controller.journal import (
    Entry,
)
from controller.record import RoundRecord, parse_record, settle_record
from controller.settlement import RoundSettlement
from controller.tilts import Tilt

Role = Literal["dealer", "supervisor", "admin", "system", "shoe", "camera"]
# Devices that report their own health to the displays (TableService.attach_device).
Device = Literal["shoe", "camera"]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who did something: kept with every journal entry."""

    name: str
    role: Role

    def __str__(self) -> str:
        return f"{self.role}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> Actor:
        role, _, name = text.partition(":")
        return cls(name=name, role=role)  # type: ignore[arg-type]


SYSTEM = Actor("controller", "system")
SHOE = Actor("shoe", "shoe")
CAMERA = Actor("camera", "camera")


def bets_to_json(bets: Iterable[BoxBet]) -> list[dict[str, Any]]:
    out = []
    for b in bets:
        item: dict[str, Any] = {"box": b.box, "ante": b.ante, "bonus": b.bonus, "blind": b.blind}
        if b.bettors:
            item["bettors"] = [{"name": p.name, "ante": p.ante, "bonus": p.bonus} for p in b.bettors]
        out.append(item)
    return out


def bets_from_json(items: Iterable[Mapping[str, Any]]) -> tuple[BoxBet, ...]:
    return tuple(
        BoxBet(
            box=i["box"],
            ante=i["ante"],
            bonus=i.get("bonus", 0),
            blind=i.get("blind", False),
            bettors=tuple(Bettor(p["name"], p["ante"], p.get("bonus", 0)) for p in i.get("bettors", [])),
        )
        for i in items
    )


@dataclass(frozen=True, slots=True)
class RecalledRound:
    """A finished round: its record (replayable with ``dealer-assist settle``) and its settlement."""

    round: int
    record: RoundRecord
    settlement: RoundSettlement
    finished_at: str

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, **self.record.to_json(), "settlement": self.settlement.to_json()}

    @classmethod
    def from_line(cls, line: Mapping[str, Any], *, finished_at: str) -> RecalledRound:
        """A round from its history line (the round index), settled again from its record.

        Raises:
            JournalIntegrityError: the line does not settle to the settlement it records.
        """
        from controller.journal import JournalIntegrityError

        record = parse_record(line)
        settlement = settle_record(record)
        if settlement.to_json() != line["settlement"]:
            raise JournalIntegrityError(f"round {line['round']}: its indexed record does not settle as paid")
        return cls(int(line["round"]), record, settlement, finished_at)


def entry_to_json(entry: Entry) -> dict[str, Any]:
    return {
        "seq": entry.seq,
        "kind": entry.kind,
        "data": dict(entry.data),
        "actor": entry.actor,
        "at": entry.at,
        "hash": entry.hash,
    }


def tilt_to_json(tilt: Tilt) -> dict[str, Any]:
    return {
        "id": tilt.id,
        "kind": tilt.kind,
        "message": tilt.message,
        "raised_at": tilt.raised_at,
        "round": tilt.round,
        "held": list(tilt.held),
        "card": tilt.card,
    }


def tilt_from_json(data: Mapping[str, Any]) -> Tilt:
    return Tilt(
        id=data["id"],
        kind=data["kind"],
        message=data["message"],
        raised_at=data["raised_at"],
        round=data["round"],
        held=tuple(data["held"]),
        card=data["card"],
    )


def record_settings(config: TableConfig) -> dict[str, Any]:
    settings = config.model_dump(mode="json", exclude={"game"})
    settings["rules"] = config.rules.model_dump(mode="json", exclude_none=True)
    cleaned: dict[str, Any] = _drop_none(settings)
    return cleaned


def config_settings(config: TableConfig) -> dict[str, Any]:
    settings = config.model_dump(mode="json")
    settings["rules"] = config.rules.model_dump(mode="json")
    cleaned: dict[str, Any] = _drop_none(settings)
    return cleaned


def changed_settings(old: Any, new: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted key, old value, new value) for every setting that differs between two settings trees."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in sorted(set(old) | set(new)):
            out.extend(changed_settings(old.get(key), new.get(key), f"{prefix}{key}."))
        return out
    return [] if old == new else [(prefix.rstrip("."), old, new)]


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    return value
