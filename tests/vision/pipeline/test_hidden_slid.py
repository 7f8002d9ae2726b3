"""Lower backs whose strip's edges place no card: found by the back slid over the stack, judged in place."""

from __future__ import annotations

from tests.vision.stacks import no_back_where_no_card_lies, table_stack
from vision.deck import DeckProfile


def test_the_two_cards_under_a_top_whose_strips_run_into_one_are_counted(dondorf: DeckProfile) -> None:
    # Dev table 503 as generated (dondorf): Js on 9s on As, each 0.2-0.3 of a card's width from the
    # last, a chip on the top's corner. Only the top was chosen; the two lower cards' strips show as
    # one region no card explains, reaching 0.6 of a card's width beyond the top: farther than one
    # card's offset, so its edges placed no card and the stack counted one back.
    stack, near = table_stack(dondorf, seed=503, codes=("Js", "9s", "As"))
    assert len(near) == 3 and no_back_where_no_card_lies(stack, near), (stack, near)
