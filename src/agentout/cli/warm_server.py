"""The warm server: agentout's modules imported and its tokenizer, reducers and secret
scanner built once; each call of an agent's hook, and each ``agentout run``, answered by
a child forked ahead of it.

Started by the hook's thin client (``agentout.agents.hook_client``) or by ``agentout
run`` (``agentout.cli.run_client``) when they find none, as ``python -m
agentout.cli.warm_server SOCKET``; it listens on that Unix socket in the user's private
folder and exits after ``AGENTOUT_HOOK_SERVER_IDLE`` seconds without a call (600 by
default), or at the first call after one of its modules' files changed (an upgrade, an
edit of an editable install), leaving that call to the client.

Each call is answered by a spare child, forked from the warm process before the call
came (a fork of it takes milliseconds) and waiting on the socket; once it takes the call
the server forks the next spare. The child takes the caller's working directory,
environment, umask and ``argv[0]``, then answers as a fresh process would: a hook call
through ``agentout.agents.hook.respond`` (as ``agentout hook AGENT``), a run through
``agentout.cli.run_client.deliver`` (the output its client captured, delivered as
``agentout run`` delivers it), so nothing one call does reaches another. What the parent
builds ahead depends only on the installed files (modules, reducers, tokenizer) or is
kept by what it was built from (a secret scanner, per set of secret values and names).
It lives in the command line's layer because it answers for ``agentout run`` too.

It serves only what its caller could do itself: a caller of another user, or in another
mount or user namespace than the server's (a sandbox the agent runs in, which the
server sits outside of), is declined, and does its work cold. A call that has not
arrived whole within ``CALL_WAIT`` seconds is dropped, and at most ``MAX_CHILDREN``
children live at once: past that, calls are declined until one ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import io
import os
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable

from agentout.agents.hook_client import MAX_READ, PROTOCOL, package_dir, private, socket_dir

__all__ = ["CALL_WAIT", "IDLE", "MAX_CHILDREN", "serve"]

IDLE = 600.0  # seconds without a call before the server exits
CALL_WAIT = 10.0  # seconds a call has to arrive whole (its client sends it at once)
MAX_CHILDREN = 32  # children at once: the spare, the calls answered, their ledger rows
_MAX_HEADER = 1 << 20  # the environment of a shell, with room to spare
_MAX_CALL = 10 + _MAX_HEADER + MAX_READ  # the size, the header and the largest payload
_NAMESPACES = ("mnt", "user")
_REPLY_WAIT = 60.0  # seconds a client may leave its answer unread
_REAP_EVERY = 0.5  # seconds between looks for ended children while at MAX_CHILDREN
_FIELDS = 7  # before the call's words and the environment: see hook_client.ask
_SPARE_CHECK = 2.0  # seconds between a waiting spare's looks at whether the server lives
_FORK_AFTER = 0.1  # seconds the next spare waits at most for the call before it is answered


def _idle() -> float:
    try:
        return max(1.0, float(os.environ.get("AGENTOUT_HOOK_SERVER_IDLE", IDLE)))
    except ValueError:
        return IDLE


# The packages a hook call or a run draws on: every module in them is imported ahead
# (those of the MCP server and the pytest plugin are not: no call reaches them).
_WARM_PACKAGES = (
    "agentout.agents",
    "agentout.deliver",
    "agentout.formats",
    "agentout.ledger",
    "agentout.pack",
    "agentout.read",
    "agentout.records",
    "agentout.redact",
    "agentout.reducers",
    "agentout.store",
    "agentout.tokens",
)
# And the modules a served ``agentout run`` draws on (agentout.cli.run_client).
_WARM_MODULES = (
    "agentout.cli._options",
    "agentout.cli.quick",
    "agentout.cli.run_client",
    "agentout.sources.command",
)


def _warm() -> None:
    """What every call would load again: the hook's modules, the reducers, the exact
    tokenizer, and the secret scanner for this environment (the callers' environment,
    most likely: the agent started this server)."""
    import importlib
    import pkgutil

    for name in _WARM_PACKAGES:
        package = importlib.import_module(name)
        for found in pkgutil.iter_modules(package.__path__, name + "."):
            with contextlib.suppress(Exception):  # an optional dependency missing
                importlib.import_module(found.name)
    for name in _WARM_MODULES:
        importlib.import_module(name)
    from agentout.agents._digest import sha256
    from agentout.agents._shell import analyse
    from agentout.redact import Redactor
    from agentout.reducers.builtin import builtins
    from agentout.reducers.model import Output
    from agentout.tokens import get_tokenizer

    for reducer in builtins():  # each compiles its patterns on its first output
        with contextlib.suppress(Exception):
            reducer.reduce(Output((), (), ["warm"]))
    get_tokenizer().count("warm")
    analyse("git status 2>&1 | head")  # bash's grammar loaded
    sha256(b"warm")  # CPython's own, an extension module
    import sqlite3  # noqa: F401 - the ledger's, written after each answer

    with contextlib.suppress(Exception):  # a bad setting is the call's to report
        Redactor.from_environ().scanner  # noqa: B018 - built, and kept by its inputs


def _sources() -> dict[str, int]:
    """The files of agentout's loaded modules and its reducers, and when each changed."""
    from agentout.reducers import builtin

    paths = [
        path
        for name, module in list(sys.modules.items())
        if (name == "agentout" or name.startswith("agentout."))
        and (path := getattr(module, "__file__", None))
    ]
    folder = os.path.join(os.path.dirname(builtin.__file__), "toml")
    with contextlib.suppress(OSError):
        paths += [os.path.join(folder, name) for name in os.listdir(folder)]
    found: dict[str, int] = {}
    for path in paths:
        with contextlib.suppress(OSError):
            found[path] = os.stat(path).st_mtime_ns
    return found


def _changed(sources: dict[str, int]) -> bool:
    for path, stamp in sources.items():
        try:
            if os.stat(path).st_mtime_ns != stamp:
                return True
        except OSError:
            return True
    return False


def _read_all(conn: socket.socket, wait: float = CALL_WAIT) -> bytes | None:
    """The whole call (up to its client's end of writing); None when it has not come
    within ``wait`` seconds, or is larger than any client sends."""
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(1 << 20)
        except TimeoutError:
            return None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > _MAX_CALL:
            return None
        chunks.append(chunk)


def _own_caller(conn: socket.socket) -> bool:
    """Whether the caller is this user, in this server's mount and user namespaces
    (Linux says who is calling; elsewhere the private folder is the guard). A caller in
    a sandbox sees other files than the server does: what it asks for must be done
    where it is, cold."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    pid_uid_gid = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    pid, uid, _ = struct.unpack("3i", pid_uid_gid)
    if uid != os.getuid() or pid <= 0:  # 0: a process this server's namespace cannot name
        return False
    try:
        for name in _NAMESPACES:
            theirs, ours = os.stat(f"/proc/{pid}/ns/{name}"), os.stat(f"/proc/self/ns/{name}")
            if (theirs.st_dev, theirs.st_ino) != (ours.st_dev, ours.st_ino):
                return False
    except OSError:  # gone, or not ours to look at
        return False
    return True


def _answer(conn: socket.socket, replied: Callable[[], object]) -> None:
    """One call, in the forked child: read it, become its caller, answer, reply; then
    ``replied()``, then what was deferred (the ledger row)."""
    if not _own_caller(conn):
        return
    data = _read_all(conn)
    if data is None:
        return
    size = data[:10]
    if not size.isdigit() or int(size) > _MAX_HEADER:
        return
    header, payload = data[10 : 10 + int(size)], data[10 + int(size) :]
    fields = header.split(b"\0")
    if len(fields) < _FIELDS or fields[0] != PROTOCOL or not fields[_FIELDS - 1].isdigit():
        return
    executable, package, argv0, cwd, umask = (os.fsdecode(f) for f in fields[1 : _FIELDS - 1])
    if executable != sys.executable or package != package_dir():
        return  # another installation's client: it answers cold
    words = int(fields[_FIELDS - 1])
    call = [os.fsdecode(word) for word in fields[_FIELDS : _FIELDS + words]]
    if len(call) != words or not call or call[0] not in ("hook", "run"):
        return
    os.chdir(cwd)
    os.umask(int(umask, 8))
    _become(fields[_FIELDS + words :])
    sys.argv = [argv0, *call]
    from agentout.ledger import book

    book.defer()  # the delivery is recorded once the caller has its answer
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()  # what the call prints
    try:
        status, out, err = _respond(call, payload)
    finally:
        printed, said = sys.stdout.getvalue(), sys.stderr.getvalue()
        sys.stdout, sys.stderr = stdout, stderr
    out_bytes = (printed + out).encode("utf-8", "surrogateescape")
    err_bytes = (said + err).encode("utf-8", "surrogateescape")
    conn.settimeout(_REPLY_WAIT)  # a client reads its answer as it comes
    conn.sendall(b"%d %d %d\n" % (status, len(out_bytes), len(err_bytes)) + out_bytes + err_bytes)
    with contextlib.suppress(OSError):  # what is left is background work: the caller's
        os.nice(10)  # next command comes first on a busy machine
    book.run_deferred()  # the row was kept before the answer: counted now
    replied()  # last: a server gone meanwhile (killed, upgraded) costs no row


def _become(entries: list[bytes]) -> None:
    """This process's environment made the caller's (``KEY=VALUE`` entries): only what
    differs is set or removed, each a call to the C library (most of it is the same)."""
    wanted: dict[bytes, bytes] = {}
    for entry in entries:
        key, sep, value = entry.partition(b"=")
        if sep and key:
            wanted[key] = value
    for key in [key for key in os.environb if key not in wanted]:
        del os.environb[key]
    for key, value in wanted.items():
        if os.environb.get(key) != value:
            os.environb[key] = value


def _respond(call: list[str], payload: bytes) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``agentout CALL...`` as a fresh process would
    give them: ``hook AGENT`` through ``agentout.agents.hook.respond``, and ``run ...``
    (a command its client has run) through ``agentout.cli.run_client.deliver``."""
    if call[0] == "hook" and len(call) == 2:
        from agentout.agents.hook import respond

        out, err = respond(call[1], io.BytesIO(payload))
        return 0, out, (err + "\n") if err else ""
    from agentout.cli.run_client import deliver

    return deliver(call[1:], payload), "", ""


def _spare(listener: socket.socket, lock: int, taken: int, sources: dict[str, int]) -> None:
    """A child forked ahead of the next call (forking a warm process takes milliseconds):
    it takes one call, tells the server, answers, tells the server again (which forks
    the next spare once the call is answered, or after ``_FORK_AFTER``), and ends.
    Never returns."""
    os.close(lock)  # the server's lock ends with the server, not with its children
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    status = 0
    conn = None
    server = os.getppid()
    try:
        while not select.select([listener], [], [], _SPARE_CHECK)[0]:
            if os.getppid() != server:  # the server was killed: no one forks the next
                os._exit(0)
        try:
            conn, _ = listener.accept()
        except OSError:  # the server stopped listening: no call will come
            os._exit(0)
        listener.close()
        if _changed(sources):  # outdated: the server goes, and the client answers cold
            parent = os.getppid()
            os.write(taken, b"S")
            deadline = time.monotonic() + 2.0
            while os.getppid() == parent and time.monotonic() < deadline:
                time.sleep(0.005)  # the server's lock released before the client goes on
            return
        os.write(taken, b"T")
        conn.sendall(b"%d\n" % os.getpid())  # taken: the client waits for the answer now
        _answer(conn, lambda: _tell(taken, b"D"))
        os.close(taken)
        import atexit

        atexit._run_exitfuncs()  # what a fresh process would run on its way out
    except BaseException:  # the client, finding no reply, answers the call itself
        status = 1
    finally:
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()
        os._exit(status)


def _tell(taken: int, what: bytes) -> None:
    """Tell the server (``taken``) a call was answered; nothing if it is gone."""
    with contextlib.suppress(OSError):
        os.write(taken, what)


def _watch(pid: int) -> int | None:
    """A descriptor that becomes readable when the process ``pid`` ends (Linux's
    ``pidfd_open``); None where there is none (the spare is then not watched)."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def serve(path: str) -> int:
    """Listen on ``path`` until idle or outdated; 0, also when another server has it."""
    folder = os.path.dirname(path)
    if folder != socket_dir() or not private(folder):
        print(f"agentout: hook server: {folder}: not this user's private folder", file=sys.stderr)
        return 2
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        return 0  # another server is starting or serving
    os.ftruncate(lock, 0)
    os.write(lock, b"%d\n" % os.getpid())  # who serves, for whoever would stop it
    gc.disable()
    _warm()
    gc.freeze()  # the warm modules stay shared with every child, untouched
    sources = _sources()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(64)
    ours = os.stat(path).st_ino
    taken_r, taken_w = os.pipe()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    idle = _idle()
    spare = False
    ended: int | None = None  # readable once the waiting spare is gone
    children: set[int] = set()
    last_call = time.monotonic()
    try:
        while True:
            _reap(children)
            if not spare and len(children) < MAX_CHILDREN:
                child = os.fork()
                if child == 0:
                    os.close(taken_r)
                    _spare(listener, lock, taken_w, sources)
                children.add(child)
                spare, ended = True, _watch(child)
            # At the cap there is no spare: calls are declined (answered cold) until a
            # child ends, which is looked for every _REAP_EVERY seconds.
            watch = [taken_r] if spare else [taken_r, listener.fileno()]
            if ended is not None:
                watch.append(ended)
            ready, _, _ = select.select(watch, [], [], idle if spare else _REAP_EVERY)
            if listener.fileno() in ready:
                _decline(listener)
                last_call = time.monotonic()
            if ended is not None and ended in ready and taken_r not in ready:
                os.close(ended)  # the spare died (killed) before it took a call
                spare, ended = False, None
                continue  # the next one takes the calls waiting for it
            if taken_r not in ready:
                if time.monotonic() - last_call >= idle:
                    return 0  # idle
                continue
            last_call = time.monotonic()
            said = os.read(taken_r, 1)
            if said == b"D":
                continue  # a call answered
            if said != b"T":
                return 0  # outdated
            if ended is not None:
                os.close(ended)
            spare, ended = False, None
            # The next spare once this call is answered (its "D"), not while it is: a fork
            # of this process takes milliseconds of CPU, which the answer needs more.
            select.select([taken_r], [], [], _FORK_AFTER)
    finally:
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == ours:
                os.unlink(path)
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # the waiting spare wakes, and ends
        listener.close()
        os.close(lock)  # before the declined client may start the next server


def _reap(children: set[int]) -> None:
    """Forget the children that have ended (and reap them)."""
    for pid in list(children):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            children.discard(pid)


def _decline(listener: socket.socket) -> None:
    """A call taken and closed unread: its client answers it cold."""
    with contextlib.suppress(OSError):
        conn, _ = listener.accept()
        conn.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m agentout.cli.warm_server SOCKET", file=sys.stderr)
        return 2
    return serve(argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
