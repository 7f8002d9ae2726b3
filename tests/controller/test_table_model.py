"""The table as a machine: random interleavings of dealer commands, shoe cards (right, duplicate,
unknown, unexpected, missing), shoe and camera faults, reports, every tilt and resolution, supervisor
and admin actions, configuration changes and restarts — with the table's invariants checked after
every step (``TableMachine.invariants``).

Every new table feature joins this machine: add a rule that drives it, and, if it brings state of its
own, add it to ``dump`` (what a restart must give back) and to the invariants.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from controller.cards import DECK
from controller.config import build_config
from controller.engine import Action, BoxBet, Deal, Decide
from controller.errors import ControllerError
from controller.journal import Checkpoint, Entry, SqliteJournal
from controller.record import loads, parse_record, settle_record
from controller.redaction import for_display, recalled_visibility, visibility
from controller.table import DEAL_SEQUENCE_REPORTS, REPORTABLE, Actor, TableService, config_settings
from controller.telemetry import observe_appends
from controller.view import recalled
from floor import FloorUnavailable, open_store
from floor.link import FloorLink, LinkSettings
from tests.controller.strategies import decision
from tests.floor.kit import FlakyStore
from web_display.api.routes.tables import _done

DEALER = Actor("dana", "dealer")
SUPER = Actor("sam", "supervisor")
ADMIN = Actor("ada", "admin")
CODES = [c.code for c in DECK]
LINK_STATE = ("progressive", "progressive_detail", "meter", "pending")

# Each game with its progressive on and a hit hand common enough that hits, shares and confirmations
# happen in a short run.
GAMES: dict[str, dict[str, Any]] = {
    "oasis": {"jackpot": {"enabled": True, "reset": 1000, "contribution": 2, "hit_hands": {"two-pair": 10}}},
    "casino-holdem": {},
    "holdem-exchange": {},
    "holdem-bonus": {},
}


class Clock:
    """Time moves only when the machine says so (decision timers, rounds per hour are deterministic)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class FromScratch(SqliteJournal):
    """The journal read as if it had no checkpoint: a replay from the first entry."""

    def latest_checkpoint(self) -> Checkpoint | None:
        return None


def dump(table: TableService, *, linked: bool = False) -> dict[str, Any]:
    """Everything a restart must give back. A table on a floor gets its progressive's meter, pending
    hits and open/closed state from its link, not its journal: those are checked against the floor."""
    rnd = table.round
    view = table.view()
    if linked:
        view["jackpot"] = {k: v for k, v in view["jackpot"].items() if k not in LINK_STATE}
    return {
        "view": view,
        "round": table.round_no,
        "version": table.version,
        "settings": table.journaled_settings,
        "tilts": {k: repr(v) for k, v in table.tilts.items()},
        "checkpoint": table.checkpoint_state(),
        "events": None if rnd is None else [repr(e) for e in rnd.events],
        "jackpot_meter": None if rnd is None else rnd.jackpot_meter,
        "recall": [item.to_json() for item in table.recall],
        "account": None if linked else table.jackpot_account(),
        "expected": table.expected(),
    }


class TableMachine(RuleBasedStateMachine):
    game = "oasis"
    linked = False  # LinkedTableMachine: the table plays the floor's linked progressive

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="table-model-"))
        self.path = self.folder / "journal.sqlite3"
        self.clock = Clock()
        self.config = build_config({"game": self.game, **GAMES[self.game]})
        self.acked: list[Entry] = []
        self.texts: list[tuple[str, Any]] = []  # what a display received since the last check
        self.settled_again: set[int] = set()
        self.table = self._open(TableService, config=self.config)

    # ------------------------------------------------------------------------------ plumbing

    def _open(self, kind: type[TableService], *, config: Any = None, store: type = SqliteJournal) -> TableService:
        # A checkpoint every other round: short runs restart from checkpoints too.
        table = kind(store=store(path=self.path), config=config, clock=self.clock, checkpoint_every=2)
        observe_appends(table._store, lambda entry, _s: self.acked.append(entry))
        return table

    def do(self, command: Any, *args: Any, **kwargs: Any) -> Entry | None:
        """Run a command as the display would: its reply or its error goes through the redaction;
        a refused command writes nothing."""
        table = self.table
        before = table.version
        try:
            result = command(*args, **kwargs)
        except ControllerError as exc:
            assert table.version == before, f"a refused command wrote something: {exc}"
            self.texts.append(("error", for_display(table, str(exc))))
            return None
        if not isinstance(result, Entry):
            return None
        self.texts.append(("reply", _done(table, result.seq)))
        return result

    def available(self) -> list[str]:
        """Cards that are neither in the round nor held by a tilt."""
        rnd = self.table.round
        used = {card.code for card, _ in rnd.dealt()} if rnd is not None else set()
        for tilt in self.table.tilts.values():
            used.update(tilt.held)
        return [c for c in CODES if c not in used]

    def pick(self, data: st.DataObject) -> str | None:
        """A card not in play, or None when a long tilt holds all the rest of the deck."""
        free = self.available()
        return data.draw(st.sampled_from(free)) if free else None

    def next_counter(self) -> int:
        return (self.table.last_counter or 0) + 1

    def teardown(self) -> None:
        self.table._store.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------------------ dealer

    @rule(data=st.data(), steps=st.integers(1, 40))
    def play_on(self, data: st.DataObject, steps: int) -> None:
        """A stretch of ordinary play: bets, the right cards, legal decisions, the confirmation."""
        for _ in range(steps):
            table = self.table
            if table.tilts:
                return
            rnd = table.round
            step = rnd.expected() if rnd is not None else None
            if table.shuffle_due is not None and (rnd is None or not rnd.cards_dealt):
                self.new_deck(data.draw(st.booleans()))
            elif rnd is None:
                self.open_round(data, data.draw(st.integers(1, 3)))
            elif isinstance(step, Deal):
                code = self.pick(data)
                if code is None:
                    return
                self.do(table.on_card, code, counter=self.next_counter())
            elif isinstance(step, Decide):
                self.do(table.act, decision(data.draw, rnd, step), actor=DEALER)
            else:
                self.do(table.confirm_settlement, actor=DEALER)

    @rule(data=st.data())
    def play_a_round(self, data: st.DataObject) -> None:
        self.play_on(data, 60)

    @rule(data=st.data(), boxes=st.integers(1, 3))
    def open_round(self, data: st.DataObject, boxes: int) -> None:
        config = self.table.config
        chosen = sorted(data.draw(st.lists(st.integers(1, config.boxes), min_size=boxes, max_size=boxes, unique=True)))
        bets = []
        for box in chosen:
            ante = data.draw(st.sampled_from([config.min_bet, config.max_bet, config.min_bet * 2]))
            bonus = config.bonus.min_bet if config.bonus.enabled and data.draw(st.booleans()) else 0
            bets.append(BoxBet(box=box, ante=ante, bonus=bonus))
        self.do(self.table.open_round, bets, actor=DEALER)

    @rule()
    def repeat_bets(self) -> None:
        self.do(self.table.repeat_last_bets, actor=DEALER)

    @rule(data=st.data())
    def decide(self, data: st.DataObject) -> None:
        rnd = self.table.round
        step = rnd.expected() if rnd is not None else None
        if isinstance(step, Decide) and rnd is not None:
            self.do(self.table.act, decision(data.draw, rnd, step), actor=DEALER)

    @rule(box=st.integers(0, 8), name=st.sampled_from(["fold", "raise", "call", "bet", "check", "buy", "fly"]))
    def any_decision(self, box: int, name: str) -> None:
        self.do(self.table.act, Action(box, name), actor=DEALER)

    @rule()
    def confirm(self) -> None:
        self.do(self.table.confirm_settlement, actor=DEALER)

    @rule(data=st.data())
    def confirm_paid_otherwise(self, data: st.DataObject) -> None:
        """The dealer confirms having paid a box another amount than shown (or names a box that is
        not paid: refused)."""
        settlement = self.table.settlement
        boxes = [b.box for b in settlement.boxes] if settlement is not None else [1]
        box = data.draw(st.sampled_from(boxes))
        self.do(self.table.confirm_settlement, actor=DEALER, paid={box: data.draw(st.integers(0, 400))})

    @rule(data=st.data(), actor=st.sampled_from([SUPER, DEALER]))
    def correct_payment(self, data: st.DataObject, actor: Actor) -> None:
        """A supervisor settles a payment of a past round (an owed one, or any box of a recent round)."""
        owed = [(p["round"], p["box"]) for p in self.table.payments_owed()]
        recent = [(item.round, b) for item in self.table.recall for b in (1, 2, 3)]
        if not owed and not recent:
            return
        round_no, box = data.draw(st.sampled_from(owed or recent))
        paid, handed = data.draw(st.integers(0, 400)), data.draw(st.integers(-50, 50))
        self.do(self.table.correct_payment, round_no, box, paid=paid, handed=handed, actor=actor, why="counted again")

    @rule(
        kind=st.sampled_from([*REPORTABLE, *DEAL_SEQUENCE_REPORTS]), detail=st.sampled_from(["", "seen by the dealer"])
    )
    def report(self, kind: Any, detail: str) -> None:
        self.do(self.table.report, kind, actor=DEALER, detail=detail)

    @rule(seconds=st.sampled_from([1, 30, 120]))
    def time_passes(self, seconds: int) -> None:
        self.clock.now += timedelta(seconds=seconds)
        self.do(self.table.tick)

    # ------------------------------------------------------------------------------ shoe

    @rule(data=st.data())
    def card(self, data: st.DataObject) -> None:
        """The card the round waits for (most of the time) or any other card not in play."""
        code = self.pick(data)
        if code is not None:
            self.do(self.table.on_card, code, counter=self.next_counter())

    @rule(data=st.data())
    def card_again(self, data: st.DataObject) -> None:
        """A card already in the round is read again."""
        rnd = self.table.round
        if rnd is not None and rnd.cards_dealt:
            code = data.draw(st.sampled_from([card.code for card, _ in rnd.dealt()]))
            self.do(self.table.on_card, code, counter=self.next_counter())

    @rule(code=st.sampled_from(["Xx", "1c", "", "AS?"]))
    def unknown_card(self, code: str) -> None:
        self.do(self.table.on_card, code, counter=self.next_counter())

    @rule(data=st.data(), skipped=st.integers(1, 2))
    def cards_missed(self, data: st.DataObject, skipped: int) -> None:
        code = self.pick(data)
        if code is not None:
            self.do(self.table.on_card, code, counter=self.next_counter() + skipped)

    @rule()
    def same_draw_twice(self) -> None:
        if self.table.last_counter:
            self.do(self.table.on_card, "2c", counter=self.table.last_counter)

    @rule(by_shoe=st.booleans())
    def new_deck(self, by_shoe: bool) -> None:
        """A freshly shuffled deck: the shoe signals it, or the dealer confirms it."""
        if by_shoe:
            self.do(self.table.on_shoe_status, "new-deck")
        else:
            self.do(self.table.deck_shuffled, actor=DEALER)

    @rule(status=st.sampled_from(["jam", "lid-open", "empty", "unreadable"]))
    def shoe_status(self, status: str) -> None:
        counter = self.next_counter() if status == "unreadable" else None
        self.do(self.table.on_shoe_status, status, counter=counter)

    @rule(up=st.booleans())
    def shoe_link(self, up: bool) -> None:
        self.do(self.table.on_link, up, detail="" if up else "no frame for 1 s")

    @rule(up=st.booleans())
    def camera_link(self, up: bool) -> None:
        self.do(self.table.on_camera_link, up, detail="" if up else "no frame for 10 s")

    # ------------------------------------------------------------------------------ supervisor, admin

    @precondition(lambda self: bool(self.table.tilts))
    @rule(data=st.data())
    def clear_tilt(self, data: st.DataObject) -> None:
        tilt = data.draw(st.sampled_from(list(self.table.tilts.values())))
        resolution = data.draw(st.sampled_from(self.table.resolutions(tilt)))
        card = self.pick(data) if resolution == "enter-card" else None
        why = data.draw(st.sampled_from(["checked the layout", "cards compared", "shoe reseated", " "]))
        self.do(self.table.clear_tilt, tilt.id, resolution=resolution, actor=SUPER, why=why, card=card)

    @rule(actor=st.sampled_from([SUPER, DEALER]))
    def void(self, actor: Actor) -> None:
        self.do(self.table.void_round, actor=actor, why="the supervisor voids it")

    @rule(data=st.data())
    def confirm_jackpot(self, data: st.DataObject) -> None:
        account = self.table.jackpot_account()
        pending = [h.hit for h in account.pending] if account else []
        self.do(self.table.confirm_jackpot, data.draw(st.sampled_from([*pending, 999])), actor=SUPER)

    @rule(max_payout=st.sampled_from([1000, 2000, 5000]), contribution=st.integers(1, 3))
    def reconfigure(self, max_payout: int, contribution: int) -> None:
        settings = config_settings(self.table.config) | {"max_payout": max_payout}
        if settings.get("jackpot", {}).get("enabled"):
            settings["jackpot"] = settings["jackpot"] | {"contribution": contribution}
        self.do(self.table.reconfigure, build_config(settings), actor=ADMIN)

    @rule(data=st.data(), kind=st.sampled_from(["dealer-card-exposed", "missing-card", "wrong-box", "extra-card"]))
    def misdeal_resolved_then_restart(self, data: st.DataObject, kind: str) -> None:
        """A misdeal in the middle of a round, cleared by any of its resolutions, more play (the
        progressive moves on), then a restart: the combination a redeal once failed."""
        if self.table.round is None or self.table.tilts:
            self.play_on(data, data.draw(st.integers(1, 12)))
        if self.table.round is None or self.table.tilts:
            return
        if self.do(self.table.report, kind, actor=DEALER) is None:
            return
        self.clear_tilt(data)
        self.play_on(data, data.draw(st.integers(10, 60)))
        self.restart(data.draw(st.booleans()))

    # ------------------------------------------------------------------------------ restarts

    @rule(from_scratch=st.booleans())
    def restart(self, from_scratch: bool) -> None:
        """The process ends (power cut, update) and the table is opened again, from the newest
        checkpoint (as a restart does) or from the first entry."""
        before = dump(self.table, linked=self.linked)
        self.table._store.close()
        self.table = self._open(TableService, store=FromScratch if from_scratch else SqliteJournal)
        assert dump(self.table, linked=self.linked) == before

    # ------------------------------------------------------------------------------ invariants

    @invariant()
    def invariants(self) -> None:  # type: ignore[override]
        table = self.table
        # The table reopened from its journal (read-only, beside the running one) is the live table.
        reopened_store = SqliteJournal(path=self.path, read_only=True)
        try:
            reopened = TableService(store=reopened_store, clock=self.clock, checkpoint_every=2)
            assert dump(reopened, linked=self.linked) == dump(table, linked=self.linked)
            journal = {e.seq: e for e in reopened_store.entries()}
        finally:
            reopened_store.close()
        # Nothing acknowledged is lost or changed.
        assert all(journal.get(e.seq) == e for e in self.acked)
        # No round is paid twice; the progressive holds exactly what the settled rounds put in and took.
        settled = [e for e in journal.values() if e.kind == "round-settled"]
        assert max(Counter(e.data["round"] for e in settled).values(), default=1) == 1
        account = None if self.linked else table.jackpot_account()
        if account is not None:
            paid_in = sum(e.data["settlement"]["jackpot"]["contribution"] for e in settled)
            won = sum(h["amount"] for e in settled for h in e.data["settlement"]["jackpot"]["hits"])
            assert (account.contributions, account.won) == (paid_in, won)
            assert sum(h.amount for h in account.hits) == won
        # Every finished round settles again, from its record alone, to what was paid.
        for item in table.recall:
            if item.round not in self.settled_again:
                line = json.dumps(item.to_json())
                assert settle_record(parse_record(loads(line))).to_json() == json.loads(line)["settlement"]
                self.settled_again.add(item.round)
        # No card a display may not see is in anything sent to one.
        seen = visibility(table)
        assert seen.leaks(json.dumps(table.view())) == []
        for item in table.recall:
            assert recalled_visibility(item).leaks(json.dumps(recalled(item))) == []
        for kind, text in self.texts:
            assert seen.leaks(json.dumps(text)) == [], (kind, text)
        self.texts.clear()


class LinkedTableMachine(TableMachine):
    """The same table joined to a floor (embedded store): link passes, outages, hits confirmed on the
    floor and parameter changes interleave with everything else; the floor must always be an exact
    copy of a prefix of the journal and its account exactly what the replicated rounds put in and took."""

    linked = True

    def _open(self, kind: type[TableService], *, config: Any = None, store: type = SqliteJournal) -> TableService:
        table = super()._open(kind, config=config, store=store)
        if not hasattr(self, "floor"):
            self.floor = FlakyStore(open_store(str(self.folder / "floor.sqlite3")))
            jackpot = table.config.jackpot
            self.floor.open_account(
                name="linked", scope="floor", reset=jackpot.reset, increment=jackpot.contribution, cap=1_000_000
            )
            self.last_pass_ok = True
        self.link = FloorLink(table=table, store=self.floor, settings=LinkSettings(pit="A"))
        return table

    def teardown(self) -> None:
        self.floor.close()
        super().teardown()

    @rule()
    def floor_pass(self) -> None:
        try:
            self.link.pass_once()
            self.last_pass_ok = True
        except FloorUnavailable:
            self.last_pass_ok = False
            self.link._close("floor link lost")  # what the link's thread does

    @rule(down=st.booleans())
    def floor_link(self, down: bool) -> None:
        self.floor.down = down
        if down:
            self.floor_pass()

    @rule(data=st.data())
    def floor_confirms_a_hit(self, data: st.DataObject) -> None:
        if self.floor.down:
            return
        pending = [h.hit_no for h in self.floor.hits("linked") if h.status == "pending"]
        if pending:
            self.floor.confirm_hit(account="linked", hit_no=data.draw(st.sampled_from(pending)), by="floor:sam")

    @rule(increment=st.integers(1, 4))
    def floor_changes_the_increment(self, increment: int) -> None:
        if not self.floor.down and self.floor.account("linked").increment != increment:
            self.floor.set_parameters(account="linked", increment=increment, by="pat", reason="model")

    @invariant()
    def the_floor_copies_the_journal(self) -> None:
        if self.floor.down:
            return
        local = {e.seq: e for e in self.table.journal_store.entries()}
        shipped = list(self.floor.journal(self.table.journal_store.table_id))
        assert all(local[e.seq].hash == e.hash for e in shipped)
        account = self.floor.account("linked")
        assert account.meter == account.seeded + account.contributions - account.won + account.corrections
        if self.last_pass_ok:
            settled = [e for e in shipped if e.kind == "round-settled"]
            paid_in = sum(e.data["settlement"]["jackpot"]["contribution"] for e in settled)
            assert account.contributions + account.overflow == paid_in
            hits = [e for e in local.values() if e.kind == "jackpot-floor-hit"]
            assert account.won == sum(e.data["amount"] for e in hits)
            assert len({e.data["settled"] for e in hits}) == len(hits) == account.hits
        # A round opened while the progressive was closed took no jackpot-eligible bet and plays without it.
        rnd = self.table.round
        if rnd is not None and self.table._opened.get("progressive") == "closed":
            assert not any(b.bonus for b in rnd.bets) and not rnd.config.jackpot.enabled


def run_machine(game: str, config: settings, *, machine_class: type[TableMachine] = TableMachine) -> None:
    machine: Any = type(f"{game.title().replace('-', '')}Machine", (machine_class,), {"game": game})
    machine.TestCase.settings = config
    machine.TestCase().runTest()


QUICK = settings(max_examples=30, stateful_step_count=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game", list(GAMES))
def test_the_table_machine(game: str) -> None:
    run_machine(game, QUICK)


def test_the_table_machine_on_a_floor() -> None:
    run_machine("oasis", QUICK, machine_class=LinkedTableMachine)


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_the_table_machine_long(game: str) -> None:
    run_machine(game, settings(QUICK, max_examples=300, stateful_step_count=120))
