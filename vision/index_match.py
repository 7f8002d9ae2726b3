"""Matching a corner index against a registered deck: the best card, its score and its lead."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from controller.cards import DECK
from vision.index import IndexFeature

if TYPE_CHECKING:
    from vision.deck import DeckProfile

_CODES: Final[tuple[str, ...]] = tuple(c.code for c in DECK)  # the deck's order, as the profile's classes
# A read's squared distance to a class, in units of the training looks' mean, becomes a fit
# exp(-d / _FIT_SCALE): a typical look (d ~ 1) fits 0.93, and the default acceptance bar (0.72)
# stands at 4.6 times the typical distance (at 5.3 single corners of blurred indices were misread
# on unseen tables, at 4.6 none were, for a loss of 0.6 % of corner reads). The runner-up's extra
# distance becomes a lead 1 - exp(-gap / _LEAD_SCALE): the default bar (0.17) is a gap of 1.5.
_FIT_SCALE: Final = 14.0
_LEAD_SCALE: Final = 8.0


def _no_scores() -> npt.NDArray[np.floating[Any]]:
    return np.zeros(0, np.float32)


@dataclass(frozen=True, slots=True)
class IndexMatch:
    """The best card for one corner index and how sure the match is."""

    code: str
    score: float  # the weaker of the rank's and the suit's fit, 0..1
    margin: float  # lead over the best *other* card
    # Every rank's (13) and every suit's (4) score, to pool several corners' evidence.
    rank_scores: npt.NDArray[np.floating[Any]] = field(repr=False, compare=False, default_factory=_no_scores)
    suit_scores: npt.NDArray[np.floating[Any]] = field(repr=False, compare=False, default_factory=_no_scores)
    # How a corner read made ``score`` (vision.pipeline.corners): what its index's blur took off it
    # (SOFT_EXTRA_SCORE; the rank and suit scores keep the fits), and whether that index was found
    # only at the paler ink level, where a read asks PALE_EXTRA_SCORE more.
    soft: float = 0.0
    pale: bool = False


def match_index(profile: DeckProfile, feature: IndexFeature) -> IndexMatch:
    """Classify one normalised index by the deck's learnt rank and suit discriminants.

    The score is the weaker of the rank's and the suit's fit; the margin the smaller lead. A suit
    cut off a court picture's frame line (``feature.framed``) names only a card whose registered
    face has that line: any other is no match (score and margin 0), for the cut found a line
    such a card's face does not have (a neighbour's edge or pips, seen through a fan).
    """
    match = match_scores(
        _fits(profile.rank_model.distances(feature.rank)), _fits(profile.suit_model.distances(feature.suit_vector()))
    )
    if feature.framed and match.code not in profile.framed:
        match = IndexMatch(
            code=match.code, score=0.0, margin=0.0, rank_scores=match.rank_scores, suit_scores=match.suit_scores
        )
    return match


def _fits(distances: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """exp(-distance / _FIT_SCALE), computed in place (a fresh distance array, used once)."""
    np.negative(distances, out=distances)
    np.divide(distances, _FIT_SCALE, out=distances)
    return np.exp(distances, out=distances)


def match_scores(rank_scores: npt.NDArray[np.floating[Any]], suit_scores: npt.NDArray[np.floating[Any]]) -> IndexMatch:
    """The best card for per-rank and per-suit fits (one corner's, or several corners' geometric mean).

    A fit is exp(-distance / _FIT_SCALE); the lead over the runner-up is 1 - exp(-(its distance -
    the best's) / _LEAD_SCALE), so both lie in 0..1 and grow with the evidence.
    """
    rank, rank_fit, rank_second = _top_two(rank_scores)
    suit, suit_fit, suit_second = _top_two(suit_scores)
    score = min(rank_fit, suit_fit)
    margin = min(_lead(rank_fit, rank_second), _lead(suit_fit, suit_second))
    return IndexMatch(
        code=_CODES[rank * 4 + suit], score=score, margin=margin, rank_scores=rank_scores, suit_scores=suit_scores
    )


def _top_two(fits: npt.NDArray[np.floating[Any]]) -> tuple[int, float, float]:
    """The best class of ``fits``, its fit and the runner-up's fit: the first two of
    ``np.argsort(fits)[::-1]``, found in plain Python (numpy's per-call cost is most of the work
    for 13 or 4 values). Ties or NaNs at the top are left to numpy's order itself.
    """
    values = fits.tolist()
    top = sorted(values, reverse=True)
    if not (top[0] > top[1] and (len(top) < 3 or top[1] > top[2])):
        order = np.argsort(fits)[::-1]
        best, other = int(order[0]), int(order[1])
        return best, values[best], values[other]
    return values.index(top[0]), top[0], top[1]


def lead_over(fits: npt.NDArray[np.floating[Any]], other: int) -> float:
    """How clearly the best-fitting class beats class ``other``, on the scale of a match's margin
    (0 when ``other`` is the best).
    """
    return _lead(float(fits.max()), float(fits[other]))


def _lead(best: float, second: float) -> float:
    """``lead_over`` from the best fit and the other class' fit."""
    if best <= 0.0:
        return 0.0
    gap = -_FIT_SCALE * math.log(max(second, 1e-300) / best)  # the extra distance of ``other``
    return 1.0 - math.exp(-gap / _LEAD_SCALE)


def pooled(fits: Sequence[npt.NDArray[np.floating[Any]]]) -> npt.NDArray[np.float64]:
    """Several looks' fits pooled as their geometric mean: a fit is exp(-distance), so this is the
    fit at the looks' mean distance (independent looks at one index average out their noise).
    """
    logs = np.log(np.maximum(np.stack(fits).astype(np.float64), 1e-300))
    return np.asarray(np.exp(logs.mean(axis=0)), dtype=np.float64)
