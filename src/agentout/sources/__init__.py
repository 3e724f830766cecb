"""Sources: adapters that turn a domain's output into records, knowing nothing of budgets.

Each source lives in its own module or package and is imported on its own, so using one
never pays for another: ``agentout.read.data`` reads JSON, JSONL and text files.
"""
