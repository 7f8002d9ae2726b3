"""Serve the app with uvicorn inside this process, in a thread, so the demo runs table, shoe and web together."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from web_display.errors import ServerError


@dataclass(slots=True)
class ServerHandle:
    """A running server: its address, and ``stop()`` to shut it down (waits for the thread)."""

    host: str
    port: int
    server: uvicorn.Server
    thread: threading.Thread
    tls: bool = False
    stopped: bool = field(default=False)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    @property
    def alive(self) -> bool:
        """The server thread still serves (for the service watchdog)."""
        return self.thread.is_alive() and not self.stopped

    def stop(self, *, timeout: float = 10.0) -> None:
        """Stop accepting, close live connections, wait for the thread.

        Raises:
            ServerError: the server thread did not end within ``timeout`` seconds.
        """
        if self.stopped:
            return
        self.server.should_exit = True
        self.thread.join(timeout)
        if self.thread.is_alive():
            self.server.force_exit = True
            self.thread.join(timeout)
            if self.thread.is_alive():
                raise ServerError(f"the web server on {self.url} did not stop within {2 * timeout:.0f}s")
        self.stopped = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Tls:
    """The server's certificate chain and private key (PEM files): serve https."""

    cert: Path
    key: Path

    def check(self) -> None:
        """Raises ServerError: a file is missing, unreadable, not PEM, or the key does not match."""
        for path in (self.cert, self.key):
            if not path.is_file():
                raise ServerError(f"TLS: {path}: no such file")
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(self.cert, self.key)
        except (ssl.SSLError, OSError) as exc:
            raise ServerError(f"TLS: cannot use certificate {self.cert} with key {self.key}: {exc}") from None


def serve(
    app: FastAPI,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    start_timeout: float = 10.0,
    tls: Tls | None = None,
    forwarded_allow_ips: str | None = None,
) -> ServerHandle:
    """Start serving ``app`` on host:port (port 0: any free port) in a daemon thread; returns once it listens.

    ``tls``: serve https with this certificate. ``forwarded_allow_ips``: the reverse proxies (comma-
    separated addresses, "*" for any) whose X-Forwarded-For and X-Forwarded-Proto are believed: the
    client's address (sign-in throttling) and scheme (Secure cookies, HSTS) then come from them. None:
    no proxy, the headers are ignored.

    Raises:
        ServerError: the address cannot be bound, the TLS files cannot be used, or the server did
            not start in time.
    """
    if tls is not None:
        tls.check()
    try:
        sock = socket.create_server((host, port), reuse_port=False)
        # Inherited by every accepted connection. Without it a response written in two parts (headers,
        # body) waits out the client's delayed ACK: every request took ~44 ms instead of ~2 ms.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as exc:
        raise ServerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        ws="websockets-sansio",
        # Snapshots are small and go to many clients on a LAN: compressing each copy costs more than it saves.
        ws_per_message_deflate=False,
        # The displays send nothing but a close: a large message is an attack, not a display.
        ws_max_size=4096,
        lifespan="on",
        timeout_graceful_shutdown=2,
        ssl_certfile=str(tls.cert) if tls else None,
        ssl_keyfile=str(tls.key) if tls else None,
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips or "",
        server_header=False,
    )
    server = uvicorn.Server(config)
    # Off the main thread uvicorn leaves signals alone: Ctrl-C stays the demo's to handle.

    def run() -> None:
        asyncio.run(server.serve(sockets=[sock]))

    thread = threading.Thread(target=run, name=f"web:{bound_port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise ServerError(f"the web server on {host}:{bound_port} did not start")
        time.sleep(0.01)
    return ServerHandle(host=host, port=bound_port, server=server, thread=thread, tls=tls is not None)
