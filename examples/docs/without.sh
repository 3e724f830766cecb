#!/usr/bin/env bash
# A Python without a package, for the docs' examples of what agentout does then:
#     without.sh DIR NAME...
# makes DIR/NAME/__init__.py raise ImportError, so that with PYTHONPATH=DIR importing
# NAME fails as it would were NAME not installed.
set -euo pipefail
dir=$1
shift
for name in "$@"; do
  mkdir -p "$dir/$name"
  echo "raise ImportError('$name is hidden for this example')" > "$dir/$name/__init__.py"
done
