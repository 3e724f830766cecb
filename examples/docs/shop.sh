#!/usr/bin/env bash
# A small repository for the docs' examples of `agentout run`, made in the current folder:
# three commits by Ada Lovelace, a staged change to src/cart.py, an unstaged one to
# src/discounts.py, an untracked notes.py, and two imports ruff finds unused.
# With --examples, the repository's examples/ is linked in too (git does not see it).
set -euo pipefail
export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL="ada@example.com"
export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL="ada@example.com"
commit() {
  GIT_AUTHOR_DATE="$1T10:00:00Z" GIT_COMMITTER_DATE="$1T10:00:00Z" git commit -q -m "$2"
}

git init -q -b main
mkdir -p src
cat > src/cart.py <<'PY'
import os
import sys


def total(items):
    return sum(price * qty for price, qty in items)
PY
git add src/cart.py
commit 2026-11-20 "Cart: total of the items"

cat >> src/cart.py <<'PY'


def total_after(items, discount):
    return total(items) - discount
PY
git add src/cart.py
commit 2026-11-21 "Cart: a discount on the total"

cat > src/discounts.py <<'PY'
CODES = {"SAVE10": 10, "SAVE20": 20}


def amount(code):
    return CODES.get(code, 0)
PY
git add src/discounts.py
commit 2026-11-22 "Discounts: codes and their amounts"

sed -i 's/return total(items) - discount/return max(total(items) - discount, 0)/' src/cart.py
git add src/cart.py
echo 'CODES["OFF5"] = 5' >> src/discounts.py
echo 'print("notes")' > notes.py

if [ "${1:-}" = "--examples" ]; then
  ln -s "$REPO/examples" examples
  echo examples >> .git/info/exclude
fi
