#!/usr/bin/env bash
# The main job on the bundled examples: count what a file costs an agent, then fit it
# into the agent's budget. Run by `make demo` as: bash examples/demo.sh .venv/bin
set -euo pipefail
# The demo's runs are not your work: they stay out of `agentout gain` (the references it
# prints still work, the outputs are kept in your store as any run's are).
export AGENTOUT_LEDGER=0

BIN="$(cd "${1:-.venv/bin}" && pwd)"
cd "$(dirname "$0")/.."
agentout() { "$BIN/agentout" "$@"; }
DATA=examples/data
BOLD="" PLAIN=""
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; fi

step() { printf '\n%s== %s%s\n$ %s\n' "$BOLD" "$1" "$PLAIN" "$2"; }

step "What the examples cost an agent, in exact o200k_base tokens" \
  "agentout count $DATA/*"
agentout count "$DATA"/*

step "The same, as JSON, with the GPT-4 tokenizer (cl100k_base)" \
  "agentout count --json --tokenizer gpt-4 $DATA/incidents.json"
agentout count --json --tokenizer gpt-4 "$DATA/incidents.json"

step "160 incidents (186 KB of JSON) into 400 tokens: whole records, the rest counted" \
  "agentout fit $DATA/incidents.json --max-tokens 400"
agentout fit "$DATA/incidents.json" --max-tokens 400

step "2000 events (JSONL) into 300 tokens, as JSON" \
  "agentout fit $DATA/events.jsonl --max-tokens 300 --format json"
agentout fit "$DATA/events.jsonl" --max-tokens 300 --format json

step "The same budget, letting agentout pick the smallest lossless format" \
  "agentout fit $DATA/events.jsonl --max-tokens 300 --format auto"
agentout fit "$DATA/events.jsonl" --max-tokens 300 --format auto

step "A log from stdin, with the agent preset (3 records, 500 tokens)" \
  "sed -n '1400,1500p' $DATA/app.log | agentout fit --preset agent"
sed -n '1400,1500p' "$DATA/app.log" | agentout fit --preset agent

step "A vault of 32 Markdown notes: the index first, within 400 tokens" \
  "agentout notes index examples/vault --max-tokens 400"
agentout notes index examples/vault --max-tokens 400

step "Then one note whole, with its links both ways" \
  "agentout notes context examples/vault --note budgets --with-body --with-edges --max-tokens 700"
agentout notes context examples/vault --note budgets --with-body --with-edges --max-tokens 700

step "A failing pytest suite, reported for an agent (the plugin; full report kept aside)" \
  "agentout test -- examples/failing_suite"
agentout test -- examples/failing_suite || echo "(exit status $?: the suite has failures)"

step "JUnit XML from any runner (here go-junit-report), in the same report" \
  "agentout test examples/junit/go-junit-report.xml"
agentout test examples/junit/go-junit-report.xml || echo "(exit status $?)"

step "Any command: the lines that matter within budget, the complete output in the store" \
  "agentout run --max-tokens 300 -- python3 examples/logs/noisy_install.py"
agentout run --max-tokens 300 -- python3 examples/logs/noisy_install.py || echo "(exit status $?, the command's own)"

step "A knowledge base, queried in agent mode (3 records, 500 tokens)" \
  "agentout records examples/kb --query 'sql injection'"
agentout records examples/kb --query 'sql injection'

step "Bad input is refused with its location and exit status 2" \
  "printf '{\"id\": 1}\\n{\"id\": 2,}\\n' | agentout fit --max-tokens 100"
status=0
printf '{"id": 1}\n{"id": 2,}\n' | agentout fit --max-tokens 100 || status=$?
echo "(exit status $status)"
