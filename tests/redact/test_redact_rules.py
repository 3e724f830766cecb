"""The rules come from the installed detect-secrets, are cached, and find what they name."""

from __future__ import annotations

import base64
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import secrets_corpus
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentout.redact import Redactor, _rules
from agentout.redact._patterns import valid_jwt
from agentout.redact._rules import EXCLUDED, PLUGINS, RuleSet, load_rules, read_detect_secrets

TOKENS = secrets_corpus.planted_tokens(random.Random(11))


def test_every_detect_secrets_plugin_is_used_or_left_out_for_a_reason() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    names = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert names == set(PLUGINS) | set(EXCLUDED)
    assert not set(PLUGINS) & set(EXCLUDED)


def test_the_shipped_rules_are_what_this_detect_secrets_says() -> None:
    from agentout.redact import _shipped

    again = "detect-secrets or the reader changed: python -m agentout.redact._rules"
    assert _rules._source_digest() == _shipped.DIGEST, again
    assert _rules._shipped(_shipped.DIGEST) == read_detect_secrets(), again
    assert _rules._shipped("another detect-secrets") is None


def test_another_detect_secrets_is_read_once_and_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_rules, "_shipped", lambda digest: None)  # as for another version
    monkeypatch.setattr(_rules, "_LOADED", {})
    fresh = read_detect_secrets()
    assert load_rules() == fresh
    cached = list((tmp_path / "redact").glob("rules-*.json"))
    assert len(cached) == 1
    assert cached[0].stat().st_mode & 0o077 == 0
    reads = []

    def read() -> RuleSet:
        reads.append(1)
        return fresh

    monkeypatch.setattr(_rules, "read_detect_secrets", read)
    monkeypatch.setattr(_rules, "_LOADED", {})  # as a new process would
    assert load_rules() == fresh
    assert reads == []  # read back from the cache
    stamp = f"{_rules._source_digest()} | {_rules._reader_stamp()}"
    for broken in ("{broken", '{"fingerprint": "other files"}', "[]"):
        cached[0].write_text(broken)
        monkeypatch.setattr(_rules, "_LOADED", {})
        assert load_rules() == fresh  # a broken or stale cache is only slower
        assert RuleSet.from_json(cached[0].read_text(), stamp) == fresh
    assert len(reads) == 3


def test_redacting_imports_neither_detect_secrets_nor_a_cache_reader(tmp_path: Path) -> None:
    env = {**os.environ, "AGENTOUT_CACHE_DIR": str(tmp_path / "none")}
    env.pop("PYTHONPATH", None)
    code = (
        "import sys; from agentout.redact import Redactor\n"
        "out, found = Redactor.from_environ().redact_bytes(b'GH_TOKEN=ghp_' + b'a1B2' * 9)\n"
        "heavy = ('detect_secrets', 'platformdirs', 'json', 'hashlib', 'dataclasses')\n"
        "print(found.total, *sorted(name for name in heavy if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.split() == ["1"], done.stderr
    assert not (tmp_path / "none").exists()  # nothing to cache: the shipped rules did


def test_rules_name_their_source() -> None:
    rules = read_detect_secrets()
    assert rules.origin.startswith("detect-secrets ")
    sources = {rule.source for rule in rules.rules}
    assert "detect-secrets GitHubTokenDetector" in sources
    assert "agentout" in sources
    assert "BEGIN RSA PRIVATE KEY" in rules.key_headers


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("github", "github-token"),
        ("github-fine-grained", "github-token"),
        ("gitlab", "gitlab-token"),
        ("aws-access-key", "aws-key"),
        ("anthropic", "anthropic-key"),
        ("openai", "openai-key"),
        ("slack", "slack-token"),
        ("stripe", "stripe-key"),
        ("google", "google-api-key"),
        ("jwt", "jwt"),
        ("npm", "npm-token"),
    ],
)
def test_each_format_is_found_alone_and_named(name: str, kind: str) -> None:
    value = TOKENS[name]
    out, found = Redactor({}).redact_text(f"got {value} back\n")
    assert out == f"got [secret: {kind}] back\n"
    assert found.as_dict() == {kind: 1}


def _exact_patterns() -> list[tuple[str, bool]]:
    return [(r.pattern, r.ignore_case) for r in read_detect_secrets().rules]


SCANNER = Redactor({}).scanner


@pytest.mark.parametrize(("pattern", "ignore_case"), _exact_patterns())
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_re2_pass_hits_wherever_an_exact_rule_matches(
    pattern: str, ignore_case: bool, data: st.DataObject
) -> None:
    flags = re.IGNORECASE if ignore_case else 0
    ascii_text = st.characters(codec="ascii", exclude_characters="\n")
    text = data.draw(st.from_regex(re.compile(pattern, flags), fullmatch=True, alphabet=ascii_text))
    line = text.encode("ascii")
    assume(re.compile(pattern.encode(), flags).search(line) is not None)  # as the scanner runs it
    assert SCANNER is not None
    assert SCANNER._search(line, 0) is not None
    assert SCANNER._search(b"log line before\n" + line + b"\nand after\n", 0) is not None


# Lines in the shapes the context rules read: assignments with every kind of key, quote,
# spacing, separator and prefix; flags; headers; bearer tokens; and text around them.
_KEYS = st.sampled_from(
    [
        "password",
        "PASSWORD",
        "db_password",
        "DB_PASSWORD",
        "passwd",
        "PassPhrase",
        "secret",
        "client_secret",
        "client-secret",
        "clientSecret",
        "token",
        "authToken",
        "access_token",
        "GH_TOKEN",
        "api_key",
        "api-key",
        "apikey",
        "API_KEY",
        "x.api.key",
        "accessKey",
        "private_key",
        "secret_key",
        "auth_key",
        "smtp_pass",
        "SMTP_PASS",
        "db-pwd",
        "STRIPE_KEY",
        "KEY",
        "PASS",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_REGION",
        "next_page_token",
        "token_type",
        "secret_name",
        "MY_CREDS",
        "vault_x",
        "keys",
        "tokens",
        "monkey",
        "passing",
        "PATH",
        "name",
    ]
)
_VALUES = st.one_of(
    st.sampled_from(["hunter2hunter2", "s3cr3t-value-1", "letmein", "${API_KEY}", "x"]),
    st.text(st.characters(codec="ascii", exclude_characters="\n"), max_size=30),
)
_FILLER = st.text(st.characters(codec="ascii", exclude_characters="\n"), max_size=20)


@st.composite
def _context_line(draw: st.DrawFn) -> bytes:
    key, value = draw(_KEYS), draw(_VALUES)
    quote = draw(st.sampled_from(["", '"', "'"]))
    shape = draw(st.sampled_from(["assign", "flag", "header", "bearer"]))
    if shape == "flag":
        body = f"--{key}{draw(st.sampled_from([' ', '  ', chr(9)]))}{quote}{value}{quote}"
    elif shape == "header":
        name = draw(st.sampled_from(["Authorization", "authorization", "Proxy-Authorization"]))
        scheme = draw(st.sampled_from(["", "Bearer ", "token ", "Basic "]))
        body = f"{name}{draw(st.sampled_from([': ', '=', ':']))}{scheme}{value}"
    elif shape == "bearer":
        body = f"{draw(st.sampled_from(['Bearer', 'bearer', 'BEARER']))} {value}"
    else:
        key_quote = draw(st.sampled_from(["", '"', "'"]))
        sep = draw(st.sampled_from(["=", ":", " = ", ": ", " : ", "=  ", ":\t"]))
        body = f"{key_quote}{key}{key_quote}{sep}{quote}{value}{quote}"
    prefix = draw(
        st.sampled_from(["", "config/app.ini:12:", "app.env-3-", "    4\t", "+", " ", "export "])
    )
    return f"{prefix}{draw(_FILLER)}{body}{draw(_FILLER)}".encode()


CONTEXT = Redactor({}, extra_names=["MY_CREDS", "VAULT_*"]).scanner


@settings(max_examples=600, deadline=None)
@given(st.one_of(_context_line(), st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" "))))
def test_the_re2_pass_hits_every_line_the_context_rules_find_something_in(line: bytes) -> None:
    assert CONTEXT is not None
    spans, _ = CONTEXT.spans(line, every=True)
    if spans:
        assert CONTEXT._search(line, 0) is not None, line


_JWT_PART = st.one_of(
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3).map(
        lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")
    ),
    st.binary(max_size=40).map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")),
    st.text(st.sampled_from("ABCxyz019-_=.+/"), max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_JWT_PART, min_size=1, max_size=4).map(".".join))
def test_the_jwt_check_is_detect_secrets_own(token: str) -> None:
    from detect_secrets.plugins.jwt import JwtTokenDetector

    assert valid_jwt(token.encode()) == JwtTokenDetector.is_formally_valid(token)
