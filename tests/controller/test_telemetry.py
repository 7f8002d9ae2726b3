"""Table metrics from the journal hook: rounds by outcome, tilts by kind, write latency, never a card."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import generate_latest

from controller.config import build_config
from controller.engine import BoxBet
from controller.journal import SqliteJournal
from controller.table import Actor, TableService
from controller.telemetry import TableMetrics, observe_appends

DEALER = Actor("dana", "dealer")
SUPERVISOR = Actor("sam", "supervisor")


def test_rounds_tilts_and_journal_latency_are_counted_from_the_journal(tmp_path: Path) -> None:
    metrics = TableMetrics()
    store = SqliteJournal(path=tmp_path / "j.sqlite3")
    table = TableService(config=build_config({"game": "oasis", "name": "T1"}), store=store)
    observe_appends(store, metrics.journal_observer("T1", round_open=lambda: table.round is not None))
    table.on_card("Kc", counter=1)  # no round open: an unexpected card, burnt (no round ends)
    table.clear_tilt(1, resolution="burn", actor=SUPERVISOR, why="early draw")
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    table.report("dealer-card-exposed", actor=DEALER)
    table.clear_tilt(2, resolution="redeal", actor=SUPERVISOR, why="exposed")  # a round ends void, one reopens
    table.void_round(actor=SUPERVISOR, why="closing")
    text = generate_latest(metrics.registry).decode()
    assert 'dealer_assist_rounds_total{outcome="void",table="T1"} 2.0' in text
    assert 'dealer_assist_tilts_total{kind="unexpected-card",table="T1"} 1.0' in text
    assert 'dealer_assist_tilts_total{kind="dealer-card-exposed",table="T1"} 1.0' in text
    assert 'dealer_assist_journal_write_seconds_count{table="T1"} 6.0' in text
    assert "Kc" not in text


def test_a_failing_observer_never_fails_the_write(tmp_path: Path) -> None:
    def broken(entry: object, seconds: float) -> None:
        raise RuntimeError("metrics backend gone")

    store = observe_appends(SqliteJournal(path=tmp_path / "j.sqlite3"), broken)
    entry = store.append("note", {"x": 1}, actor="system:test", at="2026-01-01T00:00:00+00:00")
    assert [e.seq for e in store.entries()] == [entry.seq]
