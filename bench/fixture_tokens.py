"""Tokens of every recorded command (tests/fixtures/commands) as ``agentout run`` delivers
it with no budget: the form, the tokens, whether the output is stored and named.

Measured apart, by hand, to compare two versions of the delivery or the reducers: run it
on each and compare the JSON.

    .venv/bin/python bench/fixture_tokens.py --json > after.json
    .venv/bin/python bench/fixture_tokens.py --compare before.json

The first prints one JSON object by case; the second prints the cases whose delivery
changed since ``before.json`` (written the same way by another version), then the totals.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from agentout.deliver.text import TextSettings, deliver_output  # noqa: E402
from agentout.reducers import find  # noqa: E402
from agentout.store.capture import Capture  # noqa: E402
from agentout.store.spill import SpillStore  # noqa: E402
from agentout.tokens import count  # noqa: E402
from command_fixtures import fixtures  # noqa: E402

THRESHOLD = 8192  # agentout run's default inline threshold


def measure() -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="agentout-bench-") as scratch:
        for fixture in fixtures():
            capture = Capture(threshold=THRESHOLD, store=SpillStore(Path(scratch) / "store"))
            capture.feed(fixture.output)
            capture.close()
            reducer = find(fixture.argv)
            delivered = deliver_output(
                capture,
                TextSettings(THRESHOLD),
                argv=fixture.argv,
                exit_status=fixture.exit,
                header={"exit": fixture.exit},
                reducer=reducer,
            )
            rows[fixture.id] = {
                "raw": count(fixture.output.decode("utf-8", "replace")),
                "tokens": count(delivered.text),
                "form": delivered.form,
                "stored": delivered.ref is not None,
                "reducer": None if reducer is None else reducer.name,
            }
    return rows


def compare(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> str:
    lines = []
    for case in sorted(after):
        old, new = before.get(case), after[case]
        if old != new:
            was = "new case" if old is None else f"{old['tokens']} {old['form']}"
            stored = " stored" if new["stored"] else ""
            lines.append(f"{case}: {was} -> {new['tokens']} {new['form']}{stored}")
    total_before = sum(row["tokens"] for case, row in before.items() if case in after)
    total_after = sum(row["tokens"] for row in after.values())
    raw = sum(row["raw"] for row in after.values())
    lines.append(
        f"{len(after)} cases: {total_before:,} -> {total_after:,} tokens "
        f"({total_after - total_before:+,}; raw {raw:,})"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    parser.add_argument("--compare", metavar="BEFORE.json", help="compare with another run")
    args = parser.parse_args()
    rows = measure()
    if args.compare:
        print(compare(json.loads(Path(args.compare).read_text(encoding="utf-8")), rows))
    elif args.json:
        print(json.dumps(rows, indent=1, sort_keys=True))
    else:
        for case, row in sorted(rows.items()):
            stored = " stored" if row["stored"] else ""
            print(f"{case:<32} {row['raw']:>7} -> {row['tokens']:<6} {row['form']}{stored}")


if __name__ == "__main__":
    main()
