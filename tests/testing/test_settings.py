from __future__ import annotations

import pytest

from agentout.sources.testing.settings import (
    AGENT_ENV_VARS,
    DEFAULT_LIMIT,
    MIN_LIMIT,
    SettingError,
    Settings,
    agent_detected,
    resolve,
)


def _ini(values: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda name: values.get(name, "")


def test_defaults_are_off_with_nothing_set() -> None:
    settings = resolve({}, {}, _ini({}))
    assert settings == Settings(active=False)
    assert settings.limit == DEFAULT_LIMIT


@pytest.mark.parametrize("name", AGENT_ENV_VARS)
def test_each_agent_variable_turns_the_report_on(name: str) -> None:
    assert agent_detected({name: "1"})
    assert resolve({}, {name: "1"}, _ini({})).active


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_an_agent_variable_set_to_nothing_or_false_is_not_an_agent(value: str) -> None:
    assert not agent_detected({"CLAUDECODE": value})


def test_force_variable_beats_detection_both_ways() -> None:
    assert not resolve({}, {"CLAUDECODE": "1", "AGENTOUT_AGENT": "0"}, _ini({})).active
    assert resolve({}, {"AGENTOUT_AGENT": "1"}, _ini({})).active


def test_ini_off_beats_detection_but_not_the_environment_or_command_line() -> None:
    ini = _ini({"agent": "false"})
    assert not resolve({}, {"CLAUDECODE": "1"}, ini).active
    assert resolve({}, {"AGENTOUT_AGENT": "1"}, ini).active
    assert resolve({"active": True}, {}, ini).active
    assert not resolve({"active": False}, {"AGENTOUT_AGENT": "1"}, ini).active


def test_command_line_beats_environment_beats_ini() -> None:
    ini = _ini({"agent_limit": "3000", "agent_focus": "debug", "agent_format": "json"})
    env = {"AGENTOUT_LIMIT": "2000", "AGENTOUT_FOCUS": "critical"}
    settings = resolve({"limit": "1000"}, env, ini)
    assert (settings.limit, settings.focus, settings.format) == (1000, "critical", "json")


@pytest.mark.parametrize(
    ("options", "env", "ini", "where"),
    [
        ({"limit": "lots"}, {}, {}, "--agent-limit"),
        ({}, {"AGENTOUT_LIMIT": "0"}, {}, "AGENTOUT_LIMIT"),
        ({}, {}, {"agent_focus": "everything"}, "agent_focus (ini)"),
        ({}, {"AGENTOUT_FORMAT": "xml"}, {}, "AGENTOUT_FORMAT"),
        ({}, {"AGENTOUT_AGENT": "maybe"}, {}, "AGENTOUT_AGENT"),
        ({"tokenizer": "no-such-tokenizer"}, {}, {}, "--agent-tokenizer"),
    ],
)
def test_a_bad_value_names_where_it_came_from(
    options: dict[str, str], env: dict[str, str], ini: dict[str, str], where: str
) -> None:
    with pytest.raises(SettingError) as error:
        resolve(options, env, _ini(ini))
    assert str(error.value).startswith(f"{where}: ")


def test_a_small_limit_is_taken_and_nothing_under_one() -> None:
    assert resolve({"limit": str(MIN_LIMIT)}, {}, _ini({})).limit == MIN_LIMIT
    assert resolve({"limit": "12"}, {}, _ini({})).limit == 12  # said over_budget, not refused
    with pytest.raises(SettingError, match="at least 1"):
        resolve({"limit": "0"}, {}, _ini({}))


def test_focus_accepts_first_failure_spelled_with_an_underscore() -> None:
    assert resolve({"focus": "first_failure"}, {}, _ini({})).focus == "first-failure"
    assert resolve({}, {"AGENTOUT_FOCUS": "FIRST_FAILURE"}, _ini({})).focus == "first-failure"
    with pytest.raises(SettingError, match="expected one of"):
        resolve({"focus": "first__failure"}, {}, _ini({}))
