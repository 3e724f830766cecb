"""A test runner this machine does not have, standing in with a run of it that was recorded.

    python3 examples/docs/recorded.py RUNNER DIR

writes DIR/PROGRAM (``go`` for go, ``npx`` for jest and vitest): put DIR first on PATH and
``agentout test -- go test ./...`` gets what ``go test -json ./...`` printed when
examples/runners/record.py ran it (tests/testing/runs/, the runs the test suite reads):
the same stdout or results file (its paths in the folder it runs in), stderr and exit
status. It answers only the command
agentout runs for that runner, and refuses any other.
"""

import json
import sys
from pathlib import Path

RUNS = Path(__file__).resolve().parents[2] / "tests" / "testing" / "runs"
SHIM = """#!{python}
import json, sys
from pathlib import Path

runs = Path({runs!r})
meta = json.loads((runs / {meta!r}).read_text())
argv = sys.argv[1:]
ran = meta["ran"][1:]
if len(argv) != len(ran) or any(
    a != r and not (r.split("PRIVATE/")[0] and a.startswith(r.split("PRIVATE/")[0]))
    for a, r in zip(argv, ran)
):
    sys.exit(f"recorded {{meta['command'][0]}}: only {{' '.join(meta['ran'])}} was recorded")
import os
for name in meta["files"]:  # the run's folder, where it was recorded, is this one
    text = (runs / name).read_text().replace(meta["cwd"], os.getcwd())
    if name.endswith(".out"):
        sys.stdout.write(text)
    else:
        where = next(a for a, r in zip(argv, ran) if "PRIVATE/" in r)
        Path(where.split("=", 1)[-1]).write_text(text)
sys.stderr.write(meta["stderr"])
sys.exit(meta["exit_status"])
"""

runner, folder = sys.argv[1], Path(sys.argv[2])
meta = json.loads((RUNS / f"{runner}.meta.json").read_text())
folder.mkdir(parents=True, exist_ok=True)
program = folder / meta["command"][0]
program.write_text(SHIM.format(python=sys.executable, runs=str(RUNS), meta=f"{runner}.meta.json"))
program.chmod(0o755)
