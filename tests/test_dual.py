"""Two audiences: complete content for the model, a concise display for the person."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path

import pytest

from agentout.deliver.dual import Progress, ToolResult, format_for_llm, format_for_user
from agentout.deliver.hybrid import deliver_records
from agentout.formats.raw import closing_fields
from agentout.tokens import count

RESULT = "\n".join(f"R id={i} status=ok" for i in range(40)) + "\n"


@pytest.fixture(autouse=True)
def _private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    monkeypatch.delenv("AGENTOUT_VERBOSE", raising=False)


def test_the_model_gets_everything_the_person_a_summary() -> None:
    result = ToolResult.of("query", RESULT, {"rows": 40, "took": "0.2s"})
    assert result.content == RESULT
    lines = result.display.splitlines()
    assert lines[0] == "✓ query: rows 40, took 0.2s"
    assert lines[1:6] == [f"   R id={i} status=ok" for i in range(5)]
    assert lines[6] == "   … 35 more lines"
    assert len(lines) == 7


def test_an_error_leads_both_views() -> None:
    result = ToolResult.of("build", "E n=3 text=boom\n", {"exit": 2}, "exit status 2")
    assert result.content == "build: error: exit status 2\nE n=3 text=boom\n"
    assert result.display.splitlines()[:2] == ["✗ build: exit 2", "   error: exit status 2"]
    assert result.error == "exit status 2"


def test_verbose_makes_the_display_the_content(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_VERBOSE", "1")
    result = ToolResult.of("query", RESULT, {"rows": 40})
    assert result.display == result.content == format_for_llm("query", RESULT)
    monkeypatch.setenv("AGENTOUT_VERBOSE", "0")
    assert format_for_user("query", RESULT) != RESULT


def test_long_preview_lines_are_clipped_for_the_person() -> None:
    display = format_for_user("read", "x" * 1000 + "\nshort\n", {})
    first = display.splitlines()[1]
    assert len(first) == 3 + 120
    assert first.endswith("…")


def test_from_delivery_reports_mode_counts_and_file() -> None:
    rows = [{"id": i, "status": "ok"} for i in range(2000)]
    delivery = deliver_records(rows)
    result = ToolResult.from_delivery("query", delivery)
    assert result.content == delivery.text
    assert delivery.ref is not None
    assert result.metadata["mode"] == "file"
    assert result.metadata["file"] == str(delivery.ref.path)
    assert result.metadata["bytes"] == delivery.ref.size
    assert result.metadata["lines"] == 2000
    assert result.display.startswith("✓ query: mode file, ")


def test_progress_in_a_pipe_is_one_line_per_event_even_from_threads() -> None:
    stream = io.StringIO()
    names = [f"task {t}-{i}" for t in range(8) for i in range(25)]
    with Progress("Subagent", total=len(names), stream=stream, parallel=8) as progress:

        def work(t: int) -> None:
            for i in range(25):
                progress.advance(f"task {t}-{i}", ok=i != 3, detail=f"{i} tokens")

        threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    text = stream.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[0] == "Subagent: running 200 tasks (max 8 parallel)"
    events = lines[1:-1]
    assert len(events) == 200
    assert [int(line.split("[")[1].split("/")[0]) for line in events] == list(range(1, 201))
    assert sorted(line.split("] ")[1].split(" |")[0] for line in events) == sorted(names)
    assert sum(line.startswith("   ✗") for line in events) == 8
    assert lines[-1] == "   ━━━ Completed: 192/200 ok, 8 failed"


def test_progress_on_a_terminal_draws_a_rich_bar() -> None:
    stream = io.StringIO()
    with Progress("Indexing", total=3, stream=stream, live=True) as progress:
        for name in ("a", "b", "c"):
            progress.advance(name)
    text = stream.getvalue()
    assert "Indexing" in text
    assert "3/3" in text or "100%" in text
    assert text.splitlines()[-1] == "   ━━━ Completed: 3/3 ok, 0 failed"


def test_progress_is_lines_when_the_stream_is_not_a_terminal() -> None:
    progress = Progress("x", total=1, stream=io.StringIO())
    assert progress.live is False


def test_a_failed_commands_result_for_the_model_stays_within_its_budget() -> None:
    """Review finding 6: the whole argv and the error went before the packed text."""
    from agentout.sources.command import run

    script = "import sys; print('error: it broke'); sys.exit(3)  # " + "padding " * 300
    done = run([sys.executable, "-c", script], max_tokens=128)
    result = done.tool_result()
    assert result.content == done.delivery.text
    assert count(result.content) <= 128
    # as printed: the status is the run's (the client says it), not a line of the content
    assert result.content == "error: it broke\n"
    assert closing_fields(result.content) == {}
    assert result.error == "exit status 3"
    first, second = result.display.splitlines()[:2]
    assert first.startswith(f"✗ {sys.executable} -c ")
    assert "… (+" in first  # the person's line names the command clipped, too
    assert second == "   error: exit status 3"
    verbose = done.tool_result(verbose=True)
    assert verbose.display == verbose.content == done.delivery.text
