"""The simulated camera: renders the table (felt, zones, markers, cards, a hand, light) from a scene."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.base import ByteImage, FrameSource
from drivers.camera.effects import (
    CHIP_RADIUS_MM,
    GlareBand,
    Shadow,
    SimChip,
    apply_lens,
    band_light,
    draw_chip,
    felt_texture,
    motion_blur,
    shadow_gain,
)
from drivers.camera.errors import CameraError
from vision.deck import DeckProfile
from vision.errors import DeckError
from vision.lens import Lens

CARD_W_MM: Final = 63.0
CARD_H_MM: Final = 88.0
MARKER_DICT: Final = "DICT_4X4_50"
_SKIN_BGR: Final = (120, 160, 215)
_FELT_BGR: Final = (45, 105, 20)  # casino green
PURPLE_FELT_BGR: Final = (95, 30, 70)  # for four-colour decks: their green clubs and blue diamonds are felt colours


@dataclass(frozen=True, slots=True)
class SimCard:
    """A card on the table: its centre in table millimetres, its turn (clockwise) and which side is up."""

    code: str
    x_mm: float
    y_mm: float
    angle_deg: float = 0.0
    face_up: bool = True


@dataclass(frozen=True, slots=True)
class SimHand:
    """A dealer's hand over the table: palm centre in millimetres, pointing along ``angle_deg``."""

    x_mm: float
    y_mm: float
    angle_deg: float = -90.0


@dataclass(frozen=True, slots=True)
class Glare:
    """A specular highlight: centre and radius in millimetres, strength 0..1."""

    x_mm: float
    y_mm: float
    radius_mm: float = 40.0
    strength: float = 0.7


@dataclass(frozen=True, slots=True)
class Lighting:
    """The room's light: overall level (dim below 1), a side-to-side falloff (uneven light), a tint
    (warm: more red, less blue), highlights, specular bands on the glossy cards and soft shadows.
    """

    brightness: float = 1.0
    falloff: float = 0.0  # 0 = even; 0.5 = the dark side gets half the light
    falloff_angle_deg: float = 0.0
    tint_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    glare: tuple[Glare, ...] = ()
    bands: tuple[GlareBand, ...] = ()
    shadows: tuple[Shadow, ...] = ()


@dataclass(frozen=True, slots=True)
class Optics:
    """What the lens and encoder do to the picture."""

    blur_sigma_px: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    motion_px: float = 0.0  # length of the smear of something moving during the exposure
    motion_angle_deg: float = 0.0


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything the simulated camera shows; replace it (it is immutable) to change the table."""

    cards: tuple[SimCard, ...] = ()
    hands: tuple[SimHand, ...] = ()
    lighting: Lighting = field(default_factory=Lighting)
    chips: tuple[SimChip, ...] = ()  # drawn over the cards: a bet pushed against a card touches it
    optics: Optics = field(default_factory=Optics)


@dataclass(frozen=True, slots=True)
class TableView:
    """Where the camera looks: the table rectangle in millimetres and how it lands in the frame.

    ``tilt_deg`` places a pinhole camera above and in front of the layout (on the players' side),
    that many degrees off vertical, so the far (dealer's) side looks smaller and flatter;
    without a tilt, ``keystone`` > 0 shrinks the far (top) edge by that share (a simpler look at
    the same thing). ``roll_deg`` turns the whole picture; ``distortion_k1`` is the lens' radial
    distortion (negative: barrel, see :class:`~vision.lens.Lens`); ``felt_bgr`` is the
    cloth's colour and ``felt_texture`` one of ``effects.FELT_TEXTURES``.
    """

    width_px: int = 1920
    height_px: int = 1080
    table_w_mm: float = 1000.0
    table_h_mm: float = 560.0
    keystone: float = 0.0
    roll_deg: float = 0.0
    felt_bgr: tuple[int, int, int] = _FELT_BGR
    tilt_deg: float = 0.0
    distortion_k1: float = 0.0
    felt_texture: str = "plain"

    def _ground(self) -> npt.NDArray[np.float64]:
        """The table's corners (clockwise from the far left) in the camera's ideal picture, centred
        on the table's middle and scaled to fill the frame.
        """
        w, h = self.table_w_mm, self.table_h_mm
        if self.tilt_deg > 0:
            # Camera at distance d from the table's middle, tilted towards the players: a table
            # point (x, y) lands at f x / (d - y sin t), f y cos t / (d - y sin t).
            t = math.radians(self.tilt_deg)
            d = 1.3 * max(w, h)
            pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
            depth = d - pts[:, 1] * math.sin(t)
            img = np.stack([pts[:, 0] / depth, pts[:, 1] * math.cos(t) / depth], axis=1)
        else:
            top = 1.0 - self.keystone
            img = np.array([[-top * w / 2, -h / 2], [top * w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        lo, hi = img.min(axis=0), img.max(axis=0)
        img = img - (lo + hi) / 2
        span = hi - lo
        return np.asarray(img * min(self.width_px / span[0], self.height_px / span[1]) * 0.96, np.float64)

    def homography(self) -> npt.NDArray[np.float64]:
        """The 3x3 map from table millimetres to ideal (undistorted) image pixels."""
        dst = self._ground()
        a = math.radians(self.roll_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        dst = dst @ rot.T + (self.width_px / 2, self.height_px / 2)
        src = np.array(
            [[0, 0], [self.table_w_mm, 0], [self.table_w_mm, self.table_h_mm], [0, self.table_h_mm]],
            dtype=np.float64,
        )
        return np.asarray(cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)))


@dataclass(frozen=True, slots=True)
class Marker:
    """An ArUco marker printed on the layout (4x4_50 dictionary): id, centre and side in mm."""

    id: int
    x_mm: float
    y_mm: float
    size_mm: float = 50.0


def card_corners_mm(card: SimCard) -> npt.NDArray[np.float64]:
    """The card's corners in table mm, clockwise from its top-left as printed (an index corner)."""
    a = math.radians(card.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array(
        [[-CARD_W_MM / 2, -CARD_H_MM / 2], [CARD_W_MM / 2, -CARD_H_MM / 2],
         [CARD_W_MM / 2, CARD_H_MM / 2], [-CARD_W_MM / 2, CARD_H_MM / 2]]
    )  # fmt: skip
    return np.asarray(local @ rot.T + (card.x_mm, card.y_mm), dtype=np.float64)


def to_px(homography: npt.NDArray[np.float64], pts_mm: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Map table-mm points (N, 2) to image pixels."""
    pts = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, homography).reshape(-1, 2), dtype=np.float64)


class TableRenderer:
    """Draws frames of one table; the felt, zone lines and markers are drawn once and reused."""

    def __init__(
        self,
        *,
        deck: DeckProfile,
        view: TableView | None = None,
        zones: Sequence[npt.NDArray[np.float64]] = (),
        markers: Sequence[Marker] = (),
        seed: int = 0,
    ) -> None:
        self.deck = deck
        self.view = view or TableView()
        self.homography = self.view.homography()
        self.lens = Lens(k1=self.view.distortion_k1, width=self.view.width_px, height=self.view.height_px)
        self._rng = np.random.default_rng(seed)
        self._felt = self._draw_felt(zones, markers)
        fh, fw = deck.back.shape[:2]
        mask = np.zeros((fh, fw), np.uint8)
        r = round(fw * 3.0 / CARD_W_MM)  # 3 mm corner radius
        cv2.rectangle(mask, (r, 0), (fw - 1 - r, fh - 1), 255, -1)
        cv2.rectangle(mask, (0, r), (fw - 1, fh - 1 - r), 255, -1)
        for cx, cy in ((r, r), (fw - 1 - r, r), (r, fh - 1 - r), (fw - 1 - r, fh - 1 - r)):
            cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
        self._card_mask = mask

    def _draw_felt(self, zones: Sequence[npt.NDArray[np.float64]], markers: Sequence[Marker]) -> ByteImage:
        v = self.view
        felt = felt_texture((v.height_px, v.width_px), v.felt_bgr, v.felt_texture, self._rng)
        for zone in zones:
            poly = np.round(to_px(self.homography, zone)).astype(np.int32)
            cv2.polylines(felt, [poly], True, (150, 200, 215), 2, cv2.LINE_AA)
        if markers:
            dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICT))
            for m in markers:
                side = 120
                tile = cv2.aruco.generateImageMarker(dictionary, m.id, side)
                tile = cv2.copyMakeBorder(tile, 15, 15, 15, 15, cv2.BORDER_CONSTANT, value=255)
                half = m.size_mm / 2 * (side + 30) / side
                quad_mm = np.array(
                    [[m.x_mm - half, m.y_mm - half], [m.x_mm + half, m.y_mm - half],
                     [m.x_mm + half, m.y_mm + half], [m.x_mm - half, m.y_mm + half]]
                )  # fmt: skip
                self._paste(felt, cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR), None, to_px(self.homography, quad_mm))
        return felt

    @staticmethod
    def _paste(frame: ByteImage, src: ByteImage, mask: ByteImage | None, quad_px: npt.NDArray[np.float64]) -> None:
        """Warp ``src`` onto the frame so its corners land on ``quad_px`` (clockwise from top-left)."""
        fh, fw = frame.shape[:2]
        x0 = max(math.floor(quad_px[:, 0].min()) - 1, 0)
        y0 = max(math.floor(quad_px[:, 1].min()) - 1, 0)
        x1 = min(math.ceil(quad_px[:, 0].max()) + 2, fw)
        y1 = min(math.ceil(quad_px[:, 1].max()) + 2, fh)
        if x1 <= x0 or y1 <= y0:
            return
        h, w = src.shape[:2]
        s = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
        m = cv2.getPerspectiveTransform(s, (quad_px - (x0, y0)).astype(np.float32))
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(src, m, size, flags=cv2.INTER_LINEAR)
        alpha_src = mask if mask is not None else np.full((h, w), 255, np.uint8)
        alpha = cv2.warpPerspective(alpha_src, m, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
        roi = frame[y0:y1, x0:x1].astype(np.float32)
        roi += (warped.astype(np.float32) - roi) * alpha[:, :, None]
        frame[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)

    @staticmethod
    def _shadow(frame: ByteImage, quad_px: npt.NDArray[np.float64]) -> None:
        """A card has thickness: it casts a thin soft shadow on whatever lies under it."""
        fh, fw = frame.shape[:2]
        x0 = max(math.floor(quad_px[:, 0].min()) - 6, 0)
        y0 = max(math.floor(quad_px[:, 1].min()) - 6, 0)
        x1 = min(math.ceil(quad_px[:, 0].max()) + 8, fw)
        y1 = min(math.ceil(quad_px[:, 1].max()) + 8, fh)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad_px - (x0 - 2, y0 - 2)).astype(np.int32), 255, cv2.LINE_AA)
        soft = cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32) / 255.0
        roi = frame[y0:y1, x0:x1].astype(np.float32)
        frame[y0:y1, x0:x1] = (roi * (1.0 - 0.35 * soft[:, :, None])).astype(np.uint8)

    def card_quad_px(self, card: SimCard) -> npt.NDArray[np.float64]:
        """Where a card's corners land in the image (clockwise from its printed top-left), through
        the lens (its centre is the mean of these corners to well under a pixel).
        """
        return self.lens.distort(to_px(self.homography, card_corners_mm(card)))

    def ideal_quad_px(self, card: SimCard) -> npt.NDArray[np.float64]:
        """Where a card's corners are drawn before the lens bends the frame (clockwise from its
        printed top-left): cards, chips and hands are all drawn in this undistorted space.
        """
        return to_px(self.homography, card_corners_mm(card))

    def chip_disc_px(self, chip: SimChip) -> tuple[npt.NDArray[np.float64], float]:
        """A chip stack's top face before the lens: its centre and radius in pixels."""
        centre = self._mm_to_px(chip.x_mm, chip.y_mm)
        radius = float(np.hypot(*(self._mm_to_px(chip.x_mm + CHIP_RADIUS_MM, chip.y_mm) - centre)))
        return centre, radius

    def _mm_to_px(self, x_mm: float, y_mm: float) -> npt.NDArray[np.float64]:
        return np.asarray(to_px(self.homography, np.array([[x_mm, y_mm]]))[0], np.float64)

    def render(self, scene: Scene, *, seed: int | None = None) -> ByteImage:
        """Draw one frame of ``scene``.

        Raises:
            DeckError: a card code that is not in the deck.
        """
        rng = self._rng if seed is None else np.random.default_rng(seed)
        frame = self._felt.copy()
        glossy: list[npt.NDArray[np.float64]] = []
        for card in scene.cards:
            img = self.deck.face(card.code) if card.face_up else self.deck.back
            quad = self.ideal_quad_px(card)
            self._shadow(frame, quad)
            self._paste(frame, img, self._card_mask, quad)
            glossy.append(quad)
        for chip in scene.chips:
            draw_chip(frame, *self.chip_disc_px(chip), chip)
        for hand in scene.hands:
            self._draw_hand(frame, hand)
        out = self._light(frame, scene.lighting, glossy)
        out = apply_lens(out, self.lens)
        return self._optics(out, scene.optics, rng)

    def hand_polys_px(self, hand: SimHand, dx: float = 0.0, dy: float = 0.0) -> list[npt.NDArray[np.int32]]:
        """The hand's palm, fingers, thumb and forearm as pixel polygons before the lens (shifted
        by ``dx``, ``dy`` mm for its shadow)."""
        a = math.radians(hand.angle_deg)
        ux, uy = math.cos(a), math.sin(a)
        px, py = -uy, ux
        cx, cy = hand.x_mm + dx, hand.y_mm + dy
        shapes: list[tuple[float, float, float, float, float]] = [(cx, cy, 50, 45, hand.angle_deg)]
        for k, off in enumerate((-33, -11, 11, 33)):
            length = (38, 45, 43, 34)[k]
            fx = cx + ux * (45 + length) + px * off
            fy = cy + uy * (45 + length) + py * off
            shapes.append((fx, fy, length, 9, hand.angle_deg))
        shapes.append((cx - ux * 40 + px * 45, cy - uy * 40 + py * 45, 30, 12, hand.angle_deg + 50))
        polys = []
        for sx, sy, ra, rb, ang in shapes:
            pts = cv2.ellipse2Poly((0, 0), (int(ra * 10), int(rb * 10)), int(ang), 0, 360, 10)
            pts_mm = np.asarray(pts, dtype=np.float64) / 10.0 + (sx, sy)
            polys.append(np.round(to_px(self.homography, pts_mm)).astype(np.int32))
        # The forearm, running out of the picture behind the palm.
        far_x, far_y = cx - ux * 900, cy - uy * 900
        arm = np.array(
            [[cx + px * 40, cy + py * 40], [cx - px * 40, cy - py * 40],
             [far_x - px * 45, far_y - py * 45], [far_x + px * 45, far_y + py * 45]]
        )  # fmt: skip
        polys.append(np.round(to_px(self.homography, arm)).astype(np.int32))
        return polys

    def _draw_hand(self, frame: ByteImage, hand: SimHand) -> None:
        h, w = frame.shape[:2]
        shadow: ByteImage = np.zeros((h, w), np.uint8)
        for poly in self.hand_polys_px(hand, 25.0, 25.0):
            cv2.fillPoly(shadow, [poly], 255)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 12)
        frame[:] = (frame.astype(np.float32) * (1.0 - 0.45 * shadow[:, :, None] / 255.0)).astype(np.uint8)
        skin: ByteImage = np.zeros((h, w), np.uint8)
        for poly in self.hand_polys_px(hand):
            cv2.fillPoly(skin, [poly], 255, cv2.LINE_AA)
        shade = cv2.GaussianBlur(skin, (0, 0), 6).astype(np.float32) / 255.0
        colour = np.array(_SKIN_BGR, np.float32) * (0.75 + 0.25 * shade)[:, :, None]
        alpha = skin.astype(np.float32)[:, :, None] / 255.0
        frame[:] = (frame * (1 - alpha) + colour * alpha).astype(np.uint8)

    def _light(self, frame: ByteImage, lighting: Lighting, glossy: Sequence[npt.NDArray[np.float64]] = ()) -> ByteImage:
        even = (
            lighting.brightness == 1.0
            and lighting.falloff == 0.0
            and lighting.tint_bgr == (1.0, 1.0, 1.0)
            and not lighting.glare
            and not lighting.bands
            and not lighting.shadows
        )
        if even:
            return frame
        h, w = frame.shape[:2]
        a = math.radians(lighting.falloff_angle_deg)
        xs = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
        ys = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None] * (h / w)
        ramp = (xs * math.cos(a) + ys * math.sin(a)) + 0.5
        gain = lighting.brightness * (1.0 - lighting.falloff * np.clip(ramp, 0, 1))
        if lighting.shadows:
            polys, strengths = [], []
            for sh in lighting.shadows:
                pts = cv2.ellipse2Poly(
                    (0, 0), (int(sh.width_mm * 5), int(sh.height_mm * 5)), int(sh.angle_deg), 0, 360, 8
                )
                pts_mm = np.asarray(pts, dtype=np.float64) / 10.0 + (sh.x_mm, sh.y_mm)
                polys.append(np.round(to_px(self.homography, pts_mm)).astype(np.int32))
                strengths.append(sh.strength)
            gain = gain * shadow_gain((h, w), polys, strengths, blur_px=0.02 * w)
        out = frame.astype(np.float32) * gain[:, :, None] * np.array(lighting.tint_bgr, np.float32)
        if lighting.bands:
            # Glossy card stock mirrors a strip light as a bright band; the matt felt barely does.
            gloss = np.full((h, w), 0.25, np.float32)
            for quad in glossy:
                cv2.fillConvexPoly(gloss, np.round(quad).astype(np.int32), 1.0, cv2.LINE_AA)
            for band in lighting.bands:
                p = self._mm_to_px(band.x_mm, band.y_mm)
                q = self._mm_to_px(
                    band.x_mm + 100 * math.cos(math.radians(band.angle_deg)),
                    band.y_mm + 100 * math.sin(math.radians(band.angle_deg)),
                )
                across = self._mm_to_px(band.x_mm, band.y_mm + band.width_mm)
                angle = math.atan2(q[1] - p[1], q[0] - p[0])
                light = band_light((h, w), (p[0], p[1], angle), float(np.hypot(*(across - p))), band.strength)
                out += (255.0 - out) * (light * gloss)[:, :, None]
        for g in lighting.glare:
            centre = to_px(self.homography, np.array([[g.x_mm, g.y_mm]]))[0]
            edge = to_px(self.homography, np.array([[g.x_mm + g.radius_mm, g.y_mm]]))[0]
            radius = float(np.hypot(*(edge - centre)))
            gx = np.arange(w, dtype=np.float32)[None, :] - np.float32(centre[0])
            gy = np.arange(h, dtype=np.float32)[:, None] - np.float32(centre[1])
            spot = g.strength * np.exp(-(gx * gx + gy * gy) / (2 * (radius / 2) ** 2))
            out += (255.0 - out) * spot[:, :, None]
        lit: ByteImage = np.clip(out, 0, 255).astype(np.uint8)
        return lit

    @staticmethod
    def _optics(frame: ByteImage, optics: Optics, rng: np.random.Generator) -> ByteImage:
        out = motion_blur(frame, optics.motion_px, optics.motion_angle_deg)
        if optics.blur_sigma_px > 0:
            out = cv2.GaussianBlur(out, (0, 0), optics.blur_sigma_px)
        if optics.noise_sigma > 0:
            noise = rng.normal(0, optics.noise_sigma, out.shape).astype(np.float32)
            out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        if optics.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(optics.jpeg_quality)])
            decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
            if decoded is not None:
                out = decoded
        return np.asarray(out, dtype=np.uint8)


class SimulatedCamera(FrameSource):
    """A frame source that renders the current :class:`Scene`; set :attr:`scene` to change the table.

    Never ends unless ``frames`` is given. Thread-safe: the demo updates the scene from the
    table's thread while another reads frames. A scene without sensor noise renders to the same
    picture every time, so an unchanged one is not drawn again (:attr:`renders` counts drawings).
    """

    def __init__(
        self,
        *,
        deck: DeckProfile,
        view: TableView | None = None,
        zones: Sequence[npt.NDArray[np.float64]] = (),
        markers: Sequence[Marker] = (),
        scene: Scene | None = None,
        frames: int | None = None,
        seed: int = 0,
    ) -> None:
        super().__init__(name="sim://")
        self.renderer = TableRenderer(deck=deck, view=view, zones=zones, markers=markers, seed=seed)
        self._scene = scene or Scene()
        self._lock = threading.Lock()
        self._left = frames
        self._last: tuple[Scene, ByteImage] | None = None
        self.renders = 0

    @property
    def scene(self) -> Scene:
        """The scene the next frame shows."""
        with self._lock:
            return self._scene

    @scene.setter
    def scene(self, value: Scene) -> None:
        with self._lock:
            self._scene = value

    def _grab(self) -> ByteImage | None:
        if self._left is not None:
            if self._left <= 0:
                return None
            self._left -= 1
        scene = self.scene
        if self._last is not None and self._last[0] == scene:
            return self._last[1].copy()
        try:
            image = self.renderer.render(scene)
        except DeckError as exc:
            raise CameraError(f"sim://: {exc}") from exc
        self.renders += 1
        # With noise every frame differs (as a real sensor's do): nothing to reuse.
        self._last = (scene, image.copy()) if scene.optics.noise_sigma == 0 else None
        return image
