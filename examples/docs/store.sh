#!/usr/bin/env bash
# A spill store for the docs' examples of `agentout clean`: six files agentout wrote just
# now, one it wrote ten days ago (600 bytes), and a notes.txt of the user's, ten days old.
set -euo pipefail
store=$AGENTOUT_SPILL_DIR
mkdir -p "$store"
for name in records-0391772c5d76b780.jsonl records-74ce244d6a1fb1bd.jsonl \
  run-5917deb629c6333f.log run-86d640e972f432ad.log run-e1cb19ee2fbf7283.log \
  run-ff764085977ef3dc.log; do
  echo "kept by agentout" > "$store/$name"
done
head -c 600 /dev/zero | tr '\0' x > "$store/run-5f9f4524768b7d86.log"
echo "the user's own file" > "$store/notes.txt"
touch -d '10 days ago' "$store/run-5f9f4524768b7d86.log" "$store/notes.txt"
