"""Deck profiles: the shipped default, registration of a second design, save/load and bad inputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.back_signature import PATCH_H, PATCH_W, features
from vision.deck import CODES, DeckProfile, load_deck, register_deck, save_deck
from vision.errors import DeckError, ImageError
from vision.index import index_feature
from vision.index_glyphs import split_rank_suit
from vision.index_match import match_index
from vision.recognize import RecognizerSettings


def test_default_deck_is_small_and_complete(kennard: DeckProfile) -> None:
    data = Path(__file__).resolve().parents[2] / "vision" / "data" / "default_deck.npz"
    assert data.stat().st_size < 1_000_000
    assert kennard.faces.shape == (52, 224, 160, 3)
    # The index sits in the top-left corner of the card.
    box = kennard.index_box
    assert 0 < box.x0 < box.x1 < 0.3 and 0 < box.y0 < box.y1 < 0.45


@pytest.mark.parametrize("name", ["kennard", "kennard4", "hershey"])
def test_every_face_reads_as_itself(name: str, request: pytest.FixtureRequest) -> None:
    deck: DeckProfile = request.getfixturevalue(name)
    w, h = deck.index_box.search_size()
    for code, face in zip(CODES, deck.faces, strict=True):
        feat = index_feature(face[:h, :w], deck.index_box)
        assert feat is not None, code
        assert match_index(deck, feat).code == code
        turned = np.ascontiguousarray(face[::-1, ::-1])  # the opposite corner, turned upright
        feat = index_feature(turned[:h, :w], deck.index_box)
        if feat is None:
            continue  # artwork crowding that corner: it is simply not read
        match = match_index(deck, feat)
        # Either the same card or a match too weak to be accepted: never another card.
        assert match.code == code or match.score < RecognizerSettings().accept_score, (code, match)


def test_unknown_shipped_variant() -> None:
    from vision.deck import shipped_deck

    with pytest.raises(DeckError, match="no shipped deck"):
        shipped_deck("jumbo")


def test_the_two_designs_differ(kennard: DeckProfile, hershey: DeckProfile) -> None:
    assert kennard.index_box != hershey.index_box
    assert not np.array_equal(kennard.back, hershey.back)


def test_save_and_load_round_trip(hershey: DeckProfile, tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_deck(hershey, path)
    loaded = load_deck(path)
    assert loaded.name == "hershey"
    assert loaded.index_box == pytest.approx(hershey.index_box)
    assert np.abs(loaded.faces.astype(int) - hershey.faces.astype(int)).mean() < 3


def test_malformed_profiles_are_refused(tmp_path: Path, kennard: DeckProfile) -> None:
    with pytest.raises(DeckError, match="cannot read"):
        load_deck(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DeckError, match="not a deck profile"):
        load_deck(junk)
    np.savez(tmp_path / "other.npz", version=np.array(1))
    with pytest.raises(DeckError, match="not a deck profile"):
        load_deck(tmp_path / "other.npz")
    good = tmp_path / "good.npz"
    save_deck(kennard, good)
    with np.load(good) as data:
        parts = dict(data)
    parts["images"] = parts["images"][: len(parts["images"]) // 2]
    np.savez(tmp_path / "cut.npz", **parts)
    with pytest.raises(DeckError, match="truncated"):
        load_deck(tmp_path / "cut.npz")
    parts = dict(np.load(good))
    parts["version"] = np.array(99)
    np.savez(tmp_path / "v99.npz", **parts)
    with pytest.raises(DeckError, match="version 99"):
        load_deck(tmp_path / "v99.npz")


def test_registration_inputs_are_checked(second_design_dir: tuple[Path, Path], tmp_path: Path) -> None:
    folder, back = second_design_dir
    partial = tmp_path / "partial"
    shutil.copytree(folder, partial)
    (partial / "Qh.png").unlink()
    with pytest.raises(DeckError, match="no face image for Qh"):
        register_deck(faces_dir=partial, back_path=back)
    (partial / "Qh.png").write_bytes(b"garbage")
    with pytest.raises(ImageError, match="cannot decode"):
        register_deck(faces_dir=partial, back_path=back)
    with pytest.raises(ImageError, match="no such image"):
        register_deck(faces_dir=folder, back_path=tmp_path / "nope.png")
    with pytest.raises(DeckError, match="not a directory"):
        register_deck(faces_dir=tmp_path / "nowhere", back_path=back)
    square = tmp_path / "square"
    shutil.copytree(folder, square)
    cv2.imwrite(str(square / "2c.png"), np.full((100, 100, 3), 255, np.uint8))
    with pytest.raises(DeckError, match="63x88"):
        register_deck(faces_dir=square, back_path=back)


def test_a_design_with_identical_indices_is_refused(second_design_dir: tuple[Path, Path], tmp_path: Path) -> None:
    folder, back = second_design_dir
    twin = tmp_path / "twin"
    shutil.copytree(folder, twin)
    shutil.copy(twin / "Kd.png", twin / "Qd.png")
    with pytest.raises(DeckError, match="too close"):
        register_deck(faces_dir=twin, back_path=back)


def test_rank_and_suit_run_together_are_cut_at_the_least_ink() -> None:
    ink = np.zeros((40, 20), np.uint8)
    ink[5:18, 4:14] = 1  # the rank
    ink[21:33, 5:15] = 1  # the suit
    ink[18:21, 9:10] = 1  # blur's thin bridge between them
    split = split_rank_suit(ink, (4, 5, 15, 33))
    assert split is not None
    rank, suit = split
    assert rank[1] == 5 and rank[3] <= 21 and suit[1] >= 18 and suit[3] == 33


def test_format_2_stores_the_back_signature_and_format_1_is_still_read(kennard: DeckProfile, tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    save_deck(kennard, path)
    with np.load(path) as data:
        parts = dict(data)
    assert int(parts["version"]) == 2
    stored = load_deck(path).back_signature  # read from the file, not learnt again
    assert np.array_equal(stored.backs, kennard.back_signature.backs)
    assert stored.limit == pytest.approx(kennard.back_signature.limit)
    # A format-1 profile (no signature): read, the signature learnt from the back and faces it holds.
    old = dict(parts)
    del old["back_signature"]
    old["version"] = np.array(1)
    np.savez(tmp_path / "v1.npz", **old)
    learnt = load_deck(tmp_path / "v1.npz").back_signature
    assert learnt.backs.shape == stored.backs.shape and learnt.limit > 0
    vector = features(cv2.resize(kennard.back, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA))
    assert vector is not None and learnt.judge(vector)[0]
    # A damaged signature is refused by name.
    parts["back_signature"] = parts["back_signature"][:7]
    np.savez(tmp_path / "bad.npz", **parts)
    with pytest.raises(DeckError, match="back signature in the profile is malformed"):
        load_deck(tmp_path / "bad.npz")
