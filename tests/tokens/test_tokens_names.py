"""Tokenizer names, chars4, the fallback, the data's longest token, and plug-in tokenizers."""

from __future__ import annotations

import base64
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout import tokens
from agentout.tokens import (
    MAX_TOKEN_BYTES,
    Chars4,
    ExactBPE,
    HuggingFaceTokenizer,
    Tokenizer,
    UnknownTokenizerError,
    count,
    count_stream,
    count_until,
    get_tokenizer,
    known_tokenizers,
    max_chars,
)
from reference_tiktoken import shipped_data


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), (None, 0), ("a", 1), ("test", 1), ("hello", 2), ("hello world", 3), ("x" * 401, 101)],
)
def test_chars4_is_the_ceiling_of_chars_over_four(text: str | None, expected: int) -> None:
    assert Chars4().count(text) == expected


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200), limit=st.integers(-3, 60))
def test_chars4_counts_until_and_streams_like_its_count(text: str, limit: int) -> None:
    n = math.ceil(len(text) / 4)
    assert count(text, "chars4") == n
    assert count_until(text, limit, "chars4") == (n if n <= limit else None)
    # a stream is counted as one text: the ceiling of the total, not a sum of ceilings
    assert count_stream(list(text), "chars4") == n


@pytest.mark.parametrize(
    ("name", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-2024-08-06", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("GPT-4o", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5-mini", "o200k_base"),
        ("gpt-5.1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("ft:gpt-4o:acme::abc123", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-0613", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("gpt-3.5-turbo-0125", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("ft:gpt-4:acme::abc123", "cl100k_base"),
        ("o200k_base", "o200k_base"),
        ("cl100k_base", "cl100k_base"),
    ],
)
def test_model_names_resolve_to_their_encoding(name: str, encoding: str) -> None:
    tok = get_tokenizer(name)
    assert tok.name == encoding
    assert tok is get_tokenizer(encoding)  # one tokenizer per encoding, loaded once


def test_model_aliases_agree_with_tiktoken() -> None:
    from tiktoken.model import encoding_name_for_model

    for name in tokens.MODEL_ALIASES:
        assert tokens._resolve_alias(name) == encoding_name_for_model(name), name
    for prefix in tokens.MODEL_PREFIXES:
        model = prefix + ("x" if prefix.endswith("-") else "-x")
        theirs = encoding_name_for_model(model).replace("o200k_harmony", "o200k_base")
        assert tokens._resolve_alias(model) == theirs, model


@pytest.mark.parametrize("name", ["gpt-2", "p50k_base", "claude-3", "", "o300k"])
def test_unknown_names_raise_listing_the_known_ones(name: str) -> None:
    with pytest.raises(UnknownTokenizerError) as caught:
        get_tokenizer(name)
    message = str(caught.value)
    assert repr(name) in message
    for known in ("o200k_base", "cl100k_base", "chars4", "gpt-4o", "gpt-4", "hf:PATH"):
        assert known in message
    assert isinstance(caught.value, ValueError)


def test_known_tokenizers_all_resolve() -> None:
    names = known_tokenizers()
    assert names[:3] == ["o200k_base", "cl100k_base", "chars4"]
    for name in names:
        assert get_tokenizer(name).name in ("o200k_base", "cl100k_base", "chars4")


def test_the_default_is_exact_o200k() -> None:
    tok = get_tokenizer()
    assert isinstance(tok, ExactBPE)
    assert tok.name == "o200k_base"
    assert isinstance(tok, Tokenizer)
    assert count("hello world") == 2


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_max_token_bytes_is_the_longest_token_in_the_shipped_data(encoding: str) -> None:
    encoded = shipped_data(encoding).split()[::2]  # lines are "TOKEN_BASE64 RANK"
    lengths = [len(base64.b64decode(token)) for token in encoded]
    assert len(lengths) > 100_000
    assert max(lengths) == MAX_TOKEN_BYTES
    assert max_chars(10, encoding) == 10 * MAX_TOKEN_BYTES


def test_shipped_data_is_tiktokens_own(tmp_path: Path, reference_tiktoken) -> None:
    # The reference loads only if tiktoken's SHA-256 check passes; a wrong file must fail
    # loudly (it would otherwise try to download), which shows the check is really made.
    from reference_tiktoken import BLOB_URLS, reference_encoding

    assert reference_tiktoken("o200k_base").n_vocab > 200_000
    corrupt = tmp_path / "bad"
    corrupt.mkdir()
    import hashlib

    key = hashlib.sha1(BLOB_URLS["cl100k_base"].encode()).hexdigest()
    (corrupt / key).write_bytes(shipped_data("cl100k_base")[:-10])
    import tiktoken.registry

    cached = tiktoken.registry.ENCODINGS.pop("cl100k_base", None)
    try:
        with pytest.raises(RuntimeError, match="does not match the SHA-256"):
            reference_encoding("cl100k_base", corrupt)
    finally:
        if cached is not None:
            tiktoken.registry.ENCODINGS["cl100k_base"] = cached


def test_a_failing_exact_tokenizer_falls_back_to_chars4_with_one_warning(monkeypatch, capsys):
    monkeypatch.setattr(tokens, "_cache", {})
    monkeypatch.setattr(tokens, "_warned", set())
    monkeypatch.delitem(sys.modules, "bpe_openai._bindings", raising=False)
    monkeypatch.setitem(sys.modules, "bpe_openai", None)  # import bpe_openai now fails

    names = ["o200k_base", "gpt-4o", "cl100k_base", "gpt-4", None, "o200k_base"]
    tokenizers = [get_tokenizer(name) for name in names]
    assert {tok.name for tok in tokenizers} == {"chars4"}
    assert count("hello world", "gpt-4o") == 3  # ceil(11 / 4)
    assert count_until("hello world", 2, "cl100k_base") is None
    err = capsys.readouterr().err
    assert err.count("agentout: warning:") == 1
    assert "exact tokenizer o200k_base unavailable" in err
    assert "chars4" in err


def test_the_cli_says_which_tokenizer_counted_when_it_falls_back(tmp_path: Path) -> None:
    # End to end, in a fresh process where bpe-openai cannot be imported.
    code = (
        "import sys; sys.modules['bpe_openai'] = None\n"
        "sys.argv = ['agentout', 'count', '--json', '--tokenizer', 'gpt-4o']\n"
        "from agentout.cli.main import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input="hello world",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tokenizer"] == "chars4"
    assert report["total"] == 3
    assert done.stderr.count("agentout: warning:") == 1


def _train_tiny_bpe(path: Path) -> object:
    """A real tokenizer.json, trained here, offline, on a few sentences."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, processors, trainers

    hf = HFTokenizer(models.BPE(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = ["the quick brown fox jumps over the lazy dog"] * 20
    corpus += ["packing records into a token budget, nothing lost"] * 20
    trainer = trainers.BpeTrainer(vocab_size=120, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    hf.train_from_iterator(corpus, trainer)
    reference = HFTokenizer.from_str(hf.to_str())  # before the extras below
    hf.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    hf.enable_truncation(max_length=8)  # a saved setting agentout must not obey
    hf.save(str(path))
    return reference


def test_a_hugging_face_tokenizer_json_plugs_in(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    reference = _train_tiny_bpe(path)
    text = "the lazy fox packs a budget; the quick dog loses nothing " * 5

    tok = get_tokenizer(f"hf:{path}")
    assert isinstance(tok, HuggingFaceTokenizer)
    assert isinstance(tok, Tokenizer)
    assert tok.name == f"hf:{path}"
    expected = len(reference.encode(text).ids)  # type: ignore[attr-defined]
    assert expected > 8  # so truncation, had it stayed on, would show
    assert tok.count(text) == expected  # no [CLS]/[SEP], no truncation
    assert count("", tok) == 0
    assert count_until(text, expected, tok) == expected
    assert count_until(text, expected - 1, tok) is None
    assert count_stream([text[:7], text[7:]], tok) == expected
    assert get_tokenizer(str(path)).count(text) == expected  # a path to tokenizer.json works too


def test_a_missing_or_broken_tokenizer_json_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UnknownTokenizerError, match="tokenizer file not found"):
        get_tokenizer(f"hf:{tmp_path / 'nope.json'}")
    broken = tmp_path / "tokenizer.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(UnknownTokenizerError, match=f"cannot load tokenizer {broken}"):
        get_tokenizer(f"hf:{broken}")


def test_your_own_tokenizer_plugs_in() -> None:
    class Words:
        name = "words"

        def count(self, text: str) -> int:
            return len(text.split())

    words = Words()
    assert isinstance(words, Tokenizer)
    assert get_tokenizer(words) is words
    assert count("one two three", words) == 3
    assert count_until("one two three", 2, words) is None
    assert count_until("one two three", 3, words) == 3
    assert count_stream(["one tw", "o three"], words) == 3  # joined: no cut is assumed safe
    assert max_chars(5, words) is None
