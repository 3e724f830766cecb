"""One line of JSON-RPC read as a message, or as the error JSON-RPC 2.0 says it gets.

Every line gets what JSON-RPC says, whatever it holds, and reading it never raises:

- a JSON-RPC message: the message (the SDK's own models, read by pydantic);
- a notification (a method, no ``id``) that is not a valid one: nothing, since
  JSON-RPC never answers a notification;
- text that is not JSON: ``-32700 Parse error``, ``"id": null``;
- JSON that is no JSON-RPC message, or whose ``id`` is not a string or an integer
  (``NaN``, ``1e400``, ``1.5``, ``true``, an object, an integer of thousands of digits):
  ``-32600 Invalid Request``, with the request's id when it has a usable one, else
  ``"id": null``;
- JSON nested deeper than the readers go (pydantic stops at a few hundred levels, Python's
  ``json`` at its recursion limit): ``-32600`` when the top level shows an id before
  ``STEPS`` bits of the line were looked at (with that id when it is usable), else
  ``-32700`` with ``"id": null``. The id is found by walking the top-level object without descending
  into the values (``_shallow_id``): a line a hundred thousand levels deep costs a few
  regular-expression matches.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

__all__ = ["STEPS", "Refused", "read_line"]

STEPS = 1_000_000  # regex matches (under 1 s) spent on the id of a line too deep to read
_ID_DIGITS = 4_300  # Python's own limit for int(str): a longer integer is no usable id
_SPACE = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(rb"[^ \t\r\n,:\[\]{}\"]+")  # a number, true, false, null
# a string, a run of openers, a run of closers, or anything else up to the next of those
_RUN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[{]+|[\]}]+|[^"\[\]{}]+', re.S)


class Refused(NamedTuple):
    """A line that holds no message, and the error it is answered with."""

    answer: JSONRPCError


class _TooLong(int):
    """An integer longer than ``_ID_DIGITS`` digits, left unconverted."""


def read_line(line: bytes) -> JSONRPCMessage | Refused | None:
    """The message on ``line``, the error to answer it with, or None (nothing to answer:
    a blank line, a broken notification)."""
    if not line.strip():
        return None
    try:
        message: JSONRPCMessage = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        return _refusal(line)
    if isinstance(message, JSONRPCNotification) and (b"id" in line or b"\\u" in line):
        # pydantic reads {"id": NaN, "method": ...} as a notification, dropping the id:
        # a request whose id is unusable, which JSON-RPC answers
        return _refusal(line) or message
    return message


def _error(request_id: str | int | None, code: int, text: str) -> Refused:
    body = ErrorData(code=code, message=text)
    return Refused(JSONRPCError(jsonrpc="2.0", id=request_id, error=body))


def _refusal(line: bytes) -> Refused | None:
    """What a line pydantic could not read as a valid message is answered with."""
    try:
        value = json.loads(line, parse_int=_integer)
    except RecursionError:
        has_id, request_id = _shallow_id(line)
        if not has_id:
            return _error(None, PARSE_ERROR, "Parse error: nested too deep to read")
        return _error(request_id, INVALID_REQUEST, "Invalid Request: nested too deep to read")
    except ValueError:
        return _error(None, PARSE_ERROR, "Parse error: not a JSON text")
    if not isinstance(value, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
    if "id" not in value:
        if "method" in value:
            return None  # a broken notification: JSON-RPC never answers a notification
        return _error(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
    request_id = _usable(value["id"])
    if request_id is None:
        why = "Invalid Request: the id must be a string or an integer"
        return _error(None, INVALID_REQUEST, why)
    return _error(request_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")


def _integer(text: str) -> int:
    return _TooLong() if len(text.lstrip("-")) > _ID_DIGITS else int(text)


def _usable(found: Any) -> str | int | None:
    """The id JSON-RPC can answer with: a string, or an integer that is no bool."""
    if isinstance(found, str):
        return found
    if isinstance(found, int) and not isinstance(found, (bool, _TooLong)):
        return found
    return None


def _shallow_id(line: bytes) -> tuple[bool, str | int | None]:
    """Whether the JSON object on ``line``, too deep to read whole, has an ``id`` at its
    top level, and that id when it is usable; found without descending into any value.
    (False, None) when what comes before an id is not JSON, or no id is found within
    ``STEPS`` matches."""
    at = _space(line, 0)
    if line[at : at + 1] != b"{":
        return False, None
    steps = STEPS
    at += 1
    while steps > 0:
        key = _STRING.match(line, _space(line, at))
        if key is None:
            return False, None
        at = _space(line, key.end())
        if line[at : at + 1] != b":":
            return False, None
        at = _space(line, at + 1)
        if json.loads(key.group()) == "id":
            value = _STRING.match(line, at) or _SCALAR.match(line, at)
            try:
                found = json.loads(value.group(), parse_int=_integer) if value else None
            except ValueError:
                found = None
            return True, _usable(found)
        at, steps = _skip_value(line, at, steps)
        at = _space(line, at)
        if line[at : at + 1] != b",":
            return False, None
        at += 1
    return False, None


def _space(line: bytes, at: int) -> int:
    """Where the white space at ``at`` ends."""
    found = _SPACE.match(line, at)
    return found.end() if found else at


def _skip_value(line: bytes, at: int, steps: int) -> tuple[int, int]:
    """Where the value at ``at`` ends, and the steps left; (len(line), 0) when it does
    not end within them."""
    first = line[at : at + 1]
    if first not in (b"[", b"{"):
        found = _STRING.match(line, at) if first == b'"' else _SCALAR.match(line, at)
        return (found.end(), steps - 1) if found else (len(line), 0)
    depth = 0
    for run in _RUN.finditer(line, at):
        steps -= 1
        if steps <= 0:
            break
        head = run.group()[:1]
        if head in (b"[", b"{"):
            depth += run.end() - run.start()
        elif head in (b"]", b"}"):
            if run.end() - run.start() >= depth:
                return run.start() + depth, steps
            depth -= run.end() - run.start()
    return len(line), 0
