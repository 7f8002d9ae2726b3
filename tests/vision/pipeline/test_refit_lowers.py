"""Lower backs of a stack moved to where their strips match the back, and the card they hid then counted."""

from __future__ import annotations

from tests.vision.stacks import each_counted_once, table_stack
from vision.deck import DeckProfile


def test_a_lower_back_chosen_between_two_cards_is_moved_onto_one_and_the_other_counted(kennard: DeckProfile) -> None:
    # The benchmark's table 19713: three backs, 9d at the bottom, 7s, 8d on top. The back chosen
    # under the 8d lay 6 plane pixels off the 9d, between its place and the 7s's, and what no other
    # card hides of it matched the back poorly (0.48). Moved to where that matches best (0.70), it
    # leaves the other card's strip showing, and the stack counts three. It counted two.
    stack, found = table_stack(kennard, seed=19713, codes=("9d", "7s", "8d"))
    assert each_counted_once(stack, found), (stack, found)


def test_a_lower_back_a_few_pixels_off_its_card_is_moved_onto_it_and_the_card_under_it_counted(
    hershey: DeckProfile,
) -> None:
    # The benchmark's table 19702: 2h at the bottom, Jc, 5c on top. The back chosen under the 5c lay
    # 4 plane pixels off the Jc, its own strip matching 0.43; moved onto the Jc (0.74), it leaves
    # the 2h's strip showing. The 2h was not counted.
    stack, found = table_stack(hershey, seed=19702, codes=("2h", "Jc", "5c"))
    assert each_counted_once(stack, found), (stack, found)
