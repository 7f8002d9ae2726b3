"""Round records: the JSON hand-history format (docs/round-format.md), parsed strictly and replayed."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.cards import Card, card, codes
from controller.cards import cards as parse_cards
from controller.config import MAX_AMOUNT, TableConfig, build_config
from controller.engine import (
    Action,
    ActionTaken,
    Bettor,
    BoxBet,
    CardDealt,
    CardRevealed,
    Complete,
    Deal,
    Identify,
    Placeholder,
    Round,
    placeholder_ref,
)
from controller.errors import CardError, ConfigError, RecordError, RuleViolation
from controller.settlement import RoundSettlement

_BOX_KEYS = {"box", "ante", "bonus", "blind", "bettors"}
_BETTOR_KEYS = {"name", "ante", "bonus"}
_ACTION_KEYS = {"box", "action", "discard"}


def table_actions() -> frozenset[str]:
    """Actions of the dealer rather than of a box (recorded with no box): every game's own."""
    from controller.games import game_names, get_game  # the games import the engine this module builds on

    return frozenset().union(*(get_game(name).table_actions for name in game_names()))


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round as recorded: setup, every card in draw order, every decision in order taken.

    On a table with no reading shoe a card may be dealt without identity (None in ``cards``);
    ``reveals`` gives (its number in ``cards`` from 1, its identity) for those the camera or a
    supervisor read later, in the order they were read.
    """

    config: TableConfig
    table: Mapping[str, Any]
    jackpot_meter: int
    bets: tuple[BoxBet, ...]
    cards: tuple[Card | None, ...]
    actions: tuple[Action, ...]
    void: str | None = None
    reveals: tuple[tuple[int, Card], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The record in its documented JSON form (what :func:`parse_record` reads)."""
        out: dict[str, Any] = {
            "game": self.config.game,
            "table": dict(self.table),
            "jackpot": {"meter": self.jackpot_meter},
            "boxes": [_bet_json(b) for b in self.bets],
            "cards": [None if c is None else c.code for c in self.cards],
            "actions": [_action_json(a) for a in self.actions],
        }
        if self.reveals:
            out["reveals"] = [{"card": n, "code": c.code} for n, c in self.reveals]
        if self.void is not None:
            out["void"] = self.void
        return out


def _bet_json(bet: BoxBet) -> dict[str, Any]:
    out: dict[str, Any] = {"box": bet.box, "ante": bet.ante}
    if bet.bonus:
        out["bonus"] = bet.bonus
    if bet.blind:
        out["blind"] = True
    if bet.bettors:
        out["bettors"] = [
            {"name": p.name, "ante": p.ante, **({"bonus": p.bonus} if p.bonus else {})} for p in bet.bettors
        ]
    return out


def _action_json(action: Action) -> dict[str, Any]:
    if action.box == 0:
        return {"action": action.action}
    out: dict[str, Any] = {"box": action.box, "action": action.action}
    if action.discard:
        out["discard"] = codes(action.discard)
    return out


def _amount(value: Any, where: str, *, minimum: int = 0) -> int:
    # bool is an int in Python; an amount of `true` is a typo, not one unit.
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where}: {value!r} is not a whole amount (money is integer units)")
    if value < minimum:
        raise RecordError(f"{where}: {value} is below {minimum}")
    if value > MAX_AMOUNT:
        raise RecordError(f"{where}: {value} is more than any table handles (at most {MAX_AMOUNT})")
    return value


def _object(value: Any, where: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RecordError(f"{where}: expected an object, got {json.dumps(value)[:40]}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise RecordError(f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
    return value


def _list(value: Any, where: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{where}: expected a list")
    return value


def _bet(raw: Any, i: int) -> BoxBet:
    where = f"boxes[{i}]"
    obj = _object(raw, where, _BOX_KEYS)
    if "box" not in obj:
        raise RecordError(f"{where}: box: required")
    box = _amount(obj["box"], f"{where}.box", minimum=1)
    where = f"box {box}"
    blind = obj.get("blind", False)
    if not isinstance(blind, bool):
        raise RecordError(f"{where}: blind: expected true or false, got {blind!r}")
    bettors: list[Bettor] = []
    for j, p in enumerate(_list(obj.get("bettors", []), f"{where}.bettors")):
        pobj = _object(p, f"{where}.bettors[{j}]", _BETTOR_KEYS)
        name = pobj.get("name")
        if not isinstance(name, str) or not name.strip():
            raise RecordError(f"{where}.bettors[{j}].name: a non-empty name is required")
        if "ante" not in pobj:
            raise RecordError(f"{where}.bettors[{j}].ante: required")
        bettors.append(
            Bettor(
                name=name.strip(),
                ante=_amount(pobj["ante"], f"{where}.bettors[{j}].ante"),
                bonus=_amount(pobj.get("bonus", 0), f"{where}.bettors[{j}].bonus"),
            )
        )
    if bettors:
        ante = _amount(obj.get("ante", sum(p.ante for p in bettors)), f"{where}.ante")
        if "bonus" in obj and obj["bonus"] != sum(p.bonus for p in bettors):
            raise RecordError(f"{where}: on a shared box give the bonus per bettor")
        bonus = sum(p.bonus for p in bettors)
    else:
        if "ante" not in obj:
            raise RecordError(f"{where}.ante: required")
        ante = _amount(obj["ante"], f"{where}.ante")
        bonus = _amount(obj.get("bonus", 0), f"{where}.bonus")
    return BoxBet(box=box, ante=ante, bonus=bonus, blind=blind, bettors=tuple(bettors))


def parse_bets(raw: Any) -> tuple[BoxBet, ...]:
    """Opening bets in the record's ``boxes`` form.

    Raises:
        RecordError: a malformed box, bettor or amount (the message names it).
    """
    return tuple(_bet(b, i) for i, b in enumerate(_list(raw, "boxes")))


def parse_action(raw: Any, *, where: int = 0) -> Action:
    """One decision in the record's ``actions`` form.

    Raises:
        RecordError: a malformed action. CardError: an unknown discard card.
    """
    return _action(raw, where)


def _action(raw: Any, i: int) -> Action:
    where = f"actions[{i}]"
    obj = _object(raw, where, _ACTION_KEYS)
    if "action" not in obj:
        raise RecordError(f"{where}.action: required")
    name = obj["action"]
    if not isinstance(name, str):
        raise RecordError(f"{where}.action: expected a name such as 'fold', got {name!r}")
    if name in table_actions():
        if obj.get("box", 0) != 0:
            raise RecordError(f"{where}: {name!r} is the dealer's, not a box's: give no box")
        return Action(box=0, action=name)
    if "box" not in obj:
        raise RecordError(f"{where}.box: required")
    discard = _list(obj.get("discard", []), f"{where}.discard")
    if name == "exchange" and not discard:
        raise RecordError(f"{where}: an exchange must name the cards it discards ('discard')")
    try:
        thrown = parse_cards([(placeholder_ref(c) or c) if isinstance(c, str) else c for c in discard])
    except CardError as exc:
        raise RecordError(f"{where}.discard: {exc}") from None
    return Action(box=_amount(obj["box"], f"{where}.box", minimum=1), action=name, discard=thrown)


def parse_record(data: Any) -> RoundRecord:
    """Validate a decoded JSON round record. Unknown top-level keys are allowed (annotations).

    Raises:
        RecordError: a missing or malformed field, an unknown key in a box or action.
        ConfigError: an unknown game or a bad ``table`` setting.
        CardError: an unknown card code or a card twice in ``cards``.
    """
    if not isinstance(data, Mapping):
        raise RecordError("a round record is a JSON object")
    for key in ("game", "boxes", "cards"):
        if key not in data:
            raise RecordError(f"{key}: required")
    table = data.get("table", {})
    if not isinstance(table, Mapping):
        raise RecordError("table: expected an object of configuration settings")
    if "game" in table:
        raise RecordError("table.game: give the game once, at the top level")
    config = build_config({**table, "game": data["game"]}, where="table")
    jackpot = _object(data.get("jackpot", {}), "jackpot", {"meter"})
    meter = _amount(jackpot.get("meter", config.jackpot.reset), "jackpot.meter")
    bets = parse_bets(data["boxes"])
    raw_cards = _list(data["cards"], "cards")
    try:
        dealt = tuple(None if c is None else card(c) for c in raw_cards)
    except CardError as exc:
        raise CardError(f"cards: {exc}") from None
    reveals = _reveals(data.get("reveals", []), dealt)
    actions = tuple(_action(a, i) for i, a in enumerate(_list(data.get("actions", []), "actions")))
    void = data.get("void")
    if void is not None and (not isinstance(void, str) or not void.strip()):
        raise RecordError("void: the reason the round was cancelled, as text")
    return RoundRecord(
        config=config,
        table=dict(table),
        jackpot_meter=meter,
        bets=bets,
        cards=dealt,
        actions=actions,
        void=void,
        reveals=reveals,
    )


def _reveals(raw: Any, dealt: Sequence[Card | None]) -> tuple[tuple[int, Card], ...]:
    out: list[tuple[int, Card]] = []
    for i, item in enumerate(_list(raw, "reveals")):
        where = f"reveals[{i}]"
        obj = _object(item, where, {"card", "code"})
        for key in ("card", "code"):
            if key not in obj:
                raise RecordError(f"{where}.{key}: required")
        number = _amount(obj["card"], f"{where}.card", minimum=1)
        if number > len(dealt):
            raise RecordError(f"{where}.card: there is no card {number} ({len(dealt)} in cards)")
        if dealt[number - 1] is not None:
            raise RecordError(f"{where}.card: card {number} was dealt with its identity; only null cards are revealed")
        if any(n == number for n, _ in out):
            raise RecordError(f"{where}.card: card {number} is revealed twice")
        if not isinstance(obj["code"], str):
            raise RecordError(f"{where}.code: expected a card code such as 'As'")
        try:
            out.append((number, card(obj["code"])))
        except CardError as exc:
            raise CardError(f"{where}.code: {exc}") from None
    return tuple(out)


def replay(record: RoundRecord) -> Round:
    """Replay a record: each card goes where the deal plan expects it, each action when due.

    Raises:
        RuleViolation: a bet, card or action the rules refuse at that point.
        RecordError: more cards than the round can take, or too few for its actions.
    """
    rnd = Round(config=record.config, bets=record.bets, jackpot_meter=record.jackpot_meter)
    deck = list(record.cards)
    pending = list(record.actions)
    # A card's identity, when it came later, is given as soon as the card is dealt: the order of
    # reveals changes nothing but which of two equal cards is refused, and a record with a card
    # twice is refused either way.
    reveals = {n: (i, c) for i, (n, c) in enumerate(record.reveals)}
    while deck or pending:
        step = rnd.expected()
        if isinstance(step, Complete | Identify):
            if deck:
                raise RecordError(
                    f"cards: too many cards: the round was complete after {rnd.cards_dealt}, "
                    f"{len(deck)} left over (first {deck[0]})"
                )
            raise RuleViolation(
                "decide.not-expected",
                f"actions: the round is complete; no decision is expected for box {pending[0].box}",
            )
        if isinstance(step, Deal):
            if not deck:
                if record.void is not None:
                    break
                raise RecordError(
                    f"cards: too few cards: {rnd.cards_dealt} given, the round expects more: {step.describe()}"
                )
            item = deck.pop(0)
            try:
                if item is None:
                    rnd.deal_unknown()
                else:
                    rnd.deal(item)
            except RuleViolation as exc:
                raise RuleViolation(exc.rule, f"cards[{rnd.cards_dealt}]: {exc.message}") from None
            if rnd.cards_dealt in reveals:
                i, identity = reveals[rnd.cards_dealt]
                try:
                    rnd.reveal(rnd.cards_dealt, identity)
                except RuleViolation as exc:
                    raise RuleViolation(exc.rule, f"reveals[{i}]: {exc.message}") from None
        else:
            if not pending:
                if record.void is not None:
                    break
                raise RecordError(f"actions: the round is not finished: {step.describe()}")
            action = pending.pop(0)
            n = len(record.actions) - len(pending) - 1
            try:
                rnd.act(action)
            except RuleViolation as exc:
                raise RuleViolation(exc.rule, f"actions[{n}]: {exc.message}") from None
    if deck or pending:
        # Only a void round stops early; what it did not reach is not part of its record.
        raise RecordError(
            f"void: the round stopped after {rnd.cards_dealt} cards and {len(record.actions) - len(pending)} "
            f"actions; {len(deck)} cards and {len(pending)} actions are left over"
        )
    step = rnd.expected()
    if record.void is None and isinstance(step, Identify):
        raise RecordError(
            f"reveals: card {step.number} ({step.slot.where()}) was dealt without identity and never revealed; "
            "the settlement needs it"
        )
    if record.void is None and not isinstance(step, Complete):
        raise RecordError(f"the round is not finished (cards or actions missing): {step.describe()}")
    return rnd


def settle_record(record: RoundRecord) -> RoundSettlement:
    """Replay and settle a record; a void record returns every stake.

    Raises:
        RuleViolation, RecordError: as :func:`replay`.
    """
    rnd = replay(record)
    if record.void is not None:
        return rnd.void(record.void)
    return rnd.settle()


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RecordError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise RecordError(f"{name} is not a number a record may hold")


def loads(text: str | bytes) -> Any:
    """Decode JSON strictly: no duplicate keys, no NaN or Infinity.

    Raises:
        RecordError: the text is not valid JSON (the message gives line and column).
    """
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except UnicodeDecodeError:
        raise RecordError("not valid JSON: the input is not UTF-8 text") from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise RecordError(f"not a usable record: {exc}") from None


def record_from_round(rnd: Round, *, table: Mapping[str, Any], void: str | None = None) -> RoundRecord:
    """The record of a round played through the engine (for the journal and history)."""
    dealt = tuple(None if isinstance(e.card, Placeholder) else e.card for e in rnd.events if isinstance(e, CardDealt))
    taken = tuple(e.action for e in rnd.events if isinstance(e, ActionTaken))
    reveals = tuple((e.dealt, e.card) for e in rnd.events if isinstance(e, CardRevealed))
    return RoundRecord(
        config=rnd.config,
        table=dict(table),
        jackpot_meter=rnd.jackpot_meter,
        bets=rnd.bets,
        cards=dealt,
        actions=taken,
        void=void,
        reveals=reveals,
    )


__all__ = [
    "ConfigError",
    "RoundRecord",
    "loads",
    "parse_record",
    "record_from_round",
    "replay",
    "settle_record",
]
