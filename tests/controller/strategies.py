"""Hypothesis strategies shared by the engine's property tests: random legal play."""

from __future__ import annotations

from hypothesis import strategies as st

from controller.cards import Card
from controller.engine import Action, Decide, Round
from controller.errors import RuleViolation


def decision(draw: st.DrawFn, rnd: Round, step: Decide) -> Action:
    """A random legal decision for ``step``: now and then a dealer's action that is legal now (Hold'em
    with exchange: the hand shown early, the 5th board card turned for the 4th), else one of the box's
    options; an exchange throws random held cards (one in Oasis, one or two otherwise).
    """
    if rnd.game.table_actions and draw(st.integers(0, 9)) == 0:
        legal = [a for a in sorted(rnd.game.table_actions) if _legal(rnd, Action(box=0, action=a))]
        if legal:
            return Action(box=0, action=draw(st.sampled_from(legal)))
    name = draw(st.sampled_from(step.options))
    discard: tuple[Card, ...] = ()
    if name == "exchange":
        held = rnd.state.boxes[step.box].cards
        count = 1 if rnd.config.game == "oasis" else draw(st.integers(1, 2))
        discard = tuple(draw(st.permutations(held)))[:count]
    return Action(box=step.box, action=name, discard=discard)


def _legal(rnd: Round, action: Action) -> bool:
    try:
        rnd.check_action(action)
    except RuleViolation:
        return False
    return True
