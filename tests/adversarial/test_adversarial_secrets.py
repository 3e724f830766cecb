"""Planted secrets, printed coloured (``grep --color=always``, ``git -c color.ui=always
diff/show``, ``ls --color``, pytest's colour), indented in YAML, inside test ids, JUnit
names, notes and JSON lines, through every path that hands output to an agent: ``run``,
both Claude Code hooks, ``test``, ``fit``, ``records``, ``notes``, every MCP tool. None
reaches what the model reads, nor any file agentout writes (the store, the caches, the
ledger); the sixteen look-alikes (commit hashes, UUIDs, checksums, ``next_page_token``,
``token_type``...) are all still shown."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hostile_secrets import SECRETS, Project, build, leaks, missing

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
WIDE = ["--max-tokens", "200000", "--inline-threshold", "10000000"]  # everything shown
PRINTED = [".env", "facts.txt", "config/values.yaml", "deploy.env"]
_MCP_TIMEOUT = 120


def _agentout(project: Project, *args: str, stdin: bytes = b"") -> bytes:
    done = subprocess.run(
        [*AGENTOUT, *args],
        cwd=project.root,
        env=project.env,
        input=stdin,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.stdout


def _hooks(project: Project) -> dict[str, bytes]:
    """Claude Code's: a command agentout's function in the session's shell runs, as the
    client captures it (``git diff``); a finished Bash command's output through PostToolUse
    (``grep``: no function, the client's own); PostToolUse for MCP tools (a small and a
    large result)."""
    from session_shell import Shell

    out: dict[str, bytes] = {}
    shell = Shell(project.root / ".shell", project.root, dict(project.env))
    out["shell git diff"] = shell.call("git diff --color=always")[1]
    command = "grep --color=always -rn . " + " ".join(PRINTED)
    printed = subprocess.run(["bash", "-c", command], cwd=project.root, env=project.env,
                             capture_output=True, check=False)  # fmt: skip
    payload = {
        "session_id": "s-grep",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": printed.stdout.decode(), "stderr": "", "interrupted": False},
    }
    answer = _agentout(project, "hook", "claude", stdin=json.dumps(payload).encode())
    out["hook post grep"] = answer or printed.stdout

    def grep(pattern: str, *files: str) -> str:
        done = subprocess.run(["grep", "--color=always", "-nE", pattern, *files],
                              cwd=project.root, capture_output=True, check=True)  # fmt: skip
        return done.stdout.decode()

    small = grep("[=:_ .-]", ".env", "facts.txt")  # colour at every separator
    large = grep(".", *PRINTED) * 3  # every character coloured, over the budget
    for name, text in {"hook post small": small, "hook post large": large}.items():
        payload = {
            "session_id": "s",
            "hook_event_name": "PostToolUse",
            "tool_name": "mcp__files__read",
            "tool_input": {"path": ".env"},
            "tool_response": {"content": [{"type": "text", "text": text}]},
        }
        out[name] = _agentout(project, "hook", "claude", stdin=json.dumps(payload).encode())
    return out


def _mcp(project: Project) -> dict[str, bytes]:
    """Every tool of ``agentout serve``, over stdio, one JSON-RPC line each."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "mcp run_command grep": (
            "run_command",
            {"command": ["grep", "--color=always", "-rn", ".", *PRINTED], "max_tokens": 200000},
        ),
        "mcp run_command git diff": (
            "run_command",
            {"command": ["git", "diff", "--color=always", "HEAD~1"], "max_tokens": 200000},
        ),
        "mcp run_command cat": ("run_command", {"command": ["cat", "config/values.yaml"]}),
        "mcp run_tests": ("run_tests", {"tests": ["tests/test_secrets.py"]}),
        "mcp query_records": (
            "query_records",
            {"paths": ["events.jsonl"], "mode": "verbose", "limit": 100, "max_tokens": 50000},
        ),
        "mcp notes_context": (
            "notes_context",
            {"directory": "vault", "query": "deploy", "with_body": True},
        ),
        "mcp count_tokens": ("count_tokens", {"path": ".env"}),
        "mcp read_output": ("read_output", {"ref": "__REF__", "grep": "ghp_|AKIA|BEGIN"}),
        "mcp cleanup_temp_files": ("cleanup_temp_files", {"dry_run": True, "max_age_days": 0}),
    }
    opening = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "secrets", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]  # fmt: skip
    server = subprocess.Popen(
        [*AGENTOUT, "serve", "--root", str(project.root), "--allow-commands", "grep,git,cat"],
        cwd=project.root,
        env=project.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    out: dict[str, bytes] = {}
    try:
        for message in opening:
            server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 0
        ref = ""
        for number, (name, (tool, arguments)) in enumerate(calls.items(), start=1):
            if arguments.get("ref") == "__REF__":
                arguments = {**arguments, "ref": ref}
            call = {"jsonrpc": "2.0", "id": number, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}}  # fmt: skip
            server.stdin.write(json.dumps(call).encode() + b"\n")
            server.stdin.flush()
            line = server.stdout.readline()
            answer = json.loads(line)
            assert answer.get("id") == number, line
            assert "error" not in answer, line
            result = answer["result"]
            shown = [block.get("text", "") for block in result.get("content", [])]
            shown.append(json.dumps(result.get("structuredContent", ""), ensure_ascii=False))
            out[name] = line + "\n".join(shown).encode()  # as sent, and as the model reads it
            found = re.search(rb"agentout://spill/[^\s\"\\]+", line)
            if found and not ref:
                ref = found.group().decode()
        assert ref, "no call kept its output: read_output had nothing to read"
    finally:
        server.stdin.close()
        server.wait(timeout=_MCP_TIMEOUT)
    return out


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return build(tmp_path_factory.mktemp("hostile-secrets"))


@pytest.fixture(scope="module")
def outputs(hostile: Project) -> dict[str, bytes]:
    """What each path printed for the model, every path run once, in this order."""
    p = hostile
    coloured_git = ["run", *WIDE, "--", "git", "-c", "color.ui=always"]
    pytest_coloured = [
        sys.executable,
        "-m",
        "pytest",
        "--color=yes",
        "-p",
        "no:agentout",
        "-p",
        "no:cacheprovider",
        "-q",
        "tests/test_secrets.py",
    ]
    words = ["-rniE", "token|key|pass|secret|sha|commit", "."]
    runs: dict[str, list[str]] = {
        "run grep --color": ["run", *WIDE, "--", "grep", "--color=always", "-rn", ".", *PRINTED],
        "run grep --color token": ["run", *WIDE, "--", "grep", "--color=always", *words],
        "run git diff coloured": [*coloured_git, "diff"],
        "run git diff HEAD~1 coloured": [*coloured_git, "diff", "HEAD~1"],
        "run git show coloured": [*coloured_git, "show", "HEAD"],
        "run cat values.yaml": ["run", "--", "cat", "config/values.yaml"],
        "run ls --color": ["run", "--", "ls", "--color=always", "-la"],
        "run pytest --color": ["run", *WIDE, "--", *pytest_coloured],
        "test": ["test", "--", sys.executable, "-m", "pytest", "tests/test_secrets.py",
                 "-p", "no:cacheprovider"],
        "test junit": ["test", "report.xml"],
        "fit values.yaml": ["fit", "--max-tokens", "5000", "config/values.yaml"],
        "fit events.jsonl": ["fit", "--max-tokens", "200", "events.jsonl"],
        "fit events.jsonl wide": ["fit", "--max-tokens", "50000", "events.jsonl"],
        "records": ["records", "--max-tokens", "50000", "--limit", "100", "events.jsonl"],
        "notes index": ["notes", "index", "vault"],
        "notes context": ["notes", "context", "vault", "--note", "deploy", "--with-body"],
        "notes index (cached)": ["notes", "index", "vault"],
    }  # fmt: skip
    out = {name: _agentout(p, *args) for name, args in runs.items()}
    out.update(_hooks(p))
    out.update(_mcp(p))
    return out


# Where all sixteen look-alikes are printed whole, so each must be shown.
SHOWS_EVERY_FACT = [
    "run grep --color",
    "run git diff HEAD~1 coloured",
    "run git show coloured",
    "fit events.jsonl wide",
    "records",
    "hook post grep",
    "hook post small",
    "mcp run_command grep",
    "mcp run_command git diff",
    "mcp query_records",
]
PATHS = [
    "run grep --color", "run grep --color token", "run git diff coloured",
    "run git diff HEAD~1 coloured", "run git show coloured", "run cat values.yaml",
    "run ls --color", "run pytest --color", "test", "test junit", "fit values.yaml",
    "fit events.jsonl", "fit events.jsonl wide", "records", "notes index", "notes context",
    "notes index (cached)", "hook post grep", "shell git diff", "hook post small",
    "hook post large", *(f"mcp {tool}" for tool in (
        "run_command grep", "run_command git diff", "run_command cat", "run_tests",
        "query_records", "notes_context", "count_tokens", "read_output", "cleanup_temp_files")),
]  # fmt: skip


def test_every_planted_secret_is_printed_by_the_tools_themselves(hostile: Project) -> None:
    # Otherwise "nothing leaked" would prove nothing: the raw output shows them all.
    raw = subprocess.run(
        ["grep", "--color=always", "-rn", ".", *PRINTED], cwd=hostile.root, capture_output=True
    ).stdout
    assert b"\x1b[" in raw
    assert sorted(leaks(raw)) == sorted([*SECRETS, *(f"key:{i}" for i in range(24))])
    assert missing(raw) == []
    diff = subprocess.run(
        ["git", "-c", "color.ui=always", "diff"], cwd=hostile.root, capture_output=True
    ).stdout
    assert re.search(rb"\x1b\[36m@@ [^\n]* @@\x1b\[m (?:\x1b\[m)?API_TOKEN=ghp_", diff), diff


@pytest.mark.parametrize("path", PATHS)
def test_no_secret_reaches_the_model(outputs: dict[str, bytes], path: str) -> None:
    out = outputs[path]
    assert out.strip(), f"{path} printed nothing"
    assert leaks(out) == [], out.decode("utf-8", "replace")


@pytest.mark.parametrize("path", SHOWS_EVERY_FACT)
def test_every_look_alike_is_still_shown(outputs: dict[str, bytes], path: str) -> None:
    assert missing(outputs[path]) == [], outputs[path].decode("utf-8", "replace")


def test_the_hunk_header_and_the_markers_keep_their_place(outputs: dict[str, bytes]) -> None:
    diff = outputs["run git diff coloured"].decode()
    assert "@@ API_TOKEN=[secret: github-token]" in diff
    assert "+replicas=3" in diff
    key = outputs["run cat values.yaml"].decode().splitlines()
    assert key[3:6] == ["    -----BEGIN RSA PRIVATE KEY-----", "[secret: private-key]", ""]
    assert "    -----END RSA PRIVATE KEY-----" in key


def test_test_ids_are_hidden_and_named_by_kind(outputs: dict[str, bytes]) -> None:
    report = outputs["test"].decode()
    assert 'test="test_token_[secret: github-token]"' in report
    assert "test_param[[secret: aws-key]]" in report
    assert "test_sub [DB_PASSWORD=[secret: password]]" in report


def test_nothing_agentout_wrote_holds_a_secret(outputs: dict[str, bytes], hostile: Project) -> None:
    written = [path for path in hostile.state.rglob("*") if path.is_file()]
    store = [path for path in written if "store" in path.parts]
    assert len(store) >= 8, written  # the runs, the test reports, fit's input, the MCP store
    assert any("notes" in path.parts for path in written)  # the notes cache
    assert any(path.name.startswith("ledger") for path in written)
    found = {str(path.relative_to(hostile.state)): leaks(path.read_bytes()) for path in written}
    assert {name: hit for name, hit in found.items() if hit} == {}


def test_the_store_keeps_every_look_alike(outputs: dict[str, bytes], hostile: Project) -> None:
    kept = b"".join(
        path.read_bytes() for path in (hostile.state / "store").rglob("*") if path.is_file()
    )
    assert missing(kept) == []


def test_a_run_does_not_leave_the_secret_in_the_environment_it_was_told(
    hostile: Project, tmp_path: Path
) -> None:
    # The same path with the values in agentout's environment: hidden by value too.
    env = {**hostile.env, "GH_TOKEN": SECRETS["github"], "DB_PASSWORD": SECRETS["password"]}
    done = subprocess.run(
        [*AGENTOUT, "run", "--", "grep", "--color=always", "-n", ".", ".env"],
        cwd=hostile.root,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert leaks(done.stdout) == []
    assert "[secret: $GH_TOKEN]" in done.stdout.decode()
    assert os.environ.get("GH_TOKEN") != SECRETS["github"]


def test_a_store_kept_with_its_secrets_shows_none_of_them(hostile: Project) -> None:
    # --keep-secrets keeps the coloured bytes as printed; every page is read redacted.
    printed = _agentout(hostile, "run", "--mode", "file", "--no-reduce", "--keep-secrets",
                        "--", "grep", "--color=always", "-n", ".", ".env")  # fmt: skip
    ref = re.search(rb"agentout show ([0-9a-f]{16})", printed)
    assert ref is not None, printed
    (kept,) = [p for p in (hostile.state / "store").rglob(f"*{ref[1].decode()}*") if p.is_file()]
    assert leaks(kept.read_bytes())  # kept as asked
    shown = _agentout(hostile, "show", ref[1].decode())
    assert leaks(shown) == []
    assert b"[secret: github-token]" in shown
    prefix = SECRETS["github"][:12]
    assert b"[secret: " not in _agentout(hostile, "show", ref[1].decode(), "--grep", prefix)
    kept.unlink()  # the disk check above is about what agentout keeps on its own
