"""The pytest plugin (entry point ``pytest11``): options, settings, and one recorder.

Loaded into every pytest run, so it imports nothing heavy and does nothing unless the
agent report is on (``--agent``, ``AGENTOUT_AGENT=1``, ini ``agent = true``, or an agent
detected in the environment). When on, it registers one ``Recorder`` that collects the
run and replaces pytest's terminal report with the agent report (in an xdist worker, a
``WorkerDescriber`` that only describes failures for the controller).
"""

from __future__ import annotations

import os

import pytest

from agentout.sources.testing.settings import ACTIVE, SETTINGS, SettingError, resolve

RECORDER_NAME = "agentout-recorder"
# Set by `agentout test -- CMD` (runners.run_tests): write the run as JSON to this file in
# its private directory instead of printing the report, which agentout renders itself.
RESULTS_ENV_VAR = "AGENTOUT_RESULTS"

# Runs whose terminal output is the point: never replace it.
_INFORMATIONAL = (
    "help",
    "markers",
    "collectonly",
    "showfixtures",
    "show_fixtures_per_test",
    "setuponly",
    "setupplan",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentout", "agent report (agentout)")
    group.addoption(
        ACTIVE.option,
        action="store_const",
        const=True,
        default=None,
        dest="agentout_active",
        help=ACTIVE.help,
    )
    group.addoption(
        "--no-agent",
        action="store_const",
        const=False,
        dest="agentout_active",
        help="Keep pytest's own terminal report even when an agent is detected.",
    )
    for setting in SETTINGS:
        group.addoption(
            setting.option,
            default=None,
            dest=f"agentout_{setting.field}",
            metavar=setting.field.upper(),
            help=f"{setting.help} Env {setting.env}, ini {setting.ini}.",
        )
    parser.addini(ACTIVE.ini, "Turn the agent report on (true) or off (false).", default="")
    for setting in SETTINGS:
        parser.addini(setting.ini, setting.help, default="")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """`agentout test` asks for JUnit XML too, for a pytest without this plugin; with the
    plugin here, its own results say more, so that XML is not written."""
    results = os.environ.get(RESULTS_ENV_VAR)
    xmlpath = getattr(config.option, "xmlpath", None)
    if results and xmlpath and os.path.dirname(xmlpath) == os.path.dirname(results):
        config.option.xmlpath = None


@pytest.hookimpl(trylast=True)  # after the terminal reporter (and xdist) are configured
def pytest_configure(config: pytest.Config) -> None:
    options = {
        setting.field: config.getoption(f"agentout_{setting.field}")
        for setting in (ACTIVE, *SETTINGS)
    }

    def ini(name: str) -> str:
        value = config.getini(name)
        return value if isinstance(value, str) else str(value)

    try:
        settings = resolve(options, os.environ, ini)
    except SettingError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not settings.active or any(config.getoption(o, False) for o in _INFORMATIONAL):
        return
    from agentout.sources.testing import recorder  # only when on

    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        config.pluginmanager.register(recorder.WorkerDescriber(config), RECORDER_NAME)
    else:
        results = os.environ.get(RESULTS_ENV_VAR) or None
        config.pluginmanager.register(recorder.Recorder(config, settings, results), RECORDER_NAME)
