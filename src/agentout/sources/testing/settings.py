"""The agent report's settings, resolved in one place: command line > environment > ini.

Stdlib only: this module is imported by the pytest plugin in every pytest run, so it
must stay cheap. A bad value raises ``SettingError`` naming where it came from
(``--agent-limit``, ``AGENTOUT_LIMIT`` or the ini key ``agent_limit``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AGENT_ENV_VARS",
    "DEFAULT_LIMIT",
    "FOCUS_MODES",
    "FORMATS",
    "MIN_LIMIT",
    "SETTINGS",
    "Setting",
    "SettingError",
    "Settings",
    "agent_detected",
    "resolve",
]

FOCUS_MODES = ("summary", "critical", "first-failure", "failures", "debug")
FORMATS = ("records", "json", "text")
DEFAULT_LIMIT = 5000
# From this budget up the status line, the summary and one failure always fit (see
# report.py); below it the report may hold only the status and last lines, and says
# over_budget=true when even they do not fit.
MIN_LIMIT = 200

# Set by coding agents in the shells they run; any of them, set and not "0"/"false",
# turns the report on. AGENTOUT_AGENT=0|1 overrides the detection either way.
AGENT_ENV_VARS = ("CLAUDECODE", "AI_AGENT", "CURSOR_AGENT", "GEMINI_CLI", "CODEX_SANDBOX")
FORCE_ENV_VAR = "AGENTOUT_AGENT"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class SettingError(ValueError):
    """A setting's value is invalid; the message names the option, variable or ini key."""


@dataclass(frozen=True)
class Settings:
    active: bool
    focus: str = "failures"
    limit: int = DEFAULT_LIMIT
    max_chars: int | None = None
    tokenizer: str = "o200k_base"
    format: str = "records"


@dataclass(frozen=True)
class Setting:
    """One setting's three names and how to read a raw string into its value."""

    field: str
    option: str
    env: str
    ini: str
    help: str
    parse: Callable[[str], Any]


def _choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in choices and value.replace("_", "-") in choices:
            value = value.replace("_", "-")  # first_failure, as Python would spell it
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return value

    return parse


def _count(minimum: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise ValueError("expected a whole number") from None
        if value < minimum:
            raise ValueError(f"must be at least {minimum}")
        return value

    return parse


def _tokenizer(raw: str) -> str:
    from agentout.tokens import get_tokenizer  # only when a tokenizer is named

    value = raw.strip()
    if not value:
        raise ValueError("expected a tokenizer name")
    get_tokenizer(value)  # UnknownTokenizerError (a ValueError) lists the known names
    return value


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError("expected 1 or 0 (true or false)")


SETTINGS = (
    Setting(
        "focus",
        "--agent-focus",
        "AGENTOUT_FOCUS",
        "agent_focus",
        "What the agent report shows: summary, critical, first-failure, failures (default), debug.",
        _choice(FOCUS_MODES),
    ),
    Setting(
        "limit",
        "--agent-limit",
        "AGENTOUT_LIMIT",
        "agent_limit",
        f"Token budget of the agent report (default {DEFAULT_LIMIT}; from {MIN_LIMIT} up it "
        "always shows a failure).",
        _count(1),
    ),
    Setting(
        "max_chars",
        "--agent-max-chars",
        "AGENTOUT_MAX_CHARS",
        "agent_max_chars",
        "Character budget of the agent report, besides the token budget (default: none).",
        _count(1),
    ),
    Setting(
        "tokenizer",
        "--agent-tokenizer",
        "AGENTOUT_TOKENIZER",
        "agent_tokenizer",
        "Tokenizer counting the budget: o200k_base (default), cl100k_base, a model name, "
        "chars4, hf:PATH.",
        _tokenizer,
    ),
    Setting(
        "format",
        "--agent-format",
        "AGENTOUT_FORMAT",
        "agent_format",
        "Format of the agent report: records (default), json, text.",
        _choice(FORMATS),
    ),
)
ACTIVE = Setting(
    "active",
    "--agent",
    FORCE_ENV_VAR,
    "agent",
    "Replace the terminal report with the agent report (default: on when an agent is "
    f"detected: {', '.join(AGENT_ENV_VARS)}).",
    _flag,
)


def agent_detected(environ: Mapping[str, str]) -> bool:
    """Whether the environment says a coding agent runs this process."""
    return any(
        environ.get(name, "").strip().lower() not in ("", *_FALSE) for name in AGENT_ENV_VARS
    )


def _pick(
    setting: Setting,
    option: Any,
    environ: Mapping[str, str],
    ini: Callable[[str], str],
) -> tuple[Any, bool]:
    """The value from the first source that sets it, parsed; (None, False) when none does."""
    sources: list[tuple[str, Any]] = [
        (setting.option, option),
        (setting.env, environ.get(setting.env)),
        (f"{setting.ini} (ini)", ini(setting.ini)),
    ]
    for where, raw in sources:
        if raw is None or raw == "":
            continue
        if not isinstance(raw, str):
            return raw, True  # already typed by the command line parser
        try:
            return setting.parse(raw), True
        except ValueError as exc:
            raise SettingError(f"{where}: {exc}, got {raw!r}") from None
    return None, False


def resolve(
    options: Mapping[str, Any],
    environ: Mapping[str, str],
    ini: Callable[[str], str],
) -> Settings:
    """Settings from parsed command-line ``options`` (None = not given), env and ini.

    ``--agent``/``--no-agent`` > ``AGENTOUT_AGENT`` > ini ``agent`` > agent detection.
    """
    active, given = _pick(ACTIVE, options.get("active"), environ, ini)
    values: dict[str, Any] = {"active": bool(active) if given else agent_detected(environ)}
    for setting in SETTINGS:
        value, given = _pick(setting, options.get(setting.field), environ, ini)
        if given:
            values[setting.field] = value
    return Settings(**values)
