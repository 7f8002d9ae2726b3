"""Shift, day and range reports: journal entries → per-table accumulators → rows per table, pit and floor.

Pure computation: no database here (``floor/report_sources.py`` reads entries, ``floor/report_periods.py``
cuts the range into shifts or days). Money is exact integers in each table's minor units and is only ever
added up within one unit of account (currency and minor units): a pit or floor with tables in two currencies
has a row per currency. The only divisions (hold %, rounds per hour, time to clear) are rendered as decimal
strings. docs/floor.md, "Reports", says what every figure means.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from floor.errors import FloorError

Level = Literal["table", "pit", "floor"]
LEVELS: tuple[Level, ...] = ("table", "pit", "floor")
SCHEMA = "dealer-assist.report/2"  # 2: rows carry their unit of account; a total per currency (``totals``)
Unit = tuple[str, int]  # a unit of account: (currency, minor units)
UNKNOWN_CURRENCY = "?"  # a table whose unit of account the floor cannot tell: kept apart from every other
# The entry kinds a report reads; everything else in a journal (cards, actions, …) is skipped in SQL.
KINDS: tuple[str, ...] = (
    *("round-settled", "round-voided", "tilt-raised", "tilt-cleared", "payment-corrected"),
    "jackpot-floor-hit",  # a linked progressive's hit: the floor's amount replaces the table's provisional one
)
ROUND_ENDING = frozenset({"cancel", "void"})  # tilt resolutions that void the round (redeal is counted apart)

# Drop groups: the fixed CSV columns. A bet name not listed (a future game's) counts as a play bet, or as a
# fee when its name ends in "-fee"; the JSON's ``drop_by_bet`` keeps every name as the settlement wrote it.
DROP_GROUPS: tuple[str, ...] = ("ante", "play", "fees", "bonus")
_GROUP_OF = {"ante": "ante", "bonus": "bonus", "exchange-fee": "fees", "buy-fee": "fees"}


def drop_group(bet: str) -> str:
    """The drop column a bet's stake is counted in: ante, play (raise, call, bet, flop, turn, river), fees, bonus."""
    return _GROUP_OF.get(bet, "fees" if bet.endswith("-fee") else "play")


class ReportError(FloorError, ValueError):
    """A report cannot be made: a bad option (range, time zone, shift) or an entry it cannot read (names the
    table and the entry)."""


@dataclass(slots=True)
class TiltStats:
    """Tilts of one kind raised in a period: how many, how many cleared (and how long that took), how many open."""

    raised: int = 0
    cleared: int = 0
    clear_ms: int = 0  # total time from raised to cleared, over the cleared ones
    max_clear_ms: int = 0

    @property
    def open(self) -> int:
        return self.raised - self.cleared

    def add(self, other: TiltStats) -> None:
        self.raised += other.raised
        self.cleared += other.cleared
        self.clear_ms += other.clear_ms
        self.max_clear_ms = max(self.max_clear_ms, other.max_clear_ms)

    def to_json(self) -> dict[str, Any]:
        return {
            "raised": self.raised,
            "cleared": self.cleared,
            "open": self.open,
            "avg_clear_s": seconds(self.clear_ms // self.cleared if self.cleared else None),
            "max_clear_s": seconds(self.max_clear_ms if self.cleared else None),
        }


@dataclass(slots=True)
class Figures:
    """Everything a report adds up for one table, pit or the floor over one period. All amounts exact."""

    rounds: int = 0
    voided: int = 0
    redeals: int = 0
    hours: set[str] = field(default_factory=set)  # "<table>|YYYY-MM-DDTHH": table-hours with a settled round
    drop_by_bet: dict[str, int] = field(default_factory=dict)
    win: int = 0  # the house's result: minus the settlements' house_pays
    payouts: int = 0  # paid to boxes that won (main game and bonus)
    cap_cut: int = 0
    paid_short: int = 0  # due minus paid, where the dealer paid another amount than the settlement
    corrections: int = 0
    corrections_handed: int = 0
    jackpot_contributions: int = 0
    jackpot_hits: int = 0
    jackpot_won: int = 0
    tilts: dict[str, TiltStats] = field(default_factory=dict)

    @property
    def drop(self) -> int:
        return sum(self.drop_by_bet.values())

    def drop_groups(self) -> dict[str, int]:
        groups = dict.fromkeys(DROP_GROUPS, 0)
        for bet, amount in self.drop_by_bet.items():
            groups[drop_group(bet)] += amount
        return groups

    @property
    def hold_pct(self) -> str | None:
        return percent(self.win, self.drop)

    @property
    def rounds_per_hour(self) -> str | None:
        if not self.hours:
            return None
        return str((Decimal(self.rounds) / len(self.hours)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))

    def tilt_total(self) -> TiltStats:
        total = TiltStats()
        for stats in self.tilts.values():
            total.add(stats)
        return total

    def add(self, other: Figures) -> None:
        self.rounds += other.rounds
        self.voided += other.voided
        self.redeals += other.redeals
        self.hours |= other.hours
        for bet, amount in other.drop_by_bet.items():
            self.drop_by_bet[bet] = self.drop_by_bet.get(bet, 0) + amount
        self.win += other.win
        self.payouts += other.payouts
        self.cap_cut += other.cap_cut
        self.paid_short += other.paid_short
        self.corrections += other.corrections
        self.corrections_handed += other.corrections_handed
        self.jackpot_contributions += other.jackpot_contributions
        self.jackpot_hits += other.jackpot_hits
        self.jackpot_won += other.jackpot_won
        for kind, stats in other.tilts.items():
            self.tilts.setdefault(kind, TiltStats()).add(stats)

    def settle(self, table_id: str, at: str, data: Mapping[str, Any]) -> None:
        """Add one ``round-settled`` entry's settlement.

        Raises:
            ReportError: the settlement lacks a figure the report needs.
        """
        try:
            settlement = data["settlement"]
            self.rounds += 1
            self.hours.add(f"{table_id}|{at[:13]}")
            for box in settlement["boxes"]:
                for bet in box["bets"]:
                    if bet["bet"] == "cap":
                        self.cap_cut -= int(bet["result"])
                    else:
                        self.drop_by_bet[bet["bet"]] = self.drop_by_bet.get(bet["bet"], 0) + int(bet["stake"])
                pays = int(box["main"]) + int(box["bonus"])
                if pays > 0:
                    self.payouts += pays
                paid = data.get("paid", {}).get(str(box["box"]))
                if paid is not None:  # the dealer paid another amount than the settlement's due
                    self.paid_short += pays - int(paid)
            self.win -= int(settlement["house_pays"])
            jackpot = settlement["jackpot"]
            self.jackpot_contributions += int(jackpot["contribution"])
            self.jackpot_hits += len(jackpot["hits"])
            self.jackpot_won += int(jackpot["won"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(f"table {table_id}: a round-settled entry at {at} cannot be read ({exc!r})") from None


def amount_text(amount: int, minor_units: int, *, thousands: bool = True) -> str:
    """An exact amount in minor units as decimal text: ``123456`` with 2 minor units is ``1,234.56`` (``1234.56``
    without ``thousands``), with 0 it is ``123,456``. Never through floating point."""
    digits = str(abs(amount)).rjust(minor_units + 1, "0")
    whole, fraction = (digits[:-minor_units], "." + digits[-minor_units:]) if minor_units else (digits, "")
    if thousands:
        whole = f"{int(whole):,}"
    return ("-" if amount < 0 else "") + whole + fraction


def percent(part: int, whole: int) -> str | None:
    """``part / whole`` as a percentage with two decimals (half up), exact from integers; None for a zero whole."""
    if whole == 0:
        return None
    return str((Decimal(part) * 100 / Decimal(whole)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def seconds(ms: int | None) -> str | None:
    """Milliseconds as seconds with one decimal, or None."""
    if ms is None:
        return None
    return str((Decimal(ms) / 1000).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _ms_between(start: str, end: str) -> int:
    delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    return max(0, delta // _MS)


_MS = datetime.fromisoformat("2000-01-01T00:00:00.001") - datetime.fromisoformat("2000-01-01T00:00:00")


@dataclass(frozen=True, slots=True)
class Period:
    """One stretch of the report, ``[start, end)`` as UTC ISO text (compared as text, as the journal's ``at``)."""

    start: str
    end: str
    label: str = ""


@dataclass(frozen=True, slots=True)
class TableInfo:
    table_id: str
    pit: str
    game: str
    name: str = ""  # what staff call the table, when the floor knows it
    currency: str = UNKNOWN_CURRENCY  # the unit of account of the table's amounts (its configuration's)
    minor_units: int = 0

    @property
    def unit(self) -> tuple[str, int]:
        return self.currency, self.minor_units


class TableAccumulator:
    """One table's entries, in journal order, into figures per period. Feed it with :meth:`add`."""

    def __init__(self, *, table: TableInfo, periods: Sequence[Period]) -> None:
        self.table = table
        self.periods = periods
        self._starts = [p.start for p in periods]
        self.figures: list[Figures] = [Figures() for _ in periods]
        self._open: dict[int, tuple[int, str, str]] = {}  # tilt id -> (period index, kind, raised at)
        self._hit_rounds: dict[int, tuple[int, int]] = {}  # round -> (period index, jackpot won as settled)
        self.games: set[str] = set()

    def _period(self, at: str) -> int | None:
        from bisect import bisect_right

        i = bisect_right(self._starts, at) - 1
        if i < 0 or at >= self.periods[i].end:
            return None
        return i

    def add(self, kind: str, at: str, data: Mapping[str, Any]) -> None:
        """One journal entry (kinds outside :data:`KINDS` and times outside every period are ignored).

        Raises:
            ReportError: a settlement or tilt entry that cannot be read.
        """
        if kind == "jackpot-floor-hit":
            # On a floor, the hit wins the floor's share of its meter as the floor held it (journaled just
            # after its round): counted in its round's period, in place of what the table saw at settlement.
            found = self._hit_rounds.pop(int(data.get("round", -1)), None)
            if found is not None:
                where, provisional = found
                self.figures[where].jackpot_won += int(data["amount"]) - provisional
            return
        i = self._period(at)
        if i is None:
            return
        figures = self.figures[i]
        try:
            if kind == "round-settled":
                figures.settle(self.table.table_id, at, data)
                self.games.add(str(data["settlement"].get("game", "")))
                if data["settlement"]["jackpot"]["hits"] and "round" in data:
                    self._hit_rounds[int(data["round"])] = (i, int(data["settlement"]["jackpot"]["won"]))
            elif kind == "round-voided":
                figures.voided += 1
            elif kind == "tilt-raised":
                tilt_kind = str(data["kind"])
                figures.tilts.setdefault(tilt_kind, TiltStats()).raised += 1
                # A tilt raised while the journal could not be written carries when it really began.
                self._open[int(data["tilt"])] = (i, tilt_kind, str(data.get("since") or at))
            elif kind == "tilt-cleared":
                resolution = data.get("resolution")
                if resolution in ROUND_ENDING:
                    figures.voided += 1
                elif resolution == "redeal":
                    figures.redeals += 1
                raised = self._open.pop(int(data["tilt"]), None)
                if raised is not None:  # raised before the report's range: counted in no period
                    where, tilt_kind, since = raised
                    stats = self.figures[where].tilts[tilt_kind]
                    took = _ms_between(since, at)
                    stats.cleared += 1
                    stats.clear_ms += took
                    stats.max_clear_ms = max(stats.max_clear_ms, took)
            elif kind == "payment-corrected":
                figures.corrections += 1
                figures.corrections_handed += int(data["handed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(f"table {self.table.table_id}: a {kind} entry at {at} cannot be read ({exc!r})") from None


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a report: a table, a pit or the floor, over one period."""

    level: Level
    period: Period
    key: str  # the table id, the pit, or "" for the floor
    pit: str
    game: str
    figures: Figures
    name: str = ""  # a table's name (its id when the floor knows no other)
    currency: str = UNKNOWN_CURRENCY  # every amount of the row is in this currency's minor units
    minor_units: int = 0

    def to_json(self) -> dict[str, Any]:
        f = self.figures
        return {
            "level": self.level,
            "period_start": self.period.start,
            "period_end": self.period.end,
            "period": self.period.label,
            "table": self.key if self.level == "table" else None,
            "name": (self.name or self.key) if self.level == "table" else None,
            "pit": self.pit if self.level != "floor" else None,
            "game": self.game,
            "currency": self.currency,
            "minor_units": self.minor_units,
            "rounds": f.rounds,
            "voided": f.voided,
            "redeals": f.redeals,
            "table_hours": len(f.hours),
            "rounds_per_hour": f.rounds_per_hour,
            "drop": f.drop,
            "drop_groups": f.drop_groups(),
            "drop_by_bet": dict(sorted(f.drop_by_bet.items())),
            "win": f.win,
            "hold_pct": f.hold_pct,
            "payouts": f.payouts,
            "cap_cut": f.cap_cut,
            "paid_short": f.paid_short,
            "corrections": f.corrections,
            "corrections_handed": f.corrections_handed,
            "jackpot": {"contributions": f.jackpot_contributions, "hits": f.jackpot_hits, "won": f.jackpot_won},
            "tilts": f.tilt_total().to_json(),
            "tilts_by_kind": {kind: s.to_json() for kind, s in sorted(f.tilts.items())},
        }


@dataclass(frozen=True, slots=True)
class Report:
    """Rows at table, pit and floor level for each period, plus the whole range's floor total per currency
    (``totals``, by currency). A pit or the floor has one row per unit of account of its tables."""

    start: str
    end: str
    grouping: str
    tz: str
    rows: tuple[Row, ...]
    totals: tuple[Row, ...]

    def level(self, by: Level) -> list[Row]:
        """The rows of one level (periods in order, then by table or pit)."""
        return [r for r in self.rows if r.level == by]

    def tilts_by_kind(self) -> dict[str, dict[str, Any]]:
        """The whole range's tilts by kind over every currency's total (a tilt is no money: one list per floor)."""
        stats: dict[str, TiltStats] = {}
        for total in self.totals:
            for kind, one in total.figures.tilts.items():
                stats.setdefault(kind, TiltStats()).add(one)
        return {kind: s.to_json() for kind, s in sorted(stats.items())}

    def to_json(self, *, by: Level | None = None) -> dict[str, Any]:
        """The report as one JSON object (schema :data:`SCHEMA`); ``by`` keeps one level's rows only."""
        return {
            "schema": SCHEMA,
            "from": self.start,
            "to": self.end,
            "group": self.grouping,
            "tz": self.tz,
            "rows": [r.to_json() for r in self.rows if by is None or r.level == by],
            "totals": [t.to_json() for t in self.totals],
        }

    def to_csv(self, *, by: Level | None = None) -> str:
        """CSV (columns: :data:`floor.report_csv.CSV_COLUMNS`): one line per row, then one per tilt kind of that
        row (``tilt_kind`` set, only the tilt columns filled), and last the whole range's floor total per
        currency (``level`` = ``total``)."""
        from floor.report_csv import write_csv

        return write_csv([r for r in self.rows if by is None or r.level == by], totals=self.totals)


def build_report(
    *,
    accumulators: Iterable[TableAccumulator],
    periods: Sequence[Period],
    start: str,
    end: str,
    grouping: str,
    tz: str,
) -> Report:
    """Roll table accumulators up to pits and the floor, for each period and for the whole range; a pit's and
    the floor's figures are added up per unit of account (currency, minor units), never across two."""
    rows: list[Row] = []
    pits: dict[tuple[int, str, Unit], Figures] = {}
    pit_games: dict[tuple[str, Unit], set[str]] = {}
    floors: dict[tuple[int, Unit], Figures] = {}
    totals: dict[Unit, Figures] = {}
    games: dict[Unit, set[str]] = {}
    tables = sorted(accumulators, key=lambda a: a.table.table_id)
    # A floor with no table still has its (empty) floor rows and total.
    units = sorted({a.table.unit for a in tables}) or [(UNKNOWN_CURRENCY, 0)]
    for i, period in enumerate(periods):
        for acc in tables:
            figures, unit, pit = acc.figures[i], acc.table.unit, acc.table.pit
            game = acc.table.game or ",".join(sorted(acc.games))
            rows.append(Row("table", period, acc.table.table_id, pit, game, figures, acc.table.name, *unit))
            pits.setdefault((i, pit, unit), Figures()).add(figures)
            pit_games.setdefault((pit, unit), set()).add(game)
            floors.setdefault((i, unit), Figures()).add(figures)
            games.setdefault(unit, set()).add(game)
        for (where, pit, unit), figures in sorted(pits.items()):
            if where == i:
                rows.append(Row("pit", period, pit, pit, _games(pit_games[(pit, unit)]), figures, "", *unit))
        for unit in units:
            figures = floors.setdefault((i, unit), Figures())
            rows.append(Row("floor", period, "", "", _games(games.get(unit, set())), figures, "", *unit))
            totals.setdefault(unit, Figures()).add(figures)
    whole = Period(start, end, "range")
    return Report(
        start=start,
        end=end,
        grouping=grouping,
        tz=tz,
        rows=tuple(rows),
        totals=tuple(
            Row("floor", whole, "", "", _games(games.get(unit, set())), totals[unit], "", *unit) for unit in units
        ),
    )


def _games(games: set[str]) -> str:
    return ",".join(sorted(g for g in games if g))
