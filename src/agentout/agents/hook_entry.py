"""The file an agent's hook runs, with ``python -S``: the thin client of the warm hook
server (``agentout.agents.hook_client``), imported from its cached bytecode, where a
script run by name is compiled again at every start."""

import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from hook_client import main  # type: ignore[import-not-found]  # this folder's module

    del sys.path[0]  # the modules beside this file never shadow what a cold answer imports
    sys.exit(main())
