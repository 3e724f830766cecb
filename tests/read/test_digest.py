"""The lines that matter, in the order they matter: what any output is cut to."""

from __future__ import annotations

from agentout.formats.raw import FORMAT as RAW
from agentout.pack import pack
from agentout.read.digest import digest
from agentout.read.trouble import Scan
from agentout.records import Result


def _digested(text: str, max_chars: int) -> str:
    data = text.encode()
    scan = Scan()
    scan.feed(data)
    found = digest(scan.finish(), lambda: (data,))
    header = {"lines": found.lines, "ref": "0123456789abcdef"}
    return pack(
        Result.of(found.records, header, order=found.order), format=RAW, max_chars=max_chars
    ).text


def test_a_source_file_over_the_budget_shows_every_definition_before_its_bodies() -> None:
    body = "".join(
        f"    value_{j} = compute({j}, 'some long argument text here')\n" for j in range(30)
    )
    source = "".join(f"def function_{i}(argument):\n{body}\n" for i in range(40))
    source += "class Last:\n    pass\n"
    assert len(source) > 50_000
    shown = _digested(source, 8000)
    assert len(shown) <= 8000
    for i in range(40):
        assert f"def function_{i}(argument):" in shown
    assert "class Last:" in shown


def test_plain_text_fills_the_budget_in_order() -> None:
    prose = "".join(
        f"paragraph {i} says something different about topic {i * 7}\n" for i in range(3000)
    )
    shown = _digested(prose, 20_000).splitlines()
    body = [line for line in shown if not line.startswith("[")]
    assert len("\n".join(shown)) <= 20_000
    assert len(body) > 200  # as much of it as the budget holds, not a few ends
    numbers = [int(line.split()[1]) for line in body]
    assert numbers == sorted(numbers)


def test_a_log_s_noise_is_folded_by_shape_and_its_errors_kept() -> None:
    lines = [
        f"2026-01-01T00:00:{i % 60:02d}Z INFO request {i} took {i % 97} ms" for i in range(5000)
    ]
    lines[2500] = "2026-01-01T00:41:40Z ERROR disk full"
    shown = _digested("\n".join(lines) + "\n", 30_000)
    assert "ERROR disk full" in shown
    assert "more like this: * INFO request * took * ms]" in shown
    assert shown.splitlines()[-2] == lines[-1]  # how it ended, before the closing line
    assert len(shown) < 3000  # the noise said once, not 30,000 characters of it


def test_lines_of_numbers_alone_are_not_folded() -> None:
    shown = _digested("".join(f"{i}\n" for i in range(1, 20_001)), 30_000)
    assert "more like this" not in shown
    assert shown.startswith("1\n2\n3\n")


def test_the_tightest_budget_shows_how_it_ended_then_the_errors() -> None:
    lines = [f"step {i} ok" for i in range(1000)]
    lines[10] = "error: the first thing broke"
    lines.append("FAILED: 1 error")
    shown = _digested("\n".join(lines) + "\n", 400)
    assert "FAILED: 1 error" in shown
    assert "error: the first thing broke" in shown
