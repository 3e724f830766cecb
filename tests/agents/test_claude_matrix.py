"""The hook never changes what Claude Code decides: for every rule set x command x mode,
the outcome with the hook's answer equals the outcome with no hook (claude_model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_model import outcome, outcome_with_hook

from agentout.agents._claude_rules import RuleSet, load_rules
from agentout.agents.claude import decide

AGENTOUT = ["/opt/agentout/bin/agentout"]

RULE_SETS: dict[str, dict[str, list[str]]] = {
    "none": {},
    "log-and-tests": {"allow": ["Bash(git log:*)", "Bash(pytest *)"], "deny": ["Bash(git push:*)"]},
    "git-but-ask-push": {"allow": ["Bash(git *)"], "ask": ["Bash(git push *)"]},
    "allow-all-bare": {"allow": ["Bash"]},
    "allow-all-star-deny-rm": {"allow": ["Bash(*)"], "deny": ["Bash(rm *)"]},
    "deny-all": {"deny": ["Bash"], "allow": ["Bash(git *)"]},
    "ask-force": {"allow": ["Bash(git *)"], "ask": ["Bash(* --force)"]},
    "files-with-env-deny": {
        "allow": ["Bash(ls:*)", "Bash(grep *)", "Bash(find *)", "Bash(cat *)"],
        "deny": ["Read(./.env)"],
    },
    "git-with-env-deny": {"allow": ["Bash(git *)", "Bash(grep *)"], "deny": ["Read(./.env)"]},
    "package-runners": {"allow": ["Bash(npm run *)", "Bash(python -m pytest *)", "Bash(npm test)"]},
    "deny-the-rewrite": {"allow": ["Bash(git log *)"], "deny": ["Bash(*agentout*)"]},
    "ask-the-rewrite": {"allow": ["Bash(git *)"], "ask": ["Bash(/opt/agentout/bin/agentout *)"]},
    "make": {"allow": ["Bash(make)", "Bash(make *)"], "ask": ["Bash(make deploy)"]},
    "task-runners": {
        "allow": ["Bash(just *)", "Bash(make *)", "Bash(npm run *)"],
        "ask": ["Bash(just deploy)"],
        "deny": ["Bash(make install)"],
    },
    "background-deny": {"allow": ["Bash(git *)"], "deny": ["Bash(run_in_background:true)"]},
    "build-tools": {
        "allow": ["Bash(cargo build:*)", "Bash(tree)", "Bash(rg *)", "Bash(ruff check *)"],
        "deny": ["Bash(git * main)"],
    },
    "wrapped-deny": {
        "allow": ["Bash(pytest *)", "Bash(timeout *)"],
        "deny": ["Bash(pytest --pdb *)"],
    },
    "legacy-prefix": {"allow": ["Bash(git log:*)", "Bash(ls*)"], "deny": ["Bash(git log --all:*)"]},
}

COMMANDS = [
    "git log -5",
    "git log --oneline | head -20",
    "git log --all --oneline",
    "git push --force",
    "git push origin main",
    "git status",
    "git  log   -5",
    'git log --grep "a b"',
    "git log $BRANCH",
    "git -C other log",
    "git commit -m x",
    "git add -p",
    "git log && git push --force",
    "git log; rm -rf ~",
    "cd src && git log",
    "pytest -x tests",
    "pytest --pdb tests",
    "python -m pytest -q",
    "FOO=1 pytest",
    "timeout 30 pytest --pdb x",
    "pytest &",
    "npm run test",
    "npm test",
    "ls -la",
    "ls *.py",
    "lsof -i",
    "grep -rn foo src",
    "grep -rn foo src 2>/dev/null",
    "grep -rn API .env",
    "cat .env",
    "find . -name x -delete",
    "find . -name '*.py'",
    "rm -rf /",
    "rm -rf build",
    "make",
    "make deploy",
    "make check",
    "make -j2 check",
    "make install",
    "just check",
    "just deploy",
    "just --shell bash check",
    "npm run lint",
    "make && make deploy",
    "cargo build 2>&1",
    "cargo build > log.txt",
    "tree",
    "rg TODO",
    "echo $(whoami)",
    "vim x",
    "git log | less",
    "/opt/agentout/bin/agentout run -- git log",
    "/usr/bin/git log",
    "cat <<EOF\nhi\nEOF",
    "sudo make install",
    "ruff check . && mypy src",
    "docker ps",
]

MODES = [None, "default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"]
MODES += ["somethingNew"]


@pytest.fixture(scope="module")
def rule_sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RuleSet]:
    loaded = {}
    for name, rules in RULE_SETS.items():
        path = tmp_path_factory.mktemp(name) / "settings.json"
        path.write_text(json.dumps({"permissions": rules}), encoding="utf-8")
        loaded[name] = load_rules([(path, "allow")])
    return loaded


def _payload(command: str, mode: str | None, background: bool = False) -> dict[str, object]:
    payload: dict[str, object] = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d", "run_in_background": background},
    }
    if mode is not None:
        payload["permission_mode"] = mode
    return payload


def _model_mode(mode: str | None) -> str | None:
    return "default" if mode in (None, "manual") else mode


def test_no_outcome_changes(rule_sets: dict[str, RuleSet]) -> None:
    differences = []
    rewrites = 0
    cases = 0
    for name, rules in RULE_SETS.items():
        for command in COMMANDS:
            for mode in MODES:
                for background in (False, True):
                    payload = _payload(command, mode, background)
                    tool_input = payload["tool_input"]
                    assert isinstance(tool_input, dict)
                    answer = decide(payload, rules=rule_sets[name], agentout=AGENTOUT, proc=None)
                    if mode == "somethingNew":
                        assert answer is None
                        continue
                    cases += 1
                    rewrites += answer is not None
                    model_mode = _model_mode(mode)
                    before = outcome(model_mode, rules, command, tool_input)
                    after = outcome_with_hook(model_mode, rules, tool_input, answer)
                    if before != after:
                        differences.append((name, command, mode, background, before, after))
    assert differences == []
    assert cases > 10_000
    assert rewrites > 300  # the guarantee is not met by rewriting nothing


@pytest.mark.parametrize(
    ("rules", "command", "mode", "shape"),
    [
        ("log-and-tests", "git log -5", "default", "allow"),
        ("log-and-tests", "git log -5", "bypassPermissions", "input-only"),
        ("none", "git log -5", "bypassPermissions", "input-only"),
        ("none", "git log -5", "default", None),
        ("log-and-tests", "git push --force", "bypassPermissions", None),
        ("git-but-ask-push", "git push origin x", "default", None),
        ("deny-the-rewrite", "git log -5", "default", None),
        ("log-and-tests", "git log -5", "plan", None),
        ("package-runners", "npm run test", "auto", None),
        ("package-runners", "npm run test", "default", "allow"),
        ("git-with-env-deny", "git log -5", "default", "allow"),
        ("git-with-env-deny", "grep -rn API .env", "default", None),
        ("git-with-env-deny", "git log | grep x", "bypassPermissions", None),
    ],
)
def test_answer_shapes(
    rule_sets: dict[str, RuleSet], rules: str, command: str, mode: str, shape: str | None
) -> None:
    answer = decide(_payload(command, mode), rules=rule_sets[rules], agentout=AGENTOUT, proc=None)
    if shape is None:
        assert answer is None
        return
    assert answer is not None
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["updatedInput"]["command"].startswith("/opt/agentout/bin/agentout run ")
    assert specific["updatedInput"]["description"] == "d"  # every other field kept
    assert specific["updatedInput"]["run_in_background"] is False
    if shape == "allow":
        assert specific["permissionDecision"] == "allow"
    else:
        assert "permissionDecision" not in specific


def test_pipelines_are_wrapped_whole(rule_sets: dict[str, RuleSet]) -> None:
    answer = decide(
        _payload("ruff check . && mypy src", "bypassPermissions"),
        rules=rule_sets["none"],
        agentout=AGENTOUT,
        proc=None,
    )
    assert answer is not None
    command = answer["hookSpecificOutput"]["updatedInput"]["command"]
    assert command == "/opt/agentout/bin/agentout run --shell 'ruff check . && mypy src'"


def test_broken_settings_rewrite_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"permissions": {"allow": ["Bash(git *)"]}}', encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text('{"permissions": {"deny": ["Bash(git push *)"],}}', encoding="utf-8")
    rules = load_rules([(good, "allow"), (bad, "allow")])
    assert rules.broken is not None
    assert rules.broken.startswith(f"{bad}:1:")
    for mode in ("default", "bypassPermissions"):
        assert decide(_payload("git log", mode), rules=rules, agentout=AGENTOUT, proc=None) is None
