"""Shared fixtures: the shipped default deck and a second design registered from generated images."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.deck import DeckProfile, default_deck, register_deck, shipped_deck
from vision.synth import write_second_design


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
