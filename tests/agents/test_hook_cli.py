"""`agentout hook claude` as Claude Code runs it: JSON in, JSON or nothing out, exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]


def _hook(data: bytes, home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        [*AGENTOUT, "hook", *(args or ("claude",))],
        input=data,
        capture_output=True,
        env=env,
        check=False,
        timeout=60,
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    settings = {"permissions": {"allow": ["Bash(git log *)"], "deny": ["Bash(git push *)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return home, project


def _payload(command: object, tool: str = "Bash", mode: str = "default") -> bytes:
    return json.dumps(
        {"tool_name": tool, "permission_mode": mode, "tool_input": {"command": command}}
    ).encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not json", b"<stdin>:1:1:"),
        (b"", b"<stdin>:1:1:"),
        (b"\xff\xfe", b"not UTF-8"),
        (b"[1, 2]", b"not a JSON object"),
        (_payload(None), b"no tool_input.command"),
        (json.dumps({"tool_name": "Bash"}).encode(), b"no tool_input.command"),
        (_payload("git log", tool="Write"), b"not a shell tool"),
        (_payload("git log " + "x" * (10 << 20)), b"payload over"),
    ],
)
def test_bad_input_changes_nothing(dirs: tuple[Path, Path], data: bytes, message: bytes) -> None:
    done = _hook(data, *dirs)
    assert done.returncode == 0
    assert done.stdout == b""
    assert message in done.stderr
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr


def test_unknown_agent(dirs: tuple[Path, Path]) -> None:
    done = _hook(_payload("git log"), *dirs, "nosuchagent")
    assert (done.returncode, done.stdout) == (0, b"")
    assert b"unknown agent 'nosuchagent'" in done.stderr


def test_pretooluse_is_never_answered(dirs: tuple[Path, Path]) -> None:
    """Allowed, denied or neither, in every mode: no answer, no word (Claude Code decides)."""
    for command in ("git push --force", "git log -3", "pytest -x"):
        for mode in ("default", "acceptEdits", "dontAsk", "auto", "bypassPermissions", "plan"):
            done = _hook(_payload(command, mode=mode), *dirs)
            assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
