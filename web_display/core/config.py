"""Web display settings, read from the environment (``DEALER_ASSIST_WEB_*``) or given in code."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the app needs besides its tables. Keyword-only, typed, validated on construction.

    ``secure_cookies``: mark the session cookie Secure. Leave it None to decide per request (Secure when
    the request came over https), True behind a TLS-terminating proxy that forwards plain http.
    """

    model_config = SettingsConfigDict(env_prefix="DEALER_ASSIST_WEB_", frozen=True, extra="forbid")

    data_dir: Path = Field(default=Path("data"), description="holds accounts.sqlite3 (accounts and audit log)")
    session_cookie: str = "da_session"
    session_hours: float = Field(default=12.0, gt=0, description="a session ends this long after its last use")
    secure_cookies: bool | None = None
    # Origins allowed to open a websocket or post, besides the page's own (scheme://host of the request).
    allowed_origins: tuple[str, ...] = ()
    # A live client whose unsent backlog passes this many distinct items, or whose send takes longer than
    # send_timeout, is dropped: it reconnects and gets a fresh snapshot; the table never waits for it.
    client_queue: int = Field(default=64, ge=1)
    send_timeout: float = Field(default=2.0, gt=0)
    # The floor lists a finished box as a large payout when its net win is at least this many minimum bets.
    large_payout_bets: int = Field(default=20, ge=1)
    # How often the app lets time pass at its tables (decision timers, e.g. Casino Hold'em's); 0: never
    # (then whoever runs the tables calls TableService.tick()).
    tick_seconds: float = Field(default=1.0, ge=0)
    # Sign-in throttling (web_display.core.throttle): failed sign-ins allowed per source address (or per
    # trusted device) before each further one doubles the wait, from login_first_delay to login_max_delay;
    # per account name, for browsers that never signed in as it, account_free_failures.
    login_free_failures: int = Field(default=5, ge=1)
    account_free_failures: int = Field(default=20, ge=1)
    login_first_delay: float = Field(default=1.0, gt=0)
    login_max_delay: float = Field(default=300.0, gt=0)
    device_cookie: str = "da_device"
    # Password hashes (argon2id, 64 MiB each) at once, and sign-ins allowed to wait for one; more are
    # refused with 503 rather than queued (memory and CPU stay bounded whatever arrives).
    hash_concurrency: int = Field(default=1, ge=1)
    hash_queue: int = Field(default=8, ge=0)
    # Request bodies on every route (HTTP 413 beyond); the configuration upload has its own, larger
    # limit (web_display.api.routes.tables.MAX_CONFIG_BYTES).
    max_body_bytes: int = Field(default=32 * 1024, ge=1024)
    # Live connections one account may hold open at once (its oldest are not dropped: new ones are refused).
    ws_per_account: int = Field(default=16, ge=1)
    # How often live connections are checked against the session store (sessions ended elsewhere,
    # e.g. by `dealer-assist user passwd` in another process, close their sockets within this time).
    session_check_seconds: float = Field(default=2.0, gt=0)
    # Strict-Transport-Security max-age sent over https (0: none).
    hsts_seconds: int = Field(default=31_536_000, ge=0)
    # Bearer token for GET /metrics from other machines; without it only this machine may scrape.
    metrics_token: SecretStr | None = None
    # A supervisor override on a dealer's terminal: how long the action named by the dealer's display
    # waits for the supervisor's credentials before it lapses (it is used once either way).
    override_seconds: float = Field(default=30.0, gt=0, le=600)

    @property
    def accounts_path(self) -> Path:
        return self.data_dir / "accounts.sqlite3"
