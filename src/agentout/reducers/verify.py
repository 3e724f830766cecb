"""``agentout reducers verify``: every reducer against its cases, every fact checked.

A case is real recorded output: a directory with ``cmd`` (the argv as JSON), ``output``
(or ``output.gz``), ``exit`` and, optionally, ``facts.json``, each a regular file of at
most ``CASE_MAX_BYTES`` (unpacked). Agentout's own reducers are checked against every
recorded case whose command they handle (``cases_root()``); a reducer file lists its own
with ``[[case]] fixture = "DIR"``, a folder inside the file's own (symlinks resolved), and
may say what the result must and must not contain.

Each case goes through the same delivery ``agentout run`` uses, and passes when:

- every fact in ``facts.json``, and every match of each pattern the reducer declares in
  ``facts`` (read by RE2, in linear time), is kept (``agentout.reducers.facts``: one block
  holds all of a fact's values);
- the result costs no more tokens than the raw output;
- a reducer that says its answer is complete keeps every line of the case
  (``agentout.reducers.complete``);
- it contains each ``contains`` string and none of the ``not_contains`` ones.
"""

from __future__ import annotations

import json
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentout.reducers.model import Reducer

__all__ = ["CASES", "Case", "Outcome", "cases_for", "check", "load_case", "owners"]

CASES = "cases"  # agentout's recorded cases, in the package beside the reducers
CASE_MAX_BYTES = 16 << 20  # as much output as a reducer reads (REDUCE_MAX_BYTES)


@dataclass(frozen=True)
class Case:
    """One recorded run of a command."""

    name: str
    argv: tuple[str, ...]
    output: bytes
    exit: int
    facts: tuple[Any, ...] = ()
    contains: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()


@dataclass
class Outcome:
    """How one reducer did on one case."""

    reducer: str
    case: str
    raw_tokens: int = 0
    tokens: int = 0
    form: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "reducer": self.reducer,
            "case": self.case,
            "ok": self.ok,
            "form": self.form,
            "raw_tokens": self.raw_tokens,
            "tokens": self.tokens,
            "problems": self.problems,
        }


def _read(path: Path, within: Path | None) -> bytes:
    """A case's file: inside ``within`` once resolved (when given), a regular file of at
    most ``CASE_MAX_BYTES``; ``InputError`` naming it otherwise."""
    from agentout.read.regular import read_regular
    from agentout.reducers.spec import SpecError

    if within is not None and not path.resolve().is_relative_to(within):
        raise SpecError("outside the reducer's folder; not read", str(path))
    return read_regular(path, CASE_MAX_BYTES)


def _gunzip(data: bytes, path: Path) -> bytes:
    """``output.gz`` unpacked to at most ``CASE_MAX_BYTES`` (a small file can unpack huge)."""
    from agentout.errors import InputError

    unpacker = zlib.decompressobj(wbits=31)
    try:
        output = unpacker.decompress(data, CASE_MAX_BYTES + 1)
    except zlib.error as exc:
        raise InputError(f"not gzip data ({exc})", str(path)) from None
    if len(output) > CASE_MAX_BYTES:
        raise InputError(f"unpacks to over {CASE_MAX_BYTES:,} bytes", str(path))
    if not unpacker.eof:
        raise InputError("gzip data cut short", str(path))
    return output


def load_case(folder: Path, name: str | None = None, *, within: Path | None = None) -> Case:
    """A recorded case from its directory (``InputError`` naming the file if broken);
    ``within``: every file read must resolve inside that folder."""
    from agentout.errors import InputError
    from agentout.reducers.facts import loads

    try:
        argv = json.loads(_read(folder / "cmd", within))
        packed = folder / "output.gz"
        output = (
            _gunzip(_read(packed, within), packed)
            if packed.exists()
            else _read(folder / "output", within)
        )
        status = int(_read(folder / "exit", within).decode("utf-8").strip() or 0)
    except (OSError, ValueError) as exc:
        raise InputError(f"not a recorded case ({exc})", str(folder)) from None
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise InputError("cmd: expected the argv as a JSON list of strings", str(folder / "cmd"))
    facts_file = folder / "facts.json"
    try:
        facts = (
            tuple(loads(_read(facts_file, within).decode("utf-8"), str(facts_file)))
            if facts_file.exists()
            else ()
        )
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read ({exc})", str(facts_file)) from None
    return Case(name or folder.name, tuple(argv), output, status, facts)


def cases_root() -> Path | None:
    """Where agentout's recorded cases are: in the installed package, or, in a checkout
    of the repository, its test fixtures."""
    here = Path(__file__).resolve().parent
    for folder in (here / CASES, here.parents[2] / "tests" / "fixtures" / "commands"):
        if folder.is_dir():
            return folder
    return None


def builtin_cases() -> Iterator[Case]:
    """Every case recorded for agentout's own reducers (``family/name``)."""
    root = cases_root()
    if root is None:
        return
    for family in sorted(p for p in root.iterdir() if p.is_dir()):
        for case in sorted(p for p in family.iterdir() if p.is_dir()):
            yield load_case(case, f"{family.name}/{case.name}")


def owners(recorded: Sequence[Case]) -> dict[str, str | None]:
    """The name of the reducer that reads each recorded case (by case name), looked up
    once for all the reducers verified."""
    from agentout.reducers import find

    found = {}
    for case in recorded:
        chosen = find(case.argv)
        found[case.name] = None if chosen is None else chosen.name
    return found


def cases_for(
    reducer: Reducer, recorded: Sequence[Case], owned: dict[str, str | None] | None = None
) -> list[Case]:
    """The cases ``reducer`` handles: its own ``[[case]]`` list, or the recorded ones
    whose command is first matched by it (``owned``: ``owners(recorded)``)."""
    own = getattr(reducer, "cases", ())
    if own:
        from agentout.reducers.spec import SpecError

        path = str(getattr(reducer, "path", "."))
        base = Path(path).parent.resolve()
        found = []
        for listed in own:
            folder = base / listed.fixture
            if not folder.resolve().is_relative_to(base):
                raise SpecError(
                    f"case fixture {listed.fixture!r} is outside the reducer's folder", path
                )
            case = load_case(folder, listed.fixture, within=base)
            found.append(
                Case(
                    case.name,
                    case.argv,
                    case.output,
                    case.exit,
                    case.facts,
                    listed.contains,
                    listed.not_contains,
                )
            )
        return found
    owned = owners(recorded) if owned is None else owned
    return [case for case in recorded if owned.get(case.name) == reducer.name]


def check(reducer: Reducer, case: Case) -> Outcome:
    """``case`` delivered as ``agentout run`` would, with ``reducer`` (see the module)."""
    from agentout.deliver.limits import CLIENT_LIMIT_CHARS
    from agentout.deliver.text import TextSettings, deliver_output
    from agentout.deliver.whole import lines_of
    from agentout.reducers.complete import dropped_line
    from agentout.reducers.facts import extract, lost
    from agentout.reducers.model import Output, command_words
    from agentout.reducers.spec import SpecError, compile_pattern
    from agentout.store.capture import Capture
    from agentout.store.spill import SpillStore
    from agentout.tokens import count

    outcome = Outcome(reducer.name, case.name)
    with tempfile.TemporaryDirectory(prefix="agentout-verify-") as scratch:
        limit = CLIENT_LIMIT_CHARS  # as agentout run delivers it to Claude Code
        capture = Capture(threshold=limit, store=SpillStore(Path(scratch) / "spill"))
        capture.feed(case.output)
        capture.close()
        delivered = deliver_output(
            capture,
            TextSettings(limit),
            argv=case.argv,
            exit_status=case.exit,
            header={"exit": case.exit},
            reducer=reducer,
        )
    text = delivered.text
    raw = case.output.decode("utf-8", "replace")
    outcome.form = delivered.form
    outcome.raw_tokens, outcome.tokens = count(raw), count(text)
    if outcome.tokens > outcome.raw_tokens:
        outcome.problems.append(f"{outcome.tokens} tokens, more than the raw {outcome.raw_tokens}")
    declared = []
    for i, pattern in enumerate(reducer.facts):
        try:
            regex = compile_pattern(pattern, f"facts[{i}]", getattr(reducer, "path", reducer.name))
        except SpecError as exc:
            outcome.problems.append(str(exc))
            continue
        declared.extend(extract(regex, raw, label=pattern))
    for fact in lost([*case.facts, *declared], text):
        outcome.problems.append(f"lost {fact.label}: {', '.join(fact.values)}")
    lines = lines_of(case.output, None)
    answer = reducer.reduce(Output(case.argv, command_words(case.argv), lines, case.exit))
    if answer is not None and answer.complete:
        missing = dropped_line(lines, answer)
        if missing is not None:
            outcome.problems.append(
                f"says it is complete, but leaves out line {missing}: {lines[missing - 1]!r}"
            )
    for wanted in case.contains:
        if wanted not in text:
            outcome.problems.append(f"does not contain {wanted!r}")
    for unwanted in case.not_contains:
        if unwanted in text:
            outcome.problems.append(f"contains {unwanted!r}")
    return outcome
