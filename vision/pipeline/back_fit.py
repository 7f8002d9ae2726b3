"""A card showing whole fitted to the registered back: the back's brightness slid over the picture around it."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.back_in_place import STRIP_CORNERS, STRIP_H, STRIP_W

ByteImage = npt.NDArray[Any]

# Turns (degrees) tried when a card showing whole is fitted to the back (``fit_whole``).
_FIT_TURNS: Final = (0.0, -1.5, 1.5, -3.0, 3.0)
# Room (template pixels) kept around the patch the turns are made in: a turn of 3.75 degrees
# moves the back's corners up to about 2.
_FIT_ROOM: Final = 3


def fit_back(
    c: npt.NDArray[np.float64], *, grays: list[npt.NDArray[np.float32]], image: ByteImage, reach: float
) -> npt.NDArray[np.float64]:
    """The corners near the rectangle ``c`` (shifted up to about ``reach`` plane pixels, turned up to 3
    degrees) where a card showing whole matches the back's brightness ``grays`` (both ways up, at the
    strip's size) best (``BackTester.fit_whole``): one warp per turn, a normalised correlation at every
    shift, the way up the back lies chosen at the first turn."""
    pad = max(1, round(reach * STRIP_W / max(float(np.hypot(*(c[1] - c[0]))), 1.0)))
    # The picture around the rectangle is warped once, with room for the turns; each turn is
    # then a turn of that small patch about its middle (the back's scale is nearly the same
    # along both sides, so a turn there is the turn on the plane).
    room = pad + _FIT_ROOM
    frame = STRIP_CORNERS + np.float32(room)
    h = cv2.getPerspectiveTransform(c.astype(np.float32), frame)
    size = (STRIP_W + 2 * room, STRIP_H + 2 * room)
    whole = cv2.cvtColor(cv2.warpPerspective(image, h, size, flags=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    whole = whole.astype(np.float32)
    centre = (size[0] / 2.0, size[1] / 2.0)
    to_plane = np.linalg.inv(h)
    best: tuple[float, float, npt.NDArray[np.float64]] = (-2.0, 0.0, c)
    ways = list(range(len(grays)))  # after the first slide, only the way up that matched

    def slide(turn: float) -> None:
        nonlocal best, ways
        rot = cv2.getRotationMatrix2D(centre, turn, 1.0)
        patch = whole if turn == 0.0 else cv2.warpAffine(whole, rot, size, flags=cv2.INTER_LINEAR)
        patch = patch[_FIT_ROOM:-_FIT_ROOM, _FIT_ROOM:-_FIT_ROOM]
        found = []
        for k in ways:
            res = cv2.matchTemplate(patch, grays[k], cv2.TM_CCOEFF_NORMED)
            _, score, _, (dx, dy) = cv2.minMaxLoc(res)
            found.append((float(score), k))
            if score > best[0]:
                # The back's corners where it matched, back through the patch's turn and the warp.
                moved = (frame + np.array([dx - pad, dy - pad], np.float32)).reshape(-1, 1, 2)
                unturned = cv2.transform(moved, cv2.invertAffineTransform(rot))
                back = cv2.perspectiveTransform(unturned, to_plane).reshape(4, 2)
                best = (float(score), turn, np.asarray(back, np.float64))
        ways = [max(found)[1]]

    for turn in _FIT_TURNS:
        slide(turn)
    turn = best[1]
    for finer in (turn - 0.75, turn + 0.75):  # the turn matters most at the card's far ends
        slide(finer)
    return best[2]
