"""Record the shell corpus's raw outputs as fixtures for the reducers' tests.

Runs every case of bench/shell/cases.py (the bench's and the extra ones) in a workspace
prepared as the bench prepares it, and writes, per case:

    tests/fixtures/commands/<family>/<case>/
        cmd          the argv, as JSON
        output       the raw bytes, stdout and stderr merged in order through one pipe
                     (output.gz instead, gzip with no name or time, when over 200 KB)
        exit         the exit status, as a shell reports it
        facts.json   the facts an agent needs from it (agentout.reducers.facts.dumps)

    .venv/bin/python scripts/record_command_fixtures.py
    .venv/bin/python scripts/record_command_fixtures.py --only git-status,ruff

Outputs are stored exactly as recorded: paths inside the temporary workspace appear as they
were (``/tmp/agentout-corpus-XXXX/...``). A case whose tool is missing keeps its old
fixture and is named on stderr; a fixture of a case no longer in the corpus is removed.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from agentout.reducers.facts import dumps  # noqa: E402
from shell.capture import capture  # noqa: E402
from shell.cases import ALL, Case  # noqa: E402
from shell.tools import prepare_tools  # noqa: E402
from shell.workspace import Workspace, prepare  # noqa: E402

DEFAULT_OUTPUT = ROOT / "tests" / "fixtures" / "commands"
GZIP_OVER = 200_000


def gzipped(data: bytes) -> bytes:
    """gzip with no file name and a zero time, so the same bytes give the same file."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(data)
    return buffer.getvalue()


def record(ws: Workspace, case: Case, target: Path) -> int:
    """Run ``case`` once and write its fixture into ``target`` (replaced); its fact count."""
    case.reset(ws.root)
    done = capture(case.argv, case.where(ws.root), case.environment(ws.env))
    facts = case.facts(done.output.decode("utf-8", "replace"))
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    (target / "cmd").write_text(json.dumps(list(case.argv)) + "\n", encoding="utf-8")
    if len(done.output) > GZIP_OVER:
        (target / "output.gz").write_bytes(gzipped(done.output))
    else:
        (target / "output").write_bytes(done.output)
    (target / "exit").write_text(f"{done.exit}\n", encoding="utf-8")
    (target / "facts.json").write_text(dumps(facts), encoding="utf-8")
    return len(facts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", metavar="NAMES", help="comma-separated cases")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, metavar="DIR")
    args = parser.parse_args(argv)
    only = [name for name in args.only.split(",") if name]
    unknown = sorted(set(only) - {case.name for case in ALL})
    if unknown:
        parser.error(f"no such case: {', '.join(unknown)}")
    cases = [case for case in ALL if not only or case.name in only]
    tools = prepare_tools()
    with tempfile.TemporaryDirectory(prefix="agentout-corpus-") as tmp:
        ws = prepare(Path(tmp), tools)
        for note in ws.notes:
            print(f"record: {note}", file=sys.stderr)
        for case in cases:
            reason = case.missing(tools)
            if reason:
                print(f"record: {case.name}: not recorded, {reason}", file=sys.stderr)
                continue
            facts = record(ws, case, args.output / case.family / case.name)
            print(f"record: {case.family}/{case.name}: {facts} facts", file=sys.stderr)
    if not only:
        known = {(case.family, case.name) for case in ALL}
        for stale in sorted(args.output.glob("*/*")):
            if stale.is_dir() and (stale.parent.name, stale.name) not in known:
                shutil.rmtree(stale)
                print(f"record: removed {stale.relative_to(args.output)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
