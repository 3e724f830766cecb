"""The hook as installed: a thin client of the warm hook server.

An agent CLI starts its hook once per tool call, so the hook's start-up is paid on every
command. Installed hooks run it with ``python -S`` (no site, no packages), through
``hook_entry.py`` beside it: it reads the payload, hands it with the working directory
and the environment to the warm server (``agentout.cli.warm_server``, modules
imported and tokenizer built once) over a private Unix socket, and prints the answer. A
child of the server, forked ahead of the call, answers it exactly as ``agentout hook
AGENT`` would in a fresh process.

Without a server (the first call, after the server's idle exit or an upgrade) the call
is answered here, cold, and a server is started for the next one.
``AGENTOUT_HOOK_SERVER=0`` answers every call cold. Nothing but the standard library's
built-in modules is imported before the answer: this file must stay cheap to start.
"""

import os
import sys

TYPE_CHECKING = False  # typing is not imported: this file's start-up is the hook's
if TYPE_CHECKING:
    import _socket

PROTOCOL = b"agentout-hook 3"
MAX_READ = (64 << 20) + 1  # the largest payload any agent's hook reads, and one byte more
TAKE_WAIT = 5.0  # a spare waits for each call: one not taken by then never will be soon
REPLY_WAIT = 15.0  # the server's child answers within its own time limit (8 s at most)
_NOTHING = {"gemini": "{}\n"}  # "no answer", as agentout.agents.hook prints it
_OFF = ("0", "off", "false", "no")


def package_dir() -> str:
    """The installed ``agentout`` package this client belongs to."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def socket_dir() -> str:
    """The user's private folder for the server's socket: under ``XDG_RUNTIME_DIR`` when
    set, else under ``/tmp``."""
    base = os.environ.get("XDG_RUNTIME_DIR") or ""
    if not os.path.isabs(base) or len(base) > 60:
        base = "/tmp"
    return os.path.join(base, f"agentout-{os.getuid()}")


def socket_path(executable: str, package: str) -> str:
    """One server per Python and installed agentout."""
    import binascii

    key = binascii.crc32(f"{executable}\0{package}".encode("utf-8", "surrogateescape"))
    return os.path.join(socket_dir(), f"hook-{key:08x}.sock")


def private(folder: str) -> bool:
    """Whether ``folder`` is a real directory of this user that nobody else may enter."""
    import stat

    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def standard_streams() -> None:
    """stdin, stdout and stderr made usable when agentout was started with one of them
    closed (``agentout run -- CMD >&-``): each such descriptor opened on the null device,
    so that no file opened later (the store's, the ledger's, the server's socket) takes
    its number and receives what is printed, and ``sys.stdout`` (None then) writes there,
    as a print to a closed stream would: nowhere."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        name = ("stdin", "stdout", "stderr")[fd]
        if getattr(sys, name) is None:
            errors = "backslashreplace" if fd == 2 else "surrogateescape"
            mode = "r" if fd == 0 else "w"
            setattr(sys, name, open(fd, mode, encoding="utf-8", errors=errors, closefd=False))  # noqa: SIM115 - the process's own stream


def _read_stdin() -> bytes:
    """Up to ``MAX_READ`` bytes of stdin; the rest read and dropped (the agent's write
    never meets a closed pipe)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = os.read(0, 1 << 20)
        except OSError:  # no stdin at all: an empty payload, which gets its message
            break
        if not chunk:
            break
        if size < MAX_READ:
            chunks.append(chunk)
            size += len(chunk)
    return b"".join(chunks)[:MAX_READ]


class NoAnswer(OSError):
    """A server's child took the call and gave no answer in time (it was ended)."""


def ask(
    path: str, call: list[str], payload: bytes, wait: float = REPLY_WAIT
) -> tuple[int, bytes, bytes] | None:
    """The server's (exit status, stdout, stderr) for one call of ``agentout CALL...``
    with ``payload``; None when no server answered: none running, none took the call
    within ``TAKE_WAIT`` seconds (a server stopped, or its spare gone), it declined
    (another agentout, or it is stopping), or it ended without an answer. Raises
    ``NoAnswer`` (an ``OSError``) when a server's child took the call and did not answer
    within ``wait`` seconds more; that child is ended first, as it is when this process
    is interrupted while it waits, so a call is never answered twice."""
    import _socket

    try:
        cwd = os.getcwd()
    except OSError:  # the folder is gone: the cold answer says what it can
        return None
    umask = os.umask(0o077)
    os.umask(umask)
    fields = [
        PROTOCOL,
        os.fsencode(sys.executable),
        os.fsencode(package_dir()),
        os.fsencode(started_as()),
        os.fsencode(cwd),
        b"%o" % umask,
        b"%d" % len(call),
        *(os.fsencode(word) for word in call),
        *(k + b"=" + v for k, v in os.environb.items()),
    ]
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(TAKE_WAIT)
        try:
            conn.connect(path)
        except OSError:
            return None
        return _Exchange(conn).run(b"\0".join(fields), payload, wait)
    finally:
        conn.close()


class _Exchange:
    """One call on a connected socket: sent, taken (the child's pid), answered."""

    def __init__(self, conn: "_socket.socket") -> None:
        self.conn = conn
        self.taker = 0  # the pid of the server's child that took the call
        self.reply = bytearray()

    def run(self, header: bytes, payload: bytes, wait: float) -> tuple[int, bytes, bytes] | None:
        import _socket
        import time

        deadline = time.monotonic() + TAKE_WAIT
        try:
            try:
                self.conn.sendall(b"%010d" % len(header) + header)
                self.conn.sendall(payload)
                self.conn.shutdown(_socket.SHUT_WR)
                if not self._taken(deadline):
                    return None
            except (BrokenPipeError, ConnectionResetError):
                return None  # it declined the call (outdated), or ended without an answer
            except OSError:  # timed out: not taken in time (or taken, and stuck reading)
                self._end_taker()
                return None
            try:
                return self._answer(time.monotonic() + wait)
            except (BrokenPipeError, ConnectionResetError):
                return None  # it ended without an answer
            except OSError as exc:
                self._end_taker()
                raise NoAnswer(f"none in {wait:g}s") from exc
        except BaseException:  # interrupted (Ctrl-C): the call is left, and its child ended
            self._end_taker()
            raise

    def _taken(self, deadline: float) -> bool:
        """Wait (until ``deadline``) for the line a server's child sends once it has the
        call: its pid. False if the connection ends first, or says something else."""
        import time

        while b"\n" not in self.reply:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the call was not taken")
            self.conn.settimeout(left)
            chunk = self.conn.recv(1 << 16)
            if not chunk:
                return False
            self.reply += chunk
        line, _, rest = bytes(self.reply).partition(b"\n")
        if not line.isdigit() or int(line) <= 1:
            return False  # not this server's child
        self.taker, self.reply = int(line), bytearray(rest)
        return True

    def _end_taker(self) -> None:
        """The child that took the call (if one did, even just now) is ended: its answer,
        and its ledger row, will not come after this process has given its own."""
        if not self.taker:
            try:
                self.conn.setblocking(False)
                self.reply += self.conn.recv(1 << 16)
                line = bytes(self.reply).partition(b"\n")[0]
                self.taker = int(line) if line.isdigit() and int(line) > 1 else 0
            except (OSError, ValueError):
                pass
        if self.taker:
            if TYPE_CHECKING:
                import signal
            else:
                import _signal as signal  # signal imports enum: this file starts every hook

            try:
                os.kill(self.taker, signal.SIGKILL)
            except OSError:  # gone already
                return

    def _answer(self, deadline: float) -> tuple[int, bytes, bytes] | None:
        """Read the answer by ``deadline``: (status, stdout, stderr), or None if there is
        none (``TimeoutError`` if it is late)."""
        import time

        reply = self.reply
        size = -1  # of the answer, once its first line is in
        status = out_size = 0
        while True:
            if size < 0 and b"\n" in reply:
                line, _, rest = bytes(reply).partition(b"\n")
                numbers = line.split(b" ")
                if len(numbers) != 3 or not all(n.isdigit() for n in numbers):
                    return None
                reply = bytearray(rest)
                status, out_size = int(numbers[0]), int(numbers[1])
                size = out_size + int(numbers[2])
            if size >= 0 and len(reply) >= size:
                return status, bytes(reply[:out_size]), bytes(reply[out_size:size])
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the answer did not come")
            self.conn.settimeout(left)
            chunk = self.conn.recv(1 << 16)
            if not chunk:
                return None  # it ended without an answer
            reply += chunk


def start_server(path: str) -> None:
    """A server started for the next call, detached from this one: its own session,
    stdio on /dev/null (the agent waits for this hook's stdout to close)."""
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, 1024)
            os.chdir("/")
            os.execv(
                sys.executable,
                [sys.executable, "-m", "agentout.cli.warm_server", path],
            )
    finally:
        os._exit(0)


def started_as() -> str:
    """What ``sys.argv[0]`` would be had the hook started as the ``agentout`` script: the
    script beside this Python, else this file (then agentout names itself
    ``python -m agentout``)."""
    script = os.path.join(os.path.dirname(sys.executable), "agentout")
    return script if os.path.isfile(script) else os.path.abspath(__file__)


def _cold(agent: str, payload: bytes) -> int:
    """The call answered in this process, as ``agentout hook AGENT`` answers it."""
    import gc
    import io
    import site

    site.main()  # started with -S: the installed packages come into reach now
    gc.disable()
    sys.argv = [started_as(), "hook", agent]
    from agentout.agents.hook import main

    return main([agent], stdin=io.BytesIO(payload))


def served() -> bool:
    """Whether calls may go to a warm server: on POSIX (a Unix socket, fork), unless
    ``AGENTOUT_HOOK_SERVER`` is 0, off, false or no."""
    off = os.environ.get("AGENTOUT_HOOK_SERVER", "").strip().lower() in _OFF
    return not off and os.name == "posix"


def server_path() -> str | None:
    """The socket of this installation's server, in the user's private folder (made if
    missing); None when no private folder can be had."""
    folder = socket_dir()
    if not private(folder):
        try:
            os.mkdir(folder, 0o700)
        except OSError:
            return None
        if not private(folder):
            return None
    return socket_path(sys.executable, package_dir())


def main() -> int:
    standard_streams()
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "hook" or args[1].startswith("-"):
        import runpy
        import site

        site.main()
        sys.argv = [started_as(), *args]
        runpy.run_module("agentout", run_name="__main__")
        return 0
    agent = args[1]
    payload = _read_stdin()
    path = server_path() if served() else None
    if path is None:  # no Unix socket, no fork, no private folder, or turned off: cold
        return _cold(agent, payload)
    try:
        reply = ask(path, args, payload)
    except OSError as exc:  # the server took too long, or failed mid-answer
        sys.stdout.write(_NOTHING.get(agent, ""))
        sys.stderr.write(
            f"agentout: hook: no answer from the hook server ({exc}); nothing changed\n"
        )
        return 0
    except KeyboardInterrupt:  # Ctrl-C while it waits: no answer, and no traceback
        sys.stdout.write(_NOTHING.get(agent, ""))
        sys.stderr.write("agentout: hook: interrupted; nothing changed\n")
        return 130
    if reply is None:
        start_server(path)
        return _cold(agent, payload)
    _, out, err = reply
    write_all(1, out)
    write_all(2, err)
    return 0


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``; a closed reader (the agent went away) is no error."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
