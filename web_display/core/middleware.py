"""The app's own ASGI middleware: security headers on every answer, and body limits on every route.

Body limits: a declared length over the limit is refused before a byte is read, and a body sent without
one is cut off as soon as it passes the limit (HTTP 413 either way). Both are plain ASGI (not Starlette's
BaseHTTPMiddleware, which would wrap a route's BodyTooLarge in an exception group and turn it into a 400).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """The request body passed the route's limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=f"request body too large (at most {limit} bytes here)")


class BodyLimit:
    """ASGI middleware: ``limit_for(scope)`` gives each request's limit in bytes.

    The route reads the body through the limited ``receive``; its BodyTooLarge is answered by the app's
    error handlers in the documented shape. Nothing past the limit is ever held in memory.
    """

    def __init__(self, app: ASGIApp, *, limit_for: Callable[[Scope], int], headers: dict[str, str]) -> None:
        self.app = app
        self.limit_for = limit_for
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = _content_length(scope)
        if declared is not None and (declared < 0 or declared > limit):
            await self._refuse(send, limit)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited, send)

    async def _refuse(self, send: Send, limit: int) -> None:
        body = json.dumps({"error": BodyTooLarge(limit).detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        # The unread body is not drained: the server closes the connection after this answer.
        headers += [(b"connection", b"close")]
        headers += [(k.lower().encode(), v.encode()) for k, v in self.headers.items()]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    """The declared body length; -1 when the header is not a number (refused as too large)."""
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            text: Any = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else -1
    return None


class SecurityHeaders:
    """ASGI middleware: fixed headers on every answer (kept if the route set its own), HSTS over https,
    and no caching of API answers."""

    def __init__(self, app: ASGIApp, *, headers: dict[str, str], hsts: str | None) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        self.hsts = hsts.encode() if hsts else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = list(self.headers)
        if self.hsts is not None and scope.get("scheme") == "https":
            extra.append((b"strict-transport-security", self.hsts))
        api = scope["path"].startswith("/api/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if not (api and k == b"cache-control")]
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in extra if k not in present]
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
