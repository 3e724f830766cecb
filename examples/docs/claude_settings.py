"""A project's Claude Code permission rules, for the docs' examples of the hooks.

    python3 examples/docs/claude_settings.py --allow 'Bash(git log *)' [--ask RULE] [--deny RULE]

writes .claude/settings.json in the current folder with those rules.
"""

import argparse
import json
from pathlib import Path

parser = argparse.ArgumentParser()
for kind in ("allow", "ask", "deny"):
    parser.add_argument(f"--{kind}", action="append", default=[])
rules = vars(parser.parse_args())
Path(".claude").mkdir(exist_ok=True)
permissions = {kind: found for kind, found in rules.items() if found}
Path(".claude/settings.json").write_text(json.dumps({"permissions": permissions}, indent=2) + "\n")
