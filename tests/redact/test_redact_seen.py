"""Secrets are found in what a reader sees: colour, overstrikes, zero-width and control
characters inside or around them change nothing, and the colour stays where it was."""

from __future__ import annotations

import random
import re

import pytest
import secrets_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_redact_stream import FACTS, _chunked, _stream

from agentout.redact import Redactor

TOKENS = secrets_corpus.planted_tokens(random.Random(11))
# Secrets found by their format or their key, each as the line that prints it.
LINES = {
    "github": f"GH={TOKENS['github']}",
    "aws-access-key": f"id {TOKENS['aws-access-key']} ok",
    "stripe": f"key: {TOKENS['stripe']}",
    "google": f"maps {TOKENS['google']}",
    "slack": f"bot {TOKENS['slack']}",
    "npm": f"npm {TOKENS['npm']}",
    "anthropic": f"ANTHROPIC_API_KEY={TOKENS['anthropic']}",
    "password": f"DB_PASSWORD={TOKENS['password']}",
    "aws-secret-key": f"AWS_SECRET_ACCESS_KEY={TOKENS['aws-secret-key']}",
    "url-password": f"url https://deploy:{TOKENS['url-password']}@git.example.com/x.git",
    "bearer": f"Authorization: Bearer {TOKENS['bearer']}",
    "jwt": f"id_token={TOKENS['jwt']}",
}
REDACTOR = Redactor({})
ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~]|)")
COLOURS = [b"\x1b[01;31m\x1b[K", b"\x1b[m\x1b[K", b"\x1b[32m", b"\x1b[1;4;38;5;208m", b"\x1b[0m"]
# What a terminal does not show as a character of its own, one byte sequence each.
UNSEEN = [b"\x08", b"\x00", b"\x07", b"\x7f", "\u200b".encode(), "\ufeff".encode(),
          "\u200d".encode(), "\u2060".encode(), "\u00ad".encode(), "\u202e".encode()]  # fmt: skip


def _secret(name: str) -> bytes:
    line = LINES[name]
    return TOKENS[name].encode() if TOKENS[name] in line else b""


def _decorate(line: bytes, value: bytes, cuts: list[int], pieces: list[bytes]) -> bytes:
    """``line`` with ``pieces`` put inside ``value`` at the given places."""
    start = line.index(value)
    places = sorted({start + 1 + c % (len(value) - 1) for c in cuts})
    out, pos = [], 0
    for place, piece in zip(places, pieces, strict=False):
        out += [line[pos:place], piece]
        pos = place
    return b"".join([*out, line[pos:]])


names = st.sampled_from(sorted(LINES))
places = st.lists(st.integers(min_value=0, max_value=10**4), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names, places, st.lists(st.sampled_from(COLOURS), min_size=4, max_size=4), st.booleans())
def test_a_secret_split_by_colour_is_hidden_and_the_colour_stays(
    name: str, cuts: list[int], colours: list[bytes], around: bool
) -> None:
    line = LINES[name].encode()
    value = TOKENS[name].encode()
    data = _decorate(line, value, cuts, colours)
    if around:
        data = b"\x1b[35m\x1b[Kfile.env\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K" + data + b"\x1b[m"
    out, found = REDACTOR.redact_bytes(data + b"\n")
    assert found.total >= 1, data
    seen = ESCAPES.sub(b"", out)
    assert value not in seen
    assert value[:12] not in seen
    assert ESCAPES.findall(out) == ESCAPES.findall(data)  # every escape kept, in order
    assert b"[secret: " in seen


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names, places, st.lists(st.sampled_from(UNSEEN), min_size=4, max_size=4))
def test_a_secret_broken_by_invisible_characters_is_hidden(
    name: str, cuts: list[int], pieces: list[bytes]
) -> None:
    line = LINES[name].encode()
    value = TOKENS[name].encode()
    data = _decorate(line, value, cuts, pieces) + b"\n"
    out, found = REDACTOR.redact_bytes(data)
    assert found.total >= 1, data
    visible = re.sub(
        rb"[\x00-\x08\x7f]|\xe2\x80[\x8b-\xae]|\xef\xbb\xbf|\xe2\x81\xa0|\xc2\xad", b"", out
    )
    assert value[:8] not in visible, out
    assert value[-8:] not in visible, out
    assert out.count(b"\n") == 1


@pytest.mark.parametrize("name", sorted(LINES))
def test_an_overstruck_secret_is_hidden_whole(name: str) -> None:
    # man and less print bold as X\bX and underline as _\bX.
    line = LINES[name].encode()
    bold = b"".join(bytes([c]) + b"\x08" + bytes([c]) for c in line)
    underline = b"".join(b"_\x08" + bytes([c]) for c in line)
    for data in (bold, underline):
        out, found = REDACTOR.redact_bytes(data + b"\n")
        assert found.total >= 1
        value = TOKENS[name].encode()
        shown = re.sub(rb"_\x08|(.)\x08(?=\1)", b"", out)  # as the terminal prints it
        assert not any(value[i : i + 6] in shown for i in range(len(value) - 5))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.one_of(names, st.sampled_from(FACTS)),
            places,
            st.lists(st.sampled_from(COLOURS + UNSEEN), max_size=4),
        ),
        max_size=12,
    ),
    st.lists(st.integers(min_value=0, max_value=10**6), max_size=20),
)
def test_any_chunking_of_coloured_output_equals_the_whole(
    lines: list[tuple[str, list[int], list[bytes]]], cuts: list[int]
) -> None:
    parts = []
    for name, where, pieces in lines:
        if name in LINES:
            line = LINES[name].encode()
            parts.append(_decorate(line, TOKENS[name].encode(), where, pieces))
        else:
            parts.append(_decorate(name.encode(), name.encode(), where, pieces))
    data = b"\n".join(parts) + b"\n"
    whole, found = REDACTOR.redact_bytes(data)
    assert _stream(REDACTOR, _chunked(data, cuts)) == whole
    assert whole.count(b"\n") == data.count(b"\n")
    assert found.total >= sum(name in LINES for name, _, _ in lines)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FACTS), places, st.lists(st.sampled_from(COLOURS)))))
def test_coloured_text_without_secrets_is_byte_identical(
    lines: list[tuple[str, list[int], list[bytes]]],
) -> None:
    data = b"\n".join(_decorate(f.encode(), f.encode(), w, c) for f, w, c in lines) + b"\n"
    assert REDACTOR.redact_bytes(data)[0] == data


def test_a_private_key_printed_in_colour_keeps_its_lines_and_colour() -> None:
    body = [b"MIIEowIBAAKCAQEA" + bytes(random.Random(3).choices(b"abcdefXYZ0129+/", k=48))] * 4
    block = [b"-----BEGIN RSA PRIVATE KEY-----", *body, b"-----END RSA PRIVATE KEY-----"]
    data = b"".join(b"\x1b[32m+    " + line + b"\x1b[m\n" for line in block)
    for chunks in ([data], [data[i : i + 5] for i in range(0, len(data), 5)]):
        out = _stream(REDACTOR, chunks)
        assert body[0] not in out
        assert body[0][20:40] not in out
        assert out.count(b"\n") == data.count(b"\n")
        assert ESCAPES.findall(out) == ESCAPES.findall(data)
        assert out.count(b"[secret: private-key]") == 1
        assert out.splitlines()[-1] == b"\x1b[32m+    -----END RSA PRIVATE KEY-----\x1b[m"


def test_an_osc_hyperlink_hides_the_password_in_its_address() -> None:
    password = TOKENS["url-password"].encode()
    data = b"\x1b]8;;https://bob:" + password + b"@example.com/\x1b\\link\x1b]8;;\x1b\\\n"
    out, found = REDACTOR.redact_bytes(data)
    assert found.total == 1
    assert password not in out
    assert (
        out == b"\x1b]8;;https://bob:[secret: url-password]@example.com/\x1b\\link\x1b]8;;\x1b\\\n"
    )


def test_the_marker_takes_the_colour_of_the_secret() -> None:
    # grep --color=always: the match is red, the rest of the token plain after ESC[m ESC[K.
    token = TOKENS["github"].encode()
    data = b"GH=\x1b[01;31m\x1b[K" + token[:4] + b"\x1b[m\x1b[K" + token[4:] + b"\n"
    out, _ = REDACTOR.redact_bytes(data)
    assert out == b"GH=\x1b[01;31m\x1b[K[secret: github-token]\x1b[m\x1b[K\n"


# Pieces that cross each other's paths: colour, overstrikes, controls, key blocks with
# blank and CRLF lines, assignments cut from their values, long runs past a window.
PIECES = [
    *COLOURS, *UNSEEN, b"_\x08", b"\\u001b[1m", b"\n", b"\r\n", b" ", b"=", b":",
    b"-----BEGIN RSA PRIVATE KEY-----\n", b"    MIIEowIBAAKCAQEAxk3vJq8yWcF2qL9rT0uPz7Ns4m\n",
    b"MIIEowIBAAKCAQEAxk3vJq8yWcF2qL9rT0uPz7Ns4m\n", b"-----END RSA PRIVATE KEY-----\n",
    b"password=", b"DB_PASSWORD=", b"\xff\xfe", "é".encode(), b"x" * 300,
    *(value.encode() for value in TOKENS.values()),
]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=60),
    st.lists(st.integers(min_value=0, max_value=10**6), max_size=12),
)
def test_any_chunking_of_anything_equals_the_whole(pieces: list[bytes], cuts: list[int]) -> None:
    data = b"".join(pieces)
    whole, _ = REDACTOR.redact_bytes(data)
    assert _stream(REDACTOR, _chunked(data, cuts)) == whole
    assert whole.count(b"\n") == data.count(b"\n")
    assert TOKENS["github"].encode() not in whole  # found by its format wherever it is


def test_a_key_body_with_blank_lines_is_the_same_cut_anywhere() -> None:
    # Blank lines (one with a carriage return) at its start, middle and end: the marker
    # goes on the first line that is not blank, blank lines stay, wherever a chunk ends.
    body = b"MIIEowIBAAKCAQEAxk3vJq8yWcF2qL9rT0uPz7Ns4m\r\n"
    data = (b"-----BEGIN RSA PRIVATE KEY-----\n\n" + body + b"\r\n" + body + b" \r\n"
            b"-----END RSA PRIVATE KEY-----\nafter\n")  # fmt: skip
    whole, found = REDACTOR.redact_bytes(data)
    assert whole == (
        b"-----BEGIN RSA PRIVATE KEY-----\n\n[secret: private-key]\n\r\n\n \r\n"
        b"-----END RSA PRIVATE KEY-----\nafter\n"
    )
    assert found.total == 1
    for cut in range(len(data) + 1):
        assert _stream(REDACTOR, [data[:cut], data[cut:]]) == whole, cut
