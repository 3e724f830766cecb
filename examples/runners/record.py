"""Record what each test runner writes, from real runs, for agentout's tests.

    .venv/bin/python examples/runners/record.py [RUNNER...]

Each example project here (a small shop with the same three bugs: quantities ignored,
tax codes looked up as given, cents not padded) is copied to a temporary folder and run
with exactly the command ``agentout test -- COMMAND`` runs (``runners.detect`` and
``Runner.prepare``). What the runner wrote (its results file, or its stdout for
``go test -json`` and libtest JSON) is saved under tests/testing/runs/ with a
``NAME.meta.json`` that says the command, the folder it ran in, its exit status and what it
printed on stderr; the tests read them back with the same readers. A runner that is not
installed is skipped, saying so (jest and vitest are installed with npm into the copy).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "tests" / "testing" / "runs"
sys.path.insert(0, str(ROOT / "src"))

from agentout.sources.testing.runners.detect import detect  # noqa: E402

# runner name -> (example folder, command, tools it needs)
COMMANDS: dict[str, tuple[str, list[str], list[str]]] = {
    "jest": ("jest", ["npx", "jest"], ["npm", "npx"]),
    "vitest": ("vitest", ["npx", "vitest"], ["npm", "npx"]),
    "node": ("node", ["node", "--test"], ["node"]),
    "go": ("go", ["go", "test", "./..."], ["go"]),
    "cargo": ("rust", ["cargo", "test", "--no-fail-fast"], ["cargo"]),
    "nextest": ("rust", ["cargo", "nextest", "run", "--no-fail-fast"], ["cargo", "cargo-nextest"]),
    "maven": ("maven", ["mvn", "-o", "-q", "test"], ["mvn"]),
}


def _record(name: str, work: Path) -> str:
    folder, command, tools = COMMANDS[name]
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        return f"{name}: skipped, not installed here: {', '.join(missing)}"
    project = work / folder
    if not project.exists():
        ignore = shutil.ignore_patterns("target", "node_modules", "Cargo.lock")
        shutil.copytree(HERE / folder, project, ignore=ignore)
    if (project / "package.json").exists() and not (project / "node_modules").exists():
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"],
                       cwd=project, check=True)  # fmt: skip
    runner = detect(command)
    assert runner is not None, command
    private = Path(tempfile.mkdtemp(prefix="agentout-record-"))
    try:
        prepared = runner.prepare(private)
        done = subprocess.run(
            prepared.argv,
            cwd=project,
            env={**os.environ, **prepared.env},
            capture_output=True,
            text=True,
            timeout=600,
        )
        saved: list[str] = []
        if prepared.results is None:  # the results are its stdout
            (OUT / f"{name}.out").write_text(done.stdout, encoding="utf-8")
            saved.append(f"{name}.out")
        elif name == "maven":
            reports = sorted((project / "target" / "surefire-reports").glob("TEST-*.xml"))
            for report in reports:
                shutil.copyfile(report, OUT / f"{name}-{report.name}")
                saved.append(f"{name}-{report.name}")
        else:
            suffix = prepared.results.suffix
            shutil.copyfile(prepared.results, OUT / f"{name}.results{suffix}")
            saved.append(f"{name}.results{suffix}")
    finally:
        shutil.rmtree(private, ignore_errors=True)
    meta = {
        "command": command,
        "ran": [a.replace(str(private), "PRIVATE") for a in prepared.argv],
        "cwd": str(project),
        "exit_status": done.returncode,
        "files": saved,
        "stderr": done.stderr[-4000:],
    }
    (OUT / f"{name}.meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return f"{name}: exit {done.returncode}, saved {', '.join(saved)}"


def main(names: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agentout-runners-") as tmp:
        for name in names or list(COMMANDS):
            print(_record(name, Path(tmp)))


if __name__ == "__main__":
    main(sys.argv[1:])
