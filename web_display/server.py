"""Serve the app with uvicorn inside this process, in a thread, so the demo runs table, shoe and web together."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from dataclasses import dataclass, field

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
    stopped: bool = field(default=False)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

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


def serve(app: FastAPI, *, host: str = "127.0.0.1", port: int = 8000, start_timeout: float = 10.0) -> ServerHandle:
    """Start serving ``app`` on host:port (port 0: any free port) in a daemon thread; returns once it listens.

    Raises:
        ServerError: the address cannot be bound, or the server did not start in time.
    """
    try:
        sock = socket.create_server((host, port), reuse_port=False)
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
        lifespan="on",
        timeout_graceful_shutdown=2,
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
    return ServerHandle(host=host, port=bound_port, server=server, thread=thread)
