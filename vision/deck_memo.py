"""What is made once per registered deck and kept for the last few decks read."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Generic, TypeVar

if TYPE_CHECKING:
    from vision.deck import DeckProfile

T = TypeVar("T")

# A recognizer reads one deck, the benchmarks a few (a recognizer per table, the same deck object).
DECKS_KEPT: Final = 4


class DeckMemo(Generic[T]):
    """One thing per deck, made on first use: keyed by the deck object itself (a profile's arrays
    are not hashable, and ``id`` alone could be reused by a later deck once one is collected)."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[DeckProfile, T]] = {}

    def get(self, deck: DeckProfile, make: Callable[[], T]) -> T:
        """``deck``'s thing, ``make()`` the first time (the memo forgets all once it holds DECKS_KEPT)."""
        held = self._held.get(id(deck))
        if held is not None and held[0] is deck:
            return held[1]
        if len(self._held) >= DECKS_KEPT:
            self._held.clear()
        thing = make()
        self._held[id(deck)] = (deck, thing)
        return thing
