"""Check `agentout serve` with the MCP Inspector's CLI: list the tools, call each one.

Not part of `make test`: it needs Node.js and fetches the Inspector from npm the first
time (`npx -y`). Run it from the repository root:

    .venv/bin/python scripts/mcp_inspector_check.py            # stdio, then HTTP
    AGENTOUT_INSPECTOR=@modelcontextprotocol/inspector@latest .venv/bin/python scripts/...

It builds a throwaway project (the example knowledge base and notes vault, a JSONL file,
a two-test suite) and a private spill store, then drives the server through the
Inspector over stdio (the Inspector starts `agentout serve`) and over streamable HTTP
(`agentout serve --http 0`, started and stopped here), then over HTTP as a replica
behind a load balancer would serve it (`--host 0.0.0.0 --stateless`, a bearer token in
``AGENTOUT_SERVE_TOKEN`` sent with ``--header``; a call without it must be refused).
Every call must succeed except the ones meant to fail, which must come back as error
results. Each Inspector run is bounded by a timeout; the HTTP servers are always
stopped. Exit status 0 when all pass.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agentout.mcp.child import SERVE, serve_http

ROOT = Path(__file__).resolve().parent.parent
INSPECTOR = os.environ.get("AGENTOUT_INSPECTOR", "@modelcontextprotocol/inspector@2.12.0")
AGENTOUT = SERVE
TIMEOUT = 180  # seconds per Inspector run (the first one may download it)


def make_project(base: Path) -> Path:
    project = base / "project"
    shutil.copytree(ROOT / "examples" / "kb", project / "kb")
    shutil.copytree(ROOT / "examples" / "vault", project / "vault")
    rows = [{"id": i, "level": "error" if i % 7 == 0 else "info"} for i in range(400)]
    (project / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (project / "suite").mkdir()
    (project / "suite" / "test_small.py").write_text(
        "def test_ok():\n    assert True\n\ndef test_bad():\n    assert 1 == 2\n"
    )
    return project


def inspector(target: list[str], *args: str, env: dict[str, str]) -> dict[str, Any]:
    """One Inspector CLI run; its JSON answer (an error result is an answer too)."""
    command = ["npx", "-y", INSPECTOR, "--cli", *target, *args]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT, env=env, check=False
    )
    for code in ("tool_is_error", "tool_not_found"):  # how the CLI reports those, on stderr
        if done.returncode != 0 and f'"code":"{code}"' in done.stderr:
            return {"isError": True, "content": [{"type": "text", "text": code}]}
    start = done.stdout.find("{")
    if done.returncode != 0 or start < 0:
        raise RuntimeError(f"inspector failed ({done.returncode}): {done.stderr[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout[start:])
    return answer


def tool_args(arguments: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in arguments.items():
        shown = value if isinstance(value, str) else json.dumps(value)
        out += ["--tool-arg", f"{key}={shown}"]
    return out


def first_text(answer: dict[str, Any]) -> str:
    return next((b["text"] for b in answer.get("content", []) if b["type"] == "text"), "")


def check_session(target: list[str], env: dict[str, str], label: str) -> list[str]:
    """List and call every tool; return the failures (empty when all is well)."""
    failures: list[str] = []

    def report(name: str, ok: bool, detail: str) -> None:
        print(f"{label:5} {'ok  ' if ok else 'FAIL'} {name:<40} {detail}")
        if not ok:
            failures.append(f"{label} {name}: {detail}")

    listed = inspector(target, "--method", "tools/list", env=env)
    names = sorted(tool["name"] for tool in listed["tools"])
    expected = sorted(
        [
            "cleanup_temp_files",
            "count_tokens",
            "notes_context",
            "query_records",
            "read_output",
            "run_command",
            "run_tests",
        ]
    )
    report("tools/list", names == expected, ", ".join(names))

    def call(name: str, arguments: dict[str, Any], *, error: bool = False) -> dict[str, Any]:
        answer = inspector(
            target, "--method", "tools/call", "--tool-name", name, *tool_args(arguments), env=env
        )
        got_error = bool(answer.get("isError"))
        text = first_text(answer)
        summary = text.splitlines()[0][:90] if text else "(no text)"
        report(f"{name} {json.dumps(arguments)[:30]}", got_error == error, summary)
        return answer

    call("count_tokens", {"text": "hello world"})
    queried = call("query_records", {"paths": ["events.jsonl"], "max_tokens": 300})
    links = [b["uri"] for b in queried.get("content", []) if b["type"] == "resource_link"]
    report("query_records links its spilled file", len(links) == 1, ", ".join(links))
    if links:
        call("read_output", {"ref": links[0], "lines": "1:5"})
        read = inspector(target, "--method", "resources/read", "--uri", links[0], env=env)
        text = read["contents"][0]["text"]
        report("resources/read", text.count("\n") == 400, f"{text.count(chr(10))} lines")
    call("notes_context", {"directory": "vault", "query": "budgets", "max_tokens": 500})
    call("run_tests", {"tests": ["suite/test_small.py"]})
    call("run_command", {"command": ["echo", "hello; not a shell"]})
    call("cleanup_temp_files", {"dry_run": True})
    call("read_output", {"ref": "/etc/passwd"}, error=True)
    call("query_records", {"paths": ["../.."]}, error=True)
    call("run_command", {"command": ["rm", "-rf", "/"]}, error=True)
    call("no_such_tool", {}, error=True)
    resources = inspector(target, "--method", "resources/list", env=env)
    report("resources/list", len(resources["resources"]) >= 1, f"{len(resources['resources'])}")
    return failures


def refused_without_token(url: str, env: dict[str, str]) -> list[str]:
    """A call without the bearer token must not be answered."""
    command = ["npx", "-y", INSPECTOR, "--cli", url, "--transport", "http"]
    done = subprocess.run(
        [*command, "--method", "tools/list"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
        check=False,
    )
    said = done.stdout + done.stderr  # the Inspector answers a 401 by asking for OAuth
    refused = done.returncode != 0 and ("401" in said or '"auth_required"' in said)
    detail = "refused (401)" if refused else f"exit {done.returncode}: {said[-120:]!r}"
    print(
        f"{'token':5} {'ok  ' if refused else 'FAIL'} {'tools/list without the token':<40} {detail}"
    )
    return [] if refused else [f"token: a request without the token was not refused ({detail})"]


def main() -> int:
    if shutil.which("npx") is None:
        print("mcp_inspector_check: needs Node.js (npx) on PATH", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="agentout-inspector-"))
    try:
        project = make_project(work)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_")}
        env["AGENTOUT_SPILL_DIR"] = str(work / "spill")
        env["AGENTOUT_CACHE_DIR"] = str(work / "cache")
        print(f"Inspector {INSPECTOR}, agentout serve from {sys.executable}")
        # The Inspector starts a stdio server with its own environment: pass ours with -e.
        stdio = []
        for name in ("AGENTOUT_SPILL_DIR", "AGENTOUT_CACHE_DIR"):
            stdio += ["-e", f"{name}={env[name]}"]
        stdio += [*AGENTOUT, "--root", str(project), "--allow-commands", "echo"]
        failures = check_session(stdio, env, "stdio")
        with serve_http(["--root", str(project), "--allow-commands", "echo"], env, project) as url:
            failures += check_session([url, "--transport", "http"], env, "http")
        token = secrets.token_hex(16)
        wide = ["--host", "0.0.0.0", "--stateless", "--root", str(project)]
        guarded = {**env, "AGENTOUT_SERVE_TOKEN": token}
        with serve_http([*wide, "--allow-commands", "echo"], guarded, project) as url:
            local = url.replace("0.0.0.0", "127.0.0.1")
            failures += refused_without_token(local, env)
            target = [local, "--transport", "http", "--header", f"Authorization: Bearer {token}"]
            failures += check_session(target, env, "token")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'all checks passed' if not failures else f'{len(failures)} FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
