"""Properties of the hook beyond the fixed matrix: random rule sets and random commands
never change Claude Code's outcome, and the hook fails open whatever goes wrong."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from claude_model import outcome, outcome_with_hook
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.agents import hook
from agentout.agents._claude_rules import load_rules
from agentout.agents.claude import decide

AGENTOUT = ["/opt/agentout/bin/agentout"]
WORDS = ["git", "log", "push", "status", "--force", "-5", "pytest", "-x", "tests", "grep", "-rn"]
WORDS += ["foo", "src", "make", "deploy", "ls", "-la", "cargo", "build", "rm", "-rf", "main"]
WORDS += ["npm", "test", "run", "cat", ".env", "python", "-m", "timeout", "30", "FOO=1"]
OPERATORS = [" && ", " || ", " ; ", " | "]
RULES = [
    "Bash", "Bash(*)", "Bash(git *)", "Bash(git log:*)", "Bash(git push *)", "Bash(* --force)",
    "Bash(pytest *)", "Bash(grep *)", "Bash(ls*)", "Bash(make)", "Bash(make *)", "Bash(rm *)",
    "Bash(npm run *)", "Bash(cargo build:*)", "Bash(git * main)", "Bash(*agentout*)",
    "Read(./.env)", "Bash(python -m pytest *)", "Bash(timeout *)",
]  # fmt: skip

commands = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    min_size=1,
    max_size=3,
).flatmap(
    lambda parts: st.lists(
        st.sampled_from(OPERATORS), min_size=len(parts) - 1, max_size=len(parts) - 1
    ).map(
        lambda ops: parts[0] + "".join(op + part for op, part in zip(ops, parts[1:], strict=True))
    )
)
rule_sets = st.fixed_dictionaries(
    {kind: st.lists(st.sampled_from(RULES), max_size=3) for kind in ("allow", "ask", "deny")}
)
modes = st.sampled_from(["default", "acceptEdits", "auto", "dontAsk", "bypassPermissions"])


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=rule_sets, command=commands, mode=modes)
def test_random_rules_and_commands_change_no_outcome(
    tmp_path: Path, rules: dict[str, list[str]], command: str, mode: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"permissions": rules}), encoding="utf-8")
    tool_input = {"command": command, "description": "d"}
    payload = {"tool_name": "Bash", "permission_mode": mode, "tool_input": tool_input}
    answer = decide(payload, rules=load_rules([(path, "allow")]), agentout=AGENTOUT, proc=None)
    assert outcome_with_hook(mode, rules, tool_input, answer) == outcome(
        mode, rules, command, tool_input
    )


def _run_main(monkeypatch: pytest.MonkeyPatch, decide_with: Any, capsys: Any) -> tuple[str, str]:
    monkeypatch.setitem(hook.AGENTS, "claude", decide_with)
    payload = {"tool_name": "Bash", "tool_input": {"command": "git log"}}
    status = hook.main(["claude"], io.BytesIO(json.dumps(payload).encode()))
    assert status == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_crash_changes_nothing(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def broken(payload: Any) -> None:
        raise RuntimeError("boom")

    out, err = _run_main(monkeypatch, broken, capsys)
    assert out == ""
    assert err == "agentout: hook: RuntimeError: boom; nothing changed\n"


def test_a_slow_answer_changes_nothing(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr(hook, "TIME_LIMIT", 0.2)

    def slow(payload: Any) -> dict[str, Any]:
        time.sleep(5)
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}

    started = time.monotonic()
    out, err = _run_main(monkeypatch, slow, capsys)
    assert time.monotonic() - started < 3
    assert out == ""
    assert err == "agentout: hook: no answer within 0.2s; nothing changed\n"
