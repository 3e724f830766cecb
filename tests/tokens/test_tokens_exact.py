"""Exact counts: agentout's o200k/cl100k counts equal tiktoken's encode_ordinary, always."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout import tokens
from agentout.tokens import count, count_stream, count_until, get_tokenizer

ENCODINGS = ("o200k_base", "cl100k_base")
SRC = Path(tokens.__file__).parents[1]


def _corpus() -> dict[str, str]:
    rng = random.Random(20240611)
    prose = (
        "It was the best of times, it was the worst of times; we'd thought we'll never see "
        'it. They\'ve SEEN it twice — "quotes", (parens) and 3.14159 or 1e-9, 42%, $19.99.\n'
    )
    code = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SRC.rglob("*.py")))
    records = [
        {"id": i, "name": f"repo-{i}", "stars": rng.randint(0, 10**6), "tags": ["a", "β"]}
        for i in range(300)
    ]
    logs = "".join(
        f"2024-06-{1 + i % 28:02d}T12:{i % 60:02d}:07.{i:03d}Z INFO  [worker-{i % 8}] "
        f"GET /api/v1/items/{rng.randint(1, 99999)}?q=x&page={i} 200 {rng.random():.4f}s "
        f"ip=10.0.{i % 256}.{(i * 7) % 256}\n"
        for i in range(400)
    )
    cjk = "東京は日本の首都です。机器学习是人工智能的一个分支。서울은 대한민국의 수도입니다。"
    arabic = "اللغة العربية هي إحدى أكثر اللغات انتشاراً في العالم، ٤٠٠ مليون شخص.\n"
    emoji = "ok 👍🏽 family 👨‍👩‍👧‍👦 flag 🇯🇵 keycap 1️⃣ heart ❤️ e\u0301 combining\n"
    special = "<|endoftext|> <|fim_prefix|><|fim_middle|><|fim_suffix|> <|endofprompt|>"
    words = (prose + cjk + arabic + emoji + special).split()
    long_line = " ".join(rng.choice(words) for _ in range(40_000))  # ~300 K chars, no newline
    return {
        "empty": "",
        "prose": prose * 50,
        "code": code,
        "json-pretty": json.dumps(records, indent=2, ensure_ascii=False),
        "json-compact": json.dumps(records, separators=(",", ":")),
        "logs": logs,
        "cjk": cjk * 40,
        "arabic": arabic * 40,
        "emoji": emoji * 40,
        "special-token-text": special * 20,
        "whitespace-runs": "a  b\t\tc \n\n\n  d\r\n\r\n\t e" + " " * 300 + "\n" * 50 + "\u3000x",
        "digits": "1234567890" * 500 + " 3.14159265358979",
        "base64-blob": "".join(rng.choice("ABCxyz0123+/=") for _ in range(100_000)),
        "one-giant-word": "a" * 200_000,
        "long-line-mixed": long_line,
        "long-multiline": (long_line + "\n") * 3,
    }


CORPUS = _corpus()


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("sample", list(CORPUS))
def test_counts_equal_tiktoken_on_the_mixed_corpus(
    reference_tiktoken, encoding: str, sample: str
) -> None:
    text = CORPUS[sample]
    assert count(text, encoding) == len(reference_tiktoken(encoding).encode_ordinary(text))


def test_the_corpus_exercises_chunked_counting() -> None:
    # Samples longer than a chunk are counted in pieces: the case the safe cuts must get right.
    long = [name for name, text in CORPUS.items() if len(text) > 2 * tokens._CHUNK_CHARS]
    assert {"long-line-mixed", "long-multiline", "code", "one-giant-word"} <= set(long)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_special_token_text_is_counted_as_ordinary_text(reference_tiktoken, encoding) -> None:
    reference = reference_tiktoken(encoding)
    n = count("<|endoftext|>", encoding)
    assert n == len(reference.encode_ordinary("<|endoftext|>"))
    assert n > 1  # not the single special token tiktoken.encode would refuse or emit
    assert reference.encode("<|endoftext|>", allowed_special="all") == [reference.eot_token]


# Text dense in the characters the pre-tokenizer and the safe cuts care about, plus any
# character at all (surrogates included: tiktoken replaces them, and so must we).
_INTERESTING = list(" \n\r\t\u00a0\u3000'/.,:;!?_-+=\"(){}[]<|>0123456789aZéß東ع\u0301\u200d👍🏽")
ALPHABET = st.one_of(
    st.sampled_from(_INTERESTING),
    st.characters(),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
)
# Fragments that make the pre-tokenizer's decisions: words, contractions, punctuation runs,
# newlines next to '/', digit runs, marks, wide characters, special-token text.
_FRAGMENTS = [
    *["a", "Hello", " world", "ALLCAPS", "camelCase", "'s", "'LL", "'ve", "'", "_", "__init__"],
    *["!", "?!", "...", ".", ",", ":", "/", "//", "(", ")", '"', "-", "=>", "<|endoftext|>"],
    *[" ", "  ", "\t", "\n", "\n\n", "\r\n", " \n", "\u00a0", "\u3000", "\x1c"],
    *["1", "123", "4567", "3.14", "é", "e\u0301", "東京", "ع", "👍🏽", "\u200d", "\U0001f1ef"],
]
TEXTS = st.one_of(
    st.text(alphabet=ALPHABET, max_size=400),
    st.lists(
        st.one_of(st.sampled_from(_FRAGMENTS), st.text(ALPHABET, max_size=2)), max_size=60
    ).map("".join),
)


@contextmanager
def small_chunks(chunk: int = 16, search: int = 1 << 20) -> Iterator[None]:
    """Make chunked counting kick in on small texts, so hypothesis can reach it."""
    with (
        mock.patch.object(tokens, "_CHUNK_CHARS", chunk),
        mock.patch.object(tokens, "_MAX_SEARCH_CHARS", search),
    ):
        yield


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=TEXTS)
def test_counts_equal_tiktoken_on_any_text(reference_tiktoken, encoding, text) -> None:
    expected = len(reference_tiktoken(encoding).encode_ordinary(text))
    assert count(text, encoding) == expected
    with small_chunks():
        assert count(text, encoding) == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=TEXTS)
def test_counts_add_up_at_every_safe_cut(reference_tiktoken, encoding, text) -> None:
    # The property chunked counting rests on, checked with tiktoken alone.
    reference = reference_tiktoken(encoding)
    whole = len(reference.encode_ordinary(text))
    for found in tokens._SAFE_CUT.finditer(text):
        j = found.start()
        head, tail = text[:j], text[j:]
        assert len(reference.encode_ordinary(head)) + len(reference.encode_ordinary(tail)) == whole


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_counts_add_up_at_every_safe_cut_of_every_short_text(encoding) -> None:
    # Exhaustive over short texts: every string of three characters from an alphabet of
    # the characters the cut rules look at, in a few contexts. Our counts equal tiktoken's
    # (tested above), so they serve as the reference here, at a thousandth of the cost.
    tok = get_tokenizer(encoding)
    alphabet = "aZ1_'/!.,-(\"?: \t\n\r\x1c\u00a0é\u0301東👍"
    failures = []
    for a, b, c in itertools.product(alphabet, repeat=3):
        for before, after in (("", ""), ("x", "y"), ("!", " "), (" ", "'s"), ("\n", "/")):
            text = before + a + b + c + after
            whole = tok.count(text)
            for found in tokens._SAFE_CUT.finditer(text):
                j = found.start()
                if tok.count(text[:j]) + tok.count(text[j:]) != whole:
                    failures.append((text, j))
    assert failures == []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_lone_and_paired_surrogates_count_as_tiktoken_counts_them(reference_tiktoken, encoding):
    reference = reference_tiktoken(encoding)
    for text in ["ab\ud800cd", "\udfff", "x \ud83d\ude00 y", "\ud83d" + "a" * 100 + "\n\udc00"]:
        expected = len(reference.encode_ordinary(text))
        assert count(text, encoding) == expected
        assert count_until(text, expected, encoding) == expected
        assert count_stream(iter(text), encoding) == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=150, deadline=None)
@given(text=TEXTS, data=st.data())
def test_count_stream_over_any_chunking_equals_count(reference_tiktoken, encoding, text, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    expected = len(reference_tiktoken(encoding).encode_ordinary(text))
    assert count_stream(pieces, encoding) == expected
    with small_chunks():
        assert count_stream(iter(pieces), encoding) == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_count_stream_of_a_large_file_in_lines(reference_tiktoken, encoding) -> None:
    text = CORPUS["long-multiline"] + CORPUS["logs"] * 20
    expected = len(reference_tiktoken(encoding).encode_ordinary(text))
    assert count_stream(text.splitlines(keepends=True), encoding) == expected
    assert count_stream((text[i : i + 7] for i in range(0, len(text), 7)), encoding) == expected


def test_count_stream_cuts_a_run_with_no_boundary_once_warned(capsys) -> None:
    # Bounded memory wins over exactness only for a run with no safe cut at all.
    tokens._warned.discard("forced-cut")
    text = "a" * 50_000
    with small_chunks(chunk=64, search=4096):
        streamed = count_stream(text[i : i + 100] for i in range(0, len(text), 100))
    whole = count(text)
    assert abs(streamed - whole) <= 3 * (len(text) // 4096)
    err = capsys.readouterr().err
    assert err.count("agentout: warning:") == 1
    assert "without a token boundary" in err


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=TEXTS, data=st.data())
def test_count_until_is_the_count_or_none(reference_tiktoken, encoding, text, data) -> None:
    n = len(reference_tiktoken(encoding).encode_ordinary(text))
    limit = data.draw(st.integers(-2, n + 3))
    expected = n if n <= limit else None
    assert count_until(text, limit, encoding) == expected
    with small_chunks():
        assert count_until(text, limit, encoding) == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_count_until_at_the_edges(encoding) -> None:
    text = CORPUS["long-multiline"]
    n = count(text, encoding)
    assert count_until(text, n, encoding) == n
    assert count_until(text, n - 1, encoding) is None
    assert count_until(text, n + 1, encoding) == n
    assert count_until("", 0, encoding) == 0
    assert count_until("x", 0, encoding) is None
    assert count_until("", -1, encoding) is None
    assert count_until("x", -5, encoding) is None
    assert count_until("hello world", 10**30, encoding) == 2  # a huge limit is just large


class _Recording:
    """Wraps the native counter and records how many characters it was handed."""

    def __init__(self, inner) -> None:
        self.inner, self.chars = inner, 0

    def count(self, text: str) -> int:
        self.chars += len(text)
        return self.inner.count(text)

    def count_till_limit(self, text: str, limit: int) -> int | None:
        self.chars += len(text)
        return self.inner.count_till_limit(text, limit)


def test_count_until_reads_o_of_limit_characters_not_the_text() -> None:
    tok = get_tokenizer("o200k_base")
    recording = _Recording(tok._bpe)
    text = CORPUS["long-multiline"] * 13  # ~10 MB
    assert len(text) > 10_000_000
    with mock.patch.object(tok, "_bpe", recording):
        assert count_until(text, 500, tok) is None
        assert recording.chars == 0  # decided by length alone: 500 tokens hold <= 64000 chars
        assert count_until(text, 100_000, tok) is None
        # early stop: only the first chunks are ever looked at, not the 10 MB
        assert recording.chars <= 1_000_000
