"""MCP over streamable HTTP: the SDK's app, a health endpoint, and a bearer token.

``GET /healthz`` answers ``{"status": "ok"}`` (200) while the server's spill store is a
writable directory, else 503: what a load balancer asks before it sends calls. It tells
nothing else and needs no token.

``AGENTOUT_SERVE_TOKEN``: when set, every other request must carry
``Authorization: Bearer TOKEN`` (compared in constant time) or is refused with 401
before the MCP layer sees it. A server bound beyond loopback refuses to start without
one (``require_token``).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import socket
from typing import Any

import uvicorn
from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    SimpleUser,
)
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from agentout.errors import AgentoutError
from agentout.mcp.calls import Calls
from agentout.store.spill import SpillStore

__all__ = ["HEALTH_PATH", "TOKEN_ENV", "http_app", "is_loopback", "require_token", "run_http"]

HEALTH_PATH = "/healthz"
TOKEN_ENV = "AGENTOUT_SERVE_TOKEN"
# Above the largest argument a tool accepts (8 MiB of text), so that a huge argument gets
# the tool's own error message rather than the transport's 413.
MAX_REQUEST_BYTES = 64 << 20
_MIN_TOKEN = 16  # characters: a shorter secret is guessed too easily
_SHUTDOWN_SECONDS = 3  # open streams get this long to finish on a stop


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine can reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_token(host: str) -> str | None:
    """The token from the environment; refused when too short, or missing beyond loopback."""
    token = os.environ.get(TOKEN_ENV) or None
    if token is not None and len(token) < _MIN_TOKEN:
        raise AgentoutError(f"${TOKEN_ENV} is too short: use at least {_MIN_TOKEN} characters")
    if token is None and not is_loopback(host):
        raise AgentoutError(
            f"--host {host} reaches beyond this machine: set ${TOKEN_ENV} (a secret of at "
            f"least {_MIN_TOKEN} characters) so that only clients holding it are served"
        )
    return token


def http_app(
    server: Any, store: SpillStore, *, host: str, token: str | None, stateless: bool
) -> Any:
    """The ASGI app: MCP at ``/mcp``, ``/healthz``, and the token check when given."""

    async def healthz(_request: Request) -> Response:
        ready = store.root.is_dir() and os.access(store.root, os.W_OK | os.X_OK)
        return JSONResponse({"status": "ok" if ready else "unavailable"}, 200 if ready else 503)

    server.custom_route(HEALTH_PATH, methods=["GET"], include_in_schema=False)(healthz)
    app = server.streamable_http_app(
        host=host, max_request_body_size=MAX_REQUEST_BYTES, stateless_http=stateless
    )
    if token is not None:
        app.add_middleware(AuthenticationMiddleware, backend=_Bearer(token), on_error=_refused)
    return app


class _Bearer(AuthenticationBackend):
    def __init__(self, token: str) -> None:
        self._expected = token.encode("utf-8")

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, SimpleUser] | None:
        if conn.url.path == HEALTH_PATH:
            return None
        scheme, _, given = conn.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode("utf-8"), self._expected
        ):
            raise AuthenticationError("a valid bearer token is required")
        return AuthCredentials(["mcp"]), SimpleUser("token")


def _refused(_conn: HTTPConnection, exc: AuthenticationError) -> Response:
    return JSONResponse(
        {"error": "unauthorized", "message": str(exc)},
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="agentout"'},
    )


def run_http(app: Any, listener: socket.socket, calls: Calls) -> None:
    """Serve ``app`` on ``listener`` until SIGTERM or SIGINT; the calls in flight are
    stopped at once, open streams get a few seconds to finish."""
    config = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=_SHUTDOWN_SECONDS, lifespan="on"
    )
    _StoppingServer(config, calls).run(sockets=[listener])


class _StoppingServer(uvicorn.Server):
    """uvicorn's server, stopping the calls in flight as soon as it is told to stop."""

    def __init__(self, config: uvicorn.Config, calls: Calls) -> None:
        super().__init__(config)
        self.calls = calls

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.calls.stop()
        super().handle_exit(sig, frame)
