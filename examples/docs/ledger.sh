#!/usr/bin/env bash
# A savings ledger for the docs' examples of `agentout gain`: the shop repository of
# shop.sh (with examples/ linked in), then five deliveries made in it: fit twice, run
# twice (a long output, run as in a Claude Code session, whose client would have shown a
# preview of it; and one that fits), and a records query (no raw count).
set -euo pipefail
bash "$(dirname "$0")/shop.sh" --examples
agentout fit examples/data/incidents.json --max-tokens 200 > /dev/null
agentout fit examples/data/events.jsonl --max-tokens 250 > /dev/null
CLAUDECODE=1 agentout run -- seq 1 50000 > /dev/null
agentout run -- git log --oneline -5 > /dev/null
agentout records examples/kb > /dev/null
