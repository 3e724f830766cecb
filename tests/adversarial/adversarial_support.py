"""Shared by the adversarial tests: how agentout is run, what the store holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentout.mcp.child import SERVE
from processes import without_agentout_settings

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]


def stored(store: Path) -> list[Path]:
    """The files agentout committed to the store (never a partial one)."""
    if not store.exists():
        return []
    return sorted(p for p in store.iterdir() if not p.name.startswith("."))


def peak_rss_kib(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run ``agentout ARGS`` under a fresh Python that reports the peak resident memory of
    its children (agentout and what agentout ran): (KiB, agentout's stdout)."""
    probe = (
        "import json, resource, subprocess, sys\n"
        f"done = subprocess.run({[*AGENTOUT, *args]!r}, capture_output=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stdout.write(json.dumps([peak, done.stdout.decode('utf-8', 'replace')]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, **env},
        capture_output=True,
        timeout=300,
        check=True,
    )
    peak, stdout = json.loads(done.stdout)
    return int(peak), stdout.encode()


def _calls(commands: list[list[str]]) -> list[bytes]:
    opening: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "adversary", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]  # fmt: skip
    calls = [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call",
         "params": {"name": "run_command", "arguments": {"command": command}}}
        for n, command in enumerate(commands, 1)
    ]  # fmt: skip
    return [json.dumps(message).encode() + b"\n" for message in [*opening, *calls]]


def run_commands(
    root: Path, commands: list[list[str]], allowed: list[str]
) -> dict[int, dict[str, Any]]:
    """Each ``run_command`` call's result from a real ``agentout serve --allow-commands
    ALLOWED`` over stdio in ``root``, stdin kept open until all are answered (its end
    stops the commands still running)."""
    env = without_agentout_settings()
    env["AGENTOUT_SPILL_DIR"] = str(root.parent / "spill")
    server = subprocess.Popen(
        [*SERVE, "--root", str(root), "--allow-commands", ",".join(allowed)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=root,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    results: dict[int, dict[str, Any]] = {}
    try:
        server.stdin.write(b"".join(_calls(commands)))
        server.stdin.flush()
        while len(results) < len(commands):
            line = server.stdout.readline()
            assert line, "the server ended before answering every call"
            reply = json.loads(line)
            if reply.get("id"):
                results[reply["id"]] = reply["result"]
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()
    return results
