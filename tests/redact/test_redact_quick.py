"""The quick answer "no secret here" (agentout.redact._quick) is never wrong: whatever it
lets through, the scanner's one pass does not even hit, and whatever any family of that
pass can hit, it sends to the scanner."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.redact import Redactor
from agentout.redact._quick import _rules_are_shipped, nothing_to_find
from agentout.redact._rules import load_rules
from agentout.redact._scan import KeyBlock, Scanner

VALUES = {"hunter2-Xq9vR7mK": "DB_PASSWORD"}
SCANNER = Scanner(load_rules(), VALUES, ("MY_CRED*",))


def test_the_rules_checked_are_the_ones_in_use() -> None:
    # Otherwise every text is scanned and the tests below would prove nothing.
    assert _rules_are_shipped()
    assert nothing_to_find(b"git status", {})


# Every family of the one pass (the values, each rule's candidate, the assignments, the
# headers, the key headers, what a reader does not see): anything it matches is scanned.
FAMILIES = [pattern for _, pattern in SCANNER._families]


@pytest.mark.parametrize("family", range(len(FAMILIES)))
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_whatever_a_family_matches_is_scanned(family: int, data: st.DataObject) -> None:
    pattern = FAMILIES[family]
    try:
        strategy = st.from_regex(re.compile(pattern), fullmatch=True)
    except re.error:
        pytest.skip("not a Python expression")
    text = data.draw(strategy)
    assert not nothing_to_find(text, VALUES), text


# Text made of the pieces secrets are made of: whenever the quick answer is "nothing",
# the pass finds no hit, so the scanner returns the text unchanged.
PIECES = [
    "git", "status", "ls", "-la", "-", "--", "_", ".", "...", "/", "+", "~", "=", ":", "@",
    " ", "\t", "\n", "'", '"', "`", ";", "!", "\\", "\x1b[0m", "…", "ghp", "sk", "AKIA",
    "eyJ", "xoxb", "npm", "glpat", "key", "KEY", "token", "Bearer", "Authorization",
    "pass", "aws", "AIza", "SG", "hunter2-Xq9vR7mK", "MY_CRED", "abcdefgh", "ABCD1234",
    "0123456789", "BEGIN RSA PRIVATE KEY", "-----",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24))
def test_what_it_lets_through_the_pass_does_not_hit(pieces: list[str]) -> None:
    text = "".join(pieces).encode("utf-8")
    if nothing_to_find(text, VALUES):
        assert SCANNER._search(text, 0) is None, text


@pytest.mark.parametrize(
    "line",
    [
        "true",
        "git status",
        "git log -20 --oneline",  # a flag: scanned, as any "--"
        "pytest -x tests/cli/test_quick.py",
    ],
)
def test_a_redactor_answers_the_same_either_way(line: str) -> None:
    text, found = Redactor(VALUES).redact_text(line)
    scanned, kinds = SCANNER.redact(line.encode(), KeyBlock())
    assert text.encode() == scanned
    assert found.total == len(kinds)


def test_plain_words_build_no_scanner() -> None:
    redactor = Redactor(VALUES)
    assert redactor.redact_text("git status")[0] == "git status"
    assert redactor._scanner is None
    assert redactor.redact_text("curl -u me:hunter2-Xq9vR7mK x")[1].total == 1
    assert redactor._scanner is not None
