"""The linked progressives' half of the floor store: accounts, contributions, ordered hits, corrections.

``FloorStore`` inherits it; like the status half it is the same SQL on both backends, and the backend
gives only how a transaction is opened and a row locked.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from controller.sql import Cursor
from floor.errors import FloorConfigError, FloorIntegrityError, FloorRefused
from floor.status import JACKPOT, StatusStore
from floor.units import account_unit_refusal, check_unit, money_text, unit_text

FULL_SHARE_BP = 10_000  # a hit's share of the meter in basis points: 10,000 = the whole meter
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


@dataclass(frozen=True, slots=True)
class Hit:
    """One hit, in the order the hits' transactions reached the account (``hit_no``)."""

    account: str
    hit_no: int
    table_id: str
    seq: int
    at: str
    share_bp: int
    meter_before: int
    amount: int
    status: str
    confirmed_by: str | None
    confirmed_at: str | None
    # A hit above the second-approval amount: the first supervisor's approval (the confirmer is another).
    approved_by: str | None = None
    approved_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Contribution:
    """What one contribution did: ``credited`` went into the meter, the rest (over the cap) to overflow."""

    account: str
    table_id: str
    seq: int
    amount: int
    credited: int
    meter_after: int
    replayed: bool


def _approval(above: int | None, account: Account) -> str:
    """A second-approval amount as the parameter log writes it."""
    return "the floor's amount" if above is None else money_text(above, account)


def _now() -> str:
    return datetime.now(UTC).isoformat()


_ACCOUNT_COLUMNS = (
    "name, scope, scope_value, reset, increment, cap, meter, seeded, contributions, contribution_count, "
    "overflow, hits, won, corrections, currency, minor_units, second_approval_above"
)
_HIT_COLUMNS = (
    "account, hit_no, table_id, seq, at, share_bp, meter_before, amount, status, confirmed_by, confirmed_at, "
    "approved_by, approved_at"
)


class JackpotStore(StatusStore):
    """Linked progressive accounts and their ledger. Every public method runs in one transaction and raises
    ``FloorUnavailable`` when the database fails (nothing applied), ``FloorConfigError`` for unknown names
    or bad parameters and ``FloorIntegrityError`` when a replay differs from what was recorded."""

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

    def _recorded(
        self, cur: Cursor, account: str, table_id: str, seq: int, kind: str
    ) -> tuple[str, int, int, int] | None:
        cur.execute(
            "SELECT kind, amount, credited, meter_after FROM jackpot_ops "
            "WHERE account = %s AND table_id = %s AND seq = %s AND kind = %s",
            (account, table_id, seq, kind),
        )
        row = cur.fetchone()
        return None if row is None else (str(row[0]), int(row[1]), int(row[2]), int(row[3]))

    # -- jackpot operations -----------------------------------------------------------------------

    def contribute(self, *, account: str, table_id: str, seq: int, amount: int | None = None) -> Contribution:
        """Add a contribution from entry ``seq`` of ``table_id`` (default: the account's increment).

        Idempotent by (account, table, seq): a replay returns what the first call did and changes nothing
        (an entry may both contribute and hit: each kind is keyed apart). Past the cap, the excess goes to
        ``overflow`` rather than the meter."""
        if seq < 1:
            raise FloorConfigError(f"seq must be >= 1, not {seq}")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            amount = acc.increment if amount is None else amount
            if amount <= 0:
                raise FloorConfigError(f"a contribution must be positive, not {amount}")
            done = self._recorded(cur, account, table_id, seq, "contribution")
            if done is not None:
                if done[:2] != ("contribution", amount):
                    raise FloorIntegrityError(
                        f"{table_id} entry {seq} is already recorded on {account} as {done[0]} of {done[1]}, "
                        f"not a contribution of {amount}"
                    )
                return Contribution(account, table_id, seq, amount, done[2], done[3], replayed=True)
            self._check_feeds(cur, acc, table_id)
            credited = max(0, min(amount, acc.cap - acc.meter))
            meter = acc.meter + credited
            cur.execute(
                "INSERT INTO jackpot_ops (account, table_id, seq, kind, amount, credited, meter_after, at) "
                "VALUES (%s, %s, %s, 'contribution', %s, %s, %s, %s)",
                (account, table_id, seq, amount, credited, meter, _now()),
            )
            cur.execute(
                "UPDATE accounts SET meter = %s, contributions = contributions + %s, "
                "contribution_count = contribution_count + 1, overflow = overflow + %s WHERE name = %s",
                (meter, credited, amount - credited, account),
            )
            return Contribution(account, table_id, seq, amount, credited, meter, replayed=False)

    def hit(self, *, account: str, table_id: str, seq: int, share_bp: int = FULL_SHARE_BP) -> Hit:
        """Record a hit from entry ``seq`` of ``table_id`` winning ``share_bp``/10,000 of the meter as it
        stands when this transaction takes the account (hits are ordered by that), rounded down to the cent.

        The hit is pending until confirmed; the meter drops at once (other tables play on at the new
        meter) and is topped back up to the reset if it falls below. Idempotent by (account, table, seq)."""
        if seq < 1:
            raise FloorConfigError(f"seq must be >= 1, not {seq}")
        if not 0 < share_bp <= FULL_SHARE_BP:
            raise FloorConfigError(f"a hit's share must be 1..{FULL_SHARE_BP} basis points, not {share_bp}")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            found = self._hit_at(cur, account, table_id, seq)
            if found is not None:
                if found.share_bp != share_bp:
                    raise FloorIntegrityError(
                        f"{table_id} entry {seq} already hit {account} for {found.share_bp} basis points, "
                        f"not {share_bp}"
                    )
                return found
            self._check_feeds(cur, acc, table_id)
            amount = acc.meter * share_bp // FULL_SHARE_BP
            after = acc.meter - amount
            top_up = max(0, acc.reset - after)
            meter = after + top_up
            at = _now()
            hit_no = acc.hits + 1
            cur.execute(
                "INSERT INTO jackpot_ops (account, table_id, seq, kind, amount, credited, meter_after, at) "
                "VALUES (%s, %s, %s, 'hit', %s, %s, %s, %s)",
                (account, table_id, seq, amount, -amount, meter, at),
            )
            cur.execute(
                f"INSERT INTO jackpot_hits ({_HIT_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 'pending', NULL, NULL, NULL, NULL)",
                (account, hit_no, table_id, seq, at, share_bp, acc.meter, amount),
            )
            cur.execute(
                "UPDATE accounts SET meter = %s, hits = %s, won = won + %s, seeded = seeded + %s WHERE name = %s",
                (meter, hit_no, amount, top_up, account),
            )
            self._notify(cur, JACKPOT)
            return Hit(account, hit_no, table_id, seq, at, share_bp, acc.meter, amount, "pending", None, None)

    def _hit_at(self, cur: Cursor, account: str, table_id: str, seq: int) -> Hit | None:
        cur.execute(
            f"SELECT {_HIT_COLUMNS} FROM jackpot_hits WHERE account = %s AND table_id = %s AND seq = %s",
            (account, table_id, seq),
        )
        row = cur.fetchone()
        return None if row is None else Hit(*row)

    def _hit_row(self, cur: Cursor, account: str, hit_no: int) -> Hit:
        cur.execute(
            f"SELECT {_HIT_COLUMNS} FROM jackpot_hits WHERE account = %s AND hit_no = %s" + self._for_update,
            (account, hit_no),
        )
        row = cur.fetchone()
        if row is None:
            raise FloorConfigError(f"account {account} has no hit number {hit_no}")
        return Hit(*row)

    def approve_hit(self, *, account: str, hit_no: int, by: str, second_approval_above: int | None = None) -> Hit:
        """The first of two supervisors approves a pending hit above the jackpot's second-approval amount
        (its own, else ``second_approval_above``, the floor's, both in the account's minor units);
        another supervisor then confirms it (:meth:`confirm_hit`). The same supervisor approving again
        changes nothing.

        Raises:
            FloorConfigError: no such hit, or no supervisor named.
            FloorRefused: the hit is confirmed already, needs no second approval (no amount, or at or below
                it: one supervisor confirms it), or another supervisor approved it already (then confirm it).
        """
        if not by:
            raise FloorConfigError("a hit is approved by a named supervisor")
        with self._transaction(lock=True) as cur:
            hit = self._hit_row(cur, account, hit_no)
            name = f"hit {hit_no} of {account}"
            if hit.status == "confirmed":
                raise FloorRefused(f"{name} is confirmed already (by {hit.confirmed_by})")
            held = self._account(cur, account, lock=False)
            above = held.approval_above(second_approval_above)
            if above is None:
                raise FloorRefused(
                    f"{name} needs no approval: neither jackpot {account} nor this floor has a second-approval "
                    "amount, so one supervisor confirms it"
                )
            if hit.amount <= above:
                raise FloorRefused(
                    f"{name} ({money_text(hit.amount, held)}) is not above {money_text(above, held)}: "
                    "one supervisor confirms it"
                )
            if hit.approved_by == by:
                return hit
            if hit.approved_by is not None:
                raise FloorRefused(f"{name} is approved already by {hit.approved_by}: another supervisor confirms it")
            cur.execute(
                "UPDATE jackpot_hits SET approved_by = %s, approved_at = %s WHERE account = %s AND hit_no = %s",
                (by, _now(), account, hit_no),
            )
            self._notify(cur, JACKPOT)
            return self._hit_row(cur, account, hit_no)

    def confirm_hit(self, *, account: str, hit_no: int, by: str, second_approval_above: int | None = None) -> Hit:
        """A supervisor confirms a pending hit (confirming it again is a no-op that keeps the first confirmation).

        A hit above the jackpot's second-approval amount (its own, else ``second_approval_above``, the
        floor's; the account's minor units) must first be approved (:meth:`approve_hit`) by another
        supervisor; with neither amount, or at or below it, one supervisor confirms it. Whoever approved a
        hit never confirms it too.

        Raises:
            FloorConfigError: no such hit, or no supervisor named.
            FloorRefused: the hit needs a supervisor's approval first, or ``by`` approved it.
        """
        if not by:
            raise FloorConfigError("a hit is confirmed by a named supervisor")
        with self._transaction(lock=True) as cur:
            hit = self._hit_row(cur, account, hit_no)
            if hit.status == "confirmed":
                return hit
            name = f"hit {hit_no} of {account}"
            if hit.approved_by == by:
                raise FloorRefused(
                    f"{by} approved {name} and cannot confirm it too: a second, different supervisor confirms it"
                )
            held = self._account(cur, account, lock=False)
            above = held.approval_above(second_approval_above)
            if above is not None and hit.amount > above and hit.approved_by is None:
                raise FloorRefused(
                    f"{name} ({money_text(hit.amount, held)}) is above {money_text(above, held)}: "
                    "a supervisor approves it first, then a different supervisor confirms it"
                )
            cur.execute(
                "UPDATE jackpot_hits SET status = 'confirmed', confirmed_by = %s, confirmed_at = %s "
                "WHERE account = %s AND hit_no = %s AND status = 'pending'",
                (by, _now(), account, hit_no),
            )
            self._notify(cur, JACKPOT)
            return self._hit_row(cur, account, hit_no)

    def pending_hits(self) -> list[tuple[Hit, str]]:
        """Every pending hit on the floor with its table's pit, oldest first (then by account and order)."""
        columns = ", ".join(f"h.{c.strip()}" for c in _HIT_COLUMNS.split(","))
        with self._transaction(lock=False) as cur:
            cur.execute(
                f"SELECT {columns}, COALESCE(t.pit, '') FROM jackpot_hits h "
                "LEFT JOIN floor_tables t ON t.table_id = h.table_id "
                "WHERE h.status = 'pending' ORDER BY h.at, h.account, h.hit_no"
            )
            return [(Hit(*row[:-1]), str(row[-1])) for row in cur.fetchall()]

    def table_hits(self, *, account: str, table_id: str) -> list[Hit]:
        """Every hit of one table on the account, in order (pending and confirmed)."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                f"SELECT {_HIT_COLUMNS} FROM jackpot_hits WHERE account = %s AND table_id = %s ORDER BY hit_no",
                (account, table_id),
            )
            return [Hit(*row) for row in cur.fetchall()]

    def table_pending_hits(self, *, account: str, table_id: str) -> list[Hit]:
        """One table's hits on the account still awaiting a supervisor, in order (a table's link reads
        these, never the account's whole history)."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                f"SELECT {_HIT_COLUMNS} FROM jackpot_hits WHERE account = %s AND table_id = %s AND status = 'pending' "
                "ORDER BY hit_no",
                (account, table_id),
            )
            return [Hit(*row) for row in cur.fetchall()]

    def hits(self, account: str) -> list[Hit]:
        """The account's hits in order."""
        with self._transaction(lock=False) as cur:
            cur.execute(f"SELECT {_HIT_COLUMNS} FROM jackpot_hits WHERE account = %s ORDER BY hit_no", (account,))
            return [Hit(*row) for row in cur.fetchall()]

    def correct(self, *, account: str, amount: int, ref: int, by: str, reason: str) -> Account:
        """A logged correction of the meter (either sign): the only way besides a hit to lower it.

        ``ref`` numbers the correction (idempotent by it); ``by`` and ``reason`` are kept with it."""
        if amount == 0 or not by or not reason:
            raise FloorConfigError("a correction needs a non-zero amount, who made it and why")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            done = self._recorded(cur, account, "correction", ref, "correction")
            if done is not None:
                if done[:2] != ("correction", amount):
                    raise FloorIntegrityError(f"correction {ref} on {account} was already recorded with another amount")
                return acc
            meter = acc.meter + amount
            if meter < 0:
                raise FloorConfigError(f"a correction of {amount} would take {account}'s meter below zero")
            cur.execute(
                "INSERT INTO jackpot_ops "
                "(account, table_id, seq, kind, amount, credited, meter_after, at, actor, reason) "
                "VALUES (%s, 'correction', %s, 'correction', %s, %s, %s, %s, %s, %s)",
                (account, ref, amount, amount, meter, _now(), by, reason),
            )
            cur.execute(
                "UPDATE accounts SET meter = %s, corrections = corrections + %s WHERE name = %s",
                (meter, amount, account),
            )
            self._notify(cur, JACKPOT)
            return self._account(cur, account, lock=False)

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
        read the new increment and reset and take them between rounds (floor/link.py).

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
            (acc.name, change_no, _now(), by, reason, acc.reset, acc.increment, acc.cap, *new),
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

    def ledger_total(self, account: str) -> tuple[int, int]:
        """(sum credited to the meter by contributions and corrections, sum won by hits) from the op rows."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT COALESCE(SUM(CASE WHEN kind <> 'hit' THEN credited ELSE 0 END), 0), "
                "COALESCE(SUM(CASE WHEN kind = 'hit' THEN amount ELSE 0 END), 0) FROM jackpot_ops WHERE account = %s",
                (account,),
            )
            row = cur.fetchone()
            return int(row[0]), int(row[1])
