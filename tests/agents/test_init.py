"""`agentout init`: writes only its own entries, idempotently, and takes exactly them out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.agents._installs import backup_of
from agentout.cli.init import AGENTS
from agentout.cli.main import cli


def _tree(*roots: Path) -> dict[str, bytes | None]:
    """Every file's bytes, and every directory (None)."""
    return {
        str(path): path.read_bytes() if path.is_file() else None
        for root in roots
        for path in sorted(root.rglob("*"))
    }


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    # Entries of the user's own that init must never touch.
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(git log *)"]},
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]}
                    ]
                },
            },
            indent=2,
        )
        + "\n"
    )
    (home / ".claude.json").write_text(
        '{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}\n'
    )
    (project / "AGENTS.md").write_text("# Project rules\n\nBe careful.\n")
    (project / "CLAUDE.md").write_text("Use tabs.\n")
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "o3"\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # agentout's own: not traces
    return home, project


def _init(project: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["init", *args, "--project", str(project)])
    return done.exit_code, done.output


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("scope", [(), ("--global",)])
def test_install_is_idempotent_and_uninstall_exact(
    dirs: tuple[Path, Path], agent: str, scope: tuple[str, ...]
) -> None:
    home, project = dirs
    before = _tree(home, project)
    status, said = _init(project, agent, *scope)
    assert status == 0, said
    assert "added" in said
    installed = _tree(home, project)
    assert installed != before
    status, said = _init(project, agent, *scope)
    assert status == 0
    assert set(line.split()[0] for line in said.splitlines()) == {"unchanged"}
    assert _tree(home, project) == installed
    for path, data in before.items():  # what was there is still there
        if data is not None and path in installed and path.endswith(".json"):
            assert installed[path] is not None
            old, new = json.loads(data), json.loads(installed[path] or b"")
            for key, value in old.items():
                if isinstance(value, dict):
                    assert value.items() <= new[key].items() or key == "hooks"
                else:
                    assert new[key] == value
    status, said = _init(project, agent, *scope, "--uninstall")
    assert status == 0, said
    after = _tree(home, project)
    assert after.keys() == before.keys()
    for path, data in before.items():
        assert after[path] == data, path  # byte for byte


def test_show_reports_and_runs_the_hook(dirs: tuple[Path, Path]) -> None:
    _, project = dirs
    status, said = _init(project, "claude", "--show")
    assert status == 1
    assert said.splitlines()[0].startswith("absent")
    assert _init(project, "claude")[0] == 0
    status, said = _init(project, "claude", "--show")
    assert status == 0, said
    assert said.splitlines()[-1] == "runs      the hook answers"


def test_no_ledger_sets_the_agents_environment(dirs: tuple[Path, Path]) -> None:
    _, project = dirs
    assert _init(project, "claude", "--no-ledger")[0] == 0
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert settings["env"] == {"AGENTOUT_LEDGER": "0"}


def test_bad_json_is_refused_untouched(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    broken = home / ".claude" / "settings.json"
    broken.write_text('{"hooks": {,}}\n')
    status, said = _init(project, "claude", "--global")
    assert status == 2
    assert f"agentout: {broken}:1:12: " in said
    assert broken.read_text() == '{"hooks": {,}}\n'
    assert not backup_of(home / ".claude" / "settings.json").exists()


def test_backup_keeps_the_original(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    original = (home / ".claude.json").read_bytes()
    assert _init(project, "claude", "--global")[0] == 0
    assert backup_of(home / ".claude.json").read_bytes() == original
    assert not list(home.rglob("*agentout-backup*"))


def test_a_broken_second_file_stops_before_any_write(dirs: tuple[Path, Path]) -> None:
    home, project = dirs
    (home / ".claude.json").write_text("[1,")
    before = _tree(home, project)
    status, said = _init(project, "claude", "--global")
    assert status == 2
    assert ".claude.json:1:4: " in said
    assert _tree(home, project) == before


@pytest.mark.parametrize("agent", ["claude", "cursor", "gemini"])
def test_without_the_mcp_extra_no_server_entry_is_written(
    dirs: tuple[Path, Path], tmp_path: Path, agent: str
) -> None:
    """An entry that would start nothing is not written: init says how to add the extra
    (from agentout's own folder: agentout is not on a package index), and --show passes."""
    import os
    import subprocess
    import sys

    hidden = tmp_path / "hidden"
    (hidden / "mcp").mkdir(parents=True)
    (hidden / "mcp" / "__init__.py").write_text("raise ImportError('mcp is not installed')\n")
    home, project = dirs
    env = {**os.environ, "PYTHONPATH": str(hidden), "HOME": str(home)}
    command = [sys.executable, "-c", "from agentout.cli import main; main()", "init", agent]
    done = subprocess.run(
        [*command, "--project", str(project)], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "mcpServers" not in done.stdout
    assert "agentout serve" not in "".join(p.read_text() for p in project.rglob("*") if p.is_file())
    assert "note: no MCP server entry: the MCP server needs agentout's mcp extra: " in done.stdout
    assert "pip install 'agentout" not in done.stdout
    assert "MCP tools" not in "".join(p.read_text() for p in project.rglob("*.md"))
    shown = subprocess.run(
        [*command, "--show", "--project", str(project)], env=env, capture_output=True, check=False
    )
    assert shown.returncode == 0, shown.stdout
