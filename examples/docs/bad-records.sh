#!/usr/bin/env bash
# Inputs `agentout records` cannot read whole, made in the current folder for the docs:
#   mixed.jsonl  good lines around a NaN, a line nested 200 deep and a Latin-1 byte
#   deep.yaml    a YAML document nested 200 deep
#   kb-bad/      the example knowledge base's security patterns, a binary blob.json, an
#                empty.json and a pattern with broken YAML
#   allbad/      only a broken JSON and a broken YAML file
#   bomb.yaml    YAML aliases that would expand a billion times (billion laughs)
set -euo pipefail
python3 - <<'PY'
deep = "[" * 200 + "]" * 200
with open("mixed.jsonl", "wb") as out:
    out.write(b'{"id": 1, "ratio": 0.5}\n')
    out.write(b'{"id": 2, "ratio": NaN}\n')
    out.write(deep.encode() + b"\n")
    out.write(b'{"id": 4, "name": "caf\xe9"}\n')
    out.write(b'{"id": 5, "ratio": 1.5}\n')
with open("deep.yaml", "w") as out:
    out.write("id: 7\nitems:\n  " + deep + "\n")
laughs = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
for n in range(1, 9):
    previous, name = chr(ord("a") + n - 1), chr(ord("a") + n)
    laughs.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
with open("bomb.yaml", "w") as out:
    out.write("\n".join(laughs) + "\n")
PY
mkdir -p kb-bad/security allbad
cp "$REPO"/examples/kb/security/*.yaml kb-bad/security/
printf 'GIF89a\x01\x00\x01\x00\x00\x00\x00;' > kb-bad/blob.json
: > kb-bad/empty.json
printf 'id: SEC-NEW-001\nname: A pattern not finished\ntags: [a, b\nseverity: critical\n' \
  > kb-bad/security/SEC-NEW-001.yaml
printf '{"id": 1,\n}\n' > allbad/a.json
printf 'id: 2\n- : [\n' > allbad/b.yaml
