"""Whether a card hypothesis is the deck's back: its colours, its picture in place, its fit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.back_signature import PATCH_H, PATCH_W, BackSignature
from vision.pipeline.back_fit import fit_back
from vision.pipeline.back_in_place import STRIP_CORNERS, STRIP_H, STRIP_W, BackInPlace
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.masks import Masks
from vision.pipeline.strips import slide_strip

__all__ = ["STRIP_MATCH", "BackTester"]

ByteImage = npt.NDArray[Any]

_PATCH_CORNERS: Final = np.array([[0, 0], [PATCH_W, 0], [PATCH_W, PATCH_H], [0, PATCH_H]], np.float32)
# What shows of a rectangle whose colours are the back's must not match the back in place worse
# than this: a face's paper with a chip of the back's colour on it does not (-0.2 on a generated
# fan), a strip of a back under a face or a chip does (0.4 and more).
_NOT_AGAINST: Final = 0.15
# A correlation this high with the back in place is a strip of the back (faces' strips and
# misplaced rectangles stay under 0.35 on the generated tables; true strips are mostly above 0.8).
STRIP_MATCH: Final = 0.6
# A back with this share of its pixels within this many hue steps of the cloth's (the felt
# test's band) is holed on that cloth where it has them.
_LIKE_CLOTH: Final = 0.1
_HUE_BAND: Final = 14
# The key a likeness of a rectangle nothing hides is remembered under in place of the (empty) warped mask's.
_OPEN: Final = b"open"
# The back's brightness is slid over a stack at this size (half the strip test's: a plane pixel
# and a half per step, where to look only).
_SLIDE_W: Final = 20
_SLIDE_H: Final = 28
# A back whose two ways up correlate this well at that size is slid one way only.
_SAME_WAYS: Final = 0.98


class BackTester:
    """Whether a card hypothesis shows the deck's back: its interior's colours and brightness make-up
    compared with the back's and the faces' looks learnt at registration, so any design's back
    (saturated, white-bordered, a muted picture) is judged against itself, not against constants.
    """

    def __init__(self, *, signature: BackSignature, back: ByteImage | None = None) -> None:
        self.signature = signature
        # The registered back at the strip test's size, both ways up, and what shows of a rectangle
        # compared with it place by place (``strip_likeness``).
        self._in_place = BackInPlace(back)
        # Its brightness alone, for sliding it over the picture (``fit_whole``): as the box resize made it.
        self._gray: list[npt.NDArray[np.float32]] = [
            np.asarray(cv2.cvtColor(np.clip(t, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY), np.float32)
            for t in self._in_place.templates
        ]
        # Coarser, for sliding it over a stack (``slide``); once when it looks the same both ways up.
        self._coarse: list[npt.NDArray[np.float32]] = [
            np.asarray(cv2.resize(g, (_SLIDE_W, _SLIDE_H), interpolation=cv2.INTER_AREA), np.float32)
            for g in self._gray
        ]
        if self._coarse and float(np.corrcoef(self._coarse[0].ravel(), self._coarse[1].ravel())[0, 1]) >= _SAME_WAYS:
            self._coarse = self._coarse[:1]
        self._clear: ByteImage | None = None
        # The last picture's strip likenesses, by rectangle and what of it is hidden (see
        # ``strip_likeness``); the picture itself is held, so that a new one is never taken for it.
        self._likeness_of: ByteImage | None = None
        self._likenesses: dict[tuple[bytes, bytes], float] = {}
        # The same picture's fits of cards seen whole (``fit_whole``), by rectangle and reach: a stack's
        # steps fit the same chosen card again (kennard's speed frames: 0.5 of 5.6 fits a frame).
        self._fits: dict[tuple[bytes, float], npt.NDArray[np.float64]] = {}
        # Share of the back's pixels of each hue (coloured ones): whether it may pass for felt.
        self._hues: npt.NDArray[np.float64] | None = None
        if back is not None:
            hsv = cv2.cvtColor(back, cv2.COLOR_BGR2HSV)
            hist = cv2.calcHist([hsv], [0], cv2.inRange(hsv[:, :, 1], 45, 255), [180], [0, 180]).reshape(-1)
            self._hues = hist.astype(np.float64) / float(back.shape[0] * back.shape[1])
        self._like_cloth: dict[int, bool] = {}

    def like_cloth(self, felt_hue: int) -> bool:
        """Whether enough of the registered back has the cloth's hue (the felt test's band) for
        the back to be holed on it: only then may a holed rectangle be a back (``pattern_back``).
        """
        if self._hues is None:
            return False
        if felt_hue not in self._like_cloth:  # (asked for every holed hypothesis: the cloth's hue is one)
            offset = (np.arange(180) - felt_hue + 90) % 180 - 90
            self._like_cloth[felt_hue] = float(self._hues[np.abs(offset) <= _HUE_BAND].sum()) >= _LIKE_CLOTH
        return self._like_cloth[felt_hue]

    def is_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks) -> bool:
        """Judged once per hypothesis (remembered on it, with how clearly in ``back_score``)."""
        if hyp.back is None:
            hyp.back, hyp.back_score = self._judge(hyp, image, masks.fg if masks.solid is None else masks.solid)
        return hyp.back

    def against(self, hyp: Hypothesis, image: ByteImage) -> bool:
        """Whether ``hyp`` seen whole contradicts the back in place (see ``visible_back``)."""
        return _contradicts(self.strip_likeness(hyp, image, self.blank(image)))

    def pattern_back(self, hyp: Hypothesis, image: ByteImage, covered: ByteImage | None = None) -> bool:
        """Whether ``hyp`` is the back although much of it looks like felt: a back with the cloth's
        colour (a blue picture on blue felt, a red back under a warm lamp on red cloth) is holed in
        the not-felt mask, yet its interior has the back's colours, and its border lines and picture
        lie where the back's do. Both must hold: a patch of felt framed by cards may have a plain
        back's colours, never its pattern in place (a face's neither). With ``covered`` (backs on
        top of it), what shows is a strip, mostly border, judged by its pattern in place alone
        (as ``visible_back`` judges one). Remembered on ``hyp`` when it is the back.
        """
        if not self._in_place.templates:
            return False
        score = 0.0
        if covered is None:
            back, score = self._judge(hyp, image, None)
            if not back:
                return False
        likeness = self.strip_likeness(hyp, image, self.blank(image) if covered is None else covered)
        if likeness < STRIP_MATCH:
            return False
        hyp.back, hyp.back_score = True, score if covered is None else likeness
        return True

    def whole_likeness(self, image: ByteImage) -> Callable[[Hypothesis], float]:
        """How well a hypothesis matches the back in place as a whole card (``strip_likeness`` with
        nothing hidden; remembered there by the rectangle, per frame: a stack's steps ask again of
        the same chosen backs). Not by the hypothesis' id: a passing hypothesis' id is reused by
        the next one made, which then got the first one's score.
        """
        blank = self.blank(image)
        return lambda hyp: self.strip_likeness(hyp, image, blank)

    @property
    def whole_fit(self) -> float:
        """The bar a back matching it as a whole card (``whole_likeness``) shows whole, placed right
        by: the registered back's own (``back_in_place.WHOLE_FIT``, a fine picture's ``FINE_WHOLE_FIT``)."""
        return self._in_place.whole_fit

    def blank(self, image: ByteImage) -> ByteImage:
        """An all-clear 'covered' mask of the plane's size (made once per size)."""
        if self._clear is None or self._clear.shape != image.shape[:2]:
            self._clear = np.zeros(image.shape[:2], np.uint8)
        return self._clear

    def visible_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks, covered: ByteImage) -> bool:
        """Whether the part of ``hyp`` that no chosen card ``covers`` is the back: a back under
        another shows only a strip, and the card on top (its border across the middle) would
        make the whole quad look like neither. Not remembered: ``covered`` grows as cards are chosen.
        """
        visible = cv2.bitwise_and(masks.fg if masks.solid is None else masks.solid, cv2.bitwise_not(covered))
        back, score = self._judge(hyp, image, visible, least=0.08)
        likeness = self.strip_likeness(hyp, image, covered)  # (asked either way below)
        if back and _contradicts(likeness):
            # Colours alone: a face's paper with a chip of the back's colour on it (a fan's
            # bottom card beside the card over it) has a pictured back's make-up, but not its
            # picture where the back has it. (Too little shown, or a plain back there: no say.)
            back = False
        elif not back:
            # A strip along the card's edge is mostly its border: its colours alone look like a
            # face's white paper as much as a back's, but its border lines lie where the back's do.
            back, score = likeness >= STRIP_MATCH, likeness
        if back:
            hyp.back_score = score
        return back

    def new_frame(self) -> None:
        """Forget the last frame's strip likenesses and fits (a camera may hand over its next frame in the
        same buffer)."""
        self._likeness_of, self._likenesses, self._fits = None, {}, {}

    def _remember_for(self, image: ByteImage) -> None:
        """Forget what was remembered of another picture than ``image`` (held, so that a new one is
        never taken for it)."""
        if image is not self._likeness_of:
            self._likeness_of, self._likenesses, self._fits = image, {}, {}

    def strip_likeness(self, hyp: Hypothesis, image: ByteImage, covered: ByteImage) -> float:
        """How closely what no chosen card ``covers`` of ``hyp`` matches the registered back in the
        same place (a correlation, -1..1; -1 when too little shows or it shows no pattern).

        A strip of a lower card holds the back's edge: its border lines, the edge of its
        picture, where the back has them. Compared place by place (each colour's deviations from
        its mean, so the lamp's level and tint do not matter), a rectangle a few pixels off or
        drawn between two cards' corners shows felt or the card on top where the back has its
        border, and matches poorly.
        """
        if not self._in_place.templates:
            return -1.0
        quad = hyp.corners.astype(np.float32)
        # The warp is made only when a mask is warped or the likeness is not yet known: a third of
        # the asks (kennard's speed frames: 74 a frame, 24 of them already answered) need none.
        h: npt.NDArray[Any] | None = None
        # The all-clear mask hides nothing of a rectangle wholly on the plane (every pixel the
        # strip samples lies inside it): no mask need be warped to know. Nothing hidden of the
        # pixels the likeness keeps (``BackInPlace.likeness``), it is one case however it was told (None).
        hidden = None
        if covered is not self._clear or not _on_plane(quad, covered.shape):
            h = cv2.getPerspectiveTransform(quad, STRIP_CORNERS)
            hidden = cv2.warpPerspective(covered, h, (STRIP_W, STRIP_H), flags=cv2.INTER_NEAREST, borderValue=255)
            if not hidden[1:-1, 1:-1].any():
                hidden = None
        # The same rectangle with the same part of it hidden is asked for again within a frame (a
        # back's whole likeness by the face check, the stack's middle cards and its tops; the
        # middle card's shifted places): the answer is the same, so it is remembered per picture.
        self._remember_for(image)
        key = (quad.tobytes(), _OPEN if hidden is None else hidden.tobytes())
        known = self._likenesses.get(key)
        if known is None:
            if h is None:
                h = cv2.getPerspectiveTransform(quad, STRIP_CORNERS)
            known = self._likenesses[key] = self._in_place.likeness(image, h, hidden)
        return known

    def slide(
        self,
        corners: npt.NDArray[np.float64],
        image: ByteImage,
        covered: ByteImage,
        *,
        reach: float,
        turns: tuple[float, ...],
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """How well what ``covered`` does not hide matches the back's brightness at every shift of
        ``corners`` up to ``reach`` plane pixels, turned by each of ``turns`` degrees (a coarse
        correlation: where a strip may lie, not whether it is the back): scores (n,), corners
        (n, 4, 2); nothing when no back is registered."""
        if not self._coarse:
            return np.zeros(0, np.float64), np.zeros((0, 4, 2), np.float64)
        return slide_strip(
            self._coarse, image=image, covered=covered, corners=corners, reach=reach, turns=turns, least=0.04
        )

    def fit_whole(self, hyp: Hypothesis, image: ByteImage, *, reach: float) -> npt.NDArray[np.float64]:
        """The corners near ``hyp``'s (shifted up to about ``reach`` plane pixels, turned up to 3
        degrees) where a card showing whole matches the registered back best: a card's rectangle
        drawn from outline corners a few pixels off shows its border lines where the back has
        none. The back's brightness is slid over the picture around the rectangle (one warp per
        turn, a normalised correlation at every shift), the way up the back lies already chosen.
        """
        if not self._gray:
            return hyp.corners
        # The same rectangle is fitted again within a frame (a chosen card by the stack's tops and its
        # merged backs): the answer is the same, so it is remembered per picture (a copy handed out).
        self._remember_for(image)
        key = (hyp.corners.astype(np.float64).tobytes(), reach)
        known = self._fits.get(key)
        if known is None:
            known = self._fits[key] = np.array(
                fit_back(hyp.corners, grays=self._gray, image=image, reach=reach), np.float64
            )
        return known.copy()

    def _judge(
        self, hyp: Hypothesis, image: ByteImage, fg: ByteImage | None, least: float = 0.25
    ) -> tuple[bool, float]:
        h = cv2.getPerspectiveTransform(hyp.corners.astype(np.float32), _PATCH_CORNERS)
        patch = cv2.warpPerspective(image, h, (PATCH_W, PATCH_H), flags=cv2.INTER_AREA)
        # Felt inside the quad (a stacked card's strip beside the card on top, an outline a
        # little off) is no part of the card; off the plane is felt too. (None: every pixel counts.)
        valid = None if fg is None else cv2.warpPerspective(fg, h, (PATCH_W, PATCH_H), flags=cv2.INTER_NEAREST)
        return self.signature.judge_patch(patch, valid, least=least)


def _on_plane(quad: npt.NDArray[np.float32], shape: tuple[int, ...]) -> bool:
    """Whether a rectangle lies a pixel or more inside a plane of ``shape``: every point a warp of
    it samples (its inside, rounded to the nearest pixel) is then a pixel of the plane."""
    height, width = shape[:2]
    return all(1.0 <= x <= width - 2 and 1.0 <= y <= height - 2 for x, y in quad.tolist())


def _contradicts(likeness: float) -> bool:
    """Whether a strip likeness says the picture is not the back's in place (-1: no say)."""
    return -1.0 < likeness < _NOT_AGAINST
