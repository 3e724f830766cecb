"""``agentout serve``: the MCP server, over stdio or streamable HTTP.

The ``mcp`` package is an optional extra and is imported only here, when the command
runs: ``agentout --help`` and ``import agentout`` never load it.

Stopping: SIGTERM, SIGINT or SIGHUP (and, over stdio, the end of stdin) stop the calls
in flight and end every process group a call started: SIGTERM, then SIGKILL after a
grace period or at a second signal.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

import click

from agentout.agents._common import MCP_HINT
from agentout.cli._options import fail, reports_errors, tokenizer_option

if TYPE_CHECKING:
    from agentout.mcp.calls import Calls
    from agentout.mcp.config import ServerConfig

HOST = "127.0.0.1"
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
INSTALL_HINT = MCP_HINT


def _check_namespace(_ctx: Any, _param: Any, value: str | None) -> str | None:
    from agentout.store.spill import NAMESPACE_PATTERN

    if value is not None and not NAMESPACE_PATTERN.match(value):
        raise click.BadParameter("use 1-64 of a-z, 0-9, '_' and '-', starting with a-z or 0-9")
    return value


@click.command()
@click.option(
    "--http",
    "port",
    type=click.IntRange(0, 65535),
    default=None,
    metavar="PORT",
    help="Serve streamable HTTP on HOST:PORT/mcp (0: any free port) instead of stdio.",
)
@click.option(
    "--host",
    default=HOST,
    metavar="HOST",
    show_default=True,
    help="The address --http listens on; beyond loopback only with $AGENTOUT_SERVE_TOKEN set.",
)
@click.option(
    "--stateless",
    is_flag=True,
    help="Over HTTP, answer each request on its own (no sessions), so that any replica "
    "behind a load balancer can answer any call.",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="DIR",
    help="A directory tools may read files under (repeat; default: the working directory).",
)
@click.option(
    "--allow-commands",
    metavar="EXE[,EXE...]",
    default=None,
    help="Turn on run_command for these executables only (by name; no shell).",
)
@click.option(
    "--namespace",
    metavar="NAME",
    default=None,
    callback=_check_namespace,
    help="The server's part of the spill store (default: named after the roots, so "
    "servers over the same roots share it and others never see it).",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=200, max=200_000),
    default=5000,
    show_default=True,
    help="Budget of a result when a call gives no max_tokens.",
)
@tokenizer_option
@reports_errors
def serve(
    port: int | None,
    host: str,
    stateless: bool,
    roots: tuple[str, ...],
    allow_commands: str | None,
    namespace: str | None,
    max_tokens: int,
    tokenizer: str | None,
) -> None:
    """Serve agentout's tools to MCP clients (Claude Code, Cursor, any MCP client).

    Tools: run_tests, query_records, notes_context, count_tokens, read_output,
    cleanup_temp_files, and run_command when --allow-commands names executables. Every
    result fits its max_tokens; what does not fit is kept in the server's part of the
    spill store, linked as an agentout://spill/ resource, and paged with read_output.
    Tools read files only under the roots or from the server's store.

    \b
    Examples:
      agentout serve
      agentout serve --root ~/src/project --allow-commands git,make
      agentout serve --http 8765
      AGENTOUT_SERVE_TOKEN=... agentout serve --http 8765 --host 0.0.0.0 --stateless
      claude mcp add agentout -- agentout serve --root "$PWD"
    """
    try:
        import mcp  # noqa: F401 - only to tell a missing extra from other import errors
    except ImportError:
        fail(INSTALL_HINT)
    from agentout.mcp.config import ServerConfig, namespace_for
    from agentout.mcp.guard import Allowlist, Roots
    from agentout.mcp.http import require_token
    from agentout.mcp.server import create_server
    from agentout.store.spill import SpillStore
    from agentout.tokens import get_tokenizer

    if port is None and (host != HOST or stateless):
        fail("--host and --stateless are for --http; over stdio there is nothing to bind")
    _quiet_logging()
    token = require_token(host) if port is not None else None
    checked = Roots.of(roots)
    config = ServerConfig(
        roots=checked,
        allow=Allowlist.parse(allow_commands),
        store=SpillStore.default().namespace(namespace or namespace_for(checked)),
        max_tokens=max_tokens,
        tokenizer=get_tokenizer(tokenizer),
    )
    server = create_server(config)
    try:
        if port is None:
            _serve_stdio(server, config.calls)
        else:
            _serve_http(server, config, host, port, token, stateless)
    finally:
        _end_children()


def _quiet_logging() -> None:
    """Warnings and errors only, plainly, on stderr (a stdio client shows it as a log)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("agentout serve: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def _serve_stdio(server: Any, calls: Calls) -> None:
    import anyio

    from agentout.mcp.stdio import serve_stdio

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_stop_on_signal, calls, tasks.cancel_scope)
            await serve_stdio(server, calls)
            tasks.cancel_scope.cancel()

    anyio.run(main)


async def _stop_on_signal(calls: Calls, scope: Any) -> None:
    import anyio

    with anyio.open_signal_receiver(*_STOP_SIGNALS) as received:
        async for _ in received:
            calls.stop()
            scope.cancel()
            return


def _end_children() -> None:
    """End every process group a call started: SIGTERM, then SIGKILL after the grace
    period, or at once on another signal."""
    from agentout import process

    def at_once(_signum: int, _frame: Any) -> None:
        process.end_all(grace=0)

    for sig in _STOP_SIGNALS:
        signal.signal(sig, at_once)
    process.end_all(process.GRACE_SECONDS)


def listen(port: int, host: str = HOST) -> socket.socket:
    """A listening socket on HOST:PORT (0: any free port); exit 2 if it cannot be had."""
    try:
        family, _, _, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )[0]
    except (OSError, UnicodeError) as exc:
        fail(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}")
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so, and without
    # it every response waits ~40 ms for a delayed ACK (Nagle's algorithm).
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
    except OSError as exc:
        listener.close()
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    listener.listen(128)
    return listener


def _serve_http(
    server: Any, config: ServerConfig, host: str, port: int, token: str | None, stateless: bool
) -> None:
    """Bind first (so port 0 can be reported), then hand the socket to uvicorn."""
    from agentout.mcp.http import http_app, run_http

    listener = listen(port, host)
    bound = listener.getsockname()[1]
    app = http_app(server, config.store, host=host, token=token, stateless=stateless)
    roots = ", ".join(str(root) for root in config.roots.dirs)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"agentout serve: http://{shown}:{bound}/mcp (roots: {roots})", err=True)
    run_http(app, listener, config.calls)
