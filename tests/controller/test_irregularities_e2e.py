"""Every row of docs/irregularities.md that the shoe or the dealer detects, end to end for every game
where it can happen: the simulated shoe in its own process on a real pty, the live table, the
irregularity provoked, the supervisor's resolution, the round played to its end, then the table
restarted from its journal and `history` reading the round back (it settles again to what was paid).
The camera's rows are the vision rigs' (tests/vision/test_misdeals.py, test_camera_link.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from controller.engine import Action, BoxBet, Complete, Deal, Decide
from controller.games import game_names
from controller.live import LiveConfig, LiveTable
from tests.controller.test_live_hil import DEALER, SUPER, Rig
from tests.history import read_back
from tests.waiting import wait_for

pytestmark = pytest.mark.hil
PREFERRED = ("raise", "call", "bet", "check", "buy", "fold")


def open_round(rig: Rig) -> None:
    rig.sim.command("shuffle")
    wait_for(lambda: rig.table.shuffle_due is None, "the shoe's new deck")
    rig.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=20)], actor=DEALER)


def new_deck(rig: Rig) -> None:
    rig.sim.command("shuffle")
    wait_for(lambda: rig.table.shuffle_due is None, "the shoe's new-deck signal")


def to_showdown(rig: Rig) -> None:
    """Play the open round to its showdown as the dealer would (the table's own order)."""
    while True:
        assert rig.table.round is not None and not rig.table.tilts, list(rig.table.tilts.values())
        if rig.table.shuffle_due is not None and not rig.table.round.cards_dealt:
            new_deck(rig)
            continue
        step = rig.table.round.expected()
        if isinstance(step, Complete):
            return
        if isinstance(step, Deal):
            rig.draw()
        else:
            assert isinstance(step, Decide)
            rig.table.act(Action(step.box, next(a for a in PREFERRED if a in step.options)), actor=DEALER)


def play_out(rig: Rig) -> None:
    """Play the open round to its end and confirm it paid as shown."""
    to_showdown(rig)
    rig.table.confirm_settlement(actor=DEALER)


def draw_cards(rig: Rig, n: int) -> None:
    for _ in range(n):
        rig.draw()


def clear(rig: Rig, kind: str, resolution: str, **extra: object) -> None:
    tilt = rig.tilt()
    assert tilt.kind == kind, tilt
    assert resolution in rig.table.resolutions(tilt)
    rig.table.clear_tilt(tilt.id, resolution=resolution, actor=SUPER, why=f"{kind}: {resolution}", **extra)  # type: ignore[arg-type]


# Each scenario provokes one irregularity in an open round and resolves it; the harness then plays on.
def deal_out_of_order(report: str, resolution: str) -> Callable[[Rig], None]:
    def scenario(rig: Rig) -> None:
        draw_cards(rig, 3)
        rig.table.report(report, actor=DEALER)
        clear(rig, "deal-sequence", resolution)

    return scenario


def dealer_card_exposed(resolution: str) -> Callable[[Rig], None]:
    def scenario(rig: Rig) -> None:
        draw_cards(rig, 2)
        rig.table.report("dealer-card-exposed", actor=DEALER)
        clear(rig, "dealer-card-exposed", resolution)

    return scenario


def unreadable_burn(rig: Rig) -> None:
    rig.draw()
    rig.sim.command("unreadable")
    clear(rig, "unknown-card", "burn")


def duplicate_burn(rig: Rig) -> None:
    draw_cards(rig, 2)
    rig.sim.command("duplicate")
    clear(rig, "duplicate-card", "burn")


def unexpected_burn(rig: Rig) -> None:
    rig.deal_until_decision()
    rig.draw()  # no card is due while the boxes decide
    clear(rig, "unexpected-card", "burn")


def old_deck_burn(rig: Rig) -> None:
    """A redeal makes a new deck due; the dealer draws from the old one anyway: held, then burnt."""
    draw_cards(rig, 2)
    rig.table.report("dealer-card-exposed", actor=DEALER)
    clear(rig, "dealer-card-exposed", "redeal")
    assert rig.table.shuffle_due == "round 1 was redealt"
    rig.draw()
    clear(rig, "deck-not-shuffled", "burn")
    assert rig.table.round is not None and rig.table.round.cards_dealt == 0


def deck_changed_redeal(rig: Rig) -> None:
    draw_cards(rig, 2)
    rig.sim.command("shuffle")  # a new deck in the middle of the deal
    clear(rig, "deck-changed", "redeal")


def jam(resolution: str) -> Callable[[Rig], None]:
    def scenario(rig: Rig) -> None:
        rig.draw()
        rig.sim.command("jam")
        clear(rig, "shoe-fault", resolution)
        rig.sim.command("clear")

    return scenario


def link_lost_continue(rig: Rig) -> None:
    rig.draw()
    rig.sim.command("mute 3")
    clear(rig, "shoe-link-lost", "continue")
    rig.sim.command("unmute")
    wait_for(rig.live.link_up.is_set, "the shoe link back")


def dealer_shown_early(rig: Rig) -> None:
    rig.deal_until_decision()
    rig.table.act(Action(0, "dealer-shown"), actor=DEALER)
    step = rig.table.round.expected() if rig.table.round else None
    assert isinstance(step, Decide) and step.options == ("fold", "withdraw")
    rig.table.act(Action(step.box, "withdraw"), actor=DEALER)


def fifth_for_fourth(rig: Rig) -> None:
    rig.deal_until_decision()
    rig.table.act(Action(1, "buy"), actor=DEALER)
    rig.table.act(Action(3, "bet"), actor=DEALER)
    rig.table.act(Action(0, "fifth-turned"), actor=DEALER)


SCENARIOS: dict[str, Callable[[Rig], None]] = {
    "wrong-box-continue": deal_out_of_order("wrong-box", "continue"),
    "extra-card-redeal": deal_out_of_order("extra-card", "redeal"),
    "skipped-box-cancel": deal_out_of_order("skipped-box", "cancel"),
    "dealer-card-exposed-redeal": dealer_card_exposed("redeal"),
    "dealer-card-exposed-cancel": dealer_card_exposed("cancel"),
    "unreadable-burn": unreadable_burn,
    "duplicate-burn": duplicate_burn,
    "unexpected-burn": unexpected_burn,
    "old-deck-burn": old_deck_burn,
    "deck-changed-redeal": deck_changed_redeal,
    "jam-continue": jam("continue"),
    "jam-void": jam("void"),
    "link-lost-continue": link_lost_continue,
}
ONLY = {
    "dealer-shown-early": (dealer_shown_early, "holdem-exchange"),
    "fifth-for-fourth": (fifth_for_fourth, "holdem-exchange"),
}
CASES = [(game, name) for game in game_names() for name in SCENARIOS] + [
    (game, name) for name, (_, game) in ONLY.items()
]


def restart_and_read_back(rig: Rig, tmp: Path) -> None:
    """The table restarted from its journal is the same table; `history` reads every round back, and
    each settles again to what was paid."""
    before = ([r.to_json() for r in rig.table.recall], rig.table.checkpoint_state())
    rig.live.stop()
    again = LiveTable(config=LiveConfig(data=tmp, shoe=rig.sim.device_path, table=rig.table.config))
    again.start()
    try:
        assert ([r.to_json() for r in again.table.recall], again.table.checkpoint_state()) == before
    finally:
        again.stop()
    rig.live = again  # stopped already: Rig.close stops it again harmlessly
    assert [line["round"] for line in read_back(tmp)] == [r["round"] for r in before[0]]


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_each_irregularity_end_to_end(tmp_path: Path, game: str, name: str) -> None:
    scenario = SCENARIOS[name] if name in SCENARIOS else ONLY[name][0]
    rig = Rig(tmp_path, game)
    try:
        open_round(rig)
        scenario(rig)
        assert not rig.table.tilts
        if rig.table.round is None:  # the round ended (cancel, void): the next one is played in full
            open_round(rig)
        play_out(rig)
        assert rig.table.round is None and rig.table.recall
        restart_and_read_back(rig, tmp_path)
    finally:
        rig.close()


@pytest.mark.parametrize("game", game_names())
def test_a_box_paid_short_is_settled_by_a_supervisor(tmp_path: Path, game: str) -> None:
    """The dealer pays a winning box short and records it; a supervisor settles it. Restart and
    history as above."""
    rig = Rig(tmp_path, game)
    try:
        for _ in range(12):  # rounds until one pays a box (the simulated shoe's seed decides)
            open_round(rig)
            to_showdown(rig)
            assert rig.table.settlement is not None
            paying = [b for b in rig.table.settlement.boxes if b.dealer_pays > 0]
            if paying:
                break
            rig.table.confirm_settlement(actor=DEALER)
        assert paying, "no box won in 12 rounds"
        box, due = paying[0].box, paying[0].dealer_pays
        rig.table.confirm_settlement(actor=DEALER, paid={box: due - 1})
        number = rig.table.recall[-1].round
        assert rig.table.payments_owed() == [{"round": number, "box": box, "due": due, "paid": due - 1, "short": 1}]
        rig.table.correct_payment(number, box, paid=due, handed=1, actor=SUPER, why="paid the rest")
        assert rig.table.payments_owed() == []
        restart_and_read_back(rig, tmp_path)
    finally:
        rig.close()
