"""Table configuration: typed, validated on load, with each game's docs/rules.md defaults."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    StrictBool,
    StrictInt,
    ValidationError,
    model_validator,
)

from controller.errors import ConfigError
from controller.hands import HAND_NAMES

MAX_AMOUNT = 10**15  # far above any table's money; keeps every figure an exact, printable integer
Money = Annotated[StrictInt, Field(le=MAX_AMOUNT)]  # the table's smallest unit of account; never floats
Multiple = Annotated[StrictInt, Field(ge=0, le=1_000_000)]  # a paytable's "pays N to one"


class Section(BaseModel):
    """Base of every configuration section: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Qualification(Section):
    """The dealer's minimum hand: a hand name, optionally with a minimum pair rank.

    ``{category = "pair", min_rank = "4"}`` is "a pair of fours or better";
    ``{category = "none"}`` means the dealer always plays (no qualification).
    """

    category: str
    min_rank: str | None = None

    @model_validator(mode="after")
    def _known(self) -> Qualification:
        if self.category != "none" and self.category not in HAND_NAMES:
            raise ValueError(f"unknown hand {self.category!r} (one of none, {', '.join(HAND_NAMES)})")
        if self.min_rank is not None:
            if self.category != "pair":
                raise ValueError("min_rank applies only to category 'pair'")
            if self.min_rank.upper() not in ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "10"):
                raise ValueError(f"min_rank {self.min_rank!r} is not a rank (2-9 T J Q K A, or 10)")
        return self


class BonusConfig(Section):
    """The optional side bet: its limits and its paytable (keys are the game's bonus hands)."""

    enabled: StrictBool = False
    min_bet: Money = Field(default=1, ge=1)
    max_bet: Money = Field(default=100, ge=1)
    paytable: dict[str, Multiple] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _limits(self) -> BonusConfig:
        if self.min_bet > self.max_bet:
            raise ValueError(f"min_bet {self.min_bet} is above max_bet {self.max_bet}")
        for key, pays in self.paytable.items():
            if pays < 0:
                raise ValueError(f"paytable {key!r} pays {pays}: a payout cannot be negative")
        return self


class JackpotConfig(Section):
    """The progressive jackpot: what feeds it, what hits it, what it resets to."""

    enabled: StrictBool = False
    reset: Money = Field(default=10_000, ge=0)
    contribution: Money = Field(default=1, ge=0, description="paid into the meter per losing box")
    # Hand name -> percent of the meter that hand wins; 100 empties the meter to `reset`.
    hit_hands: dict[str, StrictInt] = Field(default_factory=lambda: {"royal-flush": 100})
    requires_bonus: StrictBool = True
    share_hits: StrictBool = Field(
        default=True, description="hits in one round share the meter as it stood at the first hit (decided)"
    )

    @model_validator(mode="after")
    def _hands(self) -> JackpotConfig:
        for hand, percent in self.hit_hands.items():
            if hand not in HAND_NAMES:
                raise ValueError(f"hit_hands: unknown hand {hand!r}")
            if not 0 < percent <= 100:
                raise ValueError(f"hit_hands.{hand} = {percent}: a percentage from 1 to 100")
        return self


class GameRules(Section):
    """Base of each game's rules section (the decided points of docs/rules.md, as settings)."""


class TableConfig(Section):
    """Everything a table needs to run one game; ``rules`` is the game's own section."""

    game: str
    name: str = "Table 1"
    currency: str = "EUR"
    minor_units: StrictInt = Field(default=0, ge=0, le=4, description="decimal places of an amount")
    boxes: StrictInt = Field(default=7, ge=1, le=12)
    min_bet: Money = Field(ge=1)
    max_bet: Money = Field(ge=1)
    max_payout: Money = Field(ge=1)
    max_bettors: StrictInt = Field(default=3, ge=1, le=7, description="bettors on one shared box")
    bonus: BonusConfig
    jackpot: JackpotConfig
    rules: SerializeAsAny[GameRules]

    @model_validator(mode="after")
    def _limits(self) -> TableConfig:
        if self.min_bet > self.max_bet:
            raise ValueError(f"min_bet {self.min_bet} is above max_bet {self.max_bet}")
        return self


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge ``override`` into ``base``; sections merge, every other value replaces.

    Paytables and hit lists replace whole, so an operator's table never inherits a stray default row.
    """
    merged = dict(base)
    for key, value in override.items():
        whole = key.endswith("paytable") or key == "hit_hands"
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping) and not whole:
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _describe(error: ValidationError, *, where: str) -> str:
    first = error.errors()[0]
    loc = ".".join(str(p) for p in first["loc"] if not str(p).startswith("function-after"))
    message = first["msg"].removeprefix("Value error, ")
    value = first.get("input")
    shown = "" if isinstance(value, Mapping) or value is None else f" = {value!r}"
    more = len(error.errors()) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{where}: {loc or 'value'}{shown}: {message}{tail}"


def build_config(settings: Mapping[str, Any], *, where: str = "table configuration") -> TableConfig:
    """Validate settings (``game`` plus overrides of that game's defaults) into a config.

    Raises:
        ConfigError: unknown game, unknown key, or a bad value; the message names the key.
    """
    from controller.games import get_game

    if not isinstance(settings, Mapping):
        raise ConfigError(f"{where}: expected a table of settings, got {type(settings).__name__}")
    name = settings.get("game")
    if name is None:
        raise ConfigError(f"{where}: game: required, one of the game names")
    if not isinstance(name, str):
        raise ConfigError(f"{where}: game: expected a game name, got {name!r}")
    game = get_game(name)
    merged = _merge(game.defaults, settings)
    rules = merged.get("rules", {})
    try:
        merged["rules"] = game.rules_model.model_validate(rules)
        config = TableConfig.model_validate(merged)
    except ValidationError as exc:
        prefix = "rules." if exc.title == game.rules_model.__name__ else ""
        raise ConfigError(_describe(exc, where=where).replace(": ", f": {prefix}", 1)) from None
    game.check_config(config)
    return config


def defaults_for(game: str) -> TableConfig:
    """The configuration a game ships with: docs/rules.md's defaults.

    Raises:
        ConfigError: no such game.
    """
    return build_config({"game": game})


def to_toml(config: TableConfig) -> str:
    """The configuration as TOML that :func:`load_config` reads back to an equal configuration."""
    import tomli_w

    def strip_none(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip_none(v) for k, v in value.items() if v is not None}
        return value

    return tomli_w.dumps(strip_none(config.model_dump(mode="json")))


VISION_KEYS = frozenset({"vision", "zones"})


def load_config(path: str | Path) -> TableConfig:
    """Read and validate a table configuration from a TOML file.

    Raises:
        ConfigError: the file is missing or unreadable, is not TOML, or holds a bad setting.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (expected TOML in UTF-8)") from None
    try:
        settings = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    # The camera's part of the same file ([vision], [[zones]]) is vision.config's to check.
    settings = {k: v for k, v in settings.items() if k not in VISION_KEYS}
    return build_config(settings, where=str(path))
