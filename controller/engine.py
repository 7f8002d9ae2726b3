"""The pure round state machine: what is expected next, checking and applying cards and decisions.

The round's data types (bets, slots, steps, events, state) are in ``controller.round_data`` and are
re-exported here, where callers have always imported them; its cards layer (dealing and revealing) is
``controller.round_cards``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from controller.cards import Card
from controller.errors import RuleViolation
from controller.round_cards import RoundCards
from controller.round_data import (
    Action,
    ActionTaken,
    Bettor,
    BoxBet,
    BoxState,
    CardDealt,
    CardRevealed,
    Complete,
    Deal,
    Decide,
    Event,
    Identify,
    Placeholder,
    Reveal,
    RoundState,
    Slot,
    Step,
    Target,
    Unrevealed,
    deal_passes,
    ordinal,
    placeholder_ref,
)

if TYPE_CHECKING:
    from controller.config import TableConfig
    from controller.settlement import RoundSettlement

__all__ = [
    "Action",
    "ActionTaken",
    "Bettor",
    "BoxBet",
    "BoxState",
    "CardDealt",
    "CardRevealed",
    "Complete",
    "Deal",
    "Decide",
    "Event",
    "Identify",
    "Placeholder",
    "Reveal",
    "Round",
    "RoundState",
    "Slot",
    "Step",
    "Target",
    "Unrevealed",
    "deal_passes",
    "ordinal",
    "placeholder_ref",
]


class Round(RoundCards):
    """One round of one game, driven by cards and decisions; every step is checked first.

    The round is pure: no I/O, clock or randomness. Each accepted card or decision is kept as an
    immutable event, and :meth:`replay` rebuilds the same round from them. Its cards, dealt and
    revealed, are :class:`~controller.round_cards.RoundCards`'; here what it expects next, its
    decisions, its settlement and its scratch replays.
    """

    def __init__(self, *, config: TableConfig, bets: Sequence[BoxBet], jackpot_meter: int = 0) -> None:
        super().__init__(config=config, bets=bets, jackpot_meter=jackpot_meter)
        self._step: tuple[int, Step] | None = None
        self._upcoming: tuple[int, tuple[Slot, ...]] | None = None  # upcoming(), as of that many events

    def at_showdown(self) -> bool:
        """Nothing more is dealt or decided (the round is complete, or waits only for identities)."""
        return isinstance(self.expected(), (Complete, Identify))

    def expected(self) -> Step:
        """What the round waits for now."""
        if self.state.pending:
            return Deal(self.state.pending[0])
        step = self.game.advance(self.state)
        if not isinstance(step, Complete) or not any(isinstance(c, Placeholder) for c, _ in self._dealt):
            return step
        # Only a camera-only round gets here: try the settlement, which reads exactly the cards
        # it needs; the first it cannot read is the one to reveal. Cached: only events change it.
        if self._step is None or self._step[0] != len(self._events):
            self._step = (len(self._events), self._identify_step())
        return self._step[1]

    def _identify_step(self) -> Step:
        from controller.settlement import settle_round

        try:
            settle_round(self)
        except Unrevealed as exc:
            return Identify(self._dealt[exc.number - 1][1], exc.number)
        return Complete()

    def _resolve(self, action: Action) -> Action:
        """An action whose discards name cards dealt without identity by number (``?n``) refers to
        those cards as the round knows them now."""
        if not any(isinstance(c, Placeholder) for c in action.discard):
            return action
        discard = tuple(self.card_number(c.number) if isinstance(c, Placeholder) else c for c in action.discard)
        return Action(box=action.box, action=action.action, discard=discard)

    def check_action(self, action: Action) -> Decide:
        """Check a decision against the rules without applying it.

        Raises:
            RuleViolation: the box is not to decide now, the action is not legal now, or its
                details (e.g. the cards to exchange) are wrong; the rule is named.
        """
        action = self._resolve(action)
        if action.box == 0:
            return self._check_table_action(action)
        if action.box not in self.state.boxes:
            raise RuleViolation("decide.no-such-box", f"box {action.box} is not playing this round")
        if action.action not in self.game.actions:
            raise RuleViolation(
                f"{self.game.name}.actions",
                f"{action.action!r} is not an action of {self.game.title} "
                f"(actions: {', '.join(sorted(self.game.actions))})",
            )
        step = self.expected()
        if not isinstance(step, Decide):
            raise RuleViolation("decide.not-expected", f"no decision is expected now: {step.describe()}")
        if step.box != action.box:
            raise RuleViolation("decide.out-of-turn", f"box {action.box} cannot decide now: {step.describe()}")
        if action.action not in step.options:
            raise RuleViolation(
                f"{self.game.name}.{step.stage or 'decision'}",
                f"box {action.box} cannot {action.action} now: {step.describe()}",
            )
        if action.discard and action.action != "exchange":
            raise RuleViolation("decide.discard", f"only an exchange discards cards, not {action.action}")
        self.game.check_action(self.state, action)
        return step

    def _check_table_action(self, action: Action) -> Decide:
        """The dealer's own actions (box 0), e.g. showing his hand early in Hold'em with exchange."""
        if action.action not in self.game.table_actions:
            raise RuleViolation(
                f"{self.game.name}.table-actions",
                f"{action.action!r} is not a dealer action of {self.game.title}",
            )
        step = self.expected()
        if not isinstance(step, Decide):
            raise RuleViolation("decide.not-expected", f"{action.action} only while boxes decide: {step.describe()}")
        self.game.check_action(self.state, action)
        return Decide(0, (action.action,), stage="dealer")

    def act(self, action: Action) -> ActionTaken:
        """Apply a decision after checking it.

        Raises:
            RuleViolation: as :meth:`check_action`.
        """
        action = self._resolve(action)
        step = self.check_action(action)
        event = ActionTaken(number=len(self._events) + 1, action=action, stage=step.stage)
        if action.box:
            self.state.boxes[action.box].actions.append(event)
        self.state.pending.extend(self.game.apply_action(self.state, action))
        self._events.append(event)
        return event

    def settle(self) -> RoundSettlement:
        """Settle the completed round.

        Raises:
            RuleViolation: ``settle.incomplete`` when cards or decisions are still expected.
        """
        from controller.settlement import settle_round

        step = self.expected()
        if not isinstance(step, Complete):
            raise RuleViolation("settle.incomplete", f"the round is not complete: {step.describe()}")
        return settle_round(self)

    def void(self, reason: str) -> RoundSettlement:
        """Cancel the round: every stake goes back and nothing is paid (docs/rules.md: irregularities)."""
        from controller.settlement import void_round

        return void_round(self, reason)

    def copy(self) -> Round:
        """A scratch copy rebuilt from this round's events (the engine is deterministic)."""
        items: list[Card | Action | Reveal | None] = []
        for event in self._events:
            if isinstance(event, CardDealt):
                items.append(None if isinstance(event.card, Placeholder) else event.card)
            elif isinstance(event, CardRevealed):
                items.append(Reveal(event.dealt, event.card))
            else:
                # Discards dealt without identity are resolved by number on replay (_resolve).
                items.append(event.action)
        return Round.replay(config=self.config, bets=self.bets, events=items, jackpot_meter=self.jackpot_meter)

    def upcoming(self) -> tuple[Slot, ...]:
        """The slots the deal fills from now until the next decision (or the end), in order.

        A scratch replay of the round finds them, so the answer is kept until the next event.
        """
        if self._upcoming is None or self._upcoming[0] != len(self._events):
            self._upcoming = (len(self._events), self._upcoming_slots())
        return self._upcoming[1]

    def _upcoming_slots(self) -> tuple[Slot, ...]:
        from controller.cards import DECK

        scratch = self.copy()
        out: list[Slot] = []
        while isinstance(step := scratch.expected(), Deal):
            out.append(step.slot)
            if step.slot.face_up:
                # Any card not yet in the round stands in: only where cards go is asked.
                scratch.deal(next(c for c in DECK if c not in scratch.state.seen))
            else:
                scratch.deal_unknown()
        return tuple(out)

    @classmethod
    def replay(
        cls,
        *,
        config: TableConfig,
        bets: Sequence[BoxBet],
        events: Iterable[Card | Action | Reveal | None],
        jackpot_meter: int = 0,
    ) -> Round:
        """Rebuild a round from its setup and its cards (None: dealt without identity), reveals
        and decisions, in order.

        Raises:
            RuleViolation: an event the rules refuse at that point of the replay.
        """
        rnd = cls(config=config, bets=bets, jackpot_meter=jackpot_meter)
        for item in events:
            if isinstance(item, Action):
                rnd.act(item)
            elif isinstance(item, Reveal):
                rnd.reveal(item.dealt, item.card)
            elif item is None:
                rnd.deal_unknown()
            else:
                rnd.deal(item)
        return rnd
