"""`agentout init` leaves no trace beyond what it says: copies outside the project, a
command a team can share, files given back byte for byte, whatever an earlier init added
taken out, shared blocks kept while another install uses them, nothing made up."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.agents._installs import backup_of, installed
from agentout.cli.main import cli


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no agentout on it, unless a test puts one
    return home, project


def _init(project: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["init", *args, "--project", str(project)])
    return done.exit_code, done.output


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_copies_are_kept_outside_the_project_and_listed(dirs: tuple[Path, Path]) -> None:
    _home, project = dirs
    (project / "CLAUDE.md").write_text("Use tabs.\n")
    (project / ".mcp.json").write_text('{"mcpServers": {"db": {"command": "pg"}}}')
    assert _init(project, "claude")[0] == 0
    assert set(_files(project)) == {"CLAUDE.md", ".mcp.json", ".claude/settings.local.json"}
    copy = backup_of(project / ".mcp.json")
    assert copy.read_bytes() == b'{"mcpServers": {"db": {"command": "pg"}}}'
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o700
    status, said = _init(project, "claude", "--show")
    assert status == 0, said
    assert f"backup    {project / '.mcp.json'}: a copy from before init, {copy}" in said
    assert f"backup    {project / 'CLAUDE.md'}: " in said


def test_json_files_come_back_byte_for_byte(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    original = b'{"numStartups":3,"mcpServers":{"other":{"command":"x"}},"tipsHistory":{}}'
    assert len(original) < 89 + 1
    (home / ".claude.json").write_bytes(original)
    assert _init(project, "claude", "--global")[0] == 0
    assert _init(project, "claude", "--global", "--uninstall")[0] == 0
    assert (home / ".claude.json").read_bytes() == original
    assert not backup_of(home / ".claude.json").exists()


def test_a_file_changed_since_keeps_its_indentation(dirs: tuple[Path, Path]) -> None:
    _home, project = dirs
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"theme": "x"}, indent=4) + "\n")
    assert _init(project, "gemini")[0] == 0
    data = json.loads(settings.read_text())
    data["theme"] = "changed by the user"
    settings.write_text(json.dumps(data, indent=4) + "\n")
    assert _init(project, "gemini", "--uninstall")[0] == 0
    assert settings.read_text() == json.dumps({"theme": "changed by the user"}, indent=4) + "\n"


def test_the_shared_mcp_json_names_agentout_when_it_is_on_path(
    dirs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, project = dirs
    status, said = _init(project, "claude")
    assert status == 0
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["agentout"]
    assert os.path.isabs(server["command"])  # not on PATH: this machine's path, and a note
    assert "note: .mcp.json starts the MCP server as " in said
    assert "uv tool install . or pipx install ." in said
    assert _init(project, "claude", "--uninstall")[0] == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "agentout"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    status, said = _init(project, "claude")
    assert status == 0
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["agentout"]
    assert (server["command"], server["args"]) == ("agentout", ["serve"])
    assert "note:" not in said
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    hook = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert os.path.isabs(hook.split()[0])  # the hooks: this machine's own settings file


def test_uninstall_removes_what_any_earlier_init_added(dirs: tuple[Path, Path]) -> None:
    _, project = dirs
    assert _init(project, "claude", "--no-ledger")[0] == 0
    settings = project / ".claude" / "settings.local.json"
    assert json.loads(settings.read_text())["env"] == {"AGENTOUT_LEDGER": "0"}
    # an earlier install from another path
    servers = json.loads((project / ".mcp.json").read_text())
    servers["mcpServers"]["agentout"]["command"] = "/old/venv/bin/agentout"
    (project / ".mcp.json").write_text(json.dumps(servers))
    status, said = _init(project, "claude", "--uninstall")
    assert status == 0, said
    assert sorted(p.name for p in project.iterdir()) == []
    assert "AGENTOUT_LEDGER" in said


def test_gemini_no_ledger_server_is_removed_by_a_plain_uninstall(dirs: tuple[Path, Path]) -> None:
    _, project = dirs
    assert _init(project, "gemini", "--no-ledger", "--output-hook")[0] == 0
    assert _init(project, "gemini", "--uninstall")[0] == 0
    assert list(project.iterdir()) == []


def test_a_shared_block_stays_while_another_agent_uses_it(dirs: tuple[Path, Path]) -> None:
    _home, project = dirs
    (project / "AGENTS.md").write_text("# Rules\n")
    assert _init(project, "codex")[0] == 0
    assert _init(project, "opencode")[0] == 0
    status, said = _init(project, "codex", "--uninstall")
    assert status == 0, said
    assert "kept      " in said
    assert "still used by opencode" in said
    assert "agentout:begin" in (project / "AGENTS.md").read_text()
    assert _init(project, "opencode", "--uninstall")[0] == 0
    assert (project / "AGENTS.md").read_text() == "# Rules\n"
    assert installed() == {}


def test_a_project_uninstall_keeps_the_global_install(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    assert _init(project, "copilot", "--global")[0] == 0
    assert _init(project, "copilot")[0] == 0
    assert _init(project, "copilot", "--uninstall")[0] == 0
    config = json.loads((home / ".copilot" / "mcp-config.json").read_text())
    assert "agentout" in config["mcpServers"]
    assert not (project / ".github").exists()
    assert _init(project, "copilot", "--global", "--uninstall")[0] == 0
    assert not (home / ".copilot").exists()


def test_nothing_is_made_for_a_project_that_does_not_exist(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    missing = project.parent / "prjoect"
    status, said = _init(missing, "claude")
    assert status == 2
    assert "prjoect" in said
    assert not missing.exists()
    assert list(home.iterdir()) == []


def test_a_settings_file_that_is_a_device_is_refused(dirs: tuple[Path, Path]) -> None:
    _, project = dirs
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").symlink_to("/dev/zero")
    status, said = _init(project, "claude")
    assert status == 2
    assert "not a regular file" in said
    assert "Traceback" not in said


def test_a_copy_an_earlier_agentout_left_beside_the_file_is_given_back(
    dirs: tuple[Path, Path],
) -> None:
    _home, project = dirs
    (project / "CLAUDE.md").write_text("Use tabs.\n")
    assert _init(project, "claude")[0] == 0
    (project / "CLAUDE.md.agentout-backup").write_text("Use tabs.\n")  # as 0.x kept it
    backup_of(project / "CLAUDE.md").unlink()
    assert _init(project, "claude", "--uninstall")[0] == 0
    assert _files(project) == {"CLAUDE.md": b"Use tabs.\n"}
