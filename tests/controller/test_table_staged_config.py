"""A configuration change made during a round: staged, shown as pending, applied when the round ends,
replayed the same way after a restart at any point."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.errors import RuleViolation
from controller.journal import SqliteJournal
from controller.table import Actor, TableService
from tests.controller.roundkit import passes
from tests.controller.test_table import DEALER, SUPER, Clock, deal, table

ADMIN = Actor("ada", "admin")
CARDS = passes({1: "Kc Kd Kh 4s 4c"}, "9s 9h Jc Jd 3c", n=5)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def reopen(t: TableService, data: Path) -> TableService:
    t._store.close()
    return TableService(store=SqliteJournal(path=data), clock=Clock())


def test_a_change_during_a_round_is_pending_until_the_round_ends(data: Path) -> None:
    t = table(data)
    t.open_round([BoxBet(box=1, ante=100)], actor=DEALER)
    deal(t, CARDS)
    entry = t.reconfigure(build_config({"game": "oasis", "max_bet": 200, "max_payout": 4000}), actor=ADMIN)
    assert (entry.kind, entry.actor) == ("configuration-staged", "admin:ada")
    # The open round plays on under the configuration it opened with.
    assert (t.config.max_bet, t.config.max_payout) == (100, 3000)
    pending = t.view()["pending_config"]
    assert pending["by"] == "ada"
    assert pending["changes"] == [
        {"key": "max_bet", "old": 100, "new": 200},
        {"key": "max_payout", "old": 3000, "new": 4000},
    ]
    t.act(Action(1, "raise"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    # Applied as the round ended, journaled as the admin's, pointing at the staged entry.
    last = list(t._store.entries())[-1]
    assert (last.kind, last.actor, last.data["staged"]) == ("configured", "admin:ada", entry.seq)
    assert (t.config.max_bet, t.config.max_payout) == (200, 4000)
    assert t.view()["pending_config"] is None
    t.open_round([BoxBet(box=1, ante=200)], actor=DEALER)  # the new limit holds for the next round
    t = reopen(t, data)
    assert (t.config.max_bet, t.config.max_payout) == (200, 4000)
    assert t.staged is None


def test_a_pending_change_survives_a_restart_mid_round_and_a_later_change_replaces_it(data: Path) -> None:
    t = table(data)
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, CARDS[:4])
    t.reconfigure(build_config({"game": "oasis", "max_bet": 200}), actor=ADMIN)
    t = reopen(t, data)
    assert t.config.max_bet == 100 and t.view()["pending_config"]["changes"][0]["new"] == 200
    t.reconfigure(build_config({"game": "oasis", "max_bet": 150}), actor=ADMIN)
    t = reopen(t, data)
    assert t.view()["pending_config"]["changes"] == [{"key": "max_bet", "old": 100, "new": 150}]
    t.void_round(actor=SUPER, why="to end the round")
    assert t.config.max_bet == 150 and t.staged is None
    t.deck_shuffled(actor=DEALER)
    with pytest.raises(RuleViolation):
        t.open_round([BoxBet(box=1, ante=200)], actor=DEALER)


def test_a_redeal_keeps_the_old_configuration_until_the_redealt_round_ends(data: Path) -> None:
    t = table(data)
    t.open_round([BoxBet(box=1, ante=100)], actor=DEALER)
    deal(t, CARDS[:3])
    t.reconfigure(build_config({"game": "oasis", "max_bet": 50}), actor=ADMIN)
    t.report("dealer-card-exposed", actor=DEALER)
    (tilt,) = t.tilts.values()
    t.clear_tilt(tilt.id, resolution="redeal", actor=SUPER, why="dealer card exposed")
    # The same bets are dealt again: under the configuration they were accepted with.
    assert t.round is not None and t.config.max_bet == 100 and t.staged is not None
    t.void_round(actor=SUPER, why="end")
    assert t.config.max_bet == 50


def test_a_restart_between_the_round_end_and_the_applied_change_applies_it_before_the_next_round(data: Path) -> None:
    """The table stopped after journaling the round's end but before the staged change's entry."""
    t = table(data)
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    t.reconfigure(build_config({"game": "oasis", "max_bet": 200}), actor=ADMIN)
    store = t._store
    # Write the round's end the way the table would, without the table applying the change after it.
    store.append("round-voided", {"round": 1, "why": "power cut"}, actor=str(SUPER), at=t.now().isoformat())
    t = reopen(t, data)
    # Replaying writes nothing (history and recall replay too): still pending, shown as such.
    assert list(t._store.entries())[-1].kind == "round-voided"
    assert t.config.max_bet == 100 and t.view()["pending_config"]["changes"][0]["new"] == 200
    # The next round opens under it.
    t.open_round([BoxBet(box=1, ante=200)], actor=DEALER)
    kinds = [e.kind for e in t._store.entries()][-2:]
    assert kinds == ["configured", "round-opened"] and t.config.max_bet == 200 and t.staged is None


def test_between_rounds_a_change_applies_at_once_and_only_an_admin_may_make_it(data: Path) -> None:
    t = table(data)
    entry = t.reconfigure(build_config({"game": "oasis", "max_bet": 200}), actor=ADMIN)
    assert entry.kind == "configured" and t.config.max_bet == 200 and t.staged is None
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    with pytest.raises(Exception, match="only an admin"):
        t.reconfigure(build_config({"game": "oasis"}), actor=SUPER)
    with pytest.raises(Exception, match="needs its own data folder"):
        t.reconfigure(build_config({"game": "holdem-bonus"}), actor=ADMIN)
    assert t.staged is None
