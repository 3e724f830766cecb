"""What a live exception says about a failure: type, message, lines, expected vs got.

Runs where the exception object still exists (in the test process, an xdist worker
included) and returns plain JSON data, which pytest carries on the report to the
process that writes the agent report. Nothing here may raise: a failure whose ``str``
raises, is 10 MB long or holds binary data still comes out as capped, clean text.
"""

from __future__ import annotations

import itertools
import linecache
import re
import reprlib
from pathlib import Path
from types import CodeType, TracebackType
from typing import Any

from agentout.sources.testing.assertions import expected_got
from agentout.sources.testing.frames import is_project_file
from agentout.sources.testing.model import clean

__all__ = ["MESSAGE_CHARS", "describe", "safe_repr", "type_name"]

MESSAGE_CHARS = 4000
_VALUE_CHARS = 400
_DIFF_LINES = 24
_CONTEXT = 2
# pytest's "+  where x = f()" lines and its hint to rerun with -v add nothing to a diff.
_NOISE = re.compile(r"\s*(?:\+\s+where\b|Use -v to get more diff|Use -vv to get more diff)")


class _Repr(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = _VALUE_CHARS
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 24
        self.maxlevel = 4

    def repr_dict(self, x: dict[Any, Any], level: int) -> str:
        """A dict in its own order, as Python prints it (``reprlib`` sorts the keys), so a
        value reads as the runner's line shows it."""
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        items = [
            f"{self.repr1(key, level - 1)}: {self.repr1(value, level - 1)}"
            for key, value in itertools.islice(x.items(), self.maxdict)
        ]
        if len(x) > self.maxdict:
            items.append("...")
        return "{" + ", ".join(items) + "}"


_REPR = _Repr()


def safe_repr(value: object) -> str:
    """``repr`` that never raises and never returns more than a few hundred characters."""
    try:
        text = _REPR.repr(value)
    except Exception as exc:  # a user's __repr__ may raise anything
        text = f"<{type(value).__name__} object; repr() raised {type(exc).__name__}>"
    return clean(text, _VALUE_CHARS)


def type_name(exc: BaseException) -> str:
    """``KeyError``, ``sqlite3.OperationalError``: as Python's own traceback names it."""
    cls = type(exc)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "__main__", "") else f"{module}.{name}"


def _message(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception as error:
        return f"<str() raised {type(error).__name__}>"
    return clean(text if isinstance(text, str) else repr(text), MESSAGE_CHARS)


def _hidden(tb: TracebackType) -> bool:
    frame = tb.tb_frame
    try:
        return bool(
            frame.f_locals.get("__tracebackhide__", frame.f_globals.get("__tracebackhide__"))
        )
    except Exception:
        return False


def _frames(exc: BaseException) -> list[tuple[Path, int, CodeType]]:
    """(file, line, code) of each frame the exception passed, outermost first."""
    out = []
    tb = exc.__traceback__
    while tb is not None:
        if not _hidden(tb):
            code = tb.tb_frame.f_code
            out.append((_resolved(code.co_filename), tb.tb_lineno, code))
        tb = tb.tb_next
    return out


def _resolved(filename: str) -> Path:
    try:
        return Path(filename).resolve()
    except (OSError, RuntimeError):
        return Path(filename)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except (OSError, ValueError):
        return path.as_posix()


def _explanation(message: str) -> str:
    """The lines after the first of an assertion message (pytest's or unittest's diff)."""
    lines = [
        line.rstrip() for line in message.split("\n")[1:] if line.strip() and not _NOISE.match(line)
    ]
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"… {len(lines) - _DIFF_LINES} more lines"]
    return "\n".join(lines)


def _context(path: Path, line: int) -> list[str]:
    out = []
    for number in range(max(1, line - _CONTEXT), line + _CONTEXT):
        text = linecache.getline(str(path), number)
        if text:
            marker = ">" if number == line else " "
            out.append(clean(f"{marker}{number}: {text.rstrip()}", 200))
    return out


def describe(
    exc: BaseException,
    test_file: Path | None,
    root: Path,
    compared: tuple[str, str, str] | None = None,
    test_code: CodeType | None = None,
) -> dict[str, Any]:
    """The failure fields of ``exc`` (see ``model.Failure``) as JSON-compatible data.

    ``line`` is the line of the test function (``test_code``) the error passed through,
    else the innermost line in ``test_file``; ``origin`` the innermost frame of project
    code when that is somewhere else. ``compared`` is the last failed comparison pytest
    explained, ``(op, left, right)``.
    """
    cause = exc.__cause__
    if type(exc).__name__ == "CollectError" and cause is not None:
        exc = cause  # a module that did not import: report the import's own error
    message = _message(exc)
    frames = _frames(exc)
    test_path = test_file.resolve() if test_file is not None else None
    # L: the test function's own line; failing that (a fixture), the test file's last.
    own = [f for f in frames if test_code is not None and f[2] is test_code]
    in_file = [f for f in frames if f[0] == test_path]
    candidates = own or in_file
    where = candidates[-1] if candidates else None
    line = where[1] if where is not None else None
    origin = None
    for frame in reversed(frames):
        if is_project_file(frame[0], root):
            if frame is not where:
                origin = f"{_relative(frame[0], root)}:{frame[1]}"
            break
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        origin = f"{_relative(Path(exc.filename), root)}:{exc.lineno}"
    data: dict[str, Any] = {"type": type_name(exc), "message": message}
    if line is not None:
        data["line"] = line
        if test_path is not None:
            data["source"] = _context(test_path, line)
            from agentout.sources.testing.sites import site_shape

            data["site"] = site_shape(test_path, line)
    if origin:
        data["origin"] = origin
    pair = None
    if compared is not None and message.startswith("assert "):
        op, left, right = compared
        pair = (right if op == "==" else f"{op} {right}", left)
    elif isinstance(exc, AssertionError):
        pair = expected_got(message)
    if pair is not None:
        data["expected"], data["got"] = pair
    if isinstance(exc, AssertionError):
        data["diff"] = _explanation(message)
    return data
