"""`agentout hook claude` on Claude Code's ``PostToolUse`` for MCP tools: the answer's
shape, the budget, the spilled whole, the config, and fail-open."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentout.agents.claude_mcp import decide_post
from agentout.errors import InputError
from agentout.mcp.budgets import ClientBudget, budget_for, split_tool_name
from agentout.tokens import get_tokenizer

AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
COUNT = get_tokenizer(None).count
SHOW = re.compile(r"agentout show ([0-9a-f]{16})")


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path


def _payload(response: Any, tool: str = "mcp__files__read") -> dict[str, Any]:
    return {
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {"path": "/x"},
        "tool_response": response,
    }


def _lines(n: int) -> str:
    return "\n".join(f"line {i}: the quick brown fox jumps over dog {i * 7}" for i in range(n))


def _updated(answer: dict[str, Any] | None) -> Any:
    assert answer is not None
    specific = answer["hookSpecificOutput"]
    assert list(specific) == ["hookEventName", "updatedMCPToolOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    return specific["updatedMCPToolOutput"]


def _stored(tmp_path: Path, text: str) -> bytes:
    found = sorted(set(SHOW.findall(text)))  # the markers and the closing line name one file
    assert len(found) == 1, text[-300:]
    [path] = (tmp_path / "spill").glob(f"*-{found[0]}.*")
    return path.read_bytes()


def test_tool_names() -> None:
    assert split_tool_name("mcp__github__search_code") == ("github", "search_code")
    assert split_tool_name("mcp__plugin_x_y__do__it") == ("plugin_x_y", "do__it")
    assert split_tool_name("Bash") is None
    assert split_tool_name("mcp__github") is None


def test_budgets_most_specific_wins() -> None:
    config = {
        "mcp": {
            "max_tokens": 4000,
            "servers": {
                "github": {"max_tokens": 8000, "tools": {"search_code": {"max_tokens": 300}}},
                "playwright": {"enabled": False},
            },
        }
    }
    assert budget_for({}, "files", "read") == ClientBudget(5000)
    assert budget_for(config, "files", "read") == ClientBudget(4000)
    assert budget_for(config, "github", "list_issues") == ClientBudget(8000)
    assert budget_for(config, "github", "search_code") == ClientBudget(300)
    assert budget_for(config, "playwright", "snapshot") is None
    assert budget_for(config, "agentout", "run_command") is None  # already budgeted
    assert budget_for({"mcp": {"enabled": False}}, "files", "read") is None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"mcp": {"max_tokens": 10}}, "mcp.max_tokens must be a whole number from 200"),
        ({"mcp": {"servers": {"gh": {"max_tokens": "8k"}}}}, "mcp.servers.gh.max_tokens"),
        ({"mcp": {"enabled": "no"}}, "mcp.enabled must be true or false"),
        ({"mcp": {"max_token": 5000}}, "unknown key 'max_token'"),
        ({"mcp": []}, "mcp must be a table"),
    ],
)
def test_bad_budgets_name_the_key(config: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        budget_for(config, "gh", "x", source="/home/me/.config/agentout/config.toml")


def test_under_budget_no_answer() -> None:
    small = json.dumps({"content": _lines(20)})
    assert decide_post(_payload(small), config={}) is None
    assert decide_post(_payload([{"type": "text", "text": _lines(20)}]), config={}) is None


def test_own_server_and_other_tools_left_alone() -> None:
    big = json.dumps({"content": _lines(5000)})
    assert decide_post(_payload(big, "mcp__agentout__run_command"), config={}) is None
    assert decide_post(_payload(big, "Read"), config={}) is None


def test_string_form_stays_a_string_within_budget(private_dirs: Path) -> None:
    text = _lines(6000)
    response = json.dumps({"content": text}, separators=(",", ":"))
    assert COUNT(response) > 50_000
    updated = _updated(decide_post(_payload(response), config={}))
    assert isinstance(updated, str)
    assert COUNT(updated) <= 5000
    shown = json.loads(updated)["content"]  # the same one-key object, the text fitted
    assert shown.startswith("line 0: ")
    assert "line 5999: " in shown
    assert re.search(r"^\[… \d+ lines · agentout show [0-9a-f]{16} --lines \d+:\d+\]$", shown, re.M)
    assert _stored(private_dirs, shown) == text.encode()


def test_blocks_form_keeps_other_blocks_in_place(private_dirs: Path) -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
    }
    response = [
        {"type": "text", "text": _lines(3000)},
        image,
        {"type": "text", "text": _lines(3000)},
    ]
    updated = _updated(decide_post(_payload(response), config={}))
    assert [block["type"] for block in updated] == ["text", "image"]
    assert updated[1] == image
    assert COUNT(updated[0]["text"]) <= 5000
    whole = _lines(3000) + "\n" + _lines(3000)
    assert _stored(private_dirs, updated[0]["text"]) == whole.encode()


def test_records_are_packed_as_records(private_dirs: Path) -> None:
    rows = [{"id": i, "title": f"issue {i} about the parser", "state": "open"} for i in range(4000)]
    response = [{"type": "text", "text": json.dumps(rows)}]
    config = {"mcp": {"servers": {"github": {"tools": {"list_issues": {"max_tokens": 1000}}}}}}
    updated = _updated(decide_post(_payload(response, "mcp__github__list_issues"), config=config))
    text = updated[0]["text"]
    assert COUNT(text) <= 1000
    head = text.splitlines()[0]
    assert head.startswith("H ")
    assert "total=4000" in head
    assert "truncated=true" in head
    assert text.splitlines()[1] == 'R id=0 title="issue 0 about the parser" state=open'
    stored = _stored(private_dirs, text)
    assert json.loads(stored) == rows  # one line of JSON is kept a record a line
    lines = stored.decode().split("\n")
    assert len(lines) == 4002
    assert lines[18] == '  {"id":17,"title":"issue 17 about the parser","state":"open"},'


def test_other_json_cut_to_whole_items_with_counts(private_dirs: Path) -> None:
    value = {"query": "fox", "paths": [f"src/module_{i}/file_{i}.py" for i in range(8000)]}
    updated = _updated(decide_post(_payload(json.dumps(value)), config={}))
    assert isinstance(updated, str)
    assert COUNT(updated) <= 5000
    body, note = updated.rsplit("\n", 1)
    shown = json.loads(body)
    assert shown["query"] == "fox"
    kept = len(shown["paths"])
    assert 0 < kept < 8000
    assert shown["paths"] == value["paths"][:kept]
    assert f"paths: {kept} of 8000 items shown" in note
    assert json.loads(_stored(private_dirs, note)) == value


def test_secrets_hidden_in_the_answer_and_the_store(
    private_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "ghp_" + "Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"[:36]
    monkeypatch.setenv("GH_TOKEN", token)
    text = _lines(3000) + f"\nexport GH_TOKEN={token}\n" + _lines(3000)
    updated = _updated(decide_post(_payload([{"type": "text", "text": text}]), config={}))
    assert token not in json.dumps(updated)
    stored = _stored(private_dirs, updated[0]["text"])
    assert token.encode() not in stored
    assert b"[secret: $GH_TOKEN]" in stored


def _run_hook(payload: Any, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*AGENTOUT, "hook", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        check=False,
        timeout=120,
    )


def test_hook_process_answers_and_fails_open(private_dirs: Path) -> None:
    env = dict(os.environ)
    config = private_dirs / "config"
    config.mkdir()
    (config / "config.toml").write_text(
        "[mcp.servers.files.tools.read]\nmax_tokens = 400\n", encoding="utf-8"
    )
    big = _payload([{"type": "text", "text": _lines(4000)}])
    done = _run_hook(big, env)
    assert done.returncode == 0
    assert done.stderr == b""
    updated = _updated(json.loads(done.stdout))
    assert COUNT(updated[0]["text"]) <= 400

    (config / "config.toml").write_text("[mcp\nmax_tokens = 1\n", encoding="utf-8")
    done = _run_hook(big, env)  # the session's first call with it: told (test_hook_config)
    assert "systemMessage" in json.loads(done.stdout)
    done = _run_hook(big, env)
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.startswith(f"agentout: hook: {config / 'config.toml'}:1:".encode())
    assert done.stderr.count(b"\n") == 1

    (config / "config.toml").write_text("[mcp]\nmax_tokens = 50\n", encoding="utf-8")
    done = _run_hook(big, env)
    assert done.returncode == 0
    assert "updatedMCPToolOutput" not in done.stdout.decode()
    assert b"mcp.max_tokens must be a whole number from 200" in done.stderr

    (config / "config.toml").unlink()
    odd = _payload({"unexpected": True})
    done = _run_hook(odd, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_mcp_result_object_form(private_dirs: Path) -> None:
    """An MCP result object, should a version pass one: structured content is what the
    model sees of it; the answer is the same object with one text block and no
    structured content, so the fitted text is what is shown."""
    rows = [{"path": f"src/m{i}.py", "hits": i % 5} for i in range(5000)]
    response = {
        "content": [{"type": "text", "text": "5000 matches"}],
        "structuredContent": {"result": rows},
        "isError": False,
    }
    updated = _updated(decide_post(_payload(response), config={}))
    assert set(updated) == {"content", "isError"}
    assert updated["isError"] is False
    [block] = updated["content"]
    assert COUNT(block["text"]) <= 5000
    assert block["text"].splitlines()[1] == "R path=src/m0.py hits=0"
    assert json.loads(_stored(private_dirs, block["text"])) == {"result": rows}


def test_blocks_without_text_or_unknown_forms_are_left_alone() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "A" * 90000},
    }
    assert decide_post(_payload([image]), config={}) is None
    assert decide_post(_payload(12345), config={}) is None
    assert decide_post(_payload(["not", "blocks"]), config={}) is None
