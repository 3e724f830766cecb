"""The ``agentout`` entry point. Commands load lazily, so ``--help`` stays fast.

Each command lives in its own module under ``agentout.cli`` and is registered here by
name; a command module parses its options, calls the library and prints.
"""

from __future__ import annotations

import importlib
import importlib.util

import click

# name -> "module:attribute". A module that is not there yet is left out of the list.
COMMANDS: dict[str, str] = {
    "count": "agentout.cli.count:count",
    "fit": "agentout.cli.fit:fit",
    "test": "agentout.cli.test:test",
    "run": "agentout.cli.run:run",
    "show": "agentout.cli.show:show",
    "clean": "agentout.cli.clean:clean",
    "records": "agentout.cli.records:records",
    "notes": "agentout.cli.notes:notes",
    "serve": "agentout.cli.serve:serve",
    "reducers": "agentout.cli.reducers:reducers",
    "hook": "agentout.cli.hook:hook",
    "init": "agentout.cli.init:init",
    "gain": "agentout.cli.gain:gain",
    "discover": "agentout.cli.discover:discover",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        present = [name for name, target in COMMANDS.items() if _exists(target)]
        return sorted(present)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None or not _exists(target):
            return None
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command


def _exists(target: str) -> bool:
    return importlib.util.find_spec(target.split(":")[0]) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agentout", prog_name="agentout")
def cli() -> None:
    """Program output for AI agents: within their token budget, nothing lost."""


def main() -> None:
    cli(prog_name="agentout")
