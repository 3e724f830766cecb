"""Command output drawn by Hypothesis: lines of several shapes (a compiler's warnings, a
log's records), the same line or the same few lines again and again, errors with their
traceback, and noise (colour, progress bars redrawn with carriage returns, a byte that is
not UTF-8), from a few lines to past what a scan keeps whole.

    from generated_output import outputs
    @given(data=outputs())
    def test(data: bytes) -> None: ...
"""

from __future__ import annotations

from hypothesis import strategies as st

_ESC = "\x1b"


def _warning(i: int, colour: bool, shape: int) -> str:
    where = f"src/mod_{i % 13}/file_{i % 7}.c:{i % 400 + 1}:{i % 30 + 1}:"
    text = (
        f"warning: unused variable 'tmp_{i}' [-Wunused-variable]",
        f"warning: comparison of integer expressions of different signedness: 'int' and "
        f"'size_t' [-Wsign-compare] at {i}",
        f"warning: '{'abcdef'[i % 6]}_{i}' may be used uninitialized [-Wmaybe-uninitialized]",
    )[shape]
    if colour:
        return f"{_ESC}[1m{where}{_ESC}[m{_ESC}[K {_ESC}[01;35m{_ESC}[K{text}{_ESC}[m{_ESC}[K"
    return f"{where} {text}"


def _log(i: int, colour: bool, shape: int) -> str:
    time = f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
    text = (
        f"INFO request {i} took {i * 7 % 97} ms",
        f"INFO cache miss for key 'user:{i}' after {i % 5} tries",
        f"DEBUG worker {i % 8} picked job {i} from queue default",
    )[shape]
    level = text.split(" ", 1)[0]
    if colour:
        text = text.replace(level, f"{_ESC}[32m{level}{_ESC}[0m", 1)
    return f"{time} {text}"


def _noise(i: int, colour: bool, kind: int) -> str:
    if kind == 0:
        done = i * 7 % 40
        steps = [f"[{'#' * (done - k):<40}] {(done - k) * 5 // 2}%" for k in (4, 2, 0)]
        return "\r".join(steps)
    if kind == 1:
        return f"Compiling crate_{i} v0.{i % 9}.{i % 4} (/work/crates/crate_{i})"
    if kind == 2:
        return f"  -> step {i}: {'checked' if i % 2 else 'skipped'} {'x' * (i % 50)}"
    text = f"building target {i} of the project"
    return f"{_ESC}[36m{text}{_ESC}[0m" if colour else text


_TRACEBACK = (
    "Traceback (most recent call last):",
    '  File "/srv/app/worker.py", line 88, in <module>',
    "    main()",
    '  File "/srv/app/worker.py", line 42, in main',
    "    connect(retries=3)",
    "ConnectionError: the database did not answer",
)

_segment = st.tuples(
    st.sampled_from(["warnings", "log", "noise", "repeat", "block", "error", "mixed"]),
    st.integers(min_value=1, max_value=1500),
    st.booleans(),  # colour
    st.integers(min_value=0, max_value=3),  # which shape
)


def _lines(segment: tuple[str, int, bool, int], start: int) -> list[str]:
    kind, count, colour, shape = segment
    if kind == "warnings":
        return [_warning(start + i, colour, shape % 3) for i in range(count)]
    if kind == "log":
        return [_log(start + i, colour, shape % 3) for i in range(count)]
    if kind == "noise":
        return [_noise(start + i, colour, shape) for i in range(count)]
    if kind == "repeat":
        line = _log(start, colour, shape % 3) if shape % 2 else _noise(start, colour, 1)
        return [line] * count
    if kind == "block":
        return list(_TRACEBACK) * min(count, 120)
    if kind == "error":
        return [f"src/app/main.c:{start % 900 + 1}:5: error: '{'xyz'[shape % 3]}' undeclared"]
    # mixed: a warning every third line, among noise
    return [
        _warning(start + i, colour, shape % 3) if i % 3 == 2 else _noise(start + i, colour, 1)
        for i in range(count)
    ]


@st.composite
def outputs(draw: st.DrawFn, *, max_segments: int = 8) -> bytes:
    """Bytes as a command prints them (see the module docstring)."""
    segments = draw(st.lists(_segment, min_size=1, max_size=max_segments))
    lines: list[str] = []
    for segment in segments:
        lines += _lines(segment, len(lines))
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    if draw(st.booleans()):  # a byte that is not UTF-8, somewhere
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        data = data[:at] + b"\xff" + data[at:]
    if draw(st.booleans()):
        data = data.rstrip(b"\n")  # the last line without its newline
    return data
