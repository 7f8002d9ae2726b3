"""The game registry and the contract every game module fulfils (data plus small rule functions).

A game is one module in this package that defines ``GAME``; adding a fifth game is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator

from controller.cards import RANKS
from controller.config import GameRules, Multiple, Qualification, TableConfig
from controller.engine import Action, BoxBet, BoxState, RoundState, Slot, Step
from controller.errors import ConfigError, RuleViolation
from controller.hands import CATEGORIES, HAND_NAMES, HandValue
from controller.settlement import BetResult, DealerResult, MainResult, Outcome, Stake


def fold_if_folding(state: RoundState, action: Action) -> list[Slot]:
    """Apply a decision that needs no cards: a fold takes the box out of play, anything else is a stake."""
    if action.action == "fold":
        state.boxes[action.box].folded = True
    return []


@dataclass(frozen=True, kw_only=True)
class Game:
    """One game: its data (names, defaults, paytable keys) and its rule functions."""

    name: str
    title: str
    actions: frozenset[str]
    rules_model: type[GameRules]
    defaults: Mapping[str, Any]
    board_size: int
    bonus_keys: tuple[str, ...] = ()
    blind_boxes: bool = False
    one_box_per_player: bool = False
    table_actions: frozenset[str] = frozenset()
    advance: Callable[[RoundState], Step]
    # Most decisions carry no details and only a fold changes the box: these are the defaults.
    check_action: Callable[[RoundState, Action], None] = lambda _state, _action: None
    apply_action: Callable[[RoundState, Action], list[Slot]] = fold_if_folding
    settle_main: Callable[[RoundState], tuple[DealerResult, dict[int, MainResult]]]
    bonus_key: Callable[[RoundState, BoxState], str | None]
    jackpot_hand: Callable[[RoundState, BoxState], HandValue | None]
    # Every stake the box has placed so far, bonus excluded (a blind box's raise from the start).
    stakes: Callable[[TableConfig, BoxState], list[Stake]]
    # Face-down slots the dealer has turned face up mid-round (e.g. hold'em-with-exchange's 4th card).
    turned: Callable[[RoundState], frozenset[Slot]] = lambda _state: frozenset()

    def check_config(self, config: TableConfig) -> None:
        """Checks that need the game: bonus paytable rows must be this game's bonus hands.

        Raises:
            ConfigError: a paytable row the game does not know.
        """
        for key in config.bonus.paytable:
            if key not in self.bonus_keys:
                raise ConfigError(
                    f"table configuration: bonus.paytable.{key}: not a bonus hand of {self.title} "
                    f"(one of {', '.join(self.bonus_keys) or 'none: the game has no bonus bet'})"
                )
        if config.bonus.enabled and not self.bonus_keys:
            raise ConfigError(f"table configuration: bonus.enabled: {self.title} has no bonus bet")

    def check_bets(self, config: TableConfig, bets: Sequence[BoxBet]) -> None:
        """Check the opening bets against the table limits and the game's rules.

        Raises:
            RuleViolation: a bet outside the limits, a box out of range or twice, a blind box
                where the game has none, a bonus where it is not offered, or a bad shared box.
        """
        check_opening_bets(self, config, bets)


def check_opening_bets(game: Game, config: TableConfig, bets: Sequence[BoxBet]) -> None:
    """See :meth:`Game.check_bets`."""
    if not bets:
        raise RuleViolation("table.boxes", "a round needs at least one box with an ante")
    seen: set[int] = set()
    players: dict[str, int] = {}
    for bet in bets:
        where = f"box {bet.box}"
        if not 1 <= bet.box <= config.boxes:
            raise RuleViolation("table.boxes", f"{where}: the table has boxes 1 to {config.boxes}")
        if bet.box in seen:
            raise RuleViolation("table.boxes", f"{where} is bet twice")
        seen.add(bet.box)
        if bet.blind and not game.blind_boxes:
            raise RuleViolation(f"{game.name}.no-blind", f"{where}: {game.title} has no blind boxes")
        antes = [b.ante for b in bet.bettors] or [bet.ante]
        for who, ante in zip([b.name for b in bet.bettors] or [""], antes, strict=True):
            label = f"{where}{f' ({who})' if who else ''}"
            if ante < config.min_bet:
                raise RuleViolation("table.min-bet", f"{label}: ante {ante} is below the minimum bet {config.min_bet}")
        if bet.ante > config.max_bet:
            raise RuleViolation("table.max-bet", f"{where}: ante {bet.ante} is above the maximum bet {config.max_bet}")
        if bet.bettors:
            check_shared_box(config, bet)
            if game.one_box_per_player:
                for person in bet.bettors:
                    if person.name in players:
                        raise RuleViolation(
                            f"{game.name}.one-box",
                            f"{where}: {person.name} already plays box {players[person.name]}; "
                            f"in {game.title} a player plays one box",
                        )
                    players[person.name] = bet.box
        bonuses = [b.bonus for b in bet.bettors if b.bonus] or ([bet.bonus] if bet.bonus else [])
        if bonuses and not config.bonus.enabled:
            raise RuleViolation("bonus.offered", f"{where}: this table takes no bonus bet")
        for amount in bonuses:
            if not config.bonus.min_bet <= amount <= config.bonus.max_bet:
                raise RuleViolation(
                    "bonus.limits",
                    f"{where}: bonus {amount} is outside the bonus limits "
                    f"{config.bonus.min_bet} to {config.bonus.max_bet}",
                )


def check_shared_box(config: TableConfig, bet: BoxBet) -> None:
    """A shared box: bettors within the table's count, distinct names, antes adding up."""
    where = f"box {bet.box}"
    if len(bet.bettors) > config.max_bettors:
        raise RuleViolation(
            "shared-box.max-bettors", f"{where}: {len(bet.bettors)} bettors, at most {config.max_bettors}"
        )
    names = [b.name for b in bet.bettors]
    if len(set(names)) != len(names) or not all(names):
        raise RuleViolation("shared-box.names", f"{where}: every bettor needs a distinct name")
    if sum(b.ante for b in bet.bettors) != bet.ante:
        raise RuleViolation(
            "shared-box.ante",
            f"{where}: the bettors' antes add up to {sum(b.ante for b in bet.bettors)}, not the box's {bet.ante}",
        )
    if sum(b.bonus for b in bet.bettors) != bet.bonus:
        raise RuleViolation("shared-box.bonus", f"{where}: the bettors' bonuses do not add up to the box's {bet.bonus}")


def qualifies(hand: HandValue, spec: Qualification) -> bool:
    """Whether the dealer's hand meets the qualification (``none`` always qualifies)."""
    if spec.category == "none":
        return True
    if not hand.at_least(spec.category):
        return False
    if spec.min_rank is not None and hand.category == "pair":
        return hand.cards[0].rank >= RANKS.index("T" if spec.min_rank == "10" else spec.min_rank.upper())
    return True


def paytable_check(table: Mapping[str, int], *, required: Sequence[str] = HAND_NAMES) -> None:
    """A paytable must price every hand that can win it and only known hands.

    Raises:
        ValueError: an unknown hand or a missing one (pydantic turns it into a named error).
    """
    for key, pays in table.items():
        if key not in HAND_NAMES:
            raise ValueError(f"unknown hand {key!r} (one of {', '.join(HAND_NAMES)})")
        if pays < 0:
            raise ValueError(f"{key} pays {pays}: a payout cannot be negative")
    missing = [h for h in required if h not in table]
    if missing:
        raise ValueError(f"no payout for {', '.join(missing)}")


def showdown(stakes: Sequence[Stake], *, outcome: Outcome, pays: dict[str, int] | None = None) -> tuple[BetResult, ...]:
    """Results of a box's stakes: fees are always lost; wagers win ``pays[bet]`` to one (default
    1:1, 0 = returned), lose or push with the outcome."""
    results = []
    for s in stakes:
        if s.kind == "fee" or outcome in ("lose", "fold"):
            results.append(BetResult(s.bet, s.amount, -s.amount, s.kind))
        elif outcome == "win":
            results.append(BetResult(s.bet, s.amount, s.amount * (pays or {}).get(s.bet, 1), s.kind))
        else:
            results.append(BetResult(s.bet, s.amount, 0, s.kind))
    return tuple(results)


def compare(player: HandValue, dealer: HandValue) -> Outcome:
    """The box's outcome against the dealer: equal hands push."""
    if player > dealer:
        return "win"
    return "lose" if player < dealer else "push"


def _priced(required: Sequence[str]) -> Callable[[dict[str, int]], dict[str, int]]:
    def check(table: dict[str, int]) -> dict[str, int]:
        paytable_check(table, required=required)
        return table

    return check


# A main-game paytable that prices every hand (Oasis names ace-king too); validated where it is declared.
Paytable = Annotated[dict[str, Multiple], AfterValidator(_priced(HAND_NAMES))]
CategoryPaytable = Annotated[dict[str, Multiple], AfterValidator(_priced(CATEGORIES))]

R = TypeVar("R", bound=GameRules)


def rules_of(config: TableConfig, model: type[R]) -> R:
    """The configuration's rules section as the game's own model."""
    rules = config.rules
    if not isinstance(rules, model):
        raise TypeError(f"{config.game} rules are {type(rules).__name__}, not {model.__name__}")
    return rules


@cache
def _registry() -> dict[str, Game]:
    games: dict[str, Game] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            games[game.name] = game
    return games


def game_names() -> list[str]:
    """Names of every installed game."""
    return sorted(_registry())


def get_game(name: str) -> Game:
    """The game called ``name``.

    Raises:
        ConfigError: no such game.
    """
    try:
        return _registry()[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown game {name!r} (one of {', '.join(game_names())})") from None
