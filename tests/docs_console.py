"""Every ```console block of README.md and docs/: run, and compared with what the page shows.

    .venv/bin/python tests/docs_console.py [--update] [PAGE...]

checks the pages (all of them by default) and, with ``--update``, writes the outputs of
real runs back into them. ``tests/test_docs_console.py`` runs the check for each page.

A block is a shell session: each ``$ command`` (``[name] $ command`` runs it on another
"machine", with a home of its own) runs in one bash, in order, so a ``cd`` or a file one
command writes is there for the next; the lines up to the next prompt are what it
printed, stdout and stderr together. The commands of one page share a sandbox: a private
HOME (shown as ``/home/me``, ``~``), a private ``/tmp`` (paths under ``/tmp/`` in a command
are inside it) and the spill store ``/tmp/agentout-docs/spill``; ``agentout`` is on PATH as
``~/.local/bin/agentout``. Nothing runs outside it, nothing touches the network.

What legitimately varies is not compared: the 16 hex digits of a spill reference (each
reference of the page is mapped to the one the run produced, and later commands of the
page use that one), timings (``0.42s``, ``21ms``) and the token counts they shift, and
what a block declares with ``vary``. A line ``...`` stands for any lines, a
line ending in `` ...`` for any line that starts as it does; a last line ``[exit N]``
that the command did not print says its exit status.

An HTML comment just before a block gives it what it needs, unseen by a reader::

    <!-- console: cwd=/tmp/shop setup="examples/docs/shop.sh /tmp/shop" env="A=1" -->

- ``cwd=DIR``: where the commands start (a path in the repository, or a sandbox path
  ``/tmp/...``, ``~/...``); the repository root by default;
- ``setup=COMMAND``: run first, in that directory (a script path is taken from the
  repository: ``examples/docs/NAME.sh ARGS``); what it prints is not compared, but the
  spill references it prints stand for the page's references its commands name first;
- ``env="NAME=VALUE ..."``: more environment;
- ``vary=REGEX`` (repeatable, or ``dates`` for ISO dates and clock times): spans that
  differ from run to run;
- ``optional=REGEX`` (repeatable): spans a run may print or not, as a detail a budget
  holds by a token or two (`` origin=\\S+``);
- ``stop=N``: the commands serve until stopped; each is stopped (SIGTERM) once it has
  printed N lines;
- ``port=N``: N in the commands, the setup and ``env`` is a free loopback port of this run;
- ``stream=stdout`` or ``stream=stderr``: the block shows only that stream of its
  commands (both, as a terminal shows them, by default);
- ``s3=BUCKET``: a real S3 (moto's server, on loopback) with that bucket, and the AWS
  environment that reaches it;
- ``skip=REASON``: the block cannot run on a machine like this one; the reason says why.
"""

from __future__ import annotations

import contextlib
import difflib
import logging
import os
import random
import re
import shlex
import shutil
import signal
import socket
import string
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DOC_HOME = "/home/me"
DOC_REPO = "/home/me/src/agentout"
DOC_TMP = "/tmp/agentout-docs"  # the sandbox, as the pages show it
SPILL = f"{DOC_TMP}/spill"
_DOC_STDLIB = "/usr/lib/python{}.{}".format(*sys.version_info[:2])
_OPTIONAL = "\x01"  # marks an ``optional`` pattern among a block's ``vary`` ones
COMMAND_TIMEOUT = 180  # seconds for one command of a block, whatever it runs

_PROMPT = re.compile(r"^(?:\[(?P<machine>[\w-]+)\] )?\$ (?P<command>.*)$")
_NOTE = re.compile(r"<!--\s*console:(?P<options>.*?)-->", re.DOTALL)
REF = r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])"
_TIMING = r"(?<![\w.])\d+(?:\.\d+)?(?:ms|s|µs|μs|us|ns)(?![\w])"
_TOKENS = r"(?<=tokens=)\d+|(?<=\"tokens\":)\d+|\d[\d,]*(?= tokens\b)"
_DATES = r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}Z?)?|(?<!\d)\d{2}-\d{2} \d{2}:\d{2}(?!\d)"
_ELIDED = {"..."}
# Where the commands' environment comes from: nothing of the user's but the toolchains'
# caches (the test suite's conftest keeps the same ones).
_KEPT_ENV = ("PATH", "RUSTUP_HOME", "CARGO_HOME", "MAVEN_OPTS", "JAVA_HOME", "LANG")


@dataclass(frozen=True)
class Command:
    machine: str | None  # "[name] $ ..." runs with a home of that name
    text: str
    output: list[str]  # the lines the page shows under it
    line: int  # 0-based line of the prompt in the page


@dataclass(frozen=True)
class Options:
    cwd: str | None = None
    setup: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    vary: tuple[str, ...] = ()
    stop: int | None = None
    port: int | None = None
    s3: str | None = None
    stream: str = "both"
    skip: str | None = None


@dataclass(frozen=True)
class Block:
    page: Path
    start: int  # 0-based line of the opening fence
    end: int  # 0-based line of the closing fence
    options: Options
    commands: list[Command]
    indent: str = ""  # of the fence, and so of every line in it

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.start + 1}"


class Stuck(RuntimeError):
    """A command that did not finish in time (its block is stopped there)."""


class BadNote(ValueError):
    """An annotation the harness cannot read: the page's line and why."""


def pages() -> list[Path]:
    """README.md and every page under docs/, in path order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """The console blocks of a page, with their annotations and commands."""
    from markdown_it import MarkdownIt

    text = page.read_text(encoding="utf-8")
    lines = text.split("\n")
    found = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.info.strip() != "console" or token.map is None:
            continue
        start, end = token.map[0], token.map[1] - 1
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        commands = _commands(lines, start, end, len(indent))
        found.append(Block(page, start, end, _note(page, lines, start), commands, indent))
    return found


def _note(page: Path, lines: list[str], start: int) -> Options:
    """The annotation that ends on the line just before the fence, if any."""
    if start == 0 or not lines[start - 1].rstrip().endswith("-->"):
        return Options()
    first = start - 1
    while first > 0 and "<!--" not in lines[first]:
        first -= 1
    match = _NOTE.search("\n".join(lines[first:start]))
    if match is None:
        return Options()
    where = f"{page.relative_to(ROOT)}:{first + 1}"
    values: dict[str, str] = {}
    vary: list[str] = []
    for word in shlex.split(match["options"]):
        name, equals, value = word.partition("=")
        if not equals or (name not in Options.__dataclass_fields__ and name != "optional"):
            raise BadNote(f"{where}: expected NAME=VALUE with a NAME of Options, got {word!r}")
        if name == "vary":
            vary.append(value)
        elif name == "optional":
            vary.append(_OPTIONAL + value)
        else:
            values[name] = value
    env = dict(pair.split("=", 1) for pair in shlex.split(values.pop("env", "")))
    numbers = {name: int(values.pop(name)) for name in ("stop", "port") if name in values}
    return Options(env=env, vary=tuple(vary), **numbers, **values)  # type: ignore[arg-type]


def _commands(lines: list[str], start: int, end: int, indent: int) -> list[Command]:
    commands: list[Command] = []
    for index in range(start + 1, end):
        line = lines[index][indent:].rstrip()  # a block in a list item is indented
        prompt = _PROMPT.match(line)
        if prompt is not None:
            commands.append(Command(prompt["machine"], prompt["command"], [], index))
        elif commands:
            commands[-1].output.append(line)
    for command in commands:
        while command.output and not command.output[-1].strip():
            command.output.pop()
    return commands


# --- running ---------------------------------------------------------------------------


def make_sandbox() -> Path:
    """A new private folder for a page, named so that its path costs what the pages'
    ``/tmp/agentout-docs`` costs: as many characters, as many tokens where a spill path
    is printed. A budget then holds the same lines here as for a reader (the store's
    path is part of what a budget counts)."""
    from agentout.tokens import get_tokenizer

    count = get_tokenizer(None).count
    top = Path(tempfile.gettempdir())

    def costs(path: str) -> list[int]:
        return [count(f"F full={path}/spill/test-0123456789abcdef.txt"),
                count(f"in {path}/spill (removed"),
                count(f'"spill":"{path}/spill/records-0123456789abcdef.jsonl"')]  # fmt: skip

    wanted = costs(DOC_TMP)
    for _ in range(10_000):
        name = "agentout-" + "".join(random.choices(string.ascii_lowercase + string.digits, k=4))
        if len(str(top / name)) != len(DOC_TMP) or costs(str(top / name)) != wanted:
            continue
        with contextlib.suppress(FileExistsError):
            (top / name).mkdir(mode=0o700)
            return top / name
    raise RuntimeError(f"no free sandbox name like {DOC_TMP} under {top}")


class Sandbox:
    """One page's private world (made by ``make_sandbox``): its homes, its /tmp, its
    store, and the page's references mapped to this run's."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.refs: dict[str, str] = {}  # the page's reference -> this run's
        self.pending: list[str] = []  # references the setup printed, not yet named
        self.setup: Ran | None = None  # what the last block's setup printed
        for folder in ("home/.local/bin", "tmp", "spill", "run"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        link = root / "home/.local/bin/agentout"
        if not link.is_symlink():
            link.symlink_to(BIN / "agentout")

    def home(self, machine: str | None) -> Path:
        return self.root / "home" if machine is None else self.root / "homes" / machine

    def to_run(self, text: str) -> str:
        """Text of the page as it runs here: its sandbox paths made real."""
        real = {DOC_REPO: str(ROOT), DOC_HOME: str(self.home(None)), DOC_TMP: str(self.root)}
        real["/tmp"] = f"{self.root}/tmp"
        pattern = "|".join(re.escape(shown) for shown in real)  # one pass, longest first
        return re.sub(rf"(?<![\w./-])(?:{pattern})(?![\w.-])", lambda m: real[m.group()], text)

    def to_page(self, text: str) -> tuple[str, list[tuple[str, str]]]:
        """What a run printed, its paths as the page shows them, and each path swapped
        (as printed, as shown) once for each time it was."""
        swaps = [(self.root / "home", DOC_HOME), (self.root / "tmp", "/tmp"), (ROOT, DOC_REPO)]
        swaps += [(self.root, DOC_TMP)]
        swaps += [(path, DOC_HOME) for path in sorted((self.root / "homes").glob("*"))]
        swaps += [(BIN / "agentout", f"{DOC_HOME}/.local/bin/agentout")]
        swaps += [(Path(sysconfig.get_paths()["stdlib"]), _DOC_STDLIB)]
        swaps += [(path.resolve(), shown) for path, shown in swaps]
        swapped: list[tuple[str, str]] = []
        for path, shown in sorted(set(swaps), key=lambda swap: -len(str(swap[0]))):
            swapped += [(str(path), shown)] * text.count(str(path))
            text = text.replace(str(path), shown)
        return text, swapped

    def with_refs(self, text: str) -> str:
        """A command with the page's references replaced by this run's; a reference the
        page has not shown yet stands for the next one the setup printed."""

        def swap(match: re.Match[str]) -> str:
            ref = match.group()
            if ref not in self.refs and self.pending:
                self.refs[ref] = self.pending.pop(0)
            return self.refs.get(ref, ref)

        return re.sub(REF, swap, text)


@dataclass(frozen=True)
class Ran:
    output: list[str]  # as the page would show it, sandbox paths swapped back
    status: int
    swapped: tuple[tuple[str, str], ...] = ()  # paths printed one way, shown another


class Session:
    """One bash for a block: the commands run in it one at a time, as typed at a prompt."""

    def __init__(self, block: Block, sandbox: Sandbox) -> None:
        self.block, self.sandbox = block, sandbox
        self.out = sandbox.root / "run"
        for stale in self.out.iterdir():
            stale.unlink()
        self.port = _free_port() if block.options.port is not None else None
        self.env = _environment(sandbox, block.options)
        if self.port is not None:  # the port in the block's own variables too
            for name in block.options.env:
                self.env[name] = self.env[name].replace(str(block.options.port), str(self.port))
        self.s3 = _S3(block.options.s3, self.env) if block.options.s3 else None
        cwd = block.options.cwd or "."
        where = (
            Path(sandbox.to_run(cwd.replace("~", DOC_HOME, 1))) if cwd[0] in "/~" else ROOT / cwd
        )
        where.mkdir(parents=True, exist_ok=True)
        self.bash = subprocess.Popen(
            ["bash", "--norc", "--noprofile"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=where,
            env=self.env,
            text=True,
            start_new_session=True,
        )
        self.number = 0

    def _send(self, text: str) -> None:
        assert self.bash.stdin is not None
        self.bash.stdin.write(text + "\n")
        self.bash.stdin.flush()

    def _real(self, text: str) -> str:
        text = self.sandbox.to_run(text)
        if self.port is not None:
            text = text.replace(str(self.block.options.port), str(self.port))
        return text

    def setup(self) -> None:
        if not self.block.options.setup:
            return
        setup = self.block.options.setup
        first, _, rest = setup.partition(" ")
        runner = {".sh": "bash", ".py": shlex.quote(sys.executable)}.get(Path(first).suffix)
        if runner and (ROOT / first).is_file():  # the script's real path is not mapped again
            setup = f"{runner} {shlex.quote(str(ROOT / first))} {self._real(rest)}"
        else:  # (a clone under /tmp would have its path taken for the page's /tmp)
            setup = self._real(setup)
        ran = self._run(setup, None, "both")
        self.sandbox.setup = ran
        self.sandbox.pending = re.findall(REF, "\n".join(ran.output))

    def run(self, command: Command) -> Ran:
        text = self.sandbox.with_refs(self._real(command.text))
        if command.machine is not None:  # another machine: its own home, its own store
            home = shlex.quote(str(self.sandbox.home(command.machine)))
            text = f"(mkdir -p {home}; export HOME={home}; unset AGENTOUT_SPILL_DIR\n{text}\n)"
        return self._run(text, self.block.options.stop, self.block.options.stream)

    def _run(self, text: str, stop: int | None, stream: str) -> Ran:
        out = self.out / str(self.number)
        self.number += 1
        streams = {"both": f"> {out} 2>&1", "stdout": f"> {out} 2>/dev/null"}
        streams["stderr"] = f"2> {out} >/dev/null"
        into = streams[stream]
        if stop is None:
            self._send(  # $? stays the command's, for an `echo $?` after it
                f"{{ {text}\n}} < /dev/null {into}; __rc=$?; echo $__rc > {out}.rc; (exit $__rc)"
            )
        else:  # a server, in a session of its own: stopped once it said what the page shows
            Path(f"{out}.sh").write_text(text + "\n", encoding="utf-8")
            self._send(
                f"setsid bash {out}.sh < /dev/null {into} & job=$!\n"
                f"for _ in $(seq 600); do [ $(wc -l < {out}) -ge {stop} ] && break; sleep 0.1;"
                f' done; kill -TERM -- "-$job" 2>/dev/null; wait "$job"; echo $? > {out}.rc'
            )
        rc = Path(f"{out}.rc")
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while not (rc.exists() and rc.read_text().endswith("\n")):
            if self.bash.poll() is not None or time.monotonic() > deadline:
                raise Stuck(f"(no answer: bash ended, or the command ran {COMMAND_TIMEOUT} s)")
            time.sleep(0.02)
        shown, swapped = self.sandbox.to_page(out.read_text(encoding="utf-8", errors="replace"))
        if self.port is not None:
            shown = shown.replace(str(self.port), str(self.block.options.port))
        lines = [line.rstrip() for line in shown.split("\n")]  # unseen in a page
        while lines and not lines[-1].strip():
            lines.pop()
        return Ran(lines, int(rc.read_text()), tuple(swapped))

    def close(self) -> None:
        if self.bash.poll() is None:
            self._send("exit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.bash.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):  # what it left running, and children
            os.killpg(self.bash.pid, signal.SIGKILL)
        self.bash.wait()
        if self.s3 is not None:
            self.s3.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _environment(sandbox: Sandbox, options: Options) -> dict[str, str]:
    env = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    home = sandbox.home(None)
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(home / ".local/bin"), str(BIN), env.get("PATH", "")]),
        TMPDIR=str(sandbox.root / "tmp"),
        AGENTOUT_SPILL_DIR=str(sandbox.root / "spill"),
        AGENTOUT_LEDGER_SYNC="1",
        AGENTOUT_HOOK_SERVER="0",  # the installed hooks answer cold: no server outlives a page
        XDG_RUNTIME_DIR=str(sandbox.root / "tmp"),
        PYTHONDONTWRITEBYTECODE="1",
        NPM_CONFIG_UPDATE_NOTIFIER="false",  # npm asks the registry for a newer npm
        NPM_CONFIG_OFFLINE="true",
        LC_ALL="C.UTF-8",
        TZ="UTC",
        COLUMNS="80",
        REPO=str(ROOT),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Ada Lovelace",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Ada Lovelace",
        GIT_COMMITTER_EMAIL="ada@example.com",
    )
    real = Path(os.path.expanduser("~"))  # the toolchains' caches, as tests/conftest.py keeps
    for variable, folder in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        if variable not in env and (real / folder).is_dir():
            env[variable] = str(real / folder)
    if "MAVEN_OPTS" not in env and (real / ".m2").is_dir():
        env["MAVEN_OPTS"] = f"-Dmaven.repo.local={real / '.m2' / 'repository'}"
    env.update({name: sandbox.to_run(value) for name, value in options.env.items()})
    return env


class _S3:
    """moto's S3 server on a loopback port, with one bucket, reached through the standard
    AWS environment (as tests/store/conftest.py does)."""

    def __init__(self, bucket: str, env: dict[str, str]) -> None:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # a line a request, else
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        # moto keeps its buckets in this process: each block starts with none
        urllib.request.urlopen(
            urllib.request.Request(f"http://{host}:{port}/moto-api/reset", method="POST")
        ).close()
        env.update(
            AWS_ACCESS_KEY_ID="testing",
            AWS_SECRET_ACCESS_KEY="testing",
            AWS_DEFAULT_REGION="us-east-1",
            AWS_ENDPOINT_URL_S3=f"http://{host}:{port}",
        )
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=f"http://{host}:{port}",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        )
        client.create_bucket(Bucket=bucket)

    def stop(self) -> None:
        self.server.stop()


# --- comparing -------------------------------------------------------------------------

_EXIT = re.compile(r"^\[exit (\d+)\]$")


@dataclass(frozen=True)
class Outcome:
    block: Block
    command: Command
    ran: Ran
    matches: bool
    new: list[str]  # what --update writes under the command
    setup: Ran | None = None  # the block's setup, when it failed

    def explain(self) -> str:
        diff = difflib.unified_diff(
            self.command.output, self.ran.output, "the page", "the run", lineterm="", n=2
        )
        where = f"{self.block.page.relative_to(ROOT)}:{self.command.line + 1}"
        text = f"{where}: $ {self.command.text}\n" + "\n".join(diff)
        if self.setup is not None and self.setup.status != 0:
            text += f"\n(the block's setup exited {self.setup.status}:)\n" + "\n".join(
                self.setup.output
            )
        return text


def _parts(line: str, vary: tuple[str, ...]) -> tuple[str, list[tuple[str, str]]]:
    """A line's skeleton (what must be equal) and its varying parts, in order; an
    ``optional`` span is left out of the skeleton whether it is there or not."""
    line = _without_optional(line, vary)
    kinds = [*(("vary", _DATES if v == "dates" else v) for v in vary if v[:1] != _OPTIONAL)]
    kinds += [("ref", REF), ("time", _TIMING), ("tokens", _TOKENS)]
    pattern = "|".join(f"(?P<{kind}{i}>{regex})" for i, (kind, regex) in enumerate(kinds))
    parts: list[tuple[str, str]] = []

    def mark(match: re.Match[str]) -> str:
        kind = next(name for name, value in match.groupdict().items() if value is not None)
        parts.append((kind.rstrip("0123456789"), match.group()))
        return "\x00" + parts[-1][0]

    return re.sub(pattern, mark, line), parts


def _without_optional(line: str, vary: tuple[str, ...]) -> str:
    for pattern in vary:
        if pattern[:1] == _OPTIONAL:
            line = re.sub(pattern[1:], "", line)
    return line


def _align(page: list[str], run: list[str], vary: tuple[str, ...]) -> list[tuple[str, str]] | None:
    """The page's lines paired with the run's, ``…`` lines taking any run of lines; None
    when they cannot be."""
    skeletons = [_parts(line, vary)[0] for line in run]

    def same(shown: str, index: int) -> bool:
        if shown.endswith(" ...") and shown.strip() not in _ELIDED:
            return skeletons[index].startswith(_parts(shown[:-3], vary)[0])
        return skeletons[index] == _parts(shown, vary)[0]

    memo: dict[tuple[int, int], list[tuple[str, str]] | None] = {}

    def match(i: int, j: int) -> list[tuple[str, str]] | None:
        if (i, j) in memo:
            return memo[i, j]
        found: list[tuple[str, str]] | None = None
        if i == len(page):
            found = [] if j == len(run) else None
        elif page[i].strip() in _ELIDED:
            for k in range(j, len(run) + 1):
                rest = match(i + 1, k)
                if rest is not None:
                    found = rest
                    break
        elif j < len(run) and same(page[i], j):
            rest = match(i + 1, j + 1)
            found = None if rest is None else [(page[i], run[j]), *rest]
        memo[i, j] = found
        return found

    # the recursion is as deep as the block is long; the limit is put back after, since
    # other tests in this process depend on it (toon refuses data nested past it)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * (len(page) + len(run)) + 100))
    try:
        return match(0, 0)
    finally:
        sys.setrecursionlimit(limit)


def compare(command: Command, ran: Ran, options: Options, refs: dict[str, str]) -> bool:
    """Whether the run printed what the page shows; maps the page's references as it goes."""
    page = command.output
    exit_line = _EXIT.match(page[-1]) if page else None
    if exit_line and ran.output[-1:] != page[-1:]:
        if ran.status != int(exit_line[1]):
            return False
        page = page[:-1]
    pairs = _align(page, ran.output, options.vary)
    if pairs is None:
        _pair_refs(page, ran.output, refs)
        return False
    found: dict[str, str] = {}
    moved: list[tuple[str, str]] = []  # what a token count counts that may differ
    counts: list[tuple[str, str]] = []
    for shown, printed in pairs:
        for (kind, a), (_, b) in zip(
            _parts(shown, options.vary)[1], _parts(printed, options.vary)[1], strict=False
        ):
            if kind == "ref":
                if refs.get(a, found.get(a, b)) != b or b in {*refs.values()} - {refs.get(a)}:
                    return False
                found[a] = b
            if kind in ("ref", "time"):
                moved.append((a, b))
            elif kind == "tokens":
                counts.append((a, b))
    slack = _slack(moved + list(ran.swapped))
    if any(abs(int(a.replace(",", "")) - int(b.replace(",", ""))) > slack for a, b in counts):
        return False
    refs.update(found)
    return True


def _slack(pairs: list[tuple[str, str]]) -> int:
    """How far a token count may move because what it counts moved: timings, references,
    and the paths of this run's sandbox (a token count counts the path printed, the page
    shows another)."""
    moved = [(a, b) for a, b in pairs if a != b]
    if not moved:
        return 0
    from agentout.tokens import count

    return sum(abs(count(b) - count(a)) for a, b in moved) + 1


def _pair_refs(page: list[str], run: list[str], refs: dict[str, str]) -> None:
    """Outputs that differ: the page's new references paired with the run's, in order."""
    shown = [r for r in dict.fromkeys(re.findall(REF, "\n".join(page))) if r not in refs]
    taken = set(refs.values())
    printed = [r for r in dict.fromkeys(re.findall(REF, "\n".join(run))) if r not in taken]
    refs.update(zip(shown, printed, strict=False))


# --- updating --------------------------------------------------------------------------


def rewrite(command: Command, ran: Ran, matches: bool, refs: dict[str, str]) -> list[str]:
    """What ``--update`` writes under a command: the page's own lines (this run's
    references) when they match, else the run's output, shortened where the page's was."""
    shown = re.findall(REF, "\n".join(command.output))
    if matches and all(refs.get(ref, ref) == ref for ref in shown):
        return command.output  # the page's own text: its timings stay as they were
    page, new = command.output, list(ran.output)
    exit_line = _EXIT.match(page[-1]) if page else None
    if exit_line and new[-1:] != page[-1:]:
        page = page[:-1]
    if any(line.strip() in _ELIDED or line.endswith(" ...") for line in page):
        new = _elide(page, new)
    if exit_line and ran.output[-1:] != command.output[-1:]:
        new.append(f"[exit {ran.status}]")
    return new


def _elide(page: list[str], run: list[str]) -> list[str]:
    """The run's lines, shortened as the page shortened its own: as many lines before the
    first ``…`` and after the last, the nearest run line for each page line between, and
    a line cut to its first words (``R id=X ...``) cut the same way."""
    gaps = [i for i, line in enumerate(page) if line.strip() in _ELIDED]
    if not gaps:
        head, middle, tail = page, [], []
    else:
        head, middle, tail = page[: gaps[0]], page[gaps[0] : gaps[-1] + 1], page[gaps[-1] + 1 :]
    if len(head) + len(tail) > len(run):
        return run
    kept = [_cut(p, r) for p, r in zip(head, run, strict=False)]
    lo, hi = len(head), len(run) - len(tail)
    for line in middle:
        if line.strip() in _ELIDED:
            kept.append(line)
            continue
        scores = [difflib.SequenceMatcher(None, line, run[k]).ratio() for k in range(lo, hi)]
        if scores:
            best = lo + max(range(len(scores)), key=scores.__getitem__)
            kept.append(_cut(line, run[best]))
            lo = best + 1
    kept += [_cut(p, r) for p, r in zip(tail, run[hi:], strict=False)]
    return kept


def _cut(page: str, run: str) -> str:
    if not page.endswith(" ...") or page.strip() in _ELIDED:
        return run
    words = len(page[:-4].split(" "))
    return " ".join(run.split(" ")[:words]) + " ..."


# --- pages -----------------------------------------------------------------------------


@dataclass
class Report:
    page: Path
    outcomes: list[Outcome] = field(default_factory=list)
    refs: dict[str, str] = field(default_factory=dict)  # the page's references -> the run's
    skipped: list[Block] = field(default_factory=list)

    @property
    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if not outcome.matches]


def check_page(page: Path, sandbox_root: Path) -> Report:
    """Run every console block of a page, in order, in one sandbox."""
    sandbox = Sandbox(sandbox_root)
    report = Report(page, refs=sandbox.refs)
    for block in blocks(page):
        if block.options.skip:
            report.skipped.append(block)
            continue
        session = Session(block, sandbox)
        try:
            session.setup()
            for command in block.commands:
                try:
                    ran = session.run(command)
                except Stuck as stuck:
                    ran = Ran([str(stuck)], -1)
                    report.outcomes.append(Outcome(block, command, ran, False, command.output))
                    break
                matches = compare(command, ran, block.options, sandbox.refs)
                new = rewrite(command, ran, matches, sandbox.refs)
                setup = sandbox.setup if block.options.setup else None
                report.outcomes.append(Outcome(block, command, ran, matches, new, setup))
        finally:
            session.close()
    return report


def update_page(report: Report) -> bool:
    """Write the runs' outputs (and the references commands name) into the page; whether
    anything changed."""
    text = report.page.read_text(encoding="utf-8")
    lines = text.split("\n")
    refs = report.refs
    for outcome in sorted(report.outcomes, key=lambda o: -o.command.line):
        command = outcome.command
        start = command.line + 1
        end = start
        indent = outcome.block.indent
        while end < outcome.block.end and not _PROMPT.match(lines[end][len(indent) :]):
            end += 1
        blank = end - start - len(command.output)  # the blank lines the page leaves after it
        prompt = lines[command.line]
        head = prompt[: len(prompt) - len(command.text)]
        new_text = re.sub(REF, lambda m: refs.get(m.group(), m.group()), command.text)
        output = [indent + line if line else line for line in outcome.new]
        lines[command.line : end] = [head + new_text, *output, *([""] * max(blank, 0))]
    new = "\n".join(lines)
    if new != text:
        report.page.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str]) -> int:
    update = "--update" in argv
    chosen = [ROOT / name for name in argv if name != "--update"] or pages()
    failed = 0
    for page in chosen:
        if not blocks(page):
            continue
        sandbox = make_sandbox()
        try:
            report = check_page(page, sandbox)
        finally:
            shutil.rmtree(sandbox, ignore_errors=True)
        for block in report.skipped:
            print(f"{block.where}: skipped: {block.options.skip}")
        for outcome in report.failures:
            print(outcome.explain())
        failed += len(report.failures)
        changed = update and update_page(report)
        ran = len(report.outcomes)
        print(
            f"{page.relative_to(ROOT)}: {ran - len(report.failures)} of {ran} commands as shown"
            + (", page rewritten" if changed else "")
        )
    return 1 if failed and not update else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
