"""``agentout.mcp.wire``: every line read as a message or answered as JSON-RPC says,
whatever it holds, and reading one never raises."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest

from agentout.mcp import wire
from agentout.mcp.wire import STEPS, Refused, read_line

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


def _answer(line: bytes) -> tuple[Any, int]:
    read = read_line(line)
    assert isinstance(read, Refused), read
    return read.answer.id, read.answer.error.code


@given(st.binary(max_size=200))
@settings(max_examples=300)
def test_no_line_makes_reading_raise(line: bytes) -> None:
    read = read_line(line)
    assert read is None or isinstance(read, Refused) or hasattr(read, "jsonrpc")


@given(JSON)
@settings(max_examples=300)
def test_a_request_is_read_or_refused_by_its_id(found: Any) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": found, "method": "ping"}).encode()
    read = read_line(line)
    if isinstance(found, (str, int)) and not isinstance(found, bool):
        assert isinstance(read, JSONRPCRequest)
        assert read.id == found
    else:
        assert _answer(line) == (None, -32600)


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "1e-400",
        "1.0",
        "9" * 5_000,
        "[" * 3_000 + "]" * 3_000,
    ],
)
def test_ids_json_has_and_mcp_does_not_are_invalid_requests(text: str) -> None:
    assert _answer(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % text.encode()) == (None, -32600)


def test_what_is_not_a_request_keeps_its_answer() -> None:
    assert _answer(b"{not json") == (None, -32700)
    assert _answer(b'{"jsonrpc": "2.0", "id": 7}') == (7, -32600)
    assert _answer(b"[1, 2]") == (None, -32600)
    assert _answer(b"[" * 50_000) == (None, -32700)
    assert read_line(b'{"jsonrpc": "2.0", "method": 5}') is None  # a broken notification
    assert read_line(b"   ") is None
    ok = read_line(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    assert isinstance(ok, JSONRPCNotification)
    sent = read_line(b'{"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "no"}}')
    assert isinstance(sent, JSONRPCError)  # a client's answer to the server: passed on


def test_a_request_too_deep_to_read_is_refused_under_its_id() -> None:
    deep = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    line = b'{"jsonrpc": "2.0", "method": "x", "params": %s, "id": "later"}' % deep
    assert _answer(line) == ("later", -32600)
    assert _answer(b'{"id": %s, "method": "x"}' % deep) == (None, -32600)  # an id, unusable


@given(st.dictionaries(st.sampled_from(["id", "a", "b", "id2", "\u00e9"]), JSON, max_size=4))
@settings(max_examples=300)
def test_the_shallow_walk_finds_the_id_json_reads(value: dict[str, Any]) -> None:
    line = json.dumps(value).encode()
    found = value.get("id")
    usable = isinstance(found, (str, int)) and not isinstance(found, bool)
    assert wire._shallow_id(line) == ("id" in value, found if usable else None)


def test_the_shallow_walk_gives_up_after_its_steps() -> None:
    filler = b"[[0]," * STEPS + b"0]"
    assert wire._shallow_id(b'{"a": [%s, "id": 1}' % filler) == (False, None)
    assert wire._shallow_id(b'{"a": [[0]], "id": 1}') == (True, 1)
