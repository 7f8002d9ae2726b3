"""Properties of the report arithmetic: every amount is exactly the sum of the settlements in its period, at
every level and for any cut into periods; the seq bisection finds what a linear scan finds."""

from __future__ import annotations

import csv
import io
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floor.errors import FloorError
from floor.report_periods import Range, periods, shift_starts
from floor.report_sources import first_seq_at
from floor.reports import Period, ReportError, TableAccumulator, TableInfo, build_report

BASE = datetime(2026, 11, 24, 0, 0, tzinfo=UTC)
BETS = ("ante", "raise", "call", "bet", "flop", "turn", "river", "exchange-fee", "buy-fee", "bonus", "cap")
money = st.integers(min_value=-(10**9), max_value=10**9)
stake = st.integers(min_value=0, max_value=10**7)

box = st.fixed_dictionaries(
    {
        "box": st.integers(1, 7),
        "main": money,
        "bonus": money,
        "bets": st.lists(st.fixed_dictionaries({"bet": st.sampled_from(BETS), "stake": stake, "result": money})),
    }
)
settlement = st.fixed_dictionaries(
    {
        "game": st.sampled_from(("oasis", "casino-holdem")),
        "boxes": st.lists(box, max_size=4),
        "house_pays": money,
        "jackpot": st.fixed_dictionaries(
            {
                "contribution": st.integers(0, 10**5),
                "hits": st.lists(st.fixed_dictionaries({"amount": st.integers(0, 10**8)}), max_size=2),
            }
        ),
    }
)


@st.composite
def entries(draw: st.DrawFn) -> list[tuple[str, str, dict[str, Any]]]:
    """A table's report entries in time order: settled rounds (some paid short), voids, payment corrections."""
    seconds = sorted(draw(st.lists(st.integers(0, 3 * 86_400), max_size=30)))
    out = []
    for s in seconds:
        at = (BASE + timedelta(seconds=s, microseconds=draw(st.integers(0, 1)))).isoformat()
        kind = draw(st.sampled_from(("round-settled", "round-settled", "round-voided", "payment-corrected")))
        if kind == "round-settled":
            data: dict[str, Any] = {"settlement": draw(settlement)}
            data["settlement"]["jackpot"]["won"] = sum(h["amount"] for h in data["settlement"]["jackpot"]["hits"])
            boxes = data["settlement"]["boxes"]
            if boxes and draw(st.booleans()):
                data["paid"] = {str(boxes[0]["box"]): draw(st.integers(0, 10**6))}
        elif kind == "payment-corrected":
            data = {"handed": draw(money)}
        else:
            data = {"why": "x"}
        out.append((kind, at, data))
    return out


def independent(items: list[tuple[str, str, dict[str, Any]]], start: str, end: str) -> dict[str, int]:
    """Straight sums over the settlements in ``[start, end)``, written apart from floor/reports.py."""
    out = dict.fromkeys(("rounds", "drop", "win", "payouts", "cap_cut", "jc", "jh", "jw", "void", "short", "hand"), 0)
    for kind, at, data in items:
        if not start <= at < end:
            continue
        if kind == "round-voided":
            out["void"] += 1
        elif kind == "payment-corrected":
            out["hand"] += data["handed"]
        else:
            s = data["settlement"]
            out["rounds"] += 1
            out["win"] -= s["house_pays"]
            out["jc"] += s["jackpot"]["contribution"]
            out["jh"] += len(s["jackpot"]["hits"])
            out["jw"] += s["jackpot"]["won"]
            for b in s["boxes"]:
                out["payouts"] += max(0, b["main"] + b["bonus"])
                out["drop"] += sum(x["stake"] for x in b["bets"] if x["bet"] != "cap")
                out["cap_cut"] -= sum(x["result"] for x in b["bets"] if x["bet"] == "cap")
                if str(b["box"]) in data.get("paid", {}):
                    out["short"] += b["main"] + b["bonus"] - data["paid"][str(b["box"])]
    return out


def figures(row: dict[str, Any]) -> dict[str, int]:
    return {
        "rounds": row["rounds"],
        "drop": row["drop"],
        "win": row["win"],
        "payouts": row["payouts"],
        "cap_cut": row["cap_cut"],
        "jc": row["jackpot"]["contributions"],
        "jh": row["jackpot"]["hits"],
        "jw": row["jackpot"]["won"],
        "void": row["voided"],
        "short": row["paid_short"],
        "hand": row["corrections_handed"],
    }


def total(parts: list[dict[str, int]]) -> dict[str, int]:
    return {k: sum(p[k] for p in parts) for k in parts[0]}


@settings(max_examples=150, deadline=None)
@given(
    tables=st.lists(st.tuples(st.sampled_from("AB"), entries()), min_size=1, max_size=4),
    start_h=st.integers(0, 40),
    hours=st.integers(1, 40),
    grouping=st.sampled_from(("range", "day", "shift")),
    shifts=st.sampled_from(("06:00,14:00,22:00", "07:30,19:30", "00:00")),
)
def test_amounts_are_exactly_the_sums_of_the_settlements_at_every_level(
    tables: list[tuple[str, list[tuple[str, str, dict[str, Any]]]]],
    start_h: int,
    hours: int,
    grouping: str,
    shifts: str,
) -> None:
    rng = Range(BASE + timedelta(hours=start_h), BASE + timedelta(hours=start_h + hours))
    cut = periods(rng, grouping=grouping, tz=UTC, starts=shift_starts(shifts))
    assert cut[0].start == rng.start.isoformat() and cut[-1].end == rng.end.isoformat()
    assert all(a.end == b.start for a, b in itertools.pairwise(cut))
    accs = []
    for n, (pit, items) in enumerate(tables):
        acc = TableAccumulator(table=TableInfo(f"t{n}", pit, "oasis"), periods=cut)
        for kind, at, data in items:
            if cut[0].start <= at < cut[-1].end:
                acc.add(kind, at, data)
        accs.append(acc)
    report = build_report(
        accumulators=accs, periods=cut, start=cut[0].start, end=cut[-1].end, grouping=grouping, tz="UTC"
    ).to_json()
    rows = report["rows"]
    for period in cut:
        here = [r for r in rows if r["period_start"] == period.start]
        expect = {f"t{n}": independent(items, period.start, period.end) for n, (_, items) in enumerate(tables)}
        for row in here:
            if row["level"] == "table":
                assert figures(row) == expect[row["table"]]
            elif row["level"] == "pit":
                assert figures(row) == total([expect[f"t{n}"] for n, (p, _) in enumerate(tables) if p == row["pit"]])
            else:
                assert figures(row) == total(list(expect.values()))
    whole = total([independent(items, cut[0].start, cut[-1].end) for _, items in tables])
    assert figures(report["totals"][0]) == whole
    # The CSV's total line carries the same exact integers.
    last = list(csv.DictReader(io.StringIO(build_report(
        accumulators=accs, periods=cut, start=cut[0].start, end=cut[-1].end, grouping=grouping, tz="UTC"
    ).to_csv())))[-1]  # fmt: skip
    assert (int(last["drop"]), int(last["win"]), int(last["payouts"])) == (
        whole["drop"],
        whole["win"],
        whole["payouts"],
    )


def test_hold_is_win_over_drop_to_two_places_and_empty_without_drop() -> None:
    period = Period("2026-11-24T00:00:00+00:00", "2026-11-25T00:00:00+00:00")
    acc = TableAccumulator(table=TableInfo("t", "A", "oasis"), periods=[period])
    bets = [{"bet": "ante", "stake": 3, "result": -3}]
    data = {"settlement": {"boxes": [{"box": 1, "main": -3, "bonus": 0, "bets": bets}], "house_pays": -1}}
    data["settlement"]["jackpot"] = {"contribution": 0, "hits": [], "won": 0}
    acc.add("round-settled", "2026-11-24T01:00:00+00:00", data)
    report = build_report(
        accumulators=[acc], periods=[period], start=period.start, end=period.end, grouping="range", tz="UTC"
    )
    assert report.totals[0].to_json()["hold_pct"] == "33.33"  # 1/3, exactly rounded
    empty = TableAccumulator(table=TableInfo("t", "A", "oasis"), periods=[period])
    report = build_report(
        accumulators=[empty], periods=[period], start=period.start, end=period.end, grouping="range", tz="UTC"
    )
    assert report.totals[0].to_json()["hold_pct"] is None


@given(
    seqs=st.lists(st.integers(1, 500), unique=True, max_size=60).map(sorted),
    when=st.integers(0, 80),
    step=st.integers(0, 3),
)
def test_bisection_finds_the_first_entry_at_or_after_a_time_as_a_scan_does(
    seqs: list[int], when: int, step: int
) -> None:
    # Entries with gaps in seq (as a floor may hold), times non-decreasing (several entries may share one).
    times = {s: f"{(i * step) // 2:04d}" for i, s in enumerate(seqs)}
    target = f"{when:04d}"

    def probe(seq: int) -> tuple[int, str] | None:
        found = next((s for s in seqs if s >= seq), None)
        return None if found is None else (found, times[found])

    hi = (seqs[-1] + 1) if seqs else 1
    lo = seqs[0] if seqs else 1
    got = first_seq_at(probe, lo, hi, target)
    scan = next((s for s in seqs if times[s] >= target), hi)
    # Same set of entries from there on: the first seq from which every entry is at or after the target.
    assert [s for s in seqs if s >= got] == [s for s in seqs if s >= scan]


def test_an_entry_that_cannot_be_read_is_one_line_naming_the_table_and_time() -> None:
    period = Period("2026-11-24T00:00:00+00:00", "2026-11-25T00:00:00+00:00")
    acc = TableAccumulator(table=TableInfo("t7", "A", "oasis"), periods=[period])
    with pytest.raises(
        ReportError, match=r"^table t7: a round-settled entry at 2026-11-24T01:00:00\+00:00 cannot be read"
    ):
        acc.add("round-settled", "2026-11-24T01:00:00+00:00", {"settlement": {"boxes": []}})
    with pytest.raises(ReportError, match=r"^table t7: a tilt-raised entry at .* cannot be read"):
        acc.add("tilt-raised", "2026-11-24T01:00:00+00:00", {"tilt": "x", "kind": "shoe-fault"})
    assert isinstance(ReportError("x"), FloorError)  # so the command line prints it as one line
