"""The one redaction point: which card identities a display may see, and nothing else leaves for one.

DESIGN.md, "Where a card identity may go": a card's identity reaches a display only once that card is
face up on the table. Everything bound for a display passes through a :class:`Visibility`: the
snapshot (:mod:`controller.view`), every command reply and error message of the web display, the
last rounds (recall) and their settlements, and the lines the demo prints on screen. Messages kept
for the journal or a technician's console (logs) are not redacted: they are never shown to a display.

The API, smallest first:

``for_display(source, value)``
    The function every display-bound value goes through. ``source`` is a live
    :class:`~controller.table.TableService` (its cards face up now), a :class:`Visibility` already
    taken, or None (nothing is face up: every card code is hidden, the safe default when no table is
    known). ``value`` is a message (``str``) or a JSON value (dicts, lists, strings, numbers); every
    string in it has each card code that is not face up replaced by "a card". Returns a new value;
    the input is not changed.

``visibility(table)``
    The table's :class:`Visibility` now, taken under the table's lock (consistent with its state).

``round_visibility(rnd)`` / ``recalled_visibility(item)``
    The same for a round (None: no round, nothing face up) and for a finished round of the recall,
    replayed from its record so that exactly the cards that were face up when it ended are shown.

``Visibility``
    ``shown`` (the canonical codes face up), ``card(code)`` (a card as a display sees it:
    ``{"code": "As", "face_up": True}`` or ``{"code": None, "face_up": False}``), ``text(message)``,
    ``settlement(json)`` (folded hands, discards, unturned board cards and an unshown dealer hand
    masked), ``scrub(value)`` (as ``for_display``) and ``leaks(text)`` (the hidden card codes a text
    names: what a test asserts to be empty).

Only canonical codes are recognised in text (``As``, ``Td`` or ``10d``; the controller writes nothing
else): matching lower case would read "as" in "pay the table as shown" as the ace of spades.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from controller.engine import Placeholder, Round

if TYPE_CHECKING:
    from controller.table import RecalledRound, TableService

_T = TypeVar("_T")

HIDDEN: dict[str, Any] = {"code": None, "face_up": False}
A_CARD = "a card"

# A card code standing on its own, with the word "card" before it taken along ("card Kc was dealt"
# reads "a card was dealt"). Canonical case only (see the module docstring).
_CODE = re.compile(r"(?:\bcard )?(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[cdhs](?![A-Za-z0-9])")


def _canonical(code: str) -> str:
    return ("T" if code.startswith("10") else code[0]) + code[-1]


@dataclass(frozen=True, slots=True)
class Visibility:
    """The card identities a display may see at one moment: the codes of the cards face up."""

    shown: frozenset[str] = frozenset()

    def card(self, code: str | None) -> dict[str, Any]:
        """A card as a display sees it: its code if it is face up, else a face-down card."""
        return {"code": code, "face_up": True} if code is not None and code in self.shown else dict(HIDDEN)

    def text(self, message: str) -> str:
        """``message`` with every card code that is not face up replaced by "a card"."""

        def hide(match: re.Match[str]) -> str:
            return match.group(0) if _canonical(match.group(0).removeprefix("card ")) in self.shown else A_CARD

        return _CODE.sub(hide, message)

    def leaks(self, text: str) -> list[str]:
        """The card codes in ``text`` that a display may not see (empty: the text is safe to show)."""
        found = (m.group(0).removeprefix("card ") for m in _CODE.finditer(text))
        return [code for code in found if _canonical(code) not in self.shown]

    def scrub(self, value: _T) -> _T:
        """A JSON value with :meth:`text` applied to every string in it (keys included)."""
        return _scrub(value, self)  # type: ignore[no-any-return]

    def settlement(self, settlement: Mapping[str, Any]) -> dict[str, Any]:
        """A settlement (``RoundSettlement.to_json()``) as a display may show it.

        A box's cards and hand show only when all its cards are face up (a folded hand is mucked
        face down); discards never show; each board card shows only if it was turned; the dealer's
        cards, hand and qualification only when all his cards are face up; the void reason is text.
        """
        out = dict(settlement)
        boxes = []
        for box in settlement["boxes"]:
            b = dict(box)
            if not self._all_shown(b["cards"]):
                b["cards"] = [None] * len(b["cards"])
                b["hand"] = None
            b["discards"] = [None] * len(b["discards"])
            boxes.append(b)
        out["boxes"] = boxes
        dealer = dict(settlement["dealer"])
        if not self._all_shown(dealer["cards"]):
            dealer = {"cards": [None] * len(dealer["cards"]), "hand": None, "qualifies": None}
        out["dealer"] = dealer
        out["board"] = [c if c in self.shown else None for c in settlement["board"]]
        if isinstance(out.get("void"), str):
            out["void"] = self.text(out["void"])
        return out

    def _all_shown(self, codes: Iterable[str | None]) -> bool:
        return all(c is not None and c in self.shown for c in codes)


NOTHING_SHOWN = Visibility()


def _scrub(value: Any, vis: Visibility) -> Any:
    if isinstance(value, str):
        return vis.text(value)
    if isinstance(value, Mapping):
        return {_scrub(k, vis): _scrub(v, vis) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, vis) for v in value]
    return value


def face_up_codes(rnd: Round) -> set[str]:
    """Codes of the round's cards that are face up on the table now.

    Face up: dealt face up, turned by the dealer (e.g. hold'em-with-exchange's 4th card), or, at
    the showdown, the dealer's cards, the board and every box still in play. Folded boxes' cards
    and discards are mucked face down and never shown; when every box folded there is no showdown
    and the dealer's and the board's face-down cards stay down. A card dealt without identity (no
    reading shoe) is shown as a face-down card until it is revealed, and then only where it is face up.
    """
    state = rnd.state
    turned = rnd.game.turned(state)
    showdown = rnd.at_showdown() and bool(state.in_play())
    shown: set[str] = set()
    for card, slot in rnd.dealt():
        if isinstance(card, Placeholder):
            continue  # dealt without identity: however it lies, there is nothing to show yet
        if slot.face_up or slot in turned or (showdown and slot.target in ("dealer", "board")):
            shown.add(card.code)
    if showdown:
        for box in state.in_play():
            shown.update(c.code for c in box.cards if not isinstance(c, Placeholder))
    for box in state.boxes.values():
        shown.difference_update(c.code for c in box.discards)
    return shown


def round_visibility(rnd: Round | None) -> Visibility:
    """What a display may see of this round now (None: no round, nothing is face up)."""
    return NOTHING_SHOWN if rnd is None else Visibility(frozenset(face_up_codes(rnd)))


def visibility(table: TableService) -> Visibility:
    """The table's cards face up now, read under the table's lock."""
    return table.inspect(lambda t: round_visibility(t.round))


def recalled_visibility(item: RecalledRound) -> Visibility:
    """The cards that were face up when a finished round ended (settled or void), from its record.

    Replaying the record gives the round as it ended, so the same rule as the live table decides
    (a Casino Hold'em flop stays shown after every box folded; hold'em-with-exchange's unturned board
    cards do not). A record that does not replay shows nothing.
    """
    from controller.errors import ControllerError
    from controller.record import replay

    with _RECALLED_LOCK:
        cached = _RECALLED.get(id(item))
        if cached is not None and cached[0] is item:
            return cached[1]
    try:
        vis = round_visibility(replay(item.record))
    except ControllerError:
        vis = NOTHING_SHOWN
    with _RECALLED_LOCK:
        # A finished round never changes: replay each once (~1.5 ms), not at every GET or floor update.
        _RECALLED[id(item)] = (item, vis)
        while len(_RECALLED) > _RECALLED_SIZE:
            _RECALLED.popitem(last=False)
    return vis


_RECALLED: OrderedDict[int, tuple[RecalledRound, Visibility]] = OrderedDict()
_RECALLED_LOCK = threading.Lock()
_RECALLED_SIZE = 256


def for_display(source: TableService | Visibility | None, value: _T) -> _T:
    """``value`` (a message or a JSON value) as a display may see it; see the module docstring."""
    if source is None:
        vis = NOTHING_SHOWN
    elif isinstance(source, Visibility):
        vis = source
    else:
        vis = visibility(source)
    return vis.scrub(value)


__all__ = [
    "HIDDEN",
    "NOTHING_SHOWN",
    "Visibility",
    "face_up_codes",
    "for_display",
    "recalled_visibility",
    "round_visibility",
    "visibility",
]
