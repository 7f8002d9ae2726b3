"""Reading a card among others at the index corners its rectangle shows on the outline (a fan's top card: inside)."""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.fans import FanReader
from vision.pipeline.geometry import on_outline
from vision.pipeline.hypotheses import PARALLEL_COS, Hypothesis
from vision.pipeline.outline import CARD_ASPECT, Blob
from vision.pipeline.plane import Plane

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# An outline edge this many card widths long from a corner is a card's long side (see propose).
LONG_SEEN: Final = 1.15
# ... and one from a card's blank corner this many card widths along its short side makes the
# side's end its index corner (see _short_side_seen): table 11019's 4c shows 0.77.
SHORT_SEEN: Final = 0.6
# ... and one from its blank corner this many card heights along its long side lies on top, its
# index corner read inside the outline (see top_of_fan): table 13002's 5d shows 1.05.
WHOLE_SIDE: Final = 0.95
# ... or, from two outline corners along that side whose other index corner shows none, this
# many: standard table 3015's Ks shows 0.948 (77.7 px of 82, the far end a rounded corner).
WHOLE_SIDE_TWO: Final = 0.9
# ... or one this many card widths along the long side while its edge along the short side runs no
# further than a card's width: the card cannot lie the other way round about the corner, where the
# first edge would run along its short side, whose straight part is under a card's width (nicu-ornamental
# table 11006's 5h, a raised top card 1.06 w wide: 56 px of 62 straight, 0.96 w). Its long side is
# cut by a chip or the next card: dondorf table 502's Jh shows 1.036, nicu-ornamental 11006's 5h 1.10.
LONG_OVER: Final = 1.03
# How near the outline (card widths) a redrawn rectangle's index corner is in view: dondorf
# table 2's 7d, whose corner is 4.9 px (0.083 w) past the rounded corner the glare cut.
SQUARE_NEAR: Final = 0.1


def read_on_outline(
    image: ByteImage,
    *,
    plane: Plane,
    blob: Blob,
    hyp: Hypothesis,
    ink: ByteImage,
    card_w: float,
    corners: CornerReader,
    fans: FanReader,
    square: bool = False,
) -> None:
    """Read a card among others by the index corners it shows on the blob's outline (``square``:
    ``hyp`` is drawn square to the side or long edge the outline confirms, see Hypothesis.squared)."""
    # Among other cards an index corner is in view only on the blob's outline: one inside it
    # lies under a neighbour and would show the neighbour's face. A card seen by one index
    # only is read when two of its corners are the outline's (one is any hypothesis turned
    # the wrong way about that corner).
    # (A rectangle redrawn at the card's size from a side's sure end puts its other end on
    # the card's corner, a few pixels past the rounded one the outline shows: see full_side.)
    near = (SQUARE_NEAR if square else 0.06) * card_w
    exposed = [k for k in (0, 2) if on_outline(blob.contour, hyp.corners[k], near)]
    if len(exposed) == 2:
        hyp.examined = (0, 2)
        fans.read_among(image, hyp, plane)
    elif (
        exposed
        and corners.inked(ink, hyp.corners, exposed[0], image=plane.image)
        and (
            hyp.anchors >= 2
            or (
                # (Square to a long edge from a skewed corner: the corner's only evidence
                # is that edge, so, as for a long side, a plain read must find some index.)
                (
                    square
                    or _long_side_seen(blob, hyp, exposed[0], card_w=card_w)
                    or _short_side_seen(blob, hyp, exposed[0], card_w=card_w)
                    or _sides_measured(blob, hyp, exposed[0], card_w=card_w)
                )
                # (Its looks a pixel or two off are for an index half-read: where the corner
                # shows none at all, the one read is all it costs.)
                and corners.read_index(image, plane.to_frame(hyp.corners), exposed[0]).match is not None
            )
        )
    ):
        hyp.examined = (exposed[0],)
        fans.read_exposed(image, hyp, exposed[0], plane, turn=True)
        if hyp.code == UNKNOWN and not hyp.seen and hyp.anchors >= 2 and not square:
            # Its corner in view shows no index (a chip, the frame's edge): a fan's top card
            # drawn from two outline corners along its long side has its other index corner
            # over the cards below (standard table 3015's Ks, dondorf table 1004's 9c).
            _read_top_inside(
                image,
                plane=plane,
                blob=blob,
                hyp=hyp,
                ink=ink,
                card_w=card_w,
                exposed=exposed,
                corners=corners,
                fans=fans,
                whole=WHOLE_SIDE_TWO,
            )
    elif hyp.anchors == 1 and not square:
        # A fan's top card: its index corner lies over the cards below, inside the outline,
        # where the card's whole long side runs from its blank corner (see _top_of_fan).
        _read_top_inside(
            image, plane=plane, blob=blob, hyp=hyp, ink=ink, card_w=card_w, exposed=exposed, corners=corners, fans=fans
        )


def _read_top_inside(
    image: ByteImage,
    *,
    plane: Plane,
    blob: Blob,
    hyp: Hypothesis,
    ink: ByteImage,
    card_w: float,
    exposed: list[int],
    corners: CornerReader,
    fans: FanReader,
    whole: float = WHOLE_SIDE,
) -> None:
    """Read ``hyp`` as a fan's top card by its index corner inside the outline (see top_of_fan)."""
    k = top_of_fan(blob, hyp, card_w=card_w, whole=whole)
    if (
        k is not None
        and k not in exposed
        and corners.inked(ink, hyp.corners, k, image=plane.image)
        and corners.read_index(image, plane.to_frame(hyp.corners), k).match is not None
    ):
        fans.read_exposed(image, hyp, k, plane, turn=True)
        # (Read to no avail, the corner is left to the fan scan, whose start along the
        # edges places it a pixel or two better: kennard's table 13011 2h.)
        if hyp.code != UNKNOWN or hyp.seen:
            hyp.examined = (*hyp.examined, k)


def _long_side_seen(blob: Blob, hyp: Hypothesis, k: int, *, card_w: float) -> bool:
    """Whether the outline corner at ``hyp``'s index corner ``k`` runs a straight edge along the
    card's long side further than a short side reaches: the card lies that way round about the
    corner, so the corner is its index corner (not a blank corner of a card turned the other way),
    though no other corner of the card is the outline's (the top card of a fan, its far corners
    over the cards below or against a chip).
    """
    at = hyp.corners[k]
    return _edge_along(blob, at, hyp.corners[(k + 3) % 4] - at, longer_than=LONG_SEEN * card_w)


def _short_side_seen(blob: Blob, hyp: Hypothesis, k: int, *, card_w: float) -> bool:
    """Whether ``hyp`` is drawn from the outline corner at the far end of its short side from its
    index corner ``k`` (its blank corner, k + 1), whose straight edge runs most of the way
    (SHORT_SEEN) along that side to ``k``: the card lies that way round about it, its index
    corner at the edge's end (the bottom card of a fan, its blank corner the outline's, its
    index corner against the next card's side: nicu-white, standard table 11019's 4c).
    """
    at, blank = hyp.corners[k], hyp.corners[(k + 1) % 4]
    return _edge_along(blob, blank, at - blank, longer_than=SHORT_SEEN * card_w)


def _sides_measured(blob: Blob, hyp: Hypothesis, k: int, *, card_w: float) -> bool:
    """Whether the outline corner at ``hyp``'s index corner ``k`` runs a straight edge along the
    card's long side beyond a card's width (LONG_OVER) and none along its short side beyond a
    card's width: turned the other way about the corner, the card's short side would run along
    the first edge, longer than that side's straight part can be."""
    at = hyp.corners[k]
    return _edge_along(blob, at, hyp.corners[(k + 3) % 4] - at, longer_than=LONG_OVER * card_w) and not _edge_along(
        blob, at, hyp.corners[(k + 1) % 4] - at, longer_than=card_w
    )


def top_of_fan(blob: Blob, hyp: Hypothesis, *, card_w: float, whole: float = WHOLE_SIDE) -> int | None:
    """The index corner of ``hyp`` to read inside the outline, if any: the one whose blank corner
    (the next, along the short side) is an outline corner running a straight edge along the card's
    whole long side (WHOLE_SIDE card heights): only a card on top shows its whole side, so its
    index corner, a short side away, lies over the cards below (hershey's table 13002: the 5d's
    long side 86 px of 82 from its blank corner, its index over the 2s, its other under a chip).
    """
    long_run = whole * card_w * CARD_ASPECT
    for k in (0, 2):
        blank, far = hyp.corners[(k + 1) % 4], hyp.corners[(k + 2) % 4]
        if _edge_along(blob, blank, far - blank, longer_than=long_run):
            return k
    return None


def _edge_along(
    blob: Blob, at: npt.NDArray[np.float64], direction: npt.NDArray[np.float64], *, longer_than: float
) -> bool:
    """Whether the outline's corner at ``at`` (within half a pixel) runs a straight edge along
    ``direction`` (within PARALLEL_COS) for more than ``longer_than`` pixels."""
    unit = direction / max(float(np.hypot(*direction)), 1e-9)
    for c in blob.corners:
        if abs(c.point[0] - at[0]) > 0.5 or abs(c.point[1] - at[1]) > 0.5:
            continue
        for (dx, dy), run in ((c.x_dir, c.x_len), (c.y_dir, c.y_len)):
            if dx * unit[0] + dy * unit[1] > PARALLEL_COS and run > longer_than:
                return True
    return False
