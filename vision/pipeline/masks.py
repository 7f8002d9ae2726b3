"""Masks of the detection plane: what is not felt, what is white paper, what is ink."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

ByteImage = npt.NDArray[Any]
_SQUARE_3: Final = np.ones((3, 3), np.uint8)
_SQUARE_5: Final = np.ones((5, 5), np.uint8)
_SQUARE_7: Final = np.ones((7, 7), np.uint8)
# Paper is at most this saturated under white light; under a tinted one, its own brightest
# pixels' saturation plus the spread, up to the most (a court card's colours are beyond it).
_PAPER_SAT: Final = 70
_PAPER_SAT_SPREAD: Final = 25
_PAPER_SAT_MOST: Final = 105
# Felt-coloured pixels this much brighter than the felt around them, with this many times its
# colour strength or between paper, are ink, not cloth (see _lit_like_felt).
_BRIGHTER: Final = 1.5
_MORE_COLOUR: Final = 1.2
# Below this share of the cloth's own (median) saturation a pixel of its hue is a card's edge.
_PALE: Final = 0.6
# A hole in the mask bigger than this many cards is no card's (a stack of three covers under two).
_MOST: Final = 2.5
# A hole this big (cards' area) is a card's body whatever the deck's faces show; a smaller one
# when it is this many times bigger than any region of the cloth's colour a face of the deck
# shows (so no face's pip or picture), though never under _BODY_LEAST of a card.
_BODY: Final = 0.3
_BODY_FACES: Final = 1.5
_BODY_LEAST: Final = 0.1
# A lower back's strip is looked for this far from the body of the card on top (times the square
# root of a card's area, 1.18 card widths): dealt backs land up to 25 mm off the card under them
# and a few degrees turned, so a strip's far border lies up to about 30 mm (0.5 of a card's
# width) beyond the top's edge (0.3 cut off that border: standard table 504's Qc, 23 px out).
_STRIP_REACH: Final = 0.45
# ... and what a strip's border lines enclose with the body beside them is at most this much of a
# card: a card dealt 25 mm off along both sides of the one on top shows some 0.6 of itself.
_STRIP_MOST: Final = 0.6
# The faces' regions of a colour are measured at this size (a card's interior as the plane shows it).
_FACE_SIZE: Final = (40, 56)
_CARD_ASPECT: Final = 88.0 / 63.0
# A back with at least this share of its pixels coloured like the cloth is felt there to the hue test.
_BACK_LIKE_CLOTH: Final = 0.1
# A card's blurred border is whiter than this share of the way from the cloth's white to the
# paper's (standard's blue back on blue cloth in dim light, table 1000: cloth 8, back 30-57,
# border 90-107, paper ~105), and at least this much whiter than the cloth.
_WHITE_SHARE: Final = 0.5
_WHITE_LEAST: Final = 30
# A dim back's body is this share of the way from the cloth's white to the paper's (standard-1000:
# its four backs' bodies 0.28-0.31; felt is 0, the cloth's white being its median).
_GREY_BODY: Final = 0.15
# A frame (a closed border holding a body the hue test holes in patches) is a card or a stack
# when its outline is this many cards' area or more (up to _MOST) and fills this share of its
# least rectangle (a card 0.95 and more, a stack of three offset about 0.8; felt held between
# cards lies in no rectangle).
_FRAME_LEAST: Final = 0.8
_FRAME_FILL: Final = 0.7
# The felt's hue test: within this many hue steps of the cloth's.
_FELT_BAND: Final = 14


@dataclass(frozen=True)
class Masks:
    """The plane's masks (255 = set): ``fg`` not felt, ``paper`` white paper, ``ink`` neither felt
    nor paper (glyphs, pips, pictures). Backs are told by the deck's back signature (``backs``).
    """

    fg: ByteImage
    paper: ByteImage
    ink: ByteImage
    felt_hue: int
    # ``fg`` with every hole of its blobs filled: a back's picture where it has the felt's hue
    # (dondorf's olive leaves on green cloth) is still the card's; None: ``fg`` has no holes kept.
    solid: ByteImage | None = None


class MaskMaker:
    """Makes the masks of the detection plane (the felt's hue given, or found in each frame)."""

    def __init__(
        self, *, felt_hue: int | None = None, back: ByteImage | None = None, faces: ByteImage | None = None
    ) -> None:
        self.felt_hue = felt_hue
        # The deck's faces (canonical BGR), each one's hue and saturation at a small size: how big
        # a region of the cloth's colour a face can show (``_body_least``), per cloth hue.
        self._faces_hs: list[tuple[ByteImage, ByteImage]] = []
        if faces is not None:
            for face in faces:
                hsv = cv2.cvtColor(cv2.resize(face, _FACE_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2HSV)
                self._faces_hs.append((np.ascontiguousarray(hsv[:, :, 0]), cv2.inRange(hsv[:, :, 1], 45, 255)))
        self._least: dict[int, float] = {}
        # Which hues the deck's back shows (the share of its coloured pixels at each hue): a back
        # of the cloth's colour is what the fill below is for, so on other cloths it is skipped.
        self._back_hues: npt.NDArray[np.float64] | None = None
        if back is not None:
            hsv = cv2.cvtColor(back, cv2.COLOR_BGR2HSV)
            hist = cv2.calcHist([hsv], [0], cv2.inRange(hsv[:, :, 1], 45, 255), [180], [0, 180]).reshape(-1)
            self._back_hues = hist.astype(np.float64) / float(back.shape[0] * back.shape[1])

    def make(self, image: ByteImage, valid: ByteImage | None = None, *, card_area: float | None = None) -> Masks:
        """Foreground (not felt), white paper and ink masks of a plane image;
        pixels outside ``valid`` (not seen by the camera) are felt. With a card's ``card_area``
        known (plane pixels), cards of the cloth's own colour are not felt either.
        """
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        hue, sat, val = cv2.split(hsv)
        felt_hue = self.felt_hue
        if felt_hue is None:
            # The cloth is most of the frame: every fourth pixel each way finds its hue as surely,
            # at a sixteenth of the cost.
            few_hue, few_sat = np.ascontiguousarray(hue[::4, ::4]), np.ascontiguousarray(sat[::4, ::4])
            hist = cv2.calcHist([few_hue], [0], cv2.inRange(few_sat, 60, 255), [180], [0, 180]).reshape(-1)
            felt_hue = int(np.argmax(hist))
        in_band = cv2.bitwise_and(hue_band(hue, felt_hue, _FELT_BAND), cv2.inRange(val, 20, 255))
        felt = cv2.bitwise_and(in_band, cv2.inRange(sat, 45, 255))
        paper = cv2.bitwise_and(cv2.inRange(sat, 0, _paper_sat(sat, val, felt)), cv2.inRange(val, 90, 255))
        cloth = felt  # the cloth's hue and strength, bright or not
        felt = cv2.bitwise_and(felt, cv2.bitwise_not(_lit_like_felt(sat, val, felt, paper)))
        fg = cv2.bitwise_not(felt)
        # A 3x3 opening, then a 3x3 closing: erode, dilate, dilate, erode, and two 3x3 dilations
        # are one 5x5 dilation (the same pixels, one pass fewer over the frame).
        fg = cv2.erode(cv2.dilate(cv2.erode(fg, _SQUARE_3), _SQUARE_5), _SQUARE_3)
        if valid is not None:
            fg = cv2.bitwise_and(fg, valid)
        ink = cv2.bitwise_and(fg, cv2.bitwise_not(paper))
        if card_area is None:
            return Masks(fg=fg, paper=paper, ink=ink, felt_hue=felt_hue)
        if self._back_hues is None or _hue_share(self._back_hues, felt_hue) >= _BACK_LIKE_CLOTH:
            fg = _with_enclosed(
                fg,
                in_band,
                sat,
                valid,
                card_area,
                val=val,
                raw=cv2.bitwise_not(felt),
                unlike=cv2.bitwise_not(cloth),
                least=self._body_least(felt_hue),
            )
        return Masks(
            fg=fg, paper=paper, ink=ink, felt_hue=felt_hue, solid=fill_holes(fg, least=0.0, most=_MOST * card_area)
        )

    def _body_least(self, felt_hue: int) -> float:
        """The least hole (cards' area) that is a card's body on a cloth of ``felt_hue``: ``_BODY``,
        or less where no face of the deck shows a region of the cloth's colour near that size.

        A back of the cloth's colour is holed where it has the cloth's hue; when its own picture
        covers the middle of it (KDE's nicu backs: a picture of cards on a blue or red ground), the
        hole is its ground round the picture, a quarter of a card or less, and under a lamp that
        lights part of the ground out of the cloth's look less still. A face of the cloth's colour
        is holed too, at its pips and its pictures' patches of that colour: those the hole must
        exceed. Without the faces, ``_BODY``.
        """
        if felt_hue not in self._least:
            most = 0.0
            for hue, strong in self._faces_hs:
                region = cv2.bitwise_and(hue_band(hue, felt_hue, _FELT_BAND), strong)
                if cv2.countNonZero(region):
                    _n, _labels, stats, _c = cv2.connectedComponentsWithStats(region, connectivity=8)
                    most = max(most, float(stats[1:, cv2.CC_STAT_AREA].max()) / region.size)
            least = _BODY if not self._faces_hs else min(_BODY, max(_BODY_LEAST, _BODY_FACES * most))
            self._least[felt_hue] = least
        return self._least[felt_hue]


def _with_enclosed(
    fg: ByteImage,
    in_band: ByteImage,
    sat: ByteImage,
    valid: ByteImage | None,
    card_area: float,
    *,
    val: ByteImage,
    raw: ByteImage,
    unlike: ByteImage,
    least: float = _BODY,
) -> ByteImage:
    """``fg`` with the cards of the cloth's own colour (a red back on red felt) filled in.

    Such a card is felt to the hue test but for its border and edges: of the cloth's hue after
    blur, yet far less saturated than the cloth (under ``_PALE`` of its median saturation). Those
    pale pixels, a line a pixel or two wide, only close the card's outline: what a closed outline
    encloses is added (with the line beside it) when it is ``least`` to ``_MOST`` cards' area (a
    card's body, not a red pip of a face on red cloth nor a zone's printed outline), never the
    pale pixels alone (a card's blurred edge on the cloth or glare would move every outline).
    Backs dealt under such a card show strips beside its body: those are added too (from the
    ``raw`` not-felt pixels, before the mask's opening took their thin paper borders away).
    """
    paler = round(_PALE * _median(sat[::4, ::4], in_band[::4, ::4]))
    if paler <= 45:
        return fg  # a pale cloth: its cards' borders are not felt already
    pale = cv2.bitwise_and(in_band, cv2.inRange(sat, 45, paler - 1))
    ring = cv2.erode(cv2.dilate(cv2.bitwise_or(fg, pale), _SQUARE_3), _SQUARE_3)
    holes = cv2.bitwise_and(fill_holes(ring, least=_BODY * card_area, most=_MOST * card_area), cv2.bitwise_not(ring))
    # A border too thin for the mask's opening still closes a body with its paper core (a 3x3
    # median of what is not the cloth's colour, bright or not, keeps a line two pixels wide, not a
    # speck); so does a zone's printed outline: such a hole counts only when it is a card's body.
    core = cv2.medianBlur(unlike, 3)
    lined = cv2.erode(cv2.dilate(cv2.bitwise_or(core, pale), _SQUARE_3), _SQUARE_3)
    holes = cv2.bitwise_or(holes, _card_bodies(lined, card_area))
    # A back whose body is itself paler than the cloth (a blue back on deeper blue felt) is
    # pale all over, so the pale pixels fill its body: its white border alone closes it.
    closed = cv2.erode(cv2.dilate(core, _SQUARE_3), _SQUARE_3)
    holes = cv2.bitwise_or(holes, _card_bodies(closed, card_area))
    whites = _whites(sat, val, in_band, unlike)
    holes = cv2.bitwise_or(holes, _grey_bodies(whites, unlike, holes=holes, card_area=card_area))
    out = _with_bodies(fg, holes, ring=ring, raw=raw, card_area=card_area)
    # The body of a back whose own picture covers its middle is no card's shape (its ground round
    # the picture, split in two by it on a card of a stack, ``least`` of a card or more): such a
    # hole counts when the outline holding it is no larger than a stack (a zone's printed outline
    # holds a whole zone). Only where the bodies above left felt: what they added stays as it was.
    small = _small_holes(lined, least=least * card_area, most=_MOST * card_area)
    out = _with_bodies(
        out, cv2.bitwise_and(small, cv2.bitwise_not(out)), ring=ring, raw=raw, card_area=card_area, merge=True
    )
    # Last, the frames whose body the hue test holes in patches too small for any step above: only
    # frames none of those bodies touches (nicu-white's stacks under a glare band are found above,
    # and a second fill of the same body moved a stack's outline enough to count a fourth card).
    framed = _framed_bodies(closed, whites, holes=cv2.bitwise_or(holes, small), card_area=card_area)
    out = _with_bodies(out, framed, ring=ring, raw=raw, card_area=card_area, merge=True)
    return out if valid is None or out is fg else cv2.bitwise_and(out, valid)


def _with_bodies(
    fg: ByteImage, holes: ByteImage, *, ring: ByteImage, raw: ByteImage, card_area: float, merge: bool = False
) -> ByteImage:
    """``fg`` with the card bodies ``holes`` added, each with the pockets and strips of the backs
    beside it (``fg`` itself when there are none); with ``merge``, bodies whose neighbourhoods
    overlap are worked out together."""
    if not cv2.countNonZero(holes):
        return fg
    out = fg.copy()
    # Each body's stack lies within reach of it: worked out there (a card's neighbourhood, not
    # the whole plane, which would cost several milliseconds a frame).
    reach = max(2, round(_STRIP_REACH * math.sqrt(card_area))) + 4
    height, width = fg.shape[:2]
    contours, _ = cv2.findContours(holes, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes: list[tuple[int, int, int, int]] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        boxes.append((max(x - reach, 0), max(y - reach, 0), min(x + w + reach, width), min(y + h + reach, height)))
    if merge:
        # One pass per card: a back whose picture parts its ground has two bodies, each within the
        # other's reach, worked once in the box holding both (not twice; 1 ms a frame on nicu-white).
        boxes = _merged(boxes)
    for x0, y0, x1, y1 in boxes:
        roi = (slice(y0, y1), slice(x0, x1))
        body = np.ascontiguousarray(holes[roi])
        body = cv2.dilate(
            cv2.bitwise_or(body, _pockets_beside(body, np.ascontiguousarray(ring[roi]), card_area)), _SQUARE_5
        )
        strips = _strips_beside(body, np.ascontiguousarray(raw[roi]), card_area)
        out[roi] = cv2.bitwise_or(out[roi], cv2.bitwise_or(body, strips))
    return out


def _merged(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) with every overlapping pair joined into their bounding box."""
    out = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out


def _grey_bodies(whites: _Whites, unlike: ByteImage, *, holes: ByteImage, card_area: float) -> ByteImage:
    """Bodies of dim backs of the cloth's hue that no body above found: in dim light a border
    blurred into such a back keeps the cloth's hue and saturation, so only its white tells it
    (``_white_lines``), and a chip's shadow dims it further beside the chip (standard-1000's top
    card), so gaps of a few pixels are closed. Closing that much also holds felt between cards:
    a body counts only when it is itself greyer than the cloth (its white ``_GREY_BODY`` of the way
    to the paper's; felt between cards has the cloth's own), and only where no body was found (the
    wider closing changes those bodies' outlines: nine backs found before were lost that way).
    """
    grey, white, cloth, paper = whites
    if not cv2.countNonZero(white):
        return white
    closed = cv2.erode(cv2.dilate(cv2.medianBlur(cv2.bitwise_or(unlike, white), 3), _SQUARE_7), _SQUARE_7)
    bodies = _card_bodies(closed, card_area)
    out = np.zeros_like(bodies)
    if not cv2.countNonZero(bodies):
        return out
    contours, _ = cv2.findContours(bodies, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        roi = (slice(y, y + h), slice(x, x + w))
        body = cv2.bitwise_and(
            bodies[roi], cv2.drawContours(np.zeros((h, w), np.uint8), [contour - (x, y)], -1, 255, -1)
        )
        if cv2.countNonZero(cv2.bitwise_and(body, holes[roi])):
            continue  # a body found above (as the closing sees it): left as found
        if cv2.mean(grey[roi], mask=body)[0] >= cloth + _GREY_BODY * (paper - cloth):
            out[roi] = cv2.bitwise_or(out[roi], body)
    return out


def _framed_bodies(closed: ByteImage, whites: _Whites, *, holes: ByteImage, card_area: float) -> ByteImage:
    """Bodies of backs whose hue lies at the felt test's band edge (standard's blue back on blue
    cloth, table 13014: back hue 119-121 on a cloth of 107, band 14): the body is cloth to the hue
    test in patches, so its closed white border (``closed``) holds many small holes, no one a
    card's body. What such a frame holds is filled when the frame is a card or a stack (its outline
    ``_FRAME_LEAST`` to ``_MOST`` cards, filling ``_FRAME_FILL`` of its least rectangle: felt between
    cards is held by no rectangle), its holes are ``_BODY`` of a card or more (a face is solid), and
    they are greyer than the cloth (``_GREY_BODY``, as ``_grey_bodies``: felt has the cloth's own
    white). Only frames no body above touches: those are left as found.
    """
    out = np.zeros_like(closed)
    contours, hierarchy = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if len(contours) == 0:
        return out
    parents = np.asarray(hierarchy).reshape(-1, 4)[:, 3].tolist()
    frames: list[tuple[tuple[slice, slice], ByteImage]] = []
    for contour, parent in zip(contours, parents, strict=True):
        if parent >= 0:
            continue
        area = cv2.contourArea(contour)
        if not _FRAME_LEAST * card_area <= area <= _MOST * card_area:
            continue
        (_c, (a, b), _angle) = cv2.minAreaRect(contour)
        if area < _FRAME_FILL * a * b:
            continue
        x, y, w, h = cv2.boundingRect(contour)
        roi = (slice(y, y + h), slice(x, x + w))
        inside = cv2.drawContours(np.zeros((h, w), np.uint8), [contour - (x, y)], -1, 255, -1)
        body = cv2.bitwise_and(inside, cv2.bitwise_not(closed[roi]))
        if cv2.countNonZero(body) >= _BODY * card_area and not cv2.countNonZero(cv2.bitwise_and(inside, holes[roi])):
            frames.append((roi, body))
    if not frames:
        return out
    grey, _white, cloth, paper = whites
    for roi, body in frames:
        if cv2.mean(grey[roi], mask=body)[0] >= cloth + _GREY_BODY * (paper - cloth):
            out[roi] = cv2.bitwise_or(out[roi], body)
    return out


class _Whites(NamedTuple):
    """A frame's white (``grey``), its pixels far whiter than the cloth, and the cloth's and the
    paper's white (``_white_lines``): the grey-body and frame-fill steps judge bodies by them."""

    grey: ByteImage
    white: ByteImage
    cloth: float
    paper: float


def _whites(sat: ByteImage, val: ByteImage, in_band: ByteImage, unlike: ByteImage) -> _Whites:
    """``_Whites`` of a frame, once for both steps that judge by them."""
    grey = cv2.subtract(val, cv2.multiply(val, sat, scale=1.0 / 255.0))
    return _Whites(grey, *_white_lines(grey, in_band, unlike))


def _white_lines(grey: ByteImage, in_band: ByteImage, unlike: ByteImage) -> tuple[ByteImage, float, float]:
    """Pixels far whiter than the cloth: a card's paper border blurred into a back of the cloth's
    colour on both sides keeps the cloth's hue and more than the felt test's saturation, yet its
    white (``grey``: the least of its channels, ``val * (1 - sat)``) stays well above both the cloth's and
    the back's. Whiter than ``_WHITE_SHARE`` of the way from the cloth's white to the paper's
    (the brightest tenth of what is not cloth, every fourth pixel), never under ``_WHITE_LEAST``;
    with the cloth's and the paper's white.
    """
    few, few_unlike = np.ascontiguousarray(grey[::4, ::4]), np.ascontiguousarray(unlike[::4, ::4])
    cloth = _median(few, cv2.bitwise_and(np.ascontiguousarray(in_band[::4, ::4]), cv2.bitwise_not(few_unlike)))
    other = few[few_unlike > 0]
    if other.size < 50:
        return np.zeros_like(grey), cloth, cloth
    paper = float(np.partition(other, int(0.9 * (other.size - 1)))[int(0.9 * (other.size - 1))])
    level = max(cloth + _WHITE_SHARE * (paper - cloth), cloth + _WHITE_LEAST)
    return cv2.threshold(grey, level, 255, cv2.THRESH_BINARY)[1], cloth, paper


def _small_holes(mask: ByteImage, *, least: float, most: float) -> ByteImage:
    """The holes of ``mask`` from ``least`` to ``most`` pixels whose blob (its outer outline, holes
    included) is itself no more than ``most`` pixels."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    if len(contours) == 0:
        return out
    parents = np.asarray(hierarchy).reshape(-1, 4)[:, 3].tolist()
    small: dict[int, bool] = {}
    holes = []
    for contour, parent in zip(contours, parents, strict=True):
        if parent < 0 or not least <= cv2.contourArea(contour) <= most:
            continue
        if parent not in small:
            small[parent] = cv2.contourArea(contours[parent]) <= most
        if small[parent]:
            holes.append(contour)
    if holes:
        cv2.drawContours(out, holes, -1, 255, cv2.FILLED)
    return cv2.bitwise_and(out, cv2.bitwise_not(mask))


def _card_bodies(ring: ByteImage, card_area: float) -> ByteImage:
    """The holes of ``ring`` that are one card's body: about a card's size and shape (less its
    border) and filling that rectangle, not a zone's outline nor felt between cards.
    """
    contours, hierarchy = cv2.findContours(ring, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(ring)
    if len(contours) == 0:
        return out
    parents = np.asarray(hierarchy).reshape(-1, 4)[:, 3].tolist()
    long_side = math.sqrt(card_area * _CARD_ASPECT)
    short_side = card_area / long_side
    bodies = []
    for contour, parent in zip(contours, parents, strict=True):
        held = cv2.contourArea(contour)
        if parent < 0 or not 0.5 * card_area <= held <= 1.1 * card_area:
            continue
        (_c, (a, b), _angle) = cv2.minAreaRect(contour)
        lo, hi = min(a, b), max(a, b)
        if 0.75 <= lo / short_side <= 1.1 and 0.75 <= hi / long_side <= 1.1 and held >= 0.8 * a * b:
            bodies.append(contour)
    if bodies:
        cv2.drawContours(out, bodies, -1, 255, cv2.FILLED)
    return cv2.bitwise_and(out, cv2.bitwise_not(ring))


def _pockets_beside(bodies: ByteImage, ring: ByteImage, card_area: float) -> ByteImage:
    """The smaller holes of ``ring`` just beside a card's body (``bodies``): a wide strip of a
    back dealt under it, closed by its own border and the edge of the card on top. Beside a
    card's body (across no more than its border) it is no red pip of a face.
    """
    step = 2 * max(2, round(0.09 * math.sqrt(card_area))) + 1
    near = cv2.dilate(bodies, cv2.getStructuringElement(cv2.MORPH_RECT, (step, step)))
    small = cv2.bitwise_and(fill_holes(ring, least=0.01 * card_area, most=0.3 * card_area), cv2.bitwise_not(ring))
    small = cv2.bitwise_and(small, cv2.bitwise_not(bodies))
    if not cv2.countNonZero(small):
        return small
    return _touching(small, near, connectivity=4)


def _strips_beside(bodies: ByteImage, raw: ByteImage, card_area: float) -> ByteImage:
    """The strips of backs dealt under the cards whose ``bodies`` are found: each closed by its
    own border (paper, not the cloth's hue: ``raw`` not-felt pixels) and the card on top.

    A lower card shows a strip along its offset, a few pixels to a quarter of a card wide, far
    under the 0.3 of a card a body must enclose to be no red pip, and its border line is thinner
    than the opening of the not-felt mask keeps. Beside a card's body (within ``_STRIP_REACH``, the
    farthest a dealt card lies off the one under it) the border lines that reach the body and what
    they enclose with it are that card's stack. Pale pixels are left out: glare on the cloth is pale.
    """
    reach = 2 * max(2, round(_STRIP_REACH * math.sqrt(card_area))) + 1
    near = cv2.dilate(bodies, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
    lines = cv2.bitwise_and(raw, cv2.bitwise_and(near, cv2.bitwise_not(bodies)))
    # A border line runs a card's side; specks of the cloth's noise are a few pixels each.
    count, labels, stats, _ = cv2.connectedComponentsWithStats(lines, connectivity=8)
    if count > 1:
        long = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= 0.01 * card_area)
        lines = np.where(np.isin(labels, long[long > 0]), np.uint8(255), np.uint8(0)).astype(np.uint8)
    stack = cv2.morphologyEx(cv2.bitwise_or(lines, bodies), cv2.MORPH_CLOSE, _SQUARE_3)
    stack = fill_holes(stack, least=0.0, most=_STRIP_MOST * card_area)
    stack = cv2.morphologyEx(stack, cv2.MORPH_OPEN, _SQUARE_3)
    # Only what is joined to a body: a neighbour's edge within reach is no strip of this stack.
    return _touching(stack, bodies, connectivity=8)


def _touching(mask: ByteImage, seeds: ByteImage, *, connectivity: int) -> ByteImage:
    """The connected parts of ``mask`` that ``seeds`` touches (overlaps)."""
    _count, labels = cv2.connectedComponents(mask, connectivity=connectivity)
    touched = np.unique(labels[(seeds > 0) & (mask > 0)])
    keep = np.isin(labels, touched[touched > 0])
    return np.where(keep, np.uint8(255), np.uint8(0)).astype(np.uint8)


def _hue_share(hues: npt.NDArray[np.float64], centre: int) -> float:
    """The share of a picture's pixels that are coloured within the felt test's band of ``centre``."""
    return float(sum(hues[(centre + k) % 180] for k in range(-_FELT_BAND, _FELT_BAND + 1)))


def _median(values: ByteImage, where: ByteImage) -> float:
    """The median of 8-bit ``values`` where ``where`` is set (0 when nowhere)."""
    hist = cv2.calcHist([np.ascontiguousarray(values)], [0], np.ascontiguousarray(where), [256], [0, 256])
    cum = np.cumsum(hist.reshape(-1))
    return 0.0 if cum[-1] == 0 else float(np.searchsorted(cum, cum[-1] / 2.0))


def fill_holes(mask: ByteImage, *, least: float, most: float) -> ByteImage:
    """``mask`` with the holes of its blobs from ``least`` to ``most`` pixels filled (a zone's
    printed outline encloses far more than a stack of cards: it stays felt).
    """
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    parents = [] if len(contours) == 0 else np.asarray(hierarchy).reshape(-1, 4)[:, 3].tolist()
    holes = [c for c, p in zip(contours, parents, strict=True) if p >= 0 and least <= cv2.contourArea(c) <= most]
    filled = mask.copy()
    if holes:
        cv2.drawContours(filled, holes, -1, 255, cv2.FILLED)
    return filled


def _paper_sat(sat: ByteImage, val: ByteImage, felt: ByteImage) -> int:
    """The most saturation white paper has in this frame: 70, or more under a tinted lamp (warm
    light gives white card a cream colour of saturation 60-70), taken from the brightest tenth of
    what is not felt (every fourth pixel), which is mostly the cards' paper.
    """
    few = np.ascontiguousarray(felt[::4, ::4]) == 0
    few_val = np.ascontiguousarray(val[::4, ::4])[few]
    if few_val.size < 50:
        return _PAPER_SAT
    top = few_val >= np.partition(few_val, int(0.9 * (few_val.size - 1)))[int(0.9 * (few_val.size - 1))]
    tint = float(np.median(np.ascontiguousarray(sat[::4, ::4])[few][top]))
    return int(min(max(_PAPER_SAT, tint + _PAPER_SAT_SPREAD), _PAPER_SAT_MOST))


def _lit_like_felt(sat: ByteImage, val: ByteImage, felt: ByteImage, paper: ByteImage) -> ByteImage:
    """Pixels of the felt's hue far brighter than the felt around them that are ink of the felt's
    colour printed on paper (red pips and indices on a red cloth), not cloth: those as saturated
    as the felt, and those between white paper a few pixels apart. Glare on the cloth brightens
    it too, but it adds white light, which takes the saturation down as much as it takes the
    brightness up, and it is a broad patch, not a stroke beside paper (a thin stroke blurred into
    the paper round it is ink and paper mixed: the same colours as glare on the cloth, so only
    where it lies tells them apart). The felt's brightness is taken locally (over about a card
    and a half, from every eighth pixel each way), as uneven light makes one side of the table darker.
    """
    h, w = val.shape
    if cv2.countNonZero(felt) == 0:
        return np.zeros_like(felt)
    # Every eighth pixel each way (a strided view, far cheaper than an area resize).
    few_felt = np.ascontiguousarray(felt[::8, ::8])
    few_val = np.ascontiguousarray(val[::8, ::8])
    few = np.ascontiguousarray(sat[::8, ::8])[few_felt > 0]
    felt_sat = float(np.median(few)) if few.size else 128.0
    # The felt's brightness about each place is the median of the felt pixels there (what is not
    # felt counts as the frame's felt): a mean is raised by a card of the cloth's hue itself (a
    # red back on red cloth, lit far brighter than it), which then never passes for brighter
    # than the cloth, and stays felt (nicu-ornamental table 502: a stack of three lost).
    felt_val = few_val[few_felt > 0]
    overall = float(np.median(felt_val)) if felt_val.size else 128.0
    level = np.where(few_felt > 0, few_val, np.uint8(round(overall))).astype(np.uint8)
    local = cv2.medianBlur(level, 15).astype(np.float64)

    def full(small: npt.NDArray[np.float64]) -> ByteImage:
        return cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)

    bright = cv2.compare(val, full(local * _BRIGHTER), cv2.CMP_GT)
    candidates = cv2.bitwise_and(bright, felt)
    if cv2.countNonZero(candidates) == 0:
        return candidates
    # The rest only where there are candidates (on most felts, none or a few specks).
    x, y, bw, bh = cv2.boundingRect(candidates)
    x0, y0 = max(x - 4, 0), max(y - 4, 0)
    x1, y1 = min(x + bw + 4, w), min(y + bh + 4, h)
    roi = (slice(y0, y1), slice(x0, x1))
    # Colour strength (saturation times brightness, the spread of the channels): white glare
    # leaves the cloth's as it was, ink on paper has more of it.
    strength = cv2.multiply(sat[roi], val[roi], scale=1.0 / 255.0)
    colourful = cv2.compare(strength, full(local * (_MORE_COLOUR * felt_sat / 255.0))[roi], cv2.CMP_GT)
    # Between paper, and not beside the cloth itself: a stroke has paper all round it, a card's
    # blurred rim has the cloth on one side (and closing a noisy paper edge reaches into it).
    cloth = cv2.dilate(cv2.bitwise_and(felt[roi], cv2.bitwise_not(bright[roi])), _SQUARE_3)
    between = cv2.bitwise_and(cv2.morphologyEx(paper[roi], cv2.MORPH_CLOSE, _SQUARE_7), cv2.bitwise_not(cloth))
    out = np.zeros_like(felt)
    out[roi] = cv2.bitwise_and(candidates[roi], cv2.bitwise_or(colourful, between))
    return out


def hue_range(hue: ByteImage, lo: int, hi: int) -> ByteImage:
    """Pixels whose hue lies from ``lo`` to ``hi`` on OpenCV's circular 0-179 scale (either end may
    run past the scale's ends: the band wraps round).
    """
    band = cv2.inRange(hue, max(lo, 0), min(hi, 179))
    if lo < 0:
        band = cv2.bitwise_or(band, cv2.inRange(hue, 180 + lo, 179))
    if hi > 179:
        band = cv2.bitwise_or(band, cv2.inRange(hue, 0, hi - 180))
    return band


def hue_band(hue: ByteImage, centre: int, width: int) -> ByteImage:
    """Pixels whose hue is within ``width`` of ``centre`` on OpenCV's circular 0-179 scale."""
    return hue_range(hue, centre - width, centre + width)
