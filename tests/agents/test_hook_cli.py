"""`agentout hook claude` as Claude Code runs it: JSON in, JSON or nothing out, exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentout.agents._claude_rules import load_rules, settings_files
from agentout.agents.claude import _started_with_rule_flags, decide

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


def test_allowed_command_is_routed(dirs: tuple[Path, Path]) -> None:
    done = _hook(_payload("git log -3"), *dirs)
    assert done.returncode == 0
    assert done.stderr == b""
    answer = json.loads(done.stdout)
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "allow"
    assert specific["updatedInput"]["command"].endswith(" run -- git log -3")


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


def test_denied_command_is_left_to_claude(dirs: tuple[Path, Path]) -> None:
    for mode in ("default", "bypassPermissions"):
        done = _hook(_payload("git push --force", mode=mode), *dirs)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_broken_user_settings_route_nothing(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    (home / ".claude" / "settings.json").write_text("{oops", encoding="utf-8")
    done = _hook(_payload("git log -3", mode="bypassPermissions"), home, project)
    assert (done.returncode, done.stdout) == (0, b"")


def test_managed_only_rules_ignore_user_allow(tmp_path: Path) -> None:
    managed, home, project = tmp_path / "etc", tmp_path / ".claude", tmp_path / "p"
    managed.mkdir()
    home.mkdir()
    (managed / "managed-settings.json").write_text(
        '{"allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Bash(ls *)"]}}'
    )
    (home / "settings.json").write_text('{"permissions": {"allow": ["Bash(git *)"]}}')
    files = settings_files(config_dir=home, project_dir=project, managed_dirs=[managed])
    rules = load_rules(files)
    payload = {"tool_name": "Bash", "tool_input": {"command": "git log"}}
    assert decide(payload, rules=rules, proc=None) is None
    payload["tool_input"] = {"command": "ls -la"}
    assert decide(payload, rules=rules, proc=None) is not None


def test_local_user_settings_only_restrict(tmp_path: Path) -> None:
    home, project = tmp_path / ".claude", tmp_path / "p"
    home.mkdir()
    (home / "settings.local.json").write_text(
        '{"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(ls *)"]}}'
    )
    (home / "settings.json").write_text('{"permissions": {"allow": ["Bash(ls *)"]}}')
    rules = load_rules(settings_files(config_dir=home, project_dir=project, managed_dirs=[]))
    for command in ("git log", "ls -la"):
        payload = {"tool_name": "Bash", "tool_input": {"command": command}}
        assert decide(payload, rules=rules, proc=None) is None


def test_rules_on_claude_command_line_route_nothing(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    parent, grandparent = os.getppid(), 4242
    for pid, argv, ppid in (
        (parent, [b"/bin/sh", b"-c", b"agentout hook claude"], grandparent),
        (grandparent, [b"claude", b"--disallowedTools", b"Bash(git push:*)"], 1),
    ):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "cmdline").write_bytes(b"\0".join(argv) + b"\0")
        (proc / str(pid) / "stat").write_text(f"{pid} (x y) S {ppid} 0 0")
    assert _started_with_rule_flags(proc)
    (proc / str(grandparent) / "cmdline").write_bytes(b"claude\0-p\0hi\0")
    assert not _started_with_rule_flags(proc)
