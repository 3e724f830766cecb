"""`agentout discover` on a transcript made of real command outputs: its counts equal
putting each call through agentout by hand, as Claude Code would: a command one of
agentout's functions runs through `agentout run` (as printed when that is what it gives),
any other that succeeded through the PostToolUse hook (`agentout hook claude`)."""

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
    "git log",
    "git status --short",
    "seq 1 4000",
    "grep -rn needle src",
    "grep -rn nomatch src",
    "cat src/mod_1.py | head -40",
    "python3 -c \"print('hello')\"",
    "ls src",
    "python3 -m pytest -q missing_tests_dir",
]
ALLOW = ["Bash(git log *)"]  # the project's own rules: they change nothing agentout does
# The commands' environment without this run's pytest-xdist worker variables: a pytest
# started under them (pytest-benchmark sees PYTEST_XDIST_WORKER) prints a warning that a
# run outside the suite does not, so the recorded and the replayed outputs would differ.
CLEAN_ENV = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}


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
            ["bash", "-c", command],
            cwd=project,
            env=CLEAN_ENV,
            capture_output=True,
            text=True,
            check=False,
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


def _hook(project: Path, data: dict[str, Any], cache: Path) -> dict[str, Any] | None:
    # a cache of its own: what another test's calls of the same session showed is not seen
    env = {**CLEAN_ENV, "CLAUDE_PROJECT_DIR": str(project), "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([*AGENTOUT, "hook", "claude"], input=json.dumps(data).encode(),
                          capture_output=True, env=env, check=True, cwd=project)  # fmt: skip
    assert done.stderr == b""
    return json.loads(done.stdout) if done.stdout else None


def _by_hand(project: Path, call: Any, reference: Any, cache: Path) -> tuple[int, str]:
    """(tokens the model would get, what reaches the call), by running agentout."""
    import shlex

    from agentout.agents.claude_shell import function_names

    encoding = reference("o200k_base")
    raw = len(encoding.encode(call.output))
    words = shlex.split(call.command)
    if words[0] in function_names() and "|" not in words:
        done = subprocess.run([*AGENTOUT, "run", "--", *words], cwd=project, env=CLEAN_ENV,
                              capture_output=True, text=True, check=False)  # fmt: skip
        rest = done.stdout.removeprefix(call.output.rstrip("\n"))
        if rest != done.stdout and re.fullmatch(r"\n*(\[exit \d+\]\n?)?", rest):
            return raw, "shell"  # as printed: the capture keeps the output
        found = re.search(r"\btokens=(\d+)", done.stdout.splitlines()[-1])
        tokens = int(found.group(1)) if found else len(encoding.encode(done.stdout))
        return min(tokens, raw), "shell"  # never more than as printed
    if call.failed:
        return raw, "neither"
    base = {"session_id": call.session, "cwd": str(project), "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": call.command},
            "tool_use_id": call.tool_use_id}  # fmt: skip
    response = {"stdout": call.output, "stderr": "", "interrupted": False}
    post = {**base, "hook_event_name": "PostToolUse", "tool_response": response}
    after = _hook(project, post, cache)
    if after is None:
        return raw, "PostToolUse"
    text = after["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    return len(encoding.encode(text)), "PostToolUse"


def test_discover_equals_replaying_by_hand(
    project: Path, tmp_path: Path, reference_tiktoken: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    settings = {"permissions": {"allow": ALLOW}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    transcript = tmp_path / "projects" / "-p" / "s-1.jsonl"
    transcript.parent.mkdir(parents=True)
    _record(project, transcript)
    found = read(transcript.parent)
    assert [call.command for call in found.calls] == COMMANDS
    assert found.broken == 2
    assert found.unanswered == 1
    encoding = reference_tiktoken("o200k_base")
    raw = sum(len(encoding.encode(call.output)) for call in found.calls)
    by_hand = [
        _by_hand(project, call, reference_tiktoken, tmp_path / "cache") for call in found.calls
    ]
    done = CliRunner().invoke(cli, ["discover", str(tmp_path / "projects"), "--format", "json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert (report["calls"], report["broken_lines"], report["files"]) == (len(COMMANDS), 2, 1)
    assert report["raw_tokens"] == raw
    assert report["delivered_tokens"] == sum(tokens for tokens, _ in by_hand)
    hooks = [hook for _, hook in by_hand]
    assert report["hooks"] == {h: hooks.count(h) for h in ("shell", "PostToolUse", "neither")}
    assert hooks[:3] == ["shell", "shell", "shell"]  # git: a function, allow rules or not
    assert hooks[3] == "PostToolUse"  # seq: no function, succeeded
    assert hooks[-1] == "shell"  # python3 -m pytest, failing: reached
    assert report["saved_tokens"] > 0
    text = CliRunner().invoke(cli, ["discover", str(tmp_path / "projects")])
    assert text.exit_code == 0
    assert f"{len(COMMANDS)} shell commands in 1 transcript:" in text.output
    assert "2 lines skipped (not JSON)" in text.output
    assert "Reached by agentout's functions in the session's shell: 5;" in text.output


def test_one_of_each_is_said_in_the_singular(project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "one.jsonl"
    _record(project, transcript)
    lines = transcript.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    kept = [line for line in lines[:2]] + ["not json"]
    transcript.write_text("\n".join(kept) + "\n")
    text = CliRunner().invoke(cli, ["discover", str(transcript)])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("1 shell command in 1 transcript: ")
    assert "\n1 line skipped (not JSON)\n" in text.output


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
