"""Errors raised by the vision package; every one is the user's or the setup's fault, not a bug."""

from __future__ import annotations


class VisionError(Exception):
    """Base of every vision error (bad image, deck profile, calibration or configuration)."""


class DeckError(VisionError):
    """A deck profile or a registration input is missing, malformed or inconsistent."""


class ImageError(VisionError):
    """An image cannot be read or decoded."""


class CalibrationError(VisionError):
    """Too few or degenerate calibration points, or no markers found."""


class ConfigError(VisionError):
    """The table configuration's vision section is missing or invalid."""
