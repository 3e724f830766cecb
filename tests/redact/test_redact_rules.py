"""The rules come from the installed detect-secrets, are cached, and find what they name."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import secrets_corpus
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agentout.redact import Redactor
from agentout.redact._rules import EXCLUDED, PLUGINS, load_rules, read_detect_secrets

TOKENS = secrets_corpus.planted_tokens(random.Random(11))


def test_every_detect_secrets_plugin_is_used_or_left_out_for_a_reason() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    names = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert names == set(PLUGINS) | set(EXCLUDED)
    assert not set(PLUGINS) & set(EXCLUDED)


def test_the_cache_holds_what_detect_secrets_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(tmp_path))
    fresh = read_detect_secrets()
    assert load_rules() == fresh
    cached = list((tmp_path / "redact").glob("rules-*.json"))
    assert len(cached) == 1
    assert cached[0].stat().st_mode & 0o077 == 0
    assert load_rules() == fresh  # read back
    cached[0].write_text("{broken")
    assert load_rules() == fresh  # a broken cache is only slower


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
    return [(r.pattern, r.ignore_case) for r in read_detect_secrets().rules if r.check != "keyword"]


SCANNER = Redactor({}).scanner


@pytest.mark.parametrize(("pattern", "ignore_case"), _exact_patterns())
@settings(max_examples=10, deadline=None)
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
