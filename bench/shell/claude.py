"""The held-out corpora through the real Claude Code client (tests/claude_code.py): each
case's own output beside what the model reads of it with agentout and without, in one
session a folder. Used by bench/bench_claude.py and bench/bench_signal.py."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from agentout.reducers.facts import Fact, lost
from agentout.tokens import count
from shell.capture import capture
from shell.cases import Case
from shell.workspace import ROOT, Workspace

sys.path.insert(0, str(ROOT / "tests"))
from claude_code import VERSION, Sandbox, sandbox

__all__ = ["VERSION", "Reached", "Sandbox", "client_env", "command_of", "sandbox", "through_client"]

# What of the workspace's environment the client's commands get (their home, caches and
# agentout's store are the sandbox's own).
_CLIENT_ENV = ("LANG", "LC_ALL", "TZ", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
               "PYTHONDONTWRITEBYTECODE", "PIP_DISABLE_PIP_VERSION_CHECK", "PIP_NO_INPUT",
               "CARGO_NET_OFFLINE", "RUSTUP_HOME", "CARGO_HOME", "JAVA_HOME")  # fmt: skip


@dataclass(frozen=True)
class Reached:
    case: Case
    facts: tuple[Fact, ...]
    raw: str
    exit: int
    plain: str  # what the model reads with no agentout
    model: str  # what the model reads with agentout

    def kept(self, text: str) -> int:
        """The facts ``text`` keeps; the client's own first line for a failing command
        (``Exit code N``) is not the output's, and is left out of the reading."""
        text = re.sub(r"\AExit code \d+\n", "", text)
        return len(self.facts) - len(list(lost(self.facts, text.encode())))


def command_of(case: Case) -> str:
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in case.env)
    return f"{env} {shlex.join(case.argv)}".strip()


def client_env(ws: Workspace) -> dict[str, str]:
    return {k: v for k, v in ws.env.items() if k in _CLIENT_ENV}


def through_client(
    ws: Workspace, cases: Sequence[Case], box: Sandbox, plain: Sandbox, label: str
) -> list[Reached]:
    """Each case's own output, then the calls of each folder in one session of each
    client (with agentout in ``box``, without in ``plain``), every case reset before each
    run; ``label`` names the benchmark in the lines on stderr."""
    reached: list[Reached] = []
    folders: dict[str, list[Case]] = {}
    for case in cases:
        folders.setdefault(case.cwd, []).append(case)
    env = client_env(ws)
    for folder, group in folders.items():
        cwd = ws.root / folder
        own = {}
        for case in group:
            case.reset(ws.root)
            done = capture(["bash", "-c", command_of(case)], cwd, ws.env)
            own[case.name] = done
        outputs = {}
        for which, client in (("plain", plain), ("agentout", box)):
            for case in group:
                case.reset(ws.root)
            session = client.session([command_of(c) for c in group], env=env, cwd=cwd)
            outputs[which] = [r.content for r in session.results]
        for index, case in enumerate(group):
            raw = own[case.name].output.decode("utf-8", "replace")
            reached.append(
                Reached(
                    case, tuple(case.facts(raw)), raw, own[case.name].exit,
                    outputs["plain"][index], outputs["agentout"][index],
                )
            )  # fmt: skip
            r = reached[-1]
            print(
                f"bench: {label}: {case.name}: raw {count(raw)}, plain {count(r.plain)} "
                f"({r.kept(r.plain)}/{len(r.facts)}), agentout {count(r.model)} "
                f"({r.kept(r.model)}/{len(r.facts)})",
                file=sys.stderr,
            )
    return reached
