"""A report as CSV: fixed columns, one line per table, pit or floor row and per tilt kind (docs/floor.md).

Amounts are decimal text in the row's ``currency`` with its ``minor_units`` decimals (``1234.50``; no thousands
separator, so a spreadsheet reads them as numbers), exact from the integers."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from floor.reports import DROP_GROUPS, Row, amount_text

CSV_COLUMNS: tuple[str, ...] = (
    "level",
    "period_start",
    "period_end",
    "table",
    "pit",
    "game",
    "currency",
    "minor_units",
    "tilt_kind",
    "rounds",
    "voided",
    "redeals",
    "table_hours",
    "rounds_per_hour",
    *(f"drop_{g}" for g in DROP_GROUPS),
    "drop",
    "win",
    "hold_pct",
    "payouts",
    "cap_cut",
    "paid_short",
    "corrections",
    "corrections_handed",
    "jackpot_contributions",
    "jackpot_hits",
    "jackpot_won",
    "tilts",
    "tilts_cleared",
    "tilts_open",
    "tilt_avg_clear_s",
    "tilt_max_clear_s",
)


# The money columns: amounts, shown with the row's decimals.
AMOUNT_COLUMNS = frozenset(
    {
        *(f"drop_{g}" for g in DROP_GROUPS),
        "drop",
        "win",
        "payouts",
        "cap_cut",
        "paid_short",
        "corrections_handed",
        "jackpot_contributions",
        "jackpot_won",
    }
)


def write_csv(rows: Sequence[Row], *, totals: Sequence[Row]) -> str:
    """The header, each row followed by its tilt kinds' lines, then ``totals`` (``level`` = ``total``), one per
    currency."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerows(_csv_lines(row, row.level))
    for total in totals:
        writer.writerows(_csv_lines(total, "total"))
    return out.getvalue()


def _csv_lines(row: Row, level: str) -> list[list[str]]:
    data = row.to_json()
    head = [
        level,
        data["period_start"],
        data["period_end"],
        data["table"] or "",
        data["pit"] or "",
        data["game"],
        data["currency"],
        str(data["minor_units"]),
    ]
    tilts = data["tilts"]
    groups = data["drop_groups"]

    def money(amount: int) -> str:
        return amount_text(amount, row.minor_units, thousands=False)

    main = [
        *head,
        "",
        data["rounds"],
        data["voided"],
        data["redeals"],
        data["table_hours"],
        data["rounds_per_hour"] or "",
        *(money(groups[g]) for g in DROP_GROUPS),
        money(data["drop"]),
        money(data["win"]),
        data["hold_pct"] or "",
        money(data["payouts"]),
        money(data["cap_cut"]),
        money(data["paid_short"]),
        data["corrections"],
        money(data["corrections_handed"]),
        money(data["jackpot"]["contributions"]),
        data["jackpot"]["hits"],
        money(data["jackpot"]["won"]),
        *_tilt_cells(tilts),
    ]
    lines = [[str(c) for c in main]]
    blank = [""] * (len(CSV_COLUMNS) - len(head) - 1 - 5)
    for kind, stats in data["tilts_by_kind"].items():
        lines.append([*head, kind, *blank, *_tilt_cells(stats)])
    return lines


def _tilt_cells(stats: Mapping[str, Any]) -> list[str]:
    return [
        str(stats["raised"]),
        str(stats["cleared"]),
        str(stats["open"]),
        stats["avg_clear_s"] or "",
        stats["max_clear_s"] or "",
    ]
