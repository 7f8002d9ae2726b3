"""The per-deck memo: made once per deck object, made again for another, forgotten past its bound."""

from __future__ import annotations

from typing import cast

from vision.deck import DeckProfile
from vision.deck_memo import DECKS_KEPT, DeckMemo


def _deck() -> DeckProfile:
    # (The memo holds a deck by identity only: any object stands for one here.)
    return cast(DeckProfile, object())


def test_a_deck_s_thing_is_made_once_and_another_deck_gets_its_own() -> None:
    memo: DeckMemo[list[int]] = DeckMemo()
    made: list[str] = []
    first, second = _deck(), _deck()
    a = memo.get(first, lambda: made.append("first") or [1])
    assert memo.get(first, lambda: made.append("again") or [2]) is a
    assert memo.get(second, lambda: made.append("second") or [3]) == [3]
    assert made == ["first", "second"]


def test_past_its_bound_the_memo_forgets_and_makes_again() -> None:
    memo: DeckMemo[int] = DeckMemo()
    decks = [_deck() for _ in range(DECKS_KEPT + 1)]
    calls = []
    for n, deck in enumerate(decks):
        memo.get(deck, lambda n=n: calls.append(n) or n)
    memo.get(decks[0], lambda: calls.append(-1) or -1)
    assert calls == [*range(DECKS_KEPT + 1), -1]
    # The last deck made is held again: not made a third time.
    memo.get(decks[0], lambda: calls.append(-2) or -2)
    assert calls[-1] == -1
