"""The table configuration's vision part: the ``[vision]`` table and the ``[[zones]]`` list (TOML)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vision.errors import ConfigError

Millimetres = Annotated[float, Field(ge=-10_000, le=10_000)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MarkerConfig(_Strict):
    """An ArUco marker (4x4_50 dictionary) printed on the layout: id, centre and side in mm."""

    id: int = Field(ge=0, le=49)
    x_mm: Millimetres
    y_mm: Millimetres
    size_mm: float = Field(default=50.0, gt=0, le=500)


class PointConfig(_Strict):
    """A hand-measured calibration point: where a table position (mm) appears in the image (px)."""

    x_mm: Millimetres
    y_mm: Millimetres
    u_px: float = Field(ge=0)
    v_px: float = Field(ge=0)


class ZoneConfig(_Strict):
    """One area of the layout: a box's card area, the dealer's area or the board."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    kind: Literal["box", "dealer", "board", "other"] = "box"
    polygon_mm: list[tuple[Millimetres, Millimetres]] = Field(min_length=3, max_length=64)


class VisionSettings(_Strict):
    """The ``[vision]`` table."""

    camera: str = Field(default="sim://", min_length=1)
    deck: str | None = None  # deck profile (.npz); none = the shipped default
    markers: list[MarkerConfig] = Field(default_factory=list)
    points: list[PointConfig] = Field(default_factory=list)
    # The lens' barrel (radial distortion k1, see vision.lens.Lens); None: measured from
    # the markers when at least four spread over the frame, else none (a pinhole camera).
    lens_k1: float | None = Field(default=None, ge=-0.5, le=0.5)
    bump_tolerance_px: float = Field(default=4.0, gt=0, le=100)
    vote_frames: int = Field(default=5, ge=1, le=60)
    vote_needed: int = Field(default=3, ge=1, le=60)
    absent_frames: int = Field(default=5, ge=1, le=300)
    occlusion_share: float = Field(default=0.12, gt=0, lt=1)
    accept_score: float = Field(default=0.72, gt=0, lt=1)
    accept_margin: float = Field(default=0.17, gt=0, lt=1)

    @field_validator("markers")
    @classmethod
    def _distinct_markers(cls, markers: list[MarkerConfig]) -> list[MarkerConfig]:
        ids = [m.id for m in markers]
        if len(set(ids)) != len(ids):
            raise ValueError("marker ids must be distinct")
        return markers


class TableVision(_Strict):
    """What vision needs from a table configuration file."""

    vision: VisionSettings = Field(default_factory=VisionSettings)
    zones: list[ZoneConfig] = Field(default_factory=list)

    @field_validator("zones")
    @classmethod
    def _distinct_zones(cls, zones: list[ZoneConfig]) -> list[ZoneConfig]:
        names = [z.name for z in zones]
        if len(set(names)) != len(names):
            raise ValueError("zone names must be distinct")
        return zones


def parse_table_vision(data: dict[str, object], *, source: str = "configuration") -> TableVision:
    """Validate the ``vision`` and ``zones`` keys of an already-parsed configuration.

    Other top-level keys belong to other parts of the controller and are left alone.

    Raises:
        ConfigError: a key is unknown or a value is out of range (names the key).
    """
    subset = {k: data[k] for k in ("vision", "zones") if k in data}
    try:
        config = TableVision.model_validate(subset)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"{source}: {where}: {err['msg']}") from exc
    s = config.vision
    if s.vote_needed > s.vote_frames:
        raise ConfigError(f"{source}: vision.vote_needed must not exceed vision.vote_frames")
    return config


def load_table_vision(path: Path) -> TableVision:
    """Read a table configuration (TOML) and validate its vision part.

    Raises:
        ConfigError: missing or unreadable file, bad TOML, or invalid vision keys.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: configuration is not UTF-8 text") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_table_vision(data, source=str(path))
