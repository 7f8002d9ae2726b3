"""Web display settings, read from the environment (``DEALER_ASSIST_WEB_*``) or given in code."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
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
    # Failed sign-ins before a name is refused for lockout_seconds (slows password guessing).
    max_failed_logins: int = Field(default=5, ge=1)
    lockout_seconds: float = Field(default=60.0, ge=0)
    # A supervisor override on a dealer's terminal: how long the action named by the dealer's display
    # waits for the supervisor's credentials before it lapses (it is used once either way).
    override_seconds: float = Field(default=30.0, gt=0, le=600)

    @property
    def accounts_path(self) -> Path:
        return self.data_dir / "accounts.sqlite3"
