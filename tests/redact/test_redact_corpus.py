"""The must-reach: no planted secret survives redaction of a real secret-bearing command."""

from __future__ import annotations

import pytest
import secrets_corpus

from agentout.redact import Redactor

Outputs = dict[str, list[tuple[secrets_corpus.Case, bytes]]]
SPLITS = ("tuning", "held-out")


def _leaked(out: bytes, values: tuple[str, ...]) -> list[str]:
    return [value for value in values if value.encode() in out]


@pytest.mark.parametrize("split", SPLITS)
def test_every_planted_value_is_printed_by_the_real_command(
    corpus_outputs: Outputs, split: str
) -> None:
    # Otherwise "nothing leaked" would prove nothing.
    for case, raw in corpus_outputs[split]:
        assert raw, case.name
        assert _leaked(raw, case.planted) == list(case.planted), case.name


@pytest.mark.parametrize("split", SPLITS)
def test_no_planted_value_survives_with_the_commands_environment(
    corpus_outputs: Outputs, split: str
) -> None:
    for case, raw in corpus_outputs[split]:
        redactor = Redactor.from_environ(case.env)
        out, found = redactor.redact_bytes(raw)
        assert _leaked(out, case.planted) == [], case.name
        assert found.total >= 1, case.name
        assert out.count(b"\n") == raw.count(b"\n"), case.name  # the shape is kept


@pytest.mark.parametrize("split", SPLITS)
def test_formats_and_context_alone_catch_what_gives_itself_away(
    corpus_outputs: Outputs, split: str, formats_only: Redactor
) -> None:
    for case, raw in corpus_outputs[split]:
        out, _ = formats_only.redact_bytes(raw)
        assert _leaked(out, case.by_format) == [], case.name


@pytest.mark.parametrize("split", SPLITS)
def test_streaming_in_small_chunks_gives_the_same_bytes(
    corpus_outputs: Outputs, split: str
) -> None:
    for case, raw in corpus_outputs[split]:
        redactor = Redactor.from_environ(case.env)
        whole, found = redactor.redact_bytes(raw)
        stream = redactor.stream()
        parts = [stream.feed(raw[i : i + 7]) for i in range(0, len(raw), 7)]
        parts.append(stream.finish())
        assert b"".join(parts) == whole, case.name
        assert stream.found == found, case.name


def test_markers_say_what_was_hidden(corpus_outputs: Outputs) -> None:
    out = {}
    for case, raw in corpus_outputs["tuning"]:
        out[case.name] = Redactor.from_environ(case.env).redact_bytes(raw)[0].decode()
    assert "GH_TOKEN=[secret: $GH_TOKEN]" in out["env"]
    assert "DB_PASSWORD=[secret: password]" in out["cat .env"]
    assert "://deploy:[secret: url-password]@git.example.com" in out["URL with a password"]
    assert (
        "> Authorization: Bearer [secret: authorization]"
        in out["JSON API response with a bearer token"]
    )
    assert '"access_token": "[secret: token]"' in out["JSON API response with a bearer token"]
    key = out["cat a private key"].splitlines()
    assert key[0] == "-----BEGIN RSA PRIVATE KEY-----"
    assert key[1] == "[secret: private-key]"
    assert key[-1] == "-----END RSA PRIVATE KEY-----"


def test_the_corpus_plants_fresh_values_for_each_generator(tmp_path: object) -> None:
    import random

    first = secrets_corpus.planted_tokens(random.Random(1))
    second = secrets_corpus.planted_tokens(random.Random(2))
    assert first.keys() == second.keys()
    assert all(first[k] != second[k] for k in first)
