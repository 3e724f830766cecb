"""The recorded command outputs of tests/fixtures/commands/, for the reducers' tests (the
wheel ships them as ``agentout/reducers/cases``, for ``agentout reducers verify``).

Each fixture is one real run of one command of the shell corpus (bench/shell/cases.py),
recorded by scripts/record_command_fixtures.py:

    from command_fixtures import fixtures
    for fixture in fixtures("git"):
        fixture.argv, fixture.output, fixture.exit, fixture.facts
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from agentout.reducers.facts import Fact, loads

COMMANDS = Path(__file__).resolve().parent / "fixtures" / "commands"


@dataclass(frozen=True)
class Fixture:
    path: Path

    @property
    def family(self) -> str:
        return self.path.parent.name

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def id(self) -> str:
        return f"{self.family}/{self.name}"

    @cached_property
    def argv(self) -> list[str]:
        value = json.loads((self.path / "cmd").read_text(encoding="utf-8"))
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ValueError(f"{self.id}/cmd: not a JSON list of strings")
        return value

    @cached_property
    def output(self) -> bytes:
        """The raw bytes as recorded (output.gz is read back decompressed)."""
        plain = self.path / "output"
        if plain.exists():
            return plain.read_bytes()
        return gzip.decompress((self.path / "output.gz").read_bytes())

    @cached_property
    def exit(self) -> int:
        return int((self.path / "exit").read_text(encoding="utf-8").strip())

    @cached_property
    def facts(self) -> list[Fact]:
        facts_json = self.path / "facts.json"
        return loads(facts_json.read_text(encoding="utf-8"), str(facts_json))


def fixtures(family: str | None = None) -> list[Fixture]:
    """Every recorded fixture (or one family's), sorted by family then name."""
    pattern = f"{family}/*" if family else "*/*"
    return [Fixture(path) for path in sorted(COMMANDS.glob(pattern)) if path.is_dir()]
