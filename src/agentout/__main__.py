"""``python -m agentout``: the same command as ``agentout`` (the hook's rewrites use it
when agentout was not started as its own script)."""

from agentout.cli import main

if __name__ == "__main__":
    main()
