#!/usr/bin/env bash
# agentout's MCP server over HTTP for the docs' examples of it, in the background:
#     serve.sh PORT TOKEN ROOT
# stateless, on loopback, clients must hold TOKEN; returns once /healthz answers.
set -euo pipefail
port=$1 token=$2 root=$3
mkdir -p "$root"
AGENTOUT_SERVE_TOKEN=$token agentout serve --http "$port" --host 127.0.0.1 --stateless \
  --root "$root" > "$TMPDIR/serve.log" 2>&1 &
for _ in $(seq 600); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && exit 0
  sleep 0.1
done
cat "$TMPDIR/serve.log"
exit 1
