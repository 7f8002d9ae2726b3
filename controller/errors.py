"""The controller's exception hierarchy: every refusal names the problem, rules name their rule."""

from __future__ import annotations


class ControllerError(Exception):
    """Base of every error the controller raises on purpose."""


class CardError(ControllerError, ValueError):
    """A card code that is not one of the 52 cards, or a card seen twice."""


class ConfigError(ControllerError, ValueError):
    """A table configuration that is malformed: names the key and the bad value."""


class RecordError(ControllerError, ValueError):
    """A round record that is malformed or inconsistent."""


class RuleViolation(ControllerError):
    """An action the rules refuse; ``rule`` names the rule (e.g. ``oasis.one-exchange``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.rule = rule
        self.message = message
