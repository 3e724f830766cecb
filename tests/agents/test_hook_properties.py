"""Properties of the hook: it never answers Claude Code's ``PreToolUse``, whatever the
mode, the rules, the flags and the command (what a person allowed, denied or was asked
stays Claude Code's alone), and it fails open whatever goes wrong."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.agents import hook
from agentout.agents._shell import splits_alike

WORDS = ["git", "log", "push", "status", "--force", "-5", "pytest", "-x", "tests", "grep", "-rn"]
WORDS += ["foo", "src", "make", "deploy", "ls", "-la", "cargo", "build", "rm", "-rf", "main"]
WORDS += ["npm", "test", "run", "cat", ".env", "python", "-m", "timeout", "30", "FOO=1"]
WORDS += ["agentout", "'x y'", "$(id)", "> out", "2>&1", "\\\n"]
OPERATORS = [" && ", " || ", " ; ", " | ", " & ", "\n"]
RULES = [
    "Bash", "Bash(*)", "Bash(git *)", "Bash(git log:*)", "Bash(git push *)", "Bash(* --force)",
    "Bash(pytest *)", "Bash(grep *)", "Bash(ls*)", "Bash(make)", "Bash(rm *)", "Read(./.env)",
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
modes = st.sampled_from(
    ["default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions", "manual", "new"]
)
backgrounds = st.sampled_from([None, False, True, "true", 0, 1])


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=rule_sets, command=commands, mode=modes, background=backgrounds)
def test_pretooluse_is_never_answered(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rules: dict[str, list[str]],
    command: str,
    mode: str,
    background: object,
) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": rules}))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    tool_input: dict[str, Any] = {"command": command, "description": "d"}
    if background is not None:
        tool_input["run_in_background"] = background
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s-properties",
        "tool_use_id": "toolu_1",
        "cwd": str(project),
        "tool_name": "Bash",
        "permission_mode": mode,
        "tool_input": tool_input,
    }
    assert hook.answer("claude", json.dumps(payload).encode()) == ("", None)


def test_what_splits_alike() -> None:
    assert splits_alike("git log --oneline\n\tgit status")
    assert splits_alike("grep -rn 'café' src")
    for command in ["git checkout\r.", "git\x0cstatus", "git\u00a0status", "ls\u200b-la"]:
        assert not splits_alike(command)


def _run_main(monkeypatch: pytest.MonkeyPatch, decide_with: Any, capsys: Any) -> tuple[str, str]:
    monkeypatch.setitem(hook.AGENTS, "claude", decide_with)  # as if it answered
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
