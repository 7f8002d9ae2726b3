"""Simulated players and dealer: bets, decisions and deals for the demo and for soak tests.

The players see only their own cards and the face-up cards, as at a real table; the dealer asks
the shoe for the next card whenever the table expects one and confirms each settlement.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from controller.cards import Card
from controller.engine import Action, Bettor, BoxBet, Complete, Deal, Decide, Round
from controller.errors import ControllerError
from controller.hands import evaluate
from controller.table import Actor, TableService, card_slots

DEALER = Actor("auto-dealer", "dealer")
ERRORS_KEPT = 100  # the latest refusals, for a test or a console to show
IDLE_MAX = 1.0  # seconds: the longest the simulated dealer waits before looking again
_T, _J, _Q, _K, _A = 8, 9, 10, 11, 12


@dataclass(frozen=True, kw_only=True)
class AutoplayConfig:
    """How the simulated table behaves."""

    pace: float = 1.0  # seconds between steps; 0 = as fast as it goes
    # Steps the showdown stays on the displays before the dealer confirms it (6 s at the default
    # pace): long enough to read every box's payout, as a real dealer pays box by box.
    showdown_steps: int = 6
    max_boxes: int = 4
    bonus_rate: float = 0.4
    shared_rate: float = 0.1
    blind_rate: float = 0.1
    repeat_rate: float = 0.3
    seed: int | None = None


def _visible_board(rnd: Round) -> list[Card]:
    """The board cards a player can see now."""
    turned = rnd.game.turned(rnd.state)
    return [c for c, slot in card_slots(rnd).items() if slot.target == "board" and (slot.face_up or slot in turned)]


def choose(rnd: Round, step: Decide, rng: random.Random) -> Action:
    """A plausible decision for the box to act, from its own cards and the face-up cards only."""
    box = rnd.state.boxes[step.box]
    hole = list(box.cards)
    board = _visible_board(rnd)
    options = step.options
    game = rnd.game.name
    strength = evaluate(hole + board, ace_king=game == "oasis") if len(hole) + len(board) >= 5 else None
    ranks = sorted((c.rank for c in hole), reverse=True)
    if game == "oasis":
        assert strength is not None
        if strength.at_least("ace-king"):
            return Action(step.box, "raise")
        if "exchange" in options and rng.random() < 0.6:
            # Throw the lowest card that is not part of a near-flush or near-straight.
            return Action(step.box, "exchange", discard=(min(hole, key=lambda c: c.rank),))
        return Action(step.box, "fold" if rng.random() < 0.7 else "raise")
    if game == "casino-holdem":
        assert strength is not None
        good = strength.at_least("pair") or ranks[0] >= _Q
        return Action(step.box, "call" if good or rng.random() < 0.2 else "fold")
    if game == "holdem-exchange":
        assert strength is not None
        if "exchange" in options and not strength.at_least("pair") and rng.random() < 0.5:
            return Action(step.box, "exchange", discard=(min(hole, key=lambda c: c.rank),))
        if strength.at_least("pair") or ranks[0] >= _K:
            return Action(step.box, "bet")
        if "buy" in options and rng.random() < 0.5:
            return Action(step.box, "buy")
        return Action(step.box, "fold" if rng.random() < 0.6 else "bet")
    # Texas Hold'em Bonus: play most hands pre-flop, bet streets with a pair or better.
    if step.stage == "pre-flop":
        playable = ranks[0] == ranks[1] or ranks[0] >= _T or rng.random() < 0.5
        return Action(step.box, "bet" if playable else "fold")
    good = strength is not None and strength.at_least("pair")
    return Action(step.box, "bet" if good and rng.random() < 0.8 else "check")


def random_bets(table: TableService, rng: random.Random, cfg: AutoplayConfig) -> list[BoxBet]:
    """A plausible set of opening bets within the table's limits."""
    config = table.config
    count = rng.randint(1, min(cfg.max_boxes, config.boxes))
    boxes = sorted(rng.sample(range(1, config.boxes + 1), count))
    step = max(1, config.min_bet)
    # A closed linked progressive takes no jackpot-eligible bet: players keep to the base game.
    closed = table.progressive == "closed" and config.jackpot.enabled and config.jackpot.requires_bonus
    bets = []
    for number in boxes:
        ante = rng.randrange(config.min_bet, config.max_bet + 1, step)
        bonus = 0
        if config.bonus.enabled and not closed and rng.random() < cfg.bonus_rate:
            bonus = rng.randint(config.bonus.min_bet, config.bonus.max_bet)
        if rng.random() < cfg.shared_rate and ante >= 2 * config.min_bet and config.max_bettors > 1:
            first = rng.randrange(config.min_bet, ante - config.min_bet + 1, step) if ante > 2 * step else step
            second = ante - first
            bettors = (Bettor(f"Ann {number}", first, bonus), Bettor(f"Ben {number}", second, 0))
            bets.append(BoxBet(box=number, ante=ante, bonus=bonus, bettors=bettors))
            continue
        blind = config.game == "oasis" and rng.random() < cfg.blind_rate
        bets.append(BoxBet(box=number, ante=ante, bonus=bonus, blind=blind))
    return bets


class AutoPlayer:
    """Plays the table on its own: open, deal (through ``draw``), decide, confirm; waits on tilts."""

    def __init__(
        self,
        *,
        table: TableService,
        draw: Callable[[], None],
        config: AutoplayConfig | None = None,
        new_round: Callable[[], None] = lambda: None,
        shoe_signals_new_deck: bool = False,
    ) -> None:
        """``new_round`` loads the shoe with a shuffled deck before a round; ``shoe_signals_new_deck``:
        the shoe then tells the table (else the player confirms the shuffle itself when one is due)."""
        self.table = table
        self._signals = shoe_signals_new_deck
        self._shuffled_for: str | None = None  # the due shuffle already asked of the shoe
        self.config = config or AutoplayConfig()
        self._draw = draw
        self._new_round = new_round
        self._rng = random.Random(self.config.seed)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn_for: tuple[int, int] | None = None
        self._shown: tuple[int, int] = (0, 0)  # (round, steps its showdown has been on show)
        self.errors: deque[str] = deque(maxlen=ERRORS_KEPT)

    def step(self) -> str:
        """Do the next thing the table needs; returns what was done (or why it waits)."""
        table = self.table
        if table.tilts:
            return "waiting for a supervisor"
        rnd = table.round
        try:
            due = table.shuffle_due
            if due is not None and (rnd is None or not rnd.cards_dealt):
                return self._shuffle(due)
            if rnd is None:
                self._new_round()
                closed = table.progressive == "closed" and any(b.bonus for b in table.last_bets)
                if table.last_bets and not closed and self._rng.random() < self.config.repeat_rate:
                    table.repeat_last_bets(actor=DEALER)
                    return "repeated the last bets"
                table.open_round(random_bets(table, self._rng, self.config), actor=DEALER)
                return "opened a round"
            step = rnd.expected()
            if isinstance(step, Deal):
                marker = (table.round_no, rnd.cards_dealt)
                if self._drawn_for == marker:
                    return "waiting for the card from the shoe"
                self._drawn_for = marker
                self._draw()
                return "drew a card"
            if isinstance(step, Decide):
                table.act(choose(rnd, step, self._rng), actor=DEALER)
                return f"box {step.box} decided"
            assert isinstance(step, Complete)
            shown = self._shown[1] + 1 if self._shown[0] == table.round_no else 1
            self._shown = (table.round_no, shown)
            if shown <= self.config.showdown_steps:
                return "paying the showdown"
            table.confirm_settlement(actor=DEALER)
            return "confirmed the settlement"
        except ControllerError as exc:
            # A tilt raised meanwhile, or a race with a human at the display: note it and go on.
            self.errors.append(str(exc))
            return f"refused: {exc}"

    def _shuffle(self, due: str) -> str:
        """A shuffle is due (a round was cancelled, redealt or voided): a new deck, as a dealer would."""
        if not self._signals:
            self._new_round()
            self.table.deck_shuffled(actor=DEALER)
            return "confirmed a shuffled deck"
        if self._shuffled_for != due:
            self._shuffled_for = due
            self._new_round()
            return "loaded a shuffled deck"
        return "waiting for the shoe's new-deck signal"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="autoplay", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        idle = 0  # steps in a row that did nothing: the wait between them doubles, up to IDLE_MAX
        while not self._stop.is_set():
            done = self.step()
            idle = idle + 1 if done.startswith(("waiting", "refused")) else 0
            backoff = min(IDLE_MAX, 0.005 * 2 ** min(idle, 16)) if idle else 0.0
            self._stop.wait(max(self.config.pace, backoff))
