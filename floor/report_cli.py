"""``dealer-assist report``: rounds, drop, win, hold, jackpots and tilts per table, pit or floor, over a range."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any

from floor.errors import FloorError
from floor.reports import amount_text

if TYPE_CHECKING:
    from floor.reports import Level, Report

ERRORS: tuple[type[BaseException], ...] = (FloorError,)
FORMATS = ("text", "csv", "json")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from floor.report_periods import DEFAULT_SHIFTS, GROUPS

    parser = subparsers.add_parser(
        "report",
        help="shift, day and range reports: rounds, drop, win, hold %%, jackpots, tilts",
        description="Rounds, rounds per table-hour, drop by bet, win, hold %, payouts, jackpot contributions "
        "and hits, and tilts with their time to clear, per table, pit or the whole floor, from the replicated "
        "journals (--db, or --data with floor.sqlite3) or one table's own journal (--data with journal.sqlite3). "
        "A round counts in the range where it was settled: at or after --from, before --to. Amounts are shown in "
        "each table's currency with its decimals; a pit or the floor has one line per currency (money in two "
        "currencies is never added up). Only reads. See docs/floor.md, Reports.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", metavar="URL", help="the floor database: postgresql://… or a SQLite file")
    where.add_argument(
        "--data", metavar="DIR", help="a folder with the embedded floor store (floor.sqlite3) or a table's journal"
    )
    parser.add_argument(
        "--from", dest="start", metavar="TIME", help="ISO date or time (local to --tz unless it has an offset)"
    )
    parser.add_argument("--to", dest="end", metavar="TIME", help="ISO date or time, excluded (default: now)")
    parser.add_argument(
        "--day", metavar="DATE", help="the gaming day DATE: from its first shift start to the next day's"
    )
    parser.add_argument(
        "--shift", metavar="TIME", help="the shift containing local TIME (a date alone: its first shift)"
    )
    parser.add_argument("--group", choices=GROUPS, default="range", help="one period, or a period per day or shift")
    parser.add_argument(
        "--shifts", default=DEFAULT_SHIFTS, metavar="HH:MM,…", help=f"shift starts (default {DEFAULT_SHIFTS})"
    )
    parser.add_argument("--tz", metavar="ZONE", help="time zone of dates, shifts and days (default: the machine's)")
    parser.add_argument("--by", choices=("table", "pit", "floor"), default="table", help="rows per table, pit or floor")
    parser.add_argument("--pit", action="append", default=[], help="only this pit's tables (repeatable)")
    parser.add_argument("--table", action="append", default=[], help="only this table (repeatable)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="text (default), csv or json")
    parser.set_defaults(run=run)


def resolve_range(
    *, start: str | None, end: str | None, day: str | None, shift: str | None, tz: tzinfo, shifts: str
) -> tuple[datetime, datetime]:
    """The report's ``[from, to)`` from exactly one of --from[/--to], --day, --shift.

    Raises:
        PeriodError: none or several given, a bad date, or --to not after --from.
    """
    from floor.report_periods import PeriodError, day_range, moment, shift_range, shift_starts

    starts = shift_starts(shifts)
    given = [name for name, value in (("--from", start), ("--day", day), ("--shift", shift)) if value]
    if len(given) != 1:
        raise PeriodError("give one of --from TIME [--to TIME], --day DATE or --shift TIME")
    if end and not start:
        raise PeriodError("--to goes with --from")
    if day:
        rng = day_range(day, tz=tz, starts=starts)
        return rng.start, rng.end
    if shift:
        rng = shift_range(shift, tz=tz, starts=starts)
        return rng.start, rng.end
    assert start is not None
    first = moment(start, "--from", tz)
    last = moment(end, "--to", tz) if end else datetime.now(UTC)
    if last <= first:
        raise PeriodError(f"--to {end or 'now'} is not after --from {start}")
    return first, last


def make_report(
    source: Any,
    *,
    start: str | None,
    end: str | None,
    day: str | None = None,
    shift: str | None = None,
    group: str = "range",
    shifts: str | None = None,
    tz: str | None = None,
    pits: list[str] | None = None,
    tables: list[str] | None = None,
) -> Report:
    """The report over a range given as the command line (or the web page) gives it.

    Raises:
        ReportError: a bad range, time zone, shift or grouping; an entry that cannot be read.
        FloorUnavailable: the floor database failed.
    """
    from floor.report_periods import DEFAULT_SHIFTS, Range, periods, shift_starts, zone, zone_name
    from floor.report_sources import compute

    zone_info = zone(tz)
    boundaries = shifts or DEFAULT_SHIFTS
    first, last = resolve_range(start=start, end=end, day=day, shift=shift, tz=zone_info, shifts=boundaries)
    cut = periods(Range(first, last), grouping=group, tz=zone_info, starts=shift_starts(boundaries))
    return compute(
        source,
        periods=cut,
        grouping=group,
        tz=zone_name(zone_info),
        pits=frozenset(pits or ()),
        table_ids=frozenset(tables or ()),
    )


def run(args: argparse.Namespace) -> int:
    from floor.report_sources import open_source

    source = open_source(db=args.db, data=args.data)
    try:
        report = make_report(
            source,
            start=args.start,
            end=args.end,
            day=args.day,
            shift=args.shift,
            group=args.group,
            shifts=args.shifts,
            tz=args.tz,
            pits=args.pit,
            tables=args.table,
        )
    finally:
        source.close()
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(by=args.by), indent=2) + "\n")
    elif args.format == "csv":
        sys.stdout.write(report.to_csv(by=args.by))
    else:
        sys.stdout.write(render_text(report, by=args.by))
    return 0


TEXT_COLUMNS = (
    ("currency", "Currency"),
    ("rounds", "Rounds"),
    ("voided", "Void"),
    ("rounds_per_hour", "R/h"),
    ("drop", "Drop"),
    ("win", "Win"),
    ("hold_pct", "Hold %"),
    ("payouts", "Payouts"),
    ("jp_contrib", "JP contrib"),
    ("jp_hits", "JP hits"),
    ("jp_won", "JP won"),
    ("tilts", "Tilts"),
    ("tilt_open", "Open"),
    ("tilt_avg", "Avg clear s"),
)


def text_cells(row: dict[str, Any]) -> dict[str, str]:
    """A report row's figures as a supervisor reads them (thousands separated, amounts with the row's currency
    decimals; "-" where there is none)."""

    def n(value: Any) -> str:
        return "-" if value is None else f"{value:,}" if isinstance(value, int) else str(value)

    def money(amount: int) -> str:
        return amount_text(amount, row["minor_units"])

    return {
        "currency": str(row["currency"]),
        "rounds": n(row["rounds"]),
        "voided": n(row["voided"]),
        "rounds_per_hour": n(row["rounds_per_hour"]),
        "drop": money(row["drop"]),
        "win": money(row["win"]),
        "hold_pct": n(row["hold_pct"]),
        "payouts": money(row["payouts"]),
        "jp_contrib": money(row["jackpot"]["contributions"]),
        "jp_hits": n(row["jackpot"]["hits"]),
        "jp_won": money(row["jackpot"]["won"]),
        "tilts": n(row["tilts"]["raised"]),
        "tilt_open": n(row["tilts"]["open"]),
        "tilt_avg": n(row["tilts"]["avg_clear_s"]),
    }


def row_name(row: dict[str, Any]) -> str:
    if row["level"] == "table":
        return str(row.get("name") or row["table"])
    if row["level"] == "pit":
        return f"pit {row['pit']}"
    return "floor"


def render_text(report: Report, *, by: Level) -> str:
    """A readable table per period: one line per table (or pit, one per currency), the period's floor line per
    currency, then the range's total per currency with its drop by bet, and the tilts by kind."""
    data = report.to_json()
    lines = [f"Report {data['from']} to {data['to']} (UTC), grouped by {data['group']}, times in {data['tz']}", ""]
    periods: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in data["rows"]:
        periods.setdefault((row["period_start"], row["period_end"]), []).append(row)
    for rows in periods.values():
        chosen = [r for r in rows if r["level"] == by and by != "floor"]
        chosen.extend(r for r in rows if r["level"] == "floor")
        lines.append(rows[0]["period"])
        lines.extend(_grid(chosen))
        lines.append("")
    totals = data["totals"]
    lines.append("Whole range")
    lines.extend(_grid(totals))
    for total in totals:
        units = total["minor_units"]
        drop = ", ".join(f"{bet} {amount_text(amount, units)}" for bet, amount in total["drop_by_bet"].items())
        lines.append(f"Drop by bet ({total['currency']}): {drop or 'none'}")
    tilts = report.tilts_by_kind()
    if tilts:
        lines.append("Tilts by kind: raised, cleared, open, average and longest time to clear (s)")
        for kind, s in tilts.items():
            lines.append(
                f"  {kind:<22} {s['raised']:>5} {s['cleared']:>5} {s['open']:>5} "
                f"{s['avg_clear_s'] or '-':>8} {s['max_clear_s'] or '-':>8}"
            )
    return "\n".join(lines) + "\n"


def _grid(rows: list[dict[str, Any]]) -> list[str]:
    table = [["", "Game", *(title for _, title in TEXT_COLUMNS)]]
    for row in rows:
        cells = text_cells(row)
        table.append([row_name(row), row["game"] or "-", *(cells[key] for key, _ in TEXT_COLUMNS)])
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return [
        "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
        for r in table
    ]
