"""``agentout serve`` as a command: the optional extra, startup errors, light imports."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.cli.main import cli
from agentout.mcp.child import SERVE
from processes import without_agentout_settings

_WITHOUT_MCP = """
import sys
sys.modules["mcp"] = None  # as if the extra were not installed: `import mcp` fails
from agentout.cli.main import cli
cli(["serve"], prog_name="agentout")
"""


def test_without_the_extra_it_says_how_to_install_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_MCP],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "agentout: the MCP server needs agentout's mcp extra: in agentout's folder, "
        "uv tool install --reinstall '.[mcp]' (or pipx install --force '.[mcp]')\n"
    )
    assert done.stdout == ""


_HELP = """
from agentout.cli.main import cli
try:
    cli({args})
except SystemExit:
    pass
"""
_IMPORTED = """
import json, sys
{code}
print(json.dumps(sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp."))))
"""


@pytest.mark.parametrize(
    "code",
    [
        "import agentout",
        "import agentout.cli.serve",
        "import agentout.mcp",
        "import agentout.mcp.fit",
        _HELP.format(args=["--help"]),
        _HELP.format(args=["serve", "--help"]),
    ],
    ids=["import", "import-command", "import-package", "import-fit", "help", "serve-help"],
)
def test_the_sdk_is_not_imported_until_the_server_runs(code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTED.format(code=code)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_probe_would_see_the_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTED.format(code="import agentout.mcp.server")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "mcp" in json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--allow-commands", "no-such-exe-here"], "no-such-exe-here: no such executable on PATH"),
        (["--root", "/no/such/dir"], "--root /no/such/dir: no such folder"),
        (["--root", __file__], f"--root {__file__}: is a file, not a folder"),
        (["--max-tokens", "10"], "10 is not in the range 200<=x<=200000"),
        (["--tokenizer", "nope"], "unknown tokenizer 'nope'"),
        (["--host", "0.0.0.0"], "--host and --stateless are for --http"),
        (["--stateless"], "--host and --stateless are for --http"),
    ],
)
def test_bad_startup_options_exit_2_without_a_traceback(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["serve", *args], prog_name="agentout")
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_port_in_use_is_reported(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*SERVE, "--http", str(port), "--root", str(tmp_path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"agentout: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in done.stderr


def test_a_stdio_server_ends_when_its_input_does(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SERVE, "--root", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stdout == ""


def test_connections_to_the_listener_send_without_delay() -> None:
    """asyncio sets TCP_NODELAY only on sockets created as IPPROTO_TCP; without it every
    HTTP response waited ~40 ms for a delayed ACK (measured: 44 ms a call, then 1.8 ms)."""
    from agentout.cli.serve import listen

    async def accepted_nodelay() -> int:
        seen: list[int] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        listener = listen(0)
        server = await asyncio.start_server(handle, sock=listener)
        async with server:
            _, writer = await asyncio.open_connection(*listener.getsockname())
            for _ in range(200):
                if seen:
                    break
                await asyncio.sleep(0.01)
            writer.close()
        return seen[0]

    assert asyncio.run(accepted_nodelay()) != 0


def test_a_bad_namespace_is_refused_before_anything_is_served() -> None:
    result = CliRunner().invoke(cli, ["serve", "--namespace", "../up"], prog_name="agentout")
    assert result.exit_code == 2
    assert "Invalid value for '--namespace'" in result.output


def test_the_namespace_option_names_the_servers_part_of_the_store(
    tmp_path: Path, spill_dir: Path
) -> None:
    rows = "".join(f'{{"n": {i}, "pad": "{"x" * 20}"}}\n' for i in range(2000))
    (tmp_path / "rows.jsonl").write_text(rows)  # over the inline threshold: kept
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "query_records", "arguments": {"paths": ["rows.jsonl"]}},
    }
    opening = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    env = without_agentout_settings()
    env["AGENTOUT_SPILL_DIR"] = str(spill_dir)
    done = subprocess.run(
        [*SERVE, "--root", str(tmp_path), "--namespace", "team-a"],
        input="".join(json.dumps(m) + "\n" for m in (opening, call)),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    kept = sorted(p.name for p in (spill_dir / "namespaces" / "team-a").iterdir())
    assert len(kept) == 1
    assert kept[0].startswith("records-")
    assert kept[0] in done.stdout


def test_healthz_answers_on_loopback_without_a_token(tmp_path: Path, spill_dir: Path) -> None:
    import urllib.request

    from agentout.mcp.child import serve_http

    env = without_agentout_settings()
    env["AGENTOUT_SPILL_DIR"] = str(spill_dir)
    with serve_http(["--root", str(tmp_path)], env) as url:
        health = url.removesuffix("/mcp") + "/healthz"
        with urllib.request.urlopen(health, timeout=30) as response:
            assert (response.status, response.read()) == (200, b'{"status":"ok"}')
