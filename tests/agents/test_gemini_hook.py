"""`agentout hook gemini`: Gemini CLI's AfterTool hook on run_shell_command.

The payloads carry the llmContent Gemini CLI 0.61.0 builds for a finished command
(``@google/gemini-cli@0.61.0``, bundle/chunk-*.js, from packages/core/src/tools/shell.ts:
``llmContentParts = [`Output: ${output || "(empty)"}`]``, then ``Error:``, ``Exit Code:``
when not 0, ``Signal:``, ``Background PIDs:``, ``Process Group PGID:``, joined by "\\n",
then ``wrapUntrusted``), around real recorded command outputs (tests/fixtures/commands).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentout.agents import gemini_shell, hook
from agentout.agents.hook import answer
from agentout.reducers import facts
from agentout.tokens import get_tokenizer
from command_fixtures import Fixture, fixtures

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
PGID = 48213


def llm_content(
    output: str,
    *,
    exit_code: int = 0,
    signal: str | None = None,
    background: tuple[int, ...] = (),
    pgid: int | None = PGID,
    wrapped: bool = True,
) -> str:
    """What shell.ts (0.61.0) returns as llmContent for a command that finished
    (``wrapped=False``: as 0.45.2 returned it, the same lines without wrapUntrusted)."""
    parts = [f"Output: {output or '(empty)'}"]
    if exit_code:
        parts.append(f"Exit Code: {exit_code}")
    if signal:
        parts.append(f"Signal: {signal}")
    if background:
        parts.append(f"Background PIDs: {', '.join(map(str, background))}")
    if pgid:
        parts.append(f"Process Group PGID: {pgid}")
    if not wrapped:
        return "\n".join(parts)
    text = "\n".join(parts).replace("</untrusted_context>", "&lt;/untrusted_context&gt;")
    return f"<untrusted_context>\n{text}\n</untrusted_context>"


def payload(command: str, content: object, **extra: object) -> dict[str, object]:
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.json",
        "cwd": "/tmp",
        "hook_event_name": "AfterTool",
        "timestamp": "2026-11-24T00:00:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "run it"},
        "tool_response": {"llmContent": content, "returnDisplay": "", **extra},
    }


@pytest.fixture(autouse=True)
def private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path / "store"
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(store))
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", str(tmp_path / "ledger.sqlite3"))
    monkeypatch.setenv("AGENTOUT_LEDGER_SYNC", "1")
    return store


def _text(fixture: Fixture) -> str:
    return fixture.output.decode("utf-8", "replace")


def _ask(data: dict[str, object]) -> dict[str, object] | None:
    out, err = answer("gemini", json.dumps(data).encode())
    assert err is None
    return json.loads(out) if out else None


FIXTURES = [f for f in fixtures() if f.facts and f.family != "generic"]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.id)
def test_a_finished_command_keeps_its_facts_and_shrinks(fixture: Fixture) -> None:
    content = llm_content(_text(fixture), exit_code=fixture.exit)
    reply = _ask(payload(" ".join(fixture.argv), content))
    if reply is None:
        return  # agentout could not make it smaller: Gemini's own text stands
    assert set(reply) == {"decision", "reason"}
    assert reply["decision"] == "deny"
    reason = str(reply["reason"])
    counter = get_tokenizer(None)
    assert counter.count(reason) < counter.count(content)
    assert facts.lost(fixture.facts, reason) == []
    assert reason.startswith(gemini_shell.LEAD + "<untrusted_context>\nOutput: ")
    tail = [f"Exit Code: {fixture.exit}"] if fixture.exit else []
    assert reason.endswith("\n".join(["", *tail, f"Process Group PGID: {PGID}"]) + CLOSE)


CLOSE = "\n</untrusted_context>"


def test_most_of_the_corpus_is_answered() -> None:
    answered = [
        f.id
        for f in FIXTURES
        if _ask(payload(" ".join(f.argv), llm_content(_text(f), exit_code=f.exit)))
    ]
    assert len(answered) >= len(FIXTURES) // 2, answered


def _show(ref: str, store: Path) -> str:
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(store), "AGENTOUT_LEDGER": "0"}
    done = subprocess.run(
        [*AGENTOUT, "show", ref, "--max-tokens", "200000"],
        capture_output=True,
        env=env,
        check=True,
        timeout=60,
    )
    return done.stdout.decode()


def test_the_complete_output_is_stored_and_shown(private: Path) -> None:
    (fixture,) = [f for f in fixtures("logs") if f.name == "app-log"]
    output = _text(fixture)
    reply = _ask(payload(" ".join(fixture.argv), llm_content(output)))
    assert reply is not None
    found = re.search(r"agentout show ([0-9a-f]{16})", str(reply["reason"]))
    assert found is not None
    (stored,) = private.rglob(f"*{found.group(1)}*")
    assert stored.read_bytes() == output.encode()  # byte for byte
    shown = _show(found.group(1), private)
    assert shown.splitlines()[:-1] == output.splitlines()  # the last line is the page's


def test_every_part_of_the_content_round_trips() -> None:
    """Whatever the output holds (lines that look like Gemini's own), taking the content
    apart and putting it back gives it byte for byte."""
    tricky = "Exit Code: 7\nProcess Group PGID: 1\nBackground PIDs: 3\n</untrusted_context>\nx"
    for fixture in fixtures():
        for output in (_text(fixture), tricky, tricky + "\n"):
            for kwargs in (
                {},
                {"exit_code": 2, "signal": "SIGKILL", "background": (5, 6)},
                {"exit_code": 1, "wrapped": False},
            ):
                content = llm_content(output, **kwargs)  # type: ignore[arg-type]
                shell = gemini_shell.parse(content)
                assert shell is not None
                assert shell.render(shell.output) == content


def test_secrets_never_reach_the_model_or_the_store(private: Path) -> None:
    token = "ghp_" + "Zq7" * 12
    lines = [f"line {i}: deploying service {i % 7}" for i in range(400)]
    lines[200] = f"export GH_TOKEN={token}"
    reply = _ask(payload("./deploy.sh", llm_content("\n".join(lines), exit_code=1)))
    assert reply is not None
    assert token not in str(reply["reason"])
    for stored in private.rglob("*"):
        if stored.is_file():
            assert token.encode() not in stored.read_bytes()


def test_small_output_is_left_alone(private: Path) -> None:
    assert _ask(payload("echo hi", llm_content("hi\n"))) is None
    assert not any(p.is_file() for p in private.rglob("*"))  # nothing stored for nothing


def test_the_ledger_counts_what_the_model_reads(tmp_path: Path) -> None:
    from agentout.ledger import book as ledger

    (fixture,) = [f for f in fixtures("git") if f.name == "git-log"]
    content = llm_content(_text(fixture))
    reply = _ask(payload("git log", content))
    assert reply is not None
    (row,) = ledger.rows(tmp_path / "ledger.sqlite3")
    counter = get_tokenizer(None)
    assert (row.tool, row.command) == ("hook", "git log")
    assert row.delivered_tokens == counter.count(str(reply["reason"]))
    assert row.raw_tokens == counter.count(content)


@pytest.mark.parametrize(
    "content",
    [
        "Command was cancelled by user before it could complete. There was no output.",
        "Command moved to background (PID: 77). Output hidden. Press Ctrl+B to view.",
        llm_content(""),  # Output: (empty)
        [{"text": llm_content("x\n" * 5000)}],  # not a string
        "<untrusted_context>\nsummary of it\n</untrusted_context>",
    ],
)
def test_other_shapes_are_left_alone(content: object) -> None:
    assert _ask(payload("make", content)) is None


def _hook(data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*AGENTOUT, "hook", "gemini"], input=data, capture_output=True, check=False, timeout=60
    )


BIG = llm_content("error: x\n" * 2000)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not json", b"<stdin>:1:1:"),
        (b"\xff\xfe", b"not UTF-8"),
        (json.dumps(payload("make", BIG, error={"message": "spawn failed"})).encode(), b""),
        (json.dumps({**payload("make", BIG), "tool_name": "read_file"}).encode(), b"not a shell"),
        (json.dumps({**payload("make", BIG), "hook_event_name": "BeforeTool"}).encode(), b"event"),
        (json.dumps({**payload("make", BIG), "tool_input": {}}).encode(), b"no tool_input"),
        (json.dumps(payload("make", "x" * (10 << 20))).encode(), b"payload over"),
    ],
)
def test_bad_input_passes_the_output_through(data: bytes, message: bytes) -> None:
    done = _hook(data)
    assert done.returncode == 0
    assert done.stdout == b"{}\n"  # Gemini reads stderr as the answer when stdout is empty
    assert message in done.stderr
    assert done.stderr.count(b"\n") == (1 if message else 0)
    assert b"Traceback" not in done.stderr


def test_the_hook_answers_through_the_cli() -> None:
    (fixture,) = [f for f in fixtures("lint") if f.name == "ruff"]
    content = llm_content(_text(fixture), exit_code=fixture.exit)
    done = _hook(json.dumps(payload(" ".join(fixture.argv), content)).encode())
    assert (done.returncode, done.stderr) == (0, b"")
    reply = json.loads(done.stdout)
    assert reply["decision"] == "deny"
    assert facts.lost(fixture.facts, reply["reason"]) == []


def _main(monkeypatch: pytest.MonkeyPatch, decide_with: Any, capsys: Any) -> tuple[str, str]:
    monkeypatch.setitem(hook.AGENTS, "gemini", decide_with)
    data = json.dumps(payload("make", BIG)).encode()
    assert hook.main(["gemini"], io.BytesIO(data)) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_crash_passes_the_output_through(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def broken(data: Any) -> None:
        raise RuntimeError("boom")

    out, err = _main(monkeypatch, broken, capsys)
    assert (out, err) == ("{}\n", "agentout: hook: RuntimeError: boom; nothing changed\n")


def test_a_slow_answer_passes_the_output_through(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setitem(hook.TIME_LIMITS, "gemini", 0.2)

    def slow(data: Any) -> dict[str, Any]:
        time.sleep(5)
        return {"decision": "deny", "reason": "late"}

    started = time.monotonic()
    out, err = _main(monkeypatch, slow, capsys)
    assert time.monotonic() - started < 3
    assert (out, err) == ("{}\n", "agentout: hook: no answer within 0.2s; nothing changed\n")


# -- another MCP server's tools ---------------------------------------------------------


def mcp_payload(tool: str, parts: list[dict[str, object]], **extra: object) -> bytes:
    """An AfterTool payload for an MCP tool: llmContent as transformMcpContentToParts
    (mcp-tool.ts, 0.61.0) builds it, a ``{"text": wrapUntrusted(text)}`` per text block."""
    data = payload("", parts, **extra)
    data["tool_name"] = tool
    data["tool_input"] = {"owner": "acme", "repo": "app"}
    return json.dumps(data).encode()


def _wrapped(text: str) -> dict[str, object]:
    return {"text": f"<untrusted_context>\n{text}\n</untrusted_context>"}


def test_a_large_mcp_result_is_cut_to_the_budget(private: Path) -> None:
    (fixture,) = [f for f in fixtures("logs") if f.name == "app-log"]
    text = _text(fixture)
    parts = [_wrapped(text), _wrapped("page 2 of 2")]
    out, err = answer("gemini", mcp_payload("mcp_logs_tail", parts))
    assert err is None
    reply = json.loads(out)
    assert reply["decision"] == "deny"
    reason = reply["reason"]
    assert reason.startswith("[agentout: the tool ran; below is its result, cut to fit")
    counter = get_tokenizer(None)
    assert counter.count(reason) <= 5000 + 40  # agentout's MCP budget, and the lead line
    found = re.search(r"read_output ref=(\S+)", reason)
    assert found is not None
    (stored,) = private.rglob(found.group(1))
    assert stored.read_bytes() == (text + "\npage 2 of 2").encode()  # complete, both parts
    from agentout.ledger import book as ledger

    (row,) = ledger.rows(private.parent / "ledger.sqlite3")
    assert (row.tool, row.command) == ("hook", "mcp_logs_tail")
    assert row.delivered_tokens == counter.count(reason)


@pytest.mark.parametrize(
    ("tool", "parts", "extra"),
    [
        ("mcp_logs_tail", [_wrapped("three lines\nof\nresult")], {}),  # within budget
        ("mcp_agentout_read_output", [_wrapped("x\n" * 40000)], {}),  # our own: budgeted
        ("mcp_logs_tail", [_wrapped("x\n" * 40000), {"inlineData": {"data": "AA=="}}], {}),
        ("mcp_logs_tail", [_wrapped("x\n" * 40000)], {"error": {"message": "failed"}}),
        ("mcp_logs_tail", [], {}),
    ],
)
def test_other_mcp_results_are_left_alone(
    tool: str, parts: list[dict[str, object]], extra: dict[str, object]
) -> None:
    assert answer("gemini", mcp_payload(tool, parts, **extra)) == ("", None)


def test_the_bare_form_of_older_versions_is_read_too() -> None:
    (fixture,) = [f for f in fixtures("git") if f.name == "git-log"]
    content = llm_content(_text(fixture), exit_code=3, wrapped=False)
    reply = _ask(payload("git log", content))
    assert reply is not None
    reason = str(reply["reason"])
    assert reason.startswith(gemini_shell.LEAD + "Output: ")
    assert reason.endswith(f"\nExit Code: 3\nProcess Group PGID: {PGID}")
    assert facts.lost(fixture.facts, reason) == []
