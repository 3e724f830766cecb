"""Which environment variables hold secrets, and which of their values are worth hiding.

The names follow the usual conventions (``*_TOKEN``, ``*_SECRET``, ``*_KEY``,
``*_PASSWORD``, ``*_PASS``, ``AWS_*`` and the well-known API key names), plus the names a
user adds in ``AGENTOUT_SECRET_NAMES`` (comma-separated, ``*`` matches any run of
characters). Their values are then hidden wherever they appear, as GitHub Actions masks its
secrets. A value is skipped when hiding it would hide facts instead: shorter than
``MIN_VALUE_LENGTH``, a common word (``true``, ``localhost``), or the name of an existing
file or directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from agentout.errors import AgentoutError

__all__ = [
    "ENV_NAMES",
    "ENV_SWITCH",
    "MIN_VALUE_LENGTH",
    "PUBLIC_AWS",
    "extra_names",
    "is_secret_name",
    "kind_of_name",
    "matches_any",
    "redaction_enabled",
    "secret_values",
    "usable_value",
]

ENV_SWITCH = "AGENTOUT_REDACT"
ENV_NAMES = "AGENTOUT_SECRET_NAMES"
MIN_VALUE_LENGTH = 8

# A conventional secret's name: upper case, digits and "_", ending with one of these words
# (after "_", or alone), or starting with AWS_ (ANTHROPIC_API_KEY, GH_TOKEN, NPM_TOKEN, ...).
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_NAME_WORDS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASS")
_NAME_ENDS = tuple("_" + word for word in _NAME_WORDS)
# AWS_* settings that name a place or a choice, not a credential: hiding their values
# (a region, a profile name, a file) would hide facts an agent needs.
PUBLIC_AWS = frozenset(
    {
        "AWS_CA_BUNDLE",
        "AWS_CONFIG_FILE",
        "AWS_DEFAULT_OUTPUT",
        "AWS_DEFAULT_PROFILE",
        "AWS_DEFAULT_REGION",
        "AWS_ENDPOINT_URL",
        "AWS_EXECUTION_ENV",
        "AWS_MAX_ATTEMPTS",
        "AWS_PAGER",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_RETRY_MODE",
        "AWS_SDK_LOAD_CONFIG",
        "AWS_SHARED_CREDENTIALS_FILE",
    }
)
# Values no secret has: hiding every "localhost" in an output would only hide facts.
_COMMON = frozenset(
    {
        "changeme",
        "default",
        "disabled",
        "enabled",
        "false",
        "localhost",
        "none",
        "null",
        "password",
        "true",
        "undefined",
    }
)
_EXTRA_NAME = r"[A-Za-z_*][A-Za-z0-9_*]*\Z"
_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"0", "false", "no", "off"})


def redaction_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``AGENTOUT_REDACT`` says off (``0``, ``false``, ``no``, ``off``)."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_SWITCH, "").strip().lower()
    if raw in _OFF:
        return False
    if raw in _ON or not raw:
        return True
    raise AgentoutError(
        f"{ENV_SWITCH}={env.get(ENV_SWITCH)!r}: expected 1 or 0 (also on/off, true/false)"
    )


def extra_names(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The names (or ``*`` patterns) listed in ``AGENTOUT_SECRET_NAMES``."""
    env = os.environ if environ is None else environ
    names = tuple(n.strip() for n in env.get(ENV_NAMES, "").split(",") if n.strip())
    if not names:
        return names
    import re  # only when names are configured

    for name in names:
        if not re.match(_EXTRA_NAME, name):
            raise AgentoutError(
                f"{ENV_NAMES}: {name!r} is not a variable name "
                "(letters, digits, '_', and '*' for any run of them)"
            )
    return names


def is_secret_name(name: str, extra: Iterable[str] = ()) -> bool:
    """Whether a variable of this name holds a secret: an upper-case name of the usual
    shapes, or one of ``extra`` (any case)."""
    if extra and matches_any(name, extra):
        return True
    if name in PUBLIC_AWS or not _NAME_CHARS.issuperset(name):
        return False
    if name.startswith("AWS_"):
        return len(name) > 4
    return name in _NAME_WORDS or name.endswith(_NAME_ENDS)


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    """Whether ``name`` is one of ``patterns`` (``*`` for any run of characters, any case)."""
    import fnmatch  # only when names are configured

    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def kind_of_name(name: str) -> str:
    """The marker's word for a value found under this name: password, token, key, secret."""
    upper = name.upper()
    for word, kind in (
        ("PASS", "password"),
        ("PWD", "password"),
        ("CONTRAS", "password"),
        ("TOKEN", "token"),
        ("KEY", "key"),
    ):
        if word in upper:
            return kind
    return "secret"


def usable_value(value: str) -> bool:
    """Whether hiding ``value`` everywhere it appears hides a secret rather than facts."""
    value = value.strip()
    if len(value) < MIN_VALUE_LENGTH or value.lower() in _COMMON:
        return False
    if os.sep in value or value.startswith(("~", ".")):
        try:
            return not os.path.exists(os.path.expanduser(value))
        except (OSError, ValueError):
            return True
    return True


def secret_values(
    environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()
) -> dict[str, str]:
    """Each usable secret value of the environment, with the variable that holds it.

    A value of several lines counts line by line, as GitHub Actions masks them. When two
    variables hold the same value, the name first in sorted order is kept.
    """
    env = os.environ if environ is None else environ
    patterns = tuple(extra)
    found: dict[str, str] = {}
    for name in sorted(env):
        if name.startswith("AGENTOUT_") or not is_secret_name(name, patterns):
            continue
        for line in env[name].splitlines():
            value = line.strip()
            if usable_value(value) and value not in found:
                found[value] = name
    return found
