"""``agentout serve``: the MCP server, over stdio or streamable HTTP on 127.0.0.1.

The ``mcp`` package is an optional extra and is imported only here, when the command
runs: ``agentout --help`` and ``import agentout`` never load it.
"""

from __future__ import annotations

import logging
import socket
import sys
from typing import TYPE_CHECKING, Any

import click

from agentout.cli._options import fail, reports_errors, tokenizer_option

if TYPE_CHECKING:
    from agentout.mcp.server import ServerConfig

HOST = "127.0.0.1"
# Above the largest argument a tool accepts (8 MiB of text), so that a huge argument gets
# the tool's own error message rather than the transport's 413.
MAX_REQUEST_BYTES = 64 << 20
_SHUTDOWN_SECONDS = 3  # open streams get this long to finish on Ctrl-C / SIGTERM
INSTALL_HINT = "the MCP server needs the mcp extra: pip install 'agentout[mcp]'"


@click.command()
@click.option(
    "--http",
    "port",
    type=click.IntRange(0, 65535),
    default=None,
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT/mcp (0: any free port) instead of stdio.",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="A directory tools may read files under (repeat; default: the working directory).",
)
@click.option(
    "--allow-commands",
    metavar="EXE[,EXE...]",
    default=None,
    help="Turn on run_command for these executables only (by name; no shell).",
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
    roots: tuple[str, ...],
    allow_commands: str | None,
    max_tokens: int,
    tokenizer: str | None,
) -> None:
    """Serve agentout's tools to MCP clients (Claude Code, Cursor, any MCP client).

    Tools: run_tests, query_records, notes_context, count_tokens, read_output,
    cleanup_temp_files, and run_command when --allow-commands names executables. Every
    result fits its max_tokens; what does not fit is kept in the spill store, linked as
    an agentout://spill/ resource, and paged with read_output. Tools read files only
    under the roots or from the spill store.

    \b
    Examples:
      agentout serve
      agentout serve --root ~/src/project --allow-commands git,make
      agentout serve --http 8765
      claude mcp add agentout -- agentout serve --root "$PWD"
    """
    try:
        import mcp  # noqa: F401 - only to tell a missing extra from other import errors
    except ImportError:
        fail(INSTALL_HINT)
    from agentout.mcp.guard import Allowlist, Roots
    from agentout.mcp.server import ServerConfig, create_server
    from agentout.spill import SpillStore
    from agentout.tokens import get_tokenizer

    _quiet_logging()
    config = ServerConfig(
        roots=Roots.of(roots),
        allow=Allowlist.parse(allow_commands),
        store=SpillStore.default(),
        max_tokens=max_tokens,
        tokenizer=get_tokenizer(tokenizer),
    )
    server = create_server(config)
    try:
        if port is None:
            server.run("stdio")
        else:
            _serve_http(server, port, config)
    except KeyboardInterrupt:
        sys.exit(0)


def _quiet_logging() -> None:
    """Warnings and errors only, plainly, on stderr (a stdio client shows it as a log)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("agentout serve: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def listen(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:PORT (0: any free port); exit 2 if it is taken."""
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so, and without
    # it every response waits ~40 ms for a delayed ACK (Nagle's algorithm).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((HOST, port))
    except OSError as exc:
        listener.close()
        fail(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}")
    listener.listen(128)
    return listener


def _serve_http(server: Any, port: int, config: ServerConfig) -> None:
    """Bind first (so port 0 can be reported), then hand the socket to uvicorn."""
    import uvicorn

    listener = listen(port)
    bound = listener.getsockname()[1]
    app = server.streamable_http_app(host=HOST, max_request_body_size=MAX_REQUEST_BYTES)
    uvicorn_config = uvicorn.Config(
        app,
        log_level="warning",
        timeout_graceful_shutdown=_SHUTDOWN_SECONDS,
        lifespan="on",
    )
    roots = ", ".join(str(root) for root in config.roots.dirs)
    click.echo(f"agentout serve: http://{HOST}:{bound}/mcp (roots: {roots})", err=True)
    uvicorn.Server(uvicorn_config).run(sockets=[listener])
