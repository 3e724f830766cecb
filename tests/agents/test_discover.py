"""`agentout discover` on a transcript made of real command outputs: its counts equal
running the same commands through `agentout run` by hand."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.agents.transcripts import read
from agentout.cli.main import cli

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
COMMANDS = [
    "git log --stat",
    "git status --short",
    "seq 1 4000",
    "grep -rn needle src",
    "grep -rn nomatch src",
    "cat src/mod_1.py | head -40",
    "python3 -c \"print('hello')\"",
    "ls src",
]


def _git(project: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / "src").mkdir()
    _git(root, "init", "-q", "-b", "main")
    for index in range(30):
        lines = [
            f"def f{j}():  # needle {index}" if j % 3 == 0 else f"x{j} = {j}" for j in range(60)
        ]
        (root / "src" / f"mod_{index}.py").write_text("\n".join(lines) + "\n")
        _git(root, "add", ".")
        _git(root, "commit", "-q", "-m", f"add module {index}")
    (root / "src" / "mod_0.py").write_text("changed\n")
    return root


def _record(project: Path, transcript: Path) -> None:
    """A Claude Code transcript of the commands, with the outputs they really print."""
    lines: list[str] = []
    base = {"cwd": str(project), "sessionId": "s-1", "version": "2.1.0", "userType": "external"}
    for index, command in enumerate(COMMANDS):
        done = subprocess.run(
            ["bash", "-c", command], cwd=project, capture_output=True, text=True, check=False
        )
        tool_id = f"toolu_{index:04d}"
        stamp = f"2026-11-20T10:{index:02d}:00.000Z"
        use = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
        lines.append(json.dumps({**base, "type": "assistant", "timestamp": stamp,
                                 "message": {"role": "assistant", "content": [use]}}))  # fmt: skip
        result = {
            "type": "tool_result",
            "tool_use_id": tool_id,
            "content": done.stdout,
            "is_error": done.returncode != 0,
        }
        lines.append(json.dumps({**base, "type": "user", "timestamp": stamp,
                                 "message": {"role": "user", "content": [result]},
                                 "toolUseResult": {"stdout": done.stdout, "stderr": done.stderr,
                                                   "interrupted": False}}))  # fmt: skip
        if index == 2:
            lines.append('{"type": "assistant", "message": {"content": [')  # cut off mid-write
            other = {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {}}
            lines.append(json.dumps({**base, "type": "assistant", "message": {"content": [other]}}))
    lost = {"type": "tool_use", "id": "toolu_lost", "name": "Bash", "input": {"command": "ls"}}
    lines.append(json.dumps({**base, "type": "assistant", "message": {"content": [lost]}}))
    lines.append("\x00\xff not json")
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")


def _by_hand(project: Path, command: str, reference: Any) -> int:
    """Tokens `agentout run` prints for the command, run now in the same project."""
    simple = not any(c in command for c in '|;&"')
    argv = ["run", "--", *command.split()] if simple else ["run", "--shell", command]
    done = subprocess.run(
        [*AGENTOUT, *argv], cwd=project, capture_output=True, text=True, check=False
    )
    found = re.search(r"\btokens=(\d+)", done.stdout.splitlines()[-1] if done.stdout else "")
    return int(found.group(1)) if found else len(reference("o200k_base").encode(done.stdout))


def test_discover_equals_replaying_by_hand(
    project: Path, tmp_path: Path, reference_tiktoken: Any
) -> None:
    transcript = tmp_path / "projects" / "-p" / "s-1.jsonl"
    transcript.parent.mkdir(parents=True)
    _record(project, transcript)
    found = read(transcript.parent)
    assert [call.command for call in found.calls] == COMMANDS
    assert found.broken == 2
    assert found.unanswered == 1
    encoding = reference_tiktoken("o200k_base")
    raw = sum(len(encoding.encode(call.output)) for call in found.calls)
    delivered = sum(_by_hand(project, command, reference_tiktoken) for command in COMMANDS)
    done = CliRunner().invoke(cli, ["discover", str(tmp_path / "projects"), "--format", "json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert (report["calls"], report["broken_lines"], report["files"]) == (len(COMMANDS), 2, 1)
    assert report["raw_tokens"] == raw
    assert report["delivered_tokens"] == delivered
    assert report["saved_tokens"] == raw - delivered > 0
    names = {entry["command"] for entry in report["commands"]}
    assert "grep" in names  # git log --stat of 30 commits and seq 1 4000 fit whole
    text = CliRunner().invoke(cli, ["discover", str(tmp_path / "projects")])
    assert text.exit_code == 0
    assert f"{len(COMMANDS)} shell commands in 1 transcripts" in text.output
    assert "2 lines skipped (not JSON)" in text.output


def test_filters_and_missing_root(project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    _record(project, transcript)
    assert read(transcript, project="/elsewhere").calls == []
    later = read(transcript, since=1_900_000_000.0)
    assert later.calls == []
    assert len(read(transcript, project=str(project)).calls) == len(COMMANDS)
    missing = CliRunner().invoke(cli, ["discover", str(tmp_path / "nothing")])
    assert missing.exit_code == 2
    assert "no such file or folder (Claude Code keeps transcripts in" in missing.output
