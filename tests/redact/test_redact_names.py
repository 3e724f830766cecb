"""Which variables are secrets, which values are worth hiding, and the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.errors import AgentoutError
from agentout.redact import Redactor
from agentout.redact._names import is_secret_name, secret_values, usable_value


@pytest.mark.parametrize(
    "name",
    [
        "GH_TOKEN",
        "NPM_TOKEN",
        "MY_SECRET",
        "STRIPE_KEY",
        "DB_PASSWORD",
        "SMTP_PASS",
        "AWS_SESSION_TOKEN",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "TOKEN",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["PATH", "HOME", "PWD", "AWS_REGION", "AWS_PROFILE", "KEYBOARD", "gh_token"]
)
def test_names_that_are_not_secrets(name: str) -> None:
    assert not is_secret_name(name)


def test_names_the_user_adds() -> None:
    assert is_secret_name("MY_CREDS", ["MY_CREDS"])
    assert is_secret_name("deploy_cred_1", ["DEPLOY_CRED_*"])
    env = {
        "AGENTOUT_SECRET_NAMES": "MY_CREDS, VAULT_*",
        "MY_CREDS": "s3cr3t-value-1",
        "VAULT_X": "abcdefgh99",
    }
    out, found = Redactor.from_environ(env).redact_text("a s3cr3t-value-1 b abcdefgh99")
    assert out == "a [secret: $MY_CREDS] b [secret: $VAULT_X]"
    assert found.total == 2


def test_values_too_short_common_or_naming_a_file_are_not_hidden(tmp_path: Path) -> None:
    assert not usable_value("short")
    assert not usable_value("true")
    assert not usable_value("localhost")
    assert not usable_value(str(tmp_path))
    assert usable_value(str(tmp_path / "no-such-file"))
    assert usable_value("hunter2hunter2")
    env = {"A_TOKEN": "1", "B_KEY": "localhost", "C_SECRET": "x9y8z7w6v5", "D_PASS": str(tmp_path)}
    assert secret_values(env) == {"x9y8z7w6v5": "C_SECRET"}


def test_multi_line_values_count_line_by_line() -> None:
    env = {"TLS_KEY": "line-one-secret\nline-two-secret\nok"}
    assert secret_values(env) == {"line-one-secret": "TLS_KEY", "line-two-secret": "TLS_KEY"}


def test_the_same_value_in_two_variables_is_named_after_the_first() -> None:
    assert secret_values({"B_TOKEN": "samevalue123", "A_TOKEN": "samevalue123"}) == {
        "samevalue123": "A_TOKEN"
    }


@pytest.mark.parametrize("raw", ["0", "false", "OFF", "no"])
def test_agentout_redact_turns_it_off(raw: str) -> None:
    redactor = Redactor.from_environ({"AGENTOUT_REDACT": raw, "GH_TOKEN": "abcdefgh12345"})
    assert not redactor.enabled
    assert redactor.redact_text("abcdefgh12345")[0] == "abcdefgh12345"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"AGENTOUT_REDACT": "maybe"}, "AGENTOUT_REDACT='maybe': expected 1 or 0"),
        ({"AGENTOUT_SECRET_NAMES": "OK,not a name"}, "'not a name' is not a variable name"),
    ],
)
def test_bad_settings_are_refused_with_their_name(env: dict[str, str], message: str) -> None:
    with pytest.raises(AgentoutError, match=message):
        Redactor.from_environ(env)
