"""The text format, golden outputs with width and environment pinned (as rich tests itself)."""

from __future__ import annotations

import io
import re
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout import Record, Result, pack
from agentout.formats import text as text_format
from agentout.formats.text import DEFAULT_WIDTH, TextFormat
from agentout.read.visible import UNSHOWN
from agentout.records import Document, Stats

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


def _document() -> Document:
    a = Record.of({"test": "t.py::test_a", "status": "passed"})
    b = Record.of({"test": "t.py::test_b", "status": "passed"})
    ok = Record.of(
        {
            "test": "t.py::test_ok",
            "status": "passed",
            "message": "a fairly long message that needs more than one line to be shown"
            " at this width, so it wraps",
        }
    )
    skip = Record.of(
        {"test": "t.py::test_skip", "status": "skipped", "reason": "needs db"}, kind="S"
    )
    bad = Record.of(
        {
            "test": "t.py::test_bad",
            "error": "assert 1 == 2\n  where 1 = f()",
            "tags": ["slow", "db"],
        },
        kind="E",
    )
    stats = Stats(
        total=6, included=5, omitted=1, reduced=0, tokens=87, tokenizer="o200k_base", truncated=True
    )
    return Document(
        {"mode": "test", "cmd": "pytest -q"},
        stats,
        tuple((r, r.fullest) for r in (a, b, ok, skip, bad)),
        {"failed": 1, "passed": 3, "skipped": 1},
    )


# Short records take one line each, runs of them together; longer ones a block apart.
PLAIN = """\
agentout · 5 of 6 records · 1 omitted · 87 tokens (o200k_base)
mode: test · cmd: pytest -q

#1  test: t.py::test_a · status: passed
#2  test: t.py::test_b · status: passed

#3
  test     t.py::test_ok
  status   passed
  message  a fairly long message that needs more than one line to be
           shown at this width, so it wraps

#4 S  test: t.py::test_skip · status: skipped · reason: needs db

#5 E
  test   t.py::test_bad
  error  assert 1 == 2
           where 1 = f()
  tags   ["slow", "db"]

summary  failed: 1 · passed: 3 · skipped: 1
"""

BOLD, DIM, CYAN, YELLOW, END = "\x1b[1m", "\x1b[2m", "\x1b[36m", "\x1b[33m", "\x1b[0m"
DOT = f"{DIM} · {END}"
COLOUR = (
    f"{BOLD}agentout{END}{DOT}{BOLD}5 of 6 records{END}{DOT}{YELLOW}1 omitted{END}{DOT}"
    "87 tokens (o200k_base)\n"
    f"{DIM}mode: {END}test{DOT}{DIM}cmd: {END}pytest -q\n"
    "\n"
    f"{BOLD}#1{END}  {CYAN}test{END}: t.py::test_a{DOT}{CYAN}status{END}: passed\n"
    f"{BOLD}#2{END}  {CYAN}test{END}: t.py::test_b{DOT}{CYAN}status{END}: passed\n"
    "\n"
    f"{BOLD}#3{END}\n"
    f"  {CYAN}test{END}     t.py::test_ok\n"
    f"  {CYAN}status{END}   passed\n"
    f"  {CYAN}message{END}  a fairly long message that needs more than one line to be\n"
    "           shown at this width, so it wraps\n"
    "\n"
    f"{BOLD}#4 S{END}  {CYAN}test{END}: t.py::test_skip{DOT}{CYAN}status{END}: skipped"
    f"{DOT}{CYAN}reason{END}: needs db\n"
    "\n"
    f"{BOLD}#5 E{END}\n"
    f"  {CYAN}test{END}   t.py::test_bad\n"
    f"  {CYAN}error{END}  assert 1 == 2\n"
    "           where 1 = f()\n"
    f'  {CYAN}tags{END}   ["slow", "db"]\n'
    "\n"
    f"{BOLD}summary{END}  {CYAN}failed{END}: 1{DOT}{CYAN}passed{END}: 3{DOT}"
    f"{CYAN}skipped{END}: 1\n"
)


def test_golden_plain() -> None:
    assert TextFormat(width=72).render(_document()) == PLAIN
    assert TextFormat(width=72, color=False).styled(_document()) == PLAIN


def test_golden_colour() -> None:
    assert TextFormat(width=72, color=True).styled(_document()) == COLOUR


def test_golden_no_color_keeps_bold_drops_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    # Coloured spans lose their codes; bold and dim stay (NO_COLOR is about colour only).
    expected = re.sub(r"\x1b\[(?:36|33)m(.*?)\x1b\[0m", r"\1", COLOUR)
    assert CYAN not in expected
    assert BOLD in expected
    assert TextFormat(width=72).styled(_document()) == expected


def test_flags_in_the_counts_line() -> None:
    stats = Stats(
        total=5,
        included=1,
        omitted=4,
        reduced=1,
        tokens=9,
        tokenizer="chars4",
        truncated=True,
        over_budget=True,
    )
    record = Record.of({"id": 1})
    document = Document({}, stats, ((record, record.fullest),), {})
    assert TextFormat(width=100).render(document) == (
        "agentout · 1 of 5 records · 4 omitted · 1 shortened · 9 tokens (chars4) · over budget\n"
        "\n"
        "#1  id: 1\n"
    )
    assert "\x1b[1;31mover budget\x1b[0m" in TextFormat(width=100, color=True).styled(document)


def test_piped_output_is_plain_at_the_pinned_width() -> None:
    fmt = TextFormat()
    long_value = "word " * 60
    document = pack(Result.of([Record.of({"v": long_value})]), format=fmt).document
    assert fmt.styled(document) == fmt.render(document)
    assert max(len(line) for line in fmt.render(document).splitlines()) <= DEFAULT_WIDTH
    assert max(len(line) for line in fmt.render(document).splitlines()) > DEFAULT_WIDTH - 10


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_colour_and_its_own_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Terminal())
    monkeypatch.setenv("COLUMNS", "60")
    fmt = TextFormat()
    document = pack(Result.of([Record.of({"v": "word " * 60})]), format=fmt).document
    styled = fmt.styled(document)
    assert CYAN in styled
    assert max(len(line) for line in fmt.render(document).splitlines()) <= 60
    assert _ANSI.sub("", styled) == fmt.render(document)


@pytest.mark.parametrize(
    ("env", "coloured"),
    [
        ({"FORCE_COLOR": "1"}, True),
        ({"FORCE_COLOR": "1", "TERM": "dumb"}, False),
        ({}, False),
    ],
)
def test_styling_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], coloured: bool
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    document = _document()
    styled = TextFormat(width=72).styled(document)
    assert (styled == COLOUR) is coloured
    assert (styled == PLAIN) is not coloured


def test_explicit_colour_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert TextFormat(width=72, color=False).styled(_document()) == PLAIN
    monkeypatch.setenv("NO_COLOR", "1")
    assert TextFormat(width=72, color=True).styled(_document()) == COLOUR


def test_control_characters_are_shown_not_sent() -> None:
    record = Record.of({"out": "\x1b[31mred\x1b[0m\x07 done\r\nnext", "k\x1bey": 1})
    stats = Stats(1, 1, 0, 0, 1, "chars4", False)
    text = TextFormat(width=80).render(Document({}, stats, ((record, record.fullest),), {}))
    assert not re.search("[\x1b\x07\r]", text)
    assert "\\u001b[31mred\\u001b[0m\\u0007 done\n" in text
    assert "  k\\u001bey  1\n" in text
    assert TextFormat(width=80).render(Document({}, stats, ((record, {"k\tey": 1}),), {})) == (
        "agentout · 1 of 1 records · 1 tokens (chars4)\n\n#1  k\\tey: 1\n"
    )


def test_long_keys_get_a_line_of_their_own() -> None:
    # Too long for a one-line record (more than two lines), so a block; the 30-cell key
    # is over the 24-cell key column, so its value starts on the next line.
    record = Record.of({"id": 7, "k" * 30: "value " * 30})
    stats = Stats(1, 1, 0, 0, 1, "chars4", False)
    text = TextFormat(width=80).render(Document({}, stats, ((record, record.fullest),), {}))
    twelve = "      " + "value " * 11 + "value\n"  # 74 cells of room: 12 words a line
    assert text.endswith(
        "#1\n  id  7\n  " + "k" * 30 + "\n" + twelve + twelve + "      " + "value " * 5 + "value\n"
    )


def test_a_short_record_wraps_once_under_a_hanging_indent() -> None:
    # Wrapped at 40 - 4 cells so the second line fits under its 4-space indent.
    record = Record.of({"id": 7, "note": "word " * 8})
    stats = Stats(1, 1, 0, 0, 1, "chars4", False)
    text = TextFormat(width=40).render(Document({}, stats, ((record, record.fullest),), {}))
    assert text.endswith("\n#1  id: 7 · note: word word word\n    word word word word word\n")
    longer = Document({}, stats, ((record, {"id": 7, "note": "word " * 15}),), {})
    assert "\n#1\n  id    7\n  note  word" in TextFormat(width=40).render(longer)


# what a reader sees: the characters shown as nothing are escaped (read.visible)
_printable = st.text(
    st.characters(exclude_categories=("Cc", "Cs")).filter(lambda c: not UNSHOWN.match(c)),
    max_size=120,
)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.dictionaries(st.text(min_size=1, max_size=30), _printable, min_size=1, max_size=4),
        min_size=1,
        max_size=4,
    ),
    width=st.integers(min_value=20, max_value=120),
)
def test_styling_never_changes_the_characters(values: list[dict[str, str]], width: int) -> None:
    records = tuple((r, r.fullest) for r in map(Record.of, values))
    document = Document({"mode": "x"}, Stats(9, 4, 5, 0, 77, "o200k_base", True), records, {})
    plain = TextFormat(width=width).render(document)
    assert _ANSI.sub("", TextFormat(width=width, color=True).styled(document)) == plain
    squeezed = re.sub(r"\s+", "", plain)
    for fields in values:  # every non-blank value is there, however it was wrapped
        for value in fields.values():
            assert re.sub(r"\s+", "", value) in squeezed


_cells_text = st.text(
    alphabet=st.sampled_from(list("ab  -·é\t\n\u0301\u4e00\U0001f44d")) | st.characters(),
    max_size=90,
)


def _rich_wrap(writer: object, text: Any, width: int) -> list[Any]:
    return list(text.wrap(text_format._measuring_console(), width, overflow="fold"))


@settings(max_examples=80, deadline=None)
@given(
    values=st.lists(
        st.dictionaries(st.text(min_size=1, max_size=12), _cells_text, min_size=1, max_size=4),
        min_size=1,
        max_size=4,
    ),
    width=st.integers(min_value=1, max_value=90),
)
def test_a_line_that_fits_is_what_rich_would_wrap_it_to(
    values: list[dict[str, str]], width: int
) -> None:
    records = tuple((r, r.fullest) for r in map(Record.of, values))
    document = Document({"mode": "x"}, Stats(9, 4, 5, 0, 77, "o200k_base", True), records, {})
    fmt = TextFormat(width=width, color=True)
    fast = (fmt.render(document), fmt.styled(document), fmt.fragment(*records[0]))
    with pytest.MonkeyPatch.context() as patch:  # every line through rich's own wrap
        patch.setattr(text_format._Writer, "_wrap", _rich_wrap)
        assert (fmt.render(document), fmt.styled(document), fmt.fragment(*records[0])) == fast


def test_the_terminal_width_follows_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Terminal())
    document = pack(Result.of([Record.of({"v": "word " * 60})]), format=TextFormat()).document
    widths = []
    for columns in ("60", "40", "60"):
        monkeypatch.setenv("COLUMNS", columns)
        widths.append(max(len(line) for line in TextFormat().render(document).splitlines()))
    assert 40 < widths[0] <= 60
    assert widths[1] <= 40
    assert widths[2] == widths[0]
