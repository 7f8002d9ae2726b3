"""A round's cards: its setup, the cards dealt in order (with or without their identity) and their reveals."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.cards import Card
from controller.errors import RuleViolation
from controller.round_data import (
    BoxBet,
    BoxState,
    CardDealt,
    CardRevealed,
    Deal,
    Event,
    Placeholder,
    RoundState,
    Slot,
    Step,
)

if TYPE_CHECKING:
    from controller.config import TableConfig
    from controller.games import Game


class RoundCards(ABC):
    """The cards layer of :class:`~controller.engine.Round`: its bets and state, and every card dealt,
    checked against the step the round expects (:meth:`expected`, the game's progress) before it is placed."""

    def __init__(self, *, config: TableConfig, bets: Sequence[BoxBet], jackpot_meter: int = 0) -> None:
        from controller.games import get_game

        self.game: Game = get_game(config.game)
        self.config = config
        self.jackpot_meter = jackpot_meter
        self.bets = tuple(sorted(bets, key=lambda b: b.box))
        self.game.check_bets(config, self.bets)
        if jackpot_meter < 0:
            raise RuleViolation("jackpot.meter", f"the jackpot meter cannot be negative ({jackpot_meter})")
        self.state = RoundState(
            config=config,
            boxes={b.box: BoxState(bet=b) for b in self.bets},
            board=[None] * self.game.board_size,
        )
        self._events: list[Event] = []
        # Every card dealt, in order, as it is known now (a placeholder until revealed), and its slot.
        self._dealt: list[tuple[Card, Slot]] = []

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    @property
    def cards_dealt(self) -> int:
        return len(self._dealt)

    def dealt(self) -> tuple[tuple[Card, Slot], ...]:
        """Every card dealt this round in order, as known now (placeholders until revealed), with its slot."""
        return tuple(self._dealt)

    def unrevealed(self) -> tuple[tuple[int, Slot], ...]:
        """Cards dealt without identity and not yet revealed: (number, slot), in deal order."""
        return tuple((n, slot) for n, (c, slot) in enumerate(self._dealt, 1) if isinstance(c, Placeholder))

    @abstractmethod
    def expected(self) -> Step:
        """What the round waits for now."""

    def check_card(self, card: Card) -> Slot:
        """The slot ``card`` would fill; raises if no card is expected or it was dealt already.

        Raises:
            RuleViolation: ``deal.not-expected`` or ``deal.duplicate-card``.
        """
        step = self.expected()
        if not isinstance(step, Deal):
            raise RuleViolation("deal.not-expected", f"no card is expected now: {step.describe()}")
        if isinstance(card, Placeholder):
            if step.slot.face_up:
                raise RuleViolation(
                    "deal.face-up-unknown", f"a card dealt face up is dealt with its identity: {step.describe()}"
                )
        elif card in self.state.seen:
            raise RuleViolation("deal.duplicate-card", f"card {card} was already dealt this round")
        return step.slot

    def check_unknown(self) -> Slot:
        """The slot a card dealt without identity would fill (a table with no reading shoe).

        Raises:
            RuleViolation: ``deal.not-expected``, or ``deal.face-up-unknown`` when the slot is
                dealt face up (its identity is on the table: deal it with :meth:`deal`).
        """
        return self.check_card(Placeholder(self.cards_dealt + 1))

    def deal_unknown(self) -> CardDealt:
        """Place the next card without its identity: a placeholder fills the slot until :meth:`reveal`.

        Raises:
            RuleViolation: as :meth:`check_unknown`.
        """
        return self.deal(Placeholder(self.cards_dealt + 1))

    def card_number(self, number: int) -> Card:
        """Card ``number`` of the round (from 1) as known now.

        Raises:
            RuleViolation: ``reveal.no-such-card``.
        """
        if not 1 <= number <= len(self._dealt):
            raise RuleViolation(
                "reveal.no-such-card", f"there is no card {number}: {len(self._dealt)} card(s) dealt this round"
            )
        return self._dealt[number - 1][0]

    def check_reveal(self, number: int, card: Card) -> Slot:
        """Check that card ``number``, dealt without identity, can be revealed as ``card``.

        Raises:
            RuleViolation: ``reveal.no-such-card``, ``reveal.known`` (it has its identity already),
                ``reveal.no-identity`` (``card`` is itself a placeholder) or ``deal.duplicate-card``
                (``card`` is already in this round).
        """
        current = self.card_number(number)
        slot = self._dealt[number - 1][1]
        if not isinstance(current, Placeholder):
            raise RuleViolation("reveal.known", f"card {number} ({slot.where()}) is already known")
        if isinstance(card, Placeholder):
            raise RuleViolation("reveal.no-identity", f"card {number} must be revealed as one of the 52 cards")
        if card in self.state.seen:
            raise RuleViolation("deal.duplicate-card", f"card {card} was already dealt this round")
        return slot

    def reveal(self, number: int, card: Card) -> CardRevealed:
        """Give card ``number`` (dealt without identity) its identity, wherever it lies now.

        Raises:
            RuleViolation: as :meth:`check_reveal`.
        """
        slot = self.check_reveal(number, card)
        hidden = self._dealt[number - 1][0]
        state = self.state

        def swap(cards: list[Card]) -> None:
            for i, c in enumerate(cards):
                if c is hidden:
                    cards[i] = card

        for box in state.boxes.values():
            swap(box.cards)
            swap(box.received)
            swap(box.discards)
        swap(state.dealer)
        state.board = [card if c is hidden else c for c in state.board]
        state.seen.discard(hidden)
        state.seen.add(card)
        self._dealt[number - 1] = (card, slot)
        event = CardRevealed(number=len(self._events) + 1, dealt=number, card=card, slot=slot)
        self._events.append(event)
        return event

    def deal(self, card: Card) -> CardDealt:
        """Place the next card from the shoe.

        Raises:
            RuleViolation: as :meth:`check_card`.
        """
        if isinstance(card, Placeholder):
            card = Placeholder(self.cards_dealt + 1)  # one object per dealt card, numbered by the round
        slot = self.check_card(card)
        state = self.state
        if state.pending and state.pending[0] == slot:
            state.pending.pop(0)
        if slot.target == "box":
            box = state.boxes[slot.box]
            box.cards.append(card)
            box.received.append(card)
        elif slot.target == "dealer":
            state.dealer.append(card)
        else:
            state.board[slot.index] = card
        state.seen.add(card)
        self._dealt.append((card, slot))
        event = CardDealt(number=len(self._events) + 1, card=card, slot=slot)
        self._events.append(event)
        return event
