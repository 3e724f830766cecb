"""`agentout hook codex`: Codex's PreToolUse, answered with ``allow`` and ``updatedInput``
only for what Codex's own execpolicy rules allow (codex-rs/hooks output_parser.rs accepts
``updatedInput`` only beside ``permissionDecision: "allow"``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.agents._codex_rules import load, rule_files
from agentout.agents.codex import decide
from agentout.cli.main import cli

AGENTOUT = ["/opt/agentout/bin/agentout"]
HOOK = [sys.executable, "-c", "from agentout.cli import main; main()", "hook", "codex"]

USER_RULES = '''
"""The user's rules."""
prefix_rule(pattern=["git", ["log", "status", "diff"]], decision="allow")
prefix_rule(pattern=["pytest"])
prefix_rule(pattern=["python3", "build.py"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["rm"], decision="forbidden")
'''


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "codex"
    (home / "rules").mkdir(parents=True)
    (home / "rules" / "default.rules").write_text(USER_RULES)
    return home


def routed(command: str, home: Path, cwd: Path, mode: str | None = "default") -> str | None:
    rules = load(rule_files({"CODEX_HOME": str(home)}, str(cwd)))
    payload: dict[str, Any] = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                               "cwd": str(cwd), "tool_input": {"command": command}}  # fmt: skip
    if mode is not None:
        payload["permission_mode"] = mode
    answer = decide(payload, rules=rules, agentout=AGENTOUT)
    if answer is None:
        return None
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "allow"  # Codex takes updatedInput only so
    assert set(specific) == {"hookEventName", "permissionDecision", "permissionDecisionReason",
                             "updatedInput"}  # fmt: skip
    return str(specific["updatedInput"]["command"])


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git log -3", "/opt/agentout/bin/agentout run -- git log -3"),
        ("pytest -q 2>&1", "/opt/agentout/bin/agentout run -- pytest -q"),
        (
            "git status && git diff",
            "/opt/agentout/bin/agentout run --shell 'git status && git diff'",
        ),
        ("python3 build.py", "/opt/agentout/bin/agentout run -- python3 build.py"),
    ],
)
def test_what_codex_rules_allow_is_routed(
    codex_home: Path, tmp_path: Path, command: str, expected: str
) -> None:
    assert routed(command, codex_home, tmp_path) == expected


@pytest.mark.parametrize(
    "command",
    [
        "git push origin main",  # prompt
        "rm -rf build",  # forbidden
        "git log && git push",  # one part asks
        "ls -la",  # no rule: Codex decides
        "git log $HOME",  # not plain
        "python3 other.py",  # another script
    ],
)
def test_what_they_do_not_allow_is_left_to_codex(
    codex_home: Path, tmp_path: Path, command: str
) -> None:
    assert routed(command, codex_home, tmp_path) is None


def test_plan_mode_and_a_rule_for_agentout_itself(codex_home: Path, tmp_path: Path) -> None:
    assert routed("git log", codex_home, tmp_path, mode="plan") is None
    assert routed("git log", codex_home, tmp_path, mode=None) is not None
    (codex_home / "rules" / "z.rules").write_text(
        'prefix_rule(pattern=["/opt/agentout/bin/agentout"], decision="forbidden")\n'
    )
    assert routed("git log", codex_home, tmp_path) is None


def test_a_projects_rules_only_restrict(codex_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "x.rules").write_text(
        'prefix_rule(pattern=["ls"])\nprefix_rule(pattern=["git", "diff"], decision="prompt")\n'
    )
    assert routed("ls -la", codex_home, project) is None
    assert routed("git diff", codex_home, project) is None
    assert routed("git log", codex_home, project) is not None


def test_unreadable_rules_rewrite_nothing_and_say_why(codex_home: Path, tmp_path: Path) -> None:
    (codex_home / "rules" / "bad.rules").write_text("prefix_rule(pattern=[x])\n")
    assert routed("git log", codex_home, tmp_path) is None
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(tmp_path),
               "tool_input": {"command": "git log"}}  # fmt: skip
    env = {**os.environ, "CODEX_HOME": str(codex_home)}
    done = subprocess.run(HOOK, input=json.dumps(payload).encode(), capture_output=True,
                          env=env, check=False)  # fmt: skip
    assert (done.returncode, done.stdout) == (0, b"")
    assert b"bad.rules" in done.stderr
    assert done.stderr.count(b"\n") == 1


def test_init_codex_installs_the_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    done = CliRunner().invoke(cli, ["init", "codex", "--project", str(project)])
    assert done.exit_code == 0, done.output
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())
    (group,) = hooks["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash"
    assert group["hooks"][0]["command"].endswith(" hook codex")
    shown = CliRunner().invoke(cli, ["init", "codex", "--project", str(project), "--show"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[-1] == "runs      the hook answers"
    gone = CliRunner().invoke(cli, ["init", "codex", "--project", str(project), "--uninstall"])
    assert gone.exit_code == 0, gone.output
    assert list(project.iterdir()) == []
