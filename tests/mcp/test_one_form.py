"""One form for one command, whatever the door: ``agentout run --shell 'CMD'``,
``agentout run -- CMD``, Claude Code's PostToolUse hook on the output of ``CMD`` and the MCP
``run_command`` tool give the model the same bytes for the same output of a simple
command (its reduced form here, naming the same stored output)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_support import call, make_server, texts

from agentout.store.spill import SpillStore

BIN = Path(sys.executable).parent


def _agentout(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    """The installed ``agentout`` on PATH, as an agent's shell starts it."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [str(BIN / "agentout"), *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _hooked(command: str, printed: str, cwd: Path) -> str:
    payload = {
        "session_id": "session-1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": printed, "stderr": "", "interrupted": False},
    }
    answer = _agentout(["hook", "claude"], cwd, json.dumps(payload))
    if not answer.strip():
        return printed  # no answer: the model reads the output as printed
    return str(json.loads(answer)["hookSpecificOutput"]["updatedToolOutput"]["stdout"])


@pytest.fixture
def repo(project: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    for i in range(40):
        (project / f"module_{i:02d}.py").write_text(f"value = {i}\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=project, check=True)
    for i in range(40):
        (project / f"module_{i:02d}.py").write_text(f"value = {i + 1}\n")
    listing = project / "listing"  # a folder nothing writes to while the test runs
    listing.mkdir()
    for i in range(40):
        (listing / f"file_{i:02d}.txt").write_text("x" * i)
    return project


@pytest.fixture(autouse=True)
def quiet_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", str(tmp_path / "ledger.sqlite3"))


@pytest.mark.parametrize("command", ["git status", "ls -la listing", "git status --short"])
def test_every_door_gives_the_same_bytes(command: str, repo: Path, store: SpillStore) -> None:
    words = command.split()
    printed = subprocess.run(words, cwd=repo, capture_output=True, text=True, check=True).stdout
    shell = _agentout(["run", "--shell", command], repo)
    argv = _agentout(["run", "--", *words], repo)
    hooked = _hooked(command, printed, repo)
    server = make_server(repo, store, allow=shutil.which(words[0]))
    served = texts(call(server, "run_command", command=words))
    assert shell == argv == served
    # Claude Code's Bash result ends with no newline: the hook's answer neither
    assert hooked.rstrip("\n") == argv.rstrip("\n")
    if command == "git status --short":
        assert argv == printed  # small and plain: as printed, through every door
    else:
        assert "agentout show " in argv  # reduced, the output kept: the same name in each
        assert len(argv) < len(printed)


def test_a_simple_command_under_shell_is_read_by_its_reducer(repo: Path) -> None:
    """``run --shell 'git status'`` printed the output raw, ``run -- git status`` reduced it."""
    printed = subprocess.run(["git", "status"], cwd=repo, capture_output=True, text=True).stdout
    for line in ("git status", "git status 2>&1", "git  status", "git status >/dev/null 2>&1"):
        shell = _agentout(["run", "--shell", line], repo)
        if "/dev/null" in line:
            assert shell == ""
        else:
            assert shell != printed
            assert shell == _agentout(["run", "--", "git", "status"], repo), line
    # a pipeline is bash's to run whole, its output read as any command's
    assert _agentout(["run", "--shell", "git status | cat"], repo) == printed
