"""``python -m agentout``: the ``agentout`` command."""

from agentout.cli import main

if __name__ == "__main__":
    main()
