"""Units of account on the floor: how a currency and its decimals are named, checked and written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from floor.errors import FloorConfigError
from floor.reports import amount_text

if TYPE_CHECKING:
    from floor.jackpots import Account

MAX_MINOR_UNITS = 4  # as the table configuration allows (controller/config.py)


def unit_text(currency: str, minor_units: int) -> str:
    """A unit of account as an error names it: "EUR with 2 decimals"."""
    return f"{currency} with {minor_units} decimal{'' if minor_units == 1 else 's'}"


def account_unit_refusal(account: Account, *, table: str, currency: str, minor_units: int) -> str:
    """Why ``table`` (its name and id, as staff know it) in ``currency`` may not feed ``account``."""
    if not account.currency:
        return (
            f"table {table} ({unit_text(currency, minor_units)}) cannot feed jackpot {account.name}: the jackpot has "
            "no currency set (opened before the floor kept them, and the tables that fed it do not settle it); a "
            f"supervisor sets it: dealer-assist jackpot set --name {account.name} --currency C --minor-units N"
        )
    return (
        f"table {table} keeps its money in {unit_text(currency, minor_units)}; jackpot {account.name} is in "
        f"{unit_text(account.currency, account.minor_units)}: a table feeds only a jackpot in its own currency "
        "and decimals"
    )


def money_text(amount: int, account: Account) -> str:
    """An amount of ``account``'s money as a supervisor reads it: ``12,345.00 USD``; an account with no
    currency yet gives its minor units, saying so (nothing says what they are worth)."""
    if not account.currency:
        return f"{amount:,} (minor units; jackpot {account.name} has no currency yet)"
    return f"{amount_text(amount, account.minor_units)} {account.currency}"


def check_unit(currency: str, minor_units: int, *, what: str) -> None:
    """Refuse an empty currency or minor units outside 0..4 (``what`` names the owner in the error).

    Raises:
        FloorConfigError: as said.
    """
    if not currency or not 0 <= minor_units <= MAX_MINOR_UNITS:
        raise FloorConfigError(
            f"{what}: a currency and 0..{MAX_MINOR_UNITS} minor units, not {currency!r} and {minor_units}"
        )
