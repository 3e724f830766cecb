"""Gemini CLI's AfterTool hook on real commands, for the docs' examples of what it saves.

    python3 examples/docs/gemini.py COMMAND...

runs each COMMAND (bash -c) in the current folder and hands ``agentout hook gemini`` the
payload Gemini CLI 0.61.0 builds for it (``llmContent`` as its shell tool writes it:
``Output:``, ``Exit Code:``, the process group, inside ``<untrusted_context>``); the
answers are not printed, the ledger keeps what each saved.
"""

import json
import os
import subprocess
import sys

for command in sys.argv[1:]:
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    parts = [f"Output: {(done.stdout + done.stderr).rstrip() or '(empty)'}"]
    if done.returncode:
        parts.append(f"Exit Code: {done.returncode}")
    parts.append("Process Group PGID: 4242")
    text = "\n".join(parts).replace("</untrusted_context>", "&lt;/untrusted_context&gt;")
    payload = {
        "session_id": "docs-session",
        "cwd": os.getcwd(),
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "run it"},
        "tool_response": {
            "llmContent": f"<untrusted_context>\n{text}\n</untrusted_context>",
            "returnDisplay": "",
        },
    }
    subprocess.run(
        ["agentout", "hook", "gemini"], input=json.dumps(payload), text=True,
        capture_output=True, check=True,
    )  # fmt: skip
