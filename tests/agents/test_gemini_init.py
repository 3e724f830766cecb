"""`agentout init gemini`: the AfterTool hook and the MCP server in .gemini/settings.json,
beside the user's own entries, idempotently, and exactly them taken out again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.agents._installs import backup_of
from agentout.cli.main import cli

USERS = {
    "theme": "GitHub",
    "hooksConfig": {"enabled": True},
    "hooks": {
        "AfterTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}
        ],
        "BeforeTool": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./g.sh"}]}
        ],
    },
    "mcpServers": {"other": {"command": "x"}},
}


def _init(project: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["init", "gemini", *args, "--project", str(project)])
    return done.exit_code, done.output


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "project" / ".gemini").mkdir(parents=True)
    settings = tmp_path / "project" / ".gemini" / "settings.json"
    settings.write_text(json.dumps(USERS, indent=2) + "\n")
    return tmp_path / "project"


def test_the_after_tool_hook_sits_beside_the_users_hooks(project: Path) -> None:
    settings = project / ".gemini" / "settings.json"
    original = settings.read_bytes()
    status, said = _init(project, "--output-hook")
    assert status == 0, said
    assert said.splitlines()[0].startswith("added     ")
    assert "hooks.AfterTool (^(run_shell_command|mcp_.+)$)" in said.splitlines()[0]
    data = json.loads(settings.read_text())
    mine, ours = data["hooks"]["AfterTool"]
    assert mine == USERS["hooks"]["AfterTool"][0]  # type: ignore[index]
    assert ours["matcher"] == "^(run_shell_command|mcp_.+)$"
    (hook,) = ours["hooks"]
    assert hook["type"] == "command"
    assert hook["command"].endswith(" hook gemini")
    assert (hook["name"], hook["timeout"]) == ("agentout", 10000)  # milliseconds
    assert data["hooks"]["BeforeTool"] == USERS["hooks"]["BeforeTool"]  # type: ignore[index]
    assert data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["agentout"]["args"][-1] == "serve"
    assert backup_of(settings).read_bytes() == original
    assert not list(project.rglob("*agentout-backup*"))  # nothing of init's in the project

    status, said = _init(project, "--output-hook")
    assert status == 0
    assert {line.split()[0] for line in said.splitlines()} == {"unchanged"}

    status, said = _init(project, "--show", "--output-hook")
    assert status == 0, said
    assert said.splitlines()[0].startswith("installed ")
    assert said.splitlines()[-1] == "runs      the hook answers"

    status, said = _init(project, "--uninstall")
    assert status == 0, said
    assert settings.read_bytes() == original  # byte for byte
    assert not backup_of(settings).exists()
    status, said = _init(project, "--uninstall")
    assert {line.split()[0] for line in said.splitlines()} == {"absent"}


def test_without_output_hook_only_the_server_and_instructions(project: Path) -> None:
    status, said = _init(project)
    assert status == 0, said
    assert "AfterTool" not in said
    data = json.loads((project / ".gemini" / "settings.json").read_text())
    assert data["hooks"] == USERS["hooks"]
    assert data["mcpServers"]["agentout"]["args"][-1] == "serve"
    assert _init(project, "--uninstall")[0] == 0
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == USERS
    # a usage error: the output hook is Gemini CLI's
    assert CliRunner().invoke(cli, ["init", "claude", "--output-hook"]).exit_code == 2


def test_show_before_install_says_absent(project: Path) -> None:
    status, said = _init(project, "--show")
    assert status == 1
    assert said.splitlines()[0].startswith("absent ")
    assert "runs" not in said


def test_no_ledger_reaches_the_hook_and_the_server(project: Path) -> None:
    assert _init(project, "--no-ledger", "--output-hook")[0] == 0
    data = json.loads((project / ".gemini" / "settings.json").read_text())
    (hook,) = data["hooks"]["AfterTool"][1]["hooks"]
    assert hook["command"].startswith("env AGENTOUT_LEDGER=0 ")
    assert data["mcpServers"]["agentout"]["env"] == {"AGENTOUT_LEDGER": "0"}
    assert _init(project, "--no-ledger", "--uninstall")[0] == 0
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == USERS


def test_the_matcher_picks_the_shell_and_mcp_servers_tools_only() -> None:
    """Gemini CLI tests ``new RegExp(matcher).test(toolName)``; this regex means the same
    in Python. The built-in tool names are those of Gemini CLI 0.61.0."""
    import re

    from agentout.agents.gemini import MATCHER

    picked = re.compile(MATCHER)
    for name in ("run_shell_command", "mcp_github_list_issues", "mcp_agentout_read_output"):
        assert picked.search(name), name
    for name in (
        "read_mcp_resource",
        "list_mcp_resources",
        "read_file",
        "mcp_",
        "xrun_shell_command",
    ):
        assert not picked.search(name), name
