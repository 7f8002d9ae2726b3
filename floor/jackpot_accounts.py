"""Linked progressive accounts: opening, parameters, units, second-approval amounts and which tables feed them."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from controller.sql import Cursor
from floor.errors import FloorConfigError
from floor.status import JACKPOT, StatusStore
from floor.units import account_unit_refusal, check_unit, money_text, unit_text

SCOPES = ("floor", "pit", "game")


@dataclass(frozen=True, slots=True)
class Account:
    """A linked progressive's parameters and meters (NJ 1.39A), all amounts integers in the minor units of its
    ``currency`` (``minor_units`` decimals); currency '' = not set yet (an account opened before the floor kept
    units whose feeding tables did not settle it: no table plays it until a supervisor sets it).

    ``meter == seeded + contributions - won + corrections`` always holds: ``seeded`` is the reset at
    opening plus each top-up back to the reset after a hit; contributions past the cap go to ``overflow``.
    """

    name: str
    scope: str
    scope_value: str
    reset: int
    increment: int
    cap: int
    meter: int
    seeded: int
    contributions: int
    contribution_count: int
    overflow: int
    hits: int
    won: int
    corrections: int
    currency: str
    minor_units: int
    second_approval_above: int | None = None  # its own; None: the floor service's amount applies

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def approval_above(self, floor_amount: int | None) -> int | None:
        """The amount above which a hit of this jackpot needs two supervisors: its own, else the floor's
        (None: one supervisor confirms every hit)."""
        return floor_amount if self.second_approval_above is None else self.second_approval_above


def _approval(above: int | None, account: Account) -> str:
    """A second-approval amount as the parameter log writes it."""
    return "the floor's amount" if above is None else money_text(above, account)


def now_text() -> str:
    """The time now (UTC, ISO 8601): what the ledger's rows record."""
    return datetime.now(UTC).isoformat()


_ACCOUNT_COLUMNS = (
    "name, scope, scope_value, reset, increment, cap, meter, seeded, contributions, contribution_count, "
    "overflow, hits, won, corrections, currency, minor_units, second_approval_above"
)


class JackpotAccounts(StatusStore):
    """The accounts' layer of the jackpot store: each account's row, its parameters and their logged changes.
    Every public method runs in one transaction (errors as ``JackpotStore`` says)."""

    @property
    @abstractmethod
    def _for_update(self) -> str:
        """The row-lock suffix for a SELECT of the row about to change ("" where the whole database is locked)."""

    def open_account(
        self,
        *,
        name: str,
        scope: str,
        scope_value: str = "",
        reset: int,
        increment: int,
        cap: int,
        currency: str = "EUR",
        minor_units: int = 0,
    ) -> Account:
        """Open a linked progressive at its reset (idempotent for the same parameters and unit).

        ``scope`` says which tables feed it: ``floor`` (all), ``pit`` (those of pit ``scope_value``) or
        ``game`` (those playing ``scope_value``); of those, only tables in ``currency`` with ``minor_units``
        decimals (the defaults are the table configuration's), its meter's unit. ``dealer-assist jackpot
        open`` chooses them (floor/cli.py).

        Raises:
            FloorConfigError: bad parameters or unit; the account exists with other parameters or another unit.
        """
        if scope not in SCOPES:
            raise FloorConfigError(f"account scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        if (scope == "floor") != (scope_value == ""):
            raise FloorConfigError("a pit or game account names its pit or game; a floor-wide one names none")
        if reset < 0 or increment <= 0 or cap < reset:
            raise FloorConfigError(f"account {name}: need reset >= 0, increment > 0 and cap >= reset")
        check_unit(currency, minor_units, what=f"account {name}")
        with self._transaction(lock=True) as cur:
            cur.execute(
                "INSERT INTO accounts (name, scope, scope_value, reset, increment, cap, meter, seeded, currency, "
                "minor_units) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (name, scope, scope_value, reset, increment, cap, reset, reset, currency, minor_units),
            )
            account = self._account(cur, name, lock=False)
        if (account.currency, account.minor_units) != (currency, minor_units):
            held = unit_text(account.currency, account.minor_units) if account.currency else "no currency yet"
            raise FloorConfigError(f"account {name} already exists in {held}, not {unit_text(currency, minor_units)}")
        if (account.scope, account.scope_value, account.reset, account.increment, account.cap) != (
            scope,
            scope_value,
            reset,
            increment,
            cap,
        ):
            raise FloorConfigError(f"account {name} already exists with other parameters")
        return account

    def scope_units(self, *, scope: str, scope_value: str = "") -> dict[str, tuple[str, int]]:
        """The tables on the floor an account of this scope would take, each with its (currency, minor units);
        currency '' for a table that has not registered its unit yet (migration 6)."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT table_id, currency, minor_units FROM floor_tables WHERE %s = 'floor' "
                "OR (%s = 'pit' AND pit = %s) OR (%s = 'game' AND game = %s)",
                (scope, scope, scope_value, scope, scope_value),
            )
            return {str(r[0]): (str(r[1]), int(r[2])) for r in cur.fetchall()}

    def set_unit(self, *, account: str, currency: str, minor_units: int, by: str, reason: str) -> Account:
        """A supervisor sets the unit of an account that has none (opened before the floor kept units and not
        settled by its tables); logged with who and why among its parameter changes.

        Raises:
            FloorConfigError: unknown account, a bad unit, no name or reason; the account has a unit already
                (changing it would relabel its meter and every amount it recorded: open a new account).
        """
        if not by or not reason.strip():
            raise FloorConfigError("setting a jackpot's currency needs who sets it and why")
        check_unit(currency, minor_units, what=f"account {account}")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            if acc.currency:
                if (acc.currency, acc.minor_units) == (currency, minor_units):
                    return acc
                raise FloorConfigError(
                    f"account {account} is in {unit_text(acc.currency, acc.minor_units)}; its meter and records "
                    f"would be relabelled as {unit_text(currency, minor_units)}: open a new jackpot instead"
                )
            cur.execute(
                "UPDATE accounts SET currency = %s, minor_units = %s WHERE name = %s", (currency, minor_units, account)
            )
            self._log_change(
                cur,
                acc,
                (acc.reset, acc.increment, acc.cap),
                by=by,
                reason=(f"currency set to {unit_text(currency, minor_units)}: {reason.strip()}"),
            )
            self._notify(cur, JACKPOT)
            return self._account(cur, account, lock=False)

    def set_second_approval(self, *, account: str, above: int | None, by: str, reason: str) -> Account:
        """Set the jackpot's own second-approval amount (its minor units; None: the floor service's applies
        again); logged with who and why among its parameter changes. A hit already approved keeps its
        approval; one not yet confirmed is judged by the amount in force when it is confirmed.

        Raises:
            FloorConfigError: unknown account, a negative amount, no name or reason, or no change.
        """
        if not by or not reason.strip():
            raise FloorConfigError("setting a jackpot's second-approval amount needs who sets it and why")
        if above is not None and above < 0:
            raise FloorConfigError(f"account {account}: a second-approval amount is 0 or more, not {above}")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            if acc.second_approval_above == above:
                raise FloorConfigError(
                    f"account {account}: its second-approval amount is already {_approval(above, acc)}"
                )
            cur.execute("UPDATE accounts SET second_approval_above = %s WHERE name = %s", (above, account))
            change = f"second approval above {_approval(above, acc)} (was {_approval(acc.second_approval_above, acc)})"
            self._log_change(cur, acc, (acc.reset, acc.increment, acc.cap), by=by, reason=f"{change}: {reason.strip()}")
            self._notify(cur, JACKPOT)
            return self._account(cur, account, lock=False)

    def accounts(self) -> list[Account]:
        with self._transaction(lock=False) as cur:
            cur.execute(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts ORDER BY name")
            return [Account(*row) for row in cur.fetchall()]

    def account(self, name: str) -> Account:
        with self._transaction(lock=False) as cur:
            return self._account(cur, name, lock=False)

    def feeds(self, table_id: str) -> list[str]:
        """The accounts a table contributes to: floor-wide ones, its pit's and its game's."""
        with self._transaction(lock=False) as cur:
            pit, game, _ = self._table(cur, table_id)
            cur.execute(
                "SELECT name FROM accounts WHERE scope = 'floor' OR (scope = 'pit' AND scope_value = %s) "
                "OR (scope = 'game' AND scope_value = %s) ORDER BY name",
                (pit, game),
            )
            return [row[0] for row in cur.fetchall()]

    def _table(self, cur: Cursor, table_id: str) -> tuple[str, str, tuple[str, int, str]]:
        """(pit, game, (currency, minor units, name)) of a table on the floor.

        Raises:
            FloorConfigError: it is not on the floor.
        """
        cur.execute("SELECT pit, game, currency, minor_units, name FROM floor_tables WHERE table_id = %s", (table_id,))
        row = cur.fetchone()
        if row is None:
            raise FloorConfigError(f"table {table_id} is not on the floor")
        return str(row[0]), str(row[1]), (str(row[2]), int(row[3]), str(row[4]))

    def _account(self, cur: Cursor, name: str, *, lock: bool) -> Account:
        cur.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE name = %s" + (self._for_update if lock else ""), (name,)
        )
        row = cur.fetchone()
        if row is None:
            raise FloorConfigError(f"no jackpot account named {name!r}")
        return Account(*row)

    def _check_feeds(self, cur: Cursor, account: Account, table_id: str) -> None:
        pit, game, (currency, minor_units, name) = self._table(cur, table_id)
        if account.scope == "pit" and account.scope_value != pit:
            raise FloorConfigError(f"table {table_id} (pit {pit}) does not feed account {account.name}")
        if account.scope == "game" and account.scope_value != game:
            raise FloorConfigError(f"table {table_id} ({game}) does not feed account {account.name}")
        if (currency, minor_units) != (account.currency, account.minor_units) or not currency:
            raise FloorConfigError(
                account_unit_refusal(account, table=f"{name} ({table_id})", currency=currency, minor_units=minor_units)
            )

    def set_parameters(
        self,
        *,
        account: str,
        reset: int | None = None,
        increment: int | None = None,
        cap: int | None = None,
        by: str,
        reason: str,
    ) -> Account:
        """Change a linked progressive's reset, increment or cap; logged with who and why.

        The meter itself never moves here (only a hit or a logged correction lowers it): a new cap below
        the meter stops further credit until a hit; a new reset applies at the next hit's top-up. Tables
        read the new increment and reset and take them between rounds (floor/link_jackpot.py).

        Raises:
            FloorConfigError: unknown account, nothing changed, no name or reason, or bad values.
        """
        if not by or not reason.strip():
            raise FloorConfigError("a change of a jackpot's parameters needs who made it and why")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            new = (
                acc.reset if reset is None else reset,
                acc.increment if increment is None else increment,
                acc.cap if cap is None else cap,
            )
            if new == (acc.reset, acc.increment, acc.cap):
                raise FloorConfigError(f"account {account}: the parameters are already {new}")
            if new[0] < 0 or new[1] <= 0 or new[2] < new[0]:
                raise FloorConfigError(f"account {account}: need reset >= 0, increment > 0 and cap >= reset")
            self._log_change(cur, acc, new, by=by, reason=reason.strip())
            cur.execute("UPDATE accounts SET reset = %s, increment = %s, cap = %s WHERE name = %s", (*new, account))
            return self._account(cur, account, lock=False)

    def _log_change(self, cur: Cursor, acc: Account, new: tuple[int, int, int], *, by: str, reason: str) -> None:
        """Log a change of the account (its parameters before and after) with who made it and why."""
        cur.execute("SELECT COALESCE(MAX(change_no), 0) FROM account_changes WHERE account = %s", (acc.name,))
        change_no = int(cur.fetchone()[0]) + 1
        cur.execute(
            "INSERT INTO account_changes (account, change_no, at, actor, reason, old_reset, old_increment, "
            "old_cap, reset, increment, cap) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (acc.name, change_no, now_text(), by, reason, acc.reset, acc.increment, acc.cap, *new),
        )

    def parameter_changes(self, account: str) -> list[dict[str, Any]]:
        """The account's parameter changes in order: when, who, why, before and after."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT change_no, at, actor, reason, old_reset, old_increment, old_cap, reset, increment, cap "
                "FROM account_changes WHERE account = %s ORDER BY change_no",
                (account,),
            )
            keys = (
                "change_no",
                "at",
                "by",
                "reason",
                "old_reset",
                "old_increment",
                "old_cap",
                "reset",
                "increment",
                "cap",
            )
            return [dict(zip(keys, row, strict=True)) for row in cur.fetchall()]
