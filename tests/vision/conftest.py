"""Shared fixtures: the shipped default deck, a second design registered from generated images, and a
KDE design the recognizer was not developed on (rendered and registered once per machine, cached)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.deck import DeckProfile, default_deck, register_deck, shipped_deck
from vision.synth import write_second_design
from vision.tools.kde_decks import kde_deck

# Designs the end-to-end camera tests run on: the shipped deck, which the recognizer was developed
# on, and a design from other hands that no threshold was set on (``benchmarks/bench_vision.py``
# counts dondorf among its untuned designs: another index font, court pictures and a picture back).
DESIGNS = ("kennard", "dondorf")


@pytest.fixture(scope="session")
def kennard() -> DeckProfile:
    return default_deck()


@pytest.fixture(scope="session")
def kennard4() -> DeckProfile:
    return shipped_deck("4color")


@pytest.fixture(scope="session")
def second_design_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("design") / "faces"
    back = write_second_design(folder)
    return folder, back


@pytest.fixture(scope="session")
def hershey(second_design_dir: tuple[Path, Path]) -> DeckProfile:
    folder, back = second_design_dir
    return register_deck(faces_dir=folder, back_path=back, name="hershey")


@pytest.fixture(scope="session")
def dondorf() -> DeckProfile:
    """KDE's Dondorf-like design (Debian's kdegames-card-data-kf5, which ``./run test`` installs),
    registered as a casino registers its deck; about 20 s the first time on a machine, then cached."""
    return kde_deck("dondorf")


@pytest.fixture(scope="session")
def standard() -> DeckProfile:
    """KDE's standard design: its court pictures' frame line runs down through the index box."""
    return kde_deck("standard")


@pytest.fixture(params=DESIGNS)
def design(request: pytest.FixtureRequest) -> DeckProfile:
    """Each of :data:`DESIGNS` in turn (a test taking it runs once per design)."""
    deck: DeckProfile = request.getfixturevalue(request.param)
    return deck
