"""The deck: a cancelled, redealt or voided round's cards are known, so the next card comes from a
shuffled deck (RULES: "cancelled hands require shuffling"; docs/irregularities.md). The shoe's
new-deck signal or the dealer's confirmation says it is; a card drawn before is held by a tilt; a new
deck in the middle of a deal is a tilt. Each followed by a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine import BoxBet
from controller.journal import SqliteJournal
from controller.table import TableError, TableService
from tests.controller.test_table import DEALER, OASIS_CARDS, SUPER, Clock, deal, only_tilt, open_with_cards, table


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def reopen(t: TableService, data: Path) -> TableService:
    before = t.view()
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert again.view() == before and again.shuffle_due == t.shuffle_due
    return again


@pytest.mark.parametrize("ending", ["cancel", "void", "void_round"])
def test_a_cancelled_round_needs_a_new_deck_before_the_next(data: Path, ending: str) -> None:
    t = table(data)
    open_with_cards(t, 3)
    if ending == "void_round":
        t.void_round(actor=SUPER, why="player dispute")
    else:
        t.report("missing-card", actor=DEALER)
        t.clear_tilt(only_tilt(t).id, resolution=ending, actor=SUPER, why="cannot restore")  # type: ignore[arg-type]
    assert t.shuffle_due is not None and "round 1 was" in t.shuffle_due
    assert t.expected().startswith("shuffle the deck (round 1 was")
    t = reopen(t, data)  # the due shuffle survives a restart
    with pytest.raises(TableError, match=r"shuffle the deck first \(round 1 was"):
        t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    t.on_shoe_status("new-deck")
    last = list(t._store.entries())[-1]
    assert (last.kind, last.actor, dict(last.data)) == ("deck-shuffled", "shoe:shoe", {"by": "shoe"})
    t = reopen(t, data)
    assert t.shuffle_due is None
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)


def test_a_round_voided_before_any_card_needs_no_shuffle(data: Path) -> None:
    t = table(data)
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    t.void_round(actor=SUPER, why="wrong bets")
    assert t.shuffle_due is None
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)


@pytest.mark.parametrize("resolution", ["burn", "continue", "cancel"])
def test_a_redealt_round_is_dealt_from_a_new_deck(data: Path, resolution: str) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.report("dealer-card-exposed", actor=DEALER)
    t.clear_tilt(only_tilt(t).id, resolution="redeal", actor=SUPER, why="exposed")
    assert t.round is not None and t.round_no == 2 and t.shuffle_due == "round 1 was redealt"
    assert t.expected().startswith("shuffle the deck")
    # The dealer deals from the old deck: the card is held, nothing is dealt.
    t.on_card(OASIS_CARDS[0], counter=4)
    tilt = only_tilt(t)
    assert tilt.kind == "deck-not-shuffled" and tilt.held == (OASIS_CARDS[0],)
    assert tilt.resolutions == ("burn", "continue", "cancel")
    assert "a card" not in tilt.message  # the journal and the supervisor see the card; displays redact
    t = reopen(t, data)
    t.clear_tilt(tilt.id, resolution=resolution, actor=SUPER, why="checked the deck")  # type: ignore[arg-type]
    if resolution == "continue":
        # The supervisor found a fresh deck in the shoe: the held card is dealt, play goes on.
        assert t.shuffle_due is None and t.round is not None and t.round.cards_dealt == 1
    elif resolution == "burn":
        assert t.shuffle_due == "round 1 was redealt" and t.round is not None and t.round.cards_dealt == 0
        t.deck_shuffled(actor=DEALER)
        deal(t, OASIS_CARDS[:2], start=5)
        assert t.round.cards_dealt == 2 and not t.tilts
    else:
        assert t.round is None and t.shuffle_due == "round 1 was redealt"
    reopen(t, data)


def test_a_new_deck_in_the_middle_of_a_deal_is_a_tilt(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_shoe_status("new-deck")
    tilt = only_tilt(t)
    assert tilt.kind == "deck-changed" and tilt.resolutions == ("redeal", "cancel", "void")
    t = reopen(t, data)
    t.clear_tilt(tilt.id, resolution="redeal", actor=SUPER, why="shoe reloaded mid-deal")
    assert t.shuffle_due == "round 1 was redealt"
    t.deck_shuffled(actor=DEALER)
    deal(t, OASIS_CARDS[:1], start=4)
    # A dealer's confirmation in the middle of the deal is refused: that needs a supervisor.
    with pytest.raises(TableError, match="round 2 is being dealt from this deck"):
        t.deck_shuffled(actor=DEALER)


def test_a_new_deck_between_rounds_or_before_the_first_card_is_only_logged(data: Path) -> None:
    t = table(data)
    t.on_shoe_status("new-deck")
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    t.on_shoe_status("new-deck")
    t.deck_shuffled(actor=DEALER)
    assert not t.tilts
    kinds = [e.kind for e in t._store.entries()]
    assert kinds.count("deck-shuffled") == 3
