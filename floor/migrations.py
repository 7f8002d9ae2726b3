"""The floor schema's numbered migrations: applied in order, each once, recorded in ``schema_version``."""

from __future__ import annotations

# An account with no unit yet ('') takes the one every table that has fed it (contributed to it or hit it)
# is registered in, when they all agree and all are known; otherwise it keeps '' and no table plays it
# until a supervisor sets its unit (``FloorStore.set_unit``). Run by migration 7 and whenever a table
# registers its unit for the first time (``FloorStore.add_table``): the same statement on both backends.
FILL_ACCOUNT_UNITS = """UPDATE accounts SET
    currency = (SELECT MIN(t.currency) FROM jackpot_ops o JOIN floor_tables t ON t.table_id = o.table_id
                WHERE o.account = accounts.name AND o.kind IN ('contribution', 'hit')),
    minor_units = (SELECT MIN(t.minor_units) FROM jackpot_ops o JOIN floor_tables t ON t.table_id = o.table_id
                   WHERE o.account = accounts.name AND o.kind IN ('contribution', 'hit'))
    WHERE currency = '' AND EXISTS (
        SELECT 1 FROM jackpot_ops o LEFT JOIN floor_tables t ON t.table_id = o.table_id
        WHERE o.account = accounts.name AND o.kind IN ('contribution', 'hit')
        GROUP BY o.account
        HAVING MIN(COALESCE(t.currency, '')) <> ''
            AND MIN(COALESCE(t.currency, '')) = MAX(COALESCE(t.currency, ''))
            AND MIN(COALESCE(t.minor_units, -1)) = MAX(COALESCE(t.minor_units, -1)))"""

# SQL common to SQLite and PostgreSQL. Amounts are integer cents (BIGINT); times are ISO 8601 UTC text.
# Never edit a shipped migration: add the next number.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            """CREATE TABLE floor_tables (
                table_id TEXT PRIMARY KEY,
                pit TEXT NOT NULL,
                game TEXT NOT NULL)""",
            """CREATE TABLE accounts (
                name TEXT PRIMARY KEY,
                scope TEXT NOT NULL CHECK (scope IN ('floor', 'pit', 'game')),
                scope_value TEXT NOT NULL,
                reset BIGINT NOT NULL CHECK (reset >= 0),
                increment BIGINT NOT NULL CHECK (increment > 0),
                cap BIGINT NOT NULL,
                meter BIGINT NOT NULL,
                seeded BIGINT NOT NULL,
                contributions BIGINT NOT NULL DEFAULT 0,
                contribution_count BIGINT NOT NULL DEFAULT 0,
                overflow BIGINT NOT NULL DEFAULT 0,
                hits BIGINT NOT NULL DEFAULT 0,
                won BIGINT NOT NULL DEFAULT 0,
                corrections BIGINT NOT NULL DEFAULT 0,
                CHECK (cap >= reset),
                CHECK (meter >= 0))""",
            # One row per (account, table, seq, kind): what makes contributions, hits and corrections idempotent.
            """CREATE TABLE jackpot_ops (
                account TEXT NOT NULL REFERENCES accounts(name),
                table_id TEXT NOT NULL,
                seq BIGINT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('contribution', 'hit', 'correction')),
                amount BIGINT NOT NULL,
                credited BIGINT NOT NULL,
                meter_after BIGINT NOT NULL,
                at TEXT NOT NULL,
                actor TEXT NOT NULL DEFAULT '',
                reason TEXT NOT NULL DEFAULT '',
                PRIMARY KEY (account, table_id, seq, kind))""",
            # hit_no: the order in which the hits' transactions took the account's lock.
            """CREATE TABLE jackpot_hits (
                account TEXT NOT NULL REFERENCES accounts(name),
                hit_no BIGINT NOT NULL,
                table_id TEXT NOT NULL,
                seq BIGINT NOT NULL,
                at TEXT NOT NULL,
                share_bp BIGINT NOT NULL,
                meter_before BIGINT NOT NULL,
                amount BIGINT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed')),
                confirmed_by TEXT,
                confirmed_at TEXT,
                PRIMARY KEY (account, hit_no),
                UNIQUE (account, table_id, seq))""",
            # Each table's replicated journal (docs/journal.md): inserted once, never updated.
            """CREATE TABLE journal (
                table_id TEXT NOT NULL,
                seq BIGINT NOT NULL,
                kind TEXT NOT NULL,
                data TEXT NOT NULL,
                actor TEXT NOT NULL,
                at TEXT NOT NULL,
                hash TEXT NOT NULL,
                PRIMARY KEY (table_id, seq))""",
        ),
    ),
    # Central accounts (issue 13): staff who sign in at any table and at the floor display, their sessions
    # (ids stored hashed) and the audit log of sign-ins and account changes. The jackpot's `accounts` came
    # first, hence `staff_`. "user" is quoted: PostgreSQL reserves the word.
    (
        2,
        (
            """CREATE TABLE staff_accounts (
                name TEXT PRIMARY KEY,
                role TEXT NOT NULL CHECK (role IN ('dealer', 'supervisor', 'admin')),
                password TEXT NOT NULL,
                created_at TEXT NOT NULL)""",
            """CREATE TABLE staff_sessions (
                id_hash TEXT PRIMARY KEY,
                "user" TEXT NOT NULL,
                role TEXT NOT NULL,
                csrf TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                last_used DOUBLE PRECISION NOT NULL)""",
            'CREATE INDEX staff_sessions_by_user ON staff_sessions ("user")',
            # seq: numbered by the writer under a lock (PostgreSQL) or the write lock (SQLite), in commit order.
            """CREATE TABLE staff_audit (
                seq BIGINT PRIMARY KEY,
                at TEXT NOT NULL,
                who TEXT NOT NULL,
                action TEXT NOT NULL,
                detail TEXT NOT NULL DEFAULT '')""",
            """CREATE TABLE staff_secret (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                secret TEXT NOT NULL)""",
        ),
    ),
    (
        3,
        (
            # A hit above the floor service's second-approval amount needs two different supervisors:
            # the first approves, another confirms (docs/floor.md, "The floor service").
            "ALTER TABLE jackpot_hits ADD COLUMN approved_by TEXT",
            "ALTER TABLE jackpot_hits ADD COLUMN approved_at TEXT",
            # Each table's latest status as it reports it every replication pass. ``version`` grows only
            # when something shown changes (not on a heartbeat): what the SQLite poller compares.
            """CREATE TABLE table_status (
                table_id TEXT PRIMARY KEY REFERENCES floor_tables(table_id),
                phase TEXT NOT NULL,
                round_no BIGINT NOT NULL,
                tilts TEXT NOT NULL,
                progressive TEXT NOT NULL CHECK (progressive IN ('open', 'closed', 'none')),
                updated_at TEXT NOT NULL,
                version BIGINT NOT NULL)""",
            # Rounds in the last hour per table: a short range of this index, not a scan of the journal.
            "CREATE INDEX journal_rounds ON journal (table_id, kind, at)",
        ),
    ),
    (
        4,
        (
            # Every change of a linked progressive's parameters, with who and why (NJ 1.39A: parameters
            # are changed only by a logged procedure). Tables take the new contribution and reset
            # between rounds (docs/floor.md, "Changing a jackpot's parameters").
            """CREATE TABLE account_changes (
                account TEXT NOT NULL REFERENCES accounts(name),
                change_no BIGINT NOT NULL,
                at TEXT NOT NULL,
                actor TEXT NOT NULL,
                reason TEXT NOT NULL,
                old_reset BIGINT NOT NULL,
                old_increment BIGINT NOT NULL,
                old_cap BIGINT NOT NULL,
                reset BIGINT NOT NULL,
                increment BIGINT NOT NULL,
                cap BIGINT NOT NULL,
                PRIMARY KEY (account, change_no))""",
            # The name the table's dealers and supervisors know it by (its id is its journal's).
            "ALTER TABLE floor_tables ADD COLUMN name TEXT NOT NULL DEFAULT ''",
        ),
    ),
    (
        5,
        (
            # The table's camera as its status report gives it (JSON text: state, fps, the last frame's age
            # at the write and the write's time, zones watched and covered); NULL: the table has no camera.
            "ALTER TABLE table_status ADD COLUMN camera TEXT",
        ),
    ),
    (
        6,
        (
            # The unit of account each table's amounts are in (its configuration's ``currency`` and
            # ``minor_units``): reports add up money per currency, never across two. A table registered before
            # this migration reads '' (not reported yet) until it registers again, which fills in its own; a
            # report meanwhile takes the unit from the table's latest replicated "configured" entry.
            "ALTER TABLE floor_tables ADD COLUMN currency TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE floor_tables ADD COLUMN minor_units BIGINT NOT NULL DEFAULT 0",
        ),
    ),
    (
        7,
        (
            # The unit of account a linked progressive's meter, contributions and hits are in. Only tables in
            # that currency and with those decimals feed it (a table in another is refused at its link): a
            # meter fed in two currencies adds euros to dollars. Existing accounts get the unit of the tables
            # that fed them when those agree (FILL_ACCOUNT_UNITS), else '' = not set: none plays it until a
            # supervisor sets it (``dealer-assist jackpot set --currency``), as guessing would relabel a meter.
            "ALTER TABLE accounts ADD COLUMN currency TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE accounts ADD COLUMN minor_units BIGINT NOT NULL DEFAULT 0",
            FILL_ACCOUNT_UNITS,
        ),
    ),
    (
        8,
        (
            # A jackpot's own second-approval amount, in its own unit: above it a hit needs two different
            # supervisors. NULL: the floor service's --second-approval-above applies (one number, which means
            # different sums on a floor whose jackpots are in different currencies).
            "ALTER TABLE accounts ADD COLUMN second_approval_above BIGINT",
        ),
    ),
)
