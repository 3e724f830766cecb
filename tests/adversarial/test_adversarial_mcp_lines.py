"""Lines that once stopped ``agentout serve`` over stdio, fed to a real one.

A line nested 1,000 deep killed the server (an unhandled RecursionError): the requests
queued behind it were never answered. Ids such as ``NaN``, ``1e400`` or an object got
no answer at all. Each such line now gets its JSON-RPC error, and every other request
its answer.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentout.mcp.child import SERVE
from agentout.tokens import count
from processes import without_agentout_settings

OPENING = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "adversary", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _ping(request_id: str | int) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "ping"})


def _serve(tmp_path: Path, lines: list[bytes]) -> tuple[list[dict[str, Any]], str]:
    """The replies of a real ``agentout serve`` fed ``lines`` after the opening, and
    its stderr; it must have exited 0."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = without_agentout_settings()
    env["AGENTOUT_SPILL_DIR"] = str(tmp_path / "spill")
    done = subprocess.run(
        [*SERVE, "--root", str(project)],
        input=b"".join([*map(_line, OPENING), *lines]),
        capture_output=True,
        env=env,
        cwd=project,
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    return [json.loads(line) for line in done.stdout.splitlines()], stderr


def _errors(replies: list[dict[str, Any]]) -> list[tuple[Any, int]]:
    return [(reply["id"], reply["error"]["code"]) for reply in replies if "error" in reply]


def test_300_requests_after_a_line_100000_deep_are_answered_with_one_error(
    tmp_path: Path,
) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    calls = [
        _line(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "count_tokens", "arguments": {"text": "word " * n}},
            }
        )
        for n in range(1, 301)
    ]
    replies, _ = _serve(tmp_path, [deep, *calls])
    assert _errors(replies) == [(None, -32700)]
    answered = {reply["id"]: reply for reply in replies if "result" in reply}
    assert sorted(n for n in answered if n) == list(range(1, 301))
    counted = [answered[n]["result"]["structuredContent"]["tokens"] for n in range(1, 301)]
    assert counted == [count("word " * n) for n in range(1, 301)]


DEEP = 100_000
ODD_IDS = [
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"-1e400",
    b"1e-400",
    b"1.5",
    b"true",
    b"null",
    b'{"a": 1}',
    b"[1]",
    b"9" * 5_000,
    b"[" * DEEP + b"]" * DEEP,
    b'{"a":' * DEEP + b"1" + b"}" * DEEP,
]


@pytest.mark.parametrize("odd", ODD_IDS, ids=lambda odd: odd[:12].decode())
def test_a_request_with_an_unusable_id_gets_invalid_request_with_no_id(
    tmp_path: Path, odd: bytes
) -> None:
    request = b'{"jsonrpc": "2.0", "id": ' + odd + b', "method": "ping"}\n'
    replies, _ = _serve(tmp_path, [request, _ping("after")])
    assert _errors(replies) == [(None, -32600)]
    assert {"jsonrpc": "2.0", "id": "after", "result": {}} in replies


def test_deep_params_are_refused_under_the_request_id(tmp_path: Path) -> None:
    lines = [
        b'{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": '
        + b'{"a": [' * DEEP
        + b"1"
        + b"]}" * DEEP
        + b"}\n",
        b'{"jsonrpc": "2.0", "method": "tools/call", "params": ' + b"[" * DEEP + b"\n",
        b'{"params": ' + b'["x", ' * DEEP + b', "id": 6}\n',  # no id at the top level
        b"{" * DEEP + b"\n",
        _ping(7),
    ]
    replies, _ = _serve(tmp_path, lines)
    assert _errors(replies) == [(5, -32600), (None, -32700), (None, -32700), (None, -32700)]
    assert {"jsonrpc": "2.0", "id": 7, "result": {}} in replies


def test_huge_and_odd_numbers_in_arguments_are_refused_under_their_id(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "rows.jsonl").write_text('{"a": 1}\n{"a": 2}\n')

    def querying(request_id: int, max_tokens: bytes) -> bytes:
        return (
            b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": '
            b'"query_records", "arguments": {"paths": ["rows.jsonl"], "max_tokens": %s}}}\n'
            % (request_id, max_tokens)
        )

    odd = [b"1e400", b"-1e400", b"9" * 5_000, b"NaN", b"1e-400", b"12.5"]
    lines = [querying(n, number) for n, number in enumerate(odd, 1)]
    lines.append(querying(len(odd) + 1, b"500"))
    replies, _ = _serve(tmp_path, lines)
    by_id = {reply["id"]: reply for reply in replies}
    for request_id in range(1, len(odd) + 1):  # refused by the tool or by the transport
        answer = by_id[request_id]
        assert answer.get("result", {}).get("isError") or "error" in answer, answer
    assert by_id[3]["error"]["code"] == -32600  # 5,000 digits: more than pydantic reads
    good = by_id[len(odd) + 1]["result"]
    assert good["isError"] is False
    assert "total=2" in good["content"][0]["text"]


def test_many_bad_lines_between_requests_each_get_one_answer(tmp_path: Path) -> None:
    bad = [b"[" * DEEP + b"\n", b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}\n']
    lines = [line for n in range(50) for line in (*bad, _ping(n))]
    replies, _ = _serve(tmp_path, lines)
    assert _errors(replies) == [(None, -32700), (None, -32600)] * 50
    assert sorted(r["id"] for r in replies if "result" in r and r["id"]) == list(range(1, 50))
