#!/usr/bin/env bash
# A Python file with a hundred problems ruff finds (unused imports and variables), made in
# the current folder as app.py, for the docs' examples of linters through agentout.
set -euo pipefail
python3 - <<'PY'
lines = [f"import module_{n}" for n in range(40)]
for n in range(60):
    lines += ["", "", f"def step_{n}(value):", f"    unused_{n} = value * {n}", "    return value"]
open("app.py", "w").write("\n".join(lines) + "\n")
PY
