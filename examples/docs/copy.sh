#!/usr/bin/env bash
# Copy what folders of the repository hold into the current folder (a sandbox), without
# what a build or a run left there, for a docs example that writes where it runs.
#     copy.sh examples/runners/rust
set -euo pipefail
for path in "$@"; do
  cp -R "$REPO/$path/." .
done
find . \( -name __pycache__ -o -name .pytest_cache -o -name target -o -name node_modules \) \
  -prune -exec rm -rf {} +
