"""The KDE deck cache: built once when test workers and benchmarks ask for a design at the same time,
and built again when the file is broken. Rendering, registering and the deck file are stood in for:
what is under test is who builds and what is kept."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vision.errors import DeckError
from vision.tools import kde_decks


@pytest.fixture
def counted_builds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """An empty cache, and a build that records each call and takes long enough for a rival to arrive."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    builds: list[str] = []

    def render(name: str, folder: Path) -> Path:
        builds.append(name)
        time.sleep(0.5)
        return folder / "back.png"

    def save(profile: str, path: Path) -> None:
        path.write_text(profile)

    def load(path: Path) -> str:
        text = path.read_text()
        if not text.startswith("profile of "):
            raise DeckError(f"{path} is not a deck profile")
        return text

    monkeypatch.setattr(kde_decks, "render_design", render)
    monkeypatch.setattr(kde_decks, "register_deck", lambda *, name, **_: f"profile of {name}")
    monkeypatch.setattr(kde_decks, "save_deck", save)
    monkeypatch.setattr(kde_decks, "load_deck", load)
    return builds


def test_two_workers_asking_at_once_build_the_design_once(counted_builds: list[str]) -> None:
    got: list[object] = []

    def ask() -> None:
        got.append(kde_decks.kde_deck.__wrapped__("standard"))

    workers = [threading.Thread(target=ask) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert counted_builds == ["standard"]
    assert got == ["profile of kde-standard", "profile of kde-standard"]


def test_a_broken_cache_file_is_built_again(counted_builds: list[str], tmp_path: Path) -> None:
    kde_decks.kde_deck.__wrapped__("standard")
    (cached,) = (tmp_path / "cache" / "dealer-assist" / "decks").glob("kde-standard-*.npz")
    cached.write_bytes(b"not a deck")
    assert kde_decks.kde_deck.__wrapped__("standard") == "profile of kde-standard"
    assert counted_builds == ["standard", "standard"]
    assert kde_decks.kde_deck.__wrapped__("standard") == "profile of kde-standard"
    assert counted_builds == ["standard", "standard"]  # the rebuilt file is used
