"""Tilts: every ambiguity at the table, what the dealer should do, and how a supervisor may clear it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

TiltKind = Literal[
    "unknown-card",
    "duplicate-card",
    "unexpected-card",
    "missing-card",
    "dealer-card-exposed",
    "deal-sequence",
    "deck-not-shuffled",
    "deck-changed",
    "shoe-link-lost",
    "shoe-fault",
    "camera-mismatch",
    "camera-link-lost",
    "journal-unavailable",
]
Resolution = Literal["continue", "burn", "enter-card", "redeal", "cancel", "void", "dealer-shown"]

# What each resolution does (docs/rules.md, irregularities):
#   continue    the cause is gone: cards held during the tilt are dealt in order
#   burn        the offending (held) cards are taken out of play; the deal sequence is restored
#   enter-card  a supervisor reads the card and enters it; it is dealt, then any held cards
#   redeal      the round is void (stakes stay on the layout) and is dealt again with the same bets
#   cancel      the round is void: every stake goes back
#   void        "a malfunction voids all pays and plays": as cancel, recorded as a malfunction
#   dealer-shown the exposed cards are the dealer's hand shown before all decisions (Hold'em with
#               exchange): the game's show-early procedure applies, as if the dealer had said so
#               (decided boxes keep their decisions, the others may only fold or withdraw); offered
#               only where the round can take it now (TableService.resolutions)
RESOLUTIONS: Final[dict[str, tuple[Resolution, ...]]] = {
    "unknown-card": ("enter-card", "burn", "redeal", "cancel", "void"),
    "duplicate-card": ("burn", "redeal", "cancel", "void"),
    "unexpected-card": ("burn", "continue", "redeal", "cancel"),
    "missing-card": ("enter-card", "continue", "redeal", "cancel", "void"),
    "dealer-card-exposed": ("redeal", "cancel", "dealer-shown"),
    # The cards on the layout are out of the deal's order (a card in the wrong or an empty box, an
    # extra card in a box, a playing box skipped). The shoe recorded the cards in the order drawn, so
    # the record holds the right sequence: the dealer restores the felt to it (continue), or, if
    # that cannot be done, the round is dealt again with the same bets (redeal) or cancelled.
    "deal-sequence": ("continue", "redeal", "cancel"),
    # A card drawn while a shuffle is due (after a cancelled, redealt or voided round): put aside
    # (burn) while the dealer shuffles, or the supervisor checks the deck is a fresh one and deals
    # the card (continue), or the round is cancelled.
    "deck-not-shuffled": ("burn", "continue", "cancel"),
    # The shoe signalled a new deck in the middle of a deal: the round's cards are not one deck's.
    "deck-changed": ("redeal", "cancel", "void"),
    "shoe-link-lost": ("continue", "void", "cancel"),
    "shoe-fault": ("continue", "void", "cancel"),
    # The camera read a face-up card as another card than the shoe dealt there: either the camera
    # misread (continue, the shoe's card stands) or the cards are not what the round recorded.
    "camera-mismatch": ("continue", "redeal", "cancel", "void"),
    # The camera over the table failed for good: its misdeal checks are off (continue plays on
    # without them), and a table with no reading shoe has no card source until it is repaired.
    "camera-link-lost": ("continue", "void", "cancel"),
    # The journal cannot be written (a full disk, an I/O error): nothing is recorded or acknowledged
    # meanwhile (the shoe keeps its cards); once storage is back, play goes on or the round ends.
    "journal-unavailable": ("continue", "void", "cancel"),
}
ROUND_ENDING: Final = frozenset({"redeal", "cancel", "void"})

INSTRUCTIONS: Final[dict[str, str]] = {
    "unknown-card": "Stop. Leave the card where it is and call a supervisor to read it.",
    "duplicate-card": "Stop. A card already dealt this round was read again: call a supervisor.",
    "unexpected-card": "Stop. No card was due: put the card aside face down and call a supervisor.",
    "missing-card": "Stop. A card left the shoe without being read: call a supervisor.",
    "dealer-card-exposed": "Stop. A dealer card is exposed: call a supervisor (redeal or cancel).",
    "deal-sequence": "Stop. The cards are out of the deal's order: leave them and call a supervisor.",
    "deck-not-shuffled": "Stop. Put the card aside face down: the deck must be shuffled first. Call a supervisor.",
    "deck-changed": "Stop. The deck was changed during the deal: call a supervisor.",
    "shoe-link-lost": "Stop dealing. The shoe is not connected: check its cable and call a technician.",
    "shoe-fault": "Stop dealing. Clear the shoe fault, then call a supervisor.",
    "camera-mismatch": "Stop. The camera and the shoe disagree about a card: call a supervisor to compare them.",
    "camera-link-lost": "Stop. The camera over the table is not working: call a technician and a supervisor.",
    "journal-unavailable": "Stop. The table cannot record anything: call a technician, then a supervisor to clear it.",
}


@dataclass(frozen=True, slots=True)
class Tilt:
    """An open irregularity: it stops play until a supervisor clears it with a resolution."""

    id: int
    kind: TiltKind
    message: str
    raised_at: str
    round: int | None
    held: tuple[str, ...] = field(default=())
    # A card of the round dealt without identity (a table with no reading shoe) that the camera
    # could not read when it was needed: its number in the round; entering it reveals it.
    card: int | None = None

    @property
    def instruction(self) -> str:
        if self.card is not None:
            return "Stop. The camera cannot read a card the settlement needs: call a supervisor to read and enter it."
        return INSTRUCTIONS[self.kind]

    @property
    def resolutions(self) -> tuple[Resolution, ...]:
        options = RESOLUTIONS[self.kind]
        if self.card is not None:
            # The card lies on the table, dealt: there is nothing to burn or continue without it.
            options = tuple(r for r in options if r not in ("burn", "continue"))
        if self.round is None:
            # Between rounds there is nothing to redeal or cancel.
            return tuple(r for r in options if r not in ROUND_ENDING and r != "dealer-shown") or ("continue",)
        return options
