"""What Claude Code hands agentout, made for the docs' examples of its hooks and discover.

    python3 examples/docs/claude.py git-status            # a repository, posttooluse.json
    python3 examples/docs/claude.py mcp-read [CONFIG_DIR] # service.log, payload.json
    python3 examples/docs/claude.py bad-config DIR        # DIR/config.toml, a budget of 50
    python3 examples/docs/claude.py shell-session         # a project, a transcript of it
    python3 examples/docs/claude.py mcp-session           # a transcript of MCP calls

Each works in the current folder; transcripts go to ~/.claude/projects (the docs run
with a home of their own). The outputs in them are real: the commands are run, the log
is read; only the filesystem MCP server is not (it is installed from npm), so its result
is written in the form it returns: ``{"content": TEXT}``, as Claude Code passes it on
(``JSON.stringify`` of the structured content).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

_GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Ada Lovelace",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Lovelace",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_AUTHOR_DATE": "2026-11-20T10:00:00Z",
    "GIT_COMMITTER_DATE": "2026-11-20T10:00:00Z",
}


def _git(*args: str) -> None:
    subprocess.run(["git", *args], env=_GIT_ENV, check=True, capture_output=True)


def git_status() -> None:
    """A repository with f3.txt staged, f7.txt and f9.txt changed, notes.txt untracked, and
    the PostToolUse payload of a ``git status`` run in it."""
    _git("init", "-q", "-b", "master")
    for n in range(1, 10):
        Path(f"f{n}.txt").write_text(f"file {n}\n")
    _git("add", ".")
    _git("commit", "-q", "-m", "nine files")
    for n in (3, 7, 9):
        Path(f"f{n}.txt").write_text(f"file {n}, changed\n")
    _git("add", "f3.txt")
    Path("notes.txt").write_text("to do\n")
    with open(".git/info/exclude", "a") as exclude:  # the payload is not the project's
        exclude.write("posttooluse.json\n")
    done = subprocess.run(["git", "status"], capture_output=True, text=True, check=True)
    response = {
        "stdout": done.stdout.rstrip("\n"),
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    _payload("posttooluse.json", "Bash", {"command": "git status"}, response)


def _service_log() -> str:
    """3,000 lines of a worker service: a warning every 500 lines, one error."""
    lines = []
    for n in range(1, 3001):
        stamp = f"2026-11-20T10:{n % 60:02d}:00Z"
        if n % 500 == 0:
            lines.append(f"{stamp} WARN  worker-0 queue depth {n // 10} above 250")
        elif n == 1742:
            lines.append(
                f"{stamp} ERROR worker-3 job={n} failed: TimeoutError: upstream took 30.0s"
            )
        else:
            lines.append(f"{stamp} INFO  worker-{n % 4} job={n} done in {n % 30 + 60}ms")
    return "\n".join(lines) + "\n"


def _read_result(path: Path) -> str:
    """read_text_file's result as Claude Code passes it on."""
    content = {"content": path.read_text(encoding="utf-8")}
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def mcp_read(config: str | None) -> None:
    """service.log, the PostToolUse payload of the filesystem server reading it, and a
    config.toml giving that tool 400 tokens."""
    log = Path("service.log")
    log.write_text(_service_log(), encoding="utf-8")
    arguments = {"path": str(log.resolve())}
    _payload("payload.json", "mcp__filesystem__read_text_file", arguments, _read_result(log))
    folder = Path(config) if config else Path.home() / ".config" / "agentout"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        "[mcp.servers.filesystem.tools.read_text_file]\nmax_tokens = 400\n"
    )


def bad_config(folder: str) -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / "config.toml").write_text("[mcp]\nmax_tokens = 50\n")


def _payload(name: str, tool: str, arguments: dict[str, Any], response: Any) -> None:
    payload = {
        "session_id": "docs-session",
        "cwd": os.getcwd(),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": arguments,
        "tool_response": response,
        "tool_use_id": "toolu_docs",
    }
    Path(name).write_text(json.dumps(payload, ensure_ascii=False) + "\n", encoding="utf-8")


# A session in a small repository: seven commands, one of them a failing pytest.
SHELL_SESSION = [
    "git log",
    "git log --stat",
    "git status",
    "ls src",
    "seq 1 4000",
    "grep -rn total src",
    "python3 -m pytest -q tests",
]


def shell_session() -> None:
    """The shop repository (shop.sh) with files to list and a failing test, and the
    transcript of the seven commands run in it, with what they printed."""
    subprocess.run(["bash", str(Path(__file__).with_name("shop.sh"))], check=True)
    for n in range(12):
        Path(f"src/module_{n:02d}.py").write_text(f"def total_{n}(items):\n    return {n}\n")
    Path("tests").mkdir()
    Path("tests/test_cart.py").write_text(
        "from src.cart import total\n\n\ndef test_total():\n    assert total([(2, 3)]) == 5\n"
    )
    lines = []
    for index, command in enumerate(SHELL_SESSION):
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
        result = {
            "type": "tool_result",
            "content": done.stdout + done.stderr,
            "is_error": done.returncode != 0,
        }
        given = {"stdout": done.stdout, "stderr": done.stderr, "interrupted": False}
        lines += _call(index, "Bash", {"command": command}, result, given)
        if index == 2:
            lines.append('{"type": "assistant", "message": {"content": [')  # cut off mid-write
    _transcript(lines)


def mcp_session() -> None:
    """A transcript of the filesystem server reading service.log twice and listing the
    directories it may read (service.log from mcp-read)."""
    log = Path("service.log").resolve()
    # the folder as the docs show it (/tmp/NAME), so that its tokens do not vary
    shown = f"Allowed directories:\n/tmp/{log.parent.name}"
    listing = json.dumps({"content": shown}, separators=(",", ":"))
    calls = [
        ("mcp__filesystem__read_text_file", {"path": str(log)}, _read_result(log)),
        ("mcp__filesystem__read_text_file", {"path": str(log)}, _read_result(log)),
        ("mcp__filesystem__list_allowed_directories", {}, listing),
    ]
    lines = []
    for index, (tool, arguments, text) in enumerate(calls):
        result = {"type": "tool_result", "content": text, "is_error": False}
        lines += _call(index, tool, arguments, result, None)
    _transcript(lines)


def _call(
    index: int, tool: str, arguments: dict[str, Any], result: dict[str, Any], given: Any
) -> list[str]:
    base = {"cwd": os.getcwd(), "sessionId": "docs-session", "version": "2.1.0"}
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    tool_id = f"toolu_{index:04d}"
    use = {"type": "tool_use", "id": tool_id, "name": tool, "input": arguments}
    asked = {**base, "type": "assistant", "timestamp": stamp,
             "message": {"role": "assistant", "content": [use]}}  # fmt: skip
    content = [{**result, "tool_use_id": tool_id}]
    answered: dict[str, Any] = {**base, "type": "user", "timestamp": stamp,
                                "message": {"role": "user", "content": content}}  # fmt: skip
    if given is not None:
        answered["toolUseResult"] = given
    return [json.dumps(asked), json.dumps(answered)]


def _transcript(lines: list[str]) -> None:
    """The session's transcript, the only one under ~/.claude/projects."""
    folder = Path.home() / ".claude" / "projects" / os.getcwd().replace("/", "-")
    for old in (Path.home() / ".claude" / "projects").glob("*/*.jsonl"):
        old.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs-session.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    what, *rest = sys.argv[1:]
    if what == "git-status":
        git_status()
    elif what == "mcp-read":
        mcp_read(rest[0] if rest else None)
    elif what == "bad-config":
        bad_config(rest[0])
    elif what == "shell-session":
        shell_session()
    elif what == "mcp-session":
        mcp_session()
    else:
        sys.exit(f"unknown: {what}")
