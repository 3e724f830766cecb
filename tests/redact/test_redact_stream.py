"""Property tests: any chunking gives the bytes of a whole redaction; no planted value
survives; text without secrets passes byte-identical; long lines stay bounded."""

from __future__ import annotations

import itertools
import random
import uuid

import pytest
import secrets_corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.redact import Redactor

TOKENS = secrets_corpus.planted_tokens(random.Random(7))
ENV = {"GH_TOKEN": TOKENS["github"], "DB_PASSWORD": TOKENS["password"]}
REDACTOR = Redactor(
    {TOKENS["github"]: "GH_TOKEN", TOKENS["password"]: "DB_PASSWORD"},
)
PLANTED = [
    f"GH_TOKEN={TOKENS['github']}",
    f"password is {TOKENS['password']} (from the environment)",
    f"OPENAI_API_KEY={TOKENS['openai']}",
    f'  "access_token": "{TOKENS["bearer"]}",',
    f"> Authorization: Bearer {TOKENS['bearer']}",
    f"remote: https://bob:{TOKENS['url-password']}@example.com/x.git",
    f"id_token={TOKENS['jwt']}",
    f"key {TOKENS['aws-access-key']} and {TOKENS['google']} and {TOKENS['stripe']}",
    f"slack {TOKENS['slack']} npm {TOKENS['npm']} anthropic {TOKENS['anthropic']}",
    f"//registry.npmjs.org/:_authToken={TOKENS['npm']}",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "QyNTUxOQAAACBZ0aFakEy9s2HxB3bLkq7pPBUTRzwqcPO8X\n-----END OPENSSH PRIVATE KEY-----",
]
SECRET_VALUES = [
    TOKENS[k]
    for k in (
        "github",
        "password",
        "openai",
        "bearer",
        "url-password",
        "jwt",
        "aws-access-key",
        "google",
        "stripe",
        "slack",
        "npm",
        "anthropic",
    )
] + [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    "QyNTUxOQAAACBZ0aFakEy9s2HxB3bLkq7pPBUTRzwqcPO8X",
]
FACTS = [
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt",
    f"run {uuid.UUID(int=123456789)} done",
    "tests/test_api.py::test_token_refresh[case-3] PASSED",
    "src/agentout/redact/_scan.py:212:12: E501 line too long",
    "-rw-r--r-- 1 agent agent 4096 2025-01-01 12:00 secrets.md",
    "H agentout=1 tokens=193 tokenizer=o200k_base",
    "key points: the budget, the store",
]
plain = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="=:'\"`\r\x0b\x0c"),
    max_size=80,
)
lines = st.lists(st.one_of(st.sampled_from(PLANTED), st.sampled_from(FACTS), plain), max_size=25)


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def _stream(redactor: Redactor, chunks: list[bytes]) -> bytes:
    stream = redactor.stream()
    out = [stream.feed(chunk) for chunk in chunks]
    out.append(stream.finish())
    return b"".join(out)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines, st.lists(st.integers(min_value=0, max_value=10**6), max_size=30), st.booleans())
def test_any_chunking_equals_the_whole(parts: list[str], cuts: list[int], newline: bool) -> None:
    data = ("\n".join(parts) + ("\n" if newline else "")).encode("utf-8")
    whole, found = REDACTOR.redact_bytes(data)
    assert _stream(REDACTOR, _chunked(data, cuts)) == whole
    for value in SECRET_VALUES:
        assert value.encode() not in whole
    assert whole.count(b"\n") == data.count(b"\n")
    again, found_again = REDACTOR.redact_bytes(whole)
    assert again == whole  # idempotent: a marker is never taken for a secret
    assert found_again.total == 0
    assert found.total >= sum(p in PLANTED for p in parts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FACTS), plain), max_size=30))
def test_text_without_secrets_is_byte_identical(parts: list[str]) -> None:
    text = "\n".join(parts)
    out, found = REDACTOR.redact_text(text)
    assert out is text
    assert found.total == 0
    data = text.encode("utf-8")
    assert REDACTOR.redact_bytes(data) == (data, found)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=9000),
    st.sampled_from(PLANTED[:9]),
    st.lists(st.integers(min_value=0, max_value=10**6), max_size=12),
)
def test_long_lines_are_redacted_in_windows_whatever_the_chunking(
    offset: int, planted: str, cuts: list[int]
) -> None:
    redactor = Redactor({TOKENS["github"]: "GH_TOKEN", TOKENS["password"]: "DB_PASSWORD"})
    scanner = redactor.scanner
    assert scanner is not None
    scanner.window, scanner.tail = 4096, 512
    line = ("x" * offset + " " + planted + " " + "y" * 5000).encode()
    data = line + b"\nnext line\n"
    whole, _ = redactor.redact_bytes(data)
    assert _stream(redactor, _chunked(data, cuts)) == whole
    for value in SECRET_VALUES:
        assert value.encode() not in whole


def test_memory_is_bounded_by_the_window() -> None:
    stream = Redactor({}).stream()
    held = 0
    for _ in range(200):
        stream.feed(b"0123456789abcdef" * 4096)  # one 13 MB line, 64 KiB a chunk
        held = max(held, stream.held)
    assert held <= 1 << 16
    assert len(stream.finish()) <= 1 << 16


def test_a_private_key_split_across_chunks_keeps_its_lines() -> None:
    block = PLANTED[-1].encode() + b"\nafter\n"
    for size in (1, 3, 17, 64):
        out = _stream(REDACTOR, [block[i : i + size] for i in range(0, len(block), size)])
        assert out == (
            b"-----BEGIN OPENSSH PRIVATE KEY-----\n[secret: private-key]\n\n"
            b"-----END OPENSSH PRIVATE KEY-----\nafter\n"
        )


def test_off_passes_everything_through() -> None:
    redactor = Redactor.from_environ({**ENV, "AGENTOUT_REDACT": "0"})
    data = "\n".join(PLANTED).encode()
    assert redactor.redact_bytes(data) == (data, redactor.redact_bytes(b"")[1])
    assert redactor.stream().feed(data) == data


def test_feed_after_finish_is_an_error() -> None:
    stream = REDACTOR.stream()
    stream.finish()
    with pytest.raises(ValueError, match="after finish"):
        stream.feed(b"x")
