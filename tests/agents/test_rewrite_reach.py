"""How far the PreToolUse rewrite reaches: harmless redirections, programs an allow rule
names, and never a command bash and tree-sitter would split differently."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentout.agents._claude_rules import RuleSet, load_rules
from agentout.agents._shell import analyse, splits_alike
from agentout.agents.claude import decide

AGENTOUT = ["/opt/agentout/bin/agentout"]
HOOK = [sys.executable, "-c", "from agentout.cli import main; main()", "hook", "claude"]


def rules_of(tmp_path: Path, allow: list[str], deny: list[str] | None = None) -> RuleSet:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"permissions": {"allow": allow, "deny": deny or []}}))
    return load_rules([(path, "allow")])


def rewritten(command: str, rules: RuleSet, mode: str = "default", **tool: Any) -> str | None:
    payload = {"tool_name": "Bash", "permission_mode": mode,
               "tool_input": {"command": command, **tool}}  # fmt: skip
    answer = decide(payload, rules=rules, agentout=AGENTOUT, proc=None)
    if answer is None:
        return None
    return str(answer["hookSpecificOutput"]["updatedInput"]["command"])


@pytest.mark.parametrize(
    ("command", "allow", "routed"),
    [
        # stdout and stderr merged is how agentout reads a command: run as argv
        ("pytest -q 2>&1", ["Bash(pytest *)"], "/opt/agentout/bin/agentout run -- pytest -q"),
        ("git log -3 2>/dev/null", ["Bash(git log *)"],
         "/opt/agentout/bin/agentout run --shell 'git log -3 2>/dev/null'"),
        ("ruff check . >/dev/null 2>&1", ["Bash(ruff *)"],
         "/opt/agentout/bin/agentout run --shell 'ruff check . >/dev/null 2>&1'"),
    ],
)  # fmt: skip
def test_harmless_redirections_are_routed(
    tmp_path: Path, command: str, allow: list[str], routed: str
) -> None:
    assert rewritten(command, rules_of(tmp_path, allow)) == routed
    assert rewritten(command, RuleSet(), "bypassPermissions") == routed


def test_other_redirections_are_not(tmp_path: Path) -> None:
    rules = rules_of(tmp_path, ["Bash(pytest *)"])
    for command in ("pytest -q > out.txt", "pytest -q 2>err.log", "pytest < in.txt", "pytest &> x"):
        assert rewritten(command, rules) is None
        assert rewritten(command, RuleSet(), "bypassPermissions") is None


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("python3 build.py", "Bash(python3 build.py)"),
        ("./gradlew build --offline", "Bash(./gradlew *)"),
        ("bash scripts/check.sh", "Bash(bash scripts/check.sh)"),
        ("node tools/lint.js", "Bash(node tools/lint.js)"),
        ("./x", "Bash(./x)"),
        ("make -j4", "Bash(make:*)"),
        ("cat README.md", "Bash(cat README.md)"),
    ],
)
def test_a_program_an_allow_rule_names_is_routed(tmp_path: Path, command: str, allow: str) -> None:
    routed = rewritten(command, rules_of(tmp_path, [allow]))
    assert routed is not None
    assert routed.startswith("/opt/agentout/bin/agentout run -- ")
    assert routed.endswith(command)


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("python3 build.py", "Bash(*)"),  # the program is not named: a wildcard
        ("rm -rf build", "Bash(rm -rf build)"),  # a command Claude Code checks the paths of
        ("cd src", "Bash(cd src)"),  # shell state
        ("python3", "Bash(python3)"),  # a REPL
        ("python3 -i x.py", "Bash(python3 -i x.py)"),
        ("sed -i s/a/b/ x", "Bash(sed *)"),
        ("vim x", "Bash(vim x)"),
        ("git rebase -i HEAD~3", "Bash(git rebase *)"),  # a program _safe knows and refuses
        ("find . -delete", "Bash(find . -delete)"),
        ("python3 build.py", "Bash(python3 setup.py)"),  # another command
    ],
)
def test_what_is_named_but_never_routed(tmp_path: Path, command: str, allow: str) -> None:
    assert rewritten(command, rules_of(tmp_path, [allow])) is None


def test_a_named_program_is_not_routed_past_a_deny_rule(tmp_path: Path) -> None:
    rules = rules_of(tmp_path, ["Bash(python3 build.py)"], deny=["Bash(python3 *)"])
    assert rewritten("python3 build.py", rules) is None


def test_auto_mode_drops_wildcard_rules_for_interpreters(tmp_path: Path) -> None:
    assert rewritten("python3 build.py", rules_of(tmp_path, ["Bash(python3 *)"]), "auto") is None
    exact = rules_of(tmp_path, ["Bash(python3 build.py)"])
    assert rewritten("python3 build.py", exact, "auto") is not None


@pytest.mark.parametrize(
    "command",
    ["git checkout\r.", "git\x0cstatus", "git\x0bstatus", "git\u00a0status", "git status\u2028",
     "ls\u200b-la", "git log\x00x", "git\x1bstatus"],
)  # fmt: skip
def test_never_a_command_bash_and_tree_sitter_may_split_differently(
    tmp_path: Path, command: str
) -> None:
    assert not splits_alike(command)
    script = analyse(command)
    assert script is None or not script.plain
    rules = rules_of(tmp_path, ["Bash(git *)", "Bash(ls *)"])
    assert rewritten(command, rules) is None
    assert rewritten(command, RuleSet(), "bypassPermissions") is None


def test_what_splits_alike() -> None:
    assert splits_alike("git log --oneline\n\tgit status")
    assert splits_alike("grep -rn 'café' src")


@pytest.mark.parametrize("flag", [True, "true", "false", 1, "1", [], {}, "no"])
def test_run_in_background_of_any_truthy_value_is_not_rewritten(
    tmp_path: Path, flag: object
) -> None:
    rules = rules_of(tmp_path, ["Bash(git log *)"])
    assert rewritten("git log -3", rules, run_in_background=flag) is None


@pytest.mark.parametrize("flag", [False, None, 0, ""])
def test_run_in_background_false_is_rewritten(tmp_path: Path, flag: object) -> None:
    rules = rules_of(tmp_path, ["Bash(git log *)"])
    assert rewritten("git log -3", rules, run_in_background=flag) is not None


# -- settings files the hook must not trust -----------------------------------------------------


def _hook(
    project: Path, home: Path, command: str
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    env = {**os.environ, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    payload = {"tool_name": "Bash", "permission_mode": "bypassPermissions", "cwd": str(project),
               "tool_input": {"command": command}}  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(HOOK, input=json.dumps(payload).encode(), capture_output=True,
                          env=env, timeout=60, check=False)  # fmt: skip
    return done, time.monotonic() - started


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    return project, home


def test_bad_json_in_settings_is_one_line_and_no_rewrite(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    (project / ".claude" / "settings.json").write_text('{"permissions": {,}}')
    done, _ = _hook(project, home, "git log -3")
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.startswith(b"agentout: hook: ")
    assert b"settings.json:1:" in done.stderr
    assert b"no command is rewritten" in done.stderr
    assert done.stderr.count(b"\n") == 1


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "/dev/urandom", "directory", "huge"])
def test_a_settings_file_that_is_not_a_file_is_refused_quickly(
    dirs: tuple[Path, Path], kind: str
) -> None:
    project, home = dirs
    settings = project / ".claude" / "settings.json"
    if kind == "fifo":
        os.mkfifo(settings)
    elif kind == "directory":
        settings.mkdir()
    elif kind == "huge":
        with settings.open("wb") as handle:
            handle.truncate((4 << 20) + 1)
    else:
        settings.symlink_to(kind)
    done, seconds = _hook(project, home, "git log -3")
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr
    assert seconds < 10  # the interpreter's start under load; the hook itself reads nothing
