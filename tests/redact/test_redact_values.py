"""redact_text and redact_value: the API for data about to be packed."""

from __future__ import annotations

import random

import secrets_corpus
from hypothesis import given
from hypothesis import strategies as st

from agentout.redact import Found, Redactor

TOKENS = secrets_corpus.planted_tokens(random.Random(5))


def test_values_under_secret_keys_are_hidden_whole() -> None:
    data = {
        "user": "bob",
        "password": "correct horse battery",
        "auth": {"access_token": "opaque-but-secret-1", "token_type": "bearer"},
        "GH_TOKEN": "abcdefghijk",
        "items": [{"note": f"uses {TOKENS['github']}"}, 3, None, True],
        "count": 12,
        "sort_key": "created_at",
        "next_page_token": "CAESBggDEAEYAQ",
    }
    out, found = Redactor({}).redact_value(data)
    assert out == {
        "user": "bob",
        "password": "[secret: password]",
        "auth": {"access_token": "[secret: token]", "token_type": "bearer"},
        "GH_TOKEN": "[secret: token]",
        "items": [{"note": "uses [secret: github-token]"}, 3, None, True],
        "count": 12,
        "sort_key": "created_at",
        "next_page_token": "CAESBggDEAEYAQ",
    }
    assert found == Found.of({"password": 1, "token": 2, "github-token": 1})
    assert str(found) == "secrets=4 (github-token=1, password=1, token=2)"
    assert data["password"] == "correct horse battery"  # the input is left alone


def test_placeholders_under_secret_keys_stay() -> None:
    data = {"password": "", "token": None, "api_key": "${API_KEY}", "secret": "<your secret>"}
    assert Redactor({}).redact_value(data) == (data, Found())


@given(st.text())
def test_any_text_round_trips_when_nothing_is_found(text: str) -> None:
    out, found = Redactor({}).redact_text(text)
    if not found:
        assert out is text


def test_lone_surrogates_survive() -> None:
    text = f"bad \udcff byte then GH_TOKEN={TOKENS['github']}"
    out, found = Redactor({}).redact_text(text)
    assert out == "bad \udcff byte then GH_TOKEN=[secret: github-token]"
    assert found.total == 1


def test_found_adds_up() -> None:
    a = Found.of(["jwt", "jwt", "$GH_TOKEN"])
    b = Found.of({"jwt": 1})
    assert (a + b).as_dict() == {"$GH_TOKEN": 1, "jwt": 3}
    assert (a + Found()) is a
    assert str(Found()) == "secrets=0"


def test_data_nested_deeper_than_the_recursion_limit_is_redacted() -> None:
    deep: object = {"password": "correct horse battery", "note": TOKENS["github"]}
    for i in range(5000):
        deep = [deep] if i % 2 else {"d": deep, "tag": ("x", 1)}
    out, found = Redactor({}).redact_value(deep)
    assert found == Found.of({"password": 1, "github-token": 1})
    for i in reversed(range(5000)):
        if i % 2:
            assert isinstance(out, list)
            out = out[0]
        else:
            assert isinstance(out, dict)
            assert out["tag"] == ("x", 1)  # tuples stay tuples
            out = out["d"]
    assert out == {"password": "[secret: password]", "note": "[secret: github-token]"}


_KEYS = st.sampled_from(["a", "note", "password", "GH_TOKEN"])


@given(
    st.recursive(
        st.one_of(st.none(), st.integers(), st.sampled_from(["plain", *TOKENS.values()])),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
        max_leaves=8,
    )
)
def test_holds_none_is_true_exactly_when_redaction_changes_nothing(value: object) -> None:
    redactor = Redactor({})
    out, found = redactor.redact_value(value)
    if redactor.holds_none(value):
        assert (out, found.total) == (value, 0)
    elif not found:
        # conservative only where a secret-named key holds no plausible value
        assert out == value
