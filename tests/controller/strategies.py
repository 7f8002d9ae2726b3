"""Hypothesis strategies shared by the engine's property tests: random legal play."""

from __future__ import annotations

from hypothesis import strategies as st

from controller.cards import Card
from controller.engine import Action, Decide, Round


def decision(draw: st.DrawFn, rnd: Round, step: Decide) -> Action:
    """A random legal decision for ``step``: now and then the dealer shows his hand early (a table
    action, Hold'em with exchange), else one of the box's options; an exchange throws random held
    cards (one in Oasis, one or two otherwise).
    """
    if rnd.game.table_actions and not rnd.state.flags and draw(st.integers(0, 9)) == 0:
        return Action(box=0, action=draw(st.sampled_from(sorted(rnd.game.table_actions))))
    name = draw(st.sampled_from(step.options))
    discard: tuple[Card, ...] = ()
    if name == "exchange":
        held = rnd.state.boxes[step.box].cards
        count = 1 if rnd.config.game == "oasis" else draw(st.integers(1, 2))
        discard = tuple(draw(st.permutations(held)))[:count]
    return Action(box=step.box, action=name, discard=discard)
