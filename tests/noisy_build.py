"""A noisy build log in the style of held-out output: the lines that matter hidden among
progress bars, colour, twelve hundred warnings of one shape, a Python traceback and npm's
errors. Deterministic: the same bytes on every call.

    from noisy_build import MATTERS, TOTAL_LINES, noisy_build
    data = noisy_build()  # 6,005 lines
    MATTERS  # the seven lines an agent must be shown, as agentout shows them
"""

from __future__ import annotations

TOTAL_LINES = 6005
WARNINGS = 1200

_ESC = "\x1b"
_RED, _GREEN, _MAGENTA, _BOLD, _RESET = (f"{_ESC}[{c}m" for c in ("31", "32", "35", "1", "0"))

# The lines that matter, as the agent must read them (colour removed).
COMPILE_ERROR = (
    "src/net/socket.c:214:10: error: 'SO_REUSEPORT' undeclared (first use in this function)"
)
LINK_ERROR = "/usr/bin/ld: build/obj/store.o: undefined reference to `page_flush_all'"
TRACEBACK = "Traceback (most recent call last):"
LOCATION = '  File "/ci/tools/gen_bindings.py", line 42, in emit'
EXCEPTION = "KeyError: 'uint128_t'"
NPM = "npm ERR! webui@1.4.0 build: `webpack --mode production`"
ENDING = "make: *** [Makefile:31: all] Error 2"
MATTERS = (COMPILE_ERROR, LINK_ERROR, TRACEBACK, LOCATION, EXCEPTION, NPM, ENDING)


def _frame(line: int, name: str) -> str:
    """A frame as Python 3.13 colours it (FORCE_COLOR, as CI sets it): the exception's
    name too, apart from its message."""
    path = f'{_MAGENTA}"/ci/tools/gen_bindings.py"{_RESET}'
    return f"  File {path}, line {_MAGENTA}{line}{_RESET}, in {_MAGENTA}{name}{_RESET}"


_CALLS = ("<module>", "main", "run", "load_all", "load", "walk", "visit", "visit_struct", "emit")


def _traceback() -> list[str]:
    lines = [TRACEBACK]
    for depth, name in enumerate(_CALLS[:-1]):
        lines += [_frame(300 - depth * 30, name), f"    {_CALLS[depth + 1]}(spec)"]
    return [*lines, _frame(42, "emit"), "    raise KeyError(name)", _EXCEPTION]


_EXCEPTION = f"{_ESC}[1;35mKeyError{_RESET}: {_MAGENTA}'uint128_t'{_RESET}"


def _npm(text: str) -> str:
    """A line as npm 6 (npmlog) colours it: the heading and the level apart."""
    return f"{_ESC}[37;40mnpm{_RESET} {_RESET}{_ESC}[31;40mERR!{_RESET} {_RESET}{text}"


_NPM_LINES = tuple(
    _npm(text)
    for text in (
        "code ELIFECYCLE",
        "errno 1",
        NPM.removeprefix("npm ERR! "),
        "Exit status 1",
        "Failed at the webui@1.4.0 build script.",
    )
)


def _progress(n: int) -> str:
    """A progress bar redrawn three times on one line, in colour."""
    steps = []
    for part in (0, 1, 2):
        done = (n * 7 + part * 13) % 40
        bar = "#" * done + " " * (40 - done)
        steps.append(f"{_GREEN}[{bar}]{_RESET} {done * 100 // 40:3d}% unit_{n:05d}")
    return "\r".join(steps)


def _warning(n: int) -> str:
    unit = f"src/gen/unit_{n:05d}.c"
    return (
        f"{_BOLD}{unit}:{n % 300 + 1}:9:{_RESET} {_MAGENTA}warning:{_RESET} "
        f"unused variable 'tmp_{n}' [-Wunused-variable]"
    )


def _compile(n: int) -> str:
    return f"{_BOLD}CC{_RESET} src/gen/unit_{n:05d}.c -> build/obj/unit_{n:05d}.o"


def noisy_lines() -> list[str]:
    """The log's lines, as printed (colour and carriage returns in them)."""
    specials = {
        900: [f"{_RED}{COMPILE_ERROR}{_RESET}"],
        2600: _traceback(),
        4100: [LINK_ERROR],
        5200: list(_NPM_LINES),
    }
    fixed = sum(len(lines) for lines in specials.values()) + 3  # the ending's three lines
    plain = TOTAL_LINES - fixed - WARNINGS
    lines: list[str] = ["make -j4 all", "mkdir -p build/obj"]
    plain -= 2
    warned = built = 0
    n = 0
    while warned < WARNINGS or built < plain:
        for at in sorted(specials):
            if n == at:
                lines.extend(specials.pop(at))
        if n % 5 == 4 and warned < WARNINGS:
            lines.append(_warning(warned))
            warned += 1
        elif built < plain:
            lines.append(_progress(built) if built % 3 == 0 else _compile(built))
            built += 1
        else:
            lines.append(_warning(warned))
            warned += 1
        n += 1
    for at in sorted(specials):
        lines.extend(specials[at])
    lines += ["make[1]: Leaving directory '/ci/build'", "build finished with errors", ENDING]
    assert len(lines) == TOTAL_LINES, len(lines)
    return lines


def noisy_build() -> bytes:
    """The log as bytes, one newline after each line."""
    return "".join(line + "\n" for line in noisy_lines()).encode("utf-8")
