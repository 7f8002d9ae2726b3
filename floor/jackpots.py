"""The linked progressives' half of the floor store: ordered hits and their approval, over accounts and meters.

``FloorStore`` inherits it; like the status half it is the same SQL on both backends, and the backend
gives only how a transaction is opened and a row locked. Its layers: ``JackpotAccounts``
(floor/jackpot_accounts.py: accounts, parameters, units) under ``JackpotMeters`` (floor/jackpot_meters.py:
contributions and corrections) under ``JackpotStore`` here (hits).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from controller.sql import Cursor
from floor.errors import FloorConfigError, FloorIntegrityError, FloorRefused
from floor.jackpot_accounts import SCOPES, Account, now_text
from floor.jackpot_meters import Contribution, JackpotMeters
from floor.status import JACKPOT
from floor.units import money_text

__all__ = ["FULL_SHARE_BP", "SCOPES", "Account", "Contribution", "Hit", "JackpotStore"]

FULL_SHARE_BP = 10_000  # a hit's share of the meter in basis points: 10,000 = the whole meter


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


_HIT_COLUMNS = (
    "account, hit_no, table_id, seq, at, share_bp, meter_before, amount, status, confirmed_by, confirmed_at, "
    "approved_by, approved_at"
)


class JackpotStore(JackpotMeters):
    """Linked progressive accounts and their ledger. Every public method runs in one transaction and raises
    ``FloorUnavailable`` when the database fails (nothing applied), ``FloorConfigError`` for unknown names
    or bad parameters and ``FloorIntegrityError`` when a replay differs from what was recorded."""

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
            at = now_text()
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
                (by, now_text(), account, hit_no),
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
                (by, now_text(), account, hit_no),
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
