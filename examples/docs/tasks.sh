#!/usr/bin/env bash
# The task-runner projects of docs/tasks.md, made under the folder given:
#   proj/  a copy of examples/tasks (a Makefile; ruff finds five problems, three tests fail)
#   j/     the justfile shown on that page, beside proj
#   n/     the package.json shown on that page, beside proj
set -euo pipefail
top=$1
mkdir -p "$top/j" "$top/n"
mkdir -p "$top/proj"
cp -R "$REPO/examples/tasks/." "$top/proj/"
cat > "$top/j/justfile" <<'JUST'
set shell := ["bash", "-uc"]

lint:
    ruff check --no-cache --select F ../proj/src

where:
    cd ../proj && pwd
    pwd
JUST
cat > "$top/n/package.json" <<'JSON'
{
  "name": "demo",
  "private": true,
  "scripts": {
    "pretest": "ruff check --no-cache --select F ../proj/src",
    "test": "cd ../proj && pytest -q -p no:cacheprovider tests"
  }
}
JSON
