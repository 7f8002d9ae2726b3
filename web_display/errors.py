"""The web display's exception hierarchy: every refusal carries the HTTP status and a clear message."""

from __future__ import annotations


class WebError(Exception):
    """Base of every error the web display raises on purpose; ``status`` is the HTTP status to answer."""

    status: int = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotAuthenticated(WebError):
    """No valid session: sign in first."""

    status = 401


class WrongCredentials(WebError):
    """A sign-in with an unknown name or a wrong password (the message never says which)."""

    status = 401


class Forbidden(WebError):
    """The signed-in user's role may not do this."""

    status = 403


class CsrfRefused(WebError):
    """A state-changing request without the session's CSRF token, or with a wrong one."""

    status = 403


class NotFound(WebError):
    """No such table, round, account or page."""

    status = 404


class InvalidInput(WebError):
    """A request body that cannot be read as asked (e.g. a configuration that is not TOML)."""

    status = 422


class AccountError(WebError):
    """An account that cannot be added, changed or removed as asked (the message says why)."""

    status = 400


class ServerError(WebError):
    """The web server could not start or stop (e.g. the port is taken)."""

    status = 500


class AccountStoreUnavailable(AccountError):
    """The account store's database cannot be reached or failed mid-operation (nothing was applied):
    sign-ins and account changes wait for it to come back."""

    status = 503
