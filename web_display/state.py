"""What the app holds while it runs: settings, tables, the account store, sign-in throttling and the live hub."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from web_display.accounts import AccountStore
from web_display.core.config import Settings
from web_display.core.throttle import FailedSignIns, HashGate, LoginThrottle
from web_display.errors import ServerError
from web_display.override import OverrideGrants

if TYPE_CHECKING:
    from controller.table import TableService
    from controller.telemetry import TableMetrics
    from web_display.api.routes.metrics import WebMetrics
    from web_display.live import Hub


@dataclass(slots=True)
class AppState:
    """One per app; routes reach it through the dependencies in ``api.deps``."""

    settings: Settings
    tables: Mapping[str, TableService]
    accounts: AccountStore
    throttle: LoginThrottle
    failures: FailedSignIns
    metrics: TableMetrics
    web_metrics: WebMetrics | None = field(default=None)
    hub_: Hub | None = field(default=None)
    gate_: HashGate | None = field(default=None)
    overrides: OverrideGrants = field(default_factory=OverrideGrants)
    device_secret_: bytes | None = field(default=None)

    @property
    def hub(self) -> Hub:
        """The live hub (made when the server starts, on its event loop).

        Raises:
            ServerError: the app is not running (no event loop yet).
        """
        if self.hub_ is None:
            raise ServerError("the live feed is not running (the app has not started)")
        return self.hub_

    @property
    def gate(self) -> HashGate:
        """The bound on concurrent password hashing (made on the server's event loop).

        Raises:
            ServerError: the app is not running.
        """
        if self.gate_ is None:
            raise ServerError("the app has not started")
        return self.gate_

    def device_secret(self) -> bytes:
        """The store's key for trusted-device cookies, read once: when the app starts, or at the first
        sign-in if the store (the floor's database) could not be reached then. Reads the store: call it
        off the event loop until it has been read.

        Raises:
            AccountError: the store cannot be read (``AccountStoreUnavailable``: the floor is down).
        """
        if self.device_secret_ is None:
            self.device_secret_ = self.accounts.server_secret()
        return self.device_secret_

    def count_sign_in(self, outcome: str) -> None:
        if self.web_metrics is not None:
            self.web_metrics.sign_ins.labels(outcome=outcome).inc()
