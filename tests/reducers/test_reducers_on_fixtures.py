"""Every recorded command of the shell corpus, delivered as ``agentout run`` delivers it:
every fact the agent needs is kept, and the result never costs more tokens than the raw
output did (a failing command's status is the client's to say: no line of agentout's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.deliver.limits import CUT_CONTEXT_CHARS
from agentout.deliver.text import (
    CLIENT_LIMIT_CHARS,
    TextDelivery,
    TextSettings,
    deliver_output,
    short_ref,
)
from agentout.reducers import find
from agentout.reducers.facts import extract, lost
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore
from agentout.tokens import count
from command_fixtures import Fixture, fixtures

ALL = fixtures()


def deliver(fixture: Fixture, store: SpillStore, **budget: int) -> TextDelivery:
    """As ``agentout run`` delivers it to Claude Code: within what its Bash tool shows."""
    capture = Capture(threshold=CLIENT_LIMIT_CHARS, store=store)
    capture.feed(fixture.output)
    capture.close()
    settings = TextSettings(CLIENT_LIMIT_CHARS, **budget)
    return deliver_output(
        capture,
        settings,
        argv=fixture.argv,
        exit_status=fixture.exit,
        header={"exit": fixture.exit},
        reducer=find(fixture.argv),
    )


@pytest.fixture
def store(tmp_path: Path) -> SpillStore:
    return SpillStore(tmp_path / "spill")


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_every_fact_is_kept(fixture: Fixture, store: SpillStore) -> None:
    delivered = deliver(fixture, store)
    assert lost(fixture.facts, delivered.text) == []


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_never_more_tokens_than_the_raw_output(fixture: Fixture, store: SpillStore) -> None:
    delivered = deliver(fixture, store)
    raw = fixture.output.decode("utf-8", "replace")
    allowance = 0  # nothing, but the reference to bytes shown replaced (not UTF-8)
    if not _utf8(fixture.output) and delivered.ref is not None:
        allowance += count(f"[agentout show {short_ref(delivered.ref)}]\n")
    assert count(delivered.text) <= count(raw) + allowance


@pytest.mark.parametrize("fixture", ALL, ids=lambda f: f.id)
def test_what_is_left_out_is_in_the_store_byte_for_byte(
    fixture: Fixture, store: SpillStore
) -> None:
    delivered = deliver(fixture, store)
    if delivered.form == "whole" and _utf8(fixture.output):
        assert delivered.ref is None
    elif delivered.ref is not None or not _utf8(fixture.output):  # shown replaced: kept
        assert delivered.ref is not None
        assert delivered.ref.path.read_bytes() == fixture.output


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_a_reduced_form_is_whole_within_the_client_limit_and_cut_to_it_past_it(
    store: SpillStore,
) -> None:
    """157 grep matches reduce to about 10 KB: shown whole within what the client shows
    inline (cutting them loses matches); 600 go past it and are cut to it, every file still
    named; an explicit budget holds."""
    files = [f"src/pkg/module_{i:02}.py" for i in range(40)]

    def run(matches: int, **budget: int) -> TextDelivery:
        body = "".join(
            f"{files[i // 15 % 40]}:{10 + i}:    raise InputError(f'bad value {i}', path)\n"
            for i in range(matches)
        ).encode()
        argv = ("grep", "-rn", "InputError", "src")
        capture = Capture(threshold=CLIENT_LIMIT_CHARS, store=store)
        capture.feed(body)
        capture.close()
        settings = TextSettings(CLIENT_LIMIT_CHARS, **budget)
        return deliver_output(capture, settings, argv=argv, reducer=find(argv))

    whole = run(157)
    assert whole.form == "reduced"
    assert all(f"{10 + i}:" in whole.text for i in range(157))
    past = run(600)
    assert past.form == "cut"
    assert len(past.text) <= CLIENT_LIMIT_CHARS
    assert all(name in past.text for name in files)
    cut = run(157, max_chars=8192)
    assert cut.form == "cut"
    assert len(cut.text) <= 8192


def test_past_the_client_limit_a_reduced_form_gives_its_facts_then_some_context(
    store: SpillStore,
) -> None:
    """Past what the client shows inline (Claude Code would show a 2,000-character preview
    of it), grep's form gives every file with the line of every match, then matches in
    full within CUT_CONTEXT_CHARS; it does not fill the client's limit."""
    files = [f"src/pkg/module_{i:02}.py" for i in range(40)]
    body = "".join(
        f"{files[i // 15 % 40]}:{10 + i}:    raise InputError(f'bad value {i}', path)\n"
        for i in range(600)
    )
    argv = ("grep", "-rn", "InputError", "src")
    capture = Capture(threshold=CLIENT_LIMIT_CHARS, store=store)
    capture.feed(body.encode())
    capture.close()
    delivered = deliver_output(
        capture, TextSettings(CLIENT_LIMIT_CHARS), argv=argv, reducer=find(argv)
    )
    assert delivered.form == "cut"
    assert lost(extract(r"^([^:\n]+):(\d+):", body), delivered.text) == []
    facts = sum(len(f"{name}\n  [… 15 not shown: ]\n") + 15 * 5 for name in files)
    assert len(delivered.text) <= facts + CUT_CONTEXT_CHARS + 200  # the closing line
    assert "raise InputError" in delivered.text  # and some matches in full


def test_past_the_client_limit_a_failing_build_gives_its_errors_not_its_chatter(
    store: SpillStore,
) -> None:
    """A build that fails with 7 errors among 200,000 lines of progress: every error line,
    within 700 tokens; plain text of that size is as much as the client's preview."""
    lines = [f"[{i:>6}/200000] Compiling module_{i}.c" for i in range(200_000)]
    errors = [f"src/module_{i}.c:{i + 3}:5: error: unknown type name 'size_tt'" for i in range(7)]
    for n, error in enumerate(errors):
        lines.insert(20_000 * (n + 1), error)
    lines.append("make: *** [Makefile:12: all] Error 1")

    def run(text: str, status: int) -> TextDelivery:
        capture = Capture(threshold=CLIENT_LIMIT_CHARS, store=store)
        capture.feed(text.encode())
        capture.close()
        settings = TextSettings(CLIENT_LIMIT_CHARS)
        return deliver_output(capture, settings, argv=("./build.sh",), exit_status=status)

    failed = run("\n".join(lines) + "\n", 2)
    assert all(error in failed.text for error in errors)
    assert "make: *** [Makefile:12: all] Error 1" in failed.text
    assert count(failed.text) <= 700
    prose = "".join(f"Line {i} of a long story, told plainly, word by word.\n" for i in range(5000))
    plain = run(prose, 0)
    assert CUT_CONTEXT_CHARS * 0.9 <= len(plain.text) <= CUT_CONTEXT_CHARS + 200  # closing line


def test_past_the_client_limit_source_code_that_speaks_of_errors_is_text(
    store: SpillStore,
) -> None:
    """A module of error patterns (``raise ValueError``, ``"ERROR: "``) is read as text: it
    has more definitions than lines of trouble, so its cut gives its outline (every
    definition) and a preview's worth more, rather than only the lines that look like
    errors; never more than the client shows inline."""
    module = "".join(
        f"def check_{i}(value):\n"
        f"    '''Check {i}: the value must be set.\n\n"
        + "    It is read from the settings, once, and kept for the run.\n" * 4
        + "    '''\n"
        + (
            '    if value is None:\n        raise ValueError("ERROR: value is not set")\n'
            * (i % 3 == 0)
        )
        + f"    return value + {i}\n\n"
        for i in range(200)
    )
    capture = Capture(threshold=CLIENT_LIMIT_CHARS, store=store)
    capture.feed(module.encode())
    capture.close()
    delivered = deliver_output(capture, TextSettings(CLIENT_LIMIT_CHARS), argv=("cat", "m.py"))
    assert all(f"def check_{i}(value):" in delivered.text for i in range(200))
    assert len(delivered.text) <= CLIENT_LIMIT_CHARS
