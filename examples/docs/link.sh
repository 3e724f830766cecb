#!/usr/bin/env bash
# Link paths of the repository into the current folder (a sandbox), so that a docs example
# reads them by the same relative paths while whatever it writes stays in the sandbox.
#     link.sh examples .venv
set -euo pipefail
for path in "$@"; do
  mkdir -p "$(dirname "$path")"
  ln -sfn "$REPO/$path" "$path"
done
