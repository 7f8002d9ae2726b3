"""Simulator settings: fault parsing and the helper's command line matching the CLI's parser."""

from __future__ import annotations

import random

import pytest

from controller.cards import card
from controller.cli import build_parser
from drivers.errors import DriverConfigError
from drivers.shoe.sim.config import Faults, SimConfig, parse_cards


def test_faults_parse_and_print_round_trip() -> None:
    faults = Faults.parse("corrupt=0.1, drop=0.05,garbage=1")
    assert faults == Faults(corrupt=0.1, drop=0.05, garbage=1.0)
    assert Faults.parse(faults.to_text()) == faults
    assert Faults.parse("") == Faults()
    assert not Faults().any
    for bad in ("corrupt", "corrupt=x", "melt=0.1", "drop=-0.1"):
        with pytest.raises(DriverConfigError):
            Faults.parse(bad)


def test_fault_kinds_do_what_they_say() -> None:
    frame = bytes(range(12))
    rng = random.Random(0)
    assert Faults().apply(frame, rng) == frame
    assert Faults(drop=1.0).apply(frame, rng) == b""
    assert Faults(duplicate=1.0).apply(frame, rng) == frame + frame
    garbled = Faults(garbage=1.0).apply(frame, rng)
    assert garbled.endswith(frame)
    assert 1 <= len(garbled) - len(frame) <= 16
    corrupted = Faults(corrupt=1.0).apply(frame, rng)
    diff = [bin(a ^ b).count("1") for a, b in zip(frame, corrupted, strict=True)]
    assert sum(diff) == 1


def test_helper_command_line_parses_back_to_the_same_config() -> None:
    from drivers.cli import _sim_config

    config = SimConfig(
        link="/tmp/x",
        cards=(card("As"), card("As"), card("Td")),
        draw_interval=0.005,
        faults=Faults(corrupt=0.25, duplicate=0.5),
        fault_seed=3,
        disconnect_every=7,
        disconnect_for=0.125,
        baud=9600,
        heartbeat=0.05,
        ack_timeout=0.02,
        shoe_id="T-9",
        draw_counter=100,
        trace="/tmp/trace",
    )
    parser, _ = build_parser()
    assert _sim_config(parser.parse_args(["shoe-sim", *config.to_args()])) == config
    seeded = SimConfig(seed=42)
    assert _sim_config(parser.parse_args(["shoe-sim", *seeded.to_args()])) == seeded


def test_bad_simulator_settings_are_refused() -> None:
    with pytest.raises(DriverConfigError, match="--cards"):
        parse_cards("As,1x")
    with pytest.raises(DriverConfigError):
        SimConfig(draw_interval=0)
    with pytest.raises(DriverConfigError):
        SimConfig(shoe_id="x" * 17)
    with pytest.raises(DriverConfigError):
        SimConfig(disconnect_every=0)
