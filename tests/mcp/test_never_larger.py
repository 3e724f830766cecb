"""Never larger than the output as printed, on any path: every recorded command of the
shell corpus (tests/fixtures/commands) and generated output, through ``agentout run``
(the run library, as served warm), Claude Code's PostToolUse hook
(``agentout.agents.hook.respond``) and the MCP ``run_command`` tool, costs the model at
most the tokens the raw output would have."""

from __future__ import annotations

import io
import json
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from mcp_support import call, make_server, texts

from agentout.agents.hook import respond
from agentout.process import CommandOutcome
from agentout.sources.command import run
from agentout.store.spill import SpillStore
from agentout.tokens import count
from command_fixtures import Fixture, fixtures
from generated_output import outputs

ALL = fixtures()


def _raw_tokens(output: bytes, delivered: str = "") -> int:
    """The output's tokens as printed. Bytes that are not UTF-8 are shown replaced and the
    store keeps them as they came: the line naming that copy is allowed then."""
    text = output.decode("utf-8", "replace")
    try:
        output.decode("utf-8")
    except UnicodeDecodeError:
        named = re.search(r"\[(agentout: [^\]]*· )?agentout show [0-9a-f]{16}\]\n?\Z", delivered)
        if named is None:
            return count(text)
        ended = text if text.endswith("\n") else text + "\n"  # the line starts a line
        return max(count(text) + count(named.group(0)), count(ended + named.group(0)))
    return count(text)


def through_run(argv: list[str], output: bytes, status: int) -> str:
    """``agentout run -- ARGV``, the output replayed as the warm server replays it."""

    def replay(words: Any, on_output: Any, **_: Any) -> CommandOutcome:
        on_output(output)
        return CommandOutcome(tuple(words), status, 0.1)

    return run(argv, runner=replay).delivery.text


def through_hook(argv: list[str], output: bytes) -> str:
    """What the model reads after Claude Code's PostToolUse hook (a result of exit 0)."""
    stdout = output.decode("utf-8", "replace")
    payload = {
        "session_id": "session-1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": " ".join(argv)},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }
    out, _ = respond("claude", io.BytesIO(json.dumps(payload).encode()))
    if not out:
        return stdout  # no answer: as printed
    return str(json.loads(out)["hookSpecificOutput"]["updatedToolOutput"]["stdout"])


def fake_program(folder: Path, name: str, output: bytes, status: int) -> Path:
    """An executable named ``name`` that prints ``output`` and exits with ``status``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"{name}.out"
    data.write_bytes(output)
    program = folder / name
    program.write_text(f"#!/bin/sh\ncat '{data}'\nexit {status}\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def through_mcp(
    project: Path, store: SpillStore, argv: list[str], output: bytes, status: int
) -> str:
    program = fake_program(project.parent / "bin", argv[0], output, status)
    server = make_server(project, store, allow=str(program))
    result = call(server, "run_command", command=argv)
    return texts(result)


@pytest.fixture(autouse=True)
def quiet_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", str(tmp_path / "ledger.sqlite3"))


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_a_recorded_command_is_never_larger_through_any_door(
    fixture: Fixture, project: Path, store: SpillStore
) -> None:
    argv = list(fixture.argv)
    ran = through_run(argv, fixture.output, fixture.exit)
    assert count(ran) <= _raw_tokens(fixture.output, ran), ran
    hooked = through_hook(argv, fixture.output)
    assert count(hooked) <= _raw_tokens(fixture.output, hooked), hooked
    if argv[0] in ("pytest", "cargo", "node", "make", "npm", "python", "python3", "sh"):
        return  # run_command runs these its own way (a test report), or not (sh -c CODE)
    served = through_mcp(project, store, argv, fixture.output, fixture.exit)
    assert count(served) <= _raw_tokens(fixture.output, served), served


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=outputs(max_segments=5))
def test_generated_output_is_never_larger_through_any_door(
    data: bytes, project: Path, store: SpillStore
) -> None:
    argv = ["build-tool", "--all"]
    for text in (
        through_run(argv, data, 1),
        through_hook(argv, data),
        through_mcp(project, store, argv, data, 1),
    ):
        assert count(text) <= _raw_tokens(data, text)


def test_no_output_and_a_failing_status_is_nothing(project: Path, store: SpillStore) -> None:
    """grep finding nothing: 0 tokens, not the 5 of an exit status line."""
    assert through_run(["grep", "-rn", "absent", "."], b"", 1) == ""
    assert through_mcp(project, store, ["grep", "-rn", "absent", "."], b"", 1) == ""
